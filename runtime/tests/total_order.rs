//! The engine on a hand-written model: a total order of n statements,
//! `order(a, b)` BEFORE/AFTER, antisymmetric and transitive, plus a counter
//! bounding how many statements come before statement 0 (the one the
//! `watched` property marks).

use commute_runtime::explore::{brute_force, enumerate};
use commute_runtime::model::*;
use commute_runtime::{Action, Backbone, Candidate, InstanceId, ObjectId};

const BEFORE: u64 = 1;
const AFTER: u64 = 2;

static MODEL: Model = Model {
    name: "total_order",
    sets: &[SetDef { name: "S", params: &[], superset: None, quotient: None }],
    properties: &[
        PropertyDef { name: "limit", params: &[], ty: PropertyType::Int, derived: None },
        PropertyDef { name: "watched", params: &[0], ty: PropertyType::Bool, derived: None },
    ],
    choices: &[
        ChoiceDef {
            name: "order",
            params: &[VarDef { name: "a", set: 0, args: &[] }, VarDef { name: "b", set: 0, args: &[] }],
            kind: ChoiceKind::Enum { values: &["BEFORE", "AFTER"] },
            symmetry: Symmetry::Antisymmetric { inverse: &[1, 0] },
            origin: "test:1",
        },
        // before(b) = number of statements a with order(a, b) is BEFORE.
        ChoiceDef {
            name: "before",
            params: &[VarDef { name: "b", set: 0, args: &[] }],
            kind: ChoiceKind::Counter(CounterDef {
                op: CounterOp::Sum,
                half: false,
                vars: &[VarDef { name: "b", set: 0, args: &[] }, VarDef { name: "a", set: 0, args: &[] }],
                increment: Term::Const(1),
                condition: &[Literal::Is { instance: InstanceRef { choice: 0, args: &[1, 0] }, values: BEFORE }],
                base: None,
            }),
            symmetry: Symmetry::None,
            origin: "test:2",
        },
    ],
    constraints: &[
        ConstraintDef {
            vars: &[VarDef { name: "a", set: 0, args: &[] }, VarDef { name: "b", set: 0, args: &[] }, VarDef { name: "c", set: 0, args: &[] }],
            literals: &[
                Literal::Is { instance: InstanceRef { choice: 0, args: &[0, 2] }, values: BEFORE },
                Literal::Is { instance: InstanceRef { choice: 0, args: &[0, 1] }, values: AFTER },
                Literal::Is { instance: InstanceRef { choice: 0, args: &[1, 2] }, values: AFTER },
            ],
            origin: "test:3",
            description: "order($a, $c) is BEFORE || order($a, $b) is not BEFORE || order($b, $c) is not BEFORE",
        },
        ConstraintDef {
            vars: &[VarDef { name: "b", set: 0, args: &[] }],
            literals: &[
                Literal::Property { property: 1, args: &[0], negated: true },
                Literal::Compare {
                    lhs: Term::Choice(InstanceRef { choice: 1, args: &[0] }),
                    op: CompareOp::Le,
                    rhs: Term::Property { property: 0, args: &[] },
                },
            ],
            origin: "test:4",
            description: "!watched($b) || before($b) <= limit()",
        },
    ],
    triggers: &[],
    callbacks: &[],
    clauses_by_choice: &[
        &[ClauseRef { constraint: 0, literal: 0 }, ClauseRef { constraint: 0, literal: 1 }, ClauseRef { constraint: 0, literal: 2 }],
        &[ClauseRef { constraint: 1, literal: 1 }],
    ],
    counters_by_choice: &[&[1], &[]],
    default_priority: &[0],
};

#[derive(Clone)]
struct Statements {
    count: u32,
    limit: i64,
}

impl Backbone for Statements {
    fn model(&self) -> &'static Model {
        &MODEL
    }
    fn objects(&self, _set: u16, _args: &[ObjectId]) -> Vec<ObjectId> {
        (0..self.count).collect()
    }
    fn bool_property(&self, _: u16, args: &[ObjectId]) -> bool {
        args == [0]
    }
    fn int_property(&self, _: u16, _: &[ObjectId]) -> i64 {
        self.limit
    }
    fn list_property(&self, _: u16, _: &[ObjectId]) -> Vec<i64> {
        Vec::new()
    }
    fn callback(&mut self, _: u16, _: &[ObjectId]) -> commute_runtime::Outcome {
        commute_runtime::Outcome::done()
    }
}

fn factorial(n: u32) -> usize {
    (1..=n as usize).product()
}

#[test]
fn leaves_are_the_total_orders() {
    for n in 1..=5 {
        let root = Candidate::new(Statements {
            count: n,
            limit: 100,
        })
        .expect("non-empty space");
        let all = enumerate(&root, &[], usize::MAX);
        assert_eq!(all.leaves.len(), factorial(n), "n = {n}");
        for leaf in &all.leaves {
            assert!(leaf.is_complete());
            leaf.check().expect("a leaf satisfies every constraint");
        }
    }
}

#[test]
fn leaves_equal_brute_force_with_a_counter_bound() {
    for (n, limit) in [(3, 1), (4, 2), (4, 0), (3, 5)] {
        let backbone = Statements { count: n, limit };
        let root = Candidate::new(backbone.clone()).expect("non-empty space");
        let instances = root.instances(&[]);
        let mut leaves: Vec<Vec<u64>> = enumerate(&root, &[], usize::MAX)
            .leaves
            .iter()
            .map(|l| l.raw_masks(&instances))
            .collect();
        let mut expected = brute_force(backbone, 1 << 20).expect("small space");
        leaves.sort();
        expected.sort();
        assert_eq!(leaves, expected, "n = {n}, limit = {limit}");
        // Statement 0 has at most `limit` predecessors: (limit + 1) * (n - 1)! orders.
        assert_eq!(
            expected.len(),
            (limit.min(n as i64 - 1) as usize + 1) * factorial(n - 1)
        );
    }
}

#[test]
fn propagation_applies_transitivity_and_antisymmetry() {
    let mut candidate = Candidate::new(Statements {
        count: 3,
        limit: 100,
    })
    .expect("non-empty");
    candidate
        .apply(&Action {
            choice: 0,
            objects: vec![0, 1],
            values: BEFORE,
        })
        .expect("fine");
    candidate
        .apply(&Action {
            choice: 0,
            objects: vec![1, 2],
            values: BEFORE,
        })
        .expect("fine");
    let read = |c: &Candidate<Statements>, a, b| {
        c.domain(&InstanceId {
            choice: 0,
            objects: vec![a, b],
        })
    };
    assert_eq!(
        read(&candidate, 0, 2),
        Some(commute_runtime::Domain::Enum(BEFORE))
    );
    assert_eq!(
        read(&candidate, 2, 0),
        Some(commute_runtime::Domain::Enum(AFTER))
    );
    assert!(candidate.is_complete());
    let dead = candidate
        .clone()
        .apply(&Action {
            choice: 0,
            objects: vec![2, 0],
            values: BEFORE,
        })
        .expect_err("contradiction");
    assert!(dead.message.contains("no value left"), "{dead}");
}

#[test]
fn a_counter_bound_forces_increments() {
    // At most one statement before statement 0: once 1 is before 0, 2 is after.
    let mut candidate = Candidate::new(Statements { count: 3, limit: 1 }).expect("non-empty");
    candidate
        .apply(&Action {
            choice: 0,
            objects: vec![1, 0],
            values: BEFORE,
        })
        .expect("fine");
    let domain = candidate.domain(&InstanceId {
        choice: 0,
        objects: vec![2, 0],
    });
    assert_eq!(domain, Some(commute_runtime::Domain::Enum(AFTER)));
}

#[test]
fn an_empty_space_is_reported() {
    // Three statements and at most -1 predecessors: impossible.
    let error = Candidate::new(Statements {
        count: 3,
        limit: -1,
    })
    .err()
    .expect("empty");
    assert!(error.to_string().contains("empty"), "{error}");
}
