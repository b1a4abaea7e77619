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
