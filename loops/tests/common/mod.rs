//! What the tests that compile the bundled examples share (each test
//! binary uses part of it).
#![allow(dead_code)]

pub mod trees;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Odd sizes for every example, so that tiles end in partial ones (and
/// small, so that a candidate with a parallel loop deep inside runs few
/// parallel regions).
pub const SIZES: [&str; 13] = [
    "-DM=13",
    "-DN=17",
    "-DNI=11",
    "-DNJ=13",
    "-DNK=15",
    "-DNL=9",
    "-DNP=19",
    "-DNQ=6",
    "-DNR=5",
    "-DNS=13",
    "-DNX=13",
    "-DNY=11",
    "-DTSTEPS=3",
];

/// How long a test's compile of an example may take.
pub const COMPILE_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a test's run of a compiled example may take.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs a command with its stdout and stderr in files of `dir` (so that a
/// full pipe never blocks it), killing it after `timeout`.
pub fn run_with_timeout(
    mut command: Command,
    dir: &Path,
    label: &str,
    timeout: Duration,
) -> (ExitStatus, String, String) {
    let stdout_path = dir.join(format!("{label}.stdout"));
    let stderr_path = dir.join(format!("{label}.stderr"));
    let create = |p: &Path| File::create(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    command
        .stdin(Stdio::null())
        .stdout(create(&stdout_path))
        .stderr(create(&stderr_path));
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("{label}: cannot start {command:?}: {e}"));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{label}: {command:?} ran past {timeout:?} and was killed");
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("{label}: waiting for {command:?}: {e}"),
        }
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    (status, read(&stdout_path), read(&stderr_path))
}

/// Writes `source` to `dir/name.c`, compiles it with `compiler` and
/// `flags` (then OpenMP 6.0 for clang, the tests' sizes and the examples'
/// headers), and runs it with `threads` OpenMP threads, each within its
/// timeout: what it wrote on stderr (an array dump, a trace). Panics when
/// either step fails.
pub fn compile_and_run(
    compiler: &str,
    flags: &[&str],
    threads: usize,
    dir: &Path,
    name: &str,
    source: &str,
) -> String {
    let c = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&c, source).expect("write");
    let mut command = Command::new(compiler);
    command.args(flags);
    if compiler.contains("clang") {
        command.arg("-fopenmp-version=60");
    }
    command
        .args(SIZES)
        .arg("-I")
        .arg(examples_dir())
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .arg("-lm");
    let (status, _, errors) =
        run_with_timeout(command, dir, &format!("{name}-cc"), COMPILE_TIMEOUT);
    assert!(
        status.success(),
        "{} does not compile with {compiler}:\n{errors}\n{source}",
        c.display()
    );
    let mut command = Command::new(&exe);
    command.env("OMP_NUM_THREADS", threads.to_string());
    let (status, _, stderr) = run_with_timeout(command, dir, &format!("{name}-run"), RUN_TIMEOUT);
    assert!(status.success(), "{} fails", exe.display());
    stderr
}

pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// A fresh directory for one test of one binary.
pub fn scratch(test: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("commute-{test}-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The nest to read in examples without `#pragma scop`, by file stem.
const NESTS: &[(&str, &str)] = &[("matmul-pointers", "matmul")];

/// The `--nest` of an example (by its path), if it needs one.
pub fn nest_of(path: &str) -> Option<&'static str> {
    let stem = Path::new(path).file_stem()?.to_str()?;
    NESTS.iter().find(|(s, _)| *s == stem).map(|(_, n)| *n)
}

/// A kernel with every construct of real code: a loop counting down
/// around a triangular one counting down, scalars declared at the top and
/// in the loop, a chained assignment (in a declaration and under an
/// `else`), a conditional expression, affine conditions (a conjunction
/// with its `else`, `!=` around a loop, one that reads only a parameter),
/// a test of values, a loop stepping by 2, an integer scalar holding a
/// subscript, a sum of several terms added to its target, an increment, a
/// quotient of a parameter in a bound and a subscript, and straight-line
/// code before and after the loops.
pub const EVERY_CONSTRUCT: &str = r#"#include <stdio.h>
#include "harness.h"

static double A[N][N], B[N][N], x[N], y[N];

static void init(void) {
  for (int i = 0; i < N; i++) {
    x[i] = (double)(i % 7) / 7.0;
    y[i] = 0.0;
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i + 2 * j) % 5) / 10.0;
      B[i][j] = (double)((i * j) % 3) / 3.0;
    }
  }
}

static void kernel(int n, int m) {
  int i, j, k, l;
#pragma scop
  double scale = 0.5;
  double w = x[0] = scale * 2.0;
  for (i = n - 1; i >= 0; i--) {
    double acc = 0.0;
    for (j = i; j > 0; --j)
      acc += A[i][j] * x[j];
    y[i] = acc > 1.0 ? 1.0 : acc;
    if (i > 2 && i < n - 2)
      B[i][i] = y[i] + w;
    else
      B[i][0] = w = y[i];
    if (m > 3)
      x[i] += 1.0;
    if (x[i] > 0.75)
      x[i] -= scale;
    if (i != 5) {
      for (k = 0; k < i; k++)
        A[k][i] += B[i][k] * scale;
    }
  }
  for (l = 1; l < n; l += 2) {
    int r = l - 1;
    y[l] = y[l] + x[r] * 0.5 - A[l][n / 2] + B[0][l];
    if (x[l] > 0.5)
      B[l][1]++;
  }
  for (l = 0; l < n / 2; l++)
    x[l + n / 2] -= 0.25 * x[l];
  y[0] = w;
#pragma endscop
}

int main(int argc, char **argv) {
  init();
  kernel(N, 5);
  harness_dump(argc, argv, "A", &A[0][0], (long)N * N);
  harness_dump(argc, argv, "B", &B[0][0], (long)N * N);
  harness_dump(argc, argv, "x", x, N);
  harness_dump(argc, argv, "y", y, N);
  return 0;
}
"#;

/// A clang that accepts OpenMP 6.0 loop transformations: `clang-22`,
/// `clang-21`, `clang-20`, or `clang` of major version 20 or later. None
/// (with a note) when there is none, unless `COMMUTE_REQUIRE_CLANG=1`.
pub fn require_clang() -> Option<String> {
    let version = |program: &str| -> Option<u32> {
        let output = Command::new(program).arg("--version").output().ok()?;
        if !output.status.success() {
            return None;
        }
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let after = text.split("clang version ").nth(1)?;
        after.split('.').next()?.trim().parse().ok()
    };
    for program in ["clang-22", "clang-21", "clang-20", "clang"] {
        if version(program).is_some_and(|major| major >= 20) {
            return Some(program.to_string());
        }
    }
    if std::env::var("COMMUTE_REQUIRE_CLANG").is_ok_and(|v| v == "1") {
        panic!(
            "COMMUTE_REQUIRE_CLANG=1 but no clang-22, clang-21, clang-20 or clang >= 20 in PATH"
        );
    }
    eprintln!(
        "note: no clang >= 20 in PATH (clang-22, clang-21, clang-20, clang): \
         the tests that need it are skipped"
    );
    None
}
