//! Writing a loop tree as C, and running it without a compiler: OpenMP 6.0
//! directives on the user's own loops ([`directives`]), explicit loops
//! ([`explicit`], also the reference program), and a reference
//! interpreter that checks a candidate computes what the original does
//! ([`interpret`]).

pub mod directives;
pub mod explicit;
pub mod interpret;
mod region;
