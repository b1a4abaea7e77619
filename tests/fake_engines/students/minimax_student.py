#!/usr/bin/env python3
"""A two-ply minimax student with an evaluation of its own: pebbles in the top rows, lines it could
still complete, and a bonus for the centre columns. Deterministic: the same position, the same move."""
import sys

from _common import answer, lines, moves, parse, play, winner

WIN = 10000


def line_value(line, me, them):
    """A line still open to one side is worth more the fuller it is."""
    mine = sum(1 for cell in line if cell == me)
    theirs = sum(1 for cell in line if cell == them)
    if mine and theirs:
        return 0
    if mine:
        return 4 ** mine
    if theirs:
        return -(4 ** theirs)
    return 0


def evaluate(n, columns, me):
    them = "o" if me == "x" else "x"
    score = 0
    for line in lines(n, columns):
        score += line_value(line, me, them)
    for index, column in enumerate(columns):
        weight = n // 2 - abs(index - n // 2)
        for height, cell in enumerate(column):
            if height >= 3:
                score += weight if cell == me else -weight
    return score


def reply_value(n, columns, me, them):
    """The opponent's best reply, seen from me: the worst value it leaves me."""
    drops, rotations = moves(n, them, columns)
    worst = WIN
    for reply in drops + rotations:
        after = play(n, them, columns, reply)
        who = winner(n, after, them)
        if who == them:
            return -WIN
        if who == me:
            continue
        worst = min(worst, evaluate(n, after, me))
    return worst


def choose(n, me, columns):
    them = "o" if me == "x" else "x"
    drops, rotations = moves(n, me, columns)
    best_move, best_value = None, -WIN - 1
    for move in drops + rotations:
        after = play(n, me, columns, move)
        who = winner(n, after, me)
        if who == me:
            return move
        value = -WIN if who == them else reply_value(n, after, me, them)
        if value > best_value:
            best_move, best_value = move, value
    return best_move


n, player, columns, _ = parse(sys.argv)
best = choose(n, player, columns)
answer(n, best, play(n, player, columns, best))
