"""A hostile dask worker: a preload (``dask worker --preload THIS``) for a worker that holds the
cluster's certificates but lies about the games it is given.

It replaces the harness's game task with one that plays nothing honestly and returns, call after
call, the forgeries named in $ARENA_FORGE (comma-separated, the last one repeated):
  pickle        a pickle whose loading writes $ARENA_FORGE_MARK (code run wherever it is read)
  no-moves      a record with no moves that says "x wins by a line"
  flipped       the real game with its result, winner and reason turned around
  other-engine  the real game with x's name changed to another engine's
  wrong-hashes  the real game with program hashes that are not the coordinator's
Each call appends "ADDRESS KIND" to $ARENA_FORGE_NOTE, so the test knows it was given games.
"""
from __future__ import annotations

import itertools
import json
import os
import pickle
import threading
from typing import Any

from distributed.protocol.serialize import Serialized

import harness.tournament.cluster as cluster

_LOCK = threading.Lock()


class PickleBomb:
    """Unpickling this runs a command: what a worker's pickled reply could do to the coordinator."""

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        mark = os.environ.get("ARENA_FORGE_MARK", "/nonexistent/forge-mark")
        return os.system, (f"echo ran in pid $$ >> {mark}",)


def _forge(kind: str, honest: bytes) -> Any:
    if kind == "pickle":  # sent as pickle whatever the coordinator asked for, as a modified worker could
        return Serialized({"serializer": "pickle", "writeable": ()}, [pickle.dumps(PickleBomb())])
    reply = json.loads(honest)
    record = reply["record"]
    if kind == "no-moves":
        record.update(moves=[], plies=0, result="1-0", winner="x", termination="line", reason="x wins by a line",
                      fault=None)
    elif kind == "flipped":
        flip = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}
        record["result"] = flip[record["result"]]
        record["winner"] = {"1-0": "x", "0-1": "o"}[record["result"]]
        record["reason"] = f"{record['winner']} wins by a line"
    elif kind == "other-engine":
        record["x"] = record["o"]
    elif kind == "wrong-hashes":
        reply["hashes"] = {path: "0" * 64 for path in reply["hashes"]}
    return json.dumps(reply).encode()


def dask_setup(worker: Any) -> None:
    kinds = os.environ.get("ARENA_FORGE", "no-moves").split(",")
    sequence = itertools.chain(kinds, itertools.repeat(kinds[-1]))
    honest_game = cluster.play_checked
    note = os.environ.get("ARENA_FORGE_NOTE")

    def forged(game: Any, x: Any, o: Any, job: Any) -> Any:
        with _LOCK:
            kind = next(sequence)
            if note:
                with open(note, "a") as file:
                    file.write(f"{worker.address} {kind}\n")
        return _forge(kind, honest_game(game, x, o, job) if kind != "pickle" else b"")

    cluster.play_checked = forged  # type: ignore[assignment]
