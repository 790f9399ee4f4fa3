//! The `commute` command.

/// Writes a line to standard output. A reader that closed the pipe
/// (`commute report run.jsonl | head`) is not an error: the rest is
/// dropped instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Like `say!`, without the newline.
#[allow(unused_macros)]
macro_rules! say_part {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

/// Writes a line to standard error. Like `say!`, a closed pipe
/// (`commute check bad.space 2>&1 | head -1`) drops the rest instead of
/// panicking, which would turn a report of errors into exit code 101.
macro_rules! tell {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Like `tell!`, without the newline.
macro_rules! tell_part {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod bench;
mod digest;
mod estimate;
mod evaluate;
mod hosted;
mod report;
mod search;
mod show;
mod tune;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "commute",
    version,
    about = "Program-optimization search spaces as commuting decisions"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check space files: print a summary of each, or its diagnostics.
    Check {
        /// Space files; each is checked with the files it includes.
        #[arg(required = true, value_name = "FILE.space")]
        files: Vec<PathBuf>,
        /// Also fail (exit 1) on warnings.
        #[arg(long)]
        deny_warnings: bool,
        /// When to color diagnostics.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Measure the engine: decisions and random descents per second, dead
    /// ends, clone time and vector size on the paper's ordering space, and
    /// code generation time for the largest bundled space.
    Bench {
        /// Print the figures as one JSON object.
        #[arg(long)]
        json: bool,
        /// Statements in the ordering space's backbone.
        #[arg(long, default_value_t = 30)]
        statements: u32,
        /// Seconds of random descents.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Seed of the random descents.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Instead of timing: hash where seeded random descents end on
        /// every bundled space, one line per space and backbone, to
        /// compare before and after a change to the engine.
        #[arg(long)]
        digest: bool,
        /// With --digest: multiply the number of descents.
        #[arg(long, default_value_t = 1, requires = "digest", value_parser = clap::value_parser!(u32).range(1..))]
        scale: u32,
        /// Read every space from its file and build its tables in memory
        /// instead of using the generated code (with --digest, every line
        /// must equal the one without).
        #[arg(long)]
        loaded: bool,
        /// Use the generated tables without the space's generated
        /// propagators: every constraint filtered by the engine's
        /// table-driven path (with --digest, every line must equal the one
        /// without).
        #[arg(long, conflicts_with = "loaded")]
        interpreted: bool,
    },
    /// Summarize a search journal and plot its best value so far against
    /// evaluations (SVG), next to baseline searches.
    Report {
        /// The journal (JSON lines) a search wrote.
        #[arg(value_name = "JOURNAL")]
        journal: PathBuf,
        /// Where to write the plot [default: JOURNAL with extension .svg].
        #[arg(long, value_name = "OUT.svg")]
        svg: Option<PathBuf>,
        /// A journal to compare with (e.g. random search), drawn as another
        /// line; NAME defaults to its search's name. Repeatable.
        #[arg(long = "baseline", value_name = "NAME=JOURNAL")]
        baselines: Vec<report::BaselineArg>,
    },
    /// Search a bundled space under a synthetic cost (how many decisions
    /// differ from a hidden leaf; the optimum is 0), to try search
    /// settings, fixed decisions, journals and resuming.
    Search {
        /// A space file to search, with `--host` and `--evaluate` (instead
        /// of a bundled space under a synthetic cost).
        #[arg(value_name = "SPACE.space", requires_all = ["host", "evaluate"])]
        file: Option<PathBuf>,
        /// The host file of SPACE (TOML): its objects and properties.
        #[arg(long, value_name = "HOST.toml", requires = "file")]
        host: Option<PathBuf>,
        /// A shell command that evaluates a leaf: the decisions come as
        /// JSON on its standard input and as `COMMUTE_<CHOICE>_<OBJECTS>`
        /// variables; the number it prints last is the cost (lower is
        /// better). A non-zero exit, no number or a timeout is a failure.
        #[arg(long, value_name = "CMD", requires = "file")]
        evaluate: Option<String>,
        /// Seconds one run of `--evaluate` may take.
        #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
        timeout: f64,
        /// The space: `ordering` (a chain of statements), `product` (items
        /// with four values each) or a corpus space on a random backbone.
        #[arg(long, default_value = "ordering")]
        space: String,
        /// Statements of the ordering space.
        #[arg(long, default_value_t = 6)]
        statements: u32,
        /// Items of the product space, or objects per root set of a
        /// corpus space's random backbone.
        #[arg(long, default_value_t = 6)]
        size: u32,
        /// Seed of a corpus space's random backbone.
        #[arg(long, default_value_t = 0)]
        backbone_seed: u64,
        #[arg(long, value_enum, default_value_t = search::Strategy::Mcts)]
        search: search::Strategy,
        /// Evaluations at most.
        #[arg(long)]
        budget: Option<usize>,
        /// Seconds at most.
        #[arg(long)]
        time_budget: Option<f64>,
        /// Seed of the search.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Seed of the hidden optimum.
        #[arg(long, default_value_t = 1)]
        target_seed: u64,
        /// A decision fixed before the search: `order(0, 1) = BEFORE`
        /// (repeatable).
        #[arg(long = "fix", value_name = "CHOICE(OBJECTS)=VALUE")]
        fixes: Vec<String>,
        /// A file of fixed decisions, one per line (`#` at a line's start or
        /// after a space starts a comment; `j#2` is a name).
        #[arg(long)]
        fix_file: Option<PathBuf>,
        /// Write one JSON line per evaluation here.
        #[arg(long)]
        journal: Option<PathBuf>,
        /// Continue the search recorded in `--journal` without evaluating
        /// its leaves again.
        #[arg(long)]
        resume: bool,
        /// Choices to branch on first, comma-separated (the others follow
        /// in declaration order).
        #[arg(long, value_delimiter = ',')]
        priority: Vec<String>,
    },
    /// Tune a C kernel: search its loop space, compile, time and check
    /// candidates against the original program, and write the fastest
    /// verified one.
    Tune(commute_loops::tune::TuneOptions),
    /// Write one candidate of a kernel's loop space as C without
    /// searching: the fixed decisions, every other decision as in the
    /// original program where the fixed ones allow it.
    Lower(commute_loops::tune::LowerOptions),
    /// Show what commute reads of a C file's loop nest (between `#pragma
    /// scop` and `#pragma endscop`, or one of its loop nests): loops,
    /// bounds, statements, accesses, dependences and the loop space.
    Show {
        #[arg(value_name = "KERNEL.c")]
        file: PathBuf,
        /// List every open decision (by default, the first 40 of each choice).
        #[arg(long)]
        all: bool,
        /// The space with blocks (tiles of tiles) around the tiles of
        /// loops in nests three deep, as `commute tune --blocks` searches.
        #[arg(long)]
        blocks: bool,
        /// The space with every floating-point sum kept in its order, as
        /// `commute tune --sums-in-order` searches.
        #[arg(long)]
        sums_in_order: bool,
        /// In a file without `#pragma scop`: the loop nest to show, by its
        /// function's name or a line inside it (without it, the file's
        /// nests are listed).
        #[arg(long, value_name = "FUNCTION|LINE")]
        nest: Option<String>,
        /// Print the schedule Polly chooses for the nest (the unmodified
        /// program built with `-mllvm -polly`, its schedule exported) and
        /// the decisions it translates to, where `commute tune` starts.
        #[arg(long)]
        polly: bool,
        /// With `--polly`: the compiler [default: as `commute tune`].
        #[arg(long, requires = "polly")]
        cc: Option<String>,
        /// With `--polly`: the flags the program is built with, after `--`
        /// [default: -O3 -march=native].
        #[arg(last = true, value_name = "CFLAGS", requires = "polly")]
        cflags: Vec<String>,
    },
    /// Propagate a space file on a host file, with fixed decisions: print
    /// every domain left, or the dead end (the constraint, its place and
    /// the objects) the decisions reach.
    Explore(hosted::SpaceArgs),
    /// List the leaves of a space file on a host file, one JSON object of
    /// decisions per line (as `search --evaluate` passes them), or count
    /// them.
    Enumerate {
        #[command(flatten)]
        space: hosted::SpaceArgs,
        /// Print only how many leaves there are (counted by independent
        /// parts and reused counts, not one by one).
        #[arg(long)]
        count: bool,
        /// List at most this many leaves.
        #[arg(long, conflicts_with = "count")]
        limit: Option<usize>,
    },
    /// Estimate the number of leaves of a bundled space: Knuth's estimator
    /// and Chen's heuristic sampling, each with a 95% confidence interval,
    /// and the dead-end rate of uniform random descents.
    Estimate {
        /// A space file to estimate, with `--host` (instead of a bundled
        /// space).
        #[arg(value_name = "SPACE.space", requires = "host")]
        file: Option<PathBuf>,
        /// The host file of SPACE (TOML): its objects and properties.
        #[arg(long, value_name = "HOST.toml", requires = "file")]
        host: Option<PathBuf>,
        /// With SPACE: a decision fixed first, with the host's names
        /// (repeatable).
        #[arg(long = "fix", value_name = "CHOICE(OBJECTS)=VALUE", requires = "file")]
        fixes: Vec<String>,
        /// The paper's ordering space, or a corpus space on a random backbone.
        #[arg(long, default_value = "ordering",
              value_parser = clap::builder::PossibleValuesParser::new(estimate::SPACES))]
        space: String,
        /// Statements in the ordering space's backbone (a chain).
        #[arg(long, default_value_t = 6)]
        statements: u32,
        /// Objects per root set of a corpus space's random backbone.
        #[arg(long, default_value_t = 3)]
        size: u32,
        /// Seed of a corpus space's random backbone.
        #[arg(long, default_value_t = 0)]
        backbone_seed: u64,
        /// Probes (Knuth), runs (Chen) and descents (dead-end rate).
        #[arg(long, default_value_t = 1000)]
        samples: usize,
        /// Seed of the estimators.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// How Chen's method groups the nodes of a level.
        #[arg(long, value_enum, default_value_t = estimate::Strata::OpenInstances)]
        strata: estimate::Strata,
        /// Print the estimates as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Search {
            file,
            host,
            evaluate,
            timeout,
            space,
            statements,
            size,
            backbone_seed,
            search: strategy,
            budget,
            time_budget,
            seed,
            target_seed,
            fixes,
            fix_file,
            journal,
            resume,
            priority,
        } => {
            if budget.is_none() && time_budget.is_none() && strategy != search::Strategy::Exhaustive
            {
                tell!("error: give --budget N or --time-budget SECONDS (only --search exhaustive runs to the end by itself)");
                return ExitCode::from(2);
            }
            let options = search::Options {
                space,
                statements,
                size,
                backbone_seed,
                strategy,
                budget,
                time_budget,
                seed,
                target_seed,
                fixes,
                fix_file,
                journal,
                resume,
                priority,
                hosted: match (file, host, evaluate) {
                    (Some(space), Some(host), Some(evaluate)) => Some(search::Hosted {
                        space,
                        host,
                        evaluate,
                        timeout,
                    }),
                    _ => None,
                },
            };
            exit_code(search::run(&options))
        }
        Command::Show {
            file,
            nest,
            polly: true,
            cc,
            cflags,
            ..
        } => exit_code(show::polly(file, nest, cc.as_deref(), &cflags)),
        Command::Show {
            file,
            all,
            blocks,
            sums_in_order,
            nest,
            ..
        } => {
            let kernel = commute_loops::tune::KernelOptions {
                kernel: file,
                nest,
                fixes: Vec::new(),
                fix_file: None,
                blocks,
                sums_in_order,
            };
            exit_code(show::run(&kernel, all))
        }
        Command::Tune(options) => exit_code(tune::tune(&options)),
        Command::Lower(options) => exit_code(tune::lower(&options)),
        Command::Explore(args) => exit_code(hosted::explore(&args)),
        Command::Enumerate {
            space,
            count,
            limit,
        } => exit_code(hosted::enumerate(&space, count, limit)),
        Command::Estimate {
            file,
            host,
            fixes,
            space,
            statements,
            size,
            backbone_seed,
            samples,
            seed,
            strata,
            json,
        } => {
            let options = estimate::Options {
                space,
                statements,
                size,
                backbone_seed,
                samples,
                seed,
                strata,
                hosted: file.zip(host).map(|(space, host)| hosted::SpaceArgs {
                    space,
                    host,
                    fixes,
                    fix_file: None,
                }),
            };
            exit_code(
                estimate::run(&options)
                    .and_then(|report| show_report(&report, json, estimate::print)),
            )
        }
        Command::Report {
            journal,
            svg,
            baselines,
        } => exit_code(report::run(&report::Options {
            journal,
            svg,
            baselines,
        })),
        Command::Check {
            files,
            deny_warnings,
            color,
        } => check(&files, deny_warnings, color),
        Command::Bench {
            json,
            digest: true,
            scale,
            loaded,
            interpreted,
            ..
        } => {
            let mut progress = |name: &str| tell!("{name}");
            exit_code(
                digest::run(scale as usize, tables(loaded, interpreted), &mut progress)
                    .and_then(|digest| show_report(&digest, json, digest::print)),
            )
        }
        Command::Bench {
            json,
            statements,
            seconds,
            seed,
            loaded,
            interpreted,
            ..
        } => {
            let options = bench::Options {
                statements,
                seconds,
                seed,
                tables: tables(loaded, interpreted),
            };
            exit_code(
                bench::run(&options).and_then(|report| show_report(&report, json, bench::print)),
            )
        }
    }
}

/// The tables `--loaded` or `--interpreted` asks for.
fn tables(loaded: bool, interpreted: bool) -> digest::Tables {
    if loaded {
        digest::Tables::Loaded
    } else if interpreted {
        digest::Tables::Interpreted
    } else {
        digest::Tables::Generated
    }
}

/// Success, or the error on standard error and status 1.
fn exit_code(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tell!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Prints a report as one JSON object, or for people.
fn show_report<R: serde::Serialize>(report: &R, json: bool, print: fn(&R)) -> Result<(), String> {
    if json {
        let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        say!("{text}");
    } else {
        print(report);
    }
    Ok(())
}

fn check(files: &[PathBuf], deny_warnings: bool, color: Color) -> ExitCode {
    let color = match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal(),
    };
    let mut failed = false;
    for file in files {
        let compilation = commute_dsl::compile(file);
        for diagnostic in compilation.shown_diagnostics() {
            diagnostic.emit_to_stderr(&compilation.sources, color);
        }
        if let Some(line) = compilation.hidden_diagnostics_line() {
            tell!("{line}");
        }
        let errors = compilation
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .count();
        let warnings = compilation.diagnostics.len() - errors;
        match &compilation.space {
            Some(space) if !(deny_warnings && warnings > 0) => {
                let note = if warnings > 0 {
                    format!(
                        " ({warnings} warning{})",
                        if warnings == 1 { "" } else { "s" }
                    )
                } else {
                    String::new()
                };
                say!("{}: ok: {}{note}", file.display(), space.summary());
            }
            _ => {
                failed = true;
                let what = if errors > 0 {
                    format!("{errors} error{}", if errors == 1 { "" } else { "s" })
                } else {
                    format!("{warnings} warning(s) denied")
                };
                tell!("{}: {what}", file.display());
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
