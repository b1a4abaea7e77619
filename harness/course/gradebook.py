"""The gradebook: one record per student, as JSON, CSV (for a spreadsheet or a course platform) and
the leaderboard's text."""

from __future__ import annotations

import csv
import io
from typing import Any

from harness.course.config import ClassConfig
from harness.course.run import ClassRun, Entry, points_of, ranked
from harness.text import csv_cell, visible

STATUS_WORDS = {
    "ranked": "ranked", "failed": "failed validation", "missing": "missing", "refused": "refused",
    "late": "late", "not validated": "not validated",
}
"""A student's status in words: the leaderboard's text and the class page say it the same way."""


def _published(config: ClassConfig, entry: Entry, number: int) -> str:
    """How the class page names a student: what the config's publish: allows, nothing more."""
    if config.publish == "id" and entry.student.id:
        return entry.student.id
    if config.publish == "name" and entry.student.name:
        return entry.student.name
    if config.publish == "anonymous":
        return f"student {number}"
    return entry.student.folder


def records(run: ClassRun) -> list[dict[str, Any]]:
    """One record per student: roster order (then folders on no roster), each with its figures."""
    config = run.config
    order = {entry.student.folder: rank for rank, entry in enumerate(ranked(run), 1)}
    similar: dict[str, list[dict[str, Any]]] = {}
    for pair in run.source_pairs:
        for me, other in ((pair.a, pair.b), (pair.b, pair.a)):
            similar.setdefault(me, []).append({"with": other, "kind": "source", "score": round(pair.score, 3)})
    for pair in run.move_pairs:
        for me, other in ((pair.a, pair.b), (pair.b, pair.a)):
            similar.setdefault(me, []).append({"with": other, "kind": "moves", "score": round(pair.share, 3),
                                               "same": pair.same, "compared": pair.positions})
    out: list[dict[str, Any]] = []
    for number, entry in enumerate(sorted(run.entries, key=lambda e: e.student.folder), 1):
        rating = run.ratings.get(entry.key) if entry.in_league else None
        verdict = run.verdicts.get(entry.key) if entry.in_league else None
        categories = {}
        if entry.validation is not None:
            categories = {name: entry.validation["categories"].get(name, {}).get("status", "")
                          for name in config.categories}
        out.append({
            "student": entry.student.folder,
            "published": _published(config, entry, number),
            "id": entry.student.id, "name": entry.student.name, "on_roster": entry.student.on_roster,
            "status": entry.status, "reason": entry.reason, "note": entry.note,
            "hash": entry.hash,
            "validation": categories,
            "verdict": entry.validation.get("verdict") if entry.validation else None,
            "elo": None if rating is None else round(rating.elo, 1),
            "elo_low": None if rating is None else round(rating.ci_low, 1),
            "elo_high": None if rating is None else round(rating.ci_high, 1),
            "rated_games": None if rating is None else rating.games,
            "band": None if verdict is None else verdict.band,
            "band_state": None if verdict is None else verdict.state,
            "band_text": None if verdict is None else verdict.text,
            "rank": order.get(entry.student.folder),
            "league_score": run.league_points.get(entry.key) if entry.in_league else None,
            "league_games": run.league_games.get(entry.key) if entry.in_league else None,
            "points": points_of(run, entry),
            "similar": sorted(similar.get(entry.student.folder, []), key=lambda s: (-s["score"], s["with"])),
        })
    roster_order = {entry.student.folder: index for index, entry in enumerate(run.entries)}
    out.sort(key=lambda record: roster_order[record["student"]])
    return out


def to_json(run: ClassRun) -> dict[str, Any]:
    config = run.config
    return {
        "class": config.name, "game": config.rules.name, "size": config.size, "time": config.settings.time,
        "time_scale": config.settings.time_scale,
        "format": run.league_format, "rounds": run.rounds, "references": config.references,
        "bands": [{"name": b.name, "floor": b.floor, "points": b.points} for b in config.bands],
        "error": config.error,
        "students": records(run),
        "similar_sources": [{"a": p.a, "b": p.b, "score": round(p.score, 3), "a_share": round(p.a_share, 3),
                             "b_share": round(p.b_share, 3)} for p in run.source_pairs],
        "similar_moves": [{"a": p.a, "b": p.b, "share": round(p.share, 3), "same": p.same,
                           "compared": p.positions, "expected": round(p.expected, 3)} for p in run.move_pairs],
        "validated_now": run.validated, "played_now": run.played, "games": len(run.games),
        "stage_seconds": {name: round(seconds, 3) for name, seconds in run.timings.items()},
        "stage_games": run.stage_games,
    }


def _cell(value: object) -> object:
    """A gradebook value as its CSV cell: none empty, a float as written short, no formula run (csv_cell)."""
    return csv_cell("" if value is None else (f"{value:g}" if isinstance(value, float) else str(value)))


def to_csv(run: ClassRun) -> str:
    """The gradebook: one row per student (roster order), for a spreadsheet or a course platform."""
    categories = run.config.categories
    header = ["id", "name", "folder", "status", "reason", "hash", *categories, "elo", "elo_low", "elo_high",
              "band", "band_state", "rank", "league_score", "league_games", "points", "similar"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for record in records(run):
        similar = "; ".join(f"{s['with']} ({s['kind']} {s['score']:.0%})" for s in record["similar"])
        writer.writerow([_cell(v) for v in (
            record["id"] or record["student"], record["name"], record["student"], record["status"],
            record["reason"] or record["note"], record["hash"] or "",
            *(record["validation"].get(name, "") for name in categories),
            record["elo"], record["elo_low"], record["elo_high"], record["band"] or "",
            record["band_state"] or "", record["rank"], record["league_score"], record["league_games"],
            record["points"], similar)])
    return buffer.getvalue()


def leaderboard(run: ClassRun) -> str:
    """The leaderboard for the terminal: ranked students, then everyone else with why."""
    config = run.config
    all_records = records(run)
    lines = [f"{config.name}: {config.rules.title}, {config.rules.size_phrase(config.size)}, "
             f"{config.settings.time:g} s per move; league: {run.league_format}"
             + (f", {run.rounds} round{'s' if run.rounds != 1 else ''}" if run.league_format != "gauntlet" else "")
             + f"; {len(run.games)} games, {run.played} played now"]
    rows = sorted((r for r in all_records if r["rank"] is not None), key=lambda r: r["rank"])
    if rows:
        header = ["rank", "student", "league", "Elo", "95% interval", "band", "points"]
        table = [[str(r["rank"]), visible(r["student"]),
                  f"{r['league_score']:g}/{r['league_games']}" if r["league_games"] else "-",
                  f"{r['elo']:+.0f}", f"[{r['elo_low']:+.0f}, {r['elo_high']:+.0f}]",
                  r["band"] or f"undecided ({', '.join(run.verdicts[_key(run, r)].possible)})",
                  f"{r['points']:g}"] for r in rows]
        widths = [max(len(row[i]) for row in [header, *table]) for i in range(len(header))]
        lines.append("")
        lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *table]]
    others = [r for r in all_records if r["rank"] is None]
    if others:
        lines.append("")
        lines.append("Not ranked:")
        for r in others:
            lines.append(f"  {visible(r['student'])}: {STATUS_WORDS.get(r['status'], r['status'])}"
                         + (f": {visible(r['reason'])}" if r["reason"] else ""))
    notes = [r for r in all_records if r["note"]]
    for r in notes:
        lines.append(f"  {visible(r['student'])}: {visible(r['note'])}")
    pairs = [(p.a, p.b, f"source {p.score:.0%}") for p in run.source_pairs] + \
            [(p.a, p.b, f"moves {p.same}/{p.positions}") for p in run.move_pairs]
    if pairs:
        lines.append("")
        lines.append("Similar submissions (for staff to look at; no penalty is applied):")
        lines += [f"  {visible(a)} and {visible(b)}: {what}" for a, b, what in pairs]
    return "\n".join(lines)


def _key(run: ClassRun, record: dict[str, Any]) -> str:
    return next(e.key for e in run.entries if e.student.folder == record["student"])
