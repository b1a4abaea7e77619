"""``arena class``: every stage, resumably, from the submissions folder to the gradebook.

1. Intake (harness.course.intake): each folder checked, hashed and snapshot; the deadline freezes
   the submissions graded.
2. Validation of every submission not validated before under the same settings, in parallel, each in
   its own sandbox; stored by (student, hash, settings).
3. Probes for the similarity of moves: each program's move in a fixed set of quiet positions.
4. Anchor games: each submission that passed the required categories against the reference engines,
   in colour-swapped pairs, until the sequential test decides its band or the budget is spent.
5. The league among those submissions: a round-robin for a small class, a Swiss league for a large
   one, or none (a gauntlet: the anchor games alone).
6. Grades: Elo anchored on the references with its interval, the band, the points; similar pairs.

Every game is keyed by what decides it: the two programs' content hashes, the size and the opening's
index, under one tournament of the database per play settings. A stored game is never played again,
so a rerun goes on where the last stopped, and a resubmission plays only its own games.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.course.config import ClassConfig
from harness.course.grades import Band as GradeBand
from harness.course.grades import BandVerdict, anchored_ratings, band_verdict, next_opponents
from harness.course.intake import Student, Submission, intake, program_command, snapshot, students_of
from harness.match.match import GameRecord, score_for_x
from harness.referee import sandbox as sandbox
from harness.referee.engine_specs import EngineSpec, builtin_engine, command_engine
from harness.referee.programs import layout_problems
from harness.report.ratings import GameResult
from harness.store.classbook import ClassBook
from harness.store.store import Store, file_sha256
from harness.tournament.executor import Job, play_locally
from harness.tournament.schedule import ScheduledGame, random_opening
from harness.text import visible

log = logging.getLogger("arena.class")

Show = Callable[[str], None]


@dataclass
class Entry:
    """One student through the stages."""

    student: Student
    submission: Submission
    status: str
    """missing, refused, late, failed, not validated, ranked (or unranked: no games)."""
    reason: str = ""
    hash: str | None = None
    """The submission graded (the frozen one after the deadline)."""
    note: str = ""
    """What staff should know beside the status (a change after the deadline)."""
    folder: Path | None = None
    engine: EngineSpec | None = None
    validation: dict[str, Any] | None = None
    key: str = ""
    """The submission's key in game ids: the first 12 hex digits of its hash."""

    @property
    def in_league(self) -> bool:
        return self.engine is not None and self.validation is not None and self.status == "ranked"


@dataclass
class ClassRun:
    """What a run found and did: every entry, the games, the grades."""

    config: ClassConfig
    db: Path
    entries: list[Entry]
    stray: list[str] = field(default_factory=list)
    validated: int = 0
    """Validations run now (the others were stored)."""
    played: int = 0
    """Games played now (the others were stored)."""
    league_format: str = ""
    rounds: int = 0
    games: dict[str, GameResult] = field(default_factory=dict)
    """Every game of the current entrants and references, by game id."""
    game_rows: dict[str, int] = field(default_factory=dict)
    """Each game id's row number in the database (arena replay DB ID)."""
    anchor_results: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    verdicts: dict[str, BandVerdict] = field(default_factory=dict)
    ratings: dict[str, Any] = field(default_factory=dict)
    league_points: dict[str, float] = field(default_factory=dict)
    league_games: dict[str, int] = field(default_factory=dict)
    byes: dict[str, int] = field(default_factory=dict)
    probes: dict[str, list[int | None]] = field(default_factory=dict)
    source_pairs: list[Any] = field(default_factory=list)
    move_pairs: list[Any] = field(default_factory=list)
    failed_games: int = 0
    cluster: Any = None
    """The config's cluster, connected once for the whole run: (access, client), or None."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds each stage took in this run."""
    stage_games: dict[str, int] = field(default_factory=dict)
    """Games played in this run by stage (anchor, league)."""


def default_db_path(config: ClassConfig) -> Path:
    return Path("results") / f"{config.name}.sqlite"


def snapshot_root(db: Path) -> Path:
    """Where the submissions' snapshots are kept: beside the database, one folder per content hash."""
    return db.with_name(db.stem + ".submissions")


def _slug(folder: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.+-]+", "-", folder).strip("-.")[:40]
    return slug if slug[:1].isalnum() else f"s{slug}"


def engine_name(entry: Entry) -> str:
    assert entry.hash is not None
    return f"{_slug(entry.student.folder)}.{entry.hash[:8]}"


def reference_key(name: str, spec: EngineSpec) -> str:
    sha = file_sha256(spec.program) if spec.program else None
    return f"{name}-{(sha or 'builtin')[:8]}"


# --- stage 1: intake and the deadline ---------------------------------------------------------------


def take_in(config: ClassConfig, book: ClassBook, db: Path, freeze: bool, show: Show) -> ClassRun:
    students, stray = students_of(config)
    entries: list[Entry] = []
    root = snapshot_root(db)
    for student in students:
        submission = intake(config, student)
        if submission.hash is not None and submission.status in ("ok", "failed"):
            book.record_submission(config.name, student.folder, submission.hash, submission.status,
                                   submission.reason, submission.files, submission.bytes)
            snapshot(config, submission, root)
        status = {"ok": "not validated"}.get(submission.status, submission.status)
        entries.append(Entry(student, submission, status, submission.reason,
                             submission.hash if submission.status in ("ok", "failed") else None))
    run = ClassRun(config, db, entries, stray)
    now = datetime.now(timezone.utc)
    if freeze or (config.deadline is not None and now >= config.deadline):
        if book.frozen(config.name) is None:
            book.freeze(config.name, {e.student.folder: e.hash for e in entries if e.hash is not None})
            show(f"submissions frozen now ({'--freeze' if freeze else 'the deadline has passed'}): later "
                 "changes are recorded and not graded")
        frozen = book.frozen(config.name) or {}
        for entry in entries:
            _apply_freeze(config, book, entry, frozen.get(entry.student.folder))
    for entry in entries:
        if entry.hash is not None and entry.status in ("not validated", "failed"):
            entry.folder = root / entry.hash[:16]
            entry.key = entry.hash[:12]
    _make_engines(config, [e for e in entries if e.status == "not validated"])
    return run


def _apply_freeze(config: ClassConfig, book: ClassBook, entry: Entry, frozen: str | None) -> None:
    """After the freeze, a student is graded on the submission frozen then."""
    current = entry.hash
    if frozen is None:
        if current is not None or entry.status not in ("missing",):
            entry.status, entry.reason, entry.hash = "late", "submitted after the deadline; not graded", None
        return
    if current == frozen:
        return
    entry.note = ("changed after the deadline: the submission frozen then is graded" if current is not None
                  else "removed or broken after the deadline: the submission frozen then is graded")
    seen = {row["hash"]: row for row in book.submissions_seen(config.name, entry.student.folder)}
    row = seen.get(frozen)
    entry.hash = frozen
    if row is None:
        entry.status, entry.reason = "refused", "the frozen submission is not in the database"
    else:
        entry.status = "not validated" if row["status"] == "ok" else str(row["status"])
        entry.reason = str(row["reason"])


def _make_engines(config: ClassConfig, entries: list[Entry]) -> None:
    """Each submission's engine, run from its snapshot; one whose layout is refused is refused alone."""
    from harness.errors import HarnessError

    made: list[Entry] = []
    for entry in entries:
        assert entry.folder is not None
        try:
            entry.engine = command_engine(program_command(config, entry.folder), name=engine_name(entry))
        except HarnessError as error:
            entry.status, entry.reason = "refused", visible(str(error))
            continue
        made.append(entry)
    problems = dict(layout_problems([e.engine for e in made if e.engine is not None]))
    for index, entry in enumerate(made):
        if index in problems:
            entry.status, entry.reason, entry.engine = "refused", visible(problems[index]), None


# --- stage 2: validation ---------------------------------------------------------------------------


def validate_all(run: ClassRun, book: ClassBook, confined: bool, progress: bool, show: Show,
                 warn: Show = lambda text: None) -> None:
    """Validate every submission not validated before under these settings (stored as each ends)."""
    from harness.progress import bar as progress_bar
    from harness.validate.validator import ValidationSettings

    config = run.config
    key = config.validation_key()
    todo: list[Entry] = []
    for entry in run.entries:
        if entry.status != "not validated" or entry.hash is None:
            continue
        stored = book.validation(entry.student.folder, entry.hash, key)
        if stored is not None:
            entry.validation = stored
        else:
            todo.append(entry)
    settings = ValidationSettings(
        config.settings, sizes=config.validation_sizes, games=config.validation_games,
        quick=config.validation_quick, concurrency=2, sandbox=confined,
        file_bytes=config.max_file_mb << 20, processes=config.max_processes)
    if todo:
        show(f"validating {len(todo)} submission{'s' if len(todo) != 1 else ''} "
             f"({sum(e.validation is not None for e in run.entries)} stored)")
        bar = progress_bar(len(todo), "validating", "program", progress)
        workers = max(1, min(len(todo), config.concurrency // 2 or 1))

        def one(entry: Entry) -> tuple[Entry, dict[str, Any]]:
            assert entry.engine is not None and entry.hash is not None
            return entry, _validate_one(entry, settings)

        def done(entry: Entry, report: dict[str, Any]) -> None:
            assert entry.hash is not None
            book.save_validation(entry.student.folder, entry.hash, key, report)
            entry.validation = report
            run.validated += 1
            bar.update(1)

        try:
            if run.cluster is not None:
                _validate_on_cluster(run.cluster[1], config, todo, settings, done, warn)
            else:
                with ThreadPoolExecutor(max_workers=workers) as pool:
                    for entry, report in pool.map(one, todo):
                        done(entry, report)
        finally:
            bar.close()
    for entry in run.entries:
        if entry.status != "not validated" or entry.validation is None:
            continue
        found = entry.validation["categories"]
        if config.required is None:  # the validator's own verdict
            failing = [] if entry.validation.get("passed") is True else [
                name for name, category in found.items() if category.get("role") == "required"
                and category.get("passed") is not True] or ["the validation"]
        else:
            failing = [name for name in config.required if found.get(name, {}).get("passed") is not True]
        if failing:
            entry.status = "failed"
            verdict = str(entry.validation.get("verdict", ""))
            entry.reason = (verdict.removeprefix("FAIL: ") if verdict.startswith("FAIL: ")
                            else f"{', '.join(failing)} not passed (required by the class)")
        else:
            entry.status = "ranked"


def _validate_one(entry: Entry, settings: Any) -> dict[str, Any]:
    """One submission's validation report as JSON, its program shown relative to its folder."""
    assert entry.engine is not None
    data: dict[str, Any] = json.loads(_private_paths_out(json.dumps(_report(entry.student.folder, entry.engine,
                                                                            settings)), entry))
    return data


def _report(folder: str, engine: EngineSpec, settings: Any) -> dict[str, Any]:
    """The validation of ``engine`` by its game's validator, as JSON, the program named ``folder/file``."""
    program = f"{folder}/{Path(engine.program or '').name}"
    if settings.play.rules.own_validation:
        from harness.validate.kings_horses import validate_kings_horses

        return validate_kings_horses(program, engine, settings).to_json()
    from harness.validate.validator import validate

    return validate(program, engine, settings).to_json()


def _validate_on_cluster(client: Any, config: ClassConfig, todo: list[Entry], settings: Any,
                         done: Callable[[Entry, dict[str, Any]], None], show: Show) -> None:
    """Each validation a task of the config's dask cluster (the snapshots at the same path there, as
    a shared folder or this machine's local:K): the worker checks the program's SHA-256, resolves its
    sandbox, validates, and replies with the report as JSON bytes (plain data, never a pickle)."""
    from distributed import as_completed

    futures: dict[Any, Entry] = {}
    for entry in todo:
        assert entry.engine is not None
        expected = file_sha256(entry.engine.program)
        future = client.submit(validate_checked, entry.student.folder, entry.engine, settings, config.sandbox,
                               expected, pure=False)
        futures[future] = entry
    for future in as_completed(list(futures), loop=client.loop):  # type: ignore[no-untyped-call]
        entry = futures[future]
        try:
            reply = json.loads(future.result())
        except Exception as error:  # a worker lost: this submission is validated by the next run
            show(f"{entry.student.folder}: not validated ({type(error).__name__}); rerun to retry")
            continue
        if not isinstance(reply, dict) or not isinstance(reply.get("report"), dict):
            why = reply.get("failure") if isinstance(reply, dict) else "a reply that is no report"
            show(f"{entry.student.folder}: not validated on the cluster: {visible(str(why))}; rerun to retry")
            continue
        report = reply["report"]
        if not isinstance(report.get("categories"), dict) or not isinstance(report.get("verdict"), str):
            show(f"{entry.student.folder}: the cluster's report is malformed; rerun to retry")
            continue
        done(entry, json.loads(_private_paths_out(json.dumps(report), entry)))


def validate_checked(folder: str, engine: EngineSpec, settings: Any, mode: Any, expected: str | None) -> bytes:
    """One validation on a worker: the program's file checked against the coordinator's hash, the
    sandbox resolved here. JSON bytes: the report, or why there is none."""
    try:
        found = file_sha256(engine.program)
        if found != expected:
            return json.dumps({"failure": f"{folder}: the program here differs from the coordinator's "
                                          f"(SHA-256 {str(found)[:12]}, expected {str(expected)[:12]})"}).encode()
        confined, _ = sandbox.resolve(mode)
        return json.dumps({"report": _report(folder, engine, replace(settings, sandbox=confined))}).encode()
    except Exception as error:  # said in one line, never raised to be pickled
        return json.dumps({"failure": f"{folder}: {type(error).__name__}: {error}"}).encode()


def _private_paths_out(text: str, entry: Entry) -> str:
    """The report without the machine's paths: the snapshot folder is the student's folder."""
    if entry.folder is not None:
        text = text.replace(json.dumps(str(entry.folder))[1:-1], entry.student.folder)
    return text


# --- the games ---------------------------------------------------------------------------------------


class Games:
    """Plays and stores the class's games: one tournament of the database per play settings."""

    def __init__(self, run: ClassRun, store: Store, confined: bool, progress: bool) -> None:
        self.run = run
        self.store = store
        self.confined = confined
        self.progress = progress
        config = run.config
        fingerprint = {"class": config.name, "size": config.size, **config.play_key()}
        self.specs: dict[str, EngineSpec] = {}
        self.keys: dict[str, str] = {}
        """Participant key -> engine name."""
        self.fixed: dict[str, float] = {}
        """Each reference's key -> its fixed Elo."""
        for name, elo in config.references.items():
            spec = builtin_engine(name)
            key = reference_key(name, spec)
            self.specs[name] = spec
            self.keys[key] = name
            self.fixed[key] = elo
        for entry in run.entries:
            if entry.in_league and entry.key not in self.keys:
                assert entry.engine is not None
                self.specs[entry.engine.name] = entry.engine
                self.keys[entry.key] = entry.engine.name
        self.tournament = store.ensure_tournament(f"class-{config.name}", fingerprint, [
            {"name": name, "command": spec.display_command, "program": spec.program,
             "sha256": file_sha256(spec.program) if spec.program else None} for name, spec in self.specs.items()],
            str(config.path.resolve()))
        self.done: dict[str, Any] = {stored.game_id: stored for stored in store.games(self.tournament)}
        self.rows = {row.key: row.id for row in store.game_rows(self.tournament)}

    def opening(self, index: int) -> tuple[str, str]:
        config = self.run.config
        opening = random_opening(config.rules, config.size, config.openings_plies, config.openings_seed, index)
        return opening.board, opening.player

    def pair(self, stage: str, a: str, b: str, index: int) -> list[ScheduledGame]:
        """The two games (colours swapped) of one pairing of keys ``a``, ``b`` from opening ``index``."""
        if stage == "league":  # one id for a pairing, whichever side the pairing named first
            a, b = sorted((a, b))
        board, player = self.opening(index)
        size = self.run.config.size
        pair_key = f"{stage}:{size}:{a}:{b}:{index + 1}"
        return [ScheduledGame(f"{pair_key}:a", pair_key, size, index + 1, self.keys[a], self.keys[b], board, player),
                ScheduledGame(f"{pair_key}:b", pair_key, size, index + 1, self.keys[b], self.keys[a], board, player)]

    def result(self, game_id: str) -> float | None:
        """Blue's points in a stored game, or None if it is not played yet."""
        stored = self.done.get(game_id)
        return None if stored is None else score_for_x(stored.result)

    def play(self, games: Sequence[ScheduledGame], what: str) -> None:
        """Play the games not stored yet; each is stored as it ends."""
        todo = [g for g in dict.fromkeys(games) if g.game_id not in self.done]
        if not todo:
            return
        from harness.progress import bar as progress_bar

        config = self.run.config
        bar = progress_bar(len(todo), what, "game", self.progress)

        def finished(scheduled: ScheduledGame, record: GameRecord) -> None:
            row = self.store.save_record(self.tournament, scheduled.game_id, scheduled.pair_key, scheduled.round, record)
            if row is not None:
                self.rows[scheduled.game_id] = row
            self.done[scheduled.game_id] = _stored(scheduled, record)
            self.run.played += 1
            bar.update(1)

        def failed(scheduled: ScheduledGame, why: str) -> None:
            self.run.failed_games += 1
            log.error("game %s not played: %s; a rerun retries it", scheduled.game_id, why)

        def warn(message: str) -> None:
            log.warning("%s", message)

        job = Job(config.settings, config.sandbox, config.max_file_mb << 20, config.max_processes, ())
        try:
            if self.run.cluster is not None:
                from harness.tournament import cluster as cluster

                access, client = self.run.cluster
                specs = {name: self.specs[name] for name in {g.x for g in todo} | {g.o for g in todo}}
                job = replace(job, hashes=cluster.expected_hashes(list(specs.values())))
                cluster.play_on_cluster(access, todo, specs, job, finished, failed, warn, client)
            else:
                play_locally(todo, self.specs, job, self.confined, config.concurrency, finished, failed, warn)
        finally:
            bar.close()


@dataclass(frozen=True)
class _Played:
    game_id: str
    result: str


def _stored(scheduled: ScheduledGame, record: GameRecord) -> Any:
    return _Played(scheduled.game_id, record.result)


# --- stage 4: anchor games and bands ---------------------------------------------------------------------


def grade_bands(config: ClassConfig) -> list[GradeBand]:
    return [GradeBand(band.name, band.floor, band.points) for band in config.bands]


def play_anchors(run: ClassRun, games: Games) -> None:
    """Each entrant against the references, pair after pair, until its band is decided or the budget
    spent: the sequence is a function of the stored results, so a rerun retraces it and goes on."""
    config = run.config
    bands = grade_bands(config)
    references = games.fixed
    elo_of_name = {games.keys[key]: elo for key, elo in references.items()}
    in_order = sorted(references, key=lambda key: references[key])
    entrants = sorted({e.key for e in run.entries if e.in_league})
    state: dict[str, tuple[list[tuple[float, float]], dict[str, int]]] = {k: ([], {}) for k in entrants}
    while True:
        wave: list[ScheduledGame] = []
        for key in entrants:
            results, counts = state[key]
            while True:
                verdict = band_verdict(results, bands, error=config.error, indifference=config.indifference,
                                       budget=config.budget)
                run.verdicts[key] = verdict
                if verdict.state != "playing":
                    break
                chosen = set(next_opponents(verdict, elo_of_name))
                opponents = [k for k in in_order if games.keys[k] in chosen]
                if not opponents:  # no reference bounds an open band: nothing more to learn here
                    break
                batch = [(ref, games.pair("anchor", key, ref, counts.get(ref, 0))) for ref in opponents]
                if all(all(games.result(g.game_id) is not None for g in pair) for _, pair in batch):
                    for ref, pair in batch:
                        counts[ref] = counts.get(ref, 0) + 1
                        first = games.result(pair[0].game_id)
                        second = games.result(pair[1].game_id)
                        assert first is not None and second is not None
                        results += [(references[ref], first), (references[ref], 1 - second)]
                    continue
                wave += [g for _, pair in batch for g in pair]
                break
        if not wave:
            break
        games.play(wave, "anchor games")
        if any(g.game_id not in games.done for g in wave):  # a game the executor could not play
            break
    run.anchor_results = {key: state[key][0] for key in entrants}


# --- stage 5: the league ----------------------------------------------------------------------------


def league_format(config: ClassConfig, entrants: int) -> str:
    if config.league_format != "auto":
        return config.league_format
    return "round-robin" if entrants <= config.round_robin_up_to else "swiss"


def swiss_rounds(config: ClassConfig, entrants: int) -> int:
    if entrants < 2:
        return 0
    return min(config.rounds or math.ceil(math.log2(entrants)) + 2, entrants - 1)


def play_league(run: ClassRun, games: Games, book: ClassBook) -> None:
    config = run.config
    entrants = sorted({e.key for e in run.entries if e.in_league})
    run.league_format = league_format(config, len(entrants))
    points = {key: 0.0 for key in entrants}
    played = {key: 0 for key in entrants}

    def count(pair: list[ScheduledGame], a: str, b: str) -> None:
        first, second = games.result(pair[0].game_id), games.result(pair[1].game_id)
        if first is None or second is None:
            return
        points[a] += first + (1 - second)
        points[b] += (1 - first) + second
        played[a] += 2
        played[b] += 2

    if run.league_format == "round-robin":
        run.rounds = config.rounds or 1
        pairs = [(a, b) for i, a in enumerate(entrants) for b in entrants[i + 1:]]
        scheduled = {(a, b, r): games.pair("league", a, b, r) for a, b in pairs for r in range(run.rounds)}
        games.play([g for pair in scheduled.values() for g in pair], "league games")
        for (a, b, _), pair in scheduled.items():
            count(pair, a, b)
    elif run.league_format == "swiss":
        _play_swiss(run, games, book, entrants, points, played, count)
    run.league_points = points
    run.league_games = played


def _play_swiss(run: ClassRun, games: Games, book: ClassBook, entrants: list[str], points: dict[str, float],
                played: dict[str, int], count: Callable[[list[ScheduledGame], str, str], None]) -> None:
    """Round by round: each round paired (harness.course.swiss) from the standings after the one before,
    the pairings stored, so a rerun plays the same league. A league is its entrants' snapshot: when the
    entrants change (a resubmission before the deadline), a new league is paired from round 1, and every
    game it shares with the old one (same two programs, same opening) is not played again."""
    from harness.course.swiss import Entrant, SwissExhausted, pair_round

    config = run.config
    league = hashlib.sha256(json.dumps([entrants, config.play_key(), config.size]).encode()).hexdigest()[:16]
    run.rounds = swiss_rounds(config, len(entrants))
    seeds = _seed_ratings(run, entrants)
    opponents: dict[str, set[str]] = {key: set() for key in entrants}
    byes = {key: 0 for key in entrants}
    stored = book.swiss_rounds(league)
    for round_number in range(1, run.rounds + 1):
        pairs = stored.get(round_number)
        if pairs is None:
            field_ = [Entrant(key, points[key], seeds.get(key, 0.0), frozenset(opponents[key]), byes[key])
                      for key in entrants]
            try:
                paired, bye = pair_round(field_)
            except SwissExhausted:
                run.rounds = round_number - 1
                break
            pairs = list(paired) + ([(bye, "")] if bye is not None else [])
            book.save_swiss_round(league, round_number, pairs)
        scheduled = [(a, b, games.pair("league", a, b, round_number - 1)) for a, b in pairs if b]
        games.play([g for _, _, pair in scheduled for g in pair], f"Swiss round {round_number}/{run.rounds}")
        for a, b, pair in scheduled:
            count(pair, a, b)
            opponents[a].add(b)
            opponents[b].add(a)
        for a, b in pairs:
            if not b:
                byes[a] += 1
                points[a] += 1.0  # a bye counts as a drawn pair: it neither lifts nor sinks
        if any(g.game_id not in games.done for _, _, pair in scheduled for g in pair):
            run.rounds = round_number  # a game could not be played: later rounds wait for a rerun
            break
    run.byes = byes


def _seed_ratings(run: ClassRun, entrants: list[str]) -> dict[str, float]:
    """The Swiss league's seeding: each entrant's Elo from its anchor games alone."""
    results = [GameResult(key, ref, score) for key in entrants
               for (ref, score) in ((f"ref{elo:g}", s) for elo, s in run.anchor_results.get(key, []))]
    fixed = {f"ref{elo:g}": elo for elo in run.config.references.values()}
    ratings = anchored_ratings(results, fixed)
    return {key: ratings[key].elo if key in ratings else 0.0 for key in entrants}


# --- stage 6: grades -----------------------------------------------------------------------------------


def rate(run: ClassRun, games: Games) -> None:
    """Elo anchored on the references from every game of the current entrants (anchor and league)."""
    config = run.config
    fixed = games.fixed
    keys = {e.key for e in run.entries if e.in_league}
    allowed = keys | set(fixed)
    for game_id, stored in games.done.items():
        parts = game_id.split(":")
        if len(parts) != 6 or parts[1] != config.size or parts[5] not in ("a", "b"):
            continue
        a, b = parts[2], parts[3]
        if a == b or not {a, b} <= allowed or not {a, b} & keys:
            continue
        x, o = (a, b) if parts[5] == "a" else (b, a)
        run.games[game_id] = GameResult(x, o, score_for_x(stored.result), ":".join(parts[:5]))
    run.ratings = anchored_ratings(list(run.games.values()), fixed, free=sorted(keys))
    run.game_rows = {game_id: row for game_id, row in games.rows.items() if game_id in run.games}


def ranked(run: ClassRun) -> list[Entry]:
    """The ranked entries, best first: league points, then Elo, then folder name."""
    def order(entry: Entry) -> tuple[float, float, str]:
        rating = run.ratings.get(entry.key)
        return (-run.league_points.get(entry.key, 0.0), -(rating.elo if rating else 0.0), entry.student.folder)

    return sorted((e for e in run.entries if e.in_league), key=order)


def points_of(run: ClassRun, entry: Entry) -> float:
    """Points by the scheme: the band's points; a failed program gets ``failed_points``; an undecided
    band the lower band's points (staff decide); no program, none."""
    config = run.config
    if entry.status == "failed":
        return config.failed_points
    if not entry.in_league:
        return 0.0
    verdict = run.verdicts.get(entry.key)
    if verdict is None:
        return 0.0
    name = verdict.band if verdict.band is not None else (verdict.possible[0] if verdict.possible else None)
    return next((band.points for band in config.bands if band.name == name), 0.0)


# --- stage 3 and similarity ----------------------------------------------------------------------------


def probe_moves(run: ClassRun, book: ClassBook, confined: bool, progress: bool) -> None:
    """Each validated program's move in the fixed probe positions (stored by hash)."""
    from harness.course.similarity import probe_positions
    from harness.progress import bar as progress_bar
    from harness.referee.referee import Limits, ask

    config = run.config
    if config.probe_positions == 0:
        return
    positions = probe_positions(config.rules, config.size, config.probe_positions, config.openings_seed)
    key = hashlib.sha256(json.dumps([[p.size_text, p.player, p.board()] for p in positions]
                                    + [config.play_key()]).encode()).hexdigest()[:16]
    limits = Limits(sandbox=confined, file_bytes=config.max_file_mb << 20, processes=config.max_processes)
    todo: list[tuple[Entry, int]] = []
    for entry in run.entries:
        if entry.engine is None or entry.hash is None or entry.validation is None:
            continue
        stored = book.probes(entry.hash, key)
        run.probes[entry.student.folder] = [stored.get(i) for i in range(len(positions))]
        todo += [(entry, i) for i in range(len(positions)) if i not in stored]
    if not todo:
        return
    bar = progress_bar(len(todo), "probes", "move", progress)

    def one(task: tuple[Entry, int]) -> tuple[Entry, int, int | None]:
        entry, index = task
        assert entry.engine is not None
        result = ask(entry.engine.command, positions[index], config.settings.clock, limits)
        return entry, index, result.move if result.ok else None

    asked = Counter(entry.student.folder for entry, _ in todo)
    try:
        by_entry: dict[str, dict[int, int | None]] = {}
        with ThreadPoolExecutor(max_workers=max(1, config.concurrency)) as pool:
            for entry, index, move in pool.map(one, todo):
                by_entry.setdefault(entry.student.folder, {})[index] = move
                run.probes[entry.student.folder][index] = move
                bar.update(1)
                if len(by_entry[entry.student.folder]) == asked[entry.student.folder]:
                    assert entry.hash is not None
                    book.save_probes(entry.hash, key, by_entry[entry.student.folder])
    finally:
        bar.close()


def similarity(run: ClassRun) -> None:
    """Pairs of submissions near identical in source, and pairs that choose the same moves."""
    from harness.course.similarity import SourceMatch, fingerprint_folder, similar_moves, similar_sources

    config = run.config
    prints = {e.student.folder: fingerprint_folder(e.folder) for e in run.entries
              if e.folder is not None and e.folder.is_dir()}
    base = None
    if config.starter is not None:
        base = fingerprint_folder(config.starter if config.starter.is_dir() else config.starter.parent)
    found = similar_sources(prints, config.source_threshold, config.common_share, base=base)
    # The same content hash is the same submission, however small: always a pair to look at.
    flagged = {(pair.a, pair.b) for pair in found}
    hashed = sorted((e.student.folder, e.hash) for e in run.entries if e.hash is not None and e.folder is not None)
    same = [SourceMatch(a, b, 1.0, 1.0, 1.0, 0) for i, (a, ha) in enumerate(hashed) for b, hb in hashed[i + 1:]
            if ha == hb and (a, b) not in flagged and (b, a) not in flagged]
    run.source_pairs = sorted(found + same, key=lambda pair: (-pair.score, pair.a, pair.b))
    answers = {student: moves for student, moves in run.probes.items()}
    run.move_pairs = similar_moves(answers, threshold=config.moves_threshold,
                                   minimum=max(1, min(10, config.probe_positions // 2)))


# --- the whole run --------------------------------------------------------------------------------------


def run_class(config: ClassConfig, db: Path, *, freeze: bool = False, progress: bool = False,
              show: Show = lambda text: None, warn: Show = lambda text: None) -> ClassRun:
    """Every stage, resumably; the database is written as each result comes. ``show``: what each stage
    is doing, for the operator; ``warn``: what the operator should act on."""
    confined, warning = sandbox.resolve(config.sandbox)
    if warning is not None:
        warn(warning)
    store = Store(db, role="arena class")
    with contextlib.ExitStack() as stack:
        stack.callback(store.close)
        book = ClassBook(store)
        started = time.perf_counter()
        run = take_in(config, book, db, freeze, show)
        if config.cluster is not None:
            from harness.tournament import cluster as cluster

            access = cluster.check_access(config.cluster, config.cluster_certs, config.insecure_cluster)
            run.cluster = (access, stack.enter_context(cluster.connect(access)))
        run.timings["intake"] = time.perf_counter() - started
        counts: dict[str, int] = {}
        for entry in run.entries:
            counts[entry.status] = counts.get(entry.status, 0) + 1
        show(f"intake: {len(run.entries)} students: " + ", ".join(
            f"{count} {'with a program to check' if status == 'not validated' else status}"
            for status, count in sorted(counts.items(), key=lambda item: -item[1])))

        def stage(name: str, work: Callable[[], None]) -> None:
            begun, played = time.perf_counter(), run.played
            work()
            run.timings[name] = time.perf_counter() - begun
            run.stage_games[name] = run.played - played

        stage("validation", lambda: validate_all(run, book, confined, progress, show, warn))
        stage("probes", lambda: probe_moves(run, book, confined, progress))
        games = Games(run, store, confined, progress)
        entrants = len({e.key for e in run.entries if e.in_league})
        if not entrants:
            show("no program passed the validation: no games to play")
        else:
            show(f"anchor games: {entrants} program{'s' if entrants != 1 else ''} against the references "
                 f"({', '.join(config.references)}) until each band is decided (at most {config.budget} games each)")
        stage("anchors", lambda: play_anchors(run, games))
        form = league_format(config, entrants)
        if entrants:
            show("league: " + {"round-robin": f"a round-robin among {entrants} programs",
                               "swiss": f"a Swiss league of {entrants} programs, {swiss_rounds(config, entrants)} rounds",
                               "gauntlet": "a gauntlet (the anchor games alone)"}[form])
        stage("league", lambda: play_league(run, games, book))
        stage("grades", lambda: rate(run, games))
        stage("similarity", lambda: similarity(run))
        run.cluster = None
        return run
    raise AssertionError("unreachable")
