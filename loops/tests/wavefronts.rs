//! Wavefronts (`dim_kind` `WAVE` and `WAVEFRONT`): candidates of small
//! kernels whose every loop carries a dependence, fixed by name and
//! completed as in the original program, with tile sizes that divide no
//! extent. The interpreter must run the original instances with no race
//! between the tiles of one anti-diagonal, the explicit C must compile
//! with OpenMP, run on two threads and print the original arrays, and the
//! directives emitter must decline them. Without the skew that makes it
//! legal, the same tree races, and the interpreter says so: seidel's
//! time tiles, and jacobi's, whose sweeps are fused with a shift and
//! skewed together.

mod common;

use commute_loops::emit::directives::directive_code;
use commute_loops::emit::interpret::{run, RunError};
use commute_loops::frontend::read_kernel;
use commute_loops::lowering::schedule::{Kind, Schedule};
use commute_loops::space::complete::complete_with_original;
use commute_loops::space::host::KernelHost;
use commute_loops::space::names::apply_named_fixes;
use commute_loops::space::Backbone;
use commute_loops::tune::time_tiled_start;
use commute_runtime::Candidate;

use common::trees::{Original, LIMIT};

/// Gauss-Seidel's 9-point sweep over time, as seidel-2d: no loop is
/// parallel, `i` may be skewed by `t` and `j` by `i`.
const SEIDEL: &str = "\
#include <stdio.h>
static double A[23][23];
static void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < 7; t++)
    for (i = 1; i < 22; i++)
      for (j = 1; j < 22; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 23; i++)
    for (int j = 0; j < 23; j++)
      A[i][j] = (double)((i * (j + 2) + 3 * j + 1) % 23) / 23;
  kernel();
  for (int i = 0; i < 23; i++)
    for (int j = 0; j < 23; j++)
      fprintf(stderr, \"%.17g\\n\", A[i][j]);
  return 0;
}
";

/// Two statements of one loop nest, each reading what the other wrote
/// one row up or one column left: both loops carry dependences, forward
/// only, so their tiles may run as a wavefront as they are.
const TWO_STATEMENTS: &str = "\
#include <stdio.h>
static double A[30][27], B[30][27];
static void kernel(void) {
  int i, j;
#pragma scop
  for (i = 1; i < 29; i++)
    for (j = 1; j < 26; j++) {
      B[i][j] = A[i - 1][j] + A[i][j - 1] + 0.5 * B[i][j];
      A[i][j] = 0.25 * (B[i][j] + B[i - 1][j]);
    }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 30; i++)
    for (int j = 0; j < 27; j++) {
      A[i][j] = (double)((i * 5 + j * 3) % 13) / 13;
      B[i][j] = (double)((i + 2 * j) % 7) / 7;
    }
  kernel();
  for (int i = 0; i < 30; i++)
    for (int j = 0; j < 27; j++)
      fprintf(stderr, \"%.17g %.17g\\n\", A[i][j], B[i][j]);
  return 0;
}
";

/// Jacobi's two sweeps over time: fused, the second runs a row late (a
/// shift), and both skewed by twice the time step, time steps and rows
/// may be tiled together and their tiles run as a wavefront.
const JACOBI: &str = "\
#include <stdio.h>
static double A[21][19], B[21][19];
static void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < 9; t++) {
    for (i = 1; i < 20; i++)
      for (j = 1; j < 18; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i - 1][j] + A[i + 1][j]);
    for (i = 1; i < 20; i++)
      for (j = 1; j < 18; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i - 1][j] + B[i + 1][j]);
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 21; i++)
    for (int j = 0; j < 19; j++) {
      A[i][j] = (double)((i * (j + 3) + 1) % 21) / 21;
      B[i][j] = (double)((i * (j + 1) + 4) % 19) / 19;
    }
  kernel();
  for (int i = 0; i < 21; i++)
    for (int j = 0; j < 19; j++)
      fprintf(stderr, \"%.17g\\n\", A[i][j]);
  return 0;
}
";

/// Two sweeps that update their arrays in place (`+=`, reductions of one
/// element over time), each reading the other's rows around its own: as
/// for jacobi, time tiling needs the second sweep shifted and both skewed.
const LEAPFROG: &str = "\
#include <stdio.h>
static double U[23][17], V[23][17];
static void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < 7; t++) {
    for (i = 1; i < 22; i++)
      for (j = 0; j < 17; j++)
        U[i][j] += 0.125 * (V[i - 1][j] - 2.0 * V[i][j] + V[i + 1][j]);
    for (i = 1; i < 22; i++)
      for (j = 0; j < 17; j++)
        V[i][j] += 0.125 * (U[i - 1][j] - 2.0 * U[i][j] + U[i + 1][j]);
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 23; i++)
    for (int j = 0; j < 17; j++) {
      U[i][j] = (double)((i * (j + 2) + 1) % 23) / 23;
      V[i][j] = (double)((i * (j + 5) + 3) % 17) / 17;
    }
  kernel();
  for (int i = 0; i < 23; i++)
    for (int j = 0; j < 17; j++)
      fprintf(stderr, \"%.17g %.17g\\n\", U[i][j], V[i][j]);
  return 0;
}
";

/// Fixes that tile jacobi's time steps and fused rows (`t` by 4, rows by
/// 8) and run the tiles as a wavefront.
const JACOBI_TIME_TILES: [&str; 9] = [
    "skew(i) = YES",
    "skew(i#2) = YES",
    "shift(i#2) = YES",
    "order(i, i#2) = MERGED",
    "tile_size(t) = 4",
    "tile_size(i) = 8",
    "order(i.tile, t@S0) = OUTER",
    "dim_kind(t.tile) = WAVE",
    "dim_kind(i.tile) = WAVEFRONT",
];

/// This binary's name among the scratch directories.
const TEST: &str = "wavefronts";

/// The candidate with `fixes` (by names) and the rest as in the original.
fn named(host: &KernelHost, fixes: &[&str]) -> Schedule {
    let mut candidate = Candidate::new(Backbone(host.clone())).unwrap_or_else(|e| panic!("{e}"));
    let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
    apply_named_fixes(host, &mut candidate, &fixes).unwrap_or_else(|e| panic!("{e}"));
    let complete = complete_with_original(host, &candidate).unwrap_or_else(|e| panic!("{e}"));
    Schedule::from_candidate(host, &complete).unwrap_or_else(|e| panic!("{e}"))
}

/// Each case's candidate runs the original instances in the interpreter,
/// with a wave loop in its tree, prints the original arrays written as
/// explicit C, and is declined by the directives emitter.
fn check(name: &str, source: &str, cases: &[(&str, &[&str])]) {
    let kernel = read_kernel(&format!("{name}.c"), source).expect("the kernel reads");
    let host = KernelHost::new(kernel.clone());
    let original = Original::new(TEST, name, &kernel, &named(&host, &[]), &[]);
    for (case, fixes) in cases {
        let schedule = named(&host, fixes);
        let outline = schedule.outline(&kernel);
        assert!(
            schedule.loops().iter().any(|l| l.kind == Kind::Wave),
            "{name}, {case}: no wave loop\n{outline}"
        );
        let code = original.check_explicit(TEST, (name, case), &kernel, &schedule, &[]);
        assert!(
            code.contains("#pragma omp parallel for") && code.contains("in waves"),
            "{name}, {case}: no wavefront\n{code}"
        );
        let declined = directive_code(&kernel, &schedule, &[])
            .expect_err("a wavefront is not expressible with directives");
        assert!(declined.0.contains("waves"), "{declined}");
    }
}

#[test]
fn skewed_time_tiles_of_seidel_run_as_a_wavefront() {
    check(
        "seidel",
        SEIDEL,
        &[
            (
                "t by 2 and i by 4",
                &[
                    "tile_size(t) = 2",
                    "tile_size(i) = 4",
                    "dim_kind(t.tile) = WAVE",
                    "dim_kind(i.tile) = WAVEFRONT",
                ],
            ),
            (
                "t by 4 and i by 8, rows swept together along j",
                &[
                    "tile_size(t) = 4",
                    "tile_size(i) = 8",
                    "tile_size(j) = 4",
                    "skew(j) = YES",
                    "order(i, j.tile) = INNER",
                    "order(t, j.tile) = OUTER",
                    "dim_kind(t.tile) = WAVE",
                    "dim_kind(i.tile) = WAVEFRONT",
                ],
            ),
        ],
    );
}

#[test]
fn merged_statements_run_as_a_wavefront_of_their_tiles() {
    check(
        "two-statements",
        TWO_STATEMENTS,
        &[
            (
                "i by 4 and j by 8",
                &[
                    "tile_size(i) = 4",
                    "tile_size(j) = 8",
                    "dim_kind(i.tile) = WAVE",
                    "dim_kind(j.tile) = WAVEFRONT",
                ],
            ),
            (
                "j's tiles in waves around i's",
                &[
                    "tile_size(i) = 8",
                    "tile_size(j) = 4",
                    "order(j.tile, i.tile) = OUTER",
                    "dim_kind(j.tile) = WAVE",
                    "dim_kind(i.tile) = WAVEFRONT",
                ],
            ),
        ],
    );
}

#[test]
fn time_tiles_of_jacobi_sweeps_fused_with_a_shift_run_as_a_wavefront() {
    let columns = [
        "shift(j#2) = YES",
        "order(j, j#2) = MERGED",
        "tile_size(t) = 2",
        "tile_size(i) = 16",
    ];
    check(
        "jacobi",
        JACOBI,
        &[
            ("t by 4 and rows by 8", &JACOBI_TIME_TILES),
            (
                "t by 2 and rows by 16, columns fused with a shift",
                &[
                    &JACOBI_TIME_TILES[..4],
                    &JACOBI_TIME_TILES[6..],
                    &columns[..],
                ]
                .concat(),
            ),
        ],
    );
}

/// The time-tiled start `commute tune` evaluates first: jacobi's sweeps
/// fused and seidel's single sweep, their rows skewed, tiles of time
/// steps and rows in waves; each leaf computes the original arrays. So do
/// sweeps that update in place (reductions, which are offered skews too).
#[test]
fn the_time_tiled_start_of_jacobi_and_seidel_computes_the_original_arrays() {
    for (name, source, fused) in [
        ("jacobi", JACOBI, true),
        ("seidel", SEIDEL, false),
        ("leapfrog", LEAPFROG, true),
    ] {
        let kernel = read_kernel(&format!("{name}.c"), source).expect("the kernel reads");
        let host = KernelHost::new(kernel.clone());
        let root = Candidate::new(Backbone(host.clone())).unwrap_or_else(|e| panic!("{e}"));
        let start = time_tiled_start(&host, &root, 2)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|| panic!("{name}: no time-tiled start"));
        assert_eq!(start.fused, fused, "{name}");
        assert!(!start.leaves.is_empty(), "{name}");
        let original = Original::new(
            TEST,
            &format!("{name}-start"),
            &kernel,
            &named(&host, &[]),
            &[],
        );
        for (leaf, (steps, rows)) in start.leaves.iter().zip(&start.tiles) {
            let schedule = Schedule::from_candidate(&host, leaf).unwrap_or_else(|e| panic!("{e}"));
            let case = format!("start {steps} x {rows}");
            let outline = schedule.outline(&kernel);
            assert!(
                schedule.loops().iter().any(|l| l.kind == Kind::Wave) && !schedule.skews.is_empty(),
                "{name}, {case}: no skewed wave\n{outline}"
            );
            original.check_explicit(TEST, (name, &case), &kernel, &schedule, &[]);
        }
    }
    // gemm has no time loop.
    let gemm = std::fs::read_to_string(common::examples_dir().join("gemm.c")).expect("gemm");
    let host = KernelHost::new(read_kernel("gemm.c", &gemm).expect("gemm reads"));
    let root = Candidate::new(Backbone(host.clone())).unwrap_or_else(|e| panic!("{e}"));
    assert!(time_tiled_start(&host, &root, 2)
        .expect("no error")
        .is_none());
}

/// Without the skews, jacobi's time tiles are not a wavefront: one
/// anti-diagonal holds a tile of later time steps beside one of the rows
/// they read, which it writes.
#[test]
fn unskewed_time_tiles_of_jacobi_race() {
    let kernel = read_kernel("jacobi.c", JACOBI).expect("the kernel reads");
    let host = KernelHost::new(kernel.clone());
    let mut schedule = named(&host, &JACOBI_TIME_TILES);
    schedule.skews.clear();
    match run(&kernel, &schedule, &[], LIMIT) {
        Err(RunError::Race { element, .. }) => {
            assert!(element.0 == "A" || element.0 == "B", "{element:?}")
        }
        other => panic!(
            "the unskewed time tiles run: {:?}\n{}",
            other.map(|_| ()),
            schedule.outline(&kernel)
        ),
    }
}

/// The skew is what makes seidel's wavefront legal: the same tree with
/// `i` unskewed runs, in one anti-diagonal, a tile of later time steps
/// next to the one of the rows below it, which writes what it reads.
#[test]
fn an_unskewed_wavefront_of_seidel_races() {
    let kernel = read_kernel("seidel.c", SEIDEL).expect("the kernel reads");
    let host = KernelHost::new(kernel.clone());
    let mut schedule = named(
        &host,
        &[
            "tile_size(t) = 2",
            "tile_size(i) = 4",
            "dim_kind(t.tile) = WAVE",
            "dim_kind(i.tile) = WAVEFRONT",
        ],
    );
    assert!(!schedule.skews.is_empty(), "the wavefront skews i");
    schedule.skews.clear();
    match run(&kernel, &schedule, &[], LIMIT) {
        Err(RunError::Race { element, loop_name }) => {
            assert!(
                element.0 == "A" && loop_name == "i",
                "{element:?} in {loop_name}"
            )
        }
        other => panic!(
            "the unskewed wavefront runs: {:?}\n{}",
            other.map(|_| ()),
            schedule.outline(&kernel)
        ),
    }
}
