//! Counters whose sums overflow: the engine saturates them, and a bound on
//! such a counter must still force only the increments it has to. Three
//! loops each of work 2^62 need only two of them to pass a least work of
//! 2^62 + 10, so none is forced; the leaves propagation reaches are the
//! assignments the checker accepts.

use commute_runtime::explore::{brute_force, enumerate};
use commute_runtime::{Candidate, Domain, InstanceId};
use commute_spaces::corpus::counters::*;

const HUGE: i64 = 1 << 62;

#[derive(Clone, Debug)]
struct Loops(u32);

impl Host for Loops {
    fn dims(&self) -> Vec<DimsId> {
        (0..self.0).map(DimsId).collect()
    }
    fn elem_bytes(&self, _: DimsId) -> i64 {
        1
    }
    fn widths(&self) -> Vec<i64> {
        vec![1, 2, 4]
    }
    fn work(&self, _: DimsId) -> i64 {
        HUGE
    }
    fn least_work(&self) -> i64 {
        HUGE + 10
    }
}

#[test]
fn a_bound_on_a_saturated_sum_forces_nothing_it_need_not() {
    let root = Candidate::new(Backbone(Loops(3))).expect("the root propagates");
    // Any one loop may be something else: the other two pass the bound.
    for d in 0..3 {
        let kind = root.domain(&InstanceId {
            choice: kind::CHOICE,
            objects: vec![d],
        });
        assert!(
            matches!(kind, Some(Domain::Enum(mask)) if mask != kind::LOOP),
            "dimension {d} was forced to LOOP: {kind:?}"
        );
    }
    let mut expected = brute_force(Backbone(Loops(3)), 1_000_000).expect("small enough");
    expected.sort();
    let instances = root.instances(&[]);
    let found = enumerate(&root, MODEL.default_priority, usize::MAX);
    let mut leaves: Vec<Vec<u64>> = found
        .leaves
        .iter()
        .map(|leaf| leaf.raw_masks(&instances))
        .collect();
    leaves.sort();
    assert!(!expected.is_empty());
    assert_eq!(leaves, expected);
}
