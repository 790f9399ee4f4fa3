//! The other sources of a program (`tsvc.c common.c` after the flags,
//! `utilities/polybench.c`), compiled once into objects that every build
//! links: a candidate changes the kernel's file alone. TSVC's `common.c`
//! takes 3.7 s to compile with `-O3` and a loop's file 0.07 s, and each
//! candidate has two builds.
//!
//! An object is keyed by the compiler, every flag but the sources and the
//! linker's, the build (the check build's dump flag), and the source's
//! path, size and modification time. Compiling a source alone with the
//! flags of the whole command and linking the objects builds the program
//! the whole command builds: a compiler driver compiles each source on its
//! own and links them in the command's order, which is kept.

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, UNIX_EPOCH};

use super::error::{HarnessError, HarnessErrorKind};
use super::process::{describe_status, new_process_group, read_lossy, spawn, wait_with_deadline};

/// Extensions of the sources a command compiles (into objects, here).
const SOURCE_EXTENSIONS: [&str; 6] = ["c", "i", "cc", "cpp", "cxx", "C"];

/// Extensions of the files a command links as they are.
const LINKED_EXTENSIONS: [&str; 3] = ["o", "a", "so"];

/// `flags` for compiling one source alone: without the other sources
/// (but a path that is an option's value, `-include x.c`, kept) and
/// without what only the link reads (libraries, objects, `-L`, `-Wl,`),
/// about which a compiler warns under `-c` or `-E`.
pub(super) fn without_other_inputs(flags: &[String]) -> Vec<String> {
    compile_options(flags).cloned().collect()
}

/// The flags of `flags` that compiling one source alone reads (see
/// [`without_other_inputs`]).
fn compile_options(flags: &[String]) -> impl Iterator<Item = &String> {
    let sources = sources(flags);
    flags
        .iter()
        .enumerate()
        .filter(move |(k, flag)| !sources.contains(k) && !linker_only(flag))
        .map(|(_, flag)| flag)
}

/// Whether `arg` is no option and ends in `.EXT` for one of `extensions`.
fn has_extension(arg: &str, extensions: &[&str]) -> bool {
    !arg.starts_with('-')
        && Path::new(arg)
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
}

/// Options whose value is the next argument: a path there is no source
/// to compile (`-include x.c`).
const TAKES_A_VALUE: [&str; 12] = [
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-x",
    "-o",
    "-MF",
    "-MT",
    "-Xlinker",
    "-Xclang",
    "-mllvm",
];

/// Why a source has no object.
#[derive(Clone, Debug)]
pub(super) enum Unbuilt {
    /// The compiler's messages, and how it ended (or why it did not
    /// run).
    Failed { log: String, ending: String },
    /// Seconds waited.
    TimedOut(f64),
}

/// How one object's compile ended: its path, or why there is none.
pub(super) type Built = Result<PathBuf, Unbuilt>;

/// The objects built so far, each once even when builds running at the
/// same time ask for it.
#[derive(Debug)]
pub(super) struct Objects {
    dir: PathBuf,
    built: Mutex<HashMap<String, Arc<OnceLock<Built>>>>,
}

/// What building a command's sources gave: the arguments with each
/// source replaced by its object, or the failure of one of them.
pub(super) type Linked = Result<Vec<String>, Unbuilt>;

impl Objects {
    /// Objects kept in `dir` (made when the first is built).
    pub(super) fn new(dir: PathBuf) -> Objects {
        Objects {
            dir,
            built: Mutex::new(HashMap::new()),
        }
    }

    /// `flags` (the whole command's, but the kernel's file) with each
    /// source replaced by its object, built with `compiler`, the other
    /// flags and `extra` (the dump flag) within `timeout` unless built
    /// before. Flags without sources come back as they are.
    pub(super) fn link(
        &self,
        compiler: &Path,
        flags: &[String],
        extra: &[&str],
        timeout: Duration,
    ) -> Result<Linked, HarnessError> {
        let sources = sources(flags);
        if sources.is_empty() {
            return Ok(Ok(flags.to_vec()));
        }
        let options = object_options(flags, extra);
        let mut linked = flags.to_vec();
        for k in sources {
            match self.object(compiler, &options, Path::new(&flags[k]), timeout)? {
                Ok(path) => linked[k] = path.display().to_string(),
                Err(failure) => return Ok(Err(failure)),
            }
        }
        Ok(Ok(linked))
    }

    /// The object of `source` alone, built with `compiler`, the options
    /// of `flags` (the command's, less its sources and what only the link
    /// reads) and `extra`, unless built before; or why it did not build.
    pub(super) fn object_of(
        &self,
        compiler: &Path,
        flags: &[String],
        extra: &[&str],
        source: &Path,
        timeout: Duration,
    ) -> Result<Built, HarnessError> {
        self.object(compiler, &object_options(flags, extra), source, timeout)
    }

    /// The object of `source` built with `options`, once per key.
    fn object(
        &self,
        compiler: &Path,
        options: &[&str],
        source: &Path,
        timeout: Duration,
    ) -> Result<Built, HarnessError> {
        let key = key(compiler, options, source);
        let cell = {
            let mut built = self.built.lock().map_err(|_| {
                HarnessError::new(HarnessErrorKind::Io, "a compile of another source panicked")
            })?;
            Arc::clone(built.entry(key.clone()).or_default())
        };
        Ok(cell
            .get_or_init(|| self.compile(compiler, options, source, &key, timeout))
            .clone())
    }

    /// Compiles `source` to `dir/key/STEM.o`.
    fn compile(
        &self,
        compiler: &Path,
        options: &[&str],
        source: &Path,
        key: &str,
        timeout: Duration,
    ) -> Built {
        let failed = |ending: String| {
            Err(Unbuilt::Failed {
                log: String::new(),
                ending,
            })
        };
        let dir = self.dir.join(key);
        if let Err(e) = fs::create_dir_all(&dir) {
            return failed(format!("harness: cannot create {}: {e}", dir.display()));
        }
        let stem = source
            .file_stem()
            .map_or_else(|| "source".into(), |s| s.to_string_lossy());
        let object = dir.join(format!("{stem}.o"));
        // Written under another name and renamed, so that a link never
        // reads a partial object.
        let partial = dir.join(format!("{stem}.o.partial"));
        let log_path = dir.join(format!("{stem}.log"));
        let log = match File::create(&log_path) {
            Ok(log) => log,
            Err(e) => {
                return failed(format!(
                    "harness: cannot create {}: {e}",
                    log_path.display()
                ))
            }
        };
        let mut command = Command::new(compiler);
        command
            .args(options)
            .arg("-c")
            .arg(source)
            .arg("-o")
            .arg(&partial)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        new_process_group(&mut command);
        let start = Instant::now();
        let mut child = match spawn(&mut command) {
            Ok(child) => child,
            Err(e) => {
                return failed(format!(
                    "harness: cannot run the compiler {}: {e}",
                    compiler.display()
                ))
            }
        };
        let status = match wait_with_deadline(&mut child, start, timeout, true) {
            Ok(Some(status)) => status,
            Ok(None) => return Err(Unbuilt::TimedOut(start.elapsed().as_secs_f64())),
            Err(e) => return failed(format!("harness: waiting for the compiler: {e}")),
        };
        if status.success() && fs::rename(&partial, &object).is_ok() {
            return Ok(object);
        }
        Err(Unbuilt::Failed {
            log: read_lossy(&log_path).unwrap_or_default(),
            ending: format!(
                "(compiling {} on its own) compiler {}",
                source.display(),
                describe_status(status)
            ),
        })
    }
}

/// The options an object is compiled with: `flags` less its sources
/// and what only the link reads, then `extra`.
fn object_options<'a>(flags: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
    compile_options(flags)
        .map(String::as_str)
        .chain(extra.iter().copied())
        .collect()
}

/// The indices of the flags that name a source file to compile.
fn sources(flags: &[String]) -> Vec<usize> {
    (0..flags.len())
        .filter(|&k| {
            let value_of_an_option = k > 0 && TAKES_A_VALUE.contains(&flags[k - 1].as_str());
            !value_of_an_option
                && has_extension(&flags[k], &SOURCE_EXTENSIONS)
                && Path::new(&flags[k]).is_file()
        })
        .collect()
}

/// Flags only the link reads (a compiler warns about them with `-c`).
fn linker_only(flag: &str) -> bool {
    flag.starts_with("-l")
        || flag.starts_with("-L")
        || flag.starts_with("-Wl,")
        || has_extension(flag, &LINKED_EXTENSIONS)
}

/// 16 hex digits of the compiler, the options, the source's path, size and
/// modification time.
fn key(compiler: &Path, options: &[&str], source: &Path) -> String {
    use crate::fnv::Fnv;
    let mut hash = Fnv::default();
    let mut feed = |text: &str| {
        hash.feed(&(text.len() as u64).to_le_bytes());
        hash.feed(text.as_bytes());
    };
    feed(&compiler.display().to_string());
    for option in options {
        feed(option);
    }
    feed(&source.display().to_string());
    let metadata = fs::metadata(source).ok();
    let size = metadata.as_ref().map_or(0, |m| m.len());
    let modified = metadata
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    feed(&format!("{size} {modified}"));
    hash.hex()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_the_files_named_with_a_source_extension() {
        let dir = std::env::temp_dir().join("commute-object-sources");
        fs::create_dir_all(&dir).unwrap();
        let file = |name: &str| {
            let path = dir.join(name);
            fs::write(&path, "int x;\n").unwrap();
            path.display().to_string()
        };
        let (a, b, header) = (file("a.c"), file("b.cpp"), file("pre.c"));
        let flags: Vec<String> = [
            "-O3",
            &a,
            "-include",
            &header,
            "-I.",
            &b,
            "missing.c",
            "-lm",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(sources(&flags), [1, 5]);
        assert!(linker_only("-lm") && linker_only("lib.a") && !linker_only("-O3"));
        fs::remove_dir_all(&dir).ok();
    }
}
