//! Exhaustive exploration of small spaces: every leaf reachable by
//! decisions and propagation, and, for testing propagation, every
//! assignment of the unpropagated domains that the checker accepts.

use crate::backbone::Backbone;
use crate::candidate::{Candidate, CandidateError};

/// The leaves below a candidate.
pub struct Enumeration<B: Backbone> {
    /// The leaves, in the order a depth-first descent reaches them.
    pub leaves: Vec<Candidate<B>>,
    /// Decisions that propagation answered with a dead end.
    pub dead_ends: usize,
    /// Whether `limit` leaves were reached before the end.
    pub truncated: bool,
}

/// Every fully decided candidate below `root`, branching on the first open
/// instance in `priority` order, stopping after `limit` leaves.
pub fn enumerate<B: Backbone>(
    root: &Candidate<B>,
    priority: &[u16],
    limit: usize,
) -> Enumeration<B> {
    let mut out = Enumeration {
        leaves: Vec::new(),
        dead_ends: 0,
        truncated: false,
    };
    let mut stack = vec![root.clone()];
    while let Some(candidate) = stack.pop() {
        let Some(instance) = candidate.next_open(priority) else {
            if out.leaves.len() == limit {
                out.truncated = true;
                break;
            }
            out.leaves.push(candidate);
            continue;
        };
        for action in candidate.alternatives(&instance).into_iter().rev() {
            let mut child = candidate.clone();
            match child.apply(&action) {
                Ok(()) => stack.push(child),
                Err(_) => out.dead_ends += 1,
            }
        }
    }
    out
}

/// Every assignment of one value to each instance, taken from the domains
/// before any propagation, that the checker accepts; each as the value
/// masks of [`Candidate::instances`] in order. Fails past `limit`
/// assignments tried.
pub fn brute_force<B: Backbone>(backbone: B, limit: u64) -> Result<Vec<Vec<u64>>, CandidateError> {
    let base = Candidate::unpropagated(backbone)?;
    let instances = base.instances(&[]);
    let choices: Vec<Vec<u64>> = instances.iter().map(|i| base.raw_alternatives(i)).collect();
    let total = choices
        .iter()
        .try_fold(1u64, |acc, c| acc.checked_mul(c.len() as u64))
        .unwrap_or(u64::MAX);
    if total > limit {
        return Err(CandidateError::Mismatch(format!(
            "{total} assignments, more than the limit of {limit}"
        )));
    }
    let mut accepted = Vec::new();
    let mut digits = vec![0usize; instances.len()];
    for _ in 0..total {
        let masks: Vec<u64> = digits.iter().zip(&choices).map(|(&d, c)| c[d]).collect();
        let candidate = base.with_raw_masks(&instances, &masks);
        if candidate.check().is_ok() {
            accepted.push(masks);
        }
        for (digit, options) in digits.iter_mut().zip(&choices) {
            *digit += 1;
            if *digit < options.len() {
                break;
            }
            *digit = 0;
        }
    }
    Ok(accepted)
}
