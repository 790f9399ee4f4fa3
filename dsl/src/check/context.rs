//! The context every pass of the checker reads and extends: the space
//! being built, the name tables, the spans kept for error messages, the
//! diagnostics in the order they are found, and the small helpers the
//! passes share. It reads the syntax tree, the checked form and the
//! sources, and knows nothing of the passes.

use std::collections::{HashMap, HashSet};

use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::ir::*;
use crate::source::{SourceMap, Span};

/// What a name in the shared namespace of choices, counters, properties
/// and trigger callbacks refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Callable {
    Property(PropertyId),
    Choice(ChoiceId),
    Callback(CallbackId),
}

/// Variables bound by one declaration.
#[derive(Default)]
pub(super) struct Scope {
    pub(super) vars: Vec<Variable>,
    pub(super) spans: Vec<Span>,
    /// Whether the variable's set resolved; unresolved ones are not
    /// type-checked, to avoid a second error for the same mistake.
    pub(super) resolved: Vec<bool>,
    pub(super) used: Vec<bool>,
}

impl Scope {
    pub(super) fn find(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|v| v.name == name)
    }

    pub(super) fn set_of(&self, var: VarId) -> Option<SetId> {
        self.resolved[var.index()].then(|| self.vars[var.index()].set.set)
    }
}

/// The context every pass reads and extends.
pub(super) struct Checker<'a> {
    pub(super) sources: &'a SourceMap,
    /// Names declared in items that did not parse.
    pub(super) broken: &'a HashSet<String>,
    /// An include could not be read or parsed.
    pub(super) incomplete: bool,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// The checked form, filled in pass by pass.
    pub(super) space: Space,
    pub(super) set_names: HashMap<String, SetId>,
    /// The name of each set where declared, indexed by [`SetId`].
    pub(super) set_spans: Vec<Span>,
    /// Choices, counters, properties and callbacks, with where each is declared.
    pub(super) callables: HashMap<String, (Callable, Span)>,
    pub(super) property_param_spans: Vec<Vec<Span>>,
    pub(super) choice_param_spans: Vec<Vec<Span>>,
    /// The name of each choice where declared, indexed by [`ChoiceId`].
    pub(super) choice_spans: Vec<Span>,
    /// The first call of each trigger callback, indexed by [`CallbackId`].
    pub(super) callback_spans: Vec<Span>,
    /// Counters whose body is checked after every callable is declared.
    pub(super) counter_bodies: Vec<(ChoiceId, &'a ast::CounterBody, Scope)>,
    /// The operand of each counter that reads a choice, for cycle errors.
    pub(super) counter_operand_spans: HashMap<ChoiceId, Span>,
}

/// The set of a variable whose set did not resolve: it is not type-checked,
/// so one mistake gives one error.
pub(super) const UNRESOLVED: SetId = SetId(u32::MAX);

impl Checker<'_> {
    /// The source text of a span, for hints the author can paste.
    pub(super) fn snippet(&self, span: Span) -> &str {
        self.sources
            .text(span.file)
            .get(span.start..span.end)
            .unwrap_or("")
    }

    /// The parameters of a choice as written, or `fallback` without any.
    pub(super) fn param_list_span(&self, id: ChoiceId, fallback: Span) -> Span {
        match self.choice_param_spans[id.index()].as_slice() {
            [first, .., last] => first.to(*last),
            [only] => *only,
            [] => fallback,
        }
    }

    /// Whether a name may be declared in a part of the space that did not
    /// parse, so that an "unknown" error about it would be noise.
    pub(super) fn is_broken(&self, name: &str) -> bool {
        self.incomplete || self.broken.contains(name)
    }

    pub(super) fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    pub(super) fn origin(&self, span: Span) -> Origin {
        Origin {
            file: self.sources.name(span.file).to_string(),
            line: self.sources.line_column(span.file, span.start).0,
            span,
        }
    }
}

/// `s` unless there is one.
pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `was` for one, `were` for more.
pub(super) fn was_were(n: usize) -> &'static str {
    if n == 1 {
        "was"
    } else {
        "were"
    }
}
