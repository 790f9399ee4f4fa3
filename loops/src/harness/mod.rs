//! The evaluation harness: builds and runs whole C programs, times them and
//! checks their output.
//!
//! [`Harness::new`] compiles and runs the unmodified (reference) program;
//! if that fails, tuning cannot proceed and it returns an error. Each
//! candidate ([`Harness::evaluate`], a whole C source text) has two builds
//! with the same compiler and flags, in its own directory
//! `work_dir/<16-hex hash of source and flags>/`: a check build with
//! `-DPOLYBENCH_DUMP_ARRAYS` and, in `timed/`, a timing build without it.
//! [`Harness::prepare`] builds the timing builds of several candidates at
//! once, [`HarnessConfig::jobs`] compiles at a time, while nothing is
//! timed.
//!
//! The timing build runs once first. A candidate that crashes or runs
//! past the run timeout ends there; so does one whose time is more than
//! [`HarnessConfig::cutoff`] times the pace ([`Harness::pace`]: the
//! incumbent, the best so far, see [`Harness::set_incumbent`], or the
//! fastest baseline, see [`Harness::set_baseline`], whichever is faster):
//! it is cut off, and never checked (it is never a result, and on a large
//! output its check would cost more than its run). The others run until
//! they have run [`HarnessConfig::runs`] times (twice as many below
//! 50 ms, at most three when a run takes more than 2 s; only twice when
//! both stay well above the pace, three when the fastest of three stays
//! a tenth above it), standard error discarded; the value is
//! the minimum of those runs: the time the program prints
//! ([`TimePattern`]) or else the process's wall time. A candidate no
//! faster than the incumbent ends there, unchecked. For the others the
//! check build is built and runs once: its output is compared with the
//! reference's (the `DUMP_ARRAYS` section of standard error, else
//! standard output without its time line). A candidate that prints other
//! values ends there. A timing build whose runs are all far shorter than
//! the check run has lost its kernel (nothing prints its results without
//! the dump), and the check build is timed instead; when the reference's
//! has, or the reference has no dump, every candidate is checked first
//! and timed with its check build. Run timeouts follow the pace.
//! Results are cached by hash, so an identical source is neither rebuilt
//! nor re-run.
//!
//! Every compile and run has a timeout (compilers can hang), and every
//! failure of a candidate (compile error or timeout, crash, run timeout,
//! wrong output) is a [`Measurement`], never a panic.
//!
//! Flags always passed: `-fopenmp`, `-Werror=unknown-pragmas` (a directive
//! the compiler would ignore is an error), `-DPOLYBENCH_TIME`,
//! `-fopenmp-version=60` for clang 20 or newer (loop directives), the
//! user's flags, `-I` for each include directory, `-DPOLYBENCH_DUMP_ARRAYS`
//! for check builds, and `-lm` last. Since `#pragma scop` and `#pragma
//! endscop` are markers for commute, not directives, their lines are
//! replaced by a comment in the file compiled (`kernel.c` in the build
//! directory; line numbers are kept).
//!
//! The other sources among the flags (`utilities/polybench.c`, a suite's
//! `common.c`) are compiled once into objects that every build links
//! (`objects.rs`): a candidate's build compiles its own file alone. Check
//! builds also link a constructor that buffers standard error by lines
//! (`line_buffered.rs`): a dump written one value at a time would
//! otherwise cost a system call per value.
//!
//! One file per concept: `measure.rs` (the [`Harness`]), `build.rs`
//! (check and timing builds, compiled in parallel), `compiler.rs`,
//! `config.rs`, `measurement.rs`, `error.rs`, `line_buffered.rs`,
//! `process.rs` (spawning, timeouts), `output.rs` (times, dumps,
//! comparison) and `probe.rs` (small programs built and run as
//! candidates are, to measure the machine).

mod build;
mod compiler;
mod config;
mod error;
mod line_buffered;
mod measure;
mod measurement;
mod objects;
mod output;
mod probe;
mod process;

pub use build::COMPILE_LOG_LINES;
pub use compiler::{Compiler, CompilerFamily, WIDE_VECTOR_FLAGS};
pub use config::{
    absolute_paths, build_command, built_with_line, effective_cflags, run_environment_line,
    with_built_with_line, HarnessConfig, TimePattern, DEFAULT_CFLAGS,
};
pub use error::{HarnessError, HarnessErrorKind};
pub use measure::{remeasure_rounds, Harness};
pub use measurement::{speedup, Measurement};
pub use output::{floats_equal, without_scop_pragmas, ABSOLUTE_TOLERANCE};
pub use probe::{compile_probe, compile_probe_command, preprocess, run_probe};
