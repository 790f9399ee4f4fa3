//! The reads generated filters make of a constraint instance
//! ([`Reads`] for [`Clause`]): each the table-driven path's own read of
//! one literal's shape (`literals`), with the choice, variables, values
//! and operator the generated code passes as constants, so that both
//! paths see the same statuses and end in the same enforcement.

use super::state::{Clause, Flow};
use crate::action::DeadEnd;
use crate::compiled::{Range, Reads, Status};
use crate::model::{InstanceRef, Term, Var};
use crate::values::is_single;

impl Reads for Clause<'_, '_> {
    type Error = DeadEnd;

    #[inline(always)]
    fn properties_known(&self) -> bool {
        self.properties_known
    }

    #[inline(always)]
    fn is(&self, choice: u16, args: &'static [Var], values: u64) -> Status {
        let mask = self
            .propagator
            .mask_of(&InstanceRef { choice, args }, self.binding);
        Status::of_membership(mask, values)
    }

    #[inline(always)]
    fn same(&self, choice: u16, lhs: &'static [Var], rhs: &'static [Var], equal: bool) -> Status {
        let p = &self.propagator;
        let l = p.mask_of(&InstanceRef { choice, args: lhs }, self.binding);
        let r = p.mask_of(&InstanceRef { choice, args: rhs }, self.binding);
        let same = is_single(l) && l == r;
        let disjoint = l & r == 0;
        match (equal, same, disjoint) {
            (true, true, _) | (false, _, true) => Status::True,
            (true, _, true) | (false, true, _) => Status::False,
            _ => Status::Unknown,
        }
    }

    #[inline(always)]
    fn property(&self, property: u16, args: &'static [Var], negated: bool) -> Status {
        let b = self.binding;
        if self
            .propagator
            .layout
            .bool_property_by(property, args.len(), |i| b.objects[args[i] as usize])
            != negated
        {
            Status::True
        } else {
            Status::False
        }
    }

    /// `term_range` of an integer choice, its kind known.
    #[inline(always)]
    fn integer(&self, choice: u16, args: &'static [Var]) -> Range {
        self.propagator
            .integer_range(&InstanceRef { choice, args }, self.binding)
    }

    /// `term_range` of a counter, its kind known.
    #[inline(always)]
    fn counter(&self, choice: u16, args: &'static [Var]) -> Range {
        self.propagator
            .counter_range(&InstanceRef { choice, args }, self.binding)
    }

    #[inline(always)]
    fn int_property(&self, property: u16, args: &'static [Var]) -> Range {
        self.propagator
            .term_range(&Term::Property { property, args }, self.binding)
    }

    #[inline(always)]
    fn enforce(&mut self, unknown: Option<u8>) -> Flow {
        let def = &self.propagator.model().constraints[self.constraint as usize];
        let literal = unknown.and_then(|i| def.literals.get(i as usize));
        self.propagator
            .enforce_clause(self.constraint, literal, self.binding)
    }
}
