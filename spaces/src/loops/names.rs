//! Names people use for the loop space's objects, in fixed decisions and
//! in reports: `S0`, `S1`, ... for statements in textual order; a loop's
//! iterator (`i`) for its point dimension and `i.tile` for its tile
//! dimension, with `#2`, `#3` after an iterator that names several loops
//! (`j`, `j#2`). Numeric ids are accepted too.

use commute_runtime::fix::parse_fix;
use commute_runtime::{Action, Candidate, DeadEnd};

use super::backbone::KernelHost;
use super::frontend::LoopId;
use super::space::Backbone;

/// The name of every object of `Statements`, by id.
#[derive(Clone, Debug)]
pub struct Names {
    objects: Vec<String>,
}

impl Names {
    pub fn new(host: &KernelHost) -> Names {
        let kernel = host.kernel();
        let mut objects: Vec<String> = (0..kernel.statements.len())
            .map(|s| format!("S{s}"))
            .collect();
        for (l, lp) in kernel.loops.iter().enumerate() {
            let earlier = kernel.loops[..l]
                .iter()
                .filter(|x| x.iterator == lp.iterator)
                .count();
            let name = if earlier == 0 {
                lp.iterator.clone()
            } else {
                format!("{}#{}", lp.iterator, earlier + 1)
            };
            debug_assert_eq!(objects.len(), host.tile(LoopId(l)).0 as usize);
            objects.push(format!("{name}.tile"));
            objects.push(name);
        }
        Names { objects }
    }

    /// The name of an object of `Statements`.
    pub fn object(&self, id: u32) -> String {
        self.objects
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    /// Every name, by id.
    pub fn all(&self) -> &[String] {
        &self.objects
    }

    fn id(&self, name: &str) -> Option<u32> {
        if let Ok(id) = name.parse::<u32>() {
            return Some(id);
        }
        self.objects
            .iter()
            .position(|n| n == name)
            .map(|i| i as u32)
    }

    /// `choice(names) = VALUE` with the names replaced by ids.
    pub fn fix_to_ids(&self, text: &str) -> Result<String, String> {
        let (Some(open), Some(close)) = (text.find('('), text.find(')')) else {
            return Ok(text.to_string());
        };
        if close < open {
            return Ok(text.to_string());
        }
        let mut ids = Vec::new();
        for name in text[open + 1..close].split(',') {
            let name = name.trim();
            match self.id(name) {
                Some(id) => ids.push(id.to_string()),
                None => {
                    return Err(format!(
                        "cannot fix `{}`: no statement or loop is named `{name}`; the names are {}",
                        text.trim(),
                        self.objects.join(", ")
                    ))
                }
            }
        }
        Ok(format!(
            "{}({}){}",
            &text[..open],
            ids.join(", "),
            &text[close + 1..]
        ))
    }

    /// `choice(names) = VALUE` for a single-value action.
    pub fn describe(&self, candidate: &Candidate<Backbone<KernelHost>>, action: &Action) -> String {
        let text = candidate.describe(action);
        let value = text.split_once(" = ").map_or("", |(_, v)| v);
        let choice = candidate
            .model()
            .choices
            .get(action.choice as usize)
            .map_or("?", |c| c.name);
        let objects: Vec<String> = action.objects.iter().map(|&o| self.object(o)).collect();
        format!("{choice}({}) = {value}", objects.join(", "))
    }

    /// A dead end's account followed by what its variables were bound to,
    /// dependences written out.
    pub fn dead_end(&self, host: &KernelHost, dead_end: &DeadEnd) -> String {
        let mut with_ids = Vec::new();
        let mut with_names = Vec::new();
        for (variable, object) in &dead_end.bindings {
            with_ids.push(format!("{variable} = {object}"));
            let what = if variable.trim_start_matches('$') == "dep" {
                host.dependences().get(*object as usize).map_or_else(
                    || object.to_string(),
                    |d| format!("the dependence {}", d.display(host.kernel())),
                )
            } else {
                self.object(*object)
            };
            with_names.push(format!("{variable} = {what}"));
        }
        let (ids, named) = (
            format!(" (with {})", with_ids.join(", ")),
            format!(" (with {})", with_names.join(", ")),
        );
        if dead_end.bindings.is_empty() {
            dead_end.message.clone()
        } else if dead_end.message.contains(&ids) {
            dead_end.message.replace(&ids, &named)
        } else {
            format!("{}{named}", dead_end.message)
        }
    }
}

/// Applies decisions written with names (`dim_kind(j) = PARALLEL`), each
/// propagated; the first that cannot hold is reported with the constraint
/// it breaks and the dependence involved.
pub fn apply_named_fixes(
    host: &KernelHost,
    candidate: &mut Candidate<Backbone<KernelHost>>,
    fixes: &[String],
) -> Result<Vec<Action>, String> {
    let names = Names::new(host);
    let mut actions = Vec::new();
    for fix in fixes {
        let text = names.fix_to_ids(fix)?;
        // The engine writes the instance with ids; people gave names.
        let (choice, ids) = text
            .split_once(')')
            .and_then(|(head, _)| head.split_once('('))
            .unwrap_or(("", ""));
        let (choice, ids) = (choice.trim(), ids.trim());
        let named: Vec<String> = ids
            .split(',')
            .map(|id| {
                id.trim()
                    .parse()
                    .map_or(id.trim().to_string(), |o| names.object(o))
            })
            .collect();
        let rename = |message: &str| {
            if choice.is_empty() {
                return message.to_string();
            }
            message.replace(
                &format!("{choice}({ids})"),
                &format!("{choice}({})", named.join(", ")),
            )
        };
        let action = parse_fix(candidate, &text)
            .map_err(|e| format!("cannot fix `{}`: {}", fix.trim(), rename(&e.message)))?;
        candidate.apply(&action).map_err(|dead_end| {
            let message = rename(&names.dead_end(host, &dead_end));
            format!("cannot fix `{}`: {message}", fix.trim())
        })?;
        actions.push(action);
    }
    Ok(actions)
}
