//! Counter bodies and cycles between counters.
//!
//! Owns what a counter adds (an integer constant, `int` property, integer
//! choice or counter), its `when` conditions, and the check that no counter
//! reads itself through other counters. Reads every declared callable;
//! produces each counter's [`Counter`] and the `counter-cycle` errors.

use super::context::{Checker, Scope};
use super::typing::{Context, Typed};
use crate::ast::{self, Operand};
use crate::diagnostic::Diagnostic;
use crate::ir::*;

impl Checker<'_> {
    /// Checks what a counter adds and when, in the scope of its parameters.
    pub(super) fn counter_body(&mut self, id: ChoiceId, body: &ast::CounterBody, scope: Scope) {
        let mut scope = scope;
        // Read before the quantifiers are bound: the base is per instance.
        let base = match &body.base {
            Some(operand) => self.counter_base(body.op, operand, &mut scope).map(Some),
            None => Some(None),
        };
        let mut scope = self.bind_all(&body.quantifiers, scope);
        let increment = match &body.operand {
            Operand::Int(value, _) => Some(IntTerm::Const(*value)),
            // The grammar has no product in a counter.
            Operand::Product(..) => None,
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
        let (Some(increment), Some(condition), Some(base)) = (increment, condition, base) else {
            return;
        };
        self.space.choices[id.index()].kind = ChoiceKind::Counter(Counter {
            op: body.op,
            half: body.half,
            vars: scope.vars,
            increment,
            condition,
            base,
        });
    }

    /// Checks a counter's `from`: an integer constant or an `int` property
    /// of the counter's parameters (`scope` holds only them), non-negative
    /// for a product, whose bounds propagation reads as non-negative.
    fn counter_base(
        &mut self,
        op: CounterOp,
        operand: &Operand,
        scope: &mut Scope,
    ) -> Option<IntTerm> {
        let term = match operand {
            Operand::Int(value, span) => {
                if op == CounterOp::Mul && *value < 0 {
                    self.error(
                        Diagnostic::error(
                            "counter-base",
                            format!("a product counter starts from {value}, a negative number"),
                            *span,
                            "negative base",
                        )
                        .with_note("a `mul` counter's bounds are read as non-negative: start from 0 or more"),
                    );
                    return None;
                }
                IntTerm::Const(*value)
            }
            Operand::Product(..) => return None,
            Operand::Call(call) => match self.typed_operand(call, scope)? {
                Typed::Int(term @ IntTerm::Property(_)) => term,
                other => {
                    let what = match other {
                        Typed::Int(IntTerm::Choice(instance)) => {
                            match self.space.choices[instance.choice.index()].kind {
                                ChoiceKind::Counter(_) => "a counter",
                                _ => "an integer choice",
                            }
                        }
                        Typed::Enum(_) => "an enum choice",
                        Typed::Bool(_) => "a boolean property",
                        _ => "a list of integers",
                    };
                    self.error(
                        Diagnostic::error(
                            "counter-base",
                            format!("a counter starts from a known integer, but `{}` is {what}", call.name.name),
                            call.span,
                            "not a constant nor an `int` property",
                        )
                        .with_note("write `from` with an integer or an `int` property of the counter's parameters, known before any decision; to add a choice, count it as another increment or compare the sum"),
                    );
                    return None;
                }
            },
        };
        Some(term)
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

    /// Reports each cycle of counters reading counters once, from its first
    /// member in declaration order.
    pub(super) fn check_counter_cycles(&mut self) {
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
}
