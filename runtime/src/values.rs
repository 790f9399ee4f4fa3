//! Value masks, ranges and the three-valued status read from them: the
//! arithmetic that the tables, the plans and the propagator share. A
//! leaf: it imports only the model's vocabulary.

use crate::model::{is_multiple, CompareOp, QUOTIENT_FALSE, QUOTIENT_TRUE};

/// The mask of a quotient's membership flag that puts an object in the
/// quotient set.
pub(crate) const MEMBER: u64 = 1 << QUOTIENT_TRUE;

/// The mask of a quotient's membership flag that leaves an object out.
pub(crate) const NOT_MEMBER: u64 = 1 << QUOTIENT_FALSE;

/// What a literal is known to be under the current domains.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// Holds whatever is decided next.
    True,
    /// Cannot hold any more.
    False,
    /// May still hold or not.
    Unknown,
}

impl Status {
    /// The status of "the instance takes one of `values`" when its domain
    /// is `mask`.
    #[inline(always)]
    pub fn of_membership(mask: u64, values: u64) -> Status {
        if mask & !values == 0 {
            Status::True
        } else if mask & values == 0 {
            Status::False
        } else {
            Status::Unknown
        }
    }
}

/// The inclusive range a term may take.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    /// The smallest value (above `max` when there is none).
    pub min: i64,
    /// The largest value.
    pub max: i64,
}

/// Whether a mask has exactly one value (`count_ones() == 1` without a
/// population count).
#[inline]
pub(crate) fn is_single(mask: u64) -> bool {
    mask != 0 && mask & (mask - 1) == 0
}

/// Maps a value mask through an antisymmetric choice's inverse.
pub(crate) fn map_mask(mask: u64, inverse: &[u8]) -> u64 {
    let mut out = 0;
    let mut rest = mask;
    while rest != 0 {
        let bit = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        out |= 1 << inverse.get(bit).copied().unwrap_or(bit as u8);
    }
    out
}

/// Whether every, and whether no, pair of values in the ranges makes the
/// left one a multiple of the right one (read from ranges alone: certain
/// only when both are points, the left one is 0, the right one is ±1, or
/// the left range holds no multiple of a fixed right one).
fn multiple_status(l: Range, r: Range) -> (bool, bool) {
    if l.min == l.max && r.min == r.max {
        let holds = is_multiple(l.min, r.min);
        return (holds, !holds);
    }
    if l.min == 0 && l.max == 0 || r.min == r.max && r.min.unsigned_abs() == 1 {
        return (true, false);
    }
    if r.min == r.max && r.min != 0 {
        // The least multiple of |r| at or above l.min.
        let step = i128::from(r.min).abs();
        let low = i128::from(l.min);
        let first = low + (step - low.rem_euclid(step)) % step;
        return (false, first > i128::from(l.max));
    }
    (false, false)
}

/// The range of a product of factors within `ranges`: the least and
/// greatest product of their bounds (saturating), empty if one is.
pub(crate) fn product_range(ranges: impl Iterator<Item = Range>) -> Range {
    let mut out = Range { min: 1, max: 1 };
    for r in ranges {
        if r.min > r.max {
            return r;
        }
        let corners = [
            out.min.saturating_mul(r.min),
            out.min.saturating_mul(r.max),
            out.max.saturating_mul(r.min),
            out.max.saturating_mul(r.max),
        ];
        out = Range {
            min: corners.iter().copied().min().unwrap_or(i64::MIN),
            max: corners.iter().copied().max().unwrap_or(i64::MAX),
        };
    }
    out
}

/// The status of `l op r` for terms within the ranges `l` and `r`.
pub(crate) fn compare_status(op: CompareOp, l: Range, r: Range) -> Status {
    if l.min > l.max || r.min > r.max {
        return Status::False;
    }
    let (always, never) = match op {
        CompareOp::Multiple | CompareOp::NotMultiple => {
            let (always, never) = multiple_status(l, r);
            if op == CompareOp::Multiple {
                (always, never)
            } else {
                (never, always)
            }
        }
        CompareOp::Lt => (l.max < r.min, l.min >= r.max),
        CompareOp::Le => (l.max <= r.min, l.min > r.max),
        CompareOp::Gt => (l.min > r.max, l.max <= r.min),
        CompareOp::Ge => (l.min >= r.max, l.max < r.min),
        CompareOp::Eq => (
            l.min == l.max && r.min == r.max && l.min == r.min,
            l.max < r.min || r.max < l.min,
        ),
        CompareOp::Ne => (
            l.max < r.min || r.max < l.min,
            l.min == l.max && r.min == r.max && l.min == r.min,
        ),
    };
    if always {
        Status::True
    } else if never {
        Status::False
    } else {
        Status::Unknown
    }
}
