//! Searches over commuting decisions: a tree node is a candidate, a child
//! fixes one more open instance, a leaf is fully decided and gets
//! evaluated.
//!
//! Every search runs through a [`Harness`] that owns what searches share:
//! the evaluator, the budget and why the search stopped, the best leaf so
//! far, the journal of evaluations and, when resuming, the replay of a
//! previous journal (recorded leaves are not evaluated again). One seeded
//! generator drives every random choice, so the same seed and the same
//! measurements give the same sequence of candidates (for a given batch
//! size: searches may propose several leaves at once, see
//! [`Harness::with_batch`]).
//!
//! ```
//! use commute_runtime::search::{Budget, Outcome, SearchConfig, random_search};
//! use commute_runtime::testing::RandomBackbone;
//! # use commute_runtime::model::*;
//! # static MODEL: Model = Model { name: "m", sets: &[SetDef { name: "S", params: &[], superset: None, quotient: None }],
//! #   properties: &[], choices: &[ChoiceDef { name: "x", params: &[VarDef { name: "s", set: 0, args: &[] }],
//! #   kind: ChoiceKind::Enum { values: &["A", "B"] }, symmetry: Symmetry::None, origin: "m:1" }],
//! #   constraints: &[], triggers: &[], callbacks: &[], clauses_by_choice: &[&[]], counters_by_choice: &[&[]], default_priority: &[0] };
//! let root = commute_runtime::Candidate::new(RandomBackbone::new(&MODEL, 1, 3)).unwrap();
//! // Cost: how many instances took their second value.
//! let mut evaluate = |leaf: &commute_runtime::Candidate<RandomBackbone>| {
//!     Outcome::ok(leaf.instances(&[]).iter().filter(|i| leaf.alternatives(i).is_empty()).count() as f64)
//! };
//! let config = SearchConfig { seed: 7, budget: Budget::evaluations(20), priority: vec![] };
//! let result = random_search(&root, &mut evaluate, &config);
//! assert!(result.best.is_some());
//! ```

mod baselines;
pub mod breakdown;
mod harness;
pub mod journal;
mod mcts;
mod polish;
pub mod record;
pub mod report;
mod screen;
mod start;

#[cfg(test)]
mod unconstrained;

pub use baselines::{
    exhaustive_search, greedy_search, random_search, run_exhaustive, run_greedy, run_random,
    UNIFORM_DESCENTS,
};
pub use harness::{
    Bound, Budget, Evaluator, Harness, NoBound, Outcome, Remeasured, SearchConfig, SearchResult,
    StopReason,
};
pub use mcts::{mcts, MctsConfig, RolloutPolicy, TreePolicy};
pub use record::{Evaluation, Flag, Phases, Revision, Status};
pub use start::path_to;
