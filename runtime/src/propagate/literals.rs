//! Literals and terms on the generic path: the range of a term and the
//! status of a literal under a binding, and making a literal hold
//! (`is`, `==` and comparisons, counters included) or an `is` literal
//! fail. Reads domains through the state and the value arithmetic.

use super::state::{Flow, Propagator};
use crate::binding::Binding;
use crate::model::*;
use crate::values::{compare_status, is_single, product_range, Range, Status};

impl<'a> Propagator<'a> {
    /// The range of a term under `b` (constants read in place: most
    /// comparisons have one side constant, as `tile_size($d) > 1`).
    #[inline]
    pub fn term_range(&self, term: &Term, b: &Binding) -> Range {
        match term {
            Term::Const(c) => Range { min: *c, max: *c },
            _ => self.term_range_of(term, b),
        }
    }

    /// [`Propagator::term_range`] of a property or a choice.
    fn term_range_of(&self, term: &Term, b: &Binding) -> Range {
        match term {
            Term::Const(c) => Range { min: *c, max: *c },
            Term::Property { property, args } => {
                let v = self.layout.int_property(*property, &b.args(args));
                Range { min: v, max: v }
            }
            Term::Choice(inst) => match self.model().choices[inst.choice as usize].kind {
                ChoiceKind::Counter(_) => self.counter_range(inst, b),
                _ => self.integer_range(inst, b),
            },
            Term::Product(factors) => product_range(factors.iter().map(|f| self.term_range(f, b))),
        }
    }

    /// The range of the counter instance `inst` under `b` (as `counter`,
    /// the instance found by the binding).
    #[inline(always)]
    pub(super) fn counter_range(&self, inst: &InstanceRef, b: &Binding) -> Range {
        match self.locate_ref(inst, b) {
            Some((_, word, _)) => Range {
                min: self.words[word] as i64,
                max: self.words[word + 1] as i64,
            },
            None => Range { min: 0, max: 0 },
        }
    }

    /// The range of the values left to the integer instance `inst` under
    /// `b` (empty, `min > max`, when it has none).
    #[inline(always)]
    pub(super) fn integer_range(&self, inst: &InstanceRef, b: &Binding) -> Range {
        let (universe, mask, _) = self.integer_values_of(inst, b);
        if mask == 0 || universe.is_empty() {
            return Range {
                min: i64::MAX,
                max: i64::MIN,
            };
        }
        let low = mask.trailing_zeros() as usize;
        let high = 63 - mask.leading_zeros() as usize;
        Range {
            min: universe[low.min(universe.len() - 1)],
            max: universe[high.min(universe.len() - 1)],
        }
    }

    pub fn status(&self, literal: &Literal, b: &Binding) -> Status {
        self.status_inline(literal, b)
    }

    /// [`Propagator::status`], inlined where clauses are filtered (most
    /// literals read there are certain, and the call cost as much).
    #[inline(always)]
    pub(super) fn status_inline(&self, literal: &Literal, b: &Binding) -> Status {
        match literal {
            Literal::Is { instance, values } => {
                Status::of_membership(self.mask_of(instance, b), *values)
            }
            Literal::Same { lhs, rhs, equal } => {
                let l = self.mask_of(lhs, b);
                let r = self.mask_of(rhs, b);
                let same = is_single(l) && l == r;
                let disjoint = l & r == 0;
                match (equal, same, disjoint) {
                    (true, true, _) | (false, _, true) => Status::True,
                    (true, _, true) | (false, true, _) => Status::False,
                    _ => Status::Unknown,
                }
            }
            Literal::Compare { lhs, op, rhs } => {
                let l = self.term_range(lhs, b);
                let r = self.term_range(rhs, b);
                compare_status(*op, l, r)
            }
            Literal::Property {
                property,
                args,
                negated,
            } => {
                if self
                    .layout
                    .bool_property_by(*property, args.len(), |i| b.objects[args[i] as usize])
                    != *negated
                {
                    Status::True
                } else {
                    Status::False
                }
            }
        }
    }

    /// Makes a literal hold.
    pub(super) fn enforce(&mut self, literal: &Literal, b: &Binding) -> Flow {
        match literal {
            Literal::Is { instance, values } => match self.locate_ref(instance, b) {
                Some((index, _, reversed)) => {
                    self.restrict_instance(instance.choice, index, reversed, *values)
                }
                None => Ok(()),
            },
            Literal::Same { lhs, rhs, equal } => {
                // Each side found once, as `mask` and `restrict` would
                // find it (an instance that does not exist reads 0 and
                // takes no write).
                let (l_at, r_at) = (self.locate_ref(lhs, b), self.locate_ref(rhs, b));
                let read = |p: &Self, choice: u16, at: Option<(usize, usize, bool)>| match at {
                    Some((_, word, true)) => p.layout.map_inverse(choice, p.words[word]),
                    Some((_, word, false)) => p.words[word],
                    None => 0,
                };
                let (l, r) = (read(self, lhs.choice, l_at), read(self, rhs.choice, r_at));
                let write = |p: &mut Self, choice: u16, at, allowed| match at {
                    Some((instance, _, reversed)) => {
                        p.restrict_instance(choice, instance, reversed, allowed)
                    }
                    None => Ok(()),
                };
                if *equal {
                    write(self, lhs.choice, l_at, r)?;
                    write(self, rhs.choice, r_at, l)
                } else {
                    if is_single(l) {
                        write(self, rhs.choice, r_at, !l)?;
                    }
                    if is_single(r) {
                        write(self, lhs.choice, l_at, !r)?;
                    }
                    Ok(())
                }
            }
            Literal::Compare { lhs, op, rhs } => self.enforce_compare(lhs, *op, rhs, b),
            Literal::Property { .. } => Ok(()),
        }
    }

    /// Makes an `is` literal fail (for counter conditions forced false).
    pub(super) fn enforce_not(&mut self, literal: &Literal, b: &Binding) -> Flow {
        match literal {
            Literal::Is { instance, values } => {
                self.restrict(instance.choice, &b.args(instance.args), !values)
            }
            _ => Ok(()),
        }
    }

    fn enforce_compare(&mut self, lhs: &Term, op: CompareOp, rhs: &Term, b: &Binding) -> Flow {
        if let (CompareOp::Eq, Term::Choice(li), Term::Choice(ri)) = (op, lhs, rhs) {
            if let Some(flow) = self.enforce_equal_integers(li, ri, b) {
                return flow;
            }
        }
        let l = self.term_range(lhs, b);
        let r = self.term_range(rhs, b);
        let (lhs_bounds, rhs_bounds) = match op {
            CompareOp::Multiple | CompareOp::NotMultiple => {
                let want = op == CompareOp::Multiple;
                if r.min == r.max {
                    self.filter_term(lhs, b, &|v| is_multiple(v, r.min) == want)?;
                }
                let l = self.term_range(lhs, b);
                if l.min == l.max {
                    self.filter_term(rhs, b, &|d| is_multiple(l.min, d) == want)?;
                }
                return Ok(());
            }
            CompareOp::Lt => (
                (i64::MIN, r.max.saturating_sub(1)),
                (l.min.saturating_add(1), i64::MAX),
            ),
            CompareOp::Le => ((i64::MIN, r.max), (l.min, i64::MAX)),
            CompareOp::Gt => (
                (r.min.saturating_add(1), i64::MAX),
                (i64::MIN, l.max.saturating_sub(1)),
            ),
            CompareOp::Ge => ((r.min, i64::MAX), (i64::MIN, l.max)),
            CompareOp::Eq => ((r.min, r.max), (l.min, l.max)),
            CompareOp::Ne => {
                if r.min == r.max {
                    self.exclude_value(lhs, r.min, b)?;
                }
                let l = self.term_range(lhs, b);
                if l.min == l.max {
                    self.exclude_value(rhs, l.min, b)?;
                }
                return Ok(());
            }
        };
        self.restrict_term(lhs, lhs_bounds.0, lhs_bounds.1, b)?;
        self.restrict_term(rhs, rhs_bounds.0, rhs_bounds.1, b)?;
        if op == CompareOp::Eq {
            // Two integer choices: keep only the values they share.
            if let (Term::Choice(li), Term::Choice(ri)) = (lhs, rhs) {
                let integer = |c: u16| {
                    matches!(
                        self.model().choices[c as usize].kind,
                        ChoiceKind::Integer { .. }
                    )
                };
                if integer(li.choice) && integer(ri.choice) {
                    let (lu, lm, l_at) = self.integer_values_of(li, b);
                    let (ru, rm, r_at) = self.integer_values_of(ri, b);
                    let (lk, rk) = (common_values(lu, lm, ru, rm), common_values(ru, rm, lu, lm));
                    // As `restrict` of each, found above already.
                    if let Some((instance, reversed)) = l_at {
                        self.restrict_instance(li.choice, instance, reversed, lk)?;
                    }
                    if let Some((instance, reversed)) = r_at {
                        self.restrict_instance(ri.choice, instance, reversed, rk)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// `li == ri` of two integer choices (as `tile_size($a) ==
    /// tile_size($b)`), each instance looked up once: the general path
    /// restricts each side to the other's range, then both to their common
    /// values; the common values are within both ranges, so the domains
    /// end the same, and the two instances are written in the order the
    /// general path first writes them. `None` (the general path) for other
    /// terms, a missing or empty instance, or no common value (the general
    /// path names the dead end).
    fn enforce_equal_integers(
        &mut self,
        li: &InstanceRef,
        ri: &InstanceRef,
        b: &Binding,
    ) -> Option<Flow> {
        let integer = |c: u16| {
            matches!(
                self.model().choices[c as usize].kind,
                ChoiceKind::Integer { .. }
            )
        };
        if !integer(li.choice) || !integer(ri.choice) {
            return None;
        }
        let (lu, lm, l_at) = self.integer_values_of(li, b);
        let (ru, rm, r_at) = self.integer_values_of(ri, b);
        let ((l_instance, l_reversed), (r_instance, r_reversed)) = (l_at?, r_at?);
        if lm == 0 || rm == 0 || lu.is_empty() || ru.is_empty() {
            return None;
        }
        if li.choice == ri.choice && l_instance == r_instance {
            return None;
        }
        let (lk, rk) = (common_values(lu, lm, ru, rm), common_values(ru, rm, lu, lm));
        if lk == 0 {
            return None;
        }
        // As `term_range` reads them.
        let range = |u: &[i64], m: u64| {
            let high = 63 - m.leading_zeros() as usize;
            (
                u[(m.trailing_zeros() as usize).min(u.len() - 1)],
                u[high.min(u.len() - 1)],
            )
        };
        let ((l_min, l_max), (r_min, r_max)) = (range(lu, lm), range(ru, rm));
        // The general path writes the right side first when the left one
        // lies within the right one's range (its first write is then the
        // common values) and the right one does not.
        let right_first =
            lk != lm && l_min >= r_min && l_max <= r_max && (r_min < l_min || r_max > l_max);
        let flow = if right_first {
            self.restrict_instance(ri.choice, r_instance, r_reversed, rk)
                .and_then(|()| self.restrict_instance(li.choice, l_instance, l_reversed, lk))
        } else {
            self.restrict_instance(li.choice, l_instance, l_reversed, lk)
                .and_then(|()| self.restrict_instance(ri.choice, r_instance, r_reversed, rk))
        };
        Some(flow)
    }

    /// Keeps the values of a term that satisfy `keep`, where the term is
    /// an integer choice, or a product whose factors but one integer
    /// choice are fixed; other terms are left as they are (a literal on
    /// them is still decided once they are fixed).
    fn filter_term(&mut self, term: &Term, b: &Binding, keep: &dyn Fn(i64) -> bool) -> Flow {
        let (choice, scale) = match term {
            Term::Choice(inst) => (inst, 1i64),
            Term::Product(factors) => {
                let mut free = None;
                let mut scale = 1i64;
                for factor in factors.iter() {
                    let r = self.term_range(factor, b);
                    if r.min == r.max {
                        scale = scale.saturating_mul(r.min);
                    } else if free.is_some() {
                        return Ok(());
                    } else {
                        free = Some(factor);
                    }
                }
                match free {
                    Some(Term::Choice(inst)) => (inst, scale),
                    _ => return Ok(()),
                }
            }
            _ => return Ok(()),
        };
        if matches!(
            self.model().choices[choice.choice as usize].kind,
            ChoiceKind::Counter(_)
        ) {
            return Ok(());
        }
        let (universe, _, found) = self.integer_values_of(choice, b);
        let Some((instance, reversed)) = found else {
            return Ok(());
        };
        let mut allowed = 0u64;
        for (i, &v) in universe.iter().enumerate() {
            if keep(v.saturating_mul(scale)) {
                allowed |= 1 << i;
            }
        }
        self.restrict_instance(choice.choice, instance, reversed, allowed)
    }

    /// Restricts a term to `[lo, hi]`.
    pub(super) fn restrict_term(&mut self, term: &Term, lo: i64, hi: i64, b: &Binding) -> Flow {
        match term {
            Term::Product(_) => {
                let r = self.term_range(term, b);
                if r.max < lo || r.min > hi {
                    return Err(self.dead(
                        None,
                        b,
                        &[],
                        format!("a product is outside [{lo}, {hi}]"),
                    ));
                }
                self.filter_term(term, b, &|v| (lo..=hi).contains(&v))
            }
            Term::Choice(inst) => match &self.model().choices[inst.choice as usize].kind {
                ChoiceKind::Counter(_) => {
                    self.restrict_counter(inst.choice, &b.args(inst.args), lo, hi)
                }
                _ => {
                    // Found once, read and restricted by index (as `restrict`
                    // would find it again).
                    let (universe, _, found) = self.integer_values_of(inst, b);
                    let Some((instance, reversed)) = found else {
                        return Ok(());
                    };
                    let mut allowed = 0u64;
                    for (i, v) in universe.iter().enumerate() {
                        if (lo..=hi).contains(v) {
                            allowed |= 1 << i;
                        }
                    }
                    self.restrict_instance(inst.choice, instance, reversed, allowed)
                }
            },
            _ => {
                let r = self.term_range(term, b);
                if r.max < lo || r.min > hi {
                    return Err(self.dead(
                        None,
                        b,
                        &[],
                        format!("a constant is outside [{lo}, {hi}]"),
                    ));
                }
                Ok(())
            }
        }
    }

    fn exclude_value(&mut self, term: &Term, value: i64, b: &Binding) -> Flow {
        let inst = match term {
            Term::Choice(inst) => inst,
            Term::Product(_) => return self.filter_term(term, b, &|v| v != value),
            _ => return Ok(()),
        };
        let objects = b.args(inst.args);
        match &self.model().choices[inst.choice as usize].kind {
            ChoiceKind::Counter(_) => {
                let r = self.counter(inst.choice, &objects);
                if r.min == value {
                    self.restrict_counter(
                        inst.choice,
                        &objects,
                        value.saturating_add(1),
                        i64::MAX,
                    )?;
                } else if r.max == value {
                    self.restrict_counter(
                        inst.choice,
                        &objects,
                        i64::MIN,
                        value.saturating_sub(1),
                    )?;
                }
                Ok(())
            }
            _ => {
                let (universe, _) = self.integer_values(inst.choice, &objects);
                let allowed = universe
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v != value)
                    .fold(0u64, |m, (i, _)| m | 1 << i);
                self.restrict(inst.choice, &objects, allowed)
            }
        }
    }
}

/// The values of `u` left in `m` that `other` has left in `om`: universes
/// are sorted without repeats, so one merge finds them (or one AND, when
/// the universes are the same, as tile sizes often are; the layout shares
/// equal universes of a choice, so most are the same slice).
fn common_values(u: &[i64], m: u64, other: &[i64], om: u64) -> u64 {
    if std::ptr::eq(u, other) || u == other {
        return m & om;
    }
    let (mut i, mut j, mut out) = (0, 0, 0u64);
    while i < u.len() && j < other.len() {
        match u[i].cmp(&other[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                if m & (1 << i) != 0 && om & (1 << j) != 0 {
                    out |= 1 << i;
                }
                i += 1;
                j += 1;
            }
        }
    }
    out
}
