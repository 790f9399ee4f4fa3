//! Vector filters by binding: a constraint with one free variable
//! filtered for every position of it at once over bit planes, and only
//! its unit positions filtered one by one. Reads rows (`rows`), literal
//! statuses and clauses.

use super::state::{Flow, Propagator};
use crate::binding::Binding;
use crate::model::*;
use crate::plan::{RowLiteral, VectorPlan};
use crate::values::Status;

impl<'a> Propagator<'a> {
    /// Filters every instance of `constraint` that extends `b` by the free
    /// variable of `plan`, all at once over bit planes. `None` when a
    /// literal cannot be read from planes for these objects (then the
    /// caller enumerates).
    /// Literal `known_false`, if any, is false for `b` (it is not read).
    pub(super) fn vector_filter(
        &mut self,
        constraint: u16,
        plan: &VectorPlan,
        known_false: Option<usize>,
        b: &Binding,
    ) -> Option<Flow> {
        let layout = self.layout;
        let set = plan.set;
        let z = plan.z as usize;
        // Positions z may take: objects distinct from the bound ones.
        let mut valid = plan.full;
        for &i in &plan.same_root {
            if let Some(p) = layout.position(set, b.objects[i as usize]) {
                valid &= !(1u64 << p);
            }
        }
        // Per literal: where it is certainly false; any certainly true
        // position is satisfied.
        let mut sat = 0u64;
        let mut all_false = valid;
        // Positions where at least one literal, and at least two, are not
        // false.
        let (mut one, mut two) = (0u64, 0u64);
        for (index, literal) in plan.literals.iter().enumerate() {
            let (t, f) = match literal {
                RowLiteral::Constant(_) if known_false == Some(index) => (0, valid),
                RowLiteral::Constant(literal) => match self.status(literal, b) {
                    Status::True => return Some(Ok(())),
                    Status::False => (0, valid),
                    Status::Unknown => (0, 0),
                },
                row => {
                    let (t, f) = self.row_status(row, b)?;
                    (t & valid, f & valid)
                }
            };
            sat |= t;
            all_false &= f;
            two |= one & !f;
            one |= !f;
        }
        let def = &self.model().constraints[constraint as usize];
        let objects = layout.plain_objects(set);
        let open = valid & !sat;
        if open & all_false != 0 {
            let p = (open & all_false).trailing_zeros() as usize;
            let mut with_z = *b;
            with_z.bind(z as Var, objects[p]);
            let message = format!("constraint {} fails: {}", def.origin, def.description);
            return Some(Err(self.dead(Some(constraint), &with_z, def.vars, message)));
        }
        // Positions where every literal but one is false: filter them one
        // by one, which enforces the remaining literal.
        let mut units = open & one & !two;
        while units != 0 {
            let p = units.trailing_zeros() as usize;
            units &= units - 1;
            let mut with_z = *b;
            with_z.bind(z as Var, objects[p]);
            if let Err(error) = self.filter_at(constraint, plan, known_false, b, &with_z, p) {
                return Some(Err(error));
            }
        }
        Some(Ok(()))
    }

    /// [`Propagator::filter`] at position `p` of the free variable of
    /// `plan` (`with_z` is `b` with it bound), the literals read from
    /// planes as in [`Propagator::vector_filter`].
    fn filter_at(
        &mut self,
        constraint: u16,
        plan: &VectorPlan,
        known_false: Option<usize>,
        b: &Binding,
        with_z: &Binding,
        p: usize,
    ) -> Flow {
        let def = &self.model().constraints[constraint as usize];
        let mut unknown = None;
        for (index, literal) in plan.literals.iter().enumerate() {
            let status = match literal {
                RowLiteral::Constant(_) if known_false == Some(index) => Status::False,
                RowLiteral::Constant(literal) => self.status(literal, with_z),
                row => match self.row_status(row, b) {
                    Some((t, _)) if t & (1 << p) != 0 => Status::True,
                    Some((_, f)) if f & (1 << p) != 0 => Status::False,
                    Some(_) => Status::Unknown,
                    None => return self.filter(constraint, with_z),
                },
            };
            match status {
                Status::True => return Ok(()),
                Status::False => {}
                Status::Unknown if unknown.is_some() => return Ok(()),
                Status::Unknown => unknown = Some(&def.literals[index]),
            }
        }
        self.enforce_clause(constraint, unknown, with_z)
    }
}
