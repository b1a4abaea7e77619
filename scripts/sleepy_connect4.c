/* A Connect Four engine for benchmarks, the C twin of sleepy_connect4.sh: sleeps DELAY seconds, then
 * drops into the first column that is not full. Starting it costs well under a millisecond of CPU (the
 * shell script costs about 4 ms), so at many slots the benchmark measures the harness, not the engine.
 * scripts/bench_cluster.py compiles it with cc when there is one.
 * Usage: sleepy_connect4 DELAY WxH PLAYER BOARD SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
    if (argc < 5) {
        fputs("usage: sleepy_connect4 DELAY WxH PLAYER BOARD SECONDS\n", stderr);
        return 2;
    }
    double delay = atof(argv[1]);
    int width = atoi(argv[2]), height = 0;
    const char *x = strchr(argv[2], 'x');
    if (x != NULL) height = atoi(x + 1);
    char *board = argv[4];
    if (width <= 0 || height <= 0 || (int)strlen(board) != width * height) {
        fprintf(stderr, "bad size %s or board %s\n", argv[2], board);
        return 2;
    }
    struct timespec pause = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
    nanosleep(&pause, NULL);
    for (int column = 0; column < width; column++) {
        for (int row = height - 1; row >= 0; row--) {
            int cell = row * width + column;
            if (board[cell] == '.') {
                board[cell] = argv[3][0];
                printf("%d %s\n", column + 1, board);
                return 0;
            }
        }
    }
    fprintf(stderr, "no legal move in %s\n", board);
    return 1;
}
