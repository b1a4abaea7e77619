"""The native search core: C sources in this folder, each compiled by ``engines/native/build.py`` (run
by the set-up of ``scripts/arena`` and ``scripts/test``) into ``_build/<name>.so`` with the system C
compiler, and loaded here with ctypes (no build-time Python headers or packages needed; about 1 ms
to import). Every search keeps its pure-Python path, the reference the native one is checked against:
``load`` returns None where the library was not built, is out of date with its source (or a header), or
``ARENA_PURE=1`` asks for the Python path.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "_build")
_loaded: dict[str, ctypes.CDLL | None] = {}


def library_path(name: str) -> str:
    """Where ``name``'s compiled library lives (``_build/<name>.so``)."""
    return os.path.join(BUILD, f"{name}.so")


def pure() -> bool:
    """Whether the pure-Python path is asked for (``ARENA_PURE`` set to anything but 0 or empty)."""
    return os.environ.get("ARENA_PURE", "") not in ("", "0")


def stale(source: str, target: str) -> bool:
    """Whether ``target`` is missing or older than ``source`` or any header (``*.h``) beside it: the
    sources include the headers of their folder (board.h), so a header's change makes them stale."""
    try:
        built = os.stat(target).st_mtime_ns
        folder = os.path.dirname(source)
        headers = [os.path.join(folder, entry) for entry in os.listdir(folder) if entry.endswith(".h")]
        return any(built < os.stat(path).st_mtime_ns for path in (source, *headers))
    except OSError:
        return True


def load(name: str) -> ctypes.CDLL | None:
    """The compiled library ``name`` (from ``name.c``), or None: not built, older than its source or
    a header of this folder (``stale``), or the pure path asked for. Loaded once per
    process."""
    if name in _loaded:
        return _loaded[name]
    library = None
    path = library_path(name)
    if not pure():
        fresh = not stale(os.path.join(HERE, f"{name}.c"), path)
        if fresh:
            import ctypes

            try:
                library = ctypes.CDLL(path)
            except OSError:
                library = None
    _loaded[name] = library
    return library
