//! Triggers that call the host: new objects bring new choice instances,
//! which are initialized and propagated; each trigger instance fires once;
//! a sibling candidate does not see objects added below another; a
//! callback may refuse the candidate or decide choices, whatever the order
//! of the decisions that fired it.

use commute_runtime::explore::enumerate;
use commute_runtime::{Action, Candidate, Domain, InstanceId, Outcome};
use commute_spaces::corpus::triggers::*;

/// Blocks `0..n`; each `add_copy` appends a copy, refuses the blocks of
/// `refused`, and decides the new copy's kind when `kind` is set; with
/// `claims_unchanged`, it says it changed nothing all the same.
#[derive(Clone, Debug, Default)]
struct Kernel {
    blocks: u32,
    copies: Vec<BlocksId>,
    refused: Vec<BlocksId>,
    kind: Option<u64>,
    claims_unchanged: bool,
}

impl Host for Kernel {
    fn blocks(&self) -> Vec<BlocksId> {
        (0..self.blocks).map(BlocksId).collect()
    }
    fn copies(&self) -> Vec<CopiesId> {
        (0..self.copies.len() as u32).map(CopiesId).collect()
    }
    fn add_copy(&mut self, b: BlocksId) -> Outcome {
        if self.refused.contains(&b) {
            return Outcome::refuse(format!("block {} cannot be staged", b.0));
        }
        self.copies.push(b);
        if self.claims_unchanged {
            return Outcome::unchanged();
        }
        match self.kind {
            Some(values) => Outcome::done().decide(Action {
                choice: copy_kind::CHOICE,
                objects: vec![self.copies.len() as u32 - 1],
                values,
            }),
            None => Outcome::done(),
        }
    }
}

fn root(blocks: u32) -> Candidate<Backbone<Kernel>> {
    with_host(Kernel {
        blocks,
        ..Kernel::default()
    })
}

fn with_host(kernel: Kernel) -> Candidate<Backbone<Kernel>> {
    Candidate::new(Backbone(kernel)).expect("non-empty space")
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

#[test]
fn a_refusal_is_a_dead_end_naming_the_callback() {
    let start = with_host(Kernel {
        blocks: 3,
        refused: vec![BlocksId(1)],
        ..Kernel::default()
    });
    let dead_end = start.clone().apply(&local(1)).expect_err("refused");
    assert!(
        dead_end.message.contains(
            "trigger callback add_copy[1] refused the candidate: block 1 cannot be staged"
        ),
        "{dead_end}"
    );
    let mut other = start.clone();
    other.apply(&local(0)).expect("block 0 is not refused");
    assert_eq!(other.backbone().0.copies, vec![BlocksId(0)]);
}

#[test]
fn a_callback_decides_the_kind_of_the_copy_it_adds() {
    let mut candidate = with_host(Kernel {
        blocks: 3,
        kind: Some(copy_kind::ASYNC),
        ..Kernel::default()
    });
    candidate.apply(&local(0)).expect("fine");
    assert_eq!(
        copy_kind_of(&candidate, 0),
        Some(Domain::Enum(copy_kind::ASYNC))
    );
    // A second asynchronous copy breaks `async_copies() <= 1`: the
    // decision's dead end says which callback took it.
    let dead_end = candidate.apply(&local(2)).expect_err("two async copies");
    assert!(
        dead_end
            .message
            .starts_with("trigger callback add_copy[2] decided copy_kind(1)"),
        "{dead_end}"
    );
}

/// The leaves of a space whose callbacks refuse and decide are the same
/// whichever decisions come first: the callbacks' answers commute with
/// the decisions.
#[test]
fn refusals_and_decisions_commute_with_the_order_of_decisions() {
    for kernel in [
        Kernel {
            blocks: 3,
            refused: vec![BlocksId(2)],
            ..Kernel::default()
        },
        Kernel {
            blocks: 3,
            kind: Some(copy_kind::SYNC),
            ..Kernel::default()
        },
        Kernel {
            blocks: 3,
            refused: vec![BlocksId(0)],
            kind: Some(copy_kind::ASYNC),
            ..Kernel::default()
        },
    ] {
        let start = with_host(kernel.clone());
        let forward: Vec<u16> = MODEL.default_priority.to_vec();
        let backward: Vec<u16> = forward.iter().rev().copied().collect();
        let leaves = |priority: &[u16]| {
            let found = enumerate(&start, priority, usize::MAX);
            let mut placements: Vec<Vec<Option<Domain>>> = found
                .leaves
                .iter()
                .map(|leaf| {
                    leaf.check().expect("valid leaf");
                    (0..3)
                        .map(|b| {
                            leaf.domain(&InstanceId {
                                choice: placement::CHOICE,
                                objects: vec![b],
                            })
                        })
                        .chain((0..3).map(|c| copy_kind_of(leaf, c)))
                        .collect()
                })
                .collect();
            placements.sort_by_key(|p| format!("{p:?}"));
            placements
        };
        let (first, second) = (leaves(&forward), leaves(&backward));
        assert_eq!(first, second, "{kernel:?}");
        // No leaf stages a refused block, and every copy has the kind decided.
        for leaf in &first {
            for refused in &kernel.refused {
                assert_eq!(
                    leaf[refused.0 as usize],
                    Some(Domain::Enum(placement::GLOBAL))
                );
            }
            if let Some(kind) = kernel.kind {
                for copy in leaf[3..].iter().flatten() {
                    assert_eq!(copy, &Domain::Enum(kind));
                }
            }
        }
        assert!(!first.is_empty(), "{kernel:?}");
    }
}

/// `Outcome::unchanged` lets the engine keep the layout without reading
/// the host again; debug builds read it all the same, and a callback that
/// changed the host is caught there rather than propagating stale tables.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "answered Outcome::unchanged() but changed the host")]
fn a_callback_that_claims_no_change_but_added_an_object_is_caught() {
    let mut candidate = with_host(Kernel {
        blocks: 2,
        claims_unchanged: true,
        ..Kernel::default()
    });
    let _ = candidate.apply(&local(0));
}

/// Tasks `0..n`, task 0 the lead; counts the notes it gets.
#[derive(Clone, Debug)]
struct Tasks {
    tasks: u32,
    notes: u32,
}

impl commute_spaces::corpus::trigger_on_counter::Host for Tasks {
    fn tasks(&self) -> Vec<commute_spaces::corpus::trigger_on_counter::TasksId> {
        (0..self.tasks)
            .map(commute_spaces::corpus::trigger_on_counter::TasksId)
            .collect()
    }
    fn lead(&self, t: commute_spaces::corpus::trigger_on_counter::TasksId) -> bool {
        t.0 == 0
    }
    fn note_costly(&mut self, _: commute_spaces::corpus::trigger_on_counter::TasksId) -> Outcome {
        self.notes += 1;
        Outcome::done()
    }
}

/// A decision looks for certain triggers only where it changed a choice
/// their conditions read: a counter that moves is one.
#[test]
fn a_trigger_on_a_counter_fires_when_the_counter_moves() {
    use commute_spaces::corpus::trigger_on_counter::{self as space, kind};
    let mut candidate =
        Candidate::new(space::Backbone(Tasks { tasks: 3, notes: 0 })).expect("non-empty space");
    let costly = |task: u32| Action {
        choice: kind::CHOICE,
        objects: vec![task],
        values: kind::COSTLY,
    };
    candidate.apply(&costly(1)).expect("fine");
    assert_eq!(candidate.backbone().0.notes, 0, "one costly task");
    candidate.apply(&costly(2)).expect("fine");
    assert_eq!(candidate.backbone().0.notes, 1, "two costly tasks");
}
