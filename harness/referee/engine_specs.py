"""Engine specs: the built-in engines (one table: name, module, games, options), and engine commands
checked before any game starts."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harness.errors import EngineError, LayoutError

ENGINES_DIR = Path(__file__).resolve().parents[2] / "engines"

@dataclass(frozen=True)
class Builtin:
    """A built-in engine: a program in engines/ like any other, declared here so that configs are
    checked without importing it."""

    name: str
    module: str
    """Its module in engines/ (run as ``python engines/<module>.py``)."""
    games: tuple[str, ...]
    """The games it plays: any other game's position it refuses (exit 2), which would forfeit every
    game, so a mismatch is refused before a game starts (a command engine is assumed to play any)."""
    options: Mapping[str, type]
    """The options it accepts (``--name VALUE``; a bool is a flag) and their types: what
    engines/protocol.py parses for it."""


BUILTIN_ENGINES: tuple[Builtin, ...] = (
    Builtin("random", "random_mover", ("betsy", "connect4", "kings-horses"), {"seed": int}),
    Builtin("greedy", "greedy", ("betsy", "connect4", "kings-horses"), {"seed": int}),
    Builtin("alphabeta", "alphabeta", ("betsy", "connect4"),
            {"seed": int, "depth": int, "nodes": int, "info": bool, "contempt": int}),
    Builtin("mcts-alphabeta", "mcts_alphabeta", ("betsy", "connect4"),
            {"seed": int, "info": bool, "mcts_share": float, "depth": int, "playouts": int}),
    Builtin("homework", "homework", ("connect4",), {"seed": int, "depth": int}),
    Builtin("bestmove", "kings_horses_solver", ("kings-horses",), {}),
)
"""The one table of built-in engines (tests/test_engine_games.py runs each on every game, with every
option listed)."""

BUILTIN: dict[str, Builtin] = {engine.name: engine for engine in BUILTIN_ENGINES}
"""The built-ins by name."""

PYTHONS = ("python", "python3")
"""The interpreter names a command may start with that mean the harness's own Python."""

_ENV_HEADS = ("env", "/usr/bin/env", "/bin/env")
_ENV_FLAGS = ("-i", "--ignore-environment", "-")
_ENV_VALUED = ("-u", "--unset")


def env_command_start(tokens: tuple[str, ...] | list[str]) -> int | None:
    """Where the command that the system's ``env`` runs starts (``env [-i] [-u NAME] NAME=VALUE...
    COMMAND``), or None: the head is not ``env``, ``/usr/bin/env`` or ``/bin/env``, no command
    follows, or an option changes how the rest is read (``-S``, ``-C DIR``)."""
    if not tokens or tokens[0] not in _ENV_HEADS:
        return None
    i = 1
    while i < len(tokens):
        token = tokens[i]
        if token in _ENV_FLAGS or token.startswith("--unset="):
            i += 1
        elif token in _ENV_VALUED:
            i += 2
        elif token.startswith("-"):
            return None
        elif "=" in token:
            i += 1
        else:
            return i
    return None


@dataclass(frozen=True)
class EngineSpec:
    """An engine as the referee runs it."""

    name: str
    """Display name, unique within a tournament."""
    command: tuple[str, ...]
    """The argv before ``N PLAYER BOARD SECONDS``, with paths made absolute."""
    program: str | None
    """The file that identifies the engine (script or executable), absolute; None for a PATH command."""
    extra_args: tuple[str, ...] = ()
    """Arguments after the protocol's four (built-in engines' options, e.g. ``--seed 3``)."""
    builtin: str | None = None
    """The built-in engine's name, if it is one."""

    @property
    def display_command(self) -> str:
        return shlex.join([*self.command, "N", "PLAYER", "BOARD", "SECONDS", *self.extra_args])


def builtin_names() -> list[str]:
    return sorted(BUILTIN)


def engines_playing(game: str) -> list[str]:
    """The built-in engines that play ``game``, by name."""
    return [name for name in builtin_names() if game in BUILTIN[name].games]


def game_problem(engine: EngineSpec, game: str) -> str | None:
    """Why ``engine`` cannot play ``game`` (a built-in made for other games), naming the built-ins
    that do; None when it can (a command engine is assumed to play any game)."""
    if engine.builtin is None or game in BUILTIN[engine.builtin].games:
        return None
    from harness.games.registry import GAMES

    def title(name: str) -> str:
        return GAMES[name].title if name in GAMES else name

    plays = " and ".join(title(name) for name in BUILTIN[engine.builtin].games)
    named = engine.builtin if engine.name == engine.builtin else f"{engine.name!r} (built-in {engine.builtin})"
    return (f"{named} does not play {title(game)}, only {plays}; the built-in engines that play {title(game)} "
            f"are {', '.join(engines_playing(game))} (or give a command)")


def check_games(engines: list[EngineSpec], game: str) -> None:
    """Refuse, before any game, an engine that does not play ``game`` (EngineError, one line)."""
    for engine in engines:
        problem = game_problem(engine, game)
        if problem is not None:
            raise EngineError(problem)


def builtin_engine(
    builtin: str, options: Mapping[str, object] | None = None, name: str | None = None
) -> EngineSpec:
    """A built-in engine, run as ``python engines/<module>.py`` with ``--option value`` arguments."""
    declared = BUILTIN.get(builtin)
    if declared is None:
        raise EngineError(
            f"unknown built-in engine {builtin!r}: choose one of {', '.join(builtin_names())}"
        )
    script = ENGINES_DIR / f"{declared.module}.py"
    extra: list[str] = []
    for key, value in (options or {}).items():
        flag = "--" + str(key).replace("_", "-")
        if value is True:
            extra.append(flag)
        elif value is not False and value is not None:
            extra += [flag, str(value)]
    # The interpreter running the harness, not a shim: engines start once per move.
    return EngineSpec(name or builtin, (sys.executable, str(script)), str(script), tuple(extra), builtin)


def command_engine(command: str, base_dir: Path | None = None, name: str | None = None) -> EngineSpec:
    """An engine given as a command line; relative paths resolve against ``base_dir``.

    Raises EngineError naming the path and the fix if the program is missing or not executable.
    """
    base = (base_dir or Path.cwd()).resolve()
    label = name or command
    try:
        tokens = shlex.split(command)
    except ValueError as error:
        raise EngineError(f"engine {label!r}: cannot parse command {command!r}: {error}") from None
    if not tokens:
        raise EngineError(f"engine {label!r}: empty command; give a program, e.g. python3 betsy.py")
    start = env_command_start(tokens)
    if start is not None:  # env NAME=VALUE... COMMAND: COMMAND is the program, checked as one
        env = tokens[0] if os.path.isabs(tokens[0]) else shutil.which("env")
        if env is None or not os.path.isfile(env):
            raise EngineError(f"engine {label!r}: command {tokens[0]!r} not found")
        inner = command_engine(shlex.join(tokens[start:]), base_dir, name=label)
        return EngineSpec(label, (env, *tokens[1:start], *inner.command), inner.program, (), None)

    def written(token: str) -> str:
        return os.path.join(base, os.path.expanduser(token))

    def program(token: str) -> Path:
        path = written(token)
        refuse_link(label, token, path)
        return Path(path).resolve()  # neither the file nor its folder is a link: resolves the folders above

    def argument(token: str) -> str:
        # Folders resolved, the last name kept: a link in a student's folder is not followed out of it.
        path = written(token).rstrip("/") or "/"
        if os.path.basename(path) in (".", ".."):
            return os.path.realpath(path)
        return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))

    program_path: Path | None = None
    head = tokens[0]
    if os.path.basename(head) in PYTHONS or (os.sep not in head and head.startswith("python")):
        if os.sep in head:  # a path: from the config's folder, like any other (the engine runs elsewhere)
            given = argument(head)
            interpreter: str | None = given if os.path.isfile(given) and os.access(given, os.X_OK) else None
            if interpreter is None:
                raise EngineError(f"engine {label!r}: interpreter {head!r} not found (looked for {given})")
            tokens[0] = interpreter
        else:
            interpreter = sys.executable if head in PYTHONS else shutil.which(head)
        if interpreter is None:
            raise EngineError(f"engine {label!r}: interpreter {head!r} not found on PATH")
        script_index = next((i for i, t in enumerate(tokens[1:], 1) if not t.startswith("-")), None)
        if script_index is None:
            raise EngineError(
                f"engine {label!r}: {head} needs a script to run, e.g. {head} betsy.py"
            )
        script = program(tokens[script_index])
        if not script.is_file():
            raise EngineError(
                f"engine {label!r}: script {tokens[script_index]!r} not found (looked for {script}); "
                f"check the path (relative paths start from {base})"
            )
        tokens[script_index] = str(script)
        program_path = script
    elif os.sep in head or head.startswith("."):
        path = program(head)
        if not path.is_file():
            raise EngineError(
                f"engine {label!r}: program {head!r} not found (looked for {path}); check the path "
                f"(relative paths start from {base})"
            )
        if not os.access(path, os.X_OK):
            raise EngineError(
                f"engine {label!r}: {path} is not executable; run chmod +x {path}, or prefix the "
                f"command with python3 (python3 {head})"
            )
        tokens[0] = str(path)
        program_path = path
    else:
        found = shutil.which(head)
        if found is None:
            raise EngineError(
                f"engine {label!r}: command {head!r} not found on PATH; give a path such as ./{head}"
            )
        tokens[0] = found
        program_path = Path(found)
    for i in range(1, len(tokens)):
        token = tokens[i]
        if not token.startswith("-") and not os.path.isabs(token) and (base / token).exists():
            tokens[i] = argument(token)  # the engine runs in a scratch directory
    from harness.text import is_text

    for token in tokens:
        if not is_text(token):  # a file name of bytes that are not UTF-8: no database or report can hold it
            raise EngineError(f"engine {label!r}: {token!r} is not UTF-8 text; rename the file or folder")
    return EngineSpec(label, tuple(tokens), str(program_path), (), None)


def program_command(text: str, base_dir: Path | None = None) -> str:
    """``text`` as a command: itself, or quoted when it names an existing file that the shell's
    word splitting would break (a quote, a space or a backslash in the path)."""
    try:
        whole = shlex.split(text) == [text]
    except ValueError:
        whole = False
    if not whole and ((base_dir or Path.cwd()) / text).is_file():
        return shlex.quote(text)
    return text


def command_words(command: str) -> list[str]:
    """The words of a command as the shell splits them; the whole text as one word when it cannot
    be split (an unclosed quote)."""
    try:
        return shlex.split(command)
    except ValueError:
        return [command]


def refuse_link(label: str, given: str, path: str) -> None:
    """Raise LayoutError when the program file ``path`` (``given`` as written), or the folder holding
    it, is a symbolic link: it would run another file (another student's, or one of the project's
    own) under this engine's name."""
    if os.path.islink(path):
        raise LayoutError(f"engine {label!r}: {given} is a link to {os.path.realpath(path)}; submit the file itself")
    folder = os.path.dirname(path)
    if os.path.islink(folder):
        raise LayoutError(f"engine {label!r}: {os.path.dirname(given)} (the folder of {given}) is a link to "
                          f"{os.path.realpath(folder)}; submit the file itself, in a folder of its own")


def resolve_engine(text: str, base_dir: Path | None = None) -> EngineSpec:
    """A built-in name (``random``, ``greedy``, ...) or a command (``python3 path/betsy.py``), which
    names the engine: printable text only."""
    if text in BUILTIN:
        return builtin_engine(text)
    from harness.text import name_problem

    problem = name_problem(text)
    if problem is not None:
        raise EngineError(f"invalid engine {text!r}: it names the engine, and {problem}")
    command = program_command(text, base_dir)
    if command != text:
        return command_engine(command, base_dir, name=text)
    if " " not in text.strip() and os.sep not in text and not text.startswith(".") and shutil.which(text) is None:
        raise EngineError(
            f"unknown engine {text!r}: use a built-in ({', '.join(builtin_names())}) or a command "
            f"such as 'python3 path/betsy.py' or './my_engine'"
        )
    return command_engine(text, base_dir)
