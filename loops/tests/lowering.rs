//! Candidates of the bundled examples lowered to explicit C, compiled with
//! the system C compiler and run at small sizes: every candidate the space
//! admits prints the same arrays as the original program.

mod common;
use common::{compile_and_run, examples_dir, nest_of, require_clang, EVERY_CONSTRUCT};

use std::path::{Path, PathBuf};

use commute_loops::emit::explicit::{explicit_code, reference_code};
use commute_loops::frontend::{read_kernel, read_nest, LoopId};
use commute_loops::lowering::schedule::Schedule;
use commute_loops::space::host::KernelHost;
use commute_loops::space::Backbone;
use commute_runtime::descent::{random_descent_backtracking, Descent};
use commute_runtime::fix::apply_fixes;
use commute_runtime::Candidate;
use rand::rngs::StdRng;
use rand::SeedableRng;

fn scratch(name: &str) -> PathBuf {
    common::scratch("lowering", name)
}

/// Compiles and runs a program, each within its timeout; its array dump
/// (stderr).
fn run(dir: &Path, name: &str, source: &str) -> String {
    let flags = [
        "-O1",
        "-fopenmp",
        "-Werror=unknown-pragmas",
        "-DPOLYBENCH_DUMP_ARRAYS",
    ];
    compile_and_run("cc", &flags, 2, dir, name, source)
}

/// The numbers of an array dump, in order.
fn dump_values(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .filter_map(|w| w.parse::<f64>().ok())
        .collect()
}

/// Whether a dump holds the reference's numbers (some), each equal to a
/// relative `tolerance`: reductions and vector sums reassociate.
fn same_values(output: &[f64], reference: &[f64], tolerance: f64) -> bool {
    use commute_loops::harness::floats_equal;
    !reference.is_empty()
        && output.len() == reference.len()
        && output
            .iter()
            .zip(reference)
            .all(|(x, y)| floats_equal(*x, *y, tolerance))
}

fn examples() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(examples_dir())
        .expect("examples")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let source = std::fs::read_to_string(&p).expect("read");
            (p.display().to_string(), source)
        })
        .collect()
}

fn root(host: &KernelHost) -> Candidate<Backbone<KernelHost>> {
    Candidate::new(Backbone(host.clone())).unwrap_or_else(|e| panic!("{e}"))
}

fn original(host: &KernelHost) -> Candidate<Backbone<KernelHost>> {
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
    let mut candidate = root(host);
    apply_fixes(&mut candidate, &fixes).unwrap_or_else(|e| panic!("{e}"));
    candidate
}

fn lower(host: &KernelHost, candidate: &Candidate<Backbone<KernelHost>>) -> (Schedule, String) {
    let schedule = Schedule::from_candidate(host, candidate).unwrap_or_else(|e| panic!("{e}"));
    let code = explicit_code(host.kernel(), &schedule, &["test".to_string()])
        .unwrap_or_else(|e| panic!("{e}\n{}", schedule.outline(host.kernel())));
    (schedule, code)
}

/// The candidate with `fixes` (by name) and the original program's other
/// decisions, lowered.
fn lower_fixed(host: &KernelHost, fixes: &[&str]) -> (Schedule, String) {
    use commute_loops::space::complete::complete_with_original;
    use commute_loops::space::names::apply_named_fixes;
    let mut candidate = root(host);
    let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
    apply_named_fixes(host, &mut candidate, &fixes).unwrap_or_else(|e| panic!("{e}"));
    let leaf = complete_with_original(host, &candidate.without_explanations())
        .unwrap_or_else(|e| panic!("{e}"));
    lower(host, &leaf)
}

#[test]
fn the_original_candidate_lowers_to_the_original_loops() {
    for (path, source) in examples() {
        let host = KernelHost::new(read_nest(&path, &source, nest_of(&path)).expect("reads"));
        let dir = scratch(&format!("original-{}", host.kernel().statements.len()));
        let reference = run(&dir, "reference", &reference_code(host.kernel()));
        assert!(reference.contains("begin dump"), "{path}: no dump");
        let (schedule, code) = lower(&host, &original(&host));
        assert_eq!(
            schedule.loops().len(),
            host.kernel().loops.len(),
            "{path}: untiled loops have no tile loop"
        );
        assert_eq!(run(&dir, "original", &code), reference, "{path}");
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn random_candidates_of_every_example_compute_the_original_arrays() {
    let per_example: usize = std::env::var("COMMUTE_LOWERING_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    for (path, source) in examples() {
        let host = KernelHost::new(read_nest(&path, &source, nest_of(&path)).expect("reads"));
        let name = Path::new(&path)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let dir = scratch(&name);
        let reference = run(&dir, "reference", &reference_code(host.kernel()));
        let start = root(&host);
        let mut rng = StdRng::seed_from_u64(7);
        let mut leaves = 0;
        while leaves < per_example {
            let Descent::Leaf { leaf, .. } = random_descent_backtracking(&start, &[], &mut rng)
            else {
                continue;
            };
            let (schedule, code) = lower(&host, &leaf);
            let output = run(&dir, &format!("candidate{leaves}"), &code);
            assert!(
                output == reference,
                "{path}: candidate {leaves} computes other arrays:\n{}\n{code}",
                schedule.outline(host.kernel())
            );
            leaves += 1;
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// For every example and every dimension `d` that takes `fix(d)`, up to
/// three random leaves from there, lowered, compiled, run and compared
/// with the original program's arrays (within the tolerance of a
/// reassociated sum); `seen` gets each leaf's tree. Returns how many were
/// checked.
fn check_leaves_from(
    label: &str,
    fix: impl Fn(u32) -> String,
    seed: u64,
    mut seen: impl FnMut(&commute_loops::frontend::Kernel, &Schedule),
) -> usize {
    let mut checked = 0;
    for (path, source) in examples() {
        let host = KernelHost::new(read_nest(&path, &source, nest_of(&path)).expect("reads"));
        let kernel = host.kernel();
        let mut starts = Vec::new();
        for l in 0..kernel.loops.len() {
            for d in host.loop_dims(LoopId(l)) {
                let mut start = root(&host);
                if apply_fixes(&mut start, &[fix(d.0)]).is_ok() {
                    starts.push(start);
                }
            }
        }
        if starts.is_empty() {
            continue;
        }
        let dir = scratch(&format!("{label}-{}", kernel.statements.len()));
        let reference = dump_values(&run(&dir, "reference", &reference_code(kernel)));
        let mut rng = StdRng::seed_from_u64(seed);
        for (n, start) in starts.iter().enumerate() {
            let mut leaves = 0;
            for _ in 0..40 {
                if leaves == 3 {
                    break;
                }
                let Descent::Leaf { leaf, .. } = random_descent_backtracking(start, &[], &mut rng)
                else {
                    continue;
                };
                let (schedule, code) = lower(&host, &leaf);
                seen(kernel, &schedule);
                let output = dump_values(&run(&dir, &format!("candidate{n}-{leaves}"), &code));
                assert!(
                    same_values(&output, &reference, 1e-6),
                    "{path}: other arrays:\n{}\n{code}",
                    schedule.outline(kernel)
                );
                leaves += 1;
                checked += 1;
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
    checked
}

/// Random candidates below each decision to hold a reduction in
/// accumulators (`accumulate(d) = YES`, wherever the space offers it)
/// compute the original arrays, within the harness's tolerance (the sum is
/// reassociated once), blocks of accumulators among them.
#[test]
fn random_candidates_holding_accumulators_compute_the_original_arrays() {
    use commute_loops::lowering::reductions::{block, reduced};
    use commute_loops::lowering::schedule::Kind;
    let mut blocks = 0;
    let checked = check_leaves_from(
        "accumulators",
        |d| format!("accumulate({d}) = YES"),
        5,
        |kernel, schedule| {
            blocks += usize::from(schedule.loops().iter().any(|l| {
                l.kind == Kind::Sequential
                    && reduced(kernel, l)
                        .iter()
                        .any(|&s| block(kernel, l, s).is_some_and(|b| !b.is_empty()))
            }));
        },
    );
    eprintln!("{checked} candidates holding accumulators checked, {blocks} with blocks");
    assert!(
        checked > 0 && blocks > 0,
        "{checked} checked, {blocks} blocks"
    );
}

/// Random candidates below each skew the space offers (seidel-2d's)
/// compute the original arrays, some with tiles of a skewed loop and some
/// with a skewed loop outside its base.
#[test]
fn random_skewed_candidates_compute_the_original_arrays() {
    use commute_loops::lowering::schedule::Part;
    // Tiles of a skewed loop, and a skewed loop outside its base's points.
    let (mut tiled, mut interchanged) = (0, 0);
    let checked = check_leaves_from(
        "skews",
        |d| format!("skew({d}) = YES"),
        6,
        |kernel, schedule| {
            let loops = schedule.loops();
            tiled += usize::from(loops.iter().any(|l| {
                l.part == Part::Tile
                    && l.members(kernel)
                        .iter()
                        .any(|&(s, x)| schedule.skew(s, x).is_some())
            }));
            interchanged += usize::from(!schedule.skews_outside_their_base(kernel).is_empty());
        },
    );
    eprintln!("{checked} skewed candidates checked, {tiled} with tiles of a skewed loop, {interchanged} with one outside its base");
    assert!(
        checked > 0 && tiled > 0 && interchanged > 0,
        "{checked} checked, {tiled} tiled, {interchanged} interchanged"
    );
}

/// Random candidates below each shift the space offers (jacobi-2d's and
/// fdtd-2d's second sweeps) compute the original arrays, some with a
/// shifted loop fused and tiled.
#[test]
fn random_shifted_candidates_compute_the_original_arrays() {
    use commute_loops::lowering::schedule::Part;
    // Candidates with tiles of a fused loop holding a shifted statement.
    let mut tiled = 0;
    let checked = check_leaves_from(
        "shifts",
        |d| format!("shift({d}) = YES"),
        6,
        |kernel, schedule| {
            tiled += usize::from(schedule.loops().iter().any(|l| {
                l.part == Part::Tile
                    && l.members(kernel)
                        .iter()
                        .any(|&(s, x)| schedule.shift(s, x) != 0)
            }));
        },
    );
    eprintln!("{checked} shifted candidates checked, {tiled} with tiles of a shifted loop");
    assert!(checked > 0 && tiled > 0, "{checked} checked, {tiled} tiled");
}

/// The fused start `commute tune` evaluates first fuses the sweeps of
/// jacobi-2d and fdtd-2d (shifting the later ones), and its leaves compute
/// the original arrays; 2mm's two products fuse row by row, without a shift.
/// The parallel start runs each sweep's rows in parallel (fdtd-2d's
/// boundary row along its columns), the time loop staying sequential, and
/// computes the original arrays; on one thread there is none.
#[test]
fn the_parallel_start_runs_outer_loops_in_parallel_and_computes_the_original_arrays() {
    use commute_loops::space::names::Names;
    use commute_loops::tune::parallel_start;
    let cases: [(&str, &[&str]); 3] = [
        ("fdtd-2d", &["j", "i", "i#2", "i#3"]),
        ("heat-3d", &["i", "i#2"]),
        ("jacobi-2d", &["i", "i#2"]),
    ];
    for (name, expected) in cases {
        let path = examples_dir().join(format!("{name}.c"));
        let source = std::fs::read_to_string(&path).expect("example");
        let host =
            KernelHost::new(read_kernel(&path.display().to_string(), &source).expect("reads"));
        assert!(parallel_start(&host, &root(&host), 1)
            .expect("no error")
            .is_none());
        let start = parallel_start(&host, &root(&host), 2)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|| panic!("{name}: nothing parallel"));
        let names = Names::new(&host);
        let parallel: Vec<String> = start.parallel.iter().map(|d| names.object(d.0)).collect();
        assert_eq!(parallel, expected, "{name}");
        let (schedule, code) = lower(&host, &start.leaf);
        let outline = schedule.outline(host.kernel());
        assert!(
            code.matches("#pragma omp parallel for").count() >= expected.len(),
            "{name}\n{outline}"
        );
        let dir = scratch(&format!("parallel-{name}"));
        let reference = run(&dir, "reference", &reference_code(host.kernel()));
        let output = run(&dir, "leaf", &code);
        assert!(
            output == reference,
            "{name}: the parallel start computes other arrays:\n{outline}\n{code}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn the_fused_start_fuses_sweeps_and_computes_the_original_arrays() {
    use commute_loops::tune::fused_start;
    for (name, shifted) in [("jacobi-2d", true), ("fdtd-2d", true), ("2mm", false)] {
        let path = examples_dir().join(format!("{name}.c"));
        let source = std::fs::read_to_string(&path).expect("example");
        let host =
            KernelHost::new(read_kernel(&path.display().to_string(), &source).expect("reads"));
        let start = fused_start(&host, &root(&host), 2)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|| panic!("{name}: nothing fused"));
        assert!(!start.merged.is_empty(), "{name}");
        let dir = scratch(&format!("fused-{name}"));
        let reference = run(&dir, "reference", &reference_code(host.kernel()));
        for (n, leaf) in start.leaves.iter().enumerate() {
            let (schedule, code) = lower(&host, leaf);
            let fused = schedule.loops().iter().any(|l| {
                let mut loops = l.loops.clone();
                loops.dedup();
                loops.len() > 1
            });
            assert!(
                fused,
                "{name}: nothing fused\n{}",
                schedule.outline(host.kernel())
            );
            assert_eq!(
                !schedule.shifts.is_empty(),
                shifted,
                "{name}\n{}",
                schedule.outline(host.kernel())
            );
            let output = run(&dir, &format!("leaf{n}"), &code);
            assert!(
                output == reference,
                "{name}: the fused start computes other arrays:\n{}\n{code}",
                schedule.outline(host.kernel())
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A candidate forced past the space (a loop tree built by hand, which the
/// space's legality rules would refuse) is caught by the harness's output
/// check: seidel-2d with its time loop moved inside the sweeps.
#[test]
fn an_illegal_candidate_forced_past_the_space_is_caught_by_the_output_check() {
    use commute_loops::harness::{Compiler, Harness, HarnessConfig, Measurement};
    use commute_loops::lowering::schedule::{Kind, Node, Part, TreeLoop};
    let path = examples_dir().join("seidel-2d.c");
    let source = std::fs::read_to_string(&path).expect("example");
    let kernel = read_kernel(&path.display().to_string(), &source).expect("reads");
    // Loops: t (0), i (1), j (2); one statement. Order: i, j, t.
    let point = |l: usize, body: Vec<Node>| {
        Node::Loop(TreeLoop {
            loops: vec![LoopId(l)],
            statements: Vec::new(),
            part: Part::Point,
            size: 1,
            kind: Kind::Sequential,
            dynamic: false,
            accumulating: Vec::new(),
            packs: Vec::new(),
            body,
        })
    };
    let statement = Node::Statement(commute_loops::frontend::StatementId(0));
    let illegal = Schedule {
        roots: vec![point(1, vec![point(2, vec![point(0, vec![statement])])])],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    let code = explicit_code(&kernel, &illegal, &["forced".to_string()]).expect("bounds");
    let dir = scratch("illegal");
    let compiler = Compiler::detect(Some("cc")).expect("cc");
    let mut config = HarnessConfig::new(compiler, dir.join("builds"));
    config.cflags = ["-O1", "-DN=20", "-DTSTEPS=4"].map(String::from).to_vec();
    config.include_dirs.push(examples_dir());
    config.runs = 1;
    let mut harness = Harness::new(config, &reference_code(&kernel)).expect("reference");
    match harness.evaluate(&code) {
        Measurement::WrongOutput { detail } => {
            assert!(detail.starts_with("array A, index "), "{detail}")
        }
        other => panic!("the output check let an illegal candidate through: {other:?}"),
    }
    // The space refuses that order: the time loop cannot go inside.
    let host = KernelHost::new(kernel);
    let fix = format!(
        "order({}, {}) = OUTER",
        host.point(LoopId(2)).expect("a loop").0,
        host.point(LoopId(0)).expect("a loop").0
    );
    assert!(apply_fixes(&mut root(&host), &[fix]).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

/// Fusion and distribution written out as C: 2mm's two products fused
/// along `i`, parallel and unrolled and jammed; covariance's mean
/// distributed with its sum interchanged; each compiled and run.
#[test]
fn fused_and_distributed_candidates_compute_the_original_arrays() {
    use commute_loops::space::names::apply_named_fixes;
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "2mm.c",
            &[
                "order(i, i#2) = MERGED",
                "dim_kind(i.tile) = PARALLEL",
                "tile_size(i) = 4",
                "dim_kind(i) = UNROLL",
            ],
            "for i=i tiles of 4 parallel",
        ),
        (
            "2mm.c",
            &[
                "order(i, i#2) = MERGED",
                "order(j, j#2) = BEFORE",
                "dim_kind(i) = PARALLEL",
            ],
            "for i=i parallel",
        ),
        (
            "covariance.c",
            &[
                "order(j@S0, j@S1) = BEFORE",
                "order(j@S1, j@S2) = BEFORE",
                "order(k, j@S1) = OUTER",
                "dim_kind(j@S1) = VECTOR",
                "dim_kind(i) = PARALLEL",
            ],
            "for k\n  for j vector",
        ),
        // lu right-looking: the division's `j` merged with both updates'
        // `k` outermost, the rows in parallel inside it.
        (
            "lu.c",
            &[
                "order(k, j@S1) = MERGED",
                "order(k, k#2) = MERGED",
                "order(k, i@S0) = OUTER",
                "dim_kind(i@S0) = PARALLEL",
            ],
            "for j=k=k\n  for i parallel",
        ),
    ];
    for (file, fixes, shape) in cases {
        let path = examples_dir().join(file);
        let source = std::fs::read_to_string(&path).expect("read");
        let host = KernelHost::new(read_kernel(file, &source).expect("reads"));
        let mut candidate = root(&host);
        let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
        apply_named_fixes(&host, &mut candidate, &fixes).unwrap_or_else(|e| panic!("{e}"));
        let leaf = commute_loops::space::complete::complete_with_original(&host, &candidate)
            .unwrap_or_else(|e| panic!("{e}"));
        let (schedule, code) = lower(&host, &leaf);
        let outline = schedule.outline(host.kernel());
        assert!(outline.contains(shape), "{file}: {outline}");
        let dir = scratch(&format!("fused-{}", fixes.len()));
        let reference = run(&dir, "reference", &reference_code(host.kernel()));
        assert_eq!(
            run(&dir, "candidate", &code),
            reference,
            "{file}: {outline}\n{code}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn candidates_of_a_kernel_with_every_construct_compute_the_original_arrays() {
    let cases: usize = std::env::var("COMMUTE_LOWERING_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
        * 3;
    let kernel = read_kernel("constructs.c", EVERY_CONSTRUCT).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kernel.locals.len(), 4, "scale, w, acc and r");
    let host = KernelHost::new(kernel);
    let dir = scratch("constructs");
    let reference = run(&dir, "reference", &reference_code(host.kernel()));
    assert!(reference.contains("begin dump: y"), "no dump");
    let (_, code) = lower(&host, &original(&host));
    assert_eq!(run(&dir, "original", &code), reference, "{code}");
    let start = root(&host);
    let mut rng = StdRng::seed_from_u64(3);
    let mut leaves = 0;
    while leaves < cases {
        let Descent::Leaf { leaf, .. } = random_descent_backtracking(&start, &[], &mut rng) else {
            continue;
        };
        let (schedule, code) = lower(&host, &leaf);
        let output = run(&dir, &format!("candidate{leaves}"), &code);
        assert!(
            output == reference,
            "candidate {leaves} computes other arrays:\n{}\n{code}",
            schedule.outline(host.kernel())
        );
        leaves += 1;
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The candidates the new decisions make, fixed by name, compile with the
/// system compiler and print the original arrays (within the harness's
/// tolerance: reductions reassociate): reductions into a scalar and into
/// array elements (with jammed accumulators), a collapsed pair of
/// parallel loops, a triangle scheduled dynamically, accumulators held
/// across sequential loops (a register block of jammed copies; a tile
/// loop's, reduced by the vector point loop inside it).
#[test]
fn reductions_collapse_dynamic_schedules_and_accumulators_compile_and_compute_the_original_arrays()
{
    let cases: [(&str, &[&str], &[&str]); 9] = [
        (
            "abt.c",
            &[
                "tile_size(k) = 8",
                "dim_kind(k.tile) = PARALLEL",
                "dim_kind(k) = VECTOR",
            ],
            &[
                "#pragma omp parallel for reduction(+: commute_acc0)",
                "#pragma omp simd reduction(+: commute_acc0)",
            ],
        ),
        (
            "bilinear.c",
            &["dim_kind(i) = PARALLEL", "dim_kind(j) = VECTOR"],
            &["reduction(+: s)"],
        ),
        (
            "abt.c",
            &[
                "dim_kind(i) = PARALLEL",
                "tile_size(j) = 4",
                "dim_kind(j) = UNROLL",
                "dim_kind(k) = VECTOR",
            ],
            &["reduction(+: commute_acc0, commute_acc1, commute_acc2, commute_acc3)"],
        ),
        (
            "gemm.c",
            &["dim_kind(k) = PARALLEL"],
            &["#pragma omp parallel for reduction(+: commute_acc0)"],
        ),
        (
            "abt.c",
            &["dim_kind(i) = PARALLEL", "dim_kind(j) = COLLAPSED"],
            &["#pragma omp parallel for collapse(2)"],
        ),
        (
            "syrk.c",
            &["dim_kind(i) = PARALLEL", "schedule(i) = DYNAMIC"],
            &["#pragma omp parallel for schedule(dynamic)"],
        ),
        (
            "gemm.c",
            &[
                "tile_size(i) = 2",
                "dim_kind(i) = UNROLL",
                "tile_size(j#2) = 4",
                "dim_kind(j#2) = UNROLL",
                "order(j#2, k) = OUTER",
                "accumulate(k) = YES",
            ],
            &[
                "commute_acc7 += (alpha * A[i][k] * B[k][j]);",
                "C[i][j] += commute_acc7;",
            ],
        ),
        (
            "abt.c",
            &[
                "tile_size(k) = 8",
                "accumulate(k.tile) = YES",
                "dim_kind(k) = VECTOR",
            ],
            &["#pragma omp simd reduction(+: commute_acc0)"],
        ),
        (
            "gemm.c",
            &[
                "tile_size(i) = 2",
                "dim_kind(i) = UNROLL",
                "tile_size(j#2) = 8",
                "dim_kind(j#2) = VECTOR",
                "order(j#2.tile, k) = OUTER",
                "order(k, j#2) = OUTER",
                "accumulate(k) = YES",
            ],
            &[
                "__typeof__(C[0][0]) commute_acc1[8] = {0};",
                "commute_acc1[j - j_tt] += (alpha * A[i][k] * B[k][j]);",
                "C[i][j] += commute_acc1[j - j_tt];",
                "for (int j = j_tt; j < j_tt + 8; j++) {",
            ],
        ),
    ];
    for (n, (file, fixes, expected)) in cases.iter().enumerate() {
        let path = examples_dir().join(file);
        let source = std::fs::read_to_string(&path).expect("example");
        let path = path.display().to_string();
        let host = KernelHost::new(read_nest(&path, &source, nest_of(&path)).expect("reads"));
        let (_, code) = lower_fixed(&host, fixes);
        for e in *expected {
            assert!(code.contains(e), "{file}: no `{e}` in\n{code}");
        }
        let dir = scratch(&format!("decisions{n}"));
        let reference = run(&dir, "reference", &reference_code(host.kernel()));
        let output = run(&dir, "candidate", &code);
        assert!(
            same_values(&dump_values(&output), &dump_values(&reference), 1e-6),
            "{file}: other arrays:\n{output}\n{code}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// The larger or smaller of values (`if (a > m) m = a;`) is a reduction:
/// a column's extrema over its rows and a matrix's largest element, its
/// loops parallel, in vector lanes and accumulated, compile with
/// `reduction(max: ...)` and `reduction(min: ...)` clauses and private
/// accumulators starting from the element itself, and compute the
/// original arrays exactly.
#[test]
fn extrema_are_reductions_that_compile_and_compute_the_original_arrays() {
    const EXTREMA: &str = r#"#include <stdio.h>
#include "harness.h"

static double A[N][N], hi[N], lo[N], top[1];

int main(int argc, char **argv) {
  int i, j;
  for (i = 0; i < N; i++) {
    hi[i] = lo[i] = 0.5;
    for (j = 0; j < N; j++)
      A[i][j] = (double)((i * 7 + j * 13) % 17) / 4.0 - 2.0;
  }
  top[0] = -100.0;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      if (A[j][i] > hi[i])
        hi[i] = A[j][i];
      if (lo[i] > A[j][i]) {
        lo[i] = A[j][i];
      }
      if ((A[i][j]) > top[0]) top[0] = A[i][j];
    }
#pragma endscop
  harness_dump(argc, argv, "hi", hi, N);
  harness_dump(argc, argv, "lo", lo, N);
  harness_dump(argc, argv, "top", top, 1);
  return 0;
}
"#;
    let kernel = read_kernel("extrema.c", EXTREMA).unwrap_or_else(|e| panic!("{e}"));
    let combiners: Vec<_> = (0..3)
        .map(|s| {
            kernel
                .reduction(commute_loops::frontend::StatementId(s))
                .map(|u| (u.combiner, u.operand.as_str()))
        })
        .collect();
    use commute_loops::frontend::Combiner::{Max, Min};
    assert_eq!(
        combiners,
        [
            Some((Max, "A[j][i]")),
            Some((Min, "A[j][i]")),
            Some((Max, "A[i][j]"))
        ]
    );
    let host = KernelHost::new(kernel);
    let dir = scratch("extrema");
    let clang = require_clang();
    let reference = run(&dir, "reference", &reference_code(host.kernel()));
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["dim_kind(j) = PARALLEL"],
            &[
                "__typeof__(hi[0]) commute_acc0 = hi[i];",
                "reduction(max: commute_acc0, commute_acc2) reduction(min: commute_acc1)",
                "if (commute_acc1 < lo[i]) lo[i] = commute_acc1;",
            ],
        ),
        // In vector lanes, the larger and smaller are written with
        // helpers that vectorize (`fmax` and `fmin` for clang).
        (
            &["dim_kind(j) = VECTOR"],
            &[
                "#pragma omp simd reduction(max: ",
                "commute_acc0 = commute_lanes_max(commute_acc0, (A[j][i]));",
                "commute_acc1 = commute_lanes_min(commute_acc1, (A[j][i]));",
                "#if defined(__clang__)",
            ],
        ),
        (
            &[
                "tile_size(j) = 4",
                "dim_kind(j) = UNROLL",
                "accumulate(j.tile) = YES",
            ],
            &["= hi[i];", "if (commute_acc"],
        ),
    ];
    for (n, (fixes, expected)) in cases.iter().enumerate() {
        let (schedule, code) = lower_fixed(&host, fixes);
        for e in *expected {
            assert!(code.contains(e), "{fixes:?}: no `{e}` in\n{code}");
        }
        let output = run(&dir, &format!("candidate{n}"), &code);
        assert!(
            output == reference,
            "{fixes:?}: other arrays:\n{}\n{code}",
            schedule.outline(host.kernel())
        );
        // clang takes the helpers' other definitions.
        if let Some(clang) = &clang {
            let flags = ["-O2", "-fopenmp", "-DPOLYBENCH_DUMP_ARRAYS"];
            let output = compile_and_run(clang, &flags, 2, &dir, &format!("clang{n}"), &code);
            assert!(output == reference, "{fixes:?}, {clang}: other arrays");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Candidates that pack an operand (gemm's `B` in `k` tiles inside `j`
/// tiles, the fixed one as the best gemm candidates run it; 2mm's `C`),
/// and random leaves below each such decision, compile and compute the
/// original arrays, partial tiles included (the sizes are not multiples
/// of the tiles).
#[test]
fn packed_operands_compile_and_compute_the_original_arrays() {
    use commute_loops::space::complete::complete_with_original;
    use commute_loops::space::names::apply_named_fixes;
    let cases: [(&str, &[&str], &[&str]); 2] = [
        (
            "gemm.c",
            &[
                "order(i.tile@S0, i.tile@S1) = BEFORE",
                "tile_size(i@S1) = 4",
                "dim_kind(i@S1) = UNROLL",
                "tile_size(j#2) = 8",
                "dim_kind(j#2.tile) = PARALLEL",
                "dim_kind(j#2) = VECTOR",
                "tile_size(k) = 16",
                "order(j#2.tile, k.tile) = OUTER",
                "order(k.tile, i.tile@S1) = OUTER",
                "order(i@S1, k) = OUTER",
                "order(k, j#2) = OUTER",
                "accumulate(k) = YES",
                "pack(k.tile, B) = YES",
            ],
            &[
                "__typeof__(+B[0][0]) commute_pack0[16][8];",
                "commute_pack0[k - k_t][j - j_tt] = B[k][j];",
                "(alpha * A[i][k] * commute_pack0[k - k_t][j - j_tt])",
            ],
        ),
        (
            "2mm.c",
            &[
                "tile_size(k#2) = 4",
                "tile_size(j#2@S3) = 4",
                "pack(k#2.tile, C) = YES",
            ],
            &["commute_pack0[k - k_tt] = C[k][j];"],
        ),
    ];
    let mut rng = StdRng::seed_from_u64(7);
    for (n, (file, fixes, expected)) in cases.iter().enumerate() {
        let path = examples_dir().join(file);
        let source = std::fs::read_to_string(&path).expect("example");
        let path = path.display().to_string();
        let host = KernelHost::new(read_nest(&path, &source, nest_of(&path)).expect("reads"));
        let mut start = root(&host);
        let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
        apply_named_fixes(&host, &mut start, &fixes).unwrap_or_else(|e| panic!("{e}"));
        let fixed = complete_with_original(&host, &start.clone().without_explanations())
            .unwrap_or_else(|e| panic!("{e}"));
        let dir = scratch(&format!("packs{n}"));
        let reference = dump_values(&run(&dir, "reference", &reference_code(host.kernel())));
        assert!(!reference.is_empty());
        let mut leaves = vec![fixed];
        while leaves.len() < 4 {
            if let Descent::Leaf { leaf, .. } = random_descent_backtracking(&start, &[], &mut rng) {
                leaves.push(leaf);
            }
        }
        for (k, leaf) in leaves.iter().enumerate() {
            let (schedule, code) = lower(&host, leaf);
            assert!(
                schedule.loops().iter().any(|l| !l.packs.is_empty()),
                "{file}: no packed copy in\n{}",
                schedule.outline(host.kernel())
            );
            if k == 0 {
                for e in *expected {
                    assert!(code.contains(e), "{file}: no `{e}` in\n{code}");
                }
            }
            let output = dump_values(&run(&dir, &format!("candidate{k}"), &code));
            assert!(
                same_values(&output, &reference, 1e-6),
                "{file}: other arrays:\n{}\n{code}",
                schedule.outline(host.kernel())
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// The blocked start `commute tune` evaluates first runs gemm's update as
/// a block of accumulators (rows of `i` unrolled and jammed, columns of
/// `j` in vector lanes, the sum over `k` between them, the row tiles in
/// parallel), blocks each product of 2mm, runs abt's dot products (`B`
/// read across the columns) with the sum in vector lanes, and computes
/// the original arrays; a stencil, which sums over no loop, gets no
/// blocked start.
#[test]
fn the_blocked_start_blocks_sums_and_computes_the_original_arrays() {
    use commute_loops::space::names::Names;
    use commute_loops::tune::blocked_start;
    let columns = [
        "parallel",
        "accumulating",
        "unrolled and jammed",
        "within a tile of 32 vector",
    ];
    let dots = [
        "parallel",
        "within a tile of 4 unrolled and jammed",
        "vector",
    ];
    let cases: [(&str, &[&str], &[&str]); 4] = [
        (
            "gemm",
            &["S1: rows i@S1, sum over k, columns j#2 in vector lanes"],
            &columns,
        ),
        (
            "2mm",
            &[
                "S1: rows i@S1, sum over k, columns j@S1 in vector lanes",
                "S3: rows i#2@S3, sum over k#2, columns j#2@S3 in vector lanes",
            ],
            &columns,
        ),
        (
            "abt",
            &["S0: rows i, sum over k in vector lanes, columns j"],
            &dots,
        ),
        ("jacobi-2d", &[], &[]),
    ];
    for (name, expected, shapes) in cases {
        let path = examples_dir().join(format!("{name}.c"));
        let source = std::fs::read_to_string(&path).expect("example");
        let path = path.display().to_string();
        let host = KernelHost::new(read_nest(&path, &source, nest_of(&path)).expect("reads"));
        let names = Names::new(&host);
        let start = blocked_start(&host, &root(&host), 2).unwrap_or_else(|e| panic!("{name}: {e}"));
        let Some(start) = start else {
            assert!(expected.is_empty(), "{name}: no blocked start");
            continue;
        };
        let blocks: Vec<String> = start
            .blocks
            .iter()
            .map(|b| b.describe(&host, &names))
            .collect();
        assert_eq!(blocks, expected, "{name}");
        let (schedule, code) = lower(&host, &start.leaf);
        let outline = schedule.outline(host.kernel());
        for shape in shapes {
            assert!(
                outline.contains(shape),
                "{name}: no `{shape}` in\n{outline}"
            );
        }
        let dir = scratch(&format!("blocked-{name}"));
        let reference = run(&dir, "reference", &reference_code(host.kernel()));
        let output = run(&dir, "blocked", &code);
        // Vector sums are reassociated: equal to a relative 1e-9.
        assert!(
            same_values(&dump_values(&output), &dump_values(&reference), 1e-9),
            "{name}: the blocked start computes other arrays:\n{outline}\n{code}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// The vector start puts each sum along its innermost loop in vector lanes
/// (`omp simd reduction`): a 1-D dot product into a scalar, with its tiles
/// in parallel in the second leaf, and atax's `tmp[i] += A[i][j] * x[j]`,
/// with its rows (and the other statements' outer loops) in parallel there; its leaves compute the original
/// arrays. Sums whose target reads the innermost loop (jacobi-2d has
/// none, gemm's `C[i][j] += ...` runs `j` innermost) and sums reading
/// an operand across the lanes (2mm's `B[k][j]` along `k`) get no start.
#[test]
fn the_vector_start_puts_sums_in_vector_lanes_and_computes_the_original_arrays() {
    use commute_loops::space::names::Names;
    use commute_loops::tune::vector_start;
    const DOT: &str = r#"#include <stdio.h>
#include "harness.h"

static double a[N], b[N], dot[1];

int main(int argc, char **argv) {
  int i;
  double s;
  for (i = 0; i < N; i++) {
    a[i] = (double)(i % 7) / 8.0;
    b[i] = (double)(i % 5) / 4.0 - 0.5;
  }
#pragma scop
  s = 0.0;
  for (i = 0; i < N; i++)
    s += a[i] * b[i];
  dot[0] = s;
#pragma endscop
  harness_dump(argc, argv, "dot", dot, 1);
  return 0;
}
"#;
    let dot = || read_kernel("dot.c", DOT).unwrap_or_else(|e| panic!("{e}"));
    let example = |name: &str| {
        let path = examples_dir().join(format!("{name}.c"));
        let source = std::fs::read_to_string(&path).expect("example");
        let path = path.display().to_string();
        read_nest(&path, &source, nest_of(&path)).expect("reads")
    };
    // The kernel, the dimensions in lanes, those of the second leaf in
    // parallel.
    let cases: [(&str, commute_loops::frontend::Kernel, &[&str], &[&str]); 5] = [
        ("dot", dot(), &["i"], &["i.tile"]),
        // As the parallel start: `y`'s and `tmp`'s initializations, the
        // sum's rows, and `y[j] += A[i][j] * tmp[i]` along `j` (`i`
        // carries its sum into `y[j]`).
        (
            "atax",
            example("atax"),
            &["j#2"],
            &["j", "i@S1", "i@S2", "j#3"],
        ),
        ("jacobi-2d", example("jacobi-2d"), &[], &[]),
        ("gemm", example("gemm"), &[], &[]),
        ("2mm", example("2mm"), &[], &[]),
    ];
    for (name, kernel, lanes, parallel) in cases {
        let host = KernelHost::new(kernel);
        let names = Names::new(&host);
        let Some(start) =
            vector_start(&host, &root(&host), 2).unwrap_or_else(|e| panic!("{name}: {e}"))
        else {
            assert!(lanes.is_empty(), "{name}: no vector start");
            continue;
        };
        let named = |dims: &[commute_loops::space::StatementsId]| -> Vec<String> {
            dims.iter().map(|d| names.object(d.0)).collect()
        };
        assert_eq!(named(&start.lanes), lanes, "{name}");
        assert_eq!(named(&start.parallel), parallel, "{name}");
        assert_eq!(start.leaves.len(), 2, "{name}");
        let one_thread = vector_start(&host, &root(&host), 1)
            .expect("no error")
            .expect("a start");
        assert_eq!(
            one_thread.leaves.len(),
            1,
            "{name}: one thread, lanes alone"
        );
        assert!(one_thread.parallel.is_empty(), "{name}");
        let dir = scratch(&format!("vector-{name}"));
        let reference = run(&dir, "reference", &reference_code(host.kernel()));
        for (n, leaf) in start.leaves.iter().enumerate() {
            let (schedule, code) = lower(&host, leaf);
            let outline = schedule.outline(host.kernel());
            assert!(
                code.contains("#pragma omp simd reduction(+: "),
                "{name}: no vector sum in\n{code}"
            );
            assert_eq!(
                code.contains("#pragma omp parallel for"),
                n == 1,
                "{name}, leaf {n}:\n{outline}"
            );
            let output = run(&dir, &format!("leaf{n}"), &code);
            // Vector sums are reassociated: equal to a relative 1e-9.
            assert!(
                same_values(&dump_values(&output), &dump_values(&reference), 1e-9),
                "{name}, leaf {n}: other arrays:\n{outline}\n{code}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// Reads at computed subscripts (a sparse dot product `s += a[i] *
/// b[ip[i]]`, an ELLPACK matrix-vector product `y[i] += vals[i][j] *
/// b[cols[i][j]]`) of an array the nest does not write: random candidates
/// and the vector start's leaves compile and compute the original arrays
/// (within the tolerance of a reassociated sum).
#[test]
fn gathers_from_arrays_the_nest_does_not_write_compute_the_original_arrays() {
    use commute_loops::tune::vector_start;
    const GATHERS: &str = r#"#include <stdio.h>
#include "harness.h"

static double a[N], b[N], y[N], vals[N][8], dot[1];
static int ip[N], cols[N][8];

int main(int argc, char **argv) {
  int i, j;
  double s;
  for (i = 0; i < N; i++) {
    a[i] = (double)(i % 7) / 8.0;
    b[i] = (double)(i % 5) / 4.0 - 0.5;
    ip[i] = (i * 37 + 11) % N;
    for (j = 0; j < 8; j++) {
      vals[i][j] = (double)((i + j) % 9) / 16.0;
      cols[i][j] = (i * 8 + j * 13) % N;
    }
  }
#pragma scop
  s = 0.0;
  for (i = 0; i < N; i++)
    s += a[i] * b[ip[i]];
  dot[0] = s;
  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    for (j = 0; j < 8; j++)
      y[i] += vals[i][j] * b[cols[i][j]];
  }
#pragma endscop
  harness_dump(argc, argv, "dot", dot, 1);
  harness_dump(argc, argv, "y", y, N);
  return 0;
}
"#;
    let kernel = read_kernel("gathers.c", GATHERS).unwrap_or_else(|e| panic!("{e}"));
    let gathered: Vec<&str> = kernel.gathers.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(gathered, ["b", "b"]);
    let host = KernelHost::new(kernel);
    let dir = scratch("gathers");
    let reference = dump_values(&run(&dir, "reference", &reference_code(host.kernel())));
    let mut leaves: Vec<Candidate<Backbone<KernelHost>>> = vector_start(&host, &root(&host), 2)
        .expect("no error")
        .expect("the sum is a reduction")
        .leaves;
    let start = root(&host);
    let mut rng = StdRng::seed_from_u64(5);
    while leaves.len() < 8 {
        if let Descent::Leaf { leaf, .. } = random_descent_backtracking(&start, &[], &mut rng) {
            leaves.push(leaf);
        }
    }
    for (n, leaf) in leaves.iter().enumerate() {
        let (schedule, code) = lower(&host, leaf);
        let output = dump_values(&run(&dir, &format!("candidate{n}"), &code));
        assert!(
            same_values(&output, &reference, 1e-9),
            "candidate {n} computes other arrays:\n{}\n{code}",
            schedule.outline(host.kernel())
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
