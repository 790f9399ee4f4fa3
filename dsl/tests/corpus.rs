//! Data-driven tests, one per space file: every space under `tests/pass/`,
//! `spaces/paper/`, `spaces/corpus/` and `loops/loops/` checks clean; every
//! space under `tests/fail/` fails with the diagnostics recorded in its
//! snapshot (`tests/snapshots/fail/`, reviewed by reading them).
//!
//! `build.rs` lists the folders and generates the tests into `OUT_DIR`, so
//! a test is named after its file (`fail::subset_cycle`,
//! `pass_paper::listing03_order`) and a new file is tested without editing
//! anything here.

use commute_dsl::compile;

include!(concat!(env!("OUT_DIR"), "/corpus_tests.rs"));

/// The space at `path` checks without any diagnostic, warnings included.
fn checks_clean(path: &str) {
    let compilation = compile(path);
    assert!(
        compilation.diagnostics.is_empty(),
        "{path}:\n{}",
        compilation.render_diagnostics()
    );
    assert!(compilation.space.is_some());
}

/// The space at `path` fails, and its rendered diagnostics match the
/// snapshot named after the file; its first line says which mistake it
/// makes, and becomes the snapshot's description.
fn fails_as_recorded(path: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mistake = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("// mistake:"))
        .unwrap_or_else(|| panic!("{path}: the first line must say `// mistake: ...`"));
    let compilation = compile(path);
    assert!(
        compilation.has_errors(),
        "{path} checks clean but should fail"
    );
    assert!(compilation.space.is_none());
    let rendered = compilation.render_diagnostics();
    assert!(!rendered.contains("internal error"), "{path}:\n{rendered}");
    let name = std::path::Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("unnamed")
        .to_string();
    insta::with_settings!({
        snapshot_path => "snapshots/fail",
        prepend_module_to_snapshot => false,
        description => mistake.trim(),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, rendered);
    });
}

/// The space files of the folder `dir`, as listed by `build.rs`.
fn files_of(dir: &str) -> &'static [&'static str] {
    CORPUS_FOLDERS
        .iter()
        .find(|(folder, _)| *folder == dir)
        .map_or(&[], |(_, files)| files)
}

/// Guards against listing the wrong folders: the corpora are known to be
/// at least this large.
#[test]
fn corpora_are_not_nearly_empty() {
    let pass: usize = [
        "tests/pass",
        "../spaces/paper",
        "../spaces/corpus",
        "../loops/loops",
    ]
    .iter()
    .map(|dir| files_of(dir).len())
    .sum();
    assert!(pass >= 10, "pass corpus too small: {pass} files");
    let fail = files_of("tests/fail").len();
    assert!(fail >= 40, "fail corpus too small: {fail} files");
}

#[test]
fn every_error_class_appears_in_the_fail_corpus() {
    let mut codes = std::collections::BTreeSet::new();
    for path in files_of("tests/fail") {
        for diagnostic in compile(path).diagnostics {
            codes.insert(diagnostic.code);
        }
    }
    let expected = [
        "syntax",
        "unknown-set",
        "unknown-name",
        "unknown-value",
        "unknown-variable",
        "duplicate",
        "duplicate-variable",
        "arity",
        "wrong-set",
        "is-type",
        "compare-type",
        "condition-type",
        "condition-kind",
        "logic-op",
        "universe-type",
        "counter-type",
        "counter-cycle",
        "symmetry",
        "subset-cycle",
        "disjoint-self",
        "include",
        "include-cycle",
        "quotient-relation",
        "empty-enum",
        "too-many-values",
        "too-many-variables",
        "too-many-conditions",
        "modulo",
        "unsupported",
        "empty-universe",
    ];
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|c| !codes.contains(c))
        .collect();
    assert!(
        missing.is_empty(),
        "error classes without a fail case: {missing:?}"
    );
}

/// An alias that names aliases stands for all their values, whatever the
/// order of the declarations.
#[test]
fn alias_of_alias_holds_the_values_of_both() {
    let compilation = compile("tests/pass/alias_of_alias.space");
    let space = compilation.space.expect("the space checks");
    let commute_dsl::ir::ChoiceKind::Enum(domain) = &space.choices[0].kind else {
        panic!("dim_kind is an enum choice");
    };
    let values = |alias: &str| -> Vec<&str> {
        let alias = domain
            .aliases
            .iter()
            .find(|a| a.name == alias)
            .expect("declared alias");
        alias
            .values
            .iter()
            .map(|i| domain.values[i].name.as_str())
            .collect()
    };
    assert_eq!(values("SEQUENTIAL"), ["LOOP", "UNROLL"]);
    assert_eq!(values("ONE_THREAD"), ["LOOP", "UNROLL", "VECTOR"]);
    assert_eq!(values("ANY"), ["LOOP", "UNROLL", "VECTOR", "THREAD"]);
}
