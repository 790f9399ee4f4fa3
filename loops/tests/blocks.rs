//! Loop trees with block loops (tiles of tiles), built by hand since the
//! space does not make them yet: rectangular, triangular and 3-D nests,
//! blocks of 16 or 32 around tiles of 4 or 8 at different places in the
//! nest (a block of one loop outside the tile of another, blocks
//! interchanged, a block around an untiled loop, one block loop merged
//! over statements whose tiles differ, skewed blocks), on extents that are
//! no multiple of a block or a tile. The interpreter must run exactly the
//! original instances in a legal order (every statement reads its own
//! target or sums into it, so a lost, repeated or reordered instance
//! changes the memory), the explicit C must compile and print the
//! original program's arrays, and the directives emitter must decline
//! them.

mod common;

use commute_loops::analysis::skew::Skew;
use commute_loops::emit::directives::directive_code;
use commute_loops::emit::explicit::explicit_code;
use commute_loops::emit::interpret::{run, RunError};
use commute_loops::frontend::{read_kernel, LoopId, StatementId};
use commute_loops::lowering::schedule::{Kind, Node, Part, Schedule};

use common::trees::{original_tree, running, statement, tree, tree_loop, values, Original, LIMIT};

/// A sequential loop of the C loops `loops`.
fn part(loops: &[usize], part: Part, size: i64, body: Vec<Node>) -> Node {
    tree_loop(loops, part, size, Kind::Sequential, body)
}

fn block(l: usize, size: i64, body: Vec<Node>) -> Node {
    part(&[l], Part::Block, size, body)
}

fn tile(l: usize, size: i64, body: Vec<Node>) -> Node {
    part(&[l], Part::Tile, size, body)
}

fn point(l: usize, size: i64, body: Vec<Node>) -> Node {
    part(&[l], Part::Point, size, body)
}

/// This binary's name among the scratch directories.
const TEST: &str = "blocks";

/// Each case runs the original instances in the interpreter and, written
/// as explicit C, prints the original arrays; no case is expressible with
/// directives.
fn check(name: &str, source: &str, params: &[(&str, i64)], cases: &[(&str, Schedule)]) {
    let kernel = read_kernel(&format!("{name}.c"), source).expect("the kernel reads");
    let values = values(&kernel, params);
    let original = Original::new(TEST, name, &kernel, &original_tree(&kernel), &values);
    for (case, schedule) in cases {
        let outline = schedule.outline(&kernel);
        assert!(outline.contains(" blocks of "), "{case}:\n{outline}");
        let code = original.check_explicit(TEST, (name, case), &kernel, schedule, &values);
        assert!(
            code.contains("_b = "),
            "{name}, {case}: no block loop\n{code}"
        );
        let declined = directive_code(&kernel, schedule, &[])
            .expect_err("a block loop is not expressible with directives");
        assert!(declined.0.contains("blocked"), "{declined}");
    }
}

/// A Gauss–Seidel sweep: flow dependences (1, 0) and (0, 1), so every
/// rectangular tiling and blocking, in any order of the blocks and tiles,
/// is legal, and no loop is parallel.
const SWEEP: &str = "\
#include <stdio.h>
static double A[40][40];
static void kernel(void) {
  int i, j;
#pragma scop
  for (i = 1; i < 38; i++)
    for (j = 1; j < 35; j++)
      A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j]) / 3.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++)
      A[i][j] = (double)((i * 7 + j * 3) % 11);
  kernel();
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++)
      fprintf(stderr, \"%.17g\\n\", A[i][j]);
  return 0;
}
";

/// Blocks and tiles of i (loop 0) and j (loop 1) of the sweep, points
/// innermost in the original order.
fn sweep_cases() -> Vec<(&'static str, Schedule)> {
    let points = |ti: i64, tj: i64| point(0, ti, vec![point(1, tj, vec![statement(0)])]);
    vec![
        (
            "each block around its tile",
            tree(vec![block(
                0,
                16,
                vec![tile(
                    0,
                    4,
                    vec![block(1, 16, vec![tile(1, 4, vec![points(4, 4)])])],
                )],
            )]),
        ),
        (
            "both blocks outside both tiles",
            tree(vec![block(
                0,
                16,
                vec![block(
                    1,
                    16,
                    vec![tile(0, 4, vec![tile(1, 4, vec![points(4, 4)])])],
                )],
            )]),
        ),
        (
            "the block of i outside the tiles of j",
            tree(vec![block(
                0,
                32,
                vec![block(
                    1,
                    8,
                    vec![tile(1, 4, vec![tile(0, 8, vec![points(8, 4)])])],
                )],
            )]),
        ),
        (
            "blocks interchanged",
            tree(vec![block(
                1,
                16,
                vec![block(
                    0,
                    16,
                    vec![tile(0, 4, vec![tile(1, 4, vec![points(4, 4)])])],
                )],
            )]),
        ),
        (
            "a block of the untiled j",
            tree(vec![block(
                0,
                16,
                vec![tile(0, 4, vec![block(1, 8, vec![points(4, 1)])])],
            )]),
        ),
    ]
}

#[test]
fn blocks_of_a_rectangular_sweep_compute_the_original_arrays() {
    check("sweep", SWEEP, &[], &sweep_cases());
}

/// Skews apply to every part of the loop: blocks of the skewed `j + i`
/// step from 0 like its tiles, and the blocks of the wavefront can run
/// outside those of i.
#[test]
fn skewed_blocks_compute_the_original_arrays() {
    let skewed = |roots: Vec<Node>| Schedule {
        roots,
        skews: vec![(
            StatementId(0),
            LoopId(1),
            Skew {
                base: LoopId(0),
                factor: 1,
            },
        )],
        shifts: Vec::new(),
    };
    let points =
        |outer: usize, inner: usize| point(outer, 4, vec![point(inner, 4, vec![statement(0)])]);
    check(
        "skewed",
        SWEEP,
        &[],
        &[
            (
                "skewed blocks inside",
                skewed(vec![block(
                    0,
                    16,
                    vec![block(
                        1,
                        16,
                        vec![tile(0, 4, vec![tile(1, 4, vec![points(0, 1)])])],
                    )],
                )]),
            ),
            (
                "skewed blocks outside",
                skewed(vec![block(
                    1,
                    16,
                    vec![block(
                        0,
                        16,
                        vec![tile(1, 4, vec![tile(0, 4, vec![points(1, 0)])])],
                    )],
                )]),
            ),
        ],
    );
}

/// A parallel block loop whose iterations depend on each other races.
#[test]
fn a_parallel_block_loop_of_the_sweep_races() {
    let kernel = read_kernel("sweep.c", SWEEP).expect("reads");
    for (case, schedule) in sweep_cases() {
        let Node::Loop(outer) = &schedule.roots[0] else {
            panic!("a loop")
        };
        let parallel = tree(vec![running(
            Node::Loop(outer.clone()),
            Kind::Parallel,
            false,
        )]);
        match run(&kernel, &parallel, &[], LIMIT) {
            Err(RunError::Race { loop_name, .. }) => {
                assert_eq!(loop_name, kernel.loops[outer.loops[0].0].iterator, "{case}")
            }
            other => panic!("{case}: {other:?}\n{}", parallel.outline(&kernel)),
        }
    }
}

/// Rows independent of each other: blocks of i run in parallel, alone,
/// dynamic or collapsed with the blocks of j.
const ROWS: &str = "\
#include <stdio.h>
static double A[40][40], B[40][40];
static void kernel(void) {
  int i, j;
#pragma scop
  for (i = 0; i < 37; i++)
    for (j = 2; j < 31; j++)
      B[i][j] = A[i][j] * 2.0 + A[i][j + 1] + B[i][j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++) {
      A[i][j] = (double)((i * 5 + j) % 13);
      B[i][j] = (double)((i + j * 3) % 7);
    }
  kernel();
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++)
      fprintf(stderr, \"%.17g\\n\", B[i][j]);
  return 0;
}
";

#[test]
fn parallel_and_collapsed_block_loops_compute_the_original_arrays() {
    let inside = || {
        vec![tile(
            0,
            4,
            vec![tile(
                1,
                4,
                vec![point(0, 4, vec![point(1, 4, vec![statement(0)])])],
            )],
        )]
    };
    let cases = [
        (
            "parallel blocks of i",
            tree(vec![running(
                block(0, 16, vec![block(1, 16, inside())]),
                Kind::Parallel,
                false,
            )]),
        ),
        (
            "dynamic parallel blocks of i",
            tree(vec![running(
                block(0, 32, vec![block(1, 8, inside())]),
                Kind::Parallel,
                true,
            )]),
        ),
        (
            "collapsed blocks",
            tree(vec![running(
                block(
                    0,
                    16,
                    vec![running(block(1, 16, inside()), Kind::Collapsed, false)],
                ),
                Kind::Parallel,
                false,
            )]),
        ),
        (
            "parallel blocks of j",
            tree(vec![running(
                block(1, 16, vec![block(0, 16, inside())]),
                Kind::Parallel,
                false,
            )]),
        ),
    ];
    check("rows", ROWS, &[], &cases);
    let kernel = read_kernel("rows.c", ROWS).expect("reads");
    let code = explicit_code(&kernel, &cases[2].1, &[]).expect("writes");
    assert!(
        code.contains("#pragma omp parallel for collapse(2)"),
        "{code}"
    );
    let code = explicit_code(&kernel, &cases[1].1, &[]).expect("writes");
    assert!(
        code.contains("#pragma omp parallel for schedule(dynamic)\n"),
        "{code}"
    );
}

/// A triangle (`j > i`) with the same dependences as the sweep.
const TRIANGLE: &str = "\
#include <stdio.h>
static double A[40][40];
static void kernel(void) {
  int i, j;
#pragma scop
  for (i = 1; i < 37; i++)
    for (j = i + 1; j < 37; j++)
      A[i][j] = (A[i][j - 1] + A[i - 1][j] + A[i][j]) / 3.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++)
      A[i][j] = (double)((i * 3 + j * 5) % 17);
  kernel();
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++)
      fprintf(stderr, \"%.17g\\n\", A[i][j]);
  return 0;
}
";

#[test]
fn blocks_of_a_triangle_compute_the_original_arrays() {
    let points = || point(0, 4, vec![point(1, 4, vec![statement(0)])]);
    check(
        "triangle",
        TRIANGLE,
        &[],
        &[
            (
                "each block around its tile",
                tree(vec![block(
                    0,
                    16,
                    vec![tile(
                        0,
                        4,
                        vec![block(1, 16, vec![tile(1, 4, vec![points()])])],
                    )],
                )]),
            ),
            (
                "the block of i outside the tiles of j",
                tree(vec![block(
                    0,
                    16,
                    vec![tile(1, 4, vec![tile(0, 4, vec![points()])])],
                )]),
            ),
            (
                "the block of j outermost",
                tree(vec![block(
                    1,
                    16,
                    vec![tile(0, 4, vec![tile(1, 4, vec![points()])])],
                )]),
            ),
            (
                "blocks interchanged",
                tree(vec![block(
                    1,
                    16,
                    vec![block(
                        0,
                        16,
                        vec![tile(0, 4, vec![tile(1, 4, vec![points()])])],
                    )],
                )]),
            ),
        ],
    );
}

/// A matrix product whose extents are parameters (so are the origins).
const PRODUCT: &str = "\
#include <stdio.h>
#ifndef P
#define P 37
#endif
#ifndef Q
#define Q 29
#endif
#ifndef R
#define R 23
#endif
static double A[P][R], B[R][Q], C[P][Q];
static void kernel(void) {
  int i, j, k;
#pragma scop
  for (i = 0; i < P; i++)
    for (j = 0; j < Q; j++)
      for (k = 0; k < R; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < P; i++)
    for (int k = 0; k < R; k++)
      A[i][k] = (double)((i * 3 + k) % 7) / 7;
  for (int k = 0; k < R; k++)
    for (int j = 0; j < Q; j++)
      B[k][j] = (double)((k + 2 * j) % 5) / 5;
  for (int i = 0; i < P; i++)
    for (int j = 0; j < Q; j++)
      C[i][j] = (double)((i + j) % 3);
  kernel();
  for (int i = 0; i < P; i++)
    for (int j = 0; j < Q; j++)
      fprintf(stderr, \"%.17g\\n\", C[i][j]);
  return 0;
}
";

#[test]
fn blocks_of_a_3d_product_compute_the_original_arrays() {
    let points = |order: [usize; 3]| {
        point(
            order[0],
            4,
            vec![point(
                order[1],
                4,
                vec![point(order[2], 4, vec![statement(0)])],
            )],
        )
    };
    let tiles = |body: Node| tile(0, 4, vec![tile(1, 4, vec![tile(2, 4, vec![body])])]);
    check(
        "product",
        PRODUCT,
        &[("P", 37), ("Q", 29), ("R", 23)],
        &[
            (
                "three blocks outside three tiles",
                tree(vec![block(
                    0,
                    16,
                    vec![block(
                        1,
                        16,
                        vec![block(2, 16, vec![tiles(points([0, 1, 2]))])],
                    )],
                )]),
            ),
            (
                "parallel blocks of i, blocks of k between tiles",
                tree(vec![running(
                    block(
                        0,
                        16,
                        vec![tile(
                            0,
                            4,
                            vec![block(
                                2,
                                8,
                                vec![tile(1, 4, vec![tile(2, 4, vec![points([0, 2, 1])])])],
                            )],
                        )],
                    ),
                    Kind::Parallel,
                    false,
                )]),
            ),
            (
                "blocks of k outermost",
                tree(vec![block(
                    2,
                    16,
                    vec![block(0, 32, vec![tiles(points([0, 1, 2]))])],
                )]),
            ),
        ],
    );
}

/// One C loop around two statements: its block loop holds both, their
/// tile loops (of 4 and of 8) are distributed inside it.
const TWO_STATEMENTS: &str = "\
#include <stdio.h>
static double A[40][40], B[40][40], C[40][40];
static void kernel(void) {
  int i, j, k;
#pragma scop
  for (i = 0; i < 37; i++) {
    for (j = 0; j < 29; j++)
      B[i][j] = A[i][j] * 2.0 + A[i][j + 1] + B[i][j];
    for (k = 0; k < 23; k++)
      C[i][k] = B[i][k] + B[i][k + 1] + C[i][k];
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++) {
      A[i][j] = (double)((i * 5 + j) % 13);
      B[i][j] = (double)((i + j * 3) % 7);
      C[i][j] = (double)((i * j) % 5);
    }
  kernel();
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++)
      fprintf(stderr, \"%.17g %.17g\\n\", B[i][j], C[i][j]);
  return 0;
}
";

/// Two loops fused in one block loop, their tiles of 4 and 8 inside.
const FUSED: &str = "\
#include <stdio.h>
static double A[40], B[40];
static void kernel(void) {
  int i, j;
#pragma scop
  for (i = 0; i < 37; i++)
    A[i] = A[i] * 0.5 + 1.0;
  for (j = 2; j < 35; j++)
    B[j] = A[j - 1] + A[j] + B[j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++) {
    A[i] = (double)(i % 7);
    B[i] = (double)(i % 3);
  }
  kernel();
  for (int i = 0; i < 40; i++)
    fprintf(stderr, \"%.17g %.17g\\n\", A[i], B[i]);
  return 0;
}
";

#[test]
fn merged_block_loops_with_different_tiles_compute_the_original_arrays() {
    let rows = |kind: Kind| {
        tree(vec![running(
            block(
                0,
                16,
                vec![
                    tile(
                        0,
                        4,
                        vec![point(
                            0,
                            4,
                            vec![tile(1, 4, vec![point(1, 4, vec![statement(0)])])],
                        )],
                    ),
                    tile(
                        0,
                        8,
                        vec![point(0, 8, vec![point(2, 1, vec![statement(1)])])],
                    ),
                ],
            ),
            kind,
            false,
        )])
    };
    let kernel = read_kernel("two-statements.c", TWO_STATEMENTS).expect("reads");
    assert_eq!(
        rows(Kind::Parallel).outline(&kernel),
        "for i blocks of 16 parallel\n\
         \x20 for i tiles of 4\n\
         \x20   for i within a tile of 4\n\
         \x20     for j tiles of 4\n\
         \x20       for j within a tile of 4\n\
         \x20         B[i][j] = A[i][j] * 2.0 + A[i][j + 1] + B[i][j];\n\
         \x20 for i tiles of 8\n\
         \x20   for i within a tile of 8\n\
         \x20     for k\n\
         \x20       C[i][k] = B[i][k] + B[i][k + 1] + C[i][k];\n"
    );
    check(
        "two-statements",
        TWO_STATEMENTS,
        &[],
        &[
            ("one block loop", rows(Kind::Sequential)),
            ("one parallel block loop", rows(Kind::Parallel)),
        ],
    );
    check(
        "fused",
        FUSED,
        &[],
        &[(
            "fused block loop",
            tree(vec![part(
                &[0, 1],
                Part::Block,
                16,
                vec![
                    tile(0, 4, vec![point(0, 4, vec![statement(0)])]),
                    tile(1, 8, vec![point(1, 8, vec![statement(1)])]),
                ],
            )]),
        )],
    );
}
