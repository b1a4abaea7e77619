/* The Connect Four solver's native core: engines/connect4_solver.py's search (Pons's negamax with null
 * windows, bounds from the discs left, only non-losing moves, children ordered by the winning cells they
 * make then centre first, a child whose stored upper bound refutes it cut without a call, and `settle`
 * where only a win with the mover's next disc reaches beta) in C, move for move and node for node.
 *
 * The transposition table has the Python dict's policy exactly: bounds keyed by position + mask, an
 * entry updated in place keeps its age, and a store into a table of table_size entries or more first
 * drops the oldest half (by first insertion). So the node counts equal the Python path's at every
 * table size. It is a linear-probing hash table (at most half full) whose entries carry their insertion
 * number, which finds the oldest half. It starts at 4,096 slots and doubles, but a move's table (a
 * table_size of 2^21 entries or fewer: its full table takes C4_JUMP_MAX slots or fewer) goes from
 * C4_JUMP_FROM slots at once to the slots it takes when full. Each doubling places every entry again, in
 * memory the kernel must first zero: in 0.74 s proofs (an engine's move, Begin-Hard positions) the
 * doublings took 14% of the CPU, and 3% with the jump; a search that outgrows a megabyte mostly goes on
 * to fill the table. A larger table is kept for many positions and outlives the proof that grew it:
 * spread over slots it does not fill, it would make every later short proof read memory instead of cache
 * (Pons's Middle-Easy set after a proof that jumped: 0.19 ms a position instead of 0.07), so it doubles.
 *
 * Boards are width x (height + 1) bits in Pons's layout, in the smallest of the three board types of
 * board.h that holds them (uint64_t, unsigned __int128, u192: three 64-bit words, for 10x12 to 12x12).
 * The search is written once below (after #else) on board.h's operations B_AND, B_ADD, B_SHL... (the
 * plain operators for the two integer types, u192's inline functions for the third), and compiled for
 * each board type by including this file into itself with B_KIND, BOARD and NAME defined.
 */
#ifndef C4_BODY

#ifndef _DEFAULT_SOURCE /* (Python.h defines it too) */
#define _DEFAULT_SOURCE /* clock_gettime, mmap's MAP_ANONYMOUS and madvise under -std=c11 */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"  /* u128, u192, popcount64/128/192 and the board operations B_* */
#include "memory.h" /* now_monotonic, slots_alloc, slots_free */

#define C4_OUT_OF_BUDGET (-1000)
#define C4_CHECK_EVERY 4096
#define C4_EMPTY 0
#define C4_OFFSET 1024 /* stored value + C4_OFFSET in a uint16_t; 0 marks an empty slot */
#define C4_MAX_W 12
#define C4_MAX_CELLS 144 /* 12 x 12 */
#define C4_JUMP_FROM (UINT64_C(1) << 17) /* a doubling to this many slots or more jumps (from 1 MiB at 7 x 6) */
#define C4_JUMP_MAX (UINT64_C(1) << 22)  /* the slots of the largest table that jumps: a move's, 2^21 entries */

static inline uint64_t hash64(uint64_t key) { return key * 0x9E3779B97F4A7C15ull; }
static inline uint64_t hash128(u128 key) {
    return ((uint64_t)key ^ ((uint64_t)(key >> 64) * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull;
}
static inline uint64_t hash192(u192 key) {
    return (key.w[0] ^ (key.w[1] * 0xC2B2AE3D27D4EB4Full) ^ (key.w[2] * 0x165667B19E3779F9ull)) *
           0x9E3779B97F4A7C15ull;
}

/* What the three board types share, first in each solver so the exported functions can read it. */
typedef struct {
    int bits; /* 64, 128 or 192 */
    int width, height;
    volatile int stop; /* set from another thread: the search stops at its next look */
    uint64_t nodes;
    int low, high;   /* the score's bounds during a search */
    int root_column; /* after a search: the 0-based column of a root move proved to reach its result, or -1 */
} head_t;

#define C4_BODY
#define B_KIND INT
#define BOARD uint64_t
#define NAME(x) x##_64
#define POPCOUNT popcount64
#define HASH hash64
#include "connect4_solver.c" /* this file, again: the body below */
#undef BOARD
#undef NAME
#undef POPCOUNT
#undef HASH
#undef SLOT_OF
#define BOARD u128
#define NAME(x) x##_128
#define POPCOUNT popcount128
#define HASH hash128
#include "connect4_solver.c" /* this file, again: the body below */
#undef BOARD
#undef NAME
#undef POPCOUNT
#undef HASH
#undef SLOT_OF
#undef B_KIND
#define B_KIND 192
#define BOARD u192
#define NAME(x) x##_192
#define POPCOUNT popcount192
#define HASH hash192
#include "connect4_solver.c" /* this file, again: the body below */
#undef C4_BODY

/* ---- the interface (its Python module: py_connect4_solver.c) ---- */

void *c4_new(int width, int height, int64_t table_size) {
    if (width < 4 || height < 4 || width > C4_MAX_W || height > 12 || table_size < 0) return NULL;
    int bits = width * (height + 1);
    if (bits <= 64) return new_64(width, height, table_size);
    if (bits <= 128) return new_128(width, height, table_size);
    return new_192(width, height, table_size);
}

void c4_free(void *solver) {
    if (solver == NULL) return;
    switch (((head_t *)solver)->bits) {
        case 64: free_64(solver); break;
        case 128: free_128(solver); break;
        default: free_192(solver);
    }
}

/* An empty table; the node count is kept (Solver.tidy, between positions). */
void c4_clear(void *solver) {
    switch (((head_t *)solver)->bits) {
        case 64: reset_64(solver); break;
        case 128: reset_128(solver); break;
        default: reset_192(solver);
    }
}

/* An empty table and no nodes (Solver.reset). */
void c4_reset(void *solver) {
    c4_clear(solver);
    ((head_t *)solver)->nodes = 0;
}

uint64_t c4_nodes(void *solver) { return ((head_t *)solver)->nodes; }
int c4_low(void *solver) { return ((head_t *)solver)->low; }
int c4_high(void *solver) { return ((head_t *)solver)->high; }
int c4_root_move(void *solver) { return ((head_t *)solver)->root_column; }
/* Ask a search running on another thread to stop (1), or clear the request (0) before starting one. */
void c4_stop(void *solver, int stop) { ((head_t *)solver)->stop = stop; }

uint64_t c4_table_entries(void *solver) {
    switch (((head_t *)solver)->bits) {
        case 64: return entries_64(solver);
        case 128: return entries_128(solver);
        default: return entries_192(solver);
    }
}

/* The score of the position (current, mask: each board as three 64-bit words, lowest first), or
 * C4_OUT_OF_BUDGET when max_nodes (>= 0) nodes were visited, the deadline (a CLOCK_MONOTONIC time,
 * when has_deadline) passed, or c4_stop was called (looked at every C4_CHECK_EVERY nodes when watch
 * or has_deadline). The score is proved only against low and high (Solver.solve's window): a result
 * <= low says the score is <= low, one >= high that it is >= high; between them it is exact. */
int c4_solve(void *solver, uint64_t current_0, uint64_t current_1, uint64_t current_2, uint64_t mask_0,
             uint64_t mask_1, uint64_t mask_2, int moves, int64_t max_nodes, int has_deadline, double deadline,
             int watch, int low, int high) {
    switch (((head_t *)solver)->bits) {
        case 64: return solve_64(solver, current_0, mask_0, moves, max_nodes, has_deadline, deadline, watch, low, high);
        case 128: {
            u128 current = ((u128)current_1 << 64) | current_0, mask = ((u128)mask_1 << 64) | mask_0;
            return solve_128(solver, current, mask, moves, max_nodes, has_deadline, deadline, watch, low, high);
        }
        default:
            return solve_192(solver, U192(current_0, current_1, current_2), U192(mask_0, mask_1, mask_2), moves,
                             max_nodes, has_deadline, deadline, watch, low, high);
    }
}

/* For the tests: u192's operation `op` on a and b (n: the shift), the board result in out, the int
 * result returned. op: 0 and, 1 or, 2 xor, 3 not a, 4 add, 5 sub, 6 a << n, 7 a >> n, 8 a == b,
 * 9 a != 0, 10 lowest bit of a, 11 a without it, 12 bits set in a, 13 the hash of a. */
int c4_u192_op(int op, const uint64_t *a, const uint64_t *b, int n, uint64_t *out) {
    u192 x = U192(a[0], a[1], a[2]), y = U192(b[0], b[1], b[2]), r = U192(0, 0, 0);
    int result = 0;
    switch (op) {
        case 0: r = and192(x, y); break;
        case 1: r = or192(x, y); break;
        case 2: r = xor192(x, y); break;
        case 3: r = not192(x); break;
        case 4: r = add192(x, y); break;
        case 5: r = sub192(x, y); break;
        case 6: r = shl192(x, n); break;
        case 7: r = shr192(x, n); break;
        case 8: result = eq192(x, y); break;
        case 9: result = any192(x); break;
        case 10: r = lowest192(x); break;
        case 11: r = drop_lowest192(x); break;
        case 12: result = popcount192(x); break;
        case 13: r = U192(hash192(x), 0, 0); break;
        default: return -1;
    }
    memcpy(out, r.w, sizeof r.w);
    return result;
}

#else /* C4_BODY: the search for one board type */

typedef struct {
    BOARD key;
    uint32_t age;   /* insertion number: the entries present hold the numbers first..next-1 */
    uint16_t value; /* stored value + C4_OFFSET; C4_EMPTY for an empty slot */
} NAME(slot_t);

typedef struct {
    head_t head;
    int size, h;
    BOARD bottom, board;
    BOARD columns[C4_MAX_W]; /* column masks, centre first */
    int priority[C4_MAX_W];  /* of the column at the same index of columns */
    int column_of[C4_MAX_W]; /* and its index on the board */
    int losses[C4_MAX_CELLS + 1], lows[C4_MAX_CELLS + 1], highs[C4_MAX_CELLS + 1], next_win_only[C4_MAX_CELLS + 1];
    int lower, split;
    int root_plies;  /* the discs of the position being solved: a node with as many is the root */
    BOARD root_move; /* the root move that failed high in the current null-window search, or 0 */
    /* table: linear probing, at most half full */
    NAME(slot_t) *slots;
    uint64_t capacity, entries, table_size;
    uint32_t first, next; /* the oldest entry's insertion number, and the next one's */
    /* budget */
    uint64_t stop_at, limit;
    int has_limit, has_deadline, watch, aborted;
    double deadline;
} NAME(solver_t);

typedef struct {
    int score;
    BOARD move, threats;
} NAME(child_t);

static inline BOARD NAME(winning_cells)(BOARD discs, BOARD empty, int h) {
    BOARD r = B_AND(B_AND(B_SHL(discs, 1), B_SHL(discs, 2)), B_SHL(discs, 3));
    int ds[3] = {h + 1, h, h + 2};
    for (int i = 0; i < 3; i++) {
        int d = ds[i];
        BOARD q = B_AND(B_SHL(discs, d), B_SHL(discs, 2 * d));
        r = B_OR(r, B_AND(q, B_SHL(discs, 3 * d)));
        r = B_OR(r, B_AND(q, B_SHR(discs, d)));
        q = B_AND(B_SHR(discs, d), B_SHR(discs, 2 * d));
        r = B_OR(r, B_AND(q, B_SHL(discs, d)));
        r = B_OR(r, B_AND(q, B_SHR(discs, 3 * d)));
    }
    return B_AND(r, empty);
}

#define SLOT_OF(key, m) (HASH(key) >> 20 & (m))

/* The stored value + C4_OFFSET, or C4_EMPTY. */
static inline int NAME(table_get)(const NAME(solver_t) *s, BOARD key) {
    uint64_t m = s->capacity - 1, i = SLOT_OF(key, m);
    for (;;) {
        const NAME(slot_t) *slot = &s->slots[i];
        if (slot->value == C4_EMPTY) return C4_EMPTY;
        if (B_EQ(slot->key, key)) return slot->value;
        i = (i + 1) & m;
    }
}

/* Place an entry known to be absent (a rebuild). */
static inline void NAME(table_place)(NAME(slot_t) *slots, uint64_t m, NAME(slot_t) entry) {
    uint64_t i = SLOT_OF(entry.key, m);
    while (slots[i].value != C4_EMPTY) i = (i + 1) & m;
    slots[i] = entry;
}

/* More slots (twice as many, or the jump: see the top of the file), the same entries. */
static void NAME(table_grow)(NAME(solver_t) *s) {
    uint64_t capacity = 2 * s->capacity;
    if (capacity >= C4_JUMP_FROM && s->table_size >= 2) { /* (a table that never trims has no full size) */
        uint64_t full = capacity; /* the slots of a full table, at most half of them taken */
        while (full < 2 * s->table_size) full *= 2;
        if (full <= C4_JUMP_MAX) capacity = full;
    }
    uint64_t m = capacity - 1;
    NAME(slot_t) *slots = slots_alloc(capacity * sizeof *slots);
    if (slots == NULL) abort();
    for (uint64_t i = 0; i < s->capacity; i++)
        if (s->slots[i].value != C4_EMPTY) NAME(table_place)(slots, m, s->slots[i]);
    slots_free(s->slots, s->capacity * sizeof *slots);
    s->slots = slots;
    s->capacity = capacity;
}

/* The Python trim: drop the ``drop`` oldest entries, in place, in one pass round the ring from a slot
 * empty before the trim (so no probe run crosses it): an old entry is emptied, any other taken out and
 * placed again, which closes the gaps in the probe runs. Each entry moves only back towards its home
 * slot, into slots already gone over, so the runs of those placed stay whole (and memory is read in
 * order). */
static void NAME(table_trim)(NAME(solver_t) *s, uint32_t drop) {
    uint64_t m = s->capacity - 1, start = 0;
    while (s->slots[start].value != C4_EMPTY) start++;
    for (uint64_t k = 1; k < s->capacity; k++) {
        NAME(slot_t) *slot = &s->slots[(start + k) & m];
        if (slot->value != C4_EMPTY) {
            NAME(slot_t) entry = *slot;
            slot->value = C4_EMPTY;
            if (entry.age - s->first >= drop) NAME(table_place)(s->slots, m, entry);
        }
    }
    s->first += drop;
    s->entries -= drop;
}

/* ``if len(table) >= table_size: trim()``, then ``table[key] = value``: an entry updated in place
 * keeps its age, as in a Python dict. */
static inline void NAME(store)(NAME(solver_t) *s, BOARD key, int value) {
    if (s->entries >= s->table_size && s->table_size / 2 > 0) NAME(table_trim)(s, (uint32_t)(s->table_size / 2));
    uint64_t m = s->capacity - 1, i = SLOT_OF(key, m);
    for (;;) {
        NAME(slot_t) *slot = &s->slots[i];
        if (slot->value == C4_EMPTY) {
            slot->key = key;
            slot->value = (uint16_t)(value + C4_OFFSET);
            slot->age = s->next++;
            if (2 * ++s->entries > s->capacity) NAME(table_grow)(s);
            return;
        }
        if (B_EQ(slot->key, key)) {
            slot->value = (uint16_t)(value + C4_OFFSET);
            return;
        }
        i = (i + 1) & m;
    }
}

static void *NAME(new)(int width, int height, int64_t table_size) {
    NAME(solver_t) *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    int h1 = height + 1, size = width * height;
    s->head.bits = (int)(8 * sizeof(BOARD));
    s->head.width = width;
    s->head.height = height;
    s->size = size;
    s->h = height;
    BOARD column = B_WORD((UINT64_C(1) << height) - 1);
    for (int c = 0; c < width; c++) {
        s->bottom = B_OR(s->bottom, B_SHL(B_WORD(1), c * h1));
        s->board = B_OR(s->board, B_SHL(column, c * h1));
    }
    /* Centre first: sorted by (|2c - (w - 1)|, c); priority = w - rank. */
    int rank = 0;
    for (int distance = 0; distance < 2 * width; distance++)
        for (int c = 0; c < width; c++)
            if (abs(2 * c - (width - 1)) == distance) {
                s->columns[rank] = B_SHL(column, c * h1);
                s->priority[rank] = width - rank;
                s->column_of[rank] = c;
                rank++;
            }
    for (int n = 0; n < size; n++) {
        s->losses[n] = -((size - n) / 2);
        s->lows[n] = n < size - 2 ? -((size - 2 - n) / 2) : 0;
        s->highs[n] = n < size - 2 ? (size - 1 - n) / 2 : 0;
    }
    for (int n = 0; n < size; n++) s->next_win_only[n] = n + 1 < size - 2 ? -s->lows[n + 1] : size;
    s->lower = 4 * size;
    s->split = 2 * size;
    s->table_size = (uint64_t)table_size;
    s->capacity = 4096;
    s->slots = slots_alloc(s->capacity * sizeof *s->slots);
    if (s->slots == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

static void NAME(free)(void *solver) {
    NAME(solver_t) *s = solver;
    slots_free(s->slots, s->capacity * sizeof *s->slots);
    free(s);
}

static void NAME(reset)(void *solver) {
    NAME(solver_t) *s = solver;
    NAME(slot_t) *small = slots_alloc(4096 * sizeof *small);
    if (small != NULL) {
        slots_free(s->slots, s->capacity * sizeof *s->slots);
        s->slots = small;
        s->capacity = 4096;
    } else {
        memset(s->slots, 0, s->capacity * sizeof *s->slots);
    }
    s->entries = 0;
    s->first = s->next = 0;
}

static uint64_t NAME(entries)(void *solver) { return ((NAME(solver_t) *)solver)->entries; }

/* The Python stopper: 1 (and aborted) when the budget is spent, else the next node count to look at. */
static int NAME(check)(NAME(solver_t) *s) {
    uint64_t nodes = s->head.nodes;
    if ((s->has_limit && nodes >= s->limit) || (s->has_deadline && now_monotonic() >= s->deadline) || s->head.stop) {
        s->aborted = 1;
        s->stop_at = UINT64_MAX;
        return 1;
    }
    uint64_t upto = (s->has_deadline || s->watch) ? nodes + C4_CHECK_EVERY : (s->has_limit ? s->limit : UINT64_MAX);
    if (s->has_limit && s->limit < upto) upto = s->limit;
    s->stop_at = upto;
    return 0;
}

static int NAME(settle)(NAME(solver_t) *s, BOARD key, BOARD mask, int moves, int alpha, const NAME(child_t) *children,
                        int count) {
    int i;
    for (i = 0; i < count; i++) {
        BOARD threats = children[i].threats;
        BOARD playable = B_AND(B_ADD(B_OR(mask, children[i].move), s->bottom), s->board);
        BOARD forced = B_AND(playable, threats);
        if (B_ANY(forced)) {
            if (B_ANY(B_DROP_LOWEST(forced)) || !B_ANY(B_AND(forced, B_NOT(B_SHR(threats, 1))))) break;
        } else if (!B_ANY(B_AND(playable, B_NOT(B_SHR(threats, 1))))) {
            break;
        }
    }
    if (i == count) {
        NAME(store)(s, key, alpha);
        return alpha;
    }
    int score = -s->losses[moves + 1];
    NAME(store)(s, key, score + s->lower);
    return score;
}

/* Precondition: the side to move cannot win at once; opp_wins = the opponent's winning cells. */
static int NAME(negamax)(NAME(solver_t) *s, BOARD current, BOARD mask, int moves, int alpha, int beta, BOARD opp_wins) {
    if (++s->head.nodes >= s->stop_at && NAME(check)(s)) return 0;
    const BOARD board = s->board;
    BOARD possible = B_AND(B_ADD(mask, s->bottom), board);
    BOARD forced = B_AND(possible, opp_wins);
    if (B_ANY(forced)) {
        if (B_ANY(B_DROP_LOWEST(forced))) return s->losses[moves];
        possible = forced;
    }
    possible = B_AND(possible, B_NOT(B_SHR(opp_wins, 1)));
    if (!B_ANY(possible)) return s->losses[moves];
    int low = s->lows[moves];
    if (alpha < low) {
        alpha = low;
        if (alpha >= beta) return alpha;
    }
    int high = s->highs[moves];
    BOARD key = B_ADD(current, mask);
    if (B_ANY(B_DROP_LOWEST(possible))) {
        /* The children's entries are read below (and again by each child): fetch them now. */
        const BOARD child_keys = B_ADD(B_XOR(current, mask), mask);
        const uint64_t m = s->capacity - 1;
        for (BOARD rest = possible; B_ANY(rest); rest = B_DROP_LOWEST(rest))
            __builtin_prefetch(&s->slots[SLOT_OF(B_ADD(child_keys, B_LOWEST(rest)), m)]);
    }
    int stored = NAME(table_get)(s, key);
    if (stored != C4_EMPTY) {
        int value = stored - C4_OFFSET;
        if (value > s->split) {
            low = value - s->lower;
            if (alpha < low) {
                alpha = low;
                if (alpha >= beta) return alpha;
            }
        } else {
            high = value;
        }
    }
    if (beta > high) {
        beta = high;
        if (alpha >= beta) return beta;
    }
    BOARD opponent = B_XOR(current, mask);
    NAME(child_t) children[C4_MAX_W];
    int count = 0;
    const int h = s->h;
    if (!B_ANY(B_DROP_LOWEST(possible))) {
        children[0].score = 0;
        children[0].move = possible;
        children[0].threats = NAME(winning_cells)(B_OR(current, possible), B_XOR(board, mask), h);
        count = 1;
        if (alpha >= s->next_win_only[moves]) return NAME(settle)(s, key, mask, moves, alpha, children, 1);
    } else {
        const int width = s->head.width;
        const BOARD child_keys = B_ADD(opponent, mask);
        for (int c = 0; c < width; c++) {
            BOARD move = B_AND(possible, s->columns[c]);
            if (B_ANY(move)) {
                children[count].score = s->priority[c];
                children[count].move = move;
                children[count].threats = NAME(winning_cells)(B_OR(current, move), B_XOR(board, mask), h);
                count++;
            }
        }
        if (alpha >= s->next_win_only[moves]) return NAME(settle)(s, key, mask, moves, alpha, children, count);
        for (int i = 0; i < count; i++) {
            /* A child whose stored upper bound already refutes it cuts here, without a call. */
            int child = NAME(table_get)(s, B_ADD(child_keys, children[i].move));
            if (child != C4_EMPTY) {
                int value = -(child - C4_OFFSET);
                if (value >= beta) {
                    if (moves == s->root_plies) s->root_move = children[i].move;
                    return value;
                }
            }
            children[i].score += POPCOUNT(children[i].threats) * 16;
        }
        /* Insertion sort, highest score first (scores differ: the priorities do). */
        for (int i = 1; i < count; i++) {
            NAME(child_t) item = children[i];
            int j = i;
            while (j > 0 && children[j - 1].score < item.score) {
                children[j] = children[j - 1];
                j--;
            }
            children[j] = item;
        }
    }
    for (int i = 0; i < count; i++) {
        int score = -NAME(negamax)(s, opponent, B_OR(mask, children[i].move), moves + 1, -beta, -alpha,
                                   children[i].threats);
        if (s->aborted) return 0;
        if (score >= beta) {
            NAME(store)(s, key, score + s->lower);
            if (moves == s->root_plies) s->root_move = children[i].move;
            return score;
        }
        if (score > alpha) alpha = score;
    }
    NAME(store)(s, key, alpha);
    return alpha;
}

static int NAME(solve)(void *solver, BOARD current, BOARD mask, int moves, int64_t max_nodes, int has_deadline,
                       double deadline, int watch, int low_limit, int high_limit) {
    NAME(solver_t) *s = solver;
    s->aborted = 0;
    s->has_limit = max_nodes >= 0;
    s->limit = s->has_limit ? s->head.nodes + (uint64_t)max_nodes : 0;
    s->has_deadline = has_deadline;
    s->deadline = deadline;
    s->watch = watch;
    s->stop_at = UINT64_MAX;
    s->head.root_column = -1;
    if ((s->has_limit || has_deadline || watch) && NAME(check)(s)) return C4_OUT_OF_BUDGET;
    int size = s->size;
    if (B_ANY(NAME(winning_cells)(current, B_AND(B_ADD(mask, s->bottom), s->board), s->h))) return (size + 1 - moves) / 2;
    BOARD opponent_wins = NAME(winning_cells)(B_XOR(current, mask), B_AND(s->board, B_NOT(mask)), s->h);
    int low = -((size - moves) / 2), high = (size + 1 - moves) / 2;
    if (low < low_limit) low = low_limit; /* the window: Solver._solve */
    if (high > high_limit) high = high_limit;
    /* The last root move a search failed high with, and its score: it reaches the result if that score
     * does (a search can fail high on a bound alone, with no move). */
    BOARD proved = B_WORD(0);
    int proved_score = low;
    s->root_plies = moves;
    while (low < high) {
        s->head.low = low;
        s->head.high = high;
        int mid = low + (high - low) / 2;
        if (mid <= 0 && low / 2 < mid)
            mid = low / 2;
        else if (mid >= 0 && high / 2 > mid)
            mid = high / 2;
        s->root_move = B_WORD(0);
        int score = NAME(negamax)(s, current, mask, moves, mid, mid + 1, opponent_wins);
        if (s->aborted) return C4_OUT_OF_BUDGET;
        if (score <= mid) {
            high = score;
        } else {
            low = score;
            if (B_ANY(s->root_move)) {
                proved = s->root_move;
                proved_score = score;
            }
        }
    }
    if (proved_score >= low)
        for (int rank = 0; rank < s->head.width; rank++)
            if (B_ANY(B_AND(proved, s->columns[rank]))) s->head.root_column = s->column_of[rank];
    return low;
}

#endif /* C4_BODY */
