//! From a decided candidate to loops: the loop tree it describes
//! ([`schedule`]) and the bounds of each of its loops ([`bounds`]), which
//! the emitters write out and the interpreter runs; [`reductions`] says
//! which statements a parallel or vector loop runs as reductions.

pub mod bounds;
pub mod reductions;
pub mod schedule;
