//! Propagation to a fixpoint: a work queue of changed choice instances;
//! for each, the constraint literals and counters that read it are run on
//! the tuples of objects the change concerns.

use fixedbitset::FixedBitSet;

use crate::action::{DeadEnd, InstanceId};
use crate::backbone::ObjectId;
use crate::layout::{Layout, MAX_VARS};
use crate::model::*;

/// Objects bound to the variables of one scope.
#[derive(Clone, Copy)]
pub(crate) struct Binding {
    pub objects: [ObjectId; MAX_VARS],
    pub bound: u32,
}

impl Binding {
    pub fn empty() -> Binding {
        Binding {
            objects: [0; MAX_VARS],
            bound: 0,
        }
    }

    pub fn is_bound(&self, var: Var) -> bool {
        self.bound & (1 << var) != 0
    }

    /// Binds `var`, or says it is already bound to another object.
    fn bind(&mut self, var: Var, object: ObjectId) -> bool {
        if self.is_bound(var) {
            return self.objects[var as usize] == object;
        }
        self.objects[var as usize] = object;
        self.bound |= 1 << var;
        true
    }

    pub fn args(&self, vars: &[Var]) -> ArgBuf {
        let mut buf = ArgBuf {
            objects: [0; MAX_VARS],
            len: vars.len(),
        };
        for (i, &v) in vars.iter().enumerate() {
            buf.objects[i] = self.objects[v as usize];
        }
        buf
    }
}

/// A small tuple of objects without allocation.
pub(crate) struct ArgBuf {
    objects: [ObjectId; MAX_VARS],
    len: usize,
}

impl ArgBuf {
    const EMPTY: ArgBuf = ArgBuf {
        objects: [0; MAX_VARS],
        len: 0,
    };
}

impl std::ops::Deref for ArgBuf {
    type Target = [ObjectId];
    fn deref(&self) -> &[ObjectId] {
        &self.objects[..self.len]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Status {
    True,
    False,
    Unknown,
}

/// A literal's status for every value of a free variable.
enum RowStatus {
    /// The literal does not read the free variable.
    Constant(Status),
    /// Bit sets over the free variable's positions: certainly true, and
    /// certainly false.
    Row { t: u64, f: u64 },
}

/// The inclusive range a term may take.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    pub min: i64,
    pub max: i64,
}

type Flow = Result<(), DeadEnd>;

/// The state of one propagation.
pub(crate) struct Propagator<'a> {
    pub layout: &'a Layout,
    pub words: &'a mut [u64],
    /// Changed instances: (choice, instance, word before the change).
    queue: Vec<(u16, usize, u64)>,
    queued: FixedBitSet,
    /// While counting, objects possibly in a quotient set are enumerated
    /// too: their increment is uncertain, not absent.
    possible_members: bool,
    /// When explanations are kept: per instance and value
    /// ([`VALUE_SLOTS`] slots per instance, in storage order), the
    /// constraint instance that removed the value ([`NO_REASON`] for a
    /// decision).
    reasons: Option<&'a mut [Reason]>,
    /// The constraint instance being enforced, if any.
    cause: Reason,
}

/// The constraint instance that narrowed a domain: the constraint and the
/// objects bound to its variables.
#[derive(Clone, Copy)]
pub(crate) struct Reason {
    pub constraint: u16,
    pub binding: Binding,
}

/// Explanation slots per instance: one per possible value.
pub(crate) const VALUE_SLOTS: usize = 64;

/// No constraint: the instance was narrowed by a decision.
pub(crate) const NO_REASON: Reason = Reason {
    constraint: u16::MAX,
    binding: Binding {
        objects: [0; MAX_VARS],
        bound: 0,
    },
};

fn bit_count(mask: u64) -> u32 {
    mask.count_ones()
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

impl<'a> Propagator<'a> {
    pub fn new(layout: &'a Layout, words: &'a mut [u64]) -> Self {
        Propagator {
            layout,
            words,
            queue: Vec::new(),
            queued: FixedBitSet::with_capacity(layout.instances),
            possible_members: false,
            reasons: None,
            cause: NO_REASON,
        }
    }

    /// Records, per instance, the constraint that last narrowed it.
    pub fn explaining(mut self, reasons: Option<&'a mut [Reason]>) -> Self {
        self.reasons = reasons;
        self
    }

    fn model(&self) -> &'static Model {
        self.layout.model
    }

    // ---------------------------------------------------------------- domains

    /// Word offset of an instance and whether it is stored reversed.
    fn locate(&self, choice: u16, objects: &[ObjectId]) -> Option<(usize, usize, bool)> {
        let (instance, reversed) = self.layout.instance(choice, objects)?;
        let shape = &self.layout.shapes[choice as usize];
        Some((instance, shape.base + instance * shape.width, reversed))
    }

    /// The value mask of an enum or integer instance, as seen in the order
    /// of `objects`.
    pub fn mask(&self, choice: u16, objects: &[ObjectId]) -> u64 {
        read_mask(self.layout, self.words, choice, objects)
    }

    /// The value mask of the enum or integer instance `inst` under `b`,
    /// without gathering its objects.
    #[inline]
    pub fn mask_of(&self, inst: &InstanceRef, b: &Binding) -> u64 {
        let args = inst.args;
        let Some((instance, reversed)) = self
            .layout
            .instance_by(inst.choice, args.len(), |i| b.objects[args[i] as usize])
        else {
            return 0;
        };
        let shape = &self.layout.shapes[inst.choice as usize];
        let mask = self.words[shape.base + instance * shape.width];
        if reversed {
            self.layout.map_inverse(inst.choice, mask)
        } else {
            mask
        }
    }

    /// Restricts an enum or integer instance to `allowed` (in the order of
    /// `objects`); queues it if it changed.
    pub fn restrict(&mut self, choice: u16, objects: &[ObjectId], allowed: u64) -> Flow {
        let Some((instance, word, reversed)) = self.locate(choice, objects) else {
            return Ok(());
        };
        let allowed = if reversed {
            self.layout.map_inverse(choice, allowed)
        } else {
            allowed
        };
        let old = self.words[word];
        let new = old & allowed;
        if new == old {
            return Ok(());
        }
        self.words[word] = new;
        self.write_planes(choice, instance, new);
        if new == 0 {
            let emptied = InstanceId {
                choice,
                objects: self.layout.instance_objects(choice, instance),
            };
            return Err(DeadEnd {
                constraint: None,
                bindings: Vec::new(),
                message: format!("no value left for {}", emptied.display(self.model())),
                emptied: Some(emptied),
            });
        }
        // Each value removed keeps the constraint instance that removed it.
        if let Some(reasons) = self.reasons.as_deref_mut() {
            let key = self.layout.shapes[choice as usize].first_instance + instance;
            let mut removed = old & !new;
            while removed != 0 {
                let bit = removed.trailing_zeros() as usize;
                removed &= removed - 1;
                if let Some(slot) = reasons.get_mut(key * VALUE_SLOTS + bit) {
                    *slot = self.cause;
                }
            }
        }
        self.enqueue(choice, instance, old);
        Ok(())
    }

    /// Queues a changed instance; `old` is its word before the change (for
    /// an instance already queued, the word from its first change since it
    /// was last taken from the queue is kept).
    fn enqueue(&mut self, choice: u16, instance: usize, old: u64) {
        let key = self.queue_key(choice, instance);
        if !self.queued.put(key) {
            self.queue.push((choice, instance, old));
        }
    }

    fn queue_key(&self, choice: u16, instance: usize) -> usize {
        self.layout.shapes[choice as usize].first_instance + instance
    }

    pub fn counter(&self, choice: u16, objects: &[ObjectId]) -> Range {
        read_counter(self.layout, self.words, choice, objects)
    }

    fn integer_values(&self, choice: u16, objects: &[ObjectId]) -> (&'a [i64], u64) {
        match self.locate(choice, objects) {
            Some((instance, word, _)) => (self.layout.universe(choice, instance), self.words[word]),
            None => (&[], 0),
        }
    }

    // ---------------------------------------------------------------- terms and literals

    pub fn term_range(&self, term: &Term, b: &Binding) -> Range {
        match term {
            Term::Const(c) => Range { min: *c, max: *c },
            Term::Property { property, args } => {
                let v = self.layout.int_property(*property, &b.args(args));
                Range { min: v, max: v }
            }
            Term::Choice(inst) => {
                let objects = b.args(inst.args);
                match self.model().choices[inst.choice as usize].kind {
                    ChoiceKind::Counter(_) => self.counter(inst.choice, &objects),
                    _ => {
                        let (universe, mask) = self.integer_values(inst.choice, &objects);
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
                }
            }
        }
    }

    pub fn status(&self, literal: &Literal, b: &Binding) -> Status {
        match literal {
            Literal::Is { instance, values } => {
                let mask = self.mask_of(instance, b);
                if mask & !values == 0 {
                    Status::True
                } else if mask & values == 0 {
                    Status::False
                } else {
                    Status::Unknown
                }
            }
            Literal::Same { lhs, rhs, equal } => {
                let l = self.mask_of(lhs, b);
                let r = self.mask_of(rhs, b);
                let same = bit_count(l) == 1 && l == r;
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
    fn enforce(&mut self, literal: &Literal, b: &Binding) -> Flow {
        match literal {
            Literal::Is { instance, values } => {
                self.restrict(instance.choice, &b.args(instance.args), *values)
            }
            Literal::Same { lhs, rhs, equal } => {
                let (lo, ro) = (b.args(lhs.args), b.args(rhs.args));
                let (l, r) = (self.mask(lhs.choice, &lo), self.mask(rhs.choice, &ro));
                if *equal {
                    self.restrict(lhs.choice, &lo, r)?;
                    self.restrict(rhs.choice, &ro, l)
                } else {
                    if bit_count(l) == 1 {
                        self.restrict(rhs.choice, &ro, !l)?;
                    }
                    if bit_count(r) == 1 {
                        self.restrict(lhs.choice, &lo, !r)?;
                    }
                    Ok(())
                }
            }
            Literal::Compare { lhs, op, rhs } => self.enforce_compare(lhs, *op, rhs, b),
            Literal::Property { .. } => Ok(()),
        }
    }

    /// Makes an `is` literal fail (for counter conditions forced false).
    fn enforce_not(&mut self, literal: &Literal, b: &Binding) -> Flow {
        match literal {
            Literal::Is { instance, values } => {
                self.restrict(instance.choice, &b.args(instance.args), !values)
            }
            _ => Ok(()),
        }
    }

    fn enforce_compare(&mut self, lhs: &Term, op: CompareOp, rhs: &Term, b: &Binding) -> Flow {
        let l = self.term_range(lhs, b);
        let r = self.term_range(rhs, b);
        let (lhs_bounds, rhs_bounds) = match op {
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
                    let (lo, ro) = (b.args(li.args), b.args(ri.args));
                    let (lu, lm) = self.integer_values(li.choice, &lo);
                    let (ru, rm) = self.integer_values(ri.choice, &ro);
                    let keep = |u: &[i64], m: u64, other: &[i64], om: u64| -> u64 {
                        let mut out = 0;
                        for (i, v) in u.iter().enumerate() {
                            if m & (1 << i) != 0
                                && other
                                    .iter()
                                    .enumerate()
                                    .any(|(j, w)| om & (1 << j) != 0 && w == v)
                            {
                                out |= 1 << i;
                            }
                        }
                        out
                    };
                    let (lk, rk) = (keep(lu, lm, ru, rm), keep(ru, rm, lu, lm));
                    self.restrict(li.choice, &lo, lk)?;
                    self.restrict(ri.choice, &ro, rk)?;
                }
            }
        }
        Ok(())
    }

    /// Restricts a term to `[lo, hi]`.
    fn restrict_term(&mut self, term: &Term, lo: i64, hi: i64, b: &Binding) -> Flow {
        match term {
            Term::Choice(inst) => {
                let objects = b.args(inst.args);
                match &self.model().choices[inst.choice as usize].kind {
                    ChoiceKind::Counter(_) => self.restrict_counter(inst.choice, &objects, lo, hi),
                    _ => {
                        let (universe, _) = self.integer_values(inst.choice, &objects);
                        let mut allowed = 0u64;
                        for (i, v) in universe.iter().enumerate() {
                            if (lo..=hi).contains(v) {
                                allowed |= 1 << i;
                            }
                        }
                        self.restrict(inst.choice, &objects, allowed)
                    }
                }
            }
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
        let Term::Choice(inst) = term else {
            return Ok(());
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

    // ---------------------------------------------------------------- bit planes

    /// Mirrors the mask of a triangle instance into its choice's planes.
    fn write_planes(&mut self, choice: u16, instance: usize, mask: u64) {
        let shape = &self.layout.shapes[choice as usize];
        let Some(planes) = shape.planes else { return };
        let (low, high) = self.layout.triangle_positions(instance);
        let inverse = match self.model().choices[choice as usize].symmetry {
            Symmetry::Antisymmetric { inverse } => Some(inverse),
            _ => None,
        };
        for v in 0..planes.values {
            let on = mask & (1 << v) != 0;
            let back = inverse.map_or(v, |inverse| {
                inverse.get(v).copied().unwrap_or(v as u8) as usize
            });
            let forward_word = planes.base + low * planes.values + v;
            let backward_word = planes.base + high * planes.values + back;
            if on {
                self.words[forward_word] |= 1 << high;
                self.words[backward_word] |= 1 << low;
            } else {
                self.words[forward_word] &= !(1 << high);
                self.words[backward_word] &= !(1 << low);
            }
        }
    }

    /// Recomputes every plane from the masks.
    fn rebuild_planes(&mut self) {
        let layout = self.layout;
        for (c, shape) in layout.shapes.iter().enumerate() {
            let Some(planes) = shape.planes else { continue };
            let n = layout.plain_objects(planes.set).len();
            self.words[planes.base..planes.base + n * planes.values].fill(0);
            for instance in 0..shape.count {
                let mask = self.words[shape.base + instance];
                self.write_planes(c as u16, instance, mask);
            }
        }
    }

    /// Filters every instance of `constraint` that extends `b` by one
    /// variable, all at once over bit planes. `None` when the clause does
    /// not have that shape (then the caller enumerates).
    fn vector_filter(&mut self, constraint: u16, b: &Binding) -> Option<Flow> {
        let layout = self.layout;
        let def = &self.model().constraints[constraint as usize];
        let mut free = None;
        for (i, var) in def.vars.iter().enumerate() {
            if !b.is_bound(i as Var) {
                if free.is_some() {
                    return None;
                }
                free = Some(i);
            } else if !layout.is_plain_root[var.set as usize] {
                return None;
            }
        }
        let z = free?;
        let set = def.vars[z].set;
        if !layout.is_plain_root[set as usize] {
            return None;
        }
        let objects = layout.plain_objects(set);
        let n = objects.len();
        if n > 64 {
            return None;
        }
        // Positions z may take: objects distinct from the bound ones.
        let mut valid: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let root = layout.roots[set as usize];
        for (i, var) in def.vars.iter().enumerate() {
            if i != z && layout.roots[var.set as usize] == root {
                if let Some(p) = layout.position(set, b.objects[i]) {
                    valid &= !(1u64 << p);
                }
            }
        }
        // Per literal: where it is certainly false; any certainly true
        // position is satisfied.
        let mut sat = 0u64;
        let mut all_false = valid;
        // Constraints have few literals; longer ones take the slow path.
        let mut falses = [0u64; 16];
        if def.literals.len() > falses.len() {
            return None;
        }
        for (index, literal) in def.literals.iter().enumerate() {
            let (t, f) = match self.row_status(literal, b, z)? {
                RowStatus::Constant(Status::True) => return Some(Ok(())),
                RowStatus::Constant(Status::False) => (0, valid),
                RowStatus::Constant(Status::Unknown) => (0, 0),
                RowStatus::Row { t, f } => (t & valid, f & valid),
            };
            sat |= t;
            all_false &= f;
            falses[index] = f;
        }
        let falses = &falses[..def.literals.len()];
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
        let mut units = 0u64;
        for k in 0..falses.len() {
            let mut unit = open & !falses[k];
            for (j, &other) in falses.iter().enumerate() {
                if j != k {
                    unit &= other;
                }
            }
            units |= unit;
        }
        while units != 0 {
            let p = units.trailing_zeros() as usize;
            units &= units - 1;
            let mut with_z = *b;
            with_z.bind(z as Var, objects[p]);
            if let Err(error) = self.filter(constraint, &with_z) {
                return Some(Err(error));
            }
        }
        Some(Ok(()))
    }

    /// The status of a literal for every value of the free variable `z`, or
    /// `None` if it cannot be read from planes.
    fn row_status(&self, literal: &Literal, b: &Binding, z: usize) -> Option<RowStatus> {
        let z = z as Var;
        let mentions = |args: &[Var]| args.contains(&z);
        match literal {
            Literal::Is { instance, .. } if !mentions(instance.args) => {
                Some(RowStatus::Constant(self.status(literal, b)))
            }
            Literal::Is { instance, values } => {
                let (has_in, has_out) = self.row_masks(instance, *values, b, z)?;
                Some(RowStatus::Row {
                    t: !has_out,
                    f: !has_in,
                })
            }
            Literal::Same { lhs, rhs, equal } => {
                let (fixed, row) = match (mentions(lhs.args), mentions(rhs.args)) {
                    (false, false) => return Some(RowStatus::Constant(self.status(literal, b))),
                    (false, true) => (lhs, rhs),
                    (true, false) => (rhs, lhs),
                    (true, true) => return self.row_same(lhs, rhs, *equal, b, z),
                };
                if fixed.choice != row.choice {
                    return None;
                }
                let m = self.mask_of(fixed, b);
                let (has_in, has_out) = self.row_masks(row, m, b, z)?;
                // Equal: certain when both are the same single value;
                // impossible when they share no value.
                let same = if m.count_ones() == 1 { !has_out } else { 0 };
                Some(if *equal {
                    RowStatus::Row {
                        t: same,
                        f: !has_in,
                    }
                } else {
                    RowStatus::Row {
                        t: !has_in,
                        f: same,
                    }
                })
            }
            Literal::Property { args, .. } if !mentions(args) => {
                Some(RowStatus::Constant(self.status(literal, b)))
            }
            Literal::Property { .. } => None,
            Literal::Compare { lhs, rhs, .. } => {
                let reads_z = |t: &Term| match t {
                    Term::Const(_) => false,
                    Term::Property { args, .. } => mentions(args),
                    Term::Choice(inst) => mentions(inst.args),
                };
                if reads_z(lhs) || reads_z(rhs) {
                    None
                } else {
                    Some(RowStatus::Constant(self.status(literal, b)))
                }
            }
        }
    }

    /// The planes of an instance `c(u, z)` or `c(z, u)` of a choice with
    /// planes, as seen in that order: `(first word, values, inverse)`
    /// where value `v` of the instance is the plane word `first +
    /// inverse(v)` (`inverse` is `None` when reading in storage order).
    fn row_planes(
        &self,
        instance: &InstanceRef,
        b: &Binding,
        z: Var,
    ) -> Option<(usize, usize, Option<&'static [u8]>)> {
        let shape = &self.layout.shapes[instance.choice as usize];
        let planes = shape.planes?;
        let [x, y] = instance.args else { return None };
        let (u, forward) = match (*x == z, *y == z) {
            (false, true) => (*x, true),
            (true, false) => (*y, false),
            _ => return None,
        };
        let row = self.layout.position(planes.set, b.objects[u as usize])?;
        // `c(z, u)` takes v iff `c(u, z)` takes the inverse of v.
        let inverse = match (
            forward,
            self.model().choices[instance.choice as usize].symmetry,
        ) {
            (false, Symmetry::Antisymmetric { inverse }) => Some(inverse),
            _ => None,
        };
        Some((planes.base + row * planes.values, planes.values, inverse))
    }

    /// For an instance `c(u, z)` or `c(z, u)` of a choice with planes: the
    /// positions `z` whose domain meets `values`, and those whose domain
    /// has a value outside `values`.
    fn row_masks(
        &self,
        instance: &InstanceRef,
        values: u64,
        b: &Binding,
        z: Var,
    ) -> Option<(u64, u64)> {
        let (first, count, inverse) = self.row_planes(instance, b, z)?;
        // In storage order, the values are their images by the inverse.
        let stored = match inverse {
            Some(_) => self.layout.map_inverse(instance.choice, values),
            None => values,
        };
        let (mut has_in, mut has_out) = (0u64, 0u64);
        for (v, &plane) in self.words[first..first + count].iter().enumerate() {
            // All ones when `v` is in `stored`, without a branch.
            let inside = 0u64.wrapping_sub((stored >> v) & 1);
            has_in |= plane & inside;
            has_out |= plane & !inside;
        }
        Some((has_in, has_out))
    }

    /// `c(u, z) == c(w, z)` (or `!=`, in any orientation) for every `z`,
    /// both instances read from planes.
    fn row_same(
        &self,
        lhs: &InstanceRef,
        rhs: &InstanceRef,
        equal: bool,
        b: &Binding,
        z: Var,
    ) -> Option<RowStatus> {
        if lhs.choice != rhs.choice {
            return None;
        }
        let (l_first, count, l_inverse) = self.row_planes(lhs, b, z)?;
        let (r_first, _, r_inverse) = self.row_planes(rhs, b, z)?;
        let stored = |inverse: Option<&[u8]>, v: usize| {
            inverse.map_or(v, |inv| inv.get(v).copied().unwrap_or(v as u8) as usize)
        };
        // Positions where the domains share a value, where each has at
        // least one value, and where each has at least two.
        let (mut common, mut l_one, mut l_two, mut r_one, mut r_two) = (0u64, 0, 0, 0, 0);
        for v in 0..count {
            let l = self.words[l_first + stored(l_inverse, v)];
            let r = self.words[r_first + stored(r_inverse, v)];
            common |= l & r;
            l_two |= l_one & l;
            l_one |= l;
            r_two |= r_one & r;
            r_one |= r;
        }
        // Both a single value, and a shared one: the same value.
        let same = common & l_one & !l_two & r_one & !r_two;
        Some(if equal {
            RowStatus::Row {
                t: same,
                f: !common,
            }
        } else {
            RowStatus::Row {
                t: !common,
                f: same,
            }
        })
    }

    // ---------------------------------------------------------------- constraints

    /// Runs one constraint instance: fails if no literal can hold, enforces
    /// the last one that can.
    fn filter(&mut self, constraint: u16, b: &Binding) -> Flow {
        let def = &self.model().constraints[constraint as usize];
        let mut unknown = None;
        for literal in def.literals {
            match self.status(literal, b) {
                Status::True => return Ok(()),
                Status::False => {}
                Status::Unknown if unknown.is_some() => return Ok(()),
                Status::Unknown => unknown = Some(literal),
            }
        }
        let outer = std::mem::replace(
            &mut self.cause,
            Reason {
                constraint,
                binding: *b,
            },
        );
        let enforced = match unknown {
            Some(literal) => self.enforce(literal, b),
            None => Ok(()),
        };
        self.cause = outer;
        match unknown {
            Some(_) => enforced.map_err(|mut dead_end| {
                // Name the constraint whose enforcement emptied a domain.
                if dead_end.constraint.is_none() {
                    let context = self.dead(
                        Some(constraint),
                        b,
                        def.vars,
                        format!("constraint {} fails: {}", def.origin, def.description),
                    );
                    dead_end.message = format!("{}: {}", context.message, dead_end.message);
                    dead_end.constraint = context.constraint;
                    dead_end.bindings = context.bindings;
                }
                dead_end
            }),
            None => Err(self.dead(
                Some(constraint),
                b,
                def.vars,
                format!("constraint {} fails: {}", def.origin, def.description),
            )),
        }
    }

    pub fn dead(
        &self,
        constraint: Option<u16>,
        b: &Binding,
        vars: &[VarDef],
        message: String,
    ) -> DeadEnd {
        let bindings: Vec<(String, ObjectId)> = vars
            .iter()
            .enumerate()
            .filter(|(i, _)| b.is_bound(*i as Var))
            .map(|(i, v)| (format!("${}", v.name), b.objects[i]))
            .collect();
        let shown: Vec<String> = bindings.iter().map(|(n, o)| format!("{n} = {o}")).collect();
        let message = if shown.is_empty() {
            message
        } else {
            format!("{message} (with {})", shown.join(", "))
        };
        DeadEnd {
            constraint,
            bindings,
            emptied: None,
            message,
        }
    }

    // ---------------------------------------------------------------- enumeration

    /// Calls `f` for every completion of `b` over `vars`: unbound variables
    /// range over their sets, bound ones are checked for membership, and
    /// objects of one root set are pairwise distinct.
    pub fn for_each(
        &mut self,
        vars: &'static [VarDef],
        b: &mut Binding,
        f: &mut dyn FnMut(&mut Self, &Binding) -> Flow,
    ) -> Flow {
        self.for_each_from(vars, b, 0, f)
    }

    fn for_each_from(
        &mut self,
        vars: &'static [VarDef],
        b: &mut Binding,
        i: usize,
        f: &mut dyn FnMut(&mut Self, &Binding) -> Flow,
    ) -> Flow {
        if i == vars.len() {
            return f(self, b);
        }
        let var = &vars[i];
        let layout = self.layout;
        let args = if var.args.is_empty() {
            ArgBuf::EMPTY
        } else {
            b.args(var.args)
        };
        let root = layout.roots[var.set as usize];
        let distinct = |b: &Binding, object: ObjectId| {
            (0..vars.len()).all(|j| {
                j == i
                    || !b.is_bound(j as Var)
                    || layout.roots[vars[j].set as usize] != root
                    || b.objects[j] != object
            })
        };
        if b.is_bound(i as Var) {
            let object = b.objects[i];
            // Objects bound from an instance belong to their root set.
            if (layout.is_plain_root[var.set as usize] || layout.contains(var.set, &args, object))
                && (!layout.is_quotient[var.set as usize] || self.is_member(var.set, &args, object))
                && distinct(b, object)
            {
                return self.for_each_from(vars, b, i + 1, f);
            }
            return Ok(());
        }
        for &object in layout.set_objects(var.set, &args) {
            if !distinct(b, object)
                || (layout.is_quotient[var.set as usize] && !self.is_member(var.set, &args, object))
            {
                continue;
            }
            let mut inner = *b;
            inner.bind(i as Var, object);
            self.for_each_from(vars, &mut inner, i + 1, f)?;
        }
        Ok(())
    }

    /// Quotient sets hold the objects whose flag is certainly TRUE.
    fn is_member(&self, set: u16, args: &[ObjectId], object: ObjectId) -> bool {
        if !self.layout.is_quotient[set as usize] {
            return true;
        }
        match &self.model().sets[set as usize].quotient {
            Some(quotient) => {
                let n = args.len();
                let mask = match self.layout.instance_by(quotient.flag, n + 1, |k| {
                    if k < n {
                        args[k]
                    } else {
                        object
                    }
                }) {
                    Some((instance, reversed)) => {
                        let shape = &self.layout.shapes[quotient.flag as usize];
                        let mask = self.words[shape.base + instance * shape.width];
                        if reversed {
                            self.layout.map_inverse(quotient.flag, mask)
                        } else {
                            mask
                        }
                    }
                    None => 0,
                };
                if self.possible_members {
                    mask & 1 != 0
                } else {
                    mask == 1
                }
            }
            None => true,
        }
    }

    /// The membership flags of the quotient-set variables `from..` of a
    /// binding, each as (flag choice, its objects).
    fn membership_flags(
        &self,
        vars: &[VarDef],
        from: usize,
        b: &Binding,
    ) -> Vec<(u16, Vec<ObjectId>)> {
        let model = self.model();
        (from..vars.len())
            .filter_map(|i| {
                let quotient = model.sets[vars[i].set as usize].quotient.as_ref()?;
                let mut objects: Vec<ObjectId> = b.args(vars[i].args).to_vec();
                objects.push(b.objects[i]);
                Some((quotient.flag, objects))
            })
            .collect()
    }

    // ---------------------------------------------------------------- counters

    /// The range of a counter instance from its inputs, and the
    /// contribution of each increment (for back-propagation).
    fn compute_counter(
        &mut self,
        choice: u16,
        params: &[ObjectId],
        contributions: Option<&mut Vec<(Binding, Range, Status, Range)>>,
    ) -> Range {
        let ChoiceKind::Counter(def) = &self.model().choices[choice as usize].kind else {
            return Range { min: 0, max: 0 };
        };
        let mut total = match def.op {
            CounterOp::Sum => Range { min: 0, max: 0 },
            CounterOp::Mul => Range { min: 1, max: 1 },
        };
        let mut collected = Vec::new();
        let want = contributions.is_some();
        let layout = self.layout;
        let tuples = layout
            .instance(choice, params)
            .and_then(|(instance, _)| layout.counter_tuples(choice, instance));
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
                if self.member_mask(quotient.flag, var, i, b) != 1 {
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
    fn update_counter(&mut self, choice: u16, params: &[ObjectId]) -> Flow {
        if self.locate(choice, params).is_none() || !self.layout.instance_exists(choice, params) {
            return Ok(());
        }
        let computed = self.compute_counter(choice, params, None);
        self.narrow_counter(choice, params, computed.min, computed.max, computed)
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

    /// Makes a counter lie in `[lo, hi]`.
    fn restrict_counter(&mut self, choice: u16, params: &[ObjectId], lo: i64, hi: i64) -> Flow {
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
        let (old_min, old_max) = (self.words[word] as i64, self.words[word + 1] as i64);
        let (min, max) = (
            old_min.max(lo).max(computed.min),
            old_max.min(hi).min(computed.max),
        );
        if min > max {
            let name = self.model().choices[choice as usize].name;
            return Err(DeadEnd {
                constraint: None,
                bindings: Vec::new(),
                emptied: Some(InstanceId {
                    choice,
                    objects: params.to_vec(),
                }),
                message: format!(
                    "counter {name}{params:?} must lie in [{}, {}] but its inputs give [{}, {}]",
                    old_min.max(lo),
                    old_max.min(hi),
                    computed.min,
                    computed.max
                ),
            });
        }
        if (min, max) != (old_min, old_max) {
            self.words[word] = min as u64;
            self.words[word + 1] = max as u64;
            self.enqueue(choice, instance, old_min as u64);
        }
        if (min, max) != (computed.min, computed.max) {
            self.back_propagate(choice, params, min, max)?;
        }
        Ok(())
    }

    /// Forces the increments of a counter that must lie in `[min, max]`.
    fn back_propagate(&mut self, choice: u16, params: &[ObjectId], min: i64, max: i64) -> Flow {
        let ChoiceKind::Counter(def) = &self.model().choices[choice as usize].kind else {
            return Ok(());
        };
        let mut parts = Vec::new();
        let total = self.compute_counter(choice, params, Some(&mut parts));
        for (b, c, status, inc) in parts {
            // What this increment may contribute, the others being as loose
            // as they are now.
            let allowed = match def.op {
                CounterOp::Sum => Range {
                    min: min.saturating_sub(total.max.saturating_sub(c.max)),
                    max: max.saturating_sub(total.min.saturating_sub(c.min)),
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
                            self.restrict(flag, &objects, 1)?;
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
                1 => {}
                mask if mask & 1 == 0 => return Ok(()),
                _ => {
                    count += 1;
                    open = Some(Open::Member(flag, objects));
                }
            }
        }
        match (count, open) {
            (1, Some(Open::Literal(literal))) => self.enforce_not(literal, b),
            // Bit 1 of a membership flag is FALSE.
            (1, Some(Open::Member(flag, objects))) => self.restrict(flag, &objects, 2),
            (0, _) => Err(self.dead(
                None,
                b,
                &[],
                "a counter increment must both count and not count".into(),
            )),
            _ => Ok(()),
        }
    }

    // ---------------------------------------------------------------- the queue

    /// The instances of callback triggers whose condition is certain: each
    /// as (trigger, objects of its variables).
    pub fn certain_triggers(&mut self) -> Vec<(u16, Vec<ObjectId>)> {
        let model = self.model();
        let mut out = Vec::new();
        for (t, trigger) in model.triggers.iter().enumerate() {
            if !matches!(trigger.action, TriggerAction::Callback { .. }) {
                continue;
            }
            let mut b = Binding::empty();
            let _ = self.for_each(trigger.vars, &mut b, &mut |p, b| {
                if trigger
                    .condition
                    .iter()
                    .all(|l| p.status(l, b) == Status::True)
                {
                    out.push((t as u16, b.objects[..trigger.vars.len()].to_vec()));
                }
                Ok(())
            });
        }
        out
    }

    /// Runs every constraint instance once, then the queue.
    pub fn initialize(&mut self) -> Flow {
        self.rebuild_planes();
        let model = self.model();
        for (c, def) in model.constraints.iter().enumerate() {
            let mut b = Binding::empty();
            self.for_each(def.vars, &mut b, &mut |p, b| p.filter(c as u16, b))?;
        }
        self.run()
    }

    /// Propagates until no domain changes.
    pub fn run(&mut self) -> Flow {
        let mut objects = Vec::with_capacity(4);
        while let Some((choice, instance, old)) = self.queue.pop() {
            let key = self.queue_key(choice, instance);
            self.queued.set(key, false);
            self.layout
                .instance_objects_into(choice, instance, &mut objects);
            self.on_change(choice, &objects, old)?;
        }
        Ok(())
    }

    /// `old` is the instance's word when it was last taken from the queue
    /// (or before propagation started).
    fn on_change(&mut self, choice: u16, objects: &[ObjectId], old: u64) -> Flow {
        let model = self.model();
        let symmetric =
            model.choices[choice as usize].symmetry != Symmetry::None && objects.len() == 2;
        let reversed = [
            objects.get(1).copied().unwrap_or(0),
            objects.first().copied().unwrap_or(0),
        ];
        let orientations: &[&[ObjectId]] = if symmetric {
            &[objects, &reversed]
        } else {
            &[objects]
        };
        // The changed instance's mask as seen from each orientation, read
        // once: the `is` literals on it are tested against these. Should a
        // clause below restrict this instance again, it is queued again.
        let is_enum = matches!(model.choices[choice as usize].kind, ChoiceKind::Enum { .. });
        let masks = [
            self.mask(choice, orientations[0]),
            orientations.get(1).map_or(0, |o| self.mask(choice, o)),
        ];
        for clause in model
            .clauses_by_choice
            .get(choice as usize)
            .copied()
            .unwrap_or(&[])
        {
            let def = &model.constraints[clause.constraint as usize];
            let literal = &def.literals[clause.literal as usize];
            for instance in literal_instances(literal).into_iter().flatten() {
                if instance.choice != choice {
                    continue;
                }
                for (orientation, objects) in orientations.iter().enumerate() {
                    // An `is` literal that did not become false cannot make
                    // any instance of its constraint fail or unit: the other
                    // literals did not change, and each literal that became
                    // false is visited through its own clause.
                    if let (Literal::Is { values, .. }, true) = (literal, is_enum) {
                        if masks[orientation] & values != 0 {
                            continue;
                        }
                    }
                    let mut b = Binding::empty();
                    if instance
                        .args
                        .iter()
                        .zip(objects.iter())
                        .all(|(&v, &o)| b.bind(v, o))
                    {
                        if let Some(flow) = self.vector_filter(clause.constraint, &b) {
                            flow?;
                            continue;
                        }
                        self.for_each(def.vars, &mut b, &mut |p, b| {
                            p.filter(clause.constraint, b)
                        })?;
                    }
                }
            }
        }
        for &counter in model
            .counters_by_choice
            .get(choice as usize)
            .copied()
            .unwrap_or(&[])
        {
            let ChoiceKind::Counter(def) = &model.choices[counter as usize].kind else {
                continue;
            };
            let params = model.choices[counter as usize].params.len();
            // Each read with, for an `is` literal, its values.
            let reads = def
                .condition
                .iter()
                .flat_map(|l| {
                    let values = match l {
                        Literal::Is { values, .. } => Some(*values),
                        _ => None,
                    };
                    literal_instances(l)
                        .into_iter()
                        .flatten()
                        .map(move |i| (i, values))
                })
                .chain(match &def.increment {
                    Term::Choice(inst) => Some((inst, None)),
                    _ => None,
                });
            for (instance, values) in reads.filter(|(i, _)| i.choice == choice) {
                for (orientation, objects) in orientations.iter().enumerate() {
                    // A counter reads an `is` literal only through its
                    // status: if that did not change, neither did the
                    // counter's inputs (statuses only become certain, so
                    // none changed in between either).
                    if let (Some(values), true) = (values, is_enum) {
                        let before = if orientation == 0 {
                            old
                        } else {
                            self.layout.map_inverse(choice, old)
                        };
                        if is_status(before, values) == is_status(masks[orientation], values) {
                            continue;
                        }
                    }
                    let mut b = Binding::empty();
                    if instance
                        .args
                        .iter()
                        .zip(objects.iter())
                        .all(|(&v, &o)| b.bind(v, o))
                    {
                        // Bound quantified variables only select the
                        // counter instances: clear them, keep parameters.
                        let read = b.bound;
                        b.bound &= (1u32 << params) - 1;
                        self.for_each(&def.vars[..params], &mut b, &mut |p, b| {
                            // A property that fails for this increment
                            // keeps it from ever counting.
                            if never_counts(p.layout, def, read | b.bound, b) {
                                return Ok(());
                            }
                            p.update_counter(counter, &b.args(&PARAM_VARS[..params]))
                        })?;
                    }
                }
            }
        }
        self.on_membership_change(choice, objects)
    }

    /// A quotient flag changed: constraints and counters quantified over the
    /// quotient set see a new member.
    fn on_membership_change(&mut self, choice: u16, objects: &[ObjectId]) -> Flow {
        let model = self.model();
        let Some(set) = model
            .sets
            .iter()
            .position(|s| s.quotient.as_ref().is_some_and(|q| q.flag == choice))
        else {
            return Ok(());
        };
        // Constraints hold for certain members only; counters count
        // possible ones, so they follow every change.
        let certain = self.mask(choice, objects) == 1;
        let set = set as u16;
        let (args, member) = objects.split_at(objects.len() - 1);
        let bind_member = |vars: &[VarDef], v: usize, b: &mut Binding| -> bool {
            vars[v].args.iter().zip(args).all(|(&a, &o)| b.bind(a, o))
                && b.bind(v as Var, member[0])
        };
        for (c, def) in model.constraints.iter().enumerate().filter(|_| certain) {
            for v in (0..def.vars.len()).filter(|&v| def.vars[v].set == set) {
                let mut b = Binding::empty();
                if bind_member(def.vars, v, &mut b) {
                    self.for_each(def.vars, &mut b, &mut |p, b| p.filter(c as u16, b))?;
                }
            }
        }
        for (k, choice_def) in model.choices.iter().enumerate() {
            let ChoiceKind::Counter(def) = &choice_def.kind else {
                continue;
            };
            let params = choice_def.params.len();
            for v in (0..def.vars.len()).filter(|&v| def.vars[v].set == set) {
                let mut b = Binding::empty();
                if bind_member(def.vars, v, &mut b) {
                    b.bound &= (1u32 << params) - 1;
                    self.for_each(&def.vars[..params], &mut b, &mut |p, b| {
                        p.update_counter(k as u16, &b.args(&PARAM_VARS[..params]))
                    })?;
                }
            }
        }
        Ok(())
    }
}

/// The value mask of an enum or integer instance in the order of `objects`.
pub(crate) fn read_mask(layout: &Layout, words: &[u64], choice: u16, objects: &[ObjectId]) -> u64 {
    let Some((instance, reversed)) = layout.instance(choice, objects) else {
        return 0;
    };
    let shape = &layout.shapes[choice as usize];
    let mask = words[shape.base + instance * shape.width];
    if reversed {
        layout.map_inverse(choice, mask)
    } else {
        mask
    }
}

/// The range of a counter instance.
pub(crate) fn read_counter(
    layout: &Layout,
    words: &[u64],
    choice: u16,
    objects: &[ObjectId],
) -> Range {
    match layout.instance(choice, objects) {
        Some((instance, _)) => {
            let word = layout.shapes[choice as usize].base + instance * 2;
            Range {
                min: words[word] as i64,
                max: words[word + 1] as i64,
            }
        }
        None => Range { min: 0, max: 0 },
    }
}

/// Variables `0..n`, the parameters of a counter.
pub(crate) const PARAM_VARS: [Var; MAX_VARS] =
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// The choice instances a literal reads.
pub(crate) fn literal_instances(literal: &Literal) -> [Option<&InstanceRef>; 2] {
    fn term(t: &Term) -> Option<&InstanceRef> {
        match t {
            Term::Choice(inst) => Some(inst),
            _ => None,
        }
    }
    match literal {
        Literal::Is { instance, .. } => [Some(instance), None],
        Literal::Same { lhs, rhs, .. } => [Some(lhs), Some(rhs)],
        Literal::Compare { lhs, rhs, .. } => [term(lhs), term(rhs)],
        Literal::Property { .. } => [None, None],
    }
}

/// Whether a property literal of a counter's condition fails for the
/// objects of `b` (only literals whose variables are all in `bound` are
/// read): the increment at `b` never counts, whatever the domains.
fn never_counts(layout: &Layout, def: &CounterDef, bound: u32, b: &Binding) -> bool {
    def.condition.iter().any(|literal| match literal {
        Literal::Property {
            property,
            args,
            negated,
        } => {
            args.iter().all(|&v| bound & (1 << v) != 0)
                && layout.bool_property_by(*property, args.len(), |i| b.objects[args[i] as usize])
                    == *negated
        }
        _ => false,
    })
}

/// The status of an `is` literal over `values` for an instance whose
/// domain is `mask`.
#[inline]
fn is_status(mask: u64, values: u64) -> Status {
    if mask & !values == 0 {
        Status::True
    } else if mask & values == 0 {
        Status::False
    } else {
        Status::Unknown
    }
}

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
