//! From a checked space to the engine's tables, printed as Rust at build
//! time or built in memory at run time.
//!
//! One lowering (`lower`) turns a checked space (see `commute-dsl`) into
//! the tables of a [`Model`]. [`load`] hands them to the engine as they
//! are, so that any space file runs without generated code (with a host
//! given as data, say); [`generate`] prints them as Rust source, the typed
//! and fastest path for Rust hosts:
//!
//! - `MODEL`, the space's static tables ([`commute_runtime::Model`]);
//! - one typed id per root set (`StatementsId`), shared by its subsets;
//! - a `Host` trait with one method per set, property and trigger callback,
//!   which a kernel's description implements (none for the properties the
//!   checker derives from `$x in S` and `$a < $b`, which the engine
//!   computes from the sets);
//! - `Backbone<H: Host>`, the adapter the engine takes;
//! - per choice a module with its index (`CHOICE`) and, for enum choices,
//!   one mask constant per value and alias;
//! - `Propagators`, the space's constraint filters written out per
//!   constraint (`commute_runtime::compiled`), which `Backbone` hands to
//!   the engine; left out for a space of more than
//!   [`MAX_COMPILED_LITERALS`] literals, or when [`Builder::propagators`]
//!   asks for the tables alone.
//!
//! Use it from a build script, like `prost-build` or `lalrpop`:
//!
//! ```no_run
//! // build.rs, in `fn main()`:
//! commute_codegen::compile_or_exit("spaces/my_space.space");
//! ```
//!
//! ```text
//! // src/lib.rs
//! include!(concat!(env!("OUT_DIR"), "/my_space.rs"));
//! ```
//!
//! A space with errors stops the build with the same diagnostics as
//! `commute check` (file, line, column, underlined source), not a panic.
//!
//! [`commute_runtime::Model`]: https://docs.rs/commute-runtime

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod generate;
mod lower;
mod names;
mod propagators;
mod text;

use std::fmt;
use std::path::{Path, PathBuf};

use commute_dsl::{Compilation, FileLoader, FsLoader};
use commute_model::Model;

pub use propagators::{Propagators, MAX_COMPILED_LITERALS};

/// Why code could not be generated.
#[derive(Debug)]
pub enum Error {
    /// The space has errors: the rendered diagnostics, each with its
    /// `file:line:column` and the source underlined.
    Diagnostics(String),
    /// The generated file could not be written. (A space that cannot be
    /// read is reported as a diagnostic instead.)
    Io {
        /// The file or folder that failed, or `$OUT_DIR` when that
        /// variable is not set.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The space is valid, but the generator cannot express it: two of
    /// its names become the same Rust name (the message names both items
    /// and their `file:line`), or, an internal error, the generated code
    /// does not parse. What the engine cannot hold is a diagnostic of the
    /// checker instead.
    Unsupported(String),
}

impl Error {
    fn from_diagnostics(compilation: &Compilation) -> Error {
        let mut text = compilation.render_diagnostics();
        let errors = compilation
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .count();
        if !compilation.sources.is_empty() {
            let plural = if errors == 1 { "" } else { "s" };
            text.push_str(&format!(
                "{}: {errors} error{plural}\n",
                compilation.sources.name(0)
            ));
        }
        Error::Diagnostics(text)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Diagnostics(text) => f.write_str(text.trim_end()),
            Error::Io { path, error } => write!(f, "{}: {error}", path.display()),
            Error::Unsupported(message) => write!(f, "unsupported: {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// The formatted Rust source for a compiled space.
///
/// Fails with [`Error::Diagnostics`] when the compilation has errors, and
/// with [`Error::Unsupported`] for names that clash in Rust.
/// The output depends only on the compilation: two runs give the same text.
pub fn generate(compilation: &Compilation) -> Result<String, Error> {
    generate::generate(compilation, Propagators::Auto)
}

/// [`generate`], the space's propagators compiled or not as `propagators`
/// says.
pub fn generate_with(compilation: &Compilation, propagators: Propagators) -> Result<String, Error> {
    generate::generate(compilation, propagators)
}

/// The tables of a compiled space, built in memory: the same values
/// [`generate`] prints as `MODEL`, so the engine reaches the same leaves
/// through either.
///
/// Fails with [`Error::Diagnostics`] when the compilation has errors. The
/// tables are leaked (the engine keeps a `&'static Model`): call it once
/// per space a process loads.
pub fn lower(compilation: &Compilation) -> Result<&'static Model, Error> {
    let space = compilation
        .space
        .as_ref()
        .ok_or_else(|| Error::from_diagnostics(compilation))?;
    Ok(lower::lower(space, &compilation.sources))
}

/// Reads, checks and lowers the space file at `path` (see [`lower`]).
/// Origins in the tables name the files as given here.
pub fn load(path: impl AsRef<Path>) -> Result<&'static Model, Error> {
    load_with(path, &FsLoader)
}

/// [`load`], reading files through `loader`.
pub fn load_with(path: impl AsRef<Path>, loader: &dyn FileLoader) -> Result<&'static Model, Error> {
    lower(&commute_dsl::compile_with(path, loader))
}

/// [`load`] of `path` relative to the folder `dir`, with the files named
/// relative to it, as a build script running in `dir` names them: the
/// tables equal, origins included, those it generates.
pub fn load_in(dir: impl AsRef<Path>, path: impl AsRef<Path>) -> Result<&'static Model, Error> {
    load_with(path, &InFolder(dir.as_ref().to_path_buf()))
}

/// Reads files relative to a folder.
struct InFolder(PathBuf);

impl FileLoader for InFolder {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        std::fs::read_to_string(self.0.join(path))
    }
}

/// The environment variable that chooses [`Propagators`] for builders
/// left at [`Propagators::Auto`]: `tables` or `compiled`.
pub const PROPAGATORS_VARIABLE: &str = "COMMUTE_PROPAGATORS";

/// Generates the code of one space into a file, from a build script.
#[derive(Clone, Debug)]
pub struct Builder {
    space: PathBuf,
    out_dir: Option<PathBuf>,
    out_file: Option<PathBuf>,
    propagators: Propagators,
}

impl Builder {
    /// A builder for the space file at `space` (its includes are found
    /// relative to it). Paths in generated comments and in the model's
    /// origins are written as given here, so prefer a path relative to
    /// the package.
    pub fn new(space: impl AsRef<Path>) -> Self {
        Builder {
            space: space.as_ref().to_path_buf(),
            out_dir: None,
            out_file: None,
            propagators: Propagators::Auto,
        }
    }

    /// Whether the space's propagators are compiled into the file
    /// ([`Propagators::Auto`] by default: unless the space is too large
    /// to compile quickly). [`Propagators::Tables`] leaves them out, so
    /// that the engine filters every constraint from the tables. Left at
    /// `Auto`, the environment variable `COMMUTE_PROPAGATORS` (`tables` or
    /// `compiled`) decides, so that a build can fall back to the tables
    /// without editing its build script.
    pub fn propagators(mut self, propagators: Propagators) -> Self {
        self.propagators = propagators;
        self
    }

    /// The directory to write into; `OUT_DIR` by default.
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The file name to write, relative to the output directory;
    /// `<stem of the space file>.rs` by default.
    pub fn out_file(mut self, name: impl AsRef<Path>) -> Self {
        self.out_file = Some(name.as_ref().to_path_buf());
        self
    }

    /// Reads and checks the space, tells cargo to rerun the build script
    /// when any of its files changes, generates the code and writes it
    /// (only if it changed, so that dependents are not rebuilt for
    /// nothing). Returns the path written. Warnings of the space are passed
    /// on to cargo (`cargo:warning`).
    pub fn compile(&self) -> Result<PathBuf, Error> {
        let compilation = commute_dsl::compile(&self.space);
        for file in 0..compilation.sources.len() {
            println!("cargo:rerun-if-changed={}", compilation.sources.name(file));
        }
        if compilation.sources.is_empty() {
            // The file could not be read: still watch it, to retry once it
            // exists.
            println!("cargo:rerun-if-changed={}", self.space.display());
        }
        println!("cargo:rerun-if-env-changed={PROPAGATORS_VARIABLE}");
        let propagators = match (self.propagators, std::env::var(PROPAGATORS_VARIABLE)) {
            (Propagators::Auto, Ok(value)) if value == "tables" => Propagators::Tables,
            (Propagators::Auto, Ok(value)) if value == "compiled" => Propagators::Compiled,
            (chosen, _) => chosen,
        };
        let code = generate_with(&compilation, propagators)?;
        if !compilation.diagnostics.is_empty() {
            for line in compilation.render_diagnostics().lines() {
                if !line.trim().is_empty() {
                    println!("cargo:warning={line}");
                }
            }
        }
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::Io {
                    path: PathBuf::from("$OUT_DIR"),
                    error: std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "OUT_DIR is not set: run from a build script or call `Builder::out_dir`",
                    ),
                })?,
        };
        let out_file = match &self.out_file {
            Some(name) => name.clone(),
            None => {
                let stem = self.space.file_stem().unwrap_or(self.space.as_os_str());
                let mut name = PathBuf::from(stem);
                name.set_extension("rs");
                name
            }
        };
        let path = out_dir.join(out_file);
        let unchanged = std::fs::read_to_string(&path).is_ok_and(|old| old == code);
        if !unchanged {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|error| Error::Io {
                    path: parent.to_path_buf(),
                    error,
                })?;
            }
            std::fs::write(&path, code).map_err(|error| Error::Io {
                path: path.clone(),
                error,
            })?;
        }
        Ok(path)
    }
}

/// `Builder::new(space).compile()`: generates `<stem>.rs` in `OUT_DIR`.
pub fn compile(space: impl AsRef<Path>) -> Result<PathBuf, Error> {
    Builder::new(space).compile()
}

/// Like [`compile`], but on error prints the message (the space's
/// diagnostics, with file, line and column) to standard error and exits
/// the build script with status 1: the build fails with that message
/// rather than a panic and a backtrace.
pub fn compile_or_exit(space: impl AsRef<Path>) -> PathBuf {
    let space = space.as_ref();
    match compile(space) {
        Ok(path) => path,
        Err(error) => {
            eprintln!("error: cannot generate code for `{}`", space.display());
            eprintln!("{error}");
            std::process::exit(1);
        }
    }
}
