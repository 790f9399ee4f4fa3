//! Choice domains: the values an enum choice or integer choice may take.
//!
//! Owns enum values and aliases (duplicates, too many values, empty enums),
//! the resolution of value and alias names to a [`ValueSet`], and integer
//! universes (literal lists, with too many values, or `[int]` properties).
//! Reads the choice headers from [`resolve`](super::resolve); produces each
//! choice's [`EnumDomain`] or [`Universe`], and dispatches each enum
//! choice's body to the symmetry and `requires` checks.

use std::collections::HashMap;

use commute_model::limits::MAX_VALUES;

use super::context::{Callable, Checker, Scope, UNRESOLVED};
use super::limits::too_many_values;
use crate::ast::{self, Ident};
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::ir::*;
use crate::source::Span;

impl Checker<'_> {
    /// Reads the values and aliases of an enum choice.
    pub(super) fn enum_domain(
        &mut self,
        decl: &ast::ChoiceDecl,
        body: &ast::EnumBody,
    ) -> EnumDomain {
        let mut values: Vec<EnumValue> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for value in &body.values {
            if let Some(i) = values.iter().position(|v| v.name == value.name.name) {
                self.error(
                    Diagnostic::error(
                        "duplicate",
                        format!(
                            "value `{}` is defined twice in `{}`",
                            value.name.name, decl.name.name
                        ),
                        value.name.span,
                        "defined again here",
                    )
                    .with_label(spans[i], "first defined here"),
                );
                continue;
            }
            // Past the limit, a value has no bit of a `ValueSet`.
            if values.len() == MAX_VALUES {
                self.error(too_many_values(
                    "enum choice",
                    &decl.name.name,
                    body.values.len(),
                    value.name.span,
                ));
                break;
            }
            values.push(EnumValue {
                name: value.name.name.clone(),
                doc: value.doc.clone(),
            });
            spans.push(value.name.span);
        }
        if body.values.is_empty() {
            self.error(
                Diagnostic::error(
                    "empty-enum",
                    format!("enum choice `{}` has no value", decl.name.name),
                    decl.header_span,
                    "declared without values",
                )
                .with_note("list its values inside the block: `value NAME`"),
            );
        }
        let mut domain = EnumDomain {
            values,
            aliases: Vec::new(),
        };
        let mut accepted: Vec<&ast::AliasDecl> = Vec::new();
        for alias in &body.aliases {
            if let Some(i) = domain.values.iter().position(|v| v.name == alias.name.name) {
                self.error(
                    Diagnostic::error(
                        "duplicate",
                        format!(
                            "alias `{}` has the name of a value of `{}`",
                            alias.name.name, decl.name.name
                        ),
                        alias.name.span,
                        "alias declared here",
                    )
                    .with_label(spans[i], "value declared here"),
                );
                continue;
            }
            if domain.aliases.iter().any(|a| a.name == alias.name.name) {
                self.error(Diagnostic::error(
                    "duplicate",
                    format!("alias `{}` is defined twice", alias.name.name),
                    alias.name.span,
                    "defined again here",
                ));
                continue;
            }
            // The values come once every alias is known: an alias may name
            // another one, declared before or after it.
            domain.aliases.push(Alias {
                name: alias.name.name.clone(),
                doc: alias.doc.clone(),
                values: ValueSet::default(),
            });
            accepted.push(alias);
        }
        let sets = self.alias_values(&decl.name.name, &domain, &accepted);
        for (alias, values) in domain.aliases.iter_mut().zip(sets) {
            alias.values = values.unwrap_or_default();
        }
        domain
    }

    /// The values of each alias of `domain` (declared by `aliases`, in the
    /// same order), the aliases it names expanded. Aliases are resolved in
    /// dependency order, without recursion, so a long chain cannot overflow
    /// the stack; `None` for an alias with an unknown name or on a cycle.
    fn alias_values(
        &mut self,
        choice: &str,
        domain: &EnumDomain,
        aliases: &[&ast::AliasDecl],
    ) -> Vec<Option<ValueSet>> {
        let index: HashMap<&str, usize> = aliases
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.name.as_str(), i))
            .collect();
        // The values an alias names directly, and the aliases it names.
        let mut sets: Vec<Option<ValueSet>> = Vec::with_capacity(aliases.len());
        let mut needs: Vec<Vec<(usize, Span)>> = Vec::with_capacity(aliases.len());
        for alias in aliases {
            let (named, values): (Vec<&Ident>, Vec<&Ident>) = alias
                .values
                .iter()
                .partition(|v| index.contains_key(v.name.as_str()));
            let values: Vec<Ident> = values.into_iter().cloned().collect();
            sets.push(self.value_set(choice, domain, &values, false));
            needs.push(
                named
                    .iter()
                    .map(|v| (index[v.name.as_str()], v.span))
                    .collect(),
            );
        }
        let mut waiting: Vec<usize> = needs.iter().map(Vec::len).collect();
        let mut needed_by: Vec<Vec<usize>> = vec![Vec::new(); aliases.len()];
        for (i, named) in needs.iter().enumerate() {
            for &(j, _) in named {
                needed_by[j].push(i);
            }
        }
        let mut ready: Vec<usize> = (0..aliases.len()).filter(|&i| waiting[i] == 0).collect();
        let mut done = vec![false; aliases.len()];
        while let Some(j) = ready.pop() {
            done[j] = true;
            for &i in &needed_by[j] {
                sets[i] = match (sets[i], sets[j]) {
                    (Some(a), Some(b)) => Some(a.union(b)),
                    _ => None,
                };
                waiting[i] -= 1;
                if waiting[i] == 0 {
                    ready.push(i);
                }
            }
        }
        // What is left names itself, directly or through other aliases, or
        // names an alias that does: one error per cycle.
        let mut reported = vec![false; aliases.len()];
        for start in 0..aliases.len() {
            if done[start] || reported[start] {
                continue;
            }
            sets[start] = None;
            // Follow undone aliases until one repeats: that is a cycle.
            let mut path = vec![start];
            let mut at = start;
            let cycle_start = loop {
                let Some(&(next, _)) = needs[at].iter().find(|(j, _)| !done[*j]) else {
                    break None;
                };
                if let Some(p) = path.iter().position(|&k| k == next) {
                    break Some(p);
                }
                path.push(next);
                at = next;
            };
            let Some(p) = cycle_start else { continue };
            let cycle = &path[p..];
            if cycle.iter().any(|&k| reported[k]) {
                continue;
            }
            for &k in cycle {
                reported[k] = true;
            }
            let first = cycle[0];
            let chain: Vec<&str> = cycle
                .iter()
                .chain([&first])
                .map(|&k| aliases[k].name.name.as_str())
                .collect();
            let next = cycle.get(1).copied().unwrap_or(first);
            let at = needs[first]
                .iter()
                .find(|(j, _)| *j == next)
                .map_or(aliases[first].name.span, |(_, span)| *span);
            self.error(
                Diagnostic::error(
                    "alias-cycle",
                    format!(
                        "alias `{}` is defined through itself: {}",
                        aliases[first].name.name,
                        chain.join(" -> ")
                    ),
                    at,
                    "leads back to the alias being defined",
                )
                .with_label(aliases[first].name.span, "alias declared here")
                .with_note("an alias stands for values: name the values it should hold"),
            );
        }
        sets
    }

    /// Resolves value and alias names of an enum domain to a bit set.
    pub(super) fn value_set(
        &mut self,
        choice: &str,
        domain: &EnumDomain,
        names: &[Ident],
        aliases_allowed: bool,
    ) -> Option<ValueSet> {
        let mut set = ValueSet::default();
        let mut ok = true;
        for name in names {
            if let Some(i) = domain.values.iter().position(|v| v.name == name.name) {
                set = set.union(ValueSet::single(i));
            } else if let Some(alias) = domain
                .aliases
                .iter()
                .find(|a| a.name == name.name)
                .filter(|_| aliases_allowed)
            {
                set = set.union(alias.values);
            } else {
                ok = false;
                let known = domain
                    .values
                    .iter()
                    .map(|v| v.name.as_str())
                    .chain(domain.aliases.iter().map(|a| a.name.as_str()));
                let mut diagnostic = Diagnostic::error(
                    "unknown-value",
                    format!("`{}` is not a value of `{choice}`", name.name),
                    name.span,
                    format!("not a value of `{choice}`"),
                );
                if let Some(similar) = did_you_mean(&name.name, known.clone()) {
                    diagnostic = diagnostic.with_note(format!("did you mean `{similar}`?"));
                }
                let list: Vec<&str> = known.collect();
                diagnostic = diagnostic.with_note(format!("`{choice}` has: {}", list.join(", ")));
                self.error(diagnostic);
            }
        }
        ok.then_some(set)
    }

    /// Checks the parts of a choice that may name other choices.
    pub(super) fn choice_body(&mut self, id: ChoiceId, decl: &ast::ChoiceDecl) {
        match &decl.kind {
            ast::ChoiceKind::Enum(body) => {
                self.symmetry(id, decl, body);
                for (index, value) in body.values.iter().enumerate() {
                    for requires in &value.requires {
                        let values = ValueSet::single(index);
                        let source = ConstraintSource::ValueRequires {
                            choice: id,
                            value: index,
                        };
                        self.value_requires(id, values, source, decl, requires);
                    }
                }
                for alias in &body.aliases {
                    let ChoiceKind::Enum(domain) = &self.space.choices[id.index()].kind else {
                        continue;
                    };
                    // An alias the checker refused (a duplicate, a cycle)
                    // has no values to constrain.
                    let Some(index) = domain
                        .aliases
                        .iter()
                        .position(|a| a.name == alias.name.name)
                    else {
                        continue;
                    };
                    let values = domain.aliases[index].values;
                    if values.is_empty() {
                        continue;
                    }
                    for requires in &alias.requires {
                        let source = ConstraintSource::AliasRequires {
                            choice: id,
                            alias: index,
                        };
                        self.value_requires(id, values, source, decl, requires);
                    }
                }
            }
            ast::ChoiceKind::Integer(universe) => {
                let universe = self.universe(id, decl, universe);
                self.space.choices[id.index()].kind = ChoiceKind::Integer(universe);
            }
            ast::ChoiceKind::Counter(_) => {}
        }
    }

    /// The scope of a choice's parameters, for checking its body: the
    /// parameters count as used, since the choice itself uses them.
    pub(super) fn choice_scope(&self, id: ChoiceId) -> Scope {
        let choice = &self.space.choices[id.index()];
        let n = choice.params.len();
        Scope {
            vars: choice.params.clone(),
            spans: self.choice_param_spans[id.index()].clone(),
            resolved: choice
                .params
                .iter()
                .map(|p| p.set.set != UNRESOLVED)
                .collect(),
            used: vec![true; n],
        }
    }

    fn universe(
        &mut self,
        id: ChoiceId,
        decl: &ast::ChoiceDecl,
        universe: &ast::Universe,
    ) -> Universe {
        match universe {
            ast::Universe::List { values, span } => {
                if values.is_empty() {
                    self.error(
                        Diagnostic::error(
                            "empty-universe",
                            format!("integer choice `{}` has an empty universe", decl.name.name),
                            *span,
                            "no value to choose from",
                        )
                        .with_note("list at least one value, e.g. `[1, 2, 4]`"),
                    );
                }
                let mut seen: Vec<(i64, Span)> = Vec::new();
                for &(value, span) in values {
                    if let Some(&(_, first)) = seen.iter().find(|(v, _)| *v == value) {
                        self.error(
                            Diagnostic::error(
                                "duplicate",
                                format!("value {value} appears twice in the universe"),
                                span,
                                "repeated here",
                            )
                            .with_label(first, "first here"),
                        );
                    } else {
                        seen.push((value, span));
                    }
                }
                if let Some(&(_, first_past)) = seen.get(MAX_VALUES) {
                    self.error(too_many_values(
                        "integer choice",
                        &decl.name.name,
                        seen.len(),
                        first_past,
                    ));
                }
                Universe::List(values.iter().map(|(v, _)| *v).collect())
            }
            ast::Universe::Property(call) => {
                let mut scope = self.choice_scope(id);
                match self.typed_call(call, &mut scope) {
                    Some(Callable::Property(p))
                        if self.space.properties[p.index()].ty == PropertyType::IntList =>
                    {
                        let args = self.call_args(call, &mut scope).unwrap_or_default();
                        Universe::Property(PropertyCall { property: p, args })
                    }
                    Some(other) => {
                        let what = self.describe_callable(other);
                        self.error(
                            Diagnostic::error("universe-type", format!("the universe of `{}` must be a `[int]` property, `{}` is {what}", decl.name.name, call.name.name), call.span, "not a list of integers")
                                .with_note("add a property listing the possible values, e.g. `property possible_sizes($x in Set) -> [int]`, or list them: `[1, 2, 4]`"),
                        );
                        Universe::List(Vec::new())
                    }
                    None => Universe::List(Vec::new()),
                }
            }
        }
    }
}
