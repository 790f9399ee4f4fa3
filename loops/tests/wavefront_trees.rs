//! Loop trees with a wavefront (a wave tile loop around a wavefront tile
//! loop), built by hand: a Gauss–Seidel sweep over time with its rows
//! skewed by the time steps, a triangle, independent rows, and two
//! statements of one C loop merged in the wavefront, on extents that are
//! no multiple of the tiles, with sequential, vector and dynamic loops.
//! The interpreter must run exactly the original instances with no race
//! between the tile pairs of one wave (every statement reads its own
//! target, so a lost, repeated or reordered instance changes the memory),
//! the explicit C must compile with OpenMP and print the original
//! program's arrays with two threads, and the directives emitter must
//! decline the trees. Without the skew the sweep's wavefront is illegal,
//! and the interpreter says so.

mod common;

use commute_loops::analysis::skew::Skew;
use commute_loops::emit::directives::directive_code;
use commute_loops::emit::interpret::{run, RunError};
use commute_loops::frontend::{read_kernel, LoopId, StatementId};
use commute_loops::lowering::schedule::{Kind, Node, Part, Schedule};

use common::trees::{original_tree, running, statement, tree, tree_loop, values, Original, LIMIT};

fn point(loops: &[usize], size: i64, body: Vec<Node>) -> Node {
    tree_loop(loops, Part::Point, size, Kind::Sequential, body)
}

/// The tiles of `outer` (of `outer_size`) and of `inner` as a wavefront,
/// the latter dynamic when asked, around `body`.
fn waves(
    outer: &[usize],
    outer_size: i64,
    inner: &[usize],
    inner_size: i64,
    dynamic: bool,
    body: Vec<Node>,
) -> Node {
    let wavefront = running(
        tree_loop(inner, Part::Tile, inner_size, Kind::Wavefront, body),
        Kind::Wavefront,
        dynamic,
    );
    tree_loop(outer, Part::Tile, outer_size, Kind::Wave, vec![wavefront])
}

/// This binary's name among the scratch directories.
const TEST: &str = "wavefronts";

/// Each case runs the original instances in the interpreter without a
/// race and, written as explicit C, prints the original arrays; no case
/// is expressible with directives. The explicit code of each case, by
/// case.
fn check(
    name: &str,
    source: &str,
    params: &[(&str, i64)],
    cases: &[(&str, Schedule)],
) -> Vec<String> {
    let kernel = read_kernel(&format!("{name}.c"), source).expect("the kernel reads");
    let values = values(&kernel, params);
    let original = Original::new(TEST, name, &kernel, &original_tree(&kernel), &values);
    let mut codes = Vec::new();
    for (case, schedule) in cases {
        let outline = schedule.outline(&kernel);
        assert!(outline.contains(" in waves"), "{case}:\n{outline}");
        let code = original.check_explicit(TEST, (name, case), &kernel, schedule, &values);
        assert!(
            code.contains("in waves") && code.contains("#pragma omp parallel for"),
            "{name}, {case}: no wavefront\n{code}"
        );
        let declined = directive_code(&kernel, schedule, &[])
            .expect_err("a wavefront is not expressible with directives");
        assert!(
            declined.0.contains("waves") || !schedule.skews.is_empty(),
            "{declined}"
        );
        codes.push(code);
    }
    codes
}

/// Gauss–Seidel over time, the 3 x 3 neighbourhood of seidel-2d: each
/// step reads the rows above as updated in this step and those below as
/// the last step left them, so rows tiled against time steps need the
/// rows skewed by the steps for a wavefront (distances (1, -1) become
/// (1, 0)). The extents are parameters.
const SEIDEL: &str = "\
#include <stdio.h>
#ifndef STEPS
#define STEPS 9
#endif
#ifndef SIDE
#define SIDE 19
#endif
static double A[SIDE][SIDE];
static void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < STEPS; t++)
    for (i = 1; i < SIDE - 1; i++)
      for (j = 1; j < SIDE - 1; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < SIDE; i++)
    for (int j = 0; j < SIDE; j++)
      A[i][j] = (double)((i * (j + 2) + 3 * j + 1) % 13);
  kernel();
  for (int i = 0; i < SIDE; i++)
    for (int j = 0; j < SIDE; j++)
      fprintf(stderr, \"%.17g\\n\", A[i][j]);
  return 0;
}
";

const SEIDEL_PARAMS: [(&str, i64); 2] = [("STEPS", 9), ("SIDE", 19)];

/// The sweep's time steps (loop 0) in tiles of `steps` as waves, its rows
/// (loop 1) in tiles of `rows` along them, points of both inside, the
/// columns untiled and innermost; the rows skewed by the steps when asked.
fn seidel(steps: i64, rows: i64, dynamic: bool, skewed: bool) -> Schedule {
    let mut schedule = tree(vec![waves(
        &[0],
        steps,
        &[1],
        rows,
        dynamic,
        vec![point(
            &[0],
            steps,
            vec![point(&[1], rows, vec![point(&[2], 1, vec![statement(0)])])],
        )],
    )]);
    if skewed {
        schedule.skews = vec![(
            StatementId(0),
            LoopId(1),
            Skew {
                base: LoopId(0),
                factor: 1,
            },
        )];
    }
    schedule
}

#[test]
fn a_skewed_seidel_wavefront_computes_the_original_arrays() {
    let cases: Vec<(&str, Schedule)> = vec![
        ("steps 2 rows 4", seidel(2, 4, false, true)),
        ("steps 3 rows 5", seidel(3, 5, false, true)),
        ("steps 4 rows 8 dynamic", seidel(4, 8, true, true)),
        ("steps 2 rows 16", seidel(2, 16, false, true)),
        ("steps 8 rows 3", seidel(8, 3, false, true)),
    ];
    let kernel = read_kernel("seidel.c", SEIDEL).expect("reads");
    assert_eq!(
        cases[0].1.outline(&kernel),
        "for t tiles of 2 in waves\n\
         \x20 for i+t tiles of 4 parallel along the waves\n\
         \x20   for t within a tile of 2\n\
         \x20     for i+t within a tile of 4\n\
         \x20       for j\n\
         \x20         A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]\n\
         \x20                  + A[i][j - 1] + A[i][j] + A[i][j + 1]\n\
         \x20                  + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;\n"
    );
    let codes = check("seidel", SEIDEL, &SEIDEL_PARAMS, &cases);
    // The rows' range reads the step tile: pairs outside it are skipped.
    assert!(codes[0].contains("continue;"), "{}", codes[0]);
    assert!(
        codes[2].contains("#pragma omp parallel for schedule(dynamic)\n"),
        "{}",
        codes[2]
    );
    assert!(
        !codes[0].contains("schedule(dynamic)"),
        "static unless asked\n{}",
        codes[0]
    );
}

/// Unskewed, a tile of rows reads the first row of the next tile as the
/// previous step left it, and that tile's pair one step tile earlier is
/// in the same wave: the interpreter finds the race.
#[test]
fn an_unskewed_seidel_wavefront_races() {
    let kernel = read_kernel("seidel.c", SEIDEL).expect("reads");
    let values = values(&kernel, &SEIDEL_PARAMS);
    for (steps, rows) in [(2, 4), (3, 5), (4, 8)] {
        let schedule = seidel(steps, rows, false, false);
        match run(&kernel, &schedule, &values, LIMIT) {
            Err(RunError::Race { loop_name, .. }) => assert_eq!(loop_name, "i"),
            other => panic!(
                "steps {steps}, rows {rows}: {other:?}\n{}",
                schedule.outline(&kernel)
            ),
        }
    }
}

/// A triangle (`j > i`) with flow dependences (1, 0) and (0, 1): its
/// rows' tiles and columns' tiles run as a wavefront unskewed, and the
/// columns' range reads the rows' tile.
const TRIANGLE: &str = "\
#include <stdio.h>
static double A[24][24];
static void kernel(void) {
  int i, j;
#pragma scop
  for (i = 1; i < 21; i++)
    for (j = i + 1; j < 23; j++)
      A[i][j] = (A[i][j - 1] + A[i - 1][j] + A[i][j]) / 3.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++)
      A[i][j] = (double)((i * 3 + j * 5) % 17);
  kernel();
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++)
      fprintf(stderr, \"%.17g\\n\", A[i][j]);
  return 0;
}
";

#[test]
fn a_triangular_wavefront_computes_the_original_arrays() {
    let nest = |rows: i64, columns: i64, dynamic: bool| {
        tree(vec![waves(
            &[0],
            rows,
            &[1],
            columns,
            dynamic,
            vec![point(
                &[0],
                rows,
                vec![point(&[1], columns, vec![statement(0)])],
            )],
        )])
    };
    let codes = check(
        "triangle",
        TRIANGLE,
        &[],
        &[
            ("rows 4 columns 4", nest(4, 4, false)),
            ("rows 3 columns 5", nest(3, 5, true)),
            ("rows 8 columns 2", nest(8, 2, false)),
        ],
    );
    assert!(codes[0].contains("continue;"), "{}", codes[0]);
    // Interchanged, the columns' tiles are the waves and the rows' run
    // along them.
    let interchanged = tree(vec![waves(
        &[1],
        4,
        &[0],
        3,
        false,
        vec![point(&[1], 4, vec![point(&[0], 3, vec![statement(0)])])],
    )]);
    check(
        "triangle-interchanged",
        TRIANGLE,
        &[],
        &[("columns 4 rows 3", interchanged)],
    );
}

/// Rows independent of each other, columns too: any order of the tiles.
const ROWS: &str = "\
#include <stdio.h>
static double A[24][24], B[24][24];
static void kernel(void) {
  int i, j;
#pragma scop
  for (i = 0; i < 21; i++)
    for (j = 2; j < 19; j++)
      B[i][j] = A[i][j] * 2.0 + A[i][j + 1] + B[i][j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++) {
      A[i][j] = (double)((i * 5 + j) % 13);
      B[i][j] = (double)((i + j * 3) % 7);
    }
  kernel();
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++)
      fprintf(stderr, \"%.17g\\n\", B[i][j]);
  return 0;
}
";

#[test]
fn rectangular_wavefronts_compute_the_original_arrays() {
    let vector_columns =
        |columns: i64| tree_loop(&[1], Part::Point, columns, Kind::Vector, vec![statement(0)]);
    let codes = check(
        "rows",
        ROWS,
        &[],
        &[
            (
                "rows 4 columns 8",
                tree(vec![waves(
                    &[0],
                    4,
                    &[1],
                    8,
                    false,
                    vec![point(&[0], 4, vec![point(&[1], 8, vec![statement(0)])])],
                )]),
            ),
            (
                "columns 4 rows 5 dynamic vector",
                tree(vec![waves(
                    &[1],
                    4,
                    &[0],
                    5,
                    true,
                    vec![point(&[0], 5, vec![vector_columns(4)])],
                )]),
            ),
            (
                "rows 8 columns 4 dynamic vector",
                tree(vec![waves(
                    &[0],
                    8,
                    &[1],
                    4,
                    true,
                    vec![point(&[0], 8, vec![vector_columns(4)])],
                )]),
            ),
        ],
    );
    for code in &codes[1..] {
        assert!(
            code.contains("#pragma omp parallel for schedule(dynamic)\n")
                && code.contains("#pragma omp simd"),
            "{code}"
        );
    }
}

/// One C loop of rows around two loops of columns with other bounds: the
/// second statement reads what the first wrote at its column and the one
/// before, so the columns merge (S0 before S1 at each column) and their
/// tiles run along the waves of the rows' tiles; the merged loop runs
/// over the hull of both ranges, each statement guarded by its own.
const TWO_STATEMENTS: &str = "\
#include <stdio.h>
static double A[24][24], B[24][24], C[24][24];
static void kernel(void) {
  int i, j, k;
#pragma scop
  for (i = 1; i < 22; i++) {
    for (j = 0; j < 17; j++)
      B[i][j] = A[i][j] + A[i][j + 1] + B[i - 1][j];
    for (k = 2; k < 21; k++)
      C[i][k] = B[i][k] + B[i][k - 1] * 0.5 + C[i - 1][k];
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++) {
      A[i][j] = (double)((i * 5 + j) % 13);
      B[i][j] = (double)((i + j * 3) % 7);
      C[i][j] = (double)((i * j) % 5);
    }
  kernel();
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++)
      fprintf(stderr, \"%.17g %.17g\\n\", B[i][j], C[i][j]);
  return 0;
}
";

#[test]
fn merged_statements_in_a_wavefront_compute_the_original_arrays() {
    let nest = |rows: i64, columns: i64, dynamic: bool| {
        tree(vec![waves(
            &[0],
            rows,
            &[1, 2],
            columns,
            dynamic,
            vec![point(
                &[0],
                rows,
                vec![point(&[1, 2], columns, vec![statement(0), statement(1)])],
            )],
        )])
    };
    let kernel = read_kernel("two-statements.c", TWO_STATEMENTS).expect("reads");
    assert_eq!(
        nest(4, 8, false).outline(&kernel),
        "for i tiles of 4 in waves\n\
         \x20 for j=k tiles of 8 parallel along the waves\n\
         \x20   for i within a tile of 4\n\
         \x20     for j=k within a tile of 8\n\
         \x20       B[i][j] = A[i][j] + A[i][j + 1] + B[i - 1][j];\n\
         \x20       C[i][k] = B[i][k] + B[i][k - 1] * 0.5 + C[i - 1][k];\n"
    );
    check(
        "two-statements",
        TWO_STATEMENTS,
        &[],
        &[
            ("rows 4 columns 8", nest(4, 8, false)),
            ("rows 5 columns 3 dynamic", nest(5, 3, true)),
        ],
    );
}

/// A wave loop must hold exactly one wavefront tile loop, and a
/// wavefront loop must be directly inside a wave loop.
/// A sweep per time step whose extents shrink with the step, the columns
/// bounded by the row: inside the time loop (which carries every
/// dependence between steps), the rows' and columns' tiles run as a
/// wavefront whose ranges read the time step and the rows' tile.
const SHRINKING: &str = "\
#include <stdio.h>
static double A[24][24];
static void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < 5; t++)
    for (i = 1; i < 21 - t; i++)
      for (j = 1; j < i + 4; j++)
        A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j] + A[i + 1][j + 1]) / 4.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++)
      A[i][j] = (double)((i * 7 + j * 3) % 11);
  kernel();
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++)
      fprintf(stderr, \"%.17g\\n\", A[i][j]);
  return 0;
}
";

#[test]
fn a_wavefront_inside_a_time_loop_computes_the_original_arrays() {
    let nest = |rows: i64, columns: i64, dynamic: bool| {
        tree(vec![point(
            &[0],
            1,
            vec![waves(
                &[1],
                rows,
                &[2],
                columns,
                dynamic,
                vec![point(
                    &[1],
                    rows,
                    vec![point(&[2], columns, vec![statement(0)])],
                )],
            )],
        )])
    };
    let codes = check(
        "shrinking",
        SHRINKING,
        &[],
        &[
            ("rows 4 columns 4", nest(4, 4, false)),
            ("rows 3 columns 8 dynamic", nest(3, 8, true)),
        ],
    );
    assert!(codes[0].contains("continue;"), "{}", codes[0]);
    // Time tiles as waves would need the rows skewed: a race.
    let kernel = read_kernel("shrinking.c", SHRINKING).expect("reads");
    let unskewed = tree(vec![waves(
        &[0],
        2,
        &[1],
        4,
        false,
        vec![point(
            &[0],
            2,
            vec![point(&[1], 4, vec![point(&[2], 1, vec![statement(0)])])],
        )],
    )]);
    assert!(
        matches!(
            run(&kernel, &unskewed, &[], LIMIT),
            Err(RunError::Race { .. })
        ),
        "{}",
        unskewed.outline(&kernel)
    );
}
