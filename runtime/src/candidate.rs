//! A candidate: a backbone and a decision vector, cheap to clone.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::action::{Action, DeadEnd, InstanceId};
use crate::backbone::Backbone;
use crate::backbone::ObjectId;
use crate::check::{self, Violation};
use crate::layout::{Layout, LayoutError};
use crate::model::{ChoiceKind, Model, Symmetry, TriggerAction};
use crate::propagate::{
    emptied_dead_end, read_counter, read_mask, Clause, Dispatch, Propagator, Reason, Scratch,
    NO_REASON, VALUE_SLOTS,
};
use crate::tables::changes::ChangedObjects;
use crate::tables::Tables;

/// Why a candidate could not be created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CandidateError {
    /// The backbone cannot be laid out for its space.
    Layout(LayoutError),
    /// The space has no valid implementation for this backbone.
    DeadEnd(DeadEnd),
    /// Saved decisions do not fit this backbone.
    Mismatch(String),
}

impl fmt::Display for CandidateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CandidateError::Layout(e) => e.fmt(f),
            CandidateError::DeadEnd(e) => write!(f, "the space is empty for this backbone: {e}"),
            CandidateError::Mismatch(what) => write!(f, "saved decisions do not fit: {what}"),
        }
    }
}

impl std::error::Error for CandidateError {}

/// The values an instance may still take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Domain {
    /// Bit `i` is the `i`-th value of the choice.
    Enum(u64),
    /// Bit `i` is `universe[i]`.
    Integer {
        /// The instance's values, sorted.
        universe: Vec<i64>,
        /// The values left.
        mask: u64,
    },
    /// A counter's range.
    Counter {
        /// The least value it can take.
        min: i64,
        /// The greatest value it can take.
        max: i64,
    },
}

impl Domain {
    /// How many values remain (counters: the width of their range).
    pub fn len(&self) -> u64 {
        match self {
            Domain::Enum(mask) | Domain::Integer { mask, .. } => mask.count_ones() as u64,
            Domain::Counter { min, max } => (max.saturating_sub(*min) as u64).saturating_add(1),
        }
    }

    /// Whether no value remains.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A decision vector saved without its backbone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decisions {
    /// The name of the space, checked when read back.
    pub space: String,
    /// The candidate's vector, word for word.
    pub words: Vec<u64>,
}

/// A partially decided implementation: a backbone plus one domain per
/// choice instance, stored flat.
pub struct Candidate<B: Backbone> {
    backbone: Arc<B>,
    layout: Arc<Layout>,
    words: Vec<u64>,
    /// Trigger instances whose callback ran, so that each runs once.
    fired: Vec<(u16, Vec<ObjectId>)>,
    /// Optional explanations: per instance, the constraint that last
    /// narrowed it, so that a refused decision can name it.
    reasons: Option<Vec<Reason>>,
    /// The propagator's buffers between decisions (not cloned).
    scratch: Scratch,
    /// Per choice of id below [`OPEN_HINTS`]: every instance stored before
    /// this index has at most one value, so the search for an open
    /// instance starts there. Domains only narrow between the fills that
    /// reset it (see [`Candidate::next_open_mut`]).
    open_from: [u32; OPEN_HINTS],
    /// The backbone's generated filters, when they were written for the
    /// layout's tables (see [`crate::compiled`]).
    compiled: Option<Dispatch>,
    /// Whether every trigger instance whose condition is certain has
    /// fired: then a decision looks for new ones only where it changed a
    /// choice their conditions read.
    triggers_settled: bool,
}

/// The generated filter of a clause's constraint, through the backbone
/// type's propagators: instantiated once per backbone type, the
/// generated code inlined with the propagator's reads.
fn compiled_filter<B: Backbone>(clause: &mut Clause<'_, '_>) -> Option<Result<(), DeadEnd>> {
    B::filter(clause.constraint, clause)
}

/// Choices whose settled instances a candidate remembers (the first ones
/// by id; the others are searched from their first instance).
const OPEN_HINTS: usize = 8;

impl<B: Backbone> Clone for Candidate<B> {
    fn clone(&self) -> Self {
        Candidate {
            reasons: self.reasons.clone(),
            ..self.unexplained_copy()
        }
    }

    /// Reuses `self`'s buffers: a search that tries a decision on a copy
    /// and keeps the copy only when it holds copies into the same memory
    /// each time, instead of faulting in fresh pages for every try.
    fn clone_from(&mut self, source: &Self) {
        self.backbone = Arc::clone(&source.backbone);
        self.layout = Arc::clone(&source.layout);
        self.words.clone_from(&source.words);
        self.fired.clone_from(&source.fired);
        self.reasons.clone_from(&source.reasons);
        self.open_from = source.open_from;
        self.compiled = source.compiled;
        self.triggers_settled = source.triggers_settled;
    }
}

impl<B: Backbone> Candidate<B> {
    /// The candidate with every value still possible, after the initial
    /// propagation.
    pub fn new(backbone: B) -> Result<Self, CandidateError> {
        let mut candidate = Candidate::laid_out(backbone)?;
        candidate
            .initialize(None)
            .map_err(CandidateError::DeadEnd)?;
        candidate.fire_triggers().map_err(CandidateError::DeadEnd)?;
        Ok(candidate)
    }

    /// The candidate's storage for a backbone, every word zero.
    fn laid_out(backbone: B) -> Result<Self, CandidateError> {
        let layout = Layout::new(&backbone).map_err(CandidateError::Layout)?;
        // Generated filters index the tables they were written with.
        let compiled = backbone
            .compiled_for()
            .filter(|&model| std::ptr::eq(model, layout.model))
            .map(|_| compiled_filter::<B> as Dispatch);
        Ok(Candidate {
            compiled,
            words: vec![0; layout.words],
            backbone: Arc::new(backbone),
            layout: Arc::new(layout),
            fired: Vec::new(),
            reasons: None,
            scratch: Scratch::default(),
            open_from: [0; OPEN_HINTS],
            triggers_settled: false,
        })
    }

    /// Whether constraints are filtered by the propagators generated for
    /// the space (see [`crate::compiled`]) rather than from the tables.
    pub fn is_compiled(&self) -> bool {
        self.compiled.is_some()
    }

    /// Like [`Candidate::new`], keeping explanations: when a decision is
    /// refused because earlier propagation removed its values, the error
    /// names the constraint that removed them. Costs a slot per value of
    /// every instance (4.6 KB per instance: a constraint and its binding
    /// per value) in every clone; meant for fixing decisions by hand, not
    /// for candidates cloned at every step.
    pub fn new_explained(backbone: B) -> Result<Self, CandidateError> {
        let mut candidate = Candidate::laid_out(backbone)?;
        candidate.reasons = Some(vec![NO_REASON; candidate.layout.instances * VALUE_SLOTS]);
        candidate
            .initialize(None)
            .map_err(CandidateError::DeadEnd)?;
        candidate.fire_triggers().map_err(CandidateError::DeadEnd)?;
        Ok(candidate)
    }

    /// The same candidate without the explanations [`Candidate::new_explained`]
    /// keeps (a slot per value of every instance): cheaper to clone, for
    /// searches once the fixed decisions are applied.
    pub fn without_explanations(mut self) -> Self {
        self.reasons = None;
        self
    }

    /// A copy without the explanations (as
    /// [`Candidate::without_explanations`] leaves it), made without copying
    /// them: for searches that start from an explained root.
    pub fn unexplained_copy(&self) -> Self {
        Candidate {
            backbone: Arc::clone(&self.backbone),
            layout: Arc::clone(&self.layout),
            words: self.words.clone(),
            fired: self.fired.clone(),
            reasons: None,
            scratch: Scratch::default(),
            open_from: self.open_from,
            compiled: self.compiled,
            triggers_settled: self.triggers_settled,
        }
    }

    /// Whether the candidate keeps explanations (see
    /// [`Candidate::new_explained`]).
    pub fn is_explained(&self) -> bool {
        self.reasons.is_some()
    }

    /// Why `instance` lost the values of `values` (in the order of its
    /// objects): the constraint instance that removed the first of them,
    /// with an account in `message`.
    fn explain(&self, instance: &InstanceId, values: u64) -> Option<DeadEnd> {
        let (index, reversed) = self.layout.instance(instance.choice, &instance.objects)?;
        let stored = if reversed {
            self.layout.map_inverse(instance.choice, values)
        } else {
            values
        };
        let key = self.layout.shapes[instance.choice as usize].first_instance + index;
        let reasons = self.reasons.as_ref()?;
        let mut asked = stored;
        let reason = loop {
            if asked == 0 {
                return None;
            }
            let bit = asked.trailing_zeros() as usize;
            asked &= asked - 1;
            let reason = *reasons.get(key * VALUE_SLOTS + bit)?;
            if reason.constraint != NO_REASON.constraint {
                break reason;
            }
        };
        let def = self.model().constraints.get(reason.constraint as usize)?;
        let bindings: Vec<(String, ObjectId)> = def
            .vars
            .iter()
            .enumerate()
            .filter(|(i, _)| reason.binding.is_bound(*i as _))
            .map(|(i, v)| (format!("${}", v.name), reason.binding.objects[i]))
            .collect();
        let shown: Vec<String> = bindings.iter().map(|(n, o)| format!("{n} = {o}")).collect();
        let with = if shown.is_empty() {
            String::new()
        } else {
            format!(" (with {})", shown.join(", "))
        };
        Some(DeadEnd {
            constraint: Some(reason.constraint),
            bindings,
            emptied: None,
            message: format!(
                "constraint {} (`{}`) removed the other values{with}",
                def.origin, def.description
            ),
        })
    }

    /// Gives every existing instance all its values (or, with `previous`, a
    /// layout and vector of the same candidate before objects were added,
    /// the values it had there), and counters the widest range.
    fn fill_domains(&mut self, previous: Option<(&Layout, &[u64])>) {
        self.open_from = [0; OPEN_HINTS];
        let layout = Arc::clone(&self.layout);
        // One buffer for every instance's objects: a layout after a
        // callback fills every instance again.
        let mut objects = Vec::new();
        for (c, choice) in layout.model.choices.iter().enumerate() {
            let shape = &layout.shapes[c];
            for instance in 0..shape.count {
                layout.instance_objects_into(c as u16, instance, &mut objects);
                let word = shape.base + instance * shape.width;
                if !layout.instance_exists(c as u16, &objects) {
                    continue;
                }
                let carried = previous
                    .and_then(|(old, words)| carry_domain(old, words, &layout, c as u16, &objects));
                match &choice.kind {
                    _ if carried.is_some() => self.words[word] = carried.unwrap_or_default(),
                    ChoiceKind::Enum { values } => self.words[word] = all(values.len()),
                    ChoiceKind::Integer { .. } => {
                        self.words[word] = all(layout.universe(c as u16, instance).len())
                    }
                    ChoiceKind::Counter(_) => {
                        self.words[word] = i64::MIN as u64;
                        self.words[word + 1] = i64::MAX as u64;
                    }
                }
            }
        }
    }

    /// Sets every domain (see `fill_domains`), computes counters and
    /// propagates every constraint.
    fn initialize(&mut self, previous: Option<(&Layout, &[u64])>) -> Result<(), DeadEnd> {
        self.fill_domains(previous);
        let layout = Arc::clone(&self.layout);
        let mut propagator =
            Propagator::explained(&layout, &mut self.words, self.reasons.as_deref_mut());
        propagator.compiled = self.compiled;
        count_all(&mut propagator);
        propagator.initialize()
    }

    /// [`Candidate::initialize`] after a trigger callback changed the
    /// backbone, from the fixpoint `old_words` of the `old` layout: domains
    /// are carried over and counters recomputed, and only the constraint
    /// instances that bind a changed object, or read a counter that moved,
    /// are filtered again. The others read what they read at that
    /// fixpoint, so filtering them would remove nothing.
    fn reinitialize(
        &mut self,
        old: &Layout,
        old_words: &[u64],
        changed: &ChangedObjects,
    ) -> Result<(), DeadEnd> {
        self.fill_domains(Some((old, old_words)));
        let layout = Arc::clone(&self.layout);
        let mut propagator =
            Propagator::explained(&layout, &mut self.words, self.reasons.as_deref_mut());
        propagator.compiled = self.compiled;
        count_all(&mut propagator);
        let mut objects = Vec::new();
        for (c, choice) in layout.model.choices.iter().enumerate() {
            if !matches!(choice.kind, ChoiceKind::Counter(_)) {
                continue;
            }
            let (shape, old_shape) = (&layout.shapes[c], &old.shapes[c]);
            for instance in 0..shape.count {
                layout.instance_objects_into(c as u16, instance, &mut objects);
                if !layout.instance_exists(c as u16, &objects) {
                    continue;
                }
                let word = shape.base + instance * 2;
                let now = (propagator.words[word], propagator.words[word + 1]);
                let before = old
                    .instance(c as u16, &objects)
                    .filter(|_| old.instance_exists(c as u16, &objects))
                    .map(|(i, _)| old_shape.base + i * 2)
                    .map(|w| (old_words[w], old_words[w + 1]));
                if before != Some(now) {
                    let old_min = before.map_or(i64::MIN as u64, |(min, _)| min);
                    propagator.counter_moved(c as u16, instance, old_min);
                }
            }
        }
        propagator.initialize_touching(changed)
    }

    /// The candidate with every value possible and no propagation, for
    /// brute-force tests of propagation.
    pub fn unpropagated(backbone: B) -> Result<Self, CandidateError> {
        let mut candidate = Candidate::laid_out(backbone)?;
        // Counters are left as they are: the checker computes them itself.
        candidate.fill_domains(None);
        Ok(candidate)
    }

    /// The single-value masks of an instance's domain, in storage
    /// orientation.
    pub fn raw_alternatives(&self, instance: &InstanceId) -> Vec<u64> {
        let mask = self.raw_mask(instance);
        (0..64)
            .filter(|b| mask & (1u64 << b) != 0)
            .map(|b| 1u64 << b)
            .collect()
    }

    /// The value masks of `instances`, in storage orientation.
    pub fn raw_masks(&self, instances: &[InstanceId]) -> Vec<u64> {
        instances.iter().map(|i| self.raw_mask(i)).collect()
    }

    /// A copy with the given masks (storage orientation) and no
    /// propagation; counters are left as they are (the checker computes
    /// them itself).
    pub fn with_raw_masks(&self, instances: &[InstanceId], masks: &[u64]) -> Self {
        let mut copy = self.clone();
        // Masks may widen, and triggers become certain unseen.
        copy.open_from = [0; OPEN_HINTS];
        copy.triggers_settled = false;
        for (instance, &mask) in instances.iter().zip(masks) {
            if let Some((index, _)) = self.layout.instance(instance.choice, &instance.objects) {
                let shape = &self.layout.shapes[instance.choice as usize];
                copy.words[shape.base + index * shape.width] = mask;
            }
        }
        copy
    }

    /// The space.
    pub fn model(&self) -> &'static Model {
        self.layout.model
    }

    /// The kernel's description.
    pub fn backbone(&self) -> &B {
        &self.backbone
    }

    /// Words in the decision vector (8 bytes each).
    pub fn vector_words(&self) -> usize {
        self.words.len()
    }

    /// Restricts one instance and propagates to a fixpoint. On a dead end
    /// the candidate is left in an unspecified state: drop it.
    pub fn apply(&mut self, action: &Action) -> Result<(), DeadEnd> {
        let layout = Arc::clone(&self.layout);
        let Some(choice) = layout.model.choices.get(action.choice as usize) else {
            return Err(unknown_instance(action, "no such choice"));
        };
        let found = match action.objects.len() == choice.params.len() {
            true => layout.instance(action.choice, &action.objects),
            false => None,
        };
        let Some((index, reversed)) =
            found.filter(|_| layout.instance_exists(action.choice, &action.objects))
        else {
            return Err(unknown_instance(action, "no such instance"));
        };
        if let ChoiceKind::Counter(_) = choice.kind {
            return Err(unknown_instance(
                action,
                "counters are not decided directly",
            ));
        }
        let stored = if reversed {
            layout.map_inverse(action.choice, action.values)
        } else {
            action.values
        };
        if self.open_values(action.choice, index) & stored != 0 {
            return self.propagate_decision(action.choice, index, stored);
        }
        // The decision itself is outside the domain: say what removed the
        // values it asks for.
        let instance = action.instance();
        let mut dead_end = emptied_dead_end(layout.model, self.instance_id(action.choice, index));
        let before = read_mask(&layout, &self.words, action.choice, &action.objects);
        let domain = match choice.kind {
            ChoiceKind::Integer { .. } => Domain::Integer {
                universe: layout.universe(action.choice, index).to_vec(),
                mask: before,
            },
            _ => Domain::Enum(before),
        };
        if let Some(why) = self.explain(&instance, action.values) {
            let left = domain_text(layout.model, instance.choice, &domain);
            dead_end.constraint = why.constraint;
            dead_end.bindings = why.bindings;
            dead_end.message = format!(
                "{} can only be {left} now: {}",
                instance.display(layout.model),
                why.message
            );
        }
        Err(dead_end)
    }

    /// Runs the callbacks of the trigger instances whose condition became
    /// certain; when they add objects, lays the candidate out again: old
    /// domains are kept, new instances start with every value, and the
    /// constraint instances that bind a changed object are propagated
    /// (the host is not read again when every callback answered
    /// [`Outcome::unchanged`]). Then applies the decisions the callbacks
    /// answered; a refusal is a dead end. Repeats until no trigger is
    /// pending.
    ///
    /// [`Outcome::unchanged`]: crate::Outcome::unchanged
    #[inline]
    fn fire_triggers(&mut self) -> Result<(), DeadEnd> {
        if !self.layout.callbacks {
            return Ok(());
        }
        self.fire_pending()
    }

    /// [`Candidate::fire_triggers`] of a space with callbacks.
    #[inline(never)]
    fn fire_pending(&mut self) -> Result<(), DeadEnd> {
        self.triggers_settled = false;
        loop {
            let layout = Arc::clone(&self.layout);
            let pending: Vec<(u16, Vec<ObjectId>)> = Propagator::new(&layout, &mut self.words)
                .certain_triggers()
                .into_iter()
                .filter(|t| !self.fired.contains(t))
                .collect();
            if pending.is_empty() {
                self.triggers_settled = true;
                return Ok(());
            }
            let backbone = Arc::make_mut(&mut self.backbone);
            let mut decisions = Vec::new();
            let mut unchanged = true;
            for (trigger, objects) in pending {
                if let TriggerAction::Callback { callback, args } =
                    layout.model.triggers[trigger as usize].action
                {
                    let args: Vec<ObjectId> = args.iter().map(|&v| objects[v as usize]).collect();
                    let outcome = backbone.callback(callback, &args);
                    let name = || {
                        let name = layout.model.callbacks[callback as usize].name;
                        format!("trigger callback {name}{args:?}")
                    };
                    if let Some(reason) = outcome.refusal() {
                        return Err(DeadEnd {
                            constraint: None,
                            bindings: Vec::new(),
                            emptied: None,
                            message: format!("{} refused the candidate: {reason}", name()),
                        });
                    }
                    unchanged &= outcome.is_unchanged();
                    decisions.extend(outcome.decisions().iter().map(|d| (d.clone(), name())));
                }
                self.fired.push((trigger, objects));
            }
            self.fired.sort();
            if unchanged {
                #[cfg(debug_assertions)]
                if let Ok(tables) = Tables::new(&*self.backbone) {
                    assert!(
                        tables.changed_objects(&layout).is_empty(),
                        "a trigger callback answered Outcome::unchanged() but changed the host"
                    );
                }
            } else {
                let tables = Tables::new(&*self.backbone).map_err(|error| DeadEnd {
                    constraint: None,
                    bindings: Vec::new(),
                    emptied: None,
                    message: format!("after a trigger callback: {error}"),
                })?;
                // A callback that added nothing (a value spilled already)
                // keeps the layout and the vector.
                let changed = tables.changed_objects(&layout);
                if !changed.is_empty() {
                    self.relayout(Layout::relaid(tables), &changed)?;
                }
            }
            // Each decision propagates and fires what it makes certain.
            for (decision, by) in decisions {
                self.apply(&decision).map_err(|mut dead_end| {
                    dead_end.message = format!(
                        "{by} decided {}: {}",
                        decision.instance().display(self.layout.model),
                        dead_end.message
                    );
                    dead_end
                })?;
            }
        }
    }

    /// Lays the candidate out again as `new_layout` (whose objects of
    /// `changed` differ from the current layout's) and propagates what
    /// changed (see [`Candidate::reinitialize`]).
    fn relayout(&mut self, new_layout: Layout, changed: &ChangedObjects) -> Result<(), DeadEnd> {
        let layout = std::mem::replace(&mut self.layout, Arc::new(new_layout));
        let old_words = std::mem::replace(&mut self.words, vec![0; self.layout.words]);
        if let Some(reasons) = self.reasons.as_mut() {
            *reasons = vec![NO_REASON; self.layout.instances * VALUE_SLOTS];
        }
        #[cfg(debug_assertions)]
        let full = {
            let mut full = self.clone();
            full.initialize(Some((&layout, &old_words)))
                .map(|()| full.words)
        };
        let outcome = self.reinitialize(&layout, &old_words, changed);
        // The full propagation is the reference for the partial one.
        #[cfg(debug_assertions)]
        match (&outcome, &full) {
            (Ok(()), Ok(words)) => assert!(
                *words == self.words,
                "filtering the changed objects after a callback reached another fixpoint \
                 than filtering everything"
            ),
            (Err(_), Err(_)) => {}
            _ => panic!(
                "filtering the changed objects after a callback and filtering everything \
                 disagree on a dead end: {outcome:?} and {:?}",
                full.as_ref().map(|_| ())
            ),
        }
        outcome
    }

    /// The domain of an instance, read in the order of its objects.
    pub fn domain(&self, instance: &InstanceId) -> Option<Domain> {
        let layout = &self.layout;
        let choice = layout.model.choices.get(instance.choice as usize)?;
        if instance.objects.len() != choice.params.len()
            || !layout.instance_exists(instance.choice, &instance.objects)
        {
            return None;
        }
        let (index, _) = layout.instance(instance.choice, &instance.objects)?;
        let mask = || read_mask(layout, &self.words, instance.choice, &instance.objects);
        Some(match choice.kind {
            ChoiceKind::Enum { .. } => Domain::Enum(mask()),
            ChoiceKind::Integer { .. } => Domain::Integer {
                universe: layout.universe(instance.choice, index).to_vec(),
                mask: mask(),
            },
            ChoiceKind::Counter(_) => {
                let r = read_counter(layout, &self.words, instance.choice, &instance.objects);
                Domain::Counter {
                    min: r.min,
                    max: r.max,
                }
            }
        })
    }

    /// Every instance of the enum and integer choices, `priority` choices
    /// first, then the others in declaration order.
    pub fn instances(&self, priority: &[u16]) -> Vec<InstanceId> {
        let model = self.model();
        let mut order: Vec<u16> = priority
            .iter()
            .copied()
            .filter(|&c| (c as usize) < model.choices.len())
            .collect();
        for c in 0..model.choices.len() as u16 {
            if !order.contains(&c) {
                order.push(c);
            }
        }
        let mut out = Vec::new();
        for c in order {
            if matches!(model.choices[c as usize].kind, ChoiceKind::Counter(_)) {
                continue;
            }
            for instance in 0..self.layout.shapes[c as usize].count {
                let objects = self.layout.instance_objects(c, instance);
                if self.layout.instance_exists(c, &objects) {
                    out.push(InstanceId { choice: c, objects });
                }
            }
        }
        out
    }

    /// Instances with more than one value left, in priority order.
    pub fn open_instances(&self, priority: &[u16]) -> Vec<InstanceId> {
        self.instances(priority)
            .into_iter()
            .filter(|i| self.raw_mask(i).count_ones() > 1)
            .collect()
    }

    /// The first open instance in priority order, if any: the first
    /// instance, in storage order, of the first choice that has one.
    pub fn next_open(&self, priority: &[u16]) -> Option<InstanceId> {
        let mut hints = self.open_from;
        let (choice, index) = self.first_open(priority, &mut hints)?;
        Some(self.instance_id(choice, index))
    }

    /// [`Candidate::next_open`], remembering which instances were found
    /// settled so that the next search skips them (for descents, which
    /// ask after every decision). The instance is given by its choice and
    /// its index in storage order, without gathering its objects (see
    /// [`Candidate::instance_id`], [`Candidate::decide`]).
    pub(crate) fn next_open_mut(&mut self, priority: &[u16]) -> Option<(u16, usize)> {
        let mut hints = self.open_from;
        let found = self.first_open(priority, &mut hints);
        self.open_from = hints;
        found
    }

    /// The search of [`Candidate::next_open`], from the instances of
    /// `hints` on, which it moves past the settled instances it reads:
    /// the choice and index of the instance found.
    fn first_open(&self, priority: &[u16], hints: &mut [u32; OPEN_HINTS]) -> Option<(u16, usize)> {
        // The priority choices, then every choice (two loops rather than
        // a chain of iterators: this runs after every decision).
        for &c in priority {
            if let Some(found) = self.open_in(c, hints) {
                return Some(found);
            }
        }
        (0..self.model().choices.len() as u16).find_map(|c| self.open_in(c, hints))
    }

    /// The first open instance of `choice` from its hint on, if any (see
    /// [`Candidate::first_open`]).
    #[inline]
    fn open_in(&self, c: u16, hints: &mut [u32; OPEN_HINTS]) -> Option<(u16, usize)> {
        let choice = self.model().choices.get(c as usize)?;
        if matches!(choice.kind, ChoiceKind::Counter(_)) {
            return None;
        }
        let shape = &self.layout.shapes[c as usize];
        let hint = hints.get_mut(c as usize);
        let start = hint
            .as_ref()
            .map_or(0, |&&mut h| (h as usize).min(shape.count));
        let words = &self.words[shape.base + start..shape.base + shape.count];
        // More than one value: cheaper than a population count
        // without a hardware one.
        let found = words.iter().position(|w| w & w.wrapping_sub(1) != 0);
        if let Some(hint) = hint {
            *hint = (start + found.unwrap_or(words.len())) as u32;
        }
        found.map(|offset| (c, start + offset))
    }

    /// The candidate's layout (for modules that read instances by their
    /// storage index).
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The instance of `choice` stored at `index`, its objects in storage
    /// order.
    pub(crate) fn instance_id(&self, choice: u16, index: usize) -> InstanceId {
        InstanceId {
            choice,
            objects: self.layout.instance_objects(choice, index),
        }
    }

    /// The values left to the enum or integer instance of `choice` stored
    /// at `index`, in storage order: [`Candidate::alternative_values`] of
    /// an instance [`Candidate::next_open_mut`] found.
    pub(crate) fn open_values(&self, choice: u16, index: usize) -> u64 {
        let shape = &self.layout.shapes[choice as usize];
        self.words[shape.base + index * shape.width]
    }

    /// [`Candidate::apply`] of a decision on an instance that
    /// [`Candidate::next_open_mut`] found, `values` in storage order:
    /// the same propagation, without looking the instance up by its
    /// objects (a descent decides after every search).
    pub(crate) fn decide(&mut self, choice: u16, index: usize, values: u64) -> Result<(), DeadEnd> {
        if self.open_values(choice, index) & values == 0 {
            // Refused: `apply` says what removed the values.
            let instance = self.instance_id(choice, index);
            return self.apply(&Action {
                choice,
                objects: instance.objects,
                values,
            });
        }
        self.propagate_decision(choice, index, values)
    }

    /// Restricts the instance of `choice` stored at `index` to `values`
    /// (in storage order, some of them in its domain) and propagates, as
    /// [`Candidate::apply`] and [`Candidate::decide`] do once they have
    /// found the instance.
    #[inline]
    fn propagate_decision(
        &mut self,
        choice: u16,
        index: usize,
        values: u64,
    ) -> Result<(), DeadEnd> {
        // The fields apart, so that the layout is borrowed rather than
        // counted once more.
        let Candidate {
            layout,
            words,
            reasons,
            scratch,
            compiled,
            ..
        } = self;
        let mut propagator = Propagator::with_scratch(
            layout,
            words,
            reasons.as_deref_mut(),
            std::mem::take(scratch),
        );
        propagator.compiled = *compiled;
        // The instance keeps some of its values: this write cannot fail.
        let propagated = propagator
            .restrict_instance(choice, index, false, values)
            .and_then(|()| propagator.run());
        // When every certain trigger fired before this decision, one can
        // become certain only where a choice its condition reads changed.
        let triggers = propagator.trigger_read_changed || !self.triggers_settled;
        *scratch = propagator.into_scratch();
        propagated?;
        if triggers {
            self.fire_triggers()
        } else {
            Ok(())
        }
    }

    fn raw_mask(&self, instance: &InstanceId) -> u64 {
        match self.layout.instance(instance.choice, &instance.objects) {
            Some((index, _)) => {
                let shape = &self.layout.shapes[instance.choice as usize];
                self.words[shape.base + index * shape.width]
            }
            None => 0,
        }
    }

    /// The values of [`Candidate::alternatives`], as one mask (in the
    /// order of the instance's objects).
    pub(crate) fn alternative_values(&self, instance: &InstanceId) -> u64 {
        // The mask `domain` gives, without building a `Domain`.
        let layout = &self.layout;
        match layout.model.choices.get(instance.choice as usize) {
            Some(choice)
                if instance.objects.len() == choice.params.len()
                    && !matches!(choice.kind, ChoiceKind::Counter(_))
                    && layout.instance_exists(instance.choice, &instance.objects) =>
            {
                read_mask(layout, &self.words, instance.choice, &instance.objects)
            }
            _ => 0,
        }
    }

    /// One action per value the instance can still take.
    pub fn alternatives(&self, instance: &InstanceId) -> Vec<Action> {
        let mask = self.alternative_values(instance);
        let mut out = Vec::with_capacity(mask.count_ones() as usize);
        let mut rest = mask;
        while rest != 0 {
            let bit = rest.trailing_zeros();
            rest &= rest - 1;
            out.push(Action {
                choice: instance.choice,
                objects: instance.objects.clone(),
                values: 1 << bit,
            });
        }
        out
    }

    /// Whether every enum and integer instance has exactly one value.
    pub fn is_complete(&self) -> bool {
        self.instances(&[])
            .iter()
            .all(|i| self.raw_mask(i).count_ones() == 1)
    }

    /// Checks a complete candidate against every constraint, independently
    /// of propagation.
    pub fn check(&self) -> Result<(), Violation> {
        check::check(&self.layout, &self.words)
    }

    /// The decision vector's words, borrowed (see [`Candidate::decisions`]).
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// The decision vector, for saving.
    pub fn decisions(&self) -> Decisions {
        Decisions {
            space: self.model().name.to_string(),
            words: self.words.clone(),
        }
    }

    /// A candidate from saved decisions, re-propagated.
    pub fn from_decisions(backbone: B, decisions: &Decisions) -> Result<Self, CandidateError> {
        let mut candidate = Candidate::new(backbone)?;
        if decisions.space != candidate.model().name
            || decisions.words.len() != candidate.words.len()
        {
            return Err(CandidateError::Mismatch(format!(
                "space `{}` with {} words, expected `{}` with {}",
                decisions.space,
                decisions.words.len(),
                candidate.model().name,
                candidate.words.len()
            )));
        }
        for instance in candidate.instances(&[]) {
            let Some((index, _)) = candidate
                .layout
                .instance(instance.choice, &instance.objects)
            else {
                continue;
            };
            let shape = &candidate.layout.shapes[instance.choice as usize];
            let values = decisions.words[shape.base + index * shape.width];
            // Saved masks are in storage orientation, like `raw_mask`.
            let objects = candidate.layout.instance_objects(instance.choice, index);
            candidate
                .apply(&Action {
                    choice: instance.choice,
                    objects,
                    values,
                })
                .map_err(CandidateError::DeadEnd)?;
        }
        Ok(candidate)
    }

    /// `name(objects) = VALUE` for a single-value action, for people.
    pub fn describe(&self, action: &Action) -> String {
        let model = self.model();
        let instance = action.instance();
        let values: Vec<String> = match (
            model.choices.get(action.choice as usize).map(|c| &c.kind),
            self.domain(&instance),
        ) {
            (Some(ChoiceKind::Enum { values }), _) => (0..values.len())
                .filter(|i| action.values & (1 << i) != 0)
                .map(|i| values[i].to_string())
                .collect(),
            (_, Some(Domain::Integer { universe, .. })) => (0..universe.len())
                .filter(|i| action.values & (1 << i) != 0)
                .map(|i| universe[i].to_string())
                .collect(),
            _ => vec![format!("{:#x}", action.values)],
        };
        format!("{} = {}", instance.display(model), values.join(" | "))
    }
}

/// Computes every counter instance from its inputs; counters of counters
/// until stable (the checker rejects cycles, so this takes at most one
/// pass per level).
fn count_all(propagator: &mut Propagator<'_>) {
    let layout = propagator.layout;
    let model = layout.model;
    // Counters read bit planes.
    propagator.rebuild_planes();
    // Every counter once, then again only those that read a counter that
    // moved since, in as many rounds at most as there are choices.
    let mut stale: Vec<bool> = model
        .choices
        .iter()
        .map(|choice| matches!(choice.kind, ChoiceKind::Counter(_)))
        .collect();
    let mut objects = Vec::new();
    for _ in 0..=model.choices.len() {
        let mut any = false;
        for c in 0..model.choices.len() {
            if !std::mem::take(&mut stale[c]) {
                continue;
            }
            any = true;
            let mut changed = false;
            for instance in 0..layout.shapes[c].count {
                layout.instance_objects_into(c as u16, instance, &mut objects);
                if layout.instance_exists(c as u16, &objects) {
                    changed |= propagator.init_counter(c as u16, &objects);
                }
            }
            if changed {
                for &reader in model.counters_by_choice.get(c).copied().unwrap_or(&[]) {
                    stale[reader as usize] = true;
                }
            }
        }
        if !any {
            break;
        }
    }
}

/// The domain an instance had in an older layout of the same candidate,
/// in the storage orientation of `layout`.
fn carry_domain(
    old: &Layout,
    words: &[u64],
    layout: &Layout,
    choice: u16,
    objects: &[ObjectId],
) -> Option<u64> {
    let (old_index, _) = old.instance(choice, objects)?;
    let (new_index, reversed) = layout.instance(choice, objects)?;
    match &layout.model.choices[choice as usize].kind {
        ChoiceKind::Enum { .. } => {
            let mask = read_mask(old, words, choice, objects);
            Some(
                match (reversed, layout.model.choices[choice as usize].symmetry) {
                    // The inverse is an involution: mapping again restores the
                    // storage orientation.
                    (true, Symmetry::Antisymmetric { inverse }) => {
                        (0..64).filter(|b| mask & (1u64 << b) != 0).fold(0, |m, b| {
                            m | 1u64 << inverse.get(b).copied().unwrap_or(b as u8)
                        })
                    }
                    _ => mask,
                },
            )
        }
        ChoiceKind::Integer { .. } => {
            let old_shape = &old.shapes[choice as usize];
            let mask = words[old_shape.base + old_index * old_shape.width];
            let values: Vec<i64> = old
                .universe(choice, old_index)
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, v)| *v)
                .collect();
            let universe = layout.universe(choice, new_index);
            Some(
                universe
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| values.contains(v))
                    .fold(0, |m, (i, _)| m | 1 << i),
            )
        }
        ChoiceKind::Counter(_) => None,
    }
}

/// The values of a domain by name (enum) or number (integer).
fn domain_text(model: &Model, choice: u16, domain: &Domain) -> String {
    let names: Vec<String> = match (domain, &model.choices[choice as usize].kind) {
        (Domain::Enum(mask), ChoiceKind::Enum { values }) => values
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, v)| v.to_string())
            .collect(),
        (Domain::Integer { universe, mask }, _) => universe
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, v)| v.to_string())
            .collect(),
        (Domain::Counter { min, max }, _) => vec![format!("[{min}, {max}]")],
        _ => Vec::new(),
    };
    names.join(" | ")
}

fn all(count: usize) -> u64 {
    if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }
}

fn unknown_instance(action: &Action, why: &str) -> DeadEnd {
    DeadEnd {
        constraint: None,
        bindings: Vec::new(),
        emptied: None,
        message: format!(
            "invalid action on choice {} {:?}: {why}",
            action.choice, action.objects
        ),
    }
}
