//! Searches on synthetic spaces with known optima: a product of choices
//! whose cost counts mismatches against a hidden assignment, and the
//! ordering space whose cost counts the instances that differ from a
//! hidden leaf.

use commute_runtime::descent::{random_descent, Descent};
use commute_runtime::search::journal::{Header, Journal, Replay};
use commute_runtime::search::*;
use commute_runtime::{Backbone, Candidate, Domain};
use commute_spaces::corpus::product;
use commute_spaces::paper::ordering;
use rand::SeedableRng;

/// A leaf's cost: instances whose value differs from `target`'s.
fn mismatches<B: Backbone>(target: &Candidate<B>) -> impl FnMut(&Candidate<B>) -> Outcome + '_ {
    move |leaf| {
        let instances = target.instances(&[]);
        let differ = instances
            .iter()
            .filter(|i| leaf.domain(i) != target.domain(i))
            .count();
        Outcome::ok(differ as f64)
    }
}

/// A hidden leaf, drawn by a seeded random descent.
fn hidden<B: Backbone>(root: &Candidate<B>, seed: u64) -> Candidate<B> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    loop {
        if let Descent::Leaf { leaf, .. } = random_descent(root, &[], &mut rng) {
            return leaf;
        }
    }
}

fn product_root(n: u32) -> Candidate<product::Backbone<product::Items>> {
    Candidate::new(product::Backbone(product::Items(n))).expect("non-empty")
}

fn ordering_root(n: u32) -> Candidate<ordering::Backbone<ordering::Chain>> {
    Candidate::new(ordering::Backbone(ordering::Chain(n))).expect("non-empty")
}

fn config(seed: u64, evaluations: usize) -> SearchConfig {
    SearchConfig {
        seed,
        budget: Budget::evaluations(evaluations),
        priority: Vec::new(),
    }
}

#[test]
fn mcts_reaches_the_optimum_of_a_product_space() {
    let root = product_root(6);
    let target = hidden(&root, 11);
    for tree in [
        TreePolicy::Tag {
            top: 10,
            delta: 0.05,
        },
        TreePolicy::Uct { exploration: 0.5 },
    ] {
        let mut cost = mismatches(&target);
        let mcts_config = MctsConfig {
            tree,
            ..MctsConfig::default()
        };
        let result = mcts(
            &root,
            Harness::new(&mut cost, &config(3, 3000)),
            &NoBound,
            &mcts_config,
        );
        assert_eq!(
            result.best_value(),
            Some(0.0),
            "{tree:?} after {} evaluations ({:?})",
            result.evaluations.len(),
            result.stop
        );
    }
}

#[test]
fn mcts_reaches_the_optimum_of_the_ordering_space() {
    let root = ordering_root(4);
    let target = hidden(&root, 5);
    let mut cost = mismatches(&target);
    let result = mcts(
        &root,
        Harness::new(&mut cost, &config(1, 5000)),
        &NoBound,
        &MctsConfig::default(),
    );
    assert_eq!(
        result.best_value(),
        Some(0.0),
        "after {} evaluations ({:?})",
        result.evaluations.len(),
        result.stop
    );
}

#[test]
fn local_steps_get_closer_than_the_tree_alone() {
    // 16 choices: too many for 120 evaluations of tree search to settle.
    let root = product_root(16);
    let mut totals = [0.0; 2];
    for seed in 0..4 {
        let target = hidden(&root, 20 + seed);
        for (total, local_steps) in totals.iter_mut().zip([0, 25]) {
            let mut cost = mismatches(&target);
            let result = mcts(
                &root,
                Harness::new(&mut cost, &config(seed, 120)),
                &NoBound,
                &MctsConfig {
                    local_steps,
                    ..MctsConfig::default()
                },
            );
            *total += result.best_value().expect("a measured leaf");
        }
    }
    let [tree_alone, with_local_steps] = totals;
    assert!(
        with_local_steps < tree_alone,
        "mismatches summed over 4 seeds: {with_local_steps} with local steps, {tree_alone} without"
    );
}

#[test]
fn exhaustive_search_evaluates_every_leaf_once() {
    let root = ordering_root(4);
    let leaves = commute_runtime::explore::enumerate(&root, &[], usize::MAX)
        .leaves
        .len();
    let target = hidden(&root, 2);
    let mut cost = mismatches(&target);
    let result = exhaustive_search(&root, &mut cost, &NoBound, &config(0, usize::MAX));
    assert_eq!(result.stop, StopReason::Exhausted);
    assert_eq!(result.evaluations.len(), leaves);
    assert_eq!(result.best_value(), Some(0.0));
}

/// On the product space: mismatches already decided, a true lower bound.
struct DecidedMismatches<'t> {
    target: &'t Candidate<product::Backbone<product::Items>>,
}

impl Bound<product::Backbone<product::Items>> for DecidedMismatches<'_> {
    fn bound(&self, candidate: &Candidate<product::Backbone<product::Items>>) -> f64 {
        let instances = candidate.instances(&[]);
        instances
            .iter()
            .filter(|i| match (candidate.domain(i), self.target.domain(i)) {
                (Some(Domain::Enum(mask)), Some(Domain::Enum(target))) => mask & target == 0,
                _ => false,
            })
            .count() as f64
    }
}

#[test]
fn a_bound_is_a_lower_bound_and_prunes() {
    let root = product_root(5);
    let target = hidden(&root, 4);
    let bound = DecidedMismatches { target: &target };
    // A lower bound of every leaf measured below a candidate.
    let mut cost = mismatches(&target);
    let all = exhaustive_search(&root, &mut cost, &NoBound, &config(0, usize::MAX));
    for evaluation in &all.evaluations {
        let mut candidate = root.clone();
        for (depth, action) in evaluation.path.iter().enumerate() {
            assert!(
                bound.bound(&candidate) <= evaluation.value.expect("measured"),
                "at depth {depth}"
            );
            candidate.apply(action).expect("recorded path");
        }
    }
    let mut cost = mismatches(&target);
    let pruned = exhaustive_search(&root, &mut cost, &bound, &config(0, usize::MAX));
    assert_eq!(pruned.best_value(), Some(0.0));
    assert!(
        pruned.evaluations.len() * 10 < all.evaluations.len(),
        "{} of {}",
        pruned.evaluations.len(),
        all.evaluations.len()
    );
    // Greedy on a perfect bound walks straight to the optimum.
    let mut cost = mismatches(&target);
    let greedy = greedy_search(&root, &mut cost, &bound, false, &config(0, 1));
    assert_eq!(greedy.best_value(), Some(0.0));
}

#[test]
fn baselines_find_the_optimum_of_a_small_space() {
    let root = product_root(3);
    let target = hidden(&root, 9);
    let mut cost = mismatches(&target);
    assert_eq!(
        random_search(&root, &mut cost, &config(1, 400)).best_value(),
        Some(0.0)
    );
    let mut cost = mismatches(&target);
    let greedy = greedy_search(&root, &mut cost, &NoBound, true, &config(1, 400));
    assert_eq!(greedy.best_value(), Some(0.0));
}

#[test]
fn the_same_seed_gives_the_same_candidates() {
    let root = ordering_root(5);
    let target = hidden(&root, 3);
    let run = |seed| {
        let mut cost = mismatches(&target);
        let result = mcts(
            &root,
            Harness::new(&mut cost, &config(seed, 60)),
            &NoBound,
            &MctsConfig::default(),
        );
        result
            .evaluations
            .iter()
            .map(|e| (e.path.clone(), e.value))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(4), run(4));
    assert_ne!(run(4), run(5));
}

/// An evaluation without its wall-clock fields.
fn essence(e: &Evaluation) -> (Vec<commute_runtime::Action>, Status, Option<f64>) {
    (e.path.clone(), e.status, e.value)
}

#[test]
fn killing_and_resuming_gives_the_same_journal() {
    use rand::Rng;
    let root = ordering_root(5);
    let target = hidden(&root, 8);
    let dir = std::env::temp_dir().join(format!("commute-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let header = Header::new("listing07_ordering", "mcts", 6, serde_json::Value::Null);
    let budget = 80;
    let run = |path: &std::path::Path, resume: bool| {
        let mut cost = mismatches(&target);
        if resume {
            let (_, recorded, mut journal) = Journal::open_for_resume(path).expect("resume");
            let harness = Harness::new(&mut cost, &config(6, budget))
                .with_journal(&mut journal)
                .with_replay(Replay::new(recorded));
            mcts(&root, harness, &NoBound, &MctsConfig::default());
        } else {
            let mut journal = Journal::create(path, &header).expect("journal");
            mcts(
                &root,
                Harness::new(&mut cost, &config(6, budget)).with_journal(&mut journal),
                &NoBound,
                &MctsConfig::default(),
            );
        }
    };
    let full_path = dir.join("full.jsonl");
    run(&full_path, false);
    let full_text = std::fs::read_to_string(&full_path).expect("journal");
    let full = commute_runtime::search::journal::read_journal(&full_path)
        .expect("read")
        .1;
    assert_eq!(full.len(), budget);
    // A run killed after `done` evaluations left the header and their
    // lines, sometimes the next line cut short. Kill at random points,
    // resume, kill the resumed run later, and so on: the budget is the
    // same throughout, as with `commute tune --resume`.
    let lines: Vec<&str> = full_text.split_inclusive('\n').collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(21);
    for attempt in 0..4 {
        let path = dir.join(format!("resumed-{attempt}.jsonl"));
        let mut done = rng.random_range(1..budget / 2);
        let mut text: String = lines[..=done].concat();
        loop {
            if rng.random_bool(0.5) {
                let next = lines[done + 1];
                text.push_str(&next[..rng.random_range(1..next.len() - 1)]);
            }
            std::fs::write(&path, &text).expect("killed journal");
            run(&path, true);
            done += rng.random_range(1..budget / 2);
            if done >= budget {
                break;
            }
            let resumed = std::fs::read_to_string(&path).expect("journal");
            text = resumed.split_inclusive('\n').take(done + 1).collect();
        }
        let resumed = commute_runtime::search::journal::read_journal(&path)
            .expect("read")
            .1;
        assert_eq!(
            resumed.iter().map(essence).collect::<Vec<_>>(),
            full.iter().map(essence).collect::<Vec<_>>(),
            "attempt {attempt}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
