//! The candidate API on a generated space: priority order of open
//! instances, alternatives, dead ends naming their constraint, and serde
//! round trips of actions and decisions.

use commute_runtime::{Action, Candidate, Decisions, Domain, InstanceId};
use commute_spaces::paper::ordering::{self, order, Backbone, Chain};

fn root(n: u32) -> Candidate<Backbone<Chain>> {
    Candidate::new(Backbone(Chain(n))).expect("the ordering space is not empty")
}

#[test]
fn open_instances_follow_the_priority_and_shrink_with_decisions() {
    let mut candidate = root(4);
    let open = candidate.open_instances(ordering::MODEL.default_priority);
    assert_eq!(
        open.len(),
        6,
        "one stored instance per pair of 4 statements"
    );
    assert!(open.iter().all(|i| i.choice == order::CHOICE));
    let first = open[0].clone();
    assert_eq!(
        candidate.alternatives(&first).len(),
        5,
        "five values before any decision"
    );
    candidate
        .apply(&Action {
            choice: order::CHOICE,
            objects: first.objects.clone(),
            values: order::BEFORE,
        })
        .expect("fine");
    assert!(!candidate.open_instances(&[]).contains(&first));
    assert_eq!(
        candidate.describe(&Action {
            choice: order::CHOICE,
            objects: first.objects,
            values: order::BEFORE
        }),
        "order(0, 1) = BEFORE"
    );
}

#[test]
fn dead_ends_name_the_broken_constraint_or_the_emptied_instance() {
    use commute_runtime::descent::{random_descent, Descent};
    use commute_runtime::testing::RandomBackbone;
    use commute_spaces::corpus;
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let mut named = 0;
    let models = [
        &corpus::counters::MODEL,
        &corpus::enum_requires::MODEL,
        &corpus::integers::MODEL,
        &corpus::quotient::MODEL,
    ];
    for model in models {
        for seed in 0..40 {
            let Ok(root) = Candidate::new(RandomBackbone::new(model, seed, 3)) else {
                continue;
            };
            for _ in 0..20 {
                if let Descent::DeadEnd { dead_end, .. } =
                    random_descent(&root, model.default_priority, &mut rng)
                {
                    assert!(
                        dead_end.constraint.is_some() || dead_end.emptied.is_some(),
                        "{dead_end:?}"
                    );
                    if let Some(constraint) = dead_end.constraint {
                        named += 1;
                        let origin = model.constraints[constraint as usize].origin;
                        assert!(dead_end.message.contains(origin), "{dead_end}");
                    }
                }
            }
        }
    }
    assert!(named > 0, "no dead end came from a constraint");
    // A decision outside the current domain names the instance.
    let mut other = root(3);
    let set = |c: &mut Candidate<Backbone<Chain>>, a: u32, b: u32, v: u64| {
        c.apply(&Action {
            choice: order::CHOICE,
            objects: vec![a, b],
            values: v,
        })
    };
    set(&mut other, 0, 1, order::BEFORE).expect("fine");
    let dead_end = set(&mut other, 0, 1, order::AFTER).expect_err("outside the domain");
    assert_eq!(dead_end.message, "no value left for order(0, 1)");
}

#[test]
fn actions_and_decisions_round_trip_through_json() {
    let mut candidate = root(5);
    let action = Action {
        choice: order::CHOICE,
        objects: vec![3, 1],
        values: order::OUTER,
    };
    let text = serde_json::to_string(&action).expect("serialize");
    let back: Action = serde_json::from_str(&text).expect("deserialize");
    assert_eq!(back, action);
    candidate.apply(&back).expect("fine");

    let saved: Decisions =
        serde_json::from_str(&serde_json::to_string(&candidate.decisions()).expect("serialize"))
            .expect("deserialize");
    let restored = Candidate::from_decisions(Backbone(Chain(5)), &saved).expect("fits");
    let instance = InstanceId {
        choice: order::CHOICE,
        objects: vec![1, 3],
    };
    assert_eq!(
        restored.domain(&instance),
        Some(Domain::Enum(order::INNER)),
        "read from the other side, OUTER is INNER"
    );
    assert_eq!(restored.decisions(), candidate.decisions());
    assert!(
        Candidate::from_decisions(Backbone(Chain(4)), &saved).is_err(),
        "decisions of another backbone do not fit"
    );
}

#[test]
fn backtracking_descents_avoid_dead_ends_plain_ones_hit() {
    use commute_runtime::descent::{random_descent, random_descent_backtracking};
    use commute_runtime::testing::RandomBackbone;
    use commute_spaces::corpus;
    use rand::SeedableRng;
    let (mut plain, mut backtracking) = (0, 0);
    for seed in 0..30 {
        let Ok(root) = Candidate::new(RandomBackbone::new(&corpus::counters::MODEL, seed, 3))
        else {
            continue;
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for _ in 0..20 {
            plain += usize::from(random_descent(&root, &[], &mut rng).is_dead_end());
            let descent = random_descent_backtracking(&root, &[], &mut rng);
            if let commute_runtime::descent::Descent::Leaf { leaf, .. } = &descent {
                leaf.check().expect("valid leaf");
            }
            backtracking += usize::from(descent.is_dead_end());
        }
    }
    assert!(
        backtracking < plain,
        "backtracking {backtracking} dead ends, plain {plain}"
    );
}
