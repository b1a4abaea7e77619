"""The Game interface: what everything above the rules uses, the same way for every game."""

from __future__ import annotations

import pytest

from harness.games.errors import PositionError
from harness.games.registry import GAMES, RuleOptions, game_of, get_game


def test_games_are_registered_by_name() -> None:
    assert list(GAMES) == ["betsy", "connect4", "kings-horses"]
    with pytest.raises(PositionError, match="^unknown game 'chess': the games are betsy, connect4, kings-horses$"):
        get_game("chess")


@pytest.mark.parametrize(("name", "text", "canonical", "phrase"), [
    ("betsy", "05", "5", "n = 5"), ("betsy", 8, "8", "n = 8"),
    ("connect4", "7x6", "7x6", "7x6"), ("connect4", "08x08", "8x8", "8x8"),
    ("kings-horses", "015", "15", "coordinates 1..15"),
])
def test_sizes_are_canonical_text(name: str, text: str | int, canonical: str, phrase: str) -> None:
    game = get_game(name)
    assert game.parse_size(text) == canonical
    assert game.size_phrase(canonical) == phrase
    assert game.initial(canonical).size_text == canonical


def test_sizes_lists_are_checked_and_deduplicated() -> None:
    assert get_game("betsy").sizes("3, 5,3") == ("3", "5")
    assert get_game("connect4").sizes("7x6,8x8,7x6") == ("7x6", "8x8")
    with pytest.raises(PositionError, match="width and height from 4 to 12"):
        get_game("connect4").sizes("7x6,3x3")


def test_positions_argv_words_and_game_ends() -> None:
    betsy, c4 = get_game("betsy"), get_game("connect4")
    position = betsy.position("3", "x", "." * 18, RuleOptions("blue"))
    assert (position.win_priority, game_of(position)) == ("blue", betsy)
    assert betsy.argv(position, "2") == ["3", "x", "." * 18, "2"]
    assert (betsy.describe_move(2), betsy.describe_move(-2)) == ("drops into column 2", "rotates column 2")
    assert (betsy.move_kind(2), betsy.move_kind(-2)) == ("drop", "rotate")
    assert betsy.end_reason(position) is None and betsy.draws_by_repetition
    full = c4.position("4x4", "x", "xoxoxoxooxoxoxox")
    assert (c4.end_reason(full), game_of(full), c4.argv(full, "1")) == (
        "the board is full", c4, ["4x4", "x", "xoxoxoxooxoxoxox", "1"])
    horses = get_game("kings-horses")
    knights = horses.position("8", "o", "2,2,3,3,1,2,3,1")
    assert (game_of(knights), horses.argv(knights, "1")) == (horses, ["--move", "WHITE", "2", "2", "3", "3", "1", "2",
                                                                      "3", "1"])
    assert not horses.has_draws and horses.end_reason(knights) is None
    assert c4.end_reason(c4.initial("4x4")) is None and not c4.draws_by_repetition
    with pytest.raises(PositionError):
        c4.position("4x4", "o", "." * 16)


def test_render_numbers_the_columns_and_marks_the_last_move() -> None:
    c4 = get_game("connect4")
    position = c4.initial("4x4").after(3)
    assert c4.render(position, 3) == "\n".join([". . . .", ". . . .", ". . . .", ". . x .", "1 2 3 4", "    ^"])
    betsy = get_game("betsy")
    assert betsy.render(betsy.initial("1"), -1).splitlines()[-2:] == ["1", "^"]


def test_evaluation_and_suites_come_from_the_game() -> None:
    for game in GAMES.values():
        start = game.initial(game.default_size)
        assert isinstance(game.evaluate(start), int)
        if game.name == "kings-horses":  # its validation is its own (harness/validate/kings_horses.py)
            with pytest.raises(NotImplementedError):
                game.suites()
        else:
            assert game.suites() is not None


def test_stored_forms_of_sizes_are_each_games_own() -> None:
    betsy, c4, kh = GAMES.values()
    # Fingerprints, game ids and the n column as before games were plugins: existing databases resume.
    assert betsy.fingerprint_sizes(("3", "5")) == {"n": [3, 5]}
    assert c4.fingerprint_sizes(("7x6", "8x8")) == {"size": ["7x6", "8x8"]}
    assert kh.fingerprint_sizes(("8",)) == {"size": ["8"]}
    assert [betsy.game_id_prefix("5"), c4.game_id_prefix("7x6"), kh.game_id_prefix("15")] == ["n5", "7x6", "15"]
    assert [betsy.size_seed("12"), c4.size_seed("7x6"), c4.size_seed("12x4"), kh.size_seed("30")] == [12, 706, 1204, 30]
    assert [betsy.legacy_n("12"), betsy.legacy_n("x5"), c4.legacy_n("8x8"), kh.legacy_n("8")] == [12, None, None, None]
    assert [game.stores_n for game in (betsy, c4, kh)] == [True, False, False]
    assert [game.size_key for game in (betsy, c4, kh)] == ["n", "size", "size"]


def test_rule_options_and_words_are_each_games_own() -> None:
    betsy, c4, kh = GAMES.values()
    assert betsy.win_priorities == ("mover", "blue") and c4.win_priorities == kh.win_priorities == ("mover",)
    with pytest.raises(PositionError, match="^win_priority: expected one of mover, blue, got 'red'$"):
        betsy.initial("3", RuleOptions("red"))
    assert betsy.notation == "c drops into column c, -c rotates column c"
    assert c4.notation == "a column drops a disc into it"
    assert [game.full_board_verdict for game in (betsy, c4, kh)] == ["", "Tie game!", ""]
    assert [betsy.shaded_rows(5), c4.shaded_rows(7), kh.shaded_rows(4)] == [5, 0, 0]
    assert [game.shading_note for game in (betsy, c4, kh)] == ["the top n rows, where lines count", "", ""]
    assert [betsy.count_phrase(12), betsy.count_phrase(1), c4.count_phrase(1), kh.count_phrase(4)] == [
        "12 games", "1 game", "1 connect4 game", "4 kings-horses games"]
    assert [betsy.sizes_phrase(["3", "5"]), c4.sizes_phrase(["7x6", "8x8"]), kh.sizes_phrase(["8", "15"])] == [
        "n = 3, 5", "7x6, 8x8", "starts in 1..8, 1..15"]
    assert [game.answer_form for game in (betsy, c4, kh)] == [
        "MOVE NEWBOARD", "COLUMN NEWBOARD", "BLACK WILL WIN or WHITE WILL WIN, as the only line"]
    assert [game.validation_seconds for game in (betsy, c4, kh)] == [1, 1, 10]
    assert [game.own_validation for game in (betsy, c4, kh)] == [False, False, True]
    assert betsy.reference_elo == {"random": 0.0, "greedy": 370.0, "alphabeta": 860.0}
    assert c4.reference_elo == {"random": 0.0, "greedy": 645.0, "alphabeta": 1090.0} and kh.reference_elo == {}


def test_only_kings_horses_judges_its_start_positions_exactly() -> None:
    betsy, c4, kh = GAMES.values()
    assert betsy.start_oracle() is None and c4.start_oracle() is None
    judge = kh.start_oracle()
    assert judge is not None
    # The seed's example, BLACK 2 2 3 3 1 2 3 1: BLACK WILL WIN; white to move with no move loses.
    assert judge(kh.position("8", "x", "2,2,3,3,1,2,3,1")) == "x"
    assert judge(kh.position("8", "o", "3,3,5,5,1,1,2,2")) == "x"


def test_each_position_names_its_game() -> None:
    for game in GAMES.values():
        assert game_of(game.initial(game.default_size)) is game
    with pytest.raises(TypeError, match="^not a game position: 'x'$"):
        game_of("x")
