//! Where a search's time went, from the phases its evaluator reported
//! per evaluation: building, checking and timing the leaves that were
//! measured in full, and everything spent on leaves that were cut off,
//! timed out, no faster than the best (timed, not checked) or failed
//! (wrong results included). What no evaluation
//! accounts for (the search itself, writing candidates out, leaves built
//! ahead but never evaluated) is `other`.

use std::fmt;

use super::record::{Evaluation, Flag, Status};

/// Seconds, and how many evaluations they went to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Share {
    /// Seconds.
    pub seconds: f64,
    /// Evaluations.
    pub count: usize,
}

impl Share {
    fn add(&mut self, seconds: f64) {
        self.seconds += seconds;
        self.count += 1;
    }
}

/// Where a search's wall-clock time went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Breakdown {
    /// The search's wall time: the last evaluation's `elapsed`.
    pub wall: f64,
    /// Building leaves that were measured in full.
    pub compiling: Share,
    /// Checking their results.
    pub checking: Share,
    /// Timing them (re-measurements included).
    pub timing: Share,
    /// Everything spent on leaves cut off after one run.
    pub cut_off: Share,
    /// Everything spent on leaves stopped at the run timeout.
    pub timed_out: Share,
    /// Everything spent on leaves timed but no faster than the best (not
    /// checked).
    pub slower: Share,
    /// Everything spent on leaves that failed or computed wrong values.
    pub failed: Share,
}

impl Breakdown {
    /// The breakdown of `evaluations`, or `None` when none of them says
    /// where its time went.
    pub fn of(evaluations: &[Evaluation]) -> Option<Breakdown> {
        let mut breakdown = Breakdown::default();
        let mut any = false;
        for evaluation in evaluations {
            breakdown.wall = breakdown.wall.max(evaluation.elapsed);
            let Some(phases) = evaluation.phases else {
                continue;
            };
            any = true;
            match (evaluation.status, evaluation.flag) {
                (Status::Ok, None) if evaluation.value.is_some() => {
                    breakdown.compiling.add(phases.compile);
                    breakdown.checking.add(phases.check);
                    breakdown.timing.add(phases.timing);
                }
                (Status::Ok, Some(Flag::CutOff)) => breakdown.cut_off.add(phases.total()),
                (Status::Ok, Some(Flag::TimedOut)) => breakdown.timed_out.add(phases.total()),
                (Status::Ok, Some(Flag::Slower)) => breakdown.slower.add(phases.total()),
                _ => breakdown.failed.add(phases.total()),
            }
        }
        any.then_some(breakdown)
    }

    /// The wall time no evaluation accounts for.
    pub fn other(&self) -> f64 {
        let accounted = self.compiling.seconds
            + self.checking.seconds
            + self.timing.seconds
            + self.cut_off.seconds
            + self.timed_out.seconds
            + self.slower.seconds
            + self.failed.seconds;
        (self.wall - accounted).max(0.0)
    }
}

impl fmt::Display for Breakdown {
    /// One line per part: `compiling  12.3 s  20%`, with the number of
    /// evaluations for the parts spent on hopeless leaves.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let share = |seconds: f64| {
            if self.wall > 0.0 {
                100.0 * seconds / self.wall
            } else {
                0.0
            }
        };
        let rows = [
            ("compiling", self.compiling, false),
            ("checking", self.checking, false),
            ("timed runs", self.timing, false),
            ("cut off", self.cut_off, true),
            ("timed out", self.timed_out, true),
            ("slower", self.slower, true),
            ("failed", self.failed, true),
        ];
        for (name, part, counted) in rows {
            write!(
                f,
                "  {name:<11}{:>9.1} s {:>4.0}%",
                part.seconds,
                share(part.seconds)
            )?;
            if counted {
                write!(
                    f,
                    "  ({} evaluation{})",
                    part.count,
                    if part.count == 1 { "" } else { "s" }
                )?;
            }
            writeln!(f)?;
        }
        writeln!(
            f,
            "  {:<11}{:>9.1} s {:>4.0}%  (searching, writing candidates, builds not used)",
            "other",
            self.other(),
            share(self.other())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::record::Phases;

    fn evaluation(status: Status, flag: Option<Flag>, elapsed: f64, phases: Phases) -> Evaluation {
        let value = (status == Status::Ok).then_some(1.0);
        Evaluation {
            flag,
            phases: Some(phases),
            ..Evaluation::new(0, Vec::new(), status, value, elapsed)
        }
    }

    #[test]
    fn time_goes_to_phases_of_measured_leaves_and_to_hopeless_ones() {
        let phases = |compile, check, timing| Phases {
            compile,
            check,
            timing,
        };
        let evaluations = [
            evaluation(Status::Ok, None, 10.0, phases(1.0, 2.0, 5.0)),
            evaluation(Status::Ok, Some(Flag::CutOff), 14.0, phases(1.0, 2.0, 0.0)),
            evaluation(
                Status::Ok,
                Some(Flag::TimedOut),
                20.0,
                phases(1.0, 5.0, 0.0),
            ),
            evaluation(Status::Ok, Some(Flag::Slower), 20.5, phases(0.2, 0.0, 0.3)),
            evaluation(Status::Failed, None, 21.0, phases(0.5, 0.0, 0.0)),
            evaluation(Status::Wrong, None, 24.0, phases(1.0, 1.5, 0.0)),
        ];
        let breakdown = Breakdown::of(&evaluations).expect("phases");
        assert_eq!(breakdown.wall, 24.0);
        assert_eq!(breakdown.compiling.seconds, 1.0);
        assert_eq!(breakdown.checking.seconds, 2.0);
        assert_eq!(breakdown.timing.seconds, 5.0);
        assert_eq!(breakdown.cut_off.seconds, 3.0);
        assert_eq!(breakdown.timed_out.seconds, 6.0);
        assert_eq!(
            breakdown.slower,
            Share {
                seconds: 0.5,
                count: 1
            }
        );
        assert_eq!(
            breakdown.failed,
            Share {
                seconds: 3.0,
                count: 2
            }
        );
        assert_eq!(breakdown.other(), 3.5);
        let text = breakdown.to_string();
        assert!(
            text.contains("  cut off          3.0 s   12%  (1 evaluation)"),
            "{text}"
        );
        assert!(text.contains("  timed runs       5.0 s   21%\n"), "{text}");
        assert!(
            Breakdown::of(&[Evaluation::new(0, Vec::new(), Status::Ok, Some(1.0), 1.0)]).is_none()
        );
    }
}
