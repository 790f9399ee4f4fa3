//! The engine at its limits (`commute_model::limits`), on hand-written
//! models shaped like what the generator emits for
//! `dsl/tests/pass/limits_at_the_edge.space`: 16 variables in every kind of
//! scope, 64 values and 256 conditions lay out, propagate and descend; one
//! variable more is refused with an error, not a panic.

use commute_runtime::descent::{random_descent, Descent};
use commute_runtime::model::limits::{MAX_CONDITIONS, MAX_VALUES, MAX_VARS};
use commute_runtime::model::*;
use commute_runtime::testing::RandomBackbone;
use commute_runtime::{Candidate, CandidateError, LayoutError};
use rand::SeedableRng;

fn leak<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

fn name(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// Variables `0..n`, each over its own root set (so that every binding of
/// `n` variables exists, objects of different roots being distinct).
fn vars(n: usize) -> &'static [VarDef] {
    leak(
        (0..n)
            .map(|i| VarDef {
                name: name(format!("v{i}")),
                set: i as u16,
                args: &[],
            })
            .collect(),
    )
}

fn var_indices(n: usize) -> &'static [Var] {
    leak((0..n as Var).collect())
}

fn root_sets(n: usize) -> &'static [SetDef] {
    leak(
        (0..n)
            .map(|_| SetDef {
                name: "S",
                params: &[],
                superset: None,
                quotient: None,
            })
            .collect(),
    )
}

const NEAR: u64 = 1;
const FAR: u64 = 2;

/// A choice `placement` of `n` parameters whose value NEAR `requires` a
/// property of the `n` objects; a counter of one parameter and `n - 1`
/// quantifiers over NEAR placements; a constraint and a trigger over `n`
/// variables.
fn scopes_of(n: usize) -> &'static Model {
    let all = var_indices(n);
    let placement = InstanceRef {
        choice: 0,
        args: all,
    };
    let is = |values| Literal::Is {
        instance: InstanceRef {
            choice: 0,
            args: all,
        },
        values,
    };
    let near = || Literal::Property {
        property: 0,
        args: all,
        negated: false,
    };
    Box::leak(Box::new(Model {
        name: "scopes",
        sets: root_sets(n),
        properties: leak(vec![PropertyDef {
            name: "near",
            params: leak((0..n as u16).collect()),
            ty: PropertyType::Bool,
            derived: None,
        }]),
        choices: leak(vec![
            ChoiceDef {
                name: "placement",
                params: vars(n),
                kind: ChoiceKind::Enum {
                    values: &["NEAR", "FAR"],
                },
                symmetry: Symmetry::None,
                origin: "scopes:1",
            },
            ChoiceDef {
                name: "near_count",
                params: vars(1),
                kind: ChoiceKind::Counter(CounterDef {
                    op: CounterOp::Sum,
                    half: false,
                    vars: vars(n),
                    increment: Term::Const(1),
                    condition: leak(vec![Literal::Is {
                        instance: placement,
                        values: NEAR,
                    }]),
                    base: None,
                }),
                symmetry: Symmetry::None,
                origin: "scopes:2",
            },
        ]),
        constraints: leak(vec![
            ConstraintDef {
                vars: vars(n),
                literals: leak(vec![is(FAR), near()]),
                origin: "scopes:1",
                description: "value NEAR requires near(...)",
            },
            ConstraintDef {
                vars: vars(n),
                literals: leak(vec![is(FAR), near()]),
                origin: "scopes:3",
                description: "require forall ...: placement(...) is FAR || near(...)",
            },
        ]),
        triggers: leak(vec![TriggerDef {
            vars: vars(n),
            condition: leak(vec![is(NEAR)]),
            action: TriggerAction::Callback {
                callback: 0,
                args: all,
            },
            origin: "scopes:4",
        }]),
        callbacks: leak(vec![CallbackDef {
            name: "place",
            params: leak((0..n as u16).collect()),
        }]),
        clauses_by_choice: leak(vec![
            leak(vec![
                ClauseRef {
                    constraint: 0,
                    literal: 0,
                },
                ClauseRef {
                    constraint: 1,
                    literal: 0,
                },
            ]),
            &[],
        ]),
        counters_by_choice: leak(vec![leak(vec![1]), &[]]),
        default_priority: &[0],
    }))
}

/// Random descents from the root of `model`'s space on a random backbone
/// of `size` objects per set: every leaf obeys the constraints.
fn descend(model: &'static Model, size: u32) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for seed in 0..3 {
        let root = match Candidate::new(RandomBackbone::new(model, seed, size)) {
            Ok(root) => root,
            Err(CandidateError::DeadEnd(_)) => continue,
            Err(error) => panic!("{}: {error}", model.name),
        };
        for _ in 0..5 {
            if let Descent::Leaf { leaf, .. } =
                random_descent(&root, model.default_priority, &mut rng)
            {
                assert!(
                    leaf.check().is_ok(),
                    "{}: a leaf breaks a constraint",
                    model.name
                );
            }
        }
    }
}

#[test]
fn sixteen_variables_in_every_scope_lay_out_and_descend() {
    assert_eq!(MAX_VARS, 16);
    // One object per set: one binding per scope, which reaches the 16th
    // variable (two objects would give 2^16 bindings, far too slow here).
    descend(scopes_of(MAX_VARS), 1);
}

#[test]
fn seventeen_variables_are_an_error_not_a_panic() {
    match Candidate::new(RandomBackbone::new(scopes_of(MAX_VARS + 1), 0, 1)) {
        Err(CandidateError::Layout(LayoutError::Unsupported(message))) => {
            assert!(message.contains("17 variables"), "{message}");
            assert!(message.contains("`MAX_VARS` (16)"), "{message}");
        }
        Err(other) => panic!("expected a layout error, got {other}"),
        Ok(_) => panic!("expected a layout error, got a candidate"),
    }
}

/// An enum choice of `values` values, an integer choice over `1..=values`,
/// and one constraint of `conditions` conditions over both.
fn domains_of(values: usize, conditions: usize) -> &'static Model {
    let names: Vec<&'static str> = (1..=values).map(|i| name(format!("U{i}"))).collect();
    let instance = |choice| InstanceRef { choice, args: &[] };
    let literals: Vec<Literal> = (0..conditions)
        .map(|i| match i % 2 {
            0 => Literal::Is {
                instance: instance(0),
                values: 1 << (i / 2 % values),
            },
            _ => Literal::Compare {
                lhs: Term::Choice(instance(1)),
                op: CompareOp::Eq,
                rhs: Term::Const((i / 2 % values) as i64 + 1),
            },
        })
        .collect();
    let clauses = |parity: usize| {
        leak(
            (0..conditions)
                .filter(|i| i % 2 == parity)
                .map(|i| ClauseRef {
                    constraint: 0,
                    literal: i as u8,
                })
                .collect(),
        )
    };
    Box::leak(Box::new(Model {
        name: "domains",
        sets: &[],
        properties: &[],
        choices: leak(vec![
            ChoiceDef {
                name: "unroll",
                params: &[],
                kind: ChoiceKind::Enum {
                    values: leak(names),
                },
                symmetry: Symmetry::None,
                origin: "domains:1",
            },
            ChoiceDef {
                name: "tile",
                params: &[],
                kind: ChoiceKind::Integer {
                    universe: Universe::List(leak((1..=values as i64).collect())),
                },
                symmetry: Symmetry::None,
                origin: "domains:2",
            },
        ]),
        constraints: leak(vec![ConstraintDef {
            vars: &[],
            literals: leak(literals),
            origin: "domains:3",
            description: "require unroll() is U1 || tile() == 1 || ...",
        }]),
        triggers: &[],
        callbacks: &[],
        clauses_by_choice: leak(vec![clauses(0), clauses(1)]),
        counters_by_choice: &[&[], &[]],
        default_priority: &[0, 1],
    }))
}

#[test]
fn sixty_four_values_and_256_conditions_lay_out_and_descend() {
    assert_eq!((MAX_VALUES, MAX_CONDITIONS), (64, 256));
    descend(domains_of(MAX_VALUES, MAX_CONDITIONS), 1);
}

#[test]
fn more_values_or_conditions_are_an_error_not_a_panic() {
    for (model, limit) in [
        (domains_of(MAX_VALUES + 1, 2), "`MAX_VALUES` (64)"),
        (
            domains_of(MAX_VALUES, MAX_CONDITIONS + 1),
            "`MAX_CONDITIONS` (256)",
        ),
    ] {
        match Candidate::new(RandomBackbone::new(model, 0, 1)) {
            Err(CandidateError::Layout(LayoutError::Unsupported(message))) => {
                assert!(message.contains(limit), "{message}");
            }
            Err(other) => panic!("expected a layout error, got {other}"),
            Ok(_) => panic!("expected a layout error, got a candidate"),
        }
    }
}
