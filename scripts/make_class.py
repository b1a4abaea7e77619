#!/usr/bin/env python3
"""Write a class folder as a course platform's download gives it: one folder per student.

    scripts/make_class.py DEST [--game betsy|connect4|kings-horses] [--students N] [--roster FILE]

The students are the sample programs of tests/fake_engines (self-contained, no project imports), of
mixed quality: sound one-ply players, random movers, a program that breaks a rule, one that crashes,
a Python 2 program, an exact copy and a near copy (identifiers renamed, comments rewritten), and a folder
without the program. With --students N, more sound programs are added under numbered names until there
are N folders (for benchmarks). --roster also writes a roster CSV (id,name,folder), with one student on
it who submitted nothing. DEST must not exist yet, or be empty.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "tests" / "fake_engines"
PROGRAM = {"betsy": "betsy.py", "connect4": "connect4.py", "kings-horses": "bestmove.py"}

BETSY = [  # (student, program file under fake_engines, how it is changed)
    ("ada", "students/minimax_student.py", None),
    ("ben", "students/random_legal.py", None),
    ("cat", "students/minimax_student.py", "rename"),
    ("dan", "python2_print.py", None),
    ("eve", "crashes_without_answer.py", None),
    ("fay", "students/ignores_supply.py", None),
    ("gus", "students/rotates_wrong_way.py", None),
    ("hal", "students/last_pebble_off_by_one.py", None),
    ("ivy", "students/hardcoded_n5.py", None),
    ("jon", "students/uses_half_its_time.py", None),
    ("kim", "students/random_legal.py", None),
    ("lea", None, None),
    ("max", "students/slow_as_o.py", None),
    ("ned", "students/greedy_student.py", None),
]
CONNECT4 = [
    ("ada", "students_connect4/wins_and_blocks.py", None),
    ("ben", "students_connect4/random_legal.py", None),
    ("cat", "students_connect4/wins_and_blocks.py", "rename"),
    ("dan", "python2_print.py", None),
    ("eve", "crashes_without_answer.py", None),
    ("fay", "students_connect4/plays_full_columns.py", None),
    ("gus", "students_connect4/flipped_board.py", None),
    ("hal", "students_connect4/ignores_wins.py", None),
    ("kim", "students_connect4/random_legal.py", None),
    ("lea", None, None),
]
KINGS_HORSES = [
    ("ada", "students_kings_horses/plain_minimax/bestmove.py", None),
    ("ben", "students_kings_horses/colours_swapped/bestmove.py", None),
    ("cat", "students_kings_horses/plain_minimax/bestmove.py", "rename"),
    ("dan", "python2_print.py", None),
    ("eve", "crashes_without_answer.py", None),
    ("fay", "students_kings_horses/occupied_ok/bestmove.py", None),
    ("gus", "students_kings_horses/debug_output/bestmove.py", None),
    ("kim", "students_kings_horses/plain_minimax/bestmove.py", None),
    ("lea", None, None),
]
SOUND = {"betsy": ["students/greedy_student.py", "students/random_legal.py", "students/minimax_student.py"],
         "connect4": ["students_connect4/wins_and_blocks.py", "students_connect4/random_legal.py"],
         "kings-horses": ["students_kings_horses/plain_minimax/bestmove.py"]}


def renamed(source: str) -> str:
    """A near copy: every name of the program's own renamed, comments and docstrings rewritten, blank
    lines added; what it does is unchanged."""
    names = {"best": "chosen_move", "drops": "drop_list", "rotations": "rot_list", "columns": "cols",
             "player": "side", "column": "col", "rows": "grid", "width": "w", "height": "h", "evaluate": "score_of",
             "line_value": "worth", "reply_value": "their_best", "worst": "lowest", "after": "nxt"}
    out = []
    for line in source.splitlines():
        if line.lstrip().startswith('"""') and line.rstrip().endswith('"""') and len(line.strip()) > 6:
            out.append(line[:len(line) - len(line.lstrip())] + '"""My own words here."""')
            continue
        for old, new in names.items():
            line = re.sub(rf"\b{old}\b", new, line)
        out.append(line)
        if line.startswith(("import", "from")):
            out.append("")
    return "\n".join(out) + "\n# end of my program\n"


def write_student(dest: Path, game: str, student: str, program: str | None, change: str | None) -> None:
    folder = dest / student
    folder.mkdir(parents=True)
    if program is None:
        (folder / "main.py").write_text("print('I forgot to rename my file')\n")
        return
    source_path = HERE / program
    text = source_path.read_text()
    (folder / PROGRAM[game]).write_text(renamed(text) if change == "rename" else text)
    common = source_path.parent / "_common.py"
    if common.exists():
        shutil.copyfile(common, folder / "_common.py")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--game", choices=sorted(PROGRAM), default="betsy")
    parser.add_argument("--students", type=int, default=0, help="Add sound programs until there are N folders.")
    parser.add_argument("--roster", type=Path, help="Also write a roster CSV here.")
    parser.add_argument("--only-sound", action="store_true", help="Only sound programs (for benchmarks).")
    args = parser.parse_args(argv)
    if args.dest.exists() and any(args.dest.iterdir()):
        print(f"make_class: {args.dest} is not empty; give a new folder", file=sys.stderr)
        return 2
    table = {"betsy": BETSY, "connect4": CONNECT4, "kings-horses": KINGS_HORSES}[args.game]
    students = [] if args.only_sound else list(table)
    sound = SOUND[args.game]
    index = 1
    while len(students) < args.students:
        students.append((f"s{index:03d}", sound[index % len(sound)], None))
        index += 1
    for student, program, change in students:
        write_student(args.dest, args.game, student, program, change)
        if change is None and program is not None and student.startswith("s"):  # a submission of its own
            with open(args.dest / student / PROGRAM[args.game], "a") as file:
                file.write(f"# submitted by {student}\n")
    if args.roster is not None:
        lines = ["id,name,folder"] + [f"{1000 + i},Student {s.upper()},{s}" for i, (s, _, _) in enumerate(students)]
        lines.append(f"{1000 + len(students)},Student ZOE,zoe")
        args.roster.write_text("\n".join(lines) + "\n")
    print(f"{len(students)} student folders in {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
