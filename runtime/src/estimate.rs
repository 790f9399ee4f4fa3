//! How large is the space below a candidate? Two sampling estimators of
//! its number of leaves, each with a 95% confidence interval, and the
//! dead-end rates of uniform random descents and of the searches'
//! descents.
//!
//! # What is counted
//!
//! The tree is the one [`explore::enumerate`](crate::explore::enumerate)
//! walks: a node is a candidate, its children are the candidates obtained
//! by applying each of [`Candidate::alternatives`] of its
//! [`Candidate::next_open`] instance (in `priority` order) and propagating;
//! children whose propagation fails are dead ends and are not nodes; a leaf
//! is a candidate with no open instance. The estimators estimate the number
//! of leaves, which `enumerate` would return exactly but in time
//! proportional to the tree.
//!
//! # Knuth's estimator
//!
//! Knuth ("Estimating the efficiency of backtrack programs", 1975) descends
//! from the root at random: at each node it tries every alternative, keeps
//! the `b` children that survive propagation, multiplies its running
//! product by `b` and moves to one of them chosen uniformly. When it
//! reaches a leaf the product is one *probe*'s estimate; when every child
//! of a node is a dead end (`b = 0`) the probe's estimate is 0. Every
//! probe is an unbiased estimate of the number of leaves (a leaf is reached
//! with probability `1 / Πb` along its path), so their mean is too. Probes
//! are cheap and independent, but when subtree sizes differ a lot the
//! distribution of probe values is skewed: most probes land in small
//! subtrees and underestimate, a rare probe overestimates hugely.
//!
//! # Chen's heuristic sampling
//!
//! Chen ("Heuristic sampling: a method for predicting the performance of
//! tree searching programs", SIAM J. Computing, 1992) reduces that variance
//! by *stratifying*: a stratifier maps a node to a key that should predict
//! the size of its subtree, and nodes with the same key are assumed alike.
//! One run expands the tree level by level, keeping at each level one
//! representative per stratum together with a weight, the number of nodes
//! it stands for:
//!
//! 1. the root is the only representative of level 0, with weight 1;
//! 2. each representative of weight `w` is expanded; each surviving child
//!    that is a leaf adds `w` to the run's estimate; any other child falls
//!    in the stratum `(level + 1, stratifier(child))`: the first child of a
//!    stratum becomes its representative with weight `w`; a later one adds
//!    `w` to the stratum's weight `W` and replaces the representative with
//!    probability `w / W`;
//! 3. the run stops when a level has no representative.
//!
//! Each run is an unbiased estimate of the number of leaves, whatever the
//! stratifier; a good stratifier makes it precise. The stratum always
//! includes the depth (the number of decisions taken, which is the level),
//! so the default stratifier, [`depth`], keeps one representative per level
//! (close to a Knuth probe, with leaves counted apart), and a user key such
//! as [`open_instances`] (depth plus the number of open instances) divides
//! each level further. A run costs more than a probe (it expands one node
//! per stratum and level), and gives a narrower interval for the same
//! number of samples when the key separates large subtrees from small
//! ones.
//!
//! # Intervals and determinism
//!
//! Both estimators repeat `samples` independent probes or runs and report
//! their mean with the interval `mean ± 1.96·s/√n` (`s` the sample standard
//! deviation, `n` the number of samples, at least 2), its low end clamped
//! at 0. The interval relies on the central limit theorem: with few samples
//! on a skewed space it is too narrow more often than 5% of the time. The
//! same seed gives the same estimate, and [`Estimate::dead_end_rate`] is
//! the fraction of `samples` uniform random descents
//! ([`descent::random_descent`](crate::descent::random_descent): each
//! decision picks one of *all* the alternatives, dead or not) that end in a
//! dead end, from a random stream that depends only on the seed, so both
//! estimators report the same rate for the same seed.
//!
//! # Which to use
//!
//! Knuth's probes need nothing but the tree; use them for a quick order of
//! magnitude. On the paper's ordering space a probe's standard deviation
//! is 2 times the count with 4 statements, 6 times with 5 and 28 times with
//! 6, so its sample standard deviation, which rarely sees the tail,
//! understates the error. Chen's runs with [`open_instances`] gave
//! intervals 2 to 8 times narrower at equal samples on that space and on
//! two corpus spaces (`cargo bench --bench estimate` prints the table),
//! and 1.2 to 5 times narrower at equal time; with [`depth`] alone they are no
//! better than Knuth's.
//!
//! ```
//! use commute_runtime::estimate::{self, Options};
//! use commute_runtime::testing::RandomBackbone;
//! use commute_runtime::Candidate;
//! # use commute_runtime::model::*;
//! # static MODEL: Model = Model { name: "m", sets: &[SetDef { name: "S", params: &[], superset: None, quotient: None }],
//! #   properties: &[], choices: &[ChoiceDef { name: "x", params: &[VarDef { name: "s", set: 0, args: &[] }],
//! #   kind: ChoiceKind::Enum { values: &["A", "B"] }, symmetry: Symmetry::None, origin: "m:1" }],
//! #   constraints: &[], triggers: &[], callbacks: &[], clauses_by_choice: &[&[]], counters_by_choice: &[&[]], default_priority: &[0] };
//! // A space with one choice `x(s) in {A, B}` per object `s` and no
//! // constraint: on 3 objects, 2^3 = 8 leaves.
//! let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 3)).unwrap();
//! let options = Options::new(MODEL.default_priority, 100, 7);
//! let knuth = estimate::knuth(&root, &options);
//! let chen = estimate::chen_stratified(
//!     &root,
//!     &options,
//!     estimate::open_instances(MODEL.default_priority),
//! );
//! // Every probe and every run sees the same branching: exact, width 0.
//! assert_eq!((knuth.low, knuth.mean, knuth.high), (8.0, 8.0, 8.0));
//! assert_eq!(chen.mean, 8.0);
//! assert_eq!(knuth.dead_end_rate, 0.0);
//! println!("{:.0} leaves [{:.0}, {:.0}]", chen.mean, chen.low, chen.high);
//! ```

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::backbone::Backbone;
use crate::candidate::Candidate;
use crate::descent::{random_descent, random_descent_backtracking};

/// Which estimator produced an [`Estimate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Random probes ([`knuth`]).
    Knuth,
    /// Heuristic sampling with strata ([`chen`], [`chen_stratified`]).
    Chen,
}

/// An estimate of the number of leaves below a candidate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// How it was estimated.
    pub method: Method,
    /// Probes (Knuth) or runs (Chen) averaged.
    pub samples: usize,
    /// The mean of the samples: an unbiased estimate of the leaf count.
    pub mean: f64,
    /// The 95% confidence interval, `mean ± 1.96·s/√n`, `low` at least 0.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
    /// The fraction of uniform random descents that ended in a dead end.
    pub dead_end_rate: f64,
    /// The fraction of descents that ended in a dead end though they tried
    /// another value of an instance whenever propagation refuted one, as
    /// the searches descend (as many descents as for `dead_end_rate`).
    pub search_dead_end_rate: f64,
    /// Time taken, dead-end rates included (seconds in JSON).
    #[serde(serialize_with = "seconds")]
    pub elapsed: Duration,
}

impl Estimate {
    /// Whether `count` lies in the interval.
    pub fn contains(&self, count: f64) -> bool {
        self.low <= count && count <= self.high
    }

    /// `high - low`.
    pub fn width(&self) -> f64 {
        self.high - self.low
    }
}

fn seconds<S: serde::Serializer>(elapsed: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(elapsed.as_secs_f64())
}

/// What to estimate and how hard.
#[derive(Clone, Debug)]
pub struct Options<'p> {
    /// The branching order, as for [`Candidate::next_open`].
    pub priority: &'p [u16],
    /// Probes or runs to average, and descents of each kind for the
    /// dead-end rates; raised to 2 if lower (an interval needs two).
    pub samples: usize,
    /// Fixes every random choice.
    pub seed: u64,
    /// Stops early once this much time is spent, after at least two probes
    /// (half of it for the probes, the rest for the dead-end descents, as
    /// many of each kind):
    /// on spaces of thousands of decisions each probe propagates thousands
    /// of times. The estimate says how many samples it took.
    pub time_limit: Option<Duration>,
}

impl<'p> Options<'p> {
    /// Options with every field given.
    pub fn new(priority: &'p [u16], samples: usize, seed: u64) -> Self {
        Options {
            priority,
            samples,
            seed,
            time_limit: None,
        }
    }

    /// The same options, stopping early once `limit` is spent.
    pub fn with_time_limit(self, limit: Duration) -> Self {
        Options {
            time_limit: Some(limit),
            ..self
        }
    }

    /// Whether `elapsed` leaves room for more samples of a phase allowed
    /// `share` of the time limit, once `taken` samples (two at least) are in.
    fn room_for_more(&self, taken: usize, elapsed: Duration, share: f64) -> bool {
        match self.time_limit {
            Some(limit) if taken >= 2 => elapsed < limit.mul_f64(share),
            _ => true,
        }
    }

    fn samples(&self) -> usize {
        self.samples.max(2)
    }
}

/// Knuth's estimator: the mean of `options.samples` random probes (see the
/// module documentation).
pub fn knuth<B: Backbone>(root: &Candidate<B>, options: &Options) -> Estimate {
    let started = Instant::now();
    let mut rng = StdRng::seed_from_u64(options.seed);
    let mut values: Vec<f64> = Vec::with_capacity(options.samples());
    while values.len() < options.samples()
        && options.room_for_more(values.len(), started.elapsed(), 0.5)
    {
        values.push(probe(root, options.priority, &mut rng));
    }
    let rates = dead_end_rates_until(root, options, values.len(), started);
    summarize(Method::Knuth, &values, rates, started)
}

/// One Knuth probe: the product of the numbers of surviving children along
/// a uniformly random path, 0 if it meets a node whose children all fail.
fn probe<B: Backbone, R: Rng>(root: &Candidate<B>, priority: &[u16], rng: &mut R) -> f64 {
    let mut node = root.clone();
    let mut product = 1.0;
    while let Some(instance) = node.next_open(priority) {
        let mut survivors = children(&node, &instance);
        if survivors.is_empty() {
            return 0.0;
        }
        product *= survivors.len() as f64;
        node = survivors.swap_remove(rng.random_range(0..survivors.len()));
    }
    product
}

/// The children of `node` branching on `instance` that survive
/// propagation.
fn children<B: Backbone>(
    node: &Candidate<B>,
    instance: &crate::action::InstanceId,
) -> Vec<Candidate<B>> {
    node.alternatives(instance)
        .iter()
        .filter_map(|action| {
            let mut child = node.clone();
            child.apply(action).ok().map(|()| child)
        })
        .collect()
}

/// Chen's heuristic sampling stratified by depth alone: one representative
/// per level.
pub fn chen<B: Backbone>(root: &Candidate<B>, options: &Options) -> Estimate {
    chen_stratified(root, options, depth)
}

/// Chen's heuristic sampling: the mean of `options.samples` runs, each
/// keeping one representative per stratum `(depth, stratifier(node))` (see
/// the module documentation).
pub fn chen_stratified<B: Backbone, F: Fn(&Candidate<B>) -> u64>(
    root: &Candidate<B>,
    options: &Options,
    stratifier: F,
) -> Estimate {
    let started = Instant::now();
    let mut rng = StdRng::seed_from_u64(options.seed);
    let mut values: Vec<f64> = Vec::with_capacity(options.samples());
    while values.len() < options.samples()
        && options.room_for_more(values.len(), started.elapsed(), 0.5)
    {
        values.push(chen_run(root, options.priority, &stratifier, &mut rng));
    }
    let rates = dead_end_rates_until(root, options, values.len(), started);
    summarize(Method::Chen, &values, rates, started)
}

/// The default stratifier: every node of a level in one stratum (the
/// depth is part of every stratum).
pub fn depth<B: Backbone>(_: &Candidate<B>) -> u64 {
    0
}

/// A stratifier that divides each level by the number of open instances:
/// nodes with as many decisions left are assumed to have subtrees of
/// similar size.
pub fn open_instances<B: Backbone>(priority: &[u16]) -> impl Fn(&Candidate<B>) -> u64 + '_ {
    move |candidate| candidate.open_instances(priority).len() as u64
}

/// One run of heuristic sampling.
fn chen_run<B: Backbone, F: Fn(&Candidate<B>) -> u64, R: Rng>(
    root: &Candidate<B>,
    priority: &[u16],
    stratifier: &F,
    rng: &mut R,
) -> f64 {
    if root.next_open(priority).is_none() {
        return 1.0;
    }
    let mut leaves = 0.0;
    // One level's representatives: stratum key -> (node, weight). A
    // BTreeMap so that expansion order, hence the run, depends only on the
    // seed.
    let mut level: BTreeMap<u64, (Candidate<B>, f64)> = BTreeMap::new();
    level.insert(0, (root.clone(), 1.0));
    while !level.is_empty() {
        let mut next: BTreeMap<u64, (Candidate<B>, f64)> = BTreeMap::new();
        for (node, weight) in level.into_values() {
            let Some(instance) = node.next_open(priority) else {
                continue; // Leaves are counted when generated.
            };
            for child in children(&node, &instance) {
                if child.next_open(priority).is_none() {
                    leaves += weight;
                    continue;
                }
                let key = stratifier(&child);
                match next.get_mut(&key) {
                    None => {
                        next.insert(key, (child, weight));
                    }
                    Some((representative, total)) => {
                        *total += weight;
                        if rng.random::<f64>() * *total < weight {
                            *representative = child;
                        }
                    }
                }
            }
        }
        level = next;
    }
    leaves
}

/// The fraction of `descents` uniform random descents from `root` (each
/// value chosen among all the alternatives, as [`random_descent`] does)
/// that end in a dead end; 0 if `descents` is 0. Its random stream depends
/// only on `seed`.
pub fn dead_end_rate<B: Backbone>(
    root: &Candidate<B>,
    priority: &[u16],
    descents: usize,
    seed: u64,
) -> f64 {
    dead_end_rates_until(
        root,
        &Options::new(priority, descents, seed),
        descents,
        Instant::now(),
    )
    .uniform
}

/// The dead-end rates of the two kinds of descents.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct DeadEndRates {
    /// Of [`random_descent`]s.
    uniform: f64,
    /// Of [`random_descent_backtracking`]s.
    search: f64,
}

/// The dead-end rates of at most `descents` descents of each kind, one of
/// each in turn, stopping when `options`' time limit, counted from
/// `started`, is spent.
fn dead_end_rates_until<B: Backbone>(
    root: &Candidate<B>,
    options: &Options,
    descents: usize,
    started: Instant,
) -> DeadEndRates {
    if descents == 0 {
        return DeadEndRates::default();
    }
    // Streams apart from the probes' own, which start from `seed`; the
    // uniform one as before the search rate was added.
    let mut rng = StdRng::seed_from_u64(options.seed ^ 0xd1b5_4a32_d192_ed03);
    let mut search_rng = StdRng::seed_from_u64(options.seed ^ 0x94d0_49bb_1331_11eb);
    let (mut made, mut dead, mut search_dead) = (0, 0, 0);
    while made < descents && options.room_for_more(made, started.elapsed(), 1.0) {
        made += 1;
        dead += usize::from(random_descent(root, options.priority, &mut rng).is_dead_end());
        search_dead += usize::from(
            random_descent_backtracking(root, options.priority, &mut search_rng).is_dead_end(),
        );
    }
    DeadEndRates {
        uniform: dead as f64 / made as f64,
        search: search_dead as f64 / made as f64,
    }
}

/// The mean and 95% interval of `values` (at least two).
fn summarize(method: Method, values: &[f64], rates: DeadEndRates, started: Instant) -> Estimate {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 1.96 * (variance / n).sqrt();
    let (low, high) = if half.is_finite() {
        ((mean - half).max(0.0), mean + half)
    } else {
        // Products beyond f64's range: no usable interval.
        (0.0, f64::INFINITY)
    };
    Estimate {
        method,
        samples: values.len(),
        mean,
        low,
        high,
        dead_end_rate: rates.uniform,
        search_dead_end_rate: rates.search,
        elapsed: started.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_are_symmetric_and_clamped() {
        // Standard deviation √2 over two samples: standard error 1.
        let e = summarize(
            Method::Knuth,
            &[1.0, 3.0],
            DeadEndRates::default(),
            Instant::now(),
        );
        assert_eq!(e.mean, 2.0);
        assert!((e.high - 3.96).abs() < 1e-12, "{e:?}");
        assert!((e.low - 0.04).abs() < 1e-12, "{e:?}");
        let e = summarize(
            Method::Chen,
            &[0.0, 10.0],
            DeadEndRates::default(),
            Instant::now(),
        );
        assert_eq!(e.low, 0.0);
        let rates = DeadEndRates {
            uniform: 0.5,
            search: 0.25,
        };
        let e = summarize(Method::Chen, &[4.0, 4.0], rates, Instant::now());
        assert_eq!((e.dead_end_rate, e.search_dead_end_rate), (0.5, 0.25));
        assert_eq!((e.low, e.mean, e.high), (4.0, 4.0, 4.0));
        assert!(e.contains(4.0) && !e.contains(4.5));
        assert_eq!(e.width(), 0.0);
        let e = summarize(
            Method::Knuth,
            &[f64::MAX, f64::MAX, 0.0],
            DeadEndRates::default(),
            Instant::now(),
        );
        assert_eq!((e.low, e.high), (0.0, f64::INFINITY));
    }
}
