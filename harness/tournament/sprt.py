"""``arena sprt``: play colour-swapped pairs between two engines until the pentanomial GSPRT
(harness.report.ratings.sprt_pentanomial, fishtest's) accepts H0 (``elo = elo0``) or H1 (``elo = elo1``).

The games are a two-engine gauntlet tournament of ``max_pairs`` rounds (one opening per round,
played twice with colours swapped), stored in an ordinary results database: the run plays it a
batch of rounds at a time and tests after each batch, so it is resumable like any tournament (the
same command goes on where it stopped, and games already stored count) and ``arena report`` reads
it. The test is on pairs, the unit that colour-swapped openings make independent.
"""

from __future__ import annotations

import re
from collections.abc import Callable
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import EngineError
from harness.tournament.config import Opening, TournamentConfig, read_openings
from harness.referee.engine_specs import EngineSpec, env_command_start
from harness.report.ratings import GameResult, PairedEstimate, SprtResult, paired_estimate, pentanomial, sprt_pentanomial
from harness.referee.sandbox import SandboxMode
from harness.match.settings import GameSettings
from harness.store.store import Store
from harness.text import clip
from harness.match.match import Termination, score_for_x

if TYPE_CHECKING:
    from harness.tournament.run import CheckedRun

MAX_PAIRS = 100_000


@dataclass(frozen=True)
class SprtPlan:
    config: TournamentConfig
    db: Path
    elo0: float
    elo1: float
    alpha: float
    beta: float
    batch: int
    """Rounds (pairs) played between two looks at the test."""

    @property
    def names(self) -> tuple[str, str]:
        return self.config.engines[0].name, self.config.engines[1].name


@dataclass(frozen=True)
class Forfeits:
    """An engine's games lost by a fault of its own (a crash, an illegal move, the clock)."""

    lost: int
    played: int
    first: str
    """The first such game's reason, as stored."""


@dataclass(frozen=True)
class SprtState:
    pairs: int
    counts: list[int]
    """Pentanomial counts of the first engine's pair scores (0, 1/2, 1, 3/2, 2 points)."""
    test: SprtResult
    estimate: PairedEstimate | None
    forfeits: dict[str, Forfeits] = dataclasses.field(default_factory=dict)
    """The engines that lost a game by forfeit, by name."""
    games: int = 0
    draws: int = 0
    capped: int = 0
    """Of the draws, those the ply limit ended."""


def engine_name(spec: EngineSpec, taken: set[str]) -> str:
    """A short name for an engine given on the command line: the built-in's name, or its program
    file's stem (``betsy_v2`` for ``python3 old/betsy_v2.py``) and the variables an ``env`` head
    sets (``strongest+ARENA_PURE=1``), made unique with ``-2``, ``-3``..."""
    base = spec.builtin or (Path(spec.program).stem if spec.program else spec.name)
    start = env_command_start(spec.command)
    if start is not None and not spec.builtin:
        base = "+".join([base, *(token for token in spec.command[1:start] if "=" in token and token[0] != "-")])
    base = re.sub(r"[^A-Za-z0-9_.+=-]", "-", base).strip("-.") or "engine"
    if not base[0].isalnum():
        base = "e" + base
    name, k = base, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    taken.add(name)
    return name


def plan(a: EngineSpec, b: EngineSpec, settings: GameSettings, size: str, *, elo0: float, elo1: float,
         alpha: float, beta: float, max_pairs: int, openings_file: Path | None, seed: int, plies: int,
         concurrency: int, sandbox: SandboxMode, db: Path | None) -> SprtPlan:
    """The test's tournament and database (names from the engines; raises ConfigError for an
    openings file that cannot be read or has no position of this size)."""
    from harness.errors import ConfigError

    taken: set[str] = set()
    first = EngineSpec(engine_name(a, taken), a.command, a.program, a.extra_args, a.builtin)
    second = EngineSpec(engine_name(b, taken), b.command, b.program, b.extra_args, b.builtin)
    positions: dict[str, tuple[Opening, ...]] = {}
    if openings_file is not None:
        positions = read_openings(openings_file.resolve(), settings.rules)
        if size not in positions:
            raise ConfigError(f"invalid --openings: {openings_file} holds no {settings.rules.size_phrase(size)} "
                              "position")
        positions = {size: positions[size]}
    name = f"sprt-{first.name}-vs-{second.name}"
    config = TournamentConfig(
        name=name, settings=settings, sizes=(size,), format="gauntlet", rounds=max_pairs,
        openings_plies=plies, openings_seed=seed,
        openings_file=str(openings_file.resolve()) if openings_file is not None else None,
        concurrency=concurrency, engines=(first, second), sandbox=sandbox, opening_positions=positions)
    path = db if db is not None else Path("results") / f"{name}.sqlite"
    return SprtPlan(config, path, elo0, elo1, alpha, beta, batch=max(2, concurrency))


def state(plan: SprtPlan) -> SprtState:
    """The test on the pairs stored so far."""
    a, b = plan.names
    results: list[GameResult] = []
    faults: dict[str, list[str]] = {}
    capped = 0
    if plan.db.exists():
        store = Store(plan.db, read_only=True)
        try:
            tournament = store.latest_tournament(plan.config.name)
            if tournament is not None:
                # In the schedule's order, not the order the games finished in: the first forfeit
                # named is the same however the games ran at once.
                for g in sorted(store.games(tournament), key=lambda g: (g.round, g.game_id)):
                    results.append(GameResult(g.x, g.o, score_for_x(g.result), g.pair_key))
                    capped += g.termination == Termination.MAX_PLIES
                    if g.fault is not None:
                        faults.setdefault(str(g.fault.get("engine")), []).append(g.reason)
        finally:
            store.close()
    low, high = sorted((a, b))
    counts = pentanomial(results).get((low, high), [0] * 5)
    if low != a:  # counted for the name that sorts first: turn them to a's view
        counts = counts[::-1]
    forfeits = {name: Forfeits(len(faults[name]), len(results), faults[name][0]) for name in (a, b) if name in faults}
    return SprtState(sum(counts), counts, sprt_pentanomial(counts, plan.elo0, plan.elo1, plan.alpha, plan.beta),
                     paired_estimate(counts), forfeits, len(results),
                     sum(1 for result in results if result.score == 0.5), capped)


def forfeit_warnings(now: SprtState) -> list[str]:
    """One line for each engine that forfeited games: a verdict on them is partly one on its faults."""
    return [f"{name} forfeited {f.lost} of its {f.played} games (the first: {clip(f.first, 200)})"
            for name, f in now.forfeits.items()]


DRAWISH_GAMES = 8
DRAWISH_SHARE = 0.75


def draw_warning(now: SprtState) -> str | None:
    """One line when at least ``DRAWISH_SHARE`` of the games (``DRAWISH_GAMES`` or more) were drawn and
    the test did not accept H1: a pair of draws scores as equal strength whatever the engines' strength,
    so such a test leans to H0, or decides nothing, because the openings or the ply limit leave no
    game to win (Betsy at n = 8 from two-ply openings draws nearly every game at the 200-ply limit)."""
    if now.test.decision == "H1" or now.games < DRAWISH_GAMES or now.draws < DRAWISH_SHARE * now.games:
        return None
    capped = f" ({now.capped} at the ply limit)" if now.capped else ""
    return (f"{now.draws} of {now.games} games were drawn{capped}, and a pair of draws counts as equal "
            "strength: openings that leave the game less even give decisive games (more --opening-plies, "
            "e.g. 20, or an --openings file)")


def refuse_broken(plan: SprtPlan, now: SprtState) -> None:
    """Raise EngineError when an engine has forfeited every game it played (two or more): the test
    would only measure its faults, so the run stops before it says anything of strength."""
    for name, f in now.forfeits.items():
        if f.lost == f.played >= 2:
            raise EngineError(f"{name} forfeited all {f.played} of its games (the first: {clip(f.first, 200)}); "
                              f"fix its command and run again with another --db (these games are in {plan.db})")


def line(now: SprtState) -> str:
    """One progress line: pairs, counts, LLR and its bounds, Elo and its interval."""
    test = now.test
    if now.estimate is None:
        elo = "Elo -"
    else:
        low, high = now.estimate.elo_ci
        elo = f"Elo {now.estimate.elo:+.1f} [{low:+.1f}, {high:+.1f}]"
    return (f"pairs {now.pairs:>5}  pentanomial {now.counts}  LLR {test.llr:+.2f} "
            f"({test.lower:+.2f}, {test.upper:+.2f})  {elo}")


def verdict(plan: SprtPlan, now: SprtState) -> str:
    a, b = plan.names
    test = now.test
    if test.decision == "H1":
        return (f"H1 accepted: {a} is stronger than {b} by about {plan.elo1:g} Elo or more "
                f"(LLR {test.llr:+.2f} >= {test.upper:+.2f} after {now.pairs} pairs)")
    if test.decision == "H0":
        return (f"H0 accepted: {a} is not {plan.elo1:g} Elo stronger than {b}; about {plan.elo0:g} or less "
                f"(LLR {test.llr:+.2f} <= {test.lower:+.2f} after {now.pairs} pairs)")
    return f"no decision after {now.pairs} pairs (the --max-pairs limit): LLR {test.llr:+.2f}"


def run(plan: SprtPlan, show: Callable[[str], None], progress: bool = False,
        on_warning: Callable[[str], None] | None = None, checked: CheckedRun | None = None) -> SprtState:
    """Play batches of rounds until the test decides or every round is played; ``show`` gets a
    progress line after each batch (and one for the games already stored). The run is checked once
    (``checked``, or here): each batch is a share of its rounds."""
    from harness.tournament.run import check_run, play_run

    rounds = plan.config.rounds
    whole = checked if checked is not None else check_run(plan.config)
    warned: set[str] = set()

    def warn_once(text: str) -> None:  # each batch starts games, and would say the sandbox's warning again
        if text not in warned and on_warning is not None:
            warned.add(text)
            on_warning(text)

    now = state(plan)
    show(line(now))
    refuse_broken(plan, now)
    next_round = 1
    while now.test.decision == "continue" and next_round <= rounds:
        last = min(rounds, next_round + plan.batch - 1)
        summary = play_run(dataclasses.replace(whole, rounds=(next_round, last)), plan.db, progress=progress,
                           on_warning=warn_once)
        next_round = last + 1
        if summary.played or next_round > rounds:
            now = state(plan)
            if summary.played:
                show(line(now))
            refuse_broken(plan, now)
    return now
