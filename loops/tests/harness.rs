//! The evaluation harness with the system `cc`: the reference build and
//! cache, wrong outputs, crashes, run and compile timeouts, compile
//! errors (ignored directives included), the tolerance, and compiler
//! detection.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use commute_loops::harness::{
    floats_equal, Compiler, Harness, HarnessConfig, HarnessErrorKind, Measurement, TimePattern,
};

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "commute-harness-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("create the temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// A small PolyBench-style program: `A` initialized, `kernel` (the body of
/// `for (i..) for (j..)`, ten sweeps) timed, `A` dumped.
fn program(body: &str) -> String {
    format!(
        r#"#include <stdio.h>
#include <stdlib.h>
#include "harness.h"
#define N 128
static double A[N][N];
static void kernel(void) {{
  int t, i, j;
#pragma scop
  for (t = 0; t < 10; t++)
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        {body}
#pragma endscop
}}
int main(int argc, char **argv) {{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * j + 1) % N) / N;
  double start = harness_now();
  kernel();
  harness_report_time(harness_now() - start);
  harness_dump(argc, argv, "A", &A[0][0], (long)N * N);
  return 0;
}}
"#
    )
}

const BODY: &str = "A[i][j] = A[i][j] * 0.5 + 1.0;";

fn config(compiler: Compiler, dir: &TempDir) -> HarnessConfig {
    let mut config = HarnessConfig::new(compiler, dir.0.join("work"));
    config.cflags = vec!["-O2".to_string()];
    config.include_dirs = vec![examples_dir()];
    config.threads = 1;
    config.runs = 2;
    config.run_timeout_floor = Duration::from_secs(1);
    config
}

fn cc() -> Compiler {
    Compiler::detect(Some("cc")).unwrap_or_else(|e| panic!("{e}"))
}

fn harness(dir: &TempDir) -> Harness {
    Harness::new(config(cc(), dir), &program(BODY)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn reference_builds_runs_and_is_cached() {
    let dir = TempDir::new("reference");
    let mut harness = harness(&dir);
    assert!(harness.reference_seconds() > 0.0);
    assert_eq!(harness.compiles(), 1);
    let reference = program(BODY);
    let build = harness.build_dir(&reference);
    assert!(build.starts_with(dir.0.join("work")));
    let name = build.file_name().and_then(|n| n.to_str()).unwrap_or("");
    assert_eq!(name.len(), 16);
    assert!(name.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(build.join("kernel").is_file());

    // The reference itself is cached.
    let measured = harness.evaluate(&reference);
    assert!(matches!(measured, Measurement::Timed { seconds, .. } if seconds > 0.0));
    assert_eq!(harness.compiles(), 1);

    // An equivalent candidate is built once; the second evaluation is cached.
    let candidate = format!("/* candidate */\n{reference}");
    let first = harness.evaluate(&candidate);
    let Measurement::Timed { seconds, runs } = &first else {
        panic!("{}", first.summary())
    };
    assert!(*seconds > 0.0);
    // Ten-sweep kernels on 128 x 128 take well under 50 ms: runs doubled.
    assert_eq!(runs.len(), 4);
    assert_eq!(*seconds, runs.iter().copied().fold(f64::INFINITY, f64::min));
    assert_eq!(harness.compiles(), 2);
    assert_ne!(harness.build_dir(&candidate), build);
    let start = Instant::now();
    let second = harness.evaluate(&candidate);
    assert!(start.elapsed() < Duration::from_millis(50));
    assert_eq!(first, second);
    assert_eq!(harness.compiles(), 2);
    assert!(
        first.summary().contains("minimum of 4 runs"),
        "{}",
        first.summary()
    );

    // Interleaved re-measurement of two evaluated programs.
    let (a, b) = harness
        .remeasure(&reference, &candidate, 2)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(a > 0.0 && b > 0.0);
    let error = harness
        .remeasure(&reference, "int main(void) { return 0; }", 2)
        .expect_err("not evaluated");
    assert_eq!(error.kind(), HarnessErrorKind::Remeasure);
    assert!(error.to_string().contains("challenger"), "{error}");
}

#[test]
fn a_reference_whose_runs_would_outlast_their_share_gets_one_and_a_deadline_stops_runs() {
    let dir = TempDir::new("reference-share");
    let mut config = config(cc(), &dir);
    // Any run takes longer than nothing: one timed run (doubled, the
    // kernel being short), not four.
    config.reference_runs_within = Some(Duration::ZERO);
    let mut harness = Harness::new(config, &program(BODY)).unwrap_or_else(|e| panic!("{e}"));
    let Measurement::Timed { runs, .. } = harness.evaluate(&program(BODY)) else {
        panic!("the reference is timed")
    };
    assert_eq!(runs.len(), 2);
    // Candidates keep their runs.
    let candidate = format!("/* candidate */\n{}", program(BODY));
    let Measurement::Timed { runs, .. } = harness.evaluate(&candidate) else {
        panic!("the candidate is timed")
    };
    assert_eq!(runs.len(), 4);
    // Past the deadline, a candidate's run ends at once, as timed out.
    harness.set_deadline(Some(Instant::now()));
    assert!(harness.past_deadline());
    assert_eq!(harness.run_timeout(), Duration::ZERO);
    let late = format!("/* late */\n{}", program(BODY));
    let measured = harness.evaluate(&late);
    assert!(
        matches!(measured, Measurement::RunTimedOut { .. }),
        "{}",
        measured.summary()
    );
}

#[test]
fn a_reference_cut_to_one_run_counts_its_check_run() {
    // Its kernel prints its time: the check run is one of the runs.
    for (name, source, timed_runs) in [
        // Short (doubled to two runs): the check run and one timed run.
        ("short", program(BODY), 1),
        // 60 ms: one run, the check run's.
        ("long", sleeping(60_000), 0),
    ] {
        let dir = TempDir::new(&format!("reference-check-counts-{name}"));
        let mut config = config(counting_compiler(&dir), &dir);
        config.reference_runs_within = Some(Duration::ZERO);
        let mut harness = Harness::new(config, &source).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(runs_under(&dir.0.join("work")), (1, timed_runs), "{name}");
        let Measurement::Timed { runs, seconds } = harness.evaluate(&source) else {
            panic!("the reference is timed")
        };
        assert_eq!(runs.len(), timed_runs + 1, "{name}");
        assert_eq!(seconds, harness.reference_seconds());
    }
}

#[test]
fn a_deadline_between_the_runs_of_one_candidate_stops_the_next_run() {
    let dir = TempDir::new("deadline-runs");
    let mut settings = config(cc(), &dir);
    settings.runs = 4;
    let mut harness = Harness::new(settings, &program(BODY)).unwrap_or_else(|e| panic!("{e}"));
    // Four timed runs of 0.3 s and a check run, each under a timeout
    // computed before the first (what is left then: a second); the
    // deadline comes during the third or fourth, which stops there.
    let slow = sleeping(300_000);
    let start = Instant::now();
    harness.set_deadline(Some(start + Duration::from_secs(1)));
    let measured = harness.evaluate(&slow);
    let waited = start.elapsed();
    assert!(
        matches!(measured, Measurement::RunTimedOut { .. }),
        "{}",
        measured.summary()
    );
    assert!(waited < Duration::from_millis(1250), "{waited:?}");
}

#[test]
fn a_different_value_is_wrong_output_naming_array_and_index() {
    let dir = TempDir::new("wrong");
    let mut harness = harness(&dir);
    let measured = harness.evaluate(&program(
        "A[i][j] = A[i][j] * 0.5 + 1.0 + (t == 9 && i == 3 && j == 5 ? 1e-3 : 0.0);",
    ));
    let Measurement::WrongOutput { detail } = &measured else {
        panic!("{}", measured.summary())
    };
    assert!(detail.contains("array A, index 389"), "{detail}");
    assert!(
        detail.contains("expected") && detail.contains("got"),
        "{detail}"
    );
    assert!(measured.summary().starts_with("wrong output: array A"));
}

#[test]
fn crashes_and_run_timeouts() {
    let dir = TempDir::new("crash");
    let mut harness = harness(&dir);
    let measured = harness.evaluate(&program("{ if (t == 1) abort(); A[i][j] += 1.0; }"));
    let Measurement::Crashed { detail } = &measured else {
        panic!("{}", measured.summary())
    };
    assert!(detail.contains("SIGABRT"), "{detail}");

    let measured = harness.evaluate(&program("{ if (t == 1) exit(3); A[i][j] += 1.0; }"));
    let Measurement::Crashed { detail } = &measured else {
        panic!("{}", measured.summary())
    };
    assert!(detail.contains("exit status 3"), "{detail}");

    assert_eq!(harness.run_timeout(), Duration::from_secs(1));
    let start = Instant::now();
    let measured = harness.evaluate(&program(
        "{ volatile int spin = 1; while (spin) A[i][j] += 1.0; }",
    ));
    assert!(
        matches!(measured, Measurement::RunTimedOut { seconds } if seconds == 1.0),
        "{}",
        measured.summary()
    );
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_hanging_compiler_times_out_and_the_next_candidate_still_builds() {
    let dir = TempDir::new("hang");
    let compiler = scripted_compiler(
        &dir,
        "fake-cc",
        "#!/bin/sh\nfor a in \"$@\"; do\n  case \"$a\" in\n    *.c) if grep -q HANG_MARKER \"$a\"; then sleep 100; fi ;;\n  esac\ndone\nexec cc \"$@\"\n",
    );
    let mut config = config(compiler, &dir);
    config.compile_timeout = Duration::from_secs(1);
    let mut harness = Harness::new(config, &program(BODY)).unwrap_or_else(|e| panic!("{e}"));

    let start = Instant::now();
    let measured = harness.evaluate(&format!("/* HANG_MARKER */\n{}", program(BODY)));
    assert!(
        matches!(measured, Measurement::CompileTimedOut { seconds } if (1.0..5.0).contains(&seconds)),
        "{}",
        measured.summary()
    );
    assert!(start.elapsed() < Duration::from_secs(10));

    let measured = harness.evaluate(&format!("/* fine */\n{}", program(BODY)));
    assert!(measured.is_timed(), "{}", measured.summary());
}

#[test]
fn compile_errors_keep_the_compilers_message() {
    let dir = TempDir::new("syntax");
    let mut harness = harness(&dir);
    let measured = harness.evaluate(&program("A[i][j] = A[i][j] * ;"));
    let Measurement::CompileFailed { log } = &measured else {
        panic!("{}", measured.summary())
    };
    assert!(log.contains("error"), "{log}");
    assert!(log.lines().count() <= 41, "{log}");
    assert!(measured.summary().starts_with("compile failed:"));
}

#[test]
fn an_ignored_directive_is_a_compile_error() {
    let dir = TempDir::new("pragma");
    let mut harness = harness(&dir);
    if harness.config().compiler.supports_loop_directives() {
        return; // `cc` is a clang that implements `tile`.
    }
    let source = program(BODY).replace(
        "  for (t = 0;",
        "  #pragma omp tile sizes(4)\n  for (t = 0;",
    );
    let measured = harness.evaluate(&source);
    let Measurement::CompileFailed { log } = &measured else {
        panic!("{}", measured.summary())
    };
    assert!(log.contains("pragma"), "{log}");
}

/// A program without a dump: its values on stdout with 17 digits, then
/// its time.
fn printing(scale: &str) -> String {
    format!(
        r#"#include <stdio.h>
#include "harness.h"
int main(void) {{
  double x[4] = {{1.0, 3.0, 0.0, 2.5e10}};
  double start = harness_now();
  for (int k = 0; k < 4; k++) x[k] = x[k] * {scale};
  printf("values:");
  for (int k = 0; k < 4; k++) printf(" %.17e", x[k]);
  printf("\n");
  harness_report_time(harness_now() - start);
  return 0;
}}
"#
    )
}

#[test]
fn values_within_the_tolerance_are_equal() {
    assert!(floats_equal(1.0, 1.0 + 1e-12, 1e-6));
    assert!(floats_equal(0.0, 1e-13, 1e-6));
    assert!(!floats_equal(1.0, 1.001, 1e-6));
    assert!(floats_equal(f64::NAN, f64::NAN, 1e-6));

    let dir = TempDir::new("tolerance");
    let mut config = config(cc(), &dir);
    config.time_pattern = TimePattern::LastFloatLine;
    let mut harness = Harness::new(config, &printing("1.0")).unwrap_or_else(|e| panic!("{e}"));
    let close = harness.evaluate(&printing("(1.0 + 1e-12)"));
    assert!(close.is_timed(), "{}", close.summary());
    let far = harness.evaluate(&printing("(1.0 + 1e-3)"));
    let Measurement::WrongOutput { detail } = &far else {
        panic!("{}", far.summary())
    };
    assert!(detail.contains("stdout, value 1"), "{detail}");
}

/// A program that prints its result, a large number, on the last line
/// of its standard output, and no time.
fn printing_a_result(offset: &str) -> String {
    format!(
        r#"#include <stdio.h>
int main(void) {{
  double sum = 0.0;
  for (int k = 0; k < 1000; k++) sum += 1e8 * k;
  printf("%.10e\n", sum + {offset});
  return 0;
}}
"#
    )
}

#[test]
fn a_printed_number_longer_than_the_run_is_a_result_not_its_time() {
    let dir = TempDir::new("result");
    let harness_for = |source: &str| Harness::new(config(cc(), &dir), source);
    let mut harness = harness_for(&printing_a_result("0.0")).unwrap_or_else(|e| panic!("{e}"));
    // Timed by its wall time, not the 5e13 it prints.
    assert!(
        harness.reference_seconds() < 10.0,
        "{}",
        harness.reference_seconds()
    );
    let note = harness.time_note().expect("a note");
    assert!(
        note.contains("49950000000000") && note.contains("wall time"),
        "{note}"
    );
    // The number is its output: a program printing another is wrong.
    let other = harness.evaluate(&printing_a_result("1e12"));
    assert!(
        matches!(other, Measurement::WrongOutput { .. }),
        "{}",
        other.summary()
    );
    assert!(harness.evaluate(&printing_a_result("0.0 * 1")).is_timed());
    // A program printing its time keeps it, without a note.
    let timed = harness_for(&printing("1.0")).unwrap_or_else(|e| panic!("{e}"));
    assert!(timed.time_note().is_none());
}

#[test]
fn compiler_detection() {
    let error = Compiler::detect(Some("no-such-cc")).expect_err("no such compiler");
    assert_eq!(error.kind(), HarnessErrorKind::Compiler);
    assert!(error.to_string().contains("no-such-cc"), "{error}");
    let found = Compiler::detect(None).unwrap_or_else(|e| panic!("{e}"));
    assert!(!found.version_line.is_empty());
    assert!(found.path.is_file());
}

/// Writes an executable script.
fn script(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write the script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .expect("make the script executable");
    }
}

/// The compiler the shell script `text`, written as `name` in `dir`, is.
fn scripted_compiler(dir: &TempDir, name: &str, text: &str) -> Compiler {
    let path = dir.0.join(name);
    script(&path, text);
    Compiler::detect(path.to_str()).unwrap_or_else(|e| panic!("{e}"))
}

/// A compiler that builds with `cc` and wraps the program in a script
/// that appends `check` (a build with the dump) or `timed` to `runs.log`
/// in its build directory each time it runs (objects, `-c`, as they are).
fn counting_compiler(dir: &TempDir) -> Compiler {
    scripted_compiler(
        dir,
        "counting-cc",
        r#"#!/bin/sh
case " $* " in *" -c "*) exec cc "$@" ;; *" -o "*) ;; *) exec cc "$@" ;; esac
out=""; kind=timed; prev=""
for a in "$@"; do
  shift
  if [ "$prev" = "-o" ]; then out="$a"; set -- "$@" "$a.real"; else set -- "$@" "$a"; fi
  [ "$a" = "-DPOLYBENCH_DUMP_ARRAYS" ] && kind=check
  prev="$a"
done
cc "$@" || exit 1
printf '#!/bin/sh\necho %s >> "%s/runs.log"\nexec "%s/%s.real" "$@"\n' "$kind" "$(pwd)" "$(pwd)" "$out" > "$out"
chmod +x "$out"
"#,
    )
}

/// Evaluates `source`, which must be stopped at the run timeout after
/// less than `seconds`.
fn assert_stopped(harness: &mut Harness, source: &str, seconds: f64) {
    let start = Instant::now();
    let measured = harness.evaluate(source);
    assert!(
        matches!(measured, Measurement::RunTimedOut { seconds: s } if s < seconds),
        "{}",
        measured.summary()
    );
    let waited = start.elapsed();
    assert!(
        waited < Duration::from_secs_f64(seconds + 2.0),
        "{waited:?}"
    );
}

/// The runs of each build of the source built in `build`: (check, timed).
fn runs_of(build: &Path) -> (usize, usize) {
    let count = |p: PathBuf| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .count()
    };
    (
        count(build.join("runs.log")),
        count(build.join("timed/runs.log")),
    )
}

/// The program with `usleep(microseconds)` in its timed region.
fn sleeping(microseconds: u64) -> String {
    program(BODY)
        .replace(
            "#include <stdio.h>",
            "#include <stdio.h>\n#include <unistd.h>",
        )
        .replace(
            "  kernel();",
            &format!("  kernel();\n  usleep({microseconds});"),
        )
}

#[test]
fn the_dump_is_compared_once_and_only_the_build_without_it_is_timed() {
    let dir = TempDir::new("once");
    let mut harness = Harness::new(config(counting_compiler(&dir), &dir), &program(BODY))
        .unwrap_or_else(|e| panic!("{e}"));
    let reference = harness.build_dir(&program(BODY));
    // Two runs, doubled below 50 ms.
    assert_eq!(runs_of(&reference), (1, 4));
    let candidate = format!("/* candidate */\n{}", program(BODY));
    let measured = harness.evaluate(&candidate);
    assert!(measured.is_timed(), "{}", measured.summary());
    let build = harness.build_dir(&candidate);
    assert_eq!(runs_of(&build), (1, 4));
    // The dump went to the check run's stderr; the timed runs' was discarded.
    let dump = std::fs::read_to_string(build.join("run.stderr")).expect("the check run's stderr");
    assert!(dump.contains("==BEGIN DUMP_ARRAYS=="));
    assert!(!build.join("timed/run.stderr").exists());
    let phases = harness.last_phases();
    assert!(
        phases.compile > 0.0 && phases.check > 0.0 && phases.timing > 0.0,
        "{phases:?}"
    );
    // Re-measuring runs the timing builds only.
    harness
        .remeasure(&program(BODY), &candidate, 3)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(runs_of(&reference), (1, 7));
    assert_eq!(runs_of(&build), (1, 7));
    // Cached: nothing runs again.
    assert_eq!(harness.evaluate(&candidate), measured);
    assert_eq!(runs_of(&build), (1, 7));
    assert_eq!(harness.last_phases(), Default::default());
}

#[test]
fn a_candidate_far_slower_than_the_best_is_cut_off_after_one_run() {
    let dir = TempDir::new("cutoff");
    let mut harness = Harness::new(config(counting_compiler(&dir), &dir), &program(BODY))
        .unwrap_or_else(|e| panic!("{e}"));
    let slow = sleeping(300_000);
    // Without a best, nothing is cut off.
    let first = harness.evaluate(&format!("/* first */\n{slow}"));
    assert!(first.is_timed(), "{}", first.summary());
    harness.set_incumbent(Some(harness.reference_seconds()));
    let measured = harness.evaluate(&slow);
    let Measurement::CutOff { seconds, limit } = measured else {
        panic!("{}", measured.summary())
    };
    assert!(seconds >= 0.3 && limit < 0.1, "{seconds} {limit}");
    assert!(
        measured.summary().starts_with("cut off after one run: "),
        "{}",
        measured.summary()
    );
    // One timed run; the check build was neither run nor built.
    let build = harness.build_dir(&slow);
    assert_eq!(runs_of(&build), (0, 1));
    assert!(!build.join("kernel").exists());
    let phases = harness.last_phases();
    assert!(phases.timing >= 0.3 && phases.check == 0.0, "{phases:?}");
    // With the cut-off off, it is timed in full.
    let mut config = config(cc(), &dir);
    config.work_dir = dir.0.join("work-full");
    config.cutoff = None;
    let mut full = Harness::new(config, &program(BODY)).unwrap_or_else(|e| panic!("{e}"));
    full.set_incumbent(Some(full.reference_seconds()));
    assert!(full.evaluate(&slow).is_timed());
}

#[test]
fn a_candidate_far_slower_than_the_fastest_baseline_is_cut_off() {
    let dir = TempDir::new("cutoff-baseline");
    let mut harness = Harness::new(config(counting_compiler(&dir), &dir), &program(BODY))
        .unwrap_or_else(|e| panic!("{e}"));
    let fast = harness.reference_seconds();
    // No best yet, but a baseline as fast as the reference: it paces.
    harness.set_baseline(Some(fast));
    assert_eq!(harness.pace(), Some(fast));
    let slow = sleeping(300_000);
    let measured = harness.evaluate(&slow);
    let Measurement::CutOff { seconds, limit } = measured else {
        panic!("{}", measured.summary())
    };
    assert!(seconds >= 0.3 && limit == 2.0 * fast, "{seconds} {limit}");
    assert_eq!(runs_of(&harness.build_dir(&slow)), (0, 1));
    // A slower best leaves the pace to the baseline; a faster one takes it.
    harness.set_incumbent(Some(1.0));
    assert_eq!(harness.pace(), Some(fast));
    harness.set_incumbent(Some(fast / 2.0));
    assert_eq!(harness.pace(), Some(fast / 2.0));
    // With the cut-off off, baselines pace nothing: every candidate is
    // timed in full.
    let mut config = config(cc(), &dir);
    config.work_dir = dir.0.join("work-full");
    config.cutoff = None;
    let mut full = Harness::new(config, &program(BODY)).unwrap_or_else(|e| panic!("{e}"));
    full.set_baseline(Some(full.reference_seconds()));
    assert_eq!(full.pace(), None);
    assert!(full.evaluate(&slow).is_timed());
}

#[test]
fn a_long_run_is_timed_three_times_its_check_run_one_of_them() {
    let dir = TempDir::new("long-run");
    let mut settings = config(counting_compiler(&dir), &dir);
    settings.runs = 5;
    settings.long_run = Duration::from_millis(100);
    let mut harness =
        Harness::new(settings.clone(), &program(BODY)).unwrap_or_else(|e| panic!("{e}"));
    // A run of 0.12 s is long here: a timed run, then (no best yet) its
    // check run, which counts, and one more timed run.
    let long = sleeping(120_000);
    let measured = harness.evaluate(&long);
    assert!(
        matches!(&measured, Measurement::Timed { runs, .. } if runs.len() == 3),
        "{measured:?}"
    );
    assert_eq!(runs_of(&harness.build_dir(&long)), (1, 2));
    // One of 0.06 s is not: five timed runs, then its check.
    assert_timed_and_checked(&mut harness, &sleeping(60_000), 5);
    // A long run no faster than the best: three timed runs, never checked.
    harness.set_incumbent(Some(0.11));
    assert_slower_after(&mut harness, &sleeping(125_000), 3);

    // A long reference: its check run is one of its three runs.
    settings.work_dir = dir.0.join("work-long-reference");
    let reference = sleeping(120_000);
    let mut harness = Harness::new(settings, &reference).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(runs_under(&dir.0.join("work-long-reference")), (1, 2));
    assert!(harness.reference_check_counted());
    let Measurement::Timed { runs, seconds } = harness.evaluate(&reference) else {
        panic!("the reference is timed")
    };
    assert_eq!(runs.len(), 3);
    assert_eq!(seconds, harness.reference_seconds());
}

/// Evaluates `source`, which must be timed `runs` times, then checked
/// once when `checked` (a new best), else no faster than the best and
/// never checked.
fn assert_runs(harness: &mut Harness, source: &str, runs: usize, checked: bool) {
    let measured = harness.evaluate(source);
    let timed = match &measured {
        Measurement::Timed { runs, .. } if checked => runs.len(),
        Measurement::Slower { runs, .. } if !checked => runs.len(),
        _ => panic!("{measured:?}"),
    };
    assert_eq!(timed, runs, "{measured:?}");
    assert_eq!(
        runs_of(&harness.build_dir(source)),
        (usize::from(checked), runs)
    );
}

fn assert_timed_and_checked(harness: &mut Harness, source: &str, runs: usize) {
    assert_runs(harness, source, runs, true);
}

fn assert_slower_after(harness: &mut Harness, source: &str, runs: usize) {
    assert_runs(harness, source, runs, false);
}

#[test]
fn run_timeouts_follow_the_best() {
    let dir = TempDir::new("timeout-best");
    let mut config = config(cc(), &dir);
    config.run_timeout_floor = Duration::from_millis(200);
    config.cutoff = None;
    // A reference of 0.3 s: runs time out after three times that.
    let mut harness = Harness::new(config, &sleeping(300_000)).unwrap_or_else(|e| panic!("{e}"));
    let reference_timeout = harness.run_timeout();
    assert!(
        reference_timeout >= Duration::from_millis(900)
            && reference_timeout < Duration::from_millis(1500),
        "{reference_timeout:?}"
    );
    // Never longer than the reference's rule, whatever the best.
    harness.set_incumbent(Some(2.0));
    assert_eq!(harness.run_timeout(), reference_timeout);
    // A best of 50 ms: three times a run of it, at least the floor.
    harness.set_incumbent(Some(0.05));
    let timeout = harness.run_timeout();
    assert!(
        timeout >= Duration::from_millis(200) && timeout < Duration::from_millis(300),
        "{timeout:?}"
    );
    assert_stopped(&mut harness, &sleeping(3_000_000), 0.3);
}

#[test]
fn a_batch_is_built_in_parallel_before_anything_runs() {
    let dir = TempDir::new("batch");
    let mut config = config(counting_compiler(&dir), &dir);
    config.jobs = 2;
    let mut harness = Harness::new(config, &program(BODY)).unwrap_or_else(|e| panic!("{e}"));
    let sources: Vec<String> = (0..3)
        .map(|k| format!("/* candidate {k} */\n{}", program(BODY)))
        .collect();
    let refs: Vec<&str> = sources.iter().map(String::as_str).collect();
    harness.prepare(&refs);
    assert_eq!(harness.compiles(), 4);
    for source in &sources {
        // The timing build only: the check build waits for a first run
        // within the cut-off.
        let build = harness.build_dir(source);
        let log = std::fs::read_to_string(build.join("timed/compile.log"));
        assert!(build.join("timed/kernel").is_file(), "{log:?}");
        assert!(!build.join("kernel").exists());
        assert_eq!(runs_of(&build), (0, 0), "built, not run");
    }
    // Prepared again: nothing is rebuilt.
    harness.prepare(&refs);
    assert_eq!(harness.compiles(), 4);
    let mut compile = 0.0;
    for source in &sources {
        assert!(harness.evaluate(source).is_timed());
        compile += harness.last_phases().compile;
        assert!(harness.build_dir(source).join("kernel").is_file());
    }
    assert_eq!(harness.compiles(), 4);
    assert!(compile > 0.0);
}

/// A program whose timed loop only feeds the dump: without it, compilers
/// drop the loop.
fn unguarded(comment: &str) -> String {
    format!(
        r#"/* {comment} */
#include <stdio.h>
#include "harness.h"
#define N 1500
static double A[N][N];
int main(void) {{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * j + 1) % N) / N;
  double start = harness_now();
  double s = 0;
  for (int t = 0; t < 10; t++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        s += A[i][j] * 0.5;
  harness_report_time(harness_now() - start);
#ifdef POLYBENCH_DUMP_ARRAYS
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: s\n%0.9e\nend   dump: s\n==END   DUMP_ARRAYS==\n", s);
#endif
  return 0;
}}
"#
    )
}

#[test]
fn a_timing_build_that_lost_its_kernel_gives_way_to_the_check_build() {
    let dir = TempDir::new("dce");
    let mut harness =
        Harness::new(config(cc(), &dir), &unguarded("reference")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(harness.check_build_timings(), 1);
    // Ten sweeps of 1500 x 1500 take milliseconds, not microseconds.
    assert!(
        harness.reference_seconds() > 1e-3,
        "{}",
        harness.reference_seconds()
    );
    let candidate = unguarded("candidate");
    let measured = harness.evaluate(&candidate);
    let Measurement::Timed { seconds, .. } = measured else {
        panic!("{}", measured.summary())
    };
    assert!(seconds > 1e-3, "{seconds}");
    assert_eq!(harness.check_build_timings(), 2);
    // Check builds only, from then on.
    assert!(!harness.build_dir(&candidate).join("timed").exists());
}

#[test]
fn a_run_whose_kernel_outlasts_the_cut_off_is_stopped() {
    let dir = TempDir::new("kernel-limit");
    let mut config = config(counting_compiler(&dir), &dir);
    config.run_timeout_floor = Duration::from_millis(200);
    let mut harness = Harness::new(config, &program(BODY)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(harness.kernel_limit(), None, "no best yet");
    harness.set_incumbent(Some(harness.reference_seconds()));
    let limit = harness
        .kernel_limit()
        .expect("the dump shows where the kernel ends");
    assert_eq!(limit, Duration::from_millis(200));
    assert!(harness.run_timeout() >= limit);
    // Slow in its first, timed run: stopped there, never checked.
    let slow = sleeping(3_000_000);
    assert_stopped(&mut harness, &slow, 0.5);
    assert_eq!(runs_of(&harness.build_dir(&slow)), (0, 1));
    // Slow only with the dump, and faster than the best, so checked after
    // its timed runs: its check run is held to the reference's rule
    // (three times the reference's run, at least the floor).
    harness.set_incumbent(Some(harness.reference_seconds() + 0.05));
    let slow_checked = slow_dump(3_000_000, 0);
    assert_stopped(&mut harness, &slow_checked, 0.5);
    let build = harness.build_dir(&slow_checked);
    assert_eq!(runs_of(&build), (1, 4));
    assert_eq!(
        std::fs::read_to_string(build.join("run.stderr")).unwrap(),
        ""
    );
}

/// A program whose kernel sleeps `check` microseconds in its check build
/// and `timed` in its timing build, and whose dump takes 0.4 s more.
fn slow_dump(check: u64, timed: u64) -> String {
    program(BODY)
        .replace(
            "#include <stdio.h>",
            "#include <stdio.h>\n#include <unistd.h>",
        )
        .replace(
            "  kernel();",
            &format!(
                "  kernel();\n#ifdef POLYBENCH_DUMP_ARRAYS\n  usleep({check});\n#else\n  usleep({timed});\n#endif"
            ),
        )
        .replace(
            "  harness_dump(",
            "#ifdef POLYBENCH_DUMP_ARRAYS\n  usleep(400000);\n#endif\n  harness_dump(",
        )
}

#[test]
fn the_time_outside_the_kernel_comes_from_one_run_of_the_reference() {
    // The reference's check run is faster than its timed runs, as under a
    // changing load: the wall time of the one less the kernel time of the
    // others would leave nothing for its 0.4 s dump.
    let dir = TempDir::new("outside-kernel");
    let mut config = config(cc(), &dir);
    config.run_timeout_floor = Duration::from_millis(200);
    config.cutoff = Some(2.0);
    let mut harness =
        Harness::new(config, &slow_dump(50_000, 500_000)).unwrap_or_else(|e| panic!("{e}"));
    harness.set_incumbent(Some(0.08));
    let timeout = harness.run_timeout();
    assert!(timeout >= Duration::from_millis(550), "{timeout:?}");
    // A candidate faster than the best writes its dump to the end.
    let candidate = format!("/* candidate */\n{}", slow_dump(50_000, 50_000));
    let measured = harness.evaluate(&candidate);
    assert!(
        matches!(measured, Measurement::Timed { .. }),
        "{}",
        measured.summary()
    );
}

#[test]
fn only_a_candidate_faster_than_the_best_is_checked() {
    let dir = TempDir::new("contenders");
    let mut settings = config(counting_compiler(&dir), &dir);
    settings.runs = 4;
    let mut harness = Harness::new(settings, &program(BODY)).unwrap_or_else(|e| panic!("{e}"));
    // A best of 0.1 s: cut off above 0.21 s, two runs only above 0.135 s,
    // three only above 0.112 s.
    harness.set_incumbent(Some(0.1));
    // Twice well above the best: two runs, no check build.
    let above = sleeping(180_000);
    let measured = harness.evaluate(&above);
    let Measurement::Slower { seconds, runs } = &measured else {
        panic!("{}", measured.summary())
    };
    assert!(*seconds >= 0.18 && runs.len() == 2, "{measured:?}");
    assert!(
        measured
            .summary()
            .ends_with("no faster than the best: not checked"),
        "{}",
        measured.summary()
    );
    let build = harness.build_dir(&above);
    assert_eq!(runs_of(&build), (0, 2));
    assert!(!build.join("kernel").exists());
    assert_eq!(harness.last_phases().check, 0.0);
    // A tenth above the best: three runs, not checked.
    assert_slower_after(&mut harness, &sleeping(118_000), 3);
    // Close to the best but not faster: timed in full, not checked.
    assert_slower_after(&mut harness, &sleeping(105_000), 4);
    // Faster: timed in full, then checked once.
    assert_timed_and_checked(&mut harness, &sleeping(40_000), 8);
    // With the cut-off off, every candidate is timed in full and checked.
    let mut config = config(counting_compiler(&dir), &dir);
    config.work_dir = dir.0.join("work-full");
    config.runs = 4;
    config.cutoff = None;
    let mut full = Harness::new(config, &program(BODY)).unwrap_or_else(|e| panic!("{e}"));
    full.set_incumbent(Some(0.1));
    assert!(full.evaluate(&above).is_timed());
    assert_eq!(runs_of(&full.build_dir(&above)), (1, 4));
}

/// A compiler that builds with `cc`, but given `-mllvm -polly` defines
/// `MISCOMPILED` instead: a stand-in for an optimizer that miscompiles.
fn miscompiling_compiler(dir: &TempDir) -> Compiler {
    scripted_compiler(
        dir,
        "miscompiling-cc",
        r#"#!/bin/sh
case " $* " in *" -polly "*) ;; *) exec cc "$@" ;; esac
for a in "$@"; do
  shift
  case "$a" in -mllvm|-polly) ;; *) set -- "$@" "$a" ;; esac
done
exec cc -DMISCOMPILED "$@"
"#,
    )
}

#[test]
fn a_candidate_wrong_only_with_an_optimizers_flags_checks_without_them() {
    let dir = TempDir::new("miscompiled");
    let compiler = miscompiling_compiler(&dir);
    let mut harness = Harness::new(config(compiler.clone(), &dir), &program(BODY))
        .unwrap_or_else(|e| panic!("{e}"));
    let source = format!(
        "#ifdef MISCOMPILED\n#define OFFSET 2.0\n#else\n#define OFFSET 1.0\n#endif\n{}",
        program("A[i][j] = A[i][j] * 0.5 + OFFSET;")
    );
    let polly = ["-mllvm".to_string(), "-polly".to_string()];
    let measured = harness.evaluate_built_with(&source, &compiler, &polly);
    assert!(
        matches!(measured, Measurement::WrongOutput { .. }),
        "{}",
        measured.summary()
    );
    assert_eq!(harness.check_built_with(&source, &compiler, &[]), None);
    // Wrong whatever the flags: what the check run gave.
    let wrong = program("A[i][j] = A[i][j] * 0.5 + 3.0;");
    let checked = harness.check_built_with(&wrong, &compiler, &[]);
    assert!(
        matches!(checked, Some(Measurement::WrongOutput { .. })),
        "{checked:?}"
    );
}

/// The probe for 512-bit vectors reads the target the user's flags give:
/// a plain x86-64 has none, one with AVX-512 enabled has them (compiling
/// only, so the machine running the test need not have them), and the
/// answer is kept per set of flags.
#[test]
fn wide_vectors_follow_the_target_of_the_flags() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let compiler = cc();
    let dir = TempDir::new("wide");
    let flags = |f: &[&str]| f.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(!compiler.has_wide_vectors(&dir.0, &flags(&["-O2", "-march=x86-64"])));
    assert!(compiler.has_wide_vectors(&dir.0, &flags(&["-O2", "-march=x86-64", "-mavx512f"])));
    // Asked again, from the cache: the same answers.
    assert!(!compiler.has_wide_vectors(&dir.0, &flags(&["-O2", "-march=x86-64"])));
    assert!(compiler.has_wide_vectors(&dir.0, &flags(&["-O2", "-march=x86-64", "-mavx512f"])));
}

/// A compiler that builds with `cc` and appends each command line to
/// `commands.log` in `dir`.
fn logging_compiler(dir: &TempDir) -> Compiler {
    let log = dir.0.join("commands.log");
    scripted_compiler(
        dir,
        "logging-cc",
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec cc \"$@\"\n",
            log.display()
        ),
    )
}

#[test]
fn the_other_sources_are_compiled_once_into_objects_every_build_links() {
    let dir = TempDir::new("objects");
    let helper = dir.0.join("helper.c");
    std::fs::write(&helper, "double helper_scale(void) { return 0.5; }\n").expect("write");
    let mut config = config(logging_compiler(&dir), &dir);
    config.cflags = vec![
        "-O2".to_string(),
        helper.display().to_string(),
        "-lm".to_string(),
    ];
    let source = |offset: &str| {
        format!(
            "double helper_scale(void);\n{}",
            program(&format!("A[i][j] = A[i][j] * helper_scale() + {offset};"))
        )
    };
    let mut harness =
        Harness::new(config.clone(), &source("1.0")).unwrap_or_else(|e| panic!("{e}"));
    for candidate in [
        format!("/* one */\n{}", source("1.0")),
        format!("/* two */\n{}", source("1.0")),
    ] {
        let measured = harness.evaluate(&candidate);
        assert!(
            matches!(measured, Measurement::Timed { .. }),
            "{}",
            measured.summary()
        );
    }
    // A candidate computing other values is still told apart.
    assert!(matches!(
        harness.evaluate(&source("2.0")),
        Measurement::WrongOutput { .. }
    ));
    let commands = std::fs::read_to_string(dir.0.join("commands.log")).expect("log");
    let helper_compiles = commands
        .lines()
        .filter(|l| l.contains(" -c ") && l.contains("helper.c"))
        .count();
    let links = commands
        .lines()
        .filter(|l| l.contains("kernel.c") && l.contains("helper.o"))
        .count();
    // Once per build (with and without the dump), every build linking it.
    assert!((1..=2).contains(&helper_compiles), "{commands}");
    assert!(links >= 4, "{commands}");
    assert!(!commands
        .lines()
        .any(|l| l.contains("kernel.c") && l.contains("helper.c")));

    // A source that does not compile fails every build that links it,
    // naming it.
    std::fs::write(&helper, "double helper_scale(void) { return 0.5 }\n").expect("write");
    let dir = TempDir::new("objects-broken");
    let mut broken = config;
    broken.work_dir = dir.0.join("work");
    let error = Harness::new(broken, &source("1.0")).expect_err("does not build");
    assert!(error.to_string().contains("helper.c on its own"), "{error}");
}

/// The program of [`BODY`], also printing on standard output how many
/// bytes of a partial line on standard error reached its file: none when
/// standard error is buffered by lines, all seven when unbuffered.
fn reporting_stderr_buffering() -> String {
    format!("#include <unistd.h>\n{}", program(BODY)).replace(
        "  harness_dump(argc",
        "  fputs(\"partial\", stderr);\n  printf(\"stderr at %ld\\n\", (long)lseek(2, 0, SEEK_CUR));\n  fputs(\"\\n\", stderr);\n  harness_dump(argc",
    )
}

/// What the check run of `source` (built by `harness`) printed.
fn check_run_stdout(harness: &Harness, source: &str) -> String {
    let path = harness.build_dir(source).join("run.stdout");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn check_builds_buffer_standard_error_by_lines_where_the_constructor_compiles() {
    let source = reporting_stderr_buffering();
    let dir = TempDir::new("stderr-lines");
    let mut harness = Harness::new(config(cc(), &dir), &source).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        check_run_stdout(&harness, &source).contains("stderr at 0\n"),
        "{}",
        check_run_stdout(&harness, &source)
    );
    // The dump is still read and compared.
    let wrong = source.replace("* 0.5 + 1.0", "* 0.5 + 2.0");
    assert!(matches!(
        harness.evaluate(&wrong),
        Measurement::WrongOutput { .. }
    ));

    // A compiler that cannot build the constructor: the builds go on
    // without it, standard error unbuffered.
    let dir = TempDir::new("stderr-unbuffered");
    let compiler = scripted_compiler(
        &dir,
        "refusing-cc",
        "#!/bin/sh\ncase \"$*\" in *commute_line_buffered_stderr.c*) echo refused >&2; exit 1;; esac\nexec cc \"$@\"\n",
    );
    let mut harness =
        Harness::new(config(compiler, &dir), &source).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        check_run_stdout(&harness, &source).contains("stderr at 7\n"),
        "{}",
        check_run_stdout(&harness, &source)
    );
    assert!(matches!(
        harness.evaluate(&wrong),
        Measurement::WrongOutput { .. }
    ));
}

/// The runs of every build under `work`: (check, timed).
fn runs_under(work: &Path) -> (usize, usize) {
    std::fs::read_dir(work)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| runs_of(&entry.path()))
                .fold((0, 0), |(c, t), (dc, dt)| (c + dc, t + dt))
        })
        .unwrap_or_default()
}

#[test]
fn a_baseline_measured_once_is_its_check_run() {
    let dir = TempDir::new("baseline-once");
    let compiler = counting_compiler(&dir);
    let mut harness = Harness::new(config(compiler.clone(), &dir), &program(BODY))
        .unwrap_or_else(|e| panic!("{e}"));
    let work = dir.0.join("work");
    let before = runs_under(&work);
    let o1 = ["-O1".to_string()];
    let measured = harness.evaluate_once_built_with(&program(BODY), &compiler, &o1);
    assert!(
        matches!(&measured, Measurement::Timed { runs, .. } if runs.len() == 1),
        "{measured:?}"
    );
    // The check run only: its output compared, its printed time the value.
    let after = runs_under(&work);
    assert_eq!((after.0 - before.0, after.1 - before.1), (1, 0));
    assert!(harness.last_phases().check > 0.0);
    // Cached.
    assert_eq!(
        harness.evaluate_once_built_with(&program(BODY), &compiler, &o1),
        measured
    );
    assert_eq!(runs_under(&work), after);
    // Other values are a wrong output.
    let wrong = program("A[i][j] = A[i][j] * 0.5 + 3.0;");
    assert!(matches!(
        harness.evaluate_once_built_with(&wrong, &compiler, &o1),
        Measurement::WrongOutput { .. }
    ));
}
