//! The `commute` command as a user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn commute(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_commute"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        // Were anything to panic, the backtrace would show in the output.
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run commute")
}

fn spaces_in(dir: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
            .expect("list corpus")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "space"))
            .collect();
    paths.sort();
    paths
}

#[test]
fn check_prints_a_summary_of_valid_spaces() {
    let output = commute(&[
        "check",
        "spaces/paper/listing07_ordering.space",
        "dsl/tests/pass/every_construct.space",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("every_construct.space: ok: 7 sets, 6 properties, 6 choices, 4 counters, 11 constraints, 2 triggers, 1 quotient"), "{stdout}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
}

#[test]
fn check_reports_every_fail_case_without_a_backtrace() {
    let files = spaces_in("dsl/tests/fail");
    assert!(files.len() >= 40);
    for file in files {
        let path = file.to_string_lossy().into_owned();
        let output = commute(&["check", "--color", "never", &path]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{path}: {stderr}");
        assert!(stderr.contains("error["), "{path}: {stderr}");
        for sign in ["panicked", "stack backtrace", "RUST_BACKTRACE"] {
            assert!(!stderr.contains(sign), "{path} printed a panic:\n{stderr}");
        }
        assert!(
            output.stdout.is_empty(),
            "{path}: nothing on stdout for a failing space"
        );
    }
}

#[test]
fn check_of_a_missing_file_is_an_error_not_a_panic() {
    let output = commute(&["check", "no/such/file.space"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr.contains("cannot read `no/such/file.space`"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn check_checks_every_file_and_fails_if_one_fails() {
    let output = commute(&[
        "check",
        "--color",
        "never",
        "dsl/tests/fail/unknown_variable.space",
        "spaces/paper/listing07_ordering.space",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("listing07_ordering.space: ok:"), "{stdout}");
}

#[test]
fn bench_reports_engine_figures_as_json() {
    let output = commute(&["bench", "--json", "--statements", "5", "--seconds", "0.1"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(report["backbone"], "5 statements");
    assert_eq!(
        report["choice_instances"], 10,
        "one stored instance per pair of statements"
    );
    assert!(report["descents"].as_u64().is_some_and(|d| d >= 10));
    assert!(report["decisions_per_second"]
        .as_f64()
        .is_some_and(|d| d > 0.0));
    assert!(report["space"]
        .as_str()
        .is_some_and(|s| s.ends_with("listing07_ordering.space")));
}
