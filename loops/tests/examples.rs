//! The bundled C examples (`examples/*.c` at the workspace root): every one
//! is read by the front-end with the loops, statements and accesses it was
//! written with, its dependences show the facts worked out by hand below,
//! and it compiles with the system C compiler and runs at small sizes,
//! printing its time on stdout and a well-formed array dump on stderr.
//!
//! A new example needs an entry in [`EXAMPLES`] and a line in the
//! `reading_tests!` list; `the_examples_directory_matches_the_table` fails
//! until it has both.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::{examples_dir, run_with_timeout};

use commute_loops::analysis::dependences::{dependences, Dependence, Distance, Kind};
use commute_loops::frontend::{read_nest, Access, Kernel, LoopId, StatementId};

/// What one example is made of, and how to build it small.
struct Example {
    /// The file name without `.c`.
    name: &'static str,
    /// Each loop as `iterator in [lower, upper)` with its parent loop's
    /// index, in the order the front-end numbers them.
    loops: &'static [(&'static str, Option<usize>)],
    /// Each statement as its enclosing loops' indices and
    /// `write <- read, read, ...` (reads in source order, the target first
    /// for `+=` and the like).
    statements: &'static [(&'static [usize], &'static str)],
    /// Facts about the dependences, checked by hand (see each function).
    facts: fn(&Check),
    /// `-D` macros for a small, quick run.
    small: &'static [(&'static str, usize)],
    /// For a file without `#pragma scop`: the nest to read (`--nest`).
    nest: Option<&'static str>,
    /// The arrays dumped and their number of values at the small sizes.
    dumps: &'static [(&'static str, usize)],
}

const EXAMPLES: &[Example] = &[
    Example {
        name: "gemm",
        loops: &[
            ("i in [0, _PB_NI)", None),
            ("j in [0, _PB_NJ)", Some(0)),
            ("k in [0, _PB_NK)", Some(0)),
            ("j in [0, _PB_NJ)", Some(2)),
        ],
        statements: &[
            (&[0, 1], "C[i][j] <- C[i][j], beta"),
            (&[0, 2, 3], "C[i][j] <- C[i][j], alpha, A[i][k], B[k][j]"),
        ],
        facts: gemm,
        small: &[("NI", 20), ("NJ", 25), ("NK", 30)],
        nest: None,
        dumps: &[("C", 20 * 25)],
    },
    Example {
        name: "2mm",
        loops: &[
            ("i in [0, _PB_NI)", None),
            ("j in [0, _PB_NJ)", Some(0)),
            ("k in [0, _PB_NK)", Some(1)),
            ("i in [0, _PB_NI)", None),
            ("j in [0, _PB_NL)", Some(3)),
            ("k in [0, _PB_NJ)", Some(4)),
        ],
        statements: &[
            (&[0, 1], "tmp[i][j] <- "),
            (
                &[0, 1, 2],
                "tmp[i][j] <- tmp[i][j], alpha, A[i][k], B[k][j]",
            ),
            (&[3, 4], "D[i][j] <- D[i][j], beta"),
            (&[3, 4, 5], "D[i][j] <- D[i][j], tmp[i][k], C[k][j]"),
        ],
        facts: two_mm,
        small: &[("NI", 16), ("NJ", 18), ("NK", 20), ("NL", 22)],
        nest: None,
        dumps: &[("D", 16 * 22)],
    },
    Example {
        name: "syrk",
        loops: &[
            ("i in [0, _PB_N)", None),
            ("j in [0, i + 1)", Some(0)),
            ("k in [0, _PB_M)", Some(0)),
            ("j in [0, i + 1)", Some(2)),
        ],
        statements: &[
            (&[0, 1], "C[i][j] <- C[i][j], beta"),
            (&[0, 2, 3], "C[i][j] <- C[i][j], alpha, A[i][k], A[j][k]"),
        ],
        facts: syrk,
        small: &[("N", 24), ("M", 20)],
        nest: None,
        dumps: &[("C", 24 * 24)],
    },
    Example {
        name: "atax",
        loops: &[
            ("j in [0, _PB_N)", None),
            ("i in [0, _PB_M)", None),
            ("j in [0, _PB_N)", Some(1)),
            ("j in [0, _PB_N)", Some(1)),
        ],
        statements: &[
            (&[0], "y[j] <- "),
            (&[1], "tmp[i] <- "),
            (&[1, 2], "tmp[i] <- tmp[i], A[i][j], x[j]"),
            (&[1, 3], "y[j] <- y[j], A[i][j], tmp[i]"),
        ],
        facts: atax,
        small: &[("M", 30), ("N", 34)],
        nest: None,
        dumps: &[("y", 34)],
    },
    Example {
        name: "covariance",
        loops: &[
            ("j in [0, _PB_M)", None),
            ("k in [0, _PB_N)", Some(0)),
            ("k in [0, _PB_N)", None),
            ("j in [0, _PB_M)", Some(2)),
            ("i in [0, _PB_M)", None),
            ("j in [i, _PB_M)", Some(4)),
            ("k in [0, _PB_N)", Some(5)),
        ],
        statements: &[
            (&[0], "mean[j] <- "),
            (&[0, 1], "mean[j] <- mean[j], data[k][j]"),
            (&[0], "mean[j] <- mean[j], float_n"),
            (&[2, 3], "data[k][j] <- data[k][j], mean[j]"),
            (&[4, 5], "cov[i][j] <- "),
            (&[4, 5, 6], "cov[i][j] <- cov[i][j], data[k][i], data[k][j]"),
            (&[4, 5], "cov[i][j] <- cov[i][j], float_n"),
            (&[4, 5], "cov[j][i] <- cov[i][j]"),
        ],
        facts: covariance,
        small: &[("M", 20), ("N", 26)],
        nest: None,
        dumps: &[("cov", 20 * 20)],
    },
    Example {
        name: "jacobi-2d",
        loops: &[
            ("t in [0, _PB_TSTEPS)", None),
            ("i in [1, _PB_N - 1)", Some(0)),
            ("j in [1, _PB_N - 1)", Some(1)),
            ("i in [1, _PB_N - 1)", Some(0)),
            ("j in [1, _PB_N - 1)", Some(3)),
        ],
        statements: &[
            (
                &[0, 1, 2],
                "B[i][j] <- A[i][j], A[i][j - 1], A[i][j + 1], A[i - 1][j], A[i + 1][j]",
            ),
            (
                &[0, 3, 4],
                "A[i][j] <- B[i][j], B[i][j - 1], B[i][j + 1], B[i - 1][j], B[i + 1][j]",
            ),
        ],
        facts: jacobi_2d,
        small: &[("TSTEPS", 5), ("N", 20)],
        nest: None,
        dumps: &[("A", 20 * 20)],
    },
    Example {
        name: "seidel-2d",
        loops: &[
            ("t in [0, _PB_TSTEPS)", None),
            ("i in [1, _PB_N - 1)", Some(0)),
            ("j in [1, _PB_N - 1)", Some(1)),
        ],
        statements: &[(
            &[0, 1, 2],
            "A[i][j] <- A[i - 1][j - 1], A[i - 1][j], A[i - 1][j + 1], \
             A[i][j - 1], A[i][j], A[i][j + 1], \
             A[i + 1][j - 1], A[i + 1][j], A[i + 1][j + 1]",
        )],
        facts: seidel_2d,
        small: &[("TSTEPS", 5), ("N", 20)],
        nest: None,
        dumps: &[("A", 20 * 20)],
    },
    Example {
        name: "heat-3d",
        loops: &[
            ("t in [0, _PB_TSTEPS)", None),
            ("i in [1, _PB_N - 1)", Some(0)),
            ("j in [1, _PB_N - 1)", Some(1)),
            ("k in [1, _PB_N - 1)", Some(2)),
            ("i in [1, _PB_N - 1)", Some(0)),
            ("j in [1, _PB_N - 1)", Some(4)),
            ("k in [1, _PB_N - 1)", Some(5)),
        ],
        statements: &[
            (
                &[0, 1, 2, 3],
                "B[i][j][k] <- A[i][j][k], A[i + 1][j][k], A[i - 1][j][k], A[i][j + 1][k], \
                 A[i][j - 1][k], A[i][j][k + 1], A[i][j][k - 1], A[i][j][k]",
            ),
            (
                &[0, 4, 5, 6],
                "A[i][j][k] <- B[i][j][k], B[i + 1][j][k], B[i - 1][j][k], B[i][j + 1][k], \
                 B[i][j - 1][k], B[i][j][k + 1], B[i][j][k - 1], B[i][j][k]",
            ),
        ],
        facts: heat_3d,
        small: &[("TSTEPS", 4), ("N", 10)],
        nest: None,
        dumps: &[("A", 10 * 10 * 10)],
    },
    Example {
        name: "fdtd-2d",
        loops: &[
            ("t in [0, _PB_TSTEPS)", None),
            ("j in [0, _PB_NY)", Some(0)),
            ("i in [1, _PB_NX)", Some(0)),
            ("j in [0, _PB_NY)", Some(2)),
            ("i in [0, _PB_NX)", Some(0)),
            ("j in [1, _PB_NY)", Some(4)),
            ("i in [0, _PB_NX - 1)", Some(0)),
            ("j in [0, _PB_NY - 1)", Some(6)),
        ],
        statements: &[
            (&[0, 1], "ey[0][j] <- source[t]"),
            (&[0, 2, 3], "ey[i][j] <- ey[i][j], hz[i][j], hz[i - 1][j]"),
            (&[0, 4, 5], "ex[i][j] <- ex[i][j], hz[i][j], hz[i][j - 1]"),
            (
                &[0, 6, 7],
                "hz[i][j] <- hz[i][j], ex[i][j + 1], ex[i][j], ey[i + 1][j], ey[i][j]",
            ),
        ],
        facts: fdtd_2d,
        small: &[("TSTEPS", 4), ("NX", 10), ("NY", 12)],
        nest: None,
        dumps: &[("hz", 10 * 12)],
    },
    Example {
        name: "lu",
        loops: &[
            ("i in [0, _PB_N)", None),
            ("j in [0, i)", Some(0)),
            ("k in [0, j)", Some(1)),
            ("j in [i, _PB_N)", Some(0)),
            ("k in [0, i)", Some(3)),
        ],
        statements: &[
            (&[0, 1, 2], "A[i][j] <- A[i][j], A[i][k], A[k][j]"),
            (&[0, 1], "A[i][j] <- A[i][j], A[j][j]"),
            (&[0, 3, 4], "A[i][j] <- A[i][j], A[i][k], A[k][j]"),
        ],
        facts: lu,
        small: &[("N", 24)],
        nest: None,
        dumps: &[("A", 24 * 24)],
    },
    Example {
        name: "backsolve",
        loops: &[
            ("i in [0, N)", None),
            ("r in [0, M)", Some(0)),
            ("j in [i + 1, N)", Some(0)),
            ("r in [0, M)", Some(2)),
            ("r in [0, M)", Some(0)),
        ],
        statements: &[
            (&[0, 1], "X[i][r] <- B[i][r]"),
            (&[0, 2, 3], "X[i][r] <- X[i][r], U[i][j], X[j][r]"),
            (&[0, 4], "X[i][r] <- X[i][r], U[i][i]"),
        ],
        facts: backsolve,
        small: &[("N", 24), ("M", 20)],
        nest: None,
        dumps: &[("X", 24 * 20)],
    },
    Example {
        name: "edit-distance",
        loops: &[
            ("p in [0, NI)", None),
            ("i in [0, N + 1)", Some(0)),
            ("j in [0, N + 1)", Some(1)),
        ],
        statements: &[
            (&[0, 1, 2], "D[p][i][j] <- "),
            (&[0, 1, 2], "D[p][i][j] <- "),
            (
                &[0, 1, 2],
                "D[p][i][j] <- D[p][i - 1][j], D[p][i][j - 1], D[p][i - 1][j], D[p][i][j - 1]",
            ),
            (
                &[0, 1, 2],
                "D[p][i][j] <- D[p][i - 1][j - 1], a[p][i - 1], b[p][j - 1], D[p][i][j], \
                 D[p][i - 1][j - 1], a[p][i - 1], b[p][j - 1], D[p][i][j]",
            ),
        ],
        facts: edit_distance,
        small: &[("NI", 6), ("N", 20)],
        nest: None,
        dumps: &[("D", 6 * 21 * 21)],
    },
    Example {
        name: "normalize",
        loops: &[
            ("i in [0, N)", None),
            ("j in [0, M)", Some(0)),
            ("j in [0, M)", Some(0)),
        ],
        statements: &[
            (&[0], "norm[i] <- "),
            (&[0, 1], "norm[i] <- norm[i], X[i][j], X[i][j]"),
            (&[0], "norm[i] <- norm[i]"),
            (&[0], "norm[i] <- norm[i], EPS, norm[i]"),
            (&[0, 2], "Y[i][j] <- X[i][j], norm[i]"),
            (
                &[0, 2],
                "Y[i][j] <- Y[i][j], Y[i][j], CLAMP, Y[i][j], CLAMP, CLAMP, CLAMP",
            ),
        ],
        facts: normalize,
        small: &[("N", 20), ("M", 24)],
        nest: None,
        dumps: &[("Y", 20 * 24)],
    },
    Example {
        name: "matmul-pointers",
        loops: &[
            ("i in [0, ni)", None),
            ("j in [0, nj)", Some(0)),
            ("k in [0, nk)", Some(1)),
        ],
        statements: &[
            (&[0, 1], "C[i][j] <- "),
            (&[0, 1, 2], "C[i][j] <- C[i][j], A[i][k], B[k][j]"),
        ],
        facts: matmul_pointers,
        small: &[("NI", 20), ("NJ", 25), ("NK", 30)],
        nest: Some("matmul"),
        dumps: &[("C", 20 * 25)],
    },
    Example {
        name: "bilinear",
        loops: &[("i in [0, _PB_N)", None), ("j in [0, _PB_N)", Some(0))],
        statements: &[(&[0, 1], "s <- s, x[i], A[i][j], y[j]")],
        facts: bilinear,
        small: &[("N", 30)],
        nest: None,
        dumps: &[("s", 1)],
    },
    Example {
        name: "abt",
        loops: &[
            ("i in [0, _PB_NI)", None),
            ("j in [0, _PB_NJ)", Some(0)),
            ("k in [0, _PB_NK)", Some(1)),
        ],
        statements: &[(&[0, 1, 2], "C[i][j] <- C[i][j], A[i][k], B[j][k]")],
        facts: abt,
        small: &[("NI", 20), ("NJ", 24), ("NK", 28)],
        nest: None,
        dumps: &[("C", 20 * 24)],
    },
    Example {
        name: "contraction",
        loops: &[
            ("r in [0, NR)", None),
            ("q in [0, NQ)", Some(0)),
            ("p in [0, NP)", Some(1)),
            ("s in [0, NS)", Some(2)),
            ("p in [0, NP)", Some(1)),
        ],
        statements: &[
            (&[0, 1, 2], "acc[p] <- "),
            (&[0, 1, 2, 3], "acc[p] <- acc[p], X[r][q][s], W[s][p]"),
            (&[0, 1, 4], "Y[r][q][p] <- scale, acc[p]"),
        ],
        facts: contraction,
        small: &[("NR", 6), ("NQ", 5), ("NP", 8), ("NS", 7)],
        nest: None,
        dumps: &[("Y", 6 * 5 * 8)],
    },
];

/// How long a compilation or a run may take before it is killed.
const TIMEOUT: Duration = Duration::from_secs(60);

fn example(name: &str) -> &'static Example {
    EXAMPLES
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no entry for `{name}` in EXAMPLES"))
}

/// A kernel and its dependences, with the example's name for messages.
struct Check {
    name: &'static str,
    kernel: Kernel,
    deps: Vec<Dependence>,
}

impl Check {
    fn shown(&self) -> String {
        let lines: Vec<String> = self
            .deps
            .iter()
            .map(|d| format!("  {}", d.display(&self.kernel)))
            .collect();
        format!("{}: dependences:\n{}", self.name, lines.join("\n"))
    }

    /// Indices of the loops that some dependence may be carried by.
    fn carrying(&self) -> Vec<usize> {
        (0..self.kernel.loops.len())
            .filter(|&l| self.deps.iter().any(|d| d.may_be_carried_by(LoopId(l))))
            .collect()
    }

    /// Asserts the loops that may carry a dependence, worked out by hand.
    fn assert_carrying(&self, expected: &[usize]) {
        assert_eq!(self.carrying(), expected, "{}", self.shown());
    }

    /// The dependences of a kind from `source` to `sink` on `array`.
    fn find(&self, kind: Kind, source: usize, sink: usize, array: &str) -> Vec<&Dependence> {
        self.deps
            .iter()
            .filter(|d| {
                d.kind == kind
                    && d.source == StatementId(source)
                    && d.sink == StatementId(sink)
                    && d.name == array
            })
            .collect()
    }

    /// Like [`Check::find`], asserting that there is at least one.
    fn expect(&self, kind: Kind, source: usize, sink: usize, array: &str) -> Vec<&Dependence> {
        let found = self.find(kind, source, sink, array);
        assert!(
            !found.is_empty(),
            "no {kind} dependence S{source} -> S{sink} on {array}\n{}",
            self.shown()
        );
        found
    }

    /// Asserts that a dependence with exactly these distances along the
    /// common loops exists (aligned loops, which may be fused, follow them
    /// in the record).
    fn expect_distances(
        &self,
        kind: Kind,
        source: usize,
        sink: usize,
        array: &str,
        distances: &[Distance],
    ) -> &Dependence {
        self.expect(kind, source, sink, array)
            .into_iter()
            .find(|d| d.distances[..d.loops.len()] == *distances)
            .unwrap_or_else(|| {
                panic!(
                    "no {kind} S{source} -> S{sink} on {array} with {distances:?}\n{}",
                    self.shown()
                )
            })
    }

    /// Asserts which of the kernel's loops `d` may be carried by.
    fn assert_may_be_carried_by(&self, d: &Dependence, loops: &[usize]) {
        let carried: Vec<usize> = (0..self.kernel.loops.len())
            .filter(|&l| d.may_be_carried_by(LoopId(l)))
            .collect();
        assert_eq!(carried, loops, "{}: {}", self.name, d.display(&self.kernel));
    }

    /// The dependences between two groups of statements, either way.
    fn between(&self, from: &[usize], to: &[usize]) -> Vec<&Dependence> {
        self.deps
            .iter()
            .filter(|d| from.contains(&d.source.0) && to.contains(&d.sink.0))
            .collect()
    }
}

use Distance::Exact;

/// A distance of unknown magnitude, surely positive.
const PLUS: Distance = Distance::POSITIVE;

/// `C *= beta` (S0, in i, j) then `C += alpha * A * B` (S1, in i, k, j):
/// every dependence is on C[i][j] of one row i; S0 scales it before S1
/// accumulates into it in the same iteration of i, and the accumulation is
/// carried by k. The two j loops and i are parallel.
fn gemm(c: &Check) {
    c.assert_carrying(&[2]);
    assert!(c.deps.iter().all(|d| d.name == "C"), "{}", c.shown());
    // The two j loops are paired for fusion by C[i][j]: the records go on
    // with the distance between them, 0.
    for d in c.expect(Kind::Flow, 0, 1, "C") {
        assert_eq!(d.distances, [Exact(0), Exact(0)], "{}", c.shown());
        assert_eq!(d.aligned, [(LoopId(1), LoopId(3))], "{}", c.shown());
        assert_eq!(d.carrier(), None);
    }
    let accumulate = c.expect_distances(Kind::Flow, 1, 1, "C", &[Exact(0), PLUS, Exact(0)]);
    assert_eq!(accumulate.carrier(), Some(LoopId(2)));
    c.expect_distances(Kind::Output, 1, 1, "C", &[Exact(0), PLUS, Exact(0)]);
}

/// C = A * B^T: every C[i][j] is a dot product along k (L2), the only
/// loop that carries anything; A and B are only read. The dot product is
/// a reduction: its dependences are marked so.
fn abt(c: &Check) {
    c.assert_carrying(&[2]);
    assert!(
        c.deps.iter().all(|d| d.name == "C" && d.reduction),
        "{}",
        c.shown()
    );
    let accumulate = c.expect_distances(Kind::Flow, 0, 0, "C", &[Exact(0), Exact(0), PLUS]);
    assert_eq!(accumulate.carrier(), Some(LoopId(2)));
}

/// s = x^T A y: every iteration adds to s, so both loops carry its
/// dependences, and those alone, all of them a reduction's (the operand
/// reads x, A and y only).
fn bilinear(c: &Check) {
    c.assert_carrying(&[0, 1]);
    assert!(
        c.deps.iter().all(|d| d.name == "s" && d.reduction),
        "{}",
        c.shown()
    );
    assert!(c.kernel.reduction(StatementId(0)).is_some());
}

/// Y[r][q] = scale * X[r][q] * W through one row `acc`: the row is
/// reused by every (r, q), so r and q carry its dependences, s carries the
/// accumulation (a reduction), and no `p` loop carries anything (each p
/// has its own element).
fn contraction(c: &Check) {
    c.assert_carrying(&[0, 1, 3]);
    assert!(c.kernel.reduction(StatementId(1)).is_some());
    let accumulate = c.expect_distances(
        Kind::Flow,
        1,
        1,
        "acc",
        &[Exact(0), Exact(0), Exact(0), PLUS],
    );
    assert!(accumulate.reduction, "{}", c.shown());
}

/// tmp = alpha * A * B (S0 zeroes, S1 accumulates over k = L2), then
/// D = beta * D + tmp * C (S2 scales, S3 accumulates over k = L5): within
/// each product only its k loop carries, and the products are linked only
/// by tmp flowing forward from the first to the second, outside any common
/// loop.
fn two_mm(c: &Check) {
    c.assert_carrying(&[2, 5]);
    for d in c.between(&[0, 1], &[0, 1]) {
        c.assert_may_be_carried_by(
            d,
            if d.loops.len() == 3 && !d.zero_possible {
                &[2]
            } else {
                &[]
            },
        );
    }
    for d in c.between(&[2, 3], &[2, 3]) {
        c.assert_may_be_carried_by(
            d,
            if d.loops.len() == 3 && !d.zero_possible {
                &[5]
            } else {
                &[]
            },
        );
    }
    c.expect_distances(Kind::Flow, 1, 1, "tmp", &[Exact(0), Exact(0), PLUS]);
    c.expect_distances(Kind::Flow, 3, 3, "D", &[Exact(0), Exact(0), PLUS]);
    let tmp = c.expect_distances(Kind::Flow, 1, 3, "tmp", &[]);
    assert!(tmp.loops.is_empty());
    let across: Vec<&Dependence> = c.between(&[0, 1], &[2, 3]);
    assert!(
        across
            .iter()
            .all(|d| d.name == "tmp" && d.kind == Kind::Flow && d.sink == StatementId(3)),
        "{}",
        c.shown()
    );
    assert!(c.between(&[2, 3], &[0, 1]).is_empty(), "{}", c.shown());
}

/// gemm's structure on the lower triangle: C[i][j] (j <= i) scaled by S0,
/// then accumulated by S1 over k; A is only read (A[i][k] and A[j][k]), so
/// every dependence is on C and only k carries.
fn syrk(c: &Check) {
    c.assert_carrying(&[2]);
    assert!(c.deps.iter().all(|d| d.name == "C"), "{}", c.shown());
    for d in c.expect(Kind::Flow, 0, 1, "C") {
        assert_eq!(d.carrier(), None, "{}", c.shown());
    }
    let accumulate = c.expect_distances(Kind::Flow, 1, 1, "C", &[Exact(0), PLUS, Exact(0)]);
    c.assert_may_be_carried_by(accumulate, &[2]);
}

/// S0 zeroes y (L0); in each row i (L1): S1 zeroes tmp[i], S2 accumulates
/// tmp[i] over j (L2), S3 adds row i's share into every y[j] (L3). So L2
/// carries tmp[i]'s reduction, L1 carries y[j]'s reduction across rows, and
/// L0 and L3 carry nothing (each j touches its own y[j]); tmp[i] is
/// complete before S3 reads it in the same row.
fn atax(c: &Check) {
    c.assert_carrying(&[1, 2]);
    let row_sum = c.expect_distances(Kind::Flow, 2, 2, "tmp", &[Exact(0), PLUS]);
    c.assert_may_be_carried_by(row_sum, &[2]);
    let column_sum = c.expect_distances(Kind::Flow, 3, 3, "y", &[PLUS, Exact(0)]);
    c.assert_may_be_carried_by(column_sum, &[1]);
    let use_tmp = c.expect_distances(Kind::Flow, 2, 3, "tmp", &[Exact(0)]);
    assert_eq!(use_tmp.carrier(), None);
    c.expect_distances(Kind::Flow, 1, 2, "tmp", &[Exact(0)]);
    c.expect_distances(Kind::Flow, 0, 3, "y", &[]);
    // x and A are only read.
    assert!(
        c.deps.iter().all(|d| d.name == "y" || d.name == "tmp"),
        "{}",
        c.shown()
    );
}

/// The means (S0..S2 in L0, the sum over k in L1), the centering (S3 in
/// L2, L3), the covariances (S4..S7 in L4, L5, the sum over k in L6).
/// L1 and L6 carry their sums. L0, L2 and L3 carry nothing: each iteration
/// works on its own mean[j] or data[k][j]. L4 and L5 carry nothing either,
/// worked out by hand: S7 at (i, j) writes cov[j][i], and S4..S7 at
/// (i', j') touch cov[i'][j'] with j' >= i'; cov[j][i] = cov[i'][j'] needs
/// i' = j and j' = i, so i <= j = i' <= j' = i: the same iteration. The
/// analysis finds this from the bound j >= i.
fn covariance(c: &Check) {
    c.assert_carrying(&[1, 6]);
    let mean = c.expect_distances(Kind::Flow, 1, 1, "mean", &[Exact(0), PLUS]);
    c.assert_may_be_carried_by(mean, &[1]);
    for d in c.between(&[0, 1, 2], &[0, 1, 2]) {
        assert_eq!(d.distances[0], Exact(0), "{}", d.display(&c.kernel));
    }
    for d in c.between(&[3], &[3]) {
        c.assert_may_be_carried_by(d, &[]);
    }
    c.expect_distances(Kind::Flow, 2, 3, "mean", &[]);
    c.expect_distances(Kind::Anti, 1, 3, "data", &[]);
    c.expect_distances(Kind::Flow, 3, 5, "data", &[]);
    let sum = c.expect_distances(Kind::Flow, 5, 5, "cov", &[Exact(0), Exact(0), PLUS]);
    c.assert_may_be_carried_by(sum, &[6]);
    for (source, sink) in [(4, 5), (5, 6), (4, 7), (5, 7), (6, 7)] {
        let d = c.expect_distances(Kind::Flow, source, sink, "cov", &[Exact(0), Exact(0)]);
        assert_eq!(d.carrier(), None);
    }
    // The mirrored write meets the others in the same iteration only.
    let mirrored = c.expect_distances(Kind::Output, 6, 7, "cov", &[Exact(0), Exact(0)]);
    assert!(mirrored.zero_possible);
    for d in c.between(&[4, 5, 6, 7], &[7]) {
        assert!(!d.may_be_carried_by(LoopId(4)), "{}", c.shown());
    }
}

/// Each time step (L0) computes B from A over the interior (S0 in L1, L2)
/// and then A from B (S1 in L3, L4). Within a sweep every point writes its
/// own element and reads only the other array, so only t carries: the
/// flow of B from S0 to S1 and of A from S1 to the next step's S0, and the
/// anti and output dependences between steps.
fn jacobi_2d(c: &Check) {
    c.assert_carrying(&[0]);
    for (kind, source, sink, array) in [
        (Kind::Flow, 0, 1, "B"),
        (Kind::Flow, 1, 0, "A"),
        (Kind::Anti, 0, 1, "A"),
        (Kind::Anti, 1, 0, "B"),
    ] {
        let d = c.expect_distances(kind, source, sink, array, &[PLUS]);
        c.assert_may_be_carried_by(d, &[0]);
    }
    for (s, array) in [(0, "B"), (1, "A")] {
        let d = c.expect_distances(Kind::Output, s, s, array, &[PLUS, Exact(0), Exact(0)]);
        c.assert_may_be_carried_by(d, &[0]);
    }
}

/// One statement updating A[i][j] in place from its 3 x 3 neighbourhood:
/// A[i][j - 1] was written one j before (distance (0, 0, 1) in the same
/// sweep: j carries), A[i - 1][j + 1] one i before (0, 1, -1: i carries),
/// A[i][j] itself in the previous time step (+, 0, 0: t carries). The
/// time distance is unknown to the analysis (no subscript has t), only its
/// sign.
fn seidel_2d(c: &Check) {
    c.assert_carrying(&[0, 1, 2]);
    let left = c.expect_distances(Kind::Flow, 0, 0, "A", &[Exact(0), Exact(0), Exact(1)]);
    assert!(left.may_be_carried_by(LoopId(2)));
    let up_right = c.expect_distances(Kind::Flow, 0, 0, "A", &[Exact(0), Exact(1), Exact(-1)]);
    assert!(up_right.may_be_carried_by(LoopId(1)));
    assert!(!up_right.may_be_carried_by(LoopId(2)));
    let itself = c.expect_distances(Kind::Flow, 0, 0, "A", &[PLUS, Exact(0), Exact(0)]);
    c.assert_may_be_carried_by(itself, &[0]);
    assert_eq!(itself.carrier(), Some(LoopId(0)));
    // A[i + 1][j + 1] is read, still old, before the same sweep overwrites
    // it one i and one j later: an anti dependence (0, 1, 1).
    c.expect_distances(Kind::Anti, 0, 0, "A", &[Exact(0), Exact(1), Exact(1)]);
}

/// Two sweeps per time step, B from A's seven-point neighbourhood, then
/// A from B's: within a step the sweeps' own loops carry nothing (each
/// writes one array from the other), so only the time loop carries, and
/// every dependence between the sweeps may be carried by it.
fn heat_3d(c: &Check) {
    c.assert_carrying(&[0]);
    for (kind, source, sink, array) in [
        (Kind::Flow, 0, 1, "B"),
        (Kind::Flow, 1, 0, "A"),
        (Kind::Anti, 0, 1, "A"),
        (Kind::Anti, 1, 0, "B"),
    ] {
        let d = c.expect_distances(kind, source, sink, array, &[PLUS]);
        c.assert_may_be_carried_by(d, &[0]);
    }
    // Within one step, S1 reads B where S0 wrote it: the same point and
    // its neighbours, in the two sweeps' loops (aligned, at any distance).
    c.expect_distances(Kind::Flow, 0, 1, "B", &[Exact(0)]);
    for (s, array) in [(0, "B"), (1, "A")] {
        let d = c.expect_distances(
            Kind::Output,
            s,
            s,
            array,
            &[PLUS, Exact(0), Exact(0), Exact(0)],
        );
        c.assert_may_be_carried_by(d, &[0]);
    }
}

/// The source row of ey (S0), then ey (S1) and ex (S2) from hz, then hz
/// (S3) from the new ey and ex. Each field update reads its own element
/// and another field, so within a step no loop carries: only t does. The
/// field updates are `x = x - e`, reductions over t.
fn fdtd_2d(c: &Check) {
    c.assert_carrying(&[0]);
    c.expect_distances(Kind::Flow, 0, 3, "ey", &[Exact(0)]);
    c.expect_distances(Kind::Flow, 1, 3, "ey", &[Exact(0)]);
    c.expect_distances(Kind::Flow, 2, 3, "ex", &[Exact(0)]);
    let back = c.expect_distances(Kind::Flow, 3, 1, "hz", &[PLUS]);
    c.assert_may_be_carried_by(back, &[0]);
    for (s, array) in [(1, "ey"), (2, "ex"), (3, "hz")] {
        let d = c.expect_distances(Kind::Flow, s, s, array, &[PLUS, Exact(0), Exact(0)]);
        assert!(d.reduction, "{}", c.shown());
    }
}

/// Row i (L0): S0 reduces the multipliers A[i][j] (j < i, L1) by the
/// earlier ones (k < j, L2), S1 divides by the pivot A[j][j]; then S2
/// reduces A[i][j] (j >= i, L3) by the multipliers (k < i, L4). i carries
/// (rows read the finished rows above them, the pivots included), L1
/// carries (the multiplier finished at j is read as A[i][k] at a later
/// j), L2 and L4 carry their sums. L3 carries nothing: in row i, S2
/// writes A[i][j] with j >= i and reads A[i][k] with k < i and rows k < i,
/// none of which any iteration of L3 writes; the analysis finds this from
/// the bounds k < i <= j.
fn lu(c: &Check) {
    c.assert_carrying(&[0, 1, 2, 4]);
    let sum = c.expect_distances(Kind::Output, 0, 0, "A", &[Exact(0), Exact(0), PLUS]);
    c.assert_may_be_carried_by(sum, &[2]);
    let sum = c.expect_distances(Kind::Output, 2, 2, "A", &[Exact(0), Exact(0), PLUS]);
    c.assert_may_be_carried_by(sum, &[4]);
    let multiplier = c.expect_distances(Kind::Flow, 1, 0, "A", &[Exact(0), PLUS]);
    assert!(multiplier.may_be_carried_by(LoopId(1)));
    let pivot = c.expect_distances(Kind::Flow, 2, 1, "A", &[PLUS]);
    c.assert_may_be_carried_by(pivot, &[0]);
    let upper_rows = c.expect_distances(Kind::Flow, 2, 0, "A", &[PLUS]);
    c.assert_may_be_carried_by(upper_rows, &[0]);
    let same_row = c.expect_distances(Kind::Flow, 1, 2, "A", &[Exact(0)]);
    assert_eq!(same_row.carrier(), None);
    for d in c.between(&[2], &[2]) {
        assert!(!d.may_be_carried_by(LoopId(3)), "{}", c.shown());
    }
}

/// Rows are solved from the last up (the counter of `i` counts them):
/// S1 reads X[j][r] for rows j > i, which S2 finished in earlier
/// iterations of i, so i carries; j carries the accumulation into
/// X[i][r]; no `r` loop carries anything.
fn backsolve(c: &Check) {
    c.assert_carrying(&[0, 2]);
    let rows = c.expect_distances(Kind::Flow, 2, 1, "X", &[PLUS]);
    c.assert_may_be_carried_by(rows, &[0]);
    c.expect_distances(Kind::Flow, 1, 1, "X", &[Exact(0), PLUS, Exact(0)]);
}

/// The first row (S0, `i == 0`) and column (S1, `j == 0`) are written
/// under conditions that keep them apart from each other and from the
/// inner entries (S2, S3, `i, j >= 1`); S2 and S3 read the entries above
/// and to the left, so i and j carry, and the pairs (p) are independent.
fn edit_distance(c: &Check) {
    c.assert_carrying(&[1, 2]);
    let guards: Vec<Vec<String>> = c
        .kernel
        .statements
        .iter()
        .map(|s| s.guards.iter().map(|g| g.display(&c.kernel)).collect())
        .collect();
    assert_eq!(
        guards,
        [
            vec!["-i"],
            vec!["i - 1", "-j"],
            vec!["i - 1", "j - 1"],
            vec!["i - 1", "j - 1"]
        ]
    );
    assert!(c.between(&[0], &[1]).is_empty() && c.between(&[1], &[0]).is_empty());
    c.expect_distances(Kind::Flow, 0, 2, "D", &[Exact(0), Exact(1), Exact(0)]);
    c.expect_distances(Kind::Flow, 3, 2, "D", &[Exact(0), Exact(0), Exact(1)]);
}

/// Each row's norm is a sum over the first j loop (which carries it); the
/// clamp chain (S5) is one statement updating what S4 wrote in the same
/// iteration; rows are independent.
fn normalize(c: &Check) {
    c.assert_carrying(&[1]);
    let clamp = c.expect_distances(Kind::Flow, 4, 5, "Y", &[Exact(0), Exact(0)]);
    assert_eq!(clamp.carrier(), None);
    assert!(c.kernel.statements[5]
        .code
        .starts_with("if (Y[i][j] > CLAMP)"));
}

/// The product through `restrict` pointers: each subscript splits into a
/// row and a column, and only k carries the accumulation into C[i][j].
fn matmul_pointers(c: &Check) {
    c.assert_carrying(&[2]);
    let names: Vec<&str> = c
        .kernel
        .linearized
        .iter()
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(names, ["A", "B", "C"]);
    assert!(c.kernel.aliasing.is_empty());
    c.expect_distances(Kind::Flow, 1, 1, "C", &[Exact(0), Exact(0), PLUS]);
}

fn access_text(kernel: &Kernel, access: &Access) -> String {
    let subscripts: String = access
        .subscripts
        .iter()
        .map(|s| format!("[{}]", s.display(kernel)))
        .collect();
    format!("{}{subscripts}", access.name)
}

/// Reads an example and checks its structure and dependence facts.
fn read_and_check(name: &str) {
    let example = example(name);
    let path = examples_dir().join(format!("{name}.c"));
    let source = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let kernel = read_nest(&format!("examples/{name}.c"), &source, example.nest)
        .unwrap_or_else(|e| panic!("the front-end refuses {name}: {e}"));
    let loops: Vec<(String, Option<usize>)> = kernel
        .loops
        .iter()
        .map(|l| {
            (
                format!(
                    "{} in [{}, {})",
                    l.iterator,
                    l.lower.display(&kernel),
                    l.upper.display(&kernel)
                ),
                l.parent.map(|p| p.0),
            )
        })
        .collect();
    let expected: Vec<(String, Option<usize>)> = example
        .loops
        .iter()
        .map(|(l, p)| (l.to_string(), *p))
        .collect();
    assert_eq!(loops, expected, "{name}: loops");
    let statements: Vec<(Vec<usize>, String)> = kernel
        .statements
        .iter()
        .map(|s| {
            let reads: Vec<String> = s.reads.iter().map(|a| access_text(&kernel, a)).collect();
            (
                s.loops.iter().map(|l| l.0).collect(),
                format!("{} <- {}", access_text(&kernel, &s.write), reads.join(", ")),
            )
        })
        .collect();
    let expected: Vec<(Vec<usize>, String)> = example
        .statements
        .iter()
        .map(|(l, s)| (l.to_vec(), s.to_string()))
        .collect();
    assert_eq!(statements, expected, "{name}: statements");
    let deps = dependences(&kernel);
    (example.facts)(&Check {
        name: example.name,
        kernel,
        deps,
    });
}

macro_rules! reading_tests {
    ($($test:ident: $name:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                read_and_check($name);
            }
        )*
        /// The examples that have a reading test.
        const READ_TESTS: &[&str] = &[$($name),*];
    };
}

reading_tests! {
    gemm_is_read_with_its_structure_and_dependences: "gemm",
    two_mm_is_read_with_its_structure_and_dependences: "2mm",
    syrk_is_read_with_its_structure_and_dependences: "syrk",
    atax_is_read_with_its_structure_and_dependences: "atax",
    covariance_is_read_with_its_structure_and_dependences: "covariance",
    jacobi_2d_is_read_with_its_structure_and_dependences: "jacobi-2d",
    seidel_2d_is_read_with_its_structure_and_dependences: "seidel-2d",
    heat_3d_is_read_with_its_structure_and_dependences: "heat-3d",
    fdtd_2d_is_read_with_its_structure_and_dependences: "fdtd-2d",
    lu_is_read_with_its_structure_and_dependences: "lu",
    backsolve_is_read_with_its_structure_and_dependences: "backsolve",
    edit_distance_is_read_with_its_structure_and_dependences: "edit-distance",
    normalize_is_read_with_its_structure_and_dependences: "normalize",
    matmul_pointers_is_read_with_its_structure_and_dependences: "matmul-pointers",
    abt_is_read_with_its_structure_and_dependences: "abt",
    bilinear_is_read_with_its_structure_and_dependences: "bilinear",
    contraction_is_read_with_its_structure_and_dependences: "contraction",
}

#[test]
fn the_examples_directory_matches_the_table() {
    let mut files: Vec<String> = std::fs::read_dir(examples_dir())
        .expect("list examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut listed: Vec<String> = EXAMPLES.iter().map(|e| e.name.to_string()).collect();
    listed.sort();
    let mut tested: Vec<String> = READ_TESTS.iter().map(|n| n.to_string()).collect();
    tested.sort();
    assert_eq!(files, listed, "examples/*.c against EXAMPLES");
    assert_eq!(listed, tested, "EXAMPLES against reading_tests!");
}

/// A directory of its own under the system's temporary directory, removed
/// when dropped (also when a test fails).
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        let path =
            std::env::temp_dir().join(format!("commute-examples-{}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The arrays of a PolyBench-style dump and their number of values,
/// checking the format: one `==BEGIN DUMP_ARRAYS==` ... `==END
/// DUMP_ARRAYS==` block, holding `begin dump: NAME` ... `end   dump: NAME`
/// sections of values printed with `%0.9e`.
fn parse_dump(stderr: &str) -> Result<Vec<(String, usize)>, String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let begin = lines
        .iter()
        .position(|l| *l == "==BEGIN DUMP_ARRAYS==")
        .ok_or("no `==BEGIN DUMP_ARRAYS==` line")?;
    let end = lines
        .iter()
        .position(|l| *l == "==END   DUMP_ARRAYS==")
        .ok_or("no `==END   DUMP_ARRAYS==` line")?;
    if end < begin {
        return Err("the dump ends before it begins".into());
    }
    if lines[end + 1..].iter().any(|l| !l.trim().is_empty()) {
        return Err("output after the end of the dump".into());
    }
    let mut arrays = Vec::new();
    let mut current: Option<(String, usize)> = None;
    for line in &lines[begin + 1..end] {
        if let Some(name) = line.strip_prefix("begin dump: ") {
            if let Some((open, _)) = &current {
                return Err(format!("`{name}` begins inside `{open}`"));
            }
            current = Some((name.to_string(), 0));
        } else if let Some(name) = line.strip_prefix("end   dump: ") {
            match current.take() {
                Some((open, count)) if open == name => arrays.push((open, count)),
                other => return Err(format!("`end   dump: {name}` closes {other:?}")),
            }
        } else {
            let Some((_, count)) = &mut current else {
                if line.trim().is_empty() {
                    continue;
                }
                return Err(format!("`{line}` outside any array"));
            };
            for value in line.split_whitespace() {
                check_value(value)?;
                *count += 1;
            }
        }
    }
    if let Some((open, _)) = current {
        return Err(format!("`{open}` is never closed"));
    }
    Ok(arrays)
}

/// A finite value written as `%0.9e` writes it: `-d.ddddddddde+XX`.
fn check_value(value: &str) -> Result<(), String> {
    let bad = || format!("`{value}` is not a value printed with %0.9e");
    let (mantissa, exponent) = value.split_once('e').ok_or_else(bad)?;
    let (whole, fraction) = mantissa
        .trim_start_matches('-')
        .split_once('.')
        .ok_or_else(bad)?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() != 1
        || !digits(whole)
        || fraction.len() != 9
        || !digits(fraction)
        || !(exponent.starts_with('+') || exponent.starts_with('-'))
        || !digits(&exponent[1..])
    {
        return Err(bad());
    }
    match value.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(()),
        _ => Err(bad()),
    }
}

/// Compiles an example at its small sizes with `cc -O2`, runs it, and
/// checks the time it prints and its dump.
fn build_and_run(example: &Example) {
    let name = example.name;
    let dir = TempDir::new(name);
    let binary = dir.0.join(name);
    let mut compile = Command::new("cc");
    compile.args(["-O2", "-DPOLYBENCH_TIME", "-DPOLYBENCH_DUMP_ARRAYS"]);
    for (macro_name, value) in example.small {
        compile.arg(format!("-D{macro_name}={value}"));
    }
    compile
        .arg("-o")
        .arg(&binary)
        .arg(examples_dir().join(format!("{name}.c")))
        .arg("-lm");
    let (status, _, stderr) = run_with_timeout(compile, &dir.0, &format!("{name}: cc"), TIMEOUT);
    assert!(status.success(), "{name}: cc failed ({status}):\n{stderr}");
    let (status, stdout, stderr) = run_with_timeout(Command::new(&binary), &dir.0, name, TIMEOUT);
    assert!(
        status.success(),
        "{name}: the run failed ({status}):\n{stderr}"
    );
    let seconds: f64 = stdout
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{name}: stdout `{stdout}` is not a number of seconds: {e}"));
    assert!(
        seconds.is_finite() && (0.0..60.0).contains(&seconds),
        "{name}: {seconds} s"
    );
    let arrays = parse_dump(&stderr).unwrap_or_else(|e| panic!("{name}: bad dump: {e}"));
    let expected: Vec<(String, usize)> = example
        .dumps
        .iter()
        .map(|(a, n)| (a.to_string(), *n))
        .collect();
    assert_eq!(arrays, expected, "{name}: arrays dumped and their sizes");
}

#[test]
fn every_example_builds_and_runs_with_its_time_and_dump() {
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = EXAMPLES
            .iter()
            .map(|example| (example.name, scope.spawn(|| build_and_run(example))))
            .collect();
        handles
            .into_iter()
            .filter_map(|(name, handle)| {
                handle.join().err().map(|panic| {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    format!("{name}: {message}")
                })
            })
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_dump_parser_rejects_what_is_malformed() {
    let good = "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1.000000000e+00 -2.500000000e-01\n\nend   dump: A\n==END   DUMP_ARRAYS==\n";
    assert_eq!(parse_dump(good), Ok(vec![("A".to_string(), 2)]));
    for bad in [
        "begin dump: A\n1.000000000e+00\nend   dump: A\n",
        "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1.0\nend   dump: A\n==END   DUMP_ARRAYS==\n",
        "==BEGIN DUMP_ARRAYS==\nbegin dump: A\nnan\nend   dump: A\n==END   DUMP_ARRAYS==\n",
        "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1.000000000e+00\n==END   DUMP_ARRAYS==\n",
        "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1.000000000e+00\nend   dump: B\n==END   DUMP_ARRAYS==\n",
    ] {
        assert!(parse_dump(bad).is_err(), "accepted:\n{bad}");
    }
}

#[test]
fn a_command_past_its_timeout_is_killed() {
    let dir = TempDir::new("timeout");
    let mut sleep = Command::new("sleep");
    sleep.arg("30");
    let start = Instant::now();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_with_timeout(sleep, &dir.0, "sleep", Duration::from_millis(200))
    }));
    let message = outcome.expect_err("the command should have been killed");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(message.contains("was killed"), "{message}");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}
