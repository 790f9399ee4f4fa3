//! What [`tune`](super::tune) tells its caller while it runs: lines for
//! people, and where the search stands after each evaluation. The caller
//! decides how to show them (a progress bar on a terminal, one line per
//! evaluation in a log).

/// Receives what a tuning run has to say before it returns its report.
pub trait TuneProgress {
    /// A line for people: the compiler, the reference's time, a candidate
    /// that computes wrong values, warnings.
    fn note(&mut self, line: &str);
    /// An evaluation of the search ended.
    fn evaluated(&mut self, status: &SearchStatus<'_>);
    /// `count` candidates are being built at once (before they are timed).
    fn building(&mut self, _count: usize) {}
    /// The search ended; no more evaluations follow.
    fn finished(&mut self) {}
}

/// Where the search stands after an evaluation.
#[derive(Clone, Debug)]
pub struct SearchStatus<'a> {
    /// Evaluations so far, this one included.
    pub evaluations: usize,
    /// The evaluation budget, if any.
    pub budget: Option<usize>,
    /// The best verified candidate's speedup over the reference.
    pub best_speedup: Option<f64>,
    /// Candidates that could not be lowered, built or run.
    pub failures: usize,
    /// Candidates that computed other values than the original program.
    pub wrong: usize,
    /// Candidates cut off after one run, far slower than the best.
    pub cut_off: usize,
    /// What is left of the time budget, if any.
    pub seconds_left: Option<f64>,
    /// The result of this evaluation, in a few words.
    pub last: &'a str,
}

impl SearchStatus<'_> {
    /// `12/100` with a budget, `12` without.
    pub fn count(&self) -> String {
        match self.budget {
            Some(b) => format!("{}/{b}", self.evaluations),
            None => self.evaluations.to_string(),
        }
    }

    /// `best 1.52x, 3 failed, 5 cut off, 1 WRONG, 40 s left` (the last
    /// three only when they apply).
    pub fn tally(&self) -> String {
        let best = self.best_speedup.map_or("none yet".to_string(), |s| {
            // An infinite speedup: a best timed at 0 s (see
            // `harness::speedup`).
            if s.is_finite() {
                format!("{s:.2}x")
            } else {
                "too fast for the printed time".to_string()
            }
        });
        let wrong = if self.wrong > 0 {
            format!(", {} WRONG", self.wrong)
        } else {
            String::new()
        };
        let left = self
            .seconds_left
            .map_or(String::new(), |t| format!(", {t:.0} s left"));
        let cut = if self.cut_off > 0 {
            format!(", {} cut off", self.cut_off)
        } else {
            String::new()
        };
        format!("best {best}, {} failed{cut}{wrong}{left}", self.failures)
    }

    /// One line per evaluation, for logs: `evaluation 12/100: <last>;
    /// best ...`.
    pub fn line(&self) -> String {
        format!(
            "evaluation {}: {}; {}",
            self.count(),
            self.last,
            self.tally()
        )
    }
}
