"""Monte Carlo tree search with solver backups, for any game implementing the ``Game`` protocol.

- UCT selection over a tree whose statistics are shared between transpositions (nodes are keyed by
  the exact position key).
- MCTS-Solver backups: a child that is a proven win for the side to move proves its parent won; a
  parent whose children are all proven losses for it is proven lost.
- Playouts with decisive and anti-decisive moves: take a winning move when there is one; otherwise
  prefer a random move that does not hand the opponent an immediate win. A playout that repeats a
  position of its path, or runs past a ply cap, is scored by the evaluation's sign. A position
  without legal moves (a full Connect Four board) is a draw.
- Randomness comes from an injected generator (``rng.randrange``).
"""

from __future__ import annotations

import math
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from engines.search.game import Game


class _Rng:
    """The generator interface MCTS needs (engines.protocol.Rng provides it)."""

    def randrange(self, stop: int) -> int:  # pragma: no cover - protocol only
        raise NotImplementedError


UNKNOWN, WON, LOST = 0, 1, -1
"""Proof status of a node, for the side to move there."""


class Node:
    """Statistics of one position (for the side to move there)."""

    __slots__ = ("moves", "children", "visits", "value", "proof", "turn")

    def __init__(self, moves: list[int], turn: int) -> None:
        self.moves = moves
        """Legal moves, in the order children are expanded."""
        self.children: dict[int, int] = {}
        """Move -> child key, for expanded moves."""
        self.visits = 0
        self.value = 0.0
        """Sum of playout rewards for the side that moved INTO this node (1 win, 0.5 draw, 0 loss)."""
        self.proof = UNKNOWN
        self.turn = turn


class MCTS:
    """A searcher that keeps its table across calls."""

    __slots__ = ("evaluate", "rng", "exploration", "playout_plies", "table", "playouts")

    def __init__(
        self,
        evaluate: Callable[[Game], int],
        rng: _Rng,
        exploration: float = 1.0,
        playout_plies: int = 24,
    ) -> None:
        self.evaluate = evaluate
        """Static evaluation for the side to move; its sign scores a cut-off playout."""
        self.rng = rng
        self.exploration = exploration
        self.playout_plies = playout_plies
        self.table: dict[int, Node] = {}
        self.playouts = 0

    def run(
        self,
        game: Game,
        deadline: float | None = None,
        max_playouts: int | None = None,
        root_moves: list[int] | None = None,
    ) -> Node:
        """Search from ``game`` until the deadline or playout budget, or the root is proven.

        ``root_moves`` restricts the root to those moves (for a root not searched before); the
        root's proof is then relative to them (LOST: every one of them loses).
        """
        if deadline is None and max_playouts is None:
            raise ValueError("give a deadline or max_playouts, or the search never ends")
        root_key = game.key()
        fresh = root_key not in self.table
        root = self._node(game, root_key)
        if root_moves is not None and fresh:
            allowed = set(root_moves)
            root.moves = [move for move in root.moves if move in allowed]
            if not root.moves:
                raise ValueError("none of root_moves is legal here")
        work = game.copy()
        count = 0
        while root.proof == UNKNOWN:
            if max_playouts is not None and count >= max_playouts:
                break
            if deadline is not None and (count & 15) == 0 and time.monotonic() >= deadline:
                break
            self._iterate(work, root_key)
            count += 1
        self.playouts += count
        return root

    def root_statistics(self, game: Game) -> dict[int, tuple[int, float, int]]:
        """Per root move: (visits, mean reward for the mover, proof status for the mover)."""
        root = self.table.get(game.key())
        stats: dict[int, tuple[int, float, int]] = {}
        if root is None:
            return stats
        for move in root.moves:
            child_key = root.children.get(move)
            if child_key is None:
                stats[move] = (0, 0.5, UNKNOWN)
                continue
            child = self.table[child_key]
            mean = child.value / child.visits if child.visits else 0.5
            stats[move] = (child.visits, mean, -child.proof)
        return stats

    # --- internals ----------------------------------------------------------------------------

    def _node(self, game: Game, key: int) -> Node:
        node = self.table.get(key)
        if node is None:
            node = self.table[key] = Node(game.legal_moves(), game.turn)
        return node

    def _iterate(self, game: Game, root_key: int) -> None:
        path: list[Node] = []
        pushed = 0
        key = root_key
        node = self.table[key]
        seen = {key}
        reward: float
        while True:
            path.append(node)
            if node.proof != UNKNOWN:
                # Reward for the side that moved into this node: it won if the node is lost.
                reward = 1.0 if node.proof == LOST else 0.0
                break
            if not node.moves:
                reward = 0.5  # a full board: a draw
                break
            move = self._select(node)
            mover = game.turn
            game.push(move)
            pushed += 1
            winner = game.winner_after_push(move)
            if winner is not None:
                # Terminal child: the mover won (or handed the opponent a line).
                node.children[move] = self._terminal_key(game, winner == mover)
                child = self.table[node.children[move]]
                path.append(child)
                reward = 1.0 if winner == mover else 0.0
                break
            key = game.key()
            if key in seen:
                # A repetition on the path: a draw. The repeated node is already on the path, so
                # it is not counted a second time.
                reward = 0.5
                node.children.setdefault(move, key)
                break
            seen.add(key)
            expanded = move in node.children
            node.children[move] = key
            child = self._node(game, key)
            if not expanded or child.visits == 0:
                path.append(child)
                reward = 1.0 - self._playout(game, seen)  # playout reward is for the side to move
                break
            node = child
        for _ in range(pushed):
            game.pop()
        self._backup(path, reward)

    def _terminal_key(self, game: Game, mover_won: bool) -> int:
        """A table entry for a finished game: proven lost for the side to move there if the mover won."""
        key = game.key()
        node = self.table.get(key)
        if node is None:
            node = self.table[key] = Node([], game.turn)
        node.proof = LOST if mover_won else WON
        return key

    def _select(self, node: Node) -> int:
        table = self.table
        children = node.children
        # Expand unvisited moves first, in order.
        if len(children) < len(node.moves):
            for move in node.moves:
                if move not in children:
                    return move
        log_visits = math.log(node.visits + 1)
        c = self.exploration
        best_move = node.moves[0]
        best_value = -math.inf
        for move in node.moves:
            child = table[children[move]]
            if child.proof == LOST:
                return move  # a winning move for us
            if child.proof == WON:
                value = -1.0  # a losing move: only if nothing else
            elif child.visits == 0:
                value = math.inf
            else:
                value = child.value / child.visits + c * math.sqrt(log_visits / child.visits)
            if value > best_value:
                best_value = value
                best_move = move
        return best_move

    def _backup(self, path: list[Node], reward: float) -> None:
        """``reward`` is for the side that moved into the last node of ``path``."""
        table = self.table
        for node in reversed(path):
            node.visits += 1
            node.value += reward
            reward = 1.0 - reward
            if node.proof == UNKNOWN and node.children:
                proofs = [table[key].proof for key in node.children.values()]
                if LOST in proofs:
                    node.proof = WON
                elif len(node.children) == len(node.moves) and all(p == WON for p in proofs):
                    node.proof = LOST

    def _playout(self, game: Game, seen: set[int]) -> float:
        """Play on with decisive/anti-decisive random moves; reward for the side to move at the start."""
        start_turn = game.turn
        rng = self.rng
        pushed = 0
        result = 0.5
        keys = set(seen)
        for _ in range(self.playout_plies):
            moves = game.legal_moves()
            if not moves:
                break  # a full board: a draw
            mover = game.turn
            chosen = None
            if game.has_winning_move():  # decisive: play the winning move
                for move in moves:
                    game.push(move)
                    winner = game.winner_after_push(move)
                    game.pop()
                    if winner == mover:
                        chosen = move
                        break
            if chosen is not None:
                game.push(chosen)
                pushed += 1
                result = 1.0 if mover == start_turn else 0.0
                break
            # Anti-decisive: try a few random moves for one that gives the opponent no win in one.
            for _attempt in range(3):
                move = moves[rng.randrange(len(moves))]
                game.push(move)
                if game.winner_after_push(move) is None and not game.has_winning_move():
                    break
                game.pop()
            else:
                game.push(move)
            pushed += 1
            winner = game.winner_after_push(move)
            if winner is not None:
                result = 1.0 if winner == start_turn else 0.0
                break
            key = game.key()
            if key in keys:
                result = 0.5
                break
            keys.add(key)
        else:
            score = self.evaluate(game)  # for the side to move now
            if score:
                mine = (score > 0) == (game.turn == start_turn)
                result = 0.75 if mine else 0.25
        for _ in range(pushed):
            game.pop()
        return result
