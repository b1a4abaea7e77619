#!/usr/bin/env python3
"""Compile the native search core: every ``engines/native/*.c`` into ``engines/native/_build/<name>.so``
with the system C compiler (``$CC``, else ``cc``, else ``gcc``), only where the library is missing or
older than its source or any header in this folder (``--if-stale``; without it, every one).

Flags: -O3 tuned for this processor (``-mtune=native`` schedules instructions for it and adds none, so
the library still runs on any machine of its architecture), plus ``-mpopcnt`` on an x86-64 processor
that has the instruction (every one since 2008; without it a bit count is a dozen instructions, and the
solver counts bits at every node: about 1.4 times the positions per second on Pons's Middle-Medium set).
A compiler that refuses those flags gets the portable ``-O2`` alone.

Exit status 0 when every library is built; otherwise one warning line per source that could not be
built on stderr, status 1, and the engines search in pure Python (the same answers, slower).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # run as a script: the repository's root

from engines.native import stale  # noqa: E402  (the rule load() refuses a library by)

BUILD = os.path.join(HERE, "_build")
FLAGS = ["-std=c11", "-fPIC", "-shared", "-Wall", "-Werror=implicit-function-declaration"]
PORTABLE = ["-O2"]


def tuned() -> list[str]:
    """The fast flags for this machine (see the module's doc); PORTABLE is the fallback."""
    flags = ["-O3", "-mtune=native"]
    if platform.machine() in ("x86_64", "AMD64") and _cpu_has("popcnt"):
        flags.append("-mpopcnt")
    return flags


def _cpu_has(flag: str) -> bool:
    """Whether /proc/cpuinfo's first processor lists ``flag`` (False where there is no such file)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if line.startswith("flags"):
                    return flag in line.split(":", 1)[1].split()
    except OSError:
        pass
    return False


def compiler() -> str | None:
    """The C compiler to use: $CC, cc or gcc, the first found."""
    for candidate in (os.environ.get("CC", ""), "cc", "gcc"):
        if candidate and shutil.which(candidate):
            return candidate
    return None


def build(name: str, cc: str) -> str | None:
    """Compile ``name.c``; None, or why it failed (one line). Written to a temporary file and moved
    into place, so a running engine never loads a half-written library."""
    source = os.path.join(HERE, f"{name}.c")
    target = os.path.join(BUILD, f"{name}.so")
    os.makedirs(BUILD, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=BUILD, suffix=".so.partial")
    os.close(handle)
    try:
        for options in (tuned(), PORTABLE):
            done = subprocess.run([cc, *options, *FLAGS, "-o", partial, source], capture_output=True, text=True,
                                  timeout=300)
            if done.returncode == 0:
                break
        if done.returncode != 0:
            first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[:200])
            return f"{cc} failed on {name}.c: {first}"
        os.replace(partial, target)
        return None
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{cc} could not build {name}.c: {error}"
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--if-stale", action="store_true", help="build only missing or out-of-date libraries")
    args = parser.parse_args()
    names = sorted(entry[:-2] for entry in os.listdir(HERE) if entry.endswith(".c"))
    todo = [name for name in names if not args.if_stale or stale(os.path.join(HERE, f"{name}.c"),
                                                                   os.path.join(BUILD, f"{name}.so"))]
    if not todo:
        return 0
    cc = compiler()
    if cc is None:
        print("warning: no C compiler (cc or gcc; install gcc), so the native search core is not built and "
              "the engines search in pure Python (the same answers, slower)", file=sys.stderr)
        return 1
    failed = 0
    for name in todo:
        problem = build(name, cc)
        if problem is not None:
            failed += 1
            print(f"warning: {problem}; that search runs in pure Python (the same answers, slower)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
