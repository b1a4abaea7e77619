/* What the Connect Four cores share besides their boards: the monotonic clock their deadlines are
 * read on, and the table's memory. Include after defining _DEFAULT_SOURCE (clock_gettime, mmap's
 * MAP_ANONYMOUS and madvise under -std=c11). */
#ifndef ARENA_NATIVE_MEMORY_H
#define ARENA_NATIVE_MEMORY_H

#include <stddef.h>
#include <sys/mman.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds: Python's time.monotonic(), so deadlines pass between the two as is. */
static double now_monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Zeroed memory for the table's slots, in huge pages where the kernel gives them: the table is read
 * at random, and with 4 KiB pages nearly every probe would also miss the TLB. */
static void *slots_alloc(size_t bytes) {
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= (2u << 20)) madvise(memory, bytes, MADV_HUGEPAGE);
#endif
    return memory;
}

static void slots_free(void *memory, size_t bytes) {
    if (memory != NULL) munmap(memory, bytes);
}

#endif
