"""What the commands write, and where: every output is checked before the work, a failure to write
at the end loses nothing, and files are named as the README says."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT


def test_a_tournament_writes_its_log_and_lock_beside_the_database_as_the_readme_names_them(tiny_db: Path) -> None:
    assert sorted(path.name for path in tiny_db.parent.iterdir()) == [
        "tiny.sqlite", "tiny.sqlite.lock", "tiny.sqlite.log", "tiny.yaml"]
    assert "INFO tournament 'tiny' (#1) in tiny.sqlite: 2 games scheduled" in (tiny_db.parent / "tiny.sqlite.log").read_text()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "log `<db>.log` and the lock file `<db>.lock`" in readme
    assert "(`results/quick.sqlite.log`, `results/quick.sqlite.lock`)" in readme


def test_a_database_named_like_a_log_keeps_its_own_log(tmp_path: Path) -> None:
    from tests.conftest import TINY, arena

    (tmp_path / "tiny.yaml").write_text(TINY)
    done = arena("tournament", "tiny.yaml", "--db", "run.log", "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run.log", "run.log.lock", "run.log.log", "tiny.yaml"]
    assert (tmp_path / "run.log").read_bytes().startswith(b"SQLite format 3\x00")
