"""The losing move of a finished game: the first move that turned its mover's won position into a draw
or a loss, or a drawn one into a loss, proved by the game's exact oracle where it reaches
(``Game.oracle``), else assessed by the strongest search at a fixed depth.

The oracle walks the game backwards from its end (late positions are the cheap ones, and each solved
position helps the next) until the deadline; the first move of the reached stretch that lost value is
the proved losing move. When the oracle does not reach the start and proved none, the search assesses
the plies before its reach from the start, at ``DEPTH`` plies, every move scored exactly: a move that
scores more than the game's ``assessment_margin`` below the best is the assessed losing move, never a
proof. The analysis runs after the game, in the analysing process: no engine's clock is involved.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.games.game import OracleUnavailable
from harness.games.registry import Game, Position, RuleOptions, get_game
from harness.match.match import GameRecord
from harness.referee.protocol import Verdict

Kind = Literal["proved", "assessment", "none", "not reached"]
KINDS: tuple[Kind, ...] = ("proved", "assessment", "none", "not reached")
"""What an analysis found: a proved losing move, an assessed one, none (every ply judged), or it did
not reach every ply before its budget ran out and found none where it reached."""

DEPTH = 4
"""Plies the assessing search looks ahead from each position (every root move scored exactly)."""
BUDGET = 10.0
"""Default seconds of analysis per game (``arena analyse --budget``)."""
WALK_SHARE = 0.7
"""The share of the budget the oracle's walk back from the end may take: the rest is kept for the
better moves and the reply around the losing move it finds (or for the assessment)."""
VALUE_WORDS = {1: "won", 0: "drawn", -1: "lost"}


@dataclass(frozen=True)
class Finding:
    """What the analysis of one game found (its JSON form is what the store keeps)."""

    kind: Kind
    method: str
    """What judged the moves: ``the n = 3 tables``, ``search at depth 4``, or both joined by ``; ``."""
    ply: int | None = None
    """The losing move's ply (1 is the game's first move); None when there is none."""
    player: str | None = None
    move: int | None = None
    before: str = ""
    """The mover's value before the move: ``won``, ``drawn``, or for an assessment ``search +340``."""
    after: str = ""
    """The mover's value after it, in the same words."""
    keeping: tuple[int, ...] = ()
    """The moves that kept the value (for an assessment: the moves within the margin of the best)."""
    unsettled: tuple[int, ...] = ()
    """Moves whose value the budget left unknown (so ``keeping`` may miss some)."""
    reply: int | None = None
    """The opponent's best reply after the losing move (one that keeps its new value: its fastest
    win where it wins)."""
    reached_from: int | None = None
    """The first ply whose position the oracle settled (1 when it reached the whole game); None when
    it settled none or there is no oracle."""
    assessed_to: int | None = None
    """The last ply the search assessed (plies before ``reached_from``); None when it assessed none."""
    depth: int | None = None
    """The assessing search's depth, when it ran."""
    margin: int | None = None
    """The assessment's margin in search points, when it ran."""
    oracle: str = ""
    """The oracle that ran (its title), or empty."""
    note: str = ""
    """Why the oracle did not run (not built on this machine), in one sentence; else empty."""
    plies: int = 0
    """How many moves the game has (its legal moves, a forfeit not counted)."""

    def to_json(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["keeping"], data["unsettled"] = list(self.keeping), list(self.unsettled)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        """A stored finding; ValueError naming the field when a value is not a finding's."""
        if not isinstance(data, dict) or data.get("kind") not in KINDS:
            raise ValueError(f"kind: expected one of {', '.join(KINDS)}")
        values: dict[str, Any] = {}
        for name, spec in cls.__dataclass_fields__.items():
            value = data.get(name, spec.default)
            if name in ("keeping", "unsettled"):
                if not isinstance(value, list) or not all(_whole(item) for item in value):
                    raise ValueError(f"{name}: expected a list of moves")
                value = tuple(value)
            elif name in ("ply", "move", "reply", "reached_from", "assessed_to", "depth", "margin"):
                if value is not None and not _whole(value):
                    raise ValueError(f"{name}: expected a whole number or null")
            elif name == "plies":
                if not _whole(value):
                    raise ValueError("plies: expected a whole number")
            elif name == "player":
                if value not in ("x", "o", None):
                    raise ValueError("player: expected x, o or null")
            elif not isinstance(value, str):
                raise ValueError(f"{name}: expected text")
            values[name] = value
        return cls(**values)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


@dataclass
class _Walk:
    """A game's positions: ``positions[i]`` is the position before move ``moves[i]`` (ply ``plies[i]``);
    ``positions[-1]`` the position after the last move."""

    rules: Game
    positions: list[Position] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)
    plies: list[int] = field(default_factory=list)
    players: list[str] = field(default_factory=list)


def _walk(record: GameRecord) -> _Walk:
    rules = get_game(record.game)
    position = rules.position(record.size, record.start_player, record.start_board, RuleOptions(record.win_priority))
    walk = _Walk(rules, [position.copy()])
    for move in record.moves:
        if move.verdict is not Verdict.OK or move.move is None:
            break
        walk.moves.append(move.move)
        walk.plies.append(move.ply)
        walk.players.append(move.player)
        position.push(move.move)
        walk.positions.append(position.copy())
    return walk


def _over(rules: Game, position: Position) -> int | None:
    """The score of a finished position for its side to move (a loss -1, a win 1, a draw 0), None if
    play goes on."""
    winner = position.winner()
    if winner is not None:
        return 1 if winner == position.turn else -1
    if rules.end_reason(position) is not None or not position.legal_moves():
        return 0
    return None


def analyse(record: GameRecord, budget: float = BUDGET, depth: int = DEPTH) -> Finding:
    """The losing move of ``record`` (see the module's doc) within ``budget`` seconds."""
    started = time.monotonic()
    deadline = started + budget
    walk_deadline = started + WALK_SHARE * budget
    walk = _walk(record)
    rules = walk.rules
    count = len(walk.moves)
    note = ""
    oracle = None
    try:
        oracle = rules.oracle(record.size, RuleOptions(record.win_priority))
    except OracleUnavailable as error:
        note = str(error)
    reached = count  # the first index whose position the oracle settled (count: none before the end)
    method = ""
    if oracle is not None:
        method = oracle.title
        try:
            scores: dict[int, int] = {}
            for index in range(count, -1, -1):
                position = walk.positions[index]
                score = _over(rules, position)
                if score is None:
                    score = oracle.score(position, walk_deadline) if time.monotonic() < walk_deadline else None
                if score is None:
                    break
                scores[index] = score
                reached = index
            found = _first_drop(walk, scores, reached)
            if found is not None:
                before, after = _sign(scores[found]), -_sign(scores[found + 1])
                keeping, unsettled, reply = _around(walk, found, before, scores, oracle, deadline)
                return Finding("proved", method, walk.plies[found], walk.players[found], walk.moves[found],
                               VALUE_WORDS[before], VALUE_WORDS[after], keeping, unsettled, reply,
                               _ply_of(walk, reached), oracle=method, plies=count)
        finally:
            oracle.close()
    reached_from = _ply_of(walk, reached) if oracle is not None and reached < count else None
    if reached == 0:
        return Finding("none", method, reached_from=1, oracle=method, plies=count, note=note)
    evaluation = rules.assessment_evaluation()
    if evaluation is None:
        return Finding("not reached", method, reached_from=reached_from, oracle=method, plies=count, note=note)
    oracle_title = method
    searched = f"search at depth {depth}"
    method = f"{method}; {searched}" if method else searched
    margin = rules.assessment_margin
    assessed = _assess(walk, reached, evaluation, depth, margin, deadline)
    assessed_to = walk.plies[assessed.last] if assessed.last is not None else None
    if assessed.drop is not None:
        index, best, played, keeping, reply = assessed.drop
        return Finding("assessment", method, walk.plies[index], walk.players[index], walk.moves[index],
                       _search_words(best), _search_words(played), keeping, (), reply, reached_from, assessed_to,
                       depth, margin, oracle_title, note, count)
    kind: Kind = "none" if assessed.last == reached - 1 else "not reached"
    return Finding(kind, method, reached_from=reached_from, assessed_to=assessed_to, depth=depth, margin=margin,
                   oracle=oracle_title, note=note, plies=count)


def _ply_of(walk: _Walk, index: int) -> int:
    """The ply of the move played from ``positions[index]`` (one past the last for the final one)."""
    return walk.plies[index] if index < len(walk.plies) else (walk.plies[-1] + 1 if walk.plies else 1)


def _first_drop(walk: _Walk, scores: dict[int, int], reached: int) -> int | None:
    """The first index from ``reached`` whose move lost its mover value (won to drawn or lost, drawn to lost)."""
    for index in range(reached, len(walk.moves)):
        before = _sign(scores[index])
        if before >= 0 and -_sign(scores[index + 1]) < before:
            return index
    return None


def _around(walk: _Walk, index: int, value: int, scores: dict[int, int], oracle: Any, deadline: float
            ) -> tuple[tuple[int, ...], tuple[int, ...], int | None]:
    """(the moves that kept the mover's ``value`` (1 won, 0 drawn), those the deadline left unsettled,
    the opponent's best reply), each settled by ``deadline``. The reply comes first: the game's own
    reply (its score known from the walk) unless another settles as better."""
    rules = walk.rules
    position, after = walk.positions[index], walk.positions[index + 1]

    def child_score(parent: Position, move: int) -> int | None:
        child = parent.after(move)
        score = _over(rules, child)
        if score is None:
            score = oracle.score(child, deadline) if time.monotonic() < deadline else None
        return None if score is None else -score

    reply, best = None, None
    if index + 2 in scores:
        reply, best = walk.moves[index + 1], -scores[index + 2]
    if _over(rules, after) is None:
        for move in after.legal_moves():
            score = best if move == reply else child_score(after, move)
            if score is not None and (best is None or score > best):
                reply, best = move, score
    keeping: list[int] = []
    unsettled: list[int] = []
    for move in position.legal_moves():
        if move == walk.moves[index]:
            continue
        score = child_score(position, move)
        if score is None:
            unsettled.append(move)
        elif _sign(score) >= value:
            keeping.append(move)
    return tuple(keeping), tuple(unsettled), reply


@dataclass
class _Assessed:
    last: int | None = None
    """The last index assessed."""
    drop: tuple[int, int, int, tuple[int, ...], int | None] | None = None
    """(index, best score, played move's score, moves within the margin, the opponent's best reply)."""


def _assess(walk: _Walk, upto: int, evaluation: Callable[[Any], int], depth: int, margin: int, deadline: float
            ) -> _Assessed:
    """The search's verdict on the moves from the start to ``upto`` (excluded), each position searched at
    ``depth`` with every root move scored exactly, until the deadline."""
    from engines.search.alphabeta import INFINITY, SearchStopped, AlphaBeta

    searcher = AlphaBeta(evaluation)
    searcher.root_margin = INFINITY
    assessed = _Assessed()
    seen: set[int] = set()
    pending: tuple[int, int, int, tuple[int, ...]] | None = None
    for index in range(0, min(upto + 1, len(walk.moves) + 1)):
        position = walk.positions[index]
        over = _over(walk.rules, position) is not None
        scores: dict[int, int] = {}
        if not over:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            searcher.deadline = None
            try:
                scores = _root_scores(searcher, position, depth, seen, deadline)
            except SearchStopped:
                break
        if pending is not None:
            found, best, played, keeping = pending
            reply = max(scores, key=lambda move: scores[move]) if scores else None
            assessed.drop = (found, best, played, keeping, reply)
            return assessed
        if index >= upto or over:
            break
        seen.add(position.key())
        best = max(scores.values())
        played = scores[walk.moves[index]]
        assessed.last = index
        if best - played > margin:
            pending = (index, best, played, tuple(move for move, score in scores.items()
                                                  if best - score <= margin and move != walk.moves[index]))
    if pending is not None:
        found, best, played, keeping = pending
        assessed.drop = (found, best, played, keeping, None)
    return assessed


def _root_scores(searcher: Any, position: Position, depth: int, history: set[int], deadline: float) -> dict[int, int]:
    """Every legal move's exact score at ``depth`` (SearchStopped past the deadline)."""
    from engines.search.alphabeta import SearchStopped

    result = None
    for result in searcher.iterate(position, depth, deadline, None, history):
        pass
    if result is None or result.partial or (result.depth < depth and not result.is_proven):
        raise SearchStopped
    return dict(searcher.root_scores)


def _search_words(score: int) -> str:
    from engines.search.alphabeta import WIN, WIN_BOUND

    if score >= WIN_BOUND:
        return f"won (search: a win in {WIN - score} plies)"
    if score <= -WIN_BOUND:
        return f"lost (search: a loss in {WIN + score} plies)"
    return f"search {score:+d}"
