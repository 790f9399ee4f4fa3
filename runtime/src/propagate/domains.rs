//! Domains: finding an instance in the vector (by its objects or by a
//! binding), reading its mask or range, and restricting it, which clears
//! its bit planes, keeps explanations and queues the instance. Every
//! enforcement ends here. Reads the layout's tables and the state.

use super::state::{Flow, Propagator, VALUE_SLOTS};
use crate::action::{DeadEnd, InstanceId};
use crate::backbone::ObjectId;
use crate::binding::Binding;
use crate::layout::Layout;
use crate::model::{InstanceRef, Model};
use crate::values::Range;

impl<'a> Propagator<'a> {
    /// Word offset of an instance and whether it is stored reversed.
    pub(super) fn locate(&self, choice: u16, objects: &[ObjectId]) -> Option<(usize, usize, bool)> {
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
    pub(super) fn locate_ref(
        &self,
        inst: &InstanceRef,
        b: &Binding,
    ) -> Option<(usize, usize, bool)> {
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
    pub(super) fn integer_values_of(
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
    pub(super) fn restrict_stored(
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
    pub(super) fn enqueue(&mut self, choice: u16, instance: usize, old: u64) {
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

    pub(super) fn integer_values(&self, choice: u16, objects: &[ObjectId]) -> (&'a [i64], u64) {
        match self.locate(choice, objects) {
            Some((instance, word, _)) => (self.layout.universe(choice, instance), self.words[word]),
            None => (&[], 0),
        }
    }

    /// The mask of an enum instance found already, in the other
    /// orientation if `reversed`.
    #[inline(always)]
    pub(super) fn instance_mask(&self, choice: u16, instance: usize, reversed: bool) -> u64 {
        let shape = &self.layout.shapes[choice as usize];
        let mask = self.words[shape.base + instance * shape.width];
        if reversed {
            self.layout.map_inverse(choice, mask)
        } else {
            mask
        }
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
