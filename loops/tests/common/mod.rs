//! What the tests that compile the bundled examples share.

use std::path::{Path, PathBuf};

/// Odd sizes for every example, so that tiles end in partial ones.
pub const SIZES: [&str; 7] = [
    "-DM=13",
    "-DN=17",
    "-DNI=11",
    "-DNJ=13",
    "-DNK=15",
    "-DNL=9",
    "-DTSTEPS=3",
];

pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// A fresh directory for one test of one binary.
pub fn scratch(test: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("commute-{test}-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The nest to read in examples without `#pragma scop`, by file stem.
const NESTS: &[(&str, &str)] = &[("matmul-pointers", "matmul")];

/// The `--nest` of an example (by its path), if it needs one.
pub fn nest_of(path: &str) -> Option<&'static str> {
    let stem = Path::new(path).file_stem()?.to_str()?;
    NESTS.iter().find(|(s, _)| *s == stem).map(|(_, n)| *n)
}
