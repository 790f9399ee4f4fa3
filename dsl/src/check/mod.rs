//! The checker: turns the parsed items of a space (all files, includes
//! resolved) into the checked [`Space`] and its diagnostics.
//!
//! This module owns the shared context, [`Checker`]: the space being built,
//! the name tables, the spans kept for error messages, and the diagnostics in
//! the order they are found. [`Checker::run`] calls the passes in a fixed
//! order, because each reads what the earlier ones produced:
//!
//! 1. [`resolve`]: set names, then each set's parameters, superset and
//!    disjoint sets;
//! 2. [`quotients`]: the shape of each quotient set and the choice and
//!    counter it generates, so that other items may use them;
//! 3. [`resolve`]: `subsetof` cycles are reported and cut, then properties
//!    and choice headers are declared ([`domains`] reads enum values and
//!    aliases on the way);
//! 4. choice bodies: integer universes ([`domains`]), symmetries
//!    ([`symmetry`]) and the `requires` of enum values ([`constraints`]);
//! 5. [`counters`]: counter bodies, once every callable is declared;
//! 6. [`constraints`]: `require` and `trigger` items;
//! 7. [`quotients`]: the bodies, which may read any choice;
//! 8. [`counters`]: cycles between counters, once every counter is known;
//! 9. [`index`]: which clauses and counters read each choice;
//! 10. [`limits`]: what the engine cannot hold or does not support yet,
//!     on the whole checked space.
//!
//! [`typing`] is not a pass of its own: it types the conditions and operands
//! that passes 4 to 7 meet.
//!
//! Errors accumulate: every item is checked even after an earlier one
//! failed, and a name whose declaration is broken is not reported again
//! where used. The order of the diagnostics is part of the interface (the
//! fail corpus snapshots record it), so changing the order of the passes
//! changes the output.

mod constraints;
mod counters;
mod domains;
mod index;
mod limits;
mod quotients;
mod resolve;
mod symmetry;
mod typing;

use std::collections::{HashMap, HashSet};

use crate::ast::{self, Item};
use crate::diagnostic::Diagnostic;
use crate::ir::*;
use crate::source::{SourceMap, Span};

/// Checks the items of a space (all files, includes resolved).
/// `incomplete` says an include could not be read or parsed: unknown names
/// are then not reported, as they may be declared there.
pub(crate) fn check(
    items: &[Item],
    broken: &HashSet<String>,
    incomplete: bool,
    sources: &SourceMap,
) -> (Space, Vec<Diagnostic>) {
    let mut checker = Checker {
        sources,
        broken,
        incomplete,
        diagnostics: Vec::new(),
        space: Space::default(),
        set_names: HashMap::new(),
        set_spans: Vec::new(),
        callables: HashMap::new(),
        property_param_spans: Vec::new(),
        choice_param_spans: Vec::new(),
        choice_spans: Vec::new(),
        callback_spans: Vec::new(),
        counter_bodies: Vec::new(),
        counter_operand_spans: HashMap::new(),
    };
    checker.run(items);
    (checker.space, checker.diagnostics)
}

/// What a name in the shared namespace of choices, counters, properties
/// and trigger callbacks refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Callable {
    Property(PropertyId),
    Choice(ChoiceId),
    Callback(CallbackId),
}

/// Variables bound by one declaration.
#[derive(Default)]
struct Scope {
    vars: Vec<Variable>,
    spans: Vec<Span>,
    /// Whether the variable's set resolved; unresolved ones are not
    /// type-checked, to avoid a second error for the same mistake.
    resolved: Vec<bool>,
    used: Vec<bool>,
}

impl Scope {
    fn find(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|v| v.name == name)
    }

    fn set_of(&self, var: VarId) -> Option<SetId> {
        self.resolved[var.index()].then(|| self.vars[var.index()].set.set)
    }
}

/// The context every pass reads and extends.
struct Checker<'a> {
    sources: &'a SourceMap,
    /// Names declared in items that did not parse.
    broken: &'a HashSet<String>,
    /// An include could not be read or parsed.
    incomplete: bool,
    diagnostics: Vec<Diagnostic>,
    /// The checked form, filled in pass by pass.
    space: Space,
    set_names: HashMap<String, SetId>,
    /// The name of each set where declared, indexed by [`SetId`].
    set_spans: Vec<Span>,
    /// Choices, counters, properties and callbacks, with where each is declared.
    callables: HashMap<String, (Callable, Span)>,
    property_param_spans: Vec<Vec<Span>>,
    choice_param_spans: Vec<Vec<Span>>,
    /// The name of each choice where declared, indexed by [`ChoiceId`].
    choice_spans: Vec<Span>,
    /// The first call of each trigger callback, indexed by [`CallbackId`].
    callback_spans: Vec<Span>,
    /// Counters whose body is checked after every callable is declared.
    counter_bodies: Vec<(ChoiceId, &'a ast::CounterBody, Scope)>,
    /// The operand of each counter that reads a choice, for cycle errors.
    counter_operand_spans: HashMap<ChoiceId, Span>,
}

/// The set of a variable whose set did not resolve: it is not type-checked,
/// so one mistake gives one error.
const UNRESOLVED: SetId = SetId(u32::MAX);

impl<'a> Checker<'a> {
    /// Runs the passes in the order the module header explains.
    fn run(&mut self, items: &'a [Item]) {
        // Sets first: every other declaration refers to them.
        for item in items {
            match item {
                Item::Set(set) => self.declare_set(&set.name, &set.doc, set.span),
                Item::Quotient(q) => self.declare_set(&q.name, &q.doc, q.span),
                _ => {}
            }
        }
        for item in items {
            if let Item::Set(set) = item {
                self.resolve_set(set);
            }
        }
        // Quotient sets get their shape before subset cycles are cut: a
        // quotient is a subset of the set it partitions.
        let mut quotients = Vec::new();
        for item in items {
            if let Item::Quotient(q) = item {
                quotients.push(self.declare_quotient(q));
            }
        }
        self.break_subset_cycles();
        // Then every callable, so bodies may refer to any of them.
        let mut choices = Vec::new();
        for item in items {
            match item {
                Item::Property(p) => self.declare_property(p),
                Item::Choice(c) => choices.push((self.declare_choice(c), c)),
                _ => {}
            }
        }
        for (id, choice) in &choices {
            if let Some(id) = id {
                self.choice_body(*id, choice);
            }
        }
        // Counters last among choices: they may read any other choice.
        let bodies = std::mem::take(&mut self.counter_bodies);
        for (id, body, scope) in bodies {
            self.counter_body(id, body, scope);
        }
        for item in items {
            match item {
                Item::Require(r) => self.require(r),
                Item::Trigger(t) => self.trigger(t),
                _ => {}
            }
        }
        // Quotient bodies generate constraints over choices declared anywhere.
        for (q, decl) in quotients
            .into_iter()
            .zip(items.iter().filter_map(|i| match i {
                Item::Quotient(q) => Some(q),
                _ => None,
            }))
        {
            if let Some(q) = q {
                self.quotient_body(q, decl);
            }
        }
        self.check_counter_cycles();
        self.index_clauses();
        self.check_limits();
    }

    /// The source text of a span, for hints the author can paste.
    fn snippet(&self, span: Span) -> &str {
        self.sources
            .text(span.file)
            .get(span.start..span.end)
            .unwrap_or("")
    }

    /// The parameters of a choice as written, or `fallback` without any.
    fn param_list_span(&self, id: ChoiceId, fallback: Span) -> Span {
        match self.choice_param_spans[id.index()].as_slice() {
            [first, .., last] => first.to(*last),
            [only] => *only,
            [] => fallback,
        }
    }

    /// Whether a name may be declared in a part of the space that did not
    /// parse, so that an "unknown" error about it would be noise.
    fn is_broken(&self, name: &str) -> bool {
        self.incomplete || self.broken.contains(name)
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn origin(&self, span: Span) -> Origin {
        Origin {
            file: self.sources.name(span.file).to_string(),
            line: self.sources.line_column(span.file, span.start).0,
            span,
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn was_were(n: usize) -> &'static str {
    if n == 1 {
        "was"
    } else {
        "were"
    }
}
