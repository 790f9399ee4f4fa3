//! Constraints and triggers written by the author.
//!
//! Owns the `requires` clauses of enum values, `require` items and `trigger`
//! items, including trigger callbacks, which are declared by their first
//! call. Reads every declared callable and types conditions through
//! [`typing`](super::typing); produces the [`Constraint`]s, [`Trigger`]s and
//! [`Callback`]s of the space.

use super::context::{plural, was_were, Callable, Checker, Scope, UNRESOLVED};
use super::limits::too_many_conditions;
use super::typing::Context;
use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::ir::*;

impl Checker<'_> {
    /// Checks `value V requires ...` (or an alias's `requires`) and adds it
    /// as a constraint: the choice's value is not one of `values`, or the
    /// conditions hold.
    pub(super) fn value_requires(
        &mut self,
        id: ChoiceId,
        values: ValueSet,
        source: ConstraintSource,
        decl: &ast::ChoiceDecl,
        requires: &ast::Requires,
    ) {
        // The constraint starts with the value's own `is not` test.
        self.diagnostics
            .extend(too_many_conditions(&requires.conditions, 1));
        let scope = self.choice_scope(id);
        let first_quantified = scope.vars.len();
        let mut scope = self.bind_all(&requires.quantifiers, scope);
        let Some(clauses) = self.clauses(&requires.conditions, &mut scope, Context::Requires)
        else {
            return;
        };
        self.warn_unused(&scope, first_quantified);
        let count = match &self.space.choices[id.index()].kind {
            ChoiceKind::Enum(domain) => domain.values.len(),
            _ => return,
        };
        let params: Vec<VarId> = (0..decl.params.len() as u32).map(VarId).collect();
        for mut literals in clauses {
            literals.insert(
                0,
                Literal::Is {
                    instance: Instance {
                        choice: id,
                        args: params.clone(),
                    },
                    values: values.complement(count),
                },
            );
            self.space.constraints.push(Constraint {
                doc: decl.doc.clone(),
                vars: scope.vars.clone(),
                literals,
                source: source.clone(),
                origin: self.origin(requires.span),
            });
        }
    }

    /// Checks a `require` item and adds its constraints: one per
    /// parenthesized group, and per way to satisfy a test of two conditions
    /// together (`(a) == (b)`).
    pub(super) fn require(&mut self, decl: &ast::RequireDecl) {
        for list in &decl.clauses {
            self.diagnostics.extend(too_many_conditions(list, 0));
        }
        let mut scope = self.bind_all(&decl.quantifiers, Scope::default());
        if let [list] = decl.clauses.as_slice() {
            if let [ast::Condition {
                kind:
                    ast::ConditionKind::InList {
                        value,
                        list: values,
                    },
                span,
            }] = list.conditions.as_slice()
            {
                self.require_in_list(decl, value, values, *span, scope);
                return;
            }
        }
        let mut constraints = Vec::new();
        let mut ok = true;
        for list in &decl.clauses {
            match self.clauses(list, &mut scope, Context::Require) {
                Some(clauses) => constraints.extend(clauses),
                None => ok = false,
            }
        }
        if !ok {
            return;
        }
        self.warn_unused(&scope, 0);
        for literals in constraints {
            self.space.constraints.push(Constraint {
                doc: decl.doc.clone(),
                vars: scope.vars.clone(),
                literals,
                source: ConstraintSource::Require,
                origin: self.origin(decl.span),
            });
        }
    }

    /// Checks `require forall ...: value in list(...)`. The checker declares
    /// an integer choice over the quantified objects whose universe is the
    /// list, and requires it equal to `value`: deciding it decides which of
    /// the list's values `value` ends up with, and propagation narrows each
    /// by the other's bounds.
    fn require_in_list(
        &mut self,
        decl: &ast::RequireDecl,
        value: &ast::Operand,
        list: &ast::Call,
        span: crate::source::Span,
        mut scope: Scope,
    ) {
        let term = self.int_operand(value, span, &mut scope);
        let universe = self.list_property(list, &mut scope);
        let (Some(term), Some(universe)) = (term, universe) else {
            return;
        };
        // The generated choice has an instance per binding of the
        // quantifiers, and choices take only plain sets.
        if let Some((var, span)) = scope
            .vars
            .iter()
            .zip(&scope.spans)
            .find(|(v, _)| !v.set.args.is_empty())
        {
            let set = self.space.sets[var.set.set.index()].name.clone();
            self.error(
                Diagnostic::error(
                    "unsupported",
                    format!("`in {}` quantifies `${}` over the parametrized set `{set}`", list.name.name, var.name),
                    *span,
                    format!("`${}` ranges over `{set}(...)`", var.name),
                )
                .with_note("`x in list(...)` gets a generated choice per binding of its quantifiers, and choices over parametrized sets are not supported yet: quantify over plain sets"),
            );
            return;
        }
        self.warn_unused(&scope, 0);
        let base = match value {
            ast::Operand::Call(call) => call.name.name.clone(),
            _ => "value".to_string(),
        };
        let mut name = format!("{base}_in_{}", list.name.name);
        let mut suffix = 2;
        while self.callables.contains_key(&name) {
            name = format!("{base}_in_{}_{suffix}", list.name.name);
            suffix += 1;
        }
        let doc = vec![format!(
            "The value of `{}` among those of `{}` (generated for the `require` at line {}).",
            self.snippet(value.span()),
            self.snippet(list.span),
            self.origin(decl.span).line
        )];
        let spans = scope.spans.clone();
        let Some(choice) = self.push_choice(
            &ast::Ident { name, span },
            &doc,
            scope.vars.clone(),
            spans,
            ChoiceKind::Integer(Universe::Property(universe)),
            span,
        ) else {
            return;
        };
        let args = (0..scope.vars.len() as u32).map(VarId).collect();
        self.space.constraints.push(Constraint {
            doc: decl.doc.clone(),
            vars: scope.vars,
            literals: vec![Literal::Compare {
                lhs: term,
                op: CompareOp::Eq,
                rhs: IntTerm::Choice(Instance { choice, args }),
            }],
            source: ConstraintSource::Require,
            origin: self.origin(decl.span),
        });
    }

    /// Checks a `trigger` item; its callback is declared by its first use.
    pub(super) fn trigger(&mut self, decl: &ast::TriggerDecl) {
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
}
