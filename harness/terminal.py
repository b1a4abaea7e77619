"""Terminal helpers for the interactive commands (``arena replay``, ``arena play``): keys read one at
a time in cbreak mode, colour only where the terminal has it."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

KEYS = {
    "\r": "next", "\n": "next", " ": "next", "n": "next", "\x1b[C": "next", "\x1bOC": "next",
    "\x7f": "back", "\x08": "back", "p": "back", "b": "back", "\x1b[D": "back", "\x1bOD": "back",
    "\x1b[H": "first", "\x1bOH": "first", "\x1b[1~": "first", "g": "first",
    "\x1b[F": "last", "\x1bOF": "last", "\x1b[4~": "last", "G": "last",
    "q": "quit", "\x03": "quit", "\x04": "quit", "\x1b": "quit",
}
"""Key sequences (arrows in both cursor modes) and what they do in a replay."""


def use_colour(stream: object = None) -> bool:
    """Colour only on a terminal that has it, and never with NO_COLOR set (no-color.org)."""
    out = stream if stream is not None else sys.stdout
    isatty = getattr(out, "isatty", None)
    if os.environ.get("NO_COLOR") or not (isatty and isatty()):
        return False
    return os.environ.get("TERM", "dumb") not in ("dumb", "")


@contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """Keys arrive one at a time, not echoed; the terminal is restored however the block ends."""
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def read_key(fd: int) -> str:
    """One key press: a character, or a whole escape sequence (an arrow key)."""
    import select

    first = os.read(fd, 1).decode("utf-8", "replace")
    if first != "\x1b":
        return first
    sequence = first
    while select.select([fd], [], [], 0.05)[0]:
        sequence += os.read(fd, 1).decode("utf-8", "replace")
        if sequence[-1].isalpha() or sequence[-1] == "~":
            break
    return sequence


def step_through(heading: str, pages: list[str], footer: str) -> None:
    """Show one page at a time; keys move between them (KEYS); ends on q or after the last page."""
    fd = sys.stdin.fileno()
    index = 0
    clear = "\x1b[H\x1b[2J"
    help_line = "Enter/-> next   <-/Backspace back   Home/End first/last   q quit"
    with cbreak(fd):
        while True:
            last = index == len(pages) - 1
            sys.stdout.write(f"{clear}{heading}\n\n{pages[index]}\n\n" + (f"{footer}\n" if last else "")
                             + f"[{index + 1}/{len(pages)}] {help_line}\n")
            sys.stdout.flush()
            action = KEYS.get(read_key(fd))
            if action == "quit" or (action == "next" and last):
                return
            if action == "next":
                index += 1
            elif action == "back":
                index = max(0, index - 1)
            elif action == "first":
                index = 0
            elif action == "last":
                index = len(pages) - 1
