//! Visits and change handling: for one changed instance, its choice's
//! run of steps for the domain it has (passing over quiet steps through
//! the row tables) or its visits one by one, each filtered by its plan
//! (slot, vector, bound, screen or generic), mirrored visits skipped
//! where the first did not write; then the counters that read it and
//! the quotient sets it flags. Reads every filter, counters, slot views
//! and the plans.

use super::screens::without_bound;
use super::slot_view::{oriented, SlotsAt};
use super::state::{Change, Flow, Propagator};
use crate::backbone::ObjectId;
use crate::binding::{Binding, PARAM_VARS};
use crate::model::*;
use crate::plan::{never_counts, CounterRead, Fallback, FreeParam, ReadScreen, Step, Visit};
use crate::values::Status;

impl<'a> Propagator<'a> {
    /// Filters the instances of a visit's constraint that bind its literal
    /// to the changed instance's `objects` (in one orientation; `view` is
    /// that orientation for slot plans).
    fn visit(&mut self, visit: &Visit, objects: &[ObjectId], view: Option<&SlotsAt>) -> Flow {
        if visit.mirrored || visit.mirrors {
            return self.mirrored_visit(visit, objects, view);
        }
        self.visit_body(visit, objects, view)
    }

    /// A visit of a mirrored pair (`order($a, $b) is not MERGED ||
    /// tile_size($a) == tile_size($b)` read through `$a`, then through
    /// `$b`): the second filters the same constraint instances as the
    /// first, variables swapped, and each write of the first touches only
    /// the instances of the one constraint instance it filters, unless it
    /// writes the changed instance. So when the first leaves the changed
    /// instance as it was, every instance the second filters is as the
    /// first left it, where filtering again does nothing (an enforced
    /// literal holds, or two equal domains stay equal), and the second is
    /// not run.
    #[inline(never)]
    fn mirrored_visit(
        &mut self,
        visit: &Visit,
        objects: &[ObjectId],
        view: Option<&SlotsAt>,
    ) -> Flow {
        let Some((instance, _)) = self.layout.instance(visit.choice, objects) else {
            return self.visit_body(visit, objects, view);
        };
        let shape = &self.layout.shapes[visit.choice as usize];
        let word = shape.base + instance * shape.width;
        let recorded = self.mirror.take();
        if visit.mirrors {
            if recorded == Some((visit.constraint, word, self.words[word])) {
                return Ok(());
            }
            return self.visit_body(visit, objects, view);
        }
        let before = self.words[word];
        self.visit_body(visit, objects, view)?;
        if self.words[word] == before {
            self.mirror = Some((visit.constraint, word, before));
        }
        Ok(())
    }

    /// [`Propagator::visit`] itself.
    #[inline]
    fn visit_body(&mut self, visit: &Visit, objects: &[ObjectId], view: Option<&SlotsAt>) -> Flow {
        if let (Some(slots), Some(plan), Some(view)) = (&visit.slots, &visit.plan, view) {
            return self.slot_filter(visit, plan, slots, view);
        }
        let mut b = Binding::empty();
        if !visit
            .args
            .iter()
            .zip(objects.iter())
            .all(|(&v, &o)| b.bind(v, o))
        {
            return Ok(());
        }
        if let Some(plan) = &visit.plan {
            if let Some(flow) = self.vector_filter(visit.constraint, plan, visit.known_false, &b) {
                return flow;
            }
        }
        match &visit.fallback {
            Fallback::Bound(checks) => {
                // A visit that was not skipped passes its checks already
                // (`on_change` reads the skip sets before visiting), and
                // every property literal of its clause is false.
                if visit.checked {
                    self.filter_known(visit.constraint, &b)?;
                } else if self.passes(checks, &b) {
                    self.filter(visit.constraint, &b)?;
                }
                Ok(())
            }
            Fallback::Screen(plan) => self.screen_filter(visit.constraint, plan, &b, visit.checked),
            Fallback::Generic => {
                // A literal over the bound variables alone that is
                // certainly true satisfies every completion; two that are
                // unknown leave every completion with two literals that can
                // hold, which `filter` leaves alone (and so nothing changes
                // while enumerating).
                let mut unknown = 0;
                for literal in &visit.constant {
                    match self.status(literal, &b) {
                        Status::True => return Ok(()),
                        Status::Unknown if unknown == 1 => return Ok(()),
                        Status::Unknown => unknown += 1,
                        Status::False => {}
                    }
                }
                let def = &self.model().constraints[visit.constraint as usize];
                self.for_each_unless(def.vars, &mut b, &visit.properties, &mut |p, b| {
                    p.filter(visit.constraint, b)
                })
            }
        }
    }

    /// Visits the constraints and counters that read a changed instance
    /// (see [`Change`]).
    #[inline]
    pub(super) fn on_change(&mut self, change: Change<'_, 'a>) -> Flow {
        let Change {
            choice,
            instance,
            shape,
            objects,
            reversed,
            positions,
            old,
        } = change;
        let layout = self.layout;
        // The choice's facts, found once per layout.
        let is_enum = shape.is_enum;
        // The objects in each orientation (the second reversed, for a
        // symmetric choice); a run's steps index `both` rather than a
        // slice of it made up front.
        let both = [objects, &reversed[..]];
        let orientations = &both[..1 + usize::from(shape.two_way)];
        // The changed instance's mask as seen from each orientation, read
        // once: the `is` literals on it are tested against these. Should a
        // clause below restrict this instance again, it is queued again.
        // A triangle instance is stored in the first orientation; its mask
        // in the second is mapped where it is read (`reread`), as runs read
        // the first alone. Otherwise orientation 0 is the instance itself,
        // stored as it is, and orientation 1 another instance, read now.
        // The instance's word (an enum's width is 1: the word of its view
        // below), read again where a unit may have narrowed it.
        let word = shape.base + instance * shape.width;
        let masks = [
            self.words[word],
            if shape.two_way && !shape.triangle {
                self.mask(choice, &reversed)
            } else {
                0
            },
        ];
        let reread = |masks: [u64; 2]| {
            if shape.triangle {
                [masks[0], layout.map_inverse(choice, masks[0])]
            } else {
                masks
            }
        };
        // For a triangle choice with planes: the positions of the
        // instance's objects, for slot plans, in the first orientation (the
        // second is made where a step reads it, see `oriented`).
        let view = shape.planes.as_ref().map(|planes| {
            let (low, high) = positions.unwrap_or_else(|| layout.triangle_positions(instance));
            SlotsAt {
                objects,
                flip: 0,
                positions: [low, high],
                rows: [low, high].map(|position| planes.base + position * planes.values),
                values: planes.values,
                word: shape.base + instance,
                choice,
            }
        });
        let visits = &layout.plans.visits[choice as usize];
        let run = layout.plans.runs[choice as usize]
            .as_ref()
            .and_then(|runs| runs.get(masks[0] as usize));
        if let Some(run) = run {
            // The same visits as below, listed for this domain. For pair
            // steps: the positions the free variable may take, per set of
            // the instance's positions taken out (bit 0: the low one), kept
            // in the row tables (where steps read them, rather than a copy
            // kept through the run).
            let mut valid = [0u64; 4];
            if let (Some(view), Some(planes)) = (&view, &shape.planes) {
                let full = planes.positions;
                let [low, high] = view.positions;
                valid = [
                    full,
                    full & !(1 << low),
                    full & !(1 << high),
                    full & !(1 << low) & !(1 << high),
                ];
            }
            self.row_ors.set_valid(&valid);
            // Whether the row tables are those of the instance's rows: only
            // a filter that enforces something or another visit can have
            // changed them since they were read.
            let mut fresh = false;
            // Whether a unit of this run narrowed the changed instance: the
            // rows steps that read its domain were compiled for the one the
            // run began with, and are then filtered by `slot_filter`.
            let mut moved = false;
            let mut next = 0;
            while let Some(&(mut step)) = run.steps.get(next) {
                if !matches!(step, Step::Visit { .. }) {
                    // `slot_filter`'s paths, rows read by storage order.
                    if !fresh {
                        // The instance's two rows, from its view (every
                        // step but a visit has a slot plan, so a view).
                        if let Some(view) = &view {
                            self.row_ors.read(0, self.words, view.rows[0], view.values);
                            self.row_ors.read(1, self.words, view.rows[1], view.values);
                        }
                        fresh = true;
                        moved = self.words[word] != masks[0];
                    }
                    // Most steps neither fail nor have a unit: they are
                    // passed over in one tight loop, without going through
                    // the steps.
                    let checks = &run.quiet[moved as usize];
                    next = self.row_ors.first_noisy(checks, next);
                    let Some(&noisy) = run.steps.get(next) else {
                        break;
                    };
                    step = noisy;
                }
                next += 1;
                match step {
                    Step::Pair {
                        index,
                        orientation,
                        excluded,
                        rows: pair,
                    } => {
                        let (failed, units, a_in) = self.row_ors.pair(excluded, pair);
                        if failed | units == 0 {
                            // Quiet: a step that `first_noisy` does not read.
                            continue;
                        }
                        let visit = &visits[index as usize];
                        if let (Some(slots), Some(plan), Some(view)) =
                            (&visit.slots, &visit.plan, &view)
                        {
                            let mut flipped = None;
                            let at = oriented(view, orientation.into(), &reversed, &mut flipped);
                            self.pair_units(visit, plan, slots, at, failed, units, a_in)?;
                        }
                        fresh = false;
                    }
                    Step::Rows {
                        index,
                        orientation,
                        excluded,
                        reads_domain,
                        reads,
                    } => {
                        let visit = &visits[index as usize];
                        let (Some(slots), Some(plan), Some(view)) =
                            (&visit.slots, &visit.plan, &view)
                        else {
                            continue;
                        };
                        let mut flipped = None;
                        let at = oriented(view, orientation.into(), &reversed, &mut flipped);
                        if reads_domain && moved {
                            fresh = false;
                            self.slot_filter(visit, plan, slots, at)?;
                            continue;
                        }
                        let valid = self.row_ors.valid(excluded);
                        let (failed, units, falses) = self.row_ors.rows(valid, &reads);
                        if failed | units == 0 {
                            // Quiet: a step that `first_noisy` does not read
                            // (three literals, or two over one table).
                            continue;
                        }
                        // Units that would enforce nothing leave the tables as
                        // they are.
                        if failed == 0 && self.idle_units(slots, at, units, &falses) {
                            continue;
                        }
                        self.slot_units(visit, plan, slots, at, failed, units)?;
                        fresh = false;
                    }
                    Step::Visit { index, orientation } => {
                        let orientation = orientation as usize;
                        let visit = &visits[index as usize];
                        match (&visit.slots, &visit.plan, &view) {
                            (Some(slots), Some(plan), Some(view)) => {
                                fresh = false;
                                let mut flipped = None;
                                let at = oriented(view, orientation, &reversed, &mut flipped);
                                self.slot_filter(visit, plan, slots, at)?
                            }
                            _ if visit.skips(instance, orientation) => {}
                            _ => {
                                fresh = false;
                                self.visit(visit, both[orientation & 1], None)?
                            }
                        }
                    }
                }
            }
        } else {
            let masks = reread(masks);
            for visit in visits {
                for (orientation, objects) in orientations.iter().enumerate() {
                    // An `is` literal that did not become false cannot make
                    // any instance of its constraint fail or unit: the other
                    // literals did not change, and each literal that became
                    // false is visited through its own clause.
                    if let (Some(values), true) = (visit.is_values, is_enum) {
                        if masks[orientation] & values != 0 {
                            continue;
                        }
                    }
                    if visit.skips(instance, orientation) {
                        continue;
                    }
                    let mut flipped = None;
                    let view = view
                        .as_ref()
                        .map(|view| oriented(view, orientation, &reversed, &mut flipped));
                    self.visit(visit, objects, view)?;
                }
            }
        }
        let reads = &layout.plans.counter_reads[choice as usize];
        let masks = if reads.is_empty() {
            masks
        } else {
            reread(masks)
        };
        for read in reads {
            let (def, params) = (read.def, read.params);
            for (orientation, objects) in orientations.iter().enumerate() {
                // A counter reads an `is` literal only through its status:
                // if that did not change, neither did the counter's inputs
                // (statuses only become certain, so none changed in
                // between either).
                if let (Some(values), true) = (read.values, is_enum) {
                    let before = if orientation == 0 {
                        old
                    } else {
                        self.layout.map_inverse(choice, old)
                    };
                    if Status::of_membership(before, values)
                        == Status::of_membership(masks[orientation], values)
                    {
                        continue;
                    }
                }
                if read.skips(instance, orientation) {
                    continue;
                }
                let mut b = Binding::empty();
                if read
                    .args
                    .iter()
                    .zip(objects.iter())
                    .all(|(&v, &o)| b.bind(v, o))
                {
                    if let Some(screen) = &read.screen {
                        self.screened_updates(read, screen, &b)?;
                        continue;
                    }
                    // Bound quantified variables only select the counter
                    // instances: clear them, keep parameters.
                    let bound = b.bound;
                    b.bound &= (1u32 << params) - 1;
                    self.for_each(&def.vars[..params], &mut b, &mut |p, b| {
                        // A property that fails for this increment keeps it
                        // from ever counting.
                        if never_counts(p.layout, def, bound | b.bound, b) {
                            return Ok(());
                        }
                        p.update_counter(read.counter, &b.args(&PARAM_VARS[..params]))
                    })?;
                }
            }
        }
        self.on_membership_change(choice, objects)
    }

    /// Updates the counter instances a read selects, as the enumeration
    /// in [`Propagator::on_change`] would (in the same order, less those
    /// a property keeps from counting), the free parameter's objects
    /// screened with property rows. Inlined into `on_change`: most reads
    /// bind every parameter (`inside($d)` read through `order($d, $s)`),
    /// and update one instance.
    #[inline]
    fn screened_updates(&mut self, read: &CounterRead, screen: &ReadScreen, b: &Binding) -> Flow {
        let layout = self.layout;
        // `on_change` read the skip set, which covers the checks: they
        // pass, and so do those of the instances selected below (the free
        // parameter's objects are of its set, those of the bound
        // parameters of its root left out).
        let holds = |b: &Binding, literal: &Literal| match literal {
            Literal::Property {
                property,
                args,
                negated,
            } => {
                layout.bool_property_by(*property, args.len(), |i| b.objects[args[i] as usize])
                    != *negated
            }
            _ => true,
        };
        if !screen.constant.iter().all(|literal| holds(b, literal)) {
            return Ok(());
        }
        let Some(free) = &screen.free else {
            return self.update_counter_in(read.counter, b, read.params, true);
        };
        self.screened_free_updates(read, free, b)
    }

    /// [`Propagator::screened_updates`] of a read that leaves the
    /// parameter `free` free, the screen's constant literals holding.
    #[inline(never)]
    fn screened_free_updates(&mut self, read: &CounterRead, free: &FreeParam, b: &Binding) -> Flow {
        let layout = self.layout;
        let def = read.def;
        let params = read.params;
        let mut mask = u64::MAX;
        for &(property, slot, args, negated) in &free.rows {
            let bits = layout
                .property_row(property, slot, |i| b.objects[args[i] as usize])
                .unwrap_or(0);
            mask &= if negated { !bits } else { bits };
        }
        let mut with_z = *b;
        with_z.bound |= 1 << free.z;
        if let Some(members) = free.members {
            // As below, by the bits of the positions left.
            let mut rest = without_bound(layout, members & mask, free.root, &free.same_root, b);
            let objects = layout.plain_objects(free.root);
            while rest != 0 {
                with_z.objects[free.z as usize] = objects[rest.trailing_zeros() as usize];
                rest &= rest - 1;
                if free.others && never_counts(layout, def, with_z.bound, &with_z) {
                    continue;
                }
                self.update_counter_in(read.counter, &with_z, params, true)?;
            }
            return Ok(());
        }
        'objects: for &object in layout.plain_objects(free.set) {
            for &v in &free.same_root {
                if b.objects[v as usize] == object {
                    continue 'objects;
                }
            }
            if let Some(p) = layout.position(free.root, object) {
                if mask & (1 << p) == 0 {
                    continue;
                }
            }
            with_z.objects[free.z as usize] = object;
            if free.others && never_counts(layout, def, with_z.bound, &with_z) {
                continue;
            }
            self.update_counter_in(read.counter, &with_z, params, true)?;
        }
        Ok(())
    }
}
