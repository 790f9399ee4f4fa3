//! Local search around the best leaf: a neighbour re-decides one to three
//! of its decisions and keeps the others where propagation still allows.
//!
//! Decisions commute, so a neighbour needs no notion of "the same position
//! in a sequence of transformations": the changed decisions are taken
//! first, the best leaf's other decisions are replayed after them (those
//! that the change refutes are dropped), and whatever is left open is
//! completed at random. Tree searches spend most of their evaluations
//! near the root of large spaces; local steps tune the structure they
//! found (tile sizes, which loop is parallel).

use std::collections::HashSet;

use rand::Rng;

use super::baselines::{descend, Pick};
use super::harness::{Bound, Harness};
use crate::action::{Action, InstanceId};
use crate::backbone::Backbone;
use crate::candidate::Candidate;

/// Leaves already evaluated, by decision vector: the same leaf reached by
/// another path is not evaluated again.
#[derive(Default)]
pub(crate) struct Seen {
    leaves: HashSet<Vec<u64>>,
}

impl Seen {
    /// Records `leaf`; false if it was seen before.
    pub(crate) fn insert<B: Backbone>(&mut self, leaf: &Candidate<B>) -> bool {
        self.leaves.insert(leaf.decisions().words)
    }

    pub(crate) fn contains<B: Backbone>(&self, leaf: &Candidate<B>) -> bool {
        self.leaves.contains(&leaf.decisions().words)
    }
}

/// How many draws a neighbour gets before the local step gives up on
/// finding an unseen one.
const DRAWS: usize = 64;

/// A neighbour of the leaf reached by `best` from `root` that `seen` does
/// not hold, with its path; `None` when `DRAWS` draws found none or the
/// search must stop (its budget is spent). What is
/// left open is completed at random among the children `bound` does not
/// prune.
pub(crate) fn neighbour<B: Backbone>(
    root: &Candidate<B>,
    best: &[Action],
    seen: &Seen,
    harness: &mut Harness<B>,
    bound: &dyn Bound<B>,
) -> Option<(Candidate<B>, Vec<Action>)> {
    if best.is_empty() {
        return None;
    }
    for _ in 0..DRAWS {
        // A draw replays the whole best path: on large spaces many draws
        // take seconds, which the budget does not have once it is spent.
        if harness.should_stop().is_some() {
            return None;
        }
        // One change, sometimes two or three: single changes cannot cross
        // a valley where two decisions only pay off together.
        let mut changes = 1;
        while changes < 3 && harness.rng.random_bool(0.3) {
            changes += 1;
        }
        let mut candidate = root.clone();
        let mut scratch = root.clone();
        let mut path = Vec::new();
        let mut changed = Vec::new();
        for _ in 0..changes {
            let current = &best[harness.rng.random_range(0..best.len())];
            let instance = current.instance();
            if changed.contains(&instance) {
                continue;
            }
            let others: Vec<Action> = candidate
                .alternatives(&instance)
                .into_iter()
                .filter(|a| a.values != current.values)
                .collect();
            if others.is_empty() {
                continue;
            }
            let action = others[harness.rng.random_range(0..others.len())].clone();
            if apply(&mut candidate, &mut scratch, &action) {
                changed.push(instance);
                path.push(action);
            }
        }
        if changed.is_empty() {
            continue;
        }
        replay(&mut candidate, &mut scratch, best, &changed, &mut path);
        let Some(leaf) = descend(&candidate, &mut path, harness, &Pick::Uniform, bound) else {
            continue;
        };
        // The replayed decisions were not checked against the bound.
        if !seen.contains(&leaf) && !harness.prunes(bound, &leaf) {
            return Some((leaf, path));
        }
    }
    None
}

/// Applies the decisions of `best` on instances not `changed` to
/// `candidate`, in order, those that still hold, and appends them to
/// `path`. Most of a long path is implied by the decisions before it (then
/// applying it changes nothing) or refuted by the change (then it fails):
/// both are read off the domain, without a copy and a propagation.
fn replay<B: Backbone>(
    candidate: &mut Candidate<B>,
    scratch: &mut Candidate<B>,
    best: &[Action],
    changed: &[InstanceId],
    path: &mut Vec<Action>,
) {
    for action in best {
        let instance = action.instance();
        if changed.contains(&instance) {
            continue;
        }
        let left = candidate.alternative_values(&instance);
        let holds = match left & action.values {
            0 => false,
            kept if kept == left => true,
            _ => apply(candidate, scratch, action),
        };
        if holds {
            path.push(action.clone());
        }
    }
}

/// Applies `action` if propagation accepts it; the candidate is unchanged
/// otherwise. The try is made on `scratch`, refilled in place, so that no
/// try allocates a vector.
fn apply<B: Backbone>(
    candidate: &mut Candidate<B>,
    scratch: &mut Candidate<B>,
    action: &Action,
) -> bool {
    scratch.clone_from(candidate);
    if scratch.apply(action).is_ok() {
        std::mem::swap(candidate, scratch);
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::harness::{Budget, NoBound, Outcome, SearchConfig};
    use crate::search::unconstrained::MODEL;
    use crate::testing::RandomBackbone;

    type Leaf = Candidate<RandomBackbone>;

    /// Runs `test` on the root of `size` instances, a leaf drawn from it
    /// at random with its path, an empty `Seen` and a seeded harness.
    fn with_random_leaf(
        size: u32,
        test: impl FnOnce(&Leaf, &Leaf, &[Action], &mut Seen, &mut Harness<RandomBackbone>),
    ) {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, size)).expect("a space");
        let mut evaluate = |_: &Leaf| Outcome::ok(0.0);
        let config = SearchConfig {
            seed: 3,
            budget: Budget::evaluations(10),
            priority: Vec::new(),
        };
        let mut harness = Harness::new(&mut evaluate, &config);
        let mut path = Vec::new();
        let leaf =
            descend(&root, &mut path, &mut harness, &Pick::Uniform, &NoBound).expect("a leaf");
        test(&root, &leaf, &path, &mut Seen::default(), &mut harness);
    }

    #[test]
    fn a_neighbour_is_an_unseen_leaf_one_to_three_decisions_away() {
        // 40 instances: 80 neighbours one change away.
        with_random_leaf(40, |root, best, best_path, seen, harness| {
            assert!(seen.insert(best));
            let mut changes = [0; 4];
            for _ in 0..40 {
                let (leaf, path) = neighbour(root, best_path, seen, harness, &NoBound)
                    .expect("unseen neighbours left");
                assert!(leaf.is_complete());
                let differ = root
                    .instances(&[])
                    .iter()
                    .filter(|i| leaf.domain(i) != best.domain(i))
                    .count();
                assert!((1..=3).contains(&differ), "{differ} decisions changed");
                changes[differ] += 1;
                // The path leads from the root to the leaf (a journal replays it).
                let mut replayed = root.clone();
                for action in &path {
                    replayed.apply(action).expect("the path applies");
                }
                assert_eq!(replayed.decisions(), leaf.decisions());
                assert!(seen.insert(&leaf), "a neighbour already seen");
            }
            assert!(changes[1] > changes[2] && changes[2] > 0, "{changes:?}");
        });
    }

    #[test]
    fn no_neighbour_once_the_time_budget_is_spent() {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 40)).expect("a space");
        let mut evaluate = |_: &Leaf| Outcome::ok(0.0);
        let config = SearchConfig {
            seed: 3,
            budget: Budget {
                evaluations: None,
                time: Some(std::time::Duration::ZERO),
            },
            priority: Vec::new(),
        };
        let mut harness = Harness::new(&mut evaluate, &config);
        let mut path = Vec::new();
        descend(&root, &mut path, &mut harness, &Pick::Uniform, &NoBound).expect("a leaf");
        // 80 unseen neighbours one change away, and no time to draw one.
        assert!(neighbour(&root, &path, &Seen::default(), &mut harness, &NoBound).is_none());
    }

    #[test]
    fn no_neighbour_once_every_one_is_seen() {
        // One instance with three values: two neighbours, then none.
        with_random_leaf(1, |root, best, best_path, seen, harness| {
            seen.insert(best);
            for _ in 0..2 {
                let (leaf, _) =
                    neighbour(root, best_path, seen, harness, &NoBound).expect("a neighbour");
                assert!(seen.insert(&leaf));
            }
            assert!(neighbour(root, best_path, seen, harness, &NoBound).is_none());
        });
    }
}
