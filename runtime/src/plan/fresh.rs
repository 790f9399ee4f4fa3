//! Which constraint instances a new object cannot wake: after a trigger
//! callback adds objects, every choice instance that binds one is new and
//! starts with every value, so a literal on it is unknown unless its
//! values are all or none. A clause with two such literals, or with an
//! equality of two such instances, can neither fail nor enforce anything
//! then; it is filtered later, through the queue, once a change narrows
//! one of them. Filtering only the instances
//! that can act keeps a callback from paying for every triple of
//! statements that holds a new one (most of a layout's work before).

use crate::model::{ChoiceKind, ConstraintDef, InstanceRef, Literal, Model, Var, VarDef};

/// Per constraint, a mask of its variables: a binding that binds one of
/// them to a new object leaves the clause unable to act.
pub(super) fn unknown_on_new(model: &Model) -> Vec<u32> {
    model
        .constraints
        .iter()
        .map(|def| {
            (0..def.vars.len())
                .filter(|&var| inert_on_new(model, def, var as Var))
                .fold(0u32, |mask, var| mask | 1 << var)
        })
        .collect()
}

/// Whether the clause `def` can neither fail nor narrow a domain
/// whenever `var` is bound to a new object, whatever the other variables
/// are bound to: two of its literals are then unknown, or one is the
/// equality of two new instances (never false, and enforcing it on two
/// full domains changes neither).
fn inert_on_new(model: &Model, def: &ConstraintDef, var: Var) -> bool {
    let mut unknown = 0;
    for literal in def.literals {
        match literal {
            Literal::Is { instance, values } => {
                let partial = enum_values(model, instance.choice).is_some_and(|all| {
                    let values = values & all;
                    values != 0 && values != all
                });
                if partial && reads_new(model, def.vars, instance, var) {
                    unknown += 1;
                }
            }
            Literal::Same { lhs, rhs, .. } => {
                let (left, right) = (
                    reads_new(model, def.vars, lhs, var),
                    reads_new(model, def.vars, rhs, var),
                );
                let exist =
                    exists_always(model, def.vars, lhs) && exists_always(model, def.vars, rhs);
                // With one value, two full domains are the same value.
                let values = enum_values(model, lhs.choice).map_or(0, u64::count_ones);
                if !exist || values < 2 {
                    continue;
                }
                if left && right {
                    return true;
                }
                // A full domain beside any nonempty one: neither surely the
                // same value nor surely different ones.
                if left || right {
                    unknown += 1;
                }
            }
            Literal::Compare { .. } | Literal::Property { .. } => {}
        }
    }
    unknown >= 2
}

/// Whether `instance` binds `var` and exists under every binding of the
/// scope (each argument's set lies within its parameter's), so that with
/// `var` new it is a new instance, with every value.
fn reads_new(model: &Model, vars: &[VarDef], instance: &InstanceRef, var: Var) -> bool {
    instance.args.contains(&var) && exists_always(model, vars, instance)
}

/// Whether every binding of the scope has `instance` in the layout: each
/// argument's set is its parameter's set or a subset of it, and no
/// parameter is a quotient set.
fn exists_always(model: &Model, vars: &[VarDef], instance: &InstanceRef) -> bool {
    let params = model.choices[instance.choice as usize].params;
    params.len() == instance.args.len()
        && params.iter().zip(instance.args).all(|(param, &arg)| {
            model.sets[param.set as usize].quotient.is_none()
                && vars
                    .get(arg as usize)
                    .is_some_and(|var| model.is_subset(var.set, param.set))
        })
}

/// The mask of every value of an enum choice.
fn enum_values(model: &Model, choice: u16) -> Option<u64> {
    match model.choices[choice as usize].kind {
        ChoiceKind::Enum { values } => Some(if values.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << values.len()) - 1
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::unknown_on_new;
    use crate::model::{
        ChoiceDef, ChoiceKind, ConstraintDef, InstanceRef, Literal, Model, PropertyDef,
        PropertyType, SetDef, Symmetry, VarDef,
    };

    const fn var(name: &'static str, set: u16) -> VarDef {
        VarDef {
            name,
            set,
            args: &[],
        }
    }

    /// `$a`, `$b`, `$c` over `S`.
    const TRIPLE: &[VarDef] = &[var("a", 0), var("b", 0), var("c", 0)];

    const fn order(args: &'static [u8]) -> InstanceRef {
        InstanceRef { choice: 0, args }
    }

    const fn is(instance: InstanceRef, values: u64) -> Literal {
        Literal::Is { instance, values }
    }

    const fn constraint(vars: &'static [VarDef], literals: &'static [Literal]) -> ConstraintDef {
        ConstraintDef {
            vars,
            literals,
            origin: "test",
            description: "test",
        }
    }

    /// `order($x, $y)` takes one of three values (all: `0b111`), `one($x,
    /// $y)` its only one.
    static MODEL: Model = Model {
        name: "fresh",
        sets: &[SetDef::plain("S", None), SetDef::plain("T", None)],
        properties: &[PropertyDef {
            name: "p",
            params: &[0],
            ty: PropertyType::Bool,
            derived: None,
        }],
        choices: &[
            ChoiceDef {
                name: "order",
                params: &[var("x", 0), var("y", 0)],
                kind: ChoiceKind::Enum {
                    values: &["A", "B", "C"],
                },
                symmetry: Symmetry::None,
                origin: "test",
            },
            ChoiceDef {
                name: "one",
                params: &[var("x", 0), var("y", 0)],
                kind: ChoiceKind::Enum { values: &["ONLY"] },
                symmetry: Symmetry::None,
                origin: "test",
            },
        ],
        constraints: &[
            // A transitivity: every variable is read by two literals.
            constraint(
                TRIPLE,
                &[
                    is(order(&[0, 1]), 0b110),
                    is(order(&[1, 2]), 0b110),
                    is(order(&[0, 2]), 0b001),
                ],
            ),
            // Merged statements are placed alike: with `$c` new, both
            // sides of the equality are new (inert); with `$a` or `$b`
            // new, a side of it and the first literal are unknown.
            constraint(
                TRIPLE,
                &[
                    is(order(&[0, 1]), 0b011),
                    Literal::Same {
                        lhs: order(&[0, 2]),
                        rhs: order(&[1, 2]),
                        equal: true,
                    },
                ],
            ),
            // One literal on the new instance, a property beside it: it
            // can act (enforce the literal where `p` is false).
            constraint(
                &[var("a", 0), var("b", 0)],
                &[
                    is(order(&[0, 1]), 0b001),
                    Literal::Property {
                        property: 0,
                        args: &[0],
                        negated: false,
                    },
                ],
            ),
            // Values all the choice's: certainly true, never unknown.
            constraint(
                &[var("a", 0), var("b", 0)],
                &[is(order(&[0, 1]), 0b111), is(order(&[1, 0]), 0b001)],
            ),
            // `$b` ranges over `T`, not within the parameter's `S`: the
            // instance may not exist (its literals are then false).
            constraint(
                &[var("a", 0), var("b", 1)],
                &[is(order(&[0, 1]), 0b001), is(order(&[1, 0]), 0b001)],
            ),
            // A choice of one value: two new instances take the same, and
            // `!=` of them is false, not unknown.
            constraint(
                TRIPLE,
                &[Literal::Same {
                    lhs: InstanceRef {
                        choice: 1,
                        args: &[0, 2],
                    },
                    rhs: InstanceRef {
                        choice: 1,
                        args: &[1, 2],
                    },
                    equal: false,
                }],
            ),
        ],
        ..Model::EMPTY
    };

    #[test]
    fn a_new_object_leaves_to_the_queue_the_clauses_it_cannot_wake() {
        assert_eq!(unknown_on_new(&MODEL), vec![0b111, 0b111, 0, 0, 0, 0]);
    }
}
