/* Symmetric rank-k update, C = alpha * A * A^T + beta * C, where A is
 * N x M and C is N x N; only the lower triangle of C (j <= i) is computed,
 * the strict upper triangle keeps its initial values.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and C is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS syrk.c -o syrk && ./syrk
 * Sizes: -DN=... -DM=... (defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef N
#define N 480
#endif
#ifndef M
#define M 400
#endif

#define _PB_N N
#define _PB_M M

static double A[N][M];
static double C[N][N];

static void init(double *alpha, double *beta) {
  *alpha = 1.5;
  *beta = 0.8;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < M; k++)
      A[i][k] = (double)((i * (k + 2) + 1) % N) / N;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      C[i][j] = (double)((i + 2 * j + 3) % M) / M;
}

static void kernel(double alpha, double beta) {
  int i, j, k;
#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_M; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
#pragma endscop
}

int main(int argc, char **argv) {
  double alpha, beta;
  init(&alpha, &beta);
  double start = harness_now();
  kernel(alpha, beta);
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "C", &C[0][0], (long)N * N);
  return 0;
}
