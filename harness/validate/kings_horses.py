"""Validate a student's ``bestmove.py`` for All The King's Horses (seed 001).

The seed grades "efficiency and correctness": the program reads a position from its command line
(``bestmove.py PLAYER b1r b1c b2r b2c w1r w1c w2r w2c``) and prints exactly one line, ``BLACK WILL
WIN`` or ``WHITE WILL WIN``, the winner with perfect play. Every check runs the program as a fresh
process with that exact command line, under the referee's limits (and the sandbox when asked), and
judges it against the exact solver (engines/kings_horses_solver.py):

- protocol: it starts, prints one line and nothing else, the verdict words exactly, exits 0;
- correctness: the seed's example, positions where the side to move has no move (some of them only
  because knights stand on its squares), positions whose answer turns on the knights blocking each
  other, positions whose answer changes when the colours' coordinates are swapped, and random
  positions in bands of coordinates (small 1..8, medium 1..15, large 1..30);
- time: the time of every answer, per band (efficiency), against the time limit;
- moves (not required): with ``--move`` the program prints the best next position first -- it must be
  legal, name the opponent to move, and leave the opponent lost when the mover can win.

Expected answers come from the exact solver; a position it cannot settle within its own budget is
replaced by another, so no verdict is ever false.
"""

from __future__ import annotations

import functools
import shlex
import statistics
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from harness.referee.engine_specs import EngineSpec, command_words
from harness.games.kings_horses.oracle import Oracle
from harness.games.kings_horses.rules import WORDS, Position, race_lead, random_position
from harness.games.registry import get_game
from harness.referee.protocol import Verdict
from harness.referee.referee import CallResult, Limits, resolve_interpreter, run_call
from harness.rng import Rng
from harness.text import excerpt
from harness.validate.validator import (Category, Check, Place, Proves, Role, Status, ValidationReport,
                                        ValidationSettings, kind_of, make_category, overloaded, summary,
                                        where)

ROLES = {"protocol": Role.REQUIRED, "correctness": Role.REQUIRED, "time": Role.REQUIRED, "moves": Role.GRADED}
"""The categories, in report order, with their roles (harness.validate.validator.Role)."""
CATEGORIES = tuple(ROLES)
REQUIRED = tuple(name for name, role in ROLES.items() if role is Role.REQUIRED)
BANDS = (("small", 8), ("medium", 15), ("large", 30), ("close", 15))
"""Bands of coordinates for the random positions: every coordinate in 1..N. ``close`` positions are
the hard ones: the side to move leads the race count by 0 or 1, so who wins turns on the knights
blocking each other (a plain minimax takes seconds to minutes on some of them)."""
SEARCH_FIX = ("search every line of play: the side to move wins when some move leaves the other side lost "
              "(remember the positions solved, to stay in time)")
FIXES = {
    "protocol": {
        "one-line": "print only the verdict line on stdout: send debug output to stderr",
        "verdict-words": "print exactly BLACK WILL WIN or WHITE WILL WIN",
        "exits-cleanly": "exit with status 0 after printing the verdict",
    },
    "correctness": {
        "seed-example": SEARCH_FIX,
        "no-move": "the side to move with no legal move loses: check that first",
        "blocked-no-move": "a knight may not move onto a square another knight holds, so a side can be left "
                           "without a move",
        "blocking": "a knight may not move onto a square another knight holds, of either colour",
        "colours": "the first two coordinate pairs are BLACK's knights, the last two WHITE's; PLAYER is the side "
                   "to move",
        **{band: SEARCH_FIX for band, _ in BANDS},
    },
    "moves": {kind: "with --move, print the next position (PLAYER and eight coordinates) before the verdict "
                    "line: a legal move, and one that leaves the opponent lost when the mover can win"
              for kind in ("seed-example", "small", "medium")},
}
"""The one change that fixes a failure, per category and kind of position (harness.validate.validator.summary)."""
CONTROLS: dict[str, Callable[[Case, Oracle], bool]] = {
    "blocked-no-move": lambda case, _oracle: free_winner(case.position) == case.winner,
    "blocking": lambda case, _oracle: free_winner(case.position) == case.winner,
    "colours": lambda case, oracle: oracle.winner(swapped(case.position)) == case.winner,
}
"""Kinds whose fix names a rule the program breaks, and which small positions are their controls: those
whose answer does not turn on that rule (knights blocking each other; which colour is which). The fix is
given only when the program answered every control right, so its misses turn on that rule."""
TIME_FIX = ("answer within the limit: remember the positions solved (many move orders reach the same one), and "
            "look first at the moves that leave the opponent no move")
SEED_EXAMPLE = "BLACK 2 2 3 3 1 2 3 1"
"""The seed's example: BLACK WILL WIN."""
ANSWER_FORM = get_game("kings-horses").answer_form
MOVE_FORM = "PLAYER b1r b1c b2r b2c w1r w1c w2r w2c (the next position), then the verdict line"


@dataclass(frozen=True)
class Case:
    """One position to ask about, with the exact answer."""

    id: str
    position: Position
    winner: str
    """BLACK or WHITE: who wins with perfect play."""
    band: str
    """small, medium, large, or "" for a hand-made case."""
    why: str


def swapped(position: Position) -> Position:
    """The position with the colours' coordinates exchanged (black's knights given to white), the
    same side to move: what a program that mixes up the colours answers about."""
    k = position.knights
    return Position((k[2], k[3], k[0], k[1]), position.turn, position.band)


def free_winner(position: Position) -> str:
    """Who wins if a knight may move onto an occupied square (a common mistake), by a plain search
    over small positions (every coordinate small enough for it)."""
    memo: dict[tuple[int, tuple[Any, ...]], bool] = {}

    def wins(turn: int, knights: tuple[tuple[int, int], ...]) -> bool:
        key = (turn, knights)
        if key in memo:
            return memo[key]
        result = False
        for slot in (2 * turn, 2 * turn + 1):
            row, col = knights[slot]
            for dr, dc in ((-2, -1), (-1, -2), (-2, 1), (1, -2)):
                if row + dr >= 1 and col + dc >= 1:
                    child = list(knights)
                    child[slot] = (row + dr, col + dc)
                    if not wins(1 - turn, tuple(child)):
                        result = True
                        break
            if result:
                break
        memo[key] = result
        return result

    mover = position.turn
    return WORDS[mover] if wins(mover, tuple(position.knights)) else WORDS[1 - mover]


def seed_case() -> Case:
    """The seed's example: BLACK WILL WIN."""
    return Case("seed-example", Position.from_words(SEED_EXAMPLE.split()), "BLACK", "", "the seed's example")


def cases(oracle: Oracle, seed: int, quick: bool) -> list[Case]:
    """Every correctness case: hand-made ones, then random positions per band."""
    rng = Rng(seed)
    found: list[Case] = [seed_case()]
    # The side to move has no move: in the corner, or every target held by a knight.
    for text, why in (
        ("WHITE 3 3 5 5 1 1 2 2", "white's knights are in the top-left 2 x 2: white has no move"),
        ("BLACK 1 2 2 1 4 4 6 6", "black's knights are in the top-left 2 x 2: black has no move"),
    ):
        position = Position.from_words(text.split())
        if not position.legal_moves():
            found.append(Case(f"no-move-{len(found)}", position, WORDS[1 - position.turn], "", why))
    blocked = _blocked_no_move(rng, 2 if quick else 4)
    found += [Case(f"blocked-no-move-{i + 1}", p, WORDS[1 - p.turn], "",
                   "the side to move has no move because knights hold every square it could reach")
              for i, p in enumerate(blocked)]
    # Answers that turn on blocking, and on which colour is which.
    wanted = {"blocking": 2 if quick else 6, "colours": 2 if quick else 6}
    tries = 0
    while (wanted["blocking"] or wanted["colours"]) and tries < 4000:
        tries += 1
        position = random_position(8, rng)
        winner = oracle.winner(position)
        if winner is None:
            continue
        if wanted["blocking"] and free_winner(position) != winner:
            wanted["blocking"] -= 1
            found.append(Case(f"blocking-{sum(c.id.startswith('blocking') for c in found) + 1}",
                              position, winner, "",
                              "the answer turns on knights not moving onto occupied squares"))
        elif wanted["colours"] and oracle.winner(swapped(position)) not in (None, winner):
            wanted["colours"] -= 1
            found.append(Case(f"colours-{sum(c.id.startswith('colours') for c in found) + 1}",
                              position, winner, "",
                              "the answer changes if black's and white's coordinates are exchanged"))
    per_band = {"small": 5 if quick else 12, "medium": 3 if quick else 8, "large": 2 if quick else 6,
                "close": 2 if quick else 6}
    for band, limit in BANDS:
        made = 0
        while made < per_band[band]:
            position = random_position(limit, rng)
            if band == "close" and race_lead(position) not in (0, 1):
                continue
            winner = oracle.winner(position)
            if winner is None:
                continue
            made += 1
            found.append(Case(f"{band}-{made}", position, winner, band, f"random, coordinates 1..{limit}"
                              + (", a close race" if band == "close" else "")))
    return found


@functools.lru_cache(maxsize=4)
def suite(seed: int, quick: bool) -> tuple[Case, ...]:
    """``cases`` for a seed, computed once per process (the solver's work is the same every time)."""
    return tuple(cases(Oracle(), seed, quick))


def _blocked_no_move(rng: Rng, count: int) -> list[Position]:
    """Positions where the side to move has no legal move only because knights hold its targets, and
    would win if it could move onto them."""
    found: list[Position] = []
    tries = 0
    while len(found) < count and tries < 200_000:
        tries += 1
        position = random_position(5, rng, playable=False)
        if position.legal_moves():
            continue
        mover = position.turn
        corner = all(r <= 2 and c <= 2 for r, c in position.knights[2 * mover:2 * mover + 2])
        # Only positions a program that ignores occupied squares gets wrong: there it has a move.
        if (not corner and position.key() not in {p.key() for p in found}
                and free_winner(position) == WORDS[mover]):
            found.append(position)
    return found


@dataclass
class Asked:
    """One call of the program and what it printed."""

    case: Case
    result: CallResult
    lines: list[str]
    """Non-blank stdout lines."""

    @property
    def ran(self) -> bool:
        return self.result.verdict not in (Verdict.TIME, Verdict.FAILED_TO_START, Verdict.OUTPUT_LIMIT)


class KingsHorsesValidator:
    """Asks the program about every case (verdict form and ``--move`` form) and judges the answers."""

    def __init__(self, engine: EngineSpec | None, program: str, settings: ValidationSettings, start_problem: str | None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.engine = engine
        self.program = program
        self.settings = settings
        self.start_problem = start_problem
        self.limits = Limits(sandbox=settings.sandbox, file_bytes=settings.file_bytes,
                            processes=settings.processes, replay_stalls=settings.replay_stalls)
        self.progress = progress or (lambda _text: None)

    def argv(self, position: Position, move: bool) -> list[str]:
        command = list(self.engine.command) if self.engine is not None else command_words(self.program)
        # python3 runs as the harness's own interpreter, as in a game (harness.referee.referee.ask)
        return resolve_interpreter([*command, *(["--move"] if move else []), *position.words()])

    def ask(self, case: Case, move: bool = False) -> Asked:
        self.progress(case.id)
        argv = self.argv(case.position, move)
        if self.engine is None:
            result = CallResult(Verdict.FAILED_TO_START, None, None, 0.0, None, False,
                                self.start_problem or "cannot start", tuple(argv))
        else:
            result = run_call(argv, case.position, self.settings.clock, self.limits,
                              command_length=len(self.engine.command))
        return Asked(case, result, [line for line in result.stdout_tail if line.strip()])

    def ask_all(self, found: list[Case], move: bool = False) -> list[Asked]:
        with ThreadPoolExecutor(max_workers=self.settings.concurrency) as pool:
            return list(pool.map(lambda case: self.ask(case, move), found))

    def evidence(self, asked: Asked, expected: str) -> dict[str, Any]:
        result = asked.result
        printed, cut = excerpt(result.stdout_tail, 6)
        position = asked.case.position
        return dict(command=shlex.join(result.argv), board=position.board(), size=position.size_text,
                    player=position.player, printed=printed, printed_cut=cut, stderr=result.stderr_tail[-400:],
                    expected=expected, seconds=round(result.seconds, 3),
                    kind=kind_of(asked.case.id, position.size_text, position.player), verdict=result.verdict.value)

    def summary(self, category: Category, proves: Proves | None = None) -> str:
        """The category's line (harness.validate.validator.summary): where checks failed, and the fix."""
        return summary(category, get_game("kings-horses"), FIXES[category.name], ANSWER_FORM, sizes=False,
                       proves=proves)

    # --- categories ---------------------------------------------------------------------------

    def protocol(self, first: Asked) -> Category:
        category = make_category("protocol", ROLES)
        result = first.result
        evidence = self.evidence(first, "BLACK WILL WIN")
        started = result.verdict is not Verdict.FAILED_TO_START
        category.checks.append(Check("starts", started, "the program started" if started else result.detail,
                                     **{**evidence, "expected": "the program runs"}))
        ran = started and first.ran
        not_run = "not judged: the program did not start" if not started else f"not judged: {result.detail}"
        category.checks.append(Check(
            "one-line", ran and len(first.lines) == 1,
            (f"printed {len(first.lines)} lines; only the verdict line may be printed (remove debug prints)"
             if len(first.lines) > 1 else "printed nothing on stdout" if not first.lines else "one line")
            if ran else not_run, judged=ran, **{**evidence, "expected": "exactly one line on stdout"}))
        words = first.lines[-1] if first.lines else ""
        exact = words in ("BLACK WILL WIN", "WHITE WILL WIN")
        category.checks.append(Check(
            "verdict-words", ran and exact,
            (f"last line {words!r} is the verdict" if exact else
             f"last line {words!r} is not 'BLACK WILL WIN' or 'WHITE WILL WIN' exactly") if ran else not_run,
            judged=ran, **{**evidence, "expected": ANSWER_FORM}))
        status = result.exit_status
        category.checks.append(Check(
            "exits-cleanly", ran and status == 0, f"exited with status {status}" if ran else not_run,
            judged=ran, **{**evidence, "expected": "exit status 0"}))
        quiet = not result.stderr_tail.strip()
        category.checks.append(Check(
            "stderr-quiet", ran, "nothing on stderr" if quiet else "printed on stderr (tolerated, with a warning)",
            warning=ran and not quiet, judged=ran, **{**evidence, "expected": "no other output"}))
        for check in category.checks:
            check.kind = check.id  # one call, several checks: each is its own kind (its fix in FIXES)
        category.summary = self.summary(category)
        return category

    def correctness(self, asked: list[Asked], oracle: Oracle) -> Category:
        category = make_category("correctness", ROLES)
        for item in asked:
            case = item.case
            expected = f"{case.winner} WILL WIN ({case.why})"
            evidence = self.evidence(item, expected)
            if not item.ran:
                detail = ("not judged: the program did not start" if item.result.verdict is Verdict.FAILED_TO_START
                          else overloaded(item.result) if item.result.stall
                          else f"not judged: no answer within {self.settings.seconds:g} s (counted under time)"
                          if item.result.verdict is Verdict.TIME else f"not judged: {item.result.detail}")
                category.checks.append(Check(case.id, False, detail, judged=False, **evidence))
                continue
            verdicts = [line.strip() for line in item.lines if line.strip() in ("BLACK WILL WIN", "WHITE WILL WIN")]
            if not verdicts:
                category.checks.append(Check(case.id, False, "no verdict line (BLACK WILL WIN or WHITE WILL WIN)"
                                             + (f"; exited with status {item.result.exit_status}"
                                                if item.result.exit_status else ""), **evidence))
                continue
            said = verdicts[-1].split()[0]
            right = said == case.winner
            category.checks.append(Check(
                case.id, right, f"said {said} WILL WIN" + ("" if right else f"; {case.winner} wins ({case.why})"),
                **evidence))
        category.summary = self.summary(category, self._controls(asked, category, oracle))
        return category

    @staticmethod
    def _controls(asked: list[Asked], category: Category, oracle: Oracle) -> Proves:
        """Which fixes of ``CONTROLS`` the answers prove: the program answered right every small
        position whose answer does not turn on the rule the fix names (one such position at least)."""
        right = {check.id: check.passed for check in category.checks if check.judged}
        small = [item.case for item in asked if item.case.band == "small" and item.case.id in right]
        proven = {key: bool(controls) and all(right[case.id] for case in controls)
                  for key, control in CONTROLS.items()
                  for controls in ([case for case in small if control(case, oracle)],)}

        def proves(check: Check, key: str) -> bool:
            return proven.get(key, True)
        return proves

    def time(self, asked: list[Asked]) -> Category:
        """Answer times per band (efficiency is graded), and every answer within the limit."""
        category = make_category("time", ROLES)
        limit = self.settings.seconds
        started = [item for item in asked if item.result.verdict is not Verdict.FAILED_TO_START]
        starved = [item for item in started if item.result.stall]
        ran = [item for item in started if not item.result.stall]  # a starved call is not judged, never late
        if starved:
            category.checks.append(Check(
                "machine-overloaded", False,
                f"{len(starved)} of {len(started)} calls could not be judged: {overloaded(starved[0].result)}",
                expected="every call judged on the program's own time", judged=False))
        if not ran and starved:
            category.summary = "not judged: the machine was overloaded"
            return category
        if not ran:
            category.checks.append(Check("every-answer-in-time", False, "not judged: the program never started",
                                         judged=False))
            category.summary = "not judged: the program never started"
            return category
        figures = []
        for band, top in (("hand-made", 0), *BANDS):
            group = [item for item in ran if item.case.band == (band if top else "")]
            if not group:
                continue
            late = [item for item in group if item.result.verdict is Verdict.TIME]
            times = [item.result.own_seconds for item in group if item.result.verdict is not Verdict.TIME]
            what = ("the seed example, no-move, blocking, colours" if not top else
                    f"coordinates 1..{top}" + (", close races" if band == "close" else ""))
            text = (f"{band} ({what}): "
                    f"{len(times)} answered, mean {statistics.fmean(times):.3f} s, max {max(times):.3f} s"
                    if times else f"{band}: no answer in time")
            if late:
                text += f"; {len(late)} of {len(group)} ran past {limit:g} s + grace"
            figures.append(f"{band} mean {statistics.fmean(times):.2f} s" if times else f"{band} -")
            evidence = self.evidence(late[0], f"an answer within {limit:g} s") if late else {}
            category.checks.append(Check(f"band-{band}", not late, text, **{**evidence, "kind": f"band-{band}"}))
        late = [item for item in ran if item.result.verdict is Verdict.TIME]
        if late:
            def place(item: Asked) -> Place:
                return Place("", item.case.position.player, item.case.band or "hand-made")

            rules = get_game("kings-horses")
            category.summary = (f"{len(late)} of {len(ran)} calls had no answer by {limit:g} s + "
                                f"{self.settings.play.grace:g} s grace: "
                                f"{where([place(item) for item in late], [place(item) for item in ran], rules, False)}. "
                                f"Fix: {TIME_FIX}; per band: {', '.join(figures)}")
        else:
            category.summary = f"all {len(ran)} calls answered in time; per band: {', '.join(figures)}"
        return category

    def moves(self, asked: list[Asked], oracle: Oracle) -> Category:
        """``--move``: a legal next position with the opponent to move, winning when a win exists."""
        category = make_category("moves", ROLES)
        for item in asked:
            case, result = item.case, item.result
            evidence = self.evidence(item, f"{MOVE_FORM}; a winning move ({case.winner} wins)"
                                     if case.winner == case.position.word else MOVE_FORM)
            if not item.ran:
                category.checks.append(Check(case.id, False, f"not judged: {result.detail}", judged=False, **evidence))
                continue
            if result.move is None:
                category.checks.append(Check(case.id, False, "no position line: --move is not supported, or the "
                                             "line is not PLAYER and eight coordinates", **evidence))
                continue
            if result.verdict is not Verdict.OK:
                category.checks.append(Check(case.id, False, f"{result.verdict.value}: {result.detail}", **evidence))
                continue
            child = case.position.after(result.move)
            if case.winner == case.position.word:
                loser = oracle.winner(child)
                if loser is None:
                    category.checks.append(Check(case.id, False, "not judged: the solver could not settle the "
                                                 "position played", judged=False, **evidence))
                    continue
                good = loser == case.winner
                category.checks.append(Check(
                    case.id, good, f"played to {child.line()}" + ("" if good else f", which {loser} wins: "
                                                                   "a winning move was missed"), **evidence))
            else:
                category.checks.append(Check(case.id, True, f"played to {child.line()} (a lost position: any "
                                                            "legal move)", **evidence))
        category.summary = self.summary(category)
        return category


def validate_kings_horses(program: str, engine: EngineSpec | None, settings: ValidationSettings,
                          start_problem: str | None = None,
                          progress: Callable[[str], None] | None = None, seed: int = 1) -> ValidationReport:
    """Every category for a ``bestmove.py`` (see the module's doc)."""
    validator = KingsHorsesValidator(engine, program, settings, start_problem, progress)
    oracle = Oracle()
    # A program that cannot start is asked the seed's example only (the report says why at once).
    found = list(suite(seed, settings.quick)) if engine is not None else [seed_case()]
    first = validator.ask(found[0])
    categories = {"protocol": validator.protocol(first)}
    if first.result.verdict is Verdict.FAILED_TO_START:
        for name in CATEGORIES[1:]:
            categories[name] = Category(name, [Check("all", False, "not judged: the program did not start "
                                                     "(see protocol/starts)", judged=False)],
                                        "not judged: the program did not start", ROLES[name])
    else:
        asked = [first, *validator.ask_all(found[1:])]
        categories["correctness"] = validator.correctness(asked, oracle)
        categories["time"] = validator.time(asked)
        move_cases = [case for case in found if case.band in ("small", "medium") or case.id == "seed-example"]
        categories["moves"] = validator.moves(validator.ask_all(move_cases, move=True), oracle)
    ordered = {name: categories[name] for name in CATEGORIES}
    failing = [name for name in REQUIRED if ordered[name].status == "fail"]
    unjudged = [name for name in REQUIRED if ordered[name].status == "not judged"]
    if not failing and not unjudged:
        verdict = "PASS: protocol, correctness and time are all right"
        if ordered["moves"].status is Status.WEAK:
            judged = [check for check in ordered["moves"].checks if check.judged]
            verdict += f"; --move weak ({sum(check.passed for check in judged)}/{len(judged)} checks passed)"
    else:
        verdict = "FAIL: " + "; ".join(part for part in (", ".join(failing),
                                                          "not judged: " + ", ".join(unjudged) if unjudged else "")
                                       if part)
        worst = next((check for name in failing for check in ordered[name].checks
                      if check.judged and not check.passed), None)
        if worst is not None:
            verdict += f" (first failure: {worst.id}: {worst.detail})"
    return ValidationReport(program, verdict, not failing and not unjudged, ordered, {}, "kings-horses",
                            settings.play.time_scale)
