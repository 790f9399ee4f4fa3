/* Two chained matrix products, D = alpha * A * B * C + beta * D, computed
 * through a temporary: tmp = alpha * A * B, then D = beta * D + tmp * C.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and D is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS 2mm.c -o 2mm && ./2mm
 * Sizes: -DNI=... -DNJ=... -DNK=... -DNL=... (A is NI x NK, B is NK x NJ,
 * C is NJ x NL, D is NI x NL; defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef NI
#define NI 360
#endif
#ifndef NJ
#define NJ 380
#endif
#ifndef NK
#define NK 420
#endif
#ifndef NL
#define NL 440
#endif

#define _PB_NI NI
#define _PB_NJ NJ
#define _PB_NK NK
#define _PB_NL NL

static double A[NI][NK];
static double B[NK][NJ];
static double C[NJ][NL];
static double D[NI][NL];
static double tmp[NI][NJ];

static void init(double *alpha, double *beta) {
  *alpha = 0.75;
  *beta = 1.25;
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = (double)((3 * i + k + 1) % NK) / NK;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k][j] = (double)((k * (j + 3)) % NJ) / NJ;
  for (int j = 0; j < NJ; j++)
    for (int l = 0; l < NL; l++)
      C[j][l] = (double)((j * (l + 2) + 5) % NL) / NL;
  for (int i = 0; i < NI; i++)
    for (int l = 0; l < NL; l++)
      D[i][l] = (double)((i * (l + 1)) % NK) / NK;
}

static void kernel(double alpha, double beta) {
  int i, j, k;
#pragma scop
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++) {
      tmp[i][j] = 0.0;
      for (k = 0; k < _PB_NK; k++)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NL; j++) {
      D[i][j] *= beta;
      for (k = 0; k < _PB_NJ; k++)
        D[i][j] += tmp[i][k] * C[k][j];
    }
#pragma endscop
}

int main(int argc, char **argv) {
  double alpha, beta;
  init(&alpha, &beta);
  double start = harness_now();
  kernel(alpha, beta);
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "D", &D[0][0], (long)NI * NL);
  return 0;
}
