/* Matrix transpose times matrix times vector, y = A^T (A x), where A is
 * M x N: first tmp = A x (M values), then y = A^T tmp (N values), the
 * second product accumulated row by row of A.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and y is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS atax.c -o atax && ./atax
 * Sizes: -DM=... -DN=... (defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef M
#define M 1900
#endif
#ifndef N
#define N 2100
#endif

#define _PB_M M
#define _PB_N N

static double A[M][N];
static double x[N];
static double y[N];
static double tmp[M];

static void init(void) {
  for (int j = 0; j < N; j++)
    x[j] = 1.0 + (double)j / N;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i + 3 * j + 1) % N) / (5.0 * M);
}

static void kernel(void) {
  int i, j;
#pragma scop
  for (j = 0; j < _PB_N; j++)
    y[j] = 0.0;
  for (i = 0; i < _PB_M; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < _PB_N; j++)
      tmp[i] += A[i][j] * x[j];
    for (j = 0; j < _PB_N; j++)
      y[j] += A[i][j] * tmp[i];
  }
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "y", y, (long)N);
  return 0;
}
