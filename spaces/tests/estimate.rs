//! Size estimation against exact counts: on spaces small enough for
//! `explore::enumerate`, the 95% intervals of Knuth's estimator and of
//! Chen's heuristic sampling (stratified by depth, and by depth and open
//! instances) contain the number of leaves in the large majority of cases,
//! and the means converge on the ordering space. Run with `--nocapture` to
//! see every case.

use commute_runtime::estimate::{self, Estimate, Method, Options};
use commute_runtime::explore::enumerate;
use commute_runtime::testing::RandomBackbone;
use commute_runtime::{Action, Backbone, Candidate, Model};
use commute_spaces::paper::ordering::{self, order, Chain};
use commute_spaces::{corpus, paper};

/// Leaves `enumerate` may return before a case is too large to count.
const ENUMERATION_LIMIT: usize = 20_000;

/// Probes or runs per estimate in the coverage test.
const SAMPLES: usize = 100;

fn ordering_root(n: u32) -> Candidate<ordering::Backbone<Chain>> {
    Candidate::new(ordering::Backbone(Chain(n))).expect("the ordering space is not empty")
}

/// The three estimates of one case, with the seed of its probes.
fn estimates<B: Backbone>(root: &Candidate<B>, priority: &[u16], seed: u64) -> [Estimate; 3] {
    let options = Options::new(priority, SAMPLES, seed);
    [
        estimate::knuth(root, &options),
        estimate::chen(root, &options),
        estimate::chen_stratified(root, &options, estimate::open_instances(priority)),
    ]
}

const NAMES: [&str; 3] = ["knuth", "chen (depth)", "chen (depth, open)"];

struct Case {
    name: String,
    exact: usize,
    estimates: [Estimate; 3],
}

fn case<B: Backbone>(
    name: String,
    root: &Candidate<B>,
    priority: &[u16],
    seed: u64,
) -> Option<Case> {
    let found = enumerate(root, priority, ENUMERATION_LIMIT);
    if found.truncated {
        return None;
    }
    Some(Case {
        name,
        exact: found.leaves.len(),
        estimates: estimates(root, priority, seed),
    })
}

/// The corpus spaces, on random backbones (not the ordering space, which
/// has its own cases, nor the product space).
fn corpus_models() -> Vec<&'static Model> {
    commute_spaces::models()
        .into_iter()
        .filter(|(name, _)| !["ordering", "product"].contains(name))
        .map(|(_, model)| model)
        .collect()
}

#[test]
fn intervals_contain_the_exact_count_in_most_cases() {
    let mut cases = Vec::new();
    for n in [4, 5] {
        let root = ordering_root(n);
        cases.extend(case(
            format!("ordering Chain({n})"),
            &root,
            paper::ordering::MODEL.default_priority,
            n as u64,
        ));
    }
    for model in corpus_models() {
        for size in [2, 3] {
            for seed in 0..3 {
                let Ok(root) = Candidate::new(RandomBackbone::new(model, seed, size)) else {
                    continue; // No valid implementation for this backbone.
                };
                cases.extend(case(
                    format!("{} size {size} seed {seed}", model.name),
                    &root,
                    model.default_priority,
                    1000 + seed,
                ));
            }
        }
    }
    let mut report = String::new();
    let mut contained = [0usize; 3];
    let mut exact_zero_width = [0usize; 3];
    for case in &cases {
        report.push_str(&format!("{:34} exact {:6}", case.name, case.exact));
        for (i, e) in case.estimates.iter().enumerate() {
            let inside = e.contains(case.exact as f64);
            contained[i] += usize::from(inside);
            exact_zero_width[i] += usize::from(inside && e.width() == 0.0);
            report.push_str(&format!(
                " | {:>9.1} [{:>9.1}, {:>9.1}]{}",
                e.mean,
                e.low,
                e.high,
                if inside { ' ' } else { '!' }
            ));
            report.push_str(&format!(" {:.2}s", e.elapsed.as_secs_f64()));
        }
        report.push('\n');
    }
    for i in 0..3 {
        report.push_str(&format!(
            "{}: {} of {} intervals contain the exact count ({} of them exact, of width 0)\n",
            NAMES[i],
            contained[i],
            cases.len(),
            exact_zero_width[i]
        ));
    }
    println!("{report}");
    assert!(cases.len() >= 40, "only {} cases\n{report}", cases.len());
    for i in 0..3 {
        assert!(
            contained[i] * 10 >= cases.len() * 9,
            "{}: fewer than 90% of the intervals contain the exact count\n{report}",
            NAMES[i]
        );
    }
}

/// The relative error of `estimate` (`samples` probes or runs, seed
/// `seed`) on the ordering space with `n` statements, checked to be under
/// 10% with the exact count inside the interval.
fn converges(n: u32, samples: usize, seed: u64, chen: bool) {
    let root = ordering_root(n);
    let priority = paper::ordering::MODEL.default_priority;
    let exact = enumerate(&root, priority, usize::MAX).leaves.len() as f64;
    let options = Options::new(priority, samples, seed);
    let e = if chen {
        estimate::chen_stratified(&root, &options, estimate::open_instances(priority))
    } else {
        estimate::knuth(&root, &options)
    };
    let error = (e.mean - exact).abs() / exact;
    println!("Chain({n}): exact {exact}, {e:?}, relative error {error:.3}");
    assert!(error < 0.1, "relative error {error} (exact {exact}): {e:?}");
    assert!(e.contains(exact), "{e:?}");
}

/// Knuth's probes on ordering spaces are heavy-tailed: one probe's
/// standard deviation is 2.0 times the count with 4 statements and 5.9
/// times with 5 (computed exactly by `knuth_variance` below), so 10% on
/// Chain(5) takes some 30,000 probes, too many for a debug test; Chain(4)
/// shows the convergence.
#[test]
fn knuth_converges_on_ordering_chain_4() {
    converges(4, 1500, 11, false);
}

/// The exact standard deviation of one Knuth probe relative to the count,
/// by recursion over the tree: a probe below a node with `b` surviving
/// children is `b` times a probe below a uniformly chosen child, so its
/// second moment is `b` times the sum of the children's.
fn knuth_variance<B: Backbone>(node: &Candidate<B>, priority: &[u16]) -> (f64, f64) {
    let Some(instance) = node.next_open(priority) else {
        return (1.0, 1.0);
    };
    let children: Vec<_> = node
        .alternatives(&instance)
        .iter()
        .filter_map(|action| {
            let mut child = node.clone();
            child.apply(action).ok().map(|()| child)
        })
        .collect();
    let (leaves, second) = children
        .iter()
        .map(|c| knuth_variance(c, priority))
        .fold((0.0, 0.0), |(l, s), (cl, cs)| (l + cl, s + cs));
    (leaves, children.len() as f64 * second)
}

#[test]
fn knuth_probes_on_the_ordering_space_are_skewed() {
    let priority = paper::ordering::MODEL.default_priority;
    let relative_sd = |n| {
        let (leaves, second) = knuth_variance(&ordering_root(n), priority);
        (second - leaves * leaves).sqrt() / leaves
    };
    let (three, four) = (relative_sd(3), relative_sd(4));
    println!("relative standard deviation of a probe: Chain(3) {three:.2}, Chain(4) {four:.2}");
    assert!(three > 0.5 && four > 1.5 && four > 2.0 * three);
}

#[test]
fn chen_converges_on_ordering_chain_5() {
    converges(5, 300, 12, true);
}

#[test]
fn a_leaf_root_counts_exactly_one() {
    let mut root = ordering_root(2);
    root.apply(&Action {
        choice: order::CHOICE,
        objects: vec![0, 1],
        values: order::BEFORE,
    })
    .expect("a valid decision");
    assert!(root.is_complete());
    let priority = paper::ordering::MODEL.default_priority;
    for samples in [0, 1, 5] {
        for e in estimates(&root, priority, samples as u64) {
            assert_eq!((e.low, e.mean, e.high), (1.0, 1.0, 1.0), "{e:?}");
            assert_eq!(e.dead_end_rate, 0.0);
            assert_eq!(e.search_dead_end_rate, 0.0);
            assert!(e.samples >= 2, "raised to two samples: {e:?}");
        }
    }
    let single = ordering_root(1);
    let e = estimate::knuth(&single, &Options::new(priority, 0, 0));
    assert_eq!(e.mean, 1.0, "one statement: one (empty) implementation");
}

#[test]
fn a_space_whose_leaves_are_all_dead_ends_estimates_zero() {
    // Integer choices over random lists: some backbones have a valid root
    // whose every descent fails.
    let model = &corpus::integers::MODEL;
    let mut seen = 0;
    for seed in 0..20 {
        let Ok(root) = Candidate::new(RandomBackbone::new(model, seed, 2)) else {
            continue;
        };
        if !enumerate(&root, model.default_priority, 1)
            .leaves
            .is_empty()
        {
            continue;
        }
        seen += 1;
        for e in estimates(&root, model.default_priority, seed) {
            assert_eq!((e.low, e.mean, e.high), (0.0, 0.0, 0.0), "{e:?}");
            assert_eq!(e.dead_end_rate, 1.0, "{e:?}");
            assert_eq!(e.search_dead_end_rate, 1.0, "{e:?}");
        }
    }
    assert!(seen > 0, "no backbone without leaves among the seeds");
}

#[test]
fn the_same_seed_gives_the_same_estimate() {
    let root = ordering_root(3);
    let priority = paper::ordering::MODEL.default_priority;
    let strip = |e: Estimate| (e.method, e.samples, e.mean, e.low, e.high, e.dead_end_rate);
    let a = estimates(&root, priority, 5).map(strip);
    let b = estimates(&root, priority, 5).map(strip);
    let c = estimates(&root, priority, 6).map(strip);
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(a[0].0, Method::Knuth);
    assert_eq!(a[1].0, Method::Chen);
    assert_eq!(a[0].5, a[1].5, "one dead-end rate per seed");
}

#[test]
fn estimates_serialize_to_json() {
    let root = ordering_root(3);
    let priority = paper::ordering::MODEL.default_priority;
    let e = estimate::chen(&root, &Options::new(priority, 10, 1));
    let json: serde_json::Value = serde_json::to_value(&e).expect("serialize");
    assert_eq!(json["method"], "chen");
    assert_eq!(json["samples"], 10);
    for field in [
        "mean",
        "low",
        "high",
        "dead_end_rate",
        "search_dead_end_rate",
        "elapsed",
    ] {
        assert!(json[field].is_number(), "{field}: {json}");
    }
}

#[test]
fn a_time_limit_stops_the_probes_after_two_and_the_estimate_says_so() {
    let root = ordering_root(6);
    let priority = paper::ordering::MODEL.default_priority;
    let limited = Options::new(priority, 1000, 3).with_time_limit(std::time::Duration::ZERO);
    for e in [
        estimate::knuth(&root, &limited),
        estimate::chen(&root, &limited),
    ] {
        assert_eq!(e.samples, 2, "{e:?}");
        assert!(e.mean > 0.0, "{e:?}");
    }
    let unlimited = Options::new(priority, 50, 3);
    let ample = unlimited
        .clone()
        .with_time_limit(std::time::Duration::from_secs(3600));
    assert_eq!(
        estimate::knuth(&root, &unlimited).mean,
        estimate::knuth(&root, &ample).mean,
        "a limit never reached changes nothing"
    );
}

#[test]
fn the_searches_descents_reach_leaves_where_uniform_descents_die() {
    // On these backbones most single values are refuted by propagation,
    // yet another value of the same instance always survives: a descent
    // that tries it (as the searches do) always reaches a leaf.
    let model = &corpus::divisibility::MODEL;
    for seed in [1, 2] {
        let root = Candidate::new(RandomBackbone::new(model, seed, 2)).expect("a valid root");
        let e = estimate::knuth(&root, &Options::new(model.default_priority, 200, seed));
        assert!(e.dead_end_rate > 0.5, "{e:?}");
        assert_eq!(e.search_dead_end_rate, 0.0, "{e:?}");
    }
}
