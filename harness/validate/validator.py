"""Validate a student's engine: protocol, rules, time, robustness, tactics and strength.

Every check runs the program exactly as the referee does in a game (one process per move, the exact
command line), and records evidence: the command, the position, what was printed and what was
expected. A broken program (missing, not executable, crashing, hanging, Python 2) yields a report
with failed checks, never an exception. Any game of harness.games.registry can be validated: the
positions asked come from its suites (harness.positions.suites), the rest is the same for all.
"""

from __future__ import annotations

import enum
import math
import re
import shlex
import statistics
from collections import Counter
from fractions import Fraction
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from harness.referee.engine_specs import EngineSpec, builtin_engine, command_words
from harness.games.game import PLAYERS
from harness.games.registry import GAMES, Game, Position, get_game
from harness.match.match import GameRecord, Overloaded, Termination, play_game, score_for_x
from harness.games.suites import Case, GamePosition, Suites, losing_line
from harness.games.errors import PositionError
from harness.games.wire import parse_answer_line
from harness.referee.protocol import Clock, Verdict, WarningKind
from harness.referee.referee import CallResult, Limits, ask
from harness.match.settings import GameSettings
from harness.text import excerpt

class Status(str, enum.Enum):
    """The status of a check or a category: the one vocabulary of the text, HTML and JSON reports."""

    PASS = "pass"
    """A check that did what it asks; a category whose judged checks all passed (one at least)."""
    FAIL = "fail"
    """A check that did not; a category that decides the exit status with a failed check."""
    WEAK = "weak"
    """A category that does not decide the exit status (tactics; King's Horses' moves) with a failed check."""
    INFO = "info"
    """Information, not pass/fail: the strength measures and their checks."""
    NOT_JUDGED = "not judged"
    """No evidence to judge by (no answer, or no answer in time on a position asked for something
    else): never a pass."""

    def __str__(self) -> str:
        return self.value

    @property
    def passed(self) -> bool | None:
        """The JSON report's ``passed``: true for pass, null for info, false otherwise."""
        return None if self is Status.INFO else self is Status.PASS


class Role(str, enum.Enum):
    """What a category's result decides."""

    REQUIRED = "required"
    """It decides the exit status: a failed check makes it ``fail``."""
    GRADED = "graded"
    """Judged and shown, but the exit status does not depend on it: a failed check makes it ``weak``."""
    INFO = "info"
    """Information, not pass/fail: always ``info`` when judged."""

    def __str__(self) -> str:
        return self.value


ROLES = {"protocol": Role.REQUIRED, "rules": Role.REQUIRED, "time": Role.REQUIRED, "robustness": Role.REQUIRED,
         "tactics": Role.GRADED, "strength": Role.INFO}
"""Betsy's and Connect Four's categories, in report order, with their roles."""
CATEGORIES = tuple(ROLES)
REQUIRED = tuple(name for name, role in ROLES.items() if role is Role.REQUIRED)
"""Categories that decide the exit status."""
REFERENCE_ELO = {name: rules.reference_elo for name, rules in GAMES.items() if rules.reference_elo}
"""Approximate ratings of the reference engines (random = 0), per game, from matches at 1 s/move.
Betsy, n = 5: greedy scored 36/40 against random, alphabeta 38/40 against greedy. Connect Four, 8x8:
greedy 20/20 against random, alphabeta 19/20 against greedy, each rated as if one more game had been
drawn (a sweep has no finite rating): +645 (a lower bound) and +446."""
ADJUDICATION_WIN = 990_000
"""A search score at least this large is a proven win (engines/search/alphabeta.py: WIN - plies)."""
SLOWEST_SHOWN = 6
"""Calls a time failure lists, slowest first."""
KINDS_SHOWN = 4
"""Kinds of position a summary names where checks failed (the commonest first)."""
PAIR_ASKS = 3
"""Asks of a last-pebble case first answered with a rotation, and of its twin (``Case.twin``): a
diagnosis of what a program believes rests on the same kind of answer in both, again and again."""
CHANCE_BAR_PERCENT = 1
CHANCE_BAR = CHANCE_BAR_PERCENT / 100
"""A last-pebble diagnosis stands only when a program playing uniformly random legal moves would show
the answers seen with a smaller probability than this (docs/verdicts.md)."""


@dataclass
class Check:
    """One check and its evidence."""

    id: str
    passed: bool
    detail: str
    """One line: what happened."""
    warning: bool = False
    """Passed, with a protocol warning."""
    command: str = ""
    """The exact command line run."""
    board: str = ""
    size: str = ""
    """The board size as on the wire: ``5`` (Betsy's n) or ``7x6``."""
    player: str = ""
    printed: list[str] = field(default_factory=list)
    """The program's last stdout lines, each cut to a bounded length (harness.text.excerpt)."""
    printed_cut: int = 0
    """Bytes cut from those lines to keep the excerpt bounded (4 KiB per call at most)."""
    stderr: str = ""
    expected: str = ""
    seconds: float | None = None
    judged: bool = True
    """False when there was no evidence to judge by (the program never answered, or ran out of
    time on a position asked for something else): never a pass."""
    kind: str = ""
    """What the position is, from its id without size, colour and number: ``midgame``, ``block``."""
    verdict: str = ""
    """The referee's verdict on the call (harness.referee.protocol.Verdict's value), empty without one."""
    slowest: list[dict[str, Any]] = field(default_factory=list)
    """A time check's slowest calls, slowest first: ``{"id", "size", "player", "seconds", "answered"}``
    (``seconds`` is when the answer came, or when a call with no answer was stopped)."""
    move: int | None = None
    """The move the program answered (legal or not; None without an answer)."""
    solutions: list[int] = field(default_factory=list)
    """A check with a proven answer: exactly the right moves (empty: any legal move)."""
    losing_line: list[int] = field(default_factory=list)
    """A check with a proven answer, failed by a legal move: the opponent's reply that proves the move
    lost (it completes a line at once, or wins within 3 plies whatever the answer); empty otherwise."""
    pairs: list[dict[str, Any]] = field(default_factory=list)
    """A last-pebble check: the minimal pairs its verdict rests on, its own first (every pair of the run
    on a missed check; ``_pair`` gives the keys: the case, its twin's board and solving moves, the answers
    in each)."""
    chance: float | None = None
    """A missed last-pebble check: the probability that a uniformly random mover shows the answers seen
    in the pairs (None when a pair refutes the diagnosis, or none was asked)."""
    basis: str = ""
    """What a failed check rests on: ``observed`` (a fault the referee saw: an illegal move, a wrong board,
    no answer, a time fault on the program's own clock), ``oracle`` (a legal move outside the proven
    solving moves), ``proved`` (a diagnosis that stands: a last-pebble rules failure proved by minimal
    pairs, ``judge_last_pebbles``); empty for a check that passed or was not judged."""

    @property
    def n(self) -> int:
        """Betsy's board size (0 for a size that is not a number, or none)."""
        return int(self.size) if self.size.isdigit() else 0


@dataclass
class Category:
    name: str
    checks: list[Check] = field(default_factory=list)
    summary: str = ""
    role: Role = Role.REQUIRED

    @property
    def judged(self) -> bool:
        return any(check.judged for check in self.checks)

    @property
    def passed(self) -> bool:
        """Every judged check passed, and at least one was judged."""
        return self.judged and all(check.passed for check in self.checks if check.judged)

    @property
    def status(self) -> Status:
        if not self.judged:
            return Status.NOT_JUDGED
        if self.role is Role.INFO:
            return Status.INFO
        if self.passed:
            return Status.PASS
        return Status.FAIL if self.role is Role.REQUIRED else Status.WEAK

    def status_of(self, check: Check) -> Status:
        """A check's status: ``info`` in an information category, else pass, fail or not judged."""
        if not check.judged:
            return Status.NOT_JUDGED
        if self.role is Role.INFO:
            return Status.INFO
        return Status.PASS if check.passed else Status.FAIL

    @property
    def failed(self) -> list[Check]:
        """The judged checks that failed (none in an information category)."""
        return [check for check in self.checks if self.status_of(check) is Status.FAIL]


def make_category(name: str, roles: dict[str, Role] = ROLES) -> Category:
    """An empty category of that name, with its role in ``roles``."""
    return Category(name, role=roles[name])


@dataclass
class ValidationReport:
    """The validator's findings."""

    program: str
    verdict: str
    """One line for the top of the report."""
    passed: bool
    """Whether protocol, rules, time and robustness all passed."""
    categories: dict[str, Category]
    strength: dict[str, Any] = field(default_factory=dict)
    game: str = "betsy"
    """The game's name (harness.games.registry)."""
    time_scale: float = 1.0
    """The clock's scale (harness.referee.calibrate): every limit was multiplied by it."""

    def to_json(self) -> dict[str, Any]:
        """A plain JSON object; Betsy's checks also carry ``n``."""
        stores_n = get_game(self.game).stores_n
        return {
            "program": self.program,
            "game": self.game,
            "time_scale": self.time_scale,
            "verdict": self.verdict,
            "passed": self.passed,
            "categories": {
                name: {
                    "status": category.status.value,
                    "passed": category.status.passed,
                    "role": category.role.value,
                    "summary": category.summary,
                    "checks": [
                        {**asdict(check), "status": category.status_of(check).value,
                         "passed": category.status_of(check).passed, **({"n": check.n} if stores_n else {})}
                        for check in category.checks
                    ],
                }
                for name, category in self.categories.items()
            },
            "strength": self.strength,
        }


@dataclass(frozen=True)
class ValidationSettings:
    """What ``arena validate`` checks and how: the game settings, sizes, games, concurrency, sandbox."""

    play: GameSettings
    """The game and its clock (time per move, grace, fractional seconds), as in a match."""
    sizes: tuple[str, ...] = ()
    """Board sizes for the rules and tactics checks (empty: the game's example sizes)."""
    games: int = 2
    """Games against each reference engine (colours alternate)."""
    quick: bool = False
    concurrency: int = 1
    """Single-position checks run at once (each a separate process of the program)."""
    sandbox: bool = False
    """Run the program (and the reference engines) in the sandbox; resolve the mode first."""
    file_bytes: int = 64 << 20
    processes: int = 64
    replay_stalls: bool = True
    """Run a starved call again alone (harness.referee.referee.starved_of) before any verdict on it."""

    @property
    def seconds(self) -> float:
        """Seconds per move given to the program."""
        return self.play.time

    @property
    def clock(self) -> Clock:
        """The referee's clock of every call of the program (``GameSettings.clock``)."""
        return self.play.clock


@dataclass(frozen=True)
class Call:
    """One call of the program: which check asked it, the position, what the referee saw."""

    label: str
    """``category/check``, e.g. ``rules/n8-x-midgame``."""
    position: Position
    result: CallResult

    @property
    def kind(self) -> str:
        return kind_of(self.label.rpartition("/")[2], self.position.size_text, self.position.player)

    @property
    def place(self) -> Place:
        return Place(self.position.size_text, self.position.player, self.kind)


class Validator:
    """Runs the suites against one program and collects checks."""

    def __init__(self, engine: EngineSpec | None, program: str, settings: ValidationSettings,
                 start_problem: str | None = None, progress: Callable[[str], None] | None = None):
        self.engine = engine
        self.program = program
        self.settings = settings
        self.game_rules: Game = settings.play.rules
        self.suites: Suites[Position] = self.game_rules.suites()
        self.sizes = settings.sizes or self.game_rules.example_sizes
        self.start_problem = start_problem
        self.limits = Limits(sandbox=settings.sandbox, file_bytes=settings.file_bytes,
                            processes=settings.processes, replay_stalls=settings.replay_stalls)
        self.calls: list[Call] = []
        self.progress = progress or (lambda _text: None)
        self.pool = ThreadPoolExecutor(max_workers=settings.concurrency)
        self.pending: list[Future[None]] = []
        self.last_pebble_cases: dict[str, Case[Position]] = {}
        """The last-pebble cases asked, by id (their misses are judged by their twins)."""

    # --- one call -----------------------------------------------------------------------------

    def call(self, label: str, position: Position) -> CallResult:
        if self.engine is None:
            argv = (*command_words(self.program), position.size_text, position.player, position.board(),
                    self.settings.clock.seconds_text)
            result = CallResult(Verdict.FAILED_TO_START, None, None, 0.0, None, False,
                                self.start_problem or "cannot start", tuple(argv))
        else:
            result = ask(self.engine.command, position, self.settings.clock, self.limits,
                         self.engine.extra_args)
        self.calls.append(Call(label, position.copy(), result))
        return result

    def check(self, category: Category, check_id: str, position: Position, expected: str,
              judge: Callable[[CallResult], tuple[bool, str, bool]] | None = None,
              solutions: frozenset[int] | None = None) -> None:
        """Ask about ``position`` for ``category``; by default a check passes when the verdict is ok.

        The call runs in the validator's pool (``ValidationSettings.concurrency`` at a time): the Check is
        filled in when it is done, and ``settle()`` waits for every one asked so far."""
        check = Check(check_id, False, "not judged: not run", judged=False)
        category.checks.append(check)
        self.pending.append(self.pool.submit(self._run_check, f"{category.name}/{check_id}", check, position,
                                             expected, judge, sorted(solutions or ())))

    def settle(self) -> None:
        """Wait for every check asked so far."""
        for future in self.pending:
            future.result()
        self.pending.clear()

    def _run_check(self, label: str, check: Check, position: Position, expected: str,
                   judge: Callable[[CallResult], tuple[bool, str, bool]] | None, solutions: list[int]) -> None:
        check_id = check.id
        self.progress(check_id)
        result = self.call(label, position)
        judged = result.verdict not in (Verdict.TIME, Verdict.FAILED_TO_START)
        if result.verdict is Verdict.FAILED_TO_START:
            passed, detail, warning = False, "not judged: the program did not start (see protocol/starts)", False
        elif result.stall:
            passed, detail, warning = False, overloaded(result), False
        elif not judged:
            passed, detail, warning = False, (
                f"not judged: no answer within {self.settings.seconds:g} s (counted under time)"), False
        elif judge is None:
            passed, detail, warning = _ok_judge(result)
        else:
            passed, detail, warning = judge(result)
        line = (losing_line(cast(GamePosition, position.copy()), result.move)
                if solutions and result.ok and result.move is not None and result.move not in solutions else [])
        basis = "" if passed or not judged else "observed" if not result.ok else "oracle" if solutions else ""
        filled = Check(check_id, passed, detail, warning, expected=expected, judged=judged, solutions=solutions,
                       losing_line=line, basis=basis, **_evidence(result, position, check_id))
        for name in check.__dataclass_fields__:
            setattr(check, name, getattr(filled, name))

    def finish(self, category: Category) -> Category:
        """Wait for the category's checks and write its summary (with the fixes of its kinds of
        position: a ``category:kind`` key of ``Suites.fixes`` is that kind's fix in that category)."""
        self.settle()
        fixes = self.suites.fixes
        own = {key.partition(":")[2]: fix for key, fix in fixes.items() if key.startswith(f"{category.name}:")}
        shared = {key: fix for key, fix in fixes.items() if ":" not in key}
        category.summary = summary(category, self.game_rules, {**shared, **own}, self.game_rules.answer_form,
                                   proves=lambda check, key: self._proves(check, key, category.role))
        return category

    def _proves(self, check: Check, key: str, role: Role = Role.GRADED) -> bool:
        """Whether the check's position, move and printed board prove the cause of the fix ``key``
        (``Suites.proves_fix``); a check without them proves none of a kind/verdict fix, and a legal
        answer fails a required category only by a proven diagnosis (``Check.basis``)."""
        if role is Role.REQUIRED and key.endswith(f"/{Verdict.OK.value}") and check.basis != "proved":
            return False
        if check.move is None or not check.board:
            return "/" not in key
        try:
            position = self.game_rules.position(check.size, check.player, check.board, self.settings.play.options)
        except (ValueError, PositionError):
            return False
        answer = next((found for found in map(parse_answer_line, reversed(check.printed)) if found), None)
        return self.suites.proves_fix(key, position, check.move, answer[1] if answer else None)

    # --- categories ---------------------------------------------------------------------------

    def protocol(self) -> Category:
        category = make_category("protocol")
        seed = self.suites.protocol_position()
        result = self.call("protocol/answers", seed)
        evidence = _evidence(result, seed, "")
        started = result.verdict is not Verdict.FAILED_TO_START
        category.checks.append(Check(
            "starts", started, "the program started" if started else result.detail,
            expected="the program runs", **evidence))
        answered = result.move is not None
        no_answer = "not judged: no answer" if started else "not judged: the program did not start"
        category.checks.append(Check(
            "answers", answered,
            f"last well-formed line: {result.move} {result.board}" if answered
            else f"{result.verdict.value}: {result.detail}",
            expected=f"a last line '{self.game_rules.answer_form}', e.g. {_example_answer(seed, self.suites.example_move)}",
            judged=started, **evidence))
        timed = answered or (result.verdict is Verdict.TIME and not result.stall)
        in_time = timed and result.verdict is not Verdict.TIME
        category.checks.append(Check(
            "in-time", in_time,
            f"answered after {result.answered_after or 0:.2f} s" if in_time
            else result.detail if timed else overloaded(result) if result.stall else no_answer,
            expected=f"an answer within {self.settings.seconds:g} s", judged=timed, **evidence))
        after = [w for w in result.warnings if w.kind is WarningKind.LINES_AFTER_ANSWER]
        category.checks.append(Check(
            "answer-is-last-line", answered,
            (after[0] if after else "the answer is the last line printed") if answered else no_answer,
            warning=bool(after), judged=answered,
            expected="nothing printed after the answer (tolerated, with a warning)", **evidence))
        exit_warnings = [w for w in result.warnings
                         if w.kind not in (WarningKind.LINES_AFTER_ANSWER, WarningKind.STALL_REPLAYED)]
        category.checks.append(Check(
            "exits-cleanly", answered,
            (exit_warnings[0] if exit_warnings else f"exited with status {result.exit_status}")
            if answered else no_answer,
            warning=bool(exit_warnings), judged=answered, expected="exit status 0 after answering",
            **evidence))
        first_id, empty = self.suites.first_move()
        self.check(category, first_id, empty, "any legal move and its board")
        return self.finish(category)

    def rules(self) -> Category:
        category = make_category("rules")
        for case in self.suites.rules(self.sizes, self.settings.quick):
            self.check(category, case.id, case.position, case.description)
        for case in self.suites.last_pebble(self.sizes):
            self.last_pebble_cases[case.id] = case
            self.check(category, case.id, case.position, case.description, _tactic_judge(case), case.expected)
        self.settle()
        self._ask_pairs(category)
        return self.finish(category)

    def _ask_pairs(self, category: Category) -> None:
        """Give each last-pebble check answered with a legal move its own pair (``Check.pairs``): a case
        answered with another kind of move than its drops (a rotation: the supply-count pattern) is asked
        ``PAIR_ASKS - 1`` more times and its twin ``PAIR_ASKS`` times, in the pool, every call recorded."""
        asked: list[tuple[Check, Case[Position], list[Future[CallResult]], list[Future[CallResult]]]] = []
        for check in category.checks:
            case = self.last_pebble_cases.get(check.id)
            if case is None or not case.expected or check.verdict != Verdict.OK.value or check.move is None:
                continue
            again: list[Future[CallResult]] = []
            twin: list[Future[CallResult]] = []
            if case.twin is not None and self.game_rules.move_kind(check.move) != self.game_rules.move_kind(
                    min(case.expected)):
                label = f"{category.name}/{case.id}"
                again = [self.pool.submit(self.call, label, case.position.copy()) for _ in range(PAIR_ASKS - 1)]
                twin = [self.pool.submit(self.call, f"{label}-twin", case.twin.copy()) for _ in range(PAIR_ASKS)]
            asked.append((check, case, again, twin))
        for check, case, again, twin in asked:
            check.pairs = [_pair(self.game_rules, case, [check.move, *(_legal_answer(f.result()) for f in again)],
                                 [_legal_answer(f.result()) for f in twin])]

    def robustness(self) -> Category:
        category = make_category("robustness")
        for case in self.suites.robustness(self.settings.quick):
            self.check(category, case.id, case.position, case.description)
        return self.finish(category)

    def tactics(self) -> Category:
        category = make_category("tactics")
        for case in self.suites.tactics(self.sizes, self.settings.quick):
            self.check(category, case.id, case.position, f"{case.description}: one of {sorted(case.expected or ())}",
                       _tactic_judge(case), case.expected)
        return self.finish(category)

    def time(self) -> Category:
        """Answer times from the referee's clock: when the answer line arrived (for a program killed
        at the deadline, its last answer), the calls with no answer by the deadline and where they
        were, and the calls killed after answering. One set of counts: every call that ran either
        answered, had no answer by the deadline, or ended without one."""
        category = make_category("time")
        limit, grace = self.settings.seconds, self.settings.play.grace
        started = [call for call in self.calls if call.result.verdict is not Verdict.FAILED_TO_START]
        starved = [call for call in started if call.result.stall]
        ran = [call for call in started if not call.result.stall]
        answered = [call for call in ran if call.result.answered_after is not None]
        late = [call for call in ran if call.result.verdict is Verdict.TIME]
        silent = len(ran) - len(answered) - len(late)
        killed = [call for call in answered if call.result.killed]
        replayed = [call for call in started if call.result.replays]
        if starved:
            category.checks.append(Check(
                "machine-overloaded", False,
                f"{len(starved)} of {len(started)} calls could not be judged: {overloaded(starved[0].result)}",
                expected="every call judged on the program's own time", judged=False,
                slowest=_slowest(starved)))
        if replayed:
            category.checks.append(Check(
                "calls-run-again", True,
                f"{len(replayed)} of {len(started)} calls were starved by the machine and run again alone: "
                + "; ".join(f"{call.label}: {_replay_note(call.result)}" for call in replayed[:SLOWEST_SHOWN]),
                warning=True, expected="no call starved by the machine"))
        if not answered and not late:
            category.checks.append(Check(
                "every-answer-in-time", False, "not judged: the program never answered",
                expected=f"every answer within {limit:g} s", judged=False))
            category.summary = "not judged: the program never answered"
            return category
        times = sorted(call.result.answered_after or 0.0 for call in answered)
        worst = times[-1] if times else 0.0
        median = statistics.median(times) if times else 0.0
        over = [call for call in answered if (call.result.answered_after or 0.0) > limit]
        deadline = f"{limit:g} s + {grace:g} s grace"
        asked = [call.place for call in ran]
        parts = [f"{len(ran)} calls: {len(answered)} answered"
                 + (f" ({len(answered) - len(over)} within {limit:g} s, {len(over)} in the grace)" if over
                    else f" within {limit:g} s" if answered else "")
                 + (f", median {median:.2f} s, worst {worst:.2f} s" if answered else "")]
        if killed:
            parts.append(f"{len(killed)} of them killed at the deadline after answering")
        if silent:
            parts.append(f"{silent} ended without an answer")
        if late:
            parts.append(f"{len(late)} had no answer by {deadline}: {where([c.place for c in late], asked, self.game_rules)}")
        if replayed:
            parts.append(f"{len(replayed)} starved by the machine and run again alone")
        if starved:
            parts.append(f"{len(starved)} not judged: the machine was overloaded")
        category.summary = "; ".join(parts) + (f". Fix: {TIME_FIX}{_larger_boards(late, ran)}" if late else "")
        evidence: dict[str, Any] = {}
        if late:
            first = late[0]
            detail = (f"{len(late)} of {len(ran)} calls had no answer by {deadline}: "
                      f"{where([c.place for c in late], asked, self.game_rules)}")
            evidence = dict(command=shlex.join(first.result.argv), board=first.position.board(),
                            size=first.position.size_text, player=first.position.player, kind=first.kind,
                            verdict=first.result.verdict.value)
        else:
            detail = f"all {len(answered)} answers arrived by {deadline}"
        category.checks.append(Check(
            "every-answer-in-time", not late, detail, expected=f"every answer within {limit:g} s",
            seconds=round(worst, 3), slowest=_slowest(ran), basis="observed" if late else "", **evidence))
        category.checks.append(Check(
            "answers-after-the-limit", True,
            (f"{len(over)} of {len(answered)} answers came after {limit:g} s, inside the grace: "
             f"{where([c.place for c in over], asked, self.game_rules)}"
             if over else f"none: every answer came within {limit:g} s (worst {worst:.2f} s)"),
            warning=bool(over), expected=f"the answer printed within {limit:g} s", seconds=round(worst, 3),
            slowest=_slowest(over)))
        category.checks.append(Check(
            "killed-after-answering", True,
            (f"{len(killed)} of {len(answered)} calls that answered were still running at the deadline "
             f"and were killed (their last answer counted)" if killed else
             "none: the program exited by itself after every answer"),
            warning=bool(killed), expected="the program exits after answering"))
        return category

    def strength(self) -> tuple[Category, dict[str, Any]]:
        """Two measures that separate programs in the same time: the share of value-keeping moves
        on solved n = 3 positions (Betsy; one call each), and games against the reference engines
        (Betsy's short, adjudicated at the ply cap by a deeper search instead of drawn)."""
        category = make_category("strength")
        summary: dict[str, Any] = {}
        if self.suites.has_exact_tables:
            self._exact(category, summary)
        if self.settings.games > 0:
            self._games(category, summary)
        parts = []
        if "exact" in summary and summary["exact"]["asked"]:
            exact = summary["exact"]
            parts.append(f"keeps the value in {exact['kept']}/{exact['asked']} solved n = 3 positions "
                         f"(random {exact['random_share']:.0%})")
        if "elo" in summary:
            low, high = summary["elo_interval"]
            scale = ", ".join(f"{name} = 0" if not elo else f"{name} ~ {elo:+.0f}"
                              for name, elo in self.game_rules.reference_elo.items())
            parts.append(f"performance {summary['elo']:+.0f} Elo [{low:+.0f}, {high:+.0f}] over "
                         f"{len(summary['games'])} games ({scale})")
        category.summary = "; ".join(parts) or (
            "not played (--games 0, and no n = 3 tables)" if self.suites.has_exact_tables else "not played (--games 0)")
        return category, summary

    def _exact(self, category: Category, summary: dict[str, Any]) -> None:
        from harness.games.betsy.exact import VALUE_WORDS, exact_suite, open_table, value_after

        table = open_table()
        if table is None:
            category.checks.append(Check(
                "n3-value-keeping", False, "not judged: the exact n = 3 tables are not built here "
                "(scripts/build_tablebase.py builds them in about 10 s)", judged=False))
            return
        try:
            cases = exact_suite(table, 10 if self.settings.quick else 24)
            kept = 0

            def asked(index: int) -> CallResult:
                self.progress(f"n3-value-{index + 1}")
                return self.call(f"strength/n3-value-{index + 1}", cases[index].position)

            answers = list(self.pool.map(asked, range(len(cases))))
            for index, (case, result) in enumerate(zip(cases, answers), 1):
                check_id = f"n3-value-{index}"
                moves = sorted(case.keeping)
                expected = (f"the position is {VALUE_WORDS[case.value]} for {case.position.player}; "
                            f"the moves that keep it so are {moves}")
                if not result.ok:
                    detail = f"not judged: {result.verdict.value}: {result.detail}"
                    judged = False
                    keeps = False
                else:
                    assert result.move is not None
                    after = value_after(table, case.position, result.move)
                    keeps = result.move in case.keeping
                    judged = True
                    detail = (f"played {result.move}: keeps the position {VALUE_WORDS[case.value]}" if keeps else
                              f"played {result.move}: the position becomes {VALUE_WORDS[after]} for "
                              f"{case.position.player}; {expected}")
                kept += keeps
                category.checks.append(Check(check_id, keeps, detail, expected=expected, judged=judged,
                                             **_evidence(result, case.position, check_id)))
            summary["exact"] = {
                "asked": len(cases), "kept": kept,
                "random_share": round(sum(len(c.keeping) / c.legal for c in cases) / max(len(cases), 1), 3),
            }
        finally:
            table.close()

    def _games(self, category: Category, summary: dict[str, Any]) -> None:
        assert self.engine is not None
        size = self.game_rules.default_size if self.game_rules.default_size in self.sizes else self.sizes[0]
        opponents = ["random", "greedy"] if self.settings.quick else ["random", "greedy", "alphabeta"]
        max_plies = self.suites.game_plies(size, self.settings.quick)
        student = EngineSpec("student", self.engine.command, self.engine.program, self.engine.extra_args)
        results: list[tuple[float, float]] = []
        games: list[dict[str, Any]] = []
        summary.update(size=size, max_plies=max_plies, games=games, opponents={})
        n = self.game_rules.legacy_n(size)
        if n is not None:
            summary["n"] = n
        game_settings = self.settings.play.model_copy(update={"max_plies": max_plies})

        def play(task: tuple[str, int]) -> tuple[GameRecord | str, dict[str, Any] | None, bool]:
            name, index = task
            opponent = builtin_engine(name)
            x, o = (student, opponent) if index % 2 == 0 else (opponent, student)
            self.progress(f"strength: game {index + 1}/{self.settings.games} against {name}")
            try:
                record = play_game(x, o, game_settings, size, limits=self.limits)
            except Overloaded as error:
                return str(error), None, x is student
            adjudication = self._adjudicate(record) if record.termination is Termination.MAX_PLIES else None
            return record, adjudication, x is student

        tasks = [(name, index) for name in opponents for index in range(self.settings.games)]
        records: list[GameRecord] = []
        unjudged: list[str] = []
        for (name, _), (record, adjudication, as_x) in zip(tasks, self.pool.map(play, tasks)):
            if isinstance(record, str):
                unjudged.append(f"against {name} as {'x' if as_x else 'o'}: {record}")
                continue
            records.append(record)
            score = score_for_x(adjudication["result"] if adjudication else record.result)
            mine = score if as_x else 1 - score
            results.append((self.game_rules.reference_elo[name], mine))
            games.append({
                "opponent": name, "student_plays": "x" if as_x else "o", "score": mine,
                "result": record.result, "termination": record.termination, "reason": record.reason,
                "adjudication": adjudication, "plies": record.plies, "start_board": record.start_board,
                "moves": [[m.player, m.move, m.board, m.verdict, m.seconds] for m in record.moves],
            })
        # Every game is over before any is analysed: the analysis takes no engine's time.
        from harness.analysis.losing import analyse

        for number, (entry, record) in enumerate(zip(games, records), 1):
            self.progress(f"strength: analysing game {number}/{len(games)}")
            entry["analysis"] = analyse(record, STRENGTH_ANALYSIS_BUDGET).to_json()
        for text in unjudged:
            category.checks.append(Check("game-not-counted", False, f"not judged: {text}", judged=False))
        if unjudged:
            summary["not_counted"] = unjudged
        for name in opponents:
            against = [entry for entry in games if entry["opponent"] == name]
            points = sum(entry["score"] for entry in against)
            summary["opponents"][name] = {"games": len(against), "points": points}
            category.checks.append(Check(
                f"vs-{name}", True,
                f"{points:g}/{len(against)} against {name}: {'; '.join(_game_end(e) for e in against)}",
                expected="information only"))
        elo, (low, high) = performance_interval(results)
        summary.update(elo=round(elo), elo_interval=[round(low), round(high)])

    def _adjudicate(self, record: GameRecord) -> dict[str, Any]:
        """The result of a Betsy game stopped at the ply cap, by a deeper search of its last position:
        a proven win or loss counts; otherwise a lead worth a line one pebble short wins; else a draw.
        (A Connect Four game is never stopped: its cap is the number of cells.)"""
        last = record.moves[-1]
        to_move = "o" if last.player == "x" else "x"
        position = self.game_rules.position(record.size, to_move, last.board or "", self.settings.play.options)
        judge = builtin_engine("alphabeta", {"depth": 12})
        result = ask(judge.command, position, Clock(1, self.settings.play.grace), self.limits,
                     judge.extra_args + ("--info",))
        scores = [int(line.split(" score ")[1].split()[0]) for line in result.stderr_tail.splitlines()
                  if line.startswith("info depth ") and " score " in line and "(partial)" not in line]
        if not scores:
            return {"result": "1/2-1/2", "score": None, "why": "a draw: the judging search gave no score"}
        score = scores[-1]
        mover = position.player
        other = "o" if mover == "x" else "x"
        lead = 4 ** (record.n - 1)
        if abs(score) >= ADJUDICATION_WIN:
            winner, why = (mover if score > 0 else other), "the judging search proves the win"
        elif abs(score) >= lead:
            winner = mover if score > 0 else other
            why = (f"its lead on the board (search score {abs(score)}) is worth a line one pebble short "
                   f"({lead}) or more")
        else:
            return {"result": "1/2-1/2", "score": score,
                    "why": f"a draw: no win is proven, and neither side's lead (search score {abs(score)}) is "
                           f"worth a line one pebble short ({lead})"}
        return {"result": "1-0" if winner == "x" else "0-1", "score": score, "why": f"{winner} wins: {why}"}


STRENGTH_ANALYSIS_BUDGET = 5.0
"""Seconds of analysis (harness.analysis.losing) per strength game, after all of them are played."""


def _legal_answer(result: CallResult) -> int | None:
    """The move of an answer the referee accepted (legal, with its exact board); None otherwise."""
    return result.move if result.ok else None


def _pair(game: Game, case: Case[Position], answers: list[int | None], twin_answers: list[int | None]) -> dict[str, Any]:
    """One minimal pair's evidence: the case (``original``), its solving moves and whether they win at
    once (``wins``; else they stop the opponent's line), its legal moves and those of another kind than
    its drops (``others``, the rotations), its twin's board (empty without one), the column the twin
    has one pebble fewer in, the twin's legal moves, and the answers in each (None: no legal answer)."""
    position, expected = case.position, sorted(case.expected or ())
    drop = game.move_kind(expected[0])
    moves = position.legal_moves()
    twin = case.twin
    columns = game.columns(position)
    column = next((i % columns + 1 for i, (a, b) in enumerate(zip(position.board(), twin.board())) if a != b), 0) \
        if twin is not None else 0
    return {"original": case.id, "solutions": expected,
            "wins": all(position.after(move).winner() == position.turn for move in expected),
            "legal": len(moves), "others": sum(game.move_kind(move) != drop for move in moves),
            "twin": twin.board() if twin is not None else "", "twin_column": column,
            "twin_legal": len(twin.legal_moves()) if twin is not None else 0,
            "answers": answers, "twin_answers": twin_answers}


def pattern_chance(pairs: list[dict[str, Any]]) -> float:
    """The probability that a program choosing at random among the legal moves answers as seen: a move
    of another kind than the drops (a rotation) in each case, and a solving move in its twin. Counted
    once per position, not per ask: a program whose random choice is a fixed function of the position
    (seeded by the board) answers every ask alike, so only its first answer is a draw; the repeated asks
    show that the answers hold (any other kind of answer refutes the diagnosis), they are not more luck
    to multiply. The larger of the two figures, so the bar holds for both kinds of random mover."""
    return float(_exact_chance(pairs))


def _exact_chance(pairs: list[dict[str, Any]]) -> Fraction:
    """``pattern_chance`` as an exact fraction: compared with the bar exactly (0.1 x 0.1 is not below 1%)."""
    chance = Fraction(1)
    for pair in pairs:
        chance *= Fraction(pair["others"], pair["legal"]) * Fraction(len(pair["solutions"]), pair["twin_legal"])
    return chance


def _refutation(game: Game, pairs: list[dict[str, Any]]) -> str:
    """The first answer that refutes a supply count one short, in words: an ask of a case answered
    with a drop (right or wrong, it drops its last pebble) or with no legal move, or an ask of a twin
    answered with anything but a solving move (or none); empty when no answer does."""
    for pair in pairs:
        drop = game.move_kind(pair["solutions"][0])
        for number, move in enumerate(pair["answers"], 1):
            ask = f"ask {number} of {len(pair['answers'])}"
            if move is None:
                return f"{pair['original']} had no legal answer ({ask})"
            if game.move_kind(move) == drop:
                return f"{pair['original']} was answered with the {drop} {move} ({ask}): it {drop}s its last pebble"
        for number, move in enumerate(pair["twin_answers"], 1):
            ask = f"ask {number} of {len(pair['twin_answers'])}"
            if move is None:
                return f"the twin of {pair['original']} had no legal answer ({ask})"
            if move not in pair["solutions"]:
                return (f"the twin of {pair['original']} (two in hand) was answered with {move} ({ask}), not a "
                        f"solving move {pair['solutions']}")
    return ""


def judge_last_pebbles(rules: Category, tactics: Category, game: Game) -> None:
    """Where each missed last-pebble move counts, from the minimal pairs of the run (``Check.pairs``).

    A miss is a rules fault (its supply count is one short) only when the diagnosis stands over every
    pair: no ask of a case was answered with a drop (it drops its last pebble) or with no legal move,
    no ask of a twin with anything but a solving move, and a uniformly random mover shows the answers
    seen with a probability (``pattern_chance``) below ``CHANCE_BAR``. Such a miss stays under rules
    with ``basis`` "proved"; every other miss moves to tactics and says why it is not a rules fault:
    its move is a drop too, its case has no twin, which ask refutes the diagnosis, or the chance."""
    own = {check.id: check.pairs[0] for check in rules.checks if check.pairs}
    pairs = list(own.values())
    diagnosed = [pair for pair in pairs if pair["twin_answers"]]
    refuted = bool(_refutation(game, pairs))
    chance = pattern_chance(diagnosed) if diagnosed and not refuted else None
    stands = chance is not None and _exact_chance(diagnosed) < Fraction(CHANCE_BAR_PERCENT, 100)
    asks = max((len(pair["answers"]) for pair in diagnosed), default=0)
    for check in list(rules.checks):
        pair = own.get(check.id)
        if pair is None or check.passed or not check.judged or check.verdict != Verdict.OK.value or check.move is None:
            continue  # not a missed move (an illegal move or a wrong board is a rules fault of its own)
        check.pairs = [pair, *(other for other in pairs if other is not pair)]
        check.chance = chance
        other = PLAYERS[1 - PLAYERS.index(check.player)] if check.player in PLAYERS else "the opponent"
        drop = game.move_kind(pair["solutions"][0])
        what = f"a winning {drop}" if pair["wins"] else f"the {drop} that stops {other}'s line"
        played = f"played {check.move} ({game.describe_move(check.move)})"
        missed = f"{played}: missed {what} as {check.player} with its last pebble"
        if game.move_kind(check.move) == drop:
            why = f"its move is a {drop} too, so it counts that pebble"
        elif not pair["twin"]:
            why = ("its position has no twin (the same board with one more pebble in hand and the same solving "
                   "moves), so nothing tells a supply count from a tactics miss")
        elif refuted:  # the check's own pair first
            why = f"the minimal pairs refute a supply count one short: {_refutation(game, check.pairs)}"
        elif chance is None or not pair["twin_answers"]:
            why = "its twin was not asked, so nothing tells a supply count from a tactics miss"
        elif not stands:
            why = (f"a random mover shows the answers of the {len(diagnosed)} minimal pair"
                   f"{'s' if len(diagnosed) != 1 else ''} with probability {chance:.2g}, not below {CHANCE_BAR:.0%}")
        else:
            check.basis = "proved"
            check.detail = (f"{_answers_text(game, pair['answers'])} in {len(pair['answers'])} of "
                            f"{len(pair['answers'])} asks; in its twin (the same board with one of its pebbles off "
                            f"the top of column {pair['twin_column']}, so two in hand) it played "
                            f"{_twin_answers_text(pair, drop, other)} in {len(pair['twin_answers'])} of "
                            f"{len(pair['twin_answers'])} asks: it does not {drop} its last pebble (its supply count "
                            f"is one short); {len(diagnosed)} pair{'s' if len(diagnosed) != 1 else ''}, {asks} asks "
                            f"each; a random mover shows this pattern with probability {chance:.2g}")
            continue
        check.detail = f"{missed}; {why}: this is a tactics miss, not a supply count"
        rules.checks.remove(check)
        tactics.checks.append(check)


def _answers_text(game: Game, answers: list[int | None]) -> str:
    """``played -4 (rotates column 4)``, or ``played -4, -2, -4`` when the answers differ."""
    moves = [move for move in answers if move is not None]
    if len(set(moves)) == 1:
        return f"played {moves[0]} ({game.describe_move(moves[0])})"
    return "played " + ", ".join(map(str, moves))


def _twin_answers_text(pair: dict[str, Any], drop: str, other: str) -> str:
    """``the winning drop 2``, ``the drops 2, 4 that stop x's line``: the distinct answers of a twin."""
    moves = sorted({move for move in pair["twin_answers"] if move is not None})
    listed = ", ".join(map(str, moves))
    plural = "s" if len(moves) != 1 else ""
    if pair["wins"]:
        return f"the winning {drop}{plural} {listed}"
    return f"the {drop}{plural} {listed} that stop{'' if plural else 's'} {other}'s line"


def overloaded(result: CallResult) -> str:
    """A starved call's words: not judged, with the machine's figures (``CallResult.stall``)."""
    runs = f"; run again alone {result.replays} time{'s' if result.replays != 1 else ''}" if result.replays else ""
    return f"not judged: the machine was overloaded ({result.stall.removeprefix('starved: ')}{runs})"


def _replay_note(result: CallResult) -> str:
    """What a replayed call's warning says (harness.referee.referee.run_call)."""
    return next((str(w) for w in result.warnings if w.kind is WarningKind.STALL_REPLAYED), "run again")


def _game_end(entry: dict[str, Any]) -> str:
    """How a strength game ended for the program, in words."""
    outcome = {1.0: "won", 0.5: "drew", 0.0: "lost"}.get(float(entry["score"]), f"scored {entry['score']:g}")
    if entry["adjudication"]:
        return (f"as {entry['student_plays']}, {outcome}: stopped at the ply cap after {entry['plies']} plies, "
                f"{entry['adjudication']['why']}")
    return f"as {entry['student_plays']}, {outcome}: {entry['reason']}"


def performance_interval(results: list[tuple[float, float]], prior_games: float = 1.0) -> tuple[float, tuple[float, float]]:
    """The performance rating and its 95% interval (from the likelihood's curvature)."""
    elo = performance_rating(results, prior_games)
    if not results:
        return elo, (elo, elo)
    mean = sum(r for r, _ in results) / len(results)
    data = results + [(mean, 0.5)] * int(prior_games * 2) if prior_games else results
    scale = math.log(10) / 400
    information = sum(p * (1 - p) for p in (1 / (1 + 10 ** ((r - elo) / 400)) for r, _ in data)) * scale * scale
    half = 1.96 / math.sqrt(information) if information > 0 else math.inf
    return elo, (elo - half, elo + half)


def _evidence(result: CallResult, position: Position, check_id: str) -> dict[str, Any]:
    """The evidence a check keeps of one call: the command, the position, what it printed, its time."""
    printed, cut = excerpt(result.stdout_tail)
    return dict(command=shlex.join(result.argv), board=position.board(), size=position.size_text,
                player=position.player, printed=printed, printed_cut=cut,
                stderr=result.stderr_tail[-1200:], seconds=round(result.seconds, 3),
                kind=kind_of(check_id, position.size_text, position.player), verdict=result.verdict.value,
                move=result.move)


def _larger_boards(late: list[Call], ran: list[Call]) -> str:
    """When only boards larger than every board answered in time ran out of time: say so."""
    slow = {_size_key(call.position.size_text) for call in late}
    fast = {_size_key(call.position.size_text) for call in ran} - slow
    if fast and min(slow) > max(fast):
        return "; larger boards take longer: stop searching by the time given (SECONDS), whatever the size"
    return ""


def _slowest(calls: list[Call]) -> list[dict[str, Any]]:
    """The slowest of ``calls`` (those with no answer first: they ran to the deadline), for a time check."""
    def seconds(call: Call) -> float:
        answered = call.result.answered_after
        return answered if answered is not None else call.result.seconds

    ranked = sorted(calls, key=lambda call: (call.result.answered_after is not None, -seconds(call)))
    return [{"id": call.label, "size": call.position.size_text, "player": call.position.player,
             "seconds": round(seconds(call), 2), "answered": call.result.answered_after is not None}
            for call in ranked[:SLOWEST_SHOWN]]


def _example_answer(position: Position, move: int) -> str:
    """An answer line for ``position``, e.g. ``2 ...x..o.oxooxxxoxo``."""
    return f"{move} {position.after(move).board()}"


def performance_rating(results: list[tuple[float, float]], prior_games: float = 1.0) -> float:
    """The rating that best explains ``(opponent_rating, score)`` results (maximum likelihood,
    with ``prior_games`` virtual draws against the mean opponent so that all wins stay finite)."""
    if not results:
        return 0.0
    mean = sum(r for r, _ in results) / len(results)
    data = results + [(mean, 0.5)] * int(prior_games * 2) if prior_games else results
    rating = mean
    scale = math.log(10) / 400
    for _ in range(100):
        gradient = 0.0
        curvature = 0.0
        for opponent, score in data:
            p = 1 / (1 + 10 ** ((opponent - rating) / 400))
            gradient += (score - p) * scale
            curvature += p * (1 - p) * scale * scale
        step = gradient / curvature if curvature else 0.0
        rating += max(-400.0, min(400.0, step))
        if abs(step) < 1e-6:
            break
    return rating


def _ok_judge(result: CallResult) -> tuple[bool, str, bool]:
    if result.ok:
        warning = bool(result.warnings)
        detail = f"{result.move} {result.board}" + (f" (warning: {result.warnings[0]})" if warning else "")
        return True, detail, warning
    return False, f"{result.verdict.value}: {result.detail}", False


def _tactic_judge(case: Case[Any]) -> Callable[[CallResult], tuple[bool, str, bool]]:
    def judge(result: CallResult) -> tuple[bool, str, bool]:
        if not result.ok:
            return False, f"{result.verdict.value}: {result.detail}", False
        if case.expected is not None and result.move not in case.expected:
            return False, f"played {result.move}; the solving moves are {sorted(case.expected)}", False
        return True, f"played {result.move}", False
    return judge


# --- where checks failed, and the fix -----------------------------------------------------------

TIME_FIX = "print a move before the limit: the last complete line counts"
VERDICT_FIXES = {
    Verdict.ILLEGAL_MOVE.value: "play only legal moves: the first failure below says why its move is not legal",
    Verdict.BOARD_MISMATCH.value: "print the exact board your move gives, row by row from the top: compare yours "
                                  "with the right one in the first failure below",
    Verdict.NO_ANSWER.value: "the program ended without an answer: run the command of the first failure below "
                             "yourself and read what it printed",
    Verdict.OUTPUT_LIMIT.value: "print only the answer on stdout: send debug output to stderr, and keep it short",
    Verdict.TIME.value: TIME_FIX,
}
"""The fix for a failure by its verdict, when its kind of position has none of its own (Suites.fixes)."""


@dataclass(frozen=True)
class Place:
    """Where a check or a call was: its board size, the side to move, its kind of position."""

    size: str
    player: str
    kind: str


def kind_of(check_id: str, size: str, player: str) -> str:
    """A check's kind of position: its id without the size, the colour and the number
    (``n5-x-no-pebbles-in-hand-1`` -> ``no-pebbles-in-hand``, ``7x6-o-block-2`` -> ``block``)."""
    dropped = {size, f"n{size}", player}
    return "-".join(word for word in check_id.split("-") if word not in dropped and not word.isdigit())


def _size_key(size: str) -> tuple[int, ...]:
    return tuple(int(number) for number in re.findall(r"\d+", size)) or (0,)


def where(failed: list[Place], asked: list[Place], rules: Game, sizes: bool = True) -> str:
    """Where ``failed`` were among ``asked``, in words: the sizes (and those where none failed),
    the colours and the kinds of position, each with its count: ``at n = 8 (4 of 8), n = 12 (2 of 2);
    none at n = 3, n = 5; as x (3 of 10) and o (3 of 10); in midgame (2 of 4) positions``."""
    parts = []
    if sizes:
        total = Counter(place.size for place in asked if place.size)
        hit = Counter(place.size for place in failed if place.size)
        if hit:
            clean = sorted((size for size in total if size not in hit), key=_size_key)
            parts.append("at " + ", ".join(f"{rules.size_phrase(size)} ({hit[size]} of {total[size]})"
                                           for size in sorted(hit, key=_size_key))
                         + (f"; none at {', '.join(rules.size_phrase(size) for size in clean)}" if clean else ""))
    total = Counter(place.player for place in asked if place.player)
    hit = Counter(place.player for place in failed if place.player)
    if hit:
        players = sorted(hit, key=lambda player: (player != "x", player))
        parts.append("as " + " and ".join(f"{player} ({hit[player]} of {total[player]})" for player in players)
                     + (" only" if len(hit) < len(total) else ""))
    total = Counter(place.kind for place in asked if place.kind)
    hit = Counter(place.kind for place in failed if place.kind)
    if hit:
        kinds = hit.most_common()
        more = f" and {len(kinds) - KINDS_SHOWN} more kinds of" if len(kinds) > KINDS_SHOWN else ""
        parts.append("in " + ", ".join(f"{kind} ({hit[kind]} of {total[kind]})" for kind, _ in kinds[:KINDS_SHOWN])
                     + f"{more} positions")
    return "; ".join(parts)


def size_bound(failed: list[Place], asked: list[Place], rules: Game) -> str:
    """When every position of some sizes failed and none of the others did, the fix that says so
    (a program written for one size); else empty."""
    total = Counter(place.size for place in asked if place.size)
    hit = Counter(place.size for place in failed if place.size)
    if not hit or len(hit) == len(total) or any(hit[size] < total[size] for size in hit):
        return ""
    good = sorted((size for size in total if size not in hit), key=_size_key)
    return (f"it fails every position at {', '.join(rules.size_phrase(size) for size in sorted(hit, key=_size_key))} "
            f"and none at {', '.join(rules.size_phrase(size) for size in good)}: take the board's size from the "
            "command line (its first argument), never assume one")


Proves = Callable[[Check, str], bool]
"""Whether a check's evidence proves the cause a fix (by its key) names: a fix is given only then."""


def fix_for(failed: list[Check], fixes: dict[str, str], answer_form: str = "MOVE NEWBOARD",
            proves: Proves | None = None) -> str:
    """The one change that fixes most of ``failed``: the fix of the commonest kind of position and
    verdict that has one of its own (``fixes``, keyed ``kind/verdict`` or ``kind``) and whose cause
    the check's evidence proves (``proves``), else what the program's error output shows
    (``fix_hint``), else the fix of the commonest verdict; empty when none is known."""
    own = Counter(key for key in (_own_fix(check, fixes, proves) for check in failed) if key)
    if own:
        order = list(fixes)
        return fixes[min(own, key=lambda key: (-own[key], order.index(key)))]
    hint = next((found for found in (fix_hint(check, answer_form) for check in failed) if found), "")
    if hint:
        return hint
    verdicts = Counter(check.verdict for check in failed if check.verdict in VERDICT_FIXES)
    return VERDICT_FIXES[verdicts.most_common(1)[0][0]] if verdicts else ""


def _own_fix(check: Check, fixes: dict[str, str], proves: Proves | None = None) -> str:
    """The key of ``fixes`` for this check's kind and verdict, or for its kind, whose cause the
    check's evidence proves; empty if neither."""
    return next((key for key in (f"{check.kind}/{check.verdict}", check.kind)
                 if key in fixes and (proves is None or proves(check, key))), "")


def fix_hint(check: Check, answer_form: str = "MOVE NEWBOARD") -> str:
    """How to fix a program that does not answer at all, from what it printed (empty if unknown);
    ``answer_form`` is the game's answer line in words."""
    stderr = check.stderr
    if "SyntaxError: Missing parentheses in call to 'print'" in stderr:  # Python 3's words for a print statement
        return "this is Python 2 code: run it with Python 3 and make print a function, print(...)"
    if "SyntaxError" in stderr or "IndentationError" in stderr:
        return "fix the syntax error shown on stderr"
    if "ModuleNotFoundError: No module named" in stderr:
        return "a module it imports is not installed here: install it, or do without it"
    if "ImportError" in stderr:
        return "an import failed: fix what the ImportError on stderr names"
    if check.detail.startswith(f"{Verdict.NO_ANSWER.value}:") and "printed nothing" in check.detail:
        return (f"print the answer as the last line of stdout, '{answer_form}'; run the command above "
                "yourself to see what happens")
    return ""


def summary(category: Category, rules: Game, fixes: dict[str, str], answer_form: str = "MOVE NEWBOARD",
            sizes: bool = True, proves: Proves | None = None) -> str:
    """A category's one line: how many checks passed; for failures, where they were and the fix."""
    judged = [check for check in category.checks if check.judged]
    unjudged = len(category.checks) - len(judged)
    warned = [check for check in judged if check.warning]
    failed = category.failed
    if not failed:
        text = f"{len(judged)}/{len(judged)} checks passed"
        text += f", {unjudged} not judged" if unjudged else ""
        return text + (f", {len(warned)} with warnings" if warned else "")
    text = f"{len(failed)} of {len(judged)} checks failed" + (f" ({unjudged} not judged)" if unjudged else "")
    failed_places = [Place(c.size, c.player, c.kind) for c in failed]
    judged_places = [Place(c.size, c.player, c.kind) for c in judged]
    places = where(failed_places, judged_places, rules, sizes)
    fix = (sizes and size_bound(failed_places, judged_places, rules)) or fix_for(failed, fixes, answer_form, proves)
    return text + (f": {places}" if places else "") + (f". Fix: {fix}" if fix else "")


def validate(
    program: str,
    engine: EngineSpec | None,
    settings: ValidationSettings,
    start_problem: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> ValidationReport:
    """Run every category; ``engine`` None means the program cannot be started (``start_problem``)."""
    validator = Validator(engine, program, settings, start_problem, progress)
    try:
        return _validate(validator, program)
    finally:
        validator.pool.shutdown(wait=True)


def _validate(validator: Validator, program: str) -> ValidationReport:
    categories: dict[str, Category] = {"protocol": validator.protocol()}
    strength: dict[str, Any] = {}
    if not any(call.result.move is not None for call in validator.calls):
        # One root cause: nothing else can be judged, and nothing is run for it.
        cause = next(check for check in categories["protocol"].checks if check.judged and not check.passed)
        for name in CATEGORIES[1:]:
            categories[name] = Category(name, [Check(
                "all", False, f"not judged: the program never answered (see protocol/{cause.id})",
                judged=False)], "not judged: the program never answered", ROLES[name])
        categories["time"] = validator.time()  # a timeout is evidence of its own
    else:
        for name in ("rules", "robustness", "tactics"):
            categories[name] = getattr(validator, name)()
        judge_last_pebbles(categories["rules"], categories["tactics"], validator.game_rules)
        validator.finish(categories["rules"])
        validator.finish(categories["tactics"])
        categories["strength"], strength = validator.strength()
        categories["time"] = validator.time()
    ordered = {name: categories[name] for name in CATEGORIES}
    failing = [name for name in REQUIRED if ordered[name].status == "fail"]
    unjudged = [name for name in REQUIRED if ordered[name].status == "not judged"]
    passed = not failing and not unjudged
    if passed:
        verdict = "PASS: protocol, rules, time and robustness are all right"
        if ordered["tactics"].status is Status.WEAK:
            verdict += f"; tactics weak ({_passed_count(ordered['tactics'])})"
    else:
        verdict = "FAIL: " + "; ".join(
            part for part in (", ".join(failing), "not judged: " + ", ".join(unjudged) if unjudged else "")
            if part)
        first = next((check for name in failing for check in ordered[name].checks
                      if check.judged and not check.passed), None)
        if first is not None:
            verdict += f" (first failure: {first.id}: {first.detail})"
    return ValidationReport(program, verdict, passed, ordered, strength, validator.game_rules.name,
                            validator.settings.play.time_scale)


def _passed_count(category: Category) -> str:
    judged = [check for check in category.checks if check.judged]
    return f"{sum(check.passed for check in judged)}/{len(judged)} checks passed"
