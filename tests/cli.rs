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
fn check_refuses_a_constraint_over_17_variables_naming_the_limit() {
    let output = commute(&[
        "check",
        "--color",
        "never",
        "dsl/tests/fail/too_many_variables.space",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error[too-many-variables]: this constraint quantifies over 17 variables; the engine holds at most 16 per declaration (limit `MAX_VARS`)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("too_many_variables.space:23:160"),
        "the 17th quantifier is located: {stderr}"
    );
    // 16 variables are within the limit.
    let output = commute(&["check", "dsl/tests/pass/limits_at_the_edge.space"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
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
    assert_eq!(report["loops"]["backbone"], "examples/gemm.c");
    assert!(report["gpu"]["space"]
        .as_str()
        .is_some_and(|s| s.ends_with("gpu/gpu.space")));
    assert!(report["gpu"]["decisions"].as_u64().is_some_and(|d| d > 0));
    let sizes = report["gpu_sizes"]
        .as_array()
        .expect("a size per GPU kernel");
    assert_eq!(sizes.len(), 4);
    assert!(sizes
        .iter()
        .all(|s| s["estimate"]["mean"].as_f64().is_some_and(|m| m >= 1.0)));
    assert!(report["loops"]["descents"]
        .as_u64()
        .is_some_and(|d| d >= 10));
}

#[test]
fn report_summarizes_a_journal_and_plots_it() {
    let dir = std::env::temp_dir().join(format!("commute-cli-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let header = r#"{"journal":"commute","version":1,"space":"listing07_ordering","search":"mcts","seed":3,"config":{},"started":0}"#;
    let leaf = |v: u32| format!(r#"[{{"choice":0,"objects":[0,1],"values":{v}}}]"#);
    let lines = [
        header.to_string(),
        format!(
            r#"{{"index":0,"path":{},"status":"ok","value":4.0,"elapsed":0.1}}"#,
            leaf(1)
        ),
        format!(
            r#"{{"index":1,"path":{},"status":"failed","value":null,"message":"build error","elapsed":0.2}}"#,
            leaf(2)
        ),
        format!(
            r#"{{"index":2,"path":{},"status":"wrong","value":null,"message":"mismatch","elapsed":0.3}}"#,
            leaf(4)
        ),
        format!(
            r#"{{"index":3,"path":{},"status":"ok","value":2.5,"elapsed":0.4}}"#,
            leaf(16)
        ),
    ];
    let journal = dir.join("mcts.jsonl");
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    // A baseline whose last write was interrupted.
    let baseline = dir.join("random.jsonl");
    let baseline_text = format!(
        "{}\n{}\n{{\"index\":1,\"pa",
        header.replace("mcts", "random"),
        format_args!(
            r#"{{"index":0,"path":{},"status":"ok","value":5.0,"elapsed":0.1}}"#,
            leaf(1)
        ),
    );
    std::fs::write(&baseline, baseline_text).unwrap();

    let output = commute(&[
        "report",
        journal.to_str().unwrap(),
        "--baseline",
        &format!("random={}", baseline.display()),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    for expected in [
        "mcts on listing07_ordering, seed 3",
        "evaluations: 4 in 0.4 s (2 measured, 1 failed, 1 wrong",
        "1 WRONG RESULT",
        "best: 2.5 at evaluation 4 of 4",
        "order(0, 1) = MERGED",
        "random: 1 evaluation (1 measured), best 5 at evaluation 1; mcts's best is 2.00x better",
    ] {
        assert!(
            stdout.contains(expected),
            "missing `{expected}` in:\n{stdout}"
        );
    }
    assert!(stderr.contains("WRONG RESULTS"), "{stderr}");
    let svg = std::fs::read_to_string(dir.join("mcts.svg")).expect("the plot, next to the journal");
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains("random (best 5)"),
        "a legend entry per baseline"
    );

    let output = commute(&["report", dir.join("missing.jsonl").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing.jsonl"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn estimate_prints_both_estimators_with_intervals() {
    let output = commute(&["estimate", "--statements", "4", "--samples", "50", "--json"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(report["space"], "ordering");
    assert_eq!(report["backbone"], "a chain of 4 statements");
    for (method, estimate) in [("knuth", &report["knuth"]), ("chen", &report["chen"])] {
        assert_eq!(estimate["method"], method);
        assert_eq!(estimate["samples"], 50);
        let [low, mean, high] = ["low", "mean", "high"].map(|f| estimate[f].as_f64().expect(f));
        // 545 leaves: both estimates land in the right order of magnitude.
        assert!(
            low <= mean && mean <= high && mean > 100.0 && mean < 3000.0,
            "{estimate}"
        );
    }
    assert_eq!(report["dead_end_rate"], 0.0);
    assert_eq!(report["search_dead_end_rate"], 0.0);

    let output = commute(&[
        "estimate",
        "--space",
        "counters",
        "--size",
        "2",
        "--samples",
        "20",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    for line in [
        "space: counters (random, 2 objects per root set, seed 0)",
        "Knuth, 20 probes: ",
        "Chen, 20 runs, strata: depth and open instances: ",
        "95% interval [",
        "dead-end rate of uniform random descents: ",
        "; of the searches' descents, which try another value where propagation refutes one: ",
        "time: ",
    ] {
        assert!(stdout.contains(line), "{line:?} missing from\n{stdout}");
    }

    let output = commute(&["estimate", "--space", "no_such_space"]);
    assert_eq!(output.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&output.stderr).contains("possible values"));
}

#[test]
fn search_takes_fixed_decisions_journals_and_resumes() {
    let dir = std::env::temp_dir().join(format!("commute-cli-search-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let journal = dir.join("search.jsonl");
    let journal = journal.to_string_lossy().into_owned();
    let run = |budget: &str, resume: bool| {
        let mut args = vec![
            "search",
            "--statements",
            "4",
            "--budget",
            budget,
            "--fix",
            "order(0, 1) = BEFORE",
            "--journal",
            &journal,
        ];
        if resume {
            args.push("--resume");
        }
        commute(&args)
    };
    let first = run("10", false);
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(
        first.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(stdout.contains("fixed order(0, 1) = BEFORE"), "{stdout}");
    assert!(
        stdout.contains("after 10 evaluations (0 from the journal)"),
        "{stdout}"
    );
    let resumed = run("25", true);
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(resumed.status.success(), "{stdout}");
    assert!(
        stdout.contains("after 25 evaluations (10 from the journal)"),
        "{stdout}"
    );
    let lines = std::fs::read_to_string(&journal)
        .expect("journal")
        .lines()
        .count();
    assert_eq!(lines, 26, "a header and 25 evaluations, none twice");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn search_refuses_a_conflicting_fix_naming_the_constraint() {
    let output = commute(&[
        "search",
        "--statements",
        "3",
        "--budget",
        "5",
        "--fix",
        "order(0, 1) = BEFORE",
        "--fix",
        "order(1, 2) = BEFORE",
        "--fix",
        "order(0, 2) = AFTER",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot fix `order(0, 2) = AFTER`"),
        "{stderr}"
    );
    assert!(stderr.contains("listing07_ordering.space:"), "{stderr}");
    let output = commute(&["search", "--statements", "3"]);
    assert_eq!(output.status.code(), Some(2), "a search needs a budget");
}

#[test]
fn a_closed_output_pipe_is_not_a_panic() {
    use std::process::Stdio;
    let files: Vec<String> = spaces_in("spaces/paper")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_commute"))
        .arg("check")
        .args(&files)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run commute");
    // Like `commute check ... | head -0`: the reader goes away at once.
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Like `commute check bad.space 2>&1 | head -1`: diagnostics go to
/// standard error, and a reader gone from it must not turn "errors found"
/// (exit code 1) into a panic (101). The check that nothing panicked is
/// the exit code, since standard error is the closed pipe.
#[test]
fn a_closed_error_pipe_is_not_a_panic() {
    use std::process::Stdio;
    let files: Vec<String> = spaces_in("dsl/tests/fail")
        .iter()
        .take(20)
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_commute"))
        .args(["check", "--color", "never"])
        .args(&files)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run commute");
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(1), "{status}");
}

/// A closed standard output with standard error still read: the valid
/// spaces' summaries are lost, the invalid ones' diagnostics are shown,
/// nothing panics and the exit code says that some space failed.
#[test]
fn a_closed_output_pipe_still_reports_errors_without_a_panic() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_commute"))
        .args([
            "check",
            "--color",
            "never",
            "spaces/paper/listing07_ordering.space",
            "dsl/tests/fail/subset_cycle.space",
            "dsl/tests/pass/every_construct.space",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_BACKTRACE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run commute");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error[subset-cycle]"), "{stderr}");
    for sign in ["panicked", "stack backtrace", "RUST_BACKTRACE"] {
        assert!(!stderr.contains(sign), "{stderr}");
    }
}

/// Where a loop may be skewed, `show` says by which loop and factor, and
/// lists the decision with the others.
#[test]
fn show_lists_the_skews_offered() {
    let output = commute(&["show", "examples/seidel-2d.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("  S0: L1 (i) + 1 * L0 (t)\n"), "{stdout}");
    assert!(stdout.contains("  S0: L2 (j) + 1 * L1 (i)\n"), "{stdout}");
    assert!(stdout.contains("    skew(j) in NO | YES"), "{stdout}");
    let output = commute(&["show", "examples/gemm.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("skews offered"), "{stdout}");
}

#[test]
fn show_lists_the_shifts_offered() {
    let output = commute(&["show", "examples/jacobi-2d.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("  S1: L3 (i) by 1\n"), "{stdout}");
    assert!(stdout.contains("  S1: L4 (j) by 1\n"), "{stdout}");
    assert!(stdout.contains("    shift(i#2) in NO | YES"), "{stdout}");
    // Fused, the rows of both sweeps may be skewed by twice the time
    // step (time tiling); the columns are not offered one.
    assert!(stdout.contains("  S0: L1 (i) + 2 * L0 (t)\n"), "{stdout}");
    assert!(stdout.contains("  S1: L3 (i) + 2 * L0 (t)\n"), "{stdout}");
    assert!(!stdout.contains("(j) + 2 * L0 (t)"), "{stdout}");
    assert!(
        stdout.contains("flow S0 -> S1 on B (t: 0, i~i: -1, j~j: 0)"),
        "{stdout}"
    );
    let output = commute(&["show", "examples/gemm.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("shifts offered"), "{stdout}");
}

#[test]
fn show_prints_the_loop_nest_or_names_the_unsupported_construct() {
    let output = commute(&["show", "examples/gemm.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("L2   for k in [0, _PB_NK)"), "{stdout}");
    assert!(
        stdout.contains("reads  C[i][j], alpha, A[i][k], B[k][j]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("loops that may carry a dependence: L2 (k)"),
        "{stdout}"
    );
    // Open decisions per choice, a loop's name for its dimensions around
    // both statements where they have the same values.
    // (k's tile dimension may be parallel too: k carries only the
    // reduction into C.)
    assert!(stdout.contains("\n  dim_kind (10 open):\n"), "{stdout}");
    assert!(!stdout.contains(".block"), "{stdout}");
    assert!(
        stdout.contains("\n    dim_kind(k.tile) in SEQUENTIAL | PARALLEL\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "\n    dim_kind(i) in SEQUENTIAL | PARALLEL | UNROLL | REVERSED | COLLAPSED\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n    order(i, k) in INNER | OUTER\n"),
        "{stdout}"
    );
    // With blocks (tiles of tiles), which step by tiles: never unrolled.
    let output = commute(&["show", "examples/gemm.c", "--blocks"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("\n  dim_kind (15 open):\n"), "{stdout}");
    assert!(
        stdout.contains("\n    dim_kind(k.block) in SEQUENTIAL | PARALLEL\n"),
        "{stdout}"
    );
    let covariance = commute(&["show", "examples/covariance.c"]);
    let listed = String::from_utf8_lossy(&covariance.stdout);
    assert!(
        listed.contains("the first 40, `--all` lists every one):"),
        "{listed}"
    );
    let dir = std::env::temp_dir().join(format!("commute-cli-show-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.c");
    std::fs::write(
        &bad,
        "void f(int x) {\n#pragma scop\n  while (x) x = 0;\n#pragma endscop\n}\n",
    )
    .expect("write");
    let output = commute(&["show", &bad.to_string_lossy()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr.contains("bad.c:3:3: while loop"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn search_takes_a_priority_by_choice_name() {
    let output = commute(&[
        "search",
        "--space",
        "counters",
        "--size",
        "2",
        "--budget",
        "5",
        "--priority",
        "size,kind",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = commute(&[
        "search",
        "--space",
        "counters",
        "--size",
        "2",
        "--budget",
        "5",
        "--priority",
        "sizes",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr.contains("no choice is named `sizes`; the choices are kind, size"),
        "{stderr}"
    );
}

/// A scratch directory of its own for a test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("commute-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Small sizes for the gemm example: each run takes a millisecond.
const SMALL_GEMM: [&str; 4] = ["-O2", "-DNI=40", "-DNJ=44", "-DNK=48"];

#[test]
fn tune_finds_a_verified_candidate_and_writes_it() {
    let dir = scratch("tune");
    let out = dir.join("gemm.tuned.c");
    let work = dir.join("work");
    let mut options = vec![
        "--budget",
        "6",
        "--cc",
        "cc",
        "--runs",
        "2",
        "--seed",
        "5",
        // Every candidate timed in full: on a loaded machine a tiny
        // kernel's runs vary past the cut-off, and this test is about
        // writing the best verified one.
        "--cutoff",
        "0",
        "--fix",
        "dim_kind(i) = PARALLEL",
        // The fixed decisions are written whatever their speed: on a tiny
        // kernel, the unmodified program may be faster.
        "--no-baselines",
        "-o",
        out.to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
    ];
    let (stdout, stderr) = tune_small_gemm(&options);
    assert!(stderr.contains("reference: "), "{stderr}");
    assert!(
        stdout.contains("stopped (evaluation budget spent) after 6 evaluations"),
        "{stdout}"
    );
    assert!(
        stdout.contains("verified against the original output"),
        "{stdout}"
    );
    assert!(
        stdout.contains("dim_kind(i) = PARALLEL"),
        "the fixed decision is kept: {stdout}"
    );
    let tuned = std::fs::read_to_string(&out).expect("the best candidate is written");
    assert!(tuned.contains("#pragma omp parallel for"), "{tuned}");
    assert!(
        !tuned
            .lines()
            .any(|l| l.trim_start().starts_with("#pragma scop")),
        "{tuned}"
    );
    assert!(work.join("journal.jsonl").exists() && work.join("journal.svg").exists());
    assert_bounds_hold(&work.join("journal.jsonl"));
    // The report names the decisions as the kernel does.
    let journal = work.join("journal.jsonl");
    let output = commute(&["report", journal.to_str().unwrap()]);
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{report}");
    assert!(report.contains("best leaf's decisions"), "{report}");
    assert!(
        report.contains("dim_kind(") && !report.contains("c1("),
        "{report}"
    );
    // Resumed with a larger budget: nothing recorded is run again but the
    // best recorded candidate, which competes with the new ones.
    let budget = options.iter().position(|a| *a == "--budget").unwrap() + 1;
    options[budget] = "8";
    options.insert(budget + 1, "--resume");
    let (stdout, stderr) = tune_small_gemm(&options);
    assert!(stderr.contains("resuming 6 evaluations"), "{stderr}");
    assert!(
        stderr.contains("the best recorded candidate (evaluation "),
        "{stderr}"
    );
    assert!(
        stdout.contains("after 8 evaluations (6 replayed from the journal)"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `commute tune` on a small jacobi-2d (`sizes`) for 3 evaluations with
/// `options`, each candidate checked (no cut-off), without baselines:
/// its standard output, standard error and journal.
fn tune_small_jacobi(name: &str, options: &[&str], sizes: &[&str]) -> (String, String, String) {
    let dir = scratch(name);
    let out = dir.join("jacobi.tuned.c");
    let work = dir.join("work");
    let common = [
        "tune",
        "examples/jacobi-2d.c",
        "--budget",
        "3",
        "--cc",
        "cc",
        "--runs",
        "2",
        "--cutoff",
        "0",
        "--no-baselines",
        "-o",
        out.to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
    ];
    let output = commute(&[&common[..], options, &["--", "-O2"], sizes].concat());
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let journal = std::fs::read_to_string(work.join("journal.jsonl")).expect("journal");
    let _ = std::fs::remove_dir_all(&dir);
    (stdout, stderr, journal)
}

#[test]
fn tune_evaluates_time_tiles_of_jacobi_first() {
    let (stdout, stderr, journal) = tune_small_jacobi(
        "time-tiled-start",
        &["--threads", "2", "--no-polly-start"],
        &["-DTSTEPS=6", "-DN=70"],
    );
    assert!(
        stderr.contains("time-tiled start: sweeps fused, rows skewed by `t`, tiles of at most 8 x 32, 16 x 64, 32 x 128 time steps x rows run as a wavefront (3 leaves)"),
        "{stderr}"
    );
    // The original, then the time-tiled leaves: every one checked, none
    // wrong.
    assert!(
        stdout.contains("after 3 evaluations") && stdout.contains("0 wrong"),
        "{stdout}"
    );
    assert!(journal.contains("\"time_tiled_start\":true"), "{journal}");
}

#[test]
fn tune_on_two_threads_evaluates_the_parallel_start() {
    let (stdout, stderr, journal) = tune_small_jacobi(
        "parallel-start",
        &[
            "--threads",
            "2",
            "--no-polly-start",
            "--no-time-tiled-start",
        ],
        &["-DTSTEPS=4", "-DN=60"],
    );
    assert!(
        stderr.contains("parallel start: i, i#2 in parallel (1 leaf)"),
        "{stderr}"
    );
    // The original nest, then the sweeps' rows in parallel: checked in
    // full, none wrong.
    assert!(
        stdout.contains("after 3 evaluations") && stdout.contains("0 wrong"),
        "{stdout}"
    );
    assert!(journal.contains("\"parallel_start\":true"), "{journal}");
    // One thread has no parallel start.
    let (_, stderr, journal) = tune_small_jacobi(
        "parallel-start-one-thread",
        &[
            "--threads",
            "1",
            "--no-polly-start",
            "--no-time-tiled-start",
        ],
        &["-DTSTEPS=4", "-DN=60"],
    );
    assert!(!stderr.contains("parallel start"), "{stderr}");
    assert!(journal.contains("\"parallel_start\":true"), "{journal}");
}

#[test]
fn tune_with_the_fused_start_evaluates_the_fused_sweeps_first() {
    let (stdout, stderr, journal) = tune_small_jacobi(
        "fused-start",
        &["--fused-start", "--no-time-tiled-start"],
        &["-DTSTEPS=4", "-DN=60"],
    );
    assert!(stderr.contains("fused start: "), "{stderr}");
    assert!(stderr.contains("i with i#2"), "{stderr}");
    // The original nest, then the fused start's leaves: every one checked
    // (a cut-off of 0 times and checks each in full), none wrong.
    assert!(
        stdout.contains("after 3 evaluations") && stdout.contains("0 wrong"),
        "{stdout}"
    );
    assert!(journal.contains("\"fused_start\":true"), "{journal}");
}

#[test]
fn tune_records_crashes_hangs_and_hanging_compiles_and_goes_on() {
    let dir = scratch("faults");
    // A compiler that hangs on a quarter of the candidates, builds a
    // crashing program for another quarter and a looping one for a third,
    // and compiles the others.
    let fake = dir.join("fake-cc");
    write_script(
        &fake,
        r#"#!/bin/sh
out=""; src=""; prev=""
for a in "$@"; do
  [ "$prev" = "-o" ] && out="$a"
  case "$a" in *.c) src="$a";; esac
  prev="$a"
done
# The reference (the region pragmas commented out, no transformed region)
# always builds; candidates fail by their checksum.
grep -q "commute: transformed region" "$src" || exec cc "$@"
case $(( $(cksum < "$src" | cut -d' ' -f1) % 4 )) in
  0) sleep 30 ;;
  1) printf 'int main(void){ __builtin_trap(); }\n' > "$src.x.c"; exec cc "$src.x.c" -o "$out" ;;
  2) printf 'int main(void){ for(;;); }\n' > "$src.x.c"; exec cc -O0 "$src.x.c" -o "$out" ;;
esac
exec cc "$@"
"#,
    );
    let work = dir.join("work");
    let (_, stdout, stderr) = run_small_gemm(&[
        "--search",
        "random",
        "--budget",
        "12",
        "--seed",
        "2",
        "--runs",
        "1",
        "--cc",
        fake.to_str().unwrap(),
        // Long enough for a real compile on a loaded machine (CI runs
        // the test binaries side by side on 2 cores), short of the hang.
        "--compile-timeout",
        "10",
        "--run-timeout",
        "1",
        // One thread: OpenMP's spinning threads on a loaded machine can
        // make a correct candidate miss the one-second run timeout.
        "--threads",
        "1",
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("after 12 evaluations"),
        "{stdout}\n{stderr}"
    );
    let journal = std::fs::read_to_string(work.join("journal.jsonl")).expect("journal");
    for failure in ["compile timed out", "crashed", "timed out after"] {
        assert!(
            journal.contains(failure),
            "no `{failure}` failure recorded:\n{journal}"
        );
    }
    assert!(journal.contains(r#""status":"ok""#), "{journal}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lower_writes_one_candidate_and_refuses_illegal_fixes_naming_the_dependence() {
    let fixes = [
        "--fix",
        "tile_size(j#2) = 8",
        "--fix",
        "dim_kind(j#2) = UNROLL",
    ];
    let output = commute(&[&["lower", "examples/gemm.c"][..], &fixes].concat());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    // By default, directives where they can say it.
    assert!(
        stdout
            .contains("      #pragma omp unroll partial(8)\n      for (j = 0; j < _PB_NJ; j++)\n"),
        "{stdout}"
    );
    let output = commute(&[&["lower", "examples/gemm.c", "--emit", "code"][..], &fixes].concat());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("for (int j_tt = 0; j_tt < _PB_NJ; j_tt += 8) {"),
        "{stdout}"
    );
    assert!(
        stdout.contains("{ const int j = j_tt + 7; C[i][j] += alpha * A[i][k] * B[k][j]; }"),
        "{stdout}"
    );
    // Rows in blocks of 64 around tiles of 4, with `--blocks` only: a loop
    // of its own in explicit code.
    let blocked = [
        "--fix",
        "tile_size(i) = 4",
        "--fix",
        "tile_size(i.block@S1) = 64",
    ];
    let output = commute(&[&["lower", "examples/gemm.c", "--blocks"][..], &blocked].concat());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("for (int i_b = 0; i_b < _PB_NI; i_b += 64) {"),
        "{stdout}"
    );
    // Merged with the beta scaling's, the block of `i` is one loop.
    assert!(stdout.contains("tile_size(i.block) = 64"), "{stdout}");
    let output = commute(&[&["lower", "examples/gemm.c"][..], &blocked].concat());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no statement or loop is named `i.block@S1`"),
        "{stderr}"
    );
    // k carries only the reduction into C[i][j]: parallel, it needs the
    // loops the target reads outside it.
    let output = commute(&[
        "lower",
        "examples/gemm.c",
        "--fix",
        "dim_kind(k) = PARALLEL",
        "--fix",
        "order(k, j#2) = OUTER",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("$dep = the dependence flow S1 -> S1 on C (i: 0, k: +, j: 0), a reduction"),
        "{stderr}"
    );
    assert!(stderr.contains("order($e, $d) is OUTER"), "{stderr}");
    // backsolve's update reads the array it updates (X[i][r] -= L[i][j] *
    // X[j][r]): not a reduction, so j stays sequential.
    let output = commute(&[
        "lower",
        "examples/backsolve.c",
        "--fix",
        "dim_kind(j) = VECTOR",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("$dep = the dependence flow S1 -> S1 on X (i: 0, j: +, r: 0), $d = j"),
        "{stderr}"
    );
    // The constraint named is the one that removed the value asked for.
    let output = commute(&["lower", "examples/gemm.c", "--fix", "dim_kind(i) = VECTOR"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("vectorizable($d)"), "{stderr}");
    // With every sum in order, bilinear's sum into `s` is no reduction:
    // its loops stay out of vector lanes (they take them without it).
    let lanes = [
        "lower",
        "examples/bilinear.c",
        "--fix",
        "dim_kind(j) = VECTOR",
    ];
    let output = commute(&lanes);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = commute(&[&lanes[..], &["--sums-in-order"]].concat());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot fix `dim_kind(j) = VECTOR`"),
        "{stderr}"
    );
}

#[test]
fn lower_writes_reductions_with_their_clauses() {
    // A scalar: the clause on the user's loops.
    let output = commute(&[
        "lower",
        "examples/bilinear.c",
        "--fix",
        "dim_kind(i) = PARALLEL",
        "--fix",
        "dim_kind(j) = VECTOR",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains(
            "  #pragma omp parallel for private(i, j) reduction(+: s)\n  for (i = 0; i < _PB_N; i++)\n    #pragma omp simd reduction(+: s)\n"
        ),
        "{stdout}"
    );
    // An array element: a private accumulator per jammed copy.
    let output = commute(&[
        "lower",
        "examples/abt.c",
        "--fix",
        "dim_kind(k) = VECTOR",
        "--fix",
        "tile_size(j) = 2",
        "--fix",
        "dim_kind(j) = UNROLL",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    for expected in [
        "__typeof__(C[0][0]) commute_acc1 = 0;",
        "#pragma omp simd reduction(+: commute_acc0, commute_acc1)",
        "{ const int j = j_t + 1; commute_acc1 += (A[i][k] * B[j][k]); }",
        "{ const int j = j_t + 1; C[i][j] += commute_acc1; }",
    ] {
        assert!(stdout.contains(expected), "{expected}\n{stdout}");
    }
}

/// clang 20 or later, for OpenMP 6.0 loop directives: its absence fails
/// the test where `COMMUTE_REQUIRE_CLANG=1` (CI), else skips it.
fn clang_with_directives() -> Option<&'static str> {
    for name in ["clang-22", "clang-21", "clang-20"] {
        if Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Some(name);
        }
    }
    if std::env::var("COMMUTE_REQUIRE_CLANG").as_deref() == Ok("1") {
        panic!("COMMUTE_REQUIRE_CLANG=1 but no clang-22, clang-21 or clang-20 is on PATH");
    }
    eprintln!("note: no clang 20 or later on PATH; skipping");
    None
}

#[test]
fn tune_with_directives_writes_the_users_loops_with_omp_directives() {
    let Some(clang) = clang_with_directives() else {
        return;
    };
    let dir = scratch("directives");
    let out = dir.join("gemm.tuned.c");
    let work = dir.join("work");
    let (_, stderr) = tune_small_gemm(&[
        "--emit",
        "directives",
        "--cc",
        clang,
        "--budget",
        "4",
        "--runs",
        "1",
        "--fix",
        "tile_size(k) = 8",
        "--fix",
        "dim_kind(i) = PARALLEL",
        "--no-baselines",
        "-o",
        out.to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert!(
        stderr.contains("candidates as OpenMP 6.0 directives"),
        "{stderr}"
    );
    let tuned = std::fs::read_to_string(&out).expect("written");
    assert!(
        tuned.contains("#pragma omp parallel for private("),
        "{tuned}"
    );
    assert!(tuned.contains("#pragma omp tile sizes(8)"), "{tuned}");
    assert_bounds_hold(&work.join("journal.jsonl"));
    // The user's loops are kept as written.
    assert!(
        tuned.contains("      for (j = 0; j < _PB_NJ; j++)\n"),
        "{tuned}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The decisions a lowered candidate's comment lists as differing from
/// the original program.
fn listed_decisions(code: &str) -> Vec<String> {
    code.lines()
        .skip_while(|l| !l.contains("decisions that differ"))
        .skip(1)
        .take_while(|l| l.starts_with("/*   "))
        .map(|l| {
            l.trim_start_matches("/*   ")
                .trim_end_matches(" */")
                .to_string()
        })
        .collect()
}

/// `show` lists the packed copies offered with the operands' names, and a
/// packed candidate's listed decisions name them too and give it back.
#[test]
fn packed_operands_are_named_by_their_arrays() {
    let output = commute(&["show", "examples/gemm.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("\n    pack(k.tile, B) in NO | YES\n"),
        "{stdout}"
    );
    let lower = |fixes: &[&str]| {
        let mut args = vec!["lower", "examples/gemm.c", "--emit", "code"];
        for fix in fixes {
            args.push("--fix");
            args.push(fix);
        }
        let output = commute(&args);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        stdout
    };
    let first = lower(&[
        "tile_size(k) = 32",
        "tile_size(j#2) = 16",
        "order(j#2.tile, k.tile) = OUTER",
        "pack(k.tile, B) = YES",
    ]);
    assert!(first.contains("/*   pack(k.tile, B) = YES */"), "{first}");
    assert!(
        first.contains("commute_pack0[k - k_t][j - j_tt] = B[k][j];"),
        "{first}"
    );
    let listed = listed_decisions(&first);
    let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
    assert_eq!(lower(&listed), first);
}

/// The decisions a lowered candidate lists are few (those the others do
/// not imply) and, given back as fixed decisions, give the same code.
#[test]
fn lower_lists_decisions_that_give_the_candidate_back() {
    let fixes = [
        "order(j@S0, j@S1) = BEFORE",
        "order(j@S1, j@S2) = BEFORE",
        "order(k, j@S1) = OUTER",
        "dim_kind(i) = PARALLEL",
    ];
    let lower = |fixes: &[String]| {
        let mut args = vec!["lower", "examples/covariance.c"];
        for fix in fixes {
            args.push("--fix");
            args.push(fix);
        }
        let output = commute(&args);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(output.status.success(), "{stdout}");
        stdout
    };
    let first = lower(&fixes.map(String::from));
    let listed = listed_decisions(&first);
    assert!(
        !listed.is_empty() && listed.len() <= 6,
        "{listed:?}\n{first}"
    );
    assert!(first.contains("#pragma omp parallel for"), "{first}");
    assert_eq!(lower(&listed), first);
}

#[test]
fn show_lists_the_loop_nests_of_a_file_without_a_region_and_shows_the_one_picked() {
    let output = commute(&["show", "examples/matmul-pointers.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("no `#pragma scop` region; its loop nests:"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  matmul, line 36: depth 3, 2 statements"),
        "{stdout}"
    );
    assert!(
        stdout.contains("`--nest FUNCTION` or `--nest LINE`"),
        "{stdout}"
    );
    let output = commute(&["show", "examples/matmul-pointers.c", "--nest", "matmul"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("loop nest of `matmul`, lines 36 to 41"),
        "{stdout}"
    );
    assert!(stdout.contains("linearized array: C[][nj]"), "{stdout}");
    assert!(
        stdout.contains("reads  C[i][j], A[i][k], B[k][j]"),
        "{stdout}"
    );
    let output = commute(&["show", "examples/matmul-pointers.c", "--nest", "999"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr.contains("no such loop nest"), "{stderr}");
}

#[test]
fn show_reads_loops_counting_down_conditions_and_clamps() {
    let output = commute(&["show", "examples/backsolve.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("L0 for i from N - 1 down to 0"), "{stdout}");
    assert!(stdout.contains("L2   for j in [i + 1, N)"), "{stdout}");
    let output = commute(&["show", "examples/edit-distance.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("S1 in (p, i, j)  (line 54)\n      when   i - 1 >= 0 and -j >= 0"),
        "{stdout}"
    );
    let output = commute(&["show", "examples/normalize.c"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("runs   if (Y[i][j] > CLAMP) Y[i][j] = CLAMP; else if"),
        "{stdout}"
    );
}

/// The examples written for the constructs of real code, tuned at small
/// sizes: every candidate measured computes the original arrays.
#[test]
fn the_examples_of_real_constructs_tune_with_no_wrong_output() {
    let dir = scratch("tune-constructs");
    let cases: [(&str, Option<&str>, &[&str]); 4] = [
        ("backsolve", None, &["-DN=40", "-DM=24"]),
        ("edit-distance", None, &["-DNI=4", "-DN=30"]),
        ("normalize", None, &["-DN=30", "-DM=40"]),
        (
            "matmul-pointers",
            Some("matmul"),
            &["-DNI=20", "-DNJ=24", "-DNK=28"],
        ),
    ];
    for (name, nest, sizes) in cases {
        let work = dir.join(name);
        let kernel = format!("examples/{name}.c");
        let mut args = vec![
            "tune",
            kernel.as_str(),
            "--budget",
            "4",
            "--cc",
            "cc",
            "--runs",
            "1",
            "--cutoff",
            "0",
            "--work-dir",
            work.to_str().unwrap(),
        ];
        if let Some(nest) = nest {
            args.extend(["--nest", nest]);
        }
        args.extend(["--", "-O1"]);
        args.extend(sizes);
        let output = commute(&args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{name}: {stdout}\n{stderr}");
        assert!(stdout.contains(", 0 wrong"), "{name}: {stdout}");
        assert!(
            stdout.contains("verified against the original output"),
            "{name}: {stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------- spaces with host files

const TUTORIAL_SPACE: &str = "docs/tutorial/tune.space";
const TUTORIAL_HOST: &str = "docs/tutorial/host.toml";

#[test]
fn explore_names_the_constraint_and_objects_of_a_wrong_fix() {
    let output = commute(&[
        "explore",
        TUTORIAL_SPACE,
        "--host",
        TUTORIAL_HOST,
        "--fix",
        "tiled(j) = NO",
        "--fix",
        "unroll(j) = 4",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("constraint: docs/tutorial/tune.space:34"),
        "{stdout}"
    );
    assert!(
        stdout.contains("unroll($l) == 1 || tiled($l) is YES"),
        "{stdout}"
    );
    assert!(stdout.contains("$l = j (of Loops)"), "{stdout}");
}

#[test]
fn host_files_with_mistakes_get_located_errors() {
    let dir = scratch("host-errors");
    let host = dir.join("host.toml");
    std::fs::write(
        &host,
        "[sets]\nLoops = [\"i\", \"j\"]\n\n[properties]\nextent = { i = 256, k = 256 }\ntile_sizes = { \"*\" = [1, 8] }\n",
    )
    .expect("write host");
    let host = host.to_string_lossy().to_string();
    let output = commute(&["explore", TUTORIAL_SPACE, "--host", &host]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    // The unknown object, on its line and column.
    assert!(
        stderr.contains(&format!("{host}:5:21: unknown object `k` of `Loops`")),
        "{stderr}"
    );
    // The property with no value for `j`, and the one missing altogether.
    assert!(
        stderr.contains("missing value of property `extent` for (j)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{host}:4:1: missing property `max_tile_volume`")),
        "{stderr}"
    );
}

#[test]
fn enumerate_counts_and_lists_the_same_leaves() {
    let output = commute(&[
        "enumerate",
        TUTORIAL_SPACE,
        "--host",
        TUTORIAL_HOST,
        "--count",
    ]);
    let count = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    let listed = commute(&["enumerate", TUTORIAL_SPACE, "--host", TUTORIAL_HOST]);
    let lines: Vec<&str> = std::str::from_utf8(&listed.stdout)
        .expect("utf-8")
        .lines()
        .collect();
    assert_eq!(count.trim(), lines.len().to_string());
    let first: serde_json::Value = serde_json::from_str(lines[0]).expect("a JSON leaf");
    assert!(first["tile"]["i"].is_i64(), "{first}");
    assert!(first["tiled"]["j"].is_string(), "{first}");
}

#[test]
fn a_hanging_crashing_or_garbled_evaluator_is_a_failure_and_the_search_goes_on() {
    let dir = scratch("evaluate");
    let journal = dir.join("run.jsonl");
    let journal = journal.to_string_lossy().to_string();
    // Evaluation 0 prints garbage, 1 crashes, 2 hangs, the others print
    // their tile volume read from the environment and stdin.
    let evaluator = r#"case $COMMUTE_EVALUATION in
        0) echo 'fast!';;
        1) echo oops >&2; exit 3;;
        2) sleep 30;;
        *) cat > /dev/null; echo $((COMMUTE_TILE_I * COMMUTE_TILE_J));;
        esac"#;
    let output = commute(&[
        "search",
        TUTORIAL_SPACE,
        "--host",
        TUTORIAL_HOST,
        "--evaluate",
        evaluator,
        "--timeout",
        "0.5",
        "--search",
        "random",
        "--budget",
        "6",
        "--journal",
        &journal,
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("after 6 evaluations"), "{stdout}");
    assert!(stdout.contains("failed evaluations: 3"), "{stdout}");
    let text = std::fs::read_to_string(&journal).expect("journal");
    let records: Vec<serde_json::Value> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect();
    let messages: Vec<String> = records
        .iter()
        .take(3)
        .map(|r| r["message"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(messages[0].contains("not a number"), "{messages:?}");
    assert!(
        messages[1].contains("status 3") && messages[1].contains("oops"),
        "{messages:?}"
    );
    assert!(messages[2].contains("timed out"), "{messages:?}");
    assert!(records[3]["value"].is_number(), "{:?}", records[3]);
    // The journal resumes, and the report names the decisions.
    let resumed = commute(&[
        "search",
        TUTORIAL_SPACE,
        "--host",
        TUTORIAL_HOST,
        "--evaluate",
        evaluator,
        "--timeout",
        "0.5",
        "--search",
        "random",
        "--budget",
        "8",
        "--journal",
        &journal,
        "--resume",
    ]);
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(stdout.contains("(6 from the journal)"), "{stdout}");
    let report = commute(&["report", &journal]);
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(report.status.success(), "{text}");
    assert!(text.contains("evaluations: 8"), "{text}");
}

/// Runs commute, which must succeed: its standard output and error.
fn commute_ok(args: &[&str]) -> (String, String) {
    let output = commute(args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// The evaluations of a journal, as JSON values (the header and the
/// baselines' records left out).
fn journal_records(path: &Path) -> Vec<serde_json::Value> {
    journal_lines(path)
        .into_iter()
        .filter(|r| r.get("record").is_none())
        .collect()
}

/// Every line of a journal but its header, as JSON values.
fn journal_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .expect("journal")
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("a journal line"))
        .collect()
}

/// How many evaluations a journal's text holds: its lines but the header
/// and the records (baselines, the result), which are not evaluations.
fn evaluation_lines(text: &str) -> usize {
    text.lines()
        .skip(1)
        .filter(|l| !l.contains("\"record\":\""))
        .count()
}

/// Noise allowed between the lower bound and a measured time: runs on a
/// loaded machine vary by a quarter, and a bound can only be lower than
/// the fastest of them.
const BOUND_NOISE: f64 = 0.25;

/// Every evaluation that measured a time has a lower bound under it (the
/// measured time of a candidate cut off after one run counts; the time a
/// candidate ran before its timeout is no measurement of it). Returns how
/// many were compared.
fn assert_bounds_hold(journal: &Path) -> usize {
    let mut compared = 0;
    for record in journal_records(journal) {
        let (Some(value), Some(bound)) = (record["value"].as_f64(), record["bound"].as_f64())
        else {
            continue;
        };
        if record["flag"] == "timed_out" {
            continue;
        }
        assert!(
            bound <= value * (1.0 + BOUND_NOISE),
            "the bound {bound} exceeds the measured {value}: {record}"
        );
        compared += 1;
    }
    compared
}

/// Writes an executable script.
fn write_script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn a_time_budget_spent_before_the_search_leaves_the_original_program_written() {
    let dir = scratch("spent");
    // Every build takes 1.5 s: the reference's alone spends the budget.
    let fake = dir.join("slow-cc");
    write_script(
        &fake,
        "#!/bin/sh\ncase \" $* \" in *\" -o \"*) sleep 1.5 ;; esac\nexec cc \"$@\"\n",
    );
    let out = dir.join("gemm.tuned.c");
    let work = dir.join("work");
    let (output, stdout, stderr) = run_small_gemm(&[
        "--time-budget",
        "1",
        "--cc",
        fake.to_str().unwrap(),
        "--runs",
        "1",
        "-o",
        out.to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("the original loop nest is not measured: the time budget is spent"),
        "{stderr}"
    );
    assert!(
        stdout.contains("stopped (time budget spent) after 0 evaluations"),
        "{stdout}"
    );
    assert!(
        stdout.contains("the time budget was spent before the search"),
        "{stdout}"
    );
    assert!(
        stdout.contains("before the search, ")
            && stdout.contains("of the 1 s budget: the loop space")
            && stdout.contains(" s, the reference "),
        "{stdout}"
    );
    // The program as written, with the reference's command.
    let tuned = std::fs::read_to_string(&out).expect("the original program is written");
    assert!(tuned.starts_with("/* commute: built with: "), "{tuned}");
    assert!(
        tuned.contains("slow-cc") && tuned.contains("C = alpha * A * B"),
        "{tuned}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn slow_candidates_are_cut_off_after_one_run_and_a_search_with_them_resumes() {
    let dir = scratch("cutoff");
    // A compiler whose parallel candidates sleep 300 ms in their timed
    // region, and whose programs log each run as `check` (a build with
    // the dump) or `timed` in their build directory.
    let fake = dir.join("slow-cc");
    write_script(
        &fake,
        r#"#!/bin/sh
case " $* " in *" -E "*|*" -c "*) exec cc "$@" ;; esac
case " $* " in *" -o "*) ;; *) exec cc "$@" ;; esac
out=""; src=""; kind=timed; prev=""
for a in "$@"; do
  [ "$prev" = "-o" ] && out="$a"
  case "$a" in *.c) src="$a";; esac
  [ "$a" = "-DPOLYBENCH_DUMP_ARRAYS" ] && kind=check
  prev="$a"
done
use="$src"
if grep -q "omp parallel" "$src"; then
  sed 's/^  kernel(alpha, beta);/  kernel(alpha, beta); usleep(300000);/' "$src" > slow.c
  touch slow
  use=slow.c
  set -- "$@" -include unistd.h
fi
prev=""
for a in "$@"; do
  shift
  if [ "$prev" = "-o" ]; then set -- "$@" "$a.real"
  elif [ "$a" = "$src" ]; then set -- "$@" "$use"
  else set -- "$@" "$a"; fi
  prev="$a"
done
cc "$@" || exit 1
printf '#!/bin/sh\necho %s >> "%s/runs.log"\nexec "%s/%s.real" "$@"\n' "$kind" "$(pwd)" "$(pwd)" "$out" > "$out"
chmod +x "$out"
"#,
    );
    let work = dir.join("work");
    let run = |budget: &str, resume: bool| {
        let mut options = vec![
            "--search",
            "random",
            "--budget",
            budget,
            "--seed",
            "4",
            "--runs",
            "2",
            // Past the candidates' 300 ms sleep: they are cut off, not
            // timed out.
            "--run-timeout",
            "1",
            "--cc",
            fake.to_str().unwrap(),
            "--work-dir",
            work.to_str().unwrap(),
        ];
        if resume {
            options.push("--resume");
        }
        tune_small_gemm(&options)
    };
    let (stdout, stderr) = run("10", false);
    let journal = work.join("journal.jsonl");
    let records = journal_records(&journal);
    let cut = records.iter().filter(|r| r["flag"] == "cut_off").count();
    assert!(cut >= 1, "no candidate cut off:\n{stderr}");
    assert!(
        stdout.contains(&format!("{cut} cut off after one run")),
        "{stdout}"
    );
    for record in records.iter().filter(|r| r["flag"] == "cut_off") {
        assert_eq!(record["status"], "ok", "{record}");
        assert!(
            record["value"].as_f64().is_some_and(|v| v >= 0.3),
            "{record}"
        );
        assert!(
            record["phases"]["timing"]
                .as_f64()
                .is_some_and(|v| v >= 0.3),
            "{record}"
        );
        assert_eq!(record["phases"]["check"], 0.0, "{record}");
    }
    // Those timed but no faster than the best were not checked either.
    for record in records.iter().filter(|r| r["flag"] == "slower") {
        assert_eq!(record["phases"]["check"], 0.0, "{record}");
    }
    // Each candidate's build without the dump ran first; the slow ones ran
    // once and their build with the dump never ran, the others' at most
    // once (when faster than the best).
    let mut slow = 0;
    for entry in std::fs::read_dir(work.join("builds")).unwrap() {
        let build = entry.unwrap().path();
        let runs = |p: PathBuf| {
            std::fs::read_to_string(p)
                .unwrap_or_default()
                .lines()
                .count()
        };
        // The marker is left where the slow program was compiled.
        if build.join("timed/slow").exists() {
            slow += 1;
            assert_eq!(runs(build.join("runs.log")), 0, "{}", build.display());
            assert_eq!(runs(build.join("timed/runs.log")), 1, "{}", build.display());
        } else {
            assert!(runs(build.join("runs.log")) <= 1, "{}", build.display());
        }
    }
    assert!(slow >= 1);
    // The breakdown says where the time went.
    assert!(stdout.contains("where the search's "), "{stdout}");
    assert!(stdout.contains("  cut off "), "{stdout}");
    let (text, _) = commute_ok(&["report", journal.to_str().unwrap()]);
    assert!(
        text.contains(&format!("{cut} cut off after one run")),
        "{text}"
    );
    assert!(text.contains("  timed runs "), "{text}");
    assert_bounds_hold(&journal);

    // Resumed with a larger budget: the recorded evaluations, cut-offs
    // included, are kept as they are and not run again.
    let before = std::fs::read_to_string(&journal).unwrap();
    let (stdout, stderr) = run("14", true);
    assert!(stderr.contains("resuming 10 evaluations"), "{stderr}");
    assert!(
        stdout.contains("after 14 evaluations (10 replayed from the journal)"),
        "{stdout}"
    );
    let after = std::fs::read_to_string(&journal).unwrap();
    assert!(after.starts_with(&before));
    assert_eq!(evaluation_lines(&after), 14);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_candidate_miscompiled_by_polly_is_a_failure_not_a_legality_bug() {
    let dir = scratch("miscompiled");
    // A compiler that takes `-mllvm -polly` (so the space offers Polly),
    // but, given it, drops it and builds gemm with `alpha` doubled: a
    // stand-in for an optimizer that miscompiles.
    let fake = dir.join("miscompiling-cc");
    write_script(
        &fake,
        r#"#!/bin/sh
case " $* " in *" -polly "*) ;; *) exec cc "$@" ;; esac
for a in "$@"; do
  shift
  case "$a" in
    -mllvm|-polly*) ;;
    *.c) sed 's/alpha \* /2 * alpha * /' "$a" > "$a.miscompiled.c"
         set -- "$@" "$a.miscompiled.c" ;;
    *) set -- "$@" "$a" ;;
  esac
done
exec cc "$@"
"#,
    );
    let work = dir.join("work");
    let (_, stdout, stderr) = run_small_gemm(&[
        "--search",
        "random",
        "--budget",
        "3",
        "--seed",
        "1",
        "--runs",
        "1",
        "--cutoff",
        "0",
        // Parallel candidates of a tiny kernel can take long on a loaded
        // machine; every one must be built and checked here.
        "--run-timeout",
        "20",
        "--no-polly-start",
        "--fix",
        "optimizer() = POLLY",
        "--cc",
        fake.to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert!(
        stderr.contains("without those flags its output matches the original's"),
        "{stdout}\n{stderr}"
    );
    assert!(!stderr.contains("LEGALITY BUG"), "{stderr}");
    let records = journal_records(&work.join("journal.jsonl"));
    assert!(!records.is_empty());
    for record in &records {
        assert_eq!(record["status"], "failed", "{record}");
        assert!(
            record["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("miscompiled with `-mllvm -polly`")),
            "{record}"
        );
    }
    assert!(work.join("miscompiled-0.c").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn killing_a_search_while_it_builds_ahead_loses_no_recorded_evaluation() {
    use std::process::Stdio;
    let dir = scratch("kill");
    // A compiler that takes half a second, and leaves a marker file while
    // it runs.
    let fake = dir.join("slow-cc");
    let markers = dir.join("markers");
    std::fs::create_dir_all(&markers).unwrap();
    write_script(
        &fake,
        &format!(
            "#!/bin/sh\ncase \" $* \" in *\" -E \"*) exec cc \"$@\" ;; esac\ncase \" $* \" in *\" -o \"*) ;; *) exec cc \"$@\" ;; esac\ntouch {m}/building.$$\nsleep 0.5\ncc \"$@\"\nstatus=$?\nrm -f {m}/building.$$\nexit $status\n",
            m = markers.display()
        ),
    );
    let work = dir.join("work");
    let journal = work.join("journal.jsonl");
    let args = |budget: &'static str, resume: bool| {
        let mut args = vec![
            "tune".to_string(),
            "examples/gemm.c".into(),
            "--search".into(),
            "random".into(),
            "--budget".into(),
            budget.into(),
            "--seed".into(),
            "7".into(),
            "--runs".into(),
            "1".into(),
            "--jobs".into(),
            "2".into(),
            "--batch".into(),
            "4".into(),
            "--cc".into(),
            fake.to_str().unwrap().into(),
            "--work-dir".into(),
            work.to_str().unwrap().into(),
        ];
        if resume {
            args.push("--resume".into());
        }
        args.push("--".into());
        args.extend(SMALL_GEMM.iter().map(|s| s.to_string()));
        args
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_commute"))
        .args(args("40", false))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run commute");
    let building = || std::fs::read_dir(&markers).map(|d| d.count()).unwrap_or(0);
    // Wait for a batch's evaluations in the journal and the next batch's
    // compiles, two at once, then kill.
    let start = std::time::Instant::now();
    let recorded = loop {
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        let evaluations = evaluation_lines(&text);
        if evaluations >= 4 && building() >= 2 {
            break text;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "no parallel build after {evaluations} evaluations"
        );
        assert!(child.try_wait().unwrap().is_none(), "commute ended early");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    child.kill().expect("kill -9");
    child.wait().unwrap();
    let after = std::fs::read_to_string(&journal).unwrap();
    assert!(
        after.starts_with(&recorded),
        "recorded evaluations were lost:\n{recorded}\n---\n{after}"
    );
    // The output holds the fastest program known when it was killed (the
    // original program, or a faster candidate), whole, with its command.
    let tuned = std::fs::read_to_string(work.join("gemm.tuned.c"))
        .expect("the output is written before the search");
    assert!(
        tuned.starts_with("/* commute: built with: ") && tuned.contains("slow-cc"),
        "{tuned}"
    );
    assert!(tuned.trim_end().ends_with('}'), "{tuned}");
    let kept = evaluation_lines(&after);
    // The killed compiles finish by themselves.
    let start = std::time::Instant::now();
    while building() > 0 && start.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let budget: &'static str = Box::leak((kept + 2).to_string().into_boxed_str());
    let output = Command::new(env!("CARGO_BIN_EXE_commute"))
        .args(args(budget, true))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("resume");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!("resuming {kept} evaluations")),
        "{stderr}"
    );
    let resumed = std::fs::read_to_string(&journal).unwrap();
    assert!(resumed.starts_with(&after));
    assert_eq!(evaluation_lines(&resumed), kept + 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_lower_bound_stays_under_every_measured_time() {
    // Parallel inner loops: each is a parallel region per iteration of the
    // loops around it, which the bound counts.
    let dir = scratch("bound");
    let work = dir.join("work");
    let compiler = clang_with_directives().unwrap_or("cc");
    let (_, stderr) = tune_small_gemm(&[
        "--search",
        "random",
        "--budget",
        "8",
        "--seed",
        "3",
        "--runs",
        "2",
        "--cutoff",
        "0",
        // Runs are not stopped at three times the best: on a loaded
        // machine too many would be, and the bound needs measured times.
        "--run-timeout",
        "10",
        "--cc",
        compiler,
        "--fix",
        "dim_kind(j#2) = PARALLEL",
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert!(stderr.contains("lower bound: "), "{stderr}");
    let journal = work.join("journal.jsonl");
    assert!(assert_bounds_hold(&journal) >= 4, "{stderr}");
    // The bound says something: the regions of the inner parallel loop,
    // once per iteration of the loops around it (i and k unless the
    // candidate nests them otherwise).
    let bounds: Vec<f64> = journal_records(&journal)
        .iter()
        .filter_map(|r| r["bound"].as_f64())
        .collect();
    assert!(bounds.iter().any(|b| *b > 5e-4), "{bounds:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `commute tune examples/gemm.c` at the small sizes with `options`
/// (which the compiler flags follow); fails the test if it fails.
fn tune_small_gemm(options: &[&str]) -> (String, String) {
    let (output, stdout, stderr) = run_small_gemm(options);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// [`tune_small_gemm`] whatever its exit status: the output, stdout and
/// stderr.
fn run_small_gemm(options: &[&str]) -> (Output, String, String) {
    let mut args = vec!["tune", "examples/gemm.c"];
    args.extend(options);
    args.push("--");
    args.extend(SMALL_GEMM);
    let output = commute(&args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output, stdout, stderr)
}

/// The baseline records of a journal, by name, with their flags.
fn baseline_records(journal: &Path) -> Vec<(String, String)> {
    journal_lines(journal)
        .into_iter()
        .filter(|r| r["record"] == "baseline")
        .map(|r| {
            (
                r["name"].as_str().unwrap_or("").to_string(),
                r["flags"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn tune_measures_baselines_and_names_the_flags_on_the_first_line() {
    let dir = scratch("baselines");
    let out = dir.join("gemm.tuned.c");
    let work = dir.join("work");
    let (stdout, stderr) = tune_small_gemm(&[
        "--budget",
        "2",
        "--runs",
        "1",
        "--cc",
        "cc",
        "-o",
        out.to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    // gcc has no Polly: one clear line, no Polly baselines, and the
    // search starts from the root.
    assert_eq!(stderr.matches("has no Polly").count(), 1, "{stderr}");
    assert!(!stderr.contains("Polly's schedule"), "{stderr}");
    // The blocked start is evaluated first, Polly or not.
    assert!(
        stderr.contains("blocked start: S1: rows i@S1, sum over k, columns j#2 in vector lanes"),
        "{stderr}"
    );
    let journal = work.join("journal.jsonl");
    let header = std::fs::read_to_string(&journal).expect("journal");
    assert!(header.contains("\"blocked_start\":true"), "{header}");
    let baselines = baseline_records(&journal);
    assert_eq!(baselines.len(), 1, "{baselines:?}");
    assert_eq!(baselines[0].0, "plain");
    assert!(
        baselines[0].1.ends_with("-O2 -DNI=40 -DNJ=44 -DNK=48 -lm"),
        "{baselines:?}"
    );
    assert!(
        stdout.contains("baselines (the unmodified program"),
        "{stdout}"
    );
    assert!(stdout.contains("  plain: "), "{stdout}");
    let tuned = std::fs::read_to_string(&out).expect("written");
    let first = tuned.lines().next().unwrap_or("");
    assert!(
        first.starts_with("/* commute: built with: ")
            && first.contains("-DPOLYBENCH_TIME -O2 -DNI=40 -DNJ=44 -DNK=48 -lm */"),
        "{first}"
    );
    assert!(
        stdout.contains(&format!("built with: {}", baselines[0].1)),
        "{stdout}"
    );
    // Runs bind their threads unless the environment says how.
    let told =
        std::env::var_os("OMP_PROC_BIND").is_some() || std::env::var_os("OMP_PLACES").is_some();
    assert!(
        stdout.contains("timed with: OMP_NUM_THREADS=")
            && (told || stdout.contains("OMP_PROC_BIND=spread")),
        "{stdout}"
    );
    let (report, _) = commute_ok(&["report", journal.to_str().unwrap()]);
    assert!(report.contains("  plain: "), "{report}");
    assert!(report.contains("over it"), "{report}");
    assert!(report.contains("written: "), "{report}");
    // `commute lower` names the flags it would be built with.
    let (lowered, _) = commute_ok(&["lower", "examples/gemm.c", "--cc", "cc", "--", "-O1"]);
    let first = lowered.lines().next().unwrap_or("");
    assert!(
        first.starts_with("/* commute: built with: ") && first.ends_with(" -O1 -lm */"),
        "{first}"
    );

    // With clang: Polly and Polly parallel (clang-22 has Polly), and
    // another compiler when asked.
    let Some(clang) = clang_with_directives() else {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    let work = dir.join("clang");
    let (stdout, stderr) = tune_small_gemm(&[
        "--budget",
        "1",
        "--runs",
        "1",
        "--cc",
        clang,
        "--baseline-cc",
        "cc",
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    let baselines = baseline_records(&work.join("journal.jsonl"));
    let names: Vec<&str> = baselines.iter().map(|(n, _)| n.as_str()).collect();
    if clang == "clang-22" {
        assert_eq!(
            names,
            ["plain", "polly", "polly-parallel", "cc"],
            "{stderr}"
        );
        assert!(baselines[2]
            .1
            .contains("-mllvm -polly -mllvm -polly-parallel"));
        assert!(stdout.contains("  polly-parallel: "), "{stdout}");
    }
    assert_eq!(names.last(), Some(&"cc"));
    if clang == "clang-22" {
        // Polly as a decision: candidates built with it name it.
        let out = dir.join("gemm.polly.c");
        let work = dir.join("polly");
        let (stdout, _) = tune_small_gemm(&[
            "--budget",
            "2",
            "--runs",
            "1",
            "--cc",
            clang,
            "--fix",
            "optimizer() = POLLY",
            "--no-baselines",
            "-o",
            out.to_str().unwrap(),
            "--work-dir",
            work.to_str().unwrap(),
        ]);
        assert!(stdout.contains("optimizer() = POLLY"), "{stdout}");
        let tuned = std::fs::read_to_string(&out).expect("written");
        let first = tuned.lines().next().unwrap_or("");
        assert!(first.ends_with("-DNK=48 -mllvm -polly -lm */"), "{first}");
        let (lowered, _) = commute_ok(&[
            "lower",
            "examples/gemm.c",
            "--cc",
            clang,
            "--fix",
            "optimizer() = POLLY_PARALLEL",
        ]);
        let first = lowered.lines().next().unwrap_or("");
        assert!(
            first.ends_with("-mllvm -polly -mllvm -polly-parallel -lm */"),
            "{first}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn show_polly_prints_polly_s_schedule_and_tune_starts_from_it() {
    let Some(clang) = clang_with_directives() else {
        return;
    };
    let shown = commute(&["show", "examples/gemm.c", "--polly", "--cc", clang]);
    if clang != "clang-22" && !shown.status.success() {
        return; // Another clang, maybe without Polly: the schedules below are clang-22's.
    }
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let stdout = String::from_utf8_lossy(&shown.stdout).into_owned();
    // clang-22's Polly tiles both statements by 32 and runs `k` inside
    // `j` (the original nests `j` inside `k`).
    assert!(stdout.contains("Polly's region: "), "{stdout}");
    assert!(
        stdout.contains("  S0 is Polly's ") && stdout.contains("  S1 is Polly's "),
        "{stdout}"
    );
    for fix in [
        "tile_size(i) = 32",
        "tile_size(k) = 32",
        "order(k, j#2) = INNER",
        "dim_kind(i.tile) = PARALLEL",
    ] {
        assert!(
            stdout.contains(&format!("--fix \"{fix}\"")),
            "{fix}: {stdout}"
        );
    }
    assert!(stdout.contains("for i tiles of 32 parallel"), "{stdout}");
    assert!(stdout.contains("everything translated"), "{stdout}");

    // `commute tune` evaluates Polly's schedule first.
    let dir = scratch("polly-start");
    let work = dir.join("work");
    let (_, stderr) = tune_small_gemm(&[
        "--budget",
        "3",
        "--runs",
        "1",
        "--cc",
        clang,
        "--no-baselines",
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert!(
        stderr.contains("Polly's schedule (") && stderr.contains("the search starts from it"),
        "{stderr}"
    );
    let journal = work.join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).expect("journal");
    let header: serde_json::Value =
        serde_json::from_str(text.lines().next().unwrap_or("")).expect("a header");
    assert_eq!(header["config"]["polly_start"], true, "{header}");
    // The same search resumes (the starts are replayed, not run again).
    let (_, stderr) = tune_small_gemm(&[
        "--budget",
        "4",
        "--runs",
        "1",
        "--cc",
        clang,
        "--no-baselines",
        "--resume",
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert!(stderr.contains("resuming 3 evaluations"), "{stderr}");
    assert_eq!(
        evaluation_lines(&std::fs::read_to_string(&journal).unwrap()),
        4
    );
    // `--no-polly-start` starts from the root.
    let (_, stderr) = tune_small_gemm(&[
        "--budget",
        "1",
        "--runs",
        "1",
        "--cc",
        clang,
        "--no-baselines",
        "--no-polly-start",
        "--work-dir",
        dir.join("root").to_str().unwrap(),
    ]);
    assert!(!stderr.contains("Polly's schedule"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_baseline_faster_than_every_candidate_is_written_as_the_original_program() {
    let dir = scratch("baseline-wins");
    // A compiler whose candidates (they list their decisions in a comment)
    // sleep 300 ms in their timed region: the unmodified program wins.
    let fake = dir.join("slow-candidates-cc");
    write_script(
        &fake,
        r#"#!/bin/sh
src=""
for a in "$@"; do case "$a" in *.c) src="$a";; esac; done
if [ -n "$src" ] && grep -q "decisions that differ" "$src"; then
  sed 's/^  kernel(alpha, beta);/  kernel(alpha, beta); usleep(300000);/' "$src" > slow.c
  for a in "$@"; do
    shift
    if [ "$a" = "$src" ]; then set -- "$@" slow.c; else set -- "$@" "$a"; fi
  done
  exec cc -include unistd.h "$@"
fi
exec cc "$@"
"#,
    );
    let out = dir.join("gemm.tuned.c");
    let work = dir.join("work");
    let (stdout, _) = tune_small_gemm(&[
        "--budget",
        "2",
        "--runs",
        "1",
        "--no-bound",
        // Past the candidates' 300 ms sleep: they are measured slow, not
        // timed out.
        "--run-timeout",
        "1",
        "--cc",
        fake.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("the baseline `plain` is faster than every candidate"),
        "{stdout}"
    );
    // Far slower than the baseline, every candidate (the original nest
    // lowered included) is cut off against it after one run.
    assert!(
        stdout.contains(
            "no candidate came within the cut-off of the fastest baseline (3 cut off after one run"
        ),
        "{stdout}"
    );
    let tuned = std::fs::read_to_string(&out).expect("written");
    let original = std::fs::read_to_string("examples/gemm.c").unwrap();
    let (first, rest) = tuned.split_once('\n').unwrap();
    let commented = original
        .replace("\n#pragma scop\n", "\n/* commute: #pragma scop */\n")
        .replace("\n#pragma endscop\n", "\n/* commute: #pragma endscop */\n");
    assert_eq!(
        rest, commented,
        "the original program is written, its region's pragmas commented"
    );
    assert!(
        first.starts_with(&format!("/* commute: built with: {}", fake.display()))
            && first.ends_with("-O2 -DNI=40 -DNJ=44 -DNK=48 -lm */"),
        "{first}"
    );
    // It builds with the command it names (`-Werror=unknown-pragmas`
    // among its flags).
    let command = first
        .trim_start_matches("/* commute: built with: ")
        .trim_end_matches(" -lm */");
    assert!(command.contains("-Werror=unknown-pragmas"), "{command}");
    let mut words = command.split_whitespace();
    let status = std::process::Command::new(words.next().unwrap())
        .args(words)
        .arg("-Iexamples")
        .arg(&out)
        .arg("-o")
        .arg(dir.join("written"))
        .arg("-lm")
        .status()
        .expect("the compiler runs");
    assert!(status.success(), "the written program does not build");
    let (report, _) = commute_ok(&["report", work.join("journal.jsonl").to_str().unwrap()]);
    assert!(report.contains("written: baseline plain"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}
