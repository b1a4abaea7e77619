"""Iterative-deepening negamax alpha-beta with principal-variation search, for any two-player game
that implements the small ``Game`` protocol (engines/search/game.py).

- Transposition table keyed by the game's exact position key, with depth-preferred replacement and
  win/loss scores stored relative to the node.
- Move ordering: table move, immediate wins (found by a pre-scan at interior nodes), forced blocks
  (when the opponent threatens to win at once, only the moves that stop it are searched), killer
  moves (two per ply) and the history heuristic.
- Threat detection at the horizon: a leaf whose side to move has a winning move scores as that win.
- A position repeated on the search path scores as a draw; any score that depended on such a draw
  is path-dependent and is not stored in the table. A position without legal moves (a full Connect
  Four board) is a draw too.
- Anytime: ``iterate`` yields the result of each completed depth; a deadline or node limit stops
  the search inside an iteration, whose partial result is discarded.

The public entry points check their inputs; the recursive worker is private.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections import defaultdict
    from collections.abc import Callable, Iterator

    from engines.search.game import Game
else:
    # The class collections re-exports, from its C module: importing the collections package (and its
    # keyword, operator, reprlib, heapq) costs about 1.7 ms of every engine's start-up.
    from _collections import defaultdict

WIN = 1_000_000
"""Score of a win at the root; a win found ``p`` plies deep scores ``WIN - p``."""
WIN_BOUND = WIN - 10_000
"""Scores beyond +-WIN_BOUND are proven wins or losses."""
INFINITY = 10 * WIN
MAX_PLY = 512

_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 255
_LMR_DEPTH = 3
"""Late-move reductions apply at this remaining depth and above ..."""
_LMR_FIRST = 3
"""... to moves from this index on (after the table move and the best-ordered ones)."""
"""Look at the clock every 256 nodes."""


class SearchStopped(Exception):
    """Raised inside the search when the deadline or node limit is reached."""


class SearchResult:
    """The outcome of one completed iteration."""

    __slots__ = ("move", "score", "depth", "nodes", "seconds", "pv", "partial")

    def __init__(self, move: int, score: int, depth: int, nodes: int, seconds: float, pv: list[int],
                 partial: bool = False):
        self.move = move
        """Best move found."""
        self.score = score
        """Its score for the side to move (+-WIN - plies for proven results)."""
        self.depth = depth
        """Depth of the completed iteration."""
        self.nodes = nodes
        """Nodes searched so far (all iterations)."""
        self.seconds = seconds
        """Seconds since the search started."""
        self.pv = pv
        """Principal variation from the root."""
        self.partial = partial
        """The deadline stopped this depth after the previous best move was searched: the move is
        the best found so far at this depth."""

    @property
    def is_proven(self) -> bool:
        """Whether the score is a proven win or loss."""
        return abs(self.score) >= WIN_BOUND

    def __repr__(self) -> str:
        return (f"SearchResult(move={self.move}, score={self.score}, depth={self.depth}, "
                f"nodes={self.nodes}, pv={self.pv}{', partial' if self.partial else ''})")


class AlphaBeta:
    """A reusable searcher: keeps its table, killers and history across iterations and calls."""

    __slots__ = (
        "evaluate", "order_root", "table", "killers", "history", "nodes", "path", "deadline",
        "max_nodes", "_next_check", "_repetitions", "table_limit", "contempt", "_root_turn",
        "root_margin", "root_scores", "_partial", "reductions",
    )

    def __init__(
        self,
        evaluate: Callable[[Game], int],
        table_limit: int = 2_000_000,
        contempt: int = 0,
    ) -> None:
        self.evaluate = evaluate
        self.contempt = contempt
        """How much worse than 0 a draw by repetition is for the side to move at the root: an
        engine that sees only the board cannot tell a repetition in the game, so it should avoid
        walking into one inside its search unless it is worse off."""
        self._root_turn = 0
        self.root_margin = 0
        """Root moves scoring within this margin of the best get exact scores (in root_scores),
        not just bounds: a caller can then choose among near-equal moves by other knowledge."""
        self.reductions = True
        """Late-move reductions on (see _negamax)."""
        self._partial: tuple[int, int, int] = (0, 0, 0)
        """(root moves completed, best move, its score) of the iteration in progress."""
        self.root_scores: dict[int, int] = {}
        """Scores of the root moves in the last completed iteration (exact within root_margin of
        the best; otherwise upper bounds)."""
        """Static evaluation for the side to move (must stay within +-WIN_BOUND)."""
        self.order_root: Callable[[Game, list[int]], list[int]] | None = None
        """Optional root move ordering (e.g. from MCTS), applied before the first iteration."""
        self.table: dict[int, tuple[int, int, int, int]] = {}
        """key -> (depth, flag, score, move)."""
        self.table_limit = table_limit
        self.killers: list[list[int]] = [[0, 0] for _ in range(MAX_PLY)]
        self.history: tuple[defaultdict[int, int], defaultdict[int, int]] = (
            defaultdict(int), defaultdict(int))
        """Per side to move: move -> sum of depth^2 over the cut-offs it caused."""
        self.nodes = 0
        self.path: set[int] = set()
        self.deadline: float | None = None
        self.max_nodes: int | None = None
        self._next_check = 0
        self._repetitions = 0

    # --- public -----------------------------------------------------------------------------

    def iterate(
        self,
        game: Game,
        max_depth: int = 64,
        deadline: float | None = None,
        max_nodes: int | None = None,
        history_keys: set[int] | None = None,
    ) -> Iterator[SearchResult]:
        """Search depth 1, 2, ... and yield each completed iteration's result.

        ``deadline`` is a time.monotonic() value; ``max_nodes`` a node budget. Depth 1 always
        completes. ``history_keys`` are keys of earlier game positions, scored as draws if reached.
        """
        if max_depth < 1:
            raise ValueError(f"max_depth must be at least 1, got {max_depth}")
        moves = game.legal_moves()
        if not moves:
            raise ValueError("no legal move in this position; the game is over or the position invalid")
        start = time.monotonic()
        self.nodes = 0
        self.path = set(history_keys or ())
        root = game.copy()
        self._root_turn = root.turn
        if self.order_root is not None:
            moves = self.order_root(root, moves)
        best_move = moves[0]
        for depth in range(1, max_depth + 1):
            # Depth 1 runs without limits so that there is always a move to play.
            self.deadline = deadline if depth > 1 else None
            self.max_nodes = max_nodes if depth > 1 else None
            self._next_check = self.nodes + _CHECK_EVERY
            if self.max_nodes is not None:
                self._next_check = min(self._next_check, self.max_nodes)
            work = root.copy()
            self._partial = (0, best_move, 0)
            try:
                score, best_move, moves, scores = self._root(work, depth, moves, best_move)
            except SearchStopped:
                completed, partial_move, partial_score = self._partial
                # The previous best was searched first: once it is done at this depth, any move
                # that beat it is better at this depth too, so the partial result can be played.
                if completed >= 1:
                    pv = self._principal_variation(root, partial_move, depth)
                    yield SearchResult(partial_move, partial_score, depth, self.nodes,
                                       time.monotonic() - start, pv, partial=True)
                return
            self.root_scores = scores
            pv = self._principal_variation(root, best_move, depth)
            result = SearchResult(best_move, score, depth, self.nodes, time.monotonic() - start, pv)
            yield result
            if result.is_proven and WIN - abs(score) <= depth:
                return  # the game-theoretic value is known to this depth
        return

    def wins_within(self, game: Game, depth: int, deadline: float | None = None) -> bool | None:
        """Whether the side to move has a win that a ``depth``-ply search proves; None if
        ``deadline`` (a time.monotonic() value) comes first. A null-window search at the win
        bound: a reply that holds refutes a move at once, so this costs far less than a search
        for the score."""
        self.path = set()
        self._root_turn = game.turn
        self.deadline, self.max_nodes = deadline, None
        self._next_check = self.nodes + _CHECK_EVERY
        try:
            return self._negamax(game.copy(), depth, WIN_BOUND, WIN_BOUND + 1, 0) > WIN_BOUND
        except SearchStopped:
            return None

    def search(self, game: Game, depth: int) -> SearchResult:
        """A fixed-depth search (iterative deepening up to ``depth``); the deepest result."""
        result = None
        for result in self.iterate(game, depth):
            pass
        assert result is not None
        return result

    # --- root -------------------------------------------------------------------------------

    def _root(
        self, game: Game, depth: int, moves: list[int], previous_best: int
    ) -> tuple[int, int, list[int], dict[int, int]]:
        """Search all root moves; returns (score, best move, moves best first, their scores)."""
        mover = game.turn
        ordered = [previous_best] + [m for m in moves if m != previous_best]
        alpha, beta = -INFINITY, INFINITY
        scores: dict[int, int] = {}
        key = game.key()
        self.path.add(key)
        best_move = ordered[0]
        first = True
        for move in ordered:
            game.push(move)
            self.nodes += 1
            winner = game.winner_after_push(move)
            if winner is not None:
                score = WIN - 1 if winner == mover else -(WIN - 1)
            elif first:
                score = -self._negamax(game, depth - 1, -beta, -alpha, 1)
            else:
                # With a margin, every move within it of the best so far gets an exact score.
                floor = alpha - self.root_margin if alpha > -INFINITY else alpha
                score = -self._negamax(game, depth - 1, -floor - 1, -floor, 1)
                if score > floor:
                    score = -self._negamax(game, depth - 1, -beta, -floor, 1)
            game.pop()
            scores[move] = score
            if score > alpha:
                alpha = score
                best_move = move
            first = False
            self._partial = (len(scores), best_move, alpha)
        self.path.discard(key)
        reordered = sorted(ordered, key=lambda m: -scores[m])
        self._store(key, depth, _EXACT, alpha, best_move, 0)
        return alpha, best_move, reordered, scores

    # --- the recursive worker -----------------------------------------------------------------

    def _negamax(self, game: Game, depth: int, alpha: int, beta: int, ply: int) -> int:
        nodes = self.nodes
        if nodes >= self._next_check:
            self._check_limits()
        key = game.key()
        if key in self.path:
            self._repetitions += 1
            return -self.contempt if game.turn == self._root_turn else self.contempt
        mover = game.turn
        if depth <= 0 or ply >= MAX_PLY - 1:
            # Threat detection at the horizon: the side to move wins if it has a winning move.
            if game.has_winning_move():
                return WIN - ply - 1
            return self.evaluate(game)

        table_move = 0
        entry = self.table.get(key)
        if entry is not None:
            entry_depth, flag, score, table_move = entry
            if entry_depth >= depth:
                if score > WIN_BOUND:
                    score -= ply
                elif score < -WIN_BOUND:
                    score += ply
                if flag == _EXACT:
                    return score
                if flag == _LOWER:
                    if score >= beta:
                        return score
                elif score <= alpha:
                    return score

        moves = game.legal_moves()
        if not moves:
            return 0  # a full board: a draw (the move that filled it did not win)
        push, pop, won = game.push, game.pop, game.winner_after_push
        if depth >= 2:
            if game.has_winning_move():
                return WIN - ply - 1  # an immediate win ends the search of this node at once
            if game.opponent_has_winning_move():
                # Forced blocks: any move after which the opponent can still win at once loses
                # at once, no better than any blocking move, so only blocking moves are searched.
                blocks = []
                for move in moves:
                    push(move)
                    if won(move) is None and not game.has_winning_move():
                        blocks.append(move)
                    pop()
                self.nodes += len(moves)
                if not blocks:
                    return -(WIN - ply - 2)
                moves = blocks
        killers = self.killers[ply]
        history = self.history[mover]
        k0, k1 = killers
        if len(moves) > 1:
            # History order (a C-level sort key), then killers and the table move to the front.
            moves.sort(key=history.__getitem__, reverse=True)
            for front in (k1, k0, table_move):
                if front and front in moves:
                    moves.remove(front)
                    moves.insert(0, front)

        original_alpha = alpha
        repetitions_before = self._repetitions
        self.path.add(key)
        best = -INFINITY
        best_move = moves[0]
        first = True
        child_depth = depth - 1
        win_here = WIN - ply - 1
        reduce_from = _LMR_FIRST if depth >= _LMR_DEPTH and self.reductions else len(moves)
        for index, move in enumerate(moves):
            push(move)
            self.nodes += 1
            winner = won(move)
            if winner is not None:
                score = win_here if winner == mover else -win_here
            elif first:
                score = -self._negamax(game, child_depth, -beta, -alpha, ply + 1)
            else:
                if index >= reduce_from and move != k0 and move != k1:
                    # Late-move reduction: a late quiet move is first searched one ply shallower
                    # (two when very late and deep); only if it then beats alpha is it searched in full.
                    reduction = 2 if index >= 2 * _LMR_FIRST and depth >= 6 else 1
                    score = -self._negamax(game, child_depth - reduction, -alpha - 1, -alpha, ply + 1)
                    if score > alpha:
                        score = -self._negamax(game, child_depth, -alpha - 1, -alpha, ply + 1)
                else:
                    score = -self._negamax(game, child_depth, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -self._negamax(game, child_depth, -beta, -alpha, ply + 1)
            pop()
            first = False
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if move != killers[0]:
                            killers[1] = killers[0]
                            killers[0] = move
                        history[move] += depth * depth
                        break
        self.path.discard(key)
        if self._repetitions == repetitions_before:  # path-independent: safe to store
            flag = _LOWER if best >= beta else _UPPER if best <= original_alpha else _EXACT
            self._store(key, depth, flag, best, best_move, ply)
        return best

    # --- helpers ----------------------------------------------------------------------------

    def _store(self, key: int, depth: int, flag: int, score: int, move: int, ply: int) -> None:
        if score > WIN_BOUND:
            score += ply
        elif score < -WIN_BOUND:
            score -= ply
        table = self.table
        old = table.get(key)
        if old is not None and old[0] > depth and old[1] == _EXACT:
            return  # keep the deeper exact entry
        if len(table) >= self.table_limit and old is None:
            table.clear()
        table[key] = (depth, flag, score, move)

    def _check_limits(self) -> None:
        self._next_check = self.nodes + _CHECK_EVERY
        if self.max_nodes is not None:
            if self.nodes >= self.max_nodes:
                raise SearchStopped
            self._next_check = min(self._next_check, self.max_nodes)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise SearchStopped

    def _table_move(self, game: Game) -> int:
        """The best move the table holds for ``game``'s position, or 0 for none."""
        entry = self.table.get(game.key())
        return entry[3] if entry is not None else 0

    def _principal_variation(self, game: Game, first: int, depth: int) -> list[int]:
        """The root move followed by table moves, as far as they stay legal and the game goes on."""
        work = game.copy()
        pv = [first]
        work.push(first)
        if work.winner_after_push(first) is not None:
            return pv
        seen = {work.key()}
        for _ in range(depth - 1):
            move = self._table_move(work)
            if not move or move not in work.legal_moves():
                break
            work.push(move)
            pv.append(move)
            if work.winner_after_push(move) is not None or work.key() in seen:
                break
            seen.add(work.key())
        return pv
