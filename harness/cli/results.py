"""The commands over stored results: ``arena report``, ``games``, ``replay``, ``export``, ``import``, ``merge``."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Optional

import typer

from harness.cli.console import echo
from harness.cli.options import JsonObjectOption, ProgressOption, ResultsArgument, TournamentFilterOption
from harness.errors import UsageError
from harness.text import visible

RESULT_CHOICES = ("1-0", "0-1", "1/2-1/2", "draw", "win", "loss")


@contextlib.contextmanager
def reading(db: Path) -> Iterator[None]:
    """A results database found damaged while reading it becomes one line naming it."""
    import sqlite3

    try:
        yield
    except (sqlite3.Error, UnicodeDecodeError, json.JSONDecodeError) as error:
        from harness.store.store import damaged

        raise damaged(db, error) from None


def open_results(db: Path) -> Any:
    from harness.store.store import Store

    if not db.exists():
        raise UsageError(f"no results database at {db}; check the path")
    return Store(db, read_only=True)


def print_report(db: Path, tournament: int | None, fmt: str, html: Path | None = None,
                 csv_dir: Path | None = None, show_progress: bool = False) -> None:
    """Print the report, then write its pages and tables: a folder that cannot be written at the end
    gets a fallback folder (harness.outputs.write_kept), and the report printed is not lost."""
    from harness.errors import OutputError
    from harness.outputs import check_folder, write_kept
    from harness.report.html import write_html_report
    from harness.report.report import build_report, render_text, to_csv, to_json, write_csv_tables
    from harness.store.store import Store

    if not db.exists():
        raise UsageError(f"no results database at {db}; run 'arena tournament CONFIG' first or check the path")
    if html is not None:
        check_folder(html, "--html")
    if csv_dir is not None:
        check_folder(csv_dir, "--csv")
    failed: list[str] = []
    pages = None
    tables: list[Path] = []
    with reading(db), Store(db, read_only=True) as store:
        chosen = tournament if tournament is not None else store.latest_tournament()
        if chosen is None:
            raise UsageError(f"{db} holds no tournament yet")
        if not store.has_tournament(chosen):
            raise UsageError(f"{db} has no tournament #{chosen}")
        built = build_report(store, chosen)
        if fmt == "json":
            typer.echo(json.dumps(to_json(built)))
        elif fmt == "csv":
            echo(to_csv(built), nl=False, lines=True)
        else:
            echo(render_text(built), lines=True)
        if html is not None:
            from harness.progress import bar as progress_bar

            def write_pages(folder: Path) -> Any:
                with progress_bar(built.games, "pages", "game", show_progress) as bar:
                    def page_done() -> None:
                        bar.update(1)

                    return write_html_report(store, chosen, built, folder, on_page=page_done)

            try:
                pages = write_kept(write_pages, html, "arena-report-html", "--html")
            except OutputError as error:
                failed.append(str(error))
    if csv_dir is not None:
        try:
            tables = write_kept(lambda folder: write_csv_tables(built, folder), csv_dir, "arena-report-csv", "--csv")
        except OutputError as error:
            failed.append(str(error))
    if fmt == "text" and pages is not None:
        echo()
        echo(f"HTML report: {pages.index} (and {pages.game_pages} game pages)")
    if fmt == "text" and tables:
        echo()
        echo(f"CSV tables: {', '.join(str(path) for path in tables)}")
    if failed:
        raise OutputError("; ".join(failed))


def report_command(
    context: typer.Context,
    db: Annotated[Path, typer.Argument(help="Results database of a tournament.")],
    as_json: JsonObjectOption = False,
    as_csv: Annotated[bool, typer.Option(
        "--csv", help="Print the ratings table as CSV; --csv DIR writes every table into DIR instead, one CSV "
                      "file each (ratings, crosstable, pairs, by_colour, faults, move_times).")] = False,
    html: Annotated[Optional[Path], typer.Option(
        "--html", metavar="DIR", help="Also write the report as pages into DIR (index.html, a replay per "
                                      "game); they work offline.")] = None,
    tournament_id: Annotated[
        Optional[int], typer.Option("--tournament", help="Tournament number in the database (default: latest).")
    ] = None,
    progress: ProgressOption = None,
) -> None:
    """Print a tournament's crosstable, ratings, faults and move times; write them as pages or CSV files."""
    extra = list(context.args)
    if extra and not as_csv:
        raise UsageError(f"unexpected argument {extra[0]!r}: a folder for the CSV tables goes after --csv "
                         f"(arena report {db} --csv {extra[0]})")
    if len(extra) > 1:
        raise UsageError(f"unexpected argument {extra[1]!r}: --csv takes one folder")
    csv_dir = Path(extra[0]) if extra else None
    if as_json and as_csv and csv_dir is None:
        raise UsageError("give at most one of --json and --csv (or --csv DIR to write the tables to files)")
    fmt = "json" if as_json else "csv" if as_csv and csv_dir is None else "text"
    from harness.progress import wanted

    print_report(db, tournament_id, fmt, html, csv_dir, wanted(progress))


def merge_command(
    db: Annotated[Path, typer.Argument(help="Results database to add the games to (created if missing).")],
    sources: Annotated[list[Path], typer.Argument(help="Databases holding shares of the same tournament.")],
) -> None:
    """Add the games of each SOURCE's latest tournament to DB: shares of one tournament played on
    several machines (arena tournament --rounds) become one tournament to report. Each game is
    checked as arena import checks a line; a share with one refused game adds nothing."""
    from harness.store.store import check_database, new_database
    from harness.tournament.admit import merge_share
    from harness.store.store import Store

    check_database(db, "DB")
    for source in sources:
        if not source.is_file():
            raise UsageError(f"no results database at {source}; check the path")
        if source.resolve() == db.resolve():
            raise UsageError(f"{source} is the database being merged into; give the shares to add")
    shares: list[tuple[Path, Store, int]] = []
    try:
        for source in sources:
            with reading(source):
                share = Store(source, read_only=True)
                chosen = share.latest_tournament()
            if chosen is None:
                share.close()
                raise UsageError(f"{source} holds no tournament to merge")
            shares.append((source, share, chosen))
        with new_database(db) as made, Store(db, role="arena merge") as target:
            for source, share, chosen in shares:
                with reading(source):
                    name = share.tournament_info(chosen)["name"]
                    number, added, already = merge_share(target, share, chosen)
                made.written = True
                echo(f"{source}: {added} games of tournament {name!r} added to {db} "
                     f"(#{number}), {already} already there")
    finally:
        for _, share, _ in shares:
            share.close()


def games_command(
    db: ResultsArgument,
    tournament_id: TournamentFilterOption = None,
    engine: Annotated[Optional[str], typer.Option("--engine", help="Only games this engine played.")] = None,
    result: Annotated[Optional[str], typer.Option(
        "--result", help="Only these results: 1-0, 0-1, 1/2-1/2 (or draw); with --engine also win or loss.")] = None,
) -> None:
    """List stored games: number, players, size, result, how it ended, plies."""
    if result is not None and result not in RESULT_CHOICES:
        raise UsageError(f"invalid --result {result!r}: use one of {', '.join(RESULT_CHOICES)}")
    if result in ("win", "loss") and engine is None:
        raise UsageError(f"--result {result} needs --engine NAME (whose win or loss)")
    with reading(db), open_results(db) as store:
        if tournament_id is not None and not store.has_tournament(tournament_id):
            raise UsageError(f"{db} has no tournament #{tournament_id}")
        rows = store.game_rows(tournament_id)
    if engine is not None:
        rows = [row for row in rows if engine in (row.x, row.o)]
    if result is not None:
        rows = [row for row in rows if _result_matches(row.result, row.x, row.o, result, engine)]
    if not rows:
        echo("no games match")
        return
    name_width = min(18, max(len(name) for row in rows for name in (row.x, row.o)))
    size_width = max(4, *(len(row.size) for row in rows))
    id_width = max(2, len(str(rows[-1].id)))
    echo(f"{'id':>{id_width}}  {'x':<{name_width}}  {'o':<{name_width}}  {'size':<{size_width}}  "
         f"{'result':<7}  {'end':<14}  {'plies':>5}  key")
    for row in rows:
        echo(f"{row.id:>{id_width}}  {row.x[:name_width]:<{name_width}}  {row.o[:name_width]:<{name_width}}  "
             f"{row.size:<{size_width}}  {row.result:<7}  {row.termination:<14}  {row.plies:>5}  {row.key}")


def _result_matches(stored: str, x: str, o: str, wanted: str, engine: str | None) -> bool:
    if wanted == "draw":
        return stored == "1/2-1/2"
    if wanted in ("win", "loss"):
        winner = {"1-0": x, "0-1": o}.get(stored)
        return (winner == engine) if wanted == "win" else (winner is not None and winner != engine)
    return stored == wanted


def stored_game(store: Any, db: Path, game_id: str) -> tuple[int, Any, Any]:
    """The stored game ``game_id`` (its number or its id) of ``db``: (row id, its games row, its record);
    a one-line error naming how to list the games when there is none."""
    found = store.find_game(game_id)
    if found is None:
        raise UsageError(f"{db} has no game {game_id!r}; list them with 'arena games {db}'")
    row = next(r for r in store.game_rows() if r.id == found)
    return found, row, store.game_record(found)


def replay_command(
    db: ResultsArgument,
    game_id: Annotated[str, typer.Argument(help="The game's number (from arena games) or its key.")],
    show_all: Annotated[bool, typer.Option("--all", help="Print every board at once (for a pipe).")] = False,
) -> None:
    """Step through a stored game: Enter or -> next, <- or Backspace back, Home/End, q quits. The losing
    move is marked when the game has been analysed (arena analyse)."""
    from harness.analysis.run import describe, mark_pages, stored_finding
    from harness.games.registry import get_game
    from harness.store import gamelog

    with reading(db), open_results(db) as store:
        found, row, record = stored_game(store, db, game_id)
        analysis = stored_finding(store, found)
    steps = gamelog.frames(record)
    total = len(record.moves)
    rules = get_game(record.game)
    names = {"x": record.x, "o": record.o}
    pages = [gamelog.describe_frame(record, frame, total) for frame in steps]
    if analysis is None:
        ending = [f"not analysed: 'arena analyse {db}' finds the losing move"]
    else:
        finding, seconds = analysis
        pages = mark_pages(pages, [None if frame.move is None else frame.move.ply for frame in steps], finding,
                           rules, names)
        ending = [f"analysis ({seconds:.2f} s): " + line.strip() if index == 0 else line
                  for index, line in enumerate(describe(finding, rules, names))]
    ending.append(f"result: {record.result} ({record.reason})")
    if show_all or not (sys.stdin.isatty() and sys.stdout.isatty()):
        echo(gamelog.heading(row, record))
        for page in pages:
            echo("")
            echo(page, lines=True)
        echo()
        echo("\n".join(visible(line) for line in ending), lines=True)
        return
    from harness.terminal import step_through

    step_through(gamelog.heading(row, record), pages, "\n".join(visible(line) for line in ending))


def analyse_command(
    db: ResultsArgument,
    tournament_id: TournamentFilterOption = None,
    budget: Annotated[float, typer.Option(
        "--budget", min=0.0, metavar="SECONDS",
        help="Seconds of analysis per game (default 10): the oracle's walk back from the end, then the "
             "search's assessment of the plies before its reach.")] = 10.0,
    again: Annotated[bool, typer.Option("--again", help="Analyse games that already have an analysis too.")] = False,
    progress: ProgressOption = None,
) -> None:
    """Find each stored game's losing move: proved by the game's exact oracle where it reaches, else
    assessed by search; stored with the game (games already analysed are skipped)."""
    from harness.progress import wanted
    from harness.store.store import check_database_file

    if not db.exists():
        raise UsageError(f"no results database at {db}; check the path")
    check_database_file(db)
    echo(analyse_games(db, tournament_id, budget, again, wanted(progress)))


def analyse_games(db: Path, tournament_id: int | None, budget: float, again: bool, progress: bool) -> str:
    """Analyse the stored games of ``db`` (of one tournament, or all) that have no analysis yet (all
    with ``again``), with a progress bar; the one-line summary."""
    from harness.analysis.run import analyse_stored
    from harness.progress import bar as progress_bar
    from harness.store.store import Store

    with reading(db), Store(db, role="arena analyse") as store:
        if tournament_id is not None and not store.has_tournament(tournament_id):
            raise UsageError(f"{db} has no tournament #{tournament_id}")
        waiting = len(store.game_rows(tournament_id)) - (0 if again else len(store.analysed_ids(tournament_id)))
        with progress_bar(waiting, "analyse", "game", progress) as shown:
            def analysed(_finding: object) -> None:
                shown.update(1)

            return analyse_stored(store, tournament_id, budget, again, on_game=analysed).line()


def export_command(
    db: ResultsArgument,
    fmt: Annotated[str, typer.Option("--format", help="jsonl (one game per line, arena match --json plus its "
                                                      "id and tournament) or text (a game sheet per game).")] = "jsonl",
    tournament_id: TournamentFilterOption = None,
    progress: ProgressOption = None,
) -> None:
    """Write every stored game to standard output, as JSON Lines (for arena import) or game sheets."""
    from harness.progress import bar as progress_bar
    from harness.progress import wanted
    from harness.store import gamelog

    if fmt not in ("jsonl", "text"):
        raise UsageError(f"invalid --format {fmt!r}: use jsonl or text")
    with reading(db), open_results(db) as store:
        if tournament_id is not None and not store.has_tournament(tournament_id):
            raise UsageError(f"{db} has no tournament #{tournament_id}")
        rows = store.game_rows(tournament_id)
        with progress_bar(len(rows), "export", "game", wanted(progress)) as written:
            if fmt == "jsonl":
                for data in gamelog.export_records(store, tournament_id):
                    typer.echo(json.dumps(data, sort_keys=False))
                    written.update(1)
                return
            for index, row in enumerate(rows):
                if index:
                    echo("")
                echo(gamelog.game_sheet(row, store.game_record(row.id)), lines=True)
                written.update(1)


def import_command(
    db: Annotated[Path, typer.Argument(help="Results database to add the games to (created if missing).")],
    files: Annotated[list[Path], typer.Argument(help="JSON Lines files written by arena export.")],
    progress: ProgressOption = None,
) -> None:
    """Read games exported by arena export back into a results database (games already there are
    skipped). Each game is replayed through the rules and held to its tournament; a file with one
    refused line adds nothing."""
    from harness.progress import wanted
    from harness.store.store import Store, check_database, new_database
    from harness.tournament import admit

    check_database(db, "DB")
    opened: list[tuple[Path, BinaryIO]] = []
    try:
        for file in files:
            try:
                opened.append((file, open(file, "rb")))  # noqa: SIM115 - closed below
            except OSError as error:
                raise UsageError(f"cannot read {file}: {error.strerror or error}") from None
        with new_database(db) as made, Store(db, role="arena import") as store:
            for file, handle in opened:
                try:
                    with _read_with_progress(handle, str(file), wanted(progress)) as counted:
                        added, already = admit.import_records(store, counted, str(file))
                except OSError as error:
                    raise UsageError(f"cannot read {file}: {error.strerror or error}") from None
                made.written = True
                echo(f"{file}: {added} games added to {db}, {already} already there")
    finally:
        for _, handle in opened:
            handle.close()


class _Counted:
    """A binary file whose lines read move a progress bar by their bytes."""

    def __init__(self, file: BinaryIO, bar: Any) -> None:
        self.file, self.bar = file, bar

    def readline(self, limit: int = -1) -> bytes:
        line = self.file.readline(limit)
        self.bar.update(len(line))
        return line

    def fileno(self) -> int:
        return self.file.fileno()


@contextlib.contextmanager
def _read_with_progress(file: BinaryIO, name: str, show: bool) -> Iterator[BinaryIO]:
    """``file``, its reading shown as a bar of bytes (of its size, when it is a regular file)."""
    from harness.progress import bar as progress_bar

    try:
        size: int | None = os.fstat(file.fileno()).st_size or None
    except OSError:
        size = None
    with progress_bar(size, os.path.basename(name), "B", show, unit_scale=True, unit_divisor=1024) as bar:
        yield _Counted(file, bar)  # type: ignore[misc]
