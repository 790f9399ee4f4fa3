//! The evaluation harness: builds and runs whole C programs, times them and
//! checks their output.
//!
//! [`Harness::new`] compiles and runs the unmodified (reference) program;
//! if that fails, tuning cannot proceed and it returns an error. Each
//! candidate ([`Harness::evaluate`], a whole C source text) is then built
//! with the same compiler and flags in its own directory,
//! `work_dir/<16-hex hash of source and flags>/`, run once to warm up and
//! check its output against the reference's (the `DUMP_ARRAYS` section of
//! standard error, else standard output without its time line), then run
//! [`HarnessConfig::runs`] times (twice as many below 50 ms). Its value is
//! the minimum of those runs: the time the program prints
//! ([`TimePattern`]) or else the process's wall time. Results are cached
//! by hash, so an identical source is neither rebuilt nor re-run.
//!
//! Every compile and run has a timeout (compilers can hang), and every
//! failure of a candidate (compile error or timeout, crash, run timeout,
//! wrong output) is a [`Measurement`], never a panic.
//!
//! Flags always passed: `-fopenmp`, `-Werror=unknown-pragmas` (a directive
//! the compiler would ignore is an error), `-DPOLYBENCH_TIME`,
//! `-DPOLYBENCH_DUMP_ARRAYS`, `-fopenmp-version=60` for clang 20 or newer
//! (loop directives), the user's flags, `-I` for each include directory,
//! and `-lm` last. Since `#pragma scop` and `#pragma endscop` are markers
//! for commute, not directives, their lines are replaced by a comment in
//! the file compiled (`kernel.c` in the build directory; line numbers are
//! kept).

use std::collections::HashMap;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::fnv::Fnv;

/// Lines of the compiler's standard error kept in [`Measurement::CompileFailed`].
pub const COMPILE_LOG_LINES: usize = 40;

/// Absolute difference under which two dumped values are always equal
/// (values near zero, where a relative tolerance means nothing).
pub const ABSOLUTE_TOLERANCE: f64 = 1e-12;

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

/// The longest `--version` may take when probing a compiler.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

const SOURCE_FILE: &str = "kernel.c";
const BINARY_FILE: &str = "kernel";
const COMPILE_LOG_FILE: &str = "compile.log";
const STDOUT_FILE: &str = "run.stdout";
const STDERR_FILE: &str = "run.stderr";

const DUMP_BEGIN: &str = "==BEGIN DUMP_ARRAYS==";
const DUMP_END: &str = "==END   DUMP_ARRAYS==";

// ---------------------------------------------------------------------------
// Errors

/// What kind of failure a [`HarnessError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HarnessErrorKind {
    /// The compiler was not found or cannot be run.
    Compiler,
    /// The reference program does not compile, crashes or times out.
    Reference,
    /// Files of the work directory cannot be written or read.
    Io,
    /// [`Harness::remeasure`] was given a source that was not evaluated
    /// successfully, or one of its runs failed.
    Remeasure,
}

/// A failure that stops the tuning: no compiler, or a reference program
/// that does not build or run. Candidates' failures are [`Measurement`]s.
#[derive(Clone, Debug)]
pub struct HarnessError {
    kind: HarnessErrorKind,
    message: String,
}

impl HarnessError {
    fn new(kind: HarnessErrorKind, message: impl Into<String>) -> HarnessError {
        HarnessError {
            kind,
            message: message.into(),
        }
    }

    fn io(what: &str, path: &Path, error: &io::Error) -> HarnessError {
        HarnessError::new(
            HarnessErrorKind::Io,
            format!("cannot {what} {}: {error}", path.display()),
        )
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> HarnessErrorKind {
        self.kind
    }

    /// The message, as displayed.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HarnessError {}

// ---------------------------------------------------------------------------
// Compiler

/// The kind of C compiler, from its `--version`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompilerFamily {
    /// Clang (or Apple clang), with its major version.
    Clang { major: u32 },
    /// GCC.
    Gcc,
    /// Anything else.
    Other,
}

/// A C compiler that can be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiler {
    /// The executable (as found in `PATH`, or as given).
    pub path: PathBuf,
    /// The first line of its `--version`.
    pub version_line: String,
    /// What kind of compiler it is.
    pub family: CompilerFamily,
}

impl Compiler {
    /// The compiler to use: `requested` (a name looked up in `PATH`, or a
    /// path) when given, an error naming it if it cannot be run; otherwise
    /// the first of `clang-22`, `clang-21`, `clang-20`, `clang` (if its
    /// major version is at least 20), `cc`, `gcc` found in `PATH`.
    pub fn detect(requested: Option<&str>) -> Result<Compiler, HarnessError> {
        if let Some(name) = requested {
            let path = if name.contains(std::path::MAIN_SEPARATOR) || name.contains('/') {
                PathBuf::from(name)
            } else {
                find_in_path(name).ok_or_else(|| {
                    HarnessError::new(
                        HarnessErrorKind::Compiler,
                        format!("compiler `{name}` not found in PATH"),
                    )
                })?
            };
            return Compiler::probe(&path).map_err(|e| {
                HarnessError::new(
                    HarnessErrorKind::Compiler,
                    format!("compiler `{name}` cannot be run: {e}"),
                )
            });
        }
        for name in ["clang-22", "clang-21", "clang-20", "clang", "cc", "gcc"] {
            let Some(path) = find_in_path(name) else {
                continue;
            };
            let Ok(compiler) = Compiler::probe(&path) else {
                continue;
            };
            if name == "clang" && !compiler.supports_loop_directives() {
                continue;
            }
            return Ok(compiler);
        }
        Err(HarnessError::new(
            HarnessErrorKind::Compiler,
            "no C compiler found in PATH (looked for clang-22, clang-21, clang-20, \
             clang 20 or newer, cc, gcc)",
        ))
    }

    /// Runs `path --version` and reads the family from its output.
    fn probe(path: &Path) -> Result<Compiler, String> {
        let mut child = spawn(
            Command::new(path)
                .arg("--version")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        )
        .map_err(|e| e.to_string())?;
        let status = match wait_with_deadline(&mut child, Instant::now(), PROBE_TIMEOUT, false)
            .map_err(|e| e.to_string())?
        {
            Some(status) => status,
            None => return Err(format!("`--version` ran over {PROBE_TIMEOUT:?}")),
        };
        let mut output = String::new();
        if let Some(mut stdout) = child.stdout.take() {
            let mut bytes = Vec::new();
            stdout.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
            output = String::from_utf8_lossy(&bytes).into_owned();
        }
        if !status.success() {
            return Err(format!("`--version` failed ({})", describe_status(status)));
        }
        let version_line = output.lines().next().unwrap_or("").trim().to_string();
        Ok(Compiler {
            path: path.to_path_buf(),
            family: family_of(&output),
            version_line,
        })
    }

    /// Whether the compiler implements OpenMP 6's loop-transformation
    /// directives (`tile`, `unroll`, `interchange`, ...): clang 20 or newer.
    pub fn supports_loop_directives(&self) -> bool {
        matches!(self.family, CompilerFamily::Clang { major } if major >= 20)
    }

    /// The flags the harness always passes before the user's.
    fn builtin_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if self.supports_loop_directives() {
            flags.push("-fopenmp-version=60".to_string());
        }
        for flag in [
            "-fopenmp",
            "-Werror=unknown-pragmas",
            "-DPOLYBENCH_TIME",
            "-DPOLYBENCH_DUMP_ARRAYS",
        ] {
            flags.push(flag.to_string());
        }
        flags
    }
}

fn family_of(version_output: &str) -> CompilerFamily {
    if let Some(at) = version_output.find("clang version ") {
        let rest = &version_output[at + "clang version ".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(major) = digits.parse() {
            return CompilerFamily::Clang { major };
        }
    }
    let first = version_output.lines().next().unwrap_or("");
    if version_output.contains("Free Software Foundation")
        || first.contains("gcc")
        || first.contains("GCC")
    {
        return CompilerFamily::Gcc;
    }
    CompilerFamily::Other
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

// ---------------------------------------------------------------------------
// Configuration

/// Where a run's time comes from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum TimePattern {
    /// The last line of standard output that parses entirely as a float
    /// (PolyBench prints `%0.6f\n` with `-DPOLYBENCH_TIME`).
    #[default]
    LastFloatLine,
    /// The float that follows this prefix on the last standard-output line
    /// containing it (`Prefix("time:".into())` reads `time: 0.25 s`).
    Prefix(String),
    /// The process's wall time, whatever the program prints.
    WallTime,
}

/// How programs are built, run and compared.
#[derive(Clone, Debug)]
pub struct HarnessConfig {
    /// The compiler, for the reference and every candidate.
    pub compiler: Compiler,
    /// The user's flags (default `-O3 -march=native`), after the built-in
    /// ones (see the module documentation).
    pub cflags: Vec<String>,
    /// Passed as `-I` (the directory of the original kernel file, whose
    /// includes such as `harness.h` sit next to it).
    pub include_dirs: Vec<PathBuf>,
    /// Where each source gets its build directory.
    pub work_dir: PathBuf,
    /// A compile running longer fails (default 60 s).
    pub compile_timeout: Duration,
    /// A candidate's run times out after this multiple of the reference's
    /// wall time (default 10)...
    pub run_timeout_factor: f64,
    /// ...but never sooner than this (default 5 s).
    pub run_timeout_floor: Duration,
    /// The timeout of the reference's first run, whose time is not known
    /// yet (default 300 s).
    pub reference_timeout: Duration,
    /// `OMP_NUM_THREADS` for every run (default: the available parallelism).
    pub threads: usize,
    /// Timed runs after the warm-up (default 5; doubled below 50 ms).
    pub runs: usize,
    /// Where the time of a run comes from.
    pub time_pattern: TimePattern,
    /// Relative tolerance when comparing values (default 1e-6).
    pub tolerance: f64,
}

impl HarnessConfig {
    /// The defaults, with this compiler and work directory.
    pub fn new(compiler: Compiler, work_dir: PathBuf) -> HarnessConfig {
        HarnessConfig {
            compiler,
            cflags: vec!["-O3".to_string(), "-march=native".to_string()],
            include_dirs: Vec::new(),
            work_dir,
            compile_timeout: Duration::from_secs(60),
            run_timeout_factor: 10.0,
            run_timeout_floor: Duration::from_secs(5),
            reference_timeout: Duration::from_secs(300),
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            runs: 5,
            time_pattern: TimePattern::LastFloatLine,
            tolerance: 1e-6,
        }
    }
}

// ---------------------------------------------------------------------------
// Measurements

/// The result of evaluating one candidate.
#[derive(Clone, Debug, PartialEq)]
pub enum Measurement {
    /// Built, ran and printed the reference's output: the minimum of the
    /// timed runs, and every run (seconds).
    Timed { seconds: f64, runs: Vec<f64> },
    /// The compiler refused it: the first lines of its standard error.
    CompileFailed { log: String },
    /// The compiler ran longer than the compile timeout (seconds waited).
    CompileTimedOut { seconds: f64 },
    /// Exited with a non-zero status or was killed by a signal.
    Crashed { detail: String },
    /// Ran longer than the run timeout (seconds waited).
    RunTimedOut { seconds: f64 },
    /// Its output differs from the reference's: where and how.
    WrongOutput { detail: String },
}

impl Measurement {
    /// The time, for a successful measurement.
    pub fn seconds(&self) -> Option<f64> {
        match self {
            Measurement::Timed { seconds, .. } => Some(*seconds),
            _ => None,
        }
    }

    /// Whether the candidate built, ran and printed the right output.
    pub fn is_timed(&self) -> bool {
        matches!(self, Measurement::Timed { .. })
    }

    /// One line describing the result.
    pub fn summary(&self) -> String {
        match self {
            Measurement::Timed { seconds, runs } => format!(
                "{} (minimum of {} run{})",
                format_seconds(*seconds),
                runs.len(),
                if runs.len() == 1 { "" } else { "s" }
            ),
            Measurement::CompileFailed { log } => {
                let first = log
                    .lines()
                    .find(|l| l.contains("error"))
                    .or_else(|| log.lines().find(|l| !l.trim().is_empty()))
                    .unwrap_or("no message");
                format!("compile failed: {}", first.trim())
            }
            Measurement::CompileTimedOut { seconds } => {
                format!("compile timed out after {seconds:.1} s")
            }
            Measurement::Crashed { detail } => format!("crashed: {}", first_line(detail)),
            Measurement::RunTimedOut { seconds } => format!("run timed out after {seconds:.1} s"),
            Measurement::WrongOutput { detail } => {
                format!("wrong output: {}", first_line(detail))
            }
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn format_seconds(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.3} s")
    } else if seconds >= 1e-3 {
        format!("{:.3} ms", seconds * 1e3)
    } else {
        format!("{:.3} us", seconds * 1e6)
    }
}

// ---------------------------------------------------------------------------
// The harness

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

// ---------------------------------------------------------------------------
// Processes

/// Puts the command's process in a group of its own, so that a timeout
/// can kill its children too (the compiler driver's `cc1`).
#[cfg(unix)]
fn new_process_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

#[cfg(not(unix))]
fn new_process_group(_command: &mut Command) {}

/// How long `spawn` retries a program that another process holds open
/// for writing.
const BUSY_RETRY: Duration = Duration::from_secs(2);

/// Spawns `command`, retrying while the kernel answers "text file busy".
///
/// A program written by this process (a wrapper script, say) stays open
/// for writing in every child that another thread forks before that
/// child's `exec` closes it; `exec` of the program fails meanwhile. The
/// window is short, so waiting a little is enough.
fn spawn(command: &mut Command) -> io::Result<Child> {
    let start = Instant::now();
    let mut nap = Duration::from_millis(1);
    loop {
        match command.spawn() {
            Err(e)
                if e.kind() == io::ErrorKind::ExecutableFileBusy
                    && start.elapsed() < BUSY_RETRY =>
            {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(50));
            }
            result => return result,
        }
    }
}

/// Waits for `child` until `start + timeout`, polling with short sleeps;
/// past the deadline kills it (its whole process group when `group`) and
/// returns `None`.
fn wait_with_deadline(
    child: &mut Child,
    start: Instant,
    timeout: Duration,
    group: bool,
) -> io::Result<Option<ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let elapsed = start.elapsed();
        if elapsed >= timeout {
            kill(child, group);
            return Ok(None);
        }
        // Sleep about 1% of the elapsed time, so that wall times stay
        // precise for short runs without spinning on long ones.
        let nap = (elapsed / 100)
            .clamp(Duration::from_micros(100), Duration::from_millis(10))
            .min(timeout - elapsed);
        std::thread::sleep(nap);
    }
}

fn kill(child: &mut Child, group: bool) {
    #[cfg(unix)]
    if group {
        // The group's id is the child's (see `new_process_group`); it is
        // not reaped yet, so the id cannot have been reused.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = group;
    let _ = child.kill();
    let _ = child.wait();
}

/// "exit status 3" or "killed by signal 11 (SIGSEGV)".
fn describe_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                1 => "SIGHUP",
                2 => "SIGINT",
                3 => "SIGQUIT",
                4 => "SIGILL",
                5 => "SIGTRAP",
                6 => "SIGABRT",
                7 => "SIGBUS",
                8 => "SIGFPE",
                9 => "SIGKILL",
                11 => "SIGSEGV",
                13 => "SIGPIPE",
                14 => "SIGALRM",
                15 => "SIGTERM",
                24 => "SIGXCPU",
                25 => "SIGXFSZ",
                _ => "",
            };
            return if name.is_empty() {
                format!("killed by signal {signal}")
            } else {
                format!("killed by signal {signal} ({name})")
            };
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "terminated abnormally".to_string(),
    }
}

fn read_lossy(path: &Path) -> io::Result<String> {
    let bytes = fs::read(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// The last line of stderr outside the array dump (an assertion's
/// message, say).
fn last_message_line(stderr: &str) -> Option<&str> {
    let mut inside = false;
    let mut last = None;
    for line in stderr.lines() {
        let trimmed = line.trim();
        if trimmed == DUMP_BEGIN {
            inside = true;
        } else if trimmed == DUMP_END {
            inside = false;
        } else if !inside && !trimmed.is_empty() {
            last = Some(trimmed);
        }
    }
    last
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max).collect();
        cut.push_str("...");
        cut
    }
}

// ---------------------------------------------------------------------------
// Sources and outputs

/// The source with its `#pragma scop` and `#pragma endscop` lines replaced
/// by a comment (they would be unknown pragmas).
fn prepare_source(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 64);
    for line in source.split_inclusive('\n') {
        let (body, ending) = match line.strip_suffix("\r\n") {
            Some(body) => (body, "\r\n"),
            None => match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            },
        };
        match scop_marker(body) {
            Some(marker) => {
                out.push_str("/* commute: #pragma ");
                out.push_str(marker);
                out.push_str(" */");
            }
            None => out.push_str(body),
        }
        out.push_str(ending);
    }
    out
}

/// `Some("scop")` or `Some("endscop")` for those pragma lines.
fn scop_marker(line: &str) -> Option<&'static str> {
    let rest = line.trim().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("pragma")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    match rest.trim() {
        "scop" => Some("scop"),
        "endscop" => Some("endscop"),
        _ => None,
    }
}

/// The time a run printed, per the pattern (`None` for `WallTime`).
fn parse_time(stdout: &str, pattern: &TimePattern) -> Option<f64> {
    let value = match pattern {
        TimePattern::LastFloatLine => stdout.lines().rev().find_map(line_float)?,
        TimePattern::Prefix(prefix) => stdout.lines().rev().find_map(|line| {
            let at = line.find(prefix.as_str())?;
            line[at + prefix.len()..]
                .split_whitespace()
                .next()?
                .parse::<f64>()
                .ok()
        })?,
        TimePattern::WallTime => return None,
    };
    (value.is_finite() && value >= 0.0).then_some(value)
}

fn line_float(line: &str) -> Option<f64> {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return None;
    }
    trimmed.parse::<f64>().ok()
}

/// Standard output without the line the time was read from.
fn strip_time_line(stdout: &str, pattern: &TimePattern) -> String {
    let lines: Vec<&str> = stdout.lines().collect();
    let skip = match pattern {
        TimePattern::LastFloatLine => lines.iter().rposition(|l| line_float(l).is_some()),
        TimePattern::Prefix(prefix) => lines.iter().rposition(|l| l.contains(prefix.as_str())),
        TimePattern::WallTime => None,
    };
    let mut out = String::with_capacity(stdout.len());
    for (i, line) in lines.iter().enumerate() {
        if Some(i) != skip {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every `==BEGIN DUMP_ARRAYS==` ... `==END   DUMP_ARRAYS==` section of
/// standard error, markers included; `None` when there is none.
fn dump_section(stderr: &str) -> Option<String> {
    let mut out = String::new();
    let mut inside = false;
    let mut found = false;
    for line in stderr.lines() {
        let trimmed = line.trim();
        if trimmed == DUMP_BEGIN {
            inside = true;
            found = true;
        }
        if inside {
            out.push_str(trimmed);
            out.push('\n');
        }
        if trimmed == DUMP_END {
            inside = false;
        }
    }
    found.then_some(out)
}

/// A piece of output: a marker line compared whole, or a value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Token<'a> {
    Line(&'a str),
    Value {
        array: &'a str,
        index: usize,
        text: &'a str,
    },
}

/// The tokens of an output: marker lines (`==BEGIN ...`, `begin dump:`,
/// `end dump:`, `==END ...`) whole, and whitespace-separated values
/// numbered within their array (or within the output, outside arrays).
struct Tokens<'a> {
    lines: std::str::Lines<'a>,
    words: Option<std::str::SplitWhitespace<'a>>,
    array: &'a str,
    index: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Tokens<'a> {
        Tokens {
            lines: text.lines(),
            words: None,
            array: "",
            index: 0,
        }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            if let Some(word) = self.words.as_mut().and_then(Iterator::next) {
                let index = self.index;
                self.index += 1;
                return Some(Token::Value {
                    array: self.array,
                    index,
                    text: word,
                });
            }
            let line = self.lines.next()?.trim();
            if let Some(name) = line.strip_prefix("begin dump:") {
                self.array = name.trim();
                self.index = 0;
                self.words = None;
                return Some(Token::Line(line));
            }
            if line.starts_with("==") || (line.starts_with("end") && line.contains("dump:")) {
                self.words = None;
                return Some(Token::Line(line));
            }
            self.words = Some(line.split_whitespace());
        }
    }
}

/// Whether two tokens are equal: within the tolerance when both parse as
/// floats, textually otherwise.
fn values_equal(a: &str, b: &str, tolerance: f64) -> bool {
    if a == b {
        return true;
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => floats_equal(x, y, tolerance),
        _ => false,
    }
}

/// `|x - y| <= tolerance * max(|x|, |y|)` or `|x - y| <=`
/// [`ABSOLUTE_TOLERANCE`]; NaNs equal each other, infinities themselves.
pub fn floats_equal(x: f64, y: f64, tolerance: f64) -> bool {
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if x == y {
        return true;
    }
    let diff = (x - y).abs();
    diff <= ABSOLUTE_TOLERANCE || diff <= tolerance * x.abs().max(y.abs()).max(1e-300)
}

fn where_of(token: &Token<'_>) -> String {
    match token {
        Token::Line(line) => format!("line `{}`", truncate(line, 80)),
        Token::Value {
            array: "",
            index,
            text,
        } => {
            format!("value {index} of stdout ({})", truncate(text, 40))
        }
        Token::Value { array, index, text } => {
            format!("array {array}, index {index} ({})", truncate(text, 40))
        }
    }
}

/// The first difference between the reference's output and a candidate's,
/// described; `None` when they agree.
fn compare_outputs(expected: &str, actual: &str, tolerance: f64) -> Option<String> {
    let mut expected_tokens = Tokens::new(expected);
    let mut actual_tokens = Tokens::new(actual);
    loop {
        match (expected_tokens.next(), actual_tokens.next()) {
            (None, None) => return None,
            (Some(e), None) => {
                return Some(format!("output ends early: expected {} next", where_of(&e)))
            }
            (None, Some(a)) => {
                return Some(format!(
                    "extra output after the reference's: {}",
                    where_of(&a)
                ))
            }
            (Some(Token::Line(e)), Some(Token::Line(a))) => {
                if e != a {
                    return Some(format!(
                        "expected line `{}`, got `{}`",
                        truncate(e, 80),
                        truncate(a, 80)
                    ));
                }
            }
            (
                Some(Token::Value {
                    array,
                    index,
                    text: e,
                }),
                Some(Token::Value { text: a, .. }),
            ) => {
                if !values_equal(e, a, tolerance) {
                    let place = if array.is_empty() {
                        format!("stdout, value {index}")
                    } else {
                        format!("array {array}, index {index}")
                    };
                    return Some(format!(
                        "{place}: expected {}, got {}",
                        truncate(e, 40),
                        truncate(a, 40)
                    ));
                }
            }
            (Some(e), Some(a)) => {
                return Some(format!("expected {}, got {}", where_of(&e), where_of(&a)))
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

    /// A script still open for writing cannot be run until it is closed;
    /// `spawn` waits for that rather than failing.
    #[cfg(unix)]
    #[test]
    fn a_program_busy_for_a_moment_still_spawns() {
        use std::io::Write;
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("commute-busy-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("create the directory");
        let script = dir.join("busy.sh");
        let mut writer = File::create(&script).expect("create the script");
        writer
            .write_all(b"#!/bin/sh\nexit 7\n")
            .expect("write the script");
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod");
        let busy = Command::new(&script).spawn();
        let closer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(writer);
        });
        let status = spawn(Command::new(&script).stdin(Stdio::null()))
            .expect("spawned once the writer closed")
            .wait()
            .expect("wait");
        closer.join().expect("the closer thread");
        assert_eq!(status.code(), Some(7));
        // The plain spawn, made while the file was open for writing, is
        // the failure this guards against (on kernels that refuse it).
        match busy {
            Err(e) => assert_eq!(e.kind(), io::ErrorKind::ExecutableFileBusy, "{e}"),
            Ok(mut child) => {
                let _ = child.wait();
            }
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn scop_lines_become_comments() {
        let prepared = prepare_source("a\n#pragma scop\n  # pragma endscop  \n#pragma omp x\n");
        assert_eq!(
            prepared,
            "a\n/* commute: #pragma scop */\n/* commute: #pragma endscop */\n#pragma omp x\n"
        );
    }

    #[test]
    fn time_patterns() {
        let out = "hello 1.5\n0.250000\nbye\n";
        assert_eq!(parse_time(out, &TimePattern::LastFloatLine), Some(0.25));
        assert_eq!(
            parse_time("time: 2.5 s\n", &TimePattern::Prefix("time:".into())),
            Some(2.5)
        );
        assert_eq!(parse_time(out, &TimePattern::WallTime), None);
        assert_eq!(
            strip_time_line(out, &TimePattern::LastFloatLine),
            "hello 1.5\nbye\n"
        );
    }

    #[test]
    fn comparison_names_array_and_index() {
        let e = "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1 2 3\n4\nend   dump: A\n==END   DUMP_ARRAYS==\n";
        let a = e.replace('4', "5");
        assert_eq!(compare_outputs(e, e, 1e-6), None);
        assert_eq!(
            compare_outputs(e, &a, 1e-6).as_deref(),
            Some("array A, index 3: expected 4, got 5")
        );
        let short = e.replace("\n4\n", "\n");
        assert!(compare_outputs(e, &short, 1e-6).is_some_and(|d| d.contains("array A, index 3")));
    }

    #[test]
    fn families() {
        assert_eq!(
            family_of("Ubuntu clang version 20.1.2 (1)\nTarget: x"),
            CompilerFamily::Clang { major: 20 }
        );
        assert_eq!(
            family_of(
                "cc (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc."
            ),
            CompilerFamily::Gcc
        );
        assert_eq!(family_of("tcc version 0.9"), CompilerFamily::Other);
    }
}
