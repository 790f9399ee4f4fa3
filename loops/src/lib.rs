//! The C loop tuner: commute's loop-transformation space applied to the
//! loop nest of a C file, from reading the file to the fastest verified
//! program.
//!
//! The pipeline, one folder per stage:
//!
//! - [`frontend`] reads the region between `#pragma scop` and `#pragma
//!   endscop`, or one loop nest of a file without them, into a
//!   [`frontend::Kernel`];
//! - [`analysis`] finds the dependences between statement instances (with
//!   Fourier–Motzkin inequalities) and which loops may fuse;
//! - [`space`] is the generated space (`loops/loops.space`) with the
//!   kernel as its host, names for fixed decisions, and completion with
//!   the original program's values;
//! - [`lowering`] reads a decided candidate as a loop tree and computes
//!   its loops' bounds;
//! - [`emit`] writes a loop tree as C (OpenMP directives on the user's
//!   loops, or explicit loops) and runs it in a reference interpreter;
//! - [`harness`] builds, runs, times and checks whole C programs;
//! - [`bound`] bounds from below the time of every completion of a
//!   partial candidate, from a characterization of the machine and the
//!   kernel's operation counts, for searches to prune on;
//! - [`polly`] reads the schedule Polly chose for the nest into decisions,
//!   the starting point of `commute tune`'s search;
//! - [`tune`] ties them together: `commute tune` and `commute lower`.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod analysis;
pub mod bound;
pub mod emit;
pub mod fingerprint;
pub mod fnv;
pub mod frontend;
pub mod harness;
pub mod lowering;
pub mod polly;
pub mod space;
pub mod tune;
