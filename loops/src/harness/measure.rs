//! The harness itself: the reference program built and run once, then
//! each candidate built in its own directory, warmed up, checked against
//! the reference's output and timed; results cached by hash.

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::config::{HarnessConfig, TimePattern};
use super::error::{HarnessError, HarnessErrorKind};
use super::measurement::Measurement;
use super::output::{
    compare_outputs, dump_section, last_message_line, parse_time, prepare_source, strip_time_line,
    truncate,
};
use super::process::{describe_status, new_process_group, read_lossy, spawn, wait_with_deadline};
use crate::fnv::Fnv;

/// Lines of the compiler's standard error kept in [`Measurement::CompileFailed`].
pub const COMPILE_LOG_LINES: usize = 40;

/// Kernels whose warm-up run takes less than this get twice the runs.
const SHORT_KERNEL_SECONDS: f64 = 0.05;

/// Rounds of [`Harness::remeasure`] for programs that take `seconds`:
/// about half a second of each, between 3 and 10 rounds. Short kernels
/// vary most from run to run and their runs cost little.
pub fn remeasure_rounds(seconds: f64) -> usize {
    if seconds.is_finite() && seconds > 0.0 {
        ((0.5 / seconds).ceil() as usize).clamp(3, 10)
    } else {
        3
    }
}

const SOURCE_FILE: &str = "kernel.c";
const BINARY_FILE: &str = "kernel";
const COMPILE_LOG_FILE: &str = "compile.log";
const STDOUT_FILE: &str = "run.stdout";
const STDERR_FILE: &str = "run.stderr";

/// What candidates are compared with.
#[derive(Clone, Debug)]
enum Expected {
    /// The reference's `DUMP_ARRAYS` sections of standard error.
    Dump(String),
    /// The reference's standard output, without its time line.
    Stdout(String),
}

/// Builds, runs and checks candidates against the reference program.
#[derive(Debug)]
pub struct Harness {
    config: HarnessConfig,
    /// Every argument but the source, the output and `-lm`.
    flags: Vec<String>,
    reference_seconds: f64,
    /// The reference's wall time, from which run timeouts follow.
    reference_wall: f64,
    /// Whether the reference prints its time (else wall time is used).
    reported_time: bool,
    expected: Expected,
    reference_hash: String,
    cache: HashMap<String, Measurement>,
    compiles: usize,
}

/// How one run of a program ended.
enum RunResult {
    Finished {
        wall: f64,
        stdout: String,
        stderr: Option<String>,
    },
    Crashed(String),
    TimedOut(f64),
}

/// How one compile ended.
enum CompileResult {
    Built,
    Failed(String),
    TimedOut(f64),
}

impl Harness {
    /// Builds and runs the unmodified program; errors if it does not
    /// compile or run (with the compiler's message or the exit status).
    /// Its measurement is cached like a candidate's.
    pub fn new(mut config: HarnessConfig, reference_source: &str) -> Result<Harness, HarnessError> {
        let cwd = std::env::current_dir().map_err(|e| {
            HarnessError::new(
                HarnessErrorKind::Io,
                format!("cannot read the current directory: {e}"),
            )
        })?;
        config.work_dir = cwd.join(&config.work_dir);
        for dir in &mut config.include_dirs {
            *dir = cwd.join(&*dir);
        }
        config.runs = config.runs.max(1);
        config.threads = config.threads.max(1);
        let mut flags = config.compiler.builtin_flags();
        flags.extend(config.cflags.iter().cloned());
        for dir in &config.include_dirs {
            flags.push("-I".to_string());
            flags.push(dir.display().to_string());
        }
        let mut harness = Harness {
            config,
            flags,
            reference_seconds: 0.0,
            reference_wall: 0.0,
            reported_time: false,
            expected: Expected::Stdout(String::new()),
            reference_hash: String::new(),
            cache: HashMap::new(),
            compiles: 0,
        };
        harness.reference_hash = harness.hash(reference_source);
        let dir = harness.build_dir(reference_source);
        let failed = |what: String| {
            HarnessError::new(
                HarnessErrorKind::Reference,
                format!(
                    "the reference program {what} (build directory {})",
                    dir.display()
                ),
            )
        };
        match harness.compile(&dir, reference_source)? {
            CompileResult::Built => {}
            CompileResult::Failed(log) => {
                return Err(failed(format!("does not compile:\n{log}")));
            }
            CompileResult::TimedOut(seconds) => {
                return Err(failed(format!("does not compile within {seconds:.1} s")));
            }
        }
        let binary = dir.join(BINARY_FILE);
        let warm_timeout = harness.config.reference_timeout;
        let (warm_wall, stdout, stderr) = match harness.run(&dir, &binary, warm_timeout, true)? {
            RunResult::Finished {
                wall,
                stdout,
                stderr,
            } => (wall, stdout, stderr.unwrap_or_default()),
            RunResult::Crashed(detail) => return Err(failed(format!("crashed: {detail}"))),
            RunResult::TimedOut(seconds) => {
                return Err(failed(format!("ran longer than {seconds:.1} s")))
            }
        };
        harness.reported_time = harness.config.time_pattern != TimePattern::WallTime
            && parse_time(&stdout, &harness.config.time_pattern).is_some();
        harness.expected = match dump_section(&stderr) {
            Some(dump) => Expected::Dump(dump),
            None => Expected::Stdout(strip_time_line(&stdout, &harness.config.time_pattern)),
        };
        harness.reference_wall = warm_wall;
        let warm_value = harness.time_of(warm_wall, &stdout).unwrap_or(warm_wall);
        let timeout = harness.run_timeout();
        let runs = match harness.timed_runs(&dir, &binary, warm_value, timeout)? {
            Ok(runs) => runs,
            Err(measurement) => return Err(failed(measurement.summary())),
        };
        let seconds = runs.iter().copied().fold(f64::INFINITY, f64::min);
        harness.reference_seconds = seconds;
        let hash = harness.reference_hash.clone();
        harness
            .cache
            .insert(hash, Measurement::Timed { seconds, runs });
        Ok(harness)
    }

    /// The reference program's time (minimum of its runs), in seconds.
    pub fn reference_seconds(&self) -> f64 {
        self.reference_seconds
    }

    /// The configuration (with the work and include directories made
    /// absolute).
    pub fn config(&self) -> &HarnessConfig {
        &self.config
    }

    /// How many times the compiler was run (the reference included):
    /// cached sources are not rebuilt.
    pub fn compiles(&self) -> usize {
        self.compiles
    }

    /// The run timeout of candidates: the reference's wall time times the
    /// factor, at least the floor.
    pub fn run_timeout(&self) -> Duration {
        let scaled = self.reference_wall * self.config.run_timeout_factor;
        let scaled = if scaled.is_finite() && scaled > 0.0 {
            Duration::from_secs_f64(scaled.min(1e9))
        } else {
            Duration::ZERO
        };
        scaled.max(self.config.run_timeout_floor)
    }

    /// The directory where `source` is (or would be) built:
    /// `work_dir/<hash of source and flags>/`, holding `kernel.c`,
    /// `compile.log`, the binary `kernel`, and the first run's
    /// `run.stdout` and `run.stderr`.
    pub fn build_dir(&self, source: &str) -> PathBuf {
        self.config.work_dir.join(self.hash(source))
    }

    /// Builds, runs and checks a candidate (a whole C source), or returns
    /// the cached result of an identical source. A failure of the harness
    /// itself (an unwritable work directory, say) is a
    /// [`Measurement::CompileFailed`] whose log starts with `harness:`.
    pub fn evaluate(&mut self, source: &str) -> Measurement {
        let hash = self.hash(source);
        if let Some(cached) = self.cache.get(&hash) {
            return cached.clone();
        }
        let measurement =
            self.evaluate_uncached(source)
                .unwrap_or_else(|e| Measurement::CompileFailed {
                    log: format!("harness: {e}"),
                });
        self.cache.insert(hash, measurement.clone());
        measurement
    }

    fn evaluate_uncached(&mut self, source: &str) -> Result<Measurement, HarnessError> {
        let dir = self.build_dir(source);
        match self.compile(&dir, source)? {
            CompileResult::Built => {}
            CompileResult::Failed(log) => return Ok(Measurement::CompileFailed { log }),
            CompileResult::TimedOut(seconds) => {
                return Ok(Measurement::CompileTimedOut { seconds })
            }
        }
        let binary = dir.join(BINARY_FILE);
        let timeout = self.run_timeout();
        let (wall, stdout, stderr) = match self.run(&dir, &binary, timeout, true)? {
            RunResult::Finished {
                wall,
                stdout,
                stderr,
            } => (wall, stdout, stderr.unwrap_or_default()),
            RunResult::Crashed(detail) => return Ok(Measurement::Crashed { detail }),
            RunResult::TimedOut(seconds) => return Ok(Measurement::RunTimedOut { seconds }),
        };
        if let Some(detail) = self.check_output(&stdout, &stderr) {
            return Ok(Measurement::WrongOutput { detail });
        }
        let Some(warm_value) = self.time_of(wall, &stdout) else {
            return Ok(Measurement::WrongOutput {
                detail: self.missing_time(),
            });
        };
        Ok(match self.timed_runs(&dir, &binary, warm_value, timeout)? {
            Ok(runs) => Measurement::Timed {
                seconds: runs.iter().copied().fold(f64::INFINITY, f64::min),
                runs,
            },
            Err(measurement) => measurement,
        })
    }

    /// Runs two already evaluated (and correct) programs interleaved,
    /// `rounds` times each (incumbent, challenger, incumbent, ...), and
    /// returns the minimum time of each: the check before declaring a new
    /// best, as both then run under the same machine conditions.
    pub fn remeasure(
        &mut self,
        incumbent: &str,
        challenger: &str,
        rounds: usize,
    ) -> Result<(f64, f64), HarnessError> {
        let mut binaries = Vec::new();
        for (name, source) in [("incumbent", incumbent), ("challenger", challenger)] {
            let hash = self.hash(source);
            if !self.cache.get(&hash).is_some_and(Measurement::is_timed) {
                return Err(HarnessError::new(
                    HarnessErrorKind::Remeasure,
                    format!("the {name} was not evaluated successfully (hash {hash})"),
                ));
            }
            let dir = self.build_dir(source);
            binaries.push((name, dir.join(BINARY_FILE), dir));
        }
        let timeout = self.run_timeout();
        let mut best = [f64::INFINITY; 2];
        for _ in 0..rounds.max(1) {
            for (slot, (name, binary, dir)) in binaries.iter().enumerate() {
                let value = match self.run(dir, binary, timeout, false)? {
                    RunResult::Finished { wall, stdout, .. } => self.time_of(wall, &stdout),
                    RunResult::Crashed(detail) => {
                        return Err(HarnessError::new(
                            HarnessErrorKind::Remeasure,
                            format!("the {name} crashed when re-measured: {detail}"),
                        ))
                    }
                    RunResult::TimedOut(seconds) => {
                        return Err(HarnessError::new(
                            HarnessErrorKind::Remeasure,
                            format!("the {name} timed out after {seconds:.1} s when re-measured"),
                        ))
                    }
                };
                let Some(value) = value else {
                    return Err(HarnessError::new(
                        HarnessErrorKind::Remeasure,
                        format!("the {name} {}", self.missing_time()),
                    ));
                };
                best[slot] = best[slot].min(value);
            }
        }
        Ok((best[0], best[1]))
    }

    /// 16 hex digits of FNV-1a over the compiler, the flags and the source.
    fn hash(&self, source: &str) -> String {
        let mut hash = Fnv::default();
        // Each part ends with a zero byte, so that parts cannot run together.
        let mut feed = |bytes: &[u8]| {
            hash.feed(bytes);
            hash.feed(&[0]);
        };
        feed(self.config.compiler.path.as_os_str().as_encoded_bytes());
        for flag in &self.flags {
            feed(flag.as_bytes());
        }
        feed(source.as_bytes());
        hash.hex()
    }

    /// Writes `kernel.c` in `dir` and compiles it to `kernel`.
    fn compile(&mut self, dir: &Path, source: &str) -> Result<CompileResult, HarnessError> {
        fs::create_dir_all(dir).map_err(|e| HarnessError::io("create", dir, &e))?;
        let source_path = dir.join(SOURCE_FILE);
        fs::write(&source_path, prepare_source(source))
            .map_err(|e| HarnessError::io("write", &source_path, &e))?;
        let binary = dir.join(BINARY_FILE);
        if binary.exists() {
            fs::remove_file(&binary).map_err(|e| HarnessError::io("remove", &binary, &e))?;
        }
        let log_path = dir.join(COMPILE_LOG_FILE);
        let log = File::create(&log_path).map_err(|e| HarnessError::io("create", &log_path, &e))?;
        let mut command = Command::new(&self.config.compiler.path);
        command
            .args(&self.flags)
            .arg(SOURCE_FILE)
            .arg("-o")
            .arg(BINARY_FILE)
            .arg("-lm")
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        new_process_group(&mut command);
        self.compiles += 1;
        let start = Instant::now();
        let mut child = spawn(&mut command).map_err(|e| {
            HarnessError::new(
                HarnessErrorKind::Compiler,
                format!(
                    "cannot run the compiler {}: {e}",
                    self.config.compiler.path.display()
                ),
            )
        })?;
        let status = wait_with_deadline(&mut child, start, self.config.compile_timeout, true)
            .map_err(|e| HarnessError::io("wait for the compiler in", dir, &e))?;
        let Some(status) = status else {
            return Ok(CompileResult::TimedOut(start.elapsed().as_secs_f64()));
        };
        let text = read_lossy(&log_path).unwrap_or_default();
        if status.success() && binary.is_file() {
            return Ok(CompileResult::Built);
        }
        let mut log: Vec<&str> = text.lines().take(COMPILE_LOG_LINES).collect();
        if log.is_empty() {
            log.push("(no message)");
        }
        let mut log = log.join("\n");
        if !status.success() {
            log.push_str(&format!("\ncompiler {}", describe_status(status)));
        }
        Ok(CompileResult::Failed(log))
    }

    /// Runs `binary` once in `dir`: standard output to `run.stdout`,
    /// standard error to `run.stderr` when `capture_stderr` (else
    /// discarded).
    fn run(
        &self,
        dir: &Path,
        binary: &Path,
        timeout: Duration,
        capture_stderr: bool,
    ) -> Result<RunResult, HarnessError> {
        let stdout_path = dir.join(STDOUT_FILE);
        let stdout =
            File::create(&stdout_path).map_err(|e| HarnessError::io("create", &stdout_path, &e))?;
        let stderr_path = dir.join(STDERR_FILE);
        let stderr = if capture_stderr {
            let file = File::create(&stderr_path)
                .map_err(|e| HarnessError::io("create", &stderr_path, &e))?;
            Stdio::from(file)
        } else {
            Stdio::null()
        };
        let start = Instant::now();
        let spawned = spawn(
            Command::new(binary)
                .current_dir(dir)
                .env("OMP_NUM_THREADS", self.config.threads.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::from(stdout))
                .stderr(stderr),
        );
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                return Ok(RunResult::Crashed(format!(
                    "cannot start {}: {e}",
                    binary.display()
                )))
            }
        };
        let status = wait_with_deadline(&mut child, start, timeout, false)
            .map_err(|e| HarnessError::io("wait for", binary, &e))?;
        let wall = start.elapsed().as_secs_f64();
        let Some(status) = status else {
            return Ok(RunResult::TimedOut(timeout.as_secs_f64()));
        };
        let stderr = if capture_stderr {
            Some(read_lossy(&stderr_path).map_err(|e| HarnessError::io("read", &stderr_path, &e))?)
        } else {
            None
        };
        if !status.success() {
            let mut detail = describe_status(status);
            if let Some(line) = stderr.as_deref().and_then(last_message_line) {
                detail.push_str(&format!("; last line of stderr: {}", truncate(line, 200)));
            }
            return Ok(RunResult::Crashed(detail));
        }
        let stdout =
            read_lossy(&stdout_path).map_err(|e| HarnessError::io("read", &stdout_path, &e))?;
        Ok(RunResult::Finished {
            wall,
            stdout,
            stderr,
        })
    }

    /// The timed runs after the warm-up (whose value was `warm_value`),
    /// or the failure of one of them.
    fn timed_runs(
        &self,
        dir: &Path,
        binary: &Path,
        warm_value: f64,
        timeout: Duration,
    ) -> Result<Result<Vec<f64>, Measurement>, HarnessError> {
        let count = if warm_value < SHORT_KERNEL_SECONDS {
            self.config.runs * 2
        } else {
            self.config.runs
        };
        let mut runs = Vec::with_capacity(count);
        for _ in 0..count {
            match self.run(dir, binary, timeout, false)? {
                RunResult::Finished { wall, stdout, .. } => match self.time_of(wall, &stdout) {
                    Some(value) => runs.push(value),
                    None => {
                        return Ok(Err(Measurement::WrongOutput {
                            detail: self.missing_time(),
                        }))
                    }
                },
                RunResult::Crashed(detail) => return Ok(Err(Measurement::Crashed { detail })),
                RunResult::TimedOut(seconds) => {
                    return Ok(Err(Measurement::RunTimedOut { seconds }))
                }
            }
        }
        Ok(Ok(runs))
    }

    /// The time of a run: the reported one when the reference reports
    /// one (`None` if this run does not), else the wall time.
    fn time_of(&self, wall: f64, stdout: &str) -> Option<f64> {
        if self.reported_time {
            parse_time(stdout, &self.config.time_pattern)
        } else {
            Some(wall)
        }
    }

    fn missing_time(&self) -> String {
        match &self.config.time_pattern {
            TimePattern::Prefix(prefix) => {
                format!("prints no time after `{prefix}` on stdout, as the reference does")
            }
            _ => "prints no time line on stdout, as the reference does".to_string(),
        }
    }

    /// The first difference between a candidate's output and the
    /// reference's, if any.
    fn check_output(&self, stdout: &str, stderr: &str) -> Option<String> {
        let tolerance = self.config.tolerance;
        match &self.expected {
            Expected::Dump(expected) => match dump_section(stderr) {
                Some(actual) => compare_outputs(expected, &actual, tolerance),
                None => Some("no `==BEGIN DUMP_ARRAYS==` section on stderr".to_string()),
            },
            Expected::Stdout(expected) => {
                let actual = strip_time_line(stdout, &self.config.time_pattern);
                compare_outputs(expected, &actual, tolerance)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_kernels_get_more_remeasure_rounds() {
        assert_eq!(remeasure_rounds(0.02), 10);
        assert_eq!(remeasure_rounds(0.1), 5);
        assert_eq!(remeasure_rounds(2.0), 3);
        assert_eq!(remeasure_rounds(f64::INFINITY), 3);
    }
}
