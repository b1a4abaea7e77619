"""The report's header says what the database holds, for every kind of database (a tournament, the
games of arena play, an SPRT test, a merge, an import of either or of games of any other config),
the same in text, JSON and HTML."""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ARENA, arena

RIGHTMOST = """\
import sys

size, player, board = sys.argv[1:4]
width, height = (int(part) for part in size.split("x"))
for column in range(width, 0, -1):
    rows = [row for row in range(height) if board[row * width + column - 1] == "."]
    if rows:
        cell = rows[-1] * width + column - 1
        print(column, board[:cell] + player + board[cell + 1:])
        break
"""
"""A Connect Four engine that drops into the rightmost column with room: x playing column 1 four
times wins at ply 7."""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database written by arena play: one Connect Four 4x4 game, won by the person."""
    folder = tmp_path_factory.mktemp("played")
    (folder / "rightmost").mkdir()
    (folder / "rightmost" / "rightmost.py").write_text(RIGHTMOST)
    done = subprocess.run([ARENA, "play", "--game", "connect4", "--size", "4x4", "--engine",
                           "python3 rightmost/rightmost.py", "--db", "play.sqlite"], cwd=folder,
                          input="1\n1\n1\n1\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "You win!" in done.stdout
    return folder / "play.sqlite"


def headers(db: Path, tmp_path: Path) -> tuple[str, dict[str, object], str, str]:
    """The header line of the text report, the JSON's kind and title, and the index page's h1 and
    meta line."""
    text = arena("report", str(db))
    assert text.returncode == 0, text.stderr
    data = json.loads(arena("report", str(db), "--json").stdout)
    pages = arena("report", str(db), "--html", str(tmp_path / "pages"))
    assert pages.returncode == 0, pages.stderr
    index = (tmp_path / "pages" / "index.html").read_text(encoding="utf-8")
    h1 = html.unescape(re.search(r"<h1>(.*?)</h1>", index).group(1))  # type: ignore[union-attr]
    meta = html.unescape(re.search(r'<p class="meta">(.*?); started ', index).group(1))  # type: ignore[union-attr]
    assert data["title"] == text.stdout.splitlines()[0] == meta
    return text.stdout.splitlines()[0], {"kind": data["kind"], "title": data["title"]}, h1, meta


PLAY_HEADER = ("Games played at the terminal ('play', #1): 1 game, Connect Four 4x4, 1 s per move, "
               "a person against python3 rightmost/rightmost.py")


def test_the_games_of_arena_play_are_said_as_such(played: Path, tmp_path: Path) -> None:
    line, data, h1, _ = headers(played, tmp_path)
    assert line == PLAY_HEADER
    assert data["kind"] == "play"
    assert h1 == "Games played at the terminal"


def test_a_tournament_says_its_games_sizes_clock_and_format(tiny_db: Path, tmp_path: Path) -> None:
    line, data, h1, _ = headers(tiny_db, tmp_path)
    assert line == "Tournament 'tiny' (#1): 2 games, n = 3, 1 s per move, round-robin"
    assert data["kind"] == "tournament"
    assert h1 == "Tournament tiny"


def test_merged_shares_are_their_tournament(tiny_db: Path, tmp_path: Path) -> None:
    merged = tmp_path / "merged.sqlite"
    assert arena("merge", str(merged), str(tiny_db)).returncode == 0
    line, data, h1, _ = headers(merged, tmp_path)
    assert line == "Tournament 'tiny' (#1): 2 games, n = 3, 1 s per move, round-robin"
    assert (data["kind"], h1) == ("tournament", "Tournament tiny")


def test_imported_games_keep_the_header_of_their_kind(played: Path, tmp_path: Path) -> None:
    exported = tmp_path / "games.jsonl"
    exported.write_text(arena("export", str(played)).stdout)
    imported = tmp_path / "imported.sqlite"
    assert arena("import", str(imported), str(exported)).returncode == 0
    assert headers(imported, tmp_path)[0] == PLAY_HEADER


def test_imported_games_of_another_config_say_what_was_played(played: Path, tmp_path: Path) -> None:
    line = json.loads(arena("export", str(played)).stdout)
    line["tournament"]["name"] = "lab"
    line["tournament"]["config"] = {"week": 3}
    exported = tmp_path / "lab.jsonl"
    exported.write_text(json.dumps(line) + "\n")
    imported = tmp_path / "lab.sqlite"
    done = arena("import", str(imported), str(exported))
    assert done.returncode == 0, done.stderr
    header, data, h1, _ = headers(imported, tmp_path)
    assert header == "Games 'lab' (#1): 1 game, Connect Four 4x4"
    assert (data["kind"], h1) == ("games", "Games of lab")


@pytest.mark.slow
def test_an_sprt_database_is_its_two_engine_gauntlet(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    done = arena("sprt", "greedy", "random", "--elo0", "0", "--elo1", "100", "--n", "3", "--max-pairs", "1",
                 "--db", str(db), "--concurrency", "2")
    assert done.returncode == 0, done.stderr
    line, data, h1, _ = headers(db, tmp_path)
    assert line == "Tournament 'sprt-greedy-vs-random' (#1): 2 games, n = 3, 1 s per move, gauntlet"
    assert (data["kind"], h1) == ("tournament", "Tournament sprt-greedy-vs-random")
