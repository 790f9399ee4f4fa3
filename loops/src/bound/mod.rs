//! A lower bound on the time of every completion of a partial candidate,
//! for the searches to skip subtrees that cannot beat the best time so
//! far (Telamon's idea: Beaugnon et al. prune on such a bound). It must
//! be a true bound, or the search loses optima silently, so every figure
//! in it is the least the program can take:
//!
//! - work: the floating-point operations every instance of a statement
//!   surely executes ([`ops`]), times its instances at the sizes the
//!   program is compiled with ([`params`]: the preprocessor expands the
//!   parameters of the bounds), at the peak rate of a core with vectors
//!   ([`Machine`]), raised by a margin;
//! - a statement none of whose dimensions can still be parallel runs on
//!   one core; the others at best on every thread, and statements of the
//!   two kinds never overlap (no region runs beside sequential code);
//! - a dimension decided parallel is a parallel region entered once per
//!   iteration of the loops its statement surely has outside it (once per
//!   tile of a loop that may be unrolled and jammed), each
//!   costing at least half the measured cost of an empty region (at most
//!   1 us counted): a parallel loop inside two loops of a thousand
//!   iterations costs a million regions (counted only for statements
//!   whose loops all have constant bounds, so that every outer iteration
//!   holds an instance);
//! - memory: bytes the kernel surely touches beyond the last-level cache
//!   are read at least once, at the measured bandwidth raised by a margin.
//!
//! The bound is `sequential work + max(parallel work / threads, regions x
//! region cost)`, at least the memory time. The peak without vectors is
//! measured but not used: compilers vectorize loops and jammed copies on
//! their own (`-O3` needs no `omp simd`), so no decision rules vectors
//! out. With `-ffast-math` and the like (reassociation), no work is
//! counted.

mod machine;
mod ops;
mod params;

use std::path::Path;

use commute_runtime::search::Bound;
use commute_runtime::{Domain, InstanceId};
use tree_sitter::Parser;

pub use machine::Machine;
pub use params::{probe_lines, Element};

use crate::frontend::{Affine, Kernel, LoopId, StatementId, Variable};
use crate::harness::{preprocess, HarnessConfig};
use crate::space::host::{Dimension, KernelHost, Part};
use crate::space::{dim_kind, order, tile_size, LoopCandidate, StatementsId};

/// The peak rate and bandwidth are raised by these shares (frequencies
/// vary from run to run).
const PEAK_MARGIN: f64 = 1.25;
const BANDWIDTH_MARGIN: f64 = 1.5;
/// An empty parallel region's measured cost counts this share, at most
/// `FORK_JOIN_CEILING` seconds (a measurement on a busy machine is long).
const FORK_JOIN_SHARE: f64 = 0.5;
const FORK_JOIN_CEILING: f64 = 1e-6;
/// Non-rectangular nests are counted point by point up to this many
/// innermost loops; beyond, their instances are not counted.
const ENUMERATION_LIMIT: u64 = 20_000_000;

/// Flags that allow reassociation: the compiler may then merge additions
/// the bound counts.
const REASSOCIATING: [&str; 5] = [
    "-Ofast",
    "fast-math",
    "associative-math",
    "unsafe-math-optimizations",
    "fp-model=fast",
];

/// One statement, as the bound reads it.
#[derive(Clone, Debug)]
struct StatementWork {
    /// Double-precision operations all its instances surely execute.
    operations: f64,
    /// Per loop around it (outermost first): its tile and point
    /// dimensions and its trip count when its bounds are constants.
    loops: Vec<(StatementsId, StatementsId, Option<i64>)>,
    /// Whether every loop has constant bounds and iterates.
    boxed: bool,
}

/// What the kernel surely does, at the sizes it is compiled with.
#[derive(Clone, Debug)]
pub struct KernelWork {
    statements: Vec<StatementWork>,
    /// Bytes of the arrays the kernel surely touches.
    footprint: f64,
    /// The parameters' values (`None`: unknown).
    params: Vec<Option<i64>>,
}

impl KernelWork {
    /// Counts the kernel's work: `preprocessed` is its source with
    /// [`params::probe_lines`] appended, through the preprocessor.
    pub fn count(host: &KernelHost, preprocessed: &str, reassociating: bool) -> KernelWork {
        let kernel = host.kernel();
        let params = params::read_values(preprocessed, &kernel.params);
        let types = |name: &str| params::element_type(preprocessed, name);
        let mut parser = Parser::new();
        let tree = parser
            .set_language(&tree_sitter_c::LANGUAGE.into())
            .ok()
            .and_then(|()| parser.parse(&kernel.source, None));
        let statements = (0..kernel.statements.len())
            .map(|s| {
                let statement = &kernel.statements[s];
                let loops: Vec<(StatementsId, StatementsId, Option<i64>)> = statement
                    .loops
                    .iter()
                    .filter_map(|&l| {
                        let dim = |part| {
                            host.dim(Dimension {
                                statement: StatementId(s),
                                loop_id: l,
                                part,
                            })
                        };
                        Some((
                            dim(Part::Tile)?,
                            dim(Part::Point)?,
                            trips(kernel, l, &params),
                        ))
                    })
                    .collect();
                let boxed = loops.len() == statement.loops.len()
                    && loops.iter().all(|l| l.2.is_some_and(|t| t >= 1));
                let per_instance = match (&tree, reassociating) {
                    (Some(tree), false) => ops::Counter {
                        kernel,
                        statement: StatementId(s),
                        types: &types,
                    }
                    .operations(tree.root_node()),
                    _ => 0.0,
                };
                let operations = if per_instance > 0.0 {
                    per_instance * instances(kernel, StatementId(s), &params).unwrap_or(0.0)
                } else {
                    0.0
                };
                StatementWork {
                    operations,
                    loops,
                    boxed,
                }
            })
            .collect();
        KernelWork {
            footprint: footprint(kernel, &params, &types),
            statements,
            params,
        }
    }

    /// Double-precision operations the kernel surely executes.
    pub fn operations(&self) -> f64 {
        self.statements.iter().map(|s| s.operations).sum()
    }

    /// Bytes of arrays it surely touches.
    pub fn footprint(&self) -> f64 {
        self.footprint
    }

    /// The parameters' values, in the kernel's order (`None`: unknown).
    pub fn params(&self) -> &[Option<i64>] {
        &self.params
    }
}

/// The lower bound of the loop space of one kernel on one machine.
#[derive(Clone, Debug)]
pub struct LoopBound {
    work: KernelWork,
    /// Operations per second of one core (with the margin).
    peak: f64,
    /// Threads that run at once.
    threads: f64,
    /// Seconds counted per parallel region.
    fork_join: f64,
    /// Seconds the compulsory memory traffic takes at least.
    memory: f64,
}

impl LoopBound {
    /// The bound from the kernel's work and the machine, for runs with
    /// `threads` OpenMP threads.
    pub fn new(work: KernelWork, machine: &Machine, threads: usize) -> LoopBound {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let memory = match machine.last_level_cache {
            Some(cache) if work.footprint > cache => {
                (work.footprint - cache) / (machine.bandwidth * BANDWIDTH_MARGIN)
            }
            _ => 0.0,
        };
        LoopBound {
            peak: machine.vector_flops * PEAK_MARGIN,
            threads: threads.clamp(1, cores) as f64,
            fork_join: (machine.fork_join * FORK_JOIN_SHARE).min(FORK_JOIN_CEILING),
            memory,
            work,
        }
    }

    /// The bound of the kernel as a whole (the root: every candidate).
    pub fn work(&self) -> &KernelWork {
        &self.work
    }

    /// One line for people: the operations, the footprint, and the
    /// bound's figures.
    pub fn describe(&self) -> String {
        format!(
            "{:.3} GFLOP counted, {:.1} MB touched; at best {:.6} s sequential, {:.6} s on {} threads, {:.3} us per parallel region, {:.6} s of memory traffic",
            self.work.operations() / 1e9,
            self.work.footprint / 1e6,
            self.work.operations() / self.peak,
            self.work.operations() / self.peak / self.threads,
            self.threads,
            self.fork_join * 1e6,
            self.memory
        )
    }
}

impl Bound<crate::space::Backbone<KernelHost>> for LoopBound {
    fn bound(&self, candidate: &LoopCandidate) -> f64 {
        let mut sequential = 0.0;
        let mut parallel = 0.0;
        let mut regions = 0.0f64;
        for statement in &self.work.statements {
            let seconds = statement.operations / self.peak;
            let dims = statement.loops.iter().flat_map(|&(t, p, _)| [t, p]);
            let mut may_be_parallel = false;
            for d in dims {
                let kinds = mask(candidate, dim_kind::CHOICE, vec![d.0]);
                may_be_parallel |= kinds.is_none_or(|m| m & dim_kind::PARALLEL != 0);
                if statement.boxed && kinds == Some(dim_kind::PARALLEL) {
                    regions = regions.max(executions(candidate, statement, d));
                }
            }
            if may_be_parallel {
                parallel += seconds;
            } else {
                sequential += seconds;
            }
        }
        let compute = sequential + (parallel / self.threads).max(regions * self.fork_join);
        compute.max(self.memory)
    }
}

/// How many times the loop of dimension `d` of `statement` surely runs:
/// once per iteration of the loops the candidate surely nests outside it.
/// A loop outside it that may be unrolled and jammed counts its tiles
/// only: the jammed copies of its body share one run of the inner loops.
fn executions(candidate: &LoopCandidate, statement: &StatementWork, d: StatementsId) -> f64 {
    let outside = |x: StatementsId| {
        x != d && mask(candidate, order::CHOICE, vec![x.0, d.0]) == Some(order::OUTER)
    };
    let mut count = 1.0;
    for &(tile, point, trips) in &statement.loops {
        let Some(trips) = trips else {
            return 0.0;
        };
        let jammed = mask(candidate, dim_kind::CHOICE, vec![point.0])
            .is_none_or(|m| m & dim_kind::UNROLL != 0);
        if outside(point) && !jammed {
            count *= trips as f64;
        } else if outside(point) || outside(tile) {
            count *= fewest_tiles(candidate, point, trips);
        }
    }
    count
}

/// The fewest tiles a loop of `trips` iterations can have: 1 while it may
/// be left untiled (its tile loop then runs once), else its trips over
/// the largest tile size left.
fn fewest_tiles(candidate: &LoopCandidate, point: StatementsId, trips: i64) -> f64 {
    let largest = match candidate.domain(&InstanceId {
        choice: tile_size::CHOICE,
        objects: vec![point.0],
    }) {
        Some(Domain::Integer { mask, universe }) => {
            let sizes: Vec<i64> = (0..universe.len())
                .filter(|b| mask >> b & 1 == 1)
                .map(|b| universe[b])
                .collect();
            if sizes.contains(&1) {
                None
            } else {
                sizes.into_iter().max()
            }
        }
        _ => None,
    };
    match largest.filter(|s| *s > 0) {
        Some(size) => (trips as f64 / size as f64).ceil(),
        None => 1.0,
    }
}

/// The values left to an enum instance, `None` if it has none.
fn mask(candidate: &LoopCandidate, choice: u16, objects: Vec<u32>) -> Option<u64> {
    match candidate.domain(&InstanceId { choice, objects })? {
        Domain::Enum(mask) => Some(mask),
        _ => None,
    }
}

/// An affine expression's value, given the parameters and `iterators`.
fn value(affine: &Affine, params: &[Option<i64>], iterators: &[(LoopId, i64)]) -> Option<i64> {
    let mut total = affine.constant;
    for &(variable, coefficient) in &affine.terms {
        let v = match variable {
            Variable::Param(p) => (*params.get(p)?)?,
            Variable::Iterator(l) => iterators.iter().find(|(x, _)| *x == l)?.1,
        };
        total = total.checked_add(coefficient.checked_mul(v)?)?;
    }
    Some(total)
}

/// A loop's trip count when its bounds are constants.
fn trips(kernel: &Kernel, l: LoopId, params: &[Option<i64>]) -> Option<i64> {
    let the_loop = &kernel.loops[l.0];
    let lower = value(&the_loop.lower, params, &[])?;
    let upper = value(&the_loop.upper, params, &[])?;
    Some((upper - lower).max(0))
}

/// The number of instances of a statement: a product for constant bounds,
/// else counted point by point (up to `ENUMERATION_LIMIT`).
fn instances(kernel: &Kernel, statement: StatementId, params: &[Option<i64>]) -> Option<f64> {
    let loops = &kernel.statements[statement.0].loops;
    if let Some(all) = loops
        .iter()
        .map(|&l| trips(kernel, l, params))
        .collect::<Option<Vec<i64>>>()
    {
        return Some(all.iter().map(|&t| t as f64).product());
    }
    let mut budget = ENUMERATION_LIMIT;
    let mut iterators = Vec::new();
    count_points(kernel, loops, params, &mut iterators, &mut budget)
}

fn count_points(
    kernel: &Kernel,
    loops: &[LoopId],
    params: &[Option<i64>],
    iterators: &mut Vec<(LoopId, i64)>,
    budget: &mut u64,
) -> Option<f64> {
    let (&l, inner) = loops.split_first()?;
    let the_loop = &kernel.loops[l.0];
    let lower = value(&the_loop.lower, params, iterators)?;
    let upper = value(&the_loop.upper, params, iterators)?;
    *budget = budget.checked_sub(1)?;
    if inner.is_empty() {
        return Some((upper - lower).max(0) as f64);
    }
    let mut total = 0.0;
    for x in lower..upper {
        iterators.push((l, x));
        let below = count_points(kernel, inner, params, iterators, budget);
        iterators.pop();
        total += below?;
    }
    Some(total)
}

/// Bytes of the arrays the kernel surely touches: per array, the most
/// distinct elements one access reaches (each subscript one iterator of a
/// loop with constant bounds, the iterators distinct), in its element
/// type's size; arrays of unknown type count nothing.
fn footprint(
    kernel: &Kernel,
    params: &[Option<i64>],
    types: &dyn Fn(&str) -> Option<Element>,
) -> f64 {
    let mut largest: Vec<(String, f64)> = Vec::new();
    for statement in &kernel.statements {
        for access in statement.reads.iter().chain([&statement.write]) {
            let mut used = Vec::new();
            let mut elements = 1.0;
            for subscript in &access.subscripts {
                let iterator = match subscript.terms.as_slice() {
                    [(Variable::Iterator(l), c)] if c.abs() == 1 => *l,
                    _ => {
                        elements = 0.0;
                        break;
                    }
                };
                if used.contains(&iterator) || !statement.loops.contains(&iterator) {
                    elements = 0.0;
                    break;
                }
                used.push(iterator);
                elements *= trips(kernel, iterator, params).unwrap_or(0) as f64;
            }
            let Some(element) = types(&access.name) else {
                continue;
            };
            let bytes = elements * element.bytes();
            match largest.iter_mut().find(|(n, _)| *n == access.name) {
                Some((_, b)) => *b = b.max(bytes),
                None => largest.push((access.name.clone(), bytes)),
            }
        }
    }
    largest.iter().map(|(_, b)| b).sum()
}

/// The bound for tuning a kernel: the machine characterized (or read from
/// the cache; probes built in `scratch`), the kernel preprocessed with
/// the candidates' flags and its work counted. Returns the bound and what
/// to tell people.
pub fn loop_bound(
    host: &KernelHost,
    config: &HarnessConfig,
    scratch: &Path,
) -> Result<(LoopBound, Machine, bool), String> {
    let (machine, cached) =
        Machine::characterize(config, &scratch.join("machine"), config.threads)?;
    let kernel = host.kernel();
    let text = format!("{}{}", kernel.source, params::probe_lines(&kernel.params));
    let preprocessed = preprocess(
        config,
        &scratch.join("preprocess"),
        &text,
        &[],
        std::time::Duration::from_secs(60),
    )?;
    let reassociating = config
        .cflags
        .iter()
        .any(|f| REASSOCIATING.iter().any(|r| f.contains(r)));
    let work = KernelWork::count(host, &preprocessed, reassociating);
    Ok((
        LoopBound::new(work, &machine, config.threads),
        machine,
        cached,
    ))
}
