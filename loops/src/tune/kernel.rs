//! A kernel loaded for tuning or lowering: the C file read, its host, and
//! the space's root with the fixed decisions applied.

use std::path::{Path, PathBuf};

use commute_runtime::fix::read_fix_file;
use commute_runtime::Candidate;

use super::options::KernelOptions;
use crate::fingerprint::fingerprint;
use crate::frontend::{read_kernel_file_with, ReadOptions};
use crate::harness::{effective_cflags, Compiler};
use crate::space::host::KernelHost;
use crate::space::names::{apply_named_fixes, Names};
use crate::space::pins::pin_straight_line_code;
use crate::space::Backbone;

pub use crate::space::LoopCandidate;

/// The kernel read, its host, and the root candidate with the fixed
/// decisions applied.
pub struct LoadedKernel {
    /// The C file, as given.
    pub path: PathBuf,
    /// The kernel as the space's host.
    pub host: KernelHost,
    /// Names of the space's objects, for fixed decisions and reports.
    pub names: Names,
    /// The space's root with the fixed decisions applied.
    pub root: LoopCandidate,
    /// The space's root before them.
    pub unfixed: LoopCandidate,
    /// The fixed decisions, from the options then the fix file.
    pub fixes: Vec<String>,
}

/// What the compiler offers the space's compiler decisions: found by
/// probing it once (`Compiler::has_polly`, `Compiler::has_wide_vectors`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompilerFeatures {
    /// The compiler takes Polly: `optimizer()` may be `POLLY` or
    /// `POLLY_PARALLEL`.
    pub polly: bool,
    /// The target has 512-bit vectors: `vector_width()` may be `WIDE`.
    pub wide_vectors: bool,
}

impl CompilerFeatures {
    /// Asks `compiler` (with the user's `cflags`, or the defaults), the
    /// answers cached in `probes`.
    pub fn probe(compiler: &Compiler, probes: &Path, cflags: &[String]) -> CompilerFeatures {
        CompilerFeatures {
            polly: compiler.has_polly(probes),
            wide_vectors: compiler.has_wide_vectors(probes, &effective_cflags(cflags)),
        }
    }
}

impl LoadedKernel {
    /// Reads the kernel and applies the fixed decisions; errors name the
    /// file, or the decision and why it cannot be taken.
    pub fn load(options: &KernelOptions) -> Result<LoadedKernel, String> {
        LoadedKernel::load_for(options, CompilerFeatures::default())
    }

    /// [`load`](LoadedKernel::load), with what the compiler offers to the
    /// compiler decisions (see [`KernelHost::with_polly`] and
    /// [`KernelHost::with_wide_vectors`]).
    pub fn load_for(
        options: &KernelOptions,
        features: CompilerFeatures,
    ) -> Result<LoadedKernel, String> {
        let path = options.kernel.clone();
        let reading = ReadOptions {
            sums_in_order: options.sums_in_order,
        };
        let kernel = read_kernel_file_with(&path, options.nest.as_deref(), reading)?;
        let host = KernelHost::new(kernel)
            .with_polly(features.polly)
            .with_wide_vectors(features.wide_vectors)
            .with_blocks(options.blocks)
            .with_sums_in_order(options.sums_in_order);
        let mut root = Candidate::new_explained(Backbone(host.clone()))
            .map_err(|e| format!("{}: the loop space has no candidate: {e}", path.display()))?;
        let mut fixes = options.fixes.clone();
        if let Some(file) = &options.fix_file {
            fixes.extend(
                read_fix_file(file)
                    .map_err(|e| format!("cannot read `{}`: {e}", file.display()))?,
            );
        }
        pin_straight_line_code(&host, &mut root)?;
        let unfixed = root.unexplained_copy();
        apply_named_fixes(&host, &mut root, &fixes)?;
        let names = Names::new(&host);
        Ok(LoadedKernel {
            path,
            host,
            names,
            root,
            unfixed,
            fixes,
        })
    }

    /// A hash of the kernel's source and of every instance's values at the
    /// root: a journal is resumed only against the same kernel and the
    /// same version of the space (decisions are stored as value bits).
    pub fn fingerprint(&self) -> String {
        fingerprint(self.host.kernel().source.as_bytes(), &self.root)
    }
}
