"""`--help` reads well at 80 columns for every command: no name cut, no squeezed descriptions, plain
names for values; `-h` and `--version` work; the defaults it states are each game's."""

from __future__ import annotations

from importlib.metadata import metadata, version

import pytest
import typer.main

from harness.cli.app import app
from tests.conftest import arena_here


def command_paths() -> list[list[str]]:
    """Every command and group of the app, as the words that name it ([] is arena itself)."""
    found: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


PATHS = command_paths()


def help_text(path: list[str], monkeypatch: pytest.MonkeyPatch, option: str = "--help") -> str:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = arena_here(*path, option)
    assert (code, err) == (0, ""), (path, err)
    return out


def test_every_command_is_listed() -> None:
    assert [" ".join(path) for path in PATHS] == [
        "", "moves", "match", "solve", "tournament", "report", "merge", "sprt", "play", "games", "replay", "repro",
        "analyse", "export", "import", "validate", "class", "cluster", "cluster certs", "cluster scheduler",
        "cluster worker"]


@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "arena")
def test_help_at_80_columns_cuts_nothing_and_leaves_descriptions_room(path: list[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    text = help_text(path, monkeypatch)
    lines = text.splitlines()
    assert lines[0].startswith("Usage: arena")
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert "…" not in text
    assert "{" not in lines[0] and "<" not in lines[0], lines[0]  # arguments as words: arena solve [OPTIONS] [FILE]
    for placeholder in ("<str>", "<int", "<float", "<bool>", "<path>", "<list["):
        assert placeholder not in text, placeholder
    sections = {"Arguments:", "Options:", "Commands:"}
    section = None
    for line in lines:
        if line in sections:
            section = line
            continue
        if section is None or not line.strip():
            continue
        if section == "Commands:":
            assert not line.endswith("..."), f"a command's summary is cut: {line!r}"
        # A row or its continuation: the description column starts where the text after the name does.
        start = len(line) - len(line.lstrip())
        text_column = start if start > 2 else next(
            (index + 2 for index in range(start, len(line) - 2) if line[index:index + 2] == "  " and line[index + 2] != " "),
            None)
        if text_column is not None:
            assert 80 - text_column >= 30, f"description squeezed to {80 - text_column} columns: {line!r}"


@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "arena")
def test_dash_h_is_help(path: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert help_text(path, monkeypatch, "-h") == help_text(path, monkeypatch)


def test_version_prints_the_installed_version() -> None:
    assert arena_here("--version") == (0, f"arena {version('betsy-arena')}\n", "")


def test_help_and_package_description_name_all_three_games(monkeypatch: pytest.MonkeyPatch) -> None:
    assert " ".join(help_text([], monkeypatch).split()).startswith(
        "Usage: arena [OPTIONS] COMMAND [ARGS]... Betsy Arena: tournaments, validation and engines for Betsy, "
        "Connect Four and All The King's Horses. Options:")
    assert metadata("betsy-arena")["Summary"] == (
        "Tournament harness, validator and engines for the board games Betsy, Connect Four and All The King's Horses")


@pytest.mark.parametrize("command", ["match", "play", "sprt"])
def test_size_help_names_each_games_default(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = " ".join(help_text([command], monkeypatch).split())
    assert "Board size: n for betsy (default 5), WxH for connect4 (default 8x8), N for kings-horses (default 8)." in text


def test_solve_offers_the_one_game_it_solves(monkeypatch: pytest.MonkeyPatch) -> None:
    text = " ".join(help_text(["solve"], monkeypatch).split())
    assert "--game GAME The game: connect4 only" in text
    assert "betsy" not in text and "kings-horses" not in text
