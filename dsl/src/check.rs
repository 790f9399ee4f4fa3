//! Name resolution and type checking, producing the checked form. Errors
//! accumulate: every item is checked even after an earlier one failed, and
//! a name whose declaration is broken is not reported again where used.

use std::collections::{HashMap, HashSet};

use crate::ast::{self, ConditionKind, Ident, Item, LogicOp, Operand};
use crate::diagnostic::{did_you_mean, Diagnostic};
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Callable {
    Property(PropertyId),
    Choice(ChoiceId),
    Callback(CallbackId),
}

/// Where a list of conditions appears: it decides `||` or `&&` and which
/// kinds of conditions are allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Require,
    Requires,
    CounterWhen,
    TriggerWhen,
    QuotientCondition,
}

impl Context {
    fn joiner(self) -> LogicOp {
        match self {
            Context::Require | Context::Requires => LogicOp::Or,
            _ => LogicOp::And,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Context::Require => "`require`",
            Context::Requires => "`requires`",
            Context::CounterWhen => "a counter's `when`",
            Context::TriggerWhen => "a trigger's `when`",
            Context::QuotientCondition => "a quotient's condition",
        }
    }
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

/// The type of a call or constant used as an operand.
enum Typed {
    Int(IntTerm),
    Enum(Instance),
    Bool(PropertyCall),
    IntList,
}

struct Checker<'a> {
    sources: &'a SourceMap,
    broken: &'a HashSet<String>,
    incomplete: bool,
    diagnostics: Vec<Diagnostic>,
    space: Space,
    set_names: HashMap<String, SetId>,
    set_spans: Vec<Span>,
    callables: HashMap<String, (Callable, Span)>,
    property_param_spans: Vec<Vec<Span>>,
    choice_param_spans: Vec<Vec<Span>>,
    choice_spans: Vec<Span>,
    callback_spans: Vec<Span>,
    /// Counters whose body is checked after every callable is declared.
    counter_bodies: Vec<(ChoiceId, &'a ast::CounterBody, Scope)>,
    /// The operand of each counter that reads a choice, for cycle errors.
    counter_operand_spans: HashMap<ChoiceId, Span>,
}

const UNRESOLVED: SetId = SetId(u32::MAX);

impl<'a> Checker<'a> {
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

    // ------------------------------------------------------------ sets

    fn declare_set(&mut self, name: &Ident, doc: &[String], span: Span) {
        if let Some(&previous) = self.set_names.get(&name.name) {
            let first = self.set_spans[previous.index()];
            self.error(
                Diagnostic::error(
                    "duplicate",
                    format!("set `{}` is defined twice", name.name),
                    name.span,
                    "defined again here",
                )
                .with_label(first, "first defined here"),
            );
            return;
        }
        let id = SetId(self.space.sets.len() as u32);
        self.set_names.insert(name.name.clone(), id);
        self.set_spans.push(name.span);
        self.space.sets.push(Set {
            name: name.name.clone(),
            doc: doc.to_vec(),
            params: Vec::new(),
            superset: None,
            disjoint: Vec::new(),
            quotient: None,
            origin: self.origin(span),
        });
    }

    fn own_set(&self, name: &Ident) -> Option<SetId> {
        // A duplicate declaration maps to the first one; only that one is resolved.
        self.set_names
            .get(&name.name)
            .copied()
            .filter(|id| self.set_spans[id.index()] == name.span)
    }

    fn resolve_set(&mut self, decl: &ast::SetDecl) {
        let Some(id) = self.own_set(&decl.name) else {
            return;
        };
        let scope = self.bind_all(&decl.params, Scope::default());
        let mut scope = scope;
        let superset = decl
            .superset
            .as_ref()
            .and_then(|s| self.set_ref(s, &mut scope));
        let mut disjoint = Vec::new();
        for other in &decl.disjoint {
            if other.name == decl.name.name {
                self.error(
                    Diagnostic::error(
                        "disjoint-self",
                        format!("set `{}` cannot be disjoint from itself", other.name),
                        other.span,
                        "this is the set being declared",
                    )
                    .with_note("`disjoint` names other sets whose objects are never in this one"),
                );
            } else if let Some(set) = self.lookup_set(other) {
                disjoint.push(set);
            }
        }
        let set = &mut self.space.sets[id.index()];
        set.params = scope.vars;
        set.superset = superset;
        set.disjoint = disjoint;
    }

    /// Reports and cuts `subsetof` cycles so later walks up the subset
    /// chain terminate.
    fn break_subset_cycles(&mut self) {
        for start in 0..self.space.sets.len() {
            let mut chain = vec![SetId(start as u32)];
            let mut current = self.space.sets[start].superset.as_ref().map(|s| s.set);
            while let Some(set) = current {
                if set == UNRESOLVED {
                    break;
                }
                if set.index() == start {
                    let names: Vec<&str> = chain
                        .iter()
                        .chain([&set])
                        .map(|s| self.space.sets[s.index()].name.as_str())
                        .collect();
                    let message = format!("`subsetof` forms a cycle: {}", names.join(" -> "));
                    let span = self.set_spans[start];
                    let mut diagnostic = Diagnostic::error(
                        "subset-cycle",
                        message,
                        span,
                        "this set is its own superset through `subsetof`",
                    )
                    .with_note(
                        "`subsetof` must form a hierarchy: remove one of the `subsetof` clauses",
                    );
                    if let Some(&last) = chain.last().filter(|&&l| l.index() != start) {
                        let closing = self.set_spans[last.index()];
                        diagnostic =
                            diagnostic.with_label(closing, "whose `subsetof` closes the cycle");
                    }
                    self.error(diagnostic);
                    self.space.sets[start].superset = None;
                    break;
                }
                if chain.contains(&set) {
                    break; // A cycle not through `start`: reported from its own members.
                }
                chain.push(set);
                current = self.space.sets[set.index()]
                    .superset
                    .as_ref()
                    .map(|s| s.set);
            }
        }
    }

    fn lookup_set(&mut self, name: &Ident) -> Option<SetId> {
        if let Some(&id) = self.set_names.get(&name.name) {
            return Some(id);
        }
        if !self.is_broken(&name.name) {
            let mut diagnostic = Diagnostic::error(
                "unknown-set",
                format!("unknown set `{}`", name.name),
                name.span,
                "no set has this name",
            );
            if let Some(similar) =
                did_you_mean(&name.name, self.set_names.keys().map(String::as_str))
            {
                diagnostic = diagnostic.with_note(format!("did you mean `{similar}`?"));
            } else if self.callables.contains_key(&name.name) {
                diagnostic = diagnostic.with_note(format!(
                    "`{}` is a choice or property, not a set",
                    name.name
                ));
            } else {
                diagnostic = diagnostic.with_note(format!("declare it: `set {}`", name.name));
            }
            self.error(diagnostic);
        }
        None
    }

    /// Resolves `Set` or `Set($a, ...)` in `scope`.
    fn set_ref(&mut self, set_ref: &ast::SetRef, scope: &mut Scope) -> Option<SetExpr> {
        let set = self.lookup_set(&set_ref.name)?;
        let params: Vec<SetId> = self.space.sets[set.index()]
            .params
            .iter()
            .map(|p| p.set.set)
            .collect();
        let args = set_ref.args.as_deref().unwrap_or(&[]);
        if args.len() != params.len() {
            let name = &set_ref.name.name;
            let message = if set_ref.args.is_none() {
                format!(
                    "set `{name}` is parametrized and needs {} argument{}",
                    params.len(),
                    plural(params.len())
                )
            } else {
                format!(
                    "set `{name}` takes {} argument{} but {} {} given",
                    params.len(),
                    plural(params.len()),
                    args.len(),
                    was_were(args.len())
                )
            };
            let expected: Vec<String> = self.space.sets[set.index()]
                .params
                .iter()
                .map(|p| match p.set.set {
                    UNRESOLVED => "an object".to_string(),
                    s => format!("an object of `{}`", self.space.sets[s.index()].name),
                })
                .collect();
            let declared = self.set_spans[set.index()];
            self.error(
                Diagnostic::error(
                    "arity",
                    message,
                    set_ref.span,
                    format!("expected `{name}(...)` with {}", expected.join(", ")),
                )
                .with_label(declared, "declared here"),
            );
            return None;
        }
        let mut arg_ids = Vec::new();
        for (arg, expected) in args.iter().zip(params) {
            let var = self.var(arg, scope)?;
            self.check_arg(var, arg, expected, scope, &set_ref.name.name, None);
            arg_ids.push(var);
        }
        Self::mark_used(scope, &arg_ids);
        Some(SetExpr { set, args: arg_ids })
    }

    // ------------------------------------------------------------ variables

    fn bind(&mut self, param: &ast::Param, scope: &mut Scope) {
        let duplicate = scope.find(&param.var.name).is_some();
        if let Some(previous) = scope.find(&param.var.name) {
            let first = scope.spans[previous];
            self.error(
                Diagnostic::error(
                    "duplicate-variable",
                    format!("variable `${}` is bound twice", param.var.name),
                    param.var.span,
                    "bound again here",
                )
                .with_label(first, "first bound here")
                .with_note("give each quantified variable its own name"),
            );
        }
        let set = self.set_ref(&param.set, scope);
        scope.resolved.push(set.is_some());
        scope.vars.push(Variable {
            name: param.var.name.clone(),
            set: set.unwrap_or(SetExpr {
                set: UNRESOLVED,
                args: Vec::new(),
            }),
        });
        scope.spans.push(param.var.span);
        // A duplicate already has its error; uses resolve to the first one.
        scope.used.push(duplicate);
    }

    fn bind_all(&mut self, params: &[ast::Param], mut scope: Scope) -> Scope {
        for param in params {
            self.bind(param, &mut scope);
        }
        scope
    }

    fn var(&mut self, ident: &Ident, scope: &Scope) -> Option<VarId> {
        if let Some(index) = scope.find(&ident.name) {
            return Some(VarId(index as u32));
        }
        let mut diagnostic = Diagnostic::error(
            "unknown-variable",
            format!("unknown variable `${}`", ident.name),
            ident.span,
            "not bound here",
        );
        let names: Vec<&str> = scope.vars.iter().map(|v| v.name.as_str()).collect();
        // One-letter names are all one edit apart: a suggestion would be a guess.
        let similar = (ident.name.len() > 2)
            .then(|| did_you_mean(&ident.name, names.iter().copied()))
            .flatten();
        if let Some(similar) = similar {
            diagnostic = diagnostic.with_note(format!("did you mean `${similar}`?"));
        }
        if names.is_empty() {
            diagnostic = diagnostic
                .with_note("no variable is bound here: add a quantifier, e.g. `forall $x in Set:`");
        } else {
            let list: Vec<String> = scope
                .vars
                .iter()
                .zip(&scope.resolved)
                .map(|(v, &ok)| match ok {
                    true => format!(
                        "`${}` (in `{}`)",
                        v.name,
                        self.space.sets[v.set.set.index()].name
                    ),
                    false => format!("`${}`", v.name),
                })
                .collect();
            diagnostic = diagnostic.with_note(format!("variables bound here: {}", list.join(", ")));
        }
        self.error(diagnostic);
        None
    }

    fn mark_used(scope: &mut Scope, vars: &[VarId]) {
        for var in vars {
            scope.used[var.index()] = true;
        }
    }

    /// Checks that the objects of `var` belong to `expected`.
    fn check_arg(
        &mut self,
        var: VarId,
        arg: &Ident,
        expected: SetId,
        scope: &Scope,
        callee: &str,
        declared: Option<Span>,
    ) -> bool {
        let Some(actual) = scope.set_of(var) else {
            return true;
        };
        if expected == UNRESOLVED || self.space.is_subset(actual, expected) {
            return true;
        }
        let actual_name = self.space.sets[actual.index()].name.clone();
        let expected_name = self.space.sets[expected.index()].name.clone();
        let mut diagnostic = Diagnostic::error(
            "wrong-set",
            format!("`${}` ranges over `{actual_name}`, but `{callee}` expects an object of `{expected_name}`", arg.name),
            arg.span,
            format!("an object of `{actual_name}`"),
        )
        .with_label(scope.spans[var.index()], format!("`${}` is bound here", arg.name));
        if let Some(declared) = declared {
            diagnostic =
                diagnostic.with_label(declared, format!("parameter of `{callee}` declared here"));
        }
        diagnostic = if self.space.is_subset(expected, actual) {
            diagnostic.with_note(format!(
                "`{expected_name}` is a subset of `{actual_name}`, so not every object of `{actual_name}` is in it: quantify over `{expected_name}` instead"
            ))
        } else {
            diagnostic.with_note(format!(
                "`{actual_name}` is not a subset of `{expected_name}`"
            ))
        };
        self.error(diagnostic);
        false
    }

    fn warn_unused(&mut self, scope: &Scope, from: usize) {
        for i in from..scope.vars.len() {
            if !scope.used[i] {
                let name = &scope.vars[i].name;
                self.diagnostics.push(
                    Diagnostic::warning("unused-variable", format!("variable `${name}` is never used"), scope.spans[i], "bound here but not used")
                        .with_note("an unused quantifier only repeats the constraint once per object: remove it"),
                );
            }
        }
    }

    // ------------------------------------------------------------ callables

    fn declare_callable(&mut self, name: &Ident, callable: Callable) -> bool {
        if let Some((_, first)) = self.callables.get(&name.name) {
            let first = *first;
            self.error(
                Diagnostic::error(
                    "duplicate",
                    format!("`{}` is defined twice", name.name),
                    name.span,
                    "defined again here",
                )
                .with_label(first, "first defined here")
                .with_note(
                    "choices, counters, properties and trigger callbacks share one namespace",
                ),
            );
            return false;
        }
        self.callables
            .insert(name.name.clone(), (callable, name.span));
        true
    }

    fn declare_property(&mut self, decl: &ast::PropertyDecl) {
        let id = PropertyId(self.space.properties.len() as u32);
        if !self.declare_callable(&decl.name, Callable::Property(id)) {
            return;
        }
        let scope = self.bind_all(&decl.params, Scope::default());
        let ty = match decl.ty {
            ast::PropertyType::Bool => PropertyType::Bool,
            ast::PropertyType::Int => PropertyType::Int,
            ast::PropertyType::IntList => PropertyType::IntList,
        };
        self.property_param_spans
            .push(decl.params.iter().map(|p| p.span).collect());
        self.space.properties.push(Property {
            name: decl.name.name.clone(),
            doc: decl.doc.clone(),
            params: scope.vars,
            ty,
            origin: self.origin(decl.span),
        });
    }

    fn push_choice(
        &mut self,
        name: &Ident,
        doc: &[String],
        params: Vec<Variable>,
        param_spans: Vec<Span>,
        kind: ChoiceKind,
        span: Span,
    ) -> Option<ChoiceId> {
        let id = ChoiceId(self.space.choices.len() as u32);
        if !self.declare_callable(name, Callable::Choice(id)) {
            return None;
        }
        self.choice_param_spans.push(param_spans);
        self.choice_spans.push(name.span);
        self.space.choices.push(Choice {
            name: name.name.clone(),
            doc: doc.to_vec(),
            params,
            kind,
            symmetry: Symmetry::None,
            quotient: None,
            origin: self.origin(span),
        });
        Some(id)
    }

    fn declare_choice(&mut self, decl: &'a ast::ChoiceDecl) -> Option<ChoiceId> {
        let scope = self.bind_all(&decl.params, Scope::default());
        let kind = match &decl.kind {
            ast::ChoiceKind::Enum(body) => ChoiceKind::Enum(self.enum_domain(decl, body)),
            ast::ChoiceKind::Integer(_) => ChoiceKind::Integer(Universe::List(Vec::new())),
            ast::ChoiceKind::Counter(body) => ChoiceKind::Counter(Counter {
                op: CounterOp::Sum,
                half: body.half,
                vars: Vec::new(),
                increment: IntTerm::Const(0),
                condition: Vec::new(),
            }),
        };
        let spans = decl.params.iter().map(|p| p.span).collect();
        let id = self.push_choice(
            &decl.name,
            &decl.doc,
            scope.vars.clone(),
            spans,
            kind,
            decl.span,
        )?;
        if let ast::ChoiceKind::Counter(body) = &decl.kind {
            self.counter_bodies.push((id, body, scope));
        }
        Some(id)
    }

    fn enum_domain(&mut self, decl: &ast::ChoiceDecl, body: &ast::EnumBody) -> EnumDomain {
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
            if values.len() == ValueSet::CAPACITY {
                self.error(
                    Diagnostic::error(
                        "too-many-values",
                        format!(
                            "enum choice `{}` has {} values, at most {} are allowed",
                            decl.name.name,
                            body.values.len(),
                            ValueSet::CAPACITY
                        ),
                        value.name.span,
                        "one value too many",
                    )
                    .with_note(
                        "an enum domain is a 64-bit mask: split the choice into several choices",
                    ),
                );
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
            let values = self.value_set(&decl.name.name, &domain, &alias.values, false);
            domain.aliases.push(Alias {
                name: alias.name.name.clone(),
                doc: alias.doc.clone(),
                values: values.unwrap_or_default(),
            });
        }
        domain
    }

    /// Resolves value and alias names of an enum domain to a bit set.
    fn value_set(
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

    fn choice_body(&mut self, id: ChoiceId, decl: &ast::ChoiceDecl) {
        match &decl.kind {
            ast::ChoiceKind::Enum(body) => {
                self.symmetry(id, decl, body);
                for (index, value) in body.values.iter().enumerate() {
                    for requires in &value.requires {
                        self.value_requires(id, index, decl, requires);
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

    fn choice_scope(&self, id: ChoiceId) -> Scope {
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

    fn symmetry(&mut self, id: ChoiceId, decl: &ast::ChoiceDecl, body: &ast::EnumBody) {
        let Some(first) = body.symmetries.first() else {
            return;
        };
        for extra in &body.symmetries[1..] {
            self.error(
                Diagnostic::error(
                    "symmetry",
                    format!("`{}` declares its symmetry twice", decl.name.name),
                    extra.span(),
                    "second declaration",
                )
                .with_label(first.span(), "first declaration"),
            );
        }
        let (kind, article) = if matches!(first, ast::SymmetryDecl::Symmetric(_)) {
            ("symmetric", "a")
        } else {
            ("antisymmetric", "an")
        };
        let params = &self.space.choices[id.index()].params;
        if params.len() != 2 {
            let message = format!(
                "`{}` has {} parameter(s), but {article} {kind} choice needs exactly two",
                decl.name.name,
                params.len()
            );
            self.error(
                Diagnostic::error(
                    "symmetry",
                    message,
                    first.span(),
                    format!("`{kind}` needs two parameters"),
                )
                .with_label(
                    self.param_list_span(id, decl.header_span),
                    "parameters declared here",
                )
                .with_note(format!("`{kind}` relates `c($a, $b)` and `c($b, $a)`")),
            );
            return;
        }
        if params[0].set.set != params[1].set.set {
            let (a, b) = (params[0].set.set, params[1].set.set);
            if a != UNRESOLVED && b != UNRESOLVED {
                let message = format!(
                    "`{}` has parameters in `{}` and `{}`, but {article} {kind} choice needs both in one set",
                    decl.name.name, self.space.sets[a.index()].name, self.space.sets[b.index()].name
                );
                let spans = &self.choice_param_spans[id.index()];
                let second = spans[1];
                self.error(
                    Diagnostic::error(
                        "symmetry",
                        message,
                        first.span(),
                        format!("`{kind}` needs parameters of one set"),
                    )
                    .with_label(second, "this parameter ranges over another set"),
                );
            }
            return;
        }
        let ChoiceKind::Enum(domain) = &self.space.choices[id.index()].kind else {
            return;
        };
        let domain = domain.clone();
        let symmetry = match first {
            ast::SymmetryDecl::Symmetric(_) => Symmetry::Symmetric,
            ast::SymmetryDecl::Antisymmetric { mappings, .. } => {
                let mut inverse: Vec<usize> = (0..domain.values.len()).collect();
                let mut mapped: Vec<Option<Span>> = vec![None; domain.values.len()];
                for (from, to) in mappings {
                    let (Some(a), Some(b)) = (
                        self.value_index(&decl.name.name, &domain, from),
                        self.value_index(&decl.name.name, &domain, to),
                    ) else {
                        continue;
                    };
                    let mut clash = false;
                    for (index, ident) in [(a, from), (b, to)] {
                        if let Some(previous) = mapped[index] {
                            clash = true;
                            self.error(
                                Diagnostic::error("symmetry", format!("value `{}` appears in two mappings", ident.name), ident.span, "mapped again here")
                                    .with_label(previous, "first mapped here")
                                    .with_note("each value has one inverse: `A -> B` already says that B maps back to A"),
                            );
                        }
                    }
                    if !clash {
                        mapped[a] = Some(from.span);
                        mapped[b] = Some(to.span);
                        inverse[a] = b;
                        inverse[b] = a;
                    }
                }
                Symmetry::Antisymmetric { inverse }
            }
        };
        self.space.choices[id.index()].symmetry = symmetry;
    }

    fn value_index(&mut self, choice: &str, domain: &EnumDomain, name: &Ident) -> Option<usize> {
        let set = self.value_set(
            choice,
            &EnumDomain {
                values: domain.values.clone(),
                aliases: Vec::new(),
            },
            std::slice::from_ref(name),
            false,
        )?;
        set.iter().next()
    }

    fn value_requires(
        &mut self,
        id: ChoiceId,
        value: usize,
        decl: &ast::ChoiceDecl,
        requires: &ast::Requires,
    ) {
        let scope = self.choice_scope(id);
        let first_quantified = scope.vars.len();
        let mut scope = self.bind_all(&requires.quantifiers, scope);
        let Some(mut literals) =
            self.conditions(&requires.conditions, &mut scope, Context::Requires)
        else {
            return;
        };
        self.warn_unused(&scope, first_quantified);
        let count = match &self.space.choices[id.index()].kind {
            ChoiceKind::Enum(domain) => domain.values.len(),
            _ => return,
        };
        let params: Vec<VarId> = (0..decl.params.len() as u32).map(VarId).collect();
        literals.insert(
            0,
            Literal::Is {
                instance: Instance {
                    choice: id,
                    args: params,
                },
                values: ValueSet::single(value).complement(count),
            },
        );
        let doc = decl.doc.clone();
        self.space.constraints.push(Constraint {
            doc,
            vars: scope.vars,
            literals,
            source: ConstraintSource::ValueRequires { choice: id, value },
            origin: self.origin(requires.span),
        });
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

    fn counter_body(&mut self, id: ChoiceId, body: &ast::CounterBody, scope: Scope) {
        let mut scope = self.bind_all(&body.quantifiers, scope);
        let increment = match &body.operand {
            Operand::Int(value, _) => Some(IntTerm::Const(*value)),
            Operand::Call(call) => match self.counter_operand(id, call, &mut scope) {
                Some(Typed::Int(term)) => Some(term),
                Some(other) => {
                    let (what, hint) = match other {
                        Typed::Enum(_) => ("an enum choice", format!("count its values instead: `sum 1 when {} is VALUE`", self.snippet(call.span))),
                        Typed::Bool(_) => ("a boolean property", format!("count the objects where it holds: `sum 1 when {}`", self.snippet(call.span))),
                        _ => ("a list of integers", "a counter adds integer constants, `int` properties, integer choices or counters".to_string()),
                    };
                    self.error(
                        Diagnostic::error(
                            "counter-type",
                            format!(
                                "a counter adds integers, but `{}` is {what}",
                                call.name.name
                            ),
                            call.span,
                            "not an integer",
                        )
                        .with_note(hint),
                    );
                    None
                }
                None => None,
            },
        };
        let condition = match &body.conditions {
            Some(list) => self.conditions(list, &mut scope, Context::CounterWhen),
            None => Some(Vec::new()),
        };
        // No unused-variable warning here: `sum 1` counts the objects of
        // its quantifiers without naming them.
        let (Some(increment), Some(condition)) = (increment, condition) else {
            return;
        };
        let op = if body.op == ast::CounterOp::Mul {
            CounterOp::Mul
        } else {
            CounterOp::Sum
        };
        self.space.choices[id.index()].kind = ChoiceKind::Counter(Counter {
            op,
            half: body.half,
            vars: scope.vars,
            increment,
            condition,
        });
    }

    /// Types a counter's operand, remembering where it is for cycle errors.
    fn counter_operand(
        &mut self,
        id: ChoiceId,
        call: &ast::Call,
        scope: &mut Scope,
    ) -> Option<Typed> {
        self.counter_operand_spans.insert(id, call.span);
        self.typed_operand(call, scope)
    }

    fn check_counter_cycles(&mut self) {
        let n = self.space.choices.len();
        let depends = |space: &Space, c: usize| -> Option<ChoiceId> {
            match &space.choices[c].kind {
                ChoiceKind::Counter(Counter {
                    increment: IntTerm::Choice(inst),
                    ..
                }) if matches!(
                    space.choices[inst.choice.index()].kind,
                    ChoiceKind::Counter(_)
                ) =>
                {
                    Some(inst.choice)
                }
                _ => None,
            }
        };
        let mut reported = vec![false; n];
        for start in 0..n {
            let mut path = vec![start];
            let mut current = depends(&self.space, start);
            while let Some(next) = current {
                if next.index() == start {
                    if path.iter().any(|&c| reported[c]) {
                        break;
                    }
                    for &c in &path {
                        reported[c] = true;
                    }
                    let names: Vec<&str> = path
                        .iter()
                        .chain([&start])
                        .map(|&c| self.space.choices[c].name.as_str())
                        .collect();
                    let message = format!(
                        "counter `{}` depends on itself: {}",
                        names[0],
                        names.join(" -> ")
                    );
                    let at = |c: usize| {
                        self.counter_operand_spans
                            .get(&ChoiceId(c as u32))
                            .copied()
                            .unwrap_or(self.choice_spans[c])
                    };
                    let mut diagnostic = Diagnostic::error(
                        "counter-cycle",
                        message,
                        at(start),
                        format!("`{}` reads `{}` here", names[0], names[1]),
                    )
                    .with_note("a counter may count other counters, but not in a cycle");
                    for (i, &c) in path.iter().enumerate().skip(1) {
                        diagnostic =
                            diagnostic.with_label(at(c), format!("which reads `{}`", names[i + 1]));
                    }
                    self.error(diagnostic);
                    break;
                }
                if path.contains(&next.index()) {
                    break;
                }
                path.push(next.index());
                current = depends(&self.space, next.index());
            }
        }
    }

    // ------------------------------------------------------------ calls

    fn describe_callable(&self, callable: Callable) -> &'static str {
        match callable {
            Callable::Property(p) => match self.space.properties[p.index()].ty {
                PropertyType::Bool => "a boolean property",
                PropertyType::Int => "an `int` property",
                PropertyType::IntList => "a `[int]` property",
            },
            Callable::Choice(c) => match self.space.choices[c.index()].kind {
                ChoiceKind::Enum(_) => "an enum choice",
                ChoiceKind::Integer(_) => "an integer choice",
                ChoiceKind::Counter(_) => "a counter",
            },
            Callable::Callback(_) => "a trigger callback",
        }
    }

    /// Looks up the name of a call (not its arguments).
    fn typed_call(&mut self, call: &ast::Call, _scope: &mut Scope) -> Option<Callable> {
        if let Some(&(callable, _)) = self.callables.get(&call.name.name) {
            return Some(callable);
        }
        if !self.is_broken(&call.name.name) {
            let mut diagnostic = Diagnostic::error(
                "unknown-name",
                format!("unknown choice or property `{}`", call.name.name),
                call.name.span,
                "no choice, counter or property has this name",
            );
            if let Some(similar) =
                did_you_mean(&call.name.name, self.callables.keys().map(String::as_str))
            {
                diagnostic = diagnostic.with_note(format!("did you mean `{similar}`?"));
            } else if self.set_names.contains_key(&call.name.name) {
                diagnostic = diagnostic.with_note(format!(
                    "`{}` is a set: sets are quantified over, `forall $x in {}:`",
                    call.name.name, call.name.name
                ));
            }
            self.error(diagnostic);
        }
        None
    }

    /// Resolves and checks the arguments of a call to a property or choice.
    fn call_args(&mut self, call: &ast::Call, scope: &mut Scope) -> Option<Vec<VarId>> {
        let (callable, declared) = *self.callables.get(&call.name.name)?;
        let (params, spans): (Vec<SetId>, Vec<Span>) = match callable {
            Callable::Property(p) => {
                let prop = &self.space.properties[p.index()];
                (
                    prop.params.iter().map(|v| v.set.set).collect(),
                    self.property_param_spans[p.index()].clone(),
                )
            }
            Callable::Choice(c) => {
                let choice = &self.space.choices[c.index()];
                (
                    choice.params.iter().map(|v| v.set.set).collect(),
                    self.choice_param_spans[c.index()].clone(),
                )
            }
            Callable::Callback(_) => return None,
        };
        if call.args.len() != params.len() {
            let message = format!(
                "`{}` takes {} argument{} but {} {} given",
                call.name.name,
                params.len(),
                plural(params.len()),
                call.args.len(),
                was_were(call.args.len())
            );
            let label = format!("expected {} argument{}", params.len(), plural(params.len()));
            self.error(
                Diagnostic::error("arity", message, call.span, label)
                    .with_label(declared, "declared here"),
            );
            return None;
        }
        let mut args = Vec::new();
        let mut ok = true;
        for ((arg, expected), span) in call.args.iter().zip(params).zip(spans) {
            match self.var(arg, scope) {
                Some(var) => {
                    ok &= self.check_arg(var, arg, expected, scope, &call.name.name, Some(span));
                    args.push(var);
                }
                None => ok = false,
            }
        }
        Self::mark_used(scope, &args);
        ok.then_some(args)
    }

    fn typed_operand(&mut self, call: &ast::Call, scope: &mut Scope) -> Option<Typed> {
        let callable = self.typed_call(call, scope)?;
        if let Callable::Callback(_) = callable {
            self.error(Diagnostic::error(
                "callback-use",
                format!("`{}` is a trigger callback, not a value", call.name.name),
                call.span,
                "callbacks are only called by triggers",
            ));
            return None;
        }
        let args = self.call_args(call, scope)?;
        Some(match callable {
            Callable::Property(p) => match self.space.properties[p.index()].ty {
                PropertyType::Bool => Typed::Bool(PropertyCall { property: p, args }),
                PropertyType::Int => {
                    Typed::Int(IntTerm::Property(PropertyCall { property: p, args }))
                }
                PropertyType::IntList => Typed::IntList,
            },
            Callable::Choice(c) => {
                let instance = Instance { choice: c, args };
                match self.space.choices[c.index()].kind {
                    ChoiceKind::Enum(_) => Typed::Enum(instance),
                    _ => Typed::Int(IntTerm::Choice(instance)),
                }
            }
            Callable::Callback(_) => return None,
        })
    }

    // ------------------------------------------------------------ conditions

    fn conditions(
        &mut self,
        list: &ast::ConditionList,
        scope: &mut Scope,
        context: Context,
    ) -> Option<Vec<Literal>> {
        let mut ok = true;
        let joiner = context.joiner();
        for &(op, span) in &list.ops {
            if op != joiner {
                ok = false;
                let (wanted, found) = if joiner == LogicOp::Or {
                    ("||", "&&")
                } else {
                    ("&&", "||")
                };
                let note = match context {
                    Context::Require | Context::Requires => "a constraint is a disjunction: for \"a implies b\" write `not a || b` (e.g. `dim_kind($d) is not UNROLL || unroll_factor($d) > 1`); for \"a and b\" write one `require` for `a` and one for `b`",
                    Context::CounterWhen => "to accept several values of one choice, test them at once, e.g. `dim_kind($d) is PARALLEL | VECTOR`; otherwise split the counter in two and add them",
                    _ => "for `a || b`, write two triggers calling the same callback, or use an alias of values",
                };
                self.error(
                    Diagnostic::error(
                        "logic-op",
                        format!(
                            "{} joins conditions with `{wanted}`, not `{found}`",
                            context.what()
                        ),
                        span,
                        format!("`{found}` is not allowed here"),
                    )
                    .with_note(note),
                );
            }
        }
        let mut literals = Vec::new();
        for condition in &list.conditions {
            match self.literal(condition, scope, context) {
                Some(literal) => literals.push(literal),
                None => ok = false,
            }
        }
        ok.then_some(literals)
    }

    fn literal(
        &mut self,
        condition: &ast::Condition,
        scope: &mut Scope,
        context: Context,
    ) -> Option<Literal> {
        match &condition.kind {
            ConditionKind::Is {
                call,
                negated,
                values,
            } => {
                let callable = self.typed_call(call, scope)?;
                let Callable::Choice(choice) = callable else {
                    let what = self.describe_callable(callable);
                    let mut diagnostic = Diagnostic::error(
                        "is-type",
                        format!(
                            "`is` tests the value of an enum choice, but `{}` is {what}",
                            call.name.name
                        ),
                        call.span,
                        what,
                    );
                    if let Callable::Property(p) = callable {
                        if self.space.properties[p.index()].ty == PropertyType::Bool {
                            diagnostic = diagnostic.with_note(format!(
                                "a boolean property is a condition on its own: `{0}` or `!{0}`",
                                self.snippet(call.span)
                            ));
                        }
                    }
                    self.error(diagnostic);
                    return None;
                };
                let ChoiceKind::Enum(domain) = &self.space.choices[choice.index()].kind else {
                    let what = self.describe_callable(callable);
                    self.error(
                        Diagnostic::error(
                            "is-type",
                            format!(
                                "`is` tests the value of an enum choice, but `{}` is {what}",
                                call.name.name
                            ),
                            call.span,
                            what,
                        )
                        .with_note(format!(
                            "compare it instead, e.g. `{} == 4` or `{} <= 1`",
                            self.snippet(call.span),
                            self.snippet(call.span)
                        )),
                    );
                    return None;
                };
                let domain = domain.clone();
                let args = self.call_args(call, scope);
                let set = self.value_set(&call.name.name, &domain, values, true)?;
                let values = if *negated {
                    set.complement(domain.values.len())
                } else {
                    set
                };
                Some(Literal::Is {
                    instance: Instance {
                        choice,
                        args: args?,
                    },
                    values,
                })
            }
            ConditionKind::Compare {
                lhs,
                op,
                op_span,
                rhs,
            } => {
                if matches!(context, Context::CounterWhen | Context::QuotientCondition) {
                    self.error(
                        Diagnostic::error("condition-kind", format!("{} takes `is` tests and boolean properties, not comparisons", context.what()), condition.span, "a comparison")
                            .with_note("test enum choices with `is` and use boolean properties; to bound an integer, write a separate `require`"),
                    );
                    return None;
                }
                let lhs_typed = self.operand(lhs, scope);
                let rhs_typed = self.operand(rhs, scope);
                let (lhs_typed, rhs_typed) = (lhs_typed?, rhs_typed?);
                let op = *op;
                match (lhs_typed, rhs_typed) {
                    (Typed::Int(IntTerm::Const(_)), Typed::Int(IntTerm::Const(_))) => {
                        self.error(Diagnostic::error(
                            "constant-comparison",
                            "this compares two constants",
                            condition.span,
                            "always true or always false",
                        ));
                        None
                    }
                    (Typed::Int(l), Typed::Int(r)) => Some(Literal::Compare { lhs: l, op, rhs: r }),
                    (Typed::Enum(l), Typed::Enum(r)) => {
                        if l.choice != r.choice {
                            let (ln, rn) = (
                                self.space.choices[l.choice.index()].name.clone(),
                                self.space.choices[r.choice.index()].name.clone(),
                            );
                            self.error(
                                Diagnostic::error("compare-type", format!("`{ln}` and `{rn}` have different domains and cannot be compared"), condition.span, "different enum choices")
                                    .with_note("`==` and `!=` compare two instances of the same enum choice"),
                            );
                            return None;
                        }
                        match op {
                            CompareOp::Eq => Some(Literal::SameValue {
                                lhs: l,
                                rhs: r,
                                equal: true,
                            }),
                            CompareOp::Ne => Some(Literal::SameValue {
                                lhs: l,
                                rhs: r,
                                equal: false,
                            }),
                            _ => {
                                let name = self.space.choices[l.choice.index()].name.clone();
                                self.error(
                                    Diagnostic::error("compare-type", format!("enum values have no order: `{name}` cannot be compared with `{}`", op.symbol()), *op_span, "ordering operator on an enum")
                                        .with_note("use `==` or `!=` between enum choices, or `is` to test values"),
                                );
                                None
                            }
                        }
                    }
                    (l, r) => {
                        let describe = |t: &Typed, operand: &Operand| -> String {
                            let name = match operand {
                                Operand::Call(call) => format!("`{}`", call.name.name),
                                Operand::Int(v, _) => format!("`{v}`"),
                            };
                            let what = match t {
                                Typed::Int(IntTerm::Const(_)) => "an integer",
                                Typed::Int(IntTerm::Property(_)) => "an `int` property",
                                Typed::Int(IntTerm::Choice(inst)) => {
                                    match self.space.choices[inst.choice.index()].kind {
                                        ChoiceKind::Counter(_) => "a counter",
                                        _ => "an integer choice",
                                    }
                                }
                                Typed::Enum(_) => "an enum choice",
                                Typed::Bool(_) => "a boolean property",
                                Typed::IntList => "a `[int]` property",
                            };
                            format!("{name} is {what}")
                        };
                        let message = format!(
                            "cannot compare: {} and {}",
                            describe(&l, lhs),
                            describe(&r, rhs)
                        );
                        let note = if matches!(l, Typed::Bool(_)) || matches!(r, Typed::Bool(_)) {
                            "a boolean property is a condition on its own: `p($x)` or `!p($x)`"
                        } else if matches!(l, Typed::IntList) || matches!(r, Typed::IntList) {
                            "a `[int]` property gives the universe of an integer choice; it cannot be compared"
                        } else {
                            "test an enum choice with `is VALUE`; compare integers (counters, integer choices, `int` properties, constants) with each other"
                        };
                        self.error(
                            Diagnostic::error(
                                "compare-type",
                                message,
                                condition.span,
                                "operands of different types",
                            )
                            .with_note(note),
                        );
                        None
                    }
                }
            }
            ConditionKind::Bool { call, negated } => {
                let typed = self.typed_operand(call, scope)?;
                match typed {
                    Typed::Bool(call) => Some(Literal::Property {
                        call,
                        negated: *negated,
                    }),
                    Typed::Enum(_) => {
                        self.error(
                            Diagnostic::error(
                                "condition-type",
                                format!("`{}` is an enum choice, not a condition", call.name.name),
                                call.span,
                                "an enum choice",
                            )
                            .with_note(format!(
                                "test its value: `{} is VALUE`",
                                self.snippet(call.span)
                            )),
                        );
                        None
                    }
                    Typed::Int(_) | Typed::IntList => {
                        let what = if matches!(typed, Typed::IntList) {
                            "a list of integers"
                        } else {
                            "an integer"
                        };
                        self.error(
                            Diagnostic::error(
                                "condition-type",
                                format!("`{}` is {what}, not a condition", call.name.name),
                                call.span,
                                what,
                            )
                            .with_note(format!(
                                "compare it, e.g. `{} > 0`",
                                self.snippet(call.span)
                            )),
                        );
                        None
                    }
                }
            }
        }
    }

    fn operand(&mut self, operand: &Operand, scope: &mut Scope) -> Option<Typed> {
        match operand {
            Operand::Int(value, _) => Some(Typed::Int(IntTerm::Const(*value))),
            Operand::Call(call) => self.typed_operand(call, scope),
        }
    }

    // ------------------------------------------------------------ constraints and triggers

    fn require(&mut self, decl: &ast::RequireDecl) {
        let mut scope = self.bind_all(&decl.quantifiers, Scope::default());
        let Some(literals) = self.conditions(&decl.conditions, &mut scope, Context::Require) else {
            return;
        };
        self.warn_unused(&scope, 0);
        self.space.constraints.push(Constraint {
            doc: decl.doc.clone(),
            vars: scope.vars,
            literals,
            source: ConstraintSource::Require,
            origin: self.origin(decl.span),
        });
    }

    fn trigger(&mut self, decl: &ast::TriggerDecl) {
        let mut scope = self.bind_all(&decl.quantifiers, Scope::default());
        let action = self.callback(&decl.callback, &mut scope);
        let condition = self.conditions(&decl.conditions, &mut scope, Context::TriggerWhen);
        self.warn_unused(&scope, 0);
        let (Some(action), Some(condition)) = (action, condition) else {
            return;
        };
        self.space.triggers.push(Trigger {
            doc: decl.doc.clone(),
            vars: scope.vars,
            condition,
            action,
            origin: self.origin(decl.span),
        });
    }

    fn callback(&mut self, call: &ast::Call, scope: &mut Scope) -> Option<TriggerAction> {
        let args: Vec<VarId> = call
            .args
            .iter()
            .map(|a| self.var(a, scope))
            .collect::<Option<_>>()?;
        Self::mark_used(scope, &args);
        let sets: Vec<SetId> = args
            .iter()
            .map(|&a| scope.set_of(a).unwrap_or(UNRESOLVED))
            .collect();
        match self.callables.get(&call.name.name).copied() {
            Some((Callable::Callback(id), _)) => {
                let params = self.space.callbacks[id.index()].params.clone();
                let first = self.callback_spans[id.index()];
                if params.len() != args.len() {
                    let message = format!(
                        "callback `{}` takes {} argument{} but {} {} given",
                        call.name.name,
                        params.len(),
                        plural(params.len()),
                        args.len(),
                        was_were(args.len())
                    );
                    self.error(
                        Diagnostic::error(
                            "arity",
                            message,
                            call.span,
                            "different from its first use",
                        )
                        .with_label(first, "first called here"),
                    );
                    return None;
                }
                for ((arg, &var), expected) in call.args.iter().zip(&args).zip(params) {
                    if !self.check_arg(var, arg, expected, scope, &call.name.name, Some(first)) {
                        return None;
                    }
                }
                Some(TriggerAction::Callback { callback: id, args })
            }
            Some((other, first)) => {
                let what = self.describe_callable(other);
                self.error(
                    Diagnostic::error("duplicate", format!("trigger callback `{}` has the name of {what}", call.name.name), call.name.span, "used as a callback here")
                        .with_label(first, "defined here")
                        .with_note("choices, counters, properties and trigger callbacks share one namespace: rename the callback"),
                );
                None
            }
            None => {
                let id = CallbackId(self.space.callbacks.len() as u32);
                self.callables.insert(
                    call.name.name.clone(),
                    (Callable::Callback(id), call.name.span),
                );
                self.callback_spans.push(call.span);
                self.space.callbacks.push(Callback {
                    name: call.name.name.clone(),
                    params: sets,
                    origin: self.origin(call.span),
                });
                Some(TriggerAction::Callback { callback: id, args })
            }
        }
    }

    // ------------------------------------------------------------ quotients

    /// Declares the set's shape and the generated choice and counter, so
    /// that other items can use them; the body is checked later.
    fn declare_quotient(
        &mut self,
        decl: &'a ast::QuotientDecl,
    ) -> Option<(QuotientId, ChoiceId, ChoiceId)> {
        let set = self.own_set(&decl.name)?;
        let mut scope = self.bind_all(&decl.params, Scope::default());
        let superset = self.set_ref(&decl.member.set, &mut scope);
        let params = scope.vars.clone();
        self.bind(&decl.member, &mut scope);
        let quotient = QuotientId(self.space.quotients.len() as u32);
        let set_data = &mut self.space.sets[set.index()];
        set_data.params = params;
        set_data.superset = superset;
        set_data.quotient = Some(quotient);
        let spans: Vec<Span> = decl
            .params
            .iter()
            .map(|p| p.span)
            .chain([decl.member.span])
            .collect();
        let flag_domain = EnumDomain {
            values: vec![
                EnumValue {
                    name: "TRUE".into(),
                    doc: vec![format!(
                        "The object represents its class in `{}`.",
                        decl.name.name
                    )],
                },
                EnumValue {
                    name: "FALSE".into(),
                    doc: Vec::new(),
                },
            ],
            aliases: Vec::new(),
        };
        let doc = vec![format!(
            "Whether an object is the representative of its class in the quotient set `{}`.",
            decl.name.name
        )];
        let flag = self.push_choice(
            &decl.flag,
            &doc,
            scope.vars.clone(),
            spans.clone(),
            ChoiceKind::Enum(flag_domain),
            decl.span,
        );
        let counter_name = Ident {
            name: format!("{}_class_reps", decl.flag.name),
            span: decl.flag.span,
        };
        let counter_doc = vec![format!(
            "Representatives of `{}` in an object's class (generated).",
            decl.name.name
        )];
        let placeholder = ChoiceKind::Counter(Counter {
            op: CounterOp::Sum,
            half: false,
            vars: Vec::new(),
            increment: IntTerm::Const(1),
            condition: Vec::new(),
        });
        let counter = self.push_choice(
            &counter_name,
            &counter_doc,
            scope.vars.clone(),
            spans,
            placeholder,
            decl.span,
        );
        let (flag, counter) = (flag?, counter?);
        for id in [flag, counter] {
            self.space.choices[id.index()].quotient = Some(quotient);
        }
        self.space.quotients.push(Quotient {
            name: decl.name.name.clone(),
            set,
            flag,
            relation: flag,
            relation_values: ValueSet::default(),
            class_counter: counter,
            origin: self.origin(decl.span),
        });
        Some((quotient, flag, counter))
    }

    fn quotient_body(
        &mut self,
        (quotient, flag, counter): (QuotientId, ChoiceId, ChoiceId),
        decl: &ast::QuotientDecl,
    ) {
        let mut scope = self.choice_scope(flag);
        let n = scope.vars.len();
        let (x, y) = (VarId(n as u32 - 1), VarId(n as u32));
        let member_set = scope.vars[x.index()].set.clone();
        let params: Vec<VarId> = (0..n as u32 - 1).map(VarId).collect();
        let condition = self.literal(&decl.condition, &mut scope, Context::QuotientCondition);
        let condition = match condition {
            Some(Literal::Is { instance, values }) => Some((instance, values)),
            Some(_) => {
                self.error(
                    Diagnostic::error(
                        "condition-kind",
                        "a quotient's membership condition is an `is` test",
                        decl.condition.span,
                        "not an `is` test",
                    )
                    .with_note("write it as `choice($x, ...) is VALUE`"),
                );
                None
            }
            None => None,
        };
        let relation = self.quotient_relation(decl, &member_set);
        let (Some((cond_instance, cond_values)), Some((relation, relation_values, relation_count))) =
            (condition, relation)
        else {
            return;
        };
        let cond_count = match &self.space.choices[cond_instance.choice.index()].kind {
            ChoiceKind::Enum(d) => d.values.len(),
            _ => return,
        };
        let with = |extra: &[VarId]| -> Vec<VarId> {
            params
                .iter()
                .copied()
                .chain(extra.iter().copied())
                .collect()
        };
        let flag_is = |var: VarId, value: usize| Literal::Is {
            instance: Instance {
                choice: flag,
                args: with(&[var]),
            },
            values: ValueSet::single(value),
        };
        let related = |values: ValueSet| Literal::Is {
            instance: Instance {
                choice: relation,
                args: vec![x, y],
            },
            values,
        };
        let vars_x = scope.vars.clone();
        let mut vars_xy = vars_x.clone();
        vars_xy.push(Variable {
            name: format!("{}_other", vars_x[x.index()].name),
            set: member_set.clone(),
        });
        let origin = self.origin(decl.span);
        let source = ConstraintSource::Quotient(quotient);
        let constraint = |vars: &Vec<Variable>, literals: Vec<Literal>| Constraint {
            doc: Vec::new(),
            vars: vars.clone(),
            literals,
            source: source.clone(),
            origin: origin.clone(),
        };
        let member = Literal::Is {
            instance: cond_instance.clone(),
            values: cond_values,
        };
        let not_member = Literal::Is {
            instance: cond_instance,
            values: cond_values.complement(cond_count),
        };
        let generated = [
            // A representative satisfies the membership condition.
            constraint(&vars_x, vec![flag_is(x, QUOTIENT_FALSE), member]),
            // Two representatives are never in the same class.
            constraint(
                &vars_xy,
                vec![
                    flag_is(x, QUOTIENT_FALSE),
                    flag_is(y, QUOTIENT_FALSE),
                    related(relation_values.complement(relation_count)),
                ],
            ),
            // A member is a representative or has one in its class.
            constraint(
                &vars_x,
                vec![
                    not_member,
                    flag_is(x, QUOTIENT_TRUE),
                    Literal::Compare {
                        lhs: IntTerm::Choice(Instance {
                            choice: counter,
                            args: with(&[x]),
                        }),
                        op: CompareOp::Ge,
                        rhs: IntTerm::Const(1),
                    },
                ],
            ),
        ];
        self.space.constraints.extend(generated);
        self.space.choices[counter.index()].kind = ChoiceKind::Counter(Counter {
            op: CounterOp::Sum,
            half: false,
            vars: vars_xy,
            increment: IntTerm::Const(1),
            condition: vec![flag_is(y, QUOTIENT_TRUE), related(relation_values)],
        });
        self.space.triggers.push(Trigger {
            doc: vec![format!("Adds representatives to `{}`.", decl.name.name)],
            vars: vars_x,
            condition: vec![flag_is(x, QUOTIENT_TRUE)],
            action: TriggerAction::AddToQuotient {
                quotient,
                set_args: params.clone(),
                object: x,
            },
            origin: origin.clone(),
        });
        let q = &mut self.space.quotients[quotient.index()];
        q.relation = relation;
        q.relation_values = relation_values;
    }

    fn quotient_relation(
        &mut self,
        decl: &ast::QuotientDecl,
        member_set: &SetExpr,
    ) -> Option<(ChoiceId, ValueSet, usize)> {
        let name = &decl.relation;
        let callable = match self.callables.get(&name.name) {
            Some(&(callable, _)) => callable,
            None => {
                let call = ast::Call {
                    name: name.clone(),
                    args: Vec::new(),
                    span: name.span,
                };
                self.typed_call(&call, &mut Scope::default());
                return None;
            }
        };
        let Callable::Choice(relation) = callable else {
            let what = self.describe_callable(callable);
            self.error(Diagnostic::error(
                "quotient-relation",
                format!(
                    "`{}` is {what}, but the relation of a quotient is an enum choice",
                    name.name
                ),
                name.span,
                what,
            ));
            return None;
        };
        let choice = &self.space.choices[relation.index()];
        let ChoiceKind::Enum(domain) = &choice.kind else {
            let what = self.describe_callable(callable);
            self.error(
                Diagnostic::error("quotient-relation", format!("`{}` is {what}, but the relation of a quotient is an enum choice", name.name), name.span, what)
                    .with_label(self.choice_spans[relation.index()], "declared here")
                    .with_note("declare an enum choice with two parameters over the quotient's set, e.g. with values `SAME` and `DIFFERENT`")
                    .with_note("the relation says which values of `relation($x, $y)` make two objects equivalent"),
            );
            return None;
        };
        let domain = domain.clone();
        let param_sets: Vec<SetId> = choice.params.iter().map(|p| p.set.set).collect();
        if param_sets.len() != 2 {
            let message = format!(
                "`{}` has {} parameter(s), but the relation of a quotient has two",
                name.name,
                param_sets.len()
            );
            let declared = self.choice_spans[relation.index()];
            self.error(
                Diagnostic::error(
                    "quotient-relation",
                    message,
                    name.span,
                    "not a binary relation",
                )
                .with_label(declared, "declared here"),
            );
            return None;
        }
        if member_set.set != UNRESOLVED {
            for expected in param_sets {
                if expected != UNRESOLVED && !self.space.is_subset(member_set.set, expected) {
                    let message = format!(
                        "`{}` relates objects of `{}`, not of `{}`",
                        name.name,
                        self.space.sets[expected.index()].name,
                        self.space.sets[member_set.set.index()].name
                    );
                    self.error(
                        Diagnostic::error(
                            "wrong-set",
                            message,
                            name.span,
                            "relation over another set",
                        )
                        .with_label(decl.member.span, "the quotient's objects"),
                    );
                    return None;
                }
            }
        }
        let values = self.value_set(&name.name, &domain, &decl.relation_values, true)?;
        Some((relation, values, domain.values.len()))
    }

    // ------------------------------------------------------------ index

    fn index_clauses(&mut self) {
        let n = self.space.choices.len();
        let mut clauses: Vec<Vec<ClauseRef>> = vec![Vec::new(); n];
        for (c, constraint) in self.space.constraints.iter().enumerate() {
            for (l, literal) in constraint.literals.iter().enumerate() {
                for choice in literal_choices(literal) {
                    let clause = ClauseRef {
                        constraint: ConstraintId(c as u32),
                        literal: l,
                    };
                    if let Some(list) = clauses.get_mut(choice.index()) {
                        if !list.contains(&clause) {
                            list.push(clause);
                        }
                    }
                }
            }
        }
        let mut counters: Vec<Vec<ChoiceId>> = vec![Vec::new(); n];
        for (id, choice) in self.space.choices.iter().enumerate() {
            let ChoiceKind::Counter(counter) = &choice.kind else {
                continue;
            };
            let mut read: Vec<ChoiceId> =
                counter.condition.iter().flat_map(literal_choices).collect();
            if let IntTerm::Choice(inst) = &counter.increment {
                read.push(inst.choice);
            }
            for choice in read {
                if let Some(list) = counters.get_mut(choice.index()) {
                    if !list.contains(&ChoiceId(id as u32)) {
                        list.push(ChoiceId(id as u32));
                    }
                }
            }
        }
        self.space.clauses_by_choice = clauses;
        self.space.counters_by_choice = counters;
    }
}

/// The choices a literal reads.
pub(crate) fn literal_choices(literal: &Literal) -> Vec<ChoiceId> {
    let term = |t: &IntTerm| match t {
        IntTerm::Choice(inst) => Some(inst.choice),
        _ => None,
    };
    match literal {
        Literal::Is { instance, .. } => vec![instance.choice],
        Literal::SameValue { lhs, rhs, .. } => vec![lhs.choice, rhs.choice],
        Literal::Compare { lhs, rhs, .. } => term(lhs).into_iter().chain(term(rhs)).collect(),
        Literal::Property { .. } => Vec::new(),
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
