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
    // One leaf at a time, and batches of four proposed before any of them
    // is evaluated (as `commute tune` builds them ahead).
    for batch in [1, 4] {
        kill_and_resume(batch);
    }
}

fn kill_and_resume(batch: usize) {
    use rand::Rng;
    let root = ordering_root(5);
    let target = hidden(&root, 8);
    let dir = std::env::temp_dir().join(format!("commute-resume-{}-{batch}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let header = Header::new("listing07_ordering", "mcts", 6, serde_json::Value::Null);
    let budget = 80;
    let run = |path: &std::path::Path, resume: bool| {
        let mut cost = mismatches(&target);
        if resume {
            let (_, recorded, mut journal) = Journal::open_for_resume(path).expect("resume");
            let harness = Harness::new(&mut cost, &config(6, budget))
                .with_batch(batch)
                .with_journal(&mut journal)
                .with_replay(Replay::new(recorded));
            mcts(&root, harness, &NoBound, &MctsConfig::default());
        } else {
            let mut journal = Journal::create(path, &header).expect("journal");
            mcts(
                &root,
                Harness::new(&mut cost, &config(6, budget))
                    .with_batch(batch)
                    .with_journal(&mut journal),
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
            "batch {batch}, attempt {attempt}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A cost function, boxed.
type Cost<'t, B> = Box<dyn FnMut(&Candidate<B>) -> Outcome + 't>;

/// Records the batches a search hands over before evaluating them.
struct Batches<'t, B: Backbone> {
    cost: Cost<'t, B>,
    /// Each batch's leaves, by decision vector.
    prepared: Vec<Vec<Vec<u64>>>,
    /// Every evaluated leaf, by decision vector.
    evaluated: Vec<Vec<u64>>,
}

impl<B: Backbone> Evaluator<B> for Batches<'_, B> {
    fn evaluate(&mut self, leaf: &Candidate<B>) -> Outcome {
        self.evaluated.push(leaf.decisions().words);
        (self.cost)(leaf)
    }

    fn prepare(&mut self, leaves: &[&Candidate<B>]) {
        self.prepared
            .push(leaves.iter().map(|l| l.decisions().words).collect());
    }
}

#[test]
fn searches_hand_over_batches_of_distinct_leaves_and_evaluate_them_in_order() {
    let root = ordering_root(5);
    let target = hidden(&root, 3);
    type Chain = ordering::Backbone<ordering::Chain>;
    type Search<'a> = Box<dyn Fn(Harness<'_, Chain>) -> SearchResult<Chain> + 'a>;
    let searches: Vec<(&str, Search)> = vec![
        (
            "mcts",
            Box::new(|h| mcts(&root, h, &NoBound, &MctsConfig::default())),
        ),
        ("random", Box::new(|h| run_random(&root, h))),
        ("greedy", Box::new(|h| run_greedy(&root, h, &NoBound, true))),
        (
            "exhaustive",
            Box::new(|h| run_exhaustive(&root, h, &NoBound)),
        ),
    ];
    for (name, search) in searches {
        let mut evaluator = Batches {
            cost: Box::new(mismatches(&target)),
            prepared: Vec::new(),
            evaluated: Vec::new(),
        };
        let result = search(Harness::new(&mut evaluator, &config(2, 150)).with_batch(4));
        assert_eq!(result.evaluations.len(), 150, "{name}");
        let prepared: Vec<Vec<u64>> = evaluator.prepared.concat();
        assert!(
            evaluator
                .prepared
                .iter()
                .all(|b| !b.is_empty() && b.len() <= 4),
            "{name}: {:?}",
            evaluator.prepared.iter().map(Vec::len).collect::<Vec<_>>()
        );
        assert!(
            evaluator.prepared.iter().filter(|b| b.len() > 1).count() * 2
                > evaluator.prepared.len(),
            "{name}: mostly real batches"
        );
        // What was handed over is what was evaluated, in order.
        assert_eq!(prepared, evaluator.evaluated, "{name}");
        if name == "mcts" {
            for batch in &evaluator.prepared {
                let mut distinct = batch.clone();
                distinct.sort();
                distinct.dedup();
                assert_eq!(
                    distinct.len(),
                    batch.len(),
                    "{name}: a leaf twice in a batch"
                );
            }
        }
    }
    // The same seed and batch size give the same candidates.
    let run = |batch| {
        let mut cost = mismatches(&target);
        let result = mcts(
            &root,
            Harness::new(&mut cost, &config(4, 60)).with_batch(batch),
            &NoBound,
            &MctsConfig::default(),
        );
        result.evaluations.iter().map(essence).collect::<Vec<_>>()
    };
    assert_eq!(run(4), run(4));
    assert_ne!(run(4), run(1));
}

#[test]
fn the_best_measured_again_takes_its_new_value_both_ways() {
    let root = ordering_root(4);
    // Values given in order; with each, the value the evaluator reports
    // for the best leaf so far when it measured it again.
    let script = [
        (5.0, None),
        (4.0, Some(6.0)), // The best was lucky: 6, and the challenger wins.
        (5.5, None),
        (4.5, Some(3.0)), // The best was unlucky: 3, and it stays the best.
    ];
    let mut best: Option<(f64, Vec<u64>)> = None;
    let mut step = 0;
    let mut evaluator = |leaf: &Candidate<ordering::Backbone<ordering::Chain>>| {
        let (value, again) = script[step];
        step += 1;
        let mut outcome = Outcome::ok(value);
        if let (Some(again), Some((_, words))) = (again, &best) {
            outcome.incumbent = Some(Remeasured {
                leaf: words.clone(),
                value: again,
            });
        }
        let incumbent = match (&best, again) {
            (Some((_, _)), Some(again)) => again,
            (Some((v, _)), None) => *v,
            (None, _) => f64::INFINITY,
        };
        if value < incumbent {
            best = Some((value, leaf.decisions().words));
        } else if let (Some(b), Some(again)) = (best.as_mut(), again) {
            b.0 = again;
        }
        outcome
    };
    let result = run_random(
        &root,
        Harness::new(&mut evaluator, &config(1, script.len())),
    );
    let revisions: Vec<Option<Revision>> = result.evaluations.iter().map(|e| e.incumbent).collect();
    assert_eq!(
        revisions,
        [
            None,
            Some(Revision {
                index: 0,
                value: 6.0
            }),
            None,
            Some(Revision {
                index: 1,
                value: 3.0
            })
        ]
    );
    assert_eq!(result.best_value(), Some(3.0));
    let summary = commute_runtime::search::journal::summarize(&result.evaluations);
    assert_eq!(
        (summary.best_value, summary.best_index),
        (Some(3.0), Some(1))
    );
    let curve: Vec<f64> = summary.best_so_far.iter().map(|p| p.1).collect();
    assert_eq!(curve, [5.0, 4.0, 4.0, 3.0]);
}

#[test]
fn an_interrupted_evaluation_is_not_journaled_and_a_resume_runs_it_again() {
    let root = ordering_root(5);
    let target = hidden(&root, 8);
    let dir = std::env::temp_dir().join(format!("commute-interrupted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("journal.jsonl");
    let header = Header::new("listing07_ordering", "random", 3, serde_json::Value::Null);
    // The third leaf's evaluation is stopped from outside (as by the end
    // of a time budget).
    let mut count = 0;
    let mut cost = mismatches(&target);
    let mut interrupting = |leaf: &Candidate<_>| {
        count += 1;
        let outcome = cost(leaf);
        if count == 3 {
            Outcome::flagged(0.5, Flag::TimedOut, "stopped").interrupted()
        } else {
            outcome
        }
    };
    let mut journal = Journal::create(&path, &header).expect("journal");
    let first = run_random(
        &root,
        Harness::new(&mut interrupting, &config(3, 6)).with_journal(&mut journal),
    );
    drop(journal);
    let interrupted = first.evaluations[2].path.clone();
    let (_, recorded, mut journal) = Journal::open_for_resume(&path).expect("resume");
    assert_eq!(
        recorded.len(),
        5,
        "every evaluation but the interrupted one"
    );
    assert!(recorded.iter().all(|e| e.path != interrupted));

    // Resumed, the search evaluates that leaf (and only that one) again.
    let mut evaluated = Vec::new();
    let mut cost = mismatches(&target);
    let mut recording = |leaf: &Candidate<_>| {
        evaluated.push(leaf.decisions().words);
        cost(leaf)
    };
    let resumed = run_random(
        &root,
        Harness::new(&mut recording, &config(3, 6))
            .with_journal(&mut journal)
            .with_replay(Replay::new(recorded)),
    );
    drop(journal);
    assert_eq!(evaluated.len(), 1);
    assert_eq!(resumed.evaluations[2].path, interrupted);
    assert_eq!(resumed.evaluations[2].flag, None);
    let _ = std::fs::remove_dir_all(&dir);
}
