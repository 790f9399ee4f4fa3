//! How the front-end reads the constructs of real kernels: `if`
//! statements (affine conditions in the domain, tests of values kept as
//! code), loops counting down or stepping by a constant, quotients of
//! symbolic constants, increments, integer scalars with known values,
//! conditional expressions, chained
//! assignments, straight-line code, scalar declarations, linearized
//! subscripts over pointers, and nests of files without `#pragma scop`.

use commute_loops::frontend::{
    list_nests, read_kernel, read_nest, Combiner, Direction, Kernel, RegionKind, Variable,
};

fn wrap(body: &str) -> String {
    format!("static double A[64][64], B[64][64], x[64], y[64], s;\nvoid kernel(int n, double lo, double hi) {{\n  int i, j, k;\n#pragma scop\n{body}\n#pragma endscop\n}}\n")
}

fn read(body: &str) -> Kernel {
    read_kernel("kernel.c", &wrap(body)).unwrap_or_else(|e| panic!("{e}"))
}

fn error(body: &str) -> String {
    read_kernel("kernel.c", &wrap(body))
        .expect_err("refused")
        .to_string()
}

/// Each statement's guards, written `g >= 0`.
fn guards(kernel: &Kernel) -> Vec<Vec<String>> {
    kernel
        .statements
        .iter()
        .map(|s| s.guards.iter().map(|g| g.display(kernel)).collect())
        .collect()
}

/// Each statement's update: its combiner, whether it subtracts, its
/// operand.
fn updates(kernel: &Kernel) -> Vec<Option<(Combiner, bool, &str)>> {
    kernel
        .statements
        .iter()
        .map(|s| {
            s.update
                .as_ref()
                .map(|u| (u.combiner, u.negated, u.operand.as_str()))
        })
        .collect()
}

fn codes(kernel: &Kernel) -> Vec<&str> {
    kernel.statements.iter().map(|s| s.code.as_str()).collect()
}

#[test]
fn an_affine_condition_is_part_of_the_domain() {
    let kernel = read("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      if (j > i && i + 1 < n) A[i][j] = B[j][i];");
    // i + 1 < n follows from i < j < n.
    assert_eq!(guards(&kernel), [vec!["-i + j - 1"]]);
    assert_eq!(codes(&kernel), ["A[i][j] = B[j][i];"]);
    assert_eq!(
        kernel.statements[0].reads.len(),
        1,
        "the condition reads nothing"
    );
}

#[test]
fn conditions_the_bounds_imply_are_dropped_and_empty_pieces_too() {
    // j >= i + 1 >= 1 implies j - 1 >= 0; the else of it never runs.
    let kernel = read("  for (i = 0; i < n; i++)\n    for (j = i + 1; j < n; j++) {\n      if (j - 1 >= 0) A[i][j] = 1.0;\n      else A[i][j] = 2.0;\n    }");
    assert_eq!(kernel.statements.len(), 1);
    assert!(kernel.statements[0].guards.is_empty());
}

#[test]
fn an_else_of_a_conjunction_is_one_statement_per_disjoint_piece() {
    let kernel = read(
        "  for (i = 0; i < n; i++)\n    if (i > 2 && i < 7) x[i] = 1.0;\n    else x[i] = 2.0;",
    );
    assert_eq!(
        codes(&kernel),
        ["x[i] = 1.0;", "x[i] = 2.0;", "x[i] = 2.0;"]
    );
    assert_eq!(
        guards(&kernel),
        [vec!["i - 3", "-i + 6"], vec!["-i + 2"], vec!["i - 7"]]
    );
    // The pieces of one C statement share its span.
    assert_eq!(kernel.statements[1].span, kernel.statements[2].span);
}

#[test]
fn not_equal_and_or_split_into_pieces_and_nested_ifs_combine() {
    let kernel = read("  for (i = 0; i < n; i++) {\n    if (i != 3) x[i] = 1.0;\n    if (i == 0 || i == n - 1) y[i] = 0.0;\n    if (i >= 1) {\n      if (i <= 4) A[i][0] = 1.0;\n      else if (i == 5) A[i][1] = 1.0;\n    }\n  }");
    let g = guards(&kernel);
    assert_eq!(g[0], ["-i + 2"]);
    assert_eq!(g[1], ["i - 4"]);
    // i == 0, then i != 0 && i == n - 1.
    assert_eq!(g[2], ["-i"]);
    assert_eq!(g[3].len(), 2);
    assert_eq!(g[4], ["i - 1", "-i + 4"]);
    assert_eq!(g[5], ["-i + 5", "i - 5"]);
}

#[test]
fn a_condition_that_reads_values_stays_code_around_its_statement() {
    let kernel = read("  for (i = 1; i < n; i++)\n    if (i > 3 && x[i - 1] > s) y[i] = x[i];");
    let statement = &kernel.statements[0];
    assert_eq!(guards(&kernel), [vec!["i - 4"]]);
    assert_eq!(statement.code, "if (x[i - 1] > s) y[i] = x[i];");
    let reads: Vec<String> = statement
        .reads
        .iter()
        .map(|a| {
            let subscripts: Vec<String> = a.subscripts.iter().map(|s| s.display(&kernel)).collect();
            format!("{}{:?}", a.name, subscripts)
        })
        .collect();
    // The target may keep its value: it is read too.
    assert_eq!(reads, ["x[\"i\"]", "x[\"i - 1\"]", "s[]", "y[\"i\"]"]);
}

#[test]
fn a_test_of_values_guarding_what_changes_it_is_refused_unless_one_assignment() {
    let message = error("  for (i = 0; i < n; i++)\n    if (x[i] > 0.0) {\n      x[i] = 0.0;\n      y[i] = 1.0;\n    }");
    assert!(
        message.contains("kernel.c:6:8: condition that reads values: `(x[i] > 0.0)` reads `x`"),
        "{message}"
    );
    let kernel = read("  for (i = 0; i < n; i++)\n    if (x[i] > 0.0) x[i] = 0.0;");
    assert_eq!(codes(&kernel), ["if (x[i] > 0.0) x[i] = 0.0;"]);
}

#[test]
fn a_clamp_chain_on_one_target_is_one_statement() {
    let kernel = read("  for (i = 0; i < n; i++)\n    if (x[i] < lo) x[i] = lo;\n    else if (x[i] > hi) x[i] = hi;");
    assert_eq!(kernel.statements.len(), 1);
    assert!(kernel.statements[0]
        .code
        .starts_with("if (x[i] < lo) x[i] = lo;"));
    assert_eq!(kernel.statements[0].write.name, "x");
}

#[test]
fn loops_counting_down_are_counters_counting_up() {
    let kernel = read("  for (i = n - 1; i >= 0; i--)\n    for (j = i + 1; j < n; j++)\n      for (k = j; k > i; k -= 1)\n        A[i][k] = A[j][k];\n  for (t = 10; t > 2; --t)\n    x[t] = 0.0;");
    let [i, j, k, t] = &kernel.loops[..] else {
        panic!("four loops")
    };
    let Direction::Down { first } = &i.direction else {
        panic!("i counts down")
    };
    assert_eq!(first.display(&kernel), "n - 1");
    assert_eq!(
        (i.lower.display(&kernel), i.upper.display(&kernel)),
        ("0".to_string(), "n".to_string())
    );
    assert_eq!(j.direction, Direction::Up);
    assert_eq!(
        j.lower.display(&kernel),
        "i + 1",
        "bounds read the iterator"
    );
    assert!(k.is_down());
    // k from j down to i + 1: j - i iterations.
    assert_eq!(k.upper.display(&kernel), "-i + j");
    assert_eq!(t.upper.as_constant(), Some(8));
    // Subscripts are affine in the counters: A[i][k] with i = n - 1 - i'.
    let write = &kernel.statements[0].write;
    let counter = Variable::Iterator(commute_loops::frontend::LoopId(0));
    assert_eq!(write.subscripts[0].coefficient(counter), -1);
    assert_eq!(write.subscripts[0].display(&kernel), "i");
}

#[test]
fn loops_stepping_by_a_constant_are_counters_of_their_steps() {
    let kernel = read("  for (i = 1; i < n; i += 2)\n    for (j = 0; j < 10; j = j + 3)\n      A[i][j] = B[i - 1][j];\n  for (k = n - 1; k >= 0; k -= 4)\n    x[k] = y[k];");
    let [i, j, k] = &kernel.loops[..] else {
        panic!("three loops")
    };
    assert!(matches!(i.direction, Direction::Strided { step: 2, .. }));
    // `ceil((n - 1) / 2)` steps: a symbolic constant of its own, named as
    // the division would be written in C.
    assert_eq!(i.upper.display(&kernel), "(n/2)");
    assert_eq!(kernel.params, ["n", "(n/2)", "((n+3)/4)"]);
    // 0, 3, 6, 9: four steps, a constant.
    assert_eq!(j.upper.as_constant(), Some(4));
    let Direction::Strided { first, step: -4 } = &k.direction else {
        panic!("k steps down by 4")
    };
    assert_eq!(first.display(&kernel), "n - 1");
    assert_eq!(k.upper.display(&kernel), "((n+3)/4)");
    // Subscripts read the counters: A[1 + 2 i'][3 j'], B[2 i'][3 j'].
    let statement = &kernel.statements[0];
    let [row, column] = &statement.write.subscripts[..] else {
        panic!("two subscripts")
    };
    assert_eq!(
        (row.display(&kernel), column.display(&kernel)),
        ("2*i' + 1".to_string(), "3*j'".to_string())
    );
    assert_eq!(statement.reads[0].subscripts[0].display(&kernel), "2*i'");
    assert_eq!(
        kernel.statements[1].write.subscripts[0].display(&kernel),
        "-4*k' + n - 1"
    );
    // Steps whose count depends on an enclosing loop, or that are not
    // constants, are refused.
    assert!(
        error("  for (i = 0; i < n; i++)\n    for (j = i; j < n; j += 2)\n      A[i][j] = 0.0;")
            .contains("loop bound: a loop stepping by 2 must run a number of iterations that no enclosing loop changes"),
    );
    assert!(error("  for (i = 0; i < n; i += k)\n    x[i] = 0.0;")
        .contains("loop increment: `i += k`: only steps by an integer constant"));
    assert!(error("  for (i = 0; i < n; i -= 2)\n    x[i] = 0.0;").contains("goes the other way"));
}

#[test]
fn quotients_of_symbolic_constants_are_symbolic_constants() {
    let kernel = read("  for (i = 0; i < n / 2; i++)\n    x[i + n/2] = x[i] + y[(n + 1) % 4];");
    assert_eq!(kernel.params, ["(n/2)", "((n+1)%4)"]);
    assert_eq!(kernel.loops[0].upper.display(&kernel), "(n/2)");
    assert_eq!(
        kernel.statements[0].write.subscripts[0].display(&kernel),
        "i + (n/2)"
    );
    // A quotient of what the nest changes is no constant.
    assert!(error("  for (i = 0; i < n; i++)\n    x[i/2] = 0.0;")
        .contains("`i/2` is not affine: operator `/` of the loop iterator `i`"));
    assert!(
        error("  for (i = 0; i < n; i++) {\n    k = i;\n    x[n/k] = 0.0;\n  }")
            .contains("`n/k` is not affine: operator `/` of `k`, which the loop nest assigns")
    );
}

#[test]
fn arrays_the_nest_does_not_write_are_read_at_computed_subscripts() {
    let kernel = read("  for (i = 0; i < n; i++) {\n    s += x[i] * y[col[i]];\n    for (j = 0; j < n; j++)\n      A[i][j] = B[i][cols[i][j]] + B[j / 2][i];\n  }");
    let gathers: Vec<(&str, &str)> = kernel
        .gathers
        .iter()
        .map(|g| (g.name.as_str(), &kernel.source[g.span.clone()]))
        .collect();
    assert_eq!(
        gathers,
        [
            ("y", "y[col[i]]"),
            ("B", "B[i][cols[i][j]]"),
            ("B", "B[j / 2][i]")
        ]
    );
    // What their subscripts read are the statements' reads; the arrays
    // gathered from are no accesses, and the code is as written.
    let reads: Vec<Vec<&str>> = kernel
        .statements
        .iter()
        .map(|s| s.reads.iter().map(|a| a.name.as_str()).collect())
        .collect();
    assert_eq!(reads, [vec!["s", "x", "col"], vec!["cols"]]);
    assert_eq!(
        codes(&kernel),
        [
            "s += x[i] * y[col[i]];",
            "A[i][j] = B[i][cols[i][j]] + B[j / 2][i];"
        ]
    );
    // An array the nest writes, or may write through a pointer without
    // `restrict`, is read at affine subscripts only.
    let message = error("  for (i = 1; i < n; i++)\n    x[i] = x[col[i]] + 1.0;");
    assert!(
        message.contains("kernel.c:6:14: array subscript: `col[i]` is not affine: only integers, loop iterators, symbolic constants, `+`, `-` and products; an array is read at such a subscript only if the loop nest does not write it, and it writes `x`"),
        "{message}"
    );
    let message = pointers("  for (i = 0; i < n; i++)\n    d[i] = x[i * i];").expect_err("refused");
    assert!(
        message.contains("mm.c:5:12: array subscript: `x[i * i]` reads `x` at a subscript that is not affine, and `x` may share memory with `d`, which the loop nest writes (a pointer without `restrict`)"),
        "{message}"
    );
    // The index is read as any other element: a gather reading what the
    // nest writes depends on it.
    let kernel = read("  for (i = 0; i < n; i++) {\n    k = i * i;\n    x[i] = y[k];\n  }");
    assert_eq!(kernel.gathers.len(), 1);
    assert!(kernel.statements[1].reads.iter().any(|a| a.name == "k"));
}

#[test]
fn integer_scalars_assigned_an_affine_value_are_read_as_it() {
    let kernel = read("  for (i = 0; i < n - 1; i++) {\n    k = i + 1;\n    x[i] = x[k] + k;\n    for (j = 0; j < k; j++) {\n      int at = k * 64 + j;\n      y[at - 64] += A[i][j];\n    }\n  }");
    let subscripts: Vec<String> = kernel
        .statements
        .iter()
        .flat_map(|s| std::iter::once(&s.write).chain(&s.reads))
        .filter(|a| !a.subscripts.is_empty())
        .map(|a| {
            format!(
                "{}[{}]",
                a.name,
                a.subscripts
                    .iter()
                    .map(|x| x.display(&kernel))
                    .collect::<Vec<_>>()
                    .join("][")
            )
        })
        .collect();
    assert_eq!(
        subscripts,
        ["x[i]", "x[i + 1]", "y[64*i + j]", "y[64*i + j]", "A[i][j]"]
    );
    assert_eq!(
        codes(&kernel),
        [
            "k = i + 1;",
            "x[i] = x[(i + 1)] + (i + 1);",
            "at = (i + 1) * 64 + j;",
            "y[((i + 1) * 64 + j) - 64] += A[i][j];"
        ]
    );
    // The statements that read the value read no scalar: only its own
    // assignment writes it.
    assert!(kernel.statements[1].reads.iter().all(|r| r.name != "k"));
    // Not known: a value assigned under a condition, or past the block
    // that assigned it, or of a scalar that is no integer.
    assert!(
        error("  for (i = 0; i < n; i++) {\n    if (i > 2) k = i;\n    x[k] = 0.0;\n  }")
            .contains("assignment to a symbolic constant: `k`")
    );
    assert!(error("  for (i = 0; i < n; i++) {\n    for (j = 0; j < n; j++)\n      k = j;\n    x[k] = 0.0;\n  }")
        .contains("assignment to a symbolic constant: `k`"));
    assert!(
        error("  for (i = 0; i < n; i++) {\n    s = i;\n    x[(int)s] = 0.0;\n  }")
            .contains("array subscript")
    );
}

#[test]
fn a_value_kept_when_larger_or_smaller_is_an_extremum_update() {
    let kernel = read("  for (i = 0; i < n; i++) {\n    if (x[i] > s) s = x[i];\n    if ((y[i]) <= s) { s = y[i]; }\n    if (s < A[i][0]) s = A[i][0];\n  }");
    assert_eq!(
        updates(&kernel),
        [
            Some((Combiner::Max, false, "x[i]")),
            Some((Combiner::Min, false, "y[i]")),
            Some((Combiner::Max, false, "A[i][0]")),
        ]
    );
    // Each reads the target once (the test and the assignment are one
    // read), so it is a reduction.
    assert!((0..3).all(|s| kernel
        .reduction(commute_loops::frontend::StatementId(s))
        .is_some()));
    // Not an extremum: another value assigned, an `else`, another
    // operator.
    for body in [
        "  for (i = 0; i < n; i++)\n    if (x[i] > s) s = y[i];",
        "  for (i = 0; i < n; i++)\n    if (x[i] > s) s = x[i]; else s = 0.0;",
        "  for (i = 0; i < n; i++)\n    if (x[i] > s) s += x[i];",
        "  for (i = 0; i < n; i++)\n    if (x[i] != s) s = x[i];",
    ] {
        assert!(
            read(body).statements.iter().all(|s| s.update.is_none()),
            "{body}"
        );
    }
}

#[test]
fn increments_and_sums_of_several_terms_are_updates() {
    let kernel = read("  for (i = 0; i < n; i++) {\n    s = s + A[i][0] * B[i][0] - x[i] + y[i];\n    x[i]++;\n    --y[i];\n  }");
    assert_eq!(
        updates(&kernel),
        [
            Some((Combiner::Sum, false, "A[i][0] * B[i][0] - x[i] + y[i]")),
            Some((Combiner::Sum, false, "1")),
            Some((Combiner::Sum, true, "1")),
        ]
    );
    assert_eq!(codes(&kernel)[1..], ["x[i]++;", "--y[i];"]);
    // The sum must be the whole right-hand side, its target added once.
    let whole = read("  for (i = 0; i < n; i++)\n    s = s + x[i] > 0 ? s : y[i];");
    assert!(whole.statements[0].update.is_none());
    let subtracted = read("  for (i = 0; i < n; i++)\n    s = x[i] - s + y[i];");
    assert!(subtracted.statements[0].update.is_none());
}

#[test]
fn conditional_expressions_read_both_branches_and_the_condition() {
    let kernel = read("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      A[i][j] = A[i][j] < A[i][0] + B[0][j] ? A[i][j] : A[i][0] + B[0][j];");
    let names: Vec<&str> = kernel.statements[0]
        .reads
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, ["A", "A", "B", "A", "A", "B"]);
}

#[test]
fn chained_assignments_are_statements_in_the_order_they_run() {
    let kernel = read("  s = 2.0;\n  x[0] = x[1] = s;\n  for (i = 0; i < n; i++)\n    y[i] += x[0];\n  x[2] = y[0];");
    assert_eq!(
        codes(&kernel),
        [
            "s = 2.0;",
            "x[1] = s;",
            "x[0] = x[1];",
            "y[i] += x[0];",
            "x[2] = y[0];"
        ]
    );
    // Straight-line code before and after the loop: statements outside
    // every loop.
    let depths: Vec<usize> = kernel.statements.iter().map(|s| s.loops.len()).collect();
    assert_eq!(depths, [0, 0, 0, 1, 0]);
    assert!(
        kernel.textual_position(commute_loops::frontend::StatementId(1))
            < kernel.textual_position(commute_loops::frontend::StatementId(2))
    );
}

#[test]
fn scalars_declared_in_the_nest_are_assignments_of_one_variable() {
    let kernel = read("  for (i = 0; i < n; i++) {\n    const double t = x[i] * 2.0, u = t;\n    double v;\n    v = t + u;\n    y[i] = v;\n  }");
    assert_eq!(
        codes(&kernel),
        ["t = x[i] * 2.0;", "u = t;", "v = t + u;", "y[i] = v;"]
    );
    let locals: Vec<(String, String, bool)> = kernel
        .locals
        .iter()
        .map(|l| (l.name.clone(), l.type_name.clone(), l.top_level))
        .collect();
    assert_eq!(
        locals,
        [
            ("t".into(), "double".into(), false),
            ("u".into(), "double".into(), false),
            ("v".into(), "double".into(), false)
        ]
    );
    // At the region's top level, the declaration's scope goes on after it.
    let kernel = read("  double total = 0.0;\n  for (i = 0; i < n; i++)\n    total += x[i];");
    assert!(kernel.locals[0].top_level);
}

#[test]
fn declarations_that_cannot_be_one_scalar_are_refused_with_a_hint() {
    let cases = [
        ("  for (i = 0; i < n; i++) {\n    double row[4];\n    row[0] = x[i];\n  }", "kernel.c:6:12: declaration: `row[4]`: only scalars"),
        ("  for (i = 0; i < n; i++) {\n    double *p = &x[i];\n  }", "declaration: `*p = &x[i]`: only scalars"),
        ("  for (i = 0; i < n; i++) {\n    static double c = 0.0;\n    x[i] = c;\n  }", "a `static` declaration"),
        ("  for (i = 0; i < n; i++) {\n    double t = x[i];\n    y[i] = t;\n  }\n  for (j = 0; j < n; j++)\n    t = y[j];", "scalar used outside its block: `t` is declared inside the loop nest (line 6)"),
        ("  for (i = 0; i < n; i++) {\n    double t = x[i];\n    y[i] = t;\n  }\n  for (j = 0; j < n; j++) {\n    int t = 2;\n    y[j] = t;\n  }", "`t` is declared as `double` and as `int`"),
    ];
    for (body, expected) in cases {
        let message = error(body);
        assert!(message.contains(expected), "{body:?}: {message}");
    }
}

const POINTERS: &str = "void mm(int n, int m, const double *restrict a, const double *restrict b, double *restrict c, double *d, double **rows) {\n  int i, j, k;\n#pragma scop\nBODY\n#pragma endscop\n}\n";

fn pointers(body: &str) -> Result<Kernel, String> {
    read_kernel("mm.c", &POINTERS.replace("BODY", body)).map_err(|e| e.to_string())
}

#[test]
fn linearized_subscripts_split_where_the_bounds_prove_it() {
    let kernel = pointers("  for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)\n      for (k = 0; k < n; k++)\n        c[i * m + j] += a[i * n + k] * b[(k * m) + j];").expect("reads");
    let statement = &kernel.statements[0];
    let shown: Vec<Vec<String>> = std::iter::once(&statement.write)
        .chain(&statement.reads)
        .map(|a| a.subscripts.iter().map(|s| s.display(&kernel)).collect())
        .collect();
    assert_eq!(shown, [["i", "j"], ["i", "j"], ["i", "k"], ["k", "j"]]);
    let sizes: Vec<(String, Vec<&str>)> = kernel
        .linearized
        .iter()
        .map(|l| {
            (
                l.name.clone(),
                l.sizes.iter().map(|&p| kernel.params[p].as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        sizes,
        [
            ("a".to_string(), vec!["n"]),
            ("b".to_string(), vec!["m"]),
            ("c".to_string(), vec!["m"])
        ]
    );
    assert!(kernel.aliasing.is_empty(), "restrict pointers are distinct");
}

#[test]
fn linearized_subscripts_that_do_not_split_are_refused_naming_them() {
    let message = pointers(
        "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      c[i * n + j - 1] = 0.0;",
    )
    .expect_err("refused");
    assert!(
        message.contains("mm.c:6:9: array subscript: `i * n + j - 1` is not affine and does not split into dimensions: the loop bounds do not prove 0 <= j - 1 < n"),
        "{message}"
    );
    let message = pointers("  for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++) {\n      c[i * m + j] = 0.0;\n      c[j * n + i] = 1.0;\n    }").expect_err("refused");
    assert!(
        message.contains("splits `c` into rows of other sizes"),
        "{message}"
    );
    let message =
        pointers("  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      rows[i][j] = 0.0;")
            .expect_err("refused");
    assert!(message.contains("pointer to pointers"), "{message}");
}

#[test]
fn pointers_without_restrict_may_alias_every_other_array() {
    let kernel = pointers("  for (i = 0; i < n; i++)\n    d[i] = c[i] + x[i];").expect("reads");
    assert_eq!(
        kernel.aliasing,
        [("d".to_string(), "x".to_string())],
        "c is restrict, x an array a plain pointer may point into"
    );
    assert!(kernel.may_alias("x", "d") && !kernel.may_alias("c", "d"));
}

const PLAIN: &str = "#include <stdlib.h>\nstatic void scale(int n, double *restrict v, double f) {\n  for (int i = 0; i < n; i++)\n    v[i] *= f;\n}\nstatic void fill(int n, double *v) {\n  for (int i = 0; i < n; i++)\n    printf(\"%f\", v[i]);\n  for (int i = 0; i < n; i++) {\n    v[i] = 1.0;\n  }\n}\nint main(void) {\n  double v[8];\n  fill(8, v);\n  scale(8, v, 2.0);\n  return 0;\n}\n";

#[test]
fn files_without_a_region_list_their_nests_and_one_is_picked() {
    let nests = list_nests("plain.c", PLAIN).expect("parses");
    let described: Vec<String> = nests.iter().map(|n| n.describe()).collect();
    assert_eq!(
        described,
        [
            "scale, line 3: depth 1, 1 statement",
            "fill, line 7: not read: line 8, column 5: function call: not supported inside the loop nest: only `for` loops, `if` statements, scalar declarations and assignments are",
            "fill, line 9: depth 1, 1 statement"
        ]
    );
    let message = read_kernel("plain.c", PLAIN)
        .expect_err("several")
        .to_string();
    assert!(message.contains("several loop nests"), "{message}");
    assert!(message.contains("--nest FUNCTION"), "{message}");
    let kernel = read_nest("plain.c", PLAIN, Some("scale")).expect("by function");
    assert_eq!(
        kernel.region_kind,
        RegionKind::Nest {
            function: "scale".into()
        }
    );
    assert_eq!(
        &PLAIN[kernel.region.clone()],
        "for (int i = 0; i < n; i++)\n    v[i] *= f;"
    );
    // `fill` has one readable nest; a line inside the other picks it.
    let kernel = read_nest("plain.c", PLAIN, Some("fill")).expect("the readable one");
    assert_eq!(kernel.line_column(kernel.region.start).0, 9);
    let kernel = read_nest("plain.c", PLAIN, Some("10")).expect("by line");
    assert_eq!(kernel.line_column(kernel.region.start).0, 9);
    let message = read_nest("plain.c", PLAIN, Some("8"))
        .expect_err("unreadable")
        .to_string();
    assert!(message.contains("function call"), "{message}");
    let message = read_nest("plain.c", PLAIN, Some("main"))
        .expect_err("no nest")
        .to_string();
    assert!(message.contains("no such loop nest"), "{message}");
}

/// A timing loop calling a function around a kernel, as benchmark suites
/// write them: the loop does not read, the nests inside it do.
const TIMED: &str = "void observe(double *a);\nvoid kernel(int n, int reps, double a[n][n]) {\n  for (int r = 0; r < reps; r++) {\n    for (int i = 0; i < n; i++)\n      for (int j = 0; j < n; j++)\n        a[i][j] = a[i][j] * 0.5 + r;\n    for (int t = 0; t < 2; t++) {\n      observe(&a[0][0]);\n      for (int i = 1; i < n; i++)\n        a[i][0] += a[i - 1][0];\n    }\n    observe(&a[0][0]);\n  }\n}\n";

#[test]
fn nests_inside_a_loop_that_does_not_read_are_listed_and_picked() {
    let nests = list_nests("timed.c", TIMED).expect("parses");
    let described: Vec<String> = nests.iter().map(|n| n.describe()).collect();
    assert_eq!(
        described,
        [
            "kernel, line 3: not read: line 8, column 7: function call: not supported inside the loop nest: only `for` loops, `if` statements, scalar declarations and assignments are",
            "kernel, line 4 (in the loop of line 3): depth 2, 1 statement",
            "kernel, line 7 (in the loop of line 3): not read: line 8, column 7: function call: not supported inside the loop nest: only `for` loops, `if` statements, scalar declarations and assignments are",
            "kernel, line 9 (in the loop of line 7): depth 1, 1 statement",
        ]
    );
    // The enclosing counter is a value the nest reads, fixed while it runs.
    let kernel = read_nest("timed.c", TIMED, Some("5")).expect("by a line inside it");
    assert_eq!(kernel.line_column(kernel.region.start).0, 4);
    assert_eq!(kernel.loops.len(), 2);
    let kernel = read_nest("timed.c", TIMED, Some("10")).expect("two levels down");
    assert_eq!(kernel.line_column(kernel.region.start).0, 9);
    let message = read_nest("timed.c", TIMED, Some("kernel"))
        .expect_err("two readable nests")
        .to_string();
    assert!(message.contains("give `--nest LINE`"), "{message}");
}
