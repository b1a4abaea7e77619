"""SplitMix64: a tiny seedable generator, identical on every platform and Python version.

Shared by the harness (openings, test positions) and the engines. The stdlib's random module
costs about 6 ms of import per process, and engines start afresh on every move.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeVar

    T = TypeVar("T")

_MASK = 0xFFFFFFFFFFFFFFFF


class Rng:
    """SplitMix64 (Steele, Lea and Flood 2014): seed -> the same stream everywhere."""

    __slots__ = ("state",)

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = time.time_ns() ^ (os.getpid() << 32)
        self.state = seed & _MASK

    def next64(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def random(self) -> float:
        """A float in [0, 1)."""
        return (self.next64() >> 11) * (1.0 / 9007199254740992.0)

    def randrange(self, stop: int) -> int:
        """An int in [0, stop), without modulo bias."""
        if stop <= 0:
            raise ValueError(f"randrange needs stop > 0, got {stop}")
        limit = (1 << 64) - (1 << 64) % stop
        while True:
            value = self.next64()
            if value < limit:
                return value % stop

    def choice(self, items: Sequence[T]) -> T:
        """One item, uniformly."""
        return items[self.randrange(len(items))]
