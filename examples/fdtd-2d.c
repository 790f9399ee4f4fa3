/* Finite-difference time-domain simulation of an electromagnetic wave in
 * two dimensions (Yee's staggered grid, transverse electric mode): each
 * of TSTEPS time steps drives the first row of the field ey from a
 * source, updates the electric fields ey and ex from the curl of the
 * magnetic field hz, then hz from the curl of the new electric fields.
 * Written for commute in the style of PolyBench: the kernel sits between
 * `#pragma scop` and `#pragma endscop`, its time in seconds is printed on
 * stdout with -DPOLYBENCH_TIME, and hz is dumped on stderr with
 * -DPOLYBENCH_DUMP_ARRAYS so that transformed versions can be checked
 * against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS fdtd-2d.c -o fdtd-2d
 *   ./fdtd-2d
 * Sizes: -DTSTEPS=... -DNX=... -DNY=... (the grid is NX x NY).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#ifndef TSTEPS
#define TSTEPS 100
#endif
#ifndef NX
#define NX 400
#endif
#ifndef NY
#define NY 500
#endif

#define _PB_TSTEPS TSTEPS
#define _PB_NX NX
#define _PB_NY NY

static double ex[NX][NY];
static double ey[NX][NY];
static double hz[NX][NY];
static double source[TSTEPS];

static void init(void) {
  for (int t = 0; t < TSTEPS; t++)
    source[t] = (double)(t % 9) / 9;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      ex[i][j] = (double)((i * 3 + j) % NY) / NY;
      ey[i][j] = (double)((i + j * 5) % NX) / NX;
      hz[i][j] = (double)((i * j + 7) % NX) / NX;
    }
}

static void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++) {
    for (j = 0; j < _PB_NY; j++)
      ey[0][j] = source[t];
    for (i = 1; i < _PB_NX; i++)
      for (j = 0; j < _PB_NY; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < _PB_NX; i++)
      for (j = 1; j < _PB_NY; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < _PB_NX - 1; i++)
      for (j = 0; j < _PB_NY - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "hz", &hz[0][0], (long)NX * NY);
  return 0;
}
