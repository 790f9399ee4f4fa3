//! The loop space on real kernels: the original program is a point of the
//! space, and decisions the dependences forbid are refused with the
//! constraint named.

use commute_loops::frontend::{has_scop_region, list_nests, read_kernel, read_nest, LoopId};
use commute_loops::space::host::KernelHost;
use commute_loops::space::names::apply_named_fixes;
use commute_loops::space::Backbone;
use commute_runtime::fix::apply_fixes;
use commute_runtime::Candidate;

fn host_of(path: &str, source: &str) -> KernelHost {
    KernelHost::new(read_kernel(path, source).unwrap_or_else(|e| panic!("{e}")))
}

fn host(body: &str) -> KernelHost {
    let source =
        format!("void f(int n) {{\n  int i, j, k, t;\n#pragma scop\n{body}\n#pragma endscop\n}}\n");
    host_of("k.c", &source)
}

/// The values a choice without objects (`optimizer()`, `vector_width()`)
/// still has.
fn global_values(candidate: &Candidate<Backbone<KernelHost>>, choice: u16) -> u64 {
    let instance = commute_runtime::InstanceId {
        choice,
        objects: Vec::new(),
    };
    match candidate.domain(&instance) {
        Some(commute_runtime::Domain::Enum(mask)) => mask,
        other => panic!("{other:?}"),
    }
}

fn root(host: &KernelHost) -> Candidate<Backbone<KernelHost>> {
    Candidate::new_explained(Backbone(host.clone())).unwrap_or_else(|e| panic!("{e}"))
}

/// Fixes every open decision to its original value: the order of the
/// program, tile size 1, sequential dimensions.
fn original_fixes(host: &KernelHost) -> Vec<String> {
    let mut fixes = host.original_schedule();
    for l in 0..host.kernel().loops.len() {
        for d in host.loop_dims(LoopId(l)) {
            fixes.push(format!("tile_size({}) = 1", d.0));
            fixes.push(format!("dim_kind({}) = SEQUENTIAL", d.0));
            fixes.push(format!("accumulate({}) = NO", d.0));
            fixes.push(format!("skew({}) = NO", d.0));
            fixes.push(format!("shift({}) = NO", d.0));
        }
    }
    fixes
}

#[test]
fn every_example_is_a_point_of_its_space() {
    let mut examples: Vec<_> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples"))
            .expect("examples")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
    examples.sort();
    assert!(examples.len() >= 8);
    for path in examples {
        let source = std::fs::read_to_string(&path).expect("read");
        let name = path.display().to_string();
        let kernel = if has_scop_region(&name, &source).expect("regions") {
            read_kernel(&name, &source)
        } else {
            // Examples without a region: the kernel is the first nest of
            // the file's first function (main's nests fill the arrays).
            let nests = list_nests(&name, &source).expect("nests");
            read_nest(&name, &source, Some(&nests[0].function))
        };
        let host = KernelHost::new(kernel.unwrap_or_else(|e| panic!("{e}")));
        let mut candidate = root(&host);
        apply_fixes(&mut candidate, &original_fixes(&host))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(candidate.is_complete(), "{}", path.display());
        candidate
            .check()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

fn parallel(host: &KernelHost, l: usize) -> String {
    format!(
        "dim_kind({}) = PARALLEL",
        host.point(LoopId(l)).expect("a loop").0
    )
}

#[test]
fn gemm_may_run_i_and_j_in_parallel_and_k_only_as_a_reduction() {
    let gemm = host("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      for (k = 0; k < n; k++)\n        C[i][j] += A[i][k] * B[k][j];");
    let schedule = gemm.original_schedule();
    // k carries only the accumulation into C[i][j], a reduction.
    for l in [0, 1, 2] {
        let mut candidate = root(&gemm);
        apply_fixes(&mut candidate, &schedule).expect("original order");
        apply_fixes(&mut candidate, &[parallel(&gemm, l)])
            .unwrap_or_else(|e| panic!("loop {l}: {e}"));
    }
    // Divisions do not reassociate: k carries a dependence.
    let divisions = host("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      for (k = 0; k < n; k++)\n        C[i][j] = C[i][j] / A[i][k];");
    let mut candidate = root(&divisions);
    apply_fixes(&mut candidate, &divisions.original_schedule()).expect("original order");
    let error = apply_fixes(&mut candidate, &[parallel(&divisions, 2)])
        .expect_err("k carries the divisions");
    assert!(error.to_string().contains("loops.space:"), "{error}");
}

#[test]
fn a_loop_carrying_a_dependence_cannot_be_parallel() {
    let prefix_sum = host("  for (i = 1; i < n; i++)\n    A[i] = A[i - 1] + B[i];");
    let error =
        apply_fixes(&mut root(&prefix_sum), &[parallel(&prefix_sum, 0)]).expect_err("carried");
    assert!(
        error
            .to_string()
            .starts_with("cannot fix `dim_kind(2) = PARALLEL`"),
        "{error}"
    );

    let reversed = format!(
        "dim_kind({}) = REVERSED",
        prefix_sum.point(LoopId(0)).expect("a loop").0
    );
    assert!(
        apply_fixes(&mut root(&prefix_sum), &[reversed]).is_err(),
        "reversing a carrying loop"
    );

    let jacobi = host("  for (t = 0; t < 10; t++) {\n    for (i = 1; i < n - 1; i++)\n      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;\n    for (i = 1; i < n - 1; i++)\n      A[i] = B[i];\n  }");
    assert!(
        apply_fixes(&mut root(&jacobi), &[parallel(&jacobi, 0)]).is_err(),
        "the time loop carries"
    );
    for sweep in [1, 2] {
        let mut candidate = root(&jacobi);
        apply_fixes(&mut candidate, &jacobi.original_schedule()).expect("original order");
        apply_fixes(&mut candidate, &[parallel(&jacobi, sweep)])
            .unwrap_or_else(|e| panic!("sweep {sweep}: {e}"));
    }
}

#[test]
fn interchanging_a_stencil_with_a_one_minus_one_dependence_needs_a_skew() {
    let host = host("  for (i = 1; i < n; i++)\n    for (j = 0; j < n - 1; j++)\n      A[i][j] = A[i - 1][j + 1] * 0.5;");
    let (point_i, point_j) = (
        host.point(LoopId(0)).expect("a loop").0,
        host.point(LoopId(1)).expect("a loop").0,
    );
    let interchange = format!("order({point_j}, {point_i}) = OUTER");
    let error = apply_fixes(
        &mut root(&host),
        &[format!("skew({point_j}) = NO"), interchange.clone()],
    )
    .expect_err("backwards");
    assert!(error.to_string().contains("loops.space:"), "{error}");
    // Skewed by i, the distance (1, -1) is (1, 0) along (i, j + i): the
    // interchange is legal, and takes the skew with it.
    let mut candidate = root(&host);
    apply_fixes(&mut candidate, std::slice::from_ref(&interchange)).expect("skewed interchange");
    let skewed = commute_runtime::InstanceId {
        choice: commute_loops::space::skew::CHOICE,
        objects: vec![point_j],
    };
    assert!(
        matches!(candidate.domain(&skewed), Some(commute_runtime::Domain::Enum(m)) if m == commute_loops::space::skew::YES),
        "the interchange implies the skew"
    );
    // The original nesting stays legal.
    let mut candidate = root(&host);
    apply_fixes(
        &mut candidate,
        &[format!("order({point_i}, {point_j}) = OUTER")],
    )
    .expect("original nesting");
}

/// Seidel's sweep `(t, i, j)` carries `(0, 1, -1)` along `i` and `(+, -1,
/// *)` along `t`: `j` is offered a skew by `i` and `i` one by `t`, each
/// of factor 1. Skewed, `j` may run outside `i`'s points (tiles of rows
/// swept together), never outside `t`.
#[test]
fn seidel_2d_skews_its_sweep_to_tile_it() {
    let host = example_host("seidel-2d.c");
    let t = host
        .kernel()
        .loops
        .iter()
        .position(|l| l.iterator == "t")
        .expect("t");
    let (i, j) = (LoopId(t + 1), LoopId(t + 2));
    let skews: Vec<_> = [LoopId(t), i, j]
        .iter()
        .map(|&l| host.skew_of(commute_loops::frontend::StatementId(0), l))
        .collect();
    assert_eq!(skews[0], None);
    assert_eq!(skews[1].map(|k| (k.base, k.factor)), Some((LoopId(t), 1)));
    assert_eq!(skews[2].map(|k| (k.base, k.factor)), Some((i, 1)));
    let tiled = [
        "tile_size(i) = 4".to_string(),
        "order(i, j) = INNER".to_string(),
    ];
    apply_named_fixes(&host, &mut root(&host), &tiled).expect("rows of a tile swept together");
    let error = apply_named_fixes(
        &host,
        &mut root(&host),
        &[
            "skew(j) = NO".to_string(),
            "order(i, j) = INNER".to_string(),
        ],
    )
    .expect_err("j before i without a skew");
    assert!(error.contains("$dep = the dependence"), "{error}");
    // A skewed j still runs backwards where t carries the dependence.
    let error = apply_named_fixes(
        &host,
        &mut root(&host),
        &[
            "skew(j) = YES".to_string(),
            "order(j, t) = OUTER".to_string(),
        ],
    )
    .expect_err("j outside t");
    assert!(
        error.starts_with("cannot fix `order(j, t) = OUTER`"),
        "{error}"
    );
    assert!(error.contains("guards_skewed"), "{error}");
    assert!(error.contains("(t: +, i: -1, j: -1)"), "{error}");
    // No skew where nothing runs backwards: gemm has none.
    let gemm = example_host("gemm.c");
    let error = apply_named_fixes(&gemm, &mut root(&gemm), &["skew(j) = YES".to_string()])
        .expect_err("nothing to skew");
    assert!(error.contains("skew("), "{error}");
}

/// jacobi-2d's second sweep reads row `i + 1` and column `j + 1` of the
/// first's: its loops are offered a shift of one, without which fusing
/// them is refused with the dependence named, and with which it holds.
#[test]
fn jacobi_2d_fuses_its_sweeps_with_a_shift() {
    use commute_loops::frontend::StatementId;
    let host = example_host("jacobi-2d.c");
    let loops = |s: usize| host.kernel().statements[s].loops.clone();
    let (first, second) = (loops(0), loops(1));
    // t is common; the sweeps' i and j loops are their own.
    assert_eq!(first.len(), 3);
    for &l in &first {
        assert_eq!(host.shift_of(StatementId(0), l), None);
    }
    assert_eq!(host.shift_of(StatementId(1), first[0]), None);
    assert_eq!(host.shift_of(StatementId(1), second[1]), Some(1));
    assert_eq!(host.shift_of(StatementId(1), second[2]), Some(1));
    let fix = |fixes: &[&str]| {
        let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
        apply_named_fixes(&host, &mut root(&host), &fixes)
    };
    // (Unshifted rows may still fuse inside fused columns shifted by one:
    // the column loop outside them then carries what runs backwards.)
    let error = fix(&[
        "shift(i#2) = NO",
        "shift(j#2) = NO",
        "order(i, i#2) = MERGED",
    ])
    .expect_err("row i + 1 is read before it is written");
    assert!(error.contains("pair_negative"), "{error}");
    assert!(error.contains("S0 -> S1 on"), "{error}");
    assert!(error.contains("i~i: -1"), "{error}");
    fix(&["shift(i#2) = YES", "order(i, i#2) = MERGED"]).expect("fused rows, one late");
    // Fused columns inside the fused rows need no shift of their own:
    // the rows, one late, carry what runs backwards along `j`. Outside
    // the rows, column j + 1 would be read before it is written.
    fix(&[
        "shift(i#2) = YES",
        "order(i, i#2) = MERGED",
        "shift(j#2) = NO",
        "order(j, j#2) = MERGED",
    ])
    .expect("columns fused inside rows");
    let error = fix(&[
        "shift(i#2) = YES",
        "order(i, i#2) = MERGED",
        "shift(j#2) = NO",
        "order(j, j#2) = MERGED",
        "order(j, i) = OUTER",
    ])
    .expect_err("column j + 1 read early");
    assert!(error.contains("j~j: -1"), "{error}");
    fix(&[
        "shift(i#2) = YES",
        "order(i, i#2) = MERGED",
        "shift(j#2) = YES",
        "order(j, j#2) = MERGED",
        "tile_size(i) = 16",
    ])
    .expect("fully fused and tiled");
    // A shift without a fusion would only renumber a loop.
    let error =
        fix(&["shift(i#2) = YES", "order(i, i#2) = BEFORE"]).expect_err("shifted, not fused");
    assert!(error.contains("merged_with"), "{error}");
    // Shifting the rows one late keeps the fused loop sequential: rows
    // i - 1 and i of the two sweeps depend on each other.
    let error = fix(&[
        "shift(i#2) = YES",
        "order(i, i#2) = MERGED",
        "dim_kind(i) = PARALLEL",
    ])
    .expect_err("a fused row loop carries the dependences");
    assert!(error.contains("pair_nonzero_shifted_sink"), "{error}");
}

fn example_host(name: &str) -> KernelHost {
    let path = format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("example");
    host_of(&path, &source)
}

#[test]
fn no_loop_of_seidel_2d_may_run_in_parallel_without_skewing() {
    let host = example_host("seidel-2d.c");
    for l in 0..host.kernel().loops.len() {
        for d in host.loop_dims(LoopId(l)) {
            for kind in ["PARALLEL", "VECTOR"] {
                let fix = format!("dim_kind({}) = {kind}", d.0);
                // At the root every order and tile size is still open.
                let error = apply_fixes(&mut root(&host), std::slice::from_ref(&fix));
                assert!(error.is_err(), "{fix} must be refused");
            }
        }
    }
}

#[test]
fn an_illegal_fix_is_refused_with_the_dependence_named() {
    let host = example_host("gemm.c");
    // k carries only the reduction into C[i][j], which stays one element
    // while k runs only with j outside it.
    let error = apply_named_fixes(
        &host,
        &mut root(&host),
        &[
            "dim_kind(k) = PARALLEL".to_string(),
            "order(k, j#2) = OUTER".to_string(),
        ],
    )
    .expect_err("j inside a parallel k changes the element reduced into");
    assert!(
        error.starts_with("cannot fix `order(k, j#2) = OUTER`: order(k, j#2) can only be"),
        "{error}"
    );
    assert!(
        error.contains("$dep = the dependence flow S1 -> S1 on C (i: 0, k: +, j: 0), a reduction")
            || error.contains("$dep = the dependence anti S1 -> S1 on C")
            || error.contains("$dep = the dependence output S1 -> S1 on C"),
        "{error}"
    );
    // Names that do not exist are listed.
    let error = apply_named_fixes(&host, &mut root(&host), &["dim_kind(q) = PARALLEL".into()])
        .expect_err("no loop q");
    assert!(
        error.contains("no statement or loop is named `q`"),
        "{error}"
    );
    assert!(error.contains("i.tile@S0, i@S0, j.tile, j"), "{error}");
    assert!(
        error.contains("i.tile, i stand for a loop's dimensions"),
        "{error}"
    );
}

/// A loop's name pairs with another loop's dimensions around the same
/// statements only: in gemm, `k` is around S1 alone, so `order(k.tile,
/// i.tile)` is about `i.tile@S1`, and the refusal of a parallel `k.tile`
/// then names the dependence, not the nesting.
#[test]
fn loop_names_pair_around_shared_statements() {
    let host = example_host("gemm.c");
    let mut candidate = root(&host);
    let actions = apply_named_fixes(
        &host,
        &mut candidate,
        &["order(k.tile, i.tile) = OUTER".to_string()],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(actions.len(), 1, "only i.tile@S1 is around S1");
    let error = apply_named_fixes(
        &host,
        &mut candidate,
        &["dim_kind(k.tile) = PARALLEL".to_string()],
    )
    .expect_err("k carries the accumulation into C");
    assert!(error.contains("$dep = the dependence"), "{error}");
}

/// What a directive-based tuner can say on the examples' perfect nests
/// (tile, interchange, parallelize, unroll, unroll and jam) are points of
/// the space; each completed candidate computes what the original does.
#[test]
fn directive_decisions_are_points_of_the_space() {
    use commute_loops::emit::interpret::run;
    use commute_loops::lowering::schedule::Schedule;
    use commute_loops::space::complete::complete_with_original;
    use commute_loops::space::names::apply_named_fixes;
    let cases: &[(&str, &[&str])] = &[
        (
            "gemm.c",
            &[
                "tile_size(i) = 32",
                "tile_size(k) = 32",
                "tile_size(j#2) = 32",
            ],
        ),
        ("gemm.c", &["order(j#2, k) = OUTER"]),
        ("gemm.c", &["dim_kind(i) = PARALLEL"]),
        ("gemm.c", &["tile_size(j#2) = 4", "dim_kind(j#2) = UNROLL"]),
        ("gemm.c", &["tile_size(i) = 4", "dim_kind(i) = UNROLL"]),
        (
            "gemm.c",
            &[
                "tile_size(i) = 32",
                "tile_size(j#2) = 64",
                "order(j#2.tile, k) = OUTER",
                "dim_kind(i.tile) = PARALLEL",
                "dim_kind(j#2) = VECTOR",
            ],
        ),
        (
            "2mm.c",
            &[
                "tile_size(i) = 16",
                "tile_size(j) = 16",
                "tile_size(k) = 16",
            ],
        ),
        ("2mm.c", &["order(j, i) = OUTER"]),
        (
            "2mm.c",
            &["dim_kind(i) = PARALLEL", "dim_kind(i#2) = PARALLEL"],
        ),
        ("2mm.c", &["tile_size(k) = 4", "dim_kind(k) = UNROLL"]),
        ("2mm.c", &["tile_size(j) = 2", "dim_kind(j) = UNROLL"]),
        ("syrk.c", &["tile_size(i) = 16", "tile_size(k) = 16"]),
        ("syrk.c", &["dim_kind(i) = PARALLEL"]),
        ("syrk.c", &["tile_size(j#2) = 4", "dim_kind(j#2) = UNROLL"]),
        ("jacobi-2d.c", &["tile_size(i) = 8", "tile_size(j) = 8"]),
        (
            "jacobi-2d.c",
            &["order(j, i) = OUTER", "order(j#2, i#2) = OUTER"],
        ),
        (
            "jacobi-2d.c",
            &["dim_kind(i) = PARALLEL", "dim_kind(i#2) = PARALLEL"],
        ),
        ("jacobi-2d.c", &["tile_size(i) = 2", "dim_kind(i) = UNROLL"]),
        (
            "jacobi-2d.c",
            &["tile_size(j#2) = 4", "dim_kind(j#2) = UNROLL"],
        ),
        ("lu.c", &["tile_size(k#2) = 8"]),
        ("lu.c", &["tile_size(k) = 4", "dim_kind(k) = UNROLL"]),
        (
            "gemm.c",
            &["dim_kind(j#2) = REVERSED", "dim_kind(i) = REVERSED"],
        ),
        (
            "jacobi-2d.c",
            &["dim_kind(j) = REVERSED", "dim_kind(i#2) = REVERSED"],
        ),
    ];
    for (example, fixes) in cases {
        let host = example_host(example);
        let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
        let mut candidate = root(&host);
        apply_named_fixes(&host, &mut candidate, &fixes)
            .unwrap_or_else(|e| panic!("{example}: {e}"));
        let leaf = complete_with_original(&host, &candidate)
            .unwrap_or_else(|e| panic!("{example} {fixes:?}: {e}"));
        assert!(leaf.is_complete());
        leaf.check()
            .unwrap_or_else(|e| panic!("{example} {fixes:?}: {e}"));
        // Small parameters: the interpreter compares the memories.
        let kernel = host.kernel();
        let params: Vec<i64> = (0..kernel.params.len() as i64).map(|p| 9 + p).collect();
        let original = Schedule::from_candidate(&host, &{
            let mut c = root(&host);
            apply_fixes(&mut c, &original_fixes(&host)).expect("original");
            c
        })
        .expect("original tree");
        let transformed = Schedule::from_candidate(&host, &leaf).expect("tree");
        assert_ne!(transformed, original, "{example} {fixes:?} changes nothing");
        assert_eq!(
            run(kernel, &transformed, &params, 1_000_000),
            run(kernel, &original, &params, 1_000_000),
            "{example} {fixes:?}:\n{}",
            transformed.outline(kernel)
        );
    }
}

/// Applies named fixes at the root; the error if one is refused.
fn fix(host: &KernelHost, fixes: &[&str]) -> Result<(), String> {
    let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
    apply_named_fixes(host, &mut root(host), &fixes).map(|_| ())
}

#[test]
fn distribution_follows_the_dependences() {
    // S1 reads what S0 wrote one iteration before: fused, i carries it
    // and cannot be parallel; distributed with S0's loop first, each loop
    // is parallel; with S1's loop first, S1 would read too early.
    let forward = host("  for (i = 1; i < n; i++) {\n    A[i] = B[i];\n    C[i] = A[i - 1];\n  }");
    assert!(fix(
        &forward,
        &["order(i@S0, i@S1) = MERGED", "dim_kind(i) = PARALLEL"]
    )
    .is_err());
    fix(
        &forward,
        &["order(i@S0, i@S1) = BEFORE", "dim_kind(i) = PARALLEL"],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(fix(&forward, &["order(i@S0, i@S1) = AFTER"]).is_err());
    // S0 reads what S1 wrote one iteration before: S1's loop may go
    // first, S0's may not.
    let backward = host("  for (i = 1; i < n; i++) {\n    A[i] = B[i - 1];\n    B[i] = C[i];\n  }");
    fix(&backward, &["order(i@S0, i@S1) = AFTER"]).unwrap_or_else(|e| panic!("{e}"));
    assert!(fix(&backward, &["order(i@S0, i@S1) = BEFORE"]).is_err());
    // In the same iteration (zero distance), the source must stay first.
    let same = host("  for (i = 0; i < n; i++) {\n    A[i] = B[i];\n    C[i] = A[i];\n  }");
    fix(&same, &["order(i@S0, i@S1) = BEFORE"]).unwrap_or_else(|e| panic!("{e}"));
    assert!(fix(&same, &["order(i@S0, i@S1) = AFTER"]).is_err());
}

#[test]
fn a_distributed_loop_may_be_interchanged_for_one_statement_only() {
    // covariance's shape: S0 and S2 in j, S1 in j and k. With S1's j
    // loop split from the others, k may go outside it for S1 alone.
    let host = host("  for (j = 0; j < n; j++) {\n    M[j] = 0.0;\n    for (k = 0; k < n; k++)\n      M[j] += D[k][j];\n    M[j] /= n;\n  }");
    assert!(
        fix(
            &host,
            &["order(j@S0, j@S1) = MERGED", "order(k, j@S1) = OUTER"]
        )
        .is_err(),
        "not while merged"
    );
    fix(
        &host,
        &[
            "order(j@S0, j@S1) = BEFORE",
            "order(j@S1, j@S2) = BEFORE",
            "order(k, j@S1) = OUTER",
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Interchanged, k carries the sum into M[j]: j may still be parallel,
    // k not.
    fix(
        &host,
        &[
            "order(j@S0, j@S1) = BEFORE",
            "order(j@S1, j@S2) = BEFORE",
            "order(k, j@S1) = OUTER",
            "dim_kind(j@S1) = VECTOR",
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(fix(
        &host,
        &[
            "order(j@S0, j@S1) = BEFORE",
            "order(j@S1, j@S2) = BEFORE",
            "order(k, j@S1) = OUTER",
            "dim_kind(k) = PARALLEL",
        ],
    )
    .is_err());
}

#[test]
fn fusion_follows_the_dependences() {
    // S1 reads what S0 wrote in the same iteration: the loops fuse, and
    // the fused loop may be parallel.
    let same = host(
        "  for (i = 0; i < n; i++)\n    A[i] = B[i];\n  for (i = 0; i < n; i++)\n    C[i] = A[i];",
    );
    fix(&same, &["order(i, i#2) = MERGED", "dim_kind(i) = PARALLEL"])
        .unwrap_or_else(|e| panic!("{e}"));
    // S1 reads A[i + 1], which S0 writes one iteration later: fused, S1
    // would read it too early, unless it runs one iteration late (then
    // the fused loop carries nothing and may be parallel).
    for upper in ["n - 1", "n"] {
        let ahead = host(&format!("  for (i = 0; i < n; i++)\n    A[i] = B[i];\n  for (i = 0; i < {upper}; i++)\n    C[i] = A[i + 1];"));
        assert!(fix(&ahead, &["shift(i#2) = NO", "order(i, i#2) = MERGED"]).is_err());
        fix(
            &ahead,
            &[
                "shift(i#2) = YES",
                "order(i, i#2) = MERGED",
                "dim_kind(i) = PARALLEL",
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    // S1 reads A[i - 1], written one iteration before: fused, the loop
    // carries it and cannot be parallel.
    let behind = host("  for (i = 1; i < n; i++)\n    A[i] = B[i];\n  for (i = 1; i < n; i++)\n    C[i] = A[i - 1];");
    fix(&behind, &["order(i, i#2) = MERGED"]).unwrap_or_else(|e| panic!("{e}"));
    assert!(fix(
        &behind,
        &["order(i, i#2) = MERGED", "dim_kind(i) = PARALLEL"]
    )
    .is_err());
    // Loops of other bounds do not fuse.
    let other = host("  for (i = 0; i < n; i++)\n    A[i] = B[i];\n  for (i = 0; i < 2 * n; i++)\n    C[i] = B[i];");
    assert!(fix(&other, &["order(i, i#2) = MERGED"]).is_err());
}

#[test]
fn the_optimizer_offers_polly_only_where_the_compiler_has_it_and_not_around_a_parallel_loop() {
    use commute_loops::space::optimizer;
    let body = "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      for (k = 0; k < n; k++)\n        C[i][j] += A[i][k] * B[k][j];";
    let values =
        |candidate: &Candidate<Backbone<KernelHost>>| global_values(candidate, optimizer::CHOICE);
    // Without Polly (the default: gcc, or a clang without it): one value.
    let without = host(body);
    assert_eq!(values(&root(&without)), optimizer::NONE);
    let error = apply_named_fixes(
        &without,
        &mut root(&without),
        &["optimizer() = POLLY".into()],
    )
    .expect_err("no Polly");
    assert!(error.contains("has_polly()"), "{error}");
    // With it: three, and a parallel loop of the candidate's own rules out
    // Polly's parallel code generation.
    let with = host(body).with_polly(true);
    assert_eq!(
        values(&root(&with)),
        optimizer::NONE | optimizer::POLLY | optimizer::POLLY_PARALLEL
    );
    let mut candidate = root(&with);
    apply_named_fixes(&with, &mut candidate, &["dim_kind(i) = PARALLEL".into()]).unwrap();
    assert_eq!(values(&candidate), optimizer::NONE | optimizer::POLLY);
    let mut candidate = root(&with);
    apply_named_fixes(
        &with,
        &mut candidate,
        &["optimizer() = POLLY_PARALLEL".into()],
    )
    .unwrap();
    let error = apply_named_fixes(&with, &mut candidate, &["dim_kind(i) = PARALLEL".into()])
        .expect_err("Polly parallel around a parallel loop");
    assert!(error.contains("POLLY_PARALLEL"), "{error}");
}

/// An accumulator holds a reduction's element across a sequential loop
/// only where nothing else inside that loop touches the element, and only
/// for a loop the target does not read.
#[test]
fn with_sums_in_order_no_sum_runs_in_parallel_in_lanes_or_in_an_accumulator() {
    let source = "void f(int n, double C[n][n], double A[n][n], double B[n][n]) {\n  int i, j, k;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      for (k = 0; k < n; k++)\n        C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n";
    let reassociating = [
        "dim_kind(k) = PARALLEL",
        "dim_kind(k) = VECTOR",
        "accumulate(k) = YES",
    ];
    let host = host_of("k.c", source);
    assert!(!host.sums_in_order());
    for fix in reassociating {
        apply_named_fixes(&host, &mut root(&host), &[fix.to_string()])
            .unwrap_or_else(|e| panic!("{fix}: {e}"));
    }
    let in_order = host.with_sums_in_order(true);
    for fix in reassociating {
        let error =
            apply_named_fixes(&in_order, &mut root(&in_order), &[fix.to_string()]).expect_err(fix);
        assert!(error.starts_with(&format!("cannot fix `{fix}`")), "{error}");
    }
    // What keeps each element's sum in order stays open: `k` tiled, the
    // other loops in parallel and in lanes (`j` inside `k`).
    apply_named_fixes(
        &in_order,
        &mut root(&in_order),
        &[
            "tile_size(k) = 8".to_string(),
            "dim_kind(i) = PARALLEL".to_string(),
            "dim_kind(j) = VECTOR".to_string(),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // A maximum is exact in any order: still a reduction.
    let maximum = host_of(
        "m.c",
        "void f(int n, double x[n], double A[n][n]) {\n  int i, k;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (k = 0; k < n; k++)\n      if (A[i][k] > x[i]) x[i] = A[i][k];\n#pragma endscop\n}\n",
    )
    .with_sums_in_order(true);
    apply_named_fixes(
        &maximum,
        &mut root(&maximum),
        &["dim_kind(k) = PARALLEL".to_string()],
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn an_accumulator_is_refused_where_another_statement_reads_its_element() {
    let host = host_of(
        "k.c",
        "void f(int n, double C[n], double B[n][n], double A[n][n]) {\n  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      C[i] += A[i][j];\n      B[i][j] = C[i];\n    }\n#pragma endscop\n}\n",
    );
    let error = apply_named_fixes(
        &host,
        &mut root(&host),
        &["accumulate(j@S0) = YES".to_string()],
    )
    .expect_err("B[i][j] reads C[i] inside j");
    assert!(
        error.starts_with("cannot fix `accumulate(j@S0) = YES`"),
        "{error}"
    );
    assert!(
        error.contains("$dep = the dependence flow S0 -> S1 on C"),
        "{error}"
    );
    // After the loop, the copy reads the sum once it is complete.
    let after = host_of(
        "k.c",
        "void f(int n, double C[n], double B[n], double A[n][n]) {\n  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++) {\n    for (j = 0; j < n; j++)\n      C[i] += A[i][j];\n    B[i] = C[i];\n  }\n#pragma endscop\n}\n",
    );
    apply_named_fixes(
        &after,
        &mut root(&after),
        &["accumulate(j) = YES".to_string()],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // The target reads `i`: no accumulator across it.
    let error = apply_named_fixes(
        &host,
        &mut root(&host),
        &["accumulate(i@S0) = YES".to_string()],
    )
    .expect_err("C[i] changes with i");
    assert!(error.contains("accumulate(i@S0)"), "{error}");
}

#[test]
fn wide_vectors_are_offered_only_where_the_target_has_them() {
    use commute_loops::space::vector_width;
    let body = "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      C[i][j] += A[i][j];";
    let values = |candidate: &Candidate<Backbone<KernelHost>>| {
        global_values(candidate, vector_width::CHOICE)
    };
    let without = host(body);
    assert_eq!(values(&root(&without)), vector_width::NATIVE);
    let error = apply_named_fixes(
        &without,
        &mut root(&without),
        &["vector_width() = WIDE".into()],
    )
    .expect_err("no 512-bit vectors");
    assert!(error.contains("has_wide_vectors()"), "{error}");
    let with = host(body).with_wide_vectors(true);
    assert_eq!(
        values(&root(&with)),
        vector_width::NATIVE | vector_width::WIDE
    );
    apply_named_fixes(&with, &mut root(&with), &["vector_width() = WIDE".into()])
        .expect("wide vectors");
}

/// A packed copy is offered for arrays the kernel only reads, at tile
/// dimensions, and holds the points of tiles inside its loop: a copy of
/// an array the kernel writes, at a point dimension, over a loop that is
/// not tiled or whose tile loop is inside, or too large, is refused.
#[test]
fn packing_is_offered_for_read_only_operands_over_tiles() {
    let host = example_host("gemm.c");
    let refused = |fixes: &[&str]| {
        let error = fix(&host, fixes).expect_err(&format!("{fixes:?} refused"));
        assert!(error.starts_with("cannot fix `pack("), "{fixes:?}: {error}");
        error
    };
    // `B`'s rows of a `k` tile, columns of a `j` tile outside it.
    fix(
        &host,
        &[
            "tile_size(k) = 64",
            "tile_size(j#2) = 16",
            "order(j#2.tile, k.tile) = OUTER",
            "pack(k.tile, B) = YES",
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let error = fix(&host, &["pack(k.tile, C) = YES"]).expect_err("C is written");
    assert!(
        error.contains("`C` is not an array the kernel only reads; those are A, B"),
        "{error}"
    );
    refused(&["pack(k, B) = YES"]);
    // `j#2` untiled inside: the copy would hold whole rows.
    refused(&[
        "tile_size(k) = 64",
        "tile_size(j#2) = 1",
        "order(k.tile, j#2) = OUTER",
        "pack(k.tile, B) = YES",
    ]);
    // `j#2`'s tile loop inside: the same.
    refused(&[
        "tile_size(k) = 64",
        "tile_size(j#2) = 16",
        "order(k.tile, j#2.tile) = OUTER",
        "pack(k.tile, B) = YES",
    ]);
    // 256 x 128 elements, over the limit.
    let error = refused(&[
        "tile_size(k) = 256",
        "tile_size(j#2) = 128",
        "order(j#2.tile, k.tile) = OUTER",
        "order(k.tile, j#2) = OUTER",
        "pack(k.tile, B) = YES",
    ]);
    assert!(error.contains("packed_points"), "{error}");
    // atax's `A[i][j]` packed in `i` tiles inside an unrolled and jammed
    // `j`: each jammed copy of the statement reads another column.
    let atax = example_host("atax.c");
    let jammed = [
        "tile_size(i@S3) = 8",
        "tile_size(j#3) = 2",
        "order(j#3, i.tile@S3) = OUTER",
        "pack(i.tile@S3, A) = YES",
    ];
    fix(&atax, &jammed).unwrap_or_else(|e| panic!("{e}"));
    let mut unrolled = jammed.to_vec();
    unrolled.push("dim_kind(j#3) = UNROLL");
    let error = fix(&atax, &unrolled).expect_err("a copy per jammed column");
    assert!(error.contains("dim_kind"), "{error}");
}

/// A kernel of six sweeps over two-dimensional arrays, three statements
/// each, every sweep reading the last one's output: 72 dimensions, more
/// than the 64 objects the engine's property rows cover.
fn six_sweeps() -> KernelHost {
    let arrays = ["A", "B", "C", "D", "E", "F", "G"];
    let body: String = (0..6)
        .map(|s| {
            let (input, output) = (arrays[s], arrays[s + 1]);
            format!(
                "  for (i = 1; i < n; i++)\n    for (j = 1; j < n; j++) {{\n      T{s}[i][j] = {input}[i - 1][j] + {input}[i][j - 1];\n      U{s}[i][j] = T{s}[i][j] * 0.5 + U{s}[i - 1][j];\n      {output}[i][j] = U{s}[i][j - 1] + T{s}[i][j];\n    }}\n"
            )
        })
        .collect();
    host(&body)
}

#[test]
fn enumerating_by_property_lists_changes_no_descent() {
    use commute_runtime::descent::{random_descent_backtracking, Descent};
    use commute_runtime::testing::{property_lists, without_property_lists};
    use rand::SeedableRng;

    let host = six_sweeps();
    let listed = Candidate::new(Backbone(host.clone())).unwrap_or_else(|e| panic!("{e}"));
    let walked = without_property_lists(|| Candidate::new(Backbone(host.clone())))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        property_lists(&listed) > 0,
        "the kernel is too small to have lists"
    );
    assert_eq!(property_lists(&walked), 0);
    // Compared without printing: a decision vector is thousands of words.
    assert!(listed.decisions() == walked.decisions(), "the roots differ");
    let priority = &commute_loops::space::DECISION_PRIORITY;
    let mut leaves = 0;
    for seed in 0..8 {
        let descend = |root| {
            random_descent_backtracking(
                root,
                priority,
                &mut rand::rngs::StdRng::seed_from_u64(seed),
            )
        };
        match (descend(&listed), descend(&walked)) {
            (
                Descent::Leaf {
                    leaf: a,
                    decisions: x,
                },
                Descent::Leaf {
                    leaf: b,
                    decisions: y,
                },
            ) => {
                assert!(
                    a.decisions() == b.decisions() && x == y,
                    "seed {seed}: the leaves differ"
                );
                leaves += 1;
            }
            (Descent::DeadEnd { decisions: x, .. }, Descent::DeadEnd { decisions: y, .. }) => {
                assert_eq!(x, y, "seed {seed}")
            }
            _ => panic!("seed {seed}: one descent ended in a leaf, the other in a dead end"),
        }
    }
    assert!(leaves > 0);
}

#[test]
fn a_refusal_met_without_explanations_is_explained_by_replaying_on_the_explained_root() {
    use commute_loops::space::complete::replayed_dead_end;
    use commute_loops::space::{dim_kind, tile_size};
    use commute_runtime::{Action, Domain};

    let prefix_sum = host("  for (i = 1; i < n; i++)\n    A[i] = A[i - 1] + B[i];");
    let explained = root(&prefix_sum);
    let plain = explained.clone().without_explanations();
    let point = prefix_sum.point(LoopId(0)).expect("a loop").0;
    let kind = |values| Action {
        choice: dim_kind::CHOICE,
        objects: vec![point],
        values,
    };
    // A decision taken first, so that the replay has something to apply:
    // the loop tiled by its largest size.
    let tile = Action {
        choice: tile_size::CHOICE,
        objects: vec![point],
        values: 0,
    };
    let Some(Domain::Integer { universe, .. }) = plain.domain(&tile.instance()) else {
        panic!("tile_size is an integer choice");
    };
    let tiled = Action {
        values: 1 << (universe.len() - 1),
        ..tile
    };
    let mut taken = plain.clone();
    taken.apply(&tiled).expect("a tile size");

    let parallel = kind(dim_kind::PARALLEL);
    let unexplained = taken
        .clone()
        .apply(&parallel)
        .expect_err("the loop carries");
    assert!(
        !unexplained.message.contains("removed the other values"),
        "{unexplained}"
    );
    let replayed = replayed_dead_end(&explained, std::slice::from_ref(&tiled), &parallel)
        .expect("refused on the explained root too");
    assert!(
        replayed.message.contains("removed the other values") && replayed.constraint.is_some(),
        "{replayed}"
    );
    // Nothing to explain: a root without explanations, or a decision that
    // holds.
    assert!(replayed_dead_end(&plain, std::slice::from_ref(&tiled), &parallel).is_none());
    let sequential = kind(dim_kind::SEQUENTIAL);
    assert!(replayed_dead_end(&explained, &[tiled], &sequential).is_none());
}

/// Loops of nests three deep, and the loops they may be merged with, get
/// a block dimension (a tile of tiles) outside their tile: it spans whole
/// tiles of a tiled loop, more than one; it runs skewed with its loop; and
/// it carries what its loop carries.
#[test]
fn blocks_hold_several_whole_tiles_of_loops_in_deep_nests() {
    use commute_loops::space::names::Names;
    // Only where asked for.
    let plain = Names::new(&example_host("gemm.c")).all().join(", ");
    assert!(!plain.contains(".block"), "{plain}");
    let gemm = example_host("gemm.c").with_blocks(true);
    let names = Names::new(&gemm).all().join(", ");
    // The beta scaling's `i` and `j` are merged with the product's.
    assert!(
        names.contains("i.block@S0, i.tile@S0, i@S0, j.block, j.tile, j, i.block@S1"),
        "{names}"
    );
    assert!(names.contains("k.block, k.tile, k,"), "{names}");
    fix(&gemm, &["tile_size(k) = 16", "tile_size(k.block) = 128"])
        .unwrap_or_else(|e| panic!("{e}"));
    for refused in [
        ["tile_size(k) = 1", "tile_size(k.block) = 128"],
        ["tile_size(k) = 128", "tile_size(k.block) = 128"],
        ["tile_size(k) = 256", "tile_size(k.block) = 128"],
        ["tile_size(k.block) = 1", "dim_kind(k.block) = PARALLEL"],
        ["order(k.block, k.tile) = INNER", "tile_size(k) = 4"],
        [
            "dim_kind(i.block@S1) = PARALLEL",
            "dim_kind(i.tile@S1) = PARALLEL",
        ],
    ] {
        assert!(fix(&gemm, &refused).is_err(), "{refused:?} holds");
    }
    let error = fix(&gemm, &["dim_kind(k.block) = UNROLL"]).expect_err("blocks are not unrolled");
    assert!(error.contains("dim_kind(k.block)"), "{error}");
    // A block may sit away from its tile: the rows' blocks outside the
    // sum's tiles, the rows' tiles of 4 inside them (a cache block of A
    // around register tiles).
    fix(
        &gemm,
        &[
            "tile_size(i) = 4",
            "tile_size(i.block) = 64",
            "tile_size(k) = 128",
            "order(k.tile, i.block@S1) = OUTER",
            "order(i.block@S1, j#2.tile) = OUTER",
            "order(j#2.tile, i.tile@S1) = OUTER",
            "order(i.tile@S1, k) = OUTER",
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Nests two deep have none.
    let shallow =
        host("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      A[i][j] = B[j][i];")
            .with_blocks(true);
    let names = Names::new(&shallow).all().join(", ");
    assert!(!names.contains(".block"), "{names}");
    // seidel-2d: a block takes its loop's skew, and the time loop's
    // blocks carry the sweep's dependences, as its tiles do.
    let seidel = example_host("seidel-2d.c").with_blocks(true);
    let error = fix(&seidel, &["skew(j) = YES", "skew(j.block) = NO"]).expect_err("skewed apart");
    assert!(error.contains("skew(j.block)"), "{error}");
    let error = fix(
        &seidel,
        &[
            "tile_size(t) = 4",
            "tile_size(t.block) = 16",
            "dim_kind(t.block) = PARALLEL",
        ],
    )
    .expect_err("t carries the sweep");
    assert!(error.contains("$dep = the dependence"), "{error}");
}

/// seidel-2d's tiles of `t` and of `i` may run as a wavefront once `i`
/// is skewed by `t` (its distance `-1` where `t` carries the dependence
/// becomes `0`): fixing the wavefront at the root skews `i`, and with `i`
/// unskewed the wavefront is refused with the dependence named. A
/// wavefront needs its wave directly around it, both tiled.
#[test]
fn seidel_2d_runs_its_time_tiles_as_a_wavefront_once_skewed() {
    let host = example_host("seidel-2d.c");
    let wavefront = [
        "tile_size(t) = 16",
        "tile_size(i) = 32",
        "dim_kind(t.tile) = WAVE",
        "dim_kind(i.tile) = WAVEFRONT",
    ];
    let mut candidate = root(&host);
    let fixes: Vec<String> = wavefront.iter().map(|f| f.to_string()).collect();
    apply_named_fixes(&host, &mut candidate, &fixes).expect("a skewed wavefront");
    let i = host
        .kernel()
        .loops
        .iter()
        .position(|l| l.iterator == "i")
        .expect("i");
    let i_skewed = host.loop_dims(LoopId(i)).into_iter().all(|d| {
        let instance = commute_runtime::InstanceId {
            choice: commute_loops::space::skew::CHOICE,
            objects: vec![d.0],
        };
        matches!(
            candidate.domain(&instance),
            Some(commute_runtime::Domain::Enum(mask)) if mask == commute_loops::space::skew::YES
        )
    });
    assert!(i_skewed, "the wavefront skews i");
    let mut unskewed = vec!["skew(i) = NO"];
    unskewed.extend(wavefront);
    let error = fix(&host, &unskewed).expect_err("a wavefront of unskewed tiles");
    assert!(error.contains("WAVE"), "{error}");
    assert!(error.contains("(t: +, i: -1, j: -1)"), "{error}");
    // The wave directly around the wavefront, both loops tiled.
    for refused in [
        vec!["tile_size(i) = 1", "dim_kind(i.tile) = WAVEFRONT"],
        vec![
            "tile_size(t) = 16",
            "tile_size(i) = 32",
            "tile_size(j) = 32",
            "order(t.tile, j.tile) = OUTER",
            "order(j.tile, i.tile) = OUTER",
            "dim_kind(t.tile) = WAVE",
            "dim_kind(i.tile) = WAVEFRONT",
        ],
        vec!["tile_size(i) = 32", "dim_kind(i) = WAVEFRONT"],
        vec![
            "tile_size(t) = 16",
            "dim_kind(t.tile) = WAVE",
            "dim_kind(i.tile) = SEQUENTIAL",
        ],
    ] {
        assert!(fix(&host, &refused).is_err(), "{refused:?} holds");
    }
    // A wave is outermost: jacobi-2d's first sweep in waves inside `t`
    // would start a parallel region per anti-diagonal per time step.
    let jacobi = example_host("jacobi-2d.c");
    let inside_t = [
        "order(t, i.tile) = OUTER",
        "tile_size(i) = 32",
        "tile_size(j) = 32",
        "dim_kind(i.tile) = WAVE",
        "dim_kind(j.tile) = WAVEFRONT",
    ];
    let error = fix(&jacobi, &inside_t).expect_err("a wave inside t");
    assert!(error.contains("WAVE"), "{error}");
}
