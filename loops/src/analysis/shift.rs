//! Shifting for fusion: by how many iterations a statement's loop may run
//! late so that it can be fused with a loop of an earlier statement.
//!
//! Two sweeps of a stencil, `B[i] = f(A[i - 1], A[i], A[i + 1])` then
//! `A[i] = g(B[i - 1], B[i], B[i + 1])`, cannot be fused as they are: the
//! second would read `B[i + 1]` before the first writes it (a distance of
//! -1 along the fused loop). Run with its iterator shifted by one (its
//! iteration `i` in the fused loop's iteration `i + 1`), it reads only
//! rows already written, and the fused loop keeps each row's two sweeps
//! close in time. A shift adds a constant to every distance from an
//! earlier statement along the shifted loop, and subtracts it from every
//! distance towards one; it changes no dependence of the statement on
//! itself.
//!
//! A loop is offered a shift only where that helps: a dependence from
//! another statement within one iteration of their common loops, along a
//! pair of different loops that may be merged, has an exact negative
//! distance. The shift is the smallest that makes every
//! such distance non-negative, at most [`MAX_SHIFT`].

use std::collections::HashMap;

use crate::analysis::dependences::{Dependence, Distance, Signs};
use crate::frontend::{LoopId, StatementId};

/// The largest shift offered.
pub const MAX_SHIFT: i64 = 4;

/// Some negative value.
const NEGATIVE: Distance = Distance::Signs(Signs {
    negative: true,
    zero: false,
    positive: false,
});

/// The shift offered to each statement's loops: how many iterations later
/// the loop runs, in the iterations of loops it is fused with.
pub fn shifts(deps: &[Dependence]) -> HashMap<(StatementId, LoopId), i64> {
    let mut out: HashMap<(StatementId, LoopId), i64> = HashMap::new();
    // A dependence an outer common loop carries is kept by it, shifted or
    // not: only those within one iteration of every common loop count.
    for dependence in deps
        .iter()
        .filter(|d| d.source != d.sink && d.zero_possible)
    {
        let aligned = &dependence.distances[dependence.loops.len()..];
        for (&(_, sink_loop), distance) in dependence.aligned.iter().zip(aligned) {
            if let Distance::Exact(v) = *distance {
                if v < 0 && -v <= MAX_SHIFT {
                    let shift = out.entry((dependence.sink, sink_loop)).or_insert(0);
                    *shift = (*shift).max(-v);
                }
            }
        }
    }
    out
}

/// A distance once the sink's loop runs `by` iterations late (`by`
/// negative: the source's does).
pub fn shifted(distance: Distance, by: i64) -> Distance {
    match distance {
        Distance::Exact(v) => Distance::Exact(v.saturating_add(by)),
        Distance::Signs(signs) => {
            // Non-negative plus a positive shift is positive, non-positive
            // minus one is negative; otherwise any sign is possible.
            if by == 0 {
                distance
            } else if by > 0 && !signs.negative {
                Distance::POSITIVE
            } else if by < 0 && !signs.positive {
                NEGATIVE
            } else {
                Distance::ANY
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_distances_move_by_the_shift() {
        assert_eq!(shifted(Distance::Exact(-1), 1), Distance::Exact(0));
        assert_eq!(shifted(Distance::Exact(2), -1), Distance::Exact(1));
        assert_eq!(shifted(Distance::POSITIVE, 2), Distance::POSITIVE);
        assert_eq!(shifted(Distance::POSITIVE, -1), Distance::ANY);
        assert_eq!(shifted(NEGATIVE, -1), NEGATIVE);
        assert_eq!(shifted(NEGATIVE, 1), Distance::ANY);
        assert_eq!(shifted(Distance::Exact(0), 0), Distance::Exact(0));
    }
}
