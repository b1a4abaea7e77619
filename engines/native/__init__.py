"""The native search core: C sources in this folder. Each core (``betsy_search.c``,
``connect4_search.c``, ``connect4_solver.c``) is plain C11 with libc only; ``py_<name>.c`` includes it
and gives it to Python as the extension module ``engines.native._<name>``, compiled by
``engines/native/build.py`` (run by the set-up of ``scripts/arena`` and ``scripts/test``) with the
system C compiler and Python's headers. An extension module rather than ctypes: engines start once per
move, and importing one costs a fraction of a millisecond where ctypes costs about 2.5.

Every search keeps its pure-Python path, the reference the native one is checked against: ``load``
returns None where the module was not built, is out of date with its sources (``stale``), or
``ARENA_PURE=1`` asks for the Python path.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = __name__
"""The package the modules are imported from ("" for top-level modules: the build tests)."""
_loaded: dict[str, ModuleType | None] = {}
_why: dict[str, str] = {}
"""Why a module did not load, by name."""


def module_path(name: str, folder: str | None = None) -> str:
    """Where core ``name``'s module lives: ``_<name>`` with this interpreter's extension suffix."""
    import _imp  # the suffixes importlib.machinery.EXTENSION_SUFFIXES lists, without importing importlib

    return os.path.join(HERE if folder is None else folder, f"_{name}{_imp.extension_suffixes()[0]}")


def sources(name: str, folder: str | None = None) -> list[str]:
    """The files module ``name`` is built from: ``py_<name>.c``, the core ``<name>.c`` if there is one,
    every header (``*.h``) of the folder (the sources include them), and ``build.py`` (how they are
    built: its flags, the module's mode)."""
    folder = HERE if folder is None else folder
    entries = os.listdir(folder)
    wanted = {f"py_{name}.c", f"{name}.c", "build.py"}
    return [os.path.join(folder, entry) for entry in sorted(entries) if entry in wanted or entry.endswith(".h")]


def stale(name: str, folder: str | None = None) -> bool:
    """Whether module ``name`` is missing or older than any of its ``sources``."""
    try:
        built = os.stat(module_path(name, folder)).st_mtime_ns
        return any(built < os.stat(path).st_mtime_ns for path in sources(name, folder))
    except OSError:
        return True


def pure() -> bool:
    """Whether the pure-Python path is asked for (``ARENA_PURE`` set to anything but 0 or empty)."""
    return os.environ.get("ARENA_PURE", "") not in ("", "0")


def load(name: str) -> ModuleType | None:
    """Core ``name``'s module (``engines.native._<name>``), or None: not built, older than its sources
    (``stale``), not importable by this interpreter, or the pure path asked for (``why_not`` says
    which). Loaded once per process."""
    if name in _loaded:
        return _loaded[name]
    module = None
    if pure():
        _why[name] = "ARENA_PURE is set"
    elif stale(name):
        _why[name] = "not built, or older than its sources (scripts/arena or engines/native/build.py builds it)"
    else:
        try:
            module = __import__(f"{PACKAGE}._{name}" if PACKAGE else f"_{name}", fromlist=["_"])
        except ImportError as error:
            _why[name] = f"cannot be imported: {error}"
    _loaded[name] = module
    return module


def why_not(name: str) -> str | None:
    """Why ``load(name)`` gave None (it is called first), or None when the module is loaded."""
    return None if load(name) is not None else _why[name]


def describe(names: tuple[str, ...]) -> str:
    """``native`` when every core of ``names`` loads, else ``python`` and why (for an engine's --info)."""
    reasons = [f"{name}: {why_not(name)}" for name in names if load(name) is None]
    return "native" if not reasons else f"python ({'; '.join(reasons)})"
