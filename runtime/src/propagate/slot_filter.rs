//! Slot filters: the vector filter of a visit with a slot plan, rows
//! found from the changed instance's triangle positions, and the
//! enforcement of its unit positions (`slot_units`, `pair_units`)
//! without looking instances up. Reads slot rows (`rows`), idle checks
//! (`idle`), domains and clauses.

use super::idle::equality_of;
use super::slot_view::SlotsAt;
use super::state::{Flow, Propagator};
use crate::plan::{
    SlotEnforce, SlotInstance, SlotLiteral, SlotPlan, VectorPlan, Visit, MAX_ROW_LITERALS,
};
use crate::values::{is_single, Status};

impl<'a> Propagator<'a> {
    /// [`Propagator::vector_filter`] for a visit with a slot plan: the same
    /// filtering, in the same order, with rows found from the changed
    /// instance's positions.
    #[inline(always)]
    pub(super) fn slot_filter(
        &mut self,
        visit: &Visit,
        plan: &VectorPlan,
        slots: &SlotPlan,
        at: &SlotsAt,
    ) -> Flow {
        let [p0, p1] = at.positions;
        let valid =
            plan.full & !((slots.excluded & 1) << p0) & !(((slots.excluded >> 1) & 1) << p1);
        if let Some([a, b]) = &slots.pair {
            // The visit's own literal is false: a position fails where both
            // rows are false and is unit where one is.
            let (a_in, a_out) = self.pair_row(a, at);
            let (b_in, b_out) = self.pair_row(b, at);
            let open = valid & a_out & b_out;
            let failed = open & !a_in & !b_in;
            let units = open & (a_in ^ b_in);
            if failed == 0 && units == 0 {
                return Ok(());
            }
            return self.slot_units(visit, plan, slots, at, failed, units);
        }
        let (mut sat, mut all_false) = (0u64, valid);
        let (mut one, mut two) = (0u64, 0u64);
        let mut falses = [0u64; MAX_ROW_LITERALS];
        for (index, literal) in slots.literals.iter().enumerate() {
            let (t, f) = match literal {
                SlotLiteral::Constant if visit.known_false == Some(index) => (0, valid),
                SlotLiteral::Constant => {
                    let def = &self.model().constraints[visit.constraint as usize];
                    match self.status(&def.literals[index], &at.binding(visit.args)) {
                        Status::True => return Ok(()),
                        Status::False => (0, valid),
                        Status::Unknown => (0, 0),
                    }
                }
                row => {
                    let (t, f) = self.slot_status(row, at, true);
                    (t & valid, f & valid)
                }
            };
            sat |= t;
            all_false &= f;
            two |= one & !f;
            one |= !f;
            if let Some(slot) = falses.get_mut(index) {
                *slot = f;
            }
        }
        let open = valid & !sat;
        let units = open & one & !two;
        if open & all_false == 0 && units == 0 {
            return Ok(());
        }
        if open & all_false == 0 && self.idle_units(slots, at, units, &falses) {
            return Ok(());
        }
        self.slot_units(visit, plan, slots, at, open & all_false, units)
    }

    /// The end of [`Propagator::slot_filter`] where some position fails
    /// (`failed`) or is unit (`units`): as `vector_filter` and
    /// `filter_at`, reading the rows again only after a write.
    #[inline(never)]
    pub(super) fn slot_units(
        &mut self,
        visit: &Visit,
        plan: &VectorPlan,
        slots: &SlotPlan,
        at: &SlotsAt,
        failed: u64,
        mut units: u64,
    ) -> Flow {
        let constraint = visit.constraint;
        let def = &self.model().constraints[constraint as usize];
        let objects = self.layout.plain_objects(plan.set);
        if failed != 0 {
            let p = failed.trailing_zeros() as usize;
            let mut with_z = at.binding(visit.args);
            with_z.bind(plan.z, objects[p]);
            let message = format!("constraint {} fails: {}", def.origin, def.description);
            return Err(self.dead(Some(constraint), &with_z, def.vars, message));
        }
        // The binding at a position, made only where it is read.
        let binding_at = |p: usize| {
            let mut with_z = at.binding(visit.args);
            with_z.bind(plan.z, objects[p]);
            with_z
        };
        let mut rows = [(0u64, 0u64); MAX_ROW_LITERALS];
        let mut read_at = None;
        // Without statuses read through the binding, the statuses read are
        // combined once per read: the positions where a literal holds or
        // two are unknown (satisfied), and per literal where it is unknown.
        let by_rows = !slots.reads_binding;
        let mut satisfied_at = 0u64;
        let mut unknown_at = [0u64; MAX_ROW_LITERALS];
        // Per `==` literal, the positions where its two instances have
        // equal domains (enforcing it there writes nothing), read from the
        // planes when first needed after a read of the statuses; valid as
        // long as they are (a write at `p` changes the rows at `p` only).
        let (mut same_at, mut same_read) = ([0u64; MAX_ROW_LITERALS], 0u32);
        let slot_positions = at.positions.iter().fold(0u64, |m, &q| m | 1 << q);
        while units != 0 {
            let p = units.trailing_zeros() as usize;
            units &= units - 1;
            if read_at != Some(self.writes) {
                for (index, literal) in slots.literals.iter().enumerate() {
                    if !matches!(literal, SlotLiteral::Constant) {
                        rows[index] = self.slot_status(literal, at, read_at.is_none());
                    }
                }
                read_at = Some(self.writes);
                if by_rows {
                    let (mut holds, mut one, mut two) = (0u64, 0u64, 0u64);
                    for (index, literal) in slots.literals.iter().enumerate() {
                        let (t, f) = match literal {
                            // The visit's own literal, false everywhere.
                            SlotLiteral::Constant => (0, u64::MAX),
                            _ => rows[index],
                        };
                        let unknown = !t & !f;
                        holds |= t;
                        two |= one & unknown;
                        one |= unknown;
                        unknown_at[index] = unknown;
                    }
                    satisfied_at = holds | two;
                    same_read = 0;
                }
            }
            if by_rows {
                // As the loop below: satisfied, or the one unknown literal
                // (none: the clause fails here).
                if satisfied_at & (1 << p) != 0 {
                    continue;
                }
                let index = unknown_at[..slots.literals.len()]
                    .iter()
                    .position(|u| u & (1 << p) != 0);
                let enforce = index.and_then(|i| slots.enforce.get(i));
                match (index, enforce) {
                    (Some(index), Some(Some(enforce))) => {
                        // An `==` whose instances have equal domains at `p`
                        // (not a slot's position, where one is the changed
                        // instance): enforcing it would write nothing.
                        if let (Some((lhs, rhs)), Some(same)) =
                            (equality_of(slots, index), same_at.get_mut(index))
                        {
                            // `same_read` has bit `index` once `same_at[index]`
                            // is read.
                            if same_read & 1 << index == 0 {
                                same_read |= 1 << index;
                                *same = self.same_rows(lhs, rhs, at).unwrap_or(0) & !slot_positions;
                            }
                            if *same & (1 << p) != 0 {
                                continue;
                            }
                        }
                        if self.reasons.is_some() {
                            self.enforce_clause_by(
                                constraint,
                                Some(&def.literals[index]),
                                || binding_at(p),
                                |s, _| s.enforce_slot(enforce, at, p),
                            )?;
                        } else if let SlotEnforce::Is { instance, values } = enforce {
                            // `enforce_slot` without its dispatch. (The loop
                            // below enforces as `enforce_slot` alone: one
                            // helper for both cost 1.3% more instructions
                            // on the ordering space, LLVM then inlining less.)
                            let (i, reversed) = at.instance(instance, p);
                            if let Err(dead_end) =
                                self.restrict_instance(instance.choice, i, reversed, *values)
                            {
                                return Err(self.enforcement_failed(
                                    constraint,
                                    &binding_at(p),
                                    dead_end,
                                ));
                            }
                        } else if let Err(dead_end) = self.enforce_slot(enforce, at, p) {
                            // As `enforce_clause_by` without explanations to keep.
                            return Err(self.enforcement_failed(
                                constraint,
                                &binding_at(p),
                                dead_end,
                            ));
                        }
                        if enforce.at_free(at.positions, p) {
                            read_at = Some(self.writes);
                        }
                        continue;
                    }
                    _ => {
                        let unknown = index.map(|i| &def.literals[i]);
                        self.enforce_clause(constraint, unknown, &binding_at(p))?;
                        continue;
                    }
                }
            }
            let mut unknown = None;
            let mut unknown_index = 0;
            let mut satisfied = false;
            for (index, literal) in slots.literals.iter().enumerate() {
                let status = match literal {
                    SlotLiteral::Constant if visit.known_false == Some(index) => Status::False,
                    SlotLiteral::Constant => self.status(&def.literals[index], &binding_at(p)),
                    _ => match rows[index] {
                        (t, _) if t & (1 << p) != 0 => Status::True,
                        (_, f) if f & (1 << p) != 0 => Status::False,
                        _ => Status::Unknown,
                    },
                };
                match status {
                    Status::True => {
                        satisfied = true;
                        break;
                    }
                    Status::False => {}
                    Status::Unknown if unknown.is_some() => {
                        satisfied = true;
                        break;
                    }
                    Status::Unknown => {
                        unknown = Some(&def.literals[index]);
                        unknown_index = index;
                    }
                }
            }
            if satisfied {
                continue;
            }
            match slots.enforce.get(unknown_index) {
                Some(Some(enforce)) if unknown.is_some() => {
                    if self.reasons.is_some() {
                        self.enforce_clause_by(
                            constraint,
                            unknown,
                            || binding_at(p),
                            |s, _| s.enforce_slot(enforce, at, p),
                        )?;
                    } else if let Err(dead_end) = self.enforce_slot(enforce, at, p) {
                        // As `enforce_clause_by` without explanations to keep.
                        return Err(self.enforcement_failed(constraint, &binding_at(p), dead_end));
                    }
                    // An `is` literal enforced at `p` writes the rows read
                    // here at `p` only, which is done with; so does an `==`
                    // whose two instances read the free variable, unless `p`
                    // is a slot's position (one of them is then the changed
                    // instance, which `==` literals read everywhere).
                    if enforce.at_free(at.positions, p) && read_at.is_some() {
                        read_at = Some(self.writes);
                    }
                }
                _ => self.enforce_clause(constraint, unknown, &binding_at(p))?,
            }
        }
        Ok(())
    }

    /// The end of a pair step where some position fails or is unit:
    /// `slot_units` without reading statuses again. At a unit position
    /// the literal that can still hold is the pair's first where `a_in`
    /// (the positions whose domain meets its values, as the step read
    /// them) has the position, else its second; enforcing an `is` literal
    /// at a position writes the rows there only, so the statuses the step
    /// read stay those of the other positions (as `slot_units` finds).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn pair_units(
        &mut self,
        visit: &Visit,
        plan: &VectorPlan,
        slots: &SlotPlan,
        at: &SlotsAt,
        failed: u64,
        mut units: u64,
        a_in: u64,
    ) -> Flow {
        let enforces = slots.pair.as_ref().map(|[a, b]| {
            (
                (a.literal, slots.enforce.get(a.literal)),
                (b.literal, slots.enforce.get(b.literal)),
            )
        });
        let Some((
            (
                a,
                Some(Some(SlotEnforce::Is {
                    instance: a_instance,
                    values: a_values,
                })),
            ),
            (
                b,
                Some(Some(SlotEnforce::Is {
                    instance: b_instance,
                    values: b_values,
                })),
            ),
        )) = enforces
        else {
            return self.slot_units(visit, plan, slots, at, failed, units);
        };
        if failed != 0 {
            return self.slot_units(visit, plan, slots, at, failed, units);
        }
        let constraint = visit.constraint;
        let def = &self.model().constraints[constraint as usize];
        let objects = self.layout.plain_objects(plan.set);
        let explained = self.reasons.is_some();
        // Each literal's values in both orientations of its instance (as
        // `restrict_instance` maps them), mapped once rather than per unit.
        let both = |instance: &SlotInstance, values: u64| {
            [values, self.layout.map_inverse(instance.choice, values)]
        };
        let (a_values, b_values) = (both(a_instance, *a_values), both(b_instance, *b_values));
        while units != 0 {
            let p = units.trailing_zeros() as usize;
            units &= units - 1;
            let (literal, instance, values) = if a_in & (1 << p) != 0 {
                (a, a_instance, a_values)
            } else {
                (b, b_instance, b_values)
            };
            // The binding, made only where it is read.
            let with_z = || {
                let mut with_z = at.binding(visit.args);
                with_z.bind(plan.z, objects[p]);
                with_z
            };
            // `enforce_slot` of the `is` literal, without its dispatch: the
            // instance's positions kept for its planes.
            let (index, reversed, (low, high)) = at.instance_at(instance, p);
            let allowed = values[reversed as usize];
            if explained {
                self.enforce_clause_by(
                    constraint,
                    Some(&def.literals[literal]),
                    with_z,
                    |s, _| s.restrict_instance(instance.choice, index, false, allowed),
                )?;
            } else if let Err(dead_end) =
                self.restrict_stored(instance.choice, index, Some((low, high)), allowed)
            {
                // As `enforce_clause_by` without explanations to keep.
                return Err(self.enforcement_failed(constraint, &with_z(), dead_end));
            }
        }
        Ok(())
    }

    /// [`Propagator::enforce`] of a literal of a slot plan at position `p`.
    fn enforce_slot(&mut self, enforce: &SlotEnforce, at: &SlotsAt, p: usize) -> Flow {
        match enforce {
            SlotEnforce::Is { instance, values } => {
                let (index, reversed) = at.instance(instance, p);
                self.restrict_instance(instance.choice, index, reversed, *values)
            }
            SlotEnforce::Same { lhs, rhs, equal } => {
                let (li, lr) = at.instance(lhs, p);
                let (ri, rr) = at.instance(rhs, p);
                let (l, r) = (
                    self.instance_mask(lhs.choice, li, lr),
                    self.instance_mask(rhs.choice, ri, rr),
                );
                if *equal {
                    // Equal domains: neither restriction changes anything
                    // (the commonest case, with several values left).
                    if l == r {
                        return Ok(());
                    }
                    self.restrict_instance(lhs.choice, li, lr, r)?;
                    self.restrict_instance(rhs.choice, ri, rr, l)
                } else {
                    if is_single(l) {
                        self.restrict_instance(rhs.choice, ri, rr, !l)?;
                    }
                    if is_single(r) {
                        self.restrict_instance(lhs.choice, li, lr, !r)?;
                    }
                    Ok(())
                }
            }
        }
    }
}
