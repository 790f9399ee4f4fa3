//! Compiling sources: each candidate has a check build (with the array
//! dump) and a timing build (without it), each in its own directory, and
//! a batch of them is compiled by a pool of parallel jobs while nothing
//! is being timed.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::error::{HarnessError, HarnessErrorKind};
use super::objects::{Objects, Unbuilt};
use super::output::without_scop_pragmas;
use super::process::{describe_status, new_process_group, read_lossy, spawn, wait_with_deadline};

/// Lines of the compiler's standard error kept in
/// [`Measurement::CompileFailed`](super::Measurement::CompileFailed).
pub const COMPILE_LOG_LINES: usize = 40;

pub(super) const SOURCE_FILE: &str = "kernel.c";
pub(super) const BINARY_FILE: &str = "kernel";
const COMPILE_LOG_FILE: &str = "compile.log";
/// The timing build's directory, inside the check build's.
const TIMED_DIR: &str = "timed";

/// The flag that turns the array dump on.
pub(super) const DUMP_FLAG: &str = "-DPOLYBENCH_DUMP_ARRAYS";

/// The first [`COMPILE_LOG_LINES`] lines of a compiler's messages, then
/// `ending` (how it ended) when there is one.
fn compiler_log(text: &str, ending: &str) -> String {
    let mut lines: Vec<&str> = text.lines().take(COMPILE_LOG_LINES).collect();
    if lines.is_empty() {
        lines.push("(no message)");
    }
    if !ending.is_empty() {
        lines.push(ending);
    }
    lines.join("\n")
}

/// One of a source's two builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Build {
    /// With the array dump: run once, its output compared.
    Check,
    /// Without it: the timed runs.
    Timed,
}

impl Build {
    /// Where this build of the source built in `base` lives.
    pub(super) fn dir(self, base: &Path) -> PathBuf {
        match self {
            Build::Check => base.to_path_buf(),
            Build::Timed => base.join(TIMED_DIR),
        }
    }

    /// Its binary.
    pub(super) fn binary(self, base: &Path) -> PathBuf {
        self.dir(base).join(BINARY_FILE)
    }
}

/// How one compile ended.
#[derive(Clone, Debug)]
pub(super) enum CompileResult {
    Built,
    /// The first lines of the compiler's messages.
    Failed(String),
    /// Seconds waited.
    TimedOut(f64),
}

/// How a compile ended and how long it took, or why it could not run.
pub(super) type Compiled = Result<(CompileResult, f64), HarnessError>;

/// What one compile needs: the compiler, the flags before the source, the
/// timeout, where the other sources' objects are, and the source check
/// builds also link when it compiles (`line_buffered.rs`).
pub(super) struct Toolchain<'a> {
    pub(super) compiler: &'a Path,
    pub(super) flags: &'a [String],
    pub(super) timeout: Duration,
    pub(super) objects: &'a Objects,
    pub(super) check_extra: Option<&'a Path>,
}

impl Toolchain<'_> {
    /// Writes `kernel.c` in the directory of `build` under `base` and
    /// compiles it to `kernel`; returns how it ended and how long it took.
    pub(super) fn compile(&self, base: &Path, build: Build, source: &str) -> Compiled {
        let dir = build.dir(base);
        fs::create_dir_all(&dir).map_err(|e| HarnessError::io("create", &dir, &e))?;
        let source_path = dir.join(SOURCE_FILE);
        fs::write(&source_path, without_scop_pragmas(source))
            .map_err(|e| HarnessError::io("write", &source_path, &e))?;
        let binary = dir.join(BINARY_FILE);
        if binary.exists() {
            fs::remove_file(&binary).map_err(|e| HarnessError::io("remove", &binary, &e))?;
        }
        let log_path = dir.join(COMPILE_LOG_FILE);
        let log = File::create(&log_path).map_err(|e| HarnessError::io("create", &log_path, &e))?;
        let start = Instant::now();
        let dump: &[&str] = match build {
            Build::Check => &[DUMP_FLAG],
            Build::Timed => &[],
        };
        let mut flags = match self
            .objects
            .link(self.compiler, self.flags, dump, self.timeout)?
        {
            Ok(flags) => flags,
            Err(unbuilt) => {
                let failure = match unbuilt {
                    Unbuilt::Failed { log, ending } => {
                        CompileResult::Failed(compiler_log(&log, &ending))
                    }
                    Unbuilt::TimedOut(seconds) => CompileResult::TimedOut(seconds),
                };
                return Ok((failure, start.elapsed().as_secs_f64()));
            }
        };
        let compile_only = flags.iter().any(|f| f == "-c");
        if let Some(extra) = self
            .check_extra
            .filter(|_| build == Build::Check && !compile_only)
        {
            let object =
                self.objects
                    .object_of(self.compiler, self.flags, dump, extra, self.timeout);
            // An optional object: the build goes on without it.
            if let Ok(Ok(object)) = object {
                flags.push(object.display().to_string());
            }
        }
        let mut command = Command::new(self.compiler);
        command.args(&flags).args(dump);
        command
            .arg(SOURCE_FILE)
            .arg("-o")
            .arg(BINARY_FILE)
            // Not when compiling only (a probe), where it is unused.
            .args((!compile_only).then_some("-lm"))
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        new_process_group(&mut command);
        let mut child = spawn(&mut command).map_err(|e| {
            HarnessError::new(
                HarnessErrorKind::Compiler,
                format!("cannot run the compiler {}: {e}", self.compiler.display()),
            )
        })?;
        let status = wait_with_deadline(&mut child, start, self.timeout, true)
            .map_err(|e| HarnessError::io("wait for the compiler in", &dir, &e))?;
        let seconds = start.elapsed().as_secs_f64();
        let Some(status) = status else {
            return Ok((CompileResult::TimedOut(seconds), seconds));
        };
        let text = read_lossy(&log_path).unwrap_or_default();
        if status.success() && binary.is_file() {
            return Ok((CompileResult::Built, seconds));
        }
        let ending = if status.success() {
            String::new()
        } else {
            format!("compiler {}", describe_status(status))
        };
        Ok((CompileResult::Failed(compiler_log(&text, &ending)), seconds))
    }

    /// Compiles every `(base, build, source)` task with `jobs` compiles at
    /// a time; results in the tasks' order.
    pub(super) fn compile_all(
        &self,
        tasks: &[(PathBuf, Build, &str)],
        jobs: usize,
    ) -> Vec<Compiled> {
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Option<Compiled>>> = Mutex::new(vec![None; tasks.len()]);
        std::thread::scope(|scope| {
            for _ in 0..jobs.clamp(1, tasks.len().max(1)) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((base, build, source)) = tasks.get(i) else {
                        break;
                    };
                    let result = self.compile(base, *build, source);
                    if let Ok(mut results) = results.lock() {
                        results[i] = Some(result);
                    }
                });
            }
        });
        results
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .map(|r| {
                r.unwrap_or_else(|| {
                    Err(HarnessError::new(
                        HarnessErrorKind::Io,
                        "a compile job ended without a result",
                    ))
                })
            })
            .collect()
    }
}
