//! Reads the loop nest of a C file: the region between `#pragma scop` and
//! `#pragma endscop`, parsed with tree-sitter's C grammar (which keeps the
//! byte span of every node and accepts code that is not preprocessed, so
//! PolyBench's macros such as `_PB_N` stay identifiers). Inside the
//! region: `for` loops with affine bounds and unit steps, and statements
//! assigning to array elements or scalars with affine subscripts. Anything
//! else inside the region is an error naming its line, column and
//! construct; nothing outside the region is read.
//!
//! `kernel.rs` holds what is read (a [`Kernel`]); `reader.rs` reads it
//! ([`read_kernel`]).

mod kernel;
mod reader;

pub use kernel::{
    Access, Affine, FrontendError, Kernel, Loop, LoopId, Statement, StatementId, Variable,
};
pub use reader::{read_kernel, read_kernel_file};
