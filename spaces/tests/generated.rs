//! The generated tables are consistent, and the typed host is reached
//! through the untyped backbone interface.

use commute_runtime::model::{Literal, Model, Term};
use commute_runtime::{Backbone as _, ObjectId};
use commute_spaces::corpus::every_construct as ec;
use commute_spaces::paper::ordering;

/// Every index of the model points into its table.
fn check_indices(model: &Model) {
    let sets = model.sets.len();
    let choices = model.choices.len();
    assert_eq!(model.clauses_by_choice.len(), choices);
    assert_eq!(model.counters_by_choice.len(), choices);
    for set in model.sets {
        assert!(set.params.iter().all(|&s| usize::from(s) < sets));
        assert!(set.superset.is_none_or(|s| usize::from(s) < sets));
        if let Some(quotient) = &set.quotient {
            assert!(usize::from(quotient.flag) < choices);
        }
    }
    for (index, clauses) in model.clauses_by_choice.iter().enumerate() {
        for clause in *clauses {
            let constraint = &model.constraints[usize::from(clause.constraint)];
            let literal = &constraint.literals[usize::from(clause.literal)];
            let reads = |choice: u16| usize::from(choice) == index;
            let term_reads = |term: &Term| matches!(term, Term::Choice(i) if reads(i.choice));
            let read = match literal {
                Literal::Is { instance, .. } => reads(instance.choice),
                Literal::Same { lhs, rhs, .. } => reads(lhs.choice) || reads(rhs.choice),
                Literal::Compare { lhs, rhs, .. } => term_reads(lhs) || term_reads(rhs),
                Literal::Property { .. } => false,
            };
            assert!(read, "clause {clause:?} does not read choice {index}");
        }
    }
    for (index, choice) in model.choices.iter().enumerate() {
        assert_eq!(model.choice_index(choice.name), Some(index as u16));
        assert!(choice.origin.contains(".space:"), "{}", choice.origin);
    }
    for constraint in model.constraints {
        assert!(!constraint.description.is_empty());
        assert!(constraint.vars.iter().all(|v| usize::from(v.set) < sets));
    }
}

#[test]
fn tables_are_consistent() {
    check_indices(&ordering::MODEL);
    check_indices(&ec::MODEL);
    assert_eq!(ordering::MODEL.name, "listing07_ordering");
    assert_eq!(
        ordering::MODEL.choice_index("order"),
        Some(ordering::order::CHOICE)
    );
    assert_eq!(
        ec::MODEL.choice_index("dim_kind"),
        Some(ec::dim_kind::CHOICE)
    );
    assert_eq!(
        ec::dim_kind::SEQUENTIAL,
        ec::dim_kind::LOOP | ec::dim_kind::UNROLL
    );
    assert_eq!(ordering::order::MERGED, 1 << 4);
}

#[derive(Clone)]
struct Kernel {
    statements: u32,
}

impl ordering::Host for Kernel {
    fn statements(&self) -> Vec<ordering::StatementsId> {
        (0..self.statements).map(ordering::StatementsId).collect()
    }
}

#[test]
fn the_backbone_lists_the_host_objects() {
    let backbone = ordering::Backbone(Kernel { statements: 30 });
    assert!(std::ptr::eq(backbone.model(), &ordering::MODEL));
    assert_eq!(backbone.objects(0, &[]), (0..30).collect::<Vec<ObjectId>>());
    // Indices the model does not have get nothing, without a panic.
    assert!(backbone.objects(1, &[]).is_empty());
    assert!(backbone.objects(0, &[7]).is_empty());
    assert!(!backbone.bool_property(0, &[]));
}

#[derive(Clone, Default)]
struct Full {
    copies: Vec<ec::MemBlocksId>,
}

impl ec::Host for Full {
    fn statements(&self) -> Vec<ec::StatementsId> {
        (0..4).map(ec::StatementsId).collect()
    }
    fn insts(&self) -> Vec<ec::StatementsId> {
        vec![ec::StatementsId(0), ec::StatementsId(1)]
    }
    fn dims(&self) -> Vec<ec::StatementsId> {
        vec![ec::StatementsId(2), ec::StatementsId(3)]
    }
    fn arrays(&self) -> Vec<ec::ArraysId> {
        vec![ec::ArraysId(10), ec::ArraysId(11)]
    }
    fn mem_blocks(&self) -> Vec<ec::MemBlocksId> {
        vec![ec::MemBlocksId(5)]
    }
    fn accessed_arrays(&self, inst: ec::StatementsId) -> Vec<ec::ArraysId> {
        vec![ec::ArraysId(10 + inst.0)]
    }
    fn is_vectorizable(&self, i: ec::StatementsId) -> bool {
        i.0 == 1
    }
    fn possible_sizes(&self, d: ec::StatementsId) -> Vec<i64> {
        vec![1, i64::from(d.0)]
    }
    fn max_threads(&self) -> i64 {
        1024
    }
    fn block_size(&self, m: ec::MemBlocksId) -> i64 {
        i64::from(m.0) * 100
    }
    fn local_mem_capacity(&self) -> i64 {
        48 * 1024
    }
    fn possible_sizes_fit(&self, _d: ec::StatementsId) -> bool {
        true
    }
    fn add_copy_to_local(&mut self, m: ec::MemBlocksId) -> commute_runtime::Outcome {
        self.copies.push(m);
        commute_runtime::Outcome::done()
    }
}

#[test]
fn every_construct_dispatches_by_index() {
    let model = &ec::MODEL;
    let set = |name: &str| model.sets.iter().position(|s| s.name == name).unwrap() as u16;
    let property = |name: &str| {
        model
            .properties
            .iter()
            .position(|p| p.name == name)
            .unwrap() as u16
    };
    let mut backbone = ec::Backbone(Full::default());
    assert_eq!(backbone.objects(set("Dims"), &[]), vec![2, 3]);
    assert_eq!(backbone.objects(set("AccessedArrays"), &[1]), vec![11]);
    // The engine keeps quotient sets itself.
    assert!(backbone.objects(set("IterationDims"), &[0]).is_empty());
    assert!(backbone.bool_property(property("is_vectorizable"), &[1]));
    assert!(!backbone.bool_property(property("is_vectorizable"), &[0]));
    assert_eq!(backbone.int_property(property("max_threads"), &[]), 1024);
    assert_eq!(backbone.int_property(property("block_size"), &[5]), 500);
    assert_eq!(
        backbone.list_property(property("possible_sizes"), &[3]),
        vec![1, 3]
    );
    // A property asked with the wrong type or arity gets the default.
    assert_eq!(backbone.int_property(property("is_vectorizable"), &[1]), 0);
    assert!(backbone
        .list_property(property("possible_sizes"), &[])
        .is_empty());
    let done = commute_runtime::Outcome::done();
    assert_eq!(backbone.callback(0, &[5]), done);
    // Wrong arity or index: no call, and nothing more to do.
    assert_eq!(backbone.callback(0, &[]), done);
    assert_eq!(backbone.callback(9, &[5]), done);
    assert_eq!(backbone.0.copies, vec![ec::MemBlocksId(5)]);
}
