//! Check builds link a constructor that makes standard error
//! line-buffered. Standard error is unbuffered, so a dump written one
//! value at a time (PolyBench's `print_array`, 20 values a line) costs a
//! `write` call per value: check runs of doitgen at its large size (3.4
//! million values, a 0.04 s kernel), alternated, took 3.7 to 3.9 s
//! without the constructor and 0.75 to 0.79 s with it, the dump written to
//! a file as the harness does. Lines, not a full buffer: every complete
//! line a crashing program wrote (an assertion's message) still reaches
//! the log.
//!
//! The constructor is a C file of its own, compiled once per compiler and
//! flags like the program's other sources (`objects.rs`); where it does
//! not compile with the user's flags, check builds go without it.

use std::fs;
use std::path::{Path, PathBuf};

/// The file's name, in the harness's work directory.
const FILE_NAME: &str = "commute_line_buffered_stderr.c";

/// Its text: no name outside the file, nothing the program can see but
/// the buffering (which a `setvbuf` of its own still overrides).
const SOURCE: &str = "\
/* Linked into commute's check builds (not its timed builds): standard
 * error line-buffered, so that an array dump written one value at a time
 * costs one write per line instead of one per value. */
#include <stdio.h>

__attribute__((constructor)) static void commute_line_buffered_stderr(void) {
  setvbuf(stderr, NULL, _IOLBF, 1 << 16);
}
";

/// Writes the constructor's source in `dir` (unless it is there already,
/// so that its objects stay valid) and returns its path; `None` when it
/// cannot be written (check builds then go without it).
pub(super) fn write_source(dir: &Path) -> Option<PathBuf> {
    let path = dir.join(FILE_NAME);
    if fs::read_to_string(&path).is_ok_and(|text| text == SOURCE) {
        return Some(path);
    }
    fs::create_dir_all(dir).ok()?;
    fs::write(&path, SOURCE).ok()?;
    Some(path)
}
