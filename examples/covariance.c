/* Covariance matrix of a data matrix: data holds N observations (rows) of
 * M variables (columns). The kernel computes the mean of each variable,
 * centers the data in place (subtracts the means), then fills the M x M
 * matrix cov[i][j] = sum over observations of data[k][i] * data[k][j],
 * divided by N - 1, for j >= i, and mirrors it into cov[j][i].
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and cov is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS covariance.c -o covariance
 *   ./covariance
 * Sizes: -DM=... (variables) -DN=... (observations) (defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef M
#define M 480
#endif
#ifndef N
#define N 520
#endif

#define _PB_M M
#define _PB_N N

static double data[N][M];
static double cov[M][M];
static double mean[M];

static void init(double *float_n) {
  *float_n = (double)N;
  for (int k = 0; k < N; k++)
    for (int j = 0; j < M; j++)
      data[k][j] = (double)((k * (j + 1) + 2 * j) % 29) / 29.0 + 0.01 * j;
}

static void kernel(double float_n) {
  int i, j, k;
#pragma scop
  for (j = 0; j < _PB_M; j++) {
    mean[j] = 0.0;
    for (k = 0; k < _PB_N; k++)
      mean[j] += data[k][j];
    mean[j] /= float_n;
  }
  for (k = 0; k < _PB_N; k++)
    for (j = 0; j < _PB_M; j++)
      data[k][j] -= mean[j];
  for (i = 0; i < _PB_M; i++)
    for (j = i; j < _PB_M; j++) {
      cov[i][j] = 0.0;
      for (k = 0; k < _PB_N; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= float_n - 1.0;
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}

int main(int argc, char **argv) {
  double float_n;
  init(&float_n);
  double start = harness_now();
  kernel(float_n);
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "cov", &cov[0][0], (long)M * M);
  return 0;
}
