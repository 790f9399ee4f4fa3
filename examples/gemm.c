/* Matrix multiply, C = alpha * A * B + beta * C, written for commute in
 * the style of PolyBench: the kernel sits between `#pragma scop` and
 * `#pragma endscop`, its time is printed with -DPOLYBENCH_TIME, and the
 * result is dumped with -DPOLYBENCH_DUMP_ARRAYS so that transformed
 * versions can be checked against the original.
 *
 * Sizes: -DNI=... -DNJ=... -DNK=... (defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef NI
#define NI 1000
#endif
#ifndef NJ
#define NJ 1100
#endif
#ifndef NK
#define NK 1200
#endif

#define _PB_NI NI
#define _PB_NJ NJ
#define _PB_NK NK

static double A[NI][NK];
static double B[NK][NJ];
static double C[NI][NJ];

static void init(double *alpha, double *beta) {
  *alpha = 1.5;
  *beta = 1.2;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      C[i][j] = (double)((i * j + 1) % NI) / NI;
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = (double)(i * (k + 1) % NK) / NK;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k][j] = (double)(k * (j + 2) % NJ) / NJ;
}

static void kernel(double alpha, double beta) {
  int i, j, k;
#pragma scop
  for (i = 0; i < _PB_NI; i++) {
    for (j = 0; j < _PB_NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_NK; k++)
      for (j = 0; j < _PB_NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}

int main(int argc, char **argv) {
  double alpha, beta;
  init(&alpha, &beta);
  double start = harness_now();
  kernel(alpha, beta);
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "C", &C[0][0], (long)NI * NJ);
  return 0;
}
