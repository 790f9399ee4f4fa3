//! Candidates of the bundled examples lowered to the user's source with
//! OpenMP 6.0 loop-transformation directives, compiled with clang (20 or
//! later) and run at small sizes: each prints the same arrays as the
//! original program, and so does the same candidate as explicit code built
//! with the system C compiler. Without a clang that knows the directives
//! the tests say so and pass, unless `COMMUTE_REQUIRE_CLANG=1`.

mod common;
use common::{compile_and_run, examples_dir, nest_of, require_clang, EVERY_CONSTRUCT};

use std::path::{Path, PathBuf};

use commute_loops::emit::directives::{directive_code, NotExpressible};
use commute_loops::emit::explicit::{explicit_code, reference_code};
use commute_loops::frontend::{read_kernel, read_nest, Kernel, LoopId, StatementId};
use commute_loops::lowering::schedule::{Kind, Node, Part, Schedule, TreeLoop};
use commute_loops::space::complete::complete_with_original;
use commute_loops::space::host::KernelHost;
use commute_loops::space::names::apply_named_fixes;
use commute_loops::space::{Backbone, Host};
use commute_runtime::descent::{random_descent_backtracking, Descent};
use commute_runtime::fix::apply_fixes;
use commute_runtime::Candidate;
use rand::rngs::StdRng;
use rand::SeedableRng;

fn scratch(name: &str) -> PathBuf {
    common::scratch("directives", name)
}

/// Compiles a program with `compiler` (clang: OpenMP 6.0) and runs it; its
/// array dump (stderr).
fn dump(compiler: &str, dir: &Path, name: &str, source: &str) -> String {
    let flags = [
        "-O2",
        "-fopenmp",
        "-Werror=unknown-pragmas",
        "-DPOLYBENCH_DUMP_ARRAYS",
    ];
    compile_and_run(compiler, &flags, 3, dir, name, source)
}

/// The code with every statement replaced by a line on stderr naming it
/// and its iterators' values; None when two statements with one text use
/// different iterators (the text cannot tell them apart), or when a
/// statement's code is not its text in the file (declarations, chained
/// assignments, tests of values).
fn traced(kernel: &Kernel, code: &str) -> Option<String> {
    let mut replacements: Vec<(String, String, Vec<String>)> = Vec::new();
    for (s, statement) in kernel.statements.iter().enumerate() {
        let text = kernel.source[statement.span.clone()].trim().to_string();
        if statement.code != text {
            return None;
        }
        let iterators: Vec<String> = statement
            .loops
            .iter()
            .map(|l| kernel.loops[l.0].iterator.clone())
            .collect();
        match replacements.iter().find(|(t, _, _)| *t == text) {
            Some((_, _, other)) if *other != iterators => return None,
            Some(_) => continue,
            None => {}
        }
        let format: String = iterators.iter().map(|_| " %d").collect();
        let args: String = iterators.iter().map(|i| format!(", {i}")).collect();
        let line = format!("fprintf(stderr, \"S{s}{format}\\n\"{args});");
        replacements.push((text, line, iterators));
    }
    let mut out = code.to_string();
    for (text, line, _) in &replacements {
        out = out.replace(text.as_str(), line);
    }
    Some(out)
}

/// Whether the explicit code jams several statements in an unrolled loop
/// (where the directive keeps their original order per iteration).
fn jams_several(schedule: &Schedule) -> bool {
    schedule
        .loops()
        .iter()
        .any(|l| l.kind == Kind::Unroll && l.body.len() > 1)
}

/// Runs the statements' instances of the directive code (clang) and of the
/// explicit code (cc) on one thread: the same instances in the same order.
fn same_trace(
    compiler: &str,
    dir: &Path,
    name: &str,
    kernel: &Kernel,
    schedule: &Schedule,
    code: &str,
) {
    let Some(directives) = traced(kernel, code) else {
        return;
    };
    let explicit = traced(
        kernel,
        &explicit_code(kernel, schedule, &[]).expect("bounds"),
    )
    .expect("traced");
    let run = |compiler: &str, tag: &str, source: &str| {
        let flags = ["-O1", "-fopenmp", "-Werror=unknown-pragmas"];
        compile_and_run(compiler, &flags, 1, dir, &format!("{name}-{tag}"), source)
    };
    let mut a: Vec<String> = run(compiler, "trace-directives", &directives)
        .lines()
        .map(String::from)
        .collect();
    let mut b: Vec<String> = run("cc", "trace-explicit", &explicit)
        .lines()
        .map(String::from)
        .collect();
    assert!(a.len() > 1, "{name}: no trace");
    if jams_several(schedule) {
        a.sort();
        b.sort();
    }
    if a != b {
        let at = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        panic!(
            "{name}: the directive code runs the statements in another order than the schedule \
             (first difference at instance {at}: {:?} against {:?})\n{}\n{code}",
            a.get(at),
            b.get(at),
            schedule.outline(kernel)
        );
    }
}

fn host_of(example: &str) -> KernelHost {
    let path = examples_dir().join(format!("{example}.c"));
    let source = std::fs::read_to_string(&path).expect("read example");
    let path = path.display().to_string();
    KernelHost::new(read_nest(&path, &source, nest_of(&path)).expect("reads"))
}

fn root(host: &KernelHost) -> Candidate<Backbone<KernelHost>> {
    Candidate::new(Backbone(host.clone())).unwrap_or_else(|e| panic!("{e}"))
}

/// The candidate with `fixes` (by names) and the rest as in the original.
fn named(host: &KernelHost, fixes: &[&str]) -> Schedule {
    let mut candidate = root(host);
    let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
    apply_named_fixes(host, &mut candidate, &fixes).unwrap_or_else(|e| panic!("{e}"));
    let complete = complete_with_original(host, &candidate).unwrap_or_else(|e| panic!("{e}"));
    Schedule::from_candidate(host, &complete).unwrap_or_else(|e| panic!("{e}"))
}

/// A candidate to build, the directive lines its source must hold.
struct Case {
    what: &'static str,
    fixes: &'static [&'static str],
    expect: &'static [&'static str],
}

/// Lowers each case both ways and compares the dumps with the references.
fn check_cases(example: &str, cases: &[Case]) {
    let Some(clang) = require_clang() else {
        return;
    };
    let host = host_of(example);
    let kernel = host.kernel();
    let dir = scratch(example);
    let reference = reference_code(kernel);
    let clang_reference = dump(&clang, &dir, "reference-clang", &reference);
    let cc_reference = dump("cc", &dir, "reference-cc", &reference);
    assert!(clang_reference.contains("begin dump"), "{example}: no dump");
    for (n, case) in cases.iter().enumerate() {
        let schedule = named(&host, case.fixes);
        let outline = schedule.outline(kernel);
        let code = directive_code(kernel, &schedule, &[format!("case {}", case.what)])
            .unwrap_or_else(|e| {
                panic!("{example}, {}: not expressible: {e}\n{outline}", case.what)
            });
        let directives: Vec<&str> = code
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("#pragma omp"))
            .collect();
        if case.expect.is_empty() {
            assert!(
                directives.is_empty(),
                "{example}, {}: unexpected directives {directives:?}",
                case.what
            );
        }
        for expected in case.expect {
            assert!(
                directives.contains(expected),
                "{example}, {}: no `{expected}` among {directives:?}\n{outline}\n{code}",
                case.what
            );
        }
        let output = dump(&clang, &dir, &format!("directives{n}"), &code);
        assert!(
            output == clang_reference,
            "{example}, {}: the directive code computes other arrays\n{outline}\n{code}",
            case.what
        );
        same_trace(&clang, &dir, &format!("case{n}"), kernel, &schedule, &code);
        let explicit =
            explicit_code(kernel, &schedule, &[format!("case {}", case.what)]).expect("bounds");
        let output = dump("cc", &dir, &format!("explicit{n}"), &explicit);
        assert!(
            output == cc_reference,
            "{example}, {}: the explicit code computes other arrays\n{outline}\n{explicit}",
            case.what
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_original_candidate_is_the_reference_with_a_comment() {
    for example in [
        "gemm",
        "2mm",
        "syrk",
        "jacobi-2d",
        "lu",
        "atax",
        "covariance",
        "seidel-2d",
        "heat-3d",
        "fdtd-2d",
        "backsolve",
        "edit-distance",
        "normalize",
        "matmul-pointers",
    ] {
        let host = host_of(example);
        let schedule = named(&host, &[]);
        let code = directive_code(host.kernel(), &schedule, &["a note */ here".to_string()])
            .unwrap_or_else(|e| panic!("{example}: {e}"));
        assert!(!code.contains("#pragma omp"), "{example}:\n{code}");
        assert!(code.contains("/* a note * / here */"), "{example}:\n{code}");
        let without: Vec<&str> = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("/* commute:") && !l.contains("a note"))
            .collect();
        let reference = reference_code(host.kernel());
        assert_eq!(without, reference.lines().collect::<Vec<_>>(), "{example}");
    }
}

#[test]
fn gemm_candidates_compute_the_original_arrays() {
    check_cases(
        "gemm",
        &[
            Case {
                what: "original",
                fixes: &[],
                expect: &[],
            },
            Case {
                what: "tiled",
                fixes: &[
                    "tile_size(k) = 8",
                    "tile_size(j#2) = 4",
                    "order(j#2.tile, k) = OUTER",
                ],
                expect: &["#pragma omp tile sizes(8, 4)"],
            },
            Case {
                what: "tiled i alone, its points inside j and k",
                fixes: &["tile_size(i) = 4"],
                expect: &["#pragma omp tile sizes(4)"],
            },
            Case {
                what: "interchanged",
                fixes: &["order(j#2, k) = OUTER"],
                expect: &["#pragma omp interchange permutation(2, 1)"],
            },
            Case {
                what: "tiled and interchanged",
                fixes: &[
                    "tile_size(k) = 8",
                    "tile_size(j#2) = 4",
                    "order(j#2.tile, k.tile) = OUTER",
                    "order(j#2.tile, k) = OUTER",
                ],
                expect: &[
                    "#pragma omp interchange permutation(2, 1)",
                    "#pragma omp tile sizes(8, 4)",
                ],
            },
            Case {
                what: "one of two tiled, the untiled loop between tile and point",
                fixes: &[
                    "tile_size(k) = 4",
                    "order(j#2, k) = OUTER",
                    "order(k.tile, j#2) = OUTER",
                ],
                expect: &["#pragma omp tile sizes(4, 1)"],
            },
            Case {
                what: "tiled inner loop moved outside the other",
                fixes: &["tile_size(j#2) = 8", "order(j#2.tile, k) = OUTER"],
                expect: &[
                    "#pragma omp interchange permutation(2, 1)",
                    "#pragma omp tile sizes(1, 8)",
                ],
            },
            Case {
                what: "parallel outermost",
                fixes: &["dim_kind(i) = PARALLEL"],
                expect: &["#pragma omp parallel for private(i, j, k)"],
            },
            Case {
                what: "parallel tile loop",
                fixes: &["tile_size(i) = 4", "dim_kind(i.tile) = PARALLEL"],
                expect: &[
                    "#pragma omp parallel for private(i, j, k)",
                    "#pragma omp tile sizes(4)",
                ],
            },
            Case {
                what: "parallel, tiled and interchanged",
                fixes: &[
                    "dim_kind(i) = PARALLEL",
                    "tile_size(k) = 8",
                    "tile_size(j#2) = 4",
                    "order(j#2.tile, k.tile) = OUTER",
                    "order(j#2.tile, k) = OUTER",
                ],
                expect: &[
                    "#pragma omp parallel for private(i, j, k)",
                    "#pragma omp interchange permutation(2, 1)",
                    "#pragma omp tile sizes(8, 4)",
                ],
            },
            Case {
                what: "unrolled",
                fixes: &["tile_size(j#2) = 4", "dim_kind(j#2) = UNROLL"],
                expect: &["#pragma omp unroll partial(4)"],
            },
            Case {
                what: "vector",
                fixes: &["dim_kind(j#2) = VECTOR"],
                expect: &["#pragma omp simd"],
            },
        ],
    );
}

#[test]
fn two_mm_candidates_compute_the_original_arrays() {
    check_cases(
        "2mm",
        &[
            Case {
                what: "original",
                fixes: &[],
                expect: &[],
            },
            Case {
                what: "tiled",
                fixes: &[
                    "tile_size(i) = 4",
                    "tile_size(j) = 8",
                    "order(j.tile, i) = OUTER",
                ],
                expect: &["#pragma omp tile sizes(4, 8)"],
            },
            Case {
                what: "interchanged",
                fixes: &["order(j, i) = OUTER"],
                expect: &["#pragma omp interchange permutation(2, 1)"],
            },
            Case {
                what: "tiled and interchanged",
                fixes: &[
                    "tile_size(i#2) = 4",
                    "tile_size(j#2) = 4",
                    "order(j#2.tile, i#2.tile) = OUTER",
                    "order(j#2.tile, i#2) = OUTER",
                ],
                expect: &[
                    "#pragma omp interchange permutation(2, 1)",
                    "#pragma omp tile sizes(4, 4)",
                ],
            },
            Case {
                what: "parallel outermost",
                fixes: &["dim_kind(i#2) = PARALLEL", "dim_kind(i) = PARALLEL"],
                expect: &["#pragma omp parallel for private(i, j, k)"],
            },
            Case {
                what: "parallel over interchange",
                fixes: &["order(j, i) = OUTER", "dim_kind(j) = PARALLEL"],
                expect: &[
                    "#pragma omp parallel for private(i, j, k)",
                    "#pragma omp interchange permutation(2, 1)",
                ],
            },
            Case {
                what: "unrolled",
                fixes: &["tile_size(k) = 4", "dim_kind(k) = UNROLL"],
                expect: &["#pragma omp unroll partial(4)"],
            },
        ],
    );
}

#[test]
fn syrk_candidates_compute_the_original_arrays() {
    check_cases(
        "syrk",
        &[
            Case {
                what: "original",
                fixes: &[],
                expect: &[],
            },
            Case {
                what: "tiled, the inner bounds reading an outer iterator",
                fixes: &[
                    "tile_size(k) = 4",
                    "tile_size(j#2) = 4",
                    "order(j#2.tile, k) = OUTER",
                ],
                expect: &["#pragma omp tile sizes(4, 4)"],
            },
            Case {
                what: "interchanged",
                fixes: &["order(j#2, k) = OUTER"],
                expect: &["#pragma omp interchange permutation(2, 1)"],
            },
            Case {
                what: "tiled and interchanged",
                fixes: &[
                    "tile_size(k) = 8",
                    "tile_size(j#2) = 4",
                    "order(j#2.tile, k.tile) = OUTER",
                    "order(j#2.tile, k) = OUTER",
                ],
                expect: &[
                    "#pragma omp interchange permutation(2, 1)",
                    "#pragma omp tile sizes(8, 4)",
                ],
            },
            Case {
                what: "parallel outermost",
                fixes: &["dim_kind(i) = PARALLEL"],
                expect: &["#pragma omp parallel for private(i, j, k)"],
            },
            Case {
                what: "parallel outermost, the triangle's rows to the first thread free",
                fixes: &["dim_kind(i) = PARALLEL", "schedule(i) = DYNAMIC"],
                expect: &["#pragma omp parallel for private(i, j, k) schedule(dynamic)"],
            },
            Case {
                what: "unrolled",
                fixes: &["tile_size(j) = 4", "dim_kind(j) = UNROLL"],
                expect: &["#pragma omp unroll partial(4)"],
            },
        ],
    );
}

#[test]
fn bilinear_reductions_compute_the_original_sum() {
    check_cases(
        "bilinear",
        &[
            Case {
                what: "rows in parallel, a reduction",
                fixes: &["dim_kind(i) = PARALLEL"],
                expect: &["#pragma omp parallel for private(i, j) reduction(+: s)"],
            },
            Case {
                what: "rows in parallel and columns in vector lanes, both reductions",
                fixes: &["dim_kind(i) = PARALLEL", "dim_kind(j) = VECTOR"],
                expect: &[
                    "#pragma omp parallel for private(i, j) reduction(+: s)",
                    "#pragma omp simd reduction(+: s)",
                ],
            },
        ],
    );
}

#[test]
fn jacobi_2d_candidates_compute_the_original_arrays() {
    check_cases(
        "jacobi-2d",
        &[
            Case {
                what: "original",
                fixes: &[],
                expect: &[],
            },
            Case {
                what: "tiled",
                fixes: &[
                    "tile_size(i) = 4",
                    "tile_size(j) = 8",
                    "order(j.tile, i) = OUTER",
                ],
                expect: &["#pragma omp tile sizes(4, 8)"],
            },
            Case {
                what: "interchanged",
                fixes: &["order(j#2, i#2) = OUTER"],
                expect: &["#pragma omp interchange permutation(2, 1)"],
            },
            Case {
                what: "tiled and interchanged",
                fixes: &[
                    "tile_size(i#2) = 4",
                    "tile_size(j#2) = 8",
                    "order(j#2.tile, i#2.tile) = OUTER",
                    "order(j#2.tile, i#2) = OUTER",
                ],
                expect: &[
                    "#pragma omp interchange permutation(2, 1)",
                    "#pragma omp tile sizes(4, 8)",
                ],
            },
            Case {
                what: "parallel sweeps",
                fixes: &["dim_kind(i) = PARALLEL", "dim_kind(i#2) = PARALLEL"],
                expect: &["#pragma omp parallel for private(i, j)"],
            },
            Case {
                what: "unrolled",
                fixes: &["tile_size(j) = 4", "dim_kind(j) = UNROLL"],
                expect: &["#pragma omp unroll partial(4)"],
            },
        ],
    );
}

#[test]
fn lu_candidates_compute_the_original_arrays() {
    // The dependence analysis keeps the second nest's loops in place.
    check_cases(
        "lu",
        &[
            Case {
                what: "original",
                fixes: &[],
                expect: &[],
            },
            Case {
                what: "strip-mined, bounds reading an outer iterator",
                fixes: &["tile_size(j#2) = 4", "tile_size(k#2) = 8"],
                expect: &["#pragma omp tile sizes(4)", "#pragma omp tile sizes(8)"],
            },
            Case {
                what: "tiled triangular loop",
                fixes: &["tile_size(j) = 4"],
                expect: &["#pragma omp tile sizes(4)"],
            },
            Case {
                what: "unrolled",
                fixes: &["tile_size(k) = 4", "dim_kind(k) = UNROLL"],
                expect: &["#pragma omp unroll partial(4)"],
            },
            Case {
                what: "unrolled triangular loop",
                fixes: &["tile_size(k#2) = 4", "dim_kind(k#2) = UNROLL"],
                expect: &["#pragma omp unroll partial(4)"],
            },
        ],
    );
}

#[test]
fn seidel_covariance_and_atax_candidates_compute_the_original_arrays() {
    check_cases(
        "seidel-2d",
        &[
            Case {
                what: "tiled time loop",
                fixes: &["tile_size(t) = 4"],
                expect: &["#pragma omp tile sizes(4)"],
            },
            Case {
                what: "strip-mined space loops",
                fixes: &["tile_size(i) = 4", "tile_size(j) = 8"],
                expect: &["#pragma omp tile sizes(4)", "#pragma omp tile sizes(8)"],
            },
            Case {
                what: "unrolled",
                fixes: &["tile_size(j) = 4", "dim_kind(j) = UNROLL"],
                expect: &["#pragma omp unroll partial(4)"],
            },
        ],
    );
    check_cases(
        "covariance",
        &[
            Case {
                what: "tiled",
                fixes: &[
                    "tile_size(k#2) = 4",
                    "tile_size(j#2) = 4",
                    "order(j#2.tile, k#2) = OUTER",
                ],
                expect: &["#pragma omp tile sizes(4, 4)"],
            },
            Case {
                what: "tiled triangle, one directive per loop",
                fixes: &["tile_size(i) = 4", "tile_size(j#3) = 8"],
                expect: &["#pragma omp tile sizes(4)", "#pragma omp tile sizes(8)"],
            },
        ],
    );
    check_cases(
        "atax",
        &[
            Case {
                what: "parallel",
                fixes: &["dim_kind(j) = PARALLEL"],
                expect: &["#pragma omp parallel for private(j)"],
            },
            Case {
                what: "unrolled",
                fixes: &["tile_size(j#2) = 4", "dim_kind(j#2) = UNROLL"],
                expect: &["#pragma omp unroll partial(4)"],
            },
        ],
    );
}

/// Every dimension sequential, no loop distributed and no block (which
/// directives do not express): descents from it vary orders and sizes.
fn sequential_start(host: &KernelHost) -> Candidate<Backbone<KernelHost>> {
    let mut fixes = Vec::new();
    for l in 0..host.kernel().loops.len() {
        let dims = host.loop_dims(LoopId(l));
        for &d in &dims {
            if host.is_block(d) {
                fixes.push(format!("tile_size({}) = 1", d.0));
            }
            fixes.push(format!("dim_kind({}) = SEQUENTIAL", d.0));
            fixes.push(format!("accumulate({}) = NO", d.0));
            fixes.push(format!("skew({}) = NO", d.0));
            for a in 0..host.kernel().operands().len() {
                fixes.push(format!("pack({}, {a}) = NO", d.0));
            }
        }
        for &a in &dims {
            for &b in &dims {
                let (da, db) = (host.dimension(a).unwrap(), host.dimension(b).unwrap());
                if a.0 < b.0 && da.part == db.part {
                    fixes.push(format!("order({}, {}) = MERGED", a.0, b.0));
                }
            }
        }
    }
    let mut candidate = root(host);
    apply_fixes(&mut candidate, &fixes).unwrap_or_else(|e| panic!("{e}"));
    candidate
}

#[test]
fn random_expressible_candidates_compute_the_original_arrays() {
    let Some(clang) = require_clang() else {
        return;
    };
    let descents: usize = std::env::var("COMMUTE_DIRECTIVE_DESCENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let compiled_at_most: usize = std::env::var("COMMUTE_DIRECTIVE_COMPILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    for example in [
        "gemm",
        "2mm",
        "syrk",
        "jacobi-2d",
        "lu",
        "atax",
        "covariance",
        "seidel-2d",
        "heat-3d",
        "fdtd-2d",
        "backsolve",
        "edit-distance",
        "normalize",
        "matmul-pointers",
    ] {
        let host = host_of(example);
        let kernel = host.kernel();
        let dir = scratch(&format!("random-{example}"));
        let reference = dump(&clang, &dir, "reference", &reference_code(kernel));
        for (family, start) in [
            ("free", root(&host)),
            ("sequential", sequential_start(&host)),
        ] {
            let mut rng = StdRng::seed_from_u64(11);
            let (mut leaves, mut expressible, mut compiled) = (0, 0, 0);
            let mut with_directives = 0;
            for _ in 0..descents {
                let Descent::Leaf { leaf, .. } = random_descent_backtracking(&start, &[], &mut rng)
                else {
                    continue;
                };
                leaves += 1;
                let schedule =
                    Schedule::from_candidate(&host, &leaf).unwrap_or_else(|e| panic!("{e}"));
                let Ok(code) = directive_code(kernel, &schedule, &[]) else {
                    continue;
                };
                expressible += 1;
                if code.contains("#pragma omp") {
                    with_directives += 1;
                }
                if compiled < compiled_at_most {
                    let output = dump(&clang, &dir, &format!("{family}{compiled}"), &code);
                    assert!(
                        output == reference,
                        "{example}: a random candidate computes other arrays:\n{}\n{code}",
                        schedule.outline(kernel)
                    );
                    same_trace(
                        &clang,
                        &dir,
                        &format!("{family}{compiled}"),
                        kernel,
                        &schedule,
                        &code,
                    );
                    compiled += 1;
                }
            }
            eprintln!(
                "{example} ({family} descents): {leaves} leaves, {expressible} expressible \
                 ({with_directives} with directives), {compiled} compiled and checked"
            );
            // Most free descents choose kinds no directive stack has; with
            // sequential kinds, tilings and interchanges are common.
            if example == "gemm" && family == "sequential" {
                assert!(
                    with_directives >= 5,
                    "gemm: {with_directives} of {leaves} {family} random candidates \
                     were expressible with directives"
                );
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

fn statement(s: usize) -> Node {
    Node::Statement(StatementId(s))
}

fn tree_loop(loops: &[usize], body: Vec<Node>) -> Node {
    Node::Loop(TreeLoop {
        loops: loops.iter().map(|&l| LoopId(l)).collect(),
        statements: Vec::new(),
        part: Part::Point,
        size: 1,
        kind: Kind::Sequential,
        dynamic: false,
        accumulating: Vec::new(),
        packs: Vec::new(),
        body,
    })
}

fn expect_not_expressible(host: &KernelHost, schedule: &Schedule, what: &str) -> NotExpressible {
    match directive_code(host.kernel(), schedule, &[]) {
        Ok(code) => panic!(
            "{what}: expressible\n{}\n{code}",
            schedule.outline(host.kernel())
        ),
        Err(e) => e,
    }
}

/// OpenMP has no directive that skews a loop: a skewed candidate, even
/// one that keeps the original nesting, is explicit code's.
#[test]
fn skewed_loops_are_not_expressible() {
    let host = host_of("seidel-2d");
    let schedule = named(&host, &["skew(j) = YES"]);
    let e = expect_not_expressible(&host, &schedule, "skewed");
    assert!(e.0.contains("runs skewed"), "{e}");
}

/// Nor one that shifts a statement within a fused loop.
#[test]
fn shifted_loops_are_not_expressible() {
    let host = host_of("jacobi-2d");
    let schedule = named(&host, &["order(i, i#2) = MERGED", "shift(i#2) = YES"]);
    let e = expect_not_expressible(&host, &schedule, "shifted");
    assert!(e.0.contains("iterations late in a fused loop"), "{e}");
}

/// Nor the larger of values in vector lanes: the user's comparison does
/// not vectorize with clang, so explicit code writes it with `fmax` (its
/// target as the user wrote it), and computes the same with clang and
/// with the system compiler; sequential, the directives keep it.
#[test]
fn extrema_in_vector_lanes_are_not_expressible_and_explicit_code_computes_them() {
    const LARGEST: &str = r#"#include <stdio.h>
#include "harness.h"

static double A[N], top[1];

int main(int argc, char **argv) {
  int i;
  double x;
  for (i = 0; i < N; i++)
    A[i] = (double)((i * 7) % 17) / 4.0 - 2.0;
#pragma scop
  x = A[0];
  for (i = 0; i < N; i++)
    if (A[i] > x)
      x = A[i];
  top[0] = x;
#pragma endscop
  harness_dump(argc, argv, "top", top, 1);
  return 0;
}
"#;
    let host = KernelHost::new(read_kernel("largest.c", LARGEST).unwrap_or_else(|e| panic!("{e}")));
    directive_code(host.kernel(), &named(&host, &[]), &[]).expect("sequential: directives");
    let schedule = named(&host, &["dim_kind(i) = VECTOR"]);
    let e = expect_not_expressible(&host, &schedule, "largest in lanes");
    assert!(e.0.contains("larger or smaller in vector lanes"), "{e}");
    let code = explicit_code(host.kernel(), &schedule, &[]).expect("explicit code writes it");
    assert!(code.contains("x = commute_lanes_max(x, (A[i]));"), "{code}");
    let dir = scratch("largest-lanes");
    let reference = dump("cc", &dir, "reference", &reference_code(host.kernel()));
    assert!(reference.contains("2.000000000e+00"), "{reference}");
    assert_eq!(dump("cc", &dir, "cc", &code), reference);
    if let Some(clang) = require_clang() {
        assert_eq!(dump(&clang, &dir, "clang", &code), reference);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Nor blocks (tiles of tiles): `tile` over `tile` is not one the rules
/// know, so a tree with a block loop is the explicit code's, which the
/// caller falls back to (`tests/blocks.rs` runs such trees).
#[test]
fn blocked_loops_are_not_expressible() {
    // gemm: loops i 0, j 1, k 2, j#2 3; statements S0 (C *= beta), S1.
    let host = host_of("gemm").with_blocks(true);
    let with = |part: Part, size: i64, body: Vec<Node>| match tree_loop(&[0], body) {
        Node::Loop(l) => Node::Loop(TreeLoop { part, size, ..l }),
        other => other,
    };
    let inner = vec![
        tree_loop(&[1], vec![statement(0)]),
        tree_loop(&[2], vec![tree_loop(&[3], vec![statement(1)])]),
    ];
    let blocked = Schedule {
        roots: vec![with(
            Part::Block,
            16,
            vec![with(Part::Tile, 4, vec![with(Part::Point, 4, inner)])],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    let e = expect_not_expressible(&host, &blocked, "blocked");
    assert!(e.0.contains("blocked"), "{e}");
    let code = explicit_code(host.kernel(), &blocked, &[]).expect("explicit code writes it");
    assert!(code.contains("for (int i_b = "), "{code}");
}

#[test]
fn changed_structures_are_not_expressible() {
    // gemm: loops i 0, j 1, k 2, j#2 3; statements S0 (C *= beta), S1.
    let host = host_of("gemm");
    let original = Schedule {
        roots: vec![tree_loop(
            &[0],
            vec![
                tree_loop(&[1], vec![statement(0)]),
                tree_loop(&[2], vec![tree_loop(&[3], vec![statement(1)])]),
            ],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    directive_code(host.kernel(), &original, &[]).expect("the original by hand");
    let distributed = Schedule {
        roots: vec![
            tree_loop(&[0], vec![tree_loop(&[1], vec![statement(0)])]),
            tree_loop(
                &[0],
                vec![tree_loop(&[2], vec![tree_loop(&[3], vec![statement(1)])])],
            ),
        ],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    let e = expect_not_expressible(&host, &distributed, "distributed");
    assert!(e.0.contains("fused or distributed"), "{e}");
    let reordered = Schedule {
        roots: vec![tree_loop(
            &[0],
            vec![
                tree_loop(&[2], vec![tree_loop(&[3], vec![statement(1)])]),
                tree_loop(&[1], vec![statement(0)]),
            ],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    let e = expect_not_expressible(&host, &reordered, "reordered");
    assert!(e.0.contains("original order"), "{e}");
    let fused = Schedule {
        roots: vec![tree_loop(
            &[0],
            vec![tree_loop(
                &[1, 3],
                vec![statement(0), tree_loop(&[2], vec![statement(1)])],
            )],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    expect_not_expressible(&host, &fused, "fused");
    // Point loops in another order than the original's.
    let swapped_points = named(
        &host,
        &[
            "tile_size(k) = 8",
            "tile_size(j#2) = 4",
            "order(j#2.tile, k) = OUTER",
            "order(j#2, k) = OUTER",
        ],
    );
    let e = expect_not_expressible(&host, &swapped_points, "point loops swapped");
    assert!(e.0.contains("point loops"), "{e}");
    // A tiled vector loop: `simd` over `tile` is rejected.
    let tiled_vector = named(&host, &["tile_size(j#2) = 4", "dim_kind(j#2) = VECTOR"]);
    expect_not_expressible(&host, &tiled_vector, "tiled vector loop");
    // Unroll-and-jam of a loop with inner loops.
    let host = host_of("2mm");
    let jammed = named(&host, &["tile_size(i) = 4", "dim_kind(i) = UNROLL"]);
    let e = expect_not_expressible(&host, &jammed, "unroll-and-jam");
    assert!(e.0.contains("inner loops"), "{e}");
}

#[test]
fn reordered_independent_loops_are_not_expressible() {
    let source = "\
#define N 10
double A[N], B[N];
void f(void) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = 1.0;
  for (j = 0; j < N; j++)
    B[j] = 2.0;
#pragma endscop
}
";
    let host = KernelHost::new(read_kernel("two.c", source).expect("reads"));
    let schedule = named(&host, &["order(j, i) = BEFORE"]);
    let e = expect_not_expressible(&host, &schedule, "reordered siblings");
    assert!(e.0.contains("original order"), "{e}");
    let schedule = named(&host, &["dim_kind(j) = PARALLEL"]);
    let code = directive_code(host.kernel(), &schedule, &[]).expect("parallel j");
    assert!(
        code.contains("  #pragma omp parallel for private(j)\n  for (j = 0;"),
        "{code}"
    );
}

#[test]
fn loops_on_one_line_and_declared_iterators() {
    let Some(clang) = require_clang() else {
        return;
    };
    let source = "\
#include <stdio.h>
#define N 10
#define M 7
double A[N][M];
int main(void) {
  int j;
  for (int x = 0; x < N * M; x++)
    A[x / M][x % M] = x % 5;
#pragma scop
  for (int i = 0; i < N; i++) for (j = 0; j < M; j++)
    A[i][j] = 2.0 * A[i][j] + i * j;
#pragma endscop
  for (int x = 0; x < N * M; x++)
    fprintf(stderr, \"%g\\n\", A[x / M][x % M]);
  return 0;
}
";
    let host = KernelHost::new(read_kernel("one.c", source).expect("reads"));
    let kernel = host.kernel();
    let dir = scratch("one-line");
    let reference = dump(&clang, &dir, "reference", &reference_code(kernel));
    let cases: [(&[&str], &str); 3] = [
        (
            &["dim_kind(i) = PARALLEL", "tile_size(j) = 4"],
            "  #pragma omp parallel for private(j)\n  for (int i = 0; i < N; i++) \n  #pragma omp tile sizes(4)\n  for (j = 0;",
        ),
        (
            &[
                "tile_size(i) = 4",
                "tile_size(j) = 4",
                "order(j.tile, i.tile) = OUTER",
                "order(j.tile, i) = OUTER",
                "dim_kind(j.tile) = PARALLEL",
            ],
            "  #pragma omp parallel for private(j)\n  #pragma omp interchange permutation(2, 1)\n  #pragma omp tile sizes(4, 4)\n  for (int i = 0;",
        ),
        (
            &["tile_size(j) = 4", "dim_kind(j) = UNROLL"],
            "\n  #pragma omp unroll partial(4)\n  for (j = 0;",
        ),
    ];
    for (n, (fixes, expected)) in cases.iter().enumerate() {
        let schedule = named(&host, fixes);
        let code = directive_code(kernel, &schedule, &[]).expect("expressible");
        assert!(code.contains(expected), "{fixes:?}:\n{code}");
        assert_eq!(
            dump(&clang, &dir, &format!("case{n}"), &code),
            reference,
            "{code}"
        );
        same_trace(&clang, &dir, &format!("trace{n}"), kernel, &schedule, &code);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Candidates of a kernel with every construct of real code (loops
/// counting down or stepping by 2, `if` statements around statements and
/// around a loop, declarations, chained assignments) written with
/// directives: the `for` inside an `if` starts a band of its own.
#[test]
fn directives_on_a_kernel_with_every_construct_compute_the_original_arrays() {
    let Some(clang) = require_clang() else {
        return;
    };
    let kernel = read_kernel("constructs.c", EVERY_CONSTRUCT).unwrap_or_else(|e| panic!("{e}"));
    let guarded: Vec<&str> = kernel
        .loops
        .iter()
        .filter(|l| l.guarded)
        .map(|l| l.iterator.as_str())
        .collect();
    assert_eq!(guarded, ["k"]);
    let host = KernelHost::new(kernel);
    let kernel = host.kernel();
    let dir = scratch("constructs");
    let reference = dump(&clang, &dir, "reference", &reference_code(kernel));
    let cases: [(&[&str], &str); 4] = [
        (
            &["dim_kind(k) = PARALLEL"],
            "#pragma omp parallel for private(k)",
        ),
        (&["tile_size(k) = 4"], "#pragma omp tile sizes(4)"),
        (&["dim_kind(k) = REVERSED"], "#pragma omp reverse"),
        // The loop stepping by 2, and the one bounded by `n / 2`.
        (
            &["tile_size(l) = 2", "tile_size(l#2) = 4"],
            "#pragma omp tile sizes(4)",
        ),
    ];
    for (n, (fixes, expected)) in cases.into_iter().enumerate() {
        let schedule = named(&host, fixes);
        let code = directive_code(kernel, &schedule, &[])
            .unwrap_or_else(|e| panic!("{fixes:?}: not expressible: {e}"));
        assert!(
            code.contains(expected),
            "{fixes:?}: no `{expected}`\n{code}"
        );
        let output = dump(&clang, &dir, &format!("case{n}"), &code);
        assert!(
            output == reference,
            "{fixes:?}: the directive code computes other arrays:\n{}\n{code}",
            schedule.outline(kernel)
        );
        same_trace(&clang, &dir, &format!("case{n}"), kernel, &schedule, &code);
    }
    std::fs::remove_dir_all(&dir).ok();
}
