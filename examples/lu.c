/* LU decomposition without pivoting, in place: A = L * U with L unit lower
 * triangular (its strict lower part is stored below A's diagonal) and U
 * upper triangular (stored on and above the diagonal). Row i is finished
 * from the rows above it: first its part left of the diagonal (the
 * multipliers, j < i, each reduced by the earlier ones, k < j, then
 * divided by the pivot A[j][j]), then its part on and right of the
 * diagonal (j >= i, reduced by the multipliers, k < i). The matrix is
 * made strictly diagonally dominant, so no pivot comes near zero.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and A is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS lu.c -o lu && ./lu
 * Size: -DN=... (A is N x N; default below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef N
#define N 600
#endif

#define _PB_N N

static double A[N][N];

/* Off-diagonal entries in (0, 1/N], so that each row's off-diagonal sum is
 * below 1, and diagonal entries in [2, 3): strictly diagonally dominant by
 * rows and columns. */
static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * (j + 5) + 2 * j) % 13 + 1) / (13.0 * N);
  for (int i = 0; i < N; i++)
    A[i][i] = 2.0 + (double)(i % 7) / 7.0;
}

static void kernel(void) {
  int i, j, k;
#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (j = i; j < _PB_N; j++)
      for (k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
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
