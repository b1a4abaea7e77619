"""engines/native/build.py and engines.native.load with a real compiler, Python's headers and real
files: a module is rebuilt, and not loaded, once its interface, its core or any header of its folder is
newer than it; a fresh one is imported as an extension module."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from engines import native
from engines.native import build
from tests.conftest import ROOT

INTERFACE = """#include "py_common.h"
#include "answer.c"

static PyObject *py_answer(PyObject *self, PyObject *unused) { return PyLong_FromLong(answer()); }

static PyMethodDef methods[] = {{"answer", py_answer, METH_NOARGS, "the answer"}, {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, .m_name = "_answer", .m_size = -1, .m_methods = methods};

PyMODINIT_FUNC PyInit__answer(void) { return PyModule_Create(&module); }
"""


def make_folder(folder: Path) -> None:
    (folder / "build.py").write_text("# how the modules are built\n")
    (folder / "answer.h").write_text("#define ANSWER 42\n")
    (folder / "answer.c").write_text('#include "answer.h"\nstatic int answer(void) { return ANSWER; }\n')
    (folder / "py_answer.c").write_text(INTERFACE)
    (folder / "py_common.h").write_text((Path(native.HERE) / "py_common.h").read_text())


BASE = int(time.time()) - 1000


def age(path: Path, seconds: int) -> None:
    """Set ``path``'s times to ``seconds`` after a moment well in the past (whole seconds: no filesystem
    rounding; a module built now is newer than all of them)."""
    os.utime(path, (BASE + seconds, BASE + seconds))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cc, headers = build.compiler(), build.python_headers()
    if cc is None or headers is None:
        pytest.skip("no C compiler" if cc is None else "no Python headers")
    make_folder(tmp_path)
    monkeypatch.setattr(build, "HERE", str(tmp_path))
    monkeypatch.setattr(native, "HERE", str(tmp_path))
    monkeypatch.setattr(native, "PACKAGE", "")  # the folder's modules are top-level ones
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("ARENA_PURE", raising=False)
    assert build.build("answer", cc, headers) is None
    return tmp_path


def module(folder: Path) -> Path:
    return Path(native.module_path("answer", str(folder)))


def test_a_module_is_stale_when_its_interface_its_core_or_any_header_beside_it_is_newer(folder: Path) -> None:
    assert module(folder).name == f"_answer{EXTENSION_SUFFIXES[0]}"  # where the import system looks first
    assert native.sources("answer") == [str(folder / name) for name in
                                        ("answer.c", "answer.h", "build.py", "py_answer.c", "py_common.h")]
    for name in ("answer.c", "answer.h", "build.py", "py_answer.c", "py_common.h"):
        age(folder / name, 0)
    age(module(folder), 10)
    assert not native.stale("answer")
    for step, name in enumerate(("answer.h", "answer.c", "py_answer.c", "py_common.h", "build.py")):
        age(folder / name, 20 + 20 * step)  # edited after the build
        assert native.stale("answer"), name
        age(module(folder), 30 + 20 * step)
        assert not native.stale("answer"), name
    (folder / "other.h").write_text("/* a header no source includes yet: still rebuilt after, to be safe */\n")
    age(folder / "other.h", 300)
    assert native.stale("answer")
    (folder / "other.c").write_text("/* another core's source: not this module's */\n")
    age(module(folder), 310)
    age(folder / "other.c", 320)
    assert not native.stale("answer")
    module(folder).unlink()
    assert native.stale("answer")


def test_a_built_module_is_readable_by_every_user(folder: Path) -> None:
    # Run as root, the sandbox runs each engine under a uid of its own, which must be able to load it.
    assert module(folder).stat().st_mode & 0o777 == 0o755


def test_load_refuses_a_module_older_than_a_header_and_build_if_stale_rebuilds_it(folder: Path) -> None:
    for name in ("answer.c", "answer.h", "build.py", "py_answer.c", "py_common.h"):
        age(folder / name, 0)
    age(module(folder), 10)
    (folder / "answer.h").write_text("#define ANSWER 43\n")
    age(folder / "answer.h", 20)
    assert native.load("answer") is None  # out of date with its header: the Python path runs
    assert native.why_not("answer") == ("not built, or older than its sources "
                                        "(scripts/arena or engines/native/build.py builds it)")
    assert native.describe(("answer",)) == ("python (answer: not built, or older than its sources "
                                            "(scripts/arena or engines/native/build.py builds it))")
    # build.py --if-stale rebuilds it (and only it), and the new module is imported.
    argv = sys.argv
    sys.argv = ["build.py", "--if-stale"]
    try:
        assert build.main() == 0
    finally:
        sys.argv = argv
    native._loaded.clear()
    loaded = native.load("answer")
    assert loaded is not None and loaded.answer() == 43
    assert native.why_not("answer") is None and native.describe(("answer",)) == "native"
    assert not [entry for entry in os.listdir(folder) if entry.endswith(".partial")]


def test_the_engines_cores_load_as_extension_modules_without_ctypes() -> None:
    """What an engine pays to start: the cores' modules are imported, ctypes is not."""
    code = ("import sys; from engines.native import load; "
            "found = [load(name) is not None for name in ('betsy_search', 'connect4_search', 'connect4_solver')]; "
            "print(found, 'ctypes' in sys.modules)")
    env = {key: value for key, value in os.environ.items() if key != "ARENA_PURE"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[True, True, True] False", done.stderr


def test_load_says_why_a_module_is_not_used(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_PURE", "1")
    assert native.load("answer") is None and native.why_not("answer") == "ARENA_PURE is set"
    monkeypatch.delenv("ARENA_PURE")
    native._loaded.clear()
    monkeypatch.delitem(sys.modules, "_answer", raising=False)  # (an earlier test's module of that name)
    module(folder).write_bytes(b"not a shared object")  # newer than its sources: not stale, but no module
    assert native.load("answer") is None
    assert str(native.why_not("answer")).startswith(f"cannot be imported: {module(folder)}: ")
    assert native.describe(("answer",)) == f"python (answer: {native.why_not('answer')})"
