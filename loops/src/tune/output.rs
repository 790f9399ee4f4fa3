//! The tuning run's output file: the fastest program known so far, written
//! once the baselines are measured (the original program, or nothing when
//! none measured) and again whenever a faster verified candidate is
//! found, so that a run stopped from outside (a job's time limit, a kill)
//! leaves its best result behind.

use std::path::Path;

use crate::harness::{with_built_with_line, without_scop_pragmas};

/// Writes `source`, its first line naming the command `built_with` it was
/// measured with, to `output`: through a file beside it renamed over it,
/// so that a run killed while writing leaves the previous result whole.
/// Built as the harness builds it: the region's pragmas, unknown to the
/// compiler, are an error under `-Werror=unknown-pragmas`.
pub(super) fn write_program(output: &Path, source: &str, built_with: &str) -> Result<(), String> {
    let text = with_built_with_line(&without_scop_pragmas(source), built_with);
    let mut partial = output.as_os_str().to_owned();
    partial.push(".partial");
    let partial = Path::new(&partial);
    std::fs::write(partial, text)
        .and_then(|()| std::fs::rename(partial, output))
        .map_err(|e| format!("cannot write `{}`: {e}", output.display()))
}

#[cfg(test)]
mod tests {
    use super::write_program;

    #[test]
    fn the_output_is_replaced_whole_and_names_its_command() {
        let dir = std::env::temp_dir().join(format!("commute-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let output = dir.join("k.tuned.c");
        write_program(&output, "int a;\n", "cc -O3 k.c").unwrap();
        write_program(&output, "int b;\n", "cc -O2 k.c").unwrap();
        let text = std::fs::read_to_string(&output).unwrap();
        assert!(
            text.contains("int b;") && !text.contains("int a;"),
            "{text}"
        );
        assert!(
            text.lines().next().unwrap().contains("cc -O2 k.c"),
            "{text}"
        );
        assert!(!dir.join("k.tuned.c.partial").exists());
        // A directory that is not there: an error naming the file.
        let missing = dir.join("missing").join("k.c");
        let error = write_program(&missing, "int c;\n", "cc").unwrap_err();
        assert!(error.contains("missing/k.c"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
