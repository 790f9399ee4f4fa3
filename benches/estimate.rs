//! Size estimation on skewed spaces: the widths of the 95% intervals of
//! Knuth's estimator and of Chen's heuristic sampling at equal numbers of
//! samples (probes or runs), side by side, next to the exact count.
//!
//! The spaces are ones where subtree sizes vary a lot: the paper's
//! ordering space with 6 statements (one Knuth probe's standard deviation
//! is 28 times the count) and two corpus spaces on random backbones. Chen
//! is shown with the default stratifier (depth alone, which keeps one
//! node per level and so behaves much like Knuth) and with depth and the
//! number of open instances, which is the one that narrows the interval.
//! A Chen run expands several nodes per level, so the last column gives
//! Knuth the same time as Chen (depth, open) instead of the same samples.
//!
//! Run with `cargo bench --bench estimate`; `ESTIMATE_SAMPLES` sets the
//! samples (default 1000) and `ESTIMATE_SEEDS` the seeds per space
//! (default 3).

use std::time::Instant;

use commute_runtime::estimate::{self, Estimate, Options};
use commute_runtime::testing::RandomBackbone;
use commute_runtime::{Backbone, Candidate};
use commute_spaces::{corpus, paper};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let samples = env("ESTIMATE_SAMPLES", 1000);
    let seeds = env("ESTIMATE_SEEDS", 3) as u64;
    println!("{samples} probes (Knuth) and {samples} runs (Chen) per estimate; widths are high - low of the 95% interval, '!' marks an interval that misses the exact count\n");
    let ordering = paper::ordering::MODEL.default_priority;
    let root = Candidate::new(paper::ordering::Backbone(paper::ordering::Chain(6)))
        .expect("the ordering space is not empty");
    compare("ordering Chain(6)", &root, ordering, samples, seeds);
    for (model, seed, size) in [
        (&corpus::quotient::MODEL, 0, 3),
        (&corpus::every_construct::MODEL, 2, 3),
    ] {
        let root = Candidate::new(RandomBackbone::new(model, seed, size))
            .expect("a backbone with valid implementations");
        compare(
            &format!("{} (random backbone, size {size}, seed {seed})", model.name),
            &root,
            model.default_priority,
            samples,
            seeds,
        );
    }
    println!(
        "K/C: Knuth's width over Chen's at equal samples. Knuth, equal time: Knuth with as many \
         probes as fit in the time of Chen (depth, open), and its width over Chen's."
    );
}

fn compare<B: Backbone>(
    name: &str,
    root: &Candidate<B>,
    priority: &[u16],
    samples: usize,
    seeds: u64,
) {
    let started = Instant::now();
    let (exact, second) = knuth_moments(root, priority);
    let traversal = started.elapsed().as_secs_f64();
    let sd = (second - exact * exact).max(0.0).sqrt();
    println!(
        "{name}: {exact} leaves (exact, {traversal:.2} s to traverse); one Knuth probe's standard \
         deviation is {:.1} times the count, so Knuth's true interval width at {samples} probes is {:.0}",
        sd / exact,
        2.0 * 1.96 * sd / (samples as f64).sqrt()
    );
    println!(
        "{:>4} | {:>26} {:>8} {:>6} | {:>8} {:>6} | {:>26} {:>8} {:>6} | {:>6} {:>6} | {:>8} {:>6}",
        "seed",
        "Knuth mean [low, high]",
        "width",
        "s",
        "Chen(d)",
        "s",
        "Chen(d,open) [low, high]",
        "width",
        "s",
        "K/C(d)",
        "K/C(do)",
        "K eq.t.",
        "K/C(do)"
    );
    for seed in 1..=seeds {
        let options = Options::new(priority, samples, seed);
        let knuth = estimate::knuth(root, &options);
        let depth = estimate::chen(root, &options);
        let open = estimate::chen_stratified(root, &options, estimate::open_instances(priority));
        // Knuth with Chen (depth, open)'s time: probes scale linearly.
        let probes = (samples as f64 * open.elapsed.as_secs_f64() / knuth.elapsed.as_secs_f64())
            .round() as usize;
        let equal_time = estimate::knuth(root, &Options::new(priority, probes, seed + 1000));
        println!(
            "{:>4} | {:>26} {:>8.0} {:>6.2} | {:>8.0} {:>6.2} | {:>26} {:>8.0} {:>6.2} | {:>6.2} {:>7.2} | {:>8.0} {:>6.2}",
            seed,
            interval(&knuth, exact),
            knuth.width(),
            knuth.elapsed.as_secs_f64(),
            depth.width(),
            depth.elapsed.as_secs_f64(),
            interval(&open, exact),
            open.width(),
            open.elapsed.as_secs_f64(),
            knuth.width() / depth.width(),
            knuth.width() / open.width(),
            equal_time.width(),
            equal_time.width() / open.width(),
        );
    }
    println!();
}

/// The number of leaves below `node` and the second moment of one Knuth
/// probe: a probe below a node with `b` surviving children is `b` times a
/// probe below a uniformly chosen child, so its second moment is `b` times
/// the sum of the children's.
fn knuth_moments<B: Backbone>(node: &Candidate<B>, priority: &[u16]) -> (f64, f64) {
    let Some(instance) = node.next_open(priority) else {
        return (1.0, 1.0);
    };
    let (mut leaves, mut second, mut children) = (0.0, 0.0, 0.0);
    for action in node.alternatives(&instance) {
        let mut child = node.clone();
        if child.apply(&action).is_ok() {
            let (l, s) = knuth_moments(&child, priority);
            leaves += l;
            second += s;
            children += 1.0;
        }
    }
    (leaves, children * second)
}

fn interval(e: &Estimate, exact: f64) -> String {
    format!(
        "{:.0} [{:.0}, {:.0}]{}",
        e.mean,
        e.low,
        e.high,
        if e.contains(exact) { "" } else { "!" }
    )
}
