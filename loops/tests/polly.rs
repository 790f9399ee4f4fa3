//! Polly's schedule read as decisions: hand-written JSCoP exports of
//! kernels with known schedules (interchange, tiling, fusion,
//! distribution) give the expected loop nests, and what the space cannot
//! express (a skew, a statement Polly does not have) is listed.

use commute_loops::frontend::read_kernel;
use commute_loops::lowering::schedule::Schedule;
use commute_loops::polly::{read_jscop, starts, translate, PollyRegion, Translation};
use commute_loops::space::host::KernelHost;
use commute_loops::space::{Backbone, LoopCandidate};
use commute_runtime::Candidate;

/// The kernel of `body` (statements between `#pragma scop` and
/// `#pragma endscop` over 64-element arrays) and its root.
fn kernel(body: &str) -> (KernelHost, LoopCandidate) {
    let source = format!(
        "double A[64][64], B[64][64], C[64][64], x[64], y[64], z[64];\nvoid kernel(void) {{\n  int i, j;\n#pragma scop\n{body}\n#pragma endscop\n}}\n"
    );
    let host = KernelHost::new(read_kernel("kernel.c", &source).expect("the kernel reads"));
    let root = Candidate::new_explained(Backbone(host.clone())).expect("a root");
    (host, root)
}

/// A JSCoP file of statements `(name, domain dimensions, schedule, array
/// written)`; the array is written at `[i0]` unless its subscript is given
/// (`MemRef1[64i0 + i1]`).
fn jscop(statements: &[(&str, usize, &str, &str)]) -> PollyRegion {
    jscop_file("kernel___r.jscop", statements)
}

/// [`jscop`], the file named `file`.
fn jscop_file(file: &str, statements: &[(&str, usize, &str, &str)]) -> PollyRegion {
    let statements: Vec<String> = statements
        .iter()
        .map(|(name, depth, schedule, array)| {
            let inputs: Vec<String> = (0..*depth).map(|d| format!("i{d}")).collect();
            let bounds: Vec<String> = inputs.iter().map(|i| format!("0 <= {i} <= 63")).collect();
            format!(
                r#"{{ "name": "{name}", "domain": "{{ {name}[{ins}] : {bounds} }}",
                     "schedule": "{schedule}",
                     "accesses": [ {{ "kind": "write", "relation": "{{ {name}[{ins}] -> {element} }}" }} ] }}"#,
                ins = inputs.join(", "),
                bounds = bounds.join(" and "),
                element = if array.contains('[') {
                    array.to_string()
                } else {
                    format!("{array}[i0]")
                },
            )
        })
        .collect();
    let text = format!(
        r#"{{ "context": "{{  :  }}", "name": "r", "arrays": [], "statements": [ {} ] }}"#,
        statements.join(", ")
    );
    read_jscop(file, &text).expect("the JSCoP file reads")
}

/// The loop nest of Polly's start (the other decisions as in the
/// original program), one loop per line.
fn start_outline(host: &KernelHost, translation: &Translation) -> String {
    let leaves = starts(host, translation, 1).expect("a start");
    let schedule = Schedule::from_candidate(host, &leaves[0]).expect("a loop tree");
    schedule.outline(host.kernel())
}

#[test]
fn an_interchange_puts_the_inner_loop_outside() {
    let (host, root) = kernel(
        "for (i = 0; i < 64; i++)\n  for (j = 0; j < 64; j++)\n    A[i][j] = B[j][i] + 1.0;",
    );
    let region = jscop(&[("Stmt0", 2, "{ Stmt0[i0, i1] -> [i1, i0] }", "MemRef_A")]);
    let translation = translate(&host, &root, &[region]);
    assert!(
        translation.untranslated.is_empty(),
        "{:?}",
        translation.untranslated
    );
    assert_eq!(translation.statements.len(), 1);
    let outline = start_outline(&host, &translation);
    let loops: Vec<&str> = outline.lines().map(str::trim).collect();
    assert_eq!(loops[0], "for j", "{outline}");
    assert_eq!(loops[1], "for i", "{outline}");
}

#[test]
fn a_nest_picked_in_a_function_matches_only_that_function_s_regions() {
    let source = "double A[64][64], B[64][64];\nvoid init(void) {\n  for (int i = 0; i < 64; i++)\n    for (int j = 0; j < 64; j++)\n      B[i][j] = 1.0;\n}\nvoid work(void) {\n  for (int i = 0; i < 64; i++)\n    for (int j = 0; j < 64; j++)\n      A[i][j] = B[j][i] + 1.0;\n}\n";
    let nest = commute_loops::frontend::read_nest("two.c", source, Some("work")).expect("reads");
    let host = KernelHost::new(nest);
    let root = Candidate::new_explained(Backbone(host.clone())).expect("a root");
    let interchange = |file| {
        jscop_file(
            file,
            &[("Stmt0", 2, "{ Stmt0[i0, i1] -> [i1, i0] }", "MemRef_A")],
        )
    };
    // The initialization's region, alike in shape, is another function's.
    let other = translate(
        &host,
        &root,
        &[interchange("init___%for.cond---%for.end.jscop")],
    );
    assert!(other.regions.is_empty());
    assert_eq!(
        other.untranslated,
        ["no region Polly optimized matches the nest's statements"]
    );
    let own = translate(
        &host,
        &root,
        &[interchange("work___%for.cond---%for.end.jscop")],
    );
    assert_eq!(own.regions, ["work___%for.cond---%for.end.jscop"]);
    assert!(start_outline(&host, &own).trim_start().starts_with("for j"));
}

#[test]
fn tiles_take_polly_s_sizes() {
    let (host, root) = kernel(
        "for (i = 0; i < 64; i++)\n  for (j = 0; j < 64; j++)\n    A[i][j] = A[i][j] * 2.0 + B[i][j];",
    );
    let region = jscop(&[(
        "Stmt0",
        2,
        "{ Stmt0[i0, i1] -> [o0, o1, i0 - 32o0, i1 - 16o1] : -31 + i0 <= 32o0 <= i0 and -15 + i1 <= 16o1 <= i1 }",
        "MemRef_A",
    )]);
    let translation = translate(&host, &root, &[region]);
    assert!(
        translation.untranslated.is_empty(),
        "{:?}",
        translation.untranslated
    );
    let outline = start_outline(&host, &translation);
    let loops: Vec<&str> = outline.lines().map(str::trim).collect();
    assert_eq!(
        &loops[..4],
        [
            "for i tiles of 32",
            "for j tiles of 16",
            "for i within a tile of 32",
            "for j within a tile of 16"
        ],
        "{outline}"
    );
}

#[test]
fn equal_prefixes_fuse_and_different_constants_distribute() {
    // Two loops Polly fuses.
    let (host, root) = kernel(
        "for (i = 0; i < 64; i++)\n  x[i] = y[i] * 2.0;\nfor (j = 0; j < 64; j++)\n  z[j] = x[j] + 1.0;",
    );
    let region = jscop(&[
        ("Stmt0", 1, "{ Stmt0[i0] -> [i0, 0] }", "MemRef_x"),
        ("Stmt1", 1, "{ Stmt1[i0] -> [i0, 1] }", "MemRef_z"),
    ]);
    let translation = translate(&host, &root, &[region]);
    assert!(
        translation.untranslated.is_empty(),
        "{:?}",
        translation.untranslated
    );
    let outline = start_outline(&host, &translation);
    assert_eq!(outline.matches("for ").count(), 1, "{outline}");
    let (first, second) = (
        outline.find("x[i]").expect("S0"),
        outline.find("z[").expect("S1"),
    );
    assert!(first < second, "{outline}");

    // One loop Polly distributes, the second statement first.
    let (host, root) =
        kernel("for (i = 0; i < 64; i++) {\n  x[i] = y[i] * 2.0;\n  z[i] = y[i] + 1.0;\n}");
    let region = jscop(&[
        ("Stmt0", 1, "{ Stmt0[i0] -> [1, i0] }", "MemRef_x"),
        ("Stmt1", 1, "{ Stmt1[i0] -> [0, i0] }", "MemRef_z"),
    ]);
    let translation = translate(&host, &root, &[region]);
    assert!(
        translation.untranslated.is_empty(),
        "{:?}",
        translation.untranslated
    );
    let outline = start_outline(&host, &translation);
    assert_eq!(outline.matches("for ").count(), 2, "{outline}");
    assert!(
        outline.find("z[i]").unwrap() < outline.find("x[i]").unwrap(),
        "{outline}"
    );
}

#[test]
fn a_nest_polly_splits_into_regions_is_read_from_each() {
    // Polly models neither the call to `sqrt` nor what follows it in the
    // same loop: the nest is two regions, with the loop between them in
    // none; each alone holds less than half the nest.
    let (host, root) = kernel(
        "for (i = 0; i < 64; i++)\n  x[i] = y[i] * 2.0;\nfor (i = 0; i < 64; i++)\n  z[i] = sqrt(x[i]);\nfor (i = 0; i < 64; i++)\n  for (j = 0; j < 64; j++)\n    A[i][j] = B[j][i] + z[i];",
    );
    let first = jscop_file(
        "kernel___a.jscop",
        &[("Stmt0", 1, "{ Stmt0[i0] -> [i0] }", "MemRef0")],
    );
    // The last nest interchanged, its array linearized.
    let last = jscop_file(
        "kernel___b.jscop",
        &[(
            "Stmt0",
            2,
            "{ Stmt0[i0, i1] -> [i1, i0] }",
            "MemRef1[64i0 + i1]",
        )],
    );
    let translation = translate(&host, &root, &[last.clone(), first.clone()]);
    assert_eq!(
        translation.regions,
        ["kernel___a.jscop", "kernel___b.jscop"],
        "{:?}",
        translation.untranslated
    );
    assert_eq!(
        translation.untranslated,
        ["S1: no statement of Polly's region matches it; its decisions are left to the search"]
    );
    let outline = start_outline(&host, &translation);
    let loops: Vec<&str> = outline
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("for"))
        .collect();
    assert_eq!(loops, ["for i", "for i", "for j", "for i"], "{outline}");

    // A region whose statement writes along other loops than the nest's
    // (a row of `A` per `i`, not an element per `i` and `j`) stands for
    // none of them: the other alone holds too little.
    let rows = jscop_file(
        "kernel___b.jscop",
        &[("Stmt0", 2, "{ Stmt0[i0, i1] -> [i1, i0] }", "MemRef1[64i0]")],
    );
    let translation = translate(&host, &root, &[rows, first.clone()]);
    assert!(translation.regions.is_empty(), "{:?}", translation.regions);

    // Nor does a part that names two of the nest's arrays alike.
    let (host, root) = kernel(
        "for (i = 0; i < 64; i++)\n  x[i] = y[i] * 2.0;\nfor (i = 0; i < 64; i++)\n  z[i] = y[i] + 1.0;\nfor (i = 0; i < 64; i++)\n  y[i] = sqrt(x[i]);\nfor (i = 0; i < 64; i++)\n  A[i][0] = sqrt(z[i]);\nfor (i = 0; i < 64; i++)\n  B[i][0] = sqrt(y[i]);",
    );
    let same = jscop_file(
        "kernel___a.jscop",
        &[
            ("Stmt0", 1, "{ Stmt0[i0] -> [0, i0] }", "MemRef0"),
            ("Stmt1", 1, "{ Stmt1[i0] -> [1, i0] }", "MemRef0"),
        ],
    );
    let translation = translate(&host, &root, &[same]);
    assert!(translation.regions.is_empty(), "{:?}", translation.regions);
}

#[test]
fn what_does_not_map_is_listed() {
    let (host, root) = kernel(
        "for (i = 0; i < 64; i++)\n  for (j = 0; j < 64; j++)\n    A[i][j] = B[i][j] + 1.0;\nfor (i = 0; i < 64; i++)\n  x[i] = y[i];",
    );
    // A skewed schedule for the first statement; none for the second.
    let region = jscop(&[("Stmt0", 2, "{ Stmt0[i0, i1] -> [i0, i0 + i1] }", "MemRef_A")]);
    let translation = translate(&host, &root, &[region]);
    let lines = translation.untranslated.join("\n");
    assert!(
        lines.contains("`i0 + i1`") && lines.contains("skew"),
        "{lines}"
    );
    assert!(
        lines.contains("S1: no statement of Polly's region matches it"),
        "{lines}"
    );
    // What did translate (the outer loop) still gives a start.
    assert_eq!(
        start_outline(&host, &translation)
            .lines()
            .next()
            .map(str::trim),
        Some("for i")
    );

    // A region with a parameter that holds only one of the two statements
    // (at the depth of the other's inner loop): the inside of a loop of
    // the nest, not the nest.
    let inner = read_jscop(
        "kernel___inner.jscop",
        r#"{ "context": "[p_0] -> { : 0 <= p_0 <= 63 }", "name": "r", "arrays": [], "statements": [
             { "name": "Stmt0", "domain": "[p_0] -> { Stmt0[i0] : 0 <= i0 <= 63 }",
               "schedule": "[p_0] -> { Stmt0[i0] -> [i0] }",
               "accesses": [ { "kind": "write", "relation": "[p_0] -> { Stmt0[i0] -> MemRef_A[64p_0 + i0] }" } ] } ] }"#,
    )
    .expect("the JSCoP file reads");
    assert_eq!(inner.parameters, ["p_0"]);
    let translation = translate(&host, &root, &[inner]);
    assert!(translation.regions.is_empty());
    assert!(
        translation.untranslated[0].contains("holds 1 of its 2 statements"),
        "{:?}",
        translation.untranslated
    );

    // No region at all.
    let translation = translate(&host, &root, &[]);
    assert!(translation.regions.is_empty());
    assert!(
        translation.untranslated[0].contains("no region"),
        "{:?}",
        translation.untranslated
    );
}

#[test]
fn the_parallel_start_runs_the_outermost_loop_the_dependences_allow_in_parallel() {
    // `i` carries a dependence (A[i - 1]), `j` does not.
    let (host, root) = kernel(
        "for (i = 1; i < 64; i++)\n  for (j = 0; j < 64; j++)\n    A[i][j] = A[i - 1][j] + 1.0;",
    );
    let region = jscop(&[("Stmt0", 2, "{ Stmt0[i0, i1] -> [i0, i1] }", "MemRef_A")]);
    let translation = translate(&host, &root, &[region]);
    let leaves = starts(&host, &translation, 2).expect("starts");
    assert_eq!(leaves.len(), 2);
    let outline = Schedule::from_candidate(&host, &leaves[1])
        .expect("a loop tree")
        .outline(host.kernel());
    let lines: Vec<&str> = outline.lines().map(str::trim).collect();
    assert_eq!(lines[0], "for i", "{outline}");
    assert_eq!(lines[1], "for j parallel", "{outline}");
}
