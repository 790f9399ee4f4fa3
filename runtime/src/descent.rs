//! Random descent: from a candidate to a leaf, one decision at a time,
//! each value chosen uniformly among those that survive propagation.

use rand::Rng;

use crate::action::DeadEnd;
use crate::backbone::Backbone;
use crate::candidate::Candidate;

/// Where a descent ended.
pub enum Descent<B: Backbone> {
    /// A fully decided candidate, after `decisions` decisions.
    Leaf {
        /// The leaf.
        leaf: Candidate<B>,
        /// The decisions taken to reach it.
        decisions: usize,
    },
    /// Propagation failed after `decisions` decisions (the failing one
    /// included).
    DeadEnd {
        /// Why the last decision failed.
        dead_end: DeadEnd,
        /// The decisions taken, the failing one included.
        decisions: usize,
    },
}

impl<B: Backbone> Descent<B> {
    /// The decisions taken.
    pub fn decisions(&self) -> usize {
        match self {
            Descent::Leaf { decisions, .. } | Descent::DeadEnd { decisions, .. } => *decisions,
        }
    }

    /// Whether the descent ended in a dead end.
    pub fn is_dead_end(&self) -> bool {
        matches!(self, Descent::DeadEnd { .. })
    }
}

/// Descends from `start`, branching on the first open instance in
/// `priority` order; the same `rng` state gives the same leaf.
pub fn random_descent<B: Backbone, R: Rng>(
    start: &Candidate<B>,
    priority: &[u16],
    rng: &mut R,
) -> Descent<B> {
    let mut candidate = start.clone();
    let mut decisions = 0;
    while let Some((choice, index)) = candidate.next_open_mut(priority) {
        // The `k`-th of `alternatives`, without building the others (nor
        // the instance's objects: the values are in storage order, which
        // is the order of the objects `next_open` gives).
        let mut values = candidate.open_values(choice, index);
        let k = rng.random_range(0..values.count_ones() as usize);
        for _ in 0..k {
            values &= values - 1;
        }
        decisions += 1;
        if let Err(dead_end) = candidate.decide(choice, index, values & values.wrapping_neg()) {
            return Descent::DeadEnd {
                dead_end,
                decisions,
            };
        }
    }
    Descent::Leaf {
        leaf: candidate,
        decisions,
    }
}

/// Like [`random_descent`], but a value that propagation refutes is not
/// the end: the other values of the same instance are tried, in random
/// order, before the descent is declared a dead end. `decisions` counts
/// every decision tried, refuted ones included.
pub fn random_descent_backtracking<B: Backbone, R: Rng>(
    start: &Candidate<B>,
    priority: &[u16],
    rng: &mut R,
) -> Descent<B> {
    let mut candidate = start.clone();
    let mut decisions = 0;
    while let Some((choice, index)) = candidate.next_open_mut(priority) {
        let instance = candidate.instance_id(choice, index);
        let mut alternatives = candidate.alternatives(&instance);
        loop {
            let action = alternatives.swap_remove(rng.random_range(0..alternatives.len()));
            let mut child = candidate.clone();
            decisions += 1;
            match child.apply(&action) {
                Ok(()) => {
                    candidate = child;
                    break;
                }
                Err(dead_end) if alternatives.is_empty() => {
                    return Descent::DeadEnd {
                        dead_end,
                        decisions,
                    }
                }
                Err(_) => {}
            }
        }
    }
    Descent::Leaf {
        leaf: candidate,
        decisions,
    }
}
