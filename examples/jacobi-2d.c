/* Jacobi relaxation on a 2-D grid: TSTEPS time steps, each made of two
 * sweeps over the interior points, B = 5-point average of A, then
 * A = 5-point average of B. The boundary rows and columns never change.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and A is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS jacobi-2d.c -o jacobi-2d
 *   ./jacobi-2d
 * Sizes: -DTSTEPS=... -DN=... (the grid is N x N; defaults below: two
 * arrays of 18 MB, which outgrow this project's machine's caches, where
 * time tiling pays; clang-22 -O3 takes about 0.5 s there).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef TSTEPS
#define TSTEPS 100
#endif
#ifndef N
#define N 1500
#endif

#define _PB_TSTEPS TSTEPS
#define _PB_N N

static double A[N][N];
static double B[N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i * (j + 3) + 1) % N) / N;
      B[i][j] = (double)((i * (j + 1) + 4) % N) / N;
    }
}

static void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i - 1][j] + A[i + 1][j]);
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i - 1][j] + B[i + 1][j]);
  }
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "A", &A[0][0], (long)N * N);
  return 0;
}
