//! `commute tune KERNEL.c`: searches the loop space of a C kernel,
//! compiles and times candidates, checks each against the original
//! program, and writes the fastest verified one. `commute lower KERNEL.c`
//! writes one candidate, given by fixed decisions, without searching.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use commute_runtime::fix::read_fix_file;
use commute_runtime::search::journal::{Header, Journal, Replay};
use commute_runtime::search::{
    mcts, run_exhaustive, run_greedy, run_random, Budget, Evaluation, Evaluator,
    Harness as SearchHarness, MctsConfig, NoBound, Outcome, SearchConfig, Status, StopReason,
};
use commute_runtime::{Candidate, InstanceId};
use commute_spaces::loops::backbone::KernelHost;
use commute_spaces::loops::complete::{complete_with_original, original_value};
use commute_spaces::loops::directives::directive_code;
use commute_spaces::loops::emit::{explicit_code, reference_code};
use commute_spaces::loops::frontend::{read_kernel, Kernel};
use commute_spaces::loops::harness::{
    remeasure_rounds, Compiler, Harness, HarnessConfig, Measurement, TimePattern,
};
use commute_spaces::loops::names::{apply_named_fixes, Names};
use commute_spaces::loops::schedule::Schedule;
use commute_spaces::loops::space::{dim_kind, order, tile_size, Backbone, StatementsId};
use commute_spaces::loops::DECISION_PRIORITY;

type LoopCandidate = Candidate<Backbone<KernelHost>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// Monte Carlo tree search with threshold ascent (TAG).
    Mcts,
    Random,
    /// Greedy by evaluation of one random completion per child.
    Greedy,
    Exhaustive,
}

/// How candidates are written out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The user's loops with OpenMP 6.0 directives (`tile`, `interchange`,
    /// `unroll partial`, `parallel for`, `simd`) inserted; candidates that
    /// directives cannot express fail. Needs clang 20 or later.
    Directives,
    /// Plain C loops with `omp parallel for` / `omp simd`: any candidate,
    /// any compiler.
    Code,
    /// Directives when the compiler takes them and the candidate keeps the
    /// original loop structure, else explicit code.
    Auto,
}

/// The form a candidate was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Directives,
    Code,
}

impl Emit {
    /// What to say about the chosen form, or why it cannot be used.
    fn describe(self, directives_supported: bool) -> Result<&'static str, String> {
        match (self, directives_supported) {
            (Emit::Directives, false) => Err(
                "--emit directives needs clang 20 or later (OpenMP 6.0 loop transformations); give one with --cc, or use --emit code".into(),
            ),
            (Emit::Directives, true) => Ok("OpenMP 6.0 directives on the original loops (candidates they cannot express fail)"),
            (Emit::Auto, true) => Ok("OpenMP 6.0 directives where the candidate keeps the original loops, explicit code otherwise"),
            (Emit::Auto, false) | (Emit::Code, _) => Ok("explicit code (plain loops, omp parallel for / omp simd)"),
        }
    }
}

/// A kernel and the decisions fixed on it: what both commands read.
#[derive(clap::Args)]
pub struct KernelOptions {
    /// A C file with its loop nest between `#pragma scop` and `#pragma
    /// endscop`.
    #[arg(value_name = "KERNEL.c")]
    pub kernel: PathBuf,
    /// A decision fixed upfront, objects named as `commute show` lists
    /// them: `dim_kind(j) = PARALLEL`, `tile_size(k) = 32`,
    /// `order(i, j) = OUTER` (repeatable).
    #[arg(long = "fix", value_name = "CHOICE(OBJECTS)=VALUE")]
    pub fixes: Vec<String>,
    /// A file of fixed decisions, one per line (`#` comments).
    #[arg(long)]
    pub fix_file: Option<PathBuf>,
}

/// `commute tune`'s options.
#[derive(clap::Args)]
pub struct TuneOptions {
    #[command(flatten)]
    pub kernel: KernelOptions,
    /// Evaluations at most [default: 100, unless --time-budget is given].
    #[arg(long)]
    pub budget: Option<usize>,
    /// Seconds at most.
    #[arg(long, value_name = "SECONDS")]
    pub time_budget: Option<f64>,
    #[arg(long, value_enum, default_value_t = Strategy::Mcts)]
    pub search: Strategy,
    /// Seed of the search.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The C compiler [default: clang-22, -21, -20 or clang >= 20 if
    /// found, else cc].
    #[arg(long)]
    pub cc: Option<String>,
    /// How candidates are written out.
    #[arg(long, value_enum, default_value_t = Emit::Auto)]
    pub emit: Emit,
    /// OMP_NUM_THREADS of every run [default: the cores available].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Where to write the best candidate [default:
    /// commute-out/KERNEL/KERNEL.tuned.c].
    #[arg(short, long, value_name = "OUT.c")]
    pub output: Option<PathBuf>,
    /// Build directories, journal and plot [default: commute-out/KERNEL].
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// The journal [default: WORK_DIR/journal.jsonl].
    #[arg(long)]
    pub journal: Option<PathBuf>,
    /// Continue the search recorded in the journal without evaluating
    /// its leaves again.
    #[arg(long)]
    pub resume: bool,
    /// Timed runs per candidate after a warm-up (doubled under 50 ms).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Seconds a compile may take.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    pub compile_timeout: f64,
    /// A candidate's run is stopped after ten times the reference's
    /// time, but never sooner than this many seconds.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    pub run_timeout: f64,
    /// Read the time from the standard-output line starting with this
    /// prefix [default: the last line that is a number, as PolyBench
    /// prints with -DPOLYBENCH_TIME; else wall time].
    #[arg(long, value_name = "PREFIX")]
    pub time_prefix: Option<String>,
    /// Flags for the compiler [default: -O3 -march=native].
    #[arg(last = true, value_name = "CFLAGS")]
    pub cflags: Vec<String>,
}

/// `commute lower`'s options.
#[derive(clap::Args)]
pub struct LowerOptions {
    #[command(flatten)]
    pub kernel: KernelOptions,
    /// Where to write it [default: standard output].
    #[arg(short, long, value_name = "OUT.c")]
    pub output: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Emit::Auto)]
    pub emit: Emit,
}

/// The kernel read, its host, and the root candidate with the fixed
/// decisions applied.
struct Loaded {
    path: PathBuf,
    host: KernelHost,
    names: Names,
    /// The space's root with the fixed decisions applied.
    root: LoopCandidate,
    /// The space's root before them.
    unfixed: LoopCandidate,
    fixes: Vec<String>,
}

fn load(options: &KernelOptions) -> Result<Loaded, String> {
    let path = options.kernel.clone();
    let source = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let kernel = read_kernel(&path.display().to_string(), &source).map_err(|e| e.to_string())?;
    let host = KernelHost::new(kernel);
    let mut root = Candidate::new_explained(Backbone(host.clone()))
        .map_err(|e| format!("{}: the loop space has no candidate: {e}", path.display()))?;
    let mut fixes = options.fixes.clone();
    if let Some(file) = &options.fix_file {
        fixes.extend(
            read_fix_file(file).map_err(|e| format!("cannot read `{}`: {e}", file.display()))?,
        );
    }
    let unfixed = root.clone().without_explanations();
    apply_named_fixes(&host, &mut root, &fixes)?;
    let names = Names::new(&host);
    Ok(Loaded {
        path,
        host,
        names,
        root,
        unfixed,
        fixes,
    })
}

/// The decisions of a leaf that differ from the original program's, for
/// people: only those the earlier ones do not imply, so that, given to
/// `commute lower` as fixed decisions (the rest completed as in the
/// original program), they give the leaf back.
fn differences(loaded: &Loaded, leaf: &LoopCandidate) -> Vec<String> {
    let mut changed = Vec::new();
    let decisions = [order::CHOICE, tile_size::CHOICE, dim_kind::CHOICE];
    for instance in leaf.instances(&decisions) {
        // The other choices (`carries`) follow from these.
        if !decisions.contains(&instance.choice) {
            continue;
        }
        let Some(action) = single_action(leaf, &instance) else {
            continue;
        };
        // A tile dimension's size is its point's.
        let tile = |o: u32| {
            loaded
                .host
                .dimension(StatementsId(o))
                .is_some_and(|d| d.tile)
        };
        if instance.choice == tile_size::CHOICE && instance.objects.iter().any(|&o| tile(o)) {
            continue;
        }
        if action.values != original_value(&loaded.host, leaf, &instance) {
            changed.push(action);
        }
    }
    let mut replayed = loaded.unfixed.clone();
    let mut needed = Vec::new();
    for action in &changed {
        let instance = action.instance();
        if single_action(&replayed, &instance).is_some_and(|a| a.values == action.values) {
            continue;
        }
        if replayed.apply(action).is_err() {
            // Cannot happen for a leaf of the same root; say everything.
            return loaded.names.summarize(leaf, &changed);
        }
        needed.push(action.clone());
    }
    loaded.names.summarize(leaf, &needed)
}

fn single_action(leaf: &LoopCandidate, instance: &InstanceId) -> Option<commute_runtime::Action> {
    let values = match leaf.domain(instance)? {
        commute_runtime::Domain::Enum(mask) => mask,
        commute_runtime::Domain::Integer { mask, .. } => mask,
        commute_runtime::Domain::Counter { .. } => return None,
    };
    (values.count_ones() == 1).then(|| commute_runtime::Action {
        choice: instance.choice,
        objects: instance.objects.clone(),
        values,
    })
}

/// A hash of the kernel's source and of every instance's values at the
/// root: a journal is resumed only against the same kernel and the same
/// version of the space (decisions are stored as value bits).
fn fingerprint(loaded: &Loaded) -> String {
    crate::fingerprint::fingerprint(loaded.host.kernel().source.as_bytes(), &loaded.root)
}

/// The candidate written as C in the form `emit` asks for (`directives`:
/// whether the compiler takes OpenMP 6.0 loop directives), with its
/// decisions in a comment.
fn lower_leaf(
    loaded: &Loaded,
    leaf: &LoopCandidate,
    emit: Emit,
    directives: bool,
) -> Result<(Schedule, String, Form), String> {
    let schedule = Schedule::from_candidate(&loaded.host, leaf).map_err(|e| e.to_string())?;
    let mut comment = vec![format!(
        "decisions that differ from the original program ({}):",
        loaded.path.display()
    )];
    let changed = differences(loaded, leaf);
    if changed.is_empty() {
        comment.push("  none".to_string());
    }
    comment.extend(changed.into_iter().map(|d| format!("  {d}")));
    let kernel = loaded.host.kernel();
    let (code, form) = match (emit, directives) {
        (Emit::Directives, _) => (
            directive_code(kernel, &schedule, &comment)
                .map_err(|e| format!("not expressible with directives: {e}"))?,
            Form::Directives,
        ),
        (Emit::Auto, true) => match directive_code(kernel, &schedule, &comment) {
            Ok(code) => (code, Form::Directives),
            Err(_) => (explicit(kernel, &schedule, &comment)?, Form::Code),
        },
        (Emit::Auto, false) | (Emit::Code, _) => {
            (explicit(kernel, &schedule, &comment)?, Form::Code)
        }
    };
    Ok((schedule, code, form))
}

fn explicit(kernel: &Kernel, schedule: &Schedule, comment: &[String]) -> Result<String, String> {
    explicit_code(kernel, schedule, comment).map_err(|e| format!("cannot write the loops: {e}"))
}

/// `commute lower`.
pub fn lower(options: &LowerOptions) -> Result<(), String> {
    let loaded = load(&options.kernel)?;
    let leaf = complete_with_original(&loaded.host, &loaded.root)?;
    // Without a compiler to ask, `auto` writes directives where it can.
    let (schedule, code, form) = lower_leaf(&loaded, &leaf, options.emit, true)?;
    eprintln!(
        "written as {}",
        match form {
            Form::Directives => "OpenMP 6.0 directives on the original loops (clang 20 or later)",
            Form::Code => "explicit code (any C compiler with OpenMP)",
        }
    );
    match &options.output {
        Some(path) => {
            std::fs::write(path, &code)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
            eprintln!("wrote {}", path.display());
            eprint!("{}", schedule.outline(loaded.host.kernel()));
        }
        None => say_part!("{code}"),
    }
    Ok(())
}

/// The best verified candidate so far.
struct Best {
    source: String,
    seconds: f64,
    /// The search's evaluation, `None` for the original nest.
    evaluation: Option<usize>,
    outline: String,
    decisions: Vec<String>,
    form: Form,
}

/// Compiles, runs and checks leaves; keeps the best and draws progress.
struct KernelEvaluator<'a> {
    loaded: &'a Loaded,
    harness: Harness,
    reference_seconds: f64,
    best: Option<Best>,
    evaluations: usize,
    failures: usize,
    wrong: usize,
    budget: Option<usize>,
    time_budget: Option<f64>,
    started: Instant,
    terminal: bool,
    work_dir: PathBuf,
    emit: Emit,
    /// Whether the compiler takes OpenMP 6.0 loop directives.
    directives: bool,
    /// Candidates written with directives, and as explicit code.
    forms: (usize, usize),
}

impl KernelEvaluator<'_> {
    fn speedup(&self) -> Option<f64> {
        self.best
            .as_ref()
            .map(|b| self.reference_seconds / b.seconds)
    }

    fn progress(&self, last: &str) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let count = match self.budget {
            Some(b) => format!("{}/{b}", self.evaluations),
            None => self.evaluations.to_string(),
        };
        let bar = self.budget.map_or(String::new(), |b| {
            let filled = (20 * self.evaluations / b.max(1)).min(20);
            format!("[{}{}] ", "#".repeat(filled), ".".repeat(20 - filled))
        });
        let best = self
            .speedup()
            .map_or("none yet".to_string(), |s| format!("{s:.2}x"));
        let left = self.time_budget.map_or(String::new(), |t| {
            format!(", {:.0} s left", (t - elapsed).max(0.0))
        });
        let wrong = if self.wrong > 0 {
            format!(", {} WRONG", self.wrong)
        } else {
            String::new()
        };
        if self.terminal {
            eprint!(
                "\r\x1b[K{bar}{count} evaluations, best {best}, {} failed{wrong}{left}",
                self.failures
            );
            let _ = std::io::stderr().flush();
        } else {
            eprintln!(
                "evaluation {count}: {last}; best {best}, {} failed{wrong}{left}",
                self.failures
            );
        }
    }

    /// Lowers, builds, runs and checks a leaf; `evaluation` is its index
    /// in the search (`None` for the original nest).
    fn measure(&mut self, leaf: &LoopCandidate, evaluation: Option<usize>) -> (Outcome, String) {
        let (schedule, code, form) = match lower_leaf(self.loaded, leaf, self.emit, self.directives)
        {
            Ok(lowered) => lowered,
            Err(e) => {
                self.failures += 1;
                return (Outcome::failed(format!("cannot lower: {e}")), e);
            }
        };
        match form {
            Form::Directives => self.forms.0 += 1,
            Form::Code => self.forms.1 += 1,
        }
        let measurement = self.harness.evaluate(&code);
        let summary = measurement.summary();
        let index = self.evaluations;
        let search_index = evaluation;
        match measurement {
            Measurement::Timed { seconds, runs } => {
                let mut value = seconds;
                let better = match &self.best {
                    None => true,
                    Some(best) if seconds < best.seconds => {
                        // Both again, interleaved, before a new best is
                        // declared: one run cannot rank close candidates
                        // on a noisy machine.
                        let rounds = remeasure_rounds(best.seconds);
                        match self.harness.remeasure(&best.source, &code, rounds) {
                            Ok((incumbent, challenger)) => {
                                value = value.min(challenger);
                                challenger < incumbent
                            }
                            Err(_) => true,
                        }
                    }
                    Some(_) => false,
                };
                if better {
                    self.best = Some(Best {
                        source: code,
                        seconds: value,
                        evaluation: search_index,
                        outline: schedule.outline(self.loaded.host.kernel()),
                        form,
                        decisions: differences(self.loaded, leaf),
                    });
                }
                let mut outcome = Outcome::ok(value);
                outcome.measurements = runs;
                let note = format!(
                    "{value:.6} s ({:.2}x){}",
                    self.reference_seconds / value,
                    if better { ", new best" } else { "" }
                );
                (outcome, note)
            }
            Measurement::WrongOutput { detail } => {
                self.wrong += 1;
                let kept = self.work_dir.join(match search_index {
                    Some(index) => format!("wrong-{index}.c"),
                    None => "wrong-original.c".to_string(),
                });
                let _ = std::fs::write(&kept, &code);
                eprintln!(
                    "\nLEGALITY BUG: candidate {index} computes other values than the original program ({detail}); it is never reported as a result; its source is kept in {}",
                    kept.display()
                );
                (Outcome::wrong(detail), summary)
            }
            _ => {
                self.failures += 1;
                (Outcome::failed(summary.clone()), summary)
            }
        }
    }
}

impl Evaluator<Backbone<KernelHost>> for KernelEvaluator<'_> {
    fn evaluate(&mut self, leaf: &LoopCandidate) -> Outcome {
        let (outcome, note) = self.measure(leaf, Some(self.evaluations));
        self.evaluations += 1;
        self.progress(&note);
        outcome
    }
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

/// `commute tune`.
pub fn tune(options: &TuneOptions) -> Result<(), String> {
    let loaded = load(&options.kernel)?;
    let stem = loaded
        .path
        .file_stem()
        .map_or("kernel".to_string(), |s| s.to_string_lossy().into_owned());
    let work_dir = options
        .work_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("commute-out").join(&stem));
    std::fs::create_dir_all(&work_dir)
        .map_err(|e| format!("cannot create `{}`: {e}", work_dir.display()))?;
    let compiler = Compiler::detect(options.cc.as_deref()).map_err(|e| e.to_string())?;
    let directives = compiler.supports_loop_directives();
    let emit = options.emit.describe(directives)?;
    eprintln!(
        "compiler: {} ({}); candidates as {emit}",
        compiler.path.display(),
        compiler.version_line
    );
    let mut config = HarnessConfig::new(compiler, work_dir.join("builds"));
    if !options.cflags.is_empty() {
        config.cflags = options.cflags.clone();
    }
    if let Some(dir) = loaded.path.parent() {
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
    config.compile_timeout = Duration::from_secs_f64(options.compile_timeout.max(0.1));
    config.run_timeout_floor = Duration::from_secs_f64(options.run_timeout.max(0.1));
    if let Some(prefix) = &options.time_prefix {
        config.time_pattern = TimePattern::Prefix(prefix.clone());
    }
    let threads = config.threads;
    let flags = config.cflags.join(" ");
    eprintln!("reference: building and timing the unmodified program ({flags}, {threads} threads)");
    let harness =
        Harness::new(config, &reference_code(loaded.host.kernel())).map_err(|e| e.to_string())?;
    let reference_seconds = harness.reference_seconds();
    eprintln!("reference: {reference_seconds:.6} s");

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
    let search_name = format!("{:?}", options.search).to_lowercase();
    let header = Header::new(
        format!("loops:{}", loaded.path.display()),
        search_name.clone(),
        options.seed,
        serde_json::json!({
            "fixes": loaded.fixes,
            "cflags": flags,
            "threads": threads,
            "space": fingerprint(&loaded),
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
        eprintln!(
            "resuming {} evaluations from {}",
            recorded.len(),
            journal_path.display()
        );
        (journal, Some(Replay::new(recorded)))
    } else {
        (
            Journal::create(&journal_path, &header)
                .map_err(|e| format!("cannot write `{}`: {e}", journal_path.display()))?,
            None,
        )
    };
    let mut evaluator = KernelEvaluator {
        loaded: &loaded,
        harness,
        reference_seconds,
        best: None,
        evaluations: 0,
        failures: 0,
        wrong: 0,
        budget,
        time_budget: options.time_budget,
        started: Instant::now(),
        terminal: std::io::stderr().is_terminal(),
        work_dir: work_dir.clone(),
        emit: options.emit,
        directives,
        forms: (0, 0),
    };
    // The original nest, lowered, is measured first: the search's result is
    // never slower than the program as written.
    let original = complete_with_original(&loaded.host, &loaded.root)?;
    let (outcome, note) = evaluator.measure(&original, None);
    eprintln!("the original loop nest (with the fixed decisions), lowered: {note}");
    if outcome.status != Status::Ok {
        eprintln!("warning: it does not measure; the search goes on");
    }
    // Replayed evaluations are not run again, so the best of them is, once:
    // it competes with what the search finds now.
    if let Some(recorded) = replay.as_ref().and_then(|r| best_recorded(r.evaluations())) {
        let mut leaf = loaded.root.clone().without_explanations();
        match recorded.path.iter().try_for_each(|action| leaf.apply(action)) {
            Ok(()) if leaf.is_complete() => {
                let (_, note) = evaluator.measure(&leaf, Some(recorded.index));
                eprintln!(
                    "the best recorded candidate (evaluation {}), measured again: {note}",
                    recorded.index + 1
                );
            }
            _ => eprintln!(
                "warning: the best recorded candidate (evaluation {}) is not a leaf of this space; it is left out",
                recorded.index + 1
            ),
        }
    }
    let mut search = SearchHarness::new(&mut evaluator, &config).with_journal(&mut journal);
    if let Some(replay) = replay {
        search = search.with_replay(replay);
    }
    let root = &loaded.root.clone().without_explanations();
    let result = match options.search {
        Strategy::Mcts => mcts(root, search, &NoBound, &MctsConfig::default()),
        Strategy::Random => run_random(root, search),
        Strategy::Greedy => run_greedy(root, search, &NoBound, true),
        Strategy::Exhaustive => run_exhaustive(root, search, &NoBound),
    };
    if evaluator.terminal {
        eprintln!();
    }
    let _ = journal.sync();

    let plot = journal_path.with_extension("svg");
    crate::report::write_plot(&journal_path, &plot)?;
    let stop = match result.stop {
        StopReason::EvaluationBudget => "evaluation budget spent",
        StopReason::TimeBudget => "time budget spent",
        StopReason::Exhausted => "every candidate evaluated",
        StopReason::NoNewLeaf => "no new candidate found",
        StopReason::JournalError => "the journal could not be written",
    };
    say!(
        "{}: {search_name} search, seed {}, stopped ({stop}) after {} evaluations ({} replayed from the journal): {} failed, {} wrong",
        loaded.path.display(),
        options.seed,
        result.evaluations.len(),
        result.replayed,
        evaluator.failures,
        evaluator.wrong
    );
    say!("reference: {reference_seconds:.6} s");
    let Some(best) = &evaluator.best else {
        say!("no candidate was measured successfully; see the journal for why");
        say!("journal: {}", journal_path.display());
        return Err("no verified candidate".into());
    };
    let output = options
        .output
        .clone()
        .unwrap_or_else(|| work_dir.join(format!("{stem}.tuned.c")));
    std::fs::write(&output, &best.source)
        .map_err(|e| format!("cannot write `{}`: {e}", output.display()))?;
    let found = match best.evaluation {
        Some(index) => format!("evaluation {}", index + 1),
        None => {
            say!("no candidate beat the original loop nest; it is written as it is");
            "the original nest, lowered".to_string()
        }
    };
    say!(
        "best: {:.6} s, {:.2}x over the reference ({found}), verified against the original output",
        best.seconds,
        reference_seconds / best.seconds,
    );
    say!("decisions that differ from the original program:");
    if best.decisions.is_empty() {
        say!("  none");
    }
    for decision in &best.decisions {
        say!("  {decision}");
    }
    say!(
        "written as {} ({} candidates with directives, {} as explicit code)",
        match best.form {
            Form::Directives => "OpenMP 6.0 directives on the original loops",
            Form::Code => "explicit code",
        },
        evaluator.forms.0,
        evaluator.forms.1
    );
    say!("loop nest:");
    for line in best.outline.lines() {
        say!("  {line}");
    }
    say!("written: {}", output.display());
    say!("journal: {}", journal_path.display());
    say!("plot: {}", plot.display());
    if evaluator.wrong > 0 {
        eprintln!(
            "warning: {} candidate(s) gave WRONG RESULTS: the space let illegal candidates through (sources kept in {})",
            evaluator.wrong,
            work_dir.display()
        );
    }
    Ok(())
}
