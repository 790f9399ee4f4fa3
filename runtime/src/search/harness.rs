//! The harness every search runs through (see the module documentation
//! of `search`): the evaluator, the budget and why the search stopped,
//! the best leaf so far, the journal of evaluations and the replay of a
//! previous journal, with what a search is configured by and returns.
//! Reads candidates, journals and evaluation records.
//!
//! Searches may hand the harness several leaves at once
//! ([`Harness::prepare`], at most [`Harness::batch_room`] of them) before
//! evaluating them one by one: an evaluator that builds leaves can build
//! them together (in parallel) while nothing is being timed.

use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::journal::{Journal, Replay};
use super::record::{Evaluation, Flag, Phases, Revision, Status};
use super::screen::Screen;
use crate::action::Action;
use crate::backbone::Backbone;
use crate::candidate::Candidate;

/// What evaluating a leaf gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// How the evaluation ended.
    pub status: Status,
    /// The cost for `Status::Ok`: lower is better.
    pub value: Option<f64>,
    /// Every raw measurement behind `value`, if the evaluator took several.
    pub measurements: Vec<f64>,
    /// A short account of a failure.
    pub message: Option<String>,
    /// Why `value` is less than a full measurement, if it is.
    pub flag: Option<Flag>,
    /// Where the evaluation's time went, if the evaluator says.
    pub phases: Option<Phases>,
    /// A lower bound on the leaf's value, if the evaluator has one.
    pub bound: Option<f64>,
    /// The best leaf so far, measured again against this one.
    pub incumbent: Option<Remeasured>,
    /// Stopped by something outside the leaf (the end of the time
    /// budget), so it says nothing of the leaf: it is not journaled, and
    /// a resumed search evaluates the leaf again.
    pub interrupted: bool,
}

/// The best leaf so far, measured again by the evaluator (next to a
/// challenger, say): its value replaces the recorded one, up or down.
#[derive(Clone, Debug, PartialEq)]
pub struct Remeasured {
    /// The leaf, by its decision vector's words
    /// ([`Candidate::decisions`]): the harness takes the new value only if
    /// it is the leaf it holds as the best.
    pub leaf: Vec<u64>,
    /// The new value.
    pub value: f64,
}

impl Outcome {
    fn new(status: Status, value: Option<f64>, message: Option<String>) -> Outcome {
        Outcome {
            status,
            value,
            measurements: Vec::new(),
            message,
            flag: None,
            phases: None,
            bound: None,
            incumbent: None,
            interrupted: false,
        }
    }

    /// Measured at `value`.
    pub fn ok(value: f64) -> Outcome {
        Outcome::new(Status::Ok, Some(value), None)
    }

    /// Measured at `value`, but not fully (see [`Flag`]).
    pub fn flagged(value: f64, flag: Flag, message: impl Into<String>) -> Outcome {
        Outcome {
            flag: Some(flag),
            ..Outcome::new(Status::Ok, Some(value), Some(message.into()))
        }
    }

    /// The leaf could not be evaluated, for the reason `message`.
    pub fn failed(message: impl Into<String>) -> Outcome {
        Outcome::new(Status::Failed, None, Some(message.into()))
    }

    /// The leaf computed a wrong result: the space let an illegal
    /// candidate through.
    pub fn wrong(message: impl Into<String>) -> Outcome {
        Outcome::new(Status::Wrong, None, Some(message.into()))
    }

    /// The same outcome, stopped by something outside the leaf (see
    /// [`Outcome::interrupted`](Outcome#structfield.interrupted)).
    pub fn interrupted(self) -> Outcome {
        Outcome {
            interrupted: true,
            ..self
        }
    }
}

/// Evaluates leaves. Closures `FnMut(&Candidate<B>) -> Outcome` are
/// evaluators.
pub trait Evaluator<B: Backbone> {
    /// Evaluates a fully decided candidate.
    fn evaluate(&mut self, leaf: &Candidate<B>) -> Outcome;

    /// The leaves the search evaluates next, in that order (a batch):
    /// an evaluator may build them together before the first
    /// [`evaluate`](Evaluator::evaluate). The search may stop before it
    /// evaluates them all. Does nothing by default.
    fn prepare(&mut self, _leaves: &[&Candidate<B>]) {}
}

impl<B: Backbone, F: FnMut(&Candidate<B>) -> Outcome> Evaluator<B> for F {
    fn evaluate(&mut self, leaf: &Candidate<B>) -> Outcome {
        self(leaf)
    }
}

/// A lower bound on the value of every leaf below a candidate. It must be
/// a true lower bound: searches prune on it.
pub trait Bound<B: Backbone> {
    /// The bound for the leaves below `candidate`.
    fn bound(&self, candidate: &Candidate<B>) -> f64;
}

/// The bound that knows nothing.
pub struct NoBound;

impl<B: Backbone> Bound<B> for NoBound {
    fn bound(&self, _: &Candidate<B>) -> f64 {
        f64::NEG_INFINITY
    }
}

/// When a search stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Stop after this many evaluations (replayed ones included).
    pub evaluations: Option<usize>,
    /// Stop once this much time has passed since the search started.
    pub time: Option<Duration>,
}

impl Budget {
    /// A budget of `count` evaluations and no time limit.
    pub fn evaluations(count: usize) -> Budget {
        Budget {
            evaluations: Some(count),
            time: None,
        }
    }
}

/// Why a search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The budget's evaluations were spent.
    EvaluationBudget,
    /// The budget's time ran out.
    TimeBudget,
    /// Every leaf was evaluated (or pruned).
    Exhausted,
    /// The search kept revisiting leaves it had already evaluated.
    NoNewLeaf,
    /// The journal could not be written.
    JournalError,
}

/// Settings every search takes.
#[derive(Clone, Debug, Default)]
pub struct SearchConfig {
    /// Seeds the one generator behind every random choice.
    pub seed: u64,
    /// When to stop.
    pub budget: Budget,
    /// Choices in the order to branch on them (the rest follow in
    /// declaration order).
    pub priority: Vec<u16>,
}

/// The outcome of a search.
pub struct SearchResult<B: Backbone> {
    /// The best leaf, its value and its decisions.
    pub best: Option<(Candidate<B>, f64, Vec<Action>)>,
    /// Every evaluation, in order.
    pub evaluations: Vec<Evaluation>,
    /// Why the search stopped.
    pub stop: StopReason,
    /// Decisions that propagation answered with a dead end.
    pub dead_ends: usize,
    /// Evaluations taken from a previous journal instead of run.
    pub replayed: usize,
    /// Candidates whose lower bound was compared with the best value.
    pub bound_checks: usize,
    /// Of those, the ones skipped because the bound was not below it
    /// (a subtree, or a leaf, left out).
    pub pruned: usize,
}

impl<B: Backbone> SearchResult<B> {
    /// The best leaf's value, if a leaf was measured.
    pub fn best_value(&self) -> Option<f64> {
        self.best.as_ref().map(|(_, v, _)| *v)
    }
}

/// What every search shares; see the module documentation.
pub struct Harness<'e, B: Backbone> {
    evaluator: &'e mut dyn Evaluator<B>,
    budget: Budget,
    started: Instant,
    pub(crate) rng: StdRng,
    pub(crate) priority: Vec<u16>,
    evaluations: Vec<Evaluation>,
    pub(super) best: Option<(Candidate<B>, f64, Vec<Action>)>,
    /// The index of the best leaf's evaluation.
    best_index: Option<usize>,
    journal: Option<&'e mut Journal>,
    replay: Option<Replay>,
    replayed: usize,
    pub(crate) dead_ends: usize,
    bound_checks: usize,
    pruned: usize,
    batch: usize,
    stop: Option<StopReason>,
    /// Every evaluated leaf, to screen the next proposals.
    pub(crate) screen: Screen,
    /// Leaves to evaluate before anything else (see [`Harness::with_starts`]).
    starts: Vec<Candidate<B>>,
}

impl<'e, B: Backbone> Harness<'e, B> {
    /// A harness for a search evaluating leaves with `evaluator`.
    pub fn new(evaluator: &'e mut dyn Evaluator<B>, config: &SearchConfig) -> Self {
        Harness {
            evaluator,
            budget: config.budget,
            started: Instant::now(),
            rng: StdRng::seed_from_u64(config.seed),
            priority: config.priority.clone(),
            evaluations: Vec::new(),
            best: None,
            best_index: None,
            journal: None,
            replay: None,
            replayed: 0,
            dead_ends: 0,
            bound_checks: 0,
            pruned: 0,
            batch: 1,
            stop: None,
            screen: Screen::default(),
            starts: Vec::new(),
        }
    }

    /// Leaves the search evaluates first, in order, before its own
    /// proposals (MCTS then credits its tree with their paths and takes
    /// its local steps around the best). They count in the budget, are
    /// journaled like any leaf, and a resumed search replays them.
    pub fn with_starts(mut self, leaves: Vec<Candidate<B>>) -> Self {
        self.starts = leaves;
        self
    }

    /// The starting leaves, each with its path from `root` in the
    /// harness's priority order (those not below `root` are dropped),
    /// taken once.
    pub(crate) fn take_starts(&mut self, root: &Candidate<B>) -> Vec<(Candidate<B>, Vec<Action>)> {
        std::mem::take(&mut self.starts)
            .into_iter()
            .filter_map(|leaf| {
                let path = super::start::path_to(root, &leaf, &self.priority)?;
                Some((leaf, path))
            })
            .collect()
    }

    /// Lets searches propose up to `size` leaves at a time (at least 1,
    /// the default): they hand each batch to the evaluator's
    /// [`prepare`](Evaluator::prepare) before evaluating it. The sequence
    /// of leaves depends on the batch size (a search proposes a batch
    /// before it knows the values of its leaves), so a resumed search
    /// must use the size of the interrupted one.
    pub fn with_batch(mut self, size: usize) -> Self {
        self.batch = size.max(1);
        self
    }

    /// How many leaves the next batch may hold: the batch size, or fewer
    /// when the evaluation budget has fewer left (at least 1).
    pub fn batch_room(&self) -> usize {
        let left = self
            .budget
            .evaluations
            .map_or(usize::MAX, |n| n.saturating_sub(self.evaluations.len()));
        self.batch.min(left).max(1)
    }

    /// Hands the leaves a search evaluates next (with their paths) to the
    /// evaluator's [`prepare`](Evaluator::prepare), but for those the
    /// replay of a journal will answer.
    pub fn prepare(&mut self, leaves: &[(&Candidate<B>, &[Action])]) {
        let fresh: Vec<&Candidate<B>> = leaves
            .iter()
            .filter(|(_, path)| !self.replay.as_ref().is_some_and(|r| r.has(path)))
            .map(|(leaf, _)| *leaf)
            .collect();
        if !fresh.is_empty() {
            self.evaluator.prepare(&fresh);
        }
    }

    /// Whether `bound` says that nothing below `candidate` can beat the
    /// best value so far (counted as a pruned candidate).
    pub fn prunes(&mut self, bound: &dyn Bound<B>, candidate: &Candidate<B>) -> bool {
        let Some(best) = self.best_value() else {
            return false;
        };
        let value = bound.bound(candidate);
        // A bound that knows nothing (`NoBound`) is not counted as a check.
        if value.is_finite() {
            self.bound_checks += 1;
        }
        let pruned = value >= best;
        if pruned {
            self.pruned += 1;
        }
        pruned
    }

    /// Appends every new evaluation to `journal`.
    pub fn with_journal(mut self, journal: &'e mut Journal) -> Self {
        self.journal = Some(journal);
        self
    }

    /// Takes the evaluations of leaves recorded in `replay` instead of
    /// running them (to resume an interrupted search).
    pub fn with_replay(mut self, replay: Replay) -> Self {
        self.replay = Some(replay);
        self
    }

    /// Why the search must stop now, if it must.
    pub fn should_stop(&mut self) -> Option<StopReason> {
        if self.stop.is_none() {
            if self
                .budget
                .evaluations
                .is_some_and(|n| self.evaluations.len() >= n)
            {
                self.stop = Some(StopReason::EvaluationBudget);
            } else if self
                .budget
                .time
                .is_some_and(|t| self.started.elapsed() >= t)
            {
                self.stop = Some(StopReason::TimeBudget);
            }
        }
        self.stop
    }

    /// Records that the search ran out of leaves.
    pub fn stop_with(&mut self, reason: StopReason) {
        self.stop.get_or_insert(reason);
    }

    /// The best value measured so far.
    pub fn best_value(&self) -> Option<f64> {
        self.best.as_ref().map(|(_, v, _)| *v)
    }

    /// The evaluations so far, in order.
    pub fn evaluations(&self) -> &[Evaluation] {
        &self.evaluations
    }

    /// Evaluates a leaf reached by `path` (or takes its recorded result),
    /// journals it, and returns it.
    pub fn evaluate(&mut self, leaf: &Candidate<B>, path: &[Action]) -> Evaluation {
        let index = self.evaluations.len();
        let recorded = self.replay.as_mut().and_then(|r| r.lookup(path).cloned());
        let evaluation = match recorded {
            Some(mut evaluation) => {
                self.replayed += 1;
                evaluation.index = index;
                evaluation
            }
            None => {
                let outcome = self.evaluator.evaluate(leaf);
                let interrupted = outcome.interrupted;
                let incumbent = outcome.incumbent.as_ref().and_then(|r| self.revision_of(r));
                let evaluation = Evaluation {
                    index,
                    path: path.to_vec(),
                    status: outcome.status,
                    value: outcome.value.filter(|_| outcome.status == Status::Ok),
                    measurements: outcome.measurements,
                    message: outcome.message,
                    elapsed: self.started.elapsed().as_secs_f64(),
                    flag: outcome.flag.filter(|_| outcome.status == Status::Ok),
                    phases: outcome.phases,
                    bound: outcome.bound,
                    incumbent,
                };
                // An interrupted evaluation is left for a resumed search.
                if let Some(journal) = self.journal.as_mut().filter(|_| !interrupted) {
                    if journal.append(&evaluation).is_err() {
                        self.stop = Some(StopReason::JournalError);
                    }
                }
                evaluation
            }
        };
        // The best measured again first: the new leaf competes with its
        // new value.
        if let (Some(revision), Some((_, value, _))) = (&evaluation.incumbent, self.best.as_mut()) {
            if self.best_index == Some(revision.index) {
                *value = revision.value;
            }
        }
        if let Some(value) = evaluation.full_value() {
            if self.best_value().is_none_or(|best| value < best) {
                self.best = Some((leaf.clone(), value, path.to_vec()));
                self.best_index = Some(index);
            }
        }
        self.screen
            .record(leaf, evaluation.status, evaluation.value);
        self.evaluations.push(evaluation.clone());
        evaluation
    }

    /// The journal's record of a re-measurement the evaluator reports:
    /// only of the leaf held as the best.
    fn revision_of(&self, remeasured: &Remeasured) -> Option<Revision> {
        let (best, _, _) = self.best.as_ref()?;
        let index = self.best_index?;
        (best.decisions().words == remeasured.leaf && remeasured.value.is_finite()).then_some(
            Revision {
                index,
                value: remeasured.value,
            },
        )
    }

    /// The search's result; a search that stopped for no other reason
    /// ran out of leaves.
    pub fn finish(mut self) -> SearchResult<B> {
        let stop = self.should_stop().unwrap_or(StopReason::Exhausted);
        SearchResult {
            best: self.best,
            evaluations: self.evaluations,
            stop,
            dead_ends: self.dead_ends,
            replayed: self.replayed,
            bound_checks: self.bound_checks,
            pruned: self.pruned,
        }
    }
}
