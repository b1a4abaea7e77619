"""The documentation is exact: the examples of README.md, docs/rules.md and docs/connect4.md, the
links between the pages, and the engines' --help.

Every example is checked by running the real command (as a subprocess) or by replaying it on the
rules cores (harness.games.betsy.rules, harness.games.connect4.rules).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from harness.games import connect4
from harness.games.betsy.rules import MAX_N, PLAYERS, Position, geometry
from harness.games.errors import PositionError

from tests.conftest import ARENA, ROOT, SEED_BOARD, TYPO_BOARD, cannot_run_here, run_program

README = ROOT / "README.md"
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"
CONNECT4 = DOCS / "connect4.md"
REFEREE = DOCS / "referee.md"
DESIGN = DOCS / "design.md"
KINGS = DOCS / "kings_horses.md"
PAGES = [README, RULES, CONNECT4, KINGS, REFEREE, DESIGN, DOCS / "measurements.md", DOCS / "cluster.md", DOCS / "class.md",
         DOCS / "analysis.md", DOCS / "verdicts.md"]
"""Every page of the documentation."""

ENGINE_MODULES = ["random_mover", "greedy", "alphabeta", "mcts_alphabeta", "homework", "strongest"]
"""Every engine module with a command line (``strongest`` is ``betsy``)."""


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def code_blocks(text: str) -> list[list[str]]:
    """The lines of every fenced code block, in order."""
    return [block.split("\n") for block in re.findall(r"^```[^\n]*\n(.*?)\n```", text, re.M | re.S)]


def command_examples(text: str, program: str) -> list[tuple[list[str], list[str]]]:
    """``(argv after the program, shown output lines)`` for each block starting ``$ PROGRAM ...``."""
    examples = []
    for lines in code_blocks(text):
        first = lines[0]
        if first.startswith(f"$ {program} "):
            command = first[2:].split("#", 1)[0]
            examples.append((shlex.split(command)[len(program.split()):], lines[1:]))
    return examples


def printed(result: subprocess.CompletedProcess[str]) -> list[str]:
    return (result.stdout + result.stderr).rstrip("\n").split("\n")


def size_of(board: str) -> int | None:
    """The n whose boards have this many cells, if any."""
    for n in range(1, MAX_N + 1):
        if geometry(n).cells == len(board):
            return n
    return None


def is_connect4_board(board: str) -> bool:
    """Whether ``board`` is a valid Connect Four board of some size, with either side to move."""
    sizes = [(w, h) for w in range(connect4.MIN_SIZE, connect4.MAX_SIZE + 1)
             for h in range(connect4.MIN_SIZE, connect4.MAX_SIZE + 1) if w * h == len(board)]
    for width, height in sizes:
        for player in "xo":
            try:
                connect4.Position.from_text(connect4.size_text(width, height), player, board)
            except PositionError:
                continue
            return True
    return False


def pipeline_examples(text: str, program: str) -> list[tuple[str, list[str], list[str]]]:
    """``(stdin, argv after the program, shown output lines)`` for each block starting
    ``$ echo ... | PROGRAM ...`` or ``$ printf '...' | PROGRAM ...``."""
    examples = []
    for lines in code_blocks(text):
        feed, bar, command = lines[0].removeprefix("$ ").partition(" | ")
        if not lines[0].startswith("$ ") or not bar or not command.startswith(f"{program} ") and command != program:
            continue
        words = shlex.split(feed)
        if words[0] == "echo":
            stdin = " ".join(words[1:]) + "\n"
        else:
            assert words[0] == "printf" and len(words) == 2, lines[0]
            stdin = words[1].replace("\\n", "\n")
        examples.append((stdin, shlex.split(command)[len(program.split()):], lines[1:]))
    return examples


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the page's headings (lowercase, punctuation dropped, spaces as -)."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


# --- README ---------------------------------------------------------------------------------------


def test_readme_arena_moves_example_is_what_the_program_prints() -> None:
    examples = command_examples(read(README), "scripts/arena moves")
    assert examples, "README shows no `$ scripts/arena moves ...` example"
    for args, shown in examples:
        result = run_program([ARENA, "moves", *args])
        assert result.returncode == 0, result.stderr
        assert shown == printed(result), f"README example `arena moves {' '.join(args)}` is out of date"


def test_readme_arena_moves_example_drop_into_column_1() -> None:
    """The line the issue reported: o drops into column 1 of the figure's board."""
    text = read(README)
    assert " 1  drop   1  o..x..o.ox.oxxxoxo  game goes on" in text
    assert "...o..o.ox.oxxxoxo" not in text
    assert Position.from_text(3, "o", SEED_BOARD).after(1).board() == "o..x..o.ox.oxxxoxo"


def test_readme_is_self_contained() -> None:
    text = read(README)
    assert "../shared" not in text
    assert "RULES.md" not in text
    assert "(docs/rules.md)" in text and "(docs/connect4.md)" in text
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not re.match(r"[a-z]+://", target):
            assert (ROOT / target).exists(), f"README links to {target}, which the project does not have"


def test_readme_invalid_position_example() -> None:
    text = read(README)
    match = re.search(r"`(arena: error: floating pebble[^`]*?): \.\.\.`", text)
    assert match is not None
    result = run_program([ARENA, "moves", "3", "o", TYPO_BOARD])
    assert result.returncode == 2
    assert result.stderr.startswith(match.group(1))
    assert result.stdout == ""


def test_readme_moves_json_fields() -> None:
    import json

    result = run_program([ARENA, "moves", "3", "o", SEED_BOARD, "--json"])
    assert result.returncode == 0
    moves = json.loads(result.stdout)
    assert all(set(entry) == {"move", "board", "winner"} for entry in moves)
    assert '`{"move": int, "board": str, "winner": "x" | "o" | null}`' in read(README)


def test_readme_engine_examples_answer_legally(python: str) -> None:
    from harness.games.registry import get_game

    runs = [
        line for lines in code_blocks(read(README)) for line in lines
        if line.startswith(".venv/bin/python -m engines.")
    ]
    assert len(runs) >= 4
    games = set()
    for line in runs:
        argv = shlex.split(line.split("#", 1)[0])
        result = run_program([python, *argv[1:]])
        assert result.returncode == 0, f"{line}: {result.stderr}"
        size, player, board = argv[3:6]
        game = get_game("connect4" if "x" in size else "betsy")
        games.add(game.name)
        move_text, new_board = result.stdout.split("\n")[-2].split()
        assert game.position(size, player, board).after(int(move_text)).board() == new_board
    assert games == {"betsy", "connect4"}


def _betsy_example() -> tuple[list[str], list[str]]:
    examples = command_examples(read(README), "scripts/betsy.py")
    assert len(examples) == 1, "README shows one `$ scripts/betsy.py ...` example with its output"
    return examples[0]


def test_readme_betsy_example_with_tables(python: str, n3_tables: str, monkeypatch: pytest.MonkeyPatch) -> None:
    args, shown = _betsy_example()
    monkeypatch.setenv("BETSY_TABLES", n3_tables)
    result = run_program([python, str(ROOT / "scripts" / "betsy.py"), *args])
    assert result.returncode == 0, result.stderr
    assert printed(result) == shown


def test_readme_betsy_example_without_tables(python: str) -> None:
    """Searching (the autouse fixture hides the tables): a friendly first line, then answers; the
    last line is a legal answer. One second instead of five keeps the test short."""
    args, shown = _betsy_example()
    n, player, board, _seconds = args
    result = run_program([python, str(ROOT / "scripts" / "betsy.py"), n, player, board, "1"])
    assert result.returncode == 0, result.stderr
    lines = printed(result)
    assert lines[0] == shown[0].replace("5 s", "1 s")
    position = Position.from_text(n, player, board)
    for line in lines[1:]:
        move, new_board = line.split()
        assert position.after(int(move)).board() == new_board


def test_readme_solve_example_is_what_the_program_prints() -> None:
    examples = pipeline_examples(read(README), "scripts/arena solve")
    assert examples, "README shows no `$ echo ... | scripts/arena solve` example"
    assert examples[0] == ("445566\n", [], ["445566 18"])
    for stdin, args, shown in examples:
        result = run_program([ARENA, "solve", *args], input=stdin)
        assert result.returncode == 0, result.stderr
        assert printed(result) == shown


CLONE = "/home/you/betsy-arena"
"""Where the README's outputs put the clone, in absolute paths they show."""


def shown_prefix(shown: list[str]) -> list[str]:
    """The lines an example shows before its ``...`` (all of them when it has none), with the clone's
    path as this checkout's."""
    lines = shown[:shown.index("...")] if "..." in shown else shown
    return [line.replace(CLONE, str(ROOT)) for line in lines]


@pytest.mark.slow
def test_readme_validate_examples_print_what_the_readme_shows() -> None:
    examples = command_examples(read(README), "scripts/arena validate")
    assert len(examples) == 2, "the README shows the Betsy example and a missing program"
    for args, shown in examples:
        result = run_program([ARENA, "validate", *args], timeout=600)
        expected_status = 2 if shown[0].startswith("arena: error:") else 0 if shown[0].startswith("PASS") else 1
        assert result.returncode == expected_status, (args, result.stderr)
        lines = printed(result)
        assert lines[:len(shown_prefix(shown))] == shown_prefix(shown), f"README example `arena validate {' '.join(args)}`"


def shell_commands(text: str, program: str) -> list[list[str]]:
    """The argv after ``scripts/arena PROGRAM`` of each line of the README's ``sh`` blocks."""
    found = []
    for block in re.findall(r"^```sh\n(.*?)\n```", text, re.M | re.S):
        for line in block.splitlines():
            if line.startswith(f"scripts/arena {program} "):
                found.append(shlex.split(line.split("  #", 1)[0])[2:])
    return found


@pytest.mark.slow
@pytest.mark.parametrize("program", ["validate", "match"])
def test_readme_validate_and_match_commands_run_on_a_fresh_clone(program: str, tmp_path: Path) -> None:
    """Each command runs as written from the top of a clone (here: a folder holding the clone's
    docs/examples), writes where it says, and ends as a passing program or a played match does."""
    import shutil

    shutil.copytree(DOCS / "examples", tmp_path / "docs" / "examples")
    commands = [args for args in shell_commands(read(README), program) if "kings-horses" not in args]
    assert len(commands) >= 2
    for args in commands:
        result = subprocess.run([ARENA, program, *args], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                                stdin=subprocess.DEVNULL)
        assert result.returncode == 0, (args, result.stdout[-2000:], result.stderr)
        if "--html" in args:
            page = tmp_path / args[args.index("--html") + 1]
            assert page.read_text(encoding="utf-8").startswith("<!doctype html>")
            assert page.parent == tmp_path / "results"  # an example writes into results/, never into the project
    assert sorted(path.name for path in tmp_path.iterdir()) == (["docs", "results"] if program == "validate" else ["docs"])


@pytest.mark.slow
def test_readme_sprt_example_has_the_form_shown_and_says_what_varies(tmp_path: Path) -> None:
    text = read(README)
    (args, shown), = command_examples(text, "scripts/arena sprt")
    assert "vary from run to run" in text[:text.index("$ scripts/arena sprt")][-600:]
    result = subprocess.run([ARENA, "sprt", *args], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == shown[0]
    line = r"pairs +\d+  pentanomial \[\d+, \d+, \d+, \d+, \d+\]  LLR [+-]\d+\.\d\d \(-2\.94, \+2\.94\)  Elo .*"
    assert all(re.fullmatch(line, text) for text in lines[1:-1]), lines
    assert re.fullmatch(r"H1 accepted: greedy is stronger than random by about 100 Elo or more \(LLR \+\d\.\d\d >= "
                        r"\+2\.94 after \d+ pairs\)", lines[-1]), lines[-1]
    for example in shown[1:]:  # the shown lines have the same form
        assert example == "..." or re.fullmatch(line, example) or example.startswith("H1 accepted: ")


@pytest.mark.slow
def test_readme_kings_horses_example_is_correct_and_fails_only_on_time_if_at_all() -> None:
    args, = shell_commands(read(README), "validate --game kings-horses")
    result = run_program([ARENA, "validate", *args], timeout=600)
    lines = result.stdout.splitlines()
    assert result.returncode in (0, 1), result.stderr
    assert lines[0].startswith("PASS" if result.returncode == 0 else "FAIL: time (first failure: band-"), lines[0]
    for category in ("protocol", "correctness", "moves"):
        assert any(line.split()[:2] == [category, "pass"] for line in lines), category


def test_example_programs_answer_the_protocol_in_folders_of_their_own() -> None:
    examples = DOCS / "examples"
    assert sorted(path.name for path in examples.iterdir()) == ["betsy", "connect4", "kings-horses"]
    for folder, program, argv, answer in (
            ("betsy", "betsy.py", ["3", "o", SEED_BOARD, "5"], "2 ...x..o.oxooxxxoxo"),
            ("connect4", "c4.py", ["7x6", "x", "...............................ooo....xxx.", "1"],
             "3 ...............................ooo...xxxx."),
            ("kings-horses", "bestmove.py", ["BLACK", "2", "2", "3", "3", "1", "2", "3", "1"], "BLACK WILL WIN")):
        assert [path.name for path in (examples / folder).iterdir()] == [program]
        assert os.access(examples / folder / program, os.X_OK)
        result = run_program([str(examples / folder / program), *argv])
        assert (result.returncode, result.stdout, result.stderr) == (0, answer + "\n", "")


def yaml_blocks(text: str) -> list[str]:
    return [block for block in re.findall(r"^```yaml\n(.*?)\n```", text, re.M | re.S)]


def test_readme_config_examples_load_as_shown(tmp_path: Path) -> None:
    """Each YAML example is a config load_config accepts, for the game it names, with the values
    it shows; the student programs they name are stand-ins made here."""
    from harness.tournament.config import load_config

    (tmp_path / "submissions" / "alice").mkdir(parents=True)
    for name in ("betsy.py", "c4.py"):
        (tmp_path / "submissions" / "alice" / name).write_text("print('1 x')\n")
    blocks = yaml_blocks(read(README))
    assert len(blocks) == 2
    configs = []
    for index, block in enumerate(blocks):
        path = tmp_path / f"example{index}.yaml"
        path.write_text(block + "\n")
        configs.append(load_config(path))
    betsy, c4 = configs
    assert (betsy.settings.game, betsy.sizes, betsy.settings.time, betsy.rounds) == ("betsy", ("5",), 1, 2)
    assert [e.name for e in betsy.engines] == ["rnd", "grd", "student"]
    assert betsy.engines[1].extra_args == ("--seed", "3")
    assert (c4.settings.game, c4.sizes, c4.rounds) == ("connect4", ("7x6", "8x8"), 10)
    assert c4.engines[1].extra_args == ("--depth", "8")


def test_readme_betsy_config_example_shows_the_defaults(tmp_path: Path) -> None:
    """The Betsy example says its values are the defaults, apart from name, concurrency and engines."""
    from harness.tournament.config import load_config

    (tmp_path / "submissions" / "alice").mkdir(parents=True)
    (tmp_path / "submissions" / "alice" / "betsy.py").write_text("")
    shown = yaml_blocks(read(README))[0]
    (tmp_path / "shown.yaml").write_text(shown + "\n")
    engines = shown[shown.index("engines:"):]
    (tmp_path / "bare.yaml").write_text("name: quick\nconcurrency: 2\n" + engines + "\n")
    full, bare = load_config(tmp_path / "shown.yaml"), load_config(tmp_path / "bare.yaml")
    assert full.fingerprint() == bare.fingerprint()
    assert (full.sandbox, full.max_file_mb, full.max_processes, full.replay_stalls) == (
        bare.sandbox, bare.max_file_mb, bare.max_processes, bare.replay_stalls)


def test_readme_config_reference_names_every_key() -> None:
    from harness.tournament.config import _Engine, _Openings, _Tournament

    text = read(README)
    for key in _Tournament.model_fields:
        assert f"| `{key}` |" in text, f"README's config table has no row for {key!r}"
    for key in (*_Openings.model_fields, *_Engine.model_fields):
        assert re.search(rf"\b{key}\b", text), f"README does not mention the config key {key!r}"
    from harness.referee.engine_specs import BUILTIN_ENGINES

    for engine in BUILTIN_ENGINES:
        for option in engine.options:
            assert f"`{option}`" in text, f"README does not name the built-in option {option!r}"


def test_readme_names_every_command_and_builtin_engine() -> None:
    from harness.cli.app import app
    from harness.referee.engine_specs import BUILTIN_ENGINES

    text = read(README)
    for command in app.registered_commands:
        name = command.name or command.callback.__name__  # type: ignore[union-attr]
        assert f"`arena {name}" in text, f"README does not document `arena {name}`"
    for engine in BUILTIN_ENGINES:
        assert f"| `{engine.name}` | `engines.{engine.module}` |" in text, f"README's engine table has no row for {engine.name}"


def command_options() -> dict[str, set[str]]:
    """Every `arena` command's options, as click knows them."""
    import typer.main

    from harness.cli.app import app

    group = typer.main.get_command(app)
    commands = {name: command for name, command in group.commands.items()}  # type: ignore[attr-defined]
    for name, command in list(commands.items()):  # a group's commands as "group command" (arena cluster certs)
        commands.update({f"{name} {sub}": subcommand for sub, subcommand in getattr(command, "commands", {}).items()})
    return {
        name: {opt for param in command.params for opt in (*param.opts, *param.secondary_opts) if opt.startswith("-")}
        for name, command in commands.items()
    }


def test_readme_names_only_options_the_commands_take() -> None:
    """Every option in an `arena COMMAND ...` span or command line of the README exists."""
    real = command_options()
    text = read(README)
    uses = re.findall(r"`arena ([a-z]+)([^`]*)`", text)
    uses += [(name, rest) for lines in code_blocks(text) for line in lines
             for name, rest in re.findall(r"^(?:\$ )?scripts/arena ([a-z]+)(.*)$", line)]
    assert len(uses) > 20
    for name, rest in uses:
        words = rest.split(maxsplit=1)
        if words and f"{name} {words[0]}" in real:  # a group's command: arena cluster certs
            name, rest = f"{name} {words[0]}", words[1] if len(words) > 1 else ""
        assert name in real, f"README names a command `arena {name}` that does not exist"
        for option in re.findall(r"(?<![\w-])(--[\w-]+|-[a-z])\b", rest.split("#", 1)[0]):
            assert option in real[name], f"README gives `arena {name}` an option {option} it does not take"

def verdict_rows(text: str) -> list[str]:
    return re.findall(r"^\| `([a-z-]+)` \| ", text[text.index("| verdict | meaning |"):], re.M)


def test_verdict_tables_list_every_verdict() -> None:
    from harness.referee.protocol import Verdict

    every = [verdict.value for verdict in Verdict]
    for path in (README, REFEREE):
        rows = verdict_rows(read(path))
        assert rows[:len(every)] == every, f"{path.name}: verdict table {rows} != {every}"


@pytest.mark.parametrize("path", PAGES, ids=[page.name for page in PAGES])
def test_every_link_between_pages_resolves(path: Path) -> None:
    """Relative links point at files of the project, and their #anchors at headings there."""
    text = read(path)
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links or path.name == "measurements.md"
    for target in links:
        if re.match(r"[a-z]+://", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), f"{path.name} links to {target}, which the project does not have"
        if anchor:
            assert anchor in heading_anchors(read(linked)), f"{path.name} links to {target}: no such heading"


# --- docs/rules.md ----------------------------------------------------------------------------------


def test_rules_page_exists_and_readme_links_it() -> None:
    text = read(RULES)
    for heading in ("## The board", "## Moves", "## Lines and winning", "## Draws", "## Valid positions",
                    "## The engine protocol", "## Open points and decisions"):
        assert heading in text
    assert "](referee.md)" in text and "](connect4.md)" in text
    referee = read(REFEREE)
    for heading in ("## One call", "## Verdicts", "## The sandbox in detail"):
        assert heading in referee


def test_rules_arena_examples_are_what_the_program_prints() -> None:
    examples = command_examples(read(RULES), "arena moves")
    assert len(examples) >= 5
    for args, shown in examples:
        result = run_program([ARENA, "moves", *args])
        expected_status = 2 if shown[0].startswith("arena: error:") else 0
        assert result.returncode == expected_status, result.stderr
        assert printed(result) == shown, f"docs/rules.md example `arena moves {' '.join(args)}` is out of date"


def test_rules_move_table_replays_on_the_rules_core() -> None:
    rows = [
        [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        for line in read(RULES).split("\n")
        if re.match(r"\|\s*\d+\s*\|\s*[xo]\s*\|", line)
    ]
    assert len(rows) == 5
    for n, player, board, move, new_board, winner in rows:
        after = Position.from_text(n, player, board).after(int(move))
        assert after.board() == new_board, (n, player, board, move)
        expected = None if winner == "none" else PLAYERS.index(winner)
        assert after.winner() == expected, (n, player, board, move)
    # consecutive rows are one game: each row starts where the previous one ended
    for previous, row in zip(rows, rows[1:]):
        assert row[2] == previous[4] and row[1] != previous[1]
    assert rows[0][2] == SEED_BOARD


def test_rules_rotation_pictures_are_exact() -> None:
    pictures = 0
    for lines in code_blocks(read(RULES)):
        header = re.fullmatch(r"before \(([xo]) to move\)\s+after (-?\d+)", lines[0])
        if header is None:
            continue
        pictures += 1
        before = "".join(line.split()[0] for line in lines[1:])
        after = "".join(line.split()[1] for line in lines[1:])
        n = len(lines[1].split()[0])
        assert len(lines) - 1 == n + 3
        assert Position.from_text(n, header.group(1), before).after(int(header.group(2))).board() == after
    assert pictures >= 2


def test_rules_board_drawing_matches_its_string() -> None:
    drawings = 0
    for lines in code_blocks(read(RULES)):
        if size_of(lines[0]) is None or not re.fullmatch(r"[.xo]+", lines[0]):
            continue
        board = lines[0]
        n = size_of(board)
        rows = [line.split()[:n] for line in lines[1:] if line.strip()]
        assert "".join("".join(row) for row in rows) == board
        drawings += 1
    assert drawings >= 1


def _refused_boards() -> set[str]:
    """Boards the rules page shows being refused (by an `arena: error` example)."""
    return {
        args[2] for args, shown in command_examples(read(RULES), "arena moves")
        if shown[0].startswith("arena: error:")
    }


def board_strings(text: str) -> set[str]:
    """Every string of the page that looks like a board (4 or more of ``.``, ``x``, ``o``)."""
    return set(re.findall(r"(?<![\w.])[.xo]{4,}(?![\w.])", text))


@pytest.mark.parametrize("path", [RULES, README], ids=["rules", "readme"])
def test_every_board_shown_is_valid_or_shown_refused(path: Path) -> None:
    """Betsy boards on the rules page; on the README, Betsy or Connect Four boards (each Connect
    Four example there is also run or replayed by a test of its own)."""
    refused = _refused_boards()
    assert TYPO_BOARD in refused
    boards = board_strings(read(path))
    assert SEED_BOARD in boards
    for board in boards - refused:
        if path == README and is_connect4_board(board):
            continue
        n = size_of(board)
        assert n is not None, f"{board!r} in {path.name} has no valid length"
        Position.from_text(n, "x", board)  # raises PositionError naming the problem


def test_rules_supply_and_lines_figures() -> None:
    text = read(RULES)
    assert "`n(n+3)/2`" in text and "For `n = 5` that is 20 each on a board of 40 cells" in text
    assert geometry(5).supply == 20 and geometry(5).cells == 40
    assert "`2n + 2`" in text
    for n in (2, 3, 5, 8):
        assert len(geometry(n).lines) == 2 * n + 2


def test_rules_answer_example_and_protocol_line() -> None:
    text = read(RULES)
    assert "`2 ...x..o.oxooxxxoxo`" in text
    assert Position.from_text(3, "o", SEED_BOARD).after(2).board() == "...x..o.oxooxxxoxo"
    assert "PROGRAM N PLAYER BOARD SECONDS" in text
    example = re.search(r"`betsy\.py (\d+) ([xo]) ([.xo]+) (\d+)`", text)
    assert example is not None
    assert Position.from_text(example.group(1), example.group(2), example.group(3)).board() == example.group(3)


# --- docs/kings_horses.md ---------------------------------------------------------------------------


def test_kings_horses_examples_are_what_the_programs_print() -> None:
    text = read(KINGS)
    examples = command_examples(text, "scripts/bestmove.py")
    assert len(examples) >= 2
    for args, shown in examples:
        result = run_program([sys.executable, str(ROOT / "scripts" / "bestmove.py"), *args])
        assert result.returncode == 0 and printed(result) == shown, f"docs/kings_horses.md: bestmove.py {args}"
    moves = command_examples(text, "arena moves")
    assert moves
    for args, shown in moves:
        result = run_program([ARENA, "moves", *args])
        assert result.returncode == 0 and printed(result) == shown, f"docs/kings_horses.md: arena moves {args}"


# --- docs/connect4.md -------------------------------------------------------------------------------


def test_connect4_page_has_every_part_and_is_linked() -> None:
    text = read(CONNECT4)
    for heading in ("## The board", "## Players and moves", "## Winning and draws", "## Valid positions",
                    "## The engine protocol", "## Solving positions: Pons's notation and score",
                    "## Open points and decisions"):
        assert heading in text
    assert "](rules.md)" in text and "](connect4.md)" in read(RULES)


def test_connect4_arena_moves_examples_are_what_the_program_prints() -> None:
    examples = command_examples(read(CONNECT4), "arena moves")
    assert len(examples) >= 8
    for args, shown in examples:
        assert args[:2] == ["--game", "connect4"]
        result = run_program([ARENA, "moves", *args])
        expected_status = 2 if shown[0].startswith("arena: error:") else 0
        assert result.returncode == expected_status, result.stderr
        assert printed(result) == shown, f"docs/connect4.md example `arena moves {' '.join(args)}` is out of date"


def test_connect4_solve_examples_are_what_the_program_prints() -> None:
    examples = pipeline_examples(read(CONNECT4), "arena solve")
    assert len(examples) >= 5
    for stdin, args, shown in examples:
        result = run_program([ARENA, "solve", *args], input=stdin)
        expected_status = 2 if shown[0].startswith("arena: error:") else 0
        assert result.returncode == expected_status, result.stderr
        assert printed(result) == shown, f"docs/connect4.md example `arena solve {' '.join(args)}` is out of date"


def test_connect4_board_drawing_matches_its_string() -> None:
    drawings = 0
    for lines in code_blocks(read(CONNECT4)):
        if not re.fullmatch(r"[.xo]{16,}", lines[0]):
            continue
        rows = ["".join(line.split()[:-2]) for line in lines[1:] if line.split()[-2:-1] == ["row"]]
        width = len(rows[0])
        assert lines[-1].split()[:width] == [str(c) for c in range(1, width + 1)]
        assert "".join(rows) == lines[0]
        connect4.Position.from_text(connect4.size_text(width, len(rows)), "x", lines[0])
        drawings += 1
    assert drawings >= 1


def c4_table_rows(text: str) -> list[list[str]]:
    return [
        [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        for line in text.split("\n")
        if re.match(r"\|\s*\d+x\d+\s*\|\s*[xo]\s*\|", line)
    ]


def test_connect4_game_table_replays_the_assignments_sample_game() -> None:
    rows = c4_table_rows(read(CONNECT4))
    assert len(rows) == 7
    for size, player, board, move, new_board, winner in rows:
        after = connect4.Position.from_text(size, player, board).after(int(move))
        assert after.board() == new_board, (size, player, board, move)
        expected = None if winner == "none" else connect4.PLAYERS.index(winner)
        assert after.winner() == expected, (size, player, board, move)
    for previous, row in zip(rows, rows[1:]):
        assert row[2] == previous[4] and row[1] != previous[1]
    assert rows[0][2] == "." * 64
    # the appendix's game: X 1, O 5, X 1, O 2, X 1, O 4, X 1 in its 0-based columns
    assert [int(row[3]) for row in rows] == [column + 1 for column in (1, 5, 1, 2, 1, 4, 1)]


def test_connect4_pons_positions_replay_to_their_boards() -> None:
    rows = [
        [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        for line in read(CONNECT4).split("\n") if re.match(r"\|\s*`\d+`\s*\|", line)
    ]
    assert len(rows) >= 3
    for notation, size, board, to_move in rows:
        position = connect4.initial_position(*connect4.parse_size(size))
        for column in notation:
            position = position.after(int(column))
        assert (position.board(), position.player) == (board, to_move), notation


def test_connect4_protocol_example_and_answer() -> None:
    text = read(CONNECT4)
    assert "PROGRAM WxH PLAYER BOARD SECONDS" in text
    call = re.search(r"`c4\.py (\d+x\d+) ([xo]) ([.xo]+) (\d+)`", text)
    assert call is not None
    position = connect4.Position.from_text(call.group(1), call.group(2), call.group(3))
    answer = re.search(r"answered `(\d+) ([.xo]+)`", text)
    assert answer is not None
    assert position.after(int(answer.group(1))).board() == answer.group(2)


def test_connect4_every_board_on_the_page_is_checked() -> None:
    """Every board string of the page is run by a command example, replayed in a table, drawn, or
    the protocol example: none is only written down."""
    text = read(CONNECT4)
    checked: set[str] = set()
    for args, shown in command_examples(text, "arena moves"):
        checked.add(args[4])
        checked.update(word for line in shown for word in line.split())
    for row in c4_table_rows(text):
        checked.update((row[2], row[4]))
    for lines in code_blocks(text):
        checked.add(lines[0])
    checked.update(re.findall(r"\| `\d+` \| \d+x\d+ \| `([.xo]+)` \|", text))
    checked.update(re.findall(r"`c4\.py \S+ [xo] ([.xo]+) \d+`", text))
    checked.update(re.findall(r"answered `\d+ ([.xo]+)`", text))
    unchecked = {board for board in board_strings(text) if len(board) >= 16} - checked
    assert not unchecked, f"boards on docs/connect4.md that no test checks: {sorted(unchecked)}"


# --- engines' --help ----------------------------------------------------------------------------


def help_argv(python: str, module: str) -> list[str]:
    return [python, "-m", f"engines.{module}", "--help"]


def engine_options(module: str) -> set[str]:
    """The options the engine's parser accepts, spelled as documented (``--mcts-share``)."""
    import importlib

    engine = importlib.import_module(f"engines.{module}")
    if module == "strongest":
        engine = engine.strongest
    return {"--seed", *("--" + name.replace("_", "-") for name in getattr(engine, "OPTIONS", {}))}


def help_options(text: str) -> set[str]:
    """The options named in a help text's usage line."""
    return set(re.findall(r"\[(--[\w-]+)", text.split("\n")[0]))


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_engine_help_describes_every_option(python: str, module: str) -> None:
    result = run_program(help_argv(python, module))
    assert result.returncode == 0
    assert result.stderr == ""
    text = result.stdout
    prog = "betsy" if module == "strongest" else module
    assert text.startswith(f"usage: {prog} N PLAYER BOARD SECONDS")
    options = engine_options(module)
    assert help_options(text) == options
    body = text.split("\n", 1)[1]
    for option in options:
        described = re.search(rf"^  {re.escape(option)}\b[^\n]*?\s{{2,}}\S", body, re.M)
        assert described is not None, f"{prog} --help does not describe {option}"
    for word in ("N", "PLAYER", "BOARD", "SECONDS", "-h, --help"):
        assert re.search(rf"^  {re.escape(word)}\s", body, re.M), word


@pytest.mark.parametrize("argv", [
    [".venv/bin/betsy", "--help"],
    ["scripts/betsy.py", "--help"],
    ["scripts/betsy.py", "-h"],
    ["scripts/betsy.py", "3", "o", SEED_BOARD, "5", "--help"],
], ids=["console-script", "file", "short", "after-arguments"])
def test_betsy_help_from_every_entry_point(python: str, argv: list[str]) -> None:
    program = str(Path(python).parent / "betsy") if argv[0] == ".venv/bin/betsy" else str(ROOT / argv[0])
    if not os.path.exists(program):
        cannot_run_here(f"{program} is not installed (pip install -e '.[test]' installs it)")
    result = run_program([program, *argv[1:]], timeout=30)
    assert result.returncode == 0
    assert result.stdout == run_program(help_argv(sys.executable, "strongest")).stdout
    assert "--mcts-share F" in result.stdout


@pytest.mark.parametrize("spelling", ["--mcts-share", "--mcts_share", "--mcts-share=0.2"])
def test_betsy_accepts_the_documented_option_spelling(python: str, spelling: str) -> None:
    value = [] if "=" in spelling else ["0.2"]
    result = run_program([str(ROOT / "scripts" / "betsy.py"), "5", "x", "." * 40, "1",
                          spelling, *value, "--depth", "2", "--playouts", "20", "--seed", "1"])
    assert result.returncode == 0, result.stderr
    move, board = result.stdout.split("\n")[-2].split()
    assert Position.from_text(5, "x", "." * 40).after(int(move)).board() == board


def test_bad_option_still_exits_2_with_one_line(python: str) -> None:
    result = run_program([python, "-m", "engines.alphabeta", "3", "o", SEED_BOARD, "1", "--bogus", "1"])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "unknown option --bogus" in result.stderr


def _readme_synopses() -> dict[str, tuple[set[str], int]]:
    """``{program: (options in its README synopsis, offset of the synopsis)}``."""
    found = {}
    text = read(README)
    for match in re.finditer(r"`(?:python -m engines\.(\w+)|(betsy)) N PLAYER BOARD SECONDS([^`]*)`", text):
        name = match.group(1) or "strongest"
        found[name] = (set(re.findall(r"\[(--[\w-]+)", match.group(3))), match.start())
    return found


def _section_after(text: str, offset: int) -> str:
    """From ``offset`` to the next heading."""
    end = re.compile(r"^#{2,3} ", re.M).search(text, offset)
    return text[offset:end.start() if end else len(text)]


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_readme_names_the_same_options_as_help(python: str, module: str) -> None:
    synopses = _readme_synopses()
    assert module in synopses, f"README has no synopsis for engines.{module}"
    documented, offset = synopses[module]
    shown = help_options(run_program(help_argv(python, module)).stdout)
    assert documented == shown, f"README synopsis {sorted(documented)} != --help {sorted(shown)}"
    text = read(README)
    if module == "strongest":  # betsy takes its engine's options, described in that engine's section
        from engines.strongest import ENGINE

        offset = synopses[ENGINE.replace("-", "_")][1]
    section = _section_after(text, offset)
    synopsis_line = re.compile(r"`(?:python -m engines\.\w+|betsy) N PLAYER BOARD SECONDS[^`]*`")
    prose = synopsis_line.sub("", section)
    for option in shown:
        assert option in prose, f"README section of {module} names {option} only in its synopsis"
    # vice versa: the section names no other engine's option as this one's (the arena's own
    # options, e.g. in measurements, are not engine options)
    every = set().union(*(engine_options(other) for other in ENGINE_MODULES))
    named = {span.replace("_", "-") for span in re.findall(r"`(--[\w-]+)", prose)}
    assert named & every <= shown, f"README's section of {module} names options it does not take"
