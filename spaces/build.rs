//! Generates the Rust code of the bundled spaces into `OUT_DIR`.
//!
//! Paths are relative to this package, so that the generated comments and
//! the model's origins (`paper/listing07_ordering.space:17`) do not depend
//! on where the workspace is checked out.

use std::path::{Path, PathBuf};

/// Files of the corpora that only exist to be included by another one.
const INCLUDED_ONLY: &[&str] = &[
    "every_construct_sets.space",
    "parametrized_sets_common.space",
];

fn main() {
    commute_codegen::compile_or_exit("paper/listing07_ordering.space");
    commute_codegen::compile_or_exit("gpu/gpu.space");

    for corpus in [Path::new("../dsl/tests/pass"), Path::new("corpus")] {
        println!("cargo:rerun-if-changed={}", corpus.display());
        for space in corpus_spaces(corpus) {
            commute_codegen::compile_or_exit(space);
        }
    }
}

/// The `.space` files of the corpus, sorted, without the included-only ones.
fn corpus_spaces(dir: &Path) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            eprintln!("error: cannot list `{}`: {error}", dir.display());
            std::process::exit(1);
        }
    };
    let mut spaces: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "space"))
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| !INCLUDED_ONLY.iter().any(|skip| name == *skip))
        })
        .collect();
    spaces.sort();
    spaces
}
