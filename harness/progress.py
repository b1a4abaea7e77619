"""Progress of long commands on stderr: a bar with a total and an estimate of the time left when
stderr is a terminal (or when asked with --progress), nothing on a pipe unless asked; and a watch
over one long computation that says how far it is and stops it at a time limit."""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tqdm import tqdm


def wanted(asked: bool | None) -> bool:
    """Whether to show progress: as asked (--progress / --no-progress), else when stderr is a terminal."""
    return sys.stderr.isatty() if asked is None else asked


def bar(total: int | None, desc: str, unit: str, show: bool, initial: int = 0, **options: Any) -> tqdm[Any]:
    """A progress bar on stderr (tqdm: count, total, rate and the time left); a silent one unless
    ``show``. On a terminal the bar is erased when it closes; on a pipe or a file (--progress) its
    final state stays as the last line, so a log always shows how far the work got."""
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr, disable=not show,
                dynamic_ncols=True, leave=not sys.stderr.isatty(), **options)


class Stopped(Exception):
    """A computation stopped by its time limit (see ``watched``)."""


@contextlib.contextmanager
def watched(describe: Callable[[float], str], show: bool, timeout: float | None = None, after: float = 2.0,
            every: float = 0.5) -> Iterator[None]:
    """Watch the block from a timer signal (the main thread's: the block itself runs at full speed).

    With ``show``, once ``after`` seconds have passed, ``describe(elapsed)`` is written on stderr
    every ``every`` seconds: one line rewritten in place on a terminal, a line every 5 s on a pipe,
    erased (terminal) when the block ends. Past ``timeout`` seconds, Stopped is raised inside the
    block.
    """
    started = time.monotonic()
    terminal = sys.stderr.isatty()
    last_line = [0.0]
    shown = [False]

    def tick(signum: int, frame: object) -> None:
        elapsed = time.monotonic() - started
        if timeout is not None and elapsed >= timeout:
            raise Stopped
        if not show or elapsed < after:
            return
        if terminal:
            sys.stderr.write(f"\r{describe(elapsed)}\x1b[K")
        elif elapsed - last_line[0] >= 5 or not shown[0]:
            last_line[0] = elapsed
            sys.stderr.write(describe(elapsed) + "\n")
        sys.stderr.flush()
        shown[0] = True

    first = every if timeout is None else min(every, timeout)
    previous = signal.signal(signal.SIGALRM, tick)
    signal.setitimer(signal.ITIMER_REAL, first, every)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if shown[0] and terminal:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def validation_steps(settings: Any) -> int:
    """The steps of ``arena validate``'s bar for a program that answers (one per check asked, one per
    strength game): what harness.validate and harness.validate_kings_horses report through their
    ``progress`` callback (tests/test_progress.py counts them on real runs)."""
    rules = settings.play.rules
    if rules.name == "kings-horses":
        from harness.validate_kings_horses import suite

        found = suite(1, settings.quick)
        return len(found) + sum(1 for case in found if case.band in ("small", "medium") or case.id == "seed-example")
    from harness.positions import suites

    plan = suites(rules.name)
    sizes = settings.sizes or rules.example_sizes
    steps = (1 + sum(1 for _ in plan.rules(sizes, settings.quick)) + len(plan.last_pebble(sizes))
             + sum(1 for _ in plan.robustness(settings.quick)) + len(plan.tactics(sizes, settings.quick)))
    if plan.has_exact_tables:
        from harness.exact import exact_suite, open_table

        table = open_table()
        if table is not None:
            try:
                steps += len(exact_suite(table, 10 if settings.quick else 24))
            finally:
                table.close()
    if settings.games > 0:
        steps += settings.games * (2 if settings.quick else 3)
    return steps
