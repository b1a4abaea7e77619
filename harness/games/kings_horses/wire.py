"""All The King's Horses' answer reader: the answer is the next position, not a move."""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.games.errors import PositionError
from harness.games.kings_horses.rules import Position
from harness.games.wire import Answer

_POSITION_LINE = re.compile(r"\s*(BLACK|WHITE)((?:\s+\d{1,7}){8})\s*")
_VERDICT_LINE = re.compile(r"\s*(BLACK|WHITE) WILL WIN\s*")


def find_position_answer(position: Position, lines: Sequence[str]) -> Answer | None:
    """The last line ``PLAYER b1r b1c b2r b2c w1r w1c w2r w2c`` (the next position, the opponent to
    move) as an Answer. Its move is the legal move that gives that position (a side's two knights in
    either order), or 0 when none does -- also when it names the same side to move again; its board
    is the printed eight numbers, and its text the printed line. A verdict line after it is the
    protocol's and not counted as a line after the answer."""
    for index in range(len(lines) - 1, -1, -1):
        match = _POSITION_LINE.fullmatch(lines[index])
        if match is None:
            continue
        words = [match.group(1), *match.group(2).split()]
        after = [line for line in lines[index + 1:] if line.strip()]
        if after and _VERDICT_LINE.fullmatch(after[0]):
            after = after[1:]
        move = 0
        try:
            printed: Position | None = Position.from_words(words)
        except PositionError:
            printed = None
        if printed is not None and printed.turn != position.turn:
            found = position.move_to(printed)
            move = found if found is not None else 0
        board = printed.board() if printed is not None else ",".join(words[1:])
        return Answer(move, board, index + 1, len(after), " ".join(words))
    return None
