/* Edit distances of NI pairs of strings of length N, by dynamic
 * programming: D[p][i][j] is the distance between the first i letters of
 * the pair's first string and the first j of its second. The first row
 * and column are set under `if` conditions on the loop counters, the
 * other entries take the cheapest of a deletion, an insertion and a
 * substitution with conditional expressions. Within one table every
 * entry depends on its neighbours above and to the left; the pairs are
 * independent.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and D is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS edit-distance.c -o edit-distance
 * Sizes: -DNI=... (pairs) -DN=... (letters) (defaults below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef NI
#define NI 96
#endif
#ifndef N
#define N 600
#endif

static char a[NI][N];
static char b[NI][N];
static double D[NI][N + 1][N + 1];

/* Strings over four letters, the second a shifted copy of the first with
 * some letters changed. */
static void init(void) {
  for (int p = 0; p < NI; p++)
    for (int i = 0; i < N; i++) {
      a[p][i] = (char)('a' + (i * 7 + p) % 4);
      b[p][i] = (char)('a' + ((i + 1) * 7 + p + (i % 5 == 0)) % 4);
    }
}

static void kernel(void) {
  int p, i, j;
#pragma scop
  for (p = 0; p < NI; p++)
    for (i = 0; i <= N; i++)
      for (j = 0; j <= N; j++) {
        if (i == 0)
          D[p][i][j] = j;
        else if (j == 0)
          D[p][i][j] = i;
        else {
          D[p][i][j] = D[p][i - 1][j] < D[p][i][j - 1] ? D[p][i - 1][j] + 1.0
                                                       : D[p][i][j - 1] + 1.0;
          D[p][i][j] = D[p][i - 1][j - 1] + (a[p][i - 1] == b[p][j - 1] ? 0.0 : 1.0) < D[p][i][j]
                           ? D[p][i - 1][j - 1] + (a[p][i - 1] == b[p][j - 1] ? 0.0 : 1.0)
                           : D[p][i][j];
        }
      }
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "D", &D[0][0][0], (long)NI * (N + 1) * (N + 1));
  return 0;
}
