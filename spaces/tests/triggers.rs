//! Triggers that call the host: new objects bring new choice instances,
//! which are initialized and propagated; each trigger instance fires once;
//! a sibling candidate does not see objects added below another.

use commute_runtime::{Action, Candidate, Domain, InstanceId};
use commute_spaces::corpus::triggers::*;

/// Blocks `0..n`; each `add_copy` appends a copy.
#[derive(Clone, Debug)]
struct Kernel {
    blocks: u32,
    copies: Vec<BlocksId>,
}

impl Host for Kernel {
    fn blocks(&self) -> Vec<BlocksId> {
        (0..self.blocks).map(BlocksId).collect()
    }
    fn copies(&self) -> Vec<CopiesId> {
        (0..self.copies.len() as u32).map(CopiesId).collect()
    }
    fn add_copy(&mut self, b: BlocksId) {
        self.copies.push(b);
    }
}

fn root(blocks: u32) -> Candidate<Backbone<Kernel>> {
    Candidate::new(Backbone(Kernel {
        blocks,
        copies: Vec::new(),
    }))
    .expect("non-empty space")
}

fn local(block: u32) -> Action {
    Action {
        choice: placement::CHOICE,
        objects: vec![block],
        values: placement::LOCAL,
    }
}

fn copy_kind_of(candidate: &Candidate<Backbone<Kernel>>, copy: u32) -> Option<Domain> {
    candidate.domain(&InstanceId {
        choice: copy_kind::CHOICE,
        objects: vec![copy],
    })
}

#[test]
fn a_trigger_adds_objects_and_their_instances() {
    let start = root(3);
    assert!(start.backbone().0.copies.is_empty());
    let mut candidate = start.clone();
    candidate.apply(&local(1)).expect("fine");
    assert_eq!(candidate.backbone().0.copies, vec![BlocksId(1)]);
    assert_eq!(
        copy_kind_of(&candidate, 0),
        Some(Domain::Enum(copy_kind::SYNC | copy_kind::ASYNC))
    );
    // The sibling is untouched.
    assert!(start.backbone().0.copies.is_empty());
    assert_eq!(copy_kind_of(&start, 0), None);
}

#[test]
fn new_instances_are_propagated_with_the_old_ones() {
    let mut candidate = root(3);
    candidate.apply(&local(0)).expect("fine");
    candidate
        .apply(&Action {
            choice: copy_kind::CHOICE,
            objects: vec![0],
            values: copy_kind::ASYNC,
        })
        .expect("fine");
    // The second copy appears after the first is ASYNC: the counter bound
    // forces it to SYNC as soon as it exists.
    candidate.apply(&local(2)).expect("fine");
    assert_eq!(
        candidate.backbone().0.copies,
        vec![BlocksId(0), BlocksId(2)]
    );
    assert_eq!(
        copy_kind_of(&candidate, 0),
        Some(Domain::Enum(copy_kind::ASYNC)),
        "old decisions are kept"
    );
    assert_eq!(
        copy_kind_of(&candidate, 1),
        Some(Domain::Enum(copy_kind::SYNC))
    );
}

#[test]
fn each_trigger_instance_fires_once() {
    let mut candidate = root(2);
    candidate.apply(&local(0)).expect("fine");
    // Unrelated decisions after the trigger fired do not fire it again.
    candidate
        .apply(&Action {
            choice: placement::CHOICE,
            objects: vec![1],
            values: placement::GLOBAL,
        })
        .expect("fine");
    candidate
        .apply(&Action {
            choice: copy_kind::CHOICE,
            objects: vec![0],
            values: copy_kind::SYNC,
        })
        .expect("fine");
    assert_eq!(candidate.backbone().0.copies, vec![BlocksId(0)]);
    assert!(candidate.is_complete());
    candidate
        .check()
        .expect("a complete candidate satisfies the space");
}

#[test]
fn descents_reach_valid_leaves() {
    use rand::SeedableRng;
    let start = root(4);
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for _ in 0..50 {
        match commute_runtime::descent::random_descent(&start, MODEL.default_priority, &mut rng) {
            commute_runtime::descent::Descent::Leaf { leaf, .. } => {
                leaf.check().expect("valid leaf");
                let locals = (0..4).filter(|&b| {
                    leaf.domain(&InstanceId {
                        choice: placement::CHOICE,
                        objects: vec![b],
                    }) == Some(Domain::Enum(placement::LOCAL))
                });
                assert_eq!(
                    leaf.backbone().0.copies.len(),
                    locals.count(),
                    "one copy per local block"
                );
            }
            commute_runtime::descent::Descent::DeadEnd { dead_end, .. } => {
                panic!("no dead end expected here: {dead_end}")
            }
        }
    }
}
