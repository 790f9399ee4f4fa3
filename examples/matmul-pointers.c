/* Matrix product through pointers, as code outside benchmark suites is
 * written: C = A * B with A (NI x NK), B (NK x NJ) and C (NI x NJ) held
 * in flat arrays and reached with linearized subscripts (`A[i * nk +
 * k]`). There is no `#pragma scop`: `commute show matmul-pointers.c`
 * lists the file's loop nests, and `--nest matmul` picks the product.
 * commute splits each subscript into a row and a column, which the loop
 * bounds prove (0 <= k < nk), and takes the `restrict` pointers as
 * distinct arrays.
 * The time in seconds is printed on stdout with -DPOLYBENCH_TIME, and C
 * is dumped on stderr with -DPOLYBENCH_DUMP_ARRAYS so that transformed
 * versions can be checked against the original.
 *
 * Build and run:
 *   cc -O2 -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS matmul-pointers.c -o matmul-pointers
 * Tune:
 *   commute tune matmul-pointers.c --nest matmul
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

static void matmul(int ni, int nj, int nk, const double *restrict A,
                   const double *restrict B, double *restrict C) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i * nj + j] = 0.0;
      for (int k = 0; k < nk; k++)
        C[i * nj + j] += A[i * nk + k] * B[k * nj + j];
    }
}

int main(int argc, char **argv) {
  double *A = malloc(sizeof(double) * NI * NK);
  double *B = malloc(sizeof(double) * NK * NJ);
  double *C = malloc(sizeof(double) * NI * NJ);
  if (!A || !B || !C)
    return 1;
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i * NK + k] = (double)(i * (k + 1) % NK) / NK;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k * NJ + j] = (double)(k * (j + 2) % NJ) / NJ;
  double start = harness_now();
  matmul(NI, NJ, NK, A, B, C);
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "C", C, (long)NI * NJ);
  free(A);
  free(B);
  free(C);
  return 0;
}
