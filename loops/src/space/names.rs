//! Names people use for the loop space's objects, in fixed decisions and in
//! reports: `S0`, `S1`, ... for statements in textual order; a loop's
//! iterator (`i`) for its point dimension, `i.tile` for its tile dimension
//! and `i.block` for its block (a tile of tiles), with `#2`, `#3` after an
//! iterator that names several loops (`j`, `j#2`). A loop around several
//! statements has dimensions for each (merged in the original program):
//! `i@S0`, `i.tile@S1`; the loop's own name stands for all of them.
//! Operands are named by their arrays (`pack(k.tile, B)`). Numeric ids are
//! accepted too.

use std::collections::BTreeSet;

use commute_runtime::fix::parse_fix;
use commute_runtime::{Action, Candidate, DeadEnd};

use crate::space::host::{KernelHost, Part};
use crate::space::{Backbone, StatementsId, MODEL};

/// The name of every object of `Statements`, by id.
#[derive(Clone, Debug)]
pub struct Names {
    objects: Vec<String>,
    /// Names that stand for several objects (a loop's dimensions around
    /// its statements), with those objects' ids.
    groups: Vec<(String, Vec<u32>)>,
    /// The statement each dimension is around, by id (`None` for
    /// statements), whether or not its name says it.
    statements: Vec<Option<u32>>,
    /// The arrays of `Operands`, by id.
    operands: Vec<String>,
}

impl Names {
    /// The names of a kernel's objects.
    pub fn new(host: &KernelHost) -> Names {
        let kernel = host.kernel();
        let loop_names: Vec<String> = kernel
            .loops
            .iter()
            .enumerate()
            .map(|(l, lp)| {
                let earlier = kernel.loops[..l]
                    .iter()
                    .filter(|x| x.iterator == lp.iterator)
                    .count();
                if earlier == 0 {
                    lp.iterator.clone()
                } else {
                    format!("{}#{}", lp.iterator, earlier + 1)
                }
            })
            .collect();
        let statements_in = |l: usize| {
            kernel
                .statements
                .iter()
                .filter(|s| s.loops.contains(&crate::frontend::LoopId(l)))
                .count()
        };
        let mut objects: Vec<String> = (0..kernel.statements.len())
            .map(|s| format!("S{s}"))
            .collect();
        let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
        let mut statements = vec![None; objects.len()];
        for id in kernel.statements.len()..host.object_count() {
            let Some(d) = host.dimension(StatementsId(id as u32)) else {
                objects.push(id.to_string());
                statements.push(None);
                continue;
            };
            statements.push(Some(d.statement.0 as u32));
            let base = format!(
                "{}{}",
                loop_names[d.loop_id.0],
                match d.part {
                    Part::Block => ".block",
                    Part::Tile => ".tile",
                    Part::Point => "",
                }
            );
            if statements_in(d.loop_id.0) > 1 {
                objects.push(format!("{base}@S{}", d.statement.0));
                match groups.iter_mut().find(|(name, _)| *name == base) {
                    Some((_, ids)) => ids.push(id as u32),
                    None => groups.push((base, vec![id as u32])),
                }
            } else {
                objects.push(base);
            }
        }
        Names {
            objects,
            groups,
            statements,
            operands: kernel.operands(),
        }
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

    /// The objects a name stands for: one, or a loop's dimensions around
    /// all its statements.
    fn ids(&self, name: &str) -> Option<Vec<u32>> {
        if let Ok(id) = name.parse::<u32>() {
            return Some(vec![id]);
        }
        if let Some(i) = self.objects.iter().position(|n| n == name) {
            return Some(vec![i as u32]);
        }
        self.groups
            .iter()
            .find(|(group, _)| group == name)
            .map(|(_, ids)| ids.clone())
    }

    /// The statement a dimension is around; `None` for a statement.
    fn statement_of(&self, id: u32) -> Option<u32> {
        self.statements.get(id as usize).copied().flatten()
    }

    /// `choice(names) = VALUE` as one or more decisions with ids: a loop's
    /// name stands for its dimensions around each of its statements, and
    /// two such names are paired statement by statement where they share
    /// statements (`order(i, k)`: `i` and `k` around the same statement).
    pub fn fix_to_ids(&self, text: &str) -> Result<Vec<String>, String> {
        let (Some(open), Some(close)) = (text.find('('), text.find(')')) else {
            return Ok(vec![text.to_string()]);
        };
        // A choice without objects (`optimizer()`) names none.
        if close < open || text[open + 1..close].trim().is_empty() {
            return Ok(vec![text.to_string()]);
        }
        let mut arguments: Vec<Vec<u32>> = Vec::new();
        let choice = text[..open].trim();
        for (k, name) in text[open + 1..close].split(',').enumerate() {
            let name = name.trim();
            if parameter_set(choice, k) == Some("Operands") {
                let id = name.parse::<u32>().ok().or_else(|| {
                    self.operands
                        .iter()
                        .position(|a| a == name)
                        .map(|i| i as u32)
                });
                match id {
                    Some(id) => arguments.push(vec![id]),
                    None => {
                        return Err(format!(
                            "cannot fix `{}`: `{name}` is not an array the kernel only reads; those are {}",
                            text.trim(),
                            if self.operands.is_empty() {
                                "none".to_string()
                            } else {
                                self.operands.join(", ")
                            }
                        ))
                    }
                }
                continue;
            }
            match self.ids(name) {
                Some(ids) => arguments.push(ids),
                None => {
                    let groups: Vec<&str> = self.groups.iter().map(|(n, _)| n.as_str()).collect();
                    let loops = match groups.as_slice() {
                        [] => String::new(),
                        groups => format!(
                            "; {} stand for a loop's dimensions around all its statements",
                            groups.join(", ")
                        ),
                    };
                    return Err(format!(
                        "cannot fix `{}`: no statement or loop is named `{name}`; the names are {}{loops}",
                        text.trim(),
                        self.objects.join(", ")
                    ));
                }
            }
        }
        let mut combinations: Vec<Vec<u32>> = vec![Vec::new()];
        for ids in &arguments {
            combinations = combinations
                .into_iter()
                .flat_map(|prefix| {
                    ids.iter().map(move |&id| {
                        let mut next = prefix.clone();
                        next.push(id);
                        next
                    })
                })
                .collect();
        }
        // Dimensions of one statement together, where there are any.
        let same_statement = |ids: &Vec<u32>| {
            let statements: BTreeSet<u32> = ids
                .iter()
                .enumerate()
                .filter(|&(k, _)| parameter_set(choice, k) != Some("Operands"))
                .filter_map(|(_, &id)| self.statement_of(id))
                .collect();
            statements.len() <= 1
        };
        if combinations.len() > 1 && combinations.iter().any(same_statement) {
            combinations.retain(same_statement);
        }
        Ok(combinations
            .into_iter()
            .map(|ids| {
                let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
                format!(
                    "{}({}){}",
                    &text[..open],
                    ids.join(", "),
                    &text[close + 1..]
                )
            })
            .collect())
    }

    /// Decisions written for people: where the decisions on a loop's
    /// dimensions around each of its statements are all there and alike,
    /// one decision with the loop's name stands for them.
    pub fn summarize(
        &self,
        candidate: &Candidate<Backbone<KernelHost>>,
        actions: &[Action],
    ) -> Vec<String> {
        let described: Vec<String> = actions
            .iter()
            .map(|a| self.describe(candidate, a))
            .collect();
        let present: BTreeSet<&str> = described.iter().map(String::as_str).collect();
        let mut out: Vec<String> = Vec::new();
        let mut covered: BTreeSet<String> = BTreeSet::new();
        for text in &described {
            if covered.contains(text) {
                continue;
            }
            let general = self.unqualified(text);
            let expanded: Option<Vec<String>> = self
                .fix_to_ids(&general)
                .ok()
                .map(|fixes| fixes.iter().map(|fix| self.with_names(fix)).collect());
            match expanded {
                Some(all)
                    if general != *text && all.iter().all(|x| present.contains(x.as_str())) =>
                {
                    covered.extend(all);
                    out.push(general);
                }
                _ => out.push(text.clone()),
            }
        }
        out
    }

    /// The text with every `@S..` qualifier removed.
    fn unqualified(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("@S") {
            out.push_str(&rest[..at]);
            rest = rest[at + 2..].trim_start_matches(|c: char| c.is_ascii_digit());
        }
        out.push_str(rest);
        out
    }

    /// `choice(ids) = VALUE` with the ids replaced by names.
    fn with_names(&self, text: &str) -> String {
        let (Some(open), Some(close)) = (text.find('('), text.find(')')) else {
            return text.to_string();
        };
        let choice = text[..open].trim();
        let names: Vec<String> = text[open + 1..close]
            .split(',')
            .enumerate()
            .map(|(k, id)| match id.trim().parse::<u32>() {
                Ok(o) => self.argument(choice, k, o),
                Err(_) => id.trim().to_string(),
            })
            .collect();
        format!(
            "{}({}){}",
            &text[..open],
            names.join(", "),
            &text[close + 1..]
        )
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
        let objects: Vec<String> = action
            .objects
            .iter()
            .enumerate()
            .map(|(k, &o)| self.argument(choice, k, o))
            .collect();
        format!("{choice}({}) = {value}", objects.join(", "))
    }

    /// The `k`-th object of an instance of `choice`: a statement or
    /// dimension by its name, a dependence (`carries($dep, $e)`) by its
    /// number, as the space declares the parameter.
    fn argument(&self, choice: &str, k: usize, id: u32) -> String {
        match parameter_set(choice, k) {
            Some("Deps") => format!("dependence {id}"),
            Some("Operands") => self
                .operands
                .get(id as usize)
                .cloned()
                .unwrap_or_else(|| id.to_string()),
            _ => self.object(id),
        }
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

/// The set of the `k`-th parameter of a choice of the space.
fn parameter_set(choice: &str, k: usize) -> Option<&'static str> {
    MODEL
        .choices
        .iter()
        .find(|c| c.name == choice)
        .and_then(|c| c.params.get(k))
        .and_then(|p| MODEL.sets.get(p.set as usize))
        .map(|set| set.name)
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
        for text in names.fix_to_ids(fix)? {
            // The engine writes the instance with ids; people gave names.
            let (choice, ids) = text
                .split_once(')')
                .and_then(|(head, _)| head.split_once('('))
                .unwrap_or(("", ""));
            let (choice, ids) = (choice.trim(), ids.trim());
            let rename = |message: &str| {
                if choice.is_empty() {
                    return message.to_string();
                }
                message.replace(
                    &format!("{choice}({ids})"),
                    names.with_names(&format!("{choice}({ids})")).as_str(),
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
    }
    Ok(actions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::read_kernel;
    use crate::space::{carries, dim_kind};

    const PREFIX_SUM: &str = "void f(int n, double a[n]) {
#pragma scop
  for (int i = 1; i < n; i++)
    a[i] += a[i - 1];
#pragma endscop
}";

    #[test]
    fn decisions_name_dimensions_and_number_dependences() {
        let host = KernelHost::new(read_kernel("t.c", PREFIX_SUM).expect("the nest reads"));
        let names = Names::new(&host);
        let root = Candidate::new(Backbone(host)).expect("the space has candidates");
        let instance = |choice: u16| {
            root.instances(&[choice])
                .into_iter()
                .find(|i| i.choice == choice)
                .expect("an instance")
        };
        let carry = instance(carries::CHOICE);
        let action = Action {
            choice: carry.choice,
            objects: carry.objects.clone(),
            values: 1,
        };
        let text = names.describe(&root, &action);
        assert!(
            text.starts_with(&format!(
                "carries(dependence {}, i.tile) = ",
                carry.objects[0]
            )),
            "{text}"
        );
        let kind = instance(dim_kind::CHOICE);
        let text = names.with_names(&format!("dim_kind({}) = VECTOR", kind.objects[0]));
        assert_eq!(text, "dim_kind(i.tile) = VECTOR");
        let text = names.with_names(&format!(
            "carries({}, {}) = NO",
            carry.objects[0], carry.objects[1]
        ));
        assert_eq!(
            text,
            format!("carries(dependence {}, i.tile) = NO", carry.objects[0])
        );
    }
}
