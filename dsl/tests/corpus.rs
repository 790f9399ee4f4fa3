//! Data-driven tests: every space under `tests/pass/` and `spaces/paper/`
//! checks clean; every space under `tests/fail/` fails with the diagnostics
//! recorded in its snapshot (`tests/snapshots/`, reviewed by reading them).

use std::path::{Path, PathBuf};

use commute_dsl::compile;

fn spaces_in(dir: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "space"))
        .collect();
    paths.sort();
    paths
}

#[test]
fn pass_corpus_checks_without_any_diagnostic() {
    let files: Vec<PathBuf> = spaces_in("tests/pass")
        .into_iter()
        .chain(spaces_in("../spaces/paper"))
        .chain(spaces_in("../spaces/corpus"))
        .chain(spaces_in("../spaces/loops"))
        .collect();
    assert!(files.len() >= 10, "pass corpus too small: {files:?}");
    for path in files {
        let compilation = compile(&path);
        assert!(
            compilation.diagnostics.is_empty(),
            "{}:\n{}",
            path.display(),
            compilation.render_diagnostics()
        );
        assert!(compilation.space.is_some());
    }
}

#[test]
fn fail_corpus_matches_snapshots() {
    let files = spaces_in("tests/fail");
    assert!(files.len() >= 40, "fail corpus too small: {}", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mistake = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// mistake:"))
            .unwrap_or_else(|| {
                panic!(
                    "{}: the first line must say `// mistake: ...`",
                    path.display()
                )
            });
        let compilation = compile(&path);
        assert!(
            compilation.has_errors(),
            "{} checks clean but should fail",
            path.display()
        );
        assert!(compilation.space.is_none());
        let rendered = compilation.render_diagnostics();
        assert!(
            !rendered.contains("internal error"),
            "{}:\n{rendered}",
            path.display()
        );
        let name = Path::new(&path)
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
}

#[test]
fn every_error_class_appears_in_the_fail_corpus() {
    let mut codes = std::collections::BTreeSet::new();
    for path in spaces_in("tests/fail") {
        for diagnostic in compile(&path).diagnostics {
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
