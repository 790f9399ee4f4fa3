//! The loop-transformation space: a C loop nest between `#pragma scop`
//! and `#pragma endscop` becomes a backbone of loops, statements and
//! accesses ([`frontend`]).
pub mod backbone;
pub mod bounds;
pub mod complete;
pub mod dependences;
pub mod directives;
pub mod emit;
pub mod fnv;
pub mod frontend;
pub mod fusion;
pub mod harness;
pub mod inequalities;
pub mod interpret;
pub mod names;
pub mod schedule;

/// The space's tables and host trait, generated from `loops/loops.space`
/// (decisions: `order`, `dim_kind`, `tile_size`; legality from the
/// dependences' per-dimension signs). The backbone that implements its
/// `Host` for a [`frontend::Kernel`] comes next.
pub mod space {
    include!(concat!(env!("OUT_DIR"), "/loops.rs"));
}

/// The order in which searches, `commute show` and the benches take the
/// space's decisions: the loop structure first, then how each loop runs,
/// then tile sizes.
pub const DECISION_PRIORITY: [u16; 3] = [
    space::order::CHOICE,
    space::dim_kind::CHOICE,
    space::tile_size::CHOICE,
];
