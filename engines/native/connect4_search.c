/* The Connect Four alpha-beta core: engines/search/alphabeta.py's negamax (AlphaBeta._root and
 * _negamax) with the rules of harness/games/connect4 and the evaluation of
 * engines/connect4_evaluation.evaluate, move for move, so that a fixed-depth search returns the same
 * value, best move, root scores and node count as the Python one. Driven from
 * engines/search/native_connect4.py through its Python module (py_connect4_search.c).
 *
 * Boards are Pons's layout, as in the Python rules: cell (column c, height h) is bit c * (H + 1) + h,
 * one sentinel bit above each column, in the smallest of board.h's three types that holds them:
 * uint64_t where W * (H + 1) <= 64, unsigned __int128 up to 128, u192 (three 64-bit words) for the rest
 * (10x12 to 12x12), so every supported size is searched here. The search is written once below (after
 * #else) on board.h's operations B_AND, B_SHL... (the plain operators for the integer types, the same
 * machine code as written out) and compiled for each board type by including this file into itself
 * with B_KIND, BOARD and NAME defined, as engines/native/connect4_solver.c does. Boards cross the
 * interface as three 64-bit words, lowest first.
 *
 * The transposition table has the Python dict's policy: an exact key (Position.key(), x's discs plus a
 * marker above each column's top disc), depth-preferred replacement (a deeper exact entry is kept),
 * cleared when a new key arrives with table_limit entries stored. It is a linear-probing hash table
 * at most half full, its slots for table_limit entries reserved at once (see NAME(new)).
 *
 * A Connect Four position never repeats inside a search (every move adds a disc), so the search path
 * of the Python search reduces to the earlier game positions a caller passes (history_keys), looked
 * up only when there are any.
 */
#ifndef C4S_BODY

#ifndef _DEFAULT_SOURCE /* (Python.h defines it too) */
#define _DEFAULT_SOURCE /* clock_gettime, mmap's MAP_ANONYMOUS and madvise under -std=c11 */
#endif
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"  /* u128, u192, popcount64/128/192 and the board operations B_* */
#include "memory.h" /* now_monotonic, slots_alloc, slots_free */

#define C4S_MAX_W 12
#define MAX_PLY 512
#define WIN 1000000LL
#define WIN_BOUND (WIN - 10000)
#define INF (10 * WIN)
#define CHECK_EVERY 255
#define LMR_DEPTH 3
#define LMR_FIRST 3
#define EXACT 0
#define LOWER 1
#define UPPER 2
#define MAX_SLOTS (1 << 23)


/* The table's slot hash: every bit of the key moves every bit of the hash (murmur3's finalizer), so the
 * low bits that pick the slot depend on all the columns (a product alone leaves its low bits to the
 * key's low bits, the first columns, and the probe runs grow long). */
static inline uint64_t hash64(uint64_t key) {
    key ^= key >> 33;
    key *= 0xFF51AFD7ED558CCDull;
    key ^= key >> 33;
    key *= 0xC4CEB9FE1A85EC53ull;
    return key ^ (key >> 33);
}
static inline uint64_t hash128(u128 key) {
    return hash64((uint64_t)key ^ ((uint64_t)(key >> 64) * 0x9E3779B97F4A7C15ull));
}
static inline uint64_t hash192(u192 key) {
    return hash64(key.w[0] ^ (key.w[1] * 0x9E3779B97F4A7C15ull) ^ (key.w[2] * 0xC2B2AE3D27D4EB4Full));
}

/* What the three board types share, first in each context so the exported functions can read it. */
typedef struct {
    int bits; /* 64, 128 or 192 */
} head_t;

#define C4S_BODY
#define B_KIND INT
#define BOARD uint64_t
#define NAME(x) x##_64
#define POPCOUNT popcount64
#define HASH hash64
#include "connect4_search.c" /* this file, again: the body below */
#undef BOARD
#undef NAME
#undef POPCOUNT
#undef HASH
#define BOARD u128
#define NAME(x) x##_128
#define POPCOUNT popcount128
#define HASH hash128
#include "connect4_search.c" /* this file, again: the body below */
#undef BOARD
#undef NAME
#undef POPCOUNT
#undef HASH
#undef B_KIND
#define B_KIND 192
#define BOARD u192
#define NAME(x) x##_192
#define POPCOUNT popcount192
#define HASH hash192
#include "connect4_search.c" /* this file, again: the body below */
#undef C4S_BODY

/* ---- the interface (its Python module: py_connect4_search.c) ---- */

#define DISPATCH(ctx, call) \
    (((head_t *)(ctx))->bits == 64 ? call##_64 : ((head_t *)(ctx))->bits == 128 ? call##_128 : call##_192)

/* A search context for a width x height board (4 to 12 each): geometry, evaluation weights
 * (``weights``: CENTRE, THREAT, WEAK_THREAT, then FREE's four, as in engines/connect4_evaluation.py),
 * table, killers and history. NULL for a size outside 4 to 12 or no memory. */
void *c4s_new(int width, int height, const int64_t *weights, int64_t table_limit) {
    if (width < 4 || height < 4 || width > C4S_MAX_W || height > 12) return NULL;
    int bits = width * (height + 1);
    if (bits <= 64) return new_64(width, height, weights, table_limit);
    if (bits <= 128) return new_128(width, height, weights, table_limit);
    return new_192(width, height, weights, table_limit);
}

void c4s_free(void *ctx) {
    if (ctx == NULL) return;
    DISPATCH(ctx, free)(ctx);
}

/* The earlier game positions (Python keys, each as three 64-bit words, lowest first) that score as
 * repetitions: AlphaBeta.path at the start of a call. */
int c4s_set_path(void *ctx, const uint64_t *keys, int count) { return DISPATCH(ctx, set_path)(ctx, keys, count); }

/* AlphaBeta._root on the position of discs x and o (each three 64-bit words, lowest first): search
 * ``moves`` (ordered, the previous best first) to ``depth``. io: nodes, next_check, max_nodes (-1:
 * none), contempt, root_turn, reductions, root_margin; nodes and next_check are written back. Returns
 * 0 when done (out: alpha, best move; scores[i] for moves[i]), 1 when the deadline (< 0: none) or node
 * limit stopped it (out[2..4]: root moves completed, best move and score so far). */
int c4s_root(void *ctx, const uint64_t *x, const uint64_t *o, int depth, const int32_t *moves, int count,
             int64_t *io, double deadline, int64_t *out, int64_t *scores) {
    return DISPATCH(ctx, root)(ctx, x, o, depth, moves, count, io, deadline, out, scores);
}

/* AlphaBeta._negamax from a position (as wins_within calls it): out[0] the score; 1 if the limits
 * stopped it. */
int c4s_negamax(void *ctx, const uint64_t *x, const uint64_t *o, int depth, int64_t alpha, int64_t beta, int ply,
                int64_t *io, double deadline, int64_t *out) {
    return DISPATCH(ctx, negamax_entry)(ctx, x, o, depth, alpha, beta, ply, io, deadline, out);
}

/* The table's move for a position (0 if none): the principal variation follows these. */
int c4s_table_move(void *ctx, const uint64_t *x, const uint64_t *o) { return DISPATCH(ctx, table_move)(ctx, x, o); }

/* For the differential tests, on the position of discs x and o: out[0] the evaluation, out[1]
 * has_winning_move, out[2] opponent_has_winning_move, out[3..5] the key's three words (lowest first),
 * out[6] the number of legal moves, out[7 + i] the i-th legal move, out[7 + width + i]
 * winner_after_push after it (-1: none). */
void c4s_probe(void *ctx, const uint64_t *x, const uint64_t *o, int64_t *out) { DISPATCH(ctx, probe)(ctx, x, o, out); }

#else /* C4S_BODY: the search for one board type */

typedef struct {
    BOARD key; /* 0: an empty slot (a key always holds the markers) */
    int32_t score;
    int16_t depth;
    int8_t flag;
    int8_t move;
} NAME(entry_t);

typedef struct {
    head_t head;
    /* geometry */
    int width, height, stride;
    BOARD bottom, board_mask, top_row, x_rows, o_rows;
    BOARD column[C4S_MAX_W];
    BOARD planes[8];
    int64_t plane_weight[8];
    int nplanes;
    BOARD smear_rows[4];
    int smear_shift[4], nsmear;
    /* evaluation */
    int64_t threat, weak_threat, free_bonus[4];
    /* position */
    BOARD m[2];
    int turn;
    /* search */
    int64_t nodes, next_check, max_nodes, contempt, repetitions;
    double deadline; /* < 0: none */
    int root_turn, reductions;
    int killers[MAX_PLY][2];
    int64_t history[2][C4S_MAX_W + 1];
    jmp_buf stop;
    int64_t partial_done, partial_move, partial_score;
    /* transposition table */
    NAME(entry_t) *table;
    int64_t slots, used, limit;
    /* earlier game positions */
    BOARD *path;
    int path_len, path_cap;
} NAME(ctx_t);

typedef NAME(ctx_t) NAME(C);

/* ---- rules (harness/games/connect4/rules.py) ---------------------------------------------------- */

/* ``winning_cells``: every cell of the board that would complete a four of ``discs``. */
static inline BOARD NAME(winning_cells)(const NAME(C) *s, BOARD discs) {
    BOARD found = B_AND(B_AND(B_SHL(discs, 1), B_SHL(discs, 2)), B_SHL(discs, 3));
    int st = s->stride;
    int shifts[3] = {st, st - 1, st + 1};
    for (int i = 0; i < 3; i++) {
        int shift = shifts[i];
        BOARD up1 = B_SHL(discs, shift), up2 = B_SHL(up1, shift), down1 = B_SHR(discs, shift),
              down2 = B_SHR(down1, shift);
        found = B_OR(found, B_OR(B_AND(B_AND(up1, up2), B_OR(B_SHL(up2, shift), down1)),
                                 B_AND(B_AND(down1, down2), B_OR(up1, B_SHR(down2, shift)))));
    }
    return B_AND(found, s->board_mask);
}

static inline BOARD NAME(occupied)(const NAME(C) *s) { return B_OR(s->m[0], s->m[1]); }

static inline int NAME(has_winning_move)(const NAME(C) *s) {
    return B_ANY(B_AND(NAME(winning_cells)(s, s->m[s->turn]), B_ADD(NAME(occupied)(s), s->bottom)));
}

static inline int NAME(opponent_has_winning_move)(const NAME(C) *s) {
    return B_ANY(B_AND(NAME(winning_cells)(s, s->m[s->turn ^ 1]), B_ADD(NAME(occupied)(s), s->bottom)));
}

/* The columns that are not full, ascending (1-based). */
static inline int NAME(legal_moves)(const NAME(C) *s, int *moves) {
    BOARD full = B_AND(NAME(occupied)(s), s->top_row);
    int count = 0;
    for (int c = 0; c < s->width; c++)
        if (!B_ANY(B_AND(full, s->column[c]))) moves[count++] = c + 1;
    return count;
}

/* Drop the mover's disc into column ``move``; returns the cell it lands on (pop's argument). */
static inline BOARD NAME(push)(NAME(C) *s, int move) {
    BOARD cell = B_AND(B_ADD(NAME(occupied)(s), s->bottom), s->column[move - 1]);
    s->m[s->turn] = B_OR(s->m[s->turn], cell);
    s->turn ^= 1;
    return cell;
}

static inline void NAME(pop)(NAME(C) *s, BOARD cell) {
    s->turn ^= 1;
    s->m[s->turn] = B_XOR(s->m[s->turn], cell);
}

/* ``winner_after_push``: the mover if the disc just dropped on ``cell`` completes a four, else -1. */
static inline int NAME(winner_after_push)(const NAME(C) *s, BOARD cell) {
    int mover = s->turn ^ 1;
    return B_ANY(B_AND(NAME(winning_cells)(s, B_XOR(s->m[mover], cell)), cell)) ? mover : -1;
}

static inline BOARD NAME(key)(const NAME(C) *s) { return B_ADD(B_ADD(s->m[0], NAME(occupied)(s)), s->bottom); }

/* A board from three 64-bit words, lowest first (the words beyond the type's width are the board's
 * zero bits: a key is never wider than its board). Shifts of 32 twice: a shift of 64 is undefined
 * for uint64_t. */
static inline BOARD NAME(from_words)(const uint64_t *words) {
    BOARD board = B_WORD(words[0]);
    if (sizeof(BOARD) > 8) board = B_OR(board, B_SHL(B_SHL(B_WORD(words[1]), 32), 32));
    if (sizeof(BOARD) > 16) board = B_OR(board, B_SHL(B_SHL(B_SHL(B_SHL(B_WORD(words[2]), 32), 32), 32), 32));
    return board;
}

static void NAME(load)(NAME(C) *s, const uint64_t *x, const uint64_t *o) {
    s->m[0] = NAME(from_words)(x);
    s->m[1] = NAME(from_words)(o);
    s->turn = POPCOUNT(s->m[0]) == POPCOUNT(s->m[1]) ? 0 : 1;
}

/* ---- evaluation (engines/connect4_evaluation.evaluate) -------------------------------------------- */

/* ``_at_or_above``: every cell at or above one of ``cells`` in its column. */
static inline BOARD NAME(at_or_above)(const NAME(C) *s, BOARD cells) {
    for (int i = 0; i < s->nsmear; i++)
        cells = B_OR(cells, B_SHL(B_AND(cells, s->smear_rows[i]), s->smear_shift[i]));
    return cells;
}

/* The static value for the side to move; ``own`` is winning_cells of the side to move's discs (the
caller has it already). */
static int64_t NAME(evaluate)(const NAME(C) *s, BOARD own) {
    BOARD x = s->m[0], o = s->m[1], empty = B_XOR(s->board_mask, B_OR(x, o));
    if (!B_ANY(empty)) return 0;
    int64_t score = 0;
    for (int i = 0; i < s->nplanes; i++)
        score += s->plane_weight[i] * (POPCOUNT(B_AND(x, s->planes[i])) - POPCOUNT(B_AND(o, s->planes[i])));
    BOARD other = NAME(winning_cells)(s, s->m[s->turn ^ 1]);
    BOARD xt = B_AND(s->turn ? other : own, empty), ot = B_AND(s->turn ? own : other, empty);
    if (B_ANY(xt) || B_ANY(ot)) {
        score += s->threat * (POPCOUNT(B_AND(xt, s->x_rows)) - POPCOUNT(B_AND(ot, s->o_rows)));
        if (s->weak_threat)
            score += s->weak_threat * (POPCOUNT(B_AND(xt, s->o_rows)) - POPCOUNT(B_AND(ot, s->x_rows)));
        BOARD free_x = B_ANY(ot) ? B_AND(xt, B_NOT(NAME(at_or_above)(s, ot))) : xt;
        BOARD free_o = B_ANY(xt) ? B_AND(ot, B_NOT(NAME(at_or_above)(s, xt))) : ot;
        if (B_ANY(free_x)) {
            if (B_ANY(B_AND(free_x, s->x_rows))) score += s->free_bonus[0];
            if (B_ANY(B_AND(free_x, s->o_rows))) score += s->free_bonus[1];
        }
        if (B_ANY(free_o)) {
            if (B_ANY(B_AND(free_o, s->o_rows))) score -= s->free_bonus[2];
            if (B_ANY(B_AND(free_o, s->x_rows))) score -= s->free_bonus[3];
        }
    }
    return s->turn ? -score : score;
}

/* ---- transposition table (AlphaBeta.table and _store) ------------------------------------------ */

static int NAME(tt_alloc)(NAME(C) *s, int64_t slots) {
    NAME(entry_t) *table = slots_alloc((size_t)slots * sizeof *table);
    if (!table) return 0;
    slots_free(s->table, (size_t)s->slots * sizeof *table);
    s->table = table;
    s->slots = slots;
    s->used = 0;
    return 1;
}

static inline int64_t NAME(tt_slot)(const NAME(C) *s, BOARD key) {
    int64_t mask = s->slots - 1, i = (int64_t)(HASH(key) & (uint64_t)mask);
    for (;;) {
        BOARD found = s->table[i].key;
        if (B_EQ(found, key) || !B_ANY(found)) return i;
        i = (i + 1) & mask;
    }
}

static inline NAME(entry_t) *NAME(tt_find)(const NAME(C) *s, BOARD key) {
    NAME(entry_t) *e = &s->table[NAME(tt_slot)(s, key)];
    return B_ANY(e->key) ? e : NULL;
}

static void NAME(tt_grow)(NAME(C) *s) {
    NAME(entry_t) *old = s->table;
    int64_t slots = s->slots, used = s->used;
    s->table = NULL;
    if (!NAME(tt_alloc)(s, slots * 2)) { /* no memory: keep the table as it is */
        s->table = old;
        s->slots = slots;
        s->used = used;
        return;
    }
    for (int64_t i = 0; i < slots; i++)
        if (B_ANY(old[i].key)) {
            s->table[NAME(tt_slot)(s, old[i].key)] = old[i];
            s->used++;
        }
    slots_free(old, (size_t)slots * sizeof *old);
}

static void NAME(tt_store)(NAME(C) *s, BOARD key, int depth, int flag, int64_t score, int move, int ply) {
    if (score > WIN_BOUND)
        score += ply;
    else if (score < -WIN_BOUND)
        score -= ply;
    NAME(entry_t) *e = &s->table[NAME(tt_slot)(s, key)];
    if (B_ANY(e->key)) {
        if (e->depth > depth && e->flag == EXACT) return; /* keep the deeper exact entry */
    } else {
        if (s->used >= s->limit) { /* AlphaBeta: table.clear() when full and the key is new */
            if (!NAME(tt_alloc)(s, s->slots)) memset(s->table, 0, sizeof *s->table * (size_t)s->slots);
            s->used = 0;
        }
        if ((s->used + 1) * 2 > s->slots) NAME(tt_grow)(s); /* linear probing: keep it half empty */
        if (s->used + 1 >= s->slots) return;                /* out of memory and full: do not store */
        e = &s->table[NAME(tt_slot)(s, key)];
        e->key = key;
        s->used++;
    }
    e->depth = (int16_t)depth;
    e->flag = (int8_t)flag;
    e->score = (int32_t)score;
    e->move = (int8_t)move;
}

/* ---- search ------------------------------------------------------------------------------------ */

static void NAME(check_limits)(NAME(C) *s) {
    s->next_check = s->nodes + CHECK_EVERY;
    if (s->max_nodes >= 0) {
        if (s->nodes >= s->max_nodes) longjmp(s->stop, 1);
        if (s->max_nodes < s->next_check) s->next_check = s->max_nodes;
    }
    if (s->deadline >= 0 && now_monotonic() >= s->deadline) longjmp(s->stop, 1);
}

static inline void NAME(bring_to_front)(int *moves, int count, int front) {
    if (!front) return;
    for (int i = 0; i < count; i++)
        if (moves[i] == front) {
            memmove(moves + 1, moves, sizeof(int) * (size_t)i);
            moves[0] = front;
            return;
        }
}

static int NAME(in_path)(const NAME(C) *s, BOARD key) {
    for (int i = 0; i < s->path_len; i++)
        if (B_EQ(s->path[i], key)) return 1;
    return 0;
}

static int64_t NAME(negamax)(NAME(C) *s, int depth, int64_t alpha, int64_t beta, int ply) {
    if (s->nodes >= s->next_check) NAME(check_limits)(s);
    BOARD key = NAME(key)(s);
    if (s->path_len && NAME(in_path)(s, key)) {
        s->repetitions++;
        return s->turn == s->root_turn ? -s->contempt : s->contempt;
    }
    int mover = s->turn;
    /* The cells completing a four of the side to move: has_winning_move, and winner_after_push of
     * each child (its disc wins exactly when it lands on one of these). */
    BOARD own = NAME(winning_cells)(s, s->m[mover]), playable = B_ADD(NAME(occupied)(s), s->bottom);
    if (depth <= 0 || ply >= MAX_PLY - 1) {
        if (B_ANY(B_AND(own, playable))) return WIN - ply - 1;
        return NAME(evaluate)(s, own);
    }
    int table_move = 0;
    NAME(entry_t) *entry = NAME(tt_find)(s, key);
    if (entry) {
        table_move = entry->move;
        if (entry->depth >= depth) {
            int64_t score = entry->score;
            if (score > WIN_BOUND)
                score -= ply;
            else if (score < -WIN_BOUND)
                score += ply;
            if (entry->flag == EXACT) return score;
            if (entry->flag == LOWER) {
                if (score >= beta) return score;
            } else if (score <= alpha) {
                return score;
            }
        }
    }
    int moves[C4S_MAX_W], count = NAME(legal_moves)(s, moves);
    if (!count) return 0; /* a full board: a draw */
    if (depth >= 2) {
        if (B_ANY(B_AND(own, playable))) return WIN - ply - 1;
        BOARD other = NAME(winning_cells)(s, s->m[mover ^ 1]);
        if (B_ANY(B_AND(other, playable))) {
            /* after a move the opponent's discs are the same: it can win at once where one of its
             * winning cells is playable then */
            int blocks = 0;
            for (int i = 0; i < count; i++) {
                int move = moves[i];
                BOARD cell = B_AND(playable, s->column[move - 1]);
                if (!B_ANY(B_AND(own, cell)) && !B_ANY(B_AND(other, B_XOR(B_XOR(playable, cell), B_SHL(cell, 1)))))
                    moves[blocks++] = move;
            }
            s->nodes += count;
            if (!blocks) return -(WIN - ply - 2);
            count = blocks;
        }
    }
    int *killers = s->killers[ply];
    int64_t *history = s->history[mover];
    int k0 = killers[0], k1 = killers[1];
    if (count > 1) {
        for (int i = 1; i < count; i++) { /* stable, highest history first (Python's sort) */
            int move = moves[i], j = i - 1;
            int64_t value = history[move];
            while (j >= 0 && history[moves[j]] < value) {
                moves[j + 1] = moves[j];
                j--;
            }
            moves[j + 1] = move;
        }
        NAME(bring_to_front)(moves, count, k1);
        NAME(bring_to_front)(moves, count, k0);
        NAME(bring_to_front)(moves, count, table_move);
    }
    if (depth > 1) /* the children probe the table: fetch their slots while this node works */
        for (int i = 0; i < count; i++) {
            BOARD cell = B_AND(playable, s->column[moves[i] - 1]);
            /* the child's key: x's discs (with the cell when x moves) + its occupied cells + bottom */
            BOARD child = B_ADD(B_ADD(B_ADD(s->m[0], mover ? B_WORD(0) : cell), playable), cell);
            __builtin_prefetch(&s->table[HASH(child) & (uint64_t)(s->slots - 1)]);
        }
    int64_t original_alpha = alpha, repetitions_before = s->repetitions;
    int64_t best = -INF;
    int best_move = moves[0], first = 1, child_depth = depth - 1;
    int64_t win_here = WIN - ply - 1;
    int reduce_from = depth >= LMR_DEPTH && s->reductions ? LMR_FIRST : count;
    for (int index = 0; index < count; index++) {
        int move = moves[index];
        BOARD cell = NAME(push)(s, move);
        s->nodes++;
        int64_t score;
        if (B_ANY(B_AND(own, cell))) {
            score = win_here;
        } else if (first) {
            score = -NAME(negamax)(s, child_depth, -beta, -alpha, ply + 1);
        } else {
            if (index >= reduce_from && move != k0 && move != k1) {
                int reduction = index >= 2 * LMR_FIRST && depth >= 6 ? 2 : 1;
                score = -NAME(negamax)(s, child_depth - reduction, -alpha - 1, -alpha, ply + 1);
                if (score > alpha) score = -NAME(negamax)(s, child_depth, -alpha - 1, -alpha, ply + 1);
            } else {
                score = -NAME(negamax)(s, child_depth, -alpha - 1, -alpha, ply + 1);
            }
            if (alpha < score && score < beta) score = -NAME(negamax)(s, child_depth, -beta, -alpha, ply + 1);
        }
        NAME(pop)(s, cell);
        first = 0;
        if (score > best) {
            best = score;
            best_move = move;
            if (score > alpha) {
                alpha = score;
                if (alpha >= beta) {
                    if (move != killers[0]) {
                        killers[1] = killers[0];
                        killers[0] = move;
                    }
                    history[move] += (int64_t)depth * depth;
                    break;
                }
            }
        }
    }
    if (s->repetitions == repetitions_before) {
        int flag = best >= beta ? LOWER : best <= original_alpha ? UPPER : EXACT;
        NAME(tt_store)(s, key, depth, flag, best, best_move, ply);
    }
    return best;
}

/* ---- the interface (see the exported functions above) --------------------------------------------- */

static void NAME(free)(void *ctx) {
    NAME(C) *s = ctx;
    if (!s) return;
    slots_free(s->table, (size_t)s->slots * sizeof *s->table);
    free(s->path);
    free(s);
}

static void *NAME(new)(int width, int height, const int64_t *weights, int64_t table_limit) {
    NAME(C) *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->head.bits = (int)(8 * sizeof(BOARD));
    s->width = width;
    s->height = height;
    s->stride = height + 1;
    s->limit = table_limit;
    BOARD column = B_WORD((UINT64_C(1) << height) - 1);
    for (int c = 0; c < width; c++) {
        s->bottom = B_OR(s->bottom, B_SHL(B_WORD(1), c * s->stride));
        s->column[c] = B_SHL(column, c * s->stride);
        s->board_mask = B_OR(s->board_mask, s->column[c]);
    }
    s->top_row = B_SHL(s->bottom, height - 1);
    for (int h = 0; h < height; h += 2) s->x_rows = B_OR(s->x_rows, B_SHL(s->bottom, h));
    s->o_rows = B_XOR(s->board_mask, s->x_rows);
    for (int k = 1; k <= 8 && k < height; k *= 2) {
        BOARD rows = B_WORD(0);
        for (int h = 0; h < height - k; h++) rows = B_OR(rows, B_SHL(s->bottom, h));
        s->smear_rows[s->nsmear] = rows;
        s->smear_shift[s->nsmear++] = k;
    }
    /* windows_through: the windows of four through each cell; the centre term by bit planes of them */
    int counts[C4S_MAX_W * 13] = {0}, most = 0;
    static const int directions[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    for (int c = 0; c < width; c++)
        for (int h = 0; h < height; h++)
            for (int d = 0; d < 4; d++) {
                int dc = directions[d][0], dh = directions[d][1], inside = 1;
                for (int i = 0; i < 4; i++) {
                    int cc = c + i * dc, hh = h + i * dh;
                    if (cc < 0 || cc >= width || hh < 0 || hh >= height) inside = 0;
                }
                if (inside)
                    for (int i = 0; i < 4; i++) counts[(c + i * dc) * s->stride + h + i * dh]++;
            }
    for (int i = 0; i < width * s->stride; i++)
        if (counts[i] > most) most = counts[i];
    for (int bit = 0; most >> bit; bit++) {
        BOARD mask = B_WORD(0);
        for (int i = 0; i < width * s->stride; i++)
            if (counts[i] >> bit & 1) mask = B_OR(mask, B_SHL(B_WORD(1), i));
        s->planes[s->nplanes] = mask;
        s->plane_weight[s->nplanes++] = weights[0] << bit;
    }
    s->threat = weights[1];
    s->weak_threat = weights[2];
    for (int i = 0; i < 4; i++) s->free_bonus[i] = weights[3 + i];
    /* Slots for table_limit entries at most half full, reserved at once (pages are mapped as they are
     * touched): growing on the way would rehash the table, a pause of tenths of a second at millions
     * of entries in which the clock is not read. Beyond MAX_SLOTS, or without the memory, it starts
     * small and grows. */
    int64_t slots = 1 << 16;
    while (slots < 2 * table_limit && slots < MAX_SLOTS) slots *= 2;
    if (!NAME(tt_alloc)(s, slots) && !NAME(tt_alloc)(s, 1 << 16)) {
        NAME(free)(s);
        return NULL;
    }
    return s;
}

static int NAME(set_path)(void *ctx, const uint64_t *keys, int count) {
    NAME(C) *s = ctx;
    if (count > s->path_cap) {
        BOARD *grown = realloc(s->path, sizeof(BOARD) * (size_t)count);
        if (!grown) return 0;
        s->path = grown;
        s->path_cap = count;
    }
    for (int i = 0; i < count; i++) s->path[i] = NAME(from_words)(keys + 3 * i);
    s->path_len = count;
    return 1;
}

static void NAME(take_limits)(NAME(C) *s, const int64_t *io, double deadline) {
    s->nodes = io[0];
    s->next_check = io[1];
    s->max_nodes = io[2];
    s->contempt = io[3];
    s->root_turn = (int)io[4];
    s->reductions = (int)io[5];
    s->deadline = deadline;
}

static int NAME(root)(void *ctx, const uint64_t *x, const uint64_t *o, int depth, const int32_t *moves, int count,
                      int64_t *io, double deadline, int64_t *out, int64_t *scores) {
    NAME(C) *s = ctx;
    NAME(load)(s, x, o);
    NAME(take_limits)(s, io, deadline);
    int64_t root_margin = io[6];
    s->partial_done = 0;
    s->partial_move = moves[0];
    s->partial_score = 0;
    if (setjmp(s->stop)) {
        io[0] = s->nodes;
        io[1] = s->next_check;
        out[2] = s->partial_done;
        out[3] = s->partial_move;
        out[4] = s->partial_score;
        return 1;
    }
    int mover = s->turn;
    int64_t alpha = -INF, beta = INF;
    BOARD key = NAME(key)(s);
    int best_move = moves[0];
    for (int i = 0; i < count; i++) {
        int move = moves[i];
        BOARD cell = NAME(push)(s, move);
        s->nodes++;
        int winner = NAME(winner_after_push)(s, cell);
        int64_t score;
        if (winner >= 0) {
            score = winner == mover ? WIN - 1 : -(WIN - 1);
        } else if (i == 0) {
            score = -NAME(negamax)(s, depth - 1, -beta, -alpha, 1);
        } else {
            int64_t floor = alpha > -INF ? alpha - root_margin : alpha;
            score = -NAME(negamax)(s, depth - 1, -floor - 1, -floor, 1);
            if (score > floor) score = -NAME(negamax)(s, depth - 1, -beta, -floor, 1);
        }
        NAME(pop)(s, cell);
        scores[i] = score;
        if (score > alpha) {
            alpha = score;
            best_move = move;
        }
        s->partial_done = i + 1;
        s->partial_move = best_move;
        s->partial_score = alpha;
    }
    NAME(tt_store)(s, key, depth, EXACT, alpha, best_move, 0);
    io[0] = s->nodes;
    io[1] = s->next_check;
    out[0] = alpha;
    out[1] = best_move;
    return 0;
}

static int NAME(negamax_entry)(void *ctx, const uint64_t *x, const uint64_t *o, int depth, int64_t alpha,
                               int64_t beta, int ply, int64_t *io, double deadline, int64_t *out) {
    NAME(C) *s = ctx;
    NAME(load)(s, x, o);
    NAME(take_limits)(s, io, deadline);
    if (setjmp(s->stop)) {
        io[0] = s->nodes;
        io[1] = s->next_check;
        return 1;
    }
    out[0] = NAME(negamax)(s, depth, alpha, beta, ply);
    io[0] = s->nodes;
    io[1] = s->next_check;
    return 0;
}

static int NAME(table_move)(void *ctx, const uint64_t *x, const uint64_t *o) {
    NAME(C) *s = ctx;
    NAME(load)(s, x, o);
    NAME(entry_t) *e = NAME(tt_find)(s, NAME(key)(s));
    return e ? e->move : 0;
}

static void NAME(probe)(void *ctx, const uint64_t *x, const uint64_t *o, int64_t *out) {
    NAME(C) *s = ctx;
    NAME(load)(s, x, o);
    out[0] = NAME(evaluate)(s, NAME(winning_cells)(s, s->m[s->turn]));
    out[1] = NAME(has_winning_move)(s);
    out[2] = NAME(opponent_has_winning_move)(s);
    BOARD key = NAME(key)(s);
    for (int i = 0; i < 3; i++) { /* its words: shifted by 32 twice (a shift of 64 is undefined for uint64_t) */
        out[3 + i] = (int64_t)B_LOW(key);
        key = B_SHR(B_SHR(key, 32), 32);
    }
    int moves[C4S_MAX_W], count = NAME(legal_moves)(s, moves);
    out[6] = count;
    for (int i = 0; i < count; i++) {
        BOARD cell = NAME(push)(s, moves[i]);
        out[7 + i] = moves[i];
        out[7 + s->width + i] = NAME(winner_after_push)(s, cell);
        NAME(pop)(s, cell);
    }
}

#endif /* C4S_BODY */
