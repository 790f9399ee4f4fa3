/* A three-dimensional contraction, Y[r][q][p] = scale * sum over s of
 * X[r][q][s] * W[s][p]: every row of X (a vector along s) times the matrix
 * W, through a row accumulator `acc`. Written for commute in the style of
 * PolyBench: the kernel sits between `#pragma scop` and `#pragma endscop`,
 * its time is printed with -DPOLYBENCH_TIME, and Y is dumped with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * As written, each acc[p] is a chain of dependent additions along s that
 * reads W down a column: strided, and not reordered without -ffast-math.
 * Polly's schedule (the `s` and `p` loops interchanged, tiled) runs it
 * several times faster than clang -O3. The default sizes take about half
 * a second with clang-22 -O3 -march=native on commute's 2-core test
 * machine.
 *
 * Sizes: -DNR=... -DNQ=... -DNP=... -DNS=... (defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef NR
#define NR 64
#endif
#ifndef NQ
#define NQ 64
#endif
#ifndef NP
#define NP 256
#endif
#ifndef NS
#define NS 256
#endif

static double X[NR][NQ][NS];
static double W[NS][NP];
static double Y[NR][NQ][NP];
static double acc[NP];

static void init(void) {
  for (int r = 0; r < NR; r++)
    for (int q = 0; q < NQ; q++)
      for (int s = 0; s < NS; s++)
        X[r][q][s] = (double)((r * q + 3 * s + 1) % NS) / NS;
  for (int s = 0; s < NS; s++)
    for (int p = 0; p < NP; p++)
      W[s][p] = (double)((s * (p + 2) + 5) % NP) / NP;
}

static void kernel(double scale) {
  int r, q, p, s;
#pragma scop
  for (r = 0; r < NR; r++)
    for (q = 0; q < NQ; q++) {
      for (p = 0; p < NP; p++) {
        acc[p] = 0.0;
        for (s = 0; s < NS; s++)
          acc[p] += X[r][q][s] * W[s][p];
      }
      for (p = 0; p < NP; p++)
        Y[r][q][p] = scale * acc[p];
    }
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel(0.5);
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "Y", &Y[0][0][0], (long)NR * NQ * NP);
  return 0;
}
