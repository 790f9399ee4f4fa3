//! Typing of conditions and operands.
//!
//! Owns what may appear where: `is` tests on enum choices, comparisons
//! between integers or between instances of one enum choice, boolean
//! properties as conditions, and the `||` or `&&` that joins a list of
//! conditions in each context. Reads the declared callables and a [`Scope`];
//! produces [`Literal`]s and typed operands for the passes that hold
//! conditions (constraints, triggers, counters, quotients).

use super::context::{Callable, Checker, Scope};
use crate::ast::{self, ConditionKind, LogicOp, Operand};
use crate::diagnostic::Diagnostic;
use crate::ir::*;

/// Where a list of conditions appears: it decides `||` or `&&` and which
/// kinds of conditions are allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Context {
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

/// The most constraints one disjunction stands for once its tests of two
/// conditions together (`(a) == (b)`) are expanded: three such tests.
const MAX_EXPANDED_CLAUSES: usize = 8;

/// What a condition of a disjunction tests.
enum TruthTest {
    /// One condition: a literal of the constraint.
    One,
    /// Two conditions hold together (`equal`) or exactly one of them does.
    Both {
        lhs: Literal,
        rhs: Literal,
        equal: bool,
    },
}

/// The type of a call or constant used as an operand.
pub(super) enum Typed {
    Int(IntTerm),
    Enum(Instance),
    Bool(PropertyCall),
    IntList,
}

impl Checker<'_> {
    /// Resolves a call used as a value and gives its type.
    pub(super) fn typed_operand(&mut self, call: &ast::Call, scope: &mut Scope) -> Option<Typed> {
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

    /// Checks a list of conditions in `context`: the joining operator and
    /// each condition; `None` if any of them is wrong.
    pub(super) fn conditions(
        &mut self,
        list: &ast::ConditionList,
        scope: &mut Scope,
        context: Context,
    ) -> Option<Vec<Literal>> {
        let mut ok = self.joiner_is_right(list, context);
        let mut literals = Vec::new();
        for condition in &list.conditions {
            match self.literal(condition, scope, context) {
                Some(literal) => literals.push(literal),
                None => ok = false,
            }
        }
        ok.then_some(literals)
    }

    /// Checks the disjunction of a `require` or `requires` and gives the
    /// constraints it stands for: one, or, where it tests that two
    /// conditions hold together (`(a) == (b)`), one per way to satisfy each
    /// such test (`!a || b` and `a || !b`, with the other conditions).
    pub(super) fn clauses(
        &mut self,
        list: &ast::ConditionList,
        scope: &mut Scope,
        context: Context,
    ) -> Option<Vec<Vec<Literal>>> {
        let mut ok = self.joiner_is_right(list, context);
        let mut clauses: Vec<Vec<Literal>> = vec![Vec::new()];
        for condition in &list.conditions {
            match self.truth_test(condition, scope) {
                Some(TruthTest::Both { lhs, rhs, equal }) => {
                    let (Some(not_lhs), Some(not_rhs)) =
                        (self.negated(&lhs, condition), self.negated(&rhs, condition))
                    else {
                        ok = false;
                        continue;
                    };
                    // `a == b`: (!a || b) && (a || !b); `a != b`: (a || b) && (!a || !b).
                    let ways = if equal {
                        [[not_lhs, rhs.clone()], [lhs.clone(), not_rhs]]
                    } else {
                        [[lhs.clone(), rhs.clone()], [not_lhs, not_rhs]]
                    };
                    clauses = clauses
                        .into_iter()
                        .flat_map(|clause| {
                            ways.iter().map(move |way| {
                                let mut clause = clause.clone();
                                clause.extend(way.iter().cloned());
                                clause
                            })
                        })
                        .collect();
                    if clauses.len() > MAX_EXPANDED_CLAUSES {
                        self.error(
                            Diagnostic::error(
                                "too-many-truth-tests",
                                format!("this disjunction tests two conditions together more than {} times", MAX_EXPANDED_CLAUSES.trailing_zeros()),
                                condition.span,
                                "one test too many",
                            )
                            .with_note(format!("each `(a) == (b)` doubles the constraints a disjunction stands for; at most {MAX_EXPANDED_CLAUSES} are made from one: split it into several `require`s")),
                        );
                        return None;
                    }
                }
                Some(TruthTest::One) => match self.literal(condition, scope, context) {
                    Some(literal) => clauses.iter_mut().for_each(|c| c.push(literal.clone())),
                    None => ok = false,
                },
                None => ok = false,
            }
        }
        ok.then_some(clauses)
    }

    /// Reports the operators of `list` that `context` does not join with;
    /// `true` if there are none.
    fn joiner_is_right(&mut self, list: &ast::ConditionList, context: Context) -> bool {
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
                    Context::Require => "a constraint is a disjunction: for \"a implies b\" write `not a || b` (e.g. `dim_kind($d) is not UNROLL || unroll_factor($d) > 1`); for \"a and b\" write `(a) && (b)`, or one `require` for `a` and one for `b`",
                    Context::Requires => "a constraint is a disjunction: for \"a implies b\" write `not a || b` (e.g. `dim_kind($d) is not UNROLL || unroll_factor($d) > 1`); for \"a and b\" write one `requires` for `a` and one for `b`",
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
        ok
    }

    /// Whether `condition` tests two conditions together: `(a) == (b)`, or
    /// two boolean properties compared with `==` or `!=`. `None` if a side
    /// is wrong (reported).
    fn truth_test(&mut self, condition: &ast::Condition, scope: &mut Scope) -> Option<TruthTest> {
        match &condition.kind {
            ConditionKind::SameTruth {
                lhs, equal, rhs, ..
            } => {
                let l = self.literal(lhs, scope, Context::Require);
                let r = self.literal(rhs, scope, Context::Require);
                Some(TruthTest::Both {
                    lhs: l?,
                    rhs: r?,
                    equal: *equal,
                })
            }
            ConditionKind::Compare {
                lhs: Operand::Call(l),
                op: op @ (CompareOp::Eq | CompareOp::Ne),
                rhs: Operand::Call(r),
                ..
            } if self.is_bool_property(l) && self.is_bool_property(r) => {
                let as_condition = |call: &ast::Call| ast::Condition {
                    kind: ConditionKind::Bool {
                        call: call.clone(),
                        negated: false,
                    },
                    span: call.span,
                };
                let l = self.literal(&as_condition(l), scope, Context::Require);
                let r = self.literal(&as_condition(r), scope, Context::Require);
                Some(TruthTest::Both {
                    lhs: l?,
                    rhs: r?,
                    equal: *op == CompareOp::Eq,
                })
            }
            _ => Some(TruthTest::One),
        }
    }

    fn is_bool_property(&self, call: &ast::Call) -> bool {
        matches!(
            self.callables.get(&call.name.name),
            Some(&(Callable::Property(p), _)) if self.space.properties[p.index()].ty == PropertyType::Bool
        )
    }

    /// The literal that holds exactly when `literal` does not; `None`, with
    /// an error at `condition`, for a comparison that would need a half
    /// counter's lower bound.
    fn negated(&mut self, literal: &Literal, condition: &ast::Condition) -> Option<Literal> {
        Some(match literal {
            Literal::Is { instance, values } => {
                let count = match &self.space.choices[instance.choice.index()].kind {
                    ChoiceKind::Enum(domain) => domain.values.len(),
                    _ => return None,
                };
                Literal::Is {
                    instance: instance.clone(),
                    values: values.complement(count),
                }
            }
            Literal::SameValue { lhs, rhs, equal } => Literal::SameValue {
                lhs: lhs.clone(),
                rhs: rhs.clone(),
                equal: !equal,
            },
            Literal::Property { call, negated } => Literal::Property {
                call: call.clone(),
                negated: !negated,
            },
            Literal::Compare { lhs, op, rhs } => {
                if self.reads_half_counter(lhs) || self.reads_half_counter(rhs) {
                    self.error(
                        Diagnostic::error(
                            "half-counter",
                            "a comparison with a half counter cannot be tested together with another condition",
                            condition.span,
                            "its negation would need the counter's lower bound",
                        )
                        .with_note("`(a) == (b)` also requires `a` to be false; remove `half` from the counter's declaration to track both bounds"),
                    );
                    return None;
                }
                Literal::Compare {
                    lhs: lhs.clone(),
                    op: op.negated(),
                    rhs: rhs.clone(),
                }
            }
        })
    }

    fn reads_half_counter(&self, term: &IntTerm) -> bool {
        match term {
            IntTerm::Choice(instance) => matches!(
                &self.space.choices[instance.choice.index()].kind,
                ChoiceKind::Counter(c) if c.half
            ),
            IntTerm::Product(terms) => terms.iter().any(|t| self.reads_half_counter(t)),
            IntTerm::Const(_) | IntTerm::Property(_) => false,
        }
    }

    /// Checks one condition and lowers it to a literal.
    pub(super) fn literal(
        &mut self,
        condition: &ast::Condition,
        scope: &mut Scope,
        context: Context,
    ) -> Option<Literal> {
        match &condition.kind {
            ConditionKind::Member { var, negated, set } => {
                self.membership(var, *negated, set, condition.span, scope)
            }
            ConditionKind::ObjectCompare {
                lhs,
                op,
                op_span,
                rhs,
            } => self.object_order(lhs, *op, *op_span, rhs, scope),
            ConditionKind::InList { list, .. } => {
                self.error(
                    Diagnostic::error(
                        "condition-kind",
                        match context {
                            Context::Require => format!("`in {}` must be a `require` of its own, with no other condition", list.name.name),
                            _ => format!("{} cannot test `in {}`", context.what(), list.name.name),
                        },
                        condition.span,
                        "`in` a list of values",
                    )
                    .with_note("`x in list(...)` is only allowed as a `require` of its own, without `||` (the checker gives it a choice of the list's values, equal to `x`); for a disjunction, compare `x` with integers"),
                );
                None
            }
            ConditionKind::SameTruth { op_span, .. } => {
                self.error(
                    Diagnostic::error(
                        "condition-kind",
                        format!("{} cannot test two conditions together", context.what()),
                        *op_span,
                        "`==` between conditions",
                    )
                    .with_note("`(a) == (b)` stands for two constraints, `!a || b` and `a || !b`: it is only allowed in a `require` or a `requires` (and not nested in another `(a) == (b)`)"),
                );
                None
            }
            ConditionKind::Is {
                call,
                negated,
                values,
            } => {
                let callable = self.typed_call(call, scope)?;
                let Callable::Choice(choice) = callable else {
                    let what = self.describe_callable(callable);
                    let mut diagnostic = is_on_non_enum(call, what);
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
                    self.error(is_on_non_enum(call, what).with_note(format!(
                        "compare it instead, e.g. `{} == 4` or `{} <= 1`",
                        self.snippet(call.span),
                        self.snippet(call.span)
                    )));
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
                    (Typed::Int(l), Typed::Int(r)) if !is_constant(&l) || !is_constant(&r) => {
                        // Only the smaller side of `<` or `<=` needs just an
                        // upper bound; a half counter has no other.
                        let (lhs_bounded_above, rhs_bounded_above) = match op {
                            CompareOp::Le | CompareOp::Lt => (true, false),
                            CompareOp::Ge | CompareOp::Gt => (false, true),
                            _ => (false, false),
                        };
                        let ok = (lhs_bounded_above || self.no_half_counter(lhs, &l, op, *op_span))
                            && (rhs_bounded_above || self.no_half_counter(rhs, &r, op, *op_span));
                        ok.then_some(Literal::Compare { lhs: l, op, rhs: r })
                    }
                    (Typed::Int(_), Typed::Int(_)) => {
                        self.error(Diagnostic::error(
                            "constant-comparison",
                            "this compares two constants",
                            condition.span,
                            "always true or always false",
                        ));
                        None
                    }
                    (Typed::Enum(l), Typed::Enum(r))
                        if !matches!(op, CompareOp::Multiple | CompareOp::NotMultiple) =>
                    {
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
                                Operand::Product(..) => "the product".to_string(),
                            };
                            let what = match t {
                                Typed::Int(IntTerm::Const(_)) => "an integer",
                                Typed::Int(IntTerm::Property(_)) => "an `int` property",
                                Typed::Int(IntTerm::Product(_)) => "an integer",
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
                        if let (Typed::Bool(_), Typed::Bool(_)) = (&l, &r) {
                            self.error(self.booleans_compared(
                                lhs,
                                op,
                                rhs,
                                condition.span,
                                context,
                            ));
                            return None;
                        }
                        let message = format!(
                            "cannot compare: {} and {}",
                            describe(&l, lhs),
                            describe(&r, rhs)
                        );
                        // Two `[int]` properties, or two enum choices under
                        // `%`, are of one type, just not one that compares.
                        let label = if std::mem::discriminant(&l) == std::mem::discriminant(&r) {
                            "neither side is an integer"
                        } else {
                            "operands of different types"
                        };
                        let note = if matches!(l, Typed::Bool(_)) || matches!(r, Typed::Bool(_)) {
                            "a boolean property is a condition on its own: `p($x)` or `!p($x)`"
                        } else if matches!(l, Typed::IntList) || matches!(r, Typed::IntList) {
                            "a `[int]` property gives the universe of an integer choice; it cannot be compared"
                        } else {
                            "test an enum choice with `is VALUE`; compare integers (counters, integer choices, `int` properties, constants) with each other"
                        };
                        self.error(
                            Diagnostic::error("compare-type", message, condition.span, label)
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

    /// An operand that must be an integer: the tested side of `in`, which
    /// must take one exact value (no half counter).
    pub(super) fn int_operand(
        &mut self,
        operand: &Operand,
        condition: crate::source::Span,
        scope: &mut Scope,
    ) -> Option<IntTerm> {
        match self.operand(operand, scope)? {
            Typed::Int(term) if self.reads_half_counter(&term) => {
                self.error(
                    Diagnostic::error(
                        "half-counter",
                        format!("`{}` reads a half counter, which tracks only its upper bound, but `in` needs its exact value", self.snippet(operand.span())),
                        operand.span(),
                        "needs both bounds",
                    )
                    .with_label(condition, "this test")
                    .with_note("remove `half` from the counter's declaration to track both bounds"),
                );
                None
            }
            Typed::Int(term) => Some(term),
            _ => {
                self.error(
                    Diagnostic::error(
                        "compare-type",
                        format!("`{}` is not an integer", self.snippet(operand.span())),
                        operand.span(),
                        "tested with `in`",
                    )
                    .with_note("`x in list(...)` tests an integer: a counter, an integer choice, an `int` property or a product of them"),
                );
                None
            }
        }
    }

    /// A call that must be a `[int]` property: the list of `in`.
    pub(super) fn list_property(
        &mut self,
        call: &ast::Call,
        scope: &mut Scope,
    ) -> Option<PropertyCall> {
        let callable = self.typed_call(call, scope)?;
        match callable {
            Callable::Property(property)
                if self.space.properties[property.index()].ty == PropertyType::IntList =>
            {
                let args = self.call_args(call, scope)?;
                Some(PropertyCall { property, args })
            }
            _ => {
                let what = self.describe_callable(callable);
                self.error(
                    Diagnostic::error(
                        "list-type",
                        format!("`{}` is {what}, not a list of integers", call.name.name),
                        call.span,
                        "after `in`",
                    )
                    .with_note("`x in list(...)` takes a `[int]` property, such as `property sizes($d in Dims) -> [int]`; for a set of objects, write `$x in Set`"),
                );
                None
            }
        }
    }

    /// Reports a half counter in `operand` (typed as `term`) on a side of
    /// `op` that needs a lower bound; `false` if there is one.
    fn no_half_counter(
        &mut self,
        operand: &Operand,
        term: &IntTerm,
        op: CompareOp,
        op_span: crate::source::Span,
    ) -> bool {
        match (operand, term) {
            (Operand::Product(factors, _), IntTerm::Product(terms)) => factors
                .iter()
                .zip(terms)
                .all(|(f, t)| self.no_half_counter(f, t, op, op_span)),
            (Operand::Call(call), IntTerm::Choice(instance)) => {
                let choice = &self.space.choices[instance.choice.index()];
                if !matches!(&choice.kind, ChoiceKind::Counter(c) if c.half) {
                    return true;
                }
                let name = choice.name.clone();
                let (message, label) = match op {
                    CompareOp::Le | CompareOp::Lt | CompareOp::Ge | CompareOp::Gt => (
                        format!("`{name}` is a half counter, which tracks only its upper bound, but `{}` bounds it from below", op.symbol()),
                        "needs a lower bound",
                    ),
                    _ => (
                        format!("`{name}` is a half counter, which tracks only its upper bound, but `{}` needs its exact value", op.symbol()),
                        "needs both bounds",
                    ),
                };
                let declared = self.choice_spans[instance.choice.index()];
                self.error(
                    Diagnostic::error("half-counter", message, call.span, label)
                        .with_label(op_span, "this comparison")
                        .with_label(declared, "declared `half` here")
                        .with_note(format!(
                            "remove `half` from the declaration of `{name}` to track both bounds; a half counter is only compared as the smaller side of `<=` or `<`"
                        )),
                );
                false
            }
            _ => true,
        }
    }

    /// The error for two boolean properties compared where that is not a
    /// test of two conditions together (ordered, or outside constraints),
    /// with what to write instead.
    fn booleans_compared(
        &self,
        lhs: &Operand,
        op: CompareOp,
        rhs: &Operand,
        span: crate::source::Span,
        context: Context,
    ) -> Diagnostic {
        let (l, r) = (self.snippet(lhs.span()), self.snippet(rhs.span()));
        let note = match op {
            CompareOp::Eq | CompareOp::Ne => format!(
                "`{l} {} {r}` is only allowed in a `require` or a `requires`, where it stands for two constraints; in {}, write the conditions joined with `&&` instead, e.g. `{l} && {r}` for \"both\"",
                op.symbol(),
                context.what()
            ),
            _ => "booleans have no order; for \"this one implies that one\", write `!p($x) || q($x)`"
                .to_string(),
        };
        Diagnostic::error(
            "compare-type",
            format!("cannot compare two boolean properties, `{l}` and `{r}`, here"),
            span,
            "booleans are conditions, not values",
        )
        .with_note("a boolean property is a condition on its own: `p($x)` or `!p($x)`")
        .with_note(note)
    }

    fn operand(&mut self, operand: &Operand, scope: &mut Scope) -> Option<Typed> {
        match operand {
            Operand::Int(value, _) => Some(Typed::Int(IntTerm::Const(*value))),
            Operand::Call(call) => self.typed_operand(call, scope),
            Operand::Product(factors, span) => {
                let mut terms = Vec::new();
                let mut failed = false;
                for factor in factors {
                    match self.operand(factor, scope) {
                        Some(Typed::Int(term)) => terms.push(term),
                        Some(_) => {
                            failed = true;
                            self.error(
                                Diagnostic::error(
                                    "compare-type",
                                    "only integers can be multiplied",
                                    factor.span(),
                                    "not an integer",
                                )
                                .with_note("factors are integer literals, `int` properties, integer choices and counters")
                                .with_label(*span, "in this product"),
                            );
                        }
                        None => failed = true,
                    }
                }
                (!failed).then_some(Typed::Int(IntTerm::Product(terms)))
            }
        }
    }
}

/// Whether a term is known without any decision or host: a literal or a
/// product of literals.
fn is_constant(term: &IntTerm) -> bool {
    match term {
        IntTerm::Const(_) => true,
        IntTerm::Product(factors) => factors.iter().all(is_constant),
        IntTerm::Property(_) | IntTerm::Choice(_) => false,
    }
}

/// The error for an `is` test on `call`, which is `what` and not an enum
/// choice.
fn is_on_non_enum(call: &ast::Call, what: &'static str) -> Diagnostic {
    Diagnostic::error(
        "is-type",
        format!(
            "`is` tests the value of an enum choice, but `{}` is {what}",
            call.name.name
        ),
        call.span,
        what,
    )
}
