//! The `commute` command.

mod bench;

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
        Command::Check {
            files,
            deny_warnings,
            color,
        } => check(&files, deny_warnings, color),
        Command::Bench {
            json,
            statements,
            seconds,
            seed,
        } => {
            match bench::run(&bench::Options {
                statements,
                seconds,
                seed,
            }) {
                Ok(report) if json => match serde_json::to_string_pretty(&report) {
                    Ok(text) => {
                        println!("{text}");
                        ExitCode::SUCCESS
                    }
                    Err(error) => {
                        eprintln!("error: {error}");
                        ExitCode::FAILURE
                    }
                },
                Ok(report) => {
                    bench::print(&report);
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::FAILURE
                }
            }
        }
    }
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
            eprintln!("{line}");
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
                println!("{}: ok: {}{note}", file.display(), space.summary());
            }
            _ => {
                failed = true;
                let what = if errors > 0 {
                    format!("{errors} error{}", if errors == 1 { "" } else { "s" })
                } else {
                    format!("{warnings} warning(s) denied")
                };
                eprintln!("{}: {what}", file.display());
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
