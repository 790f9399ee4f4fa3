//! How programs are built, run and compared: the compiler and flags,
//! timeouts, runs, where a run's time comes from, and the tolerance.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::compiler::Compiler;

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
    /// A candidate's run times out once it is sure to be cut off (see
    /// [`Harness::run_timeout`](super::Harness::run_timeout)), or without
    /// a cut-off after this multiple of the wall time of a run of the
    /// incumbent; never after more than this multiple of the reference's
    /// (default 3)...
    pub run_timeout_factor: f64,
    /// ...but never sooner than this (default 0.2 s).
    pub run_timeout_floor: Duration,
    /// The timeout of the reference's first run, whose time is not known
    /// yet (default 300 s).
    pub reference_timeout: Duration,
    /// The reference's timed runs are cut to one when, by its check run's
    /// time, they would take longer than this (default: none; a tuning
    /// run's time budget sets a share of it).
    pub reference_runs_within: Option<Duration>,
    /// `OMP_NUM_THREADS` for every run (default: the available parallelism).
    pub threads: usize,
    /// Timed runs after the warm-up (default 5; doubled below 50 ms).
    pub runs: usize,
    /// A program whose whole run (start-up, initialization, kernel and
    /// dump) takes longer gets at most three timed runs (default 2 s):
    /// PolyBench's lu at `LARGE_DATASET` spends 10 s initializing around
    /// a kernel of 3 s, so five runs cost 75 s of a two-minute budget,
    /// while runs that long vary less, relatively, than short ones.
    pub long_run: Duration,
    /// Where the time of a run comes from.
    pub time_pattern: TimePattern,
    /// Relative tolerance when comparing values (default 1e-6).
    pub tolerance: f64,
    /// A candidate whose first run takes more than this multiple of the
    /// pace (the incumbent's time, or the fastest baseline's; see
    /// `Harness::pace`), and 10 ms more, is neither timed further nor
    /// checked (default 2;
    /// `None`: every candidate is timed in full).
    pub cutoff: Option<f64>,
    /// Compiles at a time when several sources are built together
    /// (default: the available parallelism).
    pub jobs: usize,
}

impl HarnessConfig {
    /// Every flag of a build with `compiler` but the dump flag, the source,
    /// the output and `-lm`: its built-in flags, the user's, `extra`, then
    /// `-I` for each include directory.
    pub fn build_flags(&self, compiler: &Compiler, extra: &[String]) -> Vec<String> {
        let mut flags = compiler.builtin_flags();
        flags.extend(self.cflags.iter().cloned());
        flags.extend(extra.iter().cloned());
        for dir in &self.include_dirs {
            flags.push("-I".to_string());
            flags.push(dir.display().to_string());
        }
        flags
    }

    /// The command a program is built with by `compiler` with `extra`
    /// flags, for people and scripts: the compiler, its flags without the
    /// include directories (the kernel's own, which depend on where it
    /// lies) and `-lm` (`clang-22 -fopenmp ... -O3 -march=native -lm`).
    pub fn build_command(&self, compiler: &Compiler, extra: &[String]) -> String {
        build_command(compiler, &self.cflags, extra)
    }

    /// The variables every run of a program gets: `OMP_NUM_THREADS`, and
    /// `OMP_PROC_BIND=spread` unless the environment sets `OMP_PROC_BIND`
    /// or `OMP_PLACES` itself (`OMP_PROC_BIND=false` turns binding off).
    /// Unbound, a 2-thread run on this project's 2-core machine was slowed
    /// up to 2.5 times, about as much as both threads on one CPU, in 14
    /// of 15 runs of one minute, and bound in none of the 15 alternating
    /// with them: a parallel candidate's time said more about the minute
    /// than about its code.
    pub fn run_environment(&self) -> Vec<(&'static str, String)> {
        run_environment(self.threads)
    }

    /// The defaults, with this compiler and work directory.
    pub fn new(compiler: Compiler, work_dir: PathBuf) -> HarnessConfig {
        HarnessConfig {
            compiler,
            cflags: DEFAULT_CFLAGS.map(String::from).to_vec(),
            include_dirs: Vec::new(),
            work_dir,
            compile_timeout: Duration::from_secs(60),
            run_timeout_factor: 3.0,
            run_timeout_floor: Duration::from_millis(200),
            reference_timeout: Duration::from_secs(300),
            reference_runs_within: None,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            runs: 5,
            long_run: Duration::from_secs(2),
            time_pattern: TimePattern::LastFloatLine,
            tolerance: 1e-6,
            cutoff: Some(2.0),
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
        }
    }
}

/// See [`HarnessConfig::run_environment`].
pub fn run_environment(threads: usize) -> Vec<(&'static str, String)> {
    let mut variables = vec![("OMP_NUM_THREADS", threads.max(1).to_string())];
    let told = |name| std::env::var_os(name).is_some();
    if !told("OMP_PROC_BIND") && !told("OMP_PLACES") {
        variables.push(("OMP_PROC_BIND", "spread".to_string()));
    }
    variables
}

/// The variables a run gets as a shell would set them, those of
/// [`run_environment`] and the binding it inherits:
/// `OMP_NUM_THREADS=2 OMP_PROC_BIND=spread`.
pub fn run_environment_line(threads: usize) -> String {
    let mut words: Vec<String> = run_environment(threads)
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    for name in ["OMP_PROC_BIND", "OMP_PLACES"] {
        if let Some(value) = std::env::var_os(name) {
            words.push(format!("{name}={}", value.to_string_lossy()));
        }
    }
    words.join(" ")
}

/// The optimization flags when the user gives none.
pub const DEFAULT_CFLAGS: [&str; 2] = ["-O3", "-march=native"];

/// The user's optimization flags, or the defaults when there are none.
pub fn effective_cflags(cflags: &[String]) -> Vec<String> {
    if cflags.is_empty() {
        DEFAULT_CFLAGS.map(String::from).to_vec()
    } else {
        cflags.to_vec()
    }
}

/// The command a program is built with by `compiler` with the user's
/// `cflags` and `extra` flags after them (see
/// [`HarnessConfig::build_command`]).
pub fn build_command(compiler: &Compiler, cflags: &[String], extra: &[String]) -> String {
    let mut words = vec![compiler.path.display().to_string()];
    words.extend(compiler.builtin_flags());
    words.extend(cflags.iter().cloned());
    words.extend(extra.iter().cloned());
    words.push("-lm".to_string());
    words.join(" ")
}

/// The user's flags with the paths they name made absolute from `cwd`:
/// the compiler runs in each build's own directory, where `-I utilities`
/// or `utilities/polybench.c` given from the user's would not be found.
/// Directories after `-I`, `-L`, `-isystem`, `-iquote` and `-include`
/// (joined or apart), and input files (a word that is no option and names
/// a file from `cwd`), are rewritten; everything else is kept.
pub fn absolute_paths(cwd: &Path, flags: &[String]) -> Vec<String> {
    const TAKE_A_PATH: [&str; 5] = ["-I", "-L", "-isystem", "-iquote", "-include"];
    let absolute = |path: &str| {
        if Path::new(path).is_absolute() {
            path.to_string()
        } else {
            cwd.join(path).display().to_string()
        }
    };
    let mut out = Vec::with_capacity(flags.len());
    let mut path_next = false;
    for flag in flags {
        if path_next {
            out.push(absolute(flag));
            path_next = false;
        } else if TAKE_A_PATH.contains(&flag.as_str()) {
            out.push(flag.clone());
            path_next = true;
        } else if let Some(rest) = ["-I", "-L"].iter().find_map(|p| flag.strip_prefix(p)) {
            out.push(format!("{}{}", &flag[..2], absolute(rest)));
        } else if !flag.starts_with('-') && cwd.join(flag).is_file() {
            out.push(absolute(flag));
        } else {
            out.push(flag.clone());
        }
    }
    out
}

/// The first line of a written C file: the command it was measured (or
/// would be built) with, in a comment.
pub fn built_with_line(command: &str) -> String {
    format!("/* commute: built with: {command} */")
}

/// `source` with [`built_with_line`] as its first line, in place of one it
/// had (a tuned file tuned again keeps one such line).
pub fn with_built_with_line(source: &str, command: &str) -> String {
    let rest = match source.split_once('\n') {
        Some((first, rest)) if first.starts_with("/* commute: built with:") => rest,
        None if source.starts_with("/* commute: built with:") => "",
        _ => source,
    };
    format!("{}\n{rest}", built_with_line(command))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_in_flags_are_made_absolute_and_options_kept() {
        let cwd = std::env::temp_dir().join("commute-absolute-paths");
        std::fs::create_dir_all(cwd.join("utilities")).unwrap();
        std::fs::write(cwd.join("utilities/polybench.c"), "").unwrap();
        let flags: Vec<String> = [
            "-O3",
            "-I",
            "utilities",
            "-Iinc",
            "-I/abs",
            "utilities/polybench.c",
            "-DN=4",
            "-include",
            "h.h",
            "missing.c",
        ]
        .map(String::from)
        .to_vec();
        let at = |p: &str| cwd.join(p).display().to_string();
        assert_eq!(
            absolute_paths(&cwd, &flags),
            [
                "-O3".to_string(),
                "-I".to_string(),
                at("utilities"),
                format!("-I{}", at("inc")),
                "-I/abs".to_string(),
                at("utilities/polybench.c"),
                "-DN=4".to_string(),
                "-include".to_string(),
                at("h.h"),
                "missing.c".to_string(),
            ]
        );
        let _ = std::fs::remove_dir_all(&cwd);
    }
}
