//! Scalar accumulators stored alone to one element, read as updates of
//! that element (`s = 0; s += A[i][k] * B[k][j]; C[i][j] = s;` as `C[i][j]
//! = 0; C[i][j] += A[i][k] * B[k][j];`): which ones the front-end
//! rewrites and which it leaves, that the space may then move the sum
//! outside the element's loops, and that such candidates (and the
//! original program, which accumulates along the summed loop as the
//! source did) print the arrays the user's own source prints.

mod common;

use common::trees::{named, values, Original};
use commute_loops::emit::directives::directive_code;
use commute_loops::frontend::{read_kernel, read_nest_with, Kernel, ReadOptions};
use commute_loops::space::host::KernelHost;

const TEST: &str = "in_place";

/// A kernel over `double` arrays (and a `float` one, `F`), with
/// `declarations` before the region.
fn kernel(declarations: &str, body: &str) -> Kernel {
    read_kernel("kernel.c", &source(declarations, body)).unwrap_or_else(|e| panic!("{e}"))
}

/// [`kernel`], read with every sum kept in its order.
fn kernel_in_order(declarations: &str, body: &str) -> Kernel {
    let options = ReadOptions {
        sums_in_order: true,
    };
    read_nest_with("kernel.c", &source(declarations, body), None, options)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn source(declarations: &str, body: &str) -> String {
    format!(
        "#define N 64\nstatic double A[N][N], B[N][N], C[N][N], x[N], y[N];\nstatic float F[N];\nvoid kernel(int n, double alpha) {{\n  int i, j, k;\n{declarations}\n#pragma scop\n{body}\n#pragma endscop\n}}\n"
    )
}

fn codes(kernel: &Kernel) -> Vec<&str> {
    kernel.statements.iter().map(|s| s.code.as_str()).collect()
}

/// `C = A * B` summed in `t`: `init`, the sum's `update` in the `k` loop,
/// a statement `between` that loop and the `store`.
fn dot(init: &str, update: &str, between: &str, store: &str) -> String {
    format!("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {{\n      {init}\n      for (k = 0; k < n; k++)\n        {update}\n      {between}\n      {store}\n    }}")
}

/// The usual update of [`dot`].
const SUM: &str = "t += A[i][k] * B[k][j];";

const DOT: &str = "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      double s = 0.0;\n      for (k = 0; k < n; k++)\n        s += A[i][k] * B[k][j];\n      C[i][j] = s;\n    }";

#[test]
fn a_sum_stored_alone_accumulates_in_its_element() {
    let read = kernel("", DOT);
    assert_eq!(
        codes(&read),
        ["C[i][j] = 0.0;", "C[i][j] += (A[i][k] * B[k][j]);"]
    );
    assert!(read.private_scalars.is_empty() && read.locals.is_empty());
    let in_place = &read.in_place[0];
    assert_eq!(
        (
            in_place.scalar.as_str(),
            read.loops[in_place.loop_id.0].iterator.as_str(),
            in_place.target.as_str(),
            in_place.updates.iter().map(|s| s.0).collect::<Vec<_>>()
        ),
        ("s", "j", "C[i][j]", vec![1])
    );
    assert!(read.reduction(in_place.updates[0]).is_some());

    // A function's local, its store scaling the sum: the store stays,
    // reading the element.
    let scaled = "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n      t = 0.0;\n      for (k = 0; k < n; k++)\n        t += A[i][k] * B[k][j];\n      C[i][j] = alpha * t;\n    }";
    assert_eq!(
        codes(&kernel("  double t;", scaled)),
        [
            "C[i][j] = 0.0;",
            "C[i][j] += (A[i][k] * B[k][j]);",
            "C[i][j] = alpha * C[i][j];"
        ]
    );

    // Added to the element, scaled (gemm written with a temporary): the
    // element is scaled first, the sum's terms added to it.
    let added = [
        (
            dot("t = 0.0;", SUM, "", "C[i][j] = 0.5 * C[i][j] + alpha * t;"),
            vec![
                "C[i][j] = 0.5 * C[i][j];",
                "C[i][j] += (alpha * (A[i][k] * B[k][j]));",
            ],
        ),
        // `+=` of a sum that starts at zero: the first goes.
        (
            dot("t = 0.0;", SUM, "", "C[i][j] += t;"),
            vec!["C[i][j] += (A[i][k] * B[k][j]);"],
        ),
        // Subtracted, from a start that is not zero.
        (
            dot("t = x[i];", SUM, "", "C[i][j] -= alpha * t;"),
            vec![
                "C[i][j] = C[i][j] - alpha * (x[i]);",
                "C[i][j] -= (alpha * (A[i][k] * B[k][j]));",
            ],
        ),
        // Terms around it, the sum subtracted, its updates too.
        (
            dot(
                "t = 0.0;",
                "t -= A[i][k] * B[k][j];",
                "",
                "C[i][j] = x[j] - (t) + C[i][j];",
            ),
            vec![
                "C[i][j] = x[j] + C[i][j];",
                "C[i][j] += (A[i][k] * B[k][j]);",
            ],
        ),
    ];
    for (body, expected) in &added {
        let read = kernel("  double t;", body);
        assert_eq!(codes(&read), *expected, "{body}");
        assert!(read.private_scalars.is_empty(), "{body}");
        let update = read.in_place[0].updates[0];
        assert!(read.reduction(update).is_some(), "{body}");
    }

    // Two sums into one scalar, one of them subtracted.
    let two = "  for (i = 0; i < n; i++) {\n    t = 0.0;\n    for (j = 0; j < n; j++)\n      t += A[i][j] * x[j];\n    for (j = 0; j < n; j++)\n      t -= B[j][i] * x[j];\n    y[i] = t;\n  }";
    assert_eq!(
        codes(&kernel("  double t;", two)),
        [
            "y[i] = 0.0;",
            "y[i] += (A[i][j] * x[j]);",
            "y[i] -= (B[j][i] * x[j]);"
        ]
    );
}

#[test]
fn with_sums_in_order_only_a_sum_stored_as_it_is_accumulates_in_its_element() {
    // The element starts where the scalar did and takes the terms in the
    // same order.
    let read = kernel_in_order("", DOT);
    assert_eq!(
        codes(&read),
        ["C[i][j] = 0.0;", "C[i][j] += (A[i][k] * B[k][j]);"]
    );
    let scaled = dot("t = 0.0;", SUM, "", "C[i][j] = alpha * t;");
    assert_eq!(kernel_in_order("  double t;", &scaled).in_place.len(), 1);
    // Added to the element, or scaled before it is: each term would be
    // added to the element's value times the factor, not their sum once.
    for store in [
        "C[i][j] = 0.5 * C[i][j] + alpha * t;",
        "C[i][j] += t;",
        "C[i][j] -= alpha * t;",
    ] {
        let body = dot("t = 0.0;", SUM, "", store);
        assert_eq!(kernel("  double t;", &body).in_place.len(), 1, "{store}");
        let read = kernel_in_order("  double t;", &body);
        assert!(read.in_place.is_empty(), "{store}: {:?}", codes(&read));
        assert!(
            read.statements.iter().any(|s| s.write.name == "t"),
            "{store}: {:?}",
            codes(&read)
        );
    }
}

#[test]
fn a_sum_that_cannot_move_to_its_element_stays_in_its_scalar() {
    let refused = |store: &str| dot("t = 0.0;", SUM, "", store);
    let cases = [
        // Another type: a `float` element would round each partial sum.
        (
            "  for (i = 0; i < n; i++) {\n    t = 0.0;\n    for (j = 0; j < n; j++)\n      t += A[i][j];\n    F[i] = t;\n  }".to_string(),
            "float element",
        ),
        (refused("C[i][j] = 0.5 * C[i][j] + t * t;"), "store reads the sum twice"),
        // Added to the element: a coefficient written in the loop (it
        // would be read at each update instead of once)...
        (dot("t = 0.0;", SUM, "x[j] = 2.0;", "C[i][j] += x[j] * t;"), "coefficient written"),
        // ...other terms written between the first and the store (they
        // would be read at the first)...
        (dot("t = 0.0;", SUM, "x[i] = 2.0;", "C[i][j] += x[i] + t;"), "rest written"),
        // ...a product, not a sum...
        (dot("t = 1.0;", "t *= A[i][k];", "", "C[i][j] += t;"), "product"),
        // ...the sum divided, or multiplied by the element.
        (refused("C[i][j] += t / 2.0;"), "divided"),
        (refused("C[i][j] = C[i][j] * t;"), "multiplied by the element"),
        // The first assignment reads the element.
        (dot("t = C[i][j];", SUM, "", "C[i][j] = t;"), "init reads the element"),
        (refused("C[i][j] = t * t;"), "two reads"),
        // Another statement touches the array meanwhile.
        (dot("t = 0.0;", SUM, "C[i][0] = 1.0;", "C[i][j] = t;"), "array touched"),
        // An update reads the element's array.
        (dot("t = 0.0;", "t += C[k][j];", "", "C[i][j] = t;"), "update reads the array"),
        (refused("if (i < j) C[i][j] = t;"), "conditional store"),
        // No sum: a temporary.
        (dot("t = A[i][j] * 2.0;", "x[k] = t;", "", "C[i][j] = t;"), "no update"),
    ];
    for (body, case) in &cases {
        let read = kernel("  double t;", body);
        assert!(read.in_place.is_empty(), "{case}: {:?}", codes(&read));
        assert!(
            read.statements.iter().any(|s| s.write.name == "t"),
            "{case}: {:?}",
            codes(&read)
        );
    }
    // Read after the nest, the scalar is not private: it stays.
    let source = format!(
        "#define N 64\nstatic double A[N][N], B[N][N], C[N][N], x[N];\nvoid kernel(int n) {{\n  int i, j, k;\n  double t;\n#pragma scop\n{}\n#pragma endscop\n  x[0] = t;\n}}\n",
        dot("t = 0.0;", SUM, "", "C[i][j] = t;")
    );
    let read = read_kernel("kernel.c", &source).expect("reads");
    assert!(read.in_place.is_empty(), "{:?}", codes(&read));
}

#[test]
fn candidates_of_a_sum_accumulated_in_place_print_the_original_arrays() {
    // The sum stored alone, and added to the scaled element (gemm).
    let gemm = DOT.replace("C[i][j] = s;", "C[i][j] = 0.5 * C[i][j] + 1.5 * s;");
    for (name, body) in [("dot", DOT.to_string()), ("gemm", gemm)] {
        candidates_print_the_original_arrays(name, &body);
    }
}

/// Candidates of `body` (a product `C = A * B` of 37 x 37 matrices
/// summed in `s`) run in the interpreter and compiled, printing what the
/// user's source prints. The values are multiples of 1/8 and their sums
/// stay exact: any order of the terms prints the same digits.
fn candidates_print_the_original_arrays(name: &str, body: &str) {
    let source = format!(
        "#include <stdio.h>\n#define N 37\nstatic double A[N][N], B[N][N], C[N][N];\nstatic void kernel(void) {{\n  int i, j, k;\n#pragma scop\n{}\n#pragma endscop\n}}\nint main(void) {{\n  for (int i = 0; i < N; i++)\n    for (int j = 0; j < N; j++) {{\n      A[i][j] = (double)((i * (j + 3) + 1) % N) / 8;\n      B[i][j] = (double)((i + 2 * j + 5) % N) / 8;\n      C[i][j] = (double)(i - j) / 4;\n    }}\n  kernel();\n  for (int i = 0; i < N; i++)\n    for (int j = 0; j < N; j++)\n      fprintf(stderr, \"%.17g\\n\", C[i][j]);\n  return 0;\n}}\n",
        body.replace("< n", "< N")
    );
    let kernel = read_kernel(&format!("{name}.c"), &source).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kernel.in_place.len(), 1, "{name}");
    let host = KernelHost::new(kernel.clone());
    let unchanged = named(&host, &[]).expect("the original program");
    let params = values(&kernel, &[("N", 37)]);
    // The user's own source prints the reference arrays.
    let original = Original::new(TEST, name, &kernel, &unchanged, &params);
    let cases: [&[&str]; 4] = [
        // The original program: one accumulator along `k`, as the source.
        &[],
        // The sum outside the columns: what the scalar forbade.
        &["order(k, j) = OUTER", "dim_kind(i) = PARALLEL"],
        &["order(k, j) = OUTER", "dim_kind(j) = VECTOR"],
        // Blocks of the element held across the sum's tiles.
        &[
            "tile_size(i) = 4",
            "tile_size(j) = 8",
            "order(j.tile, k) = OUTER",
            "order(k, i) = OUTER",
            "accumulate(k) = YES",
            "dim_kind(i.tile) = PARALLEL",
        ],
    ];
    for fixes in cases {
        let case = fixes.join(", ");
        let schedule = named(&host, fixes).unwrap_or_else(|e| panic!("{case}: {e}"));
        let code = original.check_explicit(TEST, (name, &case), &kernel, &schedule, &params);
        if fixes.is_empty() {
            let outline = schedule.outline(&kernel);
            assert!(
                outline
                    .lines()
                    .any(|l| l.contains("for k") && l.contains("accumulat")),
                "{name}: the original program does not accumulate along `k`:\n{outline}\n{code}"
            );
        }
        let declined = directive_code(&kernel, &schedule, &[])
            .expect_err("directives on the user's code would keep the scalar");
        assert!(
            declined.to_string().contains("sums in scalar `s`"),
            "{case}: {declined}"
        );
    }
}
