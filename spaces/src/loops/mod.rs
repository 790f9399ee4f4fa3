//! The loop-transformation space: a C loop nest between `#pragma scop`
//! and `#pragma endscop` becomes a backbone of loops, statements and
//! accesses ([`frontend`]).
pub mod dependences;
pub mod frontend;
