#!/usr/bin/env python3
"""Compile the native search core: every ``engines/native/py_<name>.c`` (the core ``<name>.c`` with its
interface to Python) into the extension module ``engines/native/_<name>`` + this interpreter's extension
suffix, with the system C compiler (``$CC``, else ``cc``, else ``gcc``) and Python's headers, only where
the module is missing or older than its sources, this file among them (``--if-stale``; without it,
every one). Modules are readable by every user (the sandbox runs engines under uids of their own).

Flags: -O3 tuned for this processor (``-mtune=native`` schedules instructions for it and adds none, so
the library still runs on any machine of its architecture), plus ``-mpopcnt`` on an x86-64 processor
that has the instruction (every one since 2008; without it a bit count is a dozen instructions, and the
solver counts bits at every node: about 1.4 times the positions per second on Pons's Middle-Medium set).
A compiler that refuses those flags gets the portable ``-O2`` alone.

Exit status 0 when every module is built; otherwise one warning line on stderr (no compiler, no Python
headers, or one per module that failed), status 1, and those searches run in pure Python (the same
answers, slower).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # run as a script: the repository's root

from engines.native import module_path, stale  # noqa: E402  (where load() looks, and the rule it refuses by)

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


def python_headers() -> str | None:
    """The folder holding this interpreter's ``Python.h``, or None where it is not installed."""
    folder = sysconfig.get_paths()["include"]
    return folder if os.path.isfile(os.path.join(folder, "Python.h")) else None


def build(name: str, cc: str, headers: str) -> str | None:
    """Compile ``py_<name>.c`` into module ``_<name>``; None, or why it failed (one line). Written to a
    temporary file and moved into place, so a running engine never loads a half-written module."""
    source = os.path.join(HERE, f"py_{name}.c")
    target = module_path(name, HERE)
    handle, partial = tempfile.mkstemp(dir=HERE, prefix=f"_{name}.", suffix=".partial")
    os.close(handle)
    link = ["-undefined", "dynamic_lookup"] if sys.platform == "darwin" else []
    try:
        for options in (tuned(), PORTABLE):
            done = subprocess.run([cc, *options, *FLAGS, *link, "-I", headers, "-o", partial, source],
                                  capture_output=True, text=True, timeout=300)
            if done.returncode == 0:
                break
        if done.returncode != 0:
            first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[:200])
            return f"{cc} failed on py_{name}.c: {first}"
        # Readable by every user: run as root, the sandbox runs each engine under a uid of its own, and
        # the temporary file's mode (0600, plus the linker's execute bits) would hide the module from it.
        os.chmod(partial, 0o755)
        os.replace(partial, target)
        return None
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{cc} could not build py_{name}.c: {error}"
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--if-stale", action="store_true", help="build only missing or out-of-date modules")
    args = parser.parse_args()
    names = sorted(entry[3:-2] for entry in os.listdir(HERE) if entry.startswith("py_") and entry.endswith(".c"))
    todo = [name for name in names if not args.if_stale or stale(name, HERE)]
    if not todo:
        return 0
    cc = compiler()
    headers = python_headers()
    missing = ("a C compiler (cc or gcc; install gcc)" if cc is None else
               "Python's headers (Python.h; install python3-dev, or your Python's development files)")
    if cc is None or headers is None:
        print(f"warning: no {missing}, so the native search core is not built and the engines search in "
              "pure Python (the same answers, slower)", file=sys.stderr)
        return 1
    failed = 0
    for name in todo:
        problem = build(name, cc, headers)
        if problem is not None:
            failed += 1
            print(f"warning: {problem}; that search runs in pure Python (the same answers, slower)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
