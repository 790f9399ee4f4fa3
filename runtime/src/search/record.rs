//! One evaluation of a leaf, as searches report it and journals store it.

use serde::{Deserialize, Serialize};

use crate::action::Action;

/// How an evaluation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Measured: `value` holds the cost (lower is better, e.g. seconds).
    Ok,
    /// The leaf could not be evaluated (build error, crash, timeout).
    Failed,
    /// The leaf ran but gave a wrong result: a legality bug in the space.
    Wrong,
}

/// One evaluated leaf.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// 0-based index of the evaluation in its search.
    pub index: usize,
    /// The decisions from the search's start candidate to the leaf, in the
    /// order they were taken (single-value actions).
    pub path: Vec<Action>,
    /// How the evaluation ended.
    pub status: Status,
    /// The cost, for `Status::Ok` (lower is better).
    pub value: Option<f64>,
    /// Every raw measurement behind `value`, if the evaluator took several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measurements: Vec<f64>,
    /// A short account of a failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Seconds since the search started.
    pub elapsed: f64,
}
