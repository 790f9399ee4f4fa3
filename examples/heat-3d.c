/* Heat diffusion in a 3-D block: TSTEPS time steps, each made of two
 * sweeps over the interior points, B = A plus a seven-point Laplacian of
 * A, then A = B plus the Laplacian of B. The faces never change.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and A is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS heat-3d.c -o heat-3d
 *   ./heat-3d
 * Sizes: -DTSTEPS=... -DN=... (the block is N x N x N; defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef TSTEPS
#define TSTEPS 40
#endif
#ifndef N
#define N 80
#endif

#define _PB_TSTEPS TSTEPS
#define _PB_N N

static double A[N][N][N];
static double B[N][N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) {
        A[i][j][k] = (double)((i + j + (N - k)) % 17) / 17;
        B[i][j][k] = A[i][j][k];
      }
}

static void kernel(void) {
  int t, i, j, k;
#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        for (k = 1; k < _PB_N - 1; k++)
          B[i][j][k] = A[i][j][k] + 0.125 * (A[i + 1][j][k] + A[i - 1][j][k] + A[i][j + 1][k] +
                                             A[i][j - 1][k] + A[i][j][k + 1] + A[i][j][k - 1] -
                                             6.0 * A[i][j][k]);
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        for (k = 1; k < _PB_N - 1; k++)
          A[i][j][k] = B[i][j][k] + 0.125 * (B[i + 1][j][k] + B[i - 1][j][k] + B[i][j + 1][k] +
                                             B[i][j - 1][k] + B[i][j][k + 1] + B[i][j][k - 1] -
                                             6.0 * B[i][j][k]);
  }
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "A", &A[0][0][0], (long)N * N * N);
  return 0;
}
