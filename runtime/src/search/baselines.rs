//! Searches a result is compared with: uniform random search, greedy, and
//! exhaustive enumeration for small spaces.

use rand::Rng;

use super::harness::{Bound, Evaluator, Harness, NoBound, SearchConfig, SearchResult, StopReason};
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
/// next value is tried (backtracking one level); children that `bound`
/// puts at or above the best value are skipped (counted as pruned).
/// `None` when no value of an instance is left.
pub(crate) fn descend<B: Backbone>(
    start: &Candidate<B>,
    path: &mut Vec<Action>,
    harness: &mut Harness<B>,
    pick: &Pick<B>,
    bound: &dyn Bound<B>,
) -> Option<Candidate<B>> {
    let mut candidate = start.clone();
    if let Pick::Uniform
    | Pick::BoundWeighted {
        threshold: None, ..
    } = pick
    {
        return draw_until_one_holds(candidate, path, harness, bound);
    }
    while let Some(instance) = candidate.next_open(&harness.priority) {
        let mut children: Vec<(Action, Candidate<B>)> = Vec::new();
        for action in candidate.alternatives(&instance) {
            let mut child = candidate.clone();
            match child.apply(&action) {
                Ok(()) if harness.prunes(bound, &child) => {}
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

/// How uniform descents draw, for journal headers: a journal written by
/// searches that drew otherwise replays other proposals, so it is not
/// resumed.
pub const UNIFORM_DESCENTS: &str = "one value drawn at a time, another when it fails";

/// [`descend`] with a uniform pick: draws one value and applies it, and
/// draws again among the others only when propagation refutes it or
/// `bound` prunes it. That is the same distribution as a draw among the
/// children that survive, at one propagation per decision instead of one
/// per value.
fn draw_until_one_holds<B: Backbone>(
    mut candidate: Candidate<B>,
    path: &mut Vec<Action>,
    harness: &mut Harness<B>,
    bound: &dyn Bound<B>,
) -> Option<Candidate<B>> {
    // Every try is made on `child`, refilled from `candidate` in place.
    let mut child = candidate.clone();
    while let Some(instance) = candidate.next_open(&harness.priority) {
        let mut alternatives = candidate.alternatives(&instance);
        loop {
            if alternatives.is_empty() {
                return None;
            }
            let action = alternatives.swap_remove(harness.rng.random_range(0..alternatives.len()));
            child.clone_from(&candidate);
            match child.apply(&action) {
                Ok(()) if harness.prunes(bound, &child) => {}
                Ok(()) => {
                    path.push(action);
                    std::mem::swap(&mut candidate, &mut child);
                    break;
                }
                Err(_) => harness.dead_ends += 1,
            }
        }
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

/// Evaluates `leaves` in order after handing them to the evaluator as one
/// batch; stops early when the search must stop. Returns each evaluated
/// leaf's value (`None` for a failure), in order.
pub(crate) fn evaluate_batch<B: Backbone>(
    harness: &mut Harness<B>,
    leaves: &[(Candidate<B>, Vec<Action>)],
) -> Vec<Option<f64>> {
    let batch: Vec<(&Candidate<B>, &[Action])> =
        leaves.iter().map(|(l, p)| (l, p.as_slice())).collect();
    harness.prepare(&batch);
    let mut values = Vec::with_capacity(leaves.len());
    for (leaf, path) in leaves {
        if harness.should_stop().is_some() {
            break;
        }
        values.push(harness.evaluate(leaf, path).value);
    }
    values
}

/// Uniform random search: independent random descents from `root`.
pub fn random_search<B: Backbone>(
    root: &Candidate<B>,
    evaluator: &mut dyn Evaluator<B>,
    config: &SearchConfig,
) -> SearchResult<B> {
    run_random(root, Harness::new(evaluator, config))
}

/// [`random_search`] through a prepared harness (journal, replay,
/// batches: the descents of a batch are drawn before any of its leaves
/// is evaluated, which changes nothing here since they do not depend on
/// values).
pub fn run_random<B: Backbone>(root: &Candidate<B>, mut harness: Harness<B>) -> SearchResult<B> {
    let mut failed_descents = 0;
    let root_is_leaf = root.next_open(&harness.priority).is_none();
    while harness.should_stop().is_none() {
        let mut batch = Vec::new();
        while batch.len() < harness.batch_room() {
            let mut path = Vec::new();
            match descend(root, &mut path, &mut harness, &Pick::Uniform, &NoBound) {
                Some(leaf) => {
                    failed_descents = 0;
                    batch.push((leaf, path));
                }
                None => {
                    failed_descents += 1;
                    if failed_descents > 1000 {
                        harness.stop_with(StopReason::Exhausted);
                        break;
                    }
                }
            }
            if root_is_leaf {
                break;
            }
        }
        evaluate_batch(&mut harness, &batch);
        if root_is_leaf && !harness.evaluations().is_empty() {
            harness.stop_with(StopReason::Exhausted);
        }
    }
    harness.finish()
}

/// Greedy search: from the root, repeatedly take the child with the
/// lowest bound (ties broken at random) down to a leaf, then start again.
/// With `by_evaluation`, children are compared by evaluating one random
/// completion of each instead (each counts as an evaluation; the
/// completions of up to a batch of children are drawn before they are
/// evaluated). Either way, children bounded at or above the best value
/// are skipped.
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
            let mut children: Vec<(Action, Candidate<B>)> = Vec::new();
            for action in candidate.alternatives(&instance) {
                let mut child = candidate.clone();
                if child.apply(&action).is_err() {
                    harness.dead_ends += 1;
                } else if !harness.prunes(bound, &child) {
                    children.push((action, child));
                }
            }
            let scores = if by_evaluation {
                match probe(&mut harness, &path, &children, bound) {
                    Some(scores) => scores,
                    None => break 'restart,
                }
            } else {
                children.iter().map(|(_, c)| bound.bound(c)).collect()
            };
            let mut scored: Vec<(f64, Action, Candidate<B>)> = scores
                .into_iter()
                .zip(children)
                .map(|(score, (action, child))| (score, action, child))
                .collect();
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
            evaluate_batch(&mut harness, &[(candidate, path)]);
        }
        fruitless = 0;
    }
    harness.finish()
}

/// Scores each child (reached by `path` and its action) by evaluating one
/// random completion, in batches; `None` when the search must stop before
/// every child has a score.
fn probe<B: Backbone>(
    harness: &mut Harness<B>,
    path: &[Action],
    children: &[(Action, Candidate<B>)],
    bound: &dyn Bound<B>,
) -> Option<Vec<f64>> {
    let mut scores = Vec::with_capacity(children.len());
    let mut next = 0;
    while next < children.len() {
        let room = harness.batch_room();
        let mut batch = Vec::new();
        // Children whose completion is refuted or pruned score infinity,
        // in their place.
        let mut slots = Vec::new();
        for (action, child) in children.iter().skip(next).take(room) {
            let mut probe = path.to_vec();
            probe.push(action.clone());
            match descend(child, &mut probe, harness, &Pick::Uniform, bound) {
                Some(leaf) => {
                    slots.push(Some(batch.len()));
                    batch.push((leaf, probe));
                }
                None => slots.push(None),
            }
        }
        next += slots.len();
        let values = evaluate_batch(harness, &batch);
        if harness.should_stop().is_some() {
            return None;
        }
        for slot in slots {
            let value = slot.and_then(|i| values.get(i).copied().flatten());
            scores.push(value.unwrap_or(f64::INFINITY));
        }
    }
    Some(scores)
}

/// Exhaustive search: every leaf below `root`, depth first, skipping
/// subtrees whose bound is not below the best value found. Leaves are
/// evaluated in batches, in the order they are found.
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
    let mut batch: Vec<(Candidate<B>, Vec<Action>)> = Vec::new();
    let mut stopped = false;
    loop {
        let next = stack.pop();
        if next.is_none() || batch.len() >= harness.batch_room() {
            let size = batch.len();
            stopped = evaluate_batch(&mut harness, &std::mem::take(&mut batch)).len() < size;
        }
        let Some((candidate, path)) = next else {
            break;
        };
        if stopped || harness.should_stop().is_some() {
            stopped = true;
            break;
        }
        if harness.prunes(bound, &candidate) {
            continue;
        }
        let Some(instance) = candidate.next_open(&harness.priority) else {
            batch.push((candidate, path));
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
    if !stopped && stack.is_empty() {
        harness.stop_with(StopReason::Exhausted);
    }
    harness.finish()
}
