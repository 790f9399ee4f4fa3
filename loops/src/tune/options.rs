//! What `commute tune` and `commute lower` are asked: the kernel and its
//! fixed decisions, the search, the compiler, timeouts and outputs. The
//! structs derive clap's `Args`, so that the command line and the library
//! share one description of each option.

use std::path::PathBuf;

/// The search that picks candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// Monte Carlo tree search with threshold ascent (TAG).
    Mcts,
    /// Uniform random descents.
    Random,
    /// Greedy by evaluation of one random completion per child.
    Greedy,
    /// Every candidate, in order.
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

impl Emit {
    /// What to say about the chosen form, or why it cannot be used.
    pub(super) fn describe(self, directives_supported: bool) -> Result<&'static str, String> {
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
    /// endscop`, or with loop nests `--nest` picks from.
    #[arg(value_name = "KERNEL.c")]
    pub kernel: PathBuf,
    /// In a file without `#pragma scop`: the loop nest to tune, by its
    /// function's name or a line inside it (`commute show` lists them);
    /// not needed when the file has one readable nest.
    #[arg(long, value_name = "FUNCTION|LINE")]
    pub nest: Option<String>,
    /// A decision fixed upfront, objects named as `commute show` lists
    /// them: `dim_kind(j) = PARALLEL`, `tile_size(k) = 32`,
    /// `order(i, j) = OUTER` (repeatable).
    #[arg(long = "fix", value_name = "CHOICE(OBJECTS)=VALUE")]
    pub fixes: Vec<String>,
    /// A file of fixed decisions, one per line (`#` at a line's start or
    /// after a space starts a comment; `j#2` is a name).
    #[arg(long)]
    pub fix_file: Option<PathBuf>,
    /// Offer a second level of tiling: block dimensions (`i.block`), tiles
    /// of tiles, around the tiles of loops in nests three deep or more.
    /// Off by default: they double the decisions a product's nest leaves
    /// open, and the search spends evaluations on them.
    #[arg(long)]
    pub blocks: bool,
    /// Keep every floating-point sum in the order of its terms: no sum is
    /// split across threads or vector lanes, held in an accumulator or
    /// added to an element term by term. For kernels whose results move
    /// beyond the tolerance when their sums are reassociated (PolyBench's
    /// gramschmidt at its large size); candidates then round as the
    /// original program does, and have fewer ways to be fast.
    #[arg(long)]
    pub sums_in_order: bool,
}

/// `commute tune`'s options.
#[derive(clap::Args)]
pub struct TuneOptions {
    /// The kernel and its fixed decisions.
    #[command(flatten)]
    pub kernel: KernelOptions,
    /// Evaluations at most [default: 100, unless --time-budget is given].
    #[arg(long)]
    pub budget: Option<usize>,
    /// Seconds at most, for the whole run: the reference, Polly's
    /// schedule, the baselines (a quarter of the budget at most: one timed
    /// run each, or some left out, when they take longer) and the
    /// original nest come out of it; the search has the rest.
    #[arg(long, value_name = "SECONDS")]
    pub time_budget: Option<f64>,
    /// The search.
    #[arg(long, value_enum, default_value_t = Strategy::Mcts)]
    pub search: Strategy,
    /// Seed of the search.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The C compiler [default: clang-22, -21, -20 or clang >= 20 if
    /// found, else cc].
    #[arg(long)]
    pub cc: Option<String>,
    /// Another compiler whose build of the unmodified program (with the
    /// same flags) is a baseline too, as the user's compiler's plain and
    /// Polly builds are (`--baseline-cc gcc`).
    #[arg(long, value_name = "CC")]
    pub baseline_cc: Option<String>,
    /// Measure no baselines: the best candidate is written even where the
    /// unmodified program is faster (to get the fixed decisions whatever
    /// their speed).
    #[arg(long, conflicts_with = "baseline_cc")]
    pub no_baselines: bool,
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
    /// Timed runs per candidate (doubled under 50 ms, at most 3 when a
    /// run of the program takes more than 2 s).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// A candidate whose first run takes more than this many times the
    /// best time so far, or the fastest baseline's, is neither run again
    /// nor checked (recorded as cut off); 0 times and checks every
    /// candidate in full.
    #[arg(long, default_value_t = 2.0, value_name = "FACTOR")]
    pub cutoff: f64,
    /// Compiles at a time while a batch of candidates is built [default:
    /// the cores available].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Candidates the search proposes at once, built together before
    /// they are timed one by one (the same for any --jobs, so that a seed
    /// gives the same candidates on any machine; a resumed search must
    /// keep it).
    #[arg(long, default_value_t = 4)]
    pub batch: usize,
    /// Candidates drawn for each one compiled: the search evaluates the
    /// one that the candidates measured so far predict fastest (the
    /// nearest ones by their decisions); 1 compiles every candidate drawn.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub screen: usize,
    /// Search without the lower bound (no machine characterization, no
    /// pruning).
    #[arg(long)]
    pub no_bound: bool,
    /// Start MCTS from the root only: without this, where the compiler
    /// has Polly, the schedule Polly chooses for the unmodified program
    /// (`commute show --polly`) is read as decisions and evaluated first.
    #[arg(long)]
    pub no_polly_start: bool,
    /// Start MCTS without the blocked start: without this, every
    /// statement that sums over a loop its target does not read is first
    /// run as a block of accumulators (rows unrolled and jammed, columns in
    /// vector lanes, the sum between them; or, where an operand is read
    /// across the columns, a block of dot products with the sum in vector
    /// lanes; `docs/loops.md`, "The blocked start"), evaluated first.
    #[arg(long)]
    pub no_blocked_start: bool,
    /// Do not start MCTS from the time-tiled program: where a time loop
    /// holds sweeps whose rows may be skewed by it, they are first fused
    /// (shifted where needed), skewed, and tiled with the time steps, the
    /// tiles run as a wavefront (`docs/loops.md`, "The time-tiled start"),
    /// evaluated first.
    #[arg(long)]
    pub no_time_tiled_start: bool,
    /// Do not start MCTS from the original program with each statement's
    /// outer loop in parallel (the outermost of its two outermost that may
    /// be, with several threads; `docs/loops.md`, "The parallel start"),
    /// evaluated after the other starts.
    #[arg(long)]
    pub no_parallel_start: bool,
    /// Do not start MCTS from the original program with each statement
    /// that sums along its innermost loop (a reduction the compiler keeps
    /// in order) in vector lanes (`omp simd reduction`), alone and, with
    /// several threads, with outer loops or a 1-D loop's tiles in parallel
    /// (`docs/loops.md`, "The vector start"), evaluated after the blocked
    /// and time-tiled starts.
    #[arg(long)]
    pub no_vector_start: bool,
    /// Also start MCTS from the original program with its loops fused as
    /// far as the dependences allow (shifted where they need it),
    /// evaluated first.
    #[arg(long)]
    pub fused_start: bool,
    /// Seconds a compile may take.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    pub compile_timeout: f64,
    /// A candidate's run is stopped once it is sure to be cut off (its
    /// kernel, or the whole run, past the cut-off; without a cut-off,
    /// after three times a run of the best candidate so far), after three
    /// times the reference's at most, but never sooner than this many
    /// seconds.
    #[arg(long, default_value_t = 0.2, value_name = "SECONDS")]
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
    /// The kernel and its fixed decisions.
    #[command(flatten)]
    pub kernel: KernelOptions,
    /// Where to write it [default: standard output].
    #[arg(short, long, value_name = "OUT.c")]
    pub output: Option<PathBuf>,
    /// How the candidate is written out.
    #[arg(long, value_enum, default_value_t = Emit::Auto)]
    pub emit: Emit,
    /// The C compiler the file would be built with, named on its first
    /// line; directives only if it takes them [default: as `commute tune`
    /// picks one].
    #[arg(long)]
    pub cc: Option<String>,
    /// Flags for the compiler, named on the file's first line [default:
    /// -O3 -march=native].
    #[arg(last = true, value_name = "CFLAGS")]
    pub cflags: Vec<String>,
}
