//! Counter bounds and back-propagation: narrowing a counter instance to
//! a bound, and when the bound is narrower than its inputs allow,
//! forcing its increments on or off (with bitsets for counter plans).
//! Reads counting (`counters`), literal enforcement and domains.

use super::counters::param_binding;
use super::state::{Flow, Propagator};
use crate::action::{DeadEnd, InstanceId};
use crate::backbone::ObjectId;
use crate::binding::Binding;
use crate::model::*;
use crate::plan::CounterPlan;
use crate::values::{Range, Status, MEMBER, NOT_MEMBER};

impl<'a> Propagator<'a> {
    /// Makes a counter lie in `[lo, hi]`.
    pub(super) fn restrict_counter(
        &mut self,
        choice: u16,
        params: &[ObjectId],
        lo: i64,
        hi: i64,
    ) -> Flow {
        if self.locate(choice, params).is_none() {
            return Ok(());
        }
        let computed = self.compute_counter(choice, params, None);
        self.narrow_counter(choice, params, lo, hi, computed)
    }

    /// Intersects the stored range with `[lo, hi]`; when the result is
    /// narrower than what the inputs allow, forces the increments.
    fn narrow_counter(
        &mut self,
        choice: u16,
        params: &[ObjectId],
        lo: i64,
        hi: i64,
        computed: Range,
    ) -> Flow {
        let Some((instance, word, _)) = self.locate(choice, params) else {
            return Ok(());
        };
        self.narrow_counter_at(choice, (instance, word), params, (lo, hi), computed)
    }

    /// [`Propagator::narrow_counter`] of the counter instance found at
    /// `(instance, word)` (inlined: every recount ends here, and most
    /// leave the range as it was).
    #[inline(always)]
    pub(super) fn narrow_counter_at(
        &mut self,
        choice: u16,
        (instance, word): (usize, usize),
        params: &[ObjectId],
        (lo, hi): (i64, i64),
        computed: Range,
    ) -> Flow {
        let (old_min, old_max) = (self.words[word] as i64, self.words[word + 1] as i64);
        let (min, max) = (
            old_min.max(lo).max(computed.min),
            old_max.min(hi).min(computed.max),
        );
        if min > max {
            let bound = (old_min.max(lo), old_max.min(hi));
            return Err(self.counter_emptied(choice, params, bound, computed));
        }
        if (min, max) != (old_min, old_max) {
            self.words[word] = min as u64;
            self.words[word + 1] = max as u64;
            self.writes += 1;
            self.enqueue(choice, instance, old_min as u64);
        }
        // A counter `sum 1 when ...` forces an uncertain increment only
        // when its bound meets what its inputs allow: off when `max` is
        // the count of certain increments, on when `min` is the count of
        // possible ones (certain increments always fit).
        let forced = self.layout.plans.counter_plans[choice as usize].is_none()
            || computed.min >= max
            || computed.max <= min;
        if (min, max) != (computed.min, computed.max) && forced {
            self.back_propagate(choice, params, min, max)?;
        }
        Ok(())
    }

    /// The dead end of a counter whose bound `(min, max)` and computed
    /// range do not meet (out of line: it ends the propagation).
    #[cold]
    #[inline(never)]
    fn counter_emptied(
        &self,
        choice: u16,
        params: &[ObjectId],
        (min, max): (i64, i64),
        computed: Range,
    ) -> DeadEnd {
        let name = self.model().choices[choice as usize].name;
        DeadEnd {
            constraint: None,
            bindings: Vec::new(),
            emptied: Some(InstanceId {
                choice,
                objects: params.to_vec(),
            }),
            message: format!(
                "counter {name}{params:?} must lie in [{min}, {max}] but its inputs give [{}, {}]",
                computed.min, computed.max
            ),
        }
    }

    /// Forces the increments of a counter that must lie in `[min, max]`.
    fn back_propagate(&mut self, choice: u16, params: &[ObjectId], min: i64, max: i64) -> Flow {
        let ChoiceKind::Counter(def) = &self.model().choices[choice as usize].kind else {
            return Ok(());
        };
        if let Some(plan) = &self.layout.plans.counter_plans[choice as usize] {
            if let Some(flow) = self.back_propagate_rows(def, plan, params, min, max) {
                return flow;
            }
        }
        let mut parts = Vec::new();
        let total = self.compute_counter(choice, params, Some(&mut parts));
        // A sum's exact bounds, wider than i64 (for `sum` counters): the
        // counter saturates, and what the other increments may add must not
        // be taken from a saturated total.
        let base = match &def.base {
            Some(base) => self.term_range(base, &param_binding(params)),
            None => Range { min: 0, max: 0 },
        };
        let (lo, hi) = parts.iter().fold(
            (i128::from(base.min), i128::from(base.max)),
            |(lo, hi), (_, c, _, _)| (lo + i128::from(c.min), hi + i128::from(c.max)),
        );
        let clamp = |v: i128| v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        // A bound at the end of i64 is a saturated range: no bound at all.
        let (min_bound, max_bound) = (
            if min == i64::MIN {
                i128::MIN / 4
            } else {
                i128::from(min)
            },
            if max == i64::MAX {
                i128::MAX / 4
            } else {
                i128::from(max)
            },
        );
        for (b, c, status, inc) in parts {
            // What this increment may contribute, the others being as loose
            // as they are now.
            let allowed = match def.op {
                CounterOp::Sum => Range {
                    min: clamp(min_bound - (hi - i128::from(c.max))),
                    max: clamp(max_bound - (lo - i128::from(c.min))),
                },
                CounterOp::Mul => {
                    // Only for non-negative factors: divide by the others.
                    if total.min < 0 || c.min <= 0 || inc.min < 0 {
                        continue;
                    }
                    let others_min = total.min / c.min.max(1);
                    if others_min <= 0 {
                        continue;
                    }
                    Range {
                        min: i64::MIN,
                        max: max / others_min,
                    }
                }
            };
            let neutral = if def.op == CounterOp::Sum { 0 } else { 1 };
            let fits = |r: Range| r.max >= allowed.min && r.min <= allowed.max;
            match status {
                Status::Unknown => {
                    if !fits(inc) {
                        self.force_increment_off(def, params.len(), &b)?;
                    } else if !(allowed.min..=allowed.max).contains(&neutral) {
                        for literal in def.condition {
                            self.enforce(literal, &b)?;
                        }
                        for (flag, objects) in self.membership_flags(def.vars, params.len(), &b) {
                            self.restrict(flag, &objects, MEMBER)?;
                        }
                        self.restrict_term(&def.increment, allowed.min, allowed.max, &b)?;
                    }
                }
                Status::True => self.restrict_term(&def.increment, allowed.min, allowed.max, &b)?,
                Status::False => {}
            }
        }
        Ok(())
    }

    /// [`Propagator::back_propagate`] of a counter whose plan has a
    /// `forced` literal: every increment is 0 or 1, and only that literal can
    /// be unknown, so the increments that are forced are the unknown ones,
    /// all off when `max` is the count of certain increments, all on when
    /// `min` is the count of possible ones; their literal is made false or
    /// true in the order of the counter's bindings, as the general path
    /// does (each write is another instance, and none can empty it). The
    /// certain increments already fit. `None` when the rows cannot be read.
    fn back_propagate_rows(
        &mut self,
        def: &'static CounterDef,
        plan: &CounterPlan,
        params: &[ObjectId],
        min: i64,
        max: i64,
    ) -> Option<Flow> {
        let literal = &def.condition[plan.forced?];
        let b = param_binding(params);
        let (certain, unknown) = self.plan_masks(plan, &b, false)?;
        let certain_count = certain.count_ones() as i64;
        let on = if max <= certain_count {
            false
        } else if min >= certain_count + unknown.count_ones() as i64 {
            true
        } else {
            return Some(Ok(()));
        };
        let objects = self.layout.plain_objects(plan.root);
        let mut with_z = b;
        with_z.bound |= 1 << plan.z;
        let mut rest = unknown;
        while rest != 0 {
            with_z.objects[plan.z as usize] = objects[rest.trailing_zeros() as usize];
            rest &= rest - 1;
            let flow = if on {
                self.enforce(literal, &with_z)
            } else {
                self.enforce_not(literal, &with_z)
            };
            if flow.is_err() {
                return Some(flow);
            }
        }
        Some(Ok(()))
    }

    /// An increment must not count: its condition (a conjunction) or one
    /// of its quotient memberships fails. If all hold but one, that one
    /// fails.
    fn force_increment_off(
        &mut self,
        def: &'static CounterDef,
        params: usize,
        b: &Binding,
    ) -> Flow {
        enum Open {
            Literal(&'static Literal),
            Member(u16, Vec<ObjectId>),
        }
        let mut open = None;
        let mut count = 0;
        for literal in def.condition {
            match self.status(literal, b) {
                Status::False => return Ok(()),
                Status::True => {}
                Status::Unknown => {
                    count += 1;
                    open = Some(Open::Literal(literal));
                }
            }
        }
        for (flag, objects) in self.membership_flags(def.vars, params, b) {
            match self.mask(flag, &objects) {
                MEMBER => {}
                mask if mask & MEMBER == 0 => return Ok(()),
                _ => {
                    count += 1;
                    open = Some(Open::Member(flag, objects));
                }
            }
        }
        match (count, open) {
            (1, Some(Open::Literal(literal))) => self.enforce_not(literal, b),
            (1, Some(Open::Member(flag, objects))) => self.restrict(flag, &objects, NOT_MEMBER),
            (0, _) => Err(self.dead(
                None,
                b,
                &[],
                "a counter increment must both count and not count".into(),
            )),
            _ => Ok(()),
        }
    }
}
