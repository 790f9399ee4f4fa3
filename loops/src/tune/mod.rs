//! The tuning pipeline, as library calls: [`tune`] measures the
//! baselines (the unmodified program built plainly, with Polly, with
//! another compiler), searches the loop space of a C kernel, compiles and
//! times candidates, checks each against the original program and writes
//! the fastest verified one, or the original program when a baseline is
//! faster; [`lower`] writes one candidate, given by fixed decisions,
//! without searching. Every written file's first line names the command it
//! was measured (or would be built) with.
//!
//! Both take option structs ([`TuneOptions`], [`LowerOptions`]) and return
//! what they found; while it runs, `tune` reports through a
//! [`TuneProgress`]. Printing is the caller's.

mod baselines;
mod blocked_start;
mod deadline;
mod evaluator;
mod flags;
mod fused_start;
mod kernel;
mod lock;
mod lower;
mod options;
mod output;
mod parallel_start;
mod polly_start;
mod progress;
mod time_tiled_start;
mod vector_start;
mod wrong_output;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use commute_runtime::search::journal::{Header, Journal, Replay};
use commute_runtime::search::{
    mcts, run_exhaustive, run_greedy, run_random, Bound, Budget, Evaluation,
    Harness as SearchHarness, MctsConfig, NoBound, SearchConfig, Status, StopReason,
    UNIFORM_DESCENTS,
};

pub use baselines::{fastest as fastest_baseline, Baseline, BASELINE_RECORD, RESULT_RECORD};
pub use blocked_start::{blocked_start, Block, BlockedStart, Lanes};
pub use evaluator::Best;
pub use fused_start::{fused_start, FusedStart};
pub use kernel::{CompilerFeatures, LoadedKernel, LoopCandidate};
pub use lower::{lower, Form, Lowered};
pub use options::{Emit, KernelOptions, LowerOptions, Strategy, TuneOptions};
pub use parallel_start::{parallel_start, ParallelStart};
pub use polly_start::{polly_start, show_polly, PollyStart};
pub use progress::{SearchStatus, TuneProgress};
pub use time_tiled_start::{time_tiled_start, TimeTiledStart};
pub use vector_start::{vector_start, VectorStart};

use crate::bound::loop_bound;
use crate::emit::explicit::reference_code;
use crate::harness::{
    effective_cflags, run_environment_line, Compiler, Harness, HarnessConfig, TimePattern,
};
use crate::space::complete::complete_with_original;
use crate::space::names::Names;
use crate::space::{StatementsId, DECISION_PRIORITY};
use deadline::Deadline;
use evaluator::KernelEvaluator;
use output::write_program;

/// Rounds of `--screen` draws MCTS takes while the candidate predicted
/// fastest is predicted more than twice slower than the best (see
/// `MctsConfig::screen_rounds`): drawing a neighbour of the best costs
/// propagations, a candidate that far from the best a compile and a
/// cut-off run (about half a second on `examples/abt.c`). On ten-minute
/// tunes of `examples/abt.c`, local steps spent 45% of their time on
/// such candidates with one round and the model of every leaf, 42% with
/// sixteen rounds, and 22% with sixteen and the model fitted near the
/// best (`docs/loops.md`); the search's own work stayed at 2% to 5%.
const SCREEN_ROUNDS: usize = 16;

/// The share of the tree's rollouts still predicted unpromising after
/// `SCREEN_ROUNDS` that are evaluated all the same (the others are
/// rewarded as predicted). On ten-minute tunes of `examples/abt.c` nine
/// rollouts in ten ran more than twice slower than the best with any
/// share (0, 0.25 or 1): the model fitted on every leaf does not tell
/// the few good rollouts apart, so a quarter keeps it learning.
const EVALUATE_UNPROMISING: f64 = 0.25;

/// Leaves MCTS's local steps draw neighbours around (among the best and
/// the leaves within 1.25 times it, those whose neighbours came that
/// close most often first). Around the best alone, once its good
/// neighbours were evaluated every draw was slow: in the last three
/// minutes of a ten-minute tune of `examples/abt.c` half the time went
/// to candidates more than twice slower than the best.
const ELITES: usize = 4;

/// The fewest of every 100 evaluations MCTS gives its tree when its
/// rollouts come near the best far less often than the local steps (one
/// in twenty against three in four on `examples/abt.c`). Not none, so
/// that the tree keeps exploring: where the starts are poor, its yield
/// keeps its share up.
const MIN_TREE_STEPS: usize = 5;

/// What a tuning run found.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// The kernel's C file, as given.
    pub kernel: PathBuf,
    /// The search's name (`mcts`, `random`, ...).
    pub search: String,
    /// The search's seed.
    pub seed: u64,
    /// Why the search stopped.
    pub stop: StopReason,
    /// Evaluations of the search, replayed ones included.
    pub evaluations: usize,
    /// Evaluations replayed from the journal.
    pub replayed: usize,
    /// Candidates that could not be lowered, built or run.
    pub failures: usize,
    /// Candidates that computed other values than the original program.
    pub wrong: usize,
    /// Candidates cut off after one run, far slower than the best.
    pub cut_off: usize,
    /// Candidates stopped at the run timeout (which follows the best).
    pub timed_out: usize,
    /// Candidates timed but no faster than the best, not checked.
    pub slower: usize,
    /// Candidates (and partial candidates) whose lower bound the search
    /// compared with the best time, and how many it skipped for it.
    pub bound_checks: usize,
    /// See `bound_checks`.
    pub pruned: usize,
    /// The unmodified program's time, in seconds.
    pub reference_seconds: f64,
    /// The fastest verified candidate, if any was measured.
    pub best: Option<Best>,
    /// The unmodified program built with each configuration the compiler
    /// offers, measured before the search.
    pub baselines: Vec<Baseline>,
    /// The baseline written instead of the best candidate (its index in
    /// `baselines`), when it is faster: the output is the original
    /// program, to be built with its flags.
    pub baseline_won: Option<usize>,
    /// The command the written file was measured with (also its first
    /// line, in a comment).
    pub built_with: String,
    /// The environment its runs were timed in (`OMP_NUM_THREADS=2
    /// OMP_PROC_BIND=spread`).
    pub run_with: String,
    /// Where the best candidate was written (when there is one).
    pub output: PathBuf,
    /// Candidates written with directives, and as explicit code.
    pub forms: (usize, usize),
    /// The build directories' parent, where wrong candidates are kept.
    pub work_dir: PathBuf,
    /// The journal of the search.
    pub journal: PathBuf,
    /// The steps before the search (the reference, Polly's schedule, the
    /// baselines, the original nest) and the seconds each took: with a
    /// time budget, the search had what they left.
    pub setup: Vec<(String, f64)>,
    /// The time budget, in seconds, if any: the whole run's.
    pub time_budget: Option<f64>,
}

/// `commute tune`: builds and times the reference program, measures the
/// original nest lowered (and, on resuming, the best recorded candidate
/// again), runs the search, and writes the best verified candidate to the
/// output file. Errors stop the run before or outside the search (no
/// compiler, a reference that does not build, an unwritable file).
pub fn tune(options: &TuneOptions, progress: &mut dyn TuneProgress) -> Result<TuneReport, String> {
    let deadline = Deadline::new(options.time_budget);
    // Where the time before the search goes, for the report.
    let mut setup: Vec<(String, f64)> = Vec::new();
    if !(options.cutoff == 0.0 || options.cutoff >= 1.0) {
        return Err(format!(
            "--cutoff {}: give a factor of at least 1, or 0 to time every candidate in full",
            options.cutoff
        ));
    }
    let stem = options
        .kernel
        .kernel
        .file_stem()
        .map_or("kernel".to_string(), |s| s.to_string_lossy().into_owned());
    let work_dir = options
        .work_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("commute-out").join(&stem));
    std::fs::create_dir_all(&work_dir)
        .map_err(|e| format!("cannot create `{}`: {e}", work_dir.display()))?;
    let _lock = lock::WorkDirLock::take(&work_dir)?;
    let compiler = Compiler::detect(options.cc.as_deref()).map_err(|e| e.to_string())?;
    let baseline_cc = match &options.baseline_cc {
        Some(name) => {
            Some(Compiler::detect(Some(name)).map_err(|e| format!("--baseline-cc: {e}"))?)
        }
        None => None,
    };
    // Polly is a baseline and a value of the `optimizer` decision; wide
    // vectors a value of `vector_width`, where the target has them.
    let features = CompilerFeatures::probe(&compiler, &work_dir.join("probes"), &options.cflags);
    let polly = features.polly;
    if !polly {
        progress.note(&baselines::no_polly_note(&compiler));
    }
    let loaded = LoadedKernel::load_for(&options.kernel, features)?;
    // Reading the kernel and propagating its space's root: seconds where
    // the space has hundreds of objects (PolyBench's deriche, 155).
    setup.push((
        "the loop space".to_string(),
        deadline.elapsed().as_secs_f64(),
    ));
    let configurations = if options.no_baselines {
        Vec::new()
    } else {
        baselines::configurations(&compiler, polly, baseline_cc)
    };
    let directives = compiler.supports_loop_directives();
    let emit = options.emit.describe(directives)?;
    progress.note(&format!(
        "compiler: {} ({}); candidates as {emit}",
        compiler.path.display(),
        compiler.version_line
    ));
    let config = harness_config(options, compiler, &loaded.path, &work_dir);
    let threads = config.threads;
    let flags = config.cflags.join(" ");
    progress.note(&format!(
        "reference: building and timing the unmodified program ({flags}, {threads} threads)"
    ));
    let reference = reference_code(loaded.host.kernel());
    let step = Instant::now();
    let mut harness = Harness::new(config, &reference).map_err(|e| e.to_string())?;
    // No run outlasts the budget, a baseline's or the original nest's
    // included: one cut there ends as timed out.
    harness.set_deadline(deadline.at());
    let reference_wall = step.elapsed().as_secs_f64();
    setup.push(("the reference".to_string(), reference_wall));
    let reference_seconds = harness.reference_seconds();
    if let Some(note) = harness.time_note() {
        progress.note(&format!("note: {note}"));
    }
    progress.note(&format!("reference: {reference_seconds:.6} s"));
    let bound = if options.no_bound {
        None
    } else {
        match loop_bound(&loaded.host, harness.config(), &work_dir.join("bound")) {
            Ok((bound, machine, cached)) => {
                progress.note(&format!(
                    "machine ({}): {}",
                    if cached { "cached" } else { "measured" },
                    machine.describe()
                ));
                progress.note(&format!("lower bound: {}", bound.describe()));
                Some(bound)
            }
            Err(e) => {
                progress.note(&format!("warning: searching without a lower bound: {e}"));
                None
            }
        }
    };

    let budget = match (options.budget, options.time_budget, options.search) {
        (None, None, Strategy::Exhaustive) => None,
        (None, None, _) => Some(100),
        (b, _, _) => b,
    };
    let config = SearchConfig {
        seed: options.seed,
        budget: Budget {
            evaluations: budget,
            time: options.time_budget.map(Duration::from_secs_f64),
        },
        priority: DECISION_PRIORITY.to_vec(),
    };
    // Polly's own schedule, read as decisions, is where MCTS starts.
    let polly_start = polly && options.search == Strategy::Mcts && !options.no_polly_start;
    let read_polly = polly_start && !deadline.spent();
    if polly_start && !read_polly {
        progress.note("Polly's schedule is not read: the time budget is spent");
    }
    let step = Instant::now();
    let mut starts = if read_polly {
        match polly_start::polly_start(&loaded, harness.config(), &work_dir.join("polly")) {
            Ok(start) => {
                progress.note(&start.summary());
                for line in &start.translation.untranslated {
                    progress.note(&format!("  not translated: {line}"));
                }
                start.leaves
            }
            Err(e) => {
                progress.note(&format!(
                    "warning: Polly's schedule is not read ({e}); the search starts from the root"
                ));
                Vec::new()
            }
        }
    } else {
        Vec::new()
    };
    if polly_start {
        setup.push(("Polly's schedule".to_string(), step.elapsed().as_secs_f64()));
    }
    let polly_leaves = starts.len();
    // The starts and the search work without the root's explanations: they
    // hold a slot per value of every instance (on PolyBench's deriche, 34
    // statements, about 225 MB), so every copy of an explained candidate
    // costs that much. The explained root stays for naming refusals.
    let search_root = loaded.root.unexplained_copy();
    let step = Instant::now();
    // So is the original program with its sums in blocks of accumulators.
    let blocked_start = options.search == Strategy::Mcts && !options.no_blocked_start;
    if blocked_start {
        match blocked_start::blocked_start(&loaded.host, &search_root, threads) {
            Ok(Some(start)) => {
                let names = Names::new(&loaded.host);
                progress.note(&format!(
                    "blocked start: {}",
                    start
                        .blocks
                        .iter()
                        .map(|block| block.describe(&loaded.host, &names))
                        .collect::<Vec<_>>()
                        .join("; ")
                ));
                // First: where it applies it is the fastest start (on a C =
                // A * B^T kernel 1.0-1.5x the final best, Polly's 8-16x),
                // and the slower starts after it are cut off after one
                // run instead of timed in full.
                starts.insert(0, start.leaf);
            }
            Ok(None) => {}
            Err(e) => progress.note(&format!("warning: no blocked start ({e})")),
        }
    }
    // So is a stencil over time tiled across its time steps.
    let time_tiled_start = options.search == Strategy::Mcts && !options.no_time_tiled_start;
    if time_tiled_start {
        match time_tiled_start::time_tiled_start(&loaded.host, &search_root, threads) {
            Ok(Some(start)) => {
                let time = &loaded.host.kernel().loops[start.time.0].iterator;
                let tiles: Vec<String> = start
                    .tiles
                    .iter()
                    .map(|(steps, rows)| format!("{steps} x {rows}"))
                    .collect();
                progress.note(&format!(
                    "time-tiled start: {}rows skewed by `{time}`, tiles of at most {} time steps x rows{} ({} leaves)",
                    if start.fused { "sweeps fused, " } else { "" },
                    tiles.join(", "),
                    if threads > 1 { " run as a wavefront" } else { "" },
                    start.leaves.len()
                ));
                // First: where it applies to arrays that outgrow the
                // caches it is the fastest start by far.
                for (at, leaf) in start.leaves.into_iter().enumerate() {
                    starts.insert(at, leaf);
                }
            }
            Ok(None) => {}
            Err(e) => progress.note(&format!("warning: no time-tiled start ({e})")),
        }
    }
    // So are the sums a compiler does not vectorize, in vector lanes.
    let vector_start = options.search == Strategy::Mcts && !options.no_vector_start;
    if vector_start {
        match vector_start::vector_start(&loaded.host, &search_root, threads) {
            Ok(Some(start)) => {
                let names = Names::new(&loaded.host);
                let list = |dims: &[StatementsId]| {
                    dims.iter()
                        .map(|d| names.object(d.0))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let parallel = if start.parallel.is_empty() {
                    String::new()
                } else {
                    format!(", then also {} in parallel", list(&start.parallel))
                };
                let leaves: Vec<LoopCandidate> = start
                    .leaves
                    .into_iter()
                    .filter(|leaf| !starts.iter().any(|s| s.decisions() == leaf.decisions()))
                    .collect();
                progress.note(&format!(
                    "vector start: {} in vector lanes{parallel} ({} {})",
                    list(&start.lanes),
                    leaves.len(),
                    if leaves.len() == 1 { "leaf" } else { "leaves" }
                ));
                // After the blocked and time-tiled starts, which apply to
                // other kernels, and before Polly's schedule, which keeps
                // such sums in order: where it applies it is the largest
                // gain, and on loops that run for seconds a short budget
                // evaluates only the first few starts.
                let ahead = starts.len() - polly_leaves;
                starts.splice(ahead..ahead, leaves);
            }
            Ok(None) => {}
            Err(e) => progress.note(&format!("warning: no vector start ({e})")),
        }
    }
    // So is the original program with its outer loops in parallel: the
    // least a search should reach, and where no other start applies the
    // only good one (random descents from the root mostly time out at
    // sizes that outgrow the caches).
    let parallel_start = options.search == Strategy::Mcts && !options.no_parallel_start;
    if parallel_start {
        match parallel_start::parallel_start(&loaded.host, &search_root, threads) {
            Ok(Some(start)) => {
                let names = Names::new(&loaded.host);
                let dims: Vec<String> = start.parallel.iter().map(|d| names.object(d.0)).collect();
                let known = starts
                    .iter()
                    .any(|s| s.decisions() == start.leaf.decisions());
                progress.note(&format!(
                    "parallel start: {} in parallel ({})",
                    dims.join(", "),
                    if known { "as another start" } else { "1 leaf" }
                ));
                if !known {
                    starts.push(start.leaf);
                }
            }
            Ok(None) => {}
            Err(e) => progress.note(&format!("warning: no parallel start ({e})")),
        }
    }
    // So, where asked, is the original program fused as far as it may be.
    let fused_start = options.search == Strategy::Mcts && options.fused_start;
    if fused_start {
        match fused_start::fused_start(&loaded.host, &search_root, threads) {
            Ok(Some(start)) => {
                let names = Names::new(&loaded.host);
                let pairs: Vec<String> = start
                    .merged
                    .iter()
                    .map(|&(a, b)| format!("{} with {}", names.object(a.0), names.object(b.0)))
                    .collect();
                progress.note(&format!(
                    "fused start: {} ({} leaves)",
                    pairs.join(", "),
                    start.leaves.len()
                ));
                starts.extend(start.leaves);
            }
            Ok(None) => {}
            Err(e) => progress.note(&format!("warning: no fused start ({e})")),
        }
    }
    if blocked_start || time_tiled_start || vector_start || parallel_start || fused_start {
        setup.push(("the starts".to_string(), step.elapsed().as_secs_f64()));
    }
    let search_name = format!("{:?}", options.search).to_lowercase();
    let header = Header::new(
        options.kernel.journal_space(),
        search_name.clone(),
        options.seed,
        serde_json::json!({
            "fixes": loaded.fixes,
            "cflags": flags,
            "threads": threads,
            "space": loaded.fingerprint(),
            "batch": options.batch.max(1),
            "screen": options.screen.max(1),
            "screen_rounds": SCREEN_ROUNDS,
            "evaluate_unpromising": EVALUATE_UNPROMISING,
            "elites": ELITES,
            "elites_ranked_by": "yield",
            "local_within": MctsConfig::default().local_within,
            "min_tree_steps": MIN_TREE_STEPS,
            "descents": UNIFORM_DESCENTS,
            "cutoff": options.cutoff,
            "bound": bound.is_some(),
            "polly_start": polly_start,
            "fused_start": fused_start,
            "time_tiled_start": time_tiled_start,
            "parallel_start": parallel_start,
            "vector_start": vector_start,
            "blocked_start": blocked_start,
            "baselines": configurations.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        }),
    );
    let journal_path = options
        .journal
        .clone()
        .unwrap_or_else(|| work_dir.join("journal.jsonl"));
    let (mut journal, replay) = if options.resume {
        let (recorded_header, recorded, journal) =
            Journal::open_for_resume(&journal_path).map_err(|e| e.to_string())?;
        if let Some(why) = recorded_header.mismatch(&header) {
            return Err(format!("cannot resume `{}`: {why}", journal_path.display()));
        }
        progress.note(&format!(
            "resuming {} evaluations from {}",
            recorded.len(),
            journal_path.display()
        ));
        (journal, Some(Replay::new(recorded)))
    } else {
        (
            Journal::create(&journal_path, &header)
                .map_err(|e| format!("cannot write `{}`: {e}", journal_path.display()))?,
            None,
        )
    };
    // Before the search, so that its progress shows how far it is from
    // them; within a quarter of the time budget.
    // Weighed by the reference's measurement with its check run and a
    // timed run, also where the check run stood for the timed run.
    let reference_cost = reference_wall
        + if harness.reference_check_counted() {
            harness.reference_run_wall()
        } else {
            0.0
        };
    let plan = deadline::baseline_plan(
        configurations.len().saturating_sub(1),
        harness.config().runs,
        reference_cost,
        deadline.budget_seconds(),
        deadline.seconds_left(),
    );
    // With room for few, the build most likely the fastest first.
    let mut configurations = configurations;
    if plan.reduced && threads > 1 {
        baselines::parallel_first(&mut configurations);
    }
    let step = Instant::now();
    let baselines = baselines::measure(
        &mut harness,
        &reference,
        &configurations,
        plan,
        &mut journal,
        progress,
    );
    if configurations.len() > 1 {
        setup.push(("the baselines".to_string(), step.elapsed().as_secs_f64()));
    }
    let output = options
        .output
        .clone()
        .unwrap_or_else(|| work_dir.join(format!("{stem}.tuned.c")));
    // A candidate far slower than the fastest baseline is never the
    // result: cut off against it as against the best (on PolyBench's lu a
    // candidate 3x slower than Polly's parallel build was timed in full,
    // 75 s of a two-minute budget).
    let fastest = baselines::fastest(&baselines);
    harness.set_baseline(fastest.map(|(_, seconds)| seconds));
    // From now on the output holds the fastest program known.
    if let Some((index, _)) = fastest {
        write_program(
            &output,
            &loaded.host.kernel().source,
            &baselines[index].command,
        )?;
    }
    if let (Some((index, seconds)), Some(factor)) = (fastest, harness.config().cutoff) {
        progress.note(&format!(
            "candidates more than {factor}x slower than the fastest baseline ({}, {seconds:.6} s) are cut off after one run",
            baselines[index].name
        ));
    }
    let built_with = harness.command(&[]);
    let bound_ref: &dyn Bound<_> = match &bound {
        Some(bound) => bound,
        None => &NoBound,
    };
    let mut evaluator = KernelEvaluator {
        loaded: &loaded,
        harness,
        reference_seconds,
        best: None,
        // Replayed evaluations come first: the evaluator sees the others.
        evaluations: replay.as_ref().map_or(0, Replay::len),
        failures: 0,
        wrong: 0,
        cut_off: 0,
        timed_out: 0,
        slower: 0,
        budget,
        deadline,
        output: output.clone(),
        fastest_baseline: fastest.map(|(_, seconds)| seconds),
        work_dir: work_dir.clone(),
        emit: options.emit,
        directives,
        forms: (0, 0),
        bound: bound.as_ref().map(|b| b as &dyn Bound<_>),
        lowered: Default::default(),
        noted_check_builds: false,
        progress,
    };
    // The original nest, lowered, is measured first: the search's result is
    // never slower than the program as written.
    // Under a short budget it is left out: it is the program as written,
    // which the plain baseline (the reference) stands for, and on a kernel
    // that runs for seconds its runs are the search's first evaluations.
    let original = complete_with_original(&loaded.host, &search_root)?;
    if deadline.spent() {
        evaluator
            .progress
            .note("the original loop nest is not measured: the time budget is spent");
    } else if plan.reduced {
        evaluator.progress.note(
            "the original loop nest is not measured: the time budget is short, and the plain baseline stands for it",
        );
    } else {
        let step = Instant::now();
        let (outcome, note) = evaluator.measure(&original, None);
        setup.push((
            "the original nest".to_string(),
            step.elapsed().as_secs_f64(),
        ));
        evaluator.progress.note(&format!(
            "the original loop nest (with the fixed decisions), lowered: {note}"
        ));
        if outcome.status != Status::Ok {
            evaluator
                .progress
                .note("warning: it does not measure; the search goes on");
        }
    }
    // Replayed evaluations are not run again, so the best of them is, once:
    // it competes with what the search finds now.
    if let Some(recorded) = replay.as_ref().and_then(|r| best_recorded(r.evaluations())) {
        let mut leaf = search_root.clone();
        let note = match recorded.path.iter().try_for_each(|action| leaf.apply(action)) {
            Ok(()) if leaf.is_complete() => {
                let (_, note) = evaluator.measure(&leaf, Some(recorded.index));
                format!(
                    "the best recorded candidate (evaluation {}), measured again: {note}",
                    recorded.index + 1
                )
            }
            _ => format!(
                "warning: the best recorded candidate (evaluation {}) is not a leaf of this space; it is left out",
                recorded.index + 1
            ),
        };
        evaluator.progress.note(&note);
    }
    // The search has what the steps before it left of the time budget.
    if let Some(left) = deadline.seconds_left() {
        evaluator.progress.note(&format!(
            "before the search, {}; the search has {left:.1} s",
            describe_setup(&setup, deadline.budget_seconds())
        ));
    }
    let config = SearchConfig {
        budget: Budget {
            time: deadline.left(),
            ..config.budget
        },
        ..config
    };
    let mut search = SearchHarness::new(&mut evaluator, &config)
        .with_journal(&mut journal)
        .with_batch(options.batch)
        .with_starts(
            starts
                .into_iter()
                .map(LoopCandidate::without_explanations)
                .collect(),
        );
    if let Some(replay) = replay {
        search = search.with_replay(replay);
    }
    let root = &search_root;
    let result = match options.search {
        Strategy::Mcts => mcts(
            root,
            search,
            bound_ref,
            &MctsConfig {
                screen: options.screen.max(1),
                screen_rounds: SCREEN_ROUNDS,
                evaluate_unpromising: EVALUATE_UNPROMISING,
                elites: ELITES,
                min_tree_steps: Some(MIN_TREE_STEPS),
                ..MctsConfig::default()
            },
        ),
        Strategy::Random => run_random(root, search),
        Strategy::Greedy => run_greedy(root, search, bound_ref, true),
        Strategy::Exhaustive => run_exhaustive(root, search, bound_ref),
    };
    evaluator.progress.finished();

    // The result is never slower than the fastest baseline: when one is
    // faster (or no candidate measured), the original program is written,
    // with that baseline's command.
    let baseline_won = baselines::fastest(&baselines)
        .filter(|(_, seconds)| evaluator.best.as_ref().is_none_or(|b| *seconds < b.seconds))
        .map(|(index, _)| index);
    let (written, built_with) = match (baseline_won, &evaluator.best) {
        (Some(index), _) => (
            Some(&loaded.host.kernel().source),
            baselines[index].command.clone(),
        ),
        (None, Some(best)) => (Some(&best.source), evaluator.harness.command(&best.flags)),
        (None, None) => (None, built_with),
    };
    if let Some(source) = written {
        write_program(&output, source, &built_with)?;
    }
    // What was written, for reports: the journal's evaluations hold
    // neither the original nest measured first nor the baselines' verdict.
    let _ = journal.append_record(
        RESULT_RECORD,
        &serde_json::json!({
            "best_candidate": evaluator.best.as_ref().map(|b| b.seconds),
            "written": match (baseline_won, &evaluator.best) {
                (Some(index), _) => format!("baseline {}", baselines[index].name),
                (None, Some(_)) => "the best candidate".to_string(),
                (None, None) => "nothing".to_string(),
            },
            "flags": built_with,
        }),
    );
    let _ = journal.sync();
    Ok(TuneReport {
        kernel: loaded.path.clone(),
        search: search_name,
        seed: options.seed,
        stop: result.stop,
        evaluations: result.evaluations.len(),
        replayed: result.replayed,
        failures: evaluator.failures,
        wrong: evaluator.wrong,
        cut_off: evaluator.cut_off,
        timed_out: evaluator.timed_out,
        slower: evaluator.slower,
        bound_checks: result.bound_checks,
        pruned: result.pruned,
        reference_seconds,
        best: evaluator.best,
        baselines,
        baseline_won,
        built_with,
        run_with: run_environment_line(evaluator.harness.config().threads),
        output,
        forms: evaluator.forms,
        work_dir,
        journal: journal_path,
        setup,
        time_budget: options.time_budget,
    })
}

/// The steps before the search and their seconds, for people: `39.9 s
/// of the 60 s budget: the reference 14.7 s, the baselines 9.9 s`.
fn describe_setup(setup: &[(String, f64)], budget: Option<f64>) -> String {
    let spent: f64 = setup.iter().map(|(_, seconds)| seconds).sum();
    let steps: Vec<String> = setup
        .iter()
        .map(|(step, seconds)| format!("{step} {seconds:.1} s"))
        .collect();
    let budget = budget.map_or(String::new(), |b| format!(" of the {b:.0} s budget"));
    format!("{spent:.1} s{budget}: {}", steps.join(", "))
}

impl TuneReport {
    /// Whether no candidate was measured at all (neither the original
    /// nest nor any of the search), as when the time budget ran out first.
    pub fn measured_nothing(&self) -> bool {
        self.best.is_none()
            && self.evaluations + self.cut_off + self.timed_out + self.failures + self.wrong == 0
    }

    /// Where the time before the search went, for people (nothing when
    /// no step was timed): `before the search, 39.9 s of the 60 s budget:
    /// the reference 14.7 s, Polly's schedule 4.0 s, ...`.
    pub fn setup_summary(&self) -> Option<String> {
        (!self.setup.is_empty()).then(|| {
            format!(
                "before the search, {}",
                describe_setup(&self.setup, self.time_budget)
            )
        })
    }
}

/// The harness's configuration from the options: the compiler, flags, the
/// kernel's directory for its includes, threads, runs, timeouts and where
/// the time is read.
fn harness_config(
    options: &TuneOptions,
    compiler: Compiler,
    kernel: &Path,
    work_dir: &Path,
) -> HarnessConfig {
    let mut config = HarnessConfig::new(compiler, work_dir.join("builds"));
    config.cflags = effective_cflags(&options.cflags);
    if let Some(dir) = kernel.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        config.include_dirs.push(dir.to_path_buf());
    }
    if let Some(threads) = options.threads {
        config.threads = threads.max(1);
    }
    config.runs = options.runs.max(1);
    config.cutoff = (options.cutoff > 0.0).then_some(options.cutoff);
    if let Some(jobs) = options.jobs {
        config.jobs = jobs.max(1);
    }
    config.compile_timeout = Duration::from_secs_f64(options.compile_timeout.max(0.1));
    config.run_timeout_floor = Duration::from_secs_f64(options.run_timeout.max(0.1));
    // A reference that runs longer than the whole budget leaves nothing
    // to tune: it says so when the budget ends, not minutes later.
    if let Some(budget) = options.time_budget.filter(|b| *b > 0.0) {
        config.reference_timeout = config
            .reference_timeout
            .min(Duration::from_secs_f64(budget));
        config.reference_runs_within =
            Some(Duration::from_secs_f64(deadline::REFERENCE_SHARE * budget));
    }
    if let Some(prefix) = &options.time_prefix {
        config.time_pattern = TimePattern::Prefix(prefix.clone());
    }
    config
}

/// The fastest successful evaluation of a journal.
fn best_recorded(evaluations: &[Evaluation]) -> Option<&Evaluation> {
    evaluations
        .iter()
        .filter(|e| e.status == Status::Ok)
        .filter_map(|e| e.value.map(|v| (v, e)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, e)| e)
}
