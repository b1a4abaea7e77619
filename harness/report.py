"""Tournament reports from the store: crosstable, ratings with intervals, faults, move times."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from harness.match import Standing, score_for_x
from harness.protocol import Verdict
from harness.ratings import GameResult, PairedEstimate, elo_ratings, los_matrix, paired_estimate, pentanomial
from harness.store import Store

FAULT_VERDICTS = [v.value for v in Verdict if v is not Verdict.OK]


@dataclass
class EngineRow:
    """One engine's line of the report."""

    name: str
    games: int = 0
    score: float = 0.0
    """Points: win 1, draw 0.5."""
    wins: int = 0
    draws: int = 0
    losses: int = 0
    elo: float = 0.0
    elo_ci: tuple[float, float] = (0.0, 0.0)
    """95% interval of the Elo rating."""
    faults: dict[str, int] = field(default_factory=dict)
    """Games lost by each fault verdict."""
    moves: int = 0
    mean_move_seconds: float = 0.0
    max_move_seconds: float = 0.0


@dataclass
class Report:
    """A tournament's results, ready to print."""

    name: str
    tournament: int
    games: int
    engines: list[EngineRow]
    """Ranked by Elo."""
    crosstable: dict[str, dict[str, tuple[float, int]]]
    """crosstable[a][b] = (a's points against b, games)."""
    los: dict[str, dict[str, float]]
    pentanomial: dict[tuple[str, str], list[int]]
    config: dict[str, Any]
    by_colour: dict[tuple[str, str], dict[str, Standing]] = field(default_factory=dict)
    """by_colour[(a, b)]["x"]: a's wins, draws and losses against b when a played x (moved first)."""

    @cached_property
    def paired(self) -> dict[tuple[str, str], PairedEstimate]:
        """Elo and LOS of the first engine of each pairing over the second, from its pentanomial."""
        estimates = {key: paired_estimate(counts) for key, counts in sorted(self.pentanomial.items())}
        return {key: estimate for key, estimate in estimates.items() if estimate is not None}


def build_report(store: Store, tournament: int) -> Report:
    info = store.tournament_info(tournament)
    names = store.engine_names(tournament)
    stored = store.games(tournament)
    rows = {name: EngineRow(name) for name in names}
    cross: dict[str, dict[str, tuple[float, int]]] = {a: {} for a in names}
    results = []
    standings = {name: Standing() for name in names}
    by_colour: dict[tuple[str, str], dict[str, Standing]] = {}
    for game in stored:
        score = score_for_x(game.result)
        results.append(GameResult(game.x, game.o, score, game.pair_key))
        for me, other, colour, points in ((game.x, game.o, "x", score), (game.o, game.x, "o", 1 - score)):
            by_colour.setdefault((me, other), {"x": Standing(), "o": Standing()})[colour].add(points)
        for me, other, points in ((game.x, game.o, score), (game.o, game.x, 1 - score)):
            row = rows[me]
            row.games += 1
            row.score += points
            standings[me].add(points)
            got, played = cross[me].get(other, (0.0, 0))
            cross[me][other] = (got + points, played + 1)
        if game.fault is not None:
            loser = rows[game.fault["engine"]]
            loser.faults[game.fault["verdict"]] = loser.faults.get(game.fault["verdict"], 0) + 1
    for name, standing in standings.items():
        rows[name].wins, rows[name].draws, rows[name].losses = standing.wins, standing.draws, standing.losses
    ratings = elo_ratings(results) if results else {}
    for name, rating in ratings.items():
        rows[name].elo = rating.elo
        rows[name].elo_ci = (rating.ci_low, rating.ci_high)
    for name, (count, mean, peak) in store.move_times(tournament).items():
        if name in rows:
            rows[name].moves, rows[name].mean_move_seconds, rows[name].max_move_seconds = count, mean, peak
    ranked = sorted(rows.values(), key=lambda r: (-r.elo, -r.score, r.name))
    return Report(
        info["name"], tournament, len(stored), ranked, cross, los_matrix(results) if results else {},
        pentanomial(results) if results else {}, info["config"],
        {key: by_colour[key] for key in sorted(by_colour, key=lambda pair: (names.index(pair[0]),
                                                                           names.index(pair[1])))},
    )


def _finite(value: float) -> float | None:
    """Rounded for JSON; None for an unbounded end (JSON has no infinity)."""
    return round(value, 1) if abs(value) != float("inf") else None


def _points(value: float) -> str:
    return f"{value:g}"


def render_text(report: Report) -> str:
    config = report.config
    if "n" in config:  # Betsy
        game, sizes = "", "n = " + ", ".join(str(n) for n in config["n"])
    else:
        game, sizes = f"{config.get('game', '')} ", ", ".join(str(size) for size in config.get("size", []))
    lines = [
        f"Tournament {report.name!r} (#{report.tournament}): {report.games} {game}games, {sizes}, "
        f"{config.get('time', 0):g} s per move, {config.get('format', '')}",
        "",
        "Crosstable (row engine's points / games against the column engine)",
    ]
    names = [row.name for row in report.engines]
    width = max([len(name) for name in names] + [6])
    cell = max(9, width + 2)
    lines.append(" " * (width + 2) + "".join(f"{name:>{cell}}" for name in names))
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append(f"{'-':>{cell}}")
            else:
                got, played = report.crosstable.get(a, {}).get(b, (0.0, 0))
                cells.append(f"{_points(got) + '/' + str(played) if played else '':>{cell}}")
        lines.append(f"{a:<{width}}  " + "".join(cells))
    lines += [
        "",
        "Ratings (Bradley-Terry Elo, draws as half points; mean 0; 95% interval)",
        f"{'rank':<5}{'engine':<{width}}  {'games':>5}  {'score':>6}  {'W-D-L':>10}  {'elo':>6}  "
        f"{'95% interval':>16}  {'LOS>next':>8}",
    ]
    for rank, row in enumerate(report.engines, 1):
        nxt = report.engines[rank].name if rank < len(report.engines) else None
        los = report.los.get(row.name, {}).get(nxt, None) if nxt else None
        los_text = f"{los * 100:.1f}%" if los is not None else ""
        wdl = f"{row.wins}-{row.draws}-{row.losses}"
        interval = f"[{row.elo_ci[0]:+.0f}, {row.elo_ci[1]:+.0f}]"
        lines.append(
            f"{rank:<5}{row.name:<{width}}  {row.games:>5}  {_points(row.score):>6}  {wdl:>10}  "
            f"{row.elo:>+6.0f}  {interval:>16}  {los_text:>8}"
        )
    if report.paired:
        label = max(len(f"{a} vs {b}") for a, b in report.paired) + 2
        lines += [
            "",
            "Colour-swapped pairs (pentanomial: pairs in which the first engine scored 0, 1/2, 1, 3/2, 2 points;",
            "Elo of the first engine over the second with its 95% interval and LOS, the pair as the unit)",
            f"{'pairing':<{label}}{'pairs':>5}  {'pentanomial':<22}{'elo':>6}  {'95% interval':>16}  {'LOS':>6}",
        ]
        for (a, b), estimate in report.paired.items():
            counts = "[" + ", ".join(str(c) for c in report.pentanomial[(a, b)]) + "]"
            low, high = estimate.elo_ci
            lines.append(
                f"{a + ' vs ' + b:<{label}}{estimate.pairs:>5}  {counts:<22}{estimate.elo:>+6.0f}  "
                f"{'[' + f'{low:+.0f}, {high:+.0f}' + ']':>16}  {estimate.los * 100:>5.1f}%"
            )
    if report.by_colour:
        label = max(len(f"{a} vs {b}") for a, b in report.by_colour) + 2
        lines += [
            "",
            "By colour (the first engine's points / games as x, which moves first, and as o; W-D-L)",
            f"{'pairing':<{label}}{'as x':>8}  {'W-D-L':>10}  {'as o':>8}  {'W-D-L':>10}",
        ]
        for (a, b), colours in report.by_colour.items():
            cells = []
            for colour in ("x", "o"):
                standing = colours[colour]
                games = standing.wins + standing.draws + standing.losses
                cells.append(f"{_points(standing.points) + '/' + str(games):>8}  "
                             f"{f'{standing.wins}-{standing.draws}-{standing.losses}':>10}")
            lines.append(f"{a + ' vs ' + b:<{label}}{cells[0]}  {cells[1]}")
    lines += ["", "Faults (games lost by verdict) and move times"]
    column = max(len(v) for v in FAULT_VERDICTS) + 2
    lines.append(
        f"{'engine':<{width}}  " + "".join(f"{v:>{column}}" for v in FAULT_VERDICTS)
        + f"  {'moves':>6}  {'mean s':>7}  {'max s':>6}"
    )
    for row in report.engines:
        lines.append(
            f"{row.name:<{width}}  " + "".join(f"{row.faults.get(v, 0):>{column}}" for v in FAULT_VERDICTS)
            + f"  {row.moves:>6}  {row.mean_move_seconds:>7.3f}  {row.max_move_seconds:>6.3f}"
        )
    return "\n".join(lines)


def to_json(report: Report) -> dict[str, Any]:
    return {
        "name": report.name,
        "tournament": report.tournament,
        "games": report.games,
        "engines": [
            {
                "name": row.name, "games": row.games, "score": row.score,
                "wins": row.wins, "draws": row.draws, "losses": row.losses,
                "elo": round(row.elo, 1), "elo_ci": [round(row.elo_ci[0], 1), round(row.elo_ci[1], 1)],
                "faults": {v: row.faults.get(v, 0) for v in FAULT_VERDICTS},
                "moves": row.moves,
                "mean_move_seconds": round(row.mean_move_seconds, 4),
                "max_move_seconds": round(row.max_move_seconds, 4),
            }
            for row in report.engines
        ],
        "crosstable": {a: {b: {"points": p, "games": g} for b, (p, g) in row.items()}
                       for a, row in report.crosstable.items()},
        "los": report.los,
        "pentanomial": {f"{a} vs {b}": counts for (a, b), counts in report.pentanomial.items()},
        "paired": {
            f"{a} vs {b}": {
                "pairs": e.pairs, "score": round(e.score, 4), "elo": _finite(e.elo),
                "elo_ci": [_finite(e.elo_ci[0]), _finite(e.elo_ci[1])], "los": round(e.los, 4),
            }
            for (a, b), e in report.paired.items()
        },
        "by_colour": {
            f"{a} vs {b}": {colour: {"wins": st.wins, "draws": st.draws, "losses": st.losses,
                                     "points": st.points} for colour, st in colours.items()}
            for (a, b), colours in report.by_colour.items()
        },
        "config": report.config,
    }


def to_csv(report: Report) -> str:
    """One row per engine: name, games, score, W/D/L, elo with interval, faults, move times."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["name", "games", "score", "wins", "draws", "losses", "elo", "elo_low", "elo_high",
                     *[f"faults_{v}" for v in FAULT_VERDICTS], "moves", "mean_move_seconds",
                     "max_move_seconds"])
    for row in report.engines:
        writer.writerow([row.name, row.games, _points(row.score), row.wins, row.draws, row.losses,
                         f"{row.elo:.1f}", f"{row.elo_ci[0]:.1f}", f"{row.elo_ci[1]:.1f}",
                         *[row.faults.get(v, 0) for v in FAULT_VERDICTS], row.moves,
                         f"{row.mean_move_seconds:.4f}", f"{row.max_move_seconds:.4f}"])
    return buffer.getvalue()
