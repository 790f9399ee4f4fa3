//! Which choices the conditions of callback triggers read: a propagation
//! that changes none of them cannot make a trigger instance certain, so
//! the candidate does not look for one after it (the search for certain
//! triggers enumerates every binding of every trigger, a tenth of a
//! decision on the GPU space).

use crate::model::{Model, TriggerAction};

/// Per choice, whether a change of one of its instances can make a
/// callback trigger's condition certain: the choices its literals read
/// (counters too: one that moves is queued like any instance), and the
/// membership flags of the quotient sets its variables range over.
pub(super) fn trigger_reads(model: &Model) -> Vec<bool> {
    let mut reads = vec![false; model.choices.len()];
    let callbacks = model
        .triggers
        .iter()
        .filter(|t| matches!(t.action, TriggerAction::Callback { .. }));
    for trigger in callbacks {
        for literal in trigger.condition {
            for instance in literal.instances() {
                reads[instance.choice as usize] = true;
            }
        }
        for var in trigger.vars {
            if let Some(quotient) = &model.sets[var.set as usize].quotient {
                reads[quotient.flag as usize] = true;
            }
        }
    }
    reads
}

#[cfg(test)]
mod tests {
    use super::trigger_reads;
    use crate::model::{
        ChoiceDef, ChoiceKind, CompareOp, CounterDef, CounterOp, InstanceRef, Literal, Model,
        QuotientDef, SetDef, Symmetry, Term, TriggerAction, TriggerDef, VarDef,
    };

    const X: &[VarDef] = &[VarDef {
        name: "x",
        set: 0,
        args: &[],
    }];
    /// `$x` in the quotient set `Q`.
    const X_IN_Q: &[VarDef] = &[VarDef {
        name: "x",
        set: 1,
        args: &[],
    }];

    const fn choice(name: &'static str, kind: ChoiceKind) -> ChoiceDef {
        ChoiceDef {
            name,
            params: X,
            kind,
            symmetry: Symmetry::None,
            origin: "test",
        }
    }

    const TWO_VALUES: &[&str] = &["NO", "YES"];

    const SETS: &[SetDef] = &[
        SetDef::plain("S", None),
        SetDef {
            name: "Q",
            params: &[],
            superset: Some(0),
            quotient: Some(QuotientDef { flag: 2 }),
        },
    ];

    /// `kind($x)`, `other($x)`, `in_q($x)` (`Q`'s flag), `count($x)`.
    const CHOICES: &[ChoiceDef] = &[
        choice("kind", ChoiceKind::Enum { values: TWO_VALUES }),
        choice("other", ChoiceKind::Enum { values: TWO_VALUES }),
        choice("in_q", ChoiceKind::Enum { values: TWO_VALUES }),
        choice(
            "count",
            ChoiceKind::Counter(CounterDef {
                op: CounterOp::Sum,
                half: false,
                vars: X,
                increment: Term::Const(1),
                condition: &[],
                base: None,
            }),
        ),
    ];

    /// A model with one callback trigger over `Q`, when `condition` is
    /// certain.
    macro_rules! model {
        ($condition:expr) => {
            Model {
                name: "triggers",
                sets: SETS,
                choices: CHOICES,
                triggers: &[TriggerDef {
                    vars: X_IN_Q,
                    condition: $condition,
                    action: TriggerAction::Callback {
                        callback: 0,
                        args: &[0],
                    },
                    origin: "test",
                }],
                ..Model::EMPTY
            }
        };
    }

    static ON_KIND: Model = model!(&[Literal::Is {
        instance: InstanceRef {
            choice: 0,
            args: &[0],
        },
        values: 0b10,
    }]);

    static ON_COUNT: Model = model!(&[Literal::Compare {
        lhs: Term::Choice(InstanceRef {
            choice: 3,
            args: &[0],
        }),
        op: CompareOp::Gt,
        rhs: Term::Const(1),
    }]);

    #[test]
    fn a_trigger_reads_its_condition_and_its_quotient_flags() {
        assert_eq!(trigger_reads(&ON_KIND), [true, false, true, false]);
    }

    #[test]
    fn a_condition_on_a_counter_reads_the_counter() {
        assert_eq!(trigger_reads(&ON_COUNT), [false, false, true, true]);
    }
}
