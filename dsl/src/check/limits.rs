//! What the engine cannot hold or does not support yet, checked on the
//! built space.
//!
//! Owns the `too-many-*` errors and the `unsupported` one. The last pass:
//! it reads the whole checked [`Space`], generated items included, and
//! reports each declaration beyond one of the engine's
//! [`limits`](commute_model::limits), naming the limit and its value: the
//! variables of one scope ([`MAX_VARS`]) and the items of one table
//! ([`MAX_TABLE_LEN`]). Items a quotient generates are reported once, at
//! the quotient. Choices over parametrized sets, which the engine cannot
//! lay out yet, are reported here too.
//!
//! Two limits are checked earlier, where the syntax tree still locates
//! what goes past them, with the errors this module builds: values
//! ([`MAX_VALUES`], [`too_many_values`]) where domains are read
//! ([`domains`](super::domains)), since an enum value past the limit has no
//! bit to stand for it; and conditions ([`MAX_CONDITIONS`],
//! [`too_many_conditions`]) where constraints are read
//! ([`constraints`](super::constraints)), since the checked form keeps no
//! span per condition.

use commute_model::limits::{MAX_CONDITIONS, MAX_TABLE_LEN, MAX_VALUES, MAX_VARS};

use super::context::{plural, Checker};
use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::ir::*;
use crate::source::{SourceMap, Span};

impl Checker<'_> {
    /// Reports every declaration of the space beyond a limit of the
    /// engine, in declaration order within each kind of item.
    pub(super) fn check_limits(&mut self) {
        let diagnostics = Limits {
            space: &self.space,
            sources: self.sources,
        }
        .check();
        self.diagnostics.extend(diagnostics);
    }
}

/// The `too-many-values` error for the value at `span`, the first one past
/// [`MAX_VALUES`] of `choice`, which has `count` values; `what` says which
/// kind of choice it is ("enum choice", "integer choice").
pub(super) fn too_many_values(what: &str, choice: &str, count: usize, span: Span) -> Diagnostic {
    Diagnostic::error(
        "too-many-values",
        format!(
            "{what} `{choice}` has {count} values; the engine holds at most {MAX_VALUES} per choice (limit `MAX_VALUES`)"
        ),
        span,
        format!("the {} value", ordinal(MAX_VALUES + 1)),
    )
    .with_note(format!(
        "a domain is a {MAX_VALUES}-bit mask: keep at most {MAX_VALUES} values, or split the choice into several choices"
    ))
}

/// The `too-many-conditions` error for a constraint written with the
/// conditions of `list`, to which the checker adds `implicit` ones (the
/// `is not` test of a value's `requires`), when they are more than
/// [`MAX_CONDITIONS`]; at the first condition past the limit.
pub(super) fn too_many_conditions(
    list: &ast::ConditionList,
    implicit: usize,
) -> Option<Diagnostic> {
    let first_past = list.conditions.get(MAX_CONDITIONS - implicit)?;
    let count = list.conditions.len();
    let (what, with_implicit) = match implicit {
        0 => ("constraint", String::new()),
        _ => (
            "`requires`",
            format!(", {} with the value's own `is not` test", count + implicit),
        ),
    };
    Some(
        Diagnostic::error(
            "too-many-conditions",
            format!(
                "this {what} has {count} conditions{with_implicit}; the engine holds at most {MAX_CONDITIONS} per constraint (limit `MAX_CONDITIONS`)"
            ),
            first_past.span,
            "one condition too many",
        )
        .with_note("split it into several constraints"),
    )
}

/// The checked space, read for what goes beyond the engine's limits.
struct Limits<'s> {
    space: &'s Space,
    sources: &'s SourceMap,
}

impl Limits<'_> {
    fn check(&self) -> Vec<Diagnostic> {
        let mut found = Vec::new();
        self.tables(&mut found);
        self.sets_and_properties(&mut found);
        self.choices(&mut found);
        self.quotients(&mut found);
        self.constraints(&mut found);
        self.triggers(&mut found);
        found
    }

    /// Tables numbered with `u16`: one error per table, at its first item
    /// past the limit.
    fn tables(&self, found: &mut Vec<Diagnostic>) {
        let space = self.space;
        let tables = [
            ("sets", "set", table(space.sets.iter().map(|s| &s.origin))),
            ("properties", "property", table(space.properties.iter().map(|p| &p.origin))),
            (
                "choices (counters and the choices quotients generate included)",
                "choice",
                table(space.choices.iter().map(|c| &c.origin)),
            ),
            (
                "constraints (value `requires`, `require` items and the constraints quotients generate)",
                "constraint",
                table(space.constraints.iter().map(|c| &c.origin)),
            ),
            (
                "triggers (the triggers quotients generate included)",
                "trigger",
                table(space.triggers.iter().map(|t| &t.origin)),
            ),
            ("trigger callbacks", "callback", table(space.callbacks.iter().map(|c| &c.origin))),
        ];
        for (what, one, (count, first_past)) in tables {
            let Some(origin) = first_past else { continue };
            found.push(
                Diagnostic::error(
                    "too-many-items",
                    format!(
                        "the space has {count} {what}; the engine numbers them with 16 bits and holds at most {MAX_TABLE_LEN} (limit `MAX_TABLE_LEN`)"
                    ),
                    self.first_line(origin.span),
                    format!("the {} {one}", ordinal(MAX_TABLE_LEN + 1)),
                )
                .with_note("split the space into several spaces"),
            );
        }
    }

    /// The first line of `span`, so that a label under a declaration
    /// stays one line long.
    fn first_line(&self, span: Span) -> Span {
        let text = self.sources.text(span.file);
        let line_end = text
            .get(span.start..span.end)
            .and_then(|within| within.find('\n'))
            .map_or(span.end, |at| span.start + at);
        Span {
            end: line_end,
            ..span
        }
    }

    fn sets_and_properties(&self, found: &mut Vec<Diagnostic>) {
        for set in &self.space.sets {
            // A quotient's parameters are checked with the quotient.
            if set.quotient.is_none() {
                found.extend(too_many_vars(
                    &format!("set `{}` has {} parameters", set.name, set.params.len()),
                    &set.params,
                ));
            }
        }
        for property in &self.space.properties {
            found.extend(too_many_vars(
                &format!(
                    "property `{}` has {} parameters",
                    property.name,
                    property.params.len()
                ),
                &property.params,
            ));
        }
    }

    fn choices(&self, found: &mut Vec<Diagnostic>) {
        for choice in self.space.choices.iter().filter(|c| c.quotient.is_none()) {
            let too_many = match &choice.kind {
                // A counter's scope starts with its parameters, but its
                // body may not have checked.
                ChoiceKind::Counter(counter) if counter.vars.len() > choice.params.len() => {
                    let params = choice.params.len();
                    too_many_vars(
                        &format!(
                            "counter `{}` binds {} variables ({params} parameter{} and {} quantifier{})",
                            choice.name,
                            counter.vars.len(),
                            plural(params),
                            counter.vars.len() - params,
                            plural(counter.vars.len() - params),
                        ),
                        &counter.vars,
                    )
                }
                kind => too_many_vars(
                    &format!(
                        "{} `{}` has {} parameters",
                        match kind {
                            ChoiceKind::Counter(_) => "counter",
                            _ => "choice",
                        },
                        choice.name,
                        choice.params.len()
                    ),
                    &choice.params,
                ),
            };
            found.extend(too_many);
            if let Some(param) = choice.params.iter().find(|p| !p.set.args.is_empty()) {
                found.push(self.over_parametrized_set(
                    &format!("choice `{}` has a parameter over", choice.name),
                    "",
                    param,
                    "quantify over the set in a counter or constraint instead",
                ));
            }
        }
    }

    /// A quotient's widest scope is that of its class counter: its
    /// parameters, its member and a second object of the member's class.
    fn quotients(&self, found: &mut Vec<Diagnostic>) {
        for quotient in &self.space.quotients {
            let params = &self.space.set(quotient.set).params;
            if params.len() + 2 > MAX_VARS {
                found.push(
                    Diagnostic::error(
                        "too-many-variables",
                        format!(
                            "quotient `{}` has {} parameters: with its member and a second object of the member's class, its generated counter binds {} variables; the engine holds at most {MAX_VARS} per declaration (limit `MAX_VARS`)",
                            quotient.name,
                            params.len(),
                            params.len() + 2
                        ),
                        params[MAX_VARS - 2].span,
                        "one parameter too many",
                    )
                    .with_note(format!(
                        "a quotient has at most {} parameters",
                        MAX_VARS - 2
                    )),
                );
            }
            let flag = self.space.choice(quotient.flag);
            if let Some(member) = flag.params.last().filter(|m| !m.set.args.is_empty()) {
                found.push(self.over_parametrized_set(
                    &format!("quotient `{}` partitions", quotient.name),
                    "; its membership choice would range over it",
                    member,
                    "partition a set without parameters",
                ));
            }
        }
    }

    /// The `unsupported` error for a choice whose parameter `var` ranges
    /// over a parametrized set: "`{what}` the parametrized set `S`{why};
    /// choices over ... are not supported yet".
    fn over_parametrized_set(
        &self,
        what: &str,
        why: &str,
        var: &Variable,
        note: &str,
    ) -> Diagnostic {
        let set = &self.space.set(var.set.set).name;
        Diagnostic::error(
            "unsupported",
            format!(
                "{what} the parametrized set `{set}`{why}; choices over parametrized sets are not supported yet"
            ),
            var.span,
            format!("`${}` ranges over `{set}(...)`", var.name),
        )
        .with_note(note)
    }

    fn constraints(&self, found: &mut Vec<Diagnostic>) {
        for constraint in &self.space.constraints {
            let scope = match &constraint.source {
                ConstraintSource::Quotient(_) => continue,
                ConstraintSource::Require => format!(
                    "this constraint quantifies over {} variables",
                    constraint.vars.len()
                ),
                ConstraintSource::ValueRequires { choice, .. }
                | ConstraintSource::AliasRequires { choice, .. } => {
                    let choice = self.space.choice(*choice);
                    // Too many parameters are the choice's error.
                    if choice.params.len() > MAX_VARS {
                        continue;
                    }
                    let params = choice.params.len();
                    let quantifiers = constraint.vars.len() - params;
                    format!(
                        "this `requires` binds {} variables (the {params} parameter{} of `{}` and {quantifiers} quantifier{})",
                        constraint.vars.len(),
                        plural(params),
                        choice.name,
                        plural(quantifiers),
                    )
                }
            };
            found.extend(too_many_vars(&scope, &constraint.vars));
        }
    }

    fn triggers(&self, found: &mut Vec<Diagnostic>) {
        for trigger in &self.space.triggers {
            if let TriggerAction::Callback { .. } = trigger.action {
                found.extend(too_many_vars(
                    &format!(
                        "this trigger quantifies over {} variables",
                        trigger.vars.len()
                    ),
                    &trigger.vars,
                ));
            }
        }
    }
}

/// The `too-many-variables` error for a scope past [`MAX_VARS`], at its
/// first variable past the limit; `scope` says what binds how many.
fn too_many_vars(scope: &str, vars: &[Variable]) -> Option<Diagnostic> {
    let first_past = vars.get(MAX_VARS)?;
    Some(
        Diagnostic::error(
            "too-many-variables",
            format!(
                "{scope}; the engine holds at most {MAX_VARS} per declaration (limit `MAX_VARS`)"
            ),
            first_past.span,
            format!("the {} variable", ordinal(MAX_VARS + 1)),
        )
        .with_note(format!(
            "rewrite it with at most {MAX_VARS} variables, e.g. split it into several declarations"
        )),
    )
}

/// The length of a table, and the origin of its first item past
/// [`MAX_TABLE_LEN`].
fn table<'s>(
    mut origins: impl ExactSizeIterator<Item = &'s Origin>,
) -> (usize, Option<&'s Origin>) {
    let len = origins.len();
    (len, origins.nth(MAX_TABLE_LEN))
}

/// `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, ..., `21st`, ...
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::ordinal;

    #[test]
    fn ordinals() {
        let written: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 17, 21, 22, 65, 257, 65536]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            written,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "17th", "21st", "22nd", "65th",
                "257th", "65536th"
            ]
        );
    }
}
