//! Baselines: the unmodified program built with each configuration the
//! compiler offers (the user's flags; with Polly, LLVM's polyhedral
//! optimizer; with Polly's parallel code generation; and with another
//! compiler when asked), measured before the search through the same
//! harness as candidates (checked against the reference's output, timed,
//! the same timeouts) and recorded in the journal. A tuning run's result is
//! compared with each, and is never slower than the best of them.

use std::time::Instant;

use commute_runtime::search::journal::Journal;
use serde_json::json;

use super::deadline::BaselinePlan;
use super::progress::TuneProgress;
use crate::harness::{Compiler, CompilerFamily, Harness, Measurement};

/// The kind of the journal records that hold baselines.
pub const BASELINE_RECORD: &str = "baseline";

/// The kind of the journal record, written last, that says what a tuning
/// run wrote: `best_candidate` (its time, the original nest's included,
/// or null), `written` (`the best candidate`, `baseline NAME` or
/// `nothing`) and the `flags` it was measured with.
pub const RESULT_RECORD: &str = "result";

/// One way to build the unmodified program.
#[derive(Clone, Debug)]
pub(super) struct Configuration {
    /// `plain`, `polly`, `polly-parallel`, or the other compiler's name.
    pub(super) name: String,
    pub(super) compiler: Compiler,
    /// Flags after the user's.
    pub(super) extra: Vec<String>,
}

/// A baseline, measured.
#[derive(Clone, Debug)]
pub struct Baseline {
    /// `plain` (the user's compiler and flags), `polly` (with `-mllvm
    /// -polly`), `polly-parallel` (with `-mllvm -polly -mllvm
    /// -polly-parallel`), or the name of the `--baseline-cc` compiler.
    pub name: String,
    /// The command it is built with (compiler, flags, `-lm`).
    pub command: String,
    /// Its time in seconds (minimum of its runs), or why it has none.
    pub result: Result<f64, String>,
}

/// The configurations to measure: the user's compiler and flags; with
/// Polly and with Polly's parallel code generation when `polly` (the
/// compiler takes `-mllvm -polly`); `other` with the user's flags.
pub(super) fn configurations(
    compiler: &Compiler,
    polly: bool,
    other: Option<Compiler>,
) -> Vec<Configuration> {
    let words = |flags: &[&str]| flags.iter().map(|f| f.to_string()).collect::<Vec<_>>();
    let mut configurations = vec![Configuration {
        name: "plain".to_string(),
        compiler: compiler.clone(),
        extra: Vec::new(),
    }];
    if polly {
        configurations.push(Configuration {
            name: "polly".to_string(),
            compiler: compiler.clone(),
            extra: words(&["-mllvm", "-polly"]),
        });
        // `-fopenmp`, which Polly's parallel loops need, is always passed.
        configurations.push(Configuration {
            name: "polly-parallel".to_string(),
            compiler: compiler.clone(),
            extra: words(&["-mllvm", "-polly", "-mllvm", "-polly-parallel"]),
        });
    }
    if let Some(other) = other {
        let name = other.path.file_name().map_or_else(
            || other.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        configurations.push(Configuration {
            name,
            compiler: other,
            extra: Vec::new(),
        });
    }
    configurations
}

/// Puts Polly's parallel build before its sequential one: when the time
/// budget has room for few baselines, on more than one thread it is the
/// one more likely to be the fastest (PolyBench's lu at `LARGE_DATASET`:
/// 1.33 s, against 3.46 s for clang's build).
pub(super) fn parallel_first(configurations: &mut [Configuration]) {
    let at = |name: &str| configurations.iter().position(|c| c.name == name);
    if let (Some(sequential), Some(parallel)) = (at("polly"), at("polly-parallel")) {
        if parallel > sequential {
            configurations.swap(sequential, parallel);
        }
    }
}

/// The line that says a compiler has no Polly, when it is the case.
pub(super) fn no_polly_note(compiler: &Compiler) -> String {
    let why = match compiler.family {
        CompilerFamily::Clang { .. } => "it does not take `-mllvm -polly`",
        CompilerFamily::Gcc => "it is GCC",
        CompilerFamily::Other => "it does not take `-mllvm -polly`",
    };
    format!(
        "polly: {} has no Polly ({why}); the Polly baselines are left out and candidates are built without it (optimizer() = NONE)",
        compiler.path.display()
    )
}

/// Measures each configuration's build of `reference` (the unmodified
/// program), records it in the journal and notes it. The first
/// configuration is the reference's own build, measured already (the
/// harness has it cached); the others follow `plan` (see
/// [`super::deadline::baseline_plan`]): those that do not fit are left
/// out, with a line that says why.
pub(super) fn measure(
    harness: &mut Harness,
    reference: &str,
    configurations: &[Configuration],
    plan: BaselinePlan,
    journal: &mut Journal,
    progress: &mut dyn TuneProgress,
) -> Vec<Baseline> {
    let candidate_runs = harness.config().runs;
    if configurations.len() > 1 && plan.reduced {
        progress.note("baselines: one run each, as many as fit in a quarter of the time budget");
    }
    let mut baselines = Vec::new();
    let (mut spent, mut last) = (0.0, None);
    for (index, configuration) in configurations.iter().enumerate() {
        let command = harness
            .config()
            .build_command(&configuration.compiler, &configuration.extra);
        let measured = index == 0 || plan.fits(spent, last);
        let (result, runs) = if measured {
            harness.set_runs(if index == 0 {
                candidate_runs
            } else {
                plan.runs
            });
            let started = Instant::now();
            // One run each (a long kernel, a short budget): the check
            // run is it.
            let evaluate = if index > 0 && plan.reduced {
                Harness::evaluate_once_built_with
            } else {
                Harness::evaluate_built_with
            };
            let measurement = evaluate(
                harness,
                reference,
                &configuration.compiler,
                &configuration.extra,
            );
            if index > 0 {
                let took = started.elapsed().as_secs_f64();
                spent += took;
                last = Some(took);
            }
            match &measurement {
                Measurement::Timed { seconds, runs } | Measurement::Slower { seconds, runs } => {
                    (Ok(*seconds), runs.clone())
                }
                other => (Err(other.summary()), Vec::new()),
            }
        } else {
            (Err(LEFT_OUT.to_string()), Vec::new())
        };
        let record = match &result {
            Ok(seconds) => json!({
                "name": configuration.name,
                "flags": command,
                "status": "ok",
                "value": seconds,
                "measurements": runs,
            }),
            Err(why) => json!({
                "name": configuration.name,
                "flags": command,
                "status": if measured { "failed" } else { "left_out" },
                "message": why,
            }),
        };
        if let Err(e) = journal.append_record(BASELINE_RECORD, &record) {
            progress.note(&format!(
                "warning: the journal could not take a baseline: {e}"
            ));
        }
        progress.note(&match &result {
            Ok(seconds) => format!(
                "baseline {}: {seconds:.6} s ({command})",
                configuration.name
            ),
            Err(why) => format!("baseline {}: {why} ({command})", configuration.name),
        });
        baselines.push(Baseline {
            name: configuration.name.clone(),
            command,
            result,
        });
    }
    harness.set_runs(candidate_runs);
    baselines
}

/// Why a baseline has no time when the budget left no room for it.
const LEFT_OUT: &str =
    "left out: the time budget has no room for it (see `--time-budget`; `--no-baselines` leaves every one out)";

/// The fastest measured baseline: its index and time.
pub fn fastest(baselines: &[Baseline]) -> Option<(usize, f64)> {
    baselines
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.result.as_ref().ok().map(|s| (i, *s)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polly_s_parallel_build_can_go_first() {
        let compiler = Compiler::detect(Some("cc")).unwrap_or_else(|e| panic!("{e}"));
        let mut polly = configurations(&compiler, true, None);
        let names = |c: &[Configuration]| c.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&polly), ["plain", "polly", "polly-parallel"]);
        parallel_first(&mut polly);
        assert_eq!(names(&polly), ["plain", "polly-parallel", "polly"]);
        // Already first, or no Polly: left as they are.
        parallel_first(&mut polly);
        assert_eq!(names(&polly), ["plain", "polly-parallel", "polly"]);
        let mut plain = configurations(&compiler, false, None);
        parallel_first(&mut plain);
        assert_eq!(names(&plain), ["plain"]);
    }
}
