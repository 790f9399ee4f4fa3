//! The time budget of a tuning run, as one deadline for the whole command:
//! reading the kernel's loop space, the reference, Polly's schedule, the
//! starts, the baselines, the original nest and the search all come out
//! of it, the search getting what the others left, so that
//! `--time-budget 60` ends after about a minute whatever the kernel's run
//! time. (When the budget was the search's alone, a TSVC
//! loop whose run takes 2.8 s ran 123 s under `--time-budget 60`: 49 s of
//! reference and baselines, 11 s of the original nest, then 60 s of
//! search.)
//!
//! On a kernel that runs for seconds a short budget goes first to the
//! reference's runs and the baselines, so the reference's timed runs are
//! cut to one past [`REFERENCE_SHARE`] of it, and [`baseline_plan`] gives
//! the baselines fewer runs, or leaves some out, to keep them within a
//! share of it.

use std::time::{Duration, Instant};

/// When a tuning run must end, if it has a time budget.
#[derive(Clone, Copy, Debug)]
pub(super) struct Deadline {
    started: Instant,
    budget: Option<Duration>,
}

impl Deadline {
    /// A deadline `seconds` from now (`None`: no time budget).
    pub(super) fn new(seconds: Option<f64>) -> Deadline {
        Deadline {
            started: Instant::now(),
            budget: seconds.map(|s| Duration::from_secs_f64(s.max(0.0))),
        }
    }

    /// The time since the run started.
    pub(super) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The whole budget, in seconds.
    pub(super) fn budget_seconds(&self) -> Option<f64> {
        self.budget.map(|b| b.as_secs_f64())
    }

    /// The time left (none when there is no budget; zero once spent).
    pub(super) fn left(&self) -> Option<Duration> {
        self.budget
            .map(|b| b.saturating_sub(self.started.elapsed()))
    }

    /// [`Deadline::left`] in seconds.
    pub(super) fn seconds_left(&self) -> Option<f64> {
        self.left().map(|d| d.as_secs_f64())
    }

    /// Whether the budget is spent.
    pub(super) fn spent(&self) -> bool {
        self.left().is_some_and(|d| d.is_zero())
    }

    /// When the budget ends, if there is one.
    pub(super) fn at(&self) -> Option<Instant> {
        self.budget.map(|b| self.started + b)
    }
}

/// The share of the time budget the reference's timed runs may take
/// before they are cut to one (after its check run, whose time tells
/// theirs): PolyBench's lu at `LARGE_DATASET` runs 13.5 s, 10 s of it
/// initializing, so its check run and four timed runs took 57.5 s of a
/// two-minute budget.
pub(super) const REFERENCE_SHARE: f64 = 0.25;

/// The share of the time budget that the baselines other than the
/// reference's build may take: a quarter leaves most of it to the search,
/// which is what finds the result, while the baselines, measured with one
/// timed run, still rank far apart builds (Polly's against the plain one
/// differed by 1% to 2.4x on TSVC and PolyBench).
const BASELINE_SHARE: f64 = 0.25;

/// How the baselines other than the reference's own build are measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct BaselinePlan {
    /// Timed runs of each.
    pub(super) runs: usize,
    /// Whether that is fewer than candidates get: the budget is short for
    /// this kernel (the original nest is then left out, Polly's parallel
    /// build measured first).
    pub(super) reduced: bool,
    /// Seconds they may take in all (`None`: no time budget).
    allowed: Option<f64>,
    /// The expected seconds of one, until one is measured.
    estimate: f64,
}

impl BaselinePlan {
    /// Whether one more baseline fits, `spent` seconds having gone to
    /// those before it, the last of which took `last` (the best guess of
    /// the next one's cost: Polly's builds take alike).
    pub(super) fn fits(&self, spent: f64, last: Option<f64>) -> bool {
        self.allowed
            .is_none_or(|allowed| spent + last.unwrap_or(self.estimate) <= allowed)
    }
}

/// The plan for `count` baselines besides the reference's build, whose
/// measurement (build, check run and `runs` timed runs) took
/// `reference_wall` seconds: every one with `runs` runs when they all
/// fit in [`BASELINE_SHARE`] of the budget (and in what is left of it);
/// otherwise one run each (a build and a check run, whose printed kernel
/// time is the value; a timed run too where the program prints no time:
/// at most about half the reference's measurement, which has at least
/// three runs), as many as fit. Without a time budget, all with `runs`.
pub(super) fn baseline_plan(
    count: usize,
    runs: usize,
    reference_wall: f64,
    budget: Option<f64>,
    left: Option<f64>,
) -> BaselinePlan {
    let (Some(budget), Some(left)) = (budget, left) else {
        return BaselinePlan {
            runs,
            reduced: false,
            allowed: None,
            estimate: reference_wall,
        };
    };
    let allowed = (BASELINE_SHARE * budget).min(left);
    let (each, estimate) = if count as f64 * reference_wall <= allowed {
        (runs, reference_wall)
    } else {
        (1, reference_wall / 2.0)
    };
    BaselinePlan {
        runs: each,
        reduced: each < runs,
        allowed: Some(allowed),
        estimate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many of `count` baselines a plan measures when each takes
    /// `each` seconds.
    fn measured(plan: &BaselinePlan, count: usize, each: f64) -> usize {
        let mut spent = 0.0;
        let mut last = None;
        for n in 0..count {
            if !plan.fits(spent, last) {
                return n;
            }
            spent += each;
            last = Some(each);
        }
        count
    }

    #[test]
    fn baselines_keep_their_runs_when_they_fit_in_a_quarter_of_the_budget() {
        // Two baselines of 5 s in a 60 s budget: 10 s of 15 s allowed.
        let plan = baseline_plan(2, 5, 5.0, Some(60.0), Some(55.0));
        assert_eq!((plan.runs, measured(&plan, 2, 5.0)), (5, 2));
        // No time budget: every baseline, every run, however long.
        let plan = baseline_plan(2, 5, 50.0, None, None);
        assert!(!plan.reduced);
        assert_eq!((plan.runs, measured(&plan, 2, 50.0)), (5, 2));
    }

    #[test]
    fn long_baselines_get_one_run_and_those_that_do_not_fit_are_left_out() {
        // TSVC's s352: 14.3 s for the reference. With 60 s (45 s left),
        // two baselines of 14.3 s do not fit in 15 s; two of one run
        // (about 7.2 s each) do.
        let plan = baseline_plan(2, 3, 14.3, Some(60.0), Some(45.0));
        assert!(plan.reduced);
        assert_eq!((plan.runs, measured(&plan, 2, 7.2)), (1, 2));
        // A first one slower than expected (Polly compiles for longer)
        // leaves the second out.
        assert_eq!(measured(&plan, 2, 9.0), 1);
        // With 40 s, one of them.
        let plan = baseline_plan(2, 3, 14.3, Some(40.0), Some(25.0));
        assert_eq!((plan.runs, measured(&plan, 2, 7.2)), (1, 1));
        // With 120 s, both with every run (28.6 s of 30 s).
        let plan = baseline_plan(2, 3, 14.3, Some(120.0), Some(105.0));
        assert_eq!((plan.runs, measured(&plan, 2, 14.3)), (3, 2));
        // Nothing left of the budget: none.
        let plan = baseline_plan(2, 3, 14.3, Some(60.0), Some(0.0));
        assert_eq!(measured(&plan, 2, 7.2), 0);
    }

    #[test]
    fn a_deadline_counts_down_to_zero_and_stays_there() {
        let deadline = Deadline::new(Some(0.0));
        assert!(deadline.spent());
        assert_eq!(deadline.seconds_left(), Some(0.0));
        let none = Deadline::new(None);
        assert!(!none.spent());
        assert_eq!(none.left(), None);
        let long = Deadline::new(Some(3600.0));
        assert!(!long.spent());
        assert!(long
            .seconds_left()
            .is_some_and(|s| s > 3500.0 && s <= 3600.0));
    }
}
