# TEMPORARY STUB
from __future__ import annotations
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

@dataclass(frozen=True)
class SourceMatch:
    a: str
    b: str
    score: float
    a_share: float
    b_share: float

@dataclass(frozen=True)
class MoveMatch:
    a: str
    b: str
    same: int
    compared: int
    share: float
    expected: float

def fingerprint_folder(folder: Path, max_bytes: int = 1 << 20) -> Any:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}

def similar_sources(prints: Mapping[str, Any], threshold: float, common_share: float = 0.5, base: Any = None) -> list[SourceMatch]:
    names = sorted(prints)
    return [SourceMatch(a, b, 1.0, 1.0, 1.0) for i, a in enumerate(names) for b in names[i+1:] if prints[a] == prints[b]]

def probe_positions(rules: Any, size: str, count: int, seed: int) -> list[Any]:
    from harness.rng import Rng
    from harness.tournament.schedule import random_opening
    out = []
    for i in range(count):
        o = random_opening(rules, size, 8, seed, 100 + i)
        out.append(rules.position(size, o.player, o.board))
    return out

def similar_moves(answers: Mapping[str, Sequence[int | None]], threshold: float = 0.9, minimum: int = 10) -> list[MoveMatch]:
    names = sorted(answers); out = []
    for i, a in enumerate(names):
        for b in names[i+1:]:
            pairs = [(x, y) for x, y in zip(answers[a], answers[b]) if x is not None and y is not None]
            same = sum(x == y for x, y in pairs)
            if len(pairs) >= minimum and same / len(pairs) >= threshold:
                out.append(MoveMatch(a, b, same, len(pairs), same / len(pairs), 0.0))
    return out
