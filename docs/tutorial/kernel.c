/* A matrix multiply whose i and j loops are tiled by TILE_I and TILE_J
   and whose points are unrolled by UNROLL_I and UNROLL_J, all given with
   -D when compiling. Prints the seconds the multiply took. */
#include <stdio.h>
#include <time.h>

#ifndef N
#define N 256
#endif
#ifndef TILE_I
#define TILE_I 1
#endif
#ifndef TILE_J
#define TILE_J 1
#endif
#ifndef UNROLL_I
#define UNROLL_I 1
#endif
#ifndef UNROLL_J
#define UNROLL_J 1
#endif

static double A[N][N], B[N][N], C[N][N];

int main(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (i + j) % 7;
            B[i][j] = (i * j) % 5;
            C[i][j] = 0;
        }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int it = 0; it < N; it += TILE_I)
        for (int jt = 0; jt < N; jt += TILE_J)
            for (int k = 0; k < N; k++)
                for (int i = it; i < it + TILE_I; i += UNROLL_I)
                    for (int j = jt; j < jt + TILE_J; j += UNROLL_J)
                        for (int ui = 0; ui < UNROLL_I; ui++)
                            for (int uj = 0; uj < UNROLL_J; uj++)
                                C[i + ui][j + uj] += A[i + ui][k] * B[k][j + uj];
    clock_gettime(CLOCK_MONOTONIC, &end);
    double check = 0;
    for (int i = 0; i < N; i++)
        check += C[i][i];
    fprintf(stderr, "checksum %.0f\n", check);
    printf("%.6f\n", (end.tv_sec - start.tv_sec) + 1e-9 * (end.tv_nsec - start.tv_nsec));
    return 0;
}
