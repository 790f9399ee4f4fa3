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
//!
//! One file per concept: `measure.rs` (the [`Harness`]), `compiler.rs`,
//! `config.rs`, `measurement.rs`, `error.rs`, `process.rs` (spawning,
//! timeouts) and `output.rs` (times, dumps, comparison).

mod compiler;
mod config;
mod error;
mod measure;
mod measurement;
mod output;
mod process;

pub use compiler::{Compiler, CompilerFamily};
pub use config::{HarnessConfig, TimePattern};
pub use error::{HarnessError, HarnessErrorKind};
pub use measure::{remeasure_rounds, Harness, COMPILE_LOG_LINES};
pub use measurement::Measurement;
pub use output::{floats_equal, ABSOLUTE_TOLERANCE};
