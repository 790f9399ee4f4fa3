//! Screening proposals before they are evaluated: of several leaves a
//! search could evaluate next, the one the leaves evaluated so far predict
//! to be fastest.
//!
//! An evaluation costs a compile and runs; drawing a leaf costs a few
//! propagations. On the loop space most random leaves are many times
//! slower than the best (a lost parallel loop, a strided inner loop), and
//! evaluating them is most of a search's wall time. The prediction is an
//! additive model of the log-value over the decisions: each value of each
//! instance (one bit of the decision vector, so the model needs nothing
//! from the space but its vector) adds a weight, fitted by ridge
//! regression on the evaluated leaves. Decisions that multiply the time
//! are learnt from a few leaves that make them, whatever the other
//! decisions of those leaves were.

use super::record::Status;
use crate::backbone::Backbone;
use crate::candidate::Candidate;

/// A proposal predicted within this factor of the best value is worth an
/// evaluation: a leaf slower than that is cut off after one run (the
/// loop tuner's default cut-off), and the time it took is lost.
pub(crate) const PROMISING: f64 = 2.0;

/// Below this many evaluated leaves, nothing is predicted.
const LEARNED_FROM: usize = 8;

/// Pulls the weight of a value seen in few leaves towards nothing.
const RIDGE: f64 = 1.0;

/// Coordinate-descent sweeps after each new leaf (warm-started, so a few
/// suffice).
const SWEEPS: usize = 4;

/// The evaluated leaves and the model fitted on them; it records nothing
/// until a search that screens enables it (searches that do not would
/// pay for a fit after every evaluation, and keep every leaf's bits).
#[derive(Default)]
pub(crate) struct Screen {
    enabled: bool,
    /// Each leaf's set bits and log-value (`None`: failed or wrong).
    leaves: Vec<(Vec<u32>, Option<f64>)>,
    /// For each bit, the leaves that have it.
    by_bit: Vec<Vec<u32>>,
    /// Each bit's weight.
    weights: Vec<f64>,
    /// The mean log-value.
    intercept: f64,
}

impl Screen {
    /// Records the leaves evaluated from now on.
    pub(crate) fn enable(&mut self) {
        self.enabled = true;
    }

    /// Records the outcome of an evaluated leaf (`None`: failed or wrong)
    /// and refits the model, once enabled.
    pub(crate) fn record<B: Backbone>(
        &mut self,
        leaf: &Candidate<B>,
        status: Status,
        value: Option<f64>,
    ) {
        if !self.enabled {
            return;
        }
        let value = value
            .filter(|v| status == Status::Ok && *v > 0.0 && v.is_finite())
            .map(f64::ln);
        let bits = set_bits(leaf.words());
        let index = self.leaves.len() as u32;
        for &bit in &bits {
            let bit = bit as usize;
            if bit >= self.by_bit.len() {
                self.by_bit.resize(bit + 1, Vec::new());
                self.weights.resize(bit + 1, 0.0);
            }
            self.by_bit[bit].push(index);
        }
        self.leaves.push((bits, value));
        if self.leaves.len() >= LEARNED_FROM {
            self.fit();
        }
    }

    /// Ridge regression by coordinate descent, from the current weights.
    fn fit(&mut self) {
        // A failed leaf counts as twice the slowest value.
        let worst = self
            .leaves
            .iter()
            .filter_map(|(_, v)| *v)
            .fold(f64::NEG_INFINITY, f64::max);
        let failed = if worst.is_finite() {
            worst + 2f64.ln()
        } else {
            0.0
        };
        let mut residuals: Vec<f64> = self
            .leaves
            .iter()
            .map(|(bits, value)| {
                value.unwrap_or(failed)
                    - self.intercept
                    - bits.iter().map(|&b| self.weights[b as usize]).sum::<f64>()
            })
            .collect();
        for _ in 0..SWEEPS {
            let shift = residuals.iter().sum::<f64>() / residuals.len() as f64;
            self.intercept += shift;
            residuals.iter_mut().for_each(|r| *r -= shift);
            for (bit, leaves) in self.by_bit.iter().enumerate() {
                if leaves.is_empty() {
                    continue;
                }
                let old = self.weights[bit];
                let sum: f64 = leaves.iter().map(|&i| residuals[i as usize]).sum();
                let count = leaves.len() as f64;
                let new = (sum + count * old) / (count + RIDGE);
                let delta = new - old;
                if delta != 0.0 {
                    self.weights[bit] = new;
                    for &i in leaves {
                        residuals[i as usize] -= delta;
                    }
                }
            }
        }
    }

    /// Whether enough leaves are in to predict.
    pub(crate) fn predicts(&self) -> bool {
        self.leaves.len() >= LEARNED_FROM
    }

    /// The predicted log-value of `leaf`; `None` until enough leaves are
    /// in.
    pub(crate) fn predict<B: Backbone>(&self, leaf: &Candidate<B>) -> Option<f64> {
        if !self.predicts() {
            return None;
        }
        let weights: f64 = set_bits(leaf.words())
            .iter()
            .filter_map(|&b| self.weights.get(b as usize))
            .sum();
        Some(self.intercept + weights)
    }

    /// The index of the proposal predicted fastest (the first on ties, and
    /// the first while nothing is predicted).
    pub(crate) fn pick<B: Backbone>(&self, proposals: &[&Candidate<B>]) -> usize {
        self.pick_predicted(proposals).0
    }

    /// [`pick`](Screen::pick), with the chosen proposal's predicted
    /// log-value (`None` while nothing is predicted).
    fn pick_predicted<B: Backbone>(&self, proposals: &[&Candidate<B>]) -> (usize, Option<f64>) {
        let mut chosen = (0, None);
        for (index, leaf) in proposals.iter().enumerate() {
            match self.predict(leaf) {
                None => return (0, None),
                Some(value) if chosen.1.is_none_or(|best| value < best) => {
                    chosen = (index, Some(value));
                }
                Some(_) => {}
            }
        }
        chosen
    }

    /// Whether the proposal [`pick`](Screen::pick) would choose is worth
    /// an evaluation: nothing is predicted yet, there is no best value, or
    /// it is predicted within [`PROMISING`] times `best`. Searches draw
    /// more proposals while it is not (see `MctsConfig::screen_rounds`).
    pub(crate) fn promising<B: Backbone>(
        &self,
        proposals: &[&Candidate<B>],
        best: Option<f64>,
    ) -> bool {
        self.within(proposals, best, PROMISING)
    }

    /// [`promising`](Screen::promising) with `factor` in place of
    /// [`PROMISING`].
    pub(crate) fn within<B: Backbone>(
        &self,
        proposals: &[&Candidate<B>],
        best: Option<f64>,
        factor: f64,
    ) -> bool {
        match (self.pick_predicted(proposals).1, best) {
            (Some(predicted), Some(best)) if best > 0.0 => predicted <= (factor * best).ln(),
            _ => true,
        }
    }
}

/// The indices of the set bits of a decision vector.
fn set_bits(words: &[u64]) -> Vec<u32> {
    let mut bits = Vec::new();
    for (w, &word) in words.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            bits.push(w as u32 * 64 + rest.trailing_zeros());
            rest &= rest - 1;
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::unconstrained::MODEL;
    use crate::testing::RandomBackbone;

    type Leaf = Candidate<RandomBackbone>;

    #[test]
    fn nothing_is_predicted_before_enough_leaves_and_then_failures_count_as_slow() {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 6)).expect("a space");
        let mut screen = Screen::default();
        screen.enable();
        let all_a = leaf_with(&root, 0);
        let all_c = leaf_with(&root, 2);
        assert_eq!(screen.predict(&all_a), None);
        assert_eq!(screen.pick(&[&all_a, &all_c]), 0);
        for _ in 0..LEARNED_FROM / 2 {
            screen.record(&all_a, Status::Ok, Some(1.0));
            screen.record(&all_c, Status::Failed, None);
        }
        // A failure counts as twice the slowest value (ln 2 above ln 1).
        let fast = screen.predict(&all_a).expect("predicted");
        let failed = screen.predict(&all_c).expect("predicted");
        assert!(
            fast.abs() < 0.1 && (failed - 2f64.ln()).abs() < 0.1,
            "{fast} {failed}"
        );
        assert_eq!(screen.pick(&[&all_c, &all_a]), 1);
    }

    /// The leaf of `root` with every instance at its `value`-th value.
    fn leaf_with(root: &Leaf, value: u32) -> Leaf {
        let mut leaf = root.clone();
        for instance in root.instances(&[]) {
            let action = leaf
                .alternatives(&instance)
                .into_iter()
                .find(|a| a.values == 1 << value)
                .expect("the value");
            leaf.apply(&action).expect("unconstrained");
        }
        leaf
    }
}
