//! `commute bench`: engine figures on the bundled spaces (the paper's
//! ordering space, the loop space of the gemm example, the GPU space on a
//! matrix product), measured in one run, and the GPU space's size on each
//! of its kernels.

use std::time::{Duration, Instant};

use crate::digest::{gpu_tables, loop_tables, ordering_tables, with_model, Tables};
use commute_loops::frontend::read_kernel;
use commute_loops::space::host::KernelHost;
use commute_loops::space::Backbone as LoopBackbone;
use commute_loops::space::DECISION_PRIORITY;
use commute_runtime::descent::{random_descent, Descent};
use commute_runtime::estimate;
use commute_runtime::{Backbone, Candidate};
use commute_spaces::gpu::{self, GpuKernel};
use commute_spaces::paper::ordering;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// Engine figures on one space and backbone.
#[derive(Debug, serde::Serialize)]
pub struct Engine {
    pub space: String,
    pub backbone: String,
    pub choice_instances: usize,
    pub vector_bytes: usize,
    pub descents: usize,
    pub decisions: usize,
    pub dead_ends: usize,
    pub dead_end_rate: f64,
    pub decisions_per_second: f64,
    pub descents_per_second: f64,
    pub clone_nanoseconds: f64,
    pub initial_propagation_milliseconds: f64,
    /// Where the dead ends came from, most frequent first (at most
    /// [`CAUSES_SHOWN`]).
    pub dead_end_causes: Vec<DeadEndCause>,
}

/// How many dead ends one cause ended.
#[derive(Debug, serde::Serialize)]
pub struct DeadEndCause {
    /// The failing constraint's place in the space and its text, or what
    /// else ended the descents (a counter, a trigger callback).
    pub cause: String,
    pub dead_ends: usize,
}

/// Dead-end causes a report keeps.
const CAUSES_SHOWN: usize = 5;

/// The cause of a dead end, as [`DeadEndCause::cause`] names it.
fn cause(model: &commute_runtime::Model, dead_end: &commute_runtime::DeadEnd) -> String {
    if let Some(def) = dead_end
        .constraint
        .and_then(|c| model.constraints.get(c as usize))
    {
        return format!("{} `{}`", def.origin, def.description);
    }
    match &dead_end.emptied {
        Some(instance) => format!(
            "{} emptied",
            model
                .choices
                .get(instance.choice as usize)
                .map_or("an instance", |c| c.name)
        ),
        // A callback's refusal or decision: its message starts with the
        // callback's name and objects; the name is the cause.
        None => dead_end
            .message
            .split(['[', ':'])
            .next()
            .unwrap_or_default()
            .to_string(),
    }
}

/// The estimated size of the GPU space on one kernel.
#[derive(Debug, serde::Serialize)]
pub struct GpuSize {
    pub kernel: String,
    pub choice_instances: usize,
    pub estimate: estimate::Estimate,
}

/// What one run measured: the paper's ordering space, the loop space of
/// the bundled gemm example, the GPU space on a matrix product and its
/// size on each kernel, then code generation.
#[derive(Debug, serde::Serialize)]
pub struct Report {
    #[serde(flatten)]
    pub ordering: Engine,
    pub loops: Engine,
    pub gpu: Engine,
    pub gpu_sizes: Vec<GpuSize>,
    pub codegen_space: String,
    pub codegen_milliseconds: f64,
    pub seed: u64,
}

pub struct Options {
    pub statements: u32,
    pub seconds: f64,
    pub seed: u64,
    /// Where the engine's tables come from.
    pub tables: Tables,
}

/// Random descents from the root for `seconds` (at least 10), then
/// clones of the root.
fn engine<B: Backbone>(
    space: &str,
    backbone: String,
    make: impl Fn() -> Result<Candidate<B>, String>,
    priority: &[u16],
    options: &Options,
) -> Result<Engine, String> {
    let started = Instant::now();
    let root = make()?;
    let initial = started.elapsed();
    let mut rng = StdRng::seed_from_u64(options.seed);
    let (mut descents, mut decisions, mut dead_ends) = (0usize, 0usize, 0usize);
    let mut causes = std::collections::BTreeMap::<String, usize>::new();
    let budget = Duration::from_secs_f64(options.seconds);
    let started = Instant::now();
    while descents < 10 || started.elapsed() < budget {
        let descent = random_descent(&root, priority, &mut rng);
        descents += 1;
        decisions += descent.decisions();
        if let Descent::DeadEnd { dead_end, .. } = &descent {
            dead_ends += 1;
            *causes.entry(cause(root.model(), dead_end)).or_default() += 1;
        }
    }
    let descent_time = started.elapsed().as_secs_f64();
    let clones = 100_000;
    let started = Instant::now();
    for _ in 0..clones {
        std::hint::black_box(std::hint::black_box(&root).clone());
    }
    let clone_time = started.elapsed().as_secs_f64();
    Ok(Engine {
        space: space.to_string(),
        backbone,
        choice_instances: root.instances(&[]).len(),
        vector_bytes: root.vector_words() * 8,
        descents,
        decisions,
        dead_ends,
        dead_end_rate: dead_ends as f64 / descents as f64,
        decisions_per_second: decisions as f64 / descent_time,
        descents_per_second: descents as f64 / descent_time,
        clone_nanoseconds: clone_time * 1e9 / clones as f64,
        initial_propagation_milliseconds: initial.as_secs_f64() * 1e3,
        dead_end_causes: top_causes(causes),
    })
}

/// The most frequent causes, ties in the causes' order.
fn top_causes(causes: std::collections::BTreeMap<String, usize>) -> Vec<DeadEndCause> {
    let mut causes: Vec<DeadEndCause> = causes
        .into_iter()
        .map(|(cause, dead_ends)| DeadEndCause { cause, dead_ends })
        .collect();
    causes.sort_by_key(|c| std::cmp::Reverse(c.dead_ends));
    causes.truncate(CAUSES_SHOWN);
    causes
}

pub fn run(options: &Options) -> Result<Report, String> {
    let chain = ordering::Backbone(ordering::Chain(options.statements));
    let host = bundled_kernel("gemm.c")?;
    let (ordering, loops) = match options.tables {
        Tables::Generated => (
            ordering_engine(chain, options)?,
            loop_engine(LoopBackbone(host), options)?,
        ),
        tables => (
            ordering_engine(with_model(chain, ordering_tables(tables)?, tables), options)?,
            loop_engine(
                with_model(LoopBackbone(host), loop_tables(tables)?, tables),
                options,
            )?,
        ),
    };
    let gpu = gpu_engine(gpu::Backbone(GpuKernel::matmul(1024, 1024, 1024)), options)?;
    let gpu_sizes = gpu_kernels()
        .into_iter()
        .map(|kernel| gpu_size(kernel, options))
        .collect::<Result<_, _>>()?;
    let (codegen_space, codegen) = codegen_time()?;
    Ok(Report {
        ordering,
        loops,
        gpu,
        gpu_sizes,
        codegen_space,
        codegen_milliseconds: codegen.as_secs_f64() * 1e3,
        seed: options.seed,
    })
}

fn ordering_engine<B: Backbone>(backbone: B, options: &Options) -> Result<Engine, String> {
    engine(
        "spaces/paper/listing07_ordering.space",
        format!("{} statements", options.statements),
        || Candidate::new(backbone.clone()).map_err(|e| e.to_string()),
        ordering::MODEL.default_priority,
        options,
    )
}

fn loop_engine<B: Backbone>(backbone: B, options: &Options) -> Result<Engine, String> {
    engine(
        commute_loops::space::SOURCE_FILE,
        "examples/gemm.c".to_string(),
        || Candidate::new(backbone.clone()).map_err(|e| e.to_string()),
        &DECISION_PRIORITY,
        options,
    )
}

fn gpu_engine<B: Backbone>(backbone: B, options: &Options) -> Result<Engine, String> {
    let model = gpu_tables(options.tables)?;
    engine(
        "spaces/gpu/gpu.space",
        "matmul 1024 x 1024 x 1024".to_string(),
        || {
            Candidate::new(with_model(backbone.clone(), model, options.tables))
                .map_err(|e| e.to_string())
        },
        gpu::MODEL.default_priority,
        options,
    )
}

/// The kernels the GPU space's host describes, at the sizes its tests use.
pub fn gpu_kernels() -> Vec<GpuKernel> {
    vec![
        GpuKernel::axpy(1 << 20),
        GpuKernel::matvec(4096, 4096),
        GpuKernel::matmul(1024, 1024, 1024),
        GpuKernel::chained_matmul(1024, 1024, 1024, 256),
    ]
}

/// Knuth's estimate of the GPU space's leaves on `kernel` (100 probes, or
/// as many as the run's seconds allow, two at least).
fn gpu_size(kernel: GpuKernel, options: &Options) -> Result<GpuSize, String> {
    let name = kernel.name.clone();
    let model = gpu_tables(options.tables)?;
    let root = Candidate::new(with_model(gpu::Backbone(kernel), model, options.tables))
        .map_err(|e| format!("the GPU space on {name}: {e}"))?;
    let probes = estimate::Options::new(gpu::MODEL.default_priority, 100, options.seed)
        .with_time_limit(Duration::from_secs_f64(options.seconds));
    Ok(GpuSize {
        kernel: name,
        choice_instances: root.instances(&[]).len(),
        estimate: estimate::knuth(&root, &probes),
    })
}

/// The backbone of a bundled example (`examples/NAME`).
pub fn bundled_kernel(name: &str) -> Result<KernelHost, String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let source = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let kernel = read_kernel(&format!("examples/{name}"), &source).map_err(|e| e.to_string())?;
    Ok(KernelHost::new(kernel))
}

/// Reading, checking and generating the largest bundled space (by the
/// size of the generated code), best of five.
fn codegen_time() -> Result<(String, Duration), String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let spaces = commute_spaces::bundled_space_files();
    let mut largest: Option<(usize, std::path::PathBuf)> = None;
    for path in spaces {
        let compilation = commute_dsl::compile(&path);
        if let Ok(code) = commute_codegen::generate(&compilation) {
            if largest.as_ref().is_none_or(|(size, _)| code.len() > *size) {
                largest = Some((code.len(), path));
            }
        }
    }
    let (_, path) = largest.ok_or("no bundled space generates")?;
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let started = Instant::now();
        let compilation = commute_dsl::compile(&path);
        commute_codegen::generate(&compilation).map_err(|e| e.to_string())?;
        best = best.min(started.elapsed());
    }
    let shown = path
        .strip_prefix(root)
        .unwrap_or(&path)
        .display()
        .to_string();
    Ok((shown, best))
}

pub fn print(report: &Report) {
    for engine in [&report.ordering, &report.loops, &report.gpu] {
        print_engine(engine, report.seed);
    }
    say!("GPU space sizes (Knuth's estimate, seed {})", report.seed);
    for size in &report.gpu_sizes {
        say!(
            "  {:<16} {:>6} instances  {:>10.3e} leaves [{:.3e}, {:.3e}]  {:>5.1} % dead ends  ({} probes)",
            size.kernel,
            size.choice_instances,
            size.estimate.mean,
            size.estimate.low,
            size.estimate.high,
            size.estimate.dead_end_rate * 100.0,
            size.estimate.samples
        );
    }
    say!(
        "code generation for {} {:>8.2} ms (read, check, generate; best of 5)",
        report.codegen_space,
        report.codegen_milliseconds
    );
}

fn print_engine(report: &Engine, seed: u64) {
    say!(
        "engine on {} with {} ({} choice instances, seed {seed})",
        report.space,
        report.backbone,
        report.choice_instances,
    );
    say!("  decision vector      {:>12} bytes", report.vector_bytes);
    say!(
        "  initial propagation  {:>12.2} ms",
        report.initial_propagation_milliseconds
    );
    say!(
        "  clone                {:>12.0} ns",
        report.clone_nanoseconds
    );
    say!(
        "  random descents      {:>12.0} /s  ({} descents, {} decisions)",
        report.descents_per_second,
        report.descents,
        report.decisions
    );
    say!(
        "  decisions            {:>12.0} /s  (apply and propagate, inside descents)",
        report.decisions_per_second
    );
    say!(
        "  dead ends            {:>12.2} %  ({} of {} descents)",
        report.dead_end_rate * 100.0,
        report.dead_ends,
        report.descents
    );
    for cause in &report.dead_end_causes {
        say!("    {:>6}  {}", cause.dead_ends, cause.cause);
    }
}
