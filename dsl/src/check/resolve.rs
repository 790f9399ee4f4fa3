//! Name resolution: sets, variables and callables.
//!
//! Owns the set table (duplicates, `subsetof`, `disjoint`, parametrized set
//! references and `subsetof` cycles), the variables a declaration binds
//! (duplicates, unknown and unused variables, arguments of the wrong set),
//! and the shared namespace of choices, counters, properties and callbacks
//! (duplicates, unknown names, arity). Reads the parsed items; produces the
//! [`Set`], [`Property`] and [`Choice`] headers of the space, the name
//! tables of the [`Checker`], and the [`Scope`] other passes check bodies in.

use super::context::{plural, was_were, Callable, Checker, Scope, UNRESOLVED};
use crate::ast::{self, Ident};
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::ir::*;
use crate::source::Span;

impl<'a> Checker<'a> {
    // ------------------------------------------------------------ sets

    /// Declares a set or quotient name; its shape is resolved later.
    pub(super) fn declare_set(&mut self, name: &Ident, doc: &[String], span: Span) {
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

    /// The set declared by `name`, or `None` for a duplicate declaration.
    pub(super) fn own_set(&self, name: &Ident) -> Option<SetId> {
        // A duplicate declaration maps to the first one; only that one is resolved.
        self.set_names
            .get(&name.name)
            .copied()
            .filter(|id| self.set_spans[id.index()] == name.span)
    }

    /// Resolves the parameters, superset and disjoint sets of a `set` item.
    pub(super) fn resolve_set(&mut self, decl: &ast::SetDecl) {
        let Some(id) = self.own_set(&decl.name) else {
            return;
        };
        // A family indexed by its own objects has no objects to start from.
        if let Some(param) = decl
            .params
            .iter()
            .find(|p| p.set.name.name == decl.name.name)
        {
            self.error(
                Diagnostic::error(
                    "set-parameter",
                    format!(
                        "the parameter `${}` of set `{}` ranges over `{}` itself",
                        param.var.name, decl.name.name, decl.name.name
                    ),
                    param.set.name.span,
                    "the set being declared",
                )
                .with_note(format!(
                    "a parametrized set is a family of sets, one per object of another set, e.g. `set {}($i in Insts)`",
                    decl.name.name
                )),
            );
        }
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
    pub(super) fn break_subset_cycles(&mut self) {
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
    pub(super) fn set_ref(&mut self, set_ref: &ast::SetRef, scope: &mut Scope) -> Option<SetExpr> {
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

    /// Binds `$var in Set(...)` in `scope`.
    pub(super) fn bind(&mut self, param: &ast::Param, scope: &mut Scope) {
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
            span: param.var.span,
        });
        scope.spans.push(param.var.span);
        // A duplicate already has its error; uses resolve to the first one.
        scope.used.push(duplicate);
    }

    /// Binds parameters or quantifiers left to right: later ones may use
    /// earlier ones as set arguments.
    pub(super) fn bind_all(&mut self, params: &[ast::Param], mut scope: Scope) -> Scope {
        for param in params {
            self.bind(param, &mut scope);
        }
        scope
    }

    /// Resolves `$name` in `scope`.
    pub(super) fn var(&mut self, ident: &Ident, scope: &Scope) -> Option<VarId> {
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

    /// Marks variables as used, for the unused-variable warning.
    pub(super) fn mark_used(scope: &mut Scope, vars: &[VarId]) {
        for var in vars {
            scope.used[var.index()] = true;
        }
    }

    /// Checks that the objects of `var` belong to `expected`.
    pub(super) fn check_arg(
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

    /// Warns about the variables of `scope` from `from` on that no condition
    /// or argument uses.
    pub(super) fn warn_unused(&mut self, scope: &Scope, from: usize) {
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

    /// Declares a property: its name, parameters and type.
    pub(super) fn declare_property(&mut self, decl: &ast::PropertyDecl) {
        let id = PropertyId(self.space.properties.len() as u32);
        if !self.declare_callable(&decl.name, Callable::Property(id)) {
            return;
        }
        let scope = self.bind_all(&decl.params, Scope::default());
        self.property_param_spans
            .push(decl.params.iter().map(|p| p.span).collect());
        self.space.properties.push(Property {
            name: decl.name.name.clone(),
            doc: decl.doc.clone(),
            params: scope.vars,
            ty: decl.ty,
            derived: None,
            origin: self.origin(decl.span),
        });
    }

    /// Adds a choice to the space and its name to the namespace; `None` if
    /// the name is taken.
    pub(super) fn push_choice(
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

    /// Declares a choice from its header; counter bodies are kept for later.
    pub(super) fn declare_choice(&mut self, decl: &'a ast::ChoiceDecl) -> Option<ChoiceId> {
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
                base: None,
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

    // ------------------------------------------------------------ calls

    /// "an enum choice", "a boolean property", ...: for error messages.
    pub(super) fn describe_callable(&self, callable: Callable) -> &'static str {
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
    pub(super) fn typed_call(&mut self, call: &ast::Call, _scope: &mut Scope) -> Option<Callable> {
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
    pub(super) fn call_args(&mut self, call: &ast::Call, scope: &mut Scope) -> Option<Vec<VarId>> {
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
        if ok && matches!(callable, Callable::Choice(_)) {
            ok = self.distinct_args(call, &args);
        }
        ok.then_some(args)
    }

    /// A choice has instances only for tuples of distinct objects, so a
    /// variable passed twice (`order($a, $a)`) names no instance: the
    /// condition would silently never apply.
    fn distinct_args(&mut self, call: &ast::Call, args: &[VarId]) -> bool {
        for (i, var) in args.iter().enumerate() {
            let Some(first) = args[..i].iter().position(|v| v == var) else {
                continue;
            };
            let name = &call.args[i].name;
            self.error(
                Diagnostic::error(
                    "repeated-argument",
                    format!(
                        "`{}` is called with `${name}` twice, but a choice has no instance for the same object twice",
                        call.name.name
                    ),
                    call.args[i].span,
                    format!("`${name}` again"),
                )
                .with_label(call.args[first].span, "first passed here")
                .with_note(format!(
                    "instances of `{}` exist only for distinct objects; pass two variables (quantified variables are always distinct), or declare a choice with fewer parameters for what concerns one object",
                    call.name.name
                )),
            );
            return false;
        }
        true
    }
}
