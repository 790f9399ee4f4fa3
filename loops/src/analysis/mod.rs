//! What the front-end's kernel implies for its transformations: the
//! dependences between statement instances ([`dependences`]), decided with
//! small systems of affine inequalities ([`inequalities`]), and which loops
//! of two statements may become one ([`fusion`]), which loops may be
//! skewed by which ([`skew`]), and by how much a loop may be shifted to
//! be fused ([`shift`]).

pub mod dependences;
pub mod fusion;
pub mod inequalities;
pub mod shift;
pub mod skew;
