//! Value masks, ranges and the three-valued status read from them: the
//! arithmetic that the tables, the plans and the propagator share. A
//! leaf: it imports only the model's vocabulary.

use crate::model::{CompareOp, QUOTIENT_FALSE, QUOTIENT_TRUE};

/// The mask of a quotient's membership flag that puts an object in the
/// quotient set.
pub(crate) const MEMBER: u64 = 1 << QUOTIENT_TRUE;

/// The mask of a quotient's membership flag that leaves an object out.
pub(crate) const NOT_MEMBER: u64 = 1 << QUOTIENT_FALSE;

/// What a literal is known to be under the current domains.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Status {
    True,
    False,
    Unknown,
}

/// The inclusive range a term may take.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    pub min: i64,
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

/// The status of an `is` literal over `values` for an instance whose
/// domain is `mask`.
#[inline]
pub(crate) fn is_status(mask: u64, values: u64) -> Status {
    if mask & !values == 0 {
        Status::True
    } else if mask & values == 0 {
        Status::False
    } else {
        Status::Unknown
    }
}

/// The status of `l op r` for terms within the ranges `l` and `r`.
pub(crate) fn compare_status(op: CompareOp, l: Range, r: Range) -> Status {
    if l.min > l.max || r.min > r.max {
        return Status::False;
    }
    let (always, never) = match op {
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
