//! Reads the loop nest of a C file: the region between `#pragma scop` and
//! `#pragma endscop`, or else one loop nest of the file (an outermost
//! `for` statement of a function), parsed with tree-sitter's C grammar
//! (which keeps the byte span of every node and accepts code that is not
//! preprocessed, so PolyBench's macros such as `_PB_N` stay identifiers).
//!
//! Inside the region: `for` loops counting up or down by one with affine
//! bounds, `if` statements (affine conditions become parts of the
//! statements' domains; conditions that read values stay C code around
//! their statements), scalar declarations, and assignments to array
//! elements or scalars with affine subscripts (linearized subscripts over
//! pointers are delinearized), chained ones included. Anything else
//! inside the region is an error naming its line, column and construct;
//! nothing outside the region is read but the declarations that say which
//! names are pointers.
//!
//! `kernel.rs` holds what is read (a [`Kernel`]); `region.rs` finds the
//! region ([`read_kernel`], [`read_nest`], [`list_nests`]); `reader.rs`
//! reads its statements and `expressions.rs` their expressions;
//! `condition.rs` reads conditions as unions of disjoint pieces,
//! `delinearize.rs` splits linearized subscripts, `context.rs` finds
//! the pointers, what may alias and the declared types, `privatize.rs`
//! the scalars each iteration of a loop may have a copy of, and
//! `in_place.rs` reads the accumulators among them as updates of the
//! element they are stored to.

mod condition;
mod context;
mod delinearize;
mod expressions;
mod in_place;
mod kernel;
mod privatize;
mod reader;
mod region;

pub use kernel::{
    Access, Affine, Combiner, Direction, FrontendError, Gather, InPlace, Kernel, Linearized,
    LocalScalar, Loop, LoopId, PrivateScalar, RegionKind, Statement, StatementId, Update, Variable,
};
pub use reader::ReadOptions;
pub use region::{
    has_scop_region, list_nests, read_kernel, read_kernel_file, read_kernel_file_with, read_nest,
    read_nest_with, Nest,
};
