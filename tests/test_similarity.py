"""Similar submissions (harness/course/similarity.py): normalised tokens, winnowed fingerprints, source
pairs with common code dropped, probe positions, and move agreement -- each with expectations derived
by hand here, not by the module."""

from __future__ import annotations

import hashlib
import os
import random
import re
import tokenize
from pathlib import Path

import pytest

from harness.course.similarity import (
    K, W, Fingerprint, MoveMatch, Span, Token, compare, fingerprint_folder, fingerprint_tokens, is_quiet,
    kgram_hash, merge_spans, move_agreement, normalised_tokens, probe_positions, similar_moves,
    similar_sources, winnow,
)
from harness.games.registry import get_game
from tests.conftest import ROOT

STUDENTS = ROOT / "tests" / "fake_engines" / "students"

PROGRAM = '''#!/usr/bin/env python3
"""Plays Betsy: one ply of look-ahead."""
import sys


def parse_board(n, text):
    """Columns from the bottom up."""
    columns = [[] for _ in range(n)]
    for row in range(n + 3 - 1, -1, -1):
        for col in range(n):
            cell = text[row * n + col]
            if cell != ".":
                columns[col].append(cell)
    return columns


def count_lines(columns, n, colour):
    total = 0
    for start in range(n):
        run = 0
        for col in range(start, n):
            height = len(columns[col])
            if height > 0 and columns[col][height - 1] == colour:
                run += 1
            else:
                break
        total += run * run
    return total


def choose(columns, n, colour):
    best, best_score = None, -1
    for col in range(n):
        if len(columns[col]) < n + 3:
            columns[col].append(colour)
            score = count_lines(columns, n, colour)
            columns[col].pop()
            if score > best_score:
                best, best_score = col + 1, score
    return best


if __name__ == "__main__":
    size = int(sys.argv[1])
    board = parse_board(size, sys.argv[3])
    print(choose(board, size, sys.argv[2]))
'''

RENAMES = {"parse_board": "read_grid", "columns": "stacks", "row": "r", "col": "c", "cell": "ch",
           "count_lines": "score_runs", "colour": "me", "total": "acc", "start": "s0", "run": "streak",
           "height": "h", "choose": "pick", "best": "answer", "best_score": "top", "score": "value",
           "size": "width", "board": "grid", "text": "raw", "n": "k"}


def rename(source: str) -> str:
    """``source`` with every identifier of RENAMES renamed (whole words only)."""
    return re.sub(r"\b(" + "|".join(sorted(RENAMES, key=len, reverse=True)) + r")\b",
                  lambda match: RENAMES[match.group()], source)


def disguised(source: str) -> str:
    """A copy a student would hand in: identifiers renamed, comments and docstrings changed, blank
    lines and trailing comments added."""
    text = rename(source)
    text = text.replace('"""Plays Betsy: one ply of look-ahead."""', "# my own engine, honest\n'''Greedy.'''")
    text = text.replace('    """Columns from the bottom up."""\n', "    # build the stacks\n\n\n")
    return text.replace("    return acc\n", "\n    return acc  # the sum of squares\n\n")


def fingerprint_of(name: str, source: str) -> Fingerprint:
    return fingerprint_tokens([(name, normalised_tokens(source, ".py"))])


def symbols(source: str, suffix: str = ".py") -> list[str]:
    return [token.symbol for token in normalised_tokens(source, suffix)]


# --- tokens ---------------------------------------------------------------------------------------

def test_tokens_drop_comments_docstrings_and_layout_and_name_every_identifier_v() -> None:
    source = ('"""Module docstring."""\n# a comment\n\ndef f(a, b=2):\n    """Doc."""\n'
              '    return len(a) + b * 3.5  # why\n\n\nx = f("s", b=0x1F)\n')
    assert symbols(source) == ["def", "V", "(", "V", ",", "V", "=", "N", ")", ":",
                               "return", "len", "(", "V", ")", "+", "V", "*", "N",
                               "V", "=", "V", "(", "S", ",", "V", "=", "N", ")"]
    assert [token.line for token in normalised_tokens(source, ".py")][:3] == [4, 4, 4]


def test_string_that_is_part_of_an_expression_is_kept() -> None:
    assert symbols('x = "a"\nprint("b")\n"alone"\n') == ["V", "=", "S", "print", "(", "S", ")"]


def test_python2_source_tokenizes_with_print_statements_backticks_and_mixed_tabs() -> None:
    # The third line's indentation matches no outer level: tokenize gives up, the fallback does not.
    source = ("def f(a):\n"
              "\tif a <> 1:\n"
              "      print `a`, 10L\n"
              "    return a\n"
              "try:\n    x = 1\nexcept ValueError, e:\n    print >>sys.stderr, 'no'\n")
    with pytest.raises((IndentationError, tokenize.TokenError)):
        list(tokenize.generate_tokens(iter(source.splitlines(keepends=True)).__next__))
    assert symbols(source) == ["def", "V", "(", "V", ")", ":",
                               "if", "V", "<", ">", "N", ":",
                               "print", "`", "V", "`", ",", "N", "V",
                               "return", "V",
                               "try", ":", "V", "=", "N",
                               "except", "ValueError", ",", "V", ":",
                               "print", ">>", "V", ".", "V", ",", "S"]
    assert [token.line for token in normalised_tokens(source, ".py")][12:19] == [3] * 7


def test_python2_file_of_the_fake_engines_tokenizes() -> None:
    source = (ROOT / "tests" / "fake_engines" / "python2_print.py").read_text()
    assert symbols(source) == ["print", "S"]


def test_unterminated_string_and_stray_characters_do_not_raise() -> None:
    assert symbols("x = 'abc\ny = $ ?\nz = '''never closed\n") == ["V", "=", "'", "V", "V", "=", "$", "?",
                                                                     "V", "=", "S"]


def test_c_like_files_drop_comments_and_keep_keywords() -> None:
    source = '#include <stdio.h>\n/* block\ncomment */\nint main(void) { // hi\n  return printf("%d", 42) >= 0;\n}\n'
    assert symbols(source, ".c") == ["#", "include", "<", "V", ".", "V", ">",
                                     "int", "V", "(", "void", ")", "{",
                                     "return", "V", "(", "S", ",", "N", ")", ">=", "N", ";", "}"]
    assert [token.line for token in normalised_tokens(source, ".c")][7] == 4


def test_regex_tokenizer_agrees_with_tokenize_on_every_python_file_of_the_project() -> None:
    from harness.course import similarity

    files = sorted(path for folder in ("harness", "engines", "tests", "scripts") for path in (ROOT / folder).rglob("*.py"))
    assert len(files) > 100
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        exact = similarity._drop_docstrings(list(similarity._python_tokens(text)))
        assert similarity._drop_docstrings(list(similarity._python_regex_tokens(text))) == exact, path


# --- winnowing and hashes -------------------------------------------------------------------------

def test_winnow_picks_the_fingerprints_of_the_papers_example() -> None:
    # Schleimer, Wilkerson, Aiken 2003, figure 2: window 4 keeps 17 17 8 39 17 at positions 3 6 8 11 15.
    hashes = [77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98]
    assert winnow(hashes, 4) == [3, 6, 8, 11, 15]
    assert winnow([5, 3, 3], 4) == [2]
    assert winnow([], 4) == []


def test_kgram_hash_is_a_fixed_value() -> None:
    gram = ["def", "V", "(", "V", ")", ":", "return", "V", "+", "N", "V", "="]
    assert kgram_hash(gram) == 0x3E8B8CF607D4C58A
    assert kgram_hash(gram) == int(hashlib.blake2b("\x1f".join(gram).encode(), digest_size=8).hexdigest(), 16)


def test_fingerprint_of_a_fixed_program_is_the_same_everywhere() -> None:
    fingerprint = fingerprint_of("p.py", PROGRAM)
    assert sorted(fingerprint.hashes)[:3] == [0x011BD78D75B2262D, 0x0190A3560DF8A03C, 0x047F26D3362E22E4]


def test_merge_spans_joins_overlapping_and_adjacent_lines_per_file() -> None:
    spans = [Span("b.py", 3, 4), Span("a.py", 5, 9), Span("a.py", 1, 3), Span("a.py", 4, 4), Span("a.py", 11, 12)]
    assert merge_spans(spans) == (Span("a.py", 1, 9), Span("a.py", 11, 12), Span("b.py", 3, 4))


# --- comparing sources ----------------------------------------------------------------------------

def test_copy_with_identifiers_renamed_and_comments_and_blank_lines_changed_scores_one() -> None:
    copy = disguised(PROGRAM)
    assert "read_grid" in copy and "parse_board" not in copy and "# the sum of squares" in copy
    original, disguise = fingerprint_of("a.py", PROGRAM), fingerprint_of("b.py", copy)
    match = compare(original, disguise, names=("ann", "bob"))
    assert (match.a, match.b, match.score, match.a_share, match.b_share) == ("ann", "bob", 1.0, 1.0, 1.0)
    assert match.shared == len(original.hashes) == len(disguise.hashes)
    # One range of matching lines, from the first function to the last line.
    assert len(match.a_lines) == 1 and match.a_lines[0].first <= 7 and match.a_lines[0].last == 46


def test_one_file_rewritten_leaves_exactly_the_share_of_the_others() -> None:
    # Each file has 12 to 20 tokens: at most W k-grams, one window, so exactly one fingerprint each.
    files = {"one.py": "def f(a, b):\n    return a * b + 1\n",              # 8 + 6 tokens
             "two.py": "def g(a):\n    if a > 2:\n        return -a\n",       # 6 + 5 + 3
             "three.py": "for i in range(9):\n    print(i, i % 2)\n",       # 8 + 8
             "four.py": "while x < 10:\n    x = x + 3\n    y.append(x)\n"}  # 5 + 5 + 6
    counts = {name: len(normalised_tokens(text, ".py")) for name, text in files.items()}
    assert counts == {"one.py": 14, "two.py": 14, "three.py": 16, "four.py": 16}
    rewritten = dict(files, **{"four.py": "with open(p) as f:\n    data = f.read().split()\n"})
    a = fingerprint_tokens([(name, normalised_tokens(text, ".py")) for name, text in files.items()])
    b = fingerprint_tokens([(name, normalised_tokens(text, ".py")) for name, text in rewritten.items()])
    assert len(a.hashes) == 4 and len(b.hashes) == 4
    match = compare(a, b)
    assert (match.shared, match.a_share, match.b_share, match.score) == (3, 0.75, 0.75, 0.75)
    assert [span.file for span in match.a_lines] == ["one.py", "three.py", "two.py"]


def test_one_function_rewritten_keeps_the_share_winnowing_guarantees() -> None:
    """A = P X S, B = P Y S. A window of W k-grams that touches no token of X is in both, and picks
    the same k-gram in both, so a fingerprint of A missing from B can only be picked by one of the
    windows that touch X: k-grams overlapping X number |X| + K - 1, windows touching them
    |X| + K + W - 2, each picks one. Hence a_share >= 1 - (|X| + K + W - 2) / |A's fingerprints|."""
    old = PROGRAM[PROGRAM.index("def count_lines"):PROGRAM.index("def choose")]
    new = ("def count_lines(columns, n, colour):\n"
           "    return sum(1 for stack in columns if stack and stack[-1] == colour) ** 2\n\n\n")
    a = fingerprint_of("a.py", PROGRAM)
    b = fingerprint_of("b.py", PROGRAM.replace(old, new))
    match = compare(a, b)
    x = len(normalised_tokens(old, ".py")) - len(normalised_tokens("def count_lines(columns, n, colour):\n", ".py"))
    assert x == 3 + 8 + 3 + 10 + 9 + 17 + 3 + 2 + 1 + 5 + 2  # its eleven lines, counted by hand
    assert match.a_share >= 1 - (x + K + W - 2) / len(a.hashes)
    assert 0.5 < match.a_share < 1.0 and match.score < 1.0


def test_near_copy_inside_a_larger_program_scores_one() -> None:
    extra = "\n".join(f"def extra_{i}(q):\n    for z in q:\n        yield z {op} {i}, [z] * {i}\n"
                      for i, op in enumerate("+-*/%&|^"))
    small, large = fingerprint_of("a.py", PROGRAM), fingerprint_of("b.py", extra + "\n" + disguised(PROGRAM))
    match = compare(small, large)
    assert match.a_share == 1.0 and match.score == 1.0 and match.b_share < 0.9
    assert similar_sources({"small": small, "large": large}, threshold=0.9) == [
        compare(large, small, names=("large", "small"))]


def test_unrelated_student_programs_share_only_their_boilerplate_and_are_not_flagged(tmp_path: Path) -> None:
    prints = {}
    for name in ("random_legal", "greedy_student"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / f"{name}.py").write_bytes((STUDENTS / f"{name}.py").read_bytes())
        prints[name] = fingerprint_folder(folder)
    match = compare(prints["random_legal"], prints["greedy_student"])
    # What they share: the two lines that parse the position and list the moves (after the import),
    # and the final answer line; nothing else.
    assert {(span.first, span.last) for span in match.a_lines} <= {(6, 9), (7, 9), (8, 9), (13, 13)}
    assert {(span.first, span.last) for span in match.b_lines} <= {(5, 8), (6, 8), (7, 8), (10, 10)}
    assert match.score < 0.5
    assert similar_sources(prints, threshold=0.8) == []


def random_program(rng: random.Random, statements: int) -> str:
    """A program of random statements: code of its own, sharing no 20-token run with another."""
    lines = []
    for _ in range(statements):
        op, cmp = rng.choice("+-*/%&|^"), rng.choice(["<", ">", "<=", ">=", "==", "!="])
        lines.append(rng.choice([
            f"a = b {op} c {rng.choice('+-*')} {rng.randrange(9)}",
            f"if a {cmp} b:\n    return c {op} d",
            f"for i in range({rng.randrange(9)}):\n    t {op}= i",
            f"while a {cmp} len(b):\n    a += {rng.randrange(9)}",
            f"x = [y {op} 1 for y in z if y {cmp} 0]",
            f"d[k] = d.get(k, 0) {op} {rng.randrange(9)}",
            f"s = '{rng.randrange(9)}'.join(map(str, q))",
        ]))
    return "def f(a, b, c, d, q, z, k):\n" + "".join(f"    {line.replace(chr(10), chr(10) + '    ')}\n" for line in lines)


def test_shared_skeleton_is_dropped_and_a_real_copy_still_stands_out() -> None:
    rng = random.Random(41)
    skeleton = PROGRAM
    own = {name: random_program(rng, 60) for name in ("ann", "bob", "cat", "dan", "eve")}
    own["fay"] = own["ann"].replace("a = b", "a  =  b")  # ann's work, re-spaced
    prints = {name: fingerprint_of(f"{name}.py", skeleton + "\n\n" + code) for name, code in own.items()}
    kept = similar_sources(prints, threshold=0.5)
    assert [(m.a, m.b, m.score) for m in kept] == [("ann", "fay", 1.0)]
    # Without dropping the skeleton, unrelated students look alike.
    assert len(similar_sources(prints, threshold=0.3, common_share=1.0)) > 1
    # A class of two cannot tell its skeleton from a copy; the starter code as a base can.
    two = {name: prints[name] for name in ("ann", "bob")}
    assert similar_sources(two, threshold=0.3) != []
    assert similar_sources(two, threshold=0.3, base=fingerprint_of("starter.py", skeleton)) == []


def test_folder_with_binary_non_utf8_links_and_nothing_else_does_not_crash(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert fingerprint_folder(empty) == Fingerprint((), {}, 0, ())
    folder = tmp_path / "student"
    (folder / "pkg").mkdir(parents=True)
    (folder / "betsy.py").write_bytes(PROGRAM.replace("Plays Betsy", "Joue \xe0 Betsy").encode("latin-1"))
    (folder / "pkg" / "blob.py").write_bytes(b"\x7fELF\x00\x01\x02")
    (folder / "notes.txt").write_text(PROGRAM)
    (folder / "run").write_text("#!/usr/bin/env python3\n" + PROGRAM)
    (folder / "link.py").symlink_to(ROOT / "harness" / "rng.py")
    os.mkfifo(folder / "pipe.py")
    (folder / ".git").mkdir()
    (folder / ".git" / "hook.py").write_text(PROGRAM)
    fingerprint = fingerprint_folder(folder)
    assert fingerprint.files == ("betsy.py", "run")
    assert fingerprint.skipped == (("link.py", "not a regular file"), ("pipe.py", "not a regular file"),
                                   ("pkg/blob.py", "binary"))
    assert compare(fingerprint_of("x.py", PROGRAM), fingerprint).a_share == 1.0


def test_size_cap_cuts_the_file_that_crosses_it_and_leaves_out_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n" * 10)
    (tmp_path / "b.py").write_text("y = 2\n" * 10)
    (tmp_path / "c.py").write_text("z = 3\n")
    fingerprint = fingerprint_folder(tmp_path, max_bytes=90)
    assert fingerprint.files == ("a.py", "b.py")
    assert fingerprint.tokens == 10 * 3 + 5 * 3  # a.py whole, b.py's first 30 bytes: five lines
    assert fingerprint.skipped == (("b.py", "cut at the size cap"), ("c.py", "over the size cap"))


# --- probe positions ------------------------------------------------------------------------------

def brute_wins_in_one(position: object) -> bool:
    """Whether the side to move wins at once, by the rules' own fast check where the game has one."""
    return bool(position.has_winning_move())  # type: ignore[attr-defined]


@pytest.mark.parametrize(("game", "size"), [("betsy", "5"), ("betsy", "3"), ("connect4", "7x6"),
                                            ("connect4", "8x8"), ("kings-horses", "8")])
def test_probe_positions_are_legal_quiet_distinct_and_deterministic(game: str, size: str) -> None:
    rules = get_game(game)
    positions = probe_positions(rules, size, 30, seed=7)
    assert len(positions) == 30
    assert len({(p.player, p.board()) for p in positions}) == 30
    again = probe_positions(rules, size, 30, seed=7)
    assert [(p.player, p.board()) for p in again] == [(p.player, p.board()) for p in positions]
    assert [p.board() for p in probe_positions(rules, size, 30, seed=8)] != [p.board() for p in positions]
    for position in positions:
        checked = rules.position(size, position.player, position.board())  # the board is a legal one
        assert checked.winner() is None and checked.legal_moves()
        assert len(checked.legal_moves()) >= 6
        mover = checked.turn
        assert not any(checked.after(move).winner() == mover for move in checked.legal_moves())
        if game != "kings-horses":
            assert not brute_wins_in_one(checked)
            assert not checked.opponent_has_winning_move()  # type: ignore[attr-defined]


def test_probe_positions_of_connect4_are_in_the_middle_game() -> None:
    for position in probe_positions(get_game("connect4"), "7x6", 20, seed=3):
        discs = 42 - position.board().count(".")
        assert 10 <= discs <= 21


def test_is_quiet_sees_a_threat_to_stop() -> None:
    rules = get_game("connect4")
    # x has three in the bottom row with column 4 open: o to move must stop it.
    threatened = rules.position("7x6", "o", "." * 35 + "xxx.oo.")
    assert not is_quiet(threatened)
    assert is_quiet(rules.position("7x6", "o", "." * 35 + "x.x.o.."))


# --- move agreement -------------------------------------------------------------------------------

def test_move_agreement_counts_exactly_on_a_hand_built_table() -> None:
    answers: dict[str, list[int | None]] = {"ann": [1, 2, 3, 4, None],
                                            "bob": [1, 2, 3, 5, 6],
                                            "cat": [7, 2, None, 4, 6]}
    # Per position, the share of answering pairs that agree: 1/3, 3/3, 1/1, 1/3, 1/1.
    chance = [1 / 3, 1.0, 1.0, 1 / 3, 1.0]
    found = {(m.a, m.b): m for m in move_agreement(answers)}
    assert sorted(found) == [("ann", "bob"), ("ann", "cat"), ("bob", "cat")]
    ann_bob = found["ann", "bob"]
    assert (ann_bob.positions, ann_bob.same, ann_bob.share) == (4, 3, 0.75)
    assert ann_bob.expected == pytest.approx(sum(chance[:4]) / 4)
    ann_cat = found["ann", "cat"]
    assert (ann_cat.positions, ann_cat.same, ann_cat.share) == (3, 2, 2 / 3)
    assert ann_cat.expected == pytest.approx((chance[0] + chance[1] + chance[3]) / 3)
    bob_cat = found["bob", "cat"]
    assert (bob_cat.positions, bob_cat.same, bob_cat.share) == (4, 2, 0.5)
    # Agreements by chance: mean 1/3 + 1 + 1/3 + 1, variance 2 * (1/3)(2/3) = 4/9.
    assert bob_cat.sigmas == pytest.approx((2 - 8 / 3) / (2 / 3))


def test_similar_moves_flags_a_pair_far_above_the_class_and_not_a_class_that_plays_alike() -> None:
    rng = random.Random(5)
    answers: dict[str, list[int | None]] = {f"s{i}": [rng.randrange(1, 8) for _ in range(40)] for i in range(8)}
    answers["copy"] = list(answers["s3"])
    answers["copy"][0] = None
    answers["copy"][1] = 8  # one answer of its own
    flagged = similar_moves(answers)
    assert [(m.a, m.b, m.positions, m.same) for m in flagged] == [("copy", "s3", 39, 38)]
    alike = {f"s{i}": [1] * 40 for i in range(5)}
    assert all(m.share == 1.0 and m.sigmas == 0.0 for m in move_agreement(alike))
    assert similar_moves(alike) == []
    assert similar_moves({"a": [1] * 9, "b": [1] * 9, "c": [2] * 9}, threshold=0.9, minimum=10) == []


def test_move_match_is_a_plain_record() -> None:
    assert MoveMatch("a", "b", 1, 1, 1.0, 0.5) == MoveMatch("a", "b", 1, 1, 1.0, 0.5, 0.0)
    assert Token("V", 3) == ("V", 3)
