//! Propagation to a fixpoint: a work queue of changed choice instances;
//! for each, the constraint literals and counters that read it are run on
//! the tuples of objects the change concerns.

use fixedbitset::FixedBitSet;

use crate::action::{DeadEnd, InstanceId};
use crate::backbone::ObjectId;
use crate::layout::{Layout, Planes, Shape, MAX_VARS};
use crate::model::*;
use crate::plan::{
    Checks, CounterPlan, CounterRead, Fallback, FreeParam, Hold, ReadScreen, RowLiteral,
    ScreenPlan, Step, VectorPlan, Visit, ZLiteral, MAX_ROW_LITERALS,
};
use crate::slots::{
    PairRow, RowOrs, SlotArg, SlotEnforce, SlotInstance, SlotLiteral, SlotPlan, SlotsAt,
    ROW_ORS_VALUES,
};

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
    pub fn bind(&mut self, var: Var, object: ObjectId) -> bool {
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
    /// Counts the writes to domains and counters, so that statuses read
    /// from the vector can be reused while it is unchanged.
    writes: u64,
    /// The two rows of the changed instance being visited, as
    /// [`RowOrs`] (low row first).
    row_ors: Box<RowOrs>,
    /// After the first visit of a mirrored pair that did not write the
    /// changed instance: its constraint, the instance's word and its value
    /// (see [`Propagator::mirrored_visit`]).
    mirror: Option<(u16, usize, u64)>,
}

/// An instance taken from the queue, as [`Propagator::run`] hands it to
/// [`Propagator::on_change`].
struct Change<'o, 'a> {
    choice: u16,
    instance: usize,
    /// The choice's shape (looked up once per change).
    shape: &'a Shape,
    /// The instance's objects, and its first two in reverse (the second
    /// orientation of a symmetric choice).
    objects: &'o [ObjectId],
    reversed: [ObjectId; 2],
    /// A triangle instance's positions, as `Layout::triangle_positions`
    /// gives them.
    positions: Option<(usize, usize)>,
    /// The instance's word when it was last taken from the queue (or
    /// before propagation started).
    old: u64,
}

/// A propagator's buffers, kept by a candidate between decisions so that
/// each `apply` does not allocate them again (see
/// [`Propagator::with_scratch`]). Not cloned with the candidate.
#[derive(Default)]
pub(crate) struct Scratch {
    queue: Vec<(u16, usize, u64)>,
    queued: FixedBitSet,
    row_ors: Option<Box<RowOrs>>,
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

/// Whether a mask has exactly one value (`count_ones() == 1` without a
/// population count).
#[inline]
pub(crate) fn is_single(mask: u64) -> bool {
    mask != 0 && mask & (mask - 1) == 0
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

/// The binding of a counter instance's parameters (its first variables).
#[inline]
fn param_binding(params: &[ObjectId]) -> Binding {
    let mut b = Binding::empty();
    b.objects[..params.len()].copy_from_slice(params);
    b.bound = (1u32 << params.len()) - 1;
    b
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
        Propagator::explained(layout, words, None)
    }

    /// A propagator that records, per instance and value, the constraint
    /// that removed it, when given `reasons`.
    pub fn explained(
        layout: &'a Layout,
        words: &'a mut [u64],
        reasons: Option<&'a mut [Reason]>,
    ) -> Self {
        Propagator::with_scratch(layout, words, reasons, Scratch::default())
    }

    /// [`Propagator::explained`] with the buffers of `scratch` (an empty
    /// queue, as [`Propagator::into_scratch`] leaves it). Inlined, as is
    /// `into_scratch`: a decision hands the buffers over twice.
    #[inline(always)]
    pub fn with_scratch(
        layout: &'a Layout,
        words: &'a mut [u64],
        reasons: Option<&'a mut [Reason]>,
        scratch: Scratch,
    ) -> Self {
        let Scratch {
            mut queue,
            mut queued,
            row_ors,
        } = scratch;
        if queue.capacity() == 0 {
            queue.reserve(64);
        }
        if queued.len() < layout.instances {
            queued.grow(layout.instances);
        }
        // The tables describe another vector, or another moment of it.
        let row_ors = match row_ors {
            Some(mut row_ors) => {
                row_ors.clear();
                row_ors
            }
            None => Box::new(RowOrs::new()),
        };
        Propagator {
            layout,
            words,
            queue,
            queued,
            possible_members: false,
            reasons,
            cause: NO_REASON,
            writes: 0,
            row_ors,
            mirror: None,
        }
    }

    /// The buffers, for the next propagation on the same candidate: the
    /// queue left by a dead end is emptied.
    #[inline]
    pub fn into_scratch(mut self) -> Scratch {
        if !self.queue.is_empty() {
            self.queue.clear();
            self.queued.clear();
        }
        Scratch {
            queue: self.queue,
            queued: self.queued,
            row_ors: Some(self.row_ors),
        }
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
    /// without gathering its objects (inlined: `status` reads most `is`
    /// literals through it).
    #[inline(always)]
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

    /// [`Propagator::locate`] of the instance `inst` under `b`, without
    /// gathering its objects: the generic paths look an instance up once
    /// and then read and restrict it by index.
    #[inline(always)]
    fn locate_ref(&self, inst: &InstanceRef, b: &Binding) -> Option<(usize, usize, bool)> {
        let args = inst.args;
        let (instance, reversed) = self
            .layout
            .instance_by(inst.choice, args.len(), |i| b.objects[args[i] as usize])?;
        let shape = &self.layout.shapes[inst.choice as usize];
        Some((instance, shape.base + instance * shape.width, reversed))
    }

    /// The universe and mask of the integer instance `inst` under `b`
    /// (empty when it does not exist), with where it was found.
    #[inline(always)]
    fn integer_values_of(
        &self,
        inst: &InstanceRef,
        b: &Binding,
    ) -> (&'a [i64], u64, Option<(usize, bool)>) {
        match self.locate_ref(inst, b) {
            Some((instance, word, reversed)) => (
                self.layout.universe(inst.choice, instance),
                self.words[word],
                Some((instance, reversed)),
            ),
            None => (&[], 0, None),
        }
    }

    /// Restricts an enum or integer instance to `allowed` (in the order of
    /// `objects`); queues it if it changed.
    pub fn restrict(&mut self, choice: u16, objects: &[ObjectId], allowed: u64) -> Flow {
        let Some((instance, _, reversed)) = self.locate(choice, objects) else {
            return Ok(());
        };
        self.restrict_instance(choice, instance, reversed, allowed)
    }

    /// [`Propagator::restrict`] of an instance found already: `reversed`
    /// says whether `allowed` is in the other orientation.
    #[inline]
    pub(crate) fn restrict_instance(
        &mut self,
        choice: u16,
        instance: usize,
        reversed: bool,
        allowed: u64,
    ) -> Flow {
        let allowed = if reversed {
            self.layout.map_inverse(choice, allowed)
        } else {
            allowed
        };
        self.restrict_stored(choice, instance, None, allowed)
    }

    /// [`Propagator::restrict_instance`] with `allowed` in storage
    /// orientation, inlined where units are enforced in a loop
    /// (`pair_units`, which maps each literal's values once rather than
    /// once per unit): no call per unit. `positions`, where the caller
    /// knows them, are the triangle positions of an instance with planes.
    #[inline(always)]
    fn restrict_stored(
        &mut self,
        choice: u16,
        instance: usize,
        positions: Option<(usize, usize)>,
        allowed: u64,
    ) -> Flow {
        // The shape is looked up once, for the word, the planes and the
        // queue key (this is the end of every enforcement).
        let shape = &self.layout.shapes[choice as usize];
        let word = shape.base + instance * shape.width;
        let old = self.words[word];
        let new = old & allowed;
        if new == old {
            return Ok(());
        }
        self.words[word] = new;
        self.writes += 1;
        if let Some(planes) = &shape.planes {
            let positions = positions.unwrap_or_else(|| self.layout.triangle_positions(instance));
            self.clear_planes(planes, positions, old & !new);
        }
        if new == 0 {
            return Err(self.emptied(choice, instance));
        }
        if self.reasons.is_some() {
            self.keep_reasons(choice, instance, old & !new);
        }
        if !self.queued.put(shape.first_instance + instance) {
            self.queue.push((choice, instance, old));
        }
        Ok(())
    }

    /// The dead end of an instance left without values (out of line, as
    /// is [`Propagator::keep_reasons`]: `restrict_instance` is the hot
    /// path of every enforcement and stays small without them).
    #[cold]
    #[inline(never)]
    fn emptied(&self, choice: u16, instance: usize) -> DeadEnd {
        emptied_dead_end(
            self.model(),
            InstanceId {
                choice,
                objects: self.layout.instance_objects(choice, instance),
            },
        )
    }

    /// Each value removed keeps the constraint instance that removed it
    /// (only while explaining).
    #[inline(never)]
    fn keep_reasons(&mut self, choice: u16, instance: usize, mut removed: u64) {
        let key = self.layout.shapes[choice as usize].first_instance + instance;
        let cause = self.cause;
        if let Some(reasons) = self.reasons.as_deref_mut() {
            while removed != 0 {
                let bit = removed.trailing_zeros() as usize;
                removed &= removed - 1;
                if let Some(slot) = reasons.get_mut(key * VALUE_SLOTS + bit) {
                    *slot = cause;
                }
            }
        }
    }

    /// Queues a changed instance; `old` is its word before the change (for
    /// an instance already queued, the word from its first change since it
    /// was last taken from the queue is kept).
    #[inline]
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
                // As `counter`, the instance found by the binding.
                ChoiceKind::Counter(_) => match self.locate_ref(inst, b) {
                    Some((_, word, _)) => Range {
                        min: self.words[word] as i64,
                        max: self.words[word + 1] as i64,
                    },
                    None => Range { min: 0, max: 0 },
                },
                _ => {
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
            },
        }
    }

    pub fn status(&self, literal: &Literal, b: &Binding) -> Status {
        self.status_inline(literal, b)
    }

    /// [`Propagator::status`], inlined where clauses are filtered (most
    /// literals read there are certain, and the call cost as much).
    #[inline(always)]
    fn status_inline(&self, literal: &Literal, b: &Binding) -> Status {
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
    fn enforce(&mut self, literal: &Literal, b: &Binding) -> Flow {
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
    fn enforce_not(&mut self, literal: &Literal, b: &Binding) -> Flow {
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

    /// Restricts a term to `[lo, hi]`.
    fn restrict_term(&mut self, term: &Term, lo: i64, hi: i64, b: &Binding) -> Flow {
        match term {
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
        for v in 0..planes.values {
            let on = mask & (1 << v) != 0;
            let back = planes.inverse.map_or(v, |inverse| {
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

    /// Takes the values `removed` from the triangle instance at positions
    /// `(low, high)` out of its choice's `planes`.
    #[inline(always)]
    fn clear_planes(&mut self, planes: &Planes, (low, high): (usize, usize), removed: u64) {
        let mut rest = removed & planes.all;
        while rest != 0 {
            let v = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let back = planes.inverse.map_or(v, |inverse| {
                inverse.get(v).copied().unwrap_or(v as u8) as usize
            });
            self.words[planes.base + low * planes.values + v] &= !(1 << high);
            self.words[planes.base + high * planes.values + back] &= !(1 << low);
        }
        self.row_ors.changed([
            planes.base + low * planes.values,
            planes.base + high * planes.values,
        ]);
    }

    /// Recomputes every plane from the masks.
    pub fn rebuild_planes(&mut self) {
        self.row_ors.clear();
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

    /// Filters every instance of `constraint` that extends `b` by the free
    /// variable of `plan`, all at once over bit planes. `None` when a
    /// literal cannot be read from planes for these objects (then the
    /// caller enumerates).
    /// Literal `known_false`, if any, is false for `b` (it is not read).
    fn vector_filter(
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

    /// [`Propagator::vector_filter`] for a visit with a slot plan: the same
    /// filtering, in the same order, with rows found from the changed
    /// instance's positions.
    #[inline(always)]
    fn slot_filter(
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

    /// Whether enforcing every unit position of a slot plan's filter
    /// (`units`, none failing) would change nothing: at each, the one
    /// literal that can still hold (the one `falses`, the positions where
    /// each literal is false, leaves out) is an `==` whose two instances
    /// have equal domains already. `slot_units` would then read the same
    /// statuses (nothing is written in between), enforce nothing and write
    /// nothing, so it need not run. On the ordering space most units of
    /// `order($a, $c) == order($b, $c)` are of this kind.
    fn idle_units(&self, slots: &SlotPlan, at: &SlotsAt, units: u64, falses: &[u64]) -> bool {
        let [p0, p1] = at.positions;
        if units & (1 << p0 | 1 << p1) != 0 {
            // No instance over an object and itself: read one by one, as
            // `enforce_slot` would.
            return self.idle_units_at(slots, at, units, falses);
        }
        // All at once: the units whose one literal left is literal `index`
        // are idle where its two instances have the same domain, which
        // the planes tell for every position.
        let mut rest = units;
        for (index, f) in falses[..slots.literals.len().min(falses.len())]
            .iter()
            .enumerate()
        {
            let here = rest & !f;
            rest &= f;
            if here == 0 {
                continue;
            }
            let Some((lhs, rhs)) = equality_of(slots, index) else {
                return false;
            };
            let Some(same) = self.same_domains(lhs, rhs, at) else {
                return self.idle_units_at(slots, at, units, falses);
            };
            if here & !same != 0 {
                return false;
            }
        }
        rest == 0
    }

    /// The positions of the free variable where two slot instances of one
    /// choice with planes have the same domain (`None`: other choices).
    fn same_domains(&self, lhs: &SlotInstance, rhs: &SlotInstance, at: &SlotsAt) -> Option<u64> {
        if lhs.choice != rhs.choice {
            return None;
        }
        // The commonest shape (`order($a, $c) == order($b, $c)`): two rows
        // read as they are stored, as below without the cases.
        if let Some(same) = self.same_rows(lhs, rhs, at) {
            return Some(same);
        }
        let planes = self.layout.shapes[lhs.choice as usize].planes.as_ref()?;
        // Per value, where the instance has it: a row of planes (the
        // value mapped through the inverse when the free variable comes
        // first), or everywhere or nowhere for an instance without it.
        let row = |slot: u8| planes.base + at.positions[slot as usize & 1] * planes.values;
        // A row against an instance without the free variable (on the
        // ordering space, the changed instance itself: `order($a, $c) ==
        // order($b, $c)` visited through its left side): as below, the
        // fixed instance's mask read once.
        let row_of = |instance: &SlotInstance| match instance.args {
            [SlotArg::Slot(i), SlotArg::Z] => Some((row(i), None)),
            [SlotArg::Z, SlotArg::Slot(i)] => Some((row(i), planes.inverse)),
            _ => None,
        };
        let fixed = |instance: &SlotInstance| {
            let (index, reversed) = at.instance(instance, 0);
            self.instance_mask(instance.choice, index, reversed)
        };
        let against = match (row_of(lhs), row_of(rhs)) {
            (Some(row), None) => Some((row, fixed(rhs))),
            (None, Some(row)) => Some((row, fixed(lhs))),
            _ => None,
        };
        if let Some(((first, inverse), mask)) = against {
            // The mask is mapped through the inverse (a permutation of the
            // values) once, rather than each value: the planes are then
            // read in storage order.
            let mask = inverse.map_or(mask, |inverse| map_mask(mask, inverse));
            let row = self.words.get(first..first + planes.values)?;
            return Some(row.iter().enumerate().fold(u64::MAX, |same, (v, &plane)| {
                same & !(plane ^ 0u64.wrapping_sub(mask >> v & 1))
            }));
        }
        let has = |instance: &SlotInstance| match instance.args {
            [SlotArg::Slot(i), SlotArg::Z] => (row(i), None, 0),
            [SlotArg::Z, SlotArg::Slot(i)] => (row(i), planes.inverse, 0),
            _ => {
                let (index, reversed) = at.instance(instance, 0);
                (
                    usize::MAX,
                    None,
                    self.instance_mask(instance.choice, index, reversed),
                )
            }
        };
        let read = |(first, inverse, mask): (usize, Option<&[u8]>, u64), v: usize| {
            if first == usize::MAX {
                return if mask & (1 << v) != 0 { u64::MAX } else { 0 };
            }
            let v = inverse.map_or(v, |inverse| {
                inverse.get(v).copied().unwrap_or(v as u8) as usize
            });
            self.words[first + v]
        };
        let (l, r) = (has(lhs), has(rhs));
        let mut same = u64::MAX;
        for v in 0..planes.values {
            same &= !(read(l, v) ^ read(r, v));
        }
        Some(same)
    }

    /// [`Propagator::same_domains`] of two instances that read the free
    /// variable second, as stored (`order($a, $c) == order($b, $c)`), and
    /// of those only (`None`: other shapes).
    #[inline(always)]
    fn same_rows(&self, lhs: &SlotInstance, rhs: &SlotInstance, at: &SlotsAt) -> Option<u64> {
        let ([SlotArg::Slot(i), SlotArg::Z], [SlotArg::Slot(j), SlotArg::Z]) = (lhs.args, rhs.args)
        else {
            return None;
        };
        if lhs.choice != rhs.choice {
            return None;
        }
        let planes = self.layout.shapes[lhs.choice as usize].planes?;
        let row = |slot: u8| planes.base + at.positions[slot as usize & 1] * planes.values;
        let (l, r) = (row(i), row(j));
        let (l, r) = (
            self.words.get(l..l + planes.values)?,
            self.words.get(r..r + planes.values)?,
        );
        Some(
            l.iter()
                .zip(r)
                .fold(u64::MAX, |same, (l, r)| same & !(l ^ r)),
        )
    }

    /// [`Propagator::idle_units`] position by position.
    fn idle_units_at(
        &self,
        slots: &SlotPlan,
        at: &SlotsAt,
        mut units: u64,
        falses: &[u64],
    ) -> bool {
        while units != 0 {
            let p = units.trailing_zeros() as usize;
            units &= units - 1;
            let Some(index) = falses[..slots.literals.len().min(falses.len())]
                .iter()
                .position(|f| f & (1 << p) == 0)
            else {
                return false;
            };
            let Some((lhs, rhs)) = equality_of(slots, index) else {
                return false;
            };
            // As `enforce_slot` reads them.
            let (li, lr) = at.instance(lhs, p);
            let (ri, rr) = at.instance(rhs, p);
            if self.instance_mask(lhs.choice, li, lr) != self.instance_mask(rhs.choice, ri, rr) {
                return false;
            }
        }
        true
    }

    /// The end of [`Propagator::slot_filter`] where some position fails
    /// (`failed`) or is unit (`units`): as `vector_filter` and
    /// `filter_at`, reading the rows again only after a write.
    #[inline(never)]
    fn slot_units(
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
                        if enforce.at_free(at, p) {
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
                    if enforce.at_free(at, p) && read_at.is_some() {
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
    fn pair_units(
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

    /// The mask of an enum instance found already, in the other
    /// orientation if `reversed`.
    #[inline(always)]
    fn instance_mask(&self, choice: u16, instance: usize, reversed: bool) -> u64 {
        let shape = &self.layout.shapes[choice as usize];
        let mask = self.words[shape.base + instance * shape.width];
        if reversed {
            self.layout.map_inverse(choice, mask)
        } else {
            mask
        }
    }

    /// [`Propagator::row_masks`] of the row of a slot of `at`, through
    /// [`RowOrs`] when `tables` and the planes have at most
    /// [`ROW_ORS_VALUES`] values.
    #[inline(always)]
    fn slot_row_masks(
        &mut self,
        planes: &Planes,
        slot: u8,
        at: &SlotsAt,
        stored: u64,
        tables: bool,
    ) -> (u64, u64) {
        let first = planes.base + at.positions[slot as usize] * planes.values;
        if !tables || planes.values > ROW_ORS_VALUES {
            return self.row_masks(first, planes.values, stored);
        }
        let table = (slot as usize ^ at.flip) & 1;
        self.row_ors
            .masks(table, self.words, first, planes.values, stored)
    }

    /// The positions whose domain meets a pair literal's values, and those
    /// whose domain has a value outside them.
    #[inline(always)]
    fn pair_row(&mut self, row: &PairRow, at: &SlotsAt) -> (u64, u64) {
        let slot = row.slot as usize & 1;
        let table = (slot ^ at.flip) & 1;
        self.row_ors
            .read(table, self.words, at.rows[slot], at.values);
        (
            self.row_ors.or(RowOrs::index(table, row.inside)),
            self.row_ors.or(RowOrs::index(table, row.outside)),
        )
    }

    /// [`Propagator::row_status`] of a literal of a slot plan, its rows
    /// read through [`RowOrs`] if `tables` (else from the planes: after a
    /// write, reading a row once costs less than making its table again).
    #[inline(always)]
    fn slot_status(&mut self, literal: &SlotLiteral, at: &SlotsAt, tables: bool) -> (u64, u64) {
        let row =
            |planes: &Planes, slot: u8| planes.base + at.positions[slot as usize] * planes.values;
        match literal {
            SlotLiteral::Is {
                slot,
                planes,
                stored,
            } => {
                let (has_in, has_out) = self.slot_row_masks(planes, *slot, at, *stored, tables);
                (!has_out, !has_in)
            }
            SlotLiteral::Same {
                fixed_slots,
                choice,
                slot,
                planes,
                inverse,
                equal,
            } => {
                // The changed instance, read in the order of the slots.
                let word = self.words[at.word];
                let m = if at.positions[fixed_slots[0] as usize]
                    > at.positions[fixed_slots[1] as usize]
                {
                    self.layout.map_inverse(at.choice, word)
                } else {
                    word
                };
                let stored = if *inverse {
                    self.layout.map_inverse(*choice, m)
                } else {
                    m
                };
                let (has_in, has_out) = self.slot_row_masks(planes, *slot, at, stored, tables);
                let same = if is_single(m) { !has_out } else { 0 };
                if *equal {
                    (same, !has_in)
                } else {
                    (!has_in, same)
                }
            }
            SlotLiteral::SameRows {
                planes,
                lhs,
                rhs,
                equal,
            } => {
                let (t, f) = self.row_same(
                    planes.values,
                    (row(planes, lhs.0), lhs.1),
                    (row(planes, rhs.0), rhs.1),
                );
                if *equal {
                    (t, f)
                } else {
                    (f, t)
                }
            }
            SlotLiteral::Constant => (0, 0),
        }
    }

    /// Where a literal read from planes is certainly true and certainly
    /// false, over the positions of the free variable; `None` when it
    /// cannot be read for these objects.
    #[inline(always)]
    fn row_status(&self, literal: &RowLiteral, b: &Binding) -> Option<(u64, u64)> {
        match literal {
            RowLiteral::Is { u, planes, stored } => {
                let first = self.plane_row(planes, b.objects[*u as usize])?;
                let (has_in, has_out) = self.row_masks(first, planes.values, *stored);
                Some((!has_out, !has_in))
            }
            RowLiteral::Same {
                fixed,
                choice,
                u,
                planes,
                inverse,
                equal,
            } => {
                let first = self.plane_row(planes, b.objects[*u as usize])?;
                let m = self.mask_of(fixed, b);
                let stored = if *inverse {
                    self.layout.map_inverse(*choice, m)
                } else {
                    m
                };
                let (has_in, has_out) = self.row_masks(first, planes.values, stored);
                // Equal: certain when both are the same single value;
                // impossible when they share no value.
                let same = if is_single(m) { !has_out } else { 0 };
                Some(if *equal {
                    (same, !has_in)
                } else {
                    (!has_in, same)
                })
            }
            RowLiteral::SameRows {
                planes,
                lhs,
                rhs,
                equal,
            } => {
                let l_first = self.plane_row(planes, b.objects[lhs.0 as usize])?;
                let r_first = self.plane_row(planes, b.objects[rhs.0 as usize])?;
                let (t, f) = self.row_same(planes.values, (l_first, lhs.1), (r_first, rhs.1));
                Some(if *equal { (t, f) } else { (f, t) })
            }
            RowLiteral::Constant(_) | RowLiteral::Unsupported => None,
        }
    }

    /// Whether the bound objects of a binding belong to their sets and
    /// are distinct where they must be.
    #[inline]
    fn passes(&self, checks: &Checks, b: &Binding) -> bool {
        checks.passes(self.layout, b)
    }

    /// Filters the completions of `b` by the free variable of `plan`, in
    /// the order `for_each` visits them, less those where a literal is
    /// certainly true (`filter` would do nothing there).
    /// `checked`: `b` is known to pass the plan's checks.
    fn screen_filter(
        &mut self,
        constraint: u16,
        plan: &ScreenPlan,
        b: &Binding,
        checked: bool,
    ) -> Flow {
        if !checked && !self.passes(&plan.checks, b) {
            return Ok(());
        }
        let layout = self.layout;
        // A checked visit that was not skipped has its constant property
        // literals false (one that holds would have it skipped), and the
        // others are false where `sat` lets positions through.
        let known = checked && plan.properties_screened;
        let mut sat = 0u64;
        // As for generic visits: a constant literal certainly true, or two
        // unknown, leave every completion alone.
        let mut unknown = 0;
        for literal in &plan.literals {
            match literal {
                ZLiteral::Constant(Literal::Property { .. }) if known => {}
                ZLiteral::Constant(literal) => match self.status(literal, b) {
                    Status::True => return Ok(()),
                    Status::Unknown if unknown == 1 => return Ok(()),
                    Status::Unknown => unknown += 1,
                    Status::False => {}
                },
                ZLiteral::Row(row) => {
                    if let Some((t, _)) = self.row_status(row, b) {
                        sat |= t;
                    }
                }
                ZLiteral::Property {
                    property,
                    slot,
                    args,
                    negated,
                } => {
                    if let Some(bits) =
                        layout.property_row(*property, *slot, |i| b.objects[args[i] as usize])
                    {
                        sat |= if *negated { !bits } else { bits };
                    }
                }
                ZLiteral::Other(_) | ZLiteral::Own { .. } => {}
            }
        }
        if let Some(members) = plan.members {
            // The same objects in the same order, by the bits of the
            // positions left.
            let mut rest = without_bound(layout, members & !sat, plan.root, &plan.same_root, b);
            let objects = layout.plain_objects(plan.root);
            let mut with_z = *b;
            with_z.bound |= 1 << plan.z;
            while rest != 0 {
                with_z.objects[plan.z as usize] = objects[rest.trailing_zeros() as usize];
                rest &= rest - 1;
                if known {
                    self.filter_known(constraint, &with_z)?;
                } else {
                    self.filter(constraint, &with_z)?;
                }
            }
            return Ok(());
        }
        'objects: for &object in layout.plain_objects(plan.set) {
            for &v in &plan.same_root {
                if b.objects[v as usize] == object {
                    continue 'objects;
                }
            }
            if let Some(p) = layout.position(plan.root, object) {
                if sat & (1 << p) != 0 {
                    continue;
                }
            }
            let mut with_z = *b;
            with_z.bind(plan.z, object);
            if known {
                self.filter_known(constraint, &with_z)?;
            } else {
                self.filter(constraint, &with_z)?;
            }
        }
        Ok(())
    }

    /// The first plane word of the row of `object`, if it has one.
    #[inline]
    fn plane_row(&self, planes: &Planes, object: ObjectId) -> Option<usize> {
        let row = self.layout.position(planes.set, object)?;
        Some(planes.base + row * planes.values)
    }

    /// Over the `count` planes of a row from word `first`: the positions
    /// whose domain meets `stored` (values in storage orientation), and
    /// those whose domain has a value outside it.
    #[inline]
    fn row_masks(&self, first: usize, count: usize, stored: u64) -> (u64, u64) {
        let row = &self.words[first..first + count];
        let all = if count >= 64 {
            u64::MAX
        } else {
            (1u64 << count) - 1
        };
        let (mut has_in, mut has_out) = (0u64, 0u64);
        let mut inside = stored & all;
        while inside != 0 {
            has_in |= row[inside.trailing_zeros() as usize];
            inside &= inside - 1;
        }
        let mut outside = !stored & all;
        while outside != 0 {
            has_out |= row[outside.trailing_zeros() as usize];
            outside &= outside - 1;
        }
        (has_in, has_out)
    }

    /// `c(u, z) == c(w, z)` for every `z`, both rows read from planes
    /// (each as its first word and the inverse its values are read
    /// through): where it certainly holds, and where it certainly fails.
    fn row_same(
        &self,
        count: usize,
        (l_first, l_inverse): (usize, Option<&[u8]>),
        (r_first, r_inverse): (usize, Option<&[u8]>),
    ) -> (u64, u64) {
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
        (same, !common)
    }

    // ---------------------------------------------------------------- constraints

    /// Runs one constraint instance: fails if no literal can hold, enforces
    /// the last one that can.
    fn filter(&mut self, constraint: u16, b: &Binding) -> Flow {
        self.filter_with(constraint, b, false)
    }

    /// [`Propagator::filter`] of a clause whose property literals are
    /// known to be false under `b` (a `Bound` visit that its skip set let
    /// through: one that holds would have it skipped), so not read.
    fn filter_known(&mut self, constraint: u16, b: &Binding) -> Flow {
        self.filter_with(constraint, b, true)
    }

    #[inline(always)]
    fn filter_with(&mut self, constraint: u16, b: &Binding, properties_false: bool) -> Flow {
        let def = &self.model().constraints[constraint as usize];
        let mut unknown = None;
        for literal in def.literals {
            if properties_false && matches!(literal, Literal::Property { .. }) {
                continue;
            }
            match self.status_inline(literal, b) {
                Status::True => return Ok(()),
                Status::False => {}
                Status::Unknown if unknown.is_some() => return Ok(()),
                Status::Unknown => unknown = Some(literal),
            }
        }
        self.enforce_clause(constraint, unknown, b)
    }

    /// The end of [`Propagator::filter`]: enforces the one literal that
    /// can still hold, or fails when none can.
    fn enforce_clause(
        &mut self,
        constraint: u16,
        unknown: Option<&'static Literal>,
        b: &Binding,
    ) -> Flow {
        self.enforce_clause_by(
            constraint,
            unknown,
            || *b,
            |p, literal| p.enforce(literal, b),
        )
    }

    /// [`Propagator::enforce_clause`], the literal made to hold by
    /// `enforce`, the binding made by `binding` only when it is read (for
    /// explanations and failures).
    fn enforce_clause_by(
        &mut self,
        constraint: u16,
        unknown: Option<&'static Literal>,
        binding: impl Fn() -> Binding,
        enforce: impl FnOnce(&mut Self, &'static Literal) -> Flow,
    ) -> Flow {
        // The cause is read only to keep explanations.
        let outer = self.reasons.is_some().then(|| {
            std::mem::replace(
                &mut self.cause,
                Reason {
                    constraint,
                    binding: binding(),
                },
            )
        });
        let enforced = match unknown {
            Some(literal) => enforce(self, literal),
            None => Ok(()),
        };
        if let Some(outer) = outer {
            self.cause = outer;
        }
        match unknown {
            Some(_) => enforced
                .map_err(|dead_end| self.enforcement_failed(constraint, &binding(), dead_end)),
            None => {
                let def = &self.model().constraints[constraint as usize];
                Err(self.dead(
                    Some(constraint),
                    &binding(),
                    def.vars,
                    format!("constraint {} fails: {}", def.origin, def.description),
                ))
            }
        }
    }

    /// Names the constraint whose enforcement under `b` emptied a domain
    /// (out of line: a dead end ends the propagation).
    #[cold]
    #[inline(never)]
    fn enforcement_failed(&self, constraint: u16, b: &Binding, mut dead_end: DeadEnd) -> DeadEnd {
        if dead_end.constraint.is_none() {
            let def = &self.model().constraints[constraint as usize];
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
        self.for_each_from(vars, b, 0, &[], f)
    }

    /// Like [`Propagator::for_each`], leaving out the completions where a
    /// literal of `holds` is certainly true, as soon as its last variable
    /// is bound: for a clause, `filter` does nothing there.
    fn for_each_unless(
        &mut self,
        vars: &'static [VarDef],
        b: &mut Binding,
        holds: &[Hold],
        f: &mut dyn FnMut(&mut Self, &Binding) -> Flow,
    ) -> Flow {
        self.for_each_from(vars, b, 0, holds, f)
    }

    fn for_each_from(
        &mut self,
        vars: &'static [VarDef],
        b: &mut Binding,
        i: usize,
        holds: &[Hold],
        f: &mut dyn FnMut(&mut Self, &Binding) -> Flow,
    ) -> Flow {
        if i == vars.len() {
            return f(self, b);
        }
        let true_at = |p: &Self, b: &Binding| {
            holds
                .iter()
                .any(|hold| hold.last as usize == i && p.status(hold.literal, b) == Status::True)
        };
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
                && !true_at(self, b)
            {
                return self.for_each_from(vars, b, i + 1, holds, f);
            }
            return Ok(());
        }
        // The positions in the root set where a literal with a row holds;
        // the other literals are tested object by object.
        let mut screened = 0u64;
        let mut others = false;
        for hold in holds.iter().filter(|hold| hold.last as usize == i) {
            match hold.row {
                Some((property, slot, args, negated)) => {
                    let bits = layout
                        .property_row(property, slot, |k| b.objects[args[k] as usize])
                        .unwrap_or(0);
                    screened |= if negated { !bits } else { bits };
                }
                None => others = true,
            }
        }
        for &object in layout.set_objects(var.set, &args) {
            if screened != 0
                && layout
                    .position(root, object)
                    .is_some_and(|p| screened & (1 << p) != 0)
            {
                continue;
            }
            if !distinct(b, object)
                || (layout.is_quotient[var.set as usize] && !self.is_member(var.set, &args, object))
            {
                continue;
            }
            let mut inner = *b;
            inner.bind(i as Var, object);
            if others && true_at(self, &inner) {
                continue;
            }
            self.for_each_from(vars, &mut inner, i + 1, holds, f)?;
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
        let mut total = match def.op {
            CounterOp::Sum => Range { min: 0, max: 0 },
            CounterOp::Mul => Range { min: 1, max: 1 },
        };
        let mut collected = Vec::new();
        let want = contributions.is_some();
        let layout = self.layout;
        let tuples = instance.and_then(|instance| layout.counter_tuples(choice, instance));
        if let (Some(_), Some(plan), false) = (tuples, &layout.counter_plans[choice as usize], want)
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
    fn plan_masks(&self, plan: &CounterPlan, b: &Binding, checked: bool) -> Option<(u64, u64)> {
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
                        ZLiteral::Own { values, words } => {
                            is_status(words[p].map_or(0, |word| self.words[word]), *values)
                        }
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
        self.update_counter_in(choice, &param_binding(params), params.len(), false)
    }

    /// [`Propagator::update_counter`] of the instance whose parameters are
    /// the first `params` objects of `b` (its other variables are not
    /// read: a binding of the counter's variables is not copied);
    /// `checked`: they are known to belong to their sets and to be
    /// distinct where they must (as for the instances a counter read's
    /// screen selects).
    fn update_counter_in(
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
        let counted = match &layout.counter_plans[choice as usize] {
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
        self.narrow_counter_at(choice, (instance, word), params, (lo, hi), computed)
    }

    /// [`Propagator::narrow_counter`] of the counter instance found at
    /// `(instance, word)` (inlined: every recount ends here, and most
    /// leave the range as it was).
    #[inline(always)]
    fn narrow_counter_at(
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
        let forced = self.layout.counter_plans[choice as usize].is_none()
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
        if let Some(plan) = &self.layout.counter_plans[choice as usize] {
            if let Some(flow) = self.back_propagate_rows(def, plan, params, min, max) {
                return flow;
            }
        }
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
        // The changed instance's objects, without allocating unless it
        // has more than a scope's variables.
        let mut buffer = [0 as ObjectId; MAX_VARS];
        let mut spilled = Vec::new();
        while let Some((choice, instance, old)) = self.queue.pop() {
            let layout = self.layout;
            let shape = &layout.shapes[choice as usize];
            self.queued.set(shape.first_instance + instance, false);
            // The objects of the commonest shapes read here directly, in
            // both orders for a triangle (whose positions are passed on,
            // for its rows).
            let mut positions = None;
            let mut reversed = None;
            let single = match (shape.triangle, &shape.sets[..]) {
                (true, &[set, ..]) => {
                    let (low, high) = layout.triangle_positions(instance);
                    positions = Some((low, high));
                    let objects = layout.plain_objects(set);
                    objects.get(low).zip(objects.get(high)).map(|(&a, &b)| {
                        buffer[..2].copy_from_slice(&[a, b]);
                        reversed = Some([b, a]);
                        2
                    })
                }
                (false, &[set]) => layout.plain_objects(set).get(instance).map(|&a| {
                    buffer[0] = a;
                    1
                }),
                _ => None,
            };
            let objects = match single {
                Some(len) => &buffer[..len],
                None => match layout.instance_objects_in(choice, instance, &mut buffer) {
                    Some(len) => &buffer[..len],
                    None => {
                        layout.instance_objects_into(choice, instance, &mut spilled);
                        &spilled[..]
                    }
                },
            };
            let reversed = reversed.unwrap_or_else(|| {
                [
                    objects.get(1).copied().unwrap_or(0),
                    objects.first().copied().unwrap_or(0),
                ]
            });
            let change = Change {
                choice,
                instance,
                shape,
                objects,
                reversed,
                positions,
                old,
            };
            self.on_change(change)?;
        }
        Ok(())
    }

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
    fn on_change(&mut self, change: Change<'_, 'a>) -> Flow {
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
        let visits = &layout.visits[choice as usize];
        let run = layout.runs[choice as usize]
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
        let reads = &layout.counter_reads[choice as usize];
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
                    if is_status(before, values) == is_status(masks[orientation], values) {
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

    /// A quotient flag changed: constraints and counters quantified over the
    /// quotient set see a new member.
    fn on_membership_change(&mut self, choice: u16, objects: &[ObjectId]) -> Flow {
        let model = self.model();
        let Some(set) = self.layout.flag_of[choice as usize] else {
            return Ok(());
        };
        // Constraints hold for certain members only; counters count
        // possible ones, so they follow every change.
        let certain = self.mask(choice, objects) == 1;
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

/// The dead end of an instance left without values.
pub(crate) fn emptied_dead_end(model: &Model, emptied: InstanceId) -> DeadEnd {
    DeadEnd {
        constraint: None,
        bindings: Vec::new(),
        message: format!("no value left for {}", emptied.display(model)),
        emptied: Some(emptied),
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

/// The positions of `positions` (over the objects of set `root`) less
/// those of the objects `b` binds to the variables `same_root` (of the
/// same root set: the free variable must differ from them).
#[inline(always)]
fn without_bound(
    layout: &Layout,
    mut positions: u64,
    root: u16,
    same_root: &[Var],
    b: &Binding,
) -> u64 {
    for &v in same_root {
        if let Some(p) = layout.position(root, b.objects[v as usize]) {
            positions &= !(1u64 << p);
        }
    }
    positions
}

/// The two instances of a slot plan's literal `index` when enforcing it
/// is an `==` between them (the only units `idle_units` can skip).
fn equality_of(slots: &SlotPlan, index: usize) -> Option<(&SlotInstance, &SlotInstance)> {
    match slots.enforce.get(index) {
        Some(Some(SlotEnforce::Same {
            lhs,
            rhs,
            equal: true,
        })) => Some((lhs, rhs)),
        _ => None,
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
pub(crate) fn never_counts(layout: &Layout, def: &CounterDef, bound: u32, b: &Binding) -> bool {
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

/// The slot view of a changed instance in `orientation`, from its view in
/// the first (`view`): the second reads the instance's objects in reverse
/// (`reversed`), made in `flipped` only when a step reads it (most read the
/// first alone).
#[inline(always)]
fn oriented<'v, 'o>(
    view: &'v SlotsAt<'o>,
    orientation: usize,
    reversed: &'o [ObjectId],
    flipped: &'v mut Option<SlotsAt<'o>>,
) -> &'v SlotsAt<'o> {
    if orientation == 0 {
        return view;
    }
    let [low, high] = view.positions;
    let [low_row, high_row] = view.rows;
    flipped.insert(SlotsAt {
        objects: reversed,
        flip: 1,
        positions: [high, low],
        rows: [high_row, low_row],
        values: view.values,
        word: view.word,
        choice: view.choice,
    })
}
