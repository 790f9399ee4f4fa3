//! Polly's schedule for a kernel, read as decisions: what `commute show
//! --polly` prints, and the leaves `commute tune` starts its search from.

use std::path::Path;
use std::time::Duration;

use super::kernel::{CompilerFeatures, LoadedKernel, LoopCandidate};
use super::lower::{differences, lower_leaf};
use super::options::Emit;
use super::options::KernelOptions;
use crate::emit::explicit::reference_code;
use crate::harness::{absolute_paths, compile_probe_command, Compiler, HarnessConfig};
use crate::polly::{export_schedules, starts, translate, Translation, EXPORT_FLAGS};

/// Polly's schedule of a kernel as decisions, and the leaves it gives.
pub struct PollyStart {
    /// The command the schedule was exported with.
    pub command: String,
    /// The schedule read.
    pub translation: Translation,
    /// Where the search starts: Polly's schedule with the other decisions
    /// as in the original program, then (with several threads) with the
    /// outermost loop the dependences allow in parallel.
    pub leaves: Vec<LoopCandidate>,
    /// For each leaf, its decisions that differ from the original
    /// program's (those the others do not imply), as `--fix` takes them.
    pub differences: Vec<Vec<String>>,
    /// For each leaf, its loop nest, one loop per line.
    pub outlines: Vec<String>,
}

impl PollyStart {
    /// One line for the progress of `commute tune`.
    pub fn summary(&self) -> String {
        let translation = &self.translation;
        let region = translation.regions.join(", ");
        match translation.regions.as_slice() {
            [] => "Polly's schedule: no region matches the nest; the search starts from the root"
                .to_string(),
            _ if self.leaves.is_empty() => format!(
                "Polly's schedule ({region}): {} statements read, but no start; the search starts from the root",
                translation.statements.len()
            ),
            _ => format!(
                "Polly's schedule ({region}): {} statements read, {} decisions taken, {} differ from the original program; the search starts from it ({} leaves){}",
                translation.statements.len(),
                translation.taken.len(),
                self.differences.first().map_or(0, Vec::len),
                self.leaves.len(),
                if translation.untranslated.is_empty() {
                    String::new()
                } else {
                    format!("; {} things not translated", translation.untranslated.len())
                }
            ),
        }
    }
}

/// Compiles the unmodified program's kernel file with Polly exporting its
/// schedules (in `dir`), and reads the one of the kernel's nest into
/// decisions.
pub fn polly_start(
    loaded: &LoadedKernel,
    config: &HarnessConfig,
    dir: &Path,
) -> Result<PollyStart, String> {
    let reference = reference_code(loaded.host.kernel());
    let command = compile_probe_command(config, &EXPORT_FLAGS);
    let regions = export_schedules(config, dir, &reference, config.compile_timeout)
        .map_err(|e| format!("`{command}`: {e}"))?;
    let mut translation = translate(&loaded.host, &loaded.root, &regions);
    let leaves = if translation.regions.is_empty() {
        Vec::new()
    } else {
        match starts(&loaded.host, &translation, config.threads) {
            Ok(leaves) => leaves,
            Err(e) => {
                translation.untranslated.push(format!(
                    "the decisions taken leave no complete candidate ({e}); the search starts from the root"
                ));
                Vec::new()
            }
        }
    };
    let differences = leaves
        .iter()
        .map(|leaf| differences(loaded, leaf))
        .collect();
    let outlines = leaves
        .iter()
        .map(|leaf| {
            lower_leaf(loaded, leaf, Emit::Code, false)
                .map(|(schedule, _, _)| schedule.outline(loaded.host.kernel()))
        })
        .collect::<Result<_, _>>()?;
    Ok(PollyStart {
        command,
        translation,
        leaves,
        differences,
        outlines,
    })
}

/// `commute show --polly`: the kernel, and Polly's schedule of it built
/// with `cc` (or the compiler found) and `cflags` (or the defaults).
pub fn show_polly(
    kernel: &KernelOptions,
    cc: Option<&str>,
    cflags: &[String],
) -> Result<(LoadedKernel, PollyStart), String> {
    let compiler = Compiler::detect(cc).map_err(|e| e.to_string())?;
    let dir = std::env::temp_dir().join(format!("commute-polly-{}", std::process::id()));
    if !compiler.has_polly(&dir.join("probes")) {
        return Err(format!(
            "{} has no Polly (`-mllvm -polly` does not build); give a clang with Polly with --cc",
            compiler.path.display()
        ));
    }
    let loaded = LoadedKernel::load_for(
        kernel,
        CompilerFeatures {
            polly: true,
            wide_vectors: false,
        },
    )?;
    let mut config = HarnessConfig::new(compiler, dir.join("builds"));
    // The compiler runs in the build directory: the kernel's own
    // directory, for its includes, and the paths in the flags are given
    // from the current one.
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    if !cflags.is_empty() {
        config.cflags = absolute_paths(&cwd, cflags);
    }
    config
        .include_dirs
        .push(cwd.join(loaded.path.parent().unwrap_or(Path::new(""))));
    config.compile_timeout = Duration::from_secs(120);
    let start = polly_start(&loaded, &config, &dir.join("export"));
    let _ = std::fs::remove_dir_all(&dir);
    Ok((loaded, start?))
}
