//! Decisions fixed by a person before a search: `order(0, 1) = BEFORE`,
//! `kind(3) = LOOP | UNROLL`, `tile_size(2) = 32`. Objects are given by
//! their ids; values by name (enum) or number (integer).

use std::fmt;

use crate::action::{Action, InstanceId};
use crate::backbone::{Backbone, ObjectId};
use crate::candidate::{Candidate, Domain};
use crate::model::ChoiceKind;

/// A fixed decision that cannot be read or cannot hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixError {
    /// The decision as written.
    pub fix: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for FixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot fix `{}`: {}", self.fix, self.message)
    }
}

impl std::error::Error for FixError {}

/// Reads one fixed decision against the candidate's space.
pub fn parse_fix<B: Backbone>(candidate: &Candidate<B>, text: &str) -> Result<Action, FixError> {
    let error = |message: String| FixError {
        fix: text.trim().to_string(),
        message,
    };
    let (lhs, rhs) = text
        .split_once('=')
        .ok_or_else(|| error("expected `choice(objects) = VALUE`".into()))?;
    let (name, args) = lhs
        .trim()
        .split_once('(')
        .ok_or_else(|| error("expected `choice(objects)` before `=`".into()))?;
    let name = name.trim();
    let args = args
        .trim()
        .strip_suffix(')')
        .ok_or_else(|| error("expected `)` after the objects".into()))?;
    let model = candidate.model();
    let Some(choice) = model.choice_index(name) else {
        let names: Vec<&str> = model
            .choices
            .iter()
            .filter(|c| !matches!(c.kind, ChoiceKind::Counter(_)))
            .map(|c| c.name)
            .collect();
        return Err(error(format!(
            "no choice is named `{name}`; the choices are {}",
            names.join(", ")
        )));
    };
    let def = &model.choices[choice as usize];
    if matches!(def.kind, ChoiceKind::Counter(_)) {
        return Err(error(format!(
            "`{name}` is a counter: counters follow the decisions and cannot be fixed"
        )));
    }
    let objects: Vec<ObjectId> = if args.trim().is_empty() {
        Vec::new()
    } else {
        args.split(',')
            .map(|a| {
                a.trim()
                    .parse::<ObjectId>()
                    .map_err(|_| error(format!("`{}` is not an object id", a.trim())))
            })
            .collect::<Result<_, _>>()?
    };
    if objects.len() != def.params.len() {
        return Err(error(format!(
            "`{name}` takes {} object(s), {} given",
            def.params.len(),
            objects.len()
        )));
    }
    let instance = InstanceId {
        choice,
        objects: objects.clone(),
    };
    let domain = candidate.domain(&instance).ok_or_else(|| {
        error(format!(
            "{} is not an instance of this kernel",
            instance.display(model)
        ))
    })?;
    let mut values = 0u64;
    for value in rhs.split('|').map(str::trim) {
        let bit = match (&def.kind, &domain) {
            (ChoiceKind::Enum { values }, _) => {
                values.iter().position(|v| *v == value).ok_or_else(|| {
                    error(format!(
                        "`{value}` is not a value of `{name}`; its values are {}",
                        values.join(", ")
                    ))
                })?
            }
            (_, Domain::Integer { universe, .. }) => {
                let number: i64 = value
                    .parse()
                    .map_err(|_| error(format!("`{value}` is not an integer")))?;
                let shown: Vec<String> = universe.iter().map(i64::to_string).collect();
                universe.iter().position(|v| *v == number).ok_or_else(|| {
                    error(format!(
                        "{number} is not a possible value of {}; they are {}",
                        instance.display(model),
                        shown.join(", ")
                    ))
                })?
            }
            _ => return Err(error(format!("`{name}` cannot be fixed"))),
        };
        values |= 1 << bit;
    }
    Ok(Action {
        choice,
        objects,
        values,
    })
}

/// Applies fixed decisions in order, each propagated; the first that
/// cannot hold is reported with the constraint it breaks.
pub fn apply_fixes<B: Backbone>(
    candidate: &mut Candidate<B>,
    fixes: &[String],
) -> Result<Vec<Action>, FixError> {
    let mut actions = Vec::new();
    for fix in fixes {
        let action = parse_fix(candidate, fix)?;
        candidate.apply(&action).map_err(|dead_end| FixError {
            fix: fix.trim().to_string(),
            message: dead_end.message,
        })?;
        actions.push(action);
    }
    Ok(actions)
}

/// Reads a file of fixed decisions: one per line, `#` at the start of a
/// line or after a space starts a comment (inside a name, as the loop
/// space's `j#2`, it does not).
pub fn read_fix_file(path: &std::path::Path) -> std::io::Result<Vec<String>> {
    Ok(fix_lines(&std::fs::read_to_string(path)?))
}

/// The decisions of a fix file's text, comments and blank lines left out.
fn fix_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| {
            let mut previous = ' ';
            let end = line
                .char_indices()
                .find(|&(_, c)| {
                    let comment = c == '#' && previous.is_whitespace();
                    previous = c;
                    comment
                })
                .map_or(line.len(), |(i, _)| i);
            line[..end].trim()
        })
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::fix_lines;

    #[test]
    fn a_hash_starts_a_comment_only_at_a_line_start_or_after_a_space() {
        let text = "# fixed by hand\norder(k, j#2) = INNER  # the update's j\n\n  #all\ntile_size(j#2) = 64#no space\n";
        assert_eq!(
            fix_lines(text),
            ["order(k, j#2) = INNER", "tile_size(j#2) = 64#no space"]
        );
    }
}
