"""engines/native/build.py and engines.native.load with a real compiler and real files: a library is
rebuilt, and not loaded, once its source or any header of its folder is newer than it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from engines import native
from engines.native import build


def make_folder(folder: Path) -> None:
    (folder / "answer.h").write_text("#define ANSWER 42\n")
    (folder / "answer.c").write_text('#include "answer.h"\nint answer(void) { return ANSWER; }\n')


BASE = int(time.time()) - 1000


def age(path: Path, seconds: int) -> None:
    """Set ``path``'s times to ``seconds`` after a moment well in the past (whole seconds: no filesystem
    rounding; a library built now is newer than all of them)."""
    os.utime(path, (BASE + seconds, BASE + seconds))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cc = build.compiler()
    if cc is None:
        pytest.skip("no C compiler")
    make_folder(tmp_path)
    monkeypatch.setattr(build, "HERE", str(tmp_path))
    monkeypatch.setattr(build, "BUILD", str(tmp_path / "_build"))
    monkeypatch.setattr(native, "HERE", str(tmp_path))
    monkeypatch.setattr(native, "BUILD", str(tmp_path / "_build"))
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.delenv("ARENA_PURE", raising=False)
    assert build.build("answer", cc) is None
    return tmp_path


def test_a_library_is_stale_when_its_source_or_any_header_beside_it_is_newer(folder: Path) -> None:
    source, target = str(folder / "answer.c"), str(folder / "_build" / "answer.so")
    for name in ("answer.c", "answer.h"):
        age(folder / name, 0)
    age(folder / "_build" / "answer.so", 10)
    assert not build.stale(source, target)
    age(folder / "answer.h", 20)  # a header edited after the build
    assert build.stale(source, target)
    age(folder / "_build" / "answer.so", 30)
    assert not build.stale(source, target)
    (folder / "other.h").write_text("/* a header no source includes yet: still rebuilt after, to be safe */\n")
    age(folder / "other.h", 40)
    assert build.stale(source, target)
    age(folder / "_build" / "answer.so", 50)
    age(folder / "answer.c", 60)
    assert build.stale(source, target)
    assert build.stale(source, str(folder / "_build" / "missing.so"))


def test_load_refuses_a_library_older_than_a_header_and_build_if_stale_rebuilds_it(folder: Path) -> None:
    for name in ("answer.c", "answer.h"):
        age(folder / name, 0)
    age(folder / "_build" / "answer.so", 10)
    (folder / "answer.h").write_text("#define ANSWER 43\n")
    age(folder / "answer.h", 20)
    assert native.load("answer") is None  # out of date with its header: the Python path runs
    # build.py --if-stale rebuilds it, and the new library is loaded.
    argv = sys.argv
    sys.argv = ["build.py", "--if-stale"]
    try:
        assert build.main() == 0
    finally:
        sys.argv = argv
    native._loaded.clear()
    library = native.load("answer")
    assert library is not None and library.answer() == 43
