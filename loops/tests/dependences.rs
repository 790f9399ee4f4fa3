//! Dependences of small kernels with known answers.

use commute_loops::analysis::dependences::{dependences, Dependence, Distance, Kind};
use commute_loops::frontend::{read_kernel, Kernel, LoopId};

fn kernel(body: &str) -> Kernel {
    let source = format!("void f(int n, double *restrict s) {{\n  int i, j, k, t;\n#pragma scop\n{body}\n#pragma endscop\n}}\n");
    read_kernel("k.c", &source).unwrap_or_else(|e| panic!("{e}"))
}

fn shown(kernel: &Kernel) -> Vec<String> {
    dependences(kernel)
        .iter()
        .map(|d| d.display(kernel))
        .collect()
}

/// Loops that some dependence may be carried by.
fn carried(kernel: &Kernel) -> Vec<String> {
    let deps = dependences(kernel);
    let mut names: Vec<String> = (0..kernel.loops.len())
        .filter(|&l| {
            deps.iter()
                .any(|d: &Dependence| d.may_be_carried_by(LoopId(l)))
        })
        .map(|l| kernel.loops[l].iterator.clone())
        .collect();
    names.dedup();
    names
}

#[test]
fn a_prefix_sum_carries_a_flow_dependence_of_distance_one() {
    let k = kernel("  for (i = 1; i < n; i++)\n    A[i] = A[i - 1] + B[i];");
    assert_eq!(shown(&k), ["flow S0 -> S0 on A (i: 1)"]);
    assert_eq!(carried(&k), ["i"]);
    assert_eq!(dependences(&k)[0].carrier(), Some(LoopId(0)));
}

#[test]
fn gemm_carries_only_along_k() {
    let k = kernel("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      for (k = 0; k < n; k++)\n        C[i][j] += A[i][k] * B[k][j];");
    let deps = dependences(&k);
    assert!(!deps.is_empty());
    for d in &deps {
        assert_eq!(d.name, "C", "{}", d.display(&k));
        assert_eq!(
            d.distances[..2],
            [Distance::Exact(0), Distance::Exact(0)],
            "{}",
            d.display(&k)
        );
        if d.zero_possible {
            assert_eq!(d.distances[2], Distance::Exact(0));
        } else {
            assert_eq!(d.distances[2], Distance::POSITIVE);
        }
    }
    assert_eq!(
        carried(&k),
        ["k"],
        "i and j can be parallel, k cannot without a reduction model"
    );
    assert!(
        deps.iter()
            .any(|d| d.kind == Kind::Output && d.source == d.sink),
        "every k writes C[i][j]: {:?}",
        shown(&k)
    );
}

#[test]
fn a_stencil_with_a_one_minus_one_dependence() {
    let k = kernel("  for (i = 1; i < n; i++)\n    for (j = 0; j < n - 1; j++)\n      A[i][j] = A[i - 1][j + 1] * 0.5;");
    assert_eq!(shown(&k), ["flow S0 -> S0 on A (i: 1, j: -1)"]);
    let d = &dependences(&k)[0];
    // Interchanging i and j would make the vector (-1, 1): backwards.
    assert_eq!(d.distances, [Distance::Exact(1), Distance::Exact(-1)]);
    assert_eq!(carried(&k), ["i"]);
}

#[test]
fn a_jacobi_time_loop_carries_everything() {
    let k = kernel(
        "  for (t = 0; t < 10; t++) {\n    for (i = 1; i < n - 1; i++)\n      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;\n    for (i = 1; i < n - 1; i++)\n      A[i] = B[i];\n  }",
    );
    let deps = dependences(&k);
    let kinds: Vec<(Kind, usize, usize)> = deps
        .iter()
        .map(|d| (d.kind, d.source.0, d.sink.0))
        .collect();
    assert!(
        kinds.contains(&(Kind::Flow, 0, 1)),
        "B written then read: {:?}",
        shown(&k)
    );
    assert!(
        kinds.contains(&(Kind::Flow, 1, 0)),
        "A written then read at the next time step: {:?}",
        shown(&k)
    );
    assert!(
        kinds.contains(&(Kind::Anti, 0, 1)),
        "A read then written: {:?}",
        shown(&k)
    );
    assert_eq!(
        carried(&k),
        ["t"],
        "only the time loop carries dependences: {:?}",
        shown(&k)
    );
}

#[test]
fn independent_elements_have_no_dependence() {
    let k =
        kernel("  for (i = 0; i < n; i++) {\n    A[2 * i] = 1.0;\n    A[2 * i + 1] = B[i];\n  }");
    assert!(shown(&k).is_empty(), "{:?}", shown(&k));
}

#[test]
fn a_scalar_accumulator_is_carried_by_its_loop() {
    let k = kernel("  for (i = 0; i < n; i++)\n    x = x + A[i];");
    assert_eq!(carried(&k), ["i"]);
    assert!(dependences(&k)
        .iter()
        .any(|d| d.kind == Kind::Flow && d.name == "x"));
}

#[test]
fn a_transposition_is_carried_by_the_outer_loop_only() {
    // A[i][j] = A[j][i] meets another iteration only at (j, i): the
    // distance along i is j - i, along j its opposite; when i does not
    // carry it, the iteration is the same.
    let k =
        kernel("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      A[i][j] = A[j][i];");
    assert_eq!(
        shown(&k),
        [
            "flow S0 -> S0 on A (i: +, j: -)",
            "anti S0 -> S0 on A (i: 0, j: 0)",
            "anti S0 -> S0 on A (i: +, j: -)",
        ]
    );
    assert_eq!(carried(&k), ["i"]);
}

#[test]
fn triangular_bounds_rule_out_dependences() {
    // lu's update of row i: A[i][j] (j >= i) is written, A[i][k] (k < i)
    // read; they never meet within a row, so j carries nothing.
    let k = kernel("  for (i = 0; i < n; i++)\n    for (j = i; j < n; j++)\n      for (k = 0; k < i; k++)\n        A[i][j] -= A[i][k] * A[k][j];");
    assert_eq!(carried(&k), ["i", "k"], "{:?}", shown(&k));
    // A mirrored write over the upper triangle meets the others in the
    // same iteration only.
    let k = kernel("  for (i = 0; i < n; i++)\n    for (j = i; j < n; j++) {\n      B[i][j] = s[0] * B[i][j];\n      B[j][i] = B[i][j];\n    }");
    assert!(carried(&k).is_empty(), "{:?}", shown(&k));
    assert!(
        dependences(&k).iter().all(|d| d.zero_possible),
        "{:?}",
        shown(&k)
    );
}

#[test]
fn bounds_that_never_overlap_have_no_dependence() {
    // The first half is written, the second half read.
    let k = kernel("  for (i = 0; i < n; i++)\n    A[i] = A[i + n] + 1.0;");
    assert!(shown(&k).is_empty(), "{:?}", shown(&k));
}

#[test]
fn dependences_are_split_by_the_loop_that_carries_them() {
    let k = kernel(
        "  for (t = 0; t < 10; t++) {\n    for (i = 1; i < n - 1; i++)\n      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;\n    for (i = 1; i < n - 1; i++)\n      A[i] = B[i];\n  }",
    );
    let deps = dependences(&k);
    let find_all = |kind: Kind, source: usize, sink: usize, name: &str| -> Vec<&Dependence> {
        deps.iter()
            .filter(|d| {
                d.kind == kind && d.source.0 == source && d.sink.0 == sink && d.name == name
            })
            .collect()
    };
    // B written by S0 then read by S1: in the same time step, or a later
    // one (t carries, its distance surely positive).
    let same_step = find_all(Kind::Flow, 0, 1, "B");
    assert_eq!(same_step.len(), 2, "{:?}", shown(&k));
    assert!(same_step[0].zero_possible && !same_step[0].maybe_nonzero_at(0));
    assert!(!same_step[1].zero_possible && same_step[1].surely_positive_at(0));
    // A written by S1 then read by S0: only in a later time step. The two
    // i loops may be fused: the records go on with the distance between
    // them, one per neighbour read (A[i - 1], A[i], A[i + 1]).
    let next_step = find_all(Kind::Flow, 1, 0, "A");
    assert_eq!(next_step.len(), 3, "{:?}", shown(&k));
    for d in next_step {
        assert!(!d.zero_possible);
        assert!(d.surely_positive_at(0), "{}", d.display(&k));
        assert_eq!(d.aligned, [(LoopId(2), LoopId(1))], "{}", d.display(&k));
    }
    // Within a time step, S1 overwrites A[i] after S0 read A[i + 1] there:
    // fused, S0 at i + 1 would have to run before S1 at i, which a
    // negative distance along i~i says: exactly -1, which a shift of S1's
    // loop by one makes 0.
    assert!(
        shown(&k).contains(&"anti S0 -> S1 on A (t: 0, i~i: -1)".to_string()),
        "{:?}",
        shown(&k)
    );
    // gemm's accumulation: the next k, same i and j.
    let g = kernel("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      for (k = 0; k < n; k++)\n        C[i][j] += A[i][k] * B[k][j];");
    let output = dependences(&g)
        .into_iter()
        .find(|d| d.kind == Kind::Output)
        .expect("output dependence");
    assert!(output.surely_positive_at(2) && !output.maybe_negative_at(2));
    assert!(!output.maybe_nonzero_at(0) && !output.maybe_nonzero_at(1));
}
