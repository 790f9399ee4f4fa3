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

impl KernelOptions {
    /// The kernel read as these options say, as its loop space's host
    /// (the compiler's features not offered).
    pub fn host(&self) -> Result<KernelHost, String> {
        let reading = ReadOptions {
            sums_in_order: self.sums_in_order,
        };
        let kernel = read_kernel_file_with(&self.kernel, self.nest.as_deref(), reading)?;
        Ok(KernelHost::new(kernel)
            .with_blocks(self.blocks)
            .with_sums_in_order(self.sums_in_order))
    }

    /// How a journal names the loop space these options read:
    /// `loops:KERNEL.c`, then `--nest NEST`, `--blocks` and
    /// `--sums-in-order` where given (a journal of another space is not
    /// resumed, and `commute report` reads the same space to name
    /// decisions).
    pub fn journal_space(&self) -> String {
        let mut space = format!("loops:{}", self.kernel.display());
        if let Some(nest) = &self.nest {
            space.push_str(&format!("{NEST}{nest}"));
        }
        if self.blocks {
            space.push_str(BLOCKS);
        }
        if self.sums_in_order {
            space.push_str(SUMS_IN_ORDER);
        }
        space
    }

    /// The options (without fixed decisions) of the loop space a journal
    /// names, if it names one (see [`KernelOptions::journal_space`]).
    pub fn from_journal_space(space: &str) -> Option<KernelOptions> {
        let mut rest = space.strip_prefix("loops:")?;
        let mut flag = |suffix: &str| {
            let stripped = rest.strip_suffix(suffix);
            rest = stripped.unwrap_or(rest);
            stripped.is_some()
        };
        let sums_in_order = flag(SUMS_IN_ORDER);
        let blocks = flag(BLOCKS);
        let (kernel, nest) = match rest.rsplit_once(NEST) {
            Some((kernel, nest)) => (kernel, Some(nest.to_string())),
            None => (rest, None),
        };
        Some(KernelOptions {
            kernel: kernel.into(),
            nest,
            fixes: Vec::new(),
            fix_file: None,
            blocks,
            sums_in_order,
        })
    }
}

/// What a journal's space adds for `--nest`, `--blocks` and
/// `--sums-in-order`, in that order.
const NEST: &str = " --nest ";
const BLOCKS: &str = " --blocks";
const SUMS_IN_ORDER: &str = " --sums-in-order";

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
        let host = options
            .host()?
            .with_polly(features.polly)
            .with_wide_vectors(features.wide_vectors);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_names_the_options_that_change_the_space_and_they_read_back() {
        let options = |nest: Option<&str>, blocks, sums_in_order| KernelOptions {
            kernel: "dir with space/kernel.c".into(),
            nest: nest.map(str::to_string),
            fixes: vec!["tile_size(i) = 4".to_string()],
            fix_file: None,
            blocks,
            sums_in_order,
        };
        assert_eq!(
            options(Some("f"), true, true).journal_space(),
            "loops:dir with space/kernel.c --nest f --blocks --sums-in-order"
        );
        assert_eq!(
            options(None, false, false).journal_space(),
            "loops:dir with space/kernel.c"
        );
        for nest in [None, Some("12")] {
            for blocks in [false, true] {
                for sums_in_order in [false, true] {
                    let written = options(nest, blocks, sums_in_order);
                    let read = KernelOptions::from_journal_space(&written.journal_space())
                        .expect("a loop space");
                    assert_eq!(
                        (read.kernel, read.nest, read.blocks, read.sums_in_order),
                        (written.kernel, written.nest, blocks, sums_in_order)
                    );
                    assert!(read.fixes.is_empty() && read.fix_file.is_none());
                }
            }
        }
        assert!(KernelOptions::from_journal_space("ordering").is_none());
    }
}
