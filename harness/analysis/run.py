"""``arena analyse``: the stored games without an analysis, each analysed (harness.analysis.losing) and its
finding stored in the results database in one transaction, so a stopped run loses at most the game in
hand and the next run goes on from there. Also the finding in words, for the replay and the pages."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.analysis.losing import BUDGET, KINDS, Finding, analyse
from harness.games.registry import Game
from harness.store.store import Store, damaged
from harness.text import visible


@dataclass
class Summary:
    """What one run of ``analyse_stored`` did."""

    analysed: int = 0
    skipped: int = 0
    """Games that already had an analysis."""
    kinds: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    """Seconds spent analysing (the games analysed now)."""

    def line(self) -> str:
        """The one-line summary ``arena analyse`` prints."""
        per_game = f", {self.seconds / self.analysed:.2f} s per game" if self.analysed else ""
        counts = ", ".join(f"{self.kinds[kind]} {kind}" for kind in KINDS)
        return (f"{self.analysed} game{'' if self.analysed == 1 else 's'} analysed ({counts}){per_game}; "
                f"{self.skipped} already analysed")


def analyse_stored(store: Store, tournament: int | None = None, budget: float = BUDGET, again: bool = False,
                   on_game: Callable[[Finding], None] | None = None) -> Summary:
    """Analyse the stored games (of one tournament, or all) that have no analysis yet (every one with
    ``again``), each within ``budget`` seconds, storing each finding as it is made."""
    summary = Summary()
    done = set() if again else store.analysed_ids(tournament)
    for row in store.game_rows(tournament):
        if row.id in done:
            summary.skipped += 1
            continue
        record = store.game_record(row.id)
        started = time.monotonic()
        finding = analyse(record, budget)
        seconds = time.monotonic() - started
        store.save_analysis(row.id, finding.kind, finding.to_json(), seconds, budget)
        summary.analysed += 1
        summary.kinds[finding.kind] += 1
        summary.seconds += seconds
        if on_game is not None:
            on_game(finding)
    return summary


def stored_finding(store: Store, game: int) -> tuple[Finding, float] | None:
    """A game's stored finding and the seconds it took; None when it has none. StoreError when the
    stored finding is not one."""
    stored = store.analysis(game)
    if stored is None:
        return None
    try:
        return Finding.from_json(stored["finding"]), stored["seconds"]
    except ValueError as error:
        raise damaged(store.path, f"game {game}: analysis: {error}") from None


def describe(finding: Finding, rules: Game, names: dict[str, str] | None = None) -> list[str]:
    """A finding in words, a line each: what was found and by what, the better moves, the reply, and
    how far the oracle reached."""
    names = names or {}

    def moves(found: tuple[int, ...] | list[int]) -> str:
        return ", ".join(_move(rules, move) for move in found)

    lines: list[str] = []
    label = "proved by " + finding.method if finding.kind == "proved" else f"assessment by {finding.method}"
    if finding.kind in ("proved", "assessment") and finding.ply is not None and finding.move is not None:
        who = f"{finding.player} ({names[finding.player]})" if finding.player in names else str(finding.player)
        lines.append(f"losing move ({label}): ply {finding.ply}, {who} {rules.describe_move(finding.move)}: "
                     f"{finding.before} before, {finding.after} after")
        if finding.kind == "assessment":
            lines.append(f"  an assessment, not a proof: the move scored more than {finding.margin} points below "
                         f"the best in a {finding.depth}-ply search")
        kept = "the moves within the margin" if finding.kind == "assessment" else f"kept the {finding.before} value"
        lines.append(f"  better: {moves(finding.keeping)} ({kept})" if finding.keeping else
                     "  better: no other move (every move lost the value)")
        if finding.unsettled:
            lines.append(f"  not settled within the budget: {moves(finding.unsettled)}")
        if finding.reply is not None:
            lines.append(f"  the opponent's best reply: {_move(rules, finding.reply)}")
    elif finding.kind == "none":
        lines.append(f"no losing move: every move kept its mover's value ({_reach(finding)})")
    else:
        lines.append(f"losing move not found: the budget ran out ({_reach(finding)})")
    if finding.kind in ("proved", "assessment") and finding.oracle and (finding.reached_from or 0) > 1:
        lines.append(f"  {finding.oracle} reached the game from ply {finding.reached_from} on")
    if finding.note:
        lines.append(f"  {finding.note}")
    return lines


def _reach(finding: Finding) -> str:
    """How far the oracle and the search reached, in words."""
    parts = []
    if finding.oracle:
        reached = finding.reached_from
        parts.append(f"{finding.oracle}: " + ("the whole game" if reached == 1 else "no ply" if reached is None
                                               else f"from ply {reached}"))
    if finding.depth is not None:
        upto = f"up to ply {finding.assessed_to}" if finding.assessed_to is not None else "no ply"
        parts.append(f"search at depth {finding.depth}: {upto}")
    return "; ".join(parts) or "no oracle and no search for this game"


def _move(rules: Game, move: int) -> str:
    """A move as the notation writes it, with what it does: ``-2 (rotates column 2)``."""
    return f"{move} ({rules.describe_move(move)})"


def finding_data(finding: Finding, rules: Game) -> dict[str, Any]:
    """What a page shows of a finding: its kind, its ply (or None) and its lines in words."""
    return {"kind": finding.kind, "ply": finding.ply if finding.kind in ("proved", "assessment") else None,
            "lines": describe(finding, rules)}


def mark_pages(pages: list[str], plies: list[int | None], finding: Finding, rules: Game,
               names: dict[str, str]) -> list[str]:
    """A replay's pages (one per frame; ``plies[i]`` the ply of the move that led to page i, None for
    the start) with the losing move marked: its heading flagged, the finding's lines below its board."""
    if finding.kind not in ("proved", "assessment") or finding.ply is None:
        return pages
    flag = "  <<< the losing move (proved)" if finding.kind == "proved" else "  <<< the losing move (assessed)"
    marked = []
    for page, ply in zip(pages, plies):
        if ply == finding.ply:
            heading, _, rest = page.partition("\n")
            found = [visible(line) for line in describe(finding, rules, names)]  # stored text: shown safely
            page = "\n".join([heading + flag, rest, *found]) if rest else heading + flag
        marked.append(page)
    return marked
