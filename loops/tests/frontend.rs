//! The C front-end of the loop space on small kernels: what it extracts,
//! and the errors for what it does not support.

use commute_loops::frontend::{read_kernel, Affine, Kernel, LoopId, Variable};

fn read(body: &str) -> Kernel {
    read_kernel("kernel.c", &wrap(body)).unwrap_or_else(|e| panic!("{e}"))
}

fn wrap(body: &str) -> String {
    format!("#include <math.h>\n#define N 64\nstatic double A[N][N], B[N][N], C[N][N];\nvoid kernel(int n, double alpha) {{\n  int i, j, k;\n#pragma scop\n{body}\n#pragma endscop\n}}\n")
}

fn error(body: &str) -> String {
    read_kernel("kernel.c", &wrap(body))
        .expect_err("refused")
        .to_string()
}

#[test]
fn reads_a_matrix_product() {
    let kernel = read(
        "  for (i = 0; i < _PB_N; i++)\n    for (j = 0; j < _PB_N; j++) {\n      C[i][j] *= beta;\n      for (k = 0; k < _PB_N; k++)\n        C[i][j] += alpha * A[i][k] * B[k][j];\n    }",
    );
    assert_eq!(kernel.loops.len(), 3);
    assert_eq!(
        kernel
            .loops
            .iter()
            .map(|l| l.iterator.as_str())
            .collect::<Vec<_>>(),
        ["i", "j", "k"]
    );
    assert_eq!(kernel.loops[2].parent, Some(LoopId(1)));
    assert_eq!(kernel.params, ["_PB_N"]);
    assert_eq!(
        kernel.loops[0].upper,
        Affine {
            constant: 0,
            terms: vec![(Variable::Param(0), 1)]
        }
    );
    assert_eq!(kernel.statements.len(), 2);
    let [scale, update] = &kernel.statements[..] else {
        unreachable!()
    };
    assert_eq!(scale.loops, [LoopId(0), LoopId(1)]);
    assert_eq!(update.loops, [LoopId(0), LoopId(1), LoopId(2)]);
    assert_eq!(update.write.name, "C");
    let reads: Vec<&str> = update.reads.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(reads, ["C", "alpha", "A", "B"], "`+=` reads its target");
    let b = &update.reads[3];
    assert_eq!(b.subscripts[0].display(&kernel), "k");
    assert_eq!(b.subscripts[1].display(&kernel), "j");
}

#[test]
fn reads_triangular_bounds_and_affine_subscripts() {
    let kernel = read("  for (i = 1; i <= n - 2; ++i)\n    for (j = 0; j <= i; j += 1)\n      A[i][j] = (B[i-1][j] + B[i+1][2*j]) / 3.0 + SCALAR_VAL(0.5);");
    assert_eq!(kernel.loops[0].lower.as_constant(), Some(1));
    assert_eq!(
        kernel.loops[0].upper.display(&kernel),
        "n - 1",
        "`<= n - 2` is `< n - 1`"
    );
    assert_eq!(kernel.loops[1].upper.display(&kernel), "i + 1");
    let reads = &kernel.statements[0].reads;
    assert_eq!(reads[0].subscripts[0].display(&kernel), "i - 1");
    assert_eq!(reads[1].subscripts[1].display(&kernel), "2*j");
    assert_eq!(
        reads.len(),
        2,
        "the macro's constant argument reads nothing"
    );
}

#[test]
fn loop_variables_declared_in_the_loop_and_scalars() {
    let kernel = read("  for (int t = 0; t < 10; t++) {\n    s = 0.0;\n    for (int x = 0; x < n; x++)\n      s += A[t][x];\n    B[t][0] = s;\n  }");
    assert_eq!(kernel.loops[0].iterator, "t");
    let names: Vec<&str> = kernel
        .statements
        .iter()
        .map(|s| s.write.name.as_str())
        .collect();
    assert_eq!(names, ["s", "s", "B"]);
    assert!(kernel.statements[0].write.subscripts.is_empty());
}

#[test]
fn the_region_is_found_and_positions_are_in_the_file() {
    let source = wrap("  for (i = 0; i < n; i++)\n    A[i][i] = 0.0;");
    let kernel = read_kernel("kernel.c", &source).expect("readable");
    assert!(source[kernel.region.clone()].contains("A[i][i] = 0.0;"));
    let (line, column) = kernel.line_column(kernel.loops[0].span.start);
    assert_eq!((line, column), (7, 3));
}

#[test]
fn unsupported_constructs_are_named_with_their_place() {
    let cases = [
        ("  while (n > 0) n = n - 1;", "kernel.c:7:3: while loop"),
        (
            "  for (i = 0; i < n; i++)\n    goto end;",
            "kernel.c:8:5: goto statement",
        ),
        (
            "  for (i = 0; i < n; i++)\n    f(A[i][0]);",
            "kernel.c:8:5: function call",
        ),
        (
            "  for (i = 0; i < n; i += n)\n    A[i][0] = 1.0;",
            "loop increment: `i += n`: only steps by an integer constant",
        ),
        (
            "  for (i = n; i > 0; i++)\n    A[i][0] = 1.0;",
            "loop increment: `i++` goes the other way than the condition `i > 0`",
        ),
        (
            "  for (i = 0; i != n; i++)\n    A[i][0] = 1.0;",
            "loop condition: `!=`",
        ),
        (
            "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      A[i*j][0] = 1.0;",
            "array subscript: `i*j` is not affine: a product of two variables",
        ),
        (
            "  for (i = 0; i < n; i++)\n    B[i][0] = f(B[i/2][0]);",
            "`i/2` is not affine: operator `/`",
        ),
        (
            "  for (i = 0; i < n; i++)\n    *p = 1.0;",
            "kernel.c:8:5: pointer dereference",
        ),
        (
            "  for (i = 0; i < n; i++)\n    A[i][0] = B[i][0]++;",
            "kernel.c:8:15: increment inside an expression",
        ),
        (
            "  for (i = 0; i < n; i++)\n    i = 3;",
            "assignment to a loop iterator",
        ),
        ("", "empty region"),
        ("  for (i = 0; i < n; i++) {\n    m = i;\n    for (j = 0; j < m; j++)\n      A[m][j] = 1.0;\n  }", "assignment to a symbolic constant: `m` is used in loop bounds"),
        ("  for (i = 0; i < n; i++)\n    A[i][0] = 1.0;\n  x = i;", "loop iterator outside its loop: `i`"),
    ];
    for (body, expected) in cases {
        let message = error(body);
        assert!(message.contains(expected), "{body:?}: {message}");
    }
}

#[test]
fn a_file_without_a_region_is_refused() {
    let message = read_kernel("plain.c", "int main() { return 0; }\n")
        .expect_err("no region")
        .to_string();
    assert!(message.starts_with("plain.c:1:1: no region"), "{message}");
    let message = read_kernel("open.c", "#pragma scop\nx = 1;\n")
        .expect_err("unclosed")
        .to_string();
    assert!(message.contains("unclosed region"), "{message}");
}
