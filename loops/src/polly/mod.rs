//! Polly's own schedule as a starting point: the unmodified program is
//! built with `-mllvm -polly -mllvm -polly-export`, which makes Polly
//! write the schedule it chose for each region it optimized (a JSCoP
//! file, after its isl scheduler ran: tiling, interchange, fusion and
//! distribution are in it). [`export_schedules`] reads those files,
//! [`translate`] turns the region that matches the nest into decisions
//! of the loop space and lists what does not map, and [`starts`] gives
//! the leaves `commute tune` begins its search with. `commute show
//! --polly` prints both.

mod isl;
mod schedule;
mod translate;

use std::fs;
use std::path::Path;
use std::time::Duration;

pub use schedule::{read_jscop, PollyRegion, PollyStatement, ScheduleDim};
pub use translate::{starts, translate, MappedStatement, Translation};

use crate::harness::{compile_probe, HarnessConfig};

/// The flags that make Polly optimize and write its schedules.
pub const EXPORT_FLAGS: [&str; 4] = ["-mllvm", "-polly", "-mllvm", "-polly-export"];

/// Compiles `source` (a whole program's kernel file) with the harness's
/// flags and [`EXPORT_FLAGS`] in `dir` (emptied first) and reads the
/// JSCoP files Polly wrote, by file name. Polly writes them while it
/// compiles, so the file is compiled alone, not linked: the program's
/// other sources would only cost time (and write exports of their own);
/// an error when it did not compile that far. No regions when Polly
/// optimized none.
pub fn export_schedules(
    config: &HarnessConfig,
    dir: &Path,
    source: &str,
    timeout: Duration,
) -> Result<Vec<PollyRegion>, String> {
    if dir.exists() {
        fs::remove_dir_all(dir).map_err(|e| format!("cannot empty {}: {e}", dir.display()))?;
    }
    let (built_in, built) = compile_probe(config, dir, source, &EXPORT_FLAGS, timeout);
    let mut files: Vec<_> = fs::read_dir(&built_in)
        .map_err(|e| format!("cannot read {}: {e}", built_in.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "jscop"))
        .collect();
    if files.is_empty() {
        built?;
    }
    files.sort();
    files
        .iter()
        .map(|path| {
            let name = path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            let text = fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            read_jscop(&name, &text)
        })
        .collect()
}
