"""What this machine gives arena: how many CPUs its engine calls may use at once.

Engines are CPU-bound: more calls at once than CPUs make each wait for one. The referee's clock
does not count that wait against a program (harness.referee.referee), but a call starved past
its wall-time cap is run again alone and may end not judged, so every command runs at most this
many engine calls at once.
"""

from __future__ import annotations

import math
import os


def usable_cores() -> int:
    """CPUs this process may run on: its affinity mask (``taskset``), capped by its cgroup's CPU
    quota (``cpu.max``, a container's share) where one is set; at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    quota = _cgroup_quota()
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return max(1, cores)


def _cgroup_quota() -> float | None:
    """CPUs' worth of time the cgroup v2 of this process may use (``cpu.max``: quota/period), or None."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as file:
            paths = [line.rstrip("\n").partition("::")[2] for line in file if line.startswith("0::")]
        if not paths:
            return None
        with open(os.path.join("/sys/fs/cgroup", paths[0].lstrip("/"), "cpu.max"), encoding="utf-8") as file:
            quota, _, period = file.read().partition(" ")
    except OSError:
        return None
    if quota.strip() == "max":
        return None
    try:
        return int(quota) / int(period)
    except ValueError:
        return None


def fit_concurrency(asked: int, source: str, unit: str = "engine calls") -> tuple[int, str | None]:
    """``asked`` calls at once, or the usable cores when it is more, with the one-line warning that
    says so (None when it fits); ``source`` names where the number came from (``--concurrency``)."""
    cores = usable_cores()
    if asked <= cores:
        return asked, None
    return cores, (f"{source} {asked} is more than the {cores} CPU{'s' if cores != 1 else ''} arena may use here; "
                   f"running {cores} {unit} at once, so that no engine waits for a CPU another takes")
