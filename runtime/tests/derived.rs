//! Derived properties through the whole engine, on a hand-written model:
//! `on($s)` OFF/ON over statements `S`, with
//! `require forall $s in S: !($s in T) || on($s) is OFF` and
//! `require forall $a in S, $b in S: !($a < $b) || on($a) is OFF || on($b) is ON`,
//! the conditions `$s in T` and `$a < $b` being properties the engine
//! computes. The backbone panics if it is asked for them.

use commute_runtime::explore::{brute_force, enumerate};
use commute_runtime::model::*;
use commute_runtime::{Backbone, Candidate, Domain, InstanceId, ObjectId};

const OFF: u64 = 1;
const ON: u64 = 2;

/// Listed out of id order: `<` compares ids, not positions.
const S: &[ObjectId] = &[3, 0, 2, 1];
const T: &[ObjectId] = &[0, 2];

static MODEL: Model = Model {
    name: "derived",
    sets: &[
        SetDef {
            name: "S",
            params: &[],
            superset: None,
            quotient: None,
        },
        SetDef {
            name: "T",
            params: &[],
            superset: Some(0),
            quotient: None,
        },
    ],
    properties: &[
        PropertyDef {
            name: "<",
            params: &[0, 0],
            ty: PropertyType::Bool,
            derived: Some(Derived::Order(CompareOp::Lt)),
        },
        PropertyDef {
            name: "in T",
            params: &[0],
            ty: PropertyType::Bool,
            derived: Some(Derived::Member { set: 1 }),
        },
    ],
    choices: &[ChoiceDef {
        name: "on",
        params: &[VarDef {
            name: "s",
            set: 0,
            args: &[],
        }],
        kind: ChoiceKind::Enum {
            values: &["OFF", "ON"],
        },
        symmetry: Symmetry::None,
        origin: "test:1",
    }],
    constraints: &[
        ConstraintDef {
            vars: &[VarDef {
                name: "s",
                set: 0,
                args: &[],
            }],
            literals: &[
                Literal::Property {
                    property: 1,
                    args: &[0],
                    negated: true,
                },
                Literal::Is {
                    instance: InstanceRef {
                        choice: 0,
                        args: &[0],
                    },
                    values: OFF,
                },
            ],
            origin: "test:2",
            description: "!($s in T) || on($s) is OFF",
        },
        ConstraintDef {
            vars: &[
                VarDef {
                    name: "a",
                    set: 0,
                    args: &[],
                },
                VarDef {
                    name: "b",
                    set: 0,
                    args: &[],
                },
            ],
            literals: &[
                Literal::Property {
                    property: 0,
                    args: &[0, 1],
                    negated: true,
                },
                Literal::Is {
                    instance: InstanceRef {
                        choice: 0,
                        args: &[0],
                    },
                    values: OFF,
                },
                Literal::Is {
                    instance: InstanceRef {
                        choice: 0,
                        args: &[1],
                    },
                    values: ON,
                },
            ],
            origin: "test:3",
            description: "!($a < $b) || on($a) is OFF || on($b) is ON",
        },
    ],
    triggers: &[],
    callbacks: &[],
    clauses_by_choice: &[&[
        ClauseRef {
            constraint: 0,
            literal: 1,
        },
        ClauseRef {
            constraint: 1,
            literal: 1,
        },
        ClauseRef {
            constraint: 1,
            literal: 2,
        },
    ]],
    counters_by_choice: &[&[]],
    default_priority: &[0],
};

/// Answers the sets only: the space has no host property.
#[derive(Clone)]
struct Statements;

impl Backbone for Statements {
    fn model(&self) -> &'static Model {
        &MODEL
    }
    fn objects(&self, set: u16, _: &[ObjectId]) -> Vec<ObjectId> {
        match set {
            0 => S.to_vec(),
            _ => T.to_vec(),
        }
    }
    fn bool_property(&self, property: u16, _: &[ObjectId]) -> bool {
        panic!("the host was asked for the derived property {property}")
    }
    fn int_property(&self, property: u16, _: &[ObjectId]) -> i64 {
        panic!("the host was asked for the int property {property}")
    }
    fn list_property(&self, property: u16, _: &[ObjectId]) -> Vec<i64> {
        panic!("the host was asked for the list property {property}")
    }
    fn callback(&mut self, _: u16, _: &[ObjectId]) -> commute_runtime::Outcome {
        commute_runtime::Outcome::done()
    }
}

fn on(candidate: &Candidate<Statements>, s: ObjectId) -> Option<Domain> {
    candidate.domain(&InstanceId {
        choice: 0,
        objects: vec![s],
    })
}

#[test]
fn the_conditions_hold_on_every_leaf_and_only_there() {
    let root = Candidate::new(Statements).expect("non-empty space");
    // Before any decision: the objects of T are OFF, and 1 is too, since
    // 2 (above it by id) cannot be ON.
    for s in [0, 1, 2] {
        assert_eq!(on(&root, s), Some(Domain::Enum(OFF)), "on({s})");
    }
    // Only 3 is open: nothing is above it.
    assert_eq!(on(&root, 3), Some(Domain::Enum(OFF | ON)));
    let instances = root.instances(&[]);
    let mut leaves: Vec<Vec<u64>> = enumerate(&root, &[], usize::MAX)
        .leaves
        .iter()
        .map(|leaf| {
            leaf.check().expect("a leaf satisfies every constraint");
            leaf.raw_masks(&instances)
        })
        .collect();
    let mut expected = brute_force(Statements, 1 << 10).expect("small space");
    leaves.sort();
    expected.sort();
    assert_eq!(leaves, expected);
    assert_eq!(leaves.len(), 2);
}
