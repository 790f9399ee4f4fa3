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

/// Why a measured value (`Status::Ok`) is less than a full measurement:
/// the evaluator gave up on a leaf that could not beat the best.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    /// Stopped after one run that was far slower than the best: `value`
    /// is that run's time.
    CutOff,
    /// Stopped at the run timeout, which follows the best: `value` is
    /// the time it ran, less than its whole time.
    TimedOut,
    /// Timed, but no faster than the best, so not checked (it cannot be
    /// a result), and run only twice when both runs stayed well above the
    /// best: `value` is the minimum of its runs.
    Slower,
}

/// Wall-clock seconds an evaluation spent building, checking and timing
/// its leaf (what the evaluator reports; zero where it says nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    /// Building the leaf (its share, when several were built at once).
    #[serde(default)]
    pub compile: f64,
    /// Checking its result.
    #[serde(default)]
    pub check: f64,
    /// Timing it (re-measurements against the best included).
    #[serde(default)]
    pub timing: f64,
}

impl Phases {
    /// All the phases together.
    pub fn total(&self) -> f64 {
        self.compile + self.check + self.timing
    }

    /// Whether every figure is a finite number.
    pub fn is_finite(&self) -> bool {
        self.compile.is_finite() && self.check.is_finite() && self.timing.is_finite()
    }
}

/// An earlier evaluation measured again: its value from now on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    /// The [`Evaluation::index`] of the evaluation measured again.
    pub index: usize,
    /// Its new value.
    pub value: f64,
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
    /// Why `value` is less than a full measurement, if it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<Flag>,
    /// Where the evaluation's time went, if the evaluator said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
    /// The space's lower bound on the leaf's value, if the evaluator
    /// computed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
    /// The best leaf so far, measured again against this one: its value
    /// replaces the one recorded with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incumbent: Option<Revision>,
}

impl Evaluation {
    /// A record with nothing but what every evaluation has; the optional
    /// fields are empty.
    pub fn new(
        index: usize,
        path: Vec<Action>,
        status: Status,
        value: Option<f64>,
        elapsed: f64,
    ) -> Evaluation {
        Evaluation {
            index,
            path,
            status,
            value,
            measurements: Vec::new(),
            message: None,
            elapsed,
            flag: None,
            phases: None,
            bound: None,
            incumbent: None,
        }
    }

    /// A measured value that is the leaf's time, checked or not: a full
    /// measurement, or one no faster than the best (not one stopped
    /// short).
    pub fn timed_value(&self) -> Option<f64> {
        match (self.status, self.flag) {
            (Status::Ok, None | Some(Flag::Slower)) => self.value.filter(|v| !v.is_nan()),
            _ => None,
        }
    }

    /// A measured value that is a full measurement (not cut off or timed
    /// out): what can be a best.
    pub fn full_value(&self) -> Option<f64> {
        self.timed_value().filter(|_| self.flag.is_none())
    }
}
