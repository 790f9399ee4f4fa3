//! Starting points: leaves a search evaluates first (a compiler's own
//! schedule, an expert's guess), so that its local steps work around the
//! best of them from the start and its tree is credited with their
//! paths.

use crate::action::Action;
use crate::backbone::Backbone;
use crate::candidate::Candidate;

/// The path a tree search would take from `root` to `leaf`: at each step
/// the next open instance in `priority` order, restricted to the leaf's
/// value. `None` when `leaf` is not complete or not below `root`.
pub fn path_to<B: Backbone>(
    root: &Candidate<B>,
    leaf: &Candidate<B>,
    priority: &[u16],
) -> Option<Vec<Action>> {
    if !leaf.is_complete() {
        return None;
    }
    let mut candidate = root.clone();
    let mut path = Vec::new();
    while let Some(instance) = candidate.next_open(priority) {
        let action = leaf.alternatives(&instance).into_iter().next()?;
        candidate.apply(&action).ok()?;
        path.push(action);
    }
    (candidate.decisions() == leaf.decisions()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::unconstrained::MODEL;
    use crate::testing::RandomBackbone;

    #[test]
    fn the_path_to_a_leaf_replays_to_it_in_priority_order() {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 12)).expect("a space");
        for seed in 0..5usize {
            // A leaf taking the values `seed` picks, in reverse order of
            // instances (not the path's order).
            let mut leaf = root.clone();
            for (k, instance) in root.instances(&[]).into_iter().rev().enumerate() {
                let values = leaf.alternatives(&instance);
                if let Some(action) = values.get((seed + k) % values.len().max(1)) {
                    leaf.apply(action).expect("values hold");
                }
            }
            let path = path_to(&root, &leaf, &[]).expect("a path");
            let mut replayed = root.clone();
            for action in &path {
                assert_eq!(replayed.next_open(&[]), Some(action.instance()));
                replayed.apply(action).expect("the path applies");
            }
            assert_eq!(replayed.decisions(), leaf.decisions());
        }
        // The root itself is no leaf.
        assert!(path_to(&root, &root, &[]).is_none());
    }
}
