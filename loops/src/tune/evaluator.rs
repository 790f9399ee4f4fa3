//! The evaluator of a tuning run: lowers each leaf the search hands it,
//! builds, runs and checks it with the harness, re-measures a challenger
//! against the best before it takes the lead, and keeps the counts that
//! progress and the final report show.

use std::path::PathBuf;
use std::time::Instant;

use commute_runtime::search::{Evaluator, Outcome};

use super::kernel::{LoadedKernel, LoopCandidate};
use super::lower::{differences, lower_leaf, Form};
use super::options::Emit;
use super::progress::{SearchStatus, TuneProgress};
use crate::harness::{remeasure_rounds, Harness, Measurement};
use crate::space::host::KernelHost;
use crate::space::Backbone;

/// The best verified candidate so far.
#[derive(Clone, Debug)]
pub struct Best {
    /// The whole C file.
    pub source: String,
    /// Its time: the minimum of its runs (re-measured ones included).
    pub seconds: f64,
    /// The search's evaluation, `None` for the original nest.
    pub evaluation: Option<usize>,
    /// The loop nest, one loop per line, for people.
    pub outline: String,
    /// The decisions that differ from the original program's.
    pub decisions: Vec<String>,
    /// How it is written.
    pub form: Form,
}

/// Compiles, runs and checks leaves; keeps the best and draws progress.
pub(super) struct KernelEvaluator<'a> {
    pub(super) loaded: &'a LoadedKernel,
    pub(super) harness: Harness,
    pub(super) reference_seconds: f64,
    pub(super) best: Option<Best>,
    pub(super) evaluations: usize,
    pub(super) failures: usize,
    pub(super) wrong: usize,
    pub(super) budget: Option<usize>,
    pub(super) time_budget: Option<f64>,
    pub(super) started: Instant,
    pub(super) work_dir: PathBuf,
    pub(super) emit: Emit,
    /// Whether the compiler takes OpenMP 6.0 loop directives.
    pub(super) directives: bool,
    /// Candidates written with directives, and as explicit code.
    pub(super) forms: (usize, usize),
    /// Where notes and progress go.
    pub(super) progress: &'a mut dyn TuneProgress,
}

impl KernelEvaluator<'_> {
    /// The best candidate's speedup over the reference.
    pub(super) fn speedup(&self) -> Option<f64> {
        self.best
            .as_ref()
            .map(|b| self.reference_seconds / b.seconds)
    }

    /// Tells the caller where the search stands.
    fn report_progress(&mut self, last: &str) {
        let time_budget = self.time_budget;
        let status = SearchStatus {
            evaluations: self.evaluations,
            budget: self.budget,
            best_speedup: self.speedup(),
            failures: self.failures,
            wrong: self.wrong,
            seconds_left: time_budget.map(|t| (t - self.started.elapsed().as_secs_f64()).max(0.0)),
            last,
        };
        self.progress.evaluated(&status);
    }

    /// Lowers, builds, runs and checks a leaf; `evaluation` is its index
    /// in the search (`None` for the original nest).
    pub(super) fn measure(
        &mut self,
        leaf: &LoopCandidate,
        evaluation: Option<usize>,
    ) -> (Outcome, String) {
        let (schedule, code, form) = match lower_leaf(self.loaded, leaf, self.emit, self.directives)
        {
            Ok(lowered) => lowered,
            Err(e) => {
                self.failures += 1;
                return (Outcome::failed(format!("cannot lower: {e}")), e);
            }
        };
        match form {
            Form::Directives => self.forms.0 += 1,
            Form::Code => self.forms.1 += 1,
        }
        let measurement = self.harness.evaluate(&code);
        let summary = measurement.summary();
        let index = self.evaluations;
        let search_index = evaluation;
        match measurement {
            Measurement::Timed { seconds, runs } => {
                let mut value = seconds;
                let better = match &self.best {
                    None => true,
                    Some(best) if seconds < best.seconds => {
                        // Both again, interleaved, before a new best is
                        // declared: one run cannot rank close candidates
                        // on a noisy machine.
                        let rounds = remeasure_rounds(best.seconds);
                        match self.harness.remeasure(&best.source, &code, rounds) {
                            Ok((incumbent, challenger)) => {
                                value = value.min(challenger);
                                challenger < incumbent
                            }
                            Err(_) => true,
                        }
                    }
                    Some(_) => false,
                };
                if better {
                    self.best = Some(Best {
                        source: code,
                        seconds: value,
                        evaluation: search_index,
                        outline: schedule.outline(self.loaded.host.kernel()),
                        form,
                        decisions: differences(self.loaded, leaf),
                    });
                }
                let mut outcome = Outcome::ok(value);
                outcome.measurements = runs;
                let note = format!(
                    "{value:.6} s ({:.2}x){}",
                    self.reference_seconds / value,
                    if better { ", new best" } else { "" }
                );
                (outcome, note)
            }
            Measurement::WrongOutput { detail } => {
                self.wrong += 1;
                let kept = self.work_dir.join(match search_index {
                    Some(index) => format!("wrong-{index}.c"),
                    None => "wrong-original.c".to_string(),
                });
                let _ = std::fs::write(&kept, &code);
                self.progress.note(&format!(
                    "LEGALITY BUG: candidate {index} computes other values than the original program ({detail}); it is never reported as a result; its source is kept in {}",
                    kept.display()
                ));
                (Outcome::wrong(detail), summary)
            }
            _ => {
                self.failures += 1;
                (Outcome::failed(summary.clone()), summary)
            }
        }
    }
}

impl Evaluator<Backbone<KernelHost>> for KernelEvaluator<'_> {
    fn evaluate(&mut self, leaf: &LoopCandidate) -> Outcome {
        let (outcome, note) = self.measure(leaf, Some(self.evaluations));
        self.evaluations += 1;
        self.report_progress(&note);
        outcome
    }
}
