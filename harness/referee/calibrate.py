"""The machine's speed on a fixed reference, for a clock that gives every machine the same work.

``time_scale: auto`` (config) and ``--time-scale auto`` (commands) measure how long this machine takes
for a short, deterministic search (``reference_search``: a full-width search of Betsy n = 4, 6 plies
from a fixed position, the same nodes on every machine) against the time the reference machine took,
and scale every time limit by that factor: a class graded on a machine twice as slow as the
reference gets twice the time, the same budget in reference work. The time measured is this thread's
CPU time, the best of a few runs: a busy machine's waiting for a CPU is not slowness of the machine
(the referee's clock does not count that wait: harness.referee.referee).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

REFERENCE_SECONDS = 0.45
"""CPU seconds the reference machine (2 cores, the project's CI machine, CPython 3.11) takes for the
reference search (the best of 3 runs)."""
REFERENCE_NODES = 290_899
"""Nodes of the reference search (the same on every machine; checked by the tests)."""
RUNS = 3
DEPTH = 6
"""Plies of the reference search."""
LOWEST, HIGHEST = 0.1, 10.0
"""The factors accepted, measured or given."""


@dataclass(frozen=True)
class Calibration:
    """A measured time scale and the figures it rests on."""

    factor: float
    """Every time limit is multiplied by this (rounded to 2 decimals, within LOWEST..HIGHEST)."""
    seconds: float
    """CPU seconds this machine took for the reference search (the best of RUNS)."""
    nodes: int

    def describe(self) -> str:
        return (f"time scale {self.factor:g}: this machine took {self.seconds:.3f} s of CPU for the reference "
                f"search ({self.nodes:,} nodes), the reference machine {REFERENCE_SECONDS:g} s")


def reference_search() -> int:
    """A full-width search, DEPTH plies deep, of a fixed n = 4 Betsy position: its node count."""
    from harness.games.betsy.rules import Position

    position = Position.from_text(4, "x", "." * 12 + "xo.." + "oxxo" + "xoox" + "oxxo")

    def count(depth: int) -> int:
        if depth == 0 or position.winner() is not None:
            return 1
        nodes = 1
        for move in position.legal_moves():
            position.push(move)
            nodes += count(depth - 1)
            position.pop()
        return nodes

    return count(DEPTH)


@functools.cache
def measure() -> Calibration:
    """This machine's time scale, measured once per process."""
    best = float("inf")
    nodes = 0
    for _ in range(RUNS):
        start = time.thread_time()
        nodes = reference_search()
        best = min(best, time.thread_time() - start)
    factor = round(min(HIGHEST, max(LOWEST, best / REFERENCE_SECONDS)), 2)
    return Calibration(factor, best, nodes)
