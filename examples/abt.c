/* Matrix product with one transposed operand, C = A * B^T, written for
 * commute in the style of PolyBench: the kernel sits between `#pragma
 * scop` and `#pragma endscop`, its time is printed with -DPOLYBENCH_TIME,
 * and the result is dumped with -DPOLYBENCH_DUMP_ARRAYS so that
 * transformed versions can be checked against the original.
 *
 * As written, every C[i][j] is a dot product along k: a chain of
 * dependent additions that a compiler without -ffast-math may not
 * reorder, so it runs at one addition per floating-point latency. The
 * default sizes take about 1.5 s with clang-22 -O3 -march=native on
 * commute's 2-core test machine.
 *
 * Sizes: -DNI=... -DNJ=... -DNK=... (defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef NI
#define NI 1160
#endif
#ifndef NJ
#define NJ 1160
#endif
#ifndef NK
#define NK 1160
#endif

#define _PB_NI NI
#define _PB_NJ NJ
#define _PB_NK NK

static double A[NI][NK];
static double B[NJ][NK];
static double C[NI][NJ];

static void init(void) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      C[i][j] = 0.0;
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = (double)((i * (k + 3) + 1) % NK) / NK;
  for (int j = 0; j < NJ; j++)
    for (int k = 0; k < NK; k++)
      B[j][k] = (double)((j * (k + 1) + 2) % NJ) / NJ;
}

static void kernel(void) {
  int i, j, k;
#pragma scop
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++)
      for (k = 0; k < _PB_NK; k++)
        C[i][j] += A[i][k] * B[j][k];
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "C", &C[0][0], (long)NI * NJ);
  return 0;
}
