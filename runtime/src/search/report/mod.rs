//! What a search journal amounts to, for people: a text summary (what
//! was evaluated, what failed and why, the best leaf and its decisions,
//! how it compares with baseline journals) and a plot of the best value
//! so far against evaluations ([`svg`]). Any space's journal can be
//! reported; how decisions are named is up to the caller ([`Naming`]),
//! since only the caller knows the space and the kernel behind a journal.

mod format;
mod plot;
mod run;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::action::Action;
use crate::model::{ChoiceKind, Model, Universe};
use crate::search::breakdown::Breakdown;
use crate::search::{Evaluation, Status};

pub use format::plural;
pub use plot::svg;
pub use run::Run;

use format::{number, seconds, utc};

/// How a report writes the decisions of a journal's best leaf.
pub enum Naming<'a> {
    /// With a space's own names (a kernel's loops and statements, say).
    Named(&'a dyn Fn(&Action) -> String),
    /// With the model's choice and value names, objects by number.
    Model(&'a Model),
    /// Choices and values by number: the space is unknown.
    Numbers,
}

/// The report as text: `path` is the main journal's, named as `naming` says.
pub fn text(path: &Path, main: &Run, baselines: &[Run], naming: &Naming) -> String {
    let mut out = String::new();
    let h = &main.header;
    let s = &main.summary;
    let _ = writeln!(
        out,
        "{}: {} on {}, seed {}, started {}",
        path.display(),
        h.search,
        h.space,
        h.seed,
        utc(h.started)
    );
    if !(h.config.is_null() || h.config.as_object().is_some_and(|o| o.is_empty())) {
        let _ = writeln!(out, "config: {}", h.config);
    }
    let _ = write!(
        out,
        "evaluations: {} in {} ({} measured, {} failed, {} wrong; {} distinct leaves",
        s.evaluations,
        seconds(s.elapsed),
        s.ok,
        s.failed,
        s.wrong,
        s.distinct_leaves
    );
    if s.cut_off + s.timed_out + s.slower > 0 {
        let _ = write!(
            out,
            "; of the measured, {} cut off after one run, {} stopped at the run timeout and {} no faster than the best (not checked)",
            s.cut_off, s.timed_out, s.slower
        );
    }
    let _ = writeln!(out, ")");
    if let Some(breakdown) = Breakdown::of(&main.evaluations) {
        let _ = write!(
            out,
            "where the {} went:\n{breakdown}",
            seconds(breakdown.wall)
        );
    }
    if s.wrong > 0 {
        let _ = writeln!(
            out,
            "!!! {} WRONG RESULT{}: leaves that ran but computed a wrong result. \
             The space lets illegal candidates through; fix its constraints. !!!",
            s.wrong,
            if s.wrong == 1 { "" } else { "S" }
        );
        write_messages(&mut out, &main.evaluations, Status::Wrong);
    }
    if s.failed > 0 {
        let _ = writeln!(out, "failures: {}", s.failed);
        write_messages(&mut out, &main.evaluations, Status::Failed);
    }
    match (s.best(&main.evaluations), s.best_value) {
        (Some(best), Some(value)) => {
            let _ = writeln!(
                out,
                "best: {} at evaluation {} of {} (index {}, after {})",
                number(value),
                best.index + 1,
                main.length(),
                best.index,
                seconds(best.elapsed)
            );
            let _ = writeln!(out, "best leaf's decisions ({}):", best.path.len());
            for action in &best.path {
                let text = match naming {
                    Naming::Named(describe_named) => describe_named(action),
                    Naming::Model(model) => describe(action, Some(model)),
                    Naming::Numbers => describe(action, None),
                };
                let _ = writeln!(out, "  {text}");
            }
            if matches!(naming, Naming::Numbers) && !best.path.is_empty() {
                let _ = writeln!(
                    out,
                    "  (choices and values by number: `{}` is not a space bundled with commute)",
                    h.space
                );
            }
        }
        _ => {
            let _ = writeln!(out, "best: none (no evaluation was measured)");
        }
    }
    if !baselines.is_empty() {
        let _ = writeln!(out, "baselines:");
    }
    for baseline in baselines {
        let b = &baseline.summary;
        let _ = write!(
            out,
            "  {}: {} evaluation{} ({} measured)",
            baseline.name,
            b.evaluations,
            plural(b.evaluations),
            b.ok
        );
        match (b.best_value, b.best_index) {
            (Some(value), Some(index)) => {
                let _ = write!(out, ", best {} at evaluation {}", number(value), index + 1);
                if let Some(ours) = s.best_value {
                    let _ = write!(out, "; {}", compare(ours, value, &main.name));
                    if let Some(&(at, _)) = s.best_so_far.iter().find(|&&(_, v)| v <= value) {
                        let _ = write!(out, "; {} matched it by evaluation {}", main.name, at + 1);
                    }
                }
                let _ = writeln!(out);
            }
            _ => {
                let _ = writeln!(out, ", nothing measured");
            }
        }
    }
    out
}

/// `ours` against a baseline's best, lower being better.
fn compare(ours: f64, theirs: f64, name: &str) -> String {
    if ours == theirs {
        format!("{name} found the same best")
    } else if ours > 0.0 && theirs > 0.0 {
        if ours < theirs {
            format!("{name}'s best is {:.2}x better", theirs / ours)
        } else {
            format!("{name}'s best is {:.2}x worse", ours / theirs)
        }
    } else if ours < theirs {
        format!("{name}'s best is lower by {}", number(theirs - ours))
    } else {
        format!("{name}'s best is higher by {}", number(ours - theirs))
    }
}

/// The most frequent messages of evaluations with `status`, at most three.
fn write_messages(out: &mut String, evaluations: &[Evaluation], status: Status) {
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for e in evaluations.iter().filter(|e| e.status == status) {
        let message = e.message.as_deref().unwrap_or("(no message)");
        counts.entry(message).or_insert((0, e.index)).0 += 1;
    }
    let mut counts: Vec<_> = counts.into_iter().collect();
    counts.sort_by_key(|&(_, (count, first))| (std::cmp::Reverse(count), first));
    for (message, (count, first)) in counts.iter().take(3) {
        let message = message.lines().next().unwrap_or("");
        let _ = writeln!(
            out,
            "  {count}x {message} (first at evaluation {})",
            first + 1
        );
    }
    if counts.len() > 3 {
        let _ = writeln!(out, "  ... and {} other messages", counts.len() - 3);
    }
}

/// `order(0, 1) = BEFORE` with a model, `c0(0, 1) = #0` without.
pub fn describe(action: &Action, model: Option<&Model>) -> String {
    let objects: Vec<String> = action.objects.iter().map(|o| o.to_string()).collect();
    let objects = objects.join(", ");
    let bits: Vec<usize> = (0..64).filter(|b| action.values >> b & 1 == 1).collect();
    let choice = model.and_then(|m| m.choices.get(action.choice as usize));
    let name = choice.map_or_else(|| format!("c{}", action.choice), |c| c.name.to_string());
    let value = |bit: usize| -> String {
        match choice.map(|c| &c.kind) {
            Some(ChoiceKind::Enum { values }) => values
                .get(bit)
                .map_or_else(|| format!("#{bit}"), |v| v.to_string()),
            Some(ChoiceKind::Integer {
                universe: Universe::List(list),
            }) => {
                let mut list = list.to_vec();
                list.sort_unstable();
                list.dedup();
                list.get(bit)
                    .map_or_else(|| format!("#{bit}"), |v| v.to_string())
            }
            _ => format!("#{bit}"),
        }
    };
    let values = match bits.as_slice() {
        [bit] => value(*bit),
        bits => {
            let all: Vec<String> = bits.iter().map(|&b| value(b)).collect();
            format!("{{{}}}", all.join(", "))
        }
    };
    format!("{name}({objects}) = {values}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_without_a_model_read_by_number() {
        let action = Action {
            choice: 0,
            objects: vec![0, 1],
            values: 1,
        };
        assert_eq!(describe(&action, None), "c0(0, 1) = #0");
    }
}
