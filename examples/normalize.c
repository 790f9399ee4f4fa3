/* Row normalization with clamping: each row of X (N x M) is divided by
 * its Euclidean norm (a norm below EPS counts as 1, a conditional
 * expression), and each value of the result is clamped to [-CLAMP,
 * CLAMP] by an `if` / `else if` chain on the value itself, which commute
 * reads as one statement that may keep its value. Rows are independent;
 * within a row, the norm is a sum.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and Y is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS normalize.c -o normalize -lm
 * Sizes: -DN=... -DM=... (defaults below).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef N
#define N 4000
#endif
#ifndef M
#define M 2000
#endif

#define EPS 1e-9
#define CLAMP (1.5 / sqrt((double)M))

static double X[N][M];
static double Y[N][M];
static double norm[N];

/* Values in [-1, 1), every fifth row zero (its norm is below EPS). */
static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      X[i][j] = i % 5 == 4 ? 0.0 : (double)((i * 13 + j * 7) % 41 - 20) / 20.0;
}

static void kernel(void) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++) {
    norm[i] = 0.0;
    for (j = 0; j < M; j++)
      norm[i] += X[i][j] * X[i][j];
    norm[i] = sqrt(norm[i]);
    norm[i] = norm[i] < EPS ? 1.0 : norm[i];
    for (j = 0; j < M; j++) {
      Y[i][j] = X[i][j] / norm[i];
      if (Y[i][j] > CLAMP)
        Y[i][j] = CLAMP;
      else if (Y[i][j] < -CLAMP)
        Y[i][j] = -CLAMP;
    }
  }
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "Y", &Y[0][0], (long)N * M);
  return 0;
}
