//! The `commute` command.

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
