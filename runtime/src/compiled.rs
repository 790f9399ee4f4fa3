//! Propagators compiled from a space: the interface between the code the
//! generator writes for one space and the engine.
//!
//! The engine has two implementations of filtering a constraint instance
//! (failing when no literal of the clause can hold, enforcing the one
//! that can): the table-driven one, which reads the clause's literals
//! from the model's tables and dispatches on their shapes, and the one
//! `commute-codegen` writes per constraint, each literal's shape, choice,
//! variables, values and operator folded into the code
//! ([`Propagators`]). Generated code is written against [`Reads`], the
//! literal reads of one constraint instance, and the engine instantiates
//! it with its own propagator, so that every read is inlined with its
//! constants.
//!
//! A backbone hands its space's propagators over through
//! [`Backbone::compiled_for`] and [`Backbone::filter`]; a candidate uses
//! them only when they were generated with the very tables it is laid
//! out from (so spaces loaded at run time, and backbones wrapped in
//! [`Interpreted`], use the tables). Both paths read the literals in the
//! same order and end in the same enforcement, so they reach the same
//! leaves and the same dead ends, named alike: the table-driven path is
//! the oracle the tests compare the compiled one with.
//!
//! This module is a leaf (it reads only value arithmetic and the model):
//! the backbone names it, and the propagator implements [`Reads`].
//!
//! [`Backbone::compiled_for`]: crate::Backbone::compiled_for
//! [`Backbone::filter`]: crate::Backbone::filter
//! [`Interpreted`]: crate::backbone::Interpreted

use crate::model::{CompareOp, Model, Var};
use crate::values::{compare_status, product_range};
pub use crate::values::{Range, Status};

/// What generated filters read of one constraint instance being filtered:
/// the statuses of its literals under the objects bound to its variables,
/// and the end of the filter. The engine's propagator implements it; a
/// filter reads the literals in order, stops at one that is certainly
/// true or at a second that is unknown ([`settles`]), and otherwise ends
/// in [`Reads::enforce`].
pub trait Reads {
    /// What a dead end is.
    type Error;

    /// Whether the clause's property literals are known to be false under
    /// this binding (the engine checked them before filtering), so not
    /// read: they stand as [`Status::False`].
    fn properties_known(&self) -> bool;

    /// The status of `choice(args) is values` (an enum choice; `values`
    /// the mask of the values that make it hold).
    fn is(&self, choice: u16, args: &'static [Var], values: u64) -> Status;

    /// The status of `choice(lhs) == choice(rhs)` (`!=` when `equal` is
    /// false), two instances of one enum choice.
    fn same(&self, choice: u16, lhs: &'static [Var], rhs: &'static [Var], equal: bool) -> Status;

    /// The status of the `bool` property `property(args)` (its negation
    /// when `negated`).
    fn property(&self, property: u16, args: &'static [Var], negated: bool) -> Status;

    /// The range of the values left to the integer choice instance
    /// `choice(args)` (empty, `min > max`, when it has none).
    fn integer(&self, choice: u16, args: &'static [Var]) -> Range;

    /// The range of the counter instance `choice(args)`.
    fn counter(&self, choice: u16, args: &'static [Var]) -> Range;

    /// The value of the `int` property `property(args)`, as a range.
    fn int_property(&self, property: u16, args: &'static [Var]) -> Range;

    /// The end of a filter: makes the literal `unknown` hold (by its index
    /// in the constraint), the last one that can, or fails naming the
    /// constraint and its objects when there is none.
    fn enforce(&mut self, unknown: Option<u8>) -> Result<(), Self::Error>;
}

/// The propagators generated for one space.
pub trait Propagators {
    /// The tables the code was generated with (`None` for no propagators):
    /// a candidate uses [`Propagators::filter`] only when laid out from
    /// these very tables.
    fn model() -> Option<&'static Model>;

    /// Filters one instance of `constraint` (by its index in the model),
    /// `None` when there is no generated filter for it.
    fn filter<C: Reads>(constraint: u16, clause: &mut C) -> Option<Result<(), C::Error>>;
}

/// No generated propagators: every constraint filtered from the tables.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tables;

impl Propagators for Tables {
    fn model() -> Option<&'static Model> {
        None
    }

    #[inline(always)]
    fn filter<C: Reads>(_constraint: u16, _clause: &mut C) -> Option<Result<(), C::Error>> {
        None
    }
}

/// Reads `status`, the status of the clause's literal `literal`, into
/// `unknown` (the one unknown literal so far): true when the clause is
/// settled, as when the literal certainly holds or is the second unknown
/// one, which leaves every completion two literals that can hold.
#[inline(always)]
pub fn settles(status: Status, literal: u8, unknown: &mut Option<u8>) -> bool {
    match status {
        Status::True => true,
        Status::False => false,
        Status::Unknown if unknown.is_some() => true,
        Status::Unknown => {
            *unknown = Some(literal);
            false
        }
    }
}

/// A constant, as a range.
#[inline(always)]
pub fn constant(value: i64) -> Range {
    Range {
        min: value,
        max: value,
    }
}

/// The range of a product of factors' ranges.
#[inline(always)]
pub fn product(factors: &[Range]) -> Range {
    product_range(factors.iter().copied())
}

/// The status of `l op r` for terms within the ranges `l` and `r`.
#[inline(always)]
pub fn compare(op: CompareOp, l: Range, r: Range) -> Status {
    compare_status(op, l, r)
}
