/* The board types of the Connect Four cores (connect4_solver.c, connect4_search.c), shared: a board of
 * width x (height + 1) bits (Pons's layout) is held in the smallest type that fits it: uint64_t up to 64
 * bits, unsigned __int128 (gcc, clang) up to 128, and u192, a struct of three 64-bit words, for the rest
 * (10x12, 11x11, 11x12, 12x10, 12x11, 12x12: up to 156 bits; C11 has no wider integer, and gcc before 14
 * no _BitInt).
 *
 * A core's search is written once on the board operations B_AND, B_ADD, B_SHL... and compiled once per
 * board type with B_KIND defined as INT (uint64_t and u128: the plain operators, so the same machine
 * code as operators written out) or 192 (u192's inline functions below), with BOARD the type.
 * engines/native/build.py rebuilds a library when any header here is newer than it.
 */
#ifndef ARENA_BOARD_H
#define ARENA_BOARD_H

#include <stdint.h>

typedef unsigned __int128 u128;

/* Bits set: the processor's instruction where the build has it (-mpopcnt, build.py), else in registers
 * (without it __builtin_popcountll is a library call). */
static inline int popcount64(uint64_t x) {
#ifdef __POPCNT__
    return __builtin_popcountll(x);
#endif
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}
static inline int popcount128(u128 x) { return popcount64((uint64_t)x) + popcount64((uint64_t)(x >> 64)); }

/* ---- u192: three 64-bit words, w[0] the lowest; the operations of an unsigned integer modulo 2^192 */

typedef struct {
    uint64_t w[3];
} u192;

#define U192(a, b, c) ((u192){{(a), (b), (c)}})
static inline u192 and192(u192 a, u192 b) { return U192(a.w[0] & b.w[0], a.w[1] & b.w[1], a.w[2] & b.w[2]); }
static inline u192 or192(u192 a, u192 b) { return U192(a.w[0] | b.w[0], a.w[1] | b.w[1], a.w[2] | b.w[2]); }
static inline u192 xor192(u192 a, u192 b) { return U192(a.w[0] ^ b.w[0], a.w[1] ^ b.w[1], a.w[2] ^ b.w[2]); }
static inline u192 not192(u192 a) { return U192(~a.w[0], ~a.w[1], ~a.w[2]); }
/* The carry goes on from word to word: Pons's mask + bottom carries up a column, across a word's end. */
static inline u192 add192(u192 a, u192 b) {
    u128 t = (u128)a.w[0] + b.w[0];
    uint64_t w0 = (uint64_t)t;
    t = (u128)a.w[1] + b.w[1] + (uint64_t)(t >> 64);
    return U192(w0, (uint64_t)t, a.w[2] + b.w[2] + (uint64_t)(t >> 64));
}
static inline u192 sub192(u192 a, u192 b) {
    uint64_t borrow0 = a.w[0] < b.w[0], d1 = a.w[1] - b.w[1];
    uint64_t borrow1 = (a.w[1] < b.w[1]) | (d1 < borrow0);
    return U192(a.w[0] - b.w[0], d1 - borrow0, a.w[2] - b.w[2] - borrow1);
}
/* Shifts by 0 <= n < 192 (the search's are under 64: that branch first). (x >> 1) >> (63 - s) is
 * x >> (64 - s) for 0 < s < 64 and 0 for s = 0, where x >> 64 would be undefined. */
static inline u192 shl192(u192 a, int n) {
    if (n < 64) {
        return U192(a.w[0] << n, (a.w[1] << n) | ((a.w[0] >> 1) >> (63 - n)),
                    (a.w[2] << n) | ((a.w[1] >> 1) >> (63 - n)));
    }
    if (n < 128) {
        n -= 64;
        return U192(0, a.w[0] << n, (a.w[1] << n) | ((a.w[0] >> 1) >> (63 - n)));
    }
    return U192(0, 0, a.w[0] << (n - 128));
}
static inline u192 shr192(u192 a, int n) {
    if (n < 64) {
        return U192((a.w[0] >> n) | ((a.w[1] << 1) << (63 - n)), (a.w[1] >> n) | ((a.w[2] << 1) << (63 - n)),
                    a.w[2] >> n);
    }
    if (n < 128) {
        n -= 64;
        return U192((a.w[1] >> n) | ((a.w[2] << 1) << (63 - n)), a.w[2] >> n, 0);
    }
    return U192(a.w[2] >> (n - 128), 0, 0);
}
static inline int eq192(u192 a, u192 b) {
    return ((a.w[0] ^ b.w[0]) | (a.w[1] ^ b.w[1]) | (a.w[2] ^ b.w[2])) == 0;
}
static inline int any192(u192 a) { return (a.w[0] | a.w[1] | a.w[2]) != 0; }
/* a & -a and a & (a - 1): the lowest bit set, and a without it. */
static inline u192 lowest192(u192 a) { return and192(a, sub192(U192(0, 0, 0), a)); }
static inline u192 drop_lowest192(u192 a) { return and192(a, sub192(a, U192(1, 0, 0))); }
static inline int popcount192(u192 a) { return popcount64(a.w[0]) + popcount64(a.w[1]) + popcount64(a.w[2]); }

/* B_OP(X) is B_INT_X or B_192_X, after the B_KIND in force where the operation is used. */
#define B_PASTE_(a, b, c) a##b##c
#define B_PASTE(a, b, c) B_PASTE_(a, b, c)
#define B_OP(op) B_PASTE(B_, B_KIND, _##op)

#define B_AND(a, b) B_OP(AND)(a, b)
#define B_OR(a, b) B_OP(OR)(a, b)
#define B_XOR(a, b) B_OP(XOR)(a, b)
#define B_NOT(a) B_OP(NOT)(a)
#define B_ADD(a, b) B_OP(ADD)(a, b)
#define B_SUB(a, b) B_OP(SUB)(a, b)
#define B_SHL(a, n) B_OP(SHL)(a, n)
#define B_SHR(a, n) B_OP(SHR)(a, n)
#define B_EQ(a, b) B_OP(EQ)(a, b)
#define B_ANY(a) B_OP(ANY)(a)
#define B_LOWEST(a) B_OP(LOWEST)(a)
#define B_DROP_LOWEST(a) B_OP(DROP_LOWEST)(a)
#define B_WORD(x) B_OP(WORD)(x) /* a board from a uint64_t */
#define B_LOW(a) B_OP(LOW)(a)   /* a board's lowest 64 bits */

/* The integer types' operations: their operators. */
#define B_INT_AND(a, b) ((a) & (b))
#define B_INT_OR(a, b) ((a) | (b))
#define B_INT_XOR(a, b) ((a) ^ (b))
#define B_INT_NOT(a) (~(a))
#define B_INT_ADD(a, b) ((a) + (b))
#define B_INT_SUB(a, b) ((a) - (b))
#define B_INT_SHL(a, n) ((a) << (n))
#define B_INT_SHR(a, n) ((a) >> (n))
#define B_INT_EQ(a, b) ((a) == (b))
#define B_INT_ANY(a) ((a) != 0)
#define B_INT_LOWEST(a) ((a) & -(a))
#define B_INT_DROP_LOWEST(a) ((a) & ((a) - 1))
#define B_INT_WORD(x) ((BOARD)(x))
#define B_INT_LOW(a) ((uint64_t)(a))

/* u192's: its functions. */
#define B_192_AND and192
#define B_192_OR or192
#define B_192_XOR xor192
#define B_192_NOT not192
#define B_192_ADD add192
#define B_192_SUB sub192
#define B_192_SHL shl192
#define B_192_SHR shr192
#define B_192_EQ eq192
#define B_192_ANY any192
#define B_192_LOWEST lowest192
#define B_192_DROP_LOWEST drop_lowest192
#define B_192_WORD(x) U192((x), 0, 0)
#define B_192_LOW(a) ((a).w[0])

#endif /* ARENA_BOARD_H */
