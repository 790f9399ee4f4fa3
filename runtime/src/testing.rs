//! A backbone for any space, drawn at random from a seed: for property
//! tests that compare propagation with brute force, and for benchmarks.

use std::marker::PhantomData;

use crate::backbone::{Backbone, ObjectId};
use crate::compiled::{Propagators, Reads, Tables};
use crate::model::{Model, PropertyType};

/// Random objects and properties for the sets of a model: every root set
/// gets `size` objects, every subset a random part of its superset. The
/// engine filters constraints with the propagators `P` (by default none:
/// from the tables).
#[derive(Debug)]
pub struct RandomBackbone<P: Propagators = Tables> {
    model: &'static Model,
    seed: u64,
    /// Objects of each root set (others derive from them).
    size: u32,
    propagators: PhantomData<P>,
}

impl<P: Propagators> Clone for RandomBackbone<P> {
    fn clone(&self) -> Self {
        RandomBackbone { ..*self }
    }
}

impl RandomBackbone {
    /// A backbone of `model` drawn from `seed`, `size` objects per root
    /// set.
    pub fn new(model: &'static Model, seed: u64, size: u32) -> Self {
        RandomBackbone::with_propagators(model, seed, size)
    }
}

impl<P: Propagators> RandomBackbone<P> {
    /// [`RandomBackbone::new`] whose constraints the engine filters with
    /// the propagators `P`, where they were generated for `model`.
    pub fn with_propagators(model: &'static Model, seed: u64, size: u32) -> Self {
        RandomBackbone {
            model,
            seed,
            size,
            propagators: PhantomData,
        }
    }

    fn draw(&self, parts: &[u64]) -> u64 {
        let mut h = self.seed ^ 0x9e37_79b9_7f4a_7c15;
        for &p in parts {
            h = splitmix(h ^ p);
        }
        h
    }

    fn hash_args(args: &[ObjectId]) -> u64 {
        args.iter()
            .fold(0xcbf2_9ce4_8422_2325, |h, &a| splitmix(h ^ a as u64))
    }

    fn set_objects(&self, set: u16, args: &[ObjectId]) -> Vec<ObjectId> {
        let def = &self.model.sets[set as usize];
        let parent = match def.superset {
            None => return (0..self.size).collect(),
            Some(parent) => self.set_objects(parent, &[]),
        };
        // Keep each object of the superset with probability 3/4 (a random
        // subset, possibly empty, independent per argument tuple).
        parent
            .into_iter()
            .filter(|&o| self.draw(&[1, set as u64, Self::hash_args(args), o as u64]) % 4 != 0)
            .collect()
    }
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl<P: Propagators> Backbone for RandomBackbone<P> {
    fn model(&self) -> &'static Model {
        self.model
    }

    fn objects(&self, set: u16, args: &[ObjectId]) -> Vec<ObjectId> {
        self.set_objects(set, args)
    }

    fn bool_property(&self, property: u16, args: &[ObjectId]) -> bool {
        self.draw(&[2, property as u64, Self::hash_args(args)]) % 3 != 0
    }

    fn int_property(&self, property: u16, args: &[ObjectId]) -> i64 {
        let h = self.draw(&[3, property as u64, Self::hash_args(args)]);
        // Now and then a value so large that two of them overflow a sum:
        // counters saturate, and propagation must stay sound there.
        if h % 8 == 7 {
            return (1 << 62) + (h >> 3) as i64 % 5;
        }
        (h % 5) as i64
    }

    fn list_property(&self, property: u16, args: &[ObjectId]) -> Vec<i64> {
        debug_assert_eq!(
            self.model.properties[property as usize].ty,
            PropertyType::IntList
        );
        let h = self.draw(&[4, property as u64, Self::hash_args(args)]);
        // One to three values among 1, 2, 4, 8.
        let values: Vec<i64> = [1, 2, 4, 8]
            .into_iter()
            .enumerate()
            .filter(|(i, _)| h >> i & 1 == 1)
            .map(|(_, v)| v)
            .take(3)
            .collect();
        if values.is_empty() {
            vec![1 << (h % 4)]
        } else {
            values
        }
    }

    fn callback(&mut self, _callback: u16, _args: &[ObjectId]) -> crate::outcome::Outcome {
        crate::outcome::Outcome::done()
    }

    fn compiled_for(&self) -> Option<&'static Model> {
        P::model()
    }

    #[inline(always)]
    fn filter<C: Reads>(constraint: u16, clause: &mut C) -> Option<Result<(), C::Error>> {
        P::filter(constraint, clause)
    }
}

/// Runs `f` with the tables of every candidate laid out inside it built
/// without property lists, so that enumeration walks whole sets: to check
/// that the lists change no propagation.
pub fn without_property_lists<R>(f: impl FnOnce() -> R) -> R {
    let before = crate::tables::NO_PROPERTY_LISTS.replace(true);
    let result = f();
    crate::tables::NO_PROPERTY_LISTS.set(before);
    result
}

/// How many (property, parameter) pairs of `candidate`'s tables have
/// property lists.
pub fn property_lists<B: Backbone>(candidate: &crate::Candidate<B>) -> usize {
    candidate
        .layout()
        .property_lists
        .iter()
        .flatten()
        .filter(|lists| lists.is_some())
        .count()
}
