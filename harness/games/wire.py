"""The default answer reader: an engine's answer is its last well-formed ``MOVE BOARD`` line.

Pure functions over the lines a program printed; the referee judges the answer against the rules
afterwards (harness.referee.protocol). A game with another answer form has its own reader beside it
(``harness.games.kings_horses.wire``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# A well-formed answer: two tokens, a signed whole number and a board of . x o. Range, legality and
# board length are judged afterwards, so a wrong board is a board-mismatch rather than "no answer".
_ANSWER = re.compile(r"\s*([+-]?\d+)\s+([.xo]+)\s*")


@dataclass(frozen=True)
class Answer:
    """The engine's answer found in its output."""

    move: int
    """The move as printed."""
    board: str
    """The board as printed."""
    line_number: int
    """1-based index of the answer line among the complete lines read."""
    lines_after: int
    """Non-blank lines printed after the answer (tolerated, reported as a warning)."""
    text: str = ""
    """The answer as printed, where the move is read from it (All The King's Horses)."""


def parse_answer_line(line: str) -> tuple[int, str] | None:
    """``(move, board)`` if ``line`` is a well-formed ``MOVE BOARD`` line, else None."""
    match = _ANSWER.fullmatch(line)
    if match is None:
        return None
    return int(match.group(1)), match.group(2)


def find_answer(lines: Sequence[str]) -> Answer | None:
    """The last well-formed ``MOVE BOARD`` line of ``lines`` (complete lines only), or None."""
    for index in range(len(lines) - 1, -1, -1):
        parsed = parse_answer_line(lines[index])
        if parsed is not None:
            after = sum(1 for line in lines[index + 1:] if line.strip())
            return Answer(parsed[0], parsed[1], index + 1, after)
    return None
