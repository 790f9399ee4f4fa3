//! Scalars private to the iterations of a loop (a dot product's `sum`):
//! which ones the front-end finds, that the space then lets the loops
//! around them run in parallel, and that such candidates, written as
//! explicit C (and as directives where the scalar is declared outside the
//! nest), run the original instances in the interpreter and print the
//! original arrays on two threads.

mod common;

use common::trees::{named, openmp_output, values, Original};
use commute_loops::emit::directives::directive_code;
use commute_loops::frontend::{read_kernel, Kernel, LoopId};
use commute_loops::space::host::KernelHost;

const TEST: &str = "privatize";

/// A kernel function with `double t;` declared before the region, then
/// `after` following it.
fn kernel(body: &str, declarations: &str, after: &str) -> Kernel {
    let source = format!(
        "#define N 64\nstatic double A[N][N], B[N][N], C[N][N], x[N];\nvoid kernel(int n) {{\n  int i, j, k;\n{declarations}\n#pragma scop\n{body}\n#pragma endscop\n{after}\n}}\n"
    );
    read_kernel("kernel.c", &source).unwrap_or_else(|e| panic!("{e}"))
}

/// The private scalars, as (name, iterators of their loops).
fn private(kernel: &Kernel) -> Vec<(String, String)> {
    kernel
        .private_scalars
        .iter()
        .map(|p| {
            let iterators: Vec<&str> = p
                .loops
                .iter()
                .map(|l| kernel.loops[l.0].iterator.as_str())
                .collect();
            (p.name.clone(), iterators.join(" "))
        })
        .collect()
}

/// The store reads the sum twice, so the sum stays in the scalar (a
/// store that reads it once accumulates in the element instead,
/// `tests/in_place.rs`).
const DOT_BODY: &str = "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      t = 0.0;\n      for (k = 0; k < n; k++)\n        t += A[i][k] * B[k][j];\n      C[i][j] = 0.5 * C[i][j] + t * t;\n    }";

#[test]
fn a_temporary_assigned_first_in_each_iteration_is_private_to_that_loop() {
    let pair = |name: &str, iterator: &str| vec![(name.to_string(), iterator.to_string())];
    // Declared in the function, in the nest's innermost block, at the
    // nest's top.
    assert_eq!(
        private(&kernel(DOT_BODY, "  double t;", "")),
        pair("t", "j")
    );
    let block = "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      double s = 0.0;\n      for (k = 0; k < n; k++)\n        s += A[i][k] * B[k][j];\n      C[i][j] += s * s;\n    }";
    assert_eq!(private(&kernel(block, "", "")), pair("s", "j"));
    let top = "  double u;\n  for (i = 0; i < n; i++) {\n    u = x[i] * 2.0;\n    for (j = 0; j < n; j++)\n      C[i][j] = u * A[i][j];\n  }";
    assert_eq!(private(&kernel(top, "", "")), pair("u", "i"));
    // Loops that each start by assigning it: ludcmp's `w` in both `j`
    // loops of each row, deriche's `ym1` in two nests.
    let rows = "  for (i = 0; i < n; i++) {\n    for (j = 0; j < i; j++) {\n      t = A[i][j];\n      for (k = 0; k < j; k++)\n        t -= A[i][k] * A[k][j];\n      A[i][j] = t / A[j][j];\n    }\n    for (j = i; j < n; j++) {\n      t = A[i][j];\n      for (k = 0; k < i; k++)\n        t -= A[i][k] * A[k][j];\n      A[i][j] = t;\n    }\n  }";
    let read = kernel(rows, "  double t;", "");
    assert_eq!(private(&read), pair("t", "j j"));
    assert!(read.private_to("t", LoopId(0)) && read.private_to("t", LoopId(1)));
    assert!(!read.private_to("t", LoopId(2)), "not per iteration of `k`");
    let nests = "  for (i = 0; i < n; i++) {\n    t = 0.0;\n    for (j = 0; j < n; j++)\n      t = A[i][j] + 0.5 * t;\n  x[i] = t;\n  }\n  for (i = 0; i < n; i++) {\n    t = 1.0;\n    for (j = 0; j < n; j++)\n      t = B[i][j] * t;\n    C[i][0] = t;\n  }";
    assert_eq!(private(&kernel(nests, "  double t;", "")), pair("t", "i i"));
    // A parameter passed by value is a local too.
    let source = format!("#define N 64\nstatic double A[N][N], B[N][N], C[N][N];\nvoid kernel(int n, double t) {{\n  int i, j, k;\n#pragma scop\n{DOT_BODY}\n#pragma endscop\n}}\n");
    let read = read_kernel("kernel.c", &source).expect("reads");
    assert_eq!(private(&read), pair("t", "j"));
}

#[test]
fn a_scalar_whose_value_may_be_read_elsewhere_is_not_private() {
    let cases: [(&str, &str, &str, &str); 9] = [
        (
            "read by a nest that does not assign it first",
            "  for (i = 0; i < n; i++) {\n    t = 0.0;\n    for (j = 0; j < n; j++)\n      t += A[i][j];\n  }\n  for (i = 0; i < n; i++)\n    x[i] = t;",
            "  double t;",
            "",
        ),
        ("read after the nest", DOT_BODY, "  double t;", "  x[0] = t;"),
        ("static", DOT_BODY, "  static double t;", ""),
        ("address taken", DOT_BODY, "  double t;\n  double *p = &t;", ""),
        ("a global", DOT_BODY, "", ""),
        (
            "read before it is assigned in the iteration",
            "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      C[i][j] = t;\n      t = A[i][j];\n    }",
            "  double t;",
            "",
        ),
        (
            "assigned under a condition",
            "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      if (j > 0)\n        t = 0.0;\n      C[i][j] = t;\n    }",
            "  double t;",
            "",
        ),
        (
            "assigned in an inner loop that may not run",
            "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      for (k = 0; k < j; k++)\n        t = A[i][k];\n      C[i][j] = t;\n    }",
            "  double t;",
            "",
        ),
        (
            "updated first",
            "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      t += A[i][j];\n      C[i][j] = t;\n    }",
            "  double t;",
            "",
        ),
    ];
    for (case, body, declarations, after) in cases {
        assert_eq!(
            private(&kernel(body, declarations, after)),
            Vec::<(String, String)>::new(),
            "{case}"
        );
    }
}

#[test]
fn the_space_runs_the_loops_around_a_private_scalar_in_parallel_and_no_others() {
    let host = KernelHost::new(kernel(DOT_BODY, "  double t;", ""));
    for fix in ["dim_kind(i) = PARALLEL", "dim_kind(j) = PARALLEL"] {
        if let Err(e) = named(&host, &[fix]) {
            panic!("{fix} refused: {e}");
        }
    }
    // Its loop may not move inside `k`: the iterations stay whole.
    assert!(named(&host, &["order(k, j) = OUTER"]).is_err());
    // Read after the nest, `t` is one variable: its loops stay sequential.
    let shared = KernelHost::new(kernel(DOT_BODY, "  double t;", "  x[0] = t;"));
    for fix in ["dim_kind(i) = PARALLEL", "dim_kind(j) = PARALLEL"] {
        assert!(named(&shared, &[fix]).is_err(), "{fix} accepted");
    }
}

fn program(declarations: &str, body: &str) -> String {
    format!(
        "#include <stdio.h>\n#define N 37\nstatic double A[N][N], B[N][N], C[N][N];\nstatic void kernel(void) {{\n  int i, j, k;\n{declarations}\n#pragma scop\n{body}\n#pragma endscop\n}}\nint main(void) {{\n  for (int i = 0; i < N; i++)\n    for (int j = 0; j < N; j++) {{\n      A[i][j] = (double)((i * (j + 3) + 1) % N) / N;\n      B[i][j] = (double)((i + 2 * j + 5) % N) / N;\n      C[i][j] = (double)(i - j) / N;\n    }}\n  kernel();\n  for (int i = 0; i < N; i++)\n    for (int j = 0; j < N; j++)\n      fprintf(stderr, \"%.17g\\n\", C[i][j]);\n  return 0;\n}}\n"
    )
}

#[test]
fn parallel_loops_around_a_private_scalar_compute_the_original_arrays() {
    let symm_like = "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++) {\n      t = 0.0;\n      for (k = 0; k < i; k++)\n        t += B[k][j] * A[i][k];\n      C[i][j] = 0.5 * C[i][j] + t * t;\n    }";
    let block_local = "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++) {\n      double s = C[i][j];\n      for (k = 0; k < N; k++)\n        s += A[i][k] * B[k][j];\n      C[i][j] = s;\n    }";
    let two_nests = "  for (i = 0; i < N; i++) {\n    t = 0.0;\n    for (j = 0; j < N; j++)\n      t += A[i][j];\n    C[i][0] = t;\n  }\n  for (i = 0; i < N; i++) {\n    t = C[i][1];\n    for (j = 0; j < N; j++)\n      t += B[j][i] * t;\n    C[i][1] = t;\n  }";
    let cases: [(&str, &str, &str, &[&str], &str); 5] = [
        (
            "two-nests",
            "  double t;",
            two_nests,
            &["dim_kind(i) = PARALLEL", "dim_kind(i#2) = PARALLEL"],
            "private(t)",
        ),
        (
            "function-local",
            "  double t;",
            symm_like,
            &["dim_kind(j) = PARALLEL"],
            "private(t)",
        ),
        (
            "function-local",
            "  double t;",
            symm_like,
            &["tile_size(i) = 4", "dim_kind(i.tile) = PARALLEL"],
            "private(t)",
        ),
        (
            "block-local",
            "",
            block_local,
            &["dim_kind(i) = PARALLEL"],
            "private(s)",
        ),
        (
            "block-local",
            "",
            block_local,
            &["tile_size(j) = 4", "dim_kind(j.tile) = PARALLEL"],
            "private(s)",
        ),
    ];
    for (n, (name, declarations, body, fixes, clause)) in cases.into_iter().enumerate() {
        let source = program(declarations, body);
        let kernel = read_kernel(&format!("{name}.c"), &source).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(kernel.private_scalars.len(), 1, "{name}");
        let loops: &[LoopId] = match name {
            "two-nests" => &[LoopId(0), LoopId(2)],
            _ => &[LoopId(1)],
        };
        assert!(kernel.private_scalars[0].loops == loops, "{name}");
        let host = KernelHost::new(kernel.clone());
        let schedule = named(&host, fixes).unwrap_or_else(|e| panic!("{name} {fixes:?}: {e}"));
        let unchanged = named(&host, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let params = values(&kernel, &[("N", 37)]);
        let original = Original::new(TEST, &format!("{name}{n}"), &kernel, &unchanged, &params);
        let case = fixes.join(", ");
        let code = original.check_explicit(TEST, (name, &case), &kernel, &schedule, &params);
        assert!(
            code.contains(clause),
            "{name}, {case}: no `{clause}` in\n{code}"
        );
        match directive_code(&kernel, &schedule, &[]) {
            Ok(directives) => {
                assert!(
                    name != "block-local",
                    "{name}, {case}: directives written\n{directives}"
                );
                assert!(
                    directives.contains(clause),
                    "{name}, {case}: no `{clause}` in\n{directives}"
                );
                // The system compiler knows `parallel for`, not OpenMP
                // 6.0's `tile` (`tests/directives.rs` compiles those with
                // clang).
                if !directives.contains("omp tile") {
                    let printed =
                        openmp_output(TEST, &format!("{name}{n}-directives"), &directives);
                    assert!(
                        printed == original.printed,
                        "{name}, {case}: the directives print other arrays\n{directives}"
                    );
                }
            }
            Err(e) if name == "block-local" => {
                assert!(
                    e.to_string().contains("declared inside the nest"),
                    "{name}, {case}: {e}"
                )
            }
            Err(e) => panic!("{name}, {case}: {e}"),
        }
    }
}
