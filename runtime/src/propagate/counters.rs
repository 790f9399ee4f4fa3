//! Counters: computing a counter instance's range from its inputs (over
//! its static bindings, bitsets of a counter plan, or the enumeration),
//! and recounting the instances a change concerns. Reads counter plans,
//! rows, literal statuses, screens' position masks and enumeration.

use super::screens::without_bound;
use super::state::{Flow, Propagator};
use crate::backbone::ObjectId;
use crate::binding::Binding;
use crate::model::*;
use crate::plan::{CounterPlan, ZLiteral};
use crate::values::{Range, Status, MEMBER};

impl<'a> Propagator<'a> {
    /// The range of a counter instance from its inputs, and the
    /// contribution of each increment (for back-propagation).
    pub(super) fn compute_counter(
        &mut self,
        choice: u16,
        params: &[ObjectId],
        contributions: Option<&mut Vec<(Binding, Range, Status, Range)>>,
    ) -> Range {
        let instance = self.layout.instance(choice, params).map(|(i, _)| i);
        self.compute_counter_at(choice, instance, params, contributions)
    }

    /// [`Propagator::compute_counter`] of the counter instance `instance`
    /// (`params` are its objects), if it has one.
    fn compute_counter_at(
        &mut self,
        choice: u16,
        instance: Option<usize>,
        params: &[ObjectId],
        contributions: Option<&mut Vec<(Binding, Range, Status, Range)>>,
    ) -> Range {
        let ChoiceKind::Counter(def) = &self.model().choices[choice as usize].kind else {
            return Range { min: 0, max: 0 };
        };
        let mut total = match (&def.base, def.op) {
            (Some(base), _) => self.term_range(base, &param_binding(params)),
            (None, CounterOp::Sum) => Range { min: 0, max: 0 },
            (None, CounterOp::Mul) => Range { min: 1, max: 1 },
        };
        let mut collected = Vec::new();
        let want = contributions.is_some();
        let layout = self.layout;
        let tuples = instance.and_then(|instance| layout.counter_tuples(choice, instance));
        if let (Some(_), Some(plan), false) =
            (tuples, &layout.plans.counter_plans[choice as usize], want)
        {
            if let Some(range) = self.count_rows(plan, &param_binding(params), false) {
                return range;
            }
        }
        if let Some((width, tuples)) = tuples {
            // Static quantifier: the bindings are listed in the layout.
            let mut b = Binding::empty();
            b.bound = (1u32 << width) - 1;
            for tuple in tuples.chunks_exact(width.max(1)) {
                b.objects[..width].copy_from_slice(&tuple[..width]);
                let c = self.count_increment(def, params.len(), &b, &mut total);
                if want {
                    collected.push((b, c.0, c.1, c.2));
                }
            }
        } else {
            let mut b = Binding::empty();
            for (i, &o) in params.iter().enumerate() {
                b.bind(i as Var, o);
            }
            let params = params.len();
            let outer = std::mem::replace(&mut self.possible_members, true);
            let _ = self.for_each(def.vars, &mut b, &mut |p, b| {
                let c = p.count_increment(def, params, b, &mut total);
                if want {
                    collected.push((*b, c.0, c.1, c.2));
                }
                Ok(())
            });
            self.possible_members = outer;
        }
        if let Some(out) = contributions {
            *out = collected;
        }
        total
    }

    /// The range of a counter `sum 1 when ...` over one quantified
    /// variable, counted over bitsets: increments whose condition is
    /// certainly true, and those where it is unknown. `None` when a row
    /// cannot be read for these parameters, the first objects of `b` (the
    /// quantified variable's is not read); `checked`: they pass the
    /// plan's checks.
    #[inline(always)]
    fn count_rows(&self, plan: &CounterPlan, b: &Binding, checked: bool) -> Option<Range> {
        let (certain, unknown) = self.plan_masks(plan, b, checked)?;
        let certain = certain.count_ones() as i64;
        Some(Range {
            min: certain,
            max: certain + unknown.count_ones() as i64,
        })
    }

    /// For a counter plan and its parameters bound in `b`: the positions
    /// of the quantified variable whose increment certainly counts, and
    /// those where it is unknown. `None` when a row cannot be read.
    #[inline(always)]
    pub(super) fn plan_masks(
        &self,
        plan: &CounterPlan,
        b: &Binding,
        checked: bool,
    ) -> Option<(u64, u64)> {
        let layout = self.layout;
        if !checked && !self.passes(&plan.checks, b) {
            return Some((0, 0));
        }
        let domain = without_bound(layout, plan.members, plan.root, &plan.same_root, b);
        // Where every literal is certainly true, and where one is
        // certainly false.
        let (mut t, mut f) = (u64::MAX, 0u64);
        let mut gathered = false;
        for literal in &plan.literals {
            match literal {
                ZLiteral::Constant(literal) => match self.status(literal, b) {
                    Status::True => {}
                    Status::False => f = u64::MAX,
                    Status::Unknown => t = 0,
                },
                ZLiteral::Row(row) => {
                    let (rt, rf) = self.row_status(row, b)?;
                    t &= rt;
                    f |= rf;
                }
                ZLiteral::Property {
                    property,
                    slot,
                    args,
                    negated,
                } => {
                    let bits = layout
                        .property_row(*property, *slot, |i| b.objects[args[i] as usize])
                        .unwrap_or(0);
                    let holds = if *negated { !bits } else { bits };
                    t &= holds;
                    f |= !holds;
                }
                ZLiteral::Other(_) | ZLiteral::Own { .. } => gathered = true,
            }
        }
        if gathered {
            // Each literal read position by position where none is known
            // false yet; a status does not depend on the others, so they
            // are read literal by literal, `Own` ones without a binding.
            let positions = domain & !f;
            let objects = layout.plain_objects(plan.root);
            let mut with_z = *b;
            with_z.bound |= 1 << plan.z;
            for literal in &plan.literals {
                let mut rest = positions;
                while rest != 0 {
                    let p = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let status = match literal {
                        ZLiteral::Other(literal) => {
                            with_z.objects[plan.z as usize] = objects[p];
                            self.status(literal, &with_z)
                        }
                        ZLiteral::Own { values, words } => Status::of_membership(
                            words[p].map_or(0, |word| self.words[word]),
                            *values,
                        ),
                        _ => break,
                    };
                    match status {
                        Status::True => {}
                        Status::False => f |= 1 << p,
                        Status::Unknown => t &= !(1 << p),
                    }
                }
            }
        }
        Some((domain & t & !f, domain & !t & !f))
    }

    /// Adds one increment of a counter to `total`: returns its contribution,
    /// the status of its condition and the range of the increment.
    fn count_increment(
        &self,
        def: &'static CounterDef,
        params: usize,
        b: &Binding,
        total: &mut Range,
    ) -> (Range, Status, Range) {
        let model = self.model();
        let mut status = Status::True;
        for (i, var) in def.vars.iter().enumerate().skip(params) {
            if let Some(quotient) = &model.sets[var.set as usize].quotient {
                if self.member_mask(quotient.flag, var, i, b) != MEMBER {
                    status = Status::Unknown;
                }
            }
        }
        for literal in def.condition {
            match self.status(literal, b) {
                Status::False => {
                    status = Status::False;
                    break;
                }
                Status::Unknown => status = Status::Unknown,
                Status::True => {}
            }
        }
        let inc = self.term_range(&def.increment, b);
        let neutral = if def.op == CounterOp::Sum { 0 } else { 1 };
        let c = match status {
            Status::True => inc,
            Status::False => Range {
                min: neutral,
                max: neutral,
            },
            Status::Unknown => Range {
                min: inc.min.min(neutral),
                max: inc.max.max(neutral),
            },
        };
        let (min, max) = (total.min, total.max);
        *total = match def.op {
            CounterOp::Sum => Range {
                min: min.saturating_add(c.min),
                max: max.saturating_add(c.max),
            },
            CounterOp::Mul => {
                let products = [
                    min.saturating_mul(c.min),
                    min.saturating_mul(c.max),
                    max.saturating_mul(c.min),
                    max.saturating_mul(c.max),
                ];
                Range {
                    min: *products.iter().min().unwrap_or(&0),
                    max: *products.iter().max().unwrap_or(&0),
                }
            }
        };
        (c, status, inc)
    }

    /// The mask of the membership flag of variable `i` (over a quotient
    /// set) under `b`.
    fn member_mask(&self, flag: u16, var: &VarDef, i: usize, b: &Binding) -> u64 {
        let n = var.args.len();
        let objects = |k: usize| {
            if k < n {
                b.objects[var.args[k] as usize]
            } else {
                b.objects[i]
            }
        };
        match self.layout.instance_by(flag, n + 1, objects) {
            Some((instance, reversed)) => {
                let shape = &self.layout.shapes[flag as usize];
                let mask = self.words[shape.base + instance * shape.width];
                if reversed {
                    self.layout.map_inverse(flag, mask)
                } else {
                    mask
                }
            }
            None => 0,
        }
    }

    /// Recomputes a counter instance from its inputs, keeping any narrower
    /// bound constraints put on it, and queues it if it changed.
    pub(super) fn update_counter(&mut self, choice: u16, params: &[ObjectId]) -> Flow {
        self.update_counter_in(choice, &param_binding(params), params.len(), false)
    }

    /// [`Propagator::update_counter`] of the instance whose parameters are
    /// the first `params` objects of `b` (its other variables are not
    /// read: a binding of the counter's variables is not copied);
    /// `checked`: they are known to belong to their sets and to be
    /// distinct where they must (as for the instances a counter read's
    /// screen selects).
    pub(super) fn update_counter_in(
        &mut self,
        choice: u16,
        b: &Binding,
        params: usize,
        checked: bool,
    ) -> Flow {
        // As `locate` of the parameters, read in place.
        let Some((instance, _)) = self.layout.instance_by(choice, params, |i| b.objects[i]) else {
            return Ok(());
        };
        let params = &b.objects[..params];
        let shape = &self.layout.shapes[choice as usize];
        let word = shape.base + instance * shape.width;
        if !checked && !self.layout.instance_exists(choice, params) {
            return Ok(());
        }
        // Counted over rows where the counter has a plan, without going
        // through `compute_counter_at`'s general paths.
        let layout = self.layout;
        // (A plan has static bindings for every instance.)
        let counted = match &layout.plans.counter_plans[choice as usize] {
            Some(plan) => self.count_rows(plan, b, checked),
            None => None,
        };
        let computed = match counted {
            Some(range) => range,
            None => self.compute_counter_at(choice, Some(instance), params, None),
        };
        let (lo, hi) = (computed.min, computed.max);
        self.narrow_counter_at(choice, (instance, word), params, (lo, hi), computed)
    }

    /// Sets a counter's range from scratch (initialization).
    pub fn init_counter(&mut self, choice: u16, params: &[ObjectId]) -> bool {
        let Some((_, word, _)) = self.locate(choice, params) else {
            return false;
        };
        let range = self.compute_counter(choice, params, None);
        let old = (self.words[word], self.words[word + 1]);
        self.words[word] = range.min as u64;
        self.words[word + 1] = range.max as u64;
        old != (range.min as u64, range.max as u64)
    }
}

/// The binding of a counter instance's parameters (its first variables).
#[inline]
pub(super) fn param_binding(params: &[ObjectId]) -> Binding {
    let mut b = Binding::empty();
    b.objects[..params.len()].copy_from_slice(params);
    b.bound = (1u32 << params.len()) - 1;
    b
}
