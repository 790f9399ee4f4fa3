/* Gauss-Seidel relaxation on a 2-D grid: TSTEPS time steps, each one sweep
 * over the interior points that replaces A[i][j] in place by the average
 * of its 3 x 3 neighbourhood, so that every point reads neighbours already
 * updated in the same sweep (above and to the left) and neighbours not yet
 * updated (below and to the right). The boundary never changes.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and A is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS seidel-2d.c -o seidel-2d
 *   ./seidel-2d
 * Sizes: -DTSTEPS=... -DN=... (the grid is N x N; defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef TSTEPS
#define TSTEPS 100
#endif
#ifndef N
#define N 400
#endif

#define _PB_TSTEPS TSTEPS
#define _PB_N N

static double A[N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * (j + 2) + 3 * j + 1) % N) / N;
}

static void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++)
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
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
