//! The lower bound's parts: operations counted per statement at the sizes
//! a program is compiled with, and the bound of partial and complete
//! candidates of a kernel's space. (That it stays under measured times is
//! checked end to end in `tests/cli.rs`.)

use commute_loops::bound::{probe_lines, KernelWork, LoopBound, Machine};
use commute_loops::frontend::read_kernel;
use commute_loops::space::complete::complete_with_original;
use commute_loops::space::host::KernelHost;
use commute_loops::space::names::apply_named_fixes;
use commute_loops::space::Backbone;
use commute_runtime::search::Bound;
use commute_runtime::Candidate;

fn example(name: &str) -> String {
    let path = format!("{}/../examples/{name}.c", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The kernel of `source` and what the preprocessor would make of it:
/// `declarations`, then the parameters' expansions with `values`.
fn counted(source: &str, declarations: &str, values: &[(&str, &str)]) -> (KernelHost, KernelWork) {
    let kernel = read_kernel("kernel.c", source).unwrap_or_else(|e| panic!("{e}"));
    let mut preprocessed = format!("{declarations}\n{}", probe_lines(&kernel.params));
    for (name, value) in values {
        preprocessed = preprocessed.replace(&format!("({name})"), &format!("({value})"));
    }
    let host = KernelHost::new(kernel);
    let work = KernelWork::count(&host, &preprocessed, false);
    (host, work)
}

const GEMM_DECLARATIONS: &str = "static double A[10][14];\nstatic double B[14][12];\n\
     static double C[10][12];\nstatic void kernel(double alpha, double beta) {}";
const GEMM_SIZES: [(&str, &str); 3] = [("_PB_NI", "10"), ("_PB_NJ", "12"), ("_PB_NK", "14")];

#[test]
fn gemm_counts_a_multiply_and_an_add_per_update() {
    let (_, work) = counted(&example("gemm"), GEMM_DECLARATIONS, &GEMM_SIZES);
    assert_eq!(work.params(), [Some(10), Some(12), Some(14)]);
    // `C[i][j] *= beta` may be a multiplication by 1 (beta is a scalar the
    // kernel only reads); `alpha * A[i][k]` does not change along j and
    // may be hoisted; `(alpha * A[i][k]) * B[k][j]` and the `+=` stay.
    assert_eq!(work.operations(), 2.0 * 10.0 * 12.0 * 14.0);
    // A, B and C in full, and the scalars alpha and beta.
    assert_eq!(
        work.footprint(),
        8.0 * (10.0 * 14.0 + 14.0 * 12.0 + 10.0 * 12.0 + 2.0)
    );
}

#[test]
fn unknown_sizes_types_and_reassociation_count_nothing() {
    let (_, work) = counted(&example("gemm"), GEMM_DECLARATIONS, &[("_PB_NI", "ni")]);
    assert_eq!(work.params()[0], None);
    assert_eq!(work.operations(), 0.0);
    let integers = GEMM_DECLARATIONS.replace("double", "int");
    let (_, work) = counted(&example("gemm"), &integers, &GEMM_SIZES);
    assert_eq!(work.operations(), 0.0);
    assert_eq!(work.footprint(), 0.0);
    let kernel = read_kernel("kernel.c", &example("gemm")).unwrap();
    let host = KernelHost::new(kernel.clone());
    let mut preprocessed = format!("{GEMM_DECLARATIONS}\n{}", probe_lines(&kernel.params));
    for (name, value) in GEMM_SIZES {
        preprocessed = preprocessed.replace(&format!("({name})"), &format!("({value})"));
    }
    assert_eq!(
        KernelWork::count(&host, &preprocessed, true).operations(),
        0.0
    );
}

#[test]
fn a_stencil_counts_every_operation_of_every_sweep() {
    let (_, work) = counted(
        &example("jacobi-2d"),
        "static double A[20][20];\nstatic double B[20][20];",
        &[("_PB_TSTEPS", "3"), ("_PB_N", "20")],
    );
    // Four additions and a multiplication by 0.2 per point: A changes
    // from one time step to the next, so nothing is hoisted.
    assert_eq!(work.operations(), 2.0 * 5.0 * 3.0 * 18.0 * 18.0);
}

#[test]
fn identities_and_overwritten_stores_count_nothing() {
    let source = "double A[8][8], B[8][8], s;\nvoid f(void) {\n  int i, j;\n#pragma scop\n\
        for (i = 0; i < 8; i++)\n    for (j = 0; j < 8; j++) {\n      A[i][j] = B[i][j] * 1.0;\n\
              s = B[i][j] * 3.0;\n      A[i][j] += B[i][j] * B[j][i];\n    }\n#pragma endscop\n}\n";
    let (_, work) = counted(source, source, &[]);
    // The first is an identity; the second is overwritten at every j
    // (only the last survives); the third counts two per instance.
    assert_eq!(work.operations(), 2.0 * 64.0);
}

fn machine() -> Machine {
    Machine {
        cpu: "test".into(),
        compiler: "test".into(),
        threads: 2,
        vector_flops: 1e9,
        scalar_flops: 1e8,
        bandwidth: 1e10,
        fork_join: 1e-6,
        last_level_cache: Some(1e9),
    }
}

fn leaf(host: &KernelHost, fixes: &[&str]) -> Candidate<Backbone<KernelHost>> {
    let mut root = Candidate::new_explained(Backbone(host.clone())).expect("a space");
    let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
    apply_named_fixes(host, &mut root, &fixes).unwrap_or_else(|e| panic!("{e}"));
    complete_with_original(host, &root.without_explanations()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_bound_of_a_candidate_follows_its_parallel_loops() {
    let (host, work) = counted(&example("gemm"), GEMM_DECLARATIONS, &GEMM_SIZES);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(2) as f64;
    let bound = LoopBound::new(work, &machine(), 2);
    let flops = 2.0 * 10.0 * 12.0 * 14.0;
    let peak = 1e9 * 1.25;
    let root = Candidate::new(Backbone(host.clone())).expect("a space");
    // At the root anything may be parallel: all the work on every thread.
    assert!((bound.bound(&root) - flops / peak / threads).abs() < 1e-12);
    // The original program: nothing parallel, one core.
    let original = leaf(&host, &[]);
    assert!((bound.bound(&original) - flops / peak).abs() < 1e-12);
    // The innermost j parallel: one region per (i, k), half a microsecond
    // each at least.
    let inner = leaf(&host, &["dim_kind(j#2) = PARALLEL"]);
    let regions: f64 = 10.0 * 14.0 * 0.5e-6;
    assert!((bound.bound(&inner) - regions.max(flops / peak / threads)).abs() < 1e-12);
    // Unrolled and jammed by 2 outside it, i shares one region per tile.
    let jammed = leaf(
        &host,
        &[
            "dim_kind(j#2) = PARALLEL",
            "dim_kind(i) = UNROLL",
            "tile_size(i) = 2",
        ],
    );
    let regions: f64 = 5.0 * 14.0 * 0.5e-6;
    assert!((bound.bound(&jammed) - regions.max(flops / peak / threads)).abs() < 1e-12);
}
