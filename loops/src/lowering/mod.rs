//! From a decided candidate to loops: the loop tree it describes
//! ([`schedule`]) and the bounds of each of its loops ([`bounds`]), which
//! the emitters write out and the interpreter runs.

pub mod bounds;
pub mod schedule;
