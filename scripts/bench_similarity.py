"""Benchmark similar-submission detection on a synthetic class (harness/course/similarity.py).

Writes CLASS folders into a temporary directory, each one student's ``betsy.py`` of about LINES lines:
a shared skeleton (the starter code every student keeps) and code of its own made of random
statements; every tenth student hands in a disguised copy of the previous one's (identifiers renamed,
comments and blank lines added). Prints (1) the time (wall clock and CPU) to fingerprint every folder, (2) the time of
``similar_sources`` (the class's pairs through the hash index, common code dropped) with the pairs it
flags, and (3) the time to ``compare`` every pair one by one, the plain all-pairs way; then the move
agreement of CLASS programs over 60 probe positions (``probe_positions`` and ``similar_moves``).

Usage: .venv/bin/python scripts/bench_similarity.py [--class-size 200] [--lines 500]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.course.similarity import (  # noqa: E402
    compare, fingerprint_folder, probe_positions, similar_moves, similar_sources,
)
from harness.games.registry import get_game  # noqa: E402

SKELETON = '''import sys


def parse(argv):
    """The position from the command line."""
    n, player, board = int(argv[1]), argv[2], argv[3]
    columns = [[board[row * n + col] for row in range(n + 2, -1, -1) if board[row * n + col] != "."]
               for col in range(n)]
    return n, player, columns


def answer(n, move, columns):
    cells = []
    for row in range(n + 2, -1, -1):
        for col in range(n):
            cells.append(columns[col][row] if row < len(columns[col]) else ".")
    print(move, "".join(cells))
'''


def expression(rng: random.Random) -> str:
    """A random expression of one to five terms."""
    terms = ["a", "b", "c", "7", "len(q)", "z[k]", "abs(d)", "min(a, b)", "q.count(c)", "max(z)", "sum(q[1:])",
             "(a if b else c)", "d.get(k, 0)", "int(c)"]
    return f" {rng.choice('+-*/%&|^')} ".join(rng.choice(terms) for _ in range(rng.randrange(1, 6)))


def student_code(rng: random.Random, lines: int) -> str:
    """Functions of random statements, about ``lines`` lines in all."""
    out: list[str] = []
    while len(out) < lines:
        out.append(f"\n\ndef helper_{len(out)}(a, b, c, d, q, z, k):")
        for _ in range(rng.randrange(6, 20)):
            cmp = rng.choice(["<", ">", "<=", ">=", "==", "!=", "in", "not in"])
            out.extend(rng.choice([
                [f"    a = {expression(rng)}"],
                [f"    if {expression(rng)} {cmp} {expression(rng)}:", f"        return {expression(rng)}"],
                [f"    for i in range({expression(rng)}):", f"        q.append({expression(rng)})"],
                [f"    while {expression(rng)} {cmp} b:", f"        b += {expression(rng)}"],
                [f"    z = [y * {expression(rng)} for y in q if y {cmp} {expression(rng)}]"],
                [f"    d[k] = {expression(rng)}"],
                ["    try:", f"        c = {expression(rng)}", "    except ZeroDivisionError:", "        c = 0"],
            ]))
        out.append("    return a")
    return "\n".join(out) + "\n"


def disguise(source: str) -> str:
    """Identifiers renamed, a comment after every fifth line, a blank line after every seventh."""
    renamed = re.sub(r"\b(a|b|c|d|x|y|t)\b", lambda m: {"a": "alpha", "b": "beta", "c": "gamma", "d": "delta",
                                                       "x": "xs", "y": "it", "t": "tot"}[m.group()], source)
    out = []
    for number, line in enumerate(renamed.splitlines(), 1):
        out.append(line + ("  # tweak" if number % 5 == 0 and line.strip() else ""))
        if number % 7 == 0:
            out.append("")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class-size", type=int, default=200)
    parser.add_argument("--lines", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(41)
    with tempfile.TemporaryDirectory() as scratch:
        folders: dict[str, Path] = {}
        sources: dict[str, str] = {}
        for index in range(args.class_size):
            name = f"student{index:03d}"
            if index % 10 == 9:
                source = disguise(sources[f"student{index - 1:03d}"])
            else:
                source = SKELETON + student_code(rng, args.lines - SKELETON.count("\n"))
            sources[name] = source
            folders[name] = Path(scratch, name)
            folders[name].mkdir()
            (folders[name] / "betsy.py").write_text(source)
        lines = sum(source.count("\n") for source in sources.values()) / len(sources)

        start, cpu = time.perf_counter(), time.process_time()
        prints = {name: fingerprint_folder(folder) for name, folder in folders.items()}
        fingerprinting, fingerprinting_cpu = time.perf_counter() - start, time.process_time() - cpu
        tokens = sum(fingerprint.tokens for fingerprint in prints.values()) / len(prints)
        kept = sum(len(fingerprint.hashes) for fingerprint in prints.values()) / len(prints)

        start, cpu = time.perf_counter(), time.process_time()
        flagged = similar_sources(prints, threshold=0.8)
        indexed, indexed_cpu = time.perf_counter() - start, time.process_time() - cpu

        start, cpu = time.perf_counter(), time.process_time()
        every = [compare(prints[a], prints[b]) for a, b in combinations(sorted(prints), 2)]
        all_pairs, all_pairs_cpu = time.perf_counter() - start, time.process_time() - cpu

    copies = {(f"student{i - 1:03d}", f"student{i:03d}") for i in range(9, args.class_size, 10)}
    print(f"class of {args.class_size} folders, {lines:.0f} lines, {tokens:.0f} tokens, "
          f"{kept:.0f} fingerprints each (mean)")
    print(f"fingerprint every folder: {fingerprinting:.2f} s wall, {fingerprinting_cpu:.2f} s CPU "
          f"({1000 * fingerprinting_cpu / len(prints):.1f} ms CPU a folder)")
    print(f"similar_sources (indexed, common code dropped): {indexed:.2f} s wall, "
          f"{indexed_cpu:.2f} s CPU, {len(flagged)} pairs flagged, "
          f"{len(copies & {(m.a, m.b) for m in flagged})} of {len(copies)} disguised copies among them, "
          f"lowest score {min((m.score for m in flagged), default=0):.2f}")
    unrelated = sorted(match.score for match in every if match.score < 0.8)
    print(f"compare every pair one by one: {all_pairs:.2f} s wall, {all_pairs_cpu:.2f} s CPU for {len(every)} pairs; "
          f"score of the other pairs "
          f"(skeleton not dropped): median {unrelated[len(unrelated) // 2]:.2f}, highest {unrelated[-1]:.2f}")

    rules = get_game("betsy")
    start = time.perf_counter()
    positions = probe_positions(rules, "5", 60, seed=1)
    probing = time.perf_counter() - start
    answers: dict[str, list[int | None]] = {}
    for index in range(args.class_size):
        name = f"student{index:03d}"
        answers[name] = (list(answers[f"student{index - 1:03d}"]) if index % 10 == 9 else
                         [rng.choice(position.legal_moves()) for position in positions])
    start = time.perf_counter()
    moves = similar_moves(answers)
    agreement = time.perf_counter() - start
    print(f"probe_positions betsy n = 5, 60 positions: {probing:.2f} s; similar_moves over "
          f"{len(answers)} programs: {agreement:.2f} s, {len(moves)} pairs flagged "
          f"({len(copies & {(m.a, m.b) for m in moves})} of {len(copies)} copies)")


if __name__ == "__main__":
    main()
