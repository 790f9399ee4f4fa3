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
    /// Checks `value V requires ...` and adds it as a constraint: the choice's
    /// value is not V, or the conditions hold.
    pub(super) fn value_requires(
        &mut self,
        id: ChoiceId,
        value: usize,
        decl: &ast::ChoiceDecl,
        requires: &ast::Requires,
    ) {
        // The constraint starts with the value's own `is not` test.
        self.diagnostics
            .extend(too_many_conditions(&requires.conditions, 1));
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

    /// Checks a `require` item and adds it as a constraint.
    pub(super) fn require(&mut self, decl: &ast::RequireDecl) {
        self.diagnostics
            .extend(too_many_conditions(&decl.conditions, 0));
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
