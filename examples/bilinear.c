/* A bilinear form, s = x^T A y, written for commute in the style of
 * PolyBench: the kernel sits between `#pragma scop` and `#pragma
 * endscop`, its time is printed with -DPOLYBENCH_TIME, and the result is
 * dumped with -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be
 * checked against the original.
 *
 * Every iteration adds to the one scalar s: both loops carry that
 * dependence, and nothing else. As written, the additions form one chain
 * that a compiler without -ffast-math may not reorder, so the loop runs
 * at one addition per floating-point latency, on one core. Only a
 * reduction (private partial sums, in vector lanes or threads, added at
 * the end) runs it faster; its result differs from the sequential sum by
 * rounding only.
 *
 * Sizes: -DN=... (default below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef N
#define N 4000
#endif

#define _PB_N N

static double A[N][N];
static double x[N];
static double y[N];
static double s;

static void init(void) {
  for (int i = 0; i < N; i++) {
    x[i] = (double)(i % 17 + 1) / 17;
    y[i] = (double)(i % 13 + 2) / 13;
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * (j + 1) + 3) % N) / N;
  }
  s = 0.0;
}

static void kernel(void) {
  int i, j;
#pragma scop
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      s += x[i] * A[i][j] * y[j];
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "s", &s, 1);
  return 0;
}
