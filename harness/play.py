"""``arena play``: a person against an engine in the terminal.

The person's moves are read as the protocol writes them (Betsy: ``3`` drops into column 3, ``-3``
rotates it; Connect Four: a column) and judged by the rules; the engine is called through the
referee (and its sandbox) exactly as in a tournament. Anything that is not a legal move is refused
with the legal moves named, and asked again. ``?`` lists the legal moves with what each does, ``u``
takes back the last pair of moves, ``q`` quits. A finished game is stored like any other.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.engines import EngineSpec
from harness.errors import HarnessError, OutputError
from harness.games.errors import PositionError
from harness.games.registry import PLAYERS, move_list
from harness.match import GameRecord, MoveRecord, Termination, finish, game_end
from harness.outputs import fallback_path
from harness.protocol import Verdict
from harness.referee import Limits, ask
from harness.settings import GameSettings
from harness.store import Store, file_sha256
from harness.text import visible

HUMAN = "human"
"""The person's name in stored games."""

HELP = "Type a move, ? for the legal moves, u to take back your last move, q to quit."

BLUE, RED, BOLD, RESET = "\x1b[34;1m", "\x1b[31;1m", "\x1b[1m", "\x1b[0m"


@dataclass
class Session:
    """One game in progress: the position, its history and the record being written."""

    settings: GameSettings
    engine: EngineSpec
    human: str
    """The person's side, ``x`` or ``o``."""
    position: Any
    record: GameRecord
    seen: dict[int, int] = field(default_factory=dict)
    keys: list[int] = field(default_factory=list)
    """The position key after each ply (for taking moves back)."""


def play(settings: GameSettings, size: str, engine: EngineSpec, human: str, limits: Limits, db: Path,
         ask_line: Callable[[str], str], say: Callable[[str], None], colour: bool) -> GameRecord | None:
    """Play one game; the finished record (stored in ``db``), or None if the person quit."""
    rules = settings.rules
    position = rules.initial(size, settings.options)
    names = {human: HUMAN, "o" if human == "x" else "x": engine.name}
    record = GameRecord(names["x"], names["o"], rules.name, position.size_text, settings.time, position.board(),
                        position.player, settings.max_plies, settings.win_priority)
    session = Session(settings, engine, human, position, record, {position.key(): 1})
    say(f"{rules.title} {rules.size_phrase(position.size_text)}: you play {human}"
        f"{' (moves first)' if human == 'x' else ''} against {engine.name}, {settings.time:g} s per move.")
    say(HELP)
    say(_board(session, None, colour))
    while record.termination is None:
        if position.player == human:
            move = _human_move(session, ask_line, say, colour)
            if move is None:
                say("You quit; an unfinished game is not stored.")
                return None
            if move == "undo":
                continue
            assert isinstance(move, tuple)
            _apply(session, move[0], move[1], HUMAN)
        else:
            call = ask(engine.command, position, settings.time, limits, engine.extra_args)
            if call.verdict is not Verdict.OK or call.move is None:
                player = position.player
                record.moves.append(MoveRecord(record.plies + 1, player, engine.name, None, None, call.verdict,
                                               round(call.seconds, 4), call.warnings, call.detail))
                finish(record, human, Termination.FORFEIT,
                       f"{human} wins: {player} ({engine.name}) forfeits by {call.verdict.value}: {call.detail}")
                say(visible(f"{engine.name} forfeits ({call.verdict.value}: {call.detail})."))
                break
            say(f"{engine.name} plays {call.move}: {rules.describe_move(call.move)} ({call.seconds:.2f} s)")
            _apply(session, call.move, call.seconds, engine.name, call.warnings)
        say(_board(session, record.moves[-1].move, colour))
    say(_verdict(session))
    keep_game(db, session)
    return record


def _apply(session: Session, move: int, seconds: float, name: str, warnings: tuple[Any, ...] = ()) -> None:
    position, record = session.position, session.record
    player = position.player
    position.push(move)
    record.moves.append(MoveRecord(record.plies + 1, player, name, move, position.board(), Verdict.OK,
                                   round(seconds, 4), tuple(warnings)))
    session.keys.append(position.key())
    ended = game_end(session.settings.rules, position, session.seen, record.plies, session.settings.max_plies,
                     player, name, move)
    if ended is not None:
        finish(record, *ended)


def _undo(session: Session) -> int:
    """Take back the person's last move and the engine's answer to it; the plies taken back."""
    record = session.record
    human_plies = [m.ply for m in record.moves if m.engine == HUMAN]
    if not human_plies:
        return 0
    count = record.plies - human_plies[-1] + 1
    for _ in range(count):
        key = session.keys.pop()
        if key in session.seen:  # counted only in games where positions can repeat
            session.seen[key] -= 1
        session.position.pop()
        record.moves.pop()
    return count


def _human_move(session: Session, ask_line: Callable[[str], str], say: Callable[[str], None],
                colour: bool) -> tuple[int, float] | str | None:
    rules = session.settings.rules
    position = session.position
    started = time.monotonic()
    while True:
        try:
            text = ask_line(f"your move ({session.human}): ").strip()
        except EOFError:
            return None
        if text in ("q", "quit"):
            return None
        if text in ("?", "h", "help"):
            say(legal_moves_text(session))
            continue
        if text in ("u", "undo"):
            taken = _undo(session)
            if taken:
                say(f"took back {taken} move{'s' if taken > 1 else ''}")
                say(_board(session, session.record.moves[-1].move if session.record.moves else None, colour))
                return "undo"
            say("nothing to take back yet")
            continue
        legal = position.legal_moves()
        try:
            move = rules.parse_move(text)
        except PositionError:
            move = None
        if move is None or move not in legal:
            why = "not a move" if move is None else position.illegal_reason(move) or "not legal here"
            say(f"{text!r} is {why if move is None else 'illegal: ' + why}; the legal moves are "
                f"{' '.join(str(m) for m in legal)} ({rules.notation}; ? explains each)")
            continue
        return move, time.monotonic() - started


def legal_moves_text(session: Session) -> str:
    """Every legal move with what it does, as ``arena moves`` says it."""
    rules = session.settings.rules
    position = session.position
    lines = []
    for move, _board, winner in move_list(position):
        effect = "game goes on" if winner is None else f"{PLAYERS[winner]} wins"
        lines.append(f"  {move:>3}  {rules.describe_move(move)}: {effect}")
    return "legal moves:\n" + "\n".join(lines)


def _board(session: Session, last_move: int | None, colour: bool) -> str:
    text = session.settings.rules.render(session.position, last_move)
    if not colour:
        return text
    lines = text.splitlines()
    board_rows = len(session.position.board()) // session.settings.rules.columns(session.position)
    painted = [line.replace("x", f"{BLUE}x{RESET}").replace("o", f"{RED}o{RESET}") if index < board_rows else line
               for index, line in enumerate(lines)]
    return "\n".join(painted)


def _verdict(session: Session) -> str:
    record = session.record
    if record.termination is Termination.FULL_BOARD and record.game == "connect4":
        return "Tie game!"
    reason = visible(record.reason)  # a forfeit's reason quotes what the engine printed
    if record.winner is None:
        return f"Draw: {reason.removeprefix('draw: ')}."
    if record.winner == session.human:
        return f"You win! ({reason})"
    return f"{session.engine.name} wins. ({reason})"


@dataclass(frozen=True)
class _Stored:
    """A finished game as arena play stores it: its tournament ``play`` and the game's key."""

    config: dict[str, Any]
    engines: list[dict[str, Any]]
    key: str
    finished_at: str


def _stored(session: Session) -> _Stored:
    record = session.record
    config = {"kind": "play", **session.settings.model_dump(), "size": record.size}
    engine = session.engine
    engines = [{"name": HUMAN, "command": "(a person at the terminal)", "program": None, "sha256": None},
               {"name": engine.name, "command": engine.display_command, "program": engine.program,
                "sha256": file_sha256(engine.program)}]
    stamp = datetime.now(timezone.utc)
    return _Stored(config, engines, f"play:{stamp.strftime('%Y%m%dT%H%M%S.%f')}", stamp.isoformat(timespec="seconds"))


def store_game(db: Path, session: Session, stored: _Stored | None = None) -> int | None:
    """Store a finished game in the tournament ``play`` of ``db`` (one per game, engine and settings)."""
    stored = stored or _stored(session)
    with Store(db, role="arena play") as store:
        tournament = store.ensure_tournament("play", stored.config, stored.engines)
        return store.save_record(tournament, stored.key, stored.key, 1, session.record, stored.finished_at)


def keep_game(db: Path, session: Session) -> None:
    """Store the finished game in ``db``; when that fails (a database another process is writing, a
    folder gone, a full disk), save it as a line of ``arena export`` in the current or the temporary
    folder and raise OutputError naming the file and how to add it: a played game is never lost."""
    stored = _stored(session)
    try:
        store_game(db, session, stored)
        return
    except (HarnessError, sqlite3.Error, OSError) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    line = {**session.record.to_json(), "game_id": 1, "key": stored.key, "pair_key": stored.key, "round": 1,
            "finished_at": stored.finished_at,
            "tournament": {"name": "play", "created_at": stored.finished_at, "config": stored.config,
                           "engines": stored.engines}}
    for place in fallback_path("arena-play.jsonl"):
        try:
            with open(place, "x", encoding="utf-8") as file:
                file.write(json.dumps(line) + "\n")
        except OSError:
            continue
        raise OutputError(f"cannot store the game in {db} ({why}); it is saved in {place}: "
                          f"'arena import {db} {place}' adds it to the database")
    raise OutputError(f"cannot store the game in {db} ({why}), nor save it in the current or the temporary folder")
