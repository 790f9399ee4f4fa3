//! The harness itself: the reference program built and run, then each
//! candidate's timing build (without the array dump; in parallel with
//! other candidates' builds when they are prepared together) run once and
//! cut off when far slower than the best, else run again (only once more
//! when both runs stay well above the best); a candidate faster than the
//! best then has its check build (with the dump) built, run once and
//! compared with the reference. Results are cached by hash. Only
//! candidates that could be a result pay for the dump, written and
//! compared. Where runs are long and the program prints its kernel time,
//! a check run is also one of the timed runs (the reference's, and that
//! of a candidate whose first run beats the best, checked then).

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use commute_runtime::search::Phases;

use super::build::{Build, CompileResult, Compiled, Toolchain};
use super::compiler::Compiler;
use super::config::{absolute_paths, HarnessConfig, TimePattern};
use super::error::{HarnessError, HarnessErrorKind};
use super::line_buffered;
use super::measurement::Measurement;
use super::objects::Objects;
use super::output::{
    compare_outputs, dump_section, last_message_line, parse_time, strip_time_line, truncate,
};
use super::process::{
    describe_status, read_lossy, spawn, wait_watching, wait_with_deadline, Watched,
};
use crate::fnv::Fnv;

/// Kernels whose check run takes less than this get twice the runs.
const SHORT_KERNEL_SECONDS: f64 = 0.05;

/// The reference's own timed runs time out after this multiple of its
/// first run's wall time (there is no best yet).
const REFERENCE_TIMEOUT_FACTOR: f64 = 10.0;

/// A time the reference prints may exceed its wall time by this factor
/// (processor time summed over threads) and slack, not more: a larger
/// number is a result it prints.
const PRINTED_TIME_FACTOR: f64 = 2.0;
const PRINTED_TIME_SLACK: f64 = 0.05;

/// A timing build whose every run takes less than this share of the
/// check run's time has lost its kernel: a compiler may drop a
/// computation whose results nothing prints (without the dump, nothing
/// does in a program without a guard such as PolyBench's
/// `polybench_prevent_dce`). The check build is timed instead. The runs
/// must also be `EMPTY_KERNEL_SECONDS` shorter: the single check run of a
/// kernel of a few milliseconds varies more than that share.
const EMPTY_KERNEL_SHARE: f64 = 0.5;
const EMPTY_KERNEL_SECONDS: f64 = 0.005;

/// A check run is cut off only when it is this many seconds above the
/// cut-off limit too: the single run of a kernel of a few milliseconds is
/// mostly noise, and timing such a candidate in full costs little.
const CUTOFF_SLACK_SECONDS: f64 = 0.01;

/// With the cut-off on, a candidate whose first run is more than this
/// factor above the incumbent (and `CUTOFF_SLACK_SECONDS` more) gets one
/// more run, and stops there when that one is too: in the tunes measured,
/// a candidate's first run was within 1.4 times its minimum nine times in
/// ten, and a candidate that does not beat the best is only a value for
/// the search.
const CONTENDER_MARGIN: f64 = 1.25;

/// With the cut-off on, a candidate whose fastest of its first three runs
/// is more than this factor above the pace (and `OUTPACED_SLACK_SECONDS`
/// more) is timed no further: its minimum only falls from there. Replayed
/// on 29 journals of PolyBench tunes (most at `LARGE_DATASET` with 120 s)
/// this stopped 184 candidates early, saving 15% of the seconds the
/// candidates timed in full ran, and stopped one that would have beaten
/// its pace by 1.4%. Three runs, not fewer: a first run is often well
/// above a candidate's minimum (see [`CONTENDER_MARGIN`]).
const OUTPACED_MARGIN: f64 = 1.10;
const OUTPACED_SLACK_SECONDS: f64 = 0.002;

/// Timed runs of a program whose run is long (see
/// [`HarnessConfig::long_run`]).
const LONG_RUN_RUNS: usize = 3;

/// A run cut off while it runs (see [`Harness::run_timeout`]) may spend
/// this much more than the reference outside its kernel, and
/// `TIMEOUT_SLACK_SECONDS` more.
const OUTSIDE_KERNEL_MARGIN: f64 = 1.25;
const TIMEOUT_SLACK_SECONDS: f64 = 0.1;

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

/// A source built (or refused) by [`Harness::prepare`], not run yet.
#[derive(Debug)]
struct Prepared {
    /// The compiler's refusal, if it refused a build made ahead.
    failure: Option<Measurement>,
    /// This source's share of the wall time its batch took to build.
    compile_seconds: f64,
}

/// Builds, runs and checks candidates against the reference program.
#[derive(Debug)]
pub struct Harness {
    config: HarnessConfig,
    /// Every argument but the dump flag, the source, the output and `-lm`.
    flags: Vec<String>,
    reference_seconds: f64,
    /// The wall time of the reference's check run (start-up,
    /// initialization, kernel and dump), from which run timeouts follow.
    reference_wall: f64,
    /// What that run spent outside its kernel (start-up, initialization,
    /// dump): its wall time less the kernel time it printed. Taken from
    /// one run: the difference with the timed runs' minimum mixes two
    /// runs, and on a loaded machine it can come out as nothing, which
    /// stopped candidates within the cut-off while they wrote their dump.
    reference_outside: f64,
    /// Whether the reference's check run was one of its timed runs.
    reference_check_counted: bool,
    /// Whether the reference prints its time (else wall time is used).
    reported_time: bool,
    /// Why the reference's printed time was not taken, if it was not.
    time_note: Option<String>,
    expected: Expected,
    cache: HashMap<String, Measurement>,
    prepared: HashMap<String, Prepared>,
    /// Sources timed with their check build (see `EMPTY_KERNEL_SHARE`).
    timed_as_checked: HashSet<String>,
    /// Time every candidate's check build: the reference's timing build
    /// lost its kernel, or the reference has no dump to leave out.
    time_check_builds: bool,
    /// The best time so far: only a candidate faster than it is checked.
    incumbent: Option<f64>,
    /// The fastest baseline's time: a candidate far slower than it can
    /// no more be the result than one far slower than the incumbent.
    baseline: Option<f64>,
    /// Seconds a check run of the reference took before its kernel
    /// (start-up, initialization), when its dump on stderr shows where the
    /// kernel ended.
    before_kernel: Option<f64>,
    compiles: usize,
    last_phases: Phases,
    /// The other sources' objects, built once.
    objects: Objects,
    /// The source check builds link to buffer standard error by lines
    /// (`line_buffered.rs`), unless it could not be written.
    line_buffered_stderr: Option<PathBuf>,
    /// When candidates' runs must end at the latest (see
    /// [`Harness::set_deadline`]).
    deadline: Option<Instant>,
}

/// The measurement of a compile that did not build, if it did not.
fn refusal(compiled: &Compiled) -> Option<Measurement> {
    match compiled {
        Ok((CompileResult::Built, _)) => None,
        Ok((CompileResult::Failed(log), _)) => {
            Some(Measurement::CompileFailed { log: log.clone() })
        }
        Ok((CompileResult::TimedOut(waited), _)) => {
            Some(Measurement::CompileTimedOut { seconds: *waited })
        }
        Err(e) => Some(Measurement::CompileFailed {
            log: format!("harness: {e}"),
        }),
    }
}

/// A candidate's timed runs as its measurement (the minimum counts), or
/// what they ended with instead.
fn timed_measurement(timed: Result<Vec<f64>, Measurement>) -> Measurement {
    match timed {
        Ok(runs) => Measurement::Timed {
            seconds: runs.iter().copied().fold(f64::INFINITY, f64::min),
            runs,
        },
        Err(measurement) => measurement,
    }
}

/// How one run of a program ended.
enum RunResult {
    Finished {
        wall: f64,
        stdout: String,
        stderr: Option<String>,
        /// When standard error first held something (watched runs).
        first_stderr: Option<f64>,
    },
    Crashed(String),
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
        config.cflags = absolute_paths(&cwd, &config.cflags);
        config.runs = config.runs.max(1);
        config.threads = config.threads.max(1);
        config.jobs = config.jobs.max(1);
        let flags = config.build_flags(&config.compiler, &[]);
        let objects = Objects::new(config.work_dir.join("objects"));
        let line_buffered_stderr = line_buffered::write_source(&config.work_dir);
        let mut harness = Harness {
            config,
            flags,
            reference_seconds: 0.0,
            reference_wall: 0.0,
            reference_outside: 0.0,
            reported_time: false,
            reference_check_counted: false,
            time_note: None,
            expected: Expected::Stdout(String::new()),
            cache: HashMap::new(),
            prepared: HashMap::new(),
            timed_as_checked: HashSet::new(),
            time_check_builds: false,
            incumbent: None,
            baseline: None,
            before_kernel: None,
            compiles: 0,
            last_phases: Phases::default(),
            objects,
            line_buffered_stderr,
            deadline: None,
        };
        let hash = harness.hash(reference_source);
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
        harness.prepare_builds(&[reference_source], &[Build::Check, Build::Timed]);
        if let Some(Prepared {
            failure: Some(failure),
            ..
        }) = harness.prepared.remove(&hash)
        {
            return Err(failed(match failure {
                Measurement::CompileTimedOut { seconds } => {
                    format!("does not compile within {seconds:.1} s")
                }
                Measurement::CompileFailed { log } => format!("does not compile:\n{log}"),
                other => other.summary(),
            }));
        }
        let check = Build::Check.binary(&dir);
        let (check_wall, stdout, stderr, first_stderr) =
            match harness.run(&dir, &check, harness.config.reference_timeout, true, None)? {
                RunResult::Finished {
                    wall,
                    stdout,
                    stderr,
                    first_stderr,
                } => (wall, stdout, stderr.unwrap_or_default(), first_stderr),
                RunResult::Crashed(detail) => return Err(failed(format!("crashed: {detail}"))),
                RunResult::TimedOut(seconds) => {
                    return Err(failed(format!("ran longer than {seconds:.1} s")))
                }
            };
        let printed = match harness.config.time_pattern {
            TimePattern::WallTime => None,
            ref pattern => parse_time(&stdout, pattern),
        };
        // A number longer than the run itself is no time of it: the
        // program prints a result (its only check, then) and no time.
        let longest = PRINTED_TIME_FACTOR * check_wall + PRINTED_TIME_SLACK;
        let plausible = |t: &f64| (0.0..=longest).contains(t);
        if let Some(seconds) = printed.filter(|t| !plausible(t)) {
            harness.time_note = Some(format!(
                "the reference prints {seconds} where its time is expected, more than its whole run ({check_wall:.6} s): that is a result, compared like the rest of its output; runs are timed by their wall time"
            ));
            harness.config.time_pattern = TimePattern::WallTime;
        }
        harness.reported_time = printed.is_some_and(|t| plausible(&t));
        harness.expected = match dump_section(&stderr) {
            Some(dump) => Expected::Dump(dump),
            None => {
                // Nothing to leave out of a timing build.
                harness.time_check_builds = true;
                Expected::Stdout(strip_time_line(&stdout, &harness.config.time_pattern))
            }
        };
        harness.reference_wall = check_wall;
        let first = harness.time_of(check_wall, &stdout).unwrap_or(check_wall);
        harness.reference_outside = (check_wall - first).max(0.0);
        // The dump starts on stderr as the kernel ends: what came before
        // the kernel is the rest.
        if matches!(harness.expected, Expected::Dump(_)) && harness.reported_time {
            harness.before_kernel = first_stderr
                .map(|at| at - first)
                .filter(|s| s.is_finite() && *s >= 0.0);
        }
        let timeout = scaled_timeout(
            check_wall * REFERENCE_TIMEOUT_FACTOR,
            harness.config.run_timeout_floor,
        );
        let runs_asked = harness.config.runs;
        // Where the program prints its kernel time, the check run of a
        // long run is one of its timed runs (adi's take 9 s each). Runs
        // that would outlast their share are cut to one, the check run
        // where it counts (on a kernel whose runs take 50 s, the check run
        // and a timed run left a 120 s budget no room for a candidate).
        let mut check_counts = harness.reported_time && harness.is_long(first);
        if let Some(within) = harness.config.reference_runs_within {
            if check_wall * harness.run_count(first) as f64 > within.as_secs_f64() {
                harness.config.runs = 1;
                check_counts = harness.reported_time;
            }
        }
        let count = harness.run_count(first) - usize::from(check_counts);
        let timed = match count {
            0 => Ok(Ok(Vec::new())),
            _ => harness.time(&hash, &dir, first, count, timeout),
        };
        harness.config.runs = runs_asked;
        let mut runs = match timed? {
            Ok(runs) => runs,
            Err(measurement) => return Err(failed(measurement.summary())),
        };
        if check_counts {
            runs.insert(0, first);
        }
        harness.reference_check_counted = check_counts;
        if harness.timed_as_checked.contains(&hash) {
            harness.time_check_builds = true;
        }
        let seconds = runs.iter().copied().fold(f64::INFINITY, f64::min);
        harness.reference_seconds = seconds;
        harness
            .cache
            .insert(hash, Measurement::Timed { seconds, runs });
        Ok(harness)
    }

    /// Why the number the reference prints where a time is expected was
    /// not taken as its time (it exceeds the whole run), if so.
    pub fn time_note(&self) -> Option<&str> {
        self.time_note.as_deref()
    }

    /// The reference program's time (minimum of its runs), in seconds.
    pub fn reference_seconds(&self) -> f64 {
        self.reference_seconds
    }

    /// The wall time of one run of the reference (its check run), in
    /// seconds.
    pub fn reference_run_wall(&self) -> f64 {
        self.reference_wall
    }

    /// Whether the reference's check run counted as one of its timed
    /// runs (it prints its kernel time, and its runs are long or were cut
    /// to one).
    pub fn reference_check_counted(&self) -> bool {
        self.reference_check_counted
    }

    /// The configuration (with the work and include directories made
    /// absolute).
    pub fn config(&self) -> &HarnessConfig {
        &self.config
    }

    /// How many sources were built ahead (the reference included): their
    /// timing builds, or their check builds when check builds are timed
    /// (the reference gets both). A check build made later, for a
    /// candidate within the cut-off, is not counted; cached sources are
    /// not rebuilt.
    pub fn compiles(&self) -> usize {
        self.compiles
    }

    /// Sets the best time so far: only candidates faster than it are
    /// checked; those whose first run is more than
    /// [`HarnessConfig::cutoff`] times slower are cut off, and run
    /// timeouts follow it (see [`pace`](Harness::pace)).
    pub fn set_incumbent(&mut self, seconds: Option<f64>) {
        self.incumbent = seconds.filter(|s| s.is_finite() && *s > 0.0);
    }

    /// The best time so far, as last set.
    pub fn incumbent(&self) -> Option<f64> {
        self.incumbent
    }

    /// The command candidates are built with, `extra` flags after the
    /// user's (the first line of a written file names it).
    pub fn command(&self, extra: &[String]) -> String {
        self.config.build_command(&self.config.compiler, extra)
    }

    /// Timed runs of the evaluations from now on (see
    /// [`HarnessConfig::runs`]; at least one): baselines measured under a
    /// short time budget get fewer.
    pub fn set_runs(&mut self, runs: usize) {
        self.config.runs = runs.max(1);
    }

    /// Sets the fastest baseline's time (the unmodified program built
    /// another way, written instead of any slower candidate): with the
    /// cut-off on, cut-offs and run timeouts follow it too, where it is
    /// faster than the incumbent (see [`pace`](Harness::pace)).
    pub fn set_baseline(&mut self, seconds: Option<f64>) {
        self.baseline = seconds.filter(|s| s.is_finite() && *s > 0.0);
    }

    /// The time cut-offs and run timeouts follow: the faster of the
    /// incumbent and, with the cut-off on, the fastest baseline. A
    /// candidate far slower than either is never the result; timing it in
    /// full only informs the search, which its first run does as well.
    pub fn pace(&self) -> Option<f64> {
        let baseline = self.baseline.filter(|_| self.config.cutoff.is_some());
        match (self.incumbent, baseline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// How many sources were timed with their check build because their
    /// timing build's runs were far shorter than the check run (a
    /// compiler dropped the kernel: see the module documentation), the
    /// reference included.
    pub fn check_build_timings(&self) -> usize {
        self.timed_as_checked.len()
    }

    /// Where the last [`evaluate`](Harness::evaluate) spent its time
    /// (zero for a cached source).
    pub fn last_phases(&self) -> Phases {
        self.last_phases
    }

    /// The run timeout of candidates. With a cut-off and a pace, the
    /// cut-off applied while the program runs: the wall time a run whose
    /// kernel takes the cut-off factor times the pace would
    /// take (what the reference spends outside its kernel, start-up,
    /// initialization and dump, with a quarter more, and 0.1 s), since a
    /// longer run is cut off anyway. Without a cut-off, the factor times
    /// the wall time of a run of the incumbent. Never longer than the
    /// factor times the reference's wall time (the rule before there is an
    /// incumbent), never shorter than the floor.
    pub fn run_timeout(&self) -> Duration {
        let outside_kernel = self.reference_outside;
        let reference_rule = self.reference_wall * self.config.run_timeout_factor;
        let rule = match (self.pace(), self.config.cutoff) {
            (Some(pace), Some(factor)) => {
                factor * pace + OUTSIDE_KERNEL_MARGIN * outside_kernel + TIMEOUT_SLACK_SECONDS
            }
            (Some(best), None) => (best + outside_kernel) * self.config.run_timeout_factor,
            (None, _) => reference_rule,
        };
        self.within_deadline(scaled_timeout(
            rule.min(reference_rule),
            self.config.run_timeout_floor,
        ))
    }

    /// `timeout`, or what is left until the deadline when that is less.
    fn within_deadline(&self, timeout: Duration) -> Duration {
        match self.deadline {
            Some(at) => timeout.min(at.saturating_duration_since(Instant::now())),
            None => timeout,
        }
    }

    /// Stops every run of a candidate at `at` (the end of a tuning run's
    /// time budget) at the latest: such a run ends as timed out.
    pub fn set_deadline(&mut self, at: Option<Instant>) {
        self.deadline = at;
    }

    /// Whether the deadline set by [`set_deadline`](Harness::set_deadline)
    /// has passed.
    pub fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|at| Instant::now() >= at)
    }

    /// How long a candidate's first run may take before it is stopped:
    /// the cut-off factor times the pace, plus what the
    /// reference spends before its kernel with a quarter more and 0.1 s;
    /// a longer run is cut off anyway. The first run is the timing
    /// build's, or, for candidates timed with their check build, the
    /// check run, stopped when its dump has not started on standard error
    /// by then (it spares the wait for the dump of a hopeless candidate).
    /// `None` without a cut-off, a pace, or a reference whose dump
    /// shows where its kernel ends.
    pub fn kernel_limit(&self) -> Option<Duration> {
        let (pace, factor, before) = (self.pace()?, self.config.cutoff?, self.before_kernel?);
        let limit = factor * pace + OUTSIDE_KERNEL_MARGIN * before + TIMEOUT_SLACK_SECONDS;
        Some(scaled_timeout(limit, self.config.run_timeout_floor).min(self.run_timeout()))
    }

    /// The directory where `source` is (or would be) built:
    /// `work_dir/<hash of source and flags>/`, holding the check build
    /// (`kernel.c`, `compile.log`, the binary `kernel`, and its run's
    /// `run.stdout` and `run.stderr`) and, in `timed/`, the timing build.
    pub fn build_dir(&self, source: &str) -> PathBuf {
        self.config.work_dir.join(self.hash(source))
    }

    /// [`evaluate`](Harness::evaluate), with `compiler` instead of the
    /// candidates' and `extra` flags after the user's (a baseline: the
    /// unmodified program built with Polly, or with another compiler).
    /// Checked against the reference's output and timed like any
    /// candidate, with the same timeouts; cached by compiler, flags and
    /// source.
    pub fn evaluate_built_with(
        &mut self,
        source: &str,
        compiler: &Compiler,
        extra: &[String],
    ) -> Measurement {
        self.built_with(compiler, extra, |harness| harness.evaluate(source))
    }

    /// [`evaluate_built_with`](Harness::evaluate_built_with) with one run,
    /// the check build's: its output compared, and the kernel time it
    /// prints the value (a baseline where a short time budget leaves it
    /// one run: a timed run would repeat the check run). The check run is
    /// the only run that cannot lose the kernel (see
    /// [`Harness::check_build_timings`]). Where the reference prints no
    /// time (a check run's wall time counts its dump), the same as
    /// `evaluate_built_with`.
    pub fn evaluate_once_built_with(
        &mut self,
        source: &str,
        compiler: &Compiler,
        extra: &[String],
    ) -> Measurement {
        if !self.reported_time {
            return self.evaluate_built_with(source, compiler, extra);
        }
        self.built_with(compiler, extra, |harness| harness.check_once(source))
    }

    /// `source`'s check build built and run once: its output compared,
    /// its printed kernel time the value (cached like an evaluation).
    fn check_once(&mut self, source: &str) -> Measurement {
        self.cached(source, |harness, _, dir| {
            match harness.build_and_check(dir, source) {
                Ok(Ok(seconds)) => harness.cut_off(seconds).unwrap_or(Measurement::Timed {
                    seconds,
                    runs: vec![seconds],
                }),
                Ok(Err(failure)) => failure,
                Err(e) => Measurement::CompileFailed {
                    log: format!("harness: {e}"),
                },
            }
        })
    }

    /// [`prepare`](Harness::prepare) for sources built with the
    /// candidates' compiler and `extra` flags after the user's (see
    /// [`evaluate_built_with`](Harness::evaluate_built_with)).
    pub fn prepare_built_with(&mut self, sources: &[&str], extra: &[String]) {
        let compiler = self.config.compiler.clone();
        self.built_with(&compiler, extra, |harness| harness.prepare(sources));
    }

    /// Builds the sources that are neither evaluated nor built yet, with
    /// [`HarnessConfig::jobs`] compiles at a time; a later
    /// [`evaluate`](Harness::evaluate) of one of them only runs it. Call
    /// it while nothing is being timed.
    pub fn prepare(&mut self, sources: &[&str]) {
        // The check build waits for a first timed run within the cut-off:
        // most candidates never need it.
        let builds: &[Build] = if self.time_check_builds {
            &[Build::Check]
        } else {
            &[Build::Timed]
        };
        self.prepare_builds(sources, builds);
    }

    /// Builds `builds` of each source that is neither evaluated nor built
    /// yet, [`HarnessConfig::jobs`] compiles at a time.
    fn prepare_builds(&mut self, sources: &[&str], builds: &[Build]) {
        let mut todo: Vec<(String, PathBuf, &str)> = Vec::new();
        for source in sources {
            let hash = self.hash(source);
            if self.cache.contains_key(&hash)
                || self.prepared.contains_key(&hash)
                || todo.iter().any(|(h, _, _)| *h == hash)
            {
                continue;
            }
            let dir = self.config.work_dir.join(&hash);
            todo.push((hash, dir, source));
        }
        if todo.is_empty() {
            return;
        }
        let tasks: Vec<(PathBuf, Build, &str)> = todo
            .iter()
            .flat_map(|(_, dir, source)| builds.iter().map(|b| (dir.clone(), *b, *source)))
            .collect();
        let toolchain = Toolchain {
            compiler: &self.config.compiler.path,
            flags: &self.flags,
            timeout: self.config.compile_timeout,
            objects: &self.objects,
            check_extra: self.line_buffered_stderr.as_deref(),
        };
        let start = Instant::now();
        let results = toolchain.compile_all(&tasks, self.config.jobs);
        let wall = start.elapsed().as_secs_f64();
        let busy: f64 = results
            .iter()
            .map(|r| r.as_ref().map_or(0.0, |r| r.1))
            .sum();
        for (k, (hash, _, _)) in todo.into_iter().enumerate() {
            let mut failure = None;
            let mut seconds = 0.0;
            for result in &results[k * builds.len()..(k + 1) * builds.len()] {
                if let Ok((_, s)) = result {
                    seconds += s;
                }
                failure = failure.or(refusal(result));
            }
            let compile_seconds = if busy > 0.0 {
                wall * seconds / busy
            } else {
                0.0
            };
            self.compiles += 1;
            self.prepared.insert(
                hash,
                Prepared {
                    failure,
                    compile_seconds,
                },
            );
        }
    }

    /// Builds (unless [`prepare`](Harness::prepare)d), times and checks a
    /// candidate (a whole C source), or returns the cached result of an
    /// identical source. Its timing build runs once first: a crash or a
    /// run past the cut-off ends there. Otherwise it runs
    /// [`HarnessConfig::runs`] times in all (twice as many below 50 ms;
    /// only twice when both runs stay a quarter above the incumbent), and
    /// a candidate faster than the incumbent (any, with the cut-off off)
    /// has its check build run once, its output compared with the
    /// reference's. A failure of the harness itself (an
    /// unwritable work directory, say) is a [`Measurement::CompileFailed`]
    /// whose log starts with `harness:`.
    pub fn evaluate(&mut self, source: &str) -> Measurement {
        self.cached(source, |harness, hash, dir| {
            if !harness.prepared.contains_key(hash) {
                harness.prepare(&[source]);
            }
            let prepared = harness.prepared.remove(hash);
            harness.last_phases.compile = prepared.as_ref().map_or(0.0, |p| p.compile_seconds);
            if let Some(failure) = prepared.and_then(|p| p.failure) {
                return failure;
            }
            let checked = if harness.time_check_builds {
                harness.check_and_time(hash, dir)
            } else {
                harness.time_then_check(hash, dir, source)
            };
            checked.unwrap_or_else(|e| Measurement::CompileFailed {
                log: format!("harness: {e}"),
            })
        })
    }

    /// The cached measurement of `source`, else `measure`'s (given its
    /// hash and build directory), cached; [`last_phases`] start at zero.
    ///
    /// [`last_phases`]: Harness::last_phases
    fn cached(
        &mut self,
        source: &str,
        measure: impl FnOnce(&mut Harness, &str, &Path) -> Measurement,
    ) -> Measurement {
        self.last_phases = Phases::default();
        let hash = self.hash(source);
        if let Some(cached) = self.cache.get(&hash) {
            return cached.clone();
        }
        let dir = self.config.work_dir.join(&hash);
        let measurement = measure(self, &hash, &dir);
        self.cache.insert(hash, measurement.clone());
        measurement
    }

    /// The first timed run, then the cut-off; else the timed runs (two
    /// only, when both stay above the contender margin), then, for a
    /// candidate faster than the incumbent, the check build built and run
    /// once. A candidate cut off or no faster than the incumbent is never
    /// checked: it is never a result, and its check run (the dump written
    /// and compared) would cost more than its timed runs. A long run (see
    /// [`HarnessConfig::long_run`]) whose first run beats the incumbent is
    /// checked right after it instead, and its check run's printed kernel
    /// time is one of its runs: it would be checked anyway, and a run of
    /// it is worth seconds.
    fn time_then_check(
        &mut self,
        hash: &str,
        dir: &Path,
        source: &str,
    ) -> Result<Measurement, HarnessError> {
        let timeout = self.run_timeout();
        let start = Instant::now();
        let limit = self.kernel_limit().unwrap_or(timeout);
        let screened = self.timed_runs(dir, Build::Timed, 1, limit)?;
        self.last_phases.timing = start.elapsed().as_secs_f64();
        let first_timed = match screened {
            Ok(runs) => runs[0],
            Err(measurement) => return Ok(measurement),
        };
        if let Some(cut_off) = self.cut_off(first_timed) {
            return Ok(cut_off);
        }
        let checked_early = if self.checks_early(first_timed) {
            match self.build_and_check(dir, source)? {
                Ok(checked) => Some(checked),
                Err(measurement) => return Ok(measurement),
            }
        } else {
            None
        };
        let start = Instant::now();
        let counted = usize::from(checked_early.is_some());
        let timed = self.contender_runs(dir, first_timed, counted, timeout);
        self.last_phases.timing += start.elapsed().as_secs_f64();
        let runs = match timed? {
            Ok(runs) => runs,
            Err(measurement) => return Ok(measurement),
        };
        if let Some(checked) = checked_early {
            let start = Instant::now();
            let timed = self.kernel_kept(hash, dir, checked, runs, timeout);
            self.last_phases.timing += start.elapsed().as_secs_f64();
            return Ok(timed_measurement(timed?.map(|mut runs| {
                // The runs of the build whose kernel was lost are the
                // check build's already, and as many as asked.
                if !self.timed_as_checked.contains(hash) {
                    runs.push(checked);
                }
                runs
            })));
        }
        let seconds = runs.iter().copied().fold(f64::INFINITY, f64::min);
        if let Some(best) = self.incumbent.filter(|_| self.config.cutoff.is_some()) {
            if seconds >= best {
                return Ok(Measurement::Slower { seconds, runs });
            }
        }
        let checked_first = match self.build_and_check(dir, source)? {
            Ok(first) => first,
            Err(measurement) => return Ok(measurement),
        };
        let start = Instant::now();
        let timed = self.kernel_kept(hash, dir, checked_first, runs, timeout);
        self.last_phases.timing += start.elapsed().as_secs_f64();
        Ok(timed_measurement(timed?))
    }

    /// Whether a candidate whose first timed run took `first` is checked
    /// before its other runs, its check run counted as one: a long run
    /// (see [`HarnessConfig::long_run`]) that would be checked whatever
    /// its other runs give (no cut-off, or faster than the incumbent), of
    /// a program that prints its kernel time (else the check run's time
    /// would count its dump).
    fn checks_early(&self, first: f64) -> bool {
        self.reported_time
            && self.is_long(first)
            && (self.config.cutoff.is_none() || self.incumbent.is_none_or(|best| first < best))
    }

    /// Builds the check build of `source` in `dir`, runs it once and
    /// compares its output with the reference's: the kernel time of that
    /// run, or what it gave instead (a refusal, a crash, a timeout, a
    /// wrong output).
    fn build_and_check(
        &mut self,
        dir: &Path,
        source: &str,
    ) -> Result<Result<f64, Measurement>, HarnessError> {
        let start = Instant::now();
        let toolchain = Toolchain {
            compiler: &self.config.compiler.path,
            flags: &self.flags,
            timeout: self.config.compile_timeout,
            objects: &self.objects,
            check_extra: self.line_buffered_stderr.as_deref(),
        };
        let compiled = toolchain.compile(dir, Build::Check, source);
        self.last_phases.compile += start.elapsed().as_secs_f64();
        if let Some(failure) = refusal(&compiled) {
            return Ok(Err(failure));
        }
        // Its kernel ran within the cut-off: the check run, dump included,
        // is not held to the cut-off's timeout (a noisy run killed while it
        // writes its dump would be recorded as slow), only to the
        // reference's rule.
        let start = Instant::now();
        let check_timeout = scaled_timeout(
            self.reference_wall * self.config.run_timeout_factor,
            self.config.run_timeout_floor,
        );
        let checked = self.run(dir, &Build::Check.binary(dir), check_timeout, true, None)?;
        self.last_phases.check += start.elapsed().as_secs_f64();
        Ok(self.checked_time(checked))
    }

    /// Whether `source`, built with `compiler` and `extra` flags after the
    /// user's, prints the reference's output (its check build built and
    /// run once, neither timed nor cached): `None` when it does, else what
    /// it gave instead. It tells a compiler's fault from the space's: a
    /// candidate whose output is wrong only with an optimizer's flags was
    /// miscompiled.
    pub fn check_built_with(
        &mut self,
        source: &str,
        compiler: &Compiler,
        extra: &[String],
    ) -> Option<Measurement> {
        self.built_with(compiler, extra, |harness| {
            let dir = harness.build_dir(source);
            match harness.build_and_check(&dir, source) {
                Ok(checked) => checked.err(),
                Err(e) => Some(Measurement::CompileFailed {
                    log: format!("harness: {e}"),
                }),
            }
        })
    }

    /// Runs `f` with `compiler` and `extra` flags after the user's in
    /// place of the candidates' build.
    fn built_with<T>(
        &mut self,
        compiler: &Compiler,
        extra: &[String],
        f: impl FnOnce(&mut Harness) -> T,
    ) -> T {
        let flags = self.config.build_flags(compiler, extra);
        let saved_flags = std::mem::replace(&mut self.flags, flags);
        let saved_compiler = std::mem::replace(&mut self.config.compiler, compiler.clone());
        let result = f(self);
        self.flags = saved_flags;
        self.config.compiler = saved_compiler;
        result
    }

    /// The timed runs of a candidate whose first run took `first` (within
    /// the cut-off), less `counted` runs made otherwise (its check run):
    /// all of them, or fewer when the cut-off is on and the
    /// runs so far say it will not beat the pace ([`outpaced`]: such a
    /// candidate's value only steers the search).
    fn contender_runs(
        &self,
        dir: &Path,
        first: f64,
        counted: usize,
        timeout: Duration,
    ) -> Result<Result<Vec<f64>, Measurement>, HarnessError> {
        let mut runs = vec![first];
        let count = self.run_count(first).saturating_sub(counted);
        let pace = self.pace().filter(|_| self.config.cutoff.is_some());
        while runs.len() < count && !pace.is_some_and(|pace| outpaced(&runs, pace)) {
            match self.timed_runs(dir, Build::Timed, 1, timeout)? {
                Ok(more) => runs.extend(more),
                failure => return Ok(failure),
            }
        }
        Ok(Ok(runs))
    }

    /// How many timed runs a candidate whose first run took `first` gets:
    /// twice [`HarnessConfig::runs`] for short kernels, at most
    /// `LONG_RUN_RUNS` where a whole run (with what the reference spends
    /// outside its kernel) is longer than [`HarnessConfig::long_run`].
    fn run_count(&self, first: f64) -> usize {
        if first < SHORT_KERNEL_SECONDS {
            self.config.runs * 2
        } else if self.is_long(first) {
            self.config.runs.min(LONG_RUN_RUNS)
        } else {
            self.config.runs
        }
    }

    /// Whether a whole run of a kernel that takes `first`, with what the
    /// reference spends outside its kernel, is longer than
    /// [`HarnessConfig::long_run`].
    fn is_long(&self, first: f64) -> bool {
        first >= SHORT_KERNEL_SECONDS
            && first + self.reference_outside > self.config.long_run.as_secs_f64()
    }

    /// `runs` of the timing build, unless their kernel was lost: every
    /// one far shorter than the check run's `checked_first` (then the
    /// check build is timed instead, from now on; see
    /// `EMPTY_KERNEL_SHARE`).
    fn kernel_kept(
        &mut self,
        hash: &str,
        dir: &Path,
        checked_first: f64,
        runs: Vec<f64>,
        timeout: Duration,
    ) -> Result<Result<Vec<f64>, Measurement>, HarnessError> {
        let slowest = runs.iter().copied().fold(0.0, f64::max);
        if slowest >= EMPTY_KERNEL_SHARE * checked_first
            || checked_first - slowest < EMPTY_KERNEL_SECONDS
        {
            return Ok(Ok(runs));
        }
        self.timed_as_checked.insert(hash.to_string());
        let count = self.run_count(checked_first);
        self.timed_runs(dir, Build::Check, count, timeout)
    }

    /// The kernel time of a finished check run whose output matches the
    /// reference's, or what the run was instead.
    fn checked_time(&self, checked: RunResult) -> Result<f64, Measurement> {
        let (wall, stdout, stderr) = match checked {
            RunResult::Finished {
                wall,
                stdout,
                stderr,
                ..
            } => (wall, stdout, stderr.unwrap_or_default()),
            RunResult::Crashed(detail) => return Err(Measurement::Crashed { detail }),
            RunResult::TimedOut(seconds) => return Err(Measurement::RunTimedOut { seconds }),
        };
        if let Some(detail) = self.check_output(&stdout, &stderr) {
            return Err(Measurement::WrongOutput { detail });
        }
        self.time_of(wall, &stdout)
            .ok_or_else(|| Measurement::WrongOutput {
                detail: self.missing_time(),
            })
    }

    /// The cut-off of a candidate whose first run took `first`, if it is
    /// far enough above the pace.
    fn cut_off(&self, first: f64) -> Option<Measurement> {
        let (pace, factor) = (self.pace()?, self.config.cutoff?);
        (first > factor * pace + CUTOFF_SLACK_SECONDS).then_some(Measurement::CutOff {
            seconds: first,
            limit: factor * pace,
        })
    }

    /// The check run, then the cut-off or the timed runs (for candidates
    /// timed with their check build).
    fn check_and_time(&mut self, hash: &str, dir: &Path) -> Result<Measurement, HarnessError> {
        let timeout = self.run_timeout();
        let start = Instant::now();
        let checked = self.run(
            dir,
            &Build::Check.binary(dir),
            timeout,
            true,
            self.kernel_limit(),
        )?;
        self.last_phases.check = start.elapsed().as_secs_f64();
        let first = match self.checked_time(checked) {
            Ok(first) => first,
            Err(measurement) => return Ok(measurement),
        };
        if let Some(cut_off) = self.cut_off(first) {
            return Ok(cut_off);
        }
        let start = Instant::now();
        let timed = self.time(hash, dir, first, self.run_count(first), timeout);
        self.last_phases.timing = start.elapsed().as_secs_f64();
        Ok(timed_measurement(timed?))
    }

    /// `count` timed runs of the source built in `dir`, whose check run
    /// took `first`: its timing build's, unless that lost its kernel (then
    /// its check build's, with the dump discarded).
    fn time(
        &mut self,
        hash: &str,
        dir: &Path,
        first: f64,
        count: usize,
        timeout: Duration,
    ) -> Result<Result<Vec<f64>, Measurement>, HarnessError> {
        if self.time_check_builds {
            self.timed_as_checked.insert(hash.to_string());
            return self.timed_runs(dir, Build::Check, count, timeout);
        }
        match self.timed_runs(dir, Build::Timed, count, timeout)? {
            Ok(runs) => self.kernel_kept(hash, dir, first, runs, timeout),
            failure => Ok(failure),
        }
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
        self.remeasure_built_with((incumbent, &[]), (challenger, &[]), rounds)
    }

    /// [`remeasure`](Harness::remeasure) for programs built with the
    /// candidates' compiler and extra flags after the user's (a source and
    /// its extra flags each).
    pub fn remeasure_built_with(
        &mut self,
        incumbent: (&str, &[String]),
        challenger: (&str, &[String]),
        rounds: usize,
    ) -> Result<(f64, f64), HarnessError> {
        let mut binaries = Vec::new();
        for (name, (source, extra)) in [("incumbent", incumbent), ("challenger", challenger)] {
            let flags = self.config.build_flags(&self.config.compiler, extra);
            let hash = self.hash_with(&self.config.compiler, &flags, source);
            if !self.cache.get(&hash).is_some_and(Measurement::is_timed) {
                return Err(HarnessError::new(
                    HarnessErrorKind::Remeasure,
                    format!("the {name} was not evaluated successfully (hash {hash})"),
                ));
            }
            let dir = self.config.work_dir.join(&hash);
            let build = if self.timed_as_checked.contains(&hash) {
                Build::Check
            } else {
                Build::Timed
            };
            binaries.push((name, build.binary(&dir), build.dir(&dir)));
        }
        let timeout = self.run_timeout();
        let mut best = [f64::INFINITY; 2];
        for _ in 0..rounds.max(1) {
            for (slot, (name, binary, dir)) in binaries.iter().enumerate() {
                let value = match self.run(dir, binary, timeout, false, None)? {
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
        self.hash_with(&self.config.compiler, &self.flags, source)
    }

    fn hash_with(&self, compiler: &Compiler, flags: &[String], source: &str) -> String {
        let mut hash = Fnv::default();
        // Each part ends with a zero byte, so that parts cannot run together.
        let mut feed = |bytes: &[u8]| {
            hash.feed(bytes);
            hash.feed(&[0]);
        };
        feed(compiler.path.as_os_str().as_encoded_bytes());
        for flag in flags {
            feed(flag.as_bytes());
        }
        feed(source.as_bytes());
        hash.hex()
    }

    /// Runs `binary` once in `dir`: standard output to `run.stdout`,
    /// standard error to `run.stderr` when `capture_stderr` (else
    /// discarded). With `silent_limit`, a run that has written nothing on
    /// standard error by then (its kernel still running, before the dump)
    /// is stopped as if it had timed out. No run outlasts the deadline,
    /// whatever `timeout` an evaluation of several runs computed at its
    /// start.
    fn run(
        &self,
        dir: &Path,
        binary: &Path,
        timeout: Duration,
        capture_stderr: bool,
        silent_limit: Option<Duration>,
    ) -> Result<RunResult, HarnessError> {
        let timeout = self.within_deadline(timeout);
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
                .envs(self.config.run_environment())
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
        let (status, first_stderr) = if capture_stderr {
            match wait_watching(&mut child, start, timeout, &stderr_path, silent_limit)
                .map_err(|e| HarnessError::io("wait for", binary, &e))?
            {
                Watched::Exited(status, first) => (status, first),
                Watched::TimedOut => return Ok(RunResult::TimedOut(timeout.as_secs_f64())),
                Watched::Silent => {
                    return Ok(RunResult::TimedOut(start.elapsed().as_secs_f64()));
                }
            }
        } else {
            let status = wait_with_deadline(&mut child, start, timeout, false)
                .map_err(|e| HarnessError::io("wait for", binary, &e))?;
            let Some(status) = status else {
                return Ok(RunResult::TimedOut(timeout.as_secs_f64()));
            };
            (status, None)
        };
        let wall = start.elapsed().as_secs_f64();
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
            first_stderr,
        })
    }

    /// `count` runs of one build of the source built in `dir`, standard
    /// error discarded, or the failure of one of them.
    fn timed_runs(
        &self,
        dir: &Path,
        build: Build,
        count: usize,
        timeout: Duration,
    ) -> Result<Result<Vec<f64>, Measurement>, HarnessError> {
        let binary = build.binary(dir);
        let run_dir = build.dir(dir);
        let mut runs = Vec::with_capacity(count);
        for _ in 0..count {
            match self.run(&run_dir, &binary, timeout, false, None)? {
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

/// Whether a candidate's timed runs so far say it will not beat `pace`:
/// its first two both more than [`CONTENDER_MARGIN`] above it, or the
/// fastest of three or more more than [`OUTPACED_MARGIN`] above it.
fn outpaced(runs: &[f64], pace: f64) -> bool {
    let fastest = runs.iter().copied().fold(f64::INFINITY, f64::min);
    match runs.len() {
        0 | 1 => false,
        2 => fastest > CONTENDER_MARGIN * pace + CUTOFF_SLACK_SECONDS,
        _ => fastest > OUTPACED_MARGIN * pace + OUTPACED_SLACK_SECONDS,
    }
}

/// `seconds` as a timeout, at least `floor`.
fn scaled_timeout(seconds: f64, floor: Duration) -> Duration {
    let scaled = if seconds.is_finite() && seconds > 0.0 {
        Duration::from_secs_f64(seconds.min(1e9))
    } else {
        Duration::ZERO
    };
    scaled.max(floor)
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
