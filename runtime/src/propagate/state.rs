//! The propagator's state and its run loop: the vector and layout it
//! works on, the work queue of changed instances, the explanation slots,
//! the row tables kept between changes, and the buffers a candidate keeps
//! between decisions ([`Scratch`]). [`Propagator::run`] takes changed
//! instances from the queue and hands each to `on_change` (in `visits`);
//! [`Propagator::initialize`] filters every constraint instance first.
//! Reads the layout and the row tables; every other module of the
//! propagator adds an `impl Propagator` block to this state.

use fixedbitset::FixedBitSet;

use super::row_ors::RowOrs;
use crate::action::DeadEnd;
use crate::backbone::ObjectId;
use crate::binding::Binding;
use crate::layout::Layout;
use crate::model::limits::{MAX_VALUES, MAX_VARS};
use crate::model::Model;
use crate::tables::changes::ChangedObjects;
use crate::tables::Shape;

/// What a step of propagation ends in: a dead end stops the propagation.
pub(super) type Flow = Result<(), DeadEnd>;

/// The state of one propagation.
pub(crate) struct Propagator<'a> {
    pub layout: &'a Layout,
    pub words: &'a mut [u64],
    /// Changed instances: (choice, instance, word before the change).
    pub(super) queue: Vec<(u16, usize, u64)>,
    pub(super) queued: FixedBitSet,
    /// While counting, objects possibly in a quotient set are enumerated
    /// too: their increment is uncertain, not absent.
    pub(super) possible_members: bool,
    /// When explanations are kept: per instance and value
    /// ([`VALUE_SLOTS`] slots per instance, in storage order), the
    /// constraint instance that removed the value ([`NO_REASON`] for a
    /// decision).
    pub(super) reasons: Option<&'a mut [Reason]>,
    /// The constraint instance being enforced, if any.
    pub(super) cause: Reason,
    /// Counts the writes to domains and counters, so that statuses read
    /// from the vector can be reused while it is unchanged.
    pub(super) writes: u64,
    /// The two rows of the changed instance being visited, as
    /// [`RowOrs`] (low row first).
    pub(super) row_ors: Box<RowOrs>,
    /// After the first visit of a mirrored pair that did not write the
    /// changed instance: its constraint, the instance's word and its value
    /// (see [`Propagator::mirrored_visit`]).
    pub(super) mirror: Option<(u16, usize, u64)>,
    /// The filters generated for the space, when the candidate has them
    /// for its layout's tables (see [`Clause`]); otherwise every
    /// constraint instance is filtered from the tables.
    pub(crate) compiled: Option<Dispatch>,
    /// Whether a changed instance taken from the queue is of a choice that
    /// callback triggers' conditions read (`Shape::read_by_triggers`).
    pub(crate) trigger_read_changed: bool,
}

/// One constraint instance being filtered by the filters generated for
/// the space: the propagator, the objects bound to the constraint's
/// variables, and whether the visit checked its property literals false
/// already. Generated code reads it through
/// [`crate::compiled::Reads`] (implemented in `clause`).
pub(crate) struct Clause<'p, 'a> {
    pub propagator: &'p mut Propagator<'a>,
    pub binding: &'p Binding,
    pub constraint: u16,
    pub properties_known: bool,
}

/// Runs the generated filter of a clause's constraint (`None` when there
/// is none): a function of the backbone's type, which the candidate
/// instantiates with [`Clause`] for the generated code's reads.
pub(crate) type Dispatch = for<'r, 'p, 'a> fn(&'r mut Clause<'p, 'a>) -> Option<Flow>;

/// An instance taken from the queue, as [`Propagator::run`] hands it to
/// [`Propagator::on_change`].
pub(super) struct Change<'o, 'a> {
    pub(super) choice: u16,
    pub(super) instance: usize,
    /// The choice's shape (looked up once per change).
    pub(super) shape: &'a Shape,
    /// The instance's objects, and its first two in reverse (the second
    /// orientation of a symmetric choice).
    pub(super) objects: &'o [ObjectId],
    pub(super) reversed: [ObjectId; 2],
    /// A triangle instance's positions, as `Layout::triangle_positions`
    /// gives them.
    pub(super) positions: Option<(usize, usize)>,
    /// The instance's word when it was last taken from the queue (or
    /// before propagation started).
    pub(super) old: u64,
}

/// A propagator's buffers, kept by a candidate between decisions so that
/// each `apply` does not allocate them again (see
/// [`Propagator::with_scratch`]). Not cloned with the candidate.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(super) queue: Vec<(u16, usize, u64)>,
    pub(super) queued: FixedBitSet,
    pub(super) row_ors: Option<Box<RowOrs>>,
}

/// The constraint instance that narrowed a domain: the constraint and the
/// objects bound to its variables.
#[derive(Clone, Copy)]
pub(crate) struct Reason {
    pub constraint: u16,
    pub binding: Binding,
}

/// Explanation slots per instance: one per possible value.
pub(crate) const VALUE_SLOTS: usize = MAX_VALUES;

/// No constraint: the instance was narrowed by a decision.
pub(crate) const NO_REASON: Reason = Reason {
    constraint: u16::MAX,
    binding: Binding {
        objects: [0; MAX_VARS],
        bound: 0,
    },
};

impl<'a> Propagator<'a> {
    /// A propagator over `words`, laid out by `layout`, that keeps no
    /// explanations.
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
            compiled: None,
            trigger_read_changed: false,
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

    pub(super) fn model(&self) -> &'static Model {
        self.layout.model
    }

    /// Runs every constraint instance once, then the queue.
    pub fn initialize(&mut self) -> Flow {
        self.rebuild_planes();
        let model = self.model();
        let layout = self.layout;
        for (c, def) in model.constraints.iter().enumerate() {
            let mut b = Binding::empty();
            let holds = &layout.plans.initial_holds[c];
            self.for_each_unless(def.vars, &mut b, holds, &mut |p, b| p.filter(c as u16, b))?;
        }
        self.run()
    }

    /// After a new layout of the same candidate, whose domains and
    /// counters were carried over from a fixpoint of the old one: runs the
    /// constraint instances that bind an object of `changed` (the others
    /// read the same facts and domains as at that fixpoint; counters
    /// that moved are queued by the caller), then the queue. Of those, the
    /// ones a new object leaves unable to act (two literals on its new,
    /// full instances: `Plans::unknown_on_new`) are left to the queue,
    /// which visits them when one of those instances narrows.
    pub fn initialize_touching(&mut self, changed: &ChangedObjects) -> Flow {
        self.rebuild_planes();
        let model = self.model();
        let layout = self.layout;
        for (c, def) in model.constraints.iter().enumerate() {
            let holds = &layout.plans.initial_holds[c];
            let unknown_on_new = layout.plans.unknown_on_new[c];
            self.for_each_touching(def.vars, changed, unknown_on_new, holds, &mut |p, b| {
                p.filter(c as u16, b)
            })?;
        }
        self.run()
    }

    /// Queues a counter instance whose range moved while the candidate was
    /// laid out again (`old` is its minimum before), so that the
    /// constraints reading it are filtered again.
    pub fn counter_moved(&mut self, choice: u16, instance: usize, old: u64) {
        self.enqueue(choice, instance, old);
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
            if shape.read_by_triggers {
                self.trigger_read_changed = true;
            }
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
}
