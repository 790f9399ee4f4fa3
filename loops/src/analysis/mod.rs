//! What the front-end's kernel implies for its transformations: the
//! dependences between statement instances ([`dependences`]), decided with
//! small systems of affine inequalities ([`inequalities`]), and which loops
//! of two statements may become one ([`fusion`]), and which loops may be
//! skewed by which ([`skew`]).

pub mod dependences;
pub mod fusion;
pub mod inequalities;
pub mod skew;
