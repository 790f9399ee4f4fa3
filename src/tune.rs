//! `commute tune` and `commute lower`: the library's tuning pipeline
//! (`commute_loops::tune`) with its progress drawn on standard error and
//! its results printed.

use std::io::IsTerminal;

use commute_loops::harness::speedup;

use commute_loops::tune::{
    self, Form, LowerOptions, SearchStatus, TuneOptions, TuneProgress, TuneReport,
};
use commute_runtime::search::breakdown::Breakdown;
use commute_runtime::search::journal::read_journal;
use commute_runtime::search::StopReason;
use indicatif::{ProgressBar, ProgressStyle};

/// Progress on standard error: a bar redrawn in place on a terminal, one
/// line per evaluation otherwise.
struct Stderr {
    terminal: bool,
    /// The bar, from the search's first evaluation on (terminal only).
    bar: Option<ProgressBar>,
}

impl Stderr {
    fn new() -> Stderr {
        Stderr {
            terminal: std::io::stderr().is_terminal(),
            bar: None,
        }
    }

    fn bar(&mut self, budget: Option<usize>) -> &ProgressBar {
        self.bar.get_or_insert_with(|| {
            let (bar, template) = match budget {
                Some(budget) => (
                    ProgressBar::new(budget as u64),
                    "[{bar:20}] {pos}/{len} evaluations, {msg}",
                ),
                None => (ProgressBar::no_length(), "{pos} evaluations, {msg}"),
            };
            let style = ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("##.");
            bar.with_style(style)
        })
    }
}

impl TuneProgress for Stderr {
    fn note(&mut self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| tell!("{line}")),
            None => tell!("{line}"),
        }
    }

    fn evaluated(&mut self, status: &SearchStatus<'_>) {
        if self.terminal {
            let bar = self.bar(status.budget);
            bar.set_position(status.evaluations as u64);
            bar.set_message(status.tally());
        } else {
            tell!("{}", status.line());
        }
    }

    fn building(&mut self, count: usize) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("building {count} candidates"));
        }
    }

    fn finished(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish();
        }
    }
}

/// `commute tune`.
pub fn tune(options: &TuneOptions) -> Result<(), String> {
    let report = tune::tune(options, &mut Stderr::new())?;
    let plot = report.journal.with_extension("svg");
    crate::report::write_plot(&report.journal, &plot)?;
    print(&report, &plot)
}

/// The summary of a tuning run on standard output; an error when no
/// candidate was verified.
fn print(report: &TuneReport, plot: &std::path::Path) -> Result<(), String> {
    let stop = match report.stop {
        StopReason::EvaluationBudget => "evaluation budget spent",
        StopReason::TimeBudget => "time budget spent",
        StopReason::Exhausted => "every candidate evaluated",
        StopReason::NoNewLeaf => "no new candidate found",
        StopReason::JournalError => "the journal could not be written",
    };
    say!(
        "{}: {} search, seed {}, stopped ({stop}) after {} evaluations ({} replayed from the journal): {} failed, {} wrong, {} cut off after one run, {} stopped at the run timeout, {} no faster than the best (not checked)",
        report.kernel.display(),
        report.search,
        report.seed,
        report.evaluations,
        report.replayed,
        report.failures,
        report.wrong,
        report.cut_off,
        report.timed_out,
        report.slower
    );
    say!("reference: {:.6} s", report.reference_seconds);
    if report.bound_checks > 0 {
        say!(
            "lower bound: {} of {} candidates compared with the best were pruned ({:.1}%)",
            report.pruned,
            report.bound_checks,
            100.0 * report.pruned as f64 / report.bound_checks as f64
        );
    }
    if let Ok((_, evaluations)) = read_journal(&report.journal) {
        if let Some(breakdown) = Breakdown::of(&evaluations) {
            say_part!(
                "where the search's {:.1} s went:\n{breakdown}",
                breakdown.wall
            );
        }
    }
    if let Some(setup) = report.setup_summary() {
        say!("{setup}");
    }
    print_baselines(report);
    let Some(best) = &report.best else {
        // Candidates far slower than a baseline are cut off against it:
        // none is a best, and the baseline's build is the result.
        let cut_off = report.cut_off + report.timed_out > 0;
        if report.baseline_won.is_some() && cut_off {
            say!("no candidate came within the cut-off of the fastest baseline ({} cut off after one run, {} stopped at the run timeout, {} failed, {} wrong); see the journal", report.cut_off, report.timed_out, report.failures, report.wrong);
            say!("written: {}", report.output.display());
            say!("built with: {}", report.built_with);
            say!("journal: {}", report.journal.display());
            say!("plot: {}", plot.display());
            return Ok(());
        }
        if report.measured_nothing() && report.stop == StopReason::TimeBudget {
            say!("no candidate was measured: the time budget was spent before the search; give a larger --time-budget");
        } else {
            say!("no candidate was measured successfully; see the journal for why");
        }
        if report.baseline_won.is_some() {
            say!("written: {}", report.output.display());
        }
        say!("journal: {}", report.journal.display());
        return Err("no verified candidate".into());
    };
    let found = match best.evaluation {
        Some(index) => format!("evaluation {}", index + 1),
        None => {
            say!("no candidate beat the original loop nest; it is written as it is");
            "the original nest, lowered".to_string()
        }
    };
    say!(
        "best: {:.6} s, {} over the reference ({found}), verified against the original output",
        best.seconds,
        speedup(report.reference_seconds, best.seconds),
    );
    say!("decisions that differ from the original program:");
    if best.decisions.is_empty() {
        say!("  none");
    }
    for decision in &best.decisions {
        say!("  {decision}");
    }
    say!(
        "{} as {} ({} candidates with directives, {} as explicit code)",
        if report.baseline_won.is_some() {
            "the best candidate was"
        } else {
            "written"
        },
        match best.form {
            Form::Directives => "OpenMP 6.0 directives on the original loops",
            Form::Code => "explicit code",
        },
        report.forms.0,
        report.forms.1
    );
    say!("loop nest:");
    for line in best.outline.lines() {
        say!("  {line}");
    }
    say!("written: {}", report.output.display());
    say!("built with: {}", report.built_with);
    say!("timed with: {}", report.run_with);
    say!("journal: {}", report.journal.display());
    say!("plot: {}", plot.display());
    if report.wrong > 0 {
        tell!(
            "warning: {} candidate(s) gave WRONG RESULTS: the space let illegal candidates through (sources kept in {})",
            report.wrong,
            report.work_dir.display()
        );
    }
    Ok(())
}

/// The baselines, the best candidate's speedup over each, and which one
/// was written when one beat the search.
fn print_baselines(report: &TuneReport) {
    if report.baselines.is_empty() {
        return;
    }
    say!("baselines (the unmodified program, checked and timed like candidates):");
    for baseline in &report.baselines {
        match (&baseline.result, &report.best) {
            (Ok(seconds), Some(best)) => say!(
                "  {}: {seconds:.6} s; the best candidate is {} over it ({})",
                baseline.name,
                speedup(*seconds, best.seconds),
                baseline.command
            ),
            (Ok(seconds), None) => {
                say!("  {}: {seconds:.6} s ({})", baseline.name, baseline.command)
            }
            (Err(why), _) => say!("  {}: {why} ({})", baseline.name, baseline.command),
        }
    }
    if let Some(index) = report.baseline_won {
        let baseline = &report.baselines[index];
        if report.measured_nothing() {
            say!(
                "the original program is written, to be built with the flags of the baseline `{}`: {}",
                baseline.name,
                baseline.command
            );
            return;
        }
        say!(
            "the baseline `{}` is faster than every candidate: the original program is written, to be built with its flags: {}",
            baseline.name,
            baseline.command
        );
    }
}

/// `commute lower`.
pub fn lower(options: &LowerOptions) -> Result<(), String> {
    let lowered = tune::lower(options)?;
    tell!(
        "written as {}",
        match lowered.form {
            Form::Directives => "OpenMP 6.0 directives on the original loops (clang 20 or later)",
            Form::Code => "explicit code (any C compiler with OpenMP)",
        }
    );
    match &options.output {
        Some(path) => {
            std::fs::write(path, &lowered.code)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
            tell!("wrote {}", path.display());
            tell_part!("{}", lowered.outline);
        }
        None => say_part!("{}", lowered.code),
    }
    Ok(())
}
