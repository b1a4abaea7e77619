"""Tournament reports from the store: crosstable, ratings with intervals, faults, move times.

As text that fits 100 columns, one JSON object, and CSV (one file per table); harness.report.html
draws the same report as pages.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from harness.errors import UsageError
from harness.match.match import Standing, score_for_x
from harness.referee.protocol import Verdict
from harness.report.ratings import GameResult, PairedEstimate, elo_ratings, los_matrix, paired_estimate, pentanomial
from harness.store.store import Store, damaged, is_tournament_config
from harness.text import csv_cell, visible
from harness.match.verify import shown

FAULT_VERDICTS = [v.value for v in Verdict if v is not Verdict.OK]
VERDICT_ABBREVIATIONS = {"time": "time", "no-answer": "no-ans", "output-limit": "out-lim", "illegal-move": "illegal",
                         "board-mismatch": "board", "failed-to-start": "no-start"}
"""The faults table's column heads (the full names make it 143 columns wide)."""
WIDTH = 100
"""Text tables fit this many columns (for names up to 16 characters)."""
QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
"""The points of each engine's move-time distribution: min, p10, quartiles, p90, max."""


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
    move_quantiles: tuple[float, ...] = ()
    """Seconds per call at each of QUANTILES; empty without moves."""

    @property
    def lost_by_fault(self) -> int:
        return sum(self.faults.values())


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
    order: list[str] = field(default_factory=list)
    """The engines in config order (a gauntlet's first engine plays all the others)."""
    played: dict[str, list[str]] = field(default_factory=dict)
    """The sizes its stored games were played at, per game (the header of a database whose config
    is not a tournament's)."""
    conversion: dict[str, list[int]] = field(default_factory=dict)
    """All The King's Horses: per engine, [games it began as the mover in a won position, of them
    won, games it began as the mover in a lost position, of them won] (the exact solver's verdict on
    each start; starts it could not settle in time are left out)."""

    @property
    def kind(self) -> str:
        """What the database holds: ``tournament`` (from a config: arena tournament, sprt, merge, or
        an import of such games), ``play`` (arena play's games) or ``games`` (imported games of any
        other config)."""
        if is_tournament_config(self.config):
            return "tournament"
        return "play" if self.config.get("kind") == "play" else "games"

    @property
    def gauntlet(self) -> str | None:
        """The engine that plays every game of a gauntlet; None for a round-robin."""
        return self.order[0] if self.config.get("format") == "gauntlet" and self.order else None

    @property
    def colour_pairings(self) -> dict[tuple[str, str], dict[str, Standing]]:
        """``by_colour`` with each pairing once, its first engine the earlier in config order (a
        gauntlet's own engine): the other engine's results are the same games seen from its side."""
        place = {name: index for index, name in enumerate(self.order)}

        def key(name: str) -> tuple[int, str]:
            return place.get(name, len(place)), name

        return {(a, b): colours for (a, b), colours in self.by_colour.items() if key(a) < key(b)}

    def standing(self, a: str, b: str) -> Standing:
        """a's wins, draws and losses against b, both colours."""
        total = Standing()
        for colour in self.by_colour.get((a, b), {}).values():
            total.wins += colour.wins
            total.draws += colour.draws
            total.losses += colour.losses
        return total

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
    for stored_game in stored:
        for name in (stored_game.x, stored_game.o, *([stored_game.fault["engine"]] if stored_game.fault is not None else [])):
            if name not in rows:
                raise damaged(store.path, f"game {shown(stored_game.game_id)} of tournament {shown(info['name'])}: engine "
                                          f"{shown(name)} is not one of its engines ({_names(names)})")
        score = score_for_x(stored_game.result)
        results.append(GameResult(stored_game.x, stored_game.o, score, stored_game.pair_key))
        for me, other, colour, points in ((stored_game.x, stored_game.o, "x", score), (stored_game.o, stored_game.x, "o", 1 - score)):
            by_colour.setdefault((me, other), {"x": Standing(), "o": Standing()})[colour].add(points)
        for me, other, points in ((stored_game.x, stored_game.o, score), (stored_game.o, stored_game.x, 1 - score)):
            row = rows[me]
            row.games += 1
            row.score += points
            standings[me].add(points)
            got, played = cross[me].get(other, (0.0, 0))
            cross[me][other] = (got + points, played + 1)
        if stored_game.fault is not None:
            loser = rows[stored_game.fault["engine"]]
            loser.faults[stored_game.fault["verdict"]] = loser.faults.get(stored_game.fault["verdict"], 0) + 1
    for name, standing in standings.items():
        rows[name].wins, rows[name].draws, rows[name].losses = standing.wins, standing.draws, standing.losses
    ratings = elo_ratings(results) if results else {}
    for name, rating in ratings.items():
        rows[name].elo = rating.elo
        rows[name].elo_ci = (rating.ci_low, rating.ci_high)
    for name, (count, mean, peak) in store.move_times(tournament).items():
        if name in rows:
            rows[name].moves, rows[name].mean_move_seconds, rows[name].max_move_seconds = count, mean, peak
    for name, seconds in store.move_seconds(tournament).items():
        if name in rows:
            rows[name].move_quantiles = tuple(quantile(seconds, q) for q in QUANTILES)
    ranked = sorted(rows.values(), key=lambda r: (-r.elo, -r.score, r.name))
    return Report(
        info["name"], tournament, len(stored), ranked, cross, los_matrix(results) if results else {},
        pentanomial(results) if results else {}, info["config"],
        {key: by_colour[key] for key in sorted(by_colour, key=lambda pair: (names.index(pair[0]),
                                                                           names.index(pair[1])))},
        names,
        {game: sorted({g.size for g in stored if g.game == game}, key=_size_order)
         for game in dict.fromkeys(g.game for g in stored)},
        conversion(stored),
    )


def _size_order(size: str) -> tuple[int, ...]:
    return tuple(int(part) for part in size.split("x") if part.isdigit())


def _names(names: list[str]) -> str:
    """Engine names for a message: as they are, the list cut at 200 characters."""
    from harness.text import clip

    return clip(", ".join(names) or "none", 200)


def conversion(stored: list[Any]) -> dict[str, list[int]]:
    """Report.conversion for the games among ``stored`` whose game judges its start positions exactly
    (All The King's Horses; empty if none)."""
    from harness.games.errors import PositionError
    from harness.games.registry import GAMES

    oracles: dict[str, Callable[[Any], str | None] | None] = {}
    verdicts: dict[tuple[str, str, str, str], str | None] = {}
    found: dict[str, list[int]] = {}
    for stored_game in stored:
        rules = GAMES.get(stored_game.game)
        if rules is None or not stored_game.start_board:
            continue
        if stored_game.game not in oracles:
            oracles[stored_game.game] = rules.start_oracle()
        oracle = oracles[stored_game.game]
        if oracle is None:
            continue
        start = (stored_game.game, stored_game.size, stored_game.start_player, stored_game.start_board)
        if start not in verdicts:
            try:
                verdicts[start] = oracle(rules.position(stored_game.size, stored_game.start_player, stored_game.start_board))
            except PositionError:  # a damaged database: the store names it when it reads the game
                verdicts[start] = None
        winner = verdicts[start]
        if winner is None:
            continue
        mover = stored_game.start_player
        engine = stored_game.x if mover == "x" else stored_game.o
        won_start = winner == mover
        row = found.setdefault(engine, [0, 0, 0, 0])
        offset = 0 if won_start else 2
        row[offset] += 1
        row[offset + 1] += stored_game.winner == mover
    return found


def quantile(ordered: list[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated linearly between the two nearest."""
    if not ordered:
        return 0.0
    where = q * (len(ordered) - 1)
    low = int(where)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (where - low)


def _finite(value: float) -> float | None:
    """Rounded for JSON; None for an unbounded end (JSON has no infinity)."""
    return round(value, 1) if abs(value) != float("inf") else None


def format_points(value: float) -> str:
    return f"{value:g}"


def config_seconds(config: dict[str, Any]) -> float:
    """The config's time per move (0 when it has none, or not a number: an imported config)."""
    value = config.get("time", 0)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _listed(value: object) -> str:
    return ", ".join(str(item) for item in value) if isinstance(value, list) else str(value)


def _games_and_sizes(count: int, game: str, sizes: list[str]) -> str:
    """``12 games, n = 3, 5``, ``1 connect4 game, 8x8``, ``4 kings-horses games, starts in 1..8``."""
    from harness.games.registry import GAMES

    rules = GAMES.get(game)
    if rules is None:  # a damaged or foreign config: its words as they are
        return f"{count} {game} game{'' if count == 1 else 's'}" + (f", {', '.join(sizes)}" if sizes else "")
    return rules.count_phrase(count) + (f", {rules.sizes_phrase(sizes)}" if sizes else "")


def heading(report: Report) -> str:
    """The report's title: ``Tournament quick``, ``Games played at the terminal``, ``Games of x``."""
    if report.kind == "tournament":
        return f"Tournament {report.name}"
    return "Games played at the terminal" if report.kind == "play" else f"Games of {report.name}"


def title_line(report: Report) -> str:
    """One line saying what the database holds, for each kind (Report.kind): a tournament's games,
    sizes, clock and format from its config; arena play's game, size, clock and opponents; imported
    games' games and sizes as stored."""
    config = report.config
    seconds = config_seconds(config)
    clock = f", {seconds:g} s per move" if seconds else ""
    if report.kind == "tournament":
        game = str(config.get("game", "betsy"))
        sizes = config.get("n" if "n" in config else "size", [])
        listed = [str(size) for size in sizes] if isinstance(sizes, list) else [str(sizes)]
        return (f"Tournament {report.name!r} (#{report.tournament}): "
                f"{_games_and_sizes(report.games, game, listed)}{clock}, {config.get('format', 'round-robin')}")
    games = f"{report.games} game{'' if report.games == 1 else 's'}"
    where = "".join(f", {_played(game, sizes)}" for game, sizes in report.played.items())
    if report.kind == "play":
        opponents = [name for name in report.order if name != "human"]
        return (f"Games played at the terminal ({report.name!r}, #{report.tournament}): {games}{where}{clock}, "
                f"a person against {', '.join(opponents) or 'no engine'}")
    return f"Games {report.name!r} (#{report.tournament}): {games}{where}{clock}"


def _played(game: str, sizes: list[str]) -> str:
    """The game and sizes of stored games: ``Betsy n = 5``, ``Connect Four 7x6, 8x8``."""
    from harness.games.registry import GAMES

    rules = GAMES.get(game)
    if rules is None:  # a damaged database: the store names it when it reads the game
        return f"{game} {', '.join(sizes)}"
    return f"{rules.title} {', '.join(rules.size_phrase(size) for size in sizes)}"


def _cell(report: Report, a: str, b: str) -> str:
    """a's points / games against b, '-' on the diagonal, empty if they did not meet."""
    if a == b:
        return "-"
    got, played = report.crosstable.get(a, {}).get(b, (0.0, 0))
    return f"{format_points(got)}/{played}" if played else ""


def _crosstable_lines(report: Report) -> list[str]:
    """The crosstable in at most WIDTH columns: one row per opponent for a gauntlet; engines'
    names as column heads when they fit, else their ranks, in blocks of columns when still too wide."""
    names = [row.name for row in report.engines]
    first = report.gauntlet
    if first is not None:
        others = [name for name in names if name != first]
        width = max([len(name) for name in others] + [8])
        lines = [f"Crosstable (gauntlet: {first}'s points / games, W-D-L and score against each opponent)",
                 f"{'opponent':<{width}}  {'points':>9}  {'W-D-L':>10}  {'score':>6}"]
        for other in others:
            got, played = report.crosstable.get(first, {}).get(other, (0.0, 0))
            standing = report.standing(first, other)
            score = f"{got / played * 100:.1f}%" if played else ""
            lines.append(f"{other:<{width}}  {format_points(got) + '/' + str(played):>9}  "
                         f"{f'{standing.wins}-{standing.draws}-{standing.losses}':>10}  {score:>6}")
        return lines
    lines = ["Crosstable (row engine's points / games against the column engine)"]
    width = max([len(name) for name in names] + [6])
    cell = max(9, width + 2)
    if width + 2 + cell * len(names) <= WIDTH:
        lines.append(" " * (width + 2) + "".join(f"{name:>{cell}}" for name in names))
        lines += [f"{a:<{width}}  " + "".join(f"{_cell(report, a, b):>{cell}}" for b in names) for a in names]
        return lines
    lines[0] = "Crosstable (row engine's points / games against the column engine; columns by rank)"
    label = len(str(len(names))) + 1 + width
    cell = max(len(_cell(report, a, b)) for a in names for b in names) + 2
    cell = max(cell, len(str(len(names))) + 2)
    per_block = max(1, (WIDTH - label - 2) // cell)
    for start in range(0, len(names), per_block):
        block = range(start, min(start + per_block, len(names)))
        if start:
            lines.append("")
        lines.append(" " * (label + 2) + "".join(f"{rank + 1:>{cell}}" for rank in block))
        for rank, a in enumerate(names, 1):
            lines.append(f"{rank:>{len(str(len(names)))}} {a:<{width}}  "
                         + "".join(f"{_cell(report, a, names[b]):>{cell}}" for b in block))
    return lines


def _wrap(start: str, items: list[str], end: str) -> list[str]:
    """``start``, the items separated by commas, then ``end``, in lines of at most WIDTH that break
    between items only."""
    lines = [start]
    for number, item in enumerate(items):
        text = item + (end if number == len(items) - 1 else ",")
        if len(lines[-1]) + len(text) + (not lines[-1].endswith(" ")) > WIDTH:
            lines.append(text)
        else:
            lines[-1] += ("" if lines[-1].endswith(" ") else " ") + text
    return lines


def render_text(report: Report) -> str:
    """The report for a terminal: every table fits WIDTH columns (for names up to 16 characters)."""
    lines = [title_line(report), "", *_crosstable_lines(report)]
    names = [row.name for row in report.engines]
    width = max([len(name) for name in names] + [6])
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
            f"{rank:<5}{row.name:<{width}}  {row.games:>5}  {format_points(row.score):>6}  {wdl:>10}  "
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
    if report.colour_pairings:
        label = max(len(f"{a} vs {b}") for a, b in report.colour_pairings) + 2
        lines += [
            "",
            "By colour (the first engine's points / games as x, which moves first, and as o; W-D-L)"
            if not report.conversion else
            "By colour (the first engine's points / games as x, BLACK, and as o, WHITE; W-D-L)",
            f"{'pairing':<{label}}{'as x':>8}  {'W-D-L':>10}  {'as o':>8}  {'W-D-L':>10}",
        ]
        for (a, b), colours in report.colour_pairings.items():
            cells = []
            for colour in ("x", "o"):
                standing = colours[colour]
                games = standing.wins + standing.draws + standing.losses
                cells.append(f"{format_points(standing.points) + '/' + str(games):>8}  "
                             f"{f'{standing.wins}-{standing.draws}-{standing.losses}':>10}")
            lines.append(f"{a + ' vs ' + b:<{label}}{cells[0]}  {cells[1]}")
    if report.conversion:
        lines += [
            "",
            "From won and lost starts (games each engine began as the side to move; the exact solver",
            "says whether that side wins with perfect play): did it convert a won start, save a lost one?",
            f"{'engine':<{width}}  {'won starts':>10}  {'converted':>9}  {'lost starts':>11}  {'saved':>5}",
        ]
        for row in report.engines:
            won, converted, lost, saved = report.conversion.get(row.name, [0, 0, 0, 0])
            lines.append(f"{row.name:<{width}}  {won:>10}  {converted:>9}  {lost:>11}  {saved:>5}")
    heads = [VERDICT_ABBREVIATIONS[v] for v in FAULT_VERDICTS]
    column = max(len(head) for head in heads) + 2
    legend = [f"{VERDICT_ABBREVIATIONS[v]} = {v}" for v in FAULT_VERDICTS if VERDICT_ABBREVIATIONS[v] != v]
    lines += ["", *_wrap("Faults (games lost by each verdict; ", legend, ")"),
              f"{'engine':<{width}}  {'lost':>5}" + "".join(f"{head:>{column}}" for head in heads)]
    for row in report.engines:
        lines.append(f"{row.name:<{width}}  {row.lost_by_fault:>5}"
                     + "".join(f"{row.faults.get(v, 0):>{column}}" for v in FAULT_VERDICTS))
    lines += ["", "Move times (seconds per engine call)",
              f"{'engine':<{width}}  {'moves':>6}  {'mean s':>7}  {'median s':>8}  {'p90 s':>6}  {'max s':>6}"]
    for row in report.engines:
        median, p90 = (row.move_quantiles[3], row.move_quantiles[5]) if row.move_quantiles else (0.0, 0.0)
        lines.append(f"{row.name:<{width}}  {row.moves:>6}  {row.mean_move_seconds:>7.3f}  {median:>8.3f}  "
                     f"{p90:>6.3f}  {row.max_move_seconds:>6.3f}")
    return "\n".join(visible(line) for line in lines)  # names and config values, shown safely


def to_json(report: Report) -> dict[str, Any]:
    return {
        "name": report.name,
        "tournament": report.tournament,
        "kind": report.kind,
        "title": title_line(report),
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
        **({"conversion": {name: dict(zip(("won_starts", "converted", "lost_starts", "saved"), row))
                           for name, row in report.conversion.items()}} if report.conversion else {}),
        "config": report.config,
    }


def _table(header: list[str], rows: list[list[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([csv_cell(cell) for cell in row] for row in rows)  # no cell runs as a formula
    return buffer.getvalue()


def _number(value: float, digits: int = 1) -> str:
    """A float for CSV; ``inf`` and ``-inf`` as such (an unbounded end of an interval)."""
    return f"{value:.{digits}f}" if abs(value) != float("inf") else ("inf" if value > 0 else "-inf")


def to_csv(report: Report) -> str:
    """The ratings table: one row per engine with W/D/L, elo with interval, faults, move times."""
    return _table(
        ["name", "games", "score", "wins", "draws", "losses", "elo", "elo_low", "elo_high",
         *[f"faults_{v}" for v in FAULT_VERDICTS], "moves", "mean_move_seconds", "max_move_seconds"],
        [[row.name, row.games, format_points(row.score), row.wins, row.draws, row.losses,
          f"{row.elo:.1f}", f"{row.elo_ci[0]:.1f}", f"{row.elo_ci[1]:.1f}",
          *[row.faults.get(v, 0) for v in FAULT_VERDICTS], row.moves,
          f"{row.mean_move_seconds:.4f}", f"{row.max_move_seconds:.4f}"] for row in report.engines])


def csv_tables(report: Report) -> dict[str, str]:
    """Every table of the report as CSV, by file name: ratings, crosstable, pairs, by colour,
    faults and move times, one row per engine, pairing or colour (long form, for spreadsheets)."""
    names = [row.name for row in report.engines]
    crosstable = []
    for a in names:
        for b in names:
            got, played = report.crosstable.get(a, {}).get(b, (0.0, 0))
            if played:
                standing = report.standing(a, b)
                crosstable.append([a, b, format_points(got), played, standing.wins, standing.draws, standing.losses])
    pairs = [[a, b, estimate.pairs, *report.pentanomial[(a, b)], f"{estimate.score:.4f}", _number(estimate.elo),
              _number(estimate.elo_ci[0]), _number(estimate.elo_ci[1]), f"{estimate.los:.4f}"]
             for (a, b), estimate in report.paired.items()]
    colours = [[a, b, colour, st.wins + st.draws + st.losses, st.wins, st.draws, st.losses, format_points(st.points)]
               for (a, b), by in report.by_colour.items() for colour, st in by.items()]
    quantile_heads = ["min", "p10", "p25", "median", "p75", "p90", "max"]
    return {
        "ratings.csv": to_csv(report),
        "crosstable.csv": _table(["engine", "opponent", "points", "games", "wins", "draws", "losses"], crosstable),
        "pairs.csv": _table(["engine", "opponent", "pairs", "pairs_0", "pairs_0.5", "pairs_1", "pairs_1.5", "pairs_2",
                             "score", "elo", "elo_low", "elo_high", "los"], pairs),
        "by_colour.csv": _table(["engine", "opponent", "colour", "games", "wins", "draws", "losses", "points"],
                                colours),
        "faults.csv": _table(["engine", "lost", *FAULT_VERDICTS],
                             [[row.name, row.lost_by_fault, *[row.faults.get(v, 0) for v in FAULT_VERDICTS]]
                              for row in report.engines]),
        "move_times.csv": _table(
            ["engine", "moves", "mean_seconds", *[f"{head}_seconds" for head in quantile_heads]],
            [[row.name, row.moves, f"{row.mean_move_seconds:.4f}",
              *[f"{value:.4f}" for value in row.move_quantiles or (0.0,) * len(QUANTILES)]]
             for row in report.engines]),
    }


def write_csv_tables(report: Report, folder: Path) -> list[Path]:
    """Write csv_tables into ``folder`` (created if missing); the files written."""
    written = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in csv_tables(report).items():
            (folder / name).write_text(text, encoding="utf-8")
            written.append(folder / name)
    except OSError as error:
        raise UsageError(f"cannot write {error.filename or folder}: {error.strerror or error}") from None
    return written
