//! Evaluations needed to reach the optimum, MCTS against random search,
//! over 20 seeds, on spaces with known optima: a product of choices whose
//! cost counts mismatches against a hidden assignment, and the ordering
//! space whose cost counts instances that differ from a hidden leaf.
//! Run with `cargo bench --bench search`; it prints a table.

use commute_runtime::descent::{random_descent, Descent};
use commute_runtime::search::*;
use commute_runtime::{Backbone, Candidate};
use commute_spaces::corpus::product;
use commute_spaces::paper::ordering;
use rand::SeedableRng;

const SEEDS: u64 = 20;
const CAP: usize = 20_000;

fn hidden<B: Backbone>(root: &Candidate<B>, seed: u64) -> Candidate<B> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    loop {
        if let Descent::Leaf { leaf, .. } = random_descent(root, &[], &mut rng) {
            return leaf;
        }
    }
}

/// Evaluations until the first leaf of value 0 (CAP if never).
fn to_optimum<B: Backbone>(root: &Candidate<B>, seed: u64, search: &str) -> usize {
    let target = hidden(root, 1000 + seed);
    let instances = target.instances(&[]);
    let mut cost = |leaf: &Candidate<B>| {
        Outcome::ok(
            instances
                .iter()
                .filter(|i| leaf.domain(i) != target.domain(i))
                .count() as f64,
        )
    };
    let config = SearchConfig {
        seed,
        budget: Budget::evaluations(CAP),
        priority: Vec::new(),
    };
    let result = match search {
        "random" => random_search(root, &mut cost, &config),
        "mcts-tag" => mcts(
            root,
            Harness::new(&mut cost, &config),
            &NoBound,
            &MctsConfig::default(),
        ),
        _ => mcts(
            root,
            Harness::new(&mut cost, &config),
            &NoBound,
            &MctsConfig {
                tree: TreePolicy::Uct { exploration: 0.5 },
                ..MctsConfig::default()
            },
        ),
    };
    result
        .evaluations
        .iter()
        .position(|e| e.value == Some(0.0))
        .map_or(CAP, |i| i + 1)
}

fn median(mut values: Vec<usize>) -> f64 {
    values.sort_unstable();
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2] as f64
    } else {
        (values[n / 2 - 1] + values[n / 2]) as f64 / 2.0
    }
}

fn compare<B: Backbone>(name: &str, root: &Candidate<B>) {
    let mut medians = Vec::new();
    for search in ["random", "mcts-tag", "mcts-uct"] {
        let counts: Vec<usize> = (0..SEEDS)
            .map(|seed| to_optimum(root, seed, search))
            .collect();
        let m = median(counts.clone());
        println!("{name:<24} {search:<9} median {m:>8.1}  per seed {counts:?}");
        medians.push(m);
    }
    println!(
        "{name:<24} random / mcts-tag = {:.2}, random / mcts-uct = {:.2}",
        medians[0] / medians[1],
        medians[0] / medians[2]
    );
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: keep it quick.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    compare(
        "product, 6 items x 4",
        &Candidate::new(product::Backbone(product::Items(6))).expect("non-empty"),
    );
    compare(
        "ordering, 5 statements",
        &Candidate::new(ordering::Backbone(ordering::Chain(5))).expect("non-empty"),
    );
}
