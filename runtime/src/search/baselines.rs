//! Searches a result is compared with: uniform random search, greedy, and
//! exhaustive enumeration for small spaces.

use rand::Rng;

use super::harness::{Bound, Evaluator, Harness, SearchConfig, SearchResult, StopReason};
use crate::action::Action;
use crate::backbone::Backbone;
use crate::candidate::Candidate;

/// How a descent picks among the children of a candidate.
pub(crate) enum Pick<'b, B: Backbone> {
    /// Uniformly among the values that survive propagation.
    Uniform,
    /// With probability proportional to `max(threshold - bound(child), 0)`;
    /// uniformly while no threshold is known.
    BoundWeighted {
        bound: &'b dyn Bound<B>,
        threshold: Option<f64>,
    },
}

/// Descends from `start` to a leaf, appending the decisions to `path`.
/// A decision that propagation refutes is counted as a dead end and the
/// next value is tried (backtracking one level); `None` when every value
/// of an instance is refuted.
pub(crate) fn descend<B: Backbone>(
    start: &Candidate<B>,
    path: &mut Vec<Action>,
    harness: &mut Harness<B>,
    pick: &Pick<B>,
) -> Option<Candidate<B>> {
    let mut candidate = start.clone();
    while let Some(instance) = candidate.next_open(&harness.priority) {
        let mut children: Vec<(Action, Candidate<B>)> = Vec::new();
        for action in candidate.alternatives(&instance) {
            let mut child = candidate.clone();
            match child.apply(&action) {
                Ok(()) => children.push((action, child)),
                Err(_) => harness.dead_ends += 1,
            }
        }
        let chosen = choose(&children, harness, pick)?;
        let (action, child) = children.swap_remove(chosen);
        path.push(action);
        candidate = child;
    }
    Some(candidate)
}

fn choose<B: Backbone>(
    children: &[(Action, Candidate<B>)],
    harness: &mut Harness<B>,
    pick: &Pick<B>,
) -> Option<usize> {
    if children.is_empty() {
        return None;
    }
    if let Pick::BoundWeighted {
        bound,
        threshold: Some(threshold),
    } = pick
    {
        let weights: Vec<f64> = children
            .iter()
            .map(|(_, c)| (threshold - bound.bound(c)).max(0.0))
            .collect();
        let total: f64 = weights.iter().sum();
        if total > 0.0 && total.is_finite() {
            let mut draw = harness.rng.random::<f64>() * total;
            for (i, w) in weights.iter().enumerate() {
                if draw < *w {
                    return Some(i);
                }
                draw -= w;
            }
            return weights.iter().rposition(|w| *w > 0.0);
        }
        if total == 0.0 {
            // Every child is bounded above the best leaf: nothing to gain here.
            return None;
        }
    }
    Some(harness.rng.random_range(0..children.len()))
}

/// Uniform random search: independent random descents from `root`.
pub fn random_search<B: Backbone>(
    root: &Candidate<B>,
    evaluator: &mut dyn Evaluator<B>,
    config: &SearchConfig,
) -> SearchResult<B> {
    run_random(root, Harness::new(evaluator, config))
}

/// [`random_search`] through a prepared harness (journal, replay).
pub fn run_random<B: Backbone>(root: &Candidate<B>, mut harness: Harness<B>) -> SearchResult<B> {
    let mut failed_descents = 0;
    while harness.should_stop().is_none() {
        let mut path = Vec::new();
        match descend(root, &mut path, &mut harness, &Pick::Uniform) {
            Some(leaf) => {
                failed_descents = 0;
                harness.evaluate(&leaf, &path);
            }
            None => {
                failed_descents += 1;
                if failed_descents > 1000 {
                    harness.stop_with(StopReason::Exhausted);
                }
            }
        }
        if root.next_open(&harness.priority).is_none() && !harness.evaluations().is_empty() {
            harness.stop_with(StopReason::Exhausted);
        }
    }
    harness.finish()
}

/// Greedy search: from the root, repeatedly take the child with the
/// lowest bound (ties broken at random) down to a leaf, then start again.
/// With `by_evaluation`, children are compared by evaluating one random
/// completion of each instead (each counts as an evaluation).
pub fn greedy_search<B: Backbone>(
    root: &Candidate<B>,
    evaluator: &mut dyn Evaluator<B>,
    bound: &dyn Bound<B>,
    by_evaluation: bool,
    config: &SearchConfig,
) -> SearchResult<B> {
    run_greedy(root, Harness::new(evaluator, config), bound, by_evaluation)
}

/// [`greedy_search`] through a prepared harness (journal, replay).
pub fn run_greedy<B: Backbone>(
    root: &Candidate<B>,
    mut harness: Harness<B>,
    bound: &dyn Bound<B>,
    by_evaluation: bool,
) -> SearchResult<B> {
    let mut fruitless = 0;
    'restart: while harness.should_stop().is_none() {
        let mut candidate = root.clone();
        let mut path = Vec::new();
        while let Some(instance) = candidate.next_open(&harness.priority) {
            let mut scored: Vec<(f64, Action, Candidate<B>)> = Vec::new();
            for action in candidate.alternatives(&instance) {
                let mut child = candidate.clone();
                if child.apply(&action).is_err() {
                    harness.dead_ends += 1;
                    continue;
                }
                let score = if by_evaluation {
                    let mut probe = path.clone();
                    probe.push(action.clone());
                    match descend(&child, &mut probe, &mut harness, &Pick::Uniform) {
                        Some(leaf) => harness
                            .evaluate(&leaf, &probe)
                            .value
                            .unwrap_or(f64::INFINITY),
                        None => f64::INFINITY,
                    }
                } else {
                    bound.bound(&child)
                };
                if harness.should_stop().is_some() {
                    break 'restart;
                }
                scored.push((score, action, child));
            }
            let Some(best) = scored.iter().map(|s| s.0).min_by(|a, b| a.total_cmp(b)) else {
                fruitless += 1;
                if fruitless > 1000 {
                    harness.stop_with(StopReason::Exhausted);
                }
                continue 'restart;
            };
            let ties: Vec<usize> = (0..scored.len()).filter(|&i| scored[i].0 == best).collect();
            let (_, action, child) =
                scored.swap_remove(ties[harness.rng.random_range(0..ties.len())]);
            path.push(action);
            candidate = child;
        }
        if !by_evaluation {
            harness.evaluate(&candidate, &path);
        }
        fruitless = 0;
    }
    harness.finish()
}

/// Exhaustive search: every leaf below `root`, depth first, skipping
/// subtrees whose bound is not below the best value found.
pub fn exhaustive_search<B: Backbone>(
    root: &Candidate<B>,
    evaluator: &mut dyn Evaluator<B>,
    bound: &dyn Bound<B>,
    config: &SearchConfig,
) -> SearchResult<B> {
    run_exhaustive(root, Harness::new(evaluator, config), bound)
}

/// [`exhaustive_search`] through a prepared harness (journal, replay).
pub fn run_exhaustive<B: Backbone>(
    root: &Candidate<B>,
    mut harness: Harness<B>,
    bound: &dyn Bound<B>,
) -> SearchResult<B> {
    let mut stack: Vec<(Candidate<B>, Vec<Action>)> = vec![(root.clone(), Vec::new())];
    while let Some((candidate, path)) = stack.pop() {
        if harness.should_stop().is_some() {
            break;
        }
        if harness
            .best_value()
            .is_some_and(|best| bound.bound(&candidate) >= best)
        {
            continue;
        }
        let Some(instance) = candidate.next_open(&harness.priority) else {
            harness.evaluate(&candidate, &path);
            continue;
        };
        for action in candidate.alternatives(&instance).into_iter().rev() {
            let mut child = candidate.clone();
            match child.apply(&action) {
                Ok(()) => {
                    let mut child_path = path.clone();
                    child_path.push(action);
                    stack.push((child, child_path));
                }
                Err(_) => harness.dead_ends += 1,
            }
        }
    }
    if stack.is_empty() {
        harness.stop_with(StopReason::Exhausted);
    }
    harness.finish()
}
