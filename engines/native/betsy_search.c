/* The Betsy alpha-beta core: the rules of harness/games/betsy/rules.py, the evaluation of
 * engines/evaluation.py and the negamax of engines/search/alphabeta.py (AlphaBeta._root and
 * _negamax), move for move, so that a fixed-depth search returns the same value, best move and
 * node count as the Python one. Driven from engines/search/native_betsy.py through its Python module
 * (py_betsy_search.c).
 *
 * Boards. Cell (column c, height h) is bit c * (n + 3) + h, as in the Python rules. A board of
 * n <= 16 has up to 304 cells, so each colour is an array of up to five 64-bit words (only
 * n <= 6 fits one word, n <= 9 two): one representation for every size the project supports, the
 * loops running over the words the size needs (one at n = 5, two at n = 8). Each colour's column
 * contents are also kept as small ints (bit h = height h), for rotations and the evaluation's
 * column terms.
 *
 * Positions cross the boundary as the Python key (Position.key(): bit 0 the side to move, then
 * the x cells, then the o cells) in little-endian bytes. The transposition table's key is exact
 * and more compact: each column as its x bits plus a sentinel bit above its height, n + 4 bits a
 * column, and the side to move (46 bits at n = 5: one word).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXN 16
#define MAXW 5
#define MAXKW 6
#define MAXLINES (2 * MAXN + 2)
#define MAXMOVES (2 * MAXN)
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
#define PATH_FILTER 4096

typedef struct {
    uint64_t w[MAXKW];
    uint64_t hash;
} Key;

typedef struct {
    int64_t score;
    int16_t depth;
    int8_t flag; /* -1: empty slot */
    int8_t move;
} Entry;

typedef struct {
    /* geometry */
    int n, height, cells, supply, nw, kw, blue_priority;
    uint64_t lines[MAXLINES][MAXW];
    int line_column[MAXLINES]; /* the column a column line lies in, else -1 */
    int nlines;
    uint8_t *cell_lines;  /* cells x 4 line indices, 255 = none */
    uint8_t *column_lines; /* n x MAXLINES */
    int column_nlines[MAXN];
    /* evaluation */
    int64_t open_values[MAXN + 1], blocked_values[MAXN + 1], stack_values[MAXN + 1];
    int ring, stack;
    int64_t ring_line_value, tempo;
    int64_t *hand; /* indexed by (o pebbles - x pebbles) + supply */
    int64_t *ring_cache;
    uint8_t *ring_known;
    /* position */
    uint64_t m[2][MAXW];
    uint32_t col[2][MAXN];
    int heights[MAXN];
    int count[2];
    int turn;
    uint64_t key[MAXKW]; /* the table key of the position, kept up to date by push and pop */
    int turn_word;
    uint64_t turn_bit;
    /* search */
    int64_t nodes, next_check, max_nodes, contempt, repetitions;
    double deadline; /* < 0: none */
    int root_turn, reductions;
    int killers[MAX_PLY][2];
    int64_t history[2][2 * MAXN + 1];
    jmp_buf stop;
    int64_t partial_done, partial_move, partial_score;
    /* transposition table */
    uint64_t *tkeys; /* the table's slots */
    int64_t slots, used, limit;
    /* search path (a set of keys) */
    Key *path;
    int path_len, path_cap;
    uint16_t path_filter[PATH_FILTER];
} Ctx;

/* ---- bits ------------------------------------------------------------------------------------ */

/* Bits set: the processor's instruction where the build has it (-mpopcnt, build.py), else inline
 * (without it __builtin_popcountll is a library call). */
static inline int popcount64(uint64_t v) {
#ifdef __POPCNT__
    return __builtin_popcountll(v);
#endif
    v = v - ((v >> 1) & 0x5555555555555555ULL);
    v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((v * 0x0101010101010101ULL) >> 56);
}

static inline int same_words(const uint64_t *a, const uint64_t *b, int count) {
    for (int i = 0; i < count; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

static inline uint32_t col_get(const uint64_t *w, int base, int height) {
    int wi = base >> 6, off = base & 63;
    uint64_t v = w[wi] >> off;
    if (off + height > 64) v |= w[wi + 1] << (64 - off);
    return (uint32_t)(v & ((1ULL << height) - 1));
}

static inline void col_set(uint64_t *w, int base, int height, uint32_t bits) {
    int wi = base >> 6, off = base & 63;
    uint64_t mask = (1ULL << height) - 1;
    w[wi] = (w[wi] & ~(mask << off)) | ((uint64_t)bits << off);
    if (off + height > 64) {
        int s = 64 - off;
        w[wi + 1] = (w[wi + 1] & ~(mask >> s)) | ((uint64_t)bits >> s);
    }
}

static inline int line_full(const Ctx *s, const uint64_t *m, int line) {
    const uint64_t *l = s->lines[line];
    for (int i = 0; i < s->nw; i++)
        if ((m[i] & l[i]) != l[i]) return 0;
    return 1;
}

static int64_t floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

/* ---- position -------------------------------------------------------------------------------- */

static void build_key(Ctx *s);

static void load_key(Ctx *s, const uint8_t *bytes) {
    memset(s->m, 0, sizeof s->m);
    s->turn = bytes[0] & 1;
    for (int colour = 0; colour < 2; colour++)
        for (int i = 0; i < s->cells; i++) {
            int bit = 1 + colour * s->cells + i;
            if (bytes[bit >> 3] >> (bit & 7) & 1) s->m[colour][i >> 6] |= 1ULL << (i & 63);
        }
    s->count[0] = s->count[1] = 0;
    for (int c = 0; c < s->n; c++) {
        for (int colour = 0; colour < 2; colour++) {
            s->col[colour][c] = col_get(s->m[colour], c * s->height, s->height);
            s->count[colour] += popcount64(s->col[colour][c]);
        }
        s->heights[c] = popcount64(s->col[0][c] | s->col[1][c]);
    }
    build_key(s);
}

static void save_key(const Ctx *s, uint8_t *bytes, int nbytes) {
    memset(bytes, 0, (size_t)nbytes);
    bytes[0] = (uint8_t)s->turn;
    for (int colour = 0; colour < 2; colour++)
        for (int i = 0; i < s->cells; i++)
            if (s->m[colour][i >> 6] >> (i & 63) & 1) {
                int bit = 1 + colour * s->cells + i;
                bytes[bit >> 3] |= (uint8_t)(1 << (bit & 7));
            }
}

static inline void key_column(Ctx *s, int c) {
    int stride = s->height + 1, pos = c * stride, wi = pos >> 6, off = pos & 63;
    uint64_t mask = (1ULL << stride) - 1, v = s->col[0][c] | (1ULL << s->heights[c]);
    s->key[wi] = (s->key[wi] & ~(mask << off)) | (v << off);
    if (off + stride > 64) {
        int shift = 64 - off;
        s->key[wi + 1] = (s->key[wi + 1] & ~(mask >> shift)) | (v >> shift);
    }
}

/* The key from scratch (after load_key). */
static void build_key(Ctx *s) {
    memset(s->key, 0, sizeof s->key);
    for (int c = 0; c < s->n; c++) key_column(s, c);
    int pos = s->n * (s->height + 1);
    s->turn_word = pos >> 6;
    s->turn_bit = 1ULL << (pos & 63);
    if (s->turn) s->key[s->turn_word] |= s->turn_bit;
}

static uint64_t hash_words(const uint64_t *w, int count) {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < count; i++) {
        h ^= w[i];
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
    }
    return h;
}

static inline void make_key(const Ctx *s, Key *k) {
    for (int i = 0; i < s->kw; i++) k->w[i] = s->key[i];
    k->hash = hash_words(k->w, s->kw);
}

/* The position a compact key stands for (the inverse of make_key). */
static void unmake_key(Ctx *s, const Key *k) {
    int stride = s->height + 1, pos = 0;
    memset(s->m, 0, sizeof s->m);
    s->count[0] = s->count[1] = 0;
    for (int c = 0; c < s->n; c++, pos += stride) {
        int wi = pos >> 6, off = pos & 63;
        uint64_t v = k->w[wi] >> off;
        if (off + stride > 64) v |= k->w[wi + 1] << (64 - off);
        v &= (1ULL << stride) - 1;
        int h = 63 - __builtin_clzll(v);
        uint32_t full = (uint32_t)((1ULL << h) - 1);
        s->heights[c] = h;
        s->col[0][c] = (uint32_t)v & full;
        s->col[1][c] = full ^ s->col[0][c];
        for (int colour = 0; colour < 2; colour++) {
            col_set(s->m[colour], c * s->height, s->height, s->col[colour][c]);
            s->count[colour] += popcount64(s->col[colour][c]);
        }
    }
    s->turn = (int)(k->w[pos >> 6] >> (pos & 63) & 1);
}

static int legal_moves(const Ctx *s, int *moves) {
    int count = 0;
    if (s->count[s->turn] < s->supply)
        for (int c = 0; c < s->n; c++)
            if (s->heights[c] < s->height) moves[count++] = c + 1;
    for (int c = 0; c < s->n; c++)
        if (s->heights[c]) moves[count++] = -(c + 1);
    return count;
}

typedef struct {
    uint32_t x, o;
} Undo;

static inline Undo push(Ctx *s, int move) {
    Undo u;
    int c = (move > 0 ? move : -move) - 1;
    u.x = s->col[0][c];
    u.o = s->col[1][c];
    int base = c * s->height, h = s->heights[c];
    if (move > 0) {
        int t = s->turn, bit = base + h;
        s->m[t][bit >> 6] |= 1ULL << (bit & 63);
        s->col[t][c] |= 1u << h;
        s->heights[c] = h + 1;
        s->count[t]++;
    } else {
        uint32_t top = 1u << (h - 1), xc = u.x, oc = u.o;
        if (xc & 1) {
            xc = (xc >> 1) | top;
            oc >>= 1;
        } else {
            oc = (oc >> 1) | top;
            xc >>= 1;
        }
        s->col[0][c] = xc;
        s->col[1][c] = oc;
        col_set(s->m[0], base, s->height, xc);
        col_set(s->m[1], base, s->height, oc);
    }
    s->turn ^= 1;
    key_column(s, c);
    s->key[s->turn_word] ^= s->turn_bit;
    return u;
}

static inline void pop(Ctx *s, int move, Undo u) {
    int c = (move > 0 ? move : -move) - 1;
    s->turn ^= 1;
    if (move > 0) {
        int t = s->turn, h = s->heights[c] - 1, bit = c * s->height + h;
        s->m[t][bit >> 6] &= ~(1ULL << (bit & 63));
        s->heights[c] = h;
        s->count[t]--;
    } else {
        col_set(s->m[0], c * s->height, s->height, u.x);
        col_set(s->m[1], c * s->height, s->height, u.o);
    }
    s->col[0][c] = u.x;
    s->col[1][c] = u.o;
    key_column(s, c);
    s->key[s->turn_word] ^= s->turn_bit;
}

/* The winner right after push(move), from the lines the move can have changed; -1 for none. */
static int winner_after_push(const Ctx *s, int move) {
    int mover = s->turn ^ 1;
    if (move > 0) {
        int c = move - 1, index = c * s->height + s->heights[c] - 1;
        const uint8_t *lines = s->cell_lines + 4 * index;
        for (int i = 0; i < 4 && lines[i] != 255; i++)
            if (line_full(s, s->m[mover], lines[i])) return mover;
        return -1;
    }
    int c = -move - 1, first = s->blue_priority ? 0 : mover;
    const uint8_t *lines = s->column_lines + MAXLINES * c;
    int count = s->column_nlines[c];
    for (int i = 0; i < count; i++)
        if (line_full(s, s->m[first], lines[i])) return first;
    for (int i = 0; i < count; i++)
        if (line_full(s, s->m[first ^ 1], lines[i])) return first ^ 1;
    return -1;
}

/* The winner by the full check of Position.outcome(); -1 for none. */
static int outcome(const Ctx *s) {
    int first = s->blue_priority ? 0 : s->turn ^ 1;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < s->nlines; i++)
            if (line_full(s, s->m[first ^ k], i)) return first ^ k;
    return -1;
}

static int has_winning_move_by_trying(Ctx *s) {
    int moves[MAXMOVES], mover = s->turn, count = legal_moves(s, moves);
    for (int i = 0; i < count; i++) {
        Undo u = push(s, moves[i]);
        int winner = winner_after_push(s, moves[i]);
        pop(s, moves[i], u);
        if (winner == mover) return 1;
    }
    return 0;
}

/* Position.has_winning_move: only lines missing one of the mover's pebbles can be completed. */
static int has_winning_move(Ctx *s) {
    int mover = s->turn;
    if ((s->blue_priority && mover == 1) || s->n == 1) return has_winning_move_by_trying(s);
    const uint64_t *own = s->m[mover];
    int can_drop = s->count[mover] < s->supply, height = s->height;
    for (int i = 0; i < s->nlines; i++) {
        const uint64_t *line = s->lines[i];
        int missing = 0, index = -1;
        for (int w = 0; w < s->nw; w++) {
            uint64_t miss = line[w] & ~own[w];
            if (miss) {
                missing += popcount64(miss);
                if (missing > 1) break;
                index = w * 64 + __builtin_ctzll(miss);
            }
        }
        if (missing > 1) continue;
        if (!missing) return 1;
        int column = index / height, h = index % height, column_height = s->heights[column];
        uint64_t occupied = (s->m[0][index >> 6] | s->m[1][index >> 6]) >> (index & 63) & 1;
        if (can_drop && h == column_height && !occupied) return 1;
        if (column_height == 0 || h >= column_height) continue;
        if (s->line_column[i] == column) {
            if (column_height == height) {
                Undo u = push(s, -(column + 1));
                int winner = winner_after_push(s, -(column + 1));
                pop(s, -(column + 1), u);
                if (winner == mover) return 1;
            }
            continue;
        }
        int source = h + 1 < column_height ? index + 1 : column * height;
        if (own[source >> 6] >> (source & 63) & 1) return 1;
    }
    return 0;
}

static int opponent_has_winning_move(Ctx *s) {
    s->turn ^= 1;
    int found = has_winning_move(s);
    s->turn ^= 1;
    return found;
}

/* ---- evaluation (engines/evaluation.py, make_evaluator) ---------------------------------------- */

static int longest_cyclic_run(uint64_t bits, int length) {
    if (bits == (1ULL << length) - 1) return length;
    uint64_t doubled = bits | bits << length;
    int best = 0, run = 0;
    for (int i = 0; i < 2 * length; i++) {
        if (doubled >> i & 1) {
            if (++run > best) best = run;
        } else {
            run = 0;
        }
    }
    return best;
}

static int64_t ring_value(uint64_t x_bits, int height, int n, int64_t line_value) {
    if (height < n) return 0;
    int total = n + 3;
    uint64_t full = (1ULL << height) - 1;
    int64_t value = floordiv(line_value, 1 + total - height);
    return (longest_cyclic_run(x_bits, height) >= n ? value : 0) -
           (longest_cyclic_run(full ^ x_bits, height) >= n ? value : 0);
}

static int64_t stack_value(uint64_t x_bits, int height, int n, const int64_t *values) {
    int total = n + 3;
    uint64_t o_bits = ((1ULL << height) - 1) ^ x_bits, window = (1ULL << n) - 1;
    uint64_t doubled_x = x_bits | x_bits << total, doubled_o = o_bits | o_bits << total;
    int best_x = 0, best_o = 0;
    for (int start = 0; start < total; start++) {
        uint64_t xs = (doubled_x >> start) & window, os = (doubled_o >> start) & window;
        if (!os) {
            int k = popcount64(xs);
            if (k > best_x) best_x = k;
        } else if (!xs) {
            int k = popcount64(os);
            if (k > best_o) best_o = k;
        }
    }
    return floordiv(values[best_x] - values[best_o], 1 + total - height);
}

static inline int count_on(const uint64_t *mask, const uint64_t *line, const int nw) {
    int count = 0;
    for (int w = 0; w < nw; w++) count += popcount64(mask[w] & line[w]);
    return count;
}

/* The evaluation's line terms; ``nw`` a constant at each call, so the word loops unroll. */
static inline __attribute__((always_inline)) int64_t line_terms(const Ctx *s, const int nw) {
    int64_t score = 0;
    const uint64_t *x = s->m[0], *o = s->m[1];
    for (int i = 0; i < s->nlines; i++) {
        const uint64_t *line = s->lines[i];
        uint64_t any_x = 0, any_o = 0;
        for (int w = 0; w < nw; w++) {
            any_x |= x[w] & line[w];
            any_o |= o[w] & line[w];
        }
        if (!any_o) {
            if (any_x) score += s->open_values[count_on(x, line, nw)];
            continue;
        }
        if (!any_x) {
            score -= s->open_values[count_on(o, line, nw)];
            continue;
        }
        int xs = count_on(x, line, nw), os = count_on(o, line, nw);
        if (os == 1) {
            score += s->blocked_values[xs];
            if (xs == 1) score -= s->blocked_values[1];
        } else if (xs == 1) {
            score -= s->blocked_values[os];
        }
    }
    return score;
}

static int64_t evaluate(Ctx *s) {
    int64_t score;
    switch (s->nw) {
    case 1: score = line_terms(s, 1); break;
    case 2: score = line_terms(s, 2); break;
    case 3: score = line_terms(s, 3); break;
    case 4: score = line_terms(s, 4); break;
    default: score = line_terms(s, MAXW); break;
    }
    if (s->ring) {
        int n = s->n;
        for (int c = 0; c < n; c++) {
            int h = s->heights[c];
            if (h >= n || (s->stack && h)) {
                uint32_t key = s->col[0][c] | (1u << h);
                if (!s->ring_known[key]) {
                    int64_t value = ring_value(s->col[0][c], h, n, s->ring_line_value);
                    if (s->stack && !value) value = stack_value(s->col[0][c], h, n, s->stack_values);
                    s->ring_cache[key] = value;
                    s->ring_known[key] = 1;
                }
                score += s->ring_cache[key];
            }
        }
    }
    score += s->hand[s->count[1] - s->count[0] + s->supply];
    if (s->turn) score = -score;
    return score + s->tempo;
}

/* ---- transposition table (AlphaBeta.table and _store) ------------------------------------------ */

/* A slot is kw key words then an Entry (two words): one cache line for most probes. */
#define SLOT(s, i) ((s)->tkeys + (i) * ((s)->kw + 2))
#define ENTRY(s, i) ((Entry *)(SLOT(s, i) + (s)->kw))

static int tt_alloc(Ctx *s, int64_t slots) {
    uint64_t *table = malloc((size_t)slots * (size_t)(s->kw + 2) * sizeof(uint64_t));
    if (!table) return 0;
    free(s->tkeys);
    s->tkeys = table;
    s->slots = slots;
    s->used = 0;
    for (int64_t i = 0; i < slots; i++) ENTRY(s, i)->flag = -1;
    return 1;
}

static int64_t tt_slot(const Ctx *s, const uint64_t *key, uint64_t hash) {
    int64_t mask = s->slots - 1, i = (int64_t)(hash & (uint64_t)mask);
    for (;;) {
        if (ENTRY(s, i)->flag < 0) return i;
        if (same_words(SLOT(s, i), key, s->kw)) return i;
        i = (i + 1) & mask;
    }
}

static Entry *tt_find(const Ctx *s, const Key *k) {
    int64_t i = tt_slot(s, k->w, k->hash);
    return ENTRY(s, i)->flag < 0 ? NULL : ENTRY(s, i);
}

static void tt_grow(Ctx *s) {
    uint64_t *old = s->tkeys;
    int64_t slots = s->slots, used = s->used, stride = s->kw + 2;
    s->tkeys = NULL;
    if (!tt_alloc(s, slots * 2)) { /* no memory: keep the table as it is */
        s->tkeys = old;
        s->slots = slots;
        s->used = used;
        return;
    }
    for (int64_t i = 0; i < slots; i++) {
        const uint64_t *slot = old + i * stride;
        if (((const Entry *)(slot + s->kw))->flag >= 0) {
            int64_t j = tt_slot(s, slot, hash_words(slot, s->kw));
            memcpy(SLOT(s, j), slot, sizeof(uint64_t) * (size_t)stride);
            s->used++;
        }
    }
    free(old);
}

static void tt_store(Ctx *s, const Key *k, int depth, int flag, int64_t score, int move, int ply) {
    if (score > WIN_BOUND)
        score += ply;
    else if (score < -WIN_BOUND)
        score -= ply;
    int64_t i = tt_slot(s, k->w, k->hash);
    Entry *e = ENTRY(s, i);
    if (e->flag >= 0) {
        if (e->depth > depth && e->flag == EXACT) return; /* keep the deeper exact entry */
    } else {
        if (s->used >= s->limit) { /* AlphaBeta: table.clear() when full and the key is new */
            for (int64_t j = 0; j < s->slots; j++) ENTRY(s, j)->flag = -1;
            s->used = 0;
        }
        if ((s->used + 1) * 2 > s->slots) tt_grow(s); /* linear probing: keep it half empty */
        if ((s->used + 1) >= s->slots) return; /* out of memory and full: do not store */
        i = tt_slot(s, k->w, k->hash);
        e = ENTRY(s, i);
        memcpy(SLOT(s, i), k->w, sizeof(uint64_t) * (size_t)s->kw);
        s->used++;
    }
    e->depth = (int16_t)depth;
    e->flag = (int8_t)flag;
    e->score = score;
    e->move = (int8_t)move;
}

/* ---- the search path (AlphaBeta.path, a set) ---------------------------------------------------- */

static int path_find(const Ctx *s, const Key *k) {
    if (!s->path_filter[k->hash & (PATH_FILTER - 1)]) return -1;
    for (int i = s->path_len - 1; i >= 0; i--)
        if (s->path[i].hash == k->hash && same_words(s->path[i].w, k->w, s->kw))
            return i;
    return -1;
}

static void path_add(Ctx *s, const Key *k) {
    if (path_find(s, k) >= 0) return;
    if (s->path_len == s->path_cap) {
        int cap = s->path_cap ? 2 * s->path_cap : 256;
        Key *grown = realloc(s->path, sizeof(Key) * (size_t)cap);
        if (!grown) return;
        s->path = grown;
        s->path_cap = cap;
    }
    s->path[s->path_len++] = *k;
    s->path_filter[k->hash & (PATH_FILTER - 1)]++;
}

static void path_discard(Ctx *s, const Key *k) {
    int i = path_find(s, k);
    if (i < 0) return;
    s->path_filter[k->hash & (PATH_FILTER - 1)]--;
    s->path[i] = s->path[--s->path_len];
}

/* ---- search ------------------------------------------------------------------------------------ */

static double monotonic(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void check_limits(Ctx *s) {
    s->next_check = s->nodes + CHECK_EVERY;
    if (s->max_nodes >= 0) {
        if (s->nodes >= s->max_nodes) longjmp(s->stop, 1);
        if (s->max_nodes < s->next_check) s->next_check = s->max_nodes;
    }
    if (s->deadline >= 0 && monotonic() >= s->deadline) longjmp(s->stop, 1);
}

static void bring_to_front(int *moves, int count, int front) {
    if (!front) return;
    for (int i = 0; i < count; i++)
        if (moves[i] == front) {
            memmove(moves + 1, moves, sizeof(int) * (size_t)i);
            moves[0] = front;
            return;
        }
}

static int64_t negamax(Ctx *s, int depth, int64_t alpha, int64_t beta, int ply) {
    if (s->nodes >= s->next_check) check_limits(s);
    Key key;
    make_key(s, &key);
    if (path_find(s, &key) >= 0) {
        s->repetitions++;
        return s->turn == s->root_turn ? -s->contempt : s->contempt;
    }
    int mover = s->turn;
    if (depth <= 0 || ply >= MAX_PLY - 1) {
        if (has_winning_move(s)) return WIN - ply - 1;
        return evaluate(s);
    }
    int table_move = 0;
    Entry *entry = tt_find(s, &key);
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
    int moves[MAXMOVES], count = legal_moves(s, moves);
    if (!count) return 0;
    if (depth >= 2) {
        if (has_winning_move(s)) return WIN - ply - 1;
        if (opponent_has_winning_move(s)) {
            int blocks = 0;
            for (int i = 0; i < count; i++) {
                int move = moves[i];
                Undo u = push(s, move);
                if (winner_after_push(s, move) < 0 && !has_winning_move(s)) moves[blocks++] = move;
                pop(s, move, u);
            }
            s->nodes += count;
            if (!blocks) return -(WIN - ply - 2);
            count = blocks;
        }
    }
    int *killers = s->killers[ply];
    int64_t *history = s->history[mover] + MAXN;
    int k0 = killers[0], k1 = killers[1];
    if (count > 1) {
        for (int i = 1; i < count; i++) { /* stable, highest history first */
            int move = moves[i], j = i - 1;
            int64_t value = history[move];
            while (j >= 0 && history[moves[j]] < value) {
                moves[j + 1] = moves[j];
                j--;
            }
            moves[j + 1] = move;
        }
        bring_to_front(moves, count, k1);
        bring_to_front(moves, count, k0);
        bring_to_front(moves, count, table_move);
    }
    int64_t original_alpha = alpha, repetitions_before = s->repetitions;
    path_add(s, &key);
    int64_t best = -INF;
    int best_move = moves[0], first = 1, child_depth = depth - 1;
    int64_t win_here = WIN - ply - 1;
    int reduce_from = depth >= LMR_DEPTH && s->reductions ? LMR_FIRST : count;
    for (int index = 0; index < count; index++) {
        int move = moves[index];
        Undo u = push(s, move);
        s->nodes++;
        if (child_depth > 0) /* the child probes the table: fetch its slot while this node works */
            __builtin_prefetch(SLOT(s, (int64_t)(hash_words(s->key, s->kw) & (uint64_t)(s->slots - 1))));
        int winner = winner_after_push(s, move);
        int64_t score;
        if (winner >= 0) {
            score = winner == mover ? win_here : -win_here;
        } else if (first) {
            score = -negamax(s, child_depth, -beta, -alpha, ply + 1);
        } else {
            if (index >= reduce_from && move != k0 && move != k1) {
                int reduction = index >= 2 * LMR_FIRST && depth >= 6 ? 2 : 1;
                score = -negamax(s, child_depth - reduction, -alpha - 1, -alpha, ply + 1);
                if (score > alpha) score = -negamax(s, child_depth, -alpha - 1, -alpha, ply + 1);
            } else {
                score = -negamax(s, child_depth, -alpha - 1, -alpha, ply + 1);
            }
            if (alpha < score && score < beta) score = -negamax(s, child_depth, -beta, -alpha, ply + 1);
        }
        pop(s, move, u);
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
    path_discard(s, &key);
    if (s->repetitions == repetitions_before) {
        int flag = best >= beta ? LOWER : best <= original_alpha ? UPPER : EXACT;
        tt_store(s, &key, depth, flag, best, best_move, ply);
    }
    return best;
}

/* ---- the interface ----------------------------------------------------------------------------- */

/* A search context for boards of size n (1..16): geometry, evaluation tables, table, killers,
 * history. ``eval`` holds open_values[n+1], blocked_values[n+1], stack_values[n+1], then ring,
 * ring_line_value, stack, tempo, then hand[2 * supply + 1] (see native_betsy.py). NULL on a bad n
 * or no memory. */
void betsy_free(void *ctx);

void *betsy_new(int n, int blue_priority, const int64_t *eval, int64_t table_limit) {
    if (n < 1 || n > MAXN) return NULL;
    Ctx *s = calloc(1, sizeof(Ctx));
    if (!s) return NULL;
    s->n = n;
    s->height = n + 3;
    s->cells = n * s->height;
    s->supply = s->cells / 2;
    s->nw = (s->cells + 63) / 64;
    s->kw = (n * (s->height + 1) + 1 + 63) / 64;
    s->blue_priority = blue_priority;
    s->limit = table_limit;
    /* lines: rows, columns, diagonals of the top n rows (top_row 0 is height n + 2), duplicates
     * dropped as in Geometry (n = 1 has one line) */
    uint64_t candidate[MAXLINES][MAXW];
    int column_of[MAXLINES], total = 0;
    memset(candidate, 0, sizeof candidate);
#define CELL(c, r) ((c) * s->height + s->height - 1 - (r))
#define SET(l, i) candidate[l][(i) >> 6] |= 1ULL << ((i) & 63)
    for (int r = 0; r < n; r++, total++) {
        column_of[total] = -1;
        for (int c = 0; c < n; c++) SET(total, CELL(c, r));
    }
    for (int c = 0; c < n; c++, total++) {
        column_of[total] = c;
        for (int r = 0; r < n; r++) SET(total, CELL(c, r));
    }
    column_of[total] = -1;
    for (int i = 0; i < n; i++) SET(total, CELL(i, i));
    total++;
    column_of[total] = -1;
    for (int i = 0; i < n; i++) SET(total, CELL(n - 1 - i, i));
    total++;
    for (int l = 0; l < total; l++) {
        int seen = 0;
        for (int k = 0; k < s->nlines && !seen; k++) seen = !memcmp(s->lines[k], candidate[l], sizeof candidate[l]);
        if (seen) continue;
        memcpy(s->lines[s->nlines], candidate[l], sizeof candidate[l]);
        /* a column line is one inside a single column (n = 1's only line is one) */
        int col = -1;
        for (int c = 0; c < n && col < 0; c++) {
            int inside = 1;
            for (int i = 0; i < s->cells; i++)
                if ((candidate[l][i >> 6] >> (i & 63) & 1) && i / s->height != c) inside = 0;
            if (inside) col = c;
        }
        (void)column_of;
        s->line_column[s->nlines++] = col;
    }
#undef CELL
#undef SET
    s->cell_lines = malloc((size_t)s->cells * 4);
    s->column_lines = malloc((size_t)n * MAXLINES);
    s->hand = malloc(sizeof(int64_t) * (size_t)(2 * s->supply + 1));
    s->ring_cache = calloc((size_t)1 << (s->height + 1), sizeof(int64_t));
    s->ring_known = calloc((size_t)1 << (s->height + 1), 1);
    if (!s->cell_lines || !s->column_lines || !s->hand || !s->ring_cache || !s->ring_known || !tt_alloc(s, 1 << 16)) {
        betsy_free(s); /* calloc'd: what was not allocated is NULL */
        return NULL;
    }
    memset(s->cell_lines, 255, (size_t)s->cells * 4);
    for (int i = 0; i < s->cells; i++) {
        int k = 0;
        for (int l = 0; l < s->nlines; l++)
            if (s->lines[l][i >> 6] >> (i & 63) & 1) s->cell_lines[4 * i + k++] = (uint8_t)l;
    }
    for (int c = 0; c < n; c++) {
        int k = 0;
        for (int l = 0; l < s->nlines; l++) {
            uint32_t bits = col_get(s->lines[l], c * s->height, s->height);
            if (bits) s->column_lines[MAXLINES * c + k++] = (uint8_t)l;
        }
        s->column_nlines[c] = k;
    }
    const int64_t *p = eval;
    for (int k = 0; k <= n; k++) s->open_values[k] = *p++;
    for (int k = 0; k <= n; k++) s->blocked_values[k] = *p++;
    for (int k = 0; k <= n; k++) s->stack_values[k] = *p++;
    s->ring = (int)*p++;
    s->ring_line_value = *p++;
    s->stack = (int)*p++;
    s->tempo = *p++;
    for (int k = 0; k <= 2 * s->supply; k++) s->hand[k] = *p++;
    return s;
}

void betsy_free(void *ctx) {
    Ctx *s = ctx;
    if (!s) return;
    free(s->cell_lines);
    free(s->column_lines);
    free(s->hand);
    free(s->ring_cache);
    free(s->ring_known);
    free(s->tkeys);
    free(s->path);
    free(s);
}

/* Empty the search path, then add each of ``count`` positions (Python keys of ``stride`` bytes). */
void betsy_set_path(void *ctx, const uint8_t *keys, int count, int stride) {
    Ctx *s = ctx;
    s->path_len = 0;
    memset(s->path_filter, 0, sizeof s->path_filter);
    for (int i = 0; i < count; i++) {
        Key k;
        load_key(s, keys + (size_t)i * (size_t)stride);
        make_key(s, &k);
        path_add(s, &k);
    }
}

/* io: nodes, next_check, max_nodes (-1: none), contempt, root_turn, reductions, root_margin;
 * nodes and next_check are written back. */
static void take_limits(Ctx *s, const int64_t *io, double deadline) {
    s->nodes = io[0];
    s->next_check = io[1];
    s->max_nodes = io[2];
    s->contempt = io[3];
    s->root_turn = (int)io[4];
    s->reductions = (int)io[5];
    s->deadline = deadline;
}

/* AlphaBeta._root: search ``moves`` (already ordered, the previous best first) to ``depth``.
 * Returns 0 when done (out: alpha, best move; scores[i] for moves[i]), 1 when the deadline or
 * node limit stopped it (out[2..4]: root moves completed, best move and score so far). */
int betsy_root(void *ctx, const uint8_t *root, int depth, const int32_t *moves, int count, int64_t *io,
               double deadline, int64_t *out, int64_t *scores) {
    Ctx *s = ctx;
    load_key(s, root);
    take_limits(s, io, deadline);
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
    Key key;
    make_key(s, &key);
    path_add(s, &key);
    int best_move = moves[0];
    for (int i = 0; i < count; i++) {
        int move = moves[i];
        Undo u = push(s, move);
        s->nodes++;
        int winner = winner_after_push(s, move);
        int64_t score;
        if (winner >= 0) {
            score = winner == mover ? WIN - 1 : -(WIN - 1);
        } else if (i == 0) {
            score = -negamax(s, depth - 1, -beta, -alpha, 1);
        } else {
            int64_t floor = alpha > -INF ? alpha - root_margin : alpha;
            score = -negamax(s, depth - 1, -floor - 1, -floor, 1);
            if (score > floor) score = -negamax(s, depth - 1, -beta, -floor, 1);
        }
        pop(s, move, u);
        scores[i] = score;
        if (score > alpha) {
            alpha = score;
            best_move = move;
        }
        s->partial_done = i + 1;
        s->partial_move = best_move;
        s->partial_score = alpha;
    }
    path_discard(s, &key);
    tt_store(s, &key, depth, EXACT, alpha, best_move, 0);
    io[0] = s->nodes;
    io[1] = s->next_check;
    out[0] = alpha;
    out[1] = best_move;
    return 0;
}

/* AlphaBeta._negamax from a position (as wins_within calls it); 1 if the limits stopped it. */
int betsy_negamax(void *ctx, const uint8_t *position, int depth, int64_t alpha, int64_t beta, int ply,
                  int64_t *io, double deadline, int64_t *out) {
    Ctx *s = ctx;
    load_key(s, position);
    take_limits(s, io, deadline);
    if (setjmp(s->stop)) {
        io[0] = s->nodes;
        io[1] = s->next_check;
        return 1;
    }
    out[0] = negamax(s, depth, alpha, beta, ply);
    io[0] = s->nodes;
    io[1] = s->next_check;
    return 0;
}

/* The table's move for a position (0 if none): the principal variation follows these. */
int betsy_table_move(void *ctx, const uint8_t *position) {
    Ctx *s = ctx;
    Key key;
    load_key(s, position);
    make_key(s, &key);
    Entry *e = tt_find(s, &key);
    return e ? e->move : 0;
}

/* ---- rules, for the differential tests ------------------------------------------------------- */

int betsy_moves(void *ctx, const uint8_t *position, int32_t *moves) {
    Ctx *s = ctx;
    int found[MAXMOVES];
    load_key(s, position);
    int count = legal_moves(s, found);
    for (int i = 0; i < count; i++) moves[i] = found[i];
    return count;
}

/* Play ``move`` (legal): the new position's Python key into ``after``; returns winner_after_push. */
int betsy_play(void *ctx, const uint8_t *position, int move, uint8_t *after, int nbytes) {
    Ctx *s = ctx;
    load_key(s, position);
    push(s, move);
    save_key(s, after, nbytes);
    return winner_after_push(s, move);
}

/* out: has_winning_move, opponent_has_winning_move, outcome's winner (-1 none), evaluation, and
 * whether the table key of the position gives back the position (1: the key is exact). */
void betsy_probe(void *ctx, const uint8_t *position, int64_t *out) {
    Ctx *s = ctx;
    load_key(s, position);
    out[0] = has_winning_move(s);
    out[1] = opponent_has_winning_move(s);
    out[2] = outcome(s);
    out[3] = evaluate(s);
    Key key;
    make_key(s, &key);
    uint64_t m[2][MAXW];
    int turn = s->turn;
    memcpy(m, s->m, sizeof m);
    unmake_key(s, &key);
    out[4] = turn == s->turn && !memcmp(m, s->m, sizeof m);
}
