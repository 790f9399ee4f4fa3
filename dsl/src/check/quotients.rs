//! Quotient sets: one representative per class of an equivalence relation.
//!
//! Owns `quotient` declarations. Declaring one gives its set a shape and
//! generates the representative flag choice and the class counter, so that
//! other items can use them before the body is checked; checking the body
//! resolves the membership condition and the relation, then generates the
//! constraints, counter and trigger that maintain the quotient. Reads set
//! and choice declarations; produces a [`Quotient`] and its generated items.

use super::context::{Callable, Checker, Scope, UNRESOLVED};
use super::typing::Context;
use crate::ast::{self, Ident};
use crate::diagnostic::Diagnostic;
use crate::ir::*;
use crate::source::Span;

impl<'a> Checker<'a> {
    /// Declares the set's shape and the generated choice and counter, so
    /// that other items can use them; the body is checked later.
    pub(super) fn declare_quotient(
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
            base: None,
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

    /// Checks the membership condition and relation of a quotient and
    /// generates the constraints, counter and trigger that maintain it.
    /// The membership condition tests the representative choice that the
    /// quotient itself declares: the condition would be defined by what it
    /// defines, so it restricts nothing.
    fn own_flag_in_condition(&mut self, decl: &ast::QuotientDecl) {
        let span = match &decl.condition.kind {
            ast::ConditionKind::Is { call, .. } => call.span,
            _ => decl.condition.span,
        };
        self.error(
            Diagnostic::error(
                "quotient-condition",
                format!(
                    "the condition of quotient `{}` tests `{}`, the representative choice it declares",
                    decl.name.name, decl.flag.name
                ),
                span,
                "the quotient's own choice",
            )
            .with_label(decl.flag.span, "declared here by the quotient")
            .with_note(format!(
                "the condition says which objects may represent a class, so it tests another choice, e.g. `dim_kind(${}) is THREAD`",
                decl.member.var.name
            )),
        );
    }

    pub(super) fn quotient_body(
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
            Some(Literal::Is { instance, .. }) if instance.choice == flag => {
                self.own_flag_in_condition(decl);
                None
            }
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
            span: decl.member.span,
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
            base: None,
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
}
