//! The evaluator of a tuning run: lowers the leaves the search hands it,
//! builds a batch of them at once (in parallel, while nothing is timed),
//! checks and times each with the harness (cut off when far slower than
//! the best), re-measures a challenger and the best together before the
//! challenger takes the lead (both keep their new times), and keeps the
//! counts that progress and the final report show.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use commute_runtime::search::{Bound, Evaluator, Flag, Outcome, Remeasured};

use super::deadline::Deadline;
use super::flags::candidate_flags;
use super::kernel::{LoadedKernel, LoopCandidate};
use super::lower::{differences, lower_leaf, Form};
use super::options::Emit;
use super::output::write_program;
use super::progress::{SearchStatus, TuneProgress};
use super::wrong_output::{diagnose, Diagnosis};
use crate::harness::{remeasure_rounds, speedup, Harness, Measurement};
use crate::lowering::schedule::Schedule;
use crate::space::host::KernelHost;
use crate::space::Backbone;

/// The best verified candidate so far.
#[derive(Clone, Debug)]
pub struct Best {
    /// The whole C file.
    pub source: String,
    /// Its time: the minimum of its runs, or of its last re-measurement
    /// against a challenger.
    pub seconds: f64,
    /// The search's evaluation, `None` for the original nest.
    pub evaluation: Option<usize>,
    /// The loop nest, one loop per line, for people.
    pub outline: String,
    /// The decisions that differ from the original program's.
    pub decisions: Vec<String>,
    /// How it is written.
    pub form: Form,
    /// Its decision vector's words, which name it to the search.
    pub leaf: Vec<u64>,
    /// The flags its `optimizer` decision adds after the user's.
    pub flags: Vec<String>,
}

/// A leaf lowered ahead of its evaluation: its loop tree, code and form,
/// or why it could not be lowered.
type Lowered = Result<(Schedule, String, Form), String>;

/// Compiles, runs and checks leaves; keeps the best and draws progress.
pub(super) struct KernelEvaluator<'a> {
    pub(super) loaded: &'a LoadedKernel,
    pub(super) harness: Harness,
    pub(super) reference_seconds: f64,
    pub(super) best: Option<Best>,
    /// Evaluations of the search so far (replayed ones included): the
    /// index of the next.
    pub(super) evaluations: usize,
    pub(super) failures: usize,
    pub(super) wrong: usize,
    pub(super) cut_off: usize,
    pub(super) timed_out: usize,
    pub(super) slower: usize,
    pub(super) budget: Option<usize>,
    /// When the tuning run ends (its time budget).
    pub(super) deadline: Deadline,
    /// Where each new best is written, and the fastest baseline's time it
    /// must beat to be (see `output`).
    pub(super) output: PathBuf,
    pub(super) fastest_baseline: Option<f64>,
    pub(super) work_dir: PathBuf,
    pub(super) emit: Emit,
    /// Whether the compiler takes OpenMP 6.0 loop directives.
    pub(super) directives: bool,
    /// Candidates written with directives, and as explicit code.
    pub(super) forms: (usize, usize),
    /// The space's lower bound, recorded with each evaluation.
    pub(super) bound: Option<&'a dyn Bound<Backbone<KernelHost>>>,
    /// Leaves lowered by `prepare`, by decision vector.
    pub(super) lowered: HashMap<Vec<u64>, Lowered>,
    /// Whether the note on timing check builds was given.
    pub(super) noted_check_builds: bool,
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
        let status = SearchStatus {
            evaluations: self.evaluations,
            budget: self.budget,
            best_speedup: self.speedup(),
            failures: self.failures,
            wrong: self.wrong,
            cut_off: self.cut_off,
            seconds_left: self.deadline.seconds_left(),
            last,
        };
        self.progress.evaluated(&status);
    }

    /// Writes the source of the candidate `evaluation` (`None`: the
    /// original nest) to `<kind>-<index>.c` in the work directory, for a
    /// person to look at; its path, and how notes name the candidate.
    fn keep_source(&self, kind: &str, evaluation: Option<usize>, code: &str) -> (PathBuf, String) {
        let (file, name) = match evaluation {
            Some(index) => (format!("{kind}-{index}.c"), index.to_string()),
            None => (
                format!("{kind}-original.c"),
                "of the original nest".to_string(),
            ),
        };
        let kept = self.work_dir.join(file);
        let _ = std::fs::write(&kept, code);
        (kept, name)
    }

    /// Writes the best candidate to the output file when it beats the
    /// fastest baseline (whose program is there otherwise).
    fn write_best(&mut self) {
        let Some(best) = &self.best else {
            return;
        };
        if self.fastest_baseline.is_some_and(|b| b <= best.seconds) {
            return;
        }
        let built_with = self.harness.command(&best.flags);
        if let Err(e) = write_program(&self.output, &best.source, &built_with) {
            self.progress.note(&format!("warning: {e}"));
        }
    }

    fn lower(&self, leaf: &LoopCandidate) -> Lowered {
        lower_leaf(self.loaded, leaf, self.emit, self.directives)
    }

    /// Lowers, builds, runs and checks a leaf; `evaluation` is its index
    /// in the search (`None` for the original nest).
    pub(super) fn measure(
        &mut self,
        leaf: &LoopCandidate,
        evaluation: Option<usize>,
    ) -> (Outcome, String) {
        let words = leaf.decisions().words;
        let lowered = match self.lowered.remove(&words) {
            Some(lowered) => lowered,
            None => self.lower(leaf),
        };
        let bound = self.bound.map(|b| b.bound(leaf)).filter(|b| b.is_finite());
        let (schedule, code, form) = match lowered {
            Ok(lowered) => lowered,
            Err(e) => {
                self.failures += 1;
                let mut outcome = Outcome::failed(format!("cannot lower: {e}"));
                outcome.bound = bound;
                return (outcome, e);
            }
        };
        match form {
            Form::Directives => self.forms.0 += 1,
            Form::Code => self.forms.1 += 1,
        }
        let flags = candidate_flags(leaf);
        let compiler = self.harness.config().compiler.clone();
        let measurement = self.harness.evaluate_built_with(&code, &compiler, &flags);
        let mut phases = self.harness.last_phases();
        if self.harness.check_build_timings() > 0 && !self.noted_check_builds {
            self.noted_check_builds = true;
            self.progress.note(
                "note: a build without the array dump ran far faster than the one with it (the compiler dropped a kernel whose results nothing printed); such programs are timed with the dump, its output discarded (PolyBench's polybench_prevent_dce avoids this)",
            );
        }
        let summary = measurement.summary();
        let (mut outcome, note) = match measurement {
            Measurement::Timed { seconds, runs } => {
                let mut value = seconds;
                let mut incumbent = None;
                let better = match &mut self.best {
                    None => true,
                    // Every run faster than the best's fastest: no doubt
                    // to settle (on lu, where a run costs 15 s, measuring
                    // both again took 80 s).
                    Some(best) if faster_in_every_run(&runs, best.seconds) => true,
                    Some(best) if seconds < best.seconds => {
                        // Both again, interleaved, before a new best is
                        // declared: one run cannot rank close candidates
                        // on a noisy machine. Both keep their new times.
                        let rounds = remeasure_rounds(best.seconds);
                        let start = Instant::now();
                        let again = self.harness.remeasure_built_with(
                            (&best.source, &best.flags),
                            (&code, &flags),
                            rounds,
                        );
                        phases.timing += start.elapsed().as_secs_f64();
                        match again {
                            Ok((old, new)) => {
                                best.seconds = old;
                                incumbent = Some(Remeasured {
                                    leaf: best.leaf.clone(),
                                    value: old,
                                });
                                value = new;
                                new < old
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
                        evaluation,
                        outline: schedule.outline(self.loaded.host.kernel()),
                        form,
                        decisions: differences(self.loaded, leaf),
                        leaf: words,
                        flags,
                    });
                    self.write_best();
                }
                let mut outcome = Outcome::ok(value);
                outcome.measurements = runs;
                outcome.incumbent = incumbent;
                let note = format!(
                    "{value:.6} s ({}){}",
                    speedup(self.reference_seconds, value),
                    if better { ", new best" } else { "" }
                );
                (outcome, note)
            }
            Measurement::CutOff { seconds, .. } => {
                self.cut_off += 1;
                (
                    Outcome::flagged(seconds, Flag::CutOff, summary.clone()),
                    summary,
                )
            }
            Measurement::Slower { seconds, runs } => {
                self.slower += 1;
                let mut outcome = Outcome::flagged(seconds, Flag::Slower, summary);
                outcome.measurements = runs;
                let note = format!(
                    "{seconds:.6} s ({}), no faster than the best: not checked",
                    speedup(self.reference_seconds, seconds)
                );
                (outcome, note)
            }
            Measurement::RunTimedOut { seconds } => {
                // A slow leaf, not a broken one: the timeout follows the best
                // (or the time budget ended, which the message says).
                self.timed_out += 1;
                // Stopped by the deadline, it says nothing of the leaf: not
                // journaled, a resumed tune runs it again.
                if self.harness.past_deadline() {
                    let summary =
                        format!("run stopped after {seconds:.1} s, at the end of the time budget");
                    let outcome = Outcome::flagged(seconds, Flag::TimedOut, summary.clone());
                    (outcome.interrupted(), summary)
                } else {
                    (
                        Outcome::flagged(seconds, Flag::TimedOut, summary.clone()),
                        summary,
                    )
                }
            }
            // Built with an optimizer's flags, and right without them: the
            // optimizer miscompiled it (seen with Polly on PolyBench's
            // covariance), not a fault of the space.
            Measurement::WrongOutput { detail }
                if !flags.is_empty()
                    && self
                        .harness
                        .check_built_with(&code, &compiler, &[])
                        .is_none() =>
            {
                phases = self.harness.last_phases();
                self.failures += 1;
                let (kept, index) = self.keep_source("miscompiled", evaluation, &code);
                let flags = flags.join(" ");
                self.progress.note(&format!(
                    "note: candidate {index} computes other values only when built with `{flags}` ({detail}); without those flags its output matches the original's: the compiler's optimizer miscompiled it, and it counts as a failure; its source is kept in {}",
                    kept.display()
                ));
                let message = format!("miscompiled with `{flags}`: {detail}");
                (Outcome::failed(message.clone()), message)
            }
            Measurement::WrongOutput { detail } => {
                phases = self.harness.last_phases();
                self.wrong += 1;
                let (kept, index) = self.keep_source("wrong", evaluation, &code);
                let kept = kept.display();
                let loaded = self.loaded;
                let hint = if loaded.host.sums_in_order() {
                    ""
                } else {
                    " (`--sums-in-order` keeps every sum in the order of its terms)"
                };
                self.progress.note(&match diagnose(&loaded.host, &loaded.unfixed, &schedule) {
                    Diagnosis::Rounding => format!(
                        "note: candidate {index} computes other values than the original program ({detail}), but the interpreter finds it computes the same at small sizes up to the order of its sums: it reassociates a floating-point sum (across threads, vector lanes or tiles) and rounds beyond the tolerance{hint}; it is never reported as a result; its source is kept in {kept}"
                    ),
                    Diagnosis::Illegal(why) => format!(
                        "LEGALITY BUG: candidate {index} computes other values than the original program ({detail}; in the interpreter: {why}); it is never reported as a result; its source is kept in {kept}"
                    ),
                    Diagnosis::Unknown(why) => format!(
                        "LEGALITY BUG: candidate {index} computes other values than the original program ({detail}; the interpreter could not compare it: {why}); it is never reported as a result; its source is kept in {kept}"
                    ),
                });
                (Outcome::wrong(detail), summary)
            }
            _ => {
                self.failures += 1;
                (Outcome::failed(summary.clone()), summary)
            }
        };
        self.harness
            .set_incumbent(self.best.as_ref().map(|b| b.seconds));
        outcome.phases = Some(phases);
        outcome.bound = bound;
        (outcome, note)
    }
}

/// Whether a challenger's timed `runs` leave no doubt that it beats a
/// best of `best` seconds: at least `CLEAR_WIN_RUNS` of them, every one
/// faster than the best's fastest. A challenger no faster than the best
/// passes less often than one time in 20 (three runs against three of
/// the best: the three fastest of six would all be its), and then costs
/// nothing.
fn faster_in_every_run(runs: &[f64], best: f64) -> bool {
    runs.len() >= CLEAR_WIN_RUNS && runs.iter().all(|run| *run < best)
}

/// See [`faster_in_every_run`].
const CLEAR_WIN_RUNS: usize = 3;

impl Evaluator<Backbone<KernelHost>> for KernelEvaluator<'_> {
    fn evaluate(&mut self, leaf: &LoopCandidate) -> Outcome {
        let (outcome, note) = self.measure(leaf, Some(self.evaluations));
        self.evaluations += 1;
        self.report_progress(&note);
        outcome
    }

    /// Lowers the batch and builds it, `jobs` compiles at a time.
    fn prepare(&mut self, leaves: &[&LoopCandidate]) {
        // Sources by the flags their optimizer adds, built together.
        let mut sources: Vec<(Vec<String>, Vec<String>)> = Vec::new();
        let mut count = 0;
        for leaf in leaves {
            let words = leaf.decisions().words;
            if !self.lowered.contains_key(&words) {
                let lowered = self.lower(leaf);
                self.lowered.insert(words.clone(), lowered);
            }
            if let Some(Ok((_, code, _))) = self.lowered.get(&words) {
                let flags = candidate_flags(leaf);
                match sources.iter_mut().find(|(f, _)| *f == flags) {
                    Some((_, group)) => group.push(code.clone()),
                    None => sources.push((flags, vec![code.clone()])),
                }
                count += 1;
            }
        }
        if count > 1 {
            self.progress.building(count);
        }
        for (flags, group) in &sources {
            let group: Vec<&str> = group.iter().map(String::as_str).collect();
            self.harness.prepare_built_with(&group, flags);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::faster_in_every_run;

    #[test]
    fn a_challenger_faster_in_every_run_needs_no_comparison() {
        assert!(faster_in_every_run(&[2.4, 2.8, 3.4], 3.6));
        // One run slower than the best's time, or too few runs: compared.
        assert!(!faster_in_every_run(&[2.4, 3.7, 3.4], 3.6));
        assert!(!faster_in_every_run(&[2.4, 2.8], 3.6));
    }
}
