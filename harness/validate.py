"""Validate a student's engine: protocol, rules, time, robustness, tactics and strength.

Every check runs the program exactly as the referee does in a game (one process per move, the exact
command line), and records evidence: the command, the position, what was printed and what was
expected. A broken program (missing, not executable, crashing, hanging, Python 2) yields a report
with failed checks, never an exception. Any game of harness.games.registry can be validated: the
positions asked come from its suites (harness.positions.suites), the rest is the same for all.
"""

from __future__ import annotations

import math
import shlex
import statistics
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.engines import EngineSpec, builtin_engine, command_words
from harness.games.registry import Game, Position
from harness.match import GameRecord, Termination, play_game, score_for_x
from harness.positions import Case, Suites, suites
from harness.protocol import Verdict, WarningKind
from harness.referee import CallResult, ask
from harness.settings import GameSettings
from harness.text import excerpt

CATEGORIES = ("protocol", "rules", "time", "robustness", "tactics", "strength")
REQUIRED = ("protocol", "rules", "time", "robustness")
"""Categories that decide the exit status."""
REFERENCE_ELO = {
    "betsy": {"random": 0.0, "greedy": 370.0, "alphabeta": 860.0},
    "connect4": {"random": 0.0, "greedy": 645.0, "alphabeta": 1090.0},
}
"""Approximate ratings of the reference engines (random = 0), per game, from matches at 1 s/move.
Betsy, n = 5: greedy scored 36/40 against random, alphabeta 38/40 against greedy. Connect Four, 8x8:
greedy 20/20 against random, alphabeta 19/20 against greedy, each rated as if one more game had been
drawn (a sweep has no finite rating): +645 (a lower bound) and +446."""
ADJUDICATION_WIN = 990_000
"""A search score at least this large is a proven win (engines/search/alphabeta.py: WIN - plies)."""


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

    @property
    def status(self) -> str:
        return "not judged" if not self.judged else "pass" if self.passed else "fail"

    @property
    def n(self) -> int:
        """Betsy's board size (0 for a size that is not a number, or none)."""
        return int(self.size) if self.size.isdigit() else 0


@dataclass
class Category:
    name: str
    checks: list[Check] = field(default_factory=list)
    summary: str = ""

    @property
    def judged(self) -> bool:
        return any(check.judged for check in self.checks)

    @property
    def passed(self) -> bool:
        """Every judged check passed, and at least one was judged."""
        return self.judged and all(check.passed for check in self.checks if check.judged)

    @property
    def status(self) -> str:
        return "not judged" if not self.judged else "pass" if self.passed else "fail"


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

    def to_json(self) -> dict[str, Any]:
        """A plain JSON object; Betsy's checks also carry ``n``."""
        betsy = self.game == "betsy"
        return {
            "program": self.program,
            "game": self.game,
            "verdict": self.verdict,
            "passed": self.passed,
            "categories": {
                name: {
                    "passed": category.passed,
                    "status": category.status,
                    "summary": category.summary,
                    "checks": [
                        {**asdict(check), "status": check.status, **({"n": check.n} if betsy else {})}
                        for check in category.checks
                    ],
                }
                for name, category in self.categories.items()
            },
            "strength": self.strength,
        }


@dataclass(frozen=True)
class Settings:
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

    @property
    def seconds(self) -> float:
        return self.play.time


class Validator:
    """Runs the suites against one program and collects checks."""

    def __init__(self, engine: EngineSpec | None, program: str, settings: Settings,
                 start_problem: str | None = None, progress: Callable[[str], None] | None = None):
        self.engine = engine
        self.program = program
        self.settings = settings
        self.game: Game = settings.play.rules
        self.suites: Suites = suites(self.game.name)
        self.sizes = settings.sizes or self.game.example_sizes
        self.start_problem = start_problem
        self.limits = settings.play.limits(sandbox=settings.sandbox, file_bytes=settings.file_bytes,
                                           processes=settings.processes)
        self.calls: list[tuple[Position, CallResult]] = []
        self.progress = progress or (lambda _text: None)
        self.pool = ThreadPoolExecutor(max_workers=settings.concurrency)
        self.pending: list[Future[None]] = []
        self.last_pebble_wins: dict[str, bool] = {}
        """Per last-pebble check: whether its drops win at once (else they stop the opponent's line)."""

    # --- one call -----------------------------------------------------------------------------

    def call(self, position: Position) -> CallResult:
        if self.engine is None:
            argv = (*command_words(self.program), position.size_text, position.player, position.board(),
                    f"{self.settings.seconds:g}")
            result = CallResult(Verdict.FAILED_TO_START, None, None, 0.0, None, False,
                                self.start_problem or "cannot start", tuple(argv))
        else:
            result = ask(self.engine.command, position, self.settings.seconds, self.limits,
                         self.engine.extra_args)
        self.calls.append((position.copy(), result))
        return result

    def check(self, check_id: str, position: Position, expected: str,
              judge: Callable[[CallResult], tuple[bool, str, bool]] | None = None) -> Check:
        """Ask about ``position``; by default a check passes when the verdict is ok.

        The call runs in the validator's pool (``Settings.concurrency`` at a time): the Check is
        filled in when it is done, and ``settle()`` waits for every one asked so far."""
        check = Check(check_id, False, "not judged: not run", judged=False)
        self.pending.append(self.pool.submit(self._run_check, check, position, expected, judge))
        return check

    def settle(self) -> None:
        """Wait for every check asked so far."""
        for future in self.pending:
            future.result()
        self.pending.clear()

    def _run_check(self, check: Check, position: Position, expected: str,
                   judge: Callable[[CallResult], tuple[bool, str, bool]] | None) -> None:
        check_id = check.id
        self.progress(check_id)
        result = self.call(position)
        judged = result.verdict not in (Verdict.TIME, Verdict.FAILED_TO_START)
        if result.verdict is Verdict.FAILED_TO_START:
            passed, detail, warning = False, "not judged: the program did not start (see protocol/starts)", False
        elif not judged:
            passed, detail, warning = False, (
                f"not judged: no answer within {self.settings.seconds:g} s (counted under time)"), False
        elif judge is None:
            passed, detail, warning = _ok_judge(result)
        else:
            passed, detail, warning = judge(result)
        filled = Check(check_id, passed, detail, warning, expected=expected, judged=judged,
                       **_evidence(result, position))
        for name in check.__dataclass_fields__:
            setattr(check, name, getattr(filled, name))

    # --- categories ---------------------------------------------------------------------------

    def protocol(self) -> Category:
        category = Category("protocol")
        seed = self.suites.protocol_position()
        result = self.call(seed)
        evidence = _evidence(result, seed)
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
            expected=f"a last line '{self.suites.answer_form}', e.g. {_example_answer(seed, self.suites.example_move)}",
            judged=started, **evidence))
        timed = answered or result.verdict is Verdict.TIME
        in_time = timed and result.verdict is not Verdict.TIME
        category.checks.append(Check(
            "in-time", in_time,
            f"answered after {result.answered_after or 0:.2f} s" if in_time
            else result.detail if timed else no_answer,
            expected=f"an answer within {self.settings.seconds:g} s", judged=timed, **evidence))
        after = [w for w in result.warnings if w.kind is WarningKind.LINES_AFTER_ANSWER]
        category.checks.append(Check(
            "answer-is-last-line", answered,
            (after[0] if after else "the answer is the last line printed") if answered else no_answer,
            warning=bool(after), judged=answered,
            expected="nothing printed after the answer (tolerated, with a warning)", **evidence))
        exit_warnings = [w for w in result.warnings if w.kind is not WarningKind.LINES_AFTER_ANSWER]
        category.checks.append(Check(
            "exits-cleanly", answered,
            (exit_warnings[0] if exit_warnings else f"exited with status {result.exit_status}")
            if answered else no_answer,
            warning=bool(exit_warnings), judged=answered, expected="exit status 0 after answering",
            **evidence))
        first_id, empty = self.suites.first_move()
        category.checks.append(self.check(first_id, empty, "any legal move and its board"))
        self.settle()
        category.summary = _summary(category)
        return category

    def rules(self) -> Category:
        category = Category("rules")
        for case in self.suites.rules(self.sizes, self.settings.quick):
            category.checks.append(self.check(case.id, case.position, case.description))
        for case in self.suites.last_pebble(self.sizes):
            mover = case.position.turn
            self.last_pebble_wins[case.id] = all(
                case.position.after(move).winner() == mover for move in case.expected or ())
            category.checks.append(self.check(case.id, case.position, case.description, _tactic_judge(case)))
        self.settle()
        category.summary = _summary(category)
        return category

    def robustness(self) -> Category:
        category = Category("robustness")
        for case in self.suites.robustness(self.settings.quick):
            category.checks.append(self.check(case.id, case.position, case.description))
        self.settle()
        category.summary = _summary(category)
        return category

    def tactics(self) -> Category:
        category = Category("tactics")
        for case in self.suites.tactics(self.sizes, self.settings.quick):
            category.checks.append(self.check(
                case.id, case.position, f"{case.description}: one of {sorted(case.expected or ())}",
                _tactic_judge(case)))
        self.settle()
        category.summary = _summary(category)
        return category

    def time(self) -> Category:
        """Answer times from the referee's clock: when the answer line arrived (for a program killed
        at the deadline, its last answer), how often the program had to be killed, timeouts."""
        category = Category("time")
        limit = self.settings.seconds
        ran = [(position, result) for position, result in self.calls
               if result.verdict is not Verdict.FAILED_TO_START]
        times = [result.answered_after for _, result in ran if result.answered_after is not None]
        late = [(position, result) for position, result in ran if result.verdict is Verdict.TIME]
        killed = [result for _, result in ran if result.killed and result.verdict is not Verdict.TIME]
        if not times and not late:
            category.checks.append(Check(
                "every-answer-in-time", False, "not judged: the program never answered",
                expected=f"every answer within {limit:g} s", judged=False))
            category.summary = "not judged: the program never answered"
            return category
        worst = max(times, default=0.0)
        median = statistics.median(times) if times else 0.0
        evidence: dict[str, Any] = {}
        if late:
            position, result = late[0]
            detail = f"{len(late)} of {len(ran)} calls ran past {limit:g} s + grace with no answer"
            evidence = dict(command=shlex.join(result.argv), board=position.board(), size=position.size_text,
                            player=position.player)
        else:
            detail = f"all {len(times)} answers arrived within {limit:g} s + grace"
        category.checks.append(Check(
            "every-answer-in-time", not late, detail, expected=f"every answer within {limit:g} s",
            seconds=round(worst, 3), **evidence))
        over = [t for t in times if t > limit]
        category.checks.append(Check(
            "answers-before-the-limit", True,
            (f"{len(over)} answers came after {limit:g} s, inside the grace" if over else
             f"last answer after {worst:.2f} s at worst, {median:.2f} s median"),
            warning=bool(over), expected=f"the answer printed within {limit:g} s", seconds=round(worst, 3)))
        category.checks.append(Check(
            "exits-by-itself", True,
            (f"{len(killed)} of {len(ran)} calls were still running at the deadline and were killed "
             f"(their last answer counted)" if killed else "the program always exited by itself"),
            warning=bool(killed), expected="the program exits after answering"))
        category.summary = (f"answers after {worst:.2f} s at worst, {median:.2f} s median, over "
                            f"{len(times)} answers; killed at the deadline {len(killed)} of {len(ran)} "
                            f"calls; {len(late)} timeouts")
        return category

    def strength(self) -> tuple[Category, dict[str, Any]]:
        """Two measures that separate programs in the same time: the share of value-keeping moves
        on solved n = 3 positions (Betsy; one call each), and games against the reference engines
        (Betsy's short, adjudicated at the ply cap by a deeper search instead of drawn)."""
        category = Category("strength")
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
                              for name, elo in REFERENCE_ELO[self.game.name].items())
            parts.append(f"performance {summary['elo']:+.0f} Elo [{low:+.0f}, {high:+.0f}] over "
                         f"{len(summary['games'])} games ({scale})")
        category.summary = "; ".join(parts) or (
            "not played (--games 0, and no n = 3 tables)" if self.suites.has_exact_tables else "not played (--games 0)")
        return category, summary

    def _exact(self, category: Category, summary: dict[str, Any]) -> None:
        from harness.exact import VALUE_WORDS, exact_suite, open_table, value_after

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
                return self.call(cases[index].position)

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
                                             **_evidence(result, case.position)))
            summary["exact"] = {
                "asked": len(cases), "kept": kept,
                "random_share": round(sum(len(c.keeping) / c.legal for c in cases) / max(len(cases), 1), 3),
            }
        finally:
            table.close()

    def _games(self, category: Category, summary: dict[str, Any]) -> None:
        assert self.engine is not None
        size = self.game.default_size if self.game.default_size in self.sizes else self.sizes[0]
        opponents = ["random", "greedy"] if self.settings.quick else ["random", "greedy", "alphabeta"]
        max_plies = self.suites.game_plies(size, self.settings.quick)
        student = EngineSpec("student", self.engine.command, self.engine.program, self.engine.extra_args)
        results: list[tuple[float, float]] = []
        games: list[dict[str, Any]] = []
        summary.update(size=size, max_plies=max_plies, games=games, opponents={})
        if self.game.name == "betsy":
            summary["n"] = int(size)
        game_settings = GameSettings.model_validate({**self.settings.play.model_dump(), "max_plies": max_plies})

        def play(task: tuple[str, int]) -> tuple[GameRecord, dict[str, Any] | None, bool]:
            name, game = task
            opponent = builtin_engine(name)
            x, o = (student, opponent) if game % 2 == 0 else (opponent, student)
            self.progress(f"strength: game {game + 1}/{self.settings.games} against {name}")
            record = play_game(x, o, game_settings, size, limits=self.limits)
            adjudication = self._adjudicate(record) if record.termination is Termination.MAX_PLIES else None
            return record, adjudication, x is student

        tasks = [(name, game) for name in opponents for game in range(self.settings.games)]
        for (name, _), (record, adjudication, as_x) in zip(tasks, self.pool.map(play, tasks)):
            score = score_for_x(adjudication["result"] if adjudication else record.result)
            mine = score if as_x else 1 - score
            results.append((REFERENCE_ELO[self.game.name][name], mine))
            games.append({
                "opponent": name, "student_plays": "x" if as_x else "o", "score": mine,
                "result": record.result, "termination": record.termination, "reason": record.reason,
                "adjudication": adjudication, "plies": record.plies, "start_board": record.start_board,
                "moves": [[m.player, m.move, m.board, m.verdict, m.seconds] for m in record.moves],
            })
        for name in opponents:
            against = [entry for entry in games if entry["opponent"] == name]
            points = sum(entry["score"] for entry in against)
            summary["opponents"][name] = {"games": self.settings.games, "points": points}
            category.checks.append(Check(
                f"vs-{name}", True,
                f"{points:g}/{self.settings.games} against {name}: {'; '.join(_game_end(e) for e in against)}",
                expected="information only"))
        elo, (low, high) = performance_interval(results)
        summary.update(elo=round(elo), elo_interval=[round(low), round(high)])

    def _adjudicate(self, record: GameRecord) -> dict[str, Any]:
        """The result of a Betsy game stopped at the ply cap, by a deeper search of its last position:
        a proven win or loss counts; otherwise a lead worth a line one pebble short wins; else a draw.
        (A Connect Four game is never stopped: its cap is the number of cells.)"""
        last = record.moves[-1]
        to_move = "o" if last.player == "x" else "x"
        position = self.game.position(record.size, to_move, last.board or "", self.settings.play.options)
        judge = builtin_engine("alphabeta", {"depth": 12})
        result = ask(judge.command, position, 1, self.limits, judge.extra_args + ("--info",))
        scores = [int(line.split(" score ")[1].split()[0]) for line in result.stderr_tail.splitlines()
                  if line.startswith("info depth ") and " score " in line and "(partial)" not in line]
        if not scores:
            return {"result": "1/2-1/2", "score": None, "why": "no search result: draw"}
        score = scores[-1]
        mover = position.player
        other = "o" if mover == "x" else "x"
        lead = 4 ** (record.n - 1)
        if score >= ADJUDICATION_WIN or score >= lead:
            winner, why = mover, "proven win" if score >= ADJUDICATION_WIN else f"lead of {score} >= {lead}"
        elif score <= -ADJUDICATION_WIN or score <= -lead:
            winner, why = other, "proven win" if score <= -ADJUDICATION_WIN else f"lead of {-score} >= {lead}"
        else:
            return {"result": "1/2-1/2", "score": score, "why": f"|score| {abs(score)} < {lead}: draw"}
        return {"result": "1-0" if winner == "x" else "0-1", "score": score, "why": f"{winner} wins: {why}"}


def _judge_last_pebbles(rules: Category, tactics: Category, wins_at_once: dict[str, bool]) -> None:
    """A missed last-pebble drop is a rules fault only for a program that takes such chances
    elsewhere (it wins at once, or stops a line, in the tactics positions): then it did not see its
    last pebble, an off-by-one on the supply. A program that never does tells nothing here."""
    kinds = {"win": "-win-in-one-", "stop": "-block-"}
    for check in rules.checks:
        if check.id not in wins_at_once or not check.judged or check.passed:
            continue
        kind = "win" if wins_at_once[check.id] else "stop"
        elsewhere = [c for c in tactics.checks if kinds[kind] in c.id and c.judged]
        if elsewhere and all(c.passed for c in elsewhere):
            check.detail += (f"; the program {'wins at once' if kind == 'win' else 'stops lines'} in the "
                             f"tactics positions, so it does not see its last pebble (its supply count is "
                             f"off by one?)")
        else:
            check.judged = False
            check.detail = (f"not judged: {check.detail}; the program does not "
                            f"{'take wins in one' if kind == 'win' else 'stop lines'} in the tactics "
                            f"positions either, so this says nothing about its supply")
    rules.summary = _summary(rules)


def _game_end(entry: dict[str, Any]) -> str:
    colour = entry["student_plays"]
    if entry["adjudication"]:
        return f"as {colour}, {entry['plies']} plies, adjudicated {entry['adjudication']['why']}"
    return f"as {colour}, {entry['reason']}"


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


def _evidence(result: CallResult, position: Position) -> dict[str, Any]:
    """The evidence a check keeps of one call: the command, the position, what it printed, its time."""
    printed, cut = excerpt(result.stdout_tail)
    return dict(command=shlex.join(result.argv), board=position.board(), size=position.size_text,
                player=position.player, printed=printed, printed_cut=cut,
                stderr=result.stderr_tail[-1200:], seconds=round(result.seconds, 3))


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


def _summary(category: Category) -> str:
    judged = [check for check in category.checks if check.judged]
    failed = [check for check in judged if not check.passed]
    warned = [check for check in judged if check.warning]
    text = f"{len(judged) - len(failed)}/{len(judged)} checks passed"
    if len(judged) < len(category.checks):
        text += f", {len(category.checks) - len(judged)} not judged"
    if warned:
        text += f", {len(warned)} with warnings"
    return text


def validate(
    program: str,
    engine: EngineSpec | None,
    settings: Settings,
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
    if not any(result.move is not None for _, result in validator.calls):
        # One root cause: nothing else can be judged, and nothing is run for it.
        cause = next(check for check in categories["protocol"].checks if check.judged and not check.passed)
        for name in CATEGORIES[1:]:
            categories[name] = Category(name, [Check(
                "all", False, f"not judged: the program never answered (see protocol/{cause.id})",
                judged=False)], "not judged: the program never answered")
        categories["time"] = validator.time()  # a timeout is evidence of its own
    else:
        for name in ("rules", "robustness", "tactics"):
            categories[name] = getattr(validator, name)()
        _judge_last_pebbles(categories["rules"], categories["tactics"], validator.last_pebble_wins)
        categories["strength"], strength = validator.strength()
        categories["time"] = validator.time()
    ordered = {name: categories[name] for name in CATEGORIES}
    failing = [name for name in REQUIRED if ordered[name].status == "fail"]
    unjudged = [name for name in REQUIRED if ordered[name].status == "not judged"]
    passed = not failing and not unjudged
    if passed:
        verdict = "PASS: protocol, rules, time and robustness are all right"
        if not ordered["tactics"].passed:
            verdict += f"; tactics {ordered['tactics'].summary}"
    else:
        verdict = "FAIL: " + "; ".join(
            part for part in (", ".join(failing), "not judged: " + ", ".join(unjudged) if unjudged else "")
            if part)
        first = next((check for name in failing for check in ordered[name].checks
                      if check.judged and not check.passed), None)
        if first is not None:
            verdict += f" (first failure: {first.id}: {first.detail})"
    return ValidationReport(program, verdict, passed, ordered, strength, validator.game.name)
