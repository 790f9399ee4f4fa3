//! `commute estimate`: the number of leaves of a bundled space, by Knuth's
//! estimator and Chen's heuristic sampling, with the dead-end rate of
//! uniform random descents.

use std::time::Instant;

use commute_runtime::estimate::{self, Estimate, Options as EstimateOptions};
use commute_runtime::testing::RandomBackbone;
use commute_runtime::{Backbone, Candidate, Model};
use commute_spaces::paper;

/// The spaces `--space` accepts: the paper's ordering space on a chain of
/// statements, and the corpus spaces on random backbones.
pub const SPACES: [&str; 10] = [
    "ordering",
    "enum_requires",
    "integers",
    "counters",
    "symmetric",
    "quotient",
    "triggers",
    "parametrized_sets",
    "every_construct",
    "object_conditions",
];

fn corpus_model(name: &str) -> Option<&'static Model> {
    commute_spaces::models()
        .into_iter()
        .find(|(n, _)| *n == name && SPACES.contains(n))
        .map(|(_, m)| m)
}

/// How Chen's method groups nodes.
#[derive(Clone, Copy, Debug, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strata {
    /// One stratum per depth (the library's default).
    Depth,
    /// Depth and number of open instances.
    OpenInstances,
}

pub struct Options {
    pub space: String,
    pub statements: u32,
    pub size: u32,
    pub backbone_seed: u64,
    pub samples: usize,
    pub seed: u64,
    pub strata: Strata,
    /// A space file with its host file instead of a bundled space.
    pub hosted: Option<crate::hosted::SpaceArgs>,
}

/// What one run estimated.
#[derive(Debug, serde::Serialize)]
pub struct Report {
    pub space: String,
    pub backbone: String,
    pub seed: u64,
    pub strata: Strata,
    pub knuth: Estimate,
    pub chen: Estimate,
    /// Fraction of uniform random descents that ended in a dead end.
    pub dead_end_rate: f64,
    /// Fraction of the searches' descents (another value tried when
    /// propagation refutes one) that ended in a dead end.
    pub search_dead_end_rate: f64,
    /// Seconds for everything, building the root included.
    pub seconds: f64,
}

pub fn run(options: &Options) -> Result<Report, String> {
    let started = Instant::now();
    if let Some(hosted) = &options.hosted {
        let (_, root) = crate::hosted::fixed_root(hosted)?;
        let mut report = estimate_root(
            options,
            &root,
            format!("host {}", hosted.host.display()),
            started,
        );
        report.space = hosted.space.display().to_string();
        return Ok(report);
    }
    if options.space == "ordering" {
        let root = Candidate::new(paper::ordering::Backbone(paper::ordering::Chain(
            options.statements,
        )))
        .map_err(|e| e.to_string())?;
        let backbone = format!(
            "a chain of {} statement{}",
            options.statements,
            if options.statements == 1 { "" } else { "s" }
        );
        return Ok(estimate_root(options, &root, backbone, started));
    }
    let model = corpus_model(&options.space).ok_or_else(|| {
        format!(
            "no space `{}`; the spaces are {}",
            options.space,
            SPACES.join(", ")
        )
    })?;
    let backbone = RandomBackbone::new(model, options.backbone_seed, options.size);
    let root = Candidate::new(backbone).map_err(|e| e.to_string())?;
    let backbone = format!(
        "random, {} objects per root set, seed {}",
        options.size, options.backbone_seed
    );
    Ok(estimate_root(options, &root, backbone, started))
}

fn estimate_root<B: Backbone>(
    options: &Options,
    root: &Candidate<B>,
    backbone: String,
    started: Instant,
) -> Report {
    let priority = root.model().default_priority;
    let settings = EstimateOptions::new(priority, options.samples, options.seed);
    let knuth = estimate::knuth(root, &settings);
    let chen = match options.strata {
        Strata::Depth => estimate::chen(root, &settings),
        Strata::OpenInstances => {
            estimate::chen_stratified(root, &settings, estimate::open_instances(priority))
        }
    };
    Report {
        space: options.space.clone(),
        backbone,
        seed: options.seed,
        strata: options.strata,
        dead_end_rate: knuth.dead_end_rate,
        search_dead_end_rate: knuth.search_dead_end_rate,
        knuth,
        chen,
        seconds: started.elapsed().as_secs_f64(),
    }
}

pub fn print(report: &Report) {
    say!("space: {} ({})", report.space, report.backbone);
    let strata = match report.strata {
        Strata::Depth => "depth",
        Strata::OpenInstances => "depth and open instances",
    };
    let rows = [
        (
            format!("Knuth, {} probes", report.knuth.samples),
            &report.knuth,
        ),
        (
            format!("Chen, {} runs, strata: {strata}", report.chen.samples),
            &report.chen,
        ),
    ];
    for (name, e) in rows {
        say!(
            "{name}: {} leaves, 95% interval [{}, {}], {:.3} s",
            number(e.mean),
            number(e.low),
            number(e.high),
            e.elapsed.as_secs_f64()
        );
    }
    say!(
        "dead-end rate of uniform random descents: {:.1}%; of the searches' descents, which try another value where propagation refutes one: {:.1}% ({} descents each)",
        report.dead_end_rate * 100.0,
        report.search_dead_end_rate * 100.0,
        report.knuth.samples
    );
    say!("time: {:.3} s (seed {})", report.seconds, report.seed);
}

/// A count for people: one decimal below a thousand, none below a billion,
/// scientific notation above.
fn number(x: f64) -> String {
    if x < 1e3 {
        format!("{x:.1}")
    } else if x.is_finite() && x < 1e9 {
        format!("{x:.0}")
    } else {
        format!("{x:.3e}")
    }
}
