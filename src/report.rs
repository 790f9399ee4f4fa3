//! `commute report`: what a search journal amounts to, as text and as a
//! plot of the best value so far against evaluations, next to baselines
//! (`commute_runtime::search::report`). This module only finds the names
//! a journal's decisions are written with: a bundled space's, or a tuned
//! kernel's loops and statements.

use std::path::{Path, PathBuf};

use commute_loops::harness::speedup;
use commute_loops::space::names::Names;
use commute_loops::space::Backbone as LoopBackbone;
use commute_loops::tune::{KernelOptions, BASELINE_RECORD, RESULT_RECORD};
use commute_runtime::model::Model;
use commute_runtime::search::journal::read_records;
use commute_runtime::search::report::{plural, svg, text, Naming, Run};
use commute_runtime::{Action, Candidate};

/// A journal to compare with: `NAME=JOURNAL`, or `JOURNAL` to take the
/// name of its search.
#[derive(Clone, Debug)]
pub struct BaselineArg {
    pub name: Option<String>,
    pub path: PathBuf,
}

impl std::str::FromStr for BaselineArg {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.split_once('=') {
            Some((name, path)) if !name.is_empty() && !path.is_empty() => Ok(BaselineArg {
                name: Some(name.to_string()),
                path: PathBuf::from(path),
            }),
            Some(_) => Err(format!("`{text}`: expected NAME=JOURNAL")),
            None if text.is_empty() => Err("expected NAME=JOURNAL".to_string()),
            None => Ok(BaselineArg {
                name: None,
                path: PathBuf::from(text),
            }),
        }
    }
}

pub struct Options {
    pub journal: PathBuf,
    /// Where to write the plot; the journal's path with `.svg` if `None`.
    pub svg: Option<PathBuf>,
    pub baselines: Vec<BaselineArg>,
}

/// Reads the journals, prints the report on stdout (and a warning about
/// wrong results on stderr) and writes the plot.
pub fn run(options: &Options) -> Result<(), String> {
    let main = Run::read(&options.journal, None)?;
    let baselines = options
        .baselines
        .iter()
        .map(|b| Run::read(&b.path, b.name.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let svg_path = options
        .svg
        .clone()
        .unwrap_or_else(|| options.journal.with_extension("svg"));
    std::fs::write(&svg_path, svg(&main, &baselines))
        .map_err(|e| format!("cannot write `{}`: {e}", svg_path.display()))?;
    let kernel = kernel_names(&main.header.space).or_else(|| host_names(&main.header.config));
    let naming = match (&kernel, known_model(&main.header.space)) {
        (Some(describe), _) => Naming::Named(describe.as_ref()),
        (None, Some(model)) => Naming::Model(model),
        (None, None) => Naming::Numbers,
    };
    say_part!("{}", text(&options.journal, &main, &baselines, &naming));
    say_part!("{}", program_baselines(&options.journal, &main));
    say!("plot: {}", svg_path.display());
    if main.summary.wrong > 0 {
        tell!(
            "warning: {} evaluation{} gave WRONG RESULTS: the space allows illegal candidates",
            main.summary.wrong,
            plural(main.summary.wrong)
        );
    }
    Ok(())
}

/// For a journal of `commute tune`: the baselines it records (the
/// unmodified program built plainly, with Polly, with another compiler),
/// the best candidate's speedup over each, and which one was written
/// when one was faster; nothing for other journals.
fn program_baselines(journal: &Path, run: &Run) -> String {
    let Ok(records) = read_records(journal, BASELINE_RECORD) else {
        return String::new();
    };
    // A resumed run measures them again: the last of each name counts.
    let mut latest: Vec<(String, &serde_json::Value)> = Vec::new();
    for record in &records {
        let name = record["name"].as_str().unwrap_or("?").to_string();
        match latest.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = record,
            None => latest.push((name, record)),
        }
    }
    if latest.is_empty() {
        return String::new();
    }
    // The tuning run's own verdict, when it got to write one (a killed
    // run did not): its best candidate includes the original nest
    // measured before the search.
    let result = read_records(journal, RESULT_RECORD)
        .ok()
        .and_then(|r| r.into_iter().last());
    let best = match &result {
        Some(result) => result["best_candidate"].as_f64(),
        None => run.summary.best_value,
    };
    let mut text =
        String::from("baselines (the unmodified program, checked and timed like candidates):\n");
    let mut fastest: Option<(&str, f64, &str)> = None;
    for (name, record) in &latest {
        let flags = record["flags"].as_str().unwrap_or("");
        match record["value"].as_f64() {
            Some(seconds) => {
                let over = best.map_or(String::new(), |b| {
                    format!("; the best candidate is {} over it", speedup(seconds, b))
                });
                text.push_str(&format!("  {name}: {seconds:.6} s{over} ({flags})\n"));
                if fastest.is_none_or(|(_, s, _)| seconds < s) {
                    fastest = Some((name, seconds, flags));
                }
            }
            None => text.push_str(&format!(
                "  {name}: {} ({flags})\n",
                record["message"].as_str().unwrap_or("not measured")
            )),
        }
    }
    match result {
        Some(result) => text.push_str(&format!(
            "written: {} (built with {})\n",
            result["written"].as_str().unwrap_or("?"),
            result["flags"].as_str().unwrap_or("?")
        )),
        None => {
            if let Some((name, seconds, flags)) = fastest {
                if best.is_none_or(|b| seconds < b) {
                    text.push_str(&format!(
                        "the baseline `{name}` is faster than every candidate of the journal ({flags})\n"
                    ));
                }
            }
        }
    }
    text
}

/// Writes the plot of one journal, without baselines.
pub fn write_plot(journal: &Path, svg_path: &Path) -> Result<(), String> {
    let main = Run::read(journal, None)?;
    std::fs::write(svg_path, svg(&main, &[]))
        .map_err(|e| format!("cannot write `{}`: {e}", svg_path.display()))
}

/// The bundled spaces, whose names let a report show choices and values
/// by name: a space is known by its name in `commute search` (`ordering`),
/// its model's name or its file's name.
fn known_model(space: &str) -> Option<&'static Model> {
    let stem = Path::new(space)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(space);
    commute_spaces::models()
        .into_iter()
        .find(|(name, model)| *name == space || model.name == space || model.name == stem)
        .map(|(_, model)| model)
}

/// Writes a decision for people.
type Describer = Box<dyn Fn(&Action) -> String>;

/// For a journal of `commute tune` (space `loops:KERNEL.c`, with the
/// options that change the space after it, see
/// [`KernelOptions::journal_space`]) whose kernel can still be read:
/// decisions written with the kernel's names (`dim_kind(j#2) = VECTOR`,
/// `tile_size(i) = 32`).
fn kernel_names(space: &str) -> Option<Describer> {
    let host = KernelOptions::from_journal_space(space)?.host().ok()?;
    let names = Names::new(&host);
    let root = Candidate::new(LoopBackbone(host)).ok()?;
    Some(Box::new(move |action| names.describe(&root, action)))
}

/// For a journal of `commute search SPACE --host HOST` whose files can
/// still be read: decisions written with the host's names.
fn host_names(config: &serde_json::Value) -> Option<Describer> {
    let space = config.get("space_file")?.as_str()?;
    let host = config.get("host_file")?.as_str()?;
    let host = crate::hosted::load(Path::new(space), Path::new(host)).ok()?;
    let root = Candidate::new(host.clone()).ok()?;
    Some(Box::new(move |action| host.describe(&root, action)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use commute_runtime::search::report::describe;

    #[test]
    fn actions_read_with_the_names_of_a_bundled_space() {
        let model = known_model("spaces/paper/listing07_ordering.space").unwrap();
        let action = Action {
            choice: 0,
            objects: vec![0, 1],
            values: 1,
        };
        assert_eq!(describe(&action, Some(model)), "order(0, 1) = BEFORE");
        let two = Action {
            values: 0b11,
            ..action.clone()
        };
        assert_eq!(describe(&two, Some(model)), "order(0, 1) = {BEFORE, AFTER}");
    }
}
