/* Back substitution with many right-hand sides: solves U X = B for X,
 * with U upper triangular (N x N) and B holding M right-hand sides
 * (N x M). Rows are solved from the last one up, each from the rows
 * below it, so the row loop counts down: commute reads it as a counter
 * running up, and the original program stays one of its candidates.
 * The right-hand sides are independent, which leaves room to run them
 * in parallel and in vector lanes.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and X is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS backsolve.c -o backsolve
 * Sizes: -DN=... -DM=... (defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef N
#define N 1200
#endif
#ifndef M
#define M 1000
#endif

static double U[N][N];
static double B[N][M];
static double X[N][M];

/* A diagonal in [2, 3) and small entries above it keep the solution
 * bounded. */
static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      U[i][j] = j < i ? 0.0 : (double)((i * 7 + j * 3) % 11) / (11.0 * N);
  for (int i = 0; i < N; i++)
    U[i][i] = 2.0 + (double)(i % 5) / 5.0;
  for (int i = 0; i < N; i++)
    for (int r = 0; r < M; r++)
      B[i][r] = (double)((i + 2 * r) % 17) / 17.0;
}

static void kernel(void) {
  int i, j, r;
#pragma scop
  for (i = N - 1; i >= 0; i--) {
    for (r = 0; r < M; r++)
      X[i][r] = B[i][r];
    for (j = i + 1; j < N; j++)
      for (r = 0; r < M; r++)
        X[i][r] -= U[i][j] * X[j][r];
    for (r = 0; r < M; r++)
      X[i][r] /= U[i][i];
  }
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "X", &X[0][0], (long)N * M);
  return 0;
}
