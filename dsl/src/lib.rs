//! The commute space language: parsing, checking and diagnostics.
//!
//! A *space* declares, independently of any kernel, which decisions exist
//! on the objects of a kernel and how they constrain each other (see
//! `docs/language.md`). This crate reads a space file and its includes,
//! checks it, and lowers it into [`ir::Space`], the checked form the code
//! generator reads.
//!
//! ```
//! use commute_dsl::{compile_with, MemoryLoader};
//!
//! let loader = MemoryLoader::new().with("demo.space", "
//!     set Loops
//!     choice enum kind($l in Loops):
//!       value SEQUENTIAL
//!       value PARALLEL
//!     end
//! ");
//! let compilation = compile_with("demo.space", &loader);
//! let space = compilation.space.expect("valid space");
//! assert_eq!(space.choices[0].name, "kind");
//! ```
//!
//! Errors come back as values: [`Compilation::diagnostics`] holds every
//! problem found (parsing goes on after a syntax error, checking after a
//! type error), each with its file, span and hints; nothing here panics or
//! exits on bad input.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod ast;
mod check;
pub mod diagnostic;
pub mod ir;
pub mod parse;
pub mod source;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

pub use diagnostic::{Diagnostic, Severity};
pub use source::{FileLoader, FsLoader, MemoryLoader, SourceMap, Span};

/// How many diagnostics [`Compilation::render_diagnostics`] shows.
pub const MAX_RENDERED_DIAGNOSTICS: usize = 100;

/// The result of reading and checking one space.
pub struct Compilation {
    /// Every file read, for rendering diagnostics and locating items.
    pub sources: SourceMap,
    /// The checked space, when there is no error (warnings allowed).
    pub space: Option<ir::Space>,
    /// Errors and warnings, in the order of the files and items.
    pub diagnostics: Vec<Diagnostic>,
}

impl Compilation {
    /// Whether any diagnostic is an error; warnings alone leave the space
    /// usable.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The diagnostics rendered as plain text: the first
    /// [`MAX_RENDERED_DIAGNOSTICS`], then a line counting the rest.
    pub fn render_diagnostics(&self) -> String {
        let shown = self.shown_diagnostics();
        let mut text = diagnostic::render_all(shown, &self.sources);
        if let Some(line) = self.hidden_diagnostics_line() {
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    /// The diagnostics worth showing: past a hundred, the rest are almost
    /// always consequences of the first ones.
    pub fn shown_diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics[..self.diagnostics.len().min(MAX_RENDERED_DIAGNOSTICS)]
    }

    /// "N more errors and M more warnings not shown", if any were cut.
    pub fn hidden_diagnostics_line(&self) -> Option<String> {
        let hidden = self
            .diagnostics
            .get(MAX_RENDERED_DIAGNOSTICS..)
            .filter(|rest| !rest.is_empty())?;
        let errors = hidden.iter().filter(|d| d.is_error()).count();
        Some(format!(
            "... {errors} more error(s) and {} more warning(s) not shown",
            hidden.len() - errors
        ))
    }
}

/// Reads `path` and its includes from disk and checks them.
pub fn compile(path: impl AsRef<Path>) -> Compilation {
    compile_with(path, &FsLoader)
}

/// Reads `path` and its includes through `loader` and checks them.
pub fn compile_with(path: impl AsRef<Path>, loader: &dyn FileLoader) -> Compilation {
    let mut reader = Reader {
        loader,
        sources: SourceMap::default(),
        diagnostics: Vec::new(),
        items: Vec::new(),
        broken: HashSet::new(),
        incomplete: false,
        done: HashSet::new(),
        stack: Vec::new(),
        included_from: HashMap::new(),
    };
    reader.read(path.as_ref(), None);
    let Reader {
        sources,
        mut diagnostics,
        items,
        broken,
        incomplete,
        included_from,
        ..
    } = reader;
    let (space, check_diagnostics) = check::check(&items, &broken, incomplete, &sources);
    diagnostics.extend(check_diagnostics);
    for diagnostic in &mut diagnostics {
        add_include_chain(diagnostic, &included_from, &sources);
    }
    let space = (!diagnostics.iter().any(Diagnostic::is_error)).then_some(space);
    Compilation {
        sources,
        space,
        diagnostics,
    }
}

/// Says how the file of an error in an included file was reached.
fn add_include_chain(
    diagnostic: &mut Diagnostic,
    included_from: &HashMap<source::FileId, Span>,
    sources: &SourceMap,
) {
    let Some(mut file) = diagnostic.span().map(|s| s.file) else {
        return;
    };
    let mut steps = Vec::new();
    while let Some(at) = included_from.get(&file) {
        let (line, _) = sources.line_column(at.file, at.start);
        steps.push(format!(
            "`{}` is included from `{}:{line}`",
            sources.name(file),
            sources.name(at.file)
        ));
        file = at.file;
        if steps.len() > included_from.len() {
            break;
        }
    }
    diagnostic.notes.extend(steps);
}

/// Reads a file and, depth first, the files it includes.
struct Reader<'l> {
    loader: &'l dyn FileLoader,
    sources: SourceMap,
    diagnostics: Vec<Diagnostic>,
    items: Vec<ast::Item>,
    broken: HashSet<String>,
    /// Some included file could not be read or its include did not parse.
    incomplete: bool,
    done: HashSet<PathBuf>,
    /// The include that first led to each file.
    included_from: HashMap<source::FileId, Span>,
    /// Files being read, outermost first, with the include that led there.
    stack: Vec<(PathBuf, Option<Span>)>,
}

impl Reader<'_> {
    fn read(&mut self, path: &Path, included_at: Option<Span>) {
        let key = source::normalize(path);
        if let Some(position) = self.stack.iter().position(|(p, _)| *p == key) {
            self.report_cycle(position, &key, included_at);
            return;
        }
        if !self.done.insert(key.clone()) {
            return; // Already read through another include.
        }
        let text = match self.loader.load(path) {
            Ok(text) => text,
            Err(error) => {
                self.report_unreadable(path, included_at, &error);
                return;
            }
        };
        let file = self.sources.add(key.display().to_string(), text);
        if let Some(at) = included_at {
            self.included_from.insert(file, at);
        }
        let parsed = parse::parse_file(file, self.sources.text(file));
        self.diagnostics.extend(parsed.diagnostics);
        self.broken.extend(parsed.broken_names);
        self.incomplete |= parsed.broken_include;
        self.stack.push((key.clone(), included_at));
        let directory = key.parent().map(Path::to_path_buf).unwrap_or_default();
        for item in parsed.items {
            if let ast::Item::Include(include) = &item {
                self.read(&directory.join(&include.path), Some(include.path_span));
            }
            self.items.push(item);
        }
        self.stack.pop();
    }

    fn report_cycle(&mut self, position: usize, key: &Path, included_at: Option<Span>) {
        let chain: Vec<String> = self.stack[position..]
            .iter()
            .map(|(p, _)| p.display().to_string())
            .chain([key.display().to_string()])
            .collect();
        let message = format!("cyclic include: {}", chain.join(" -> "));
        let Some(span) = included_at else {
            self.diagnostics
                .push(Diagnostic::plain("include-cycle", message));
            return;
        };
        let mut diagnostic = Diagnostic::error(
            "include-cycle",
            message,
            span,
            "this include closes the cycle",
        );
        for (_, at) in &self.stack[position + 1..] {
            if let Some(at) = at {
                diagnostic = diagnostic.with_label(*at, "included here");
            }
        }
        self.diagnostics.push(
            diagnostic.with_note("a file may not include itself, directly or through other files"),
        );
    }

    fn report_unreadable(
        &mut self,
        path: &Path,
        included_at: Option<Span>,
        error: &std::io::Error,
    ) {
        self.incomplete = true;
        // The path as the author wrote it: in the include, or on the
        // command line (`.` normalizes to an empty path).
        let shown = match included_at {
            Some(span) => self
                .sources
                .text(span.file)
                .get(span.start..span.end)
                .unwrap_or("")
                .trim_matches('"')
                .to_string(),
            None => path.display().to_string(),
        };
        use std::io::ErrorKind;
        let (message, reason, note) = match error.kind() {
            ErrorKind::IsADirectory => (
                format!("`{shown}` is a directory, not a space file"),
                "a directory".to_string(),
                "name a `.space` file; include paths are relative to the including file",
            ),
            ErrorKind::FileTooLarge => (
                format!(
                    "`{shown}` is larger than {} MiB, the most a space file may hold",
                    source::MAX_SOURCE_BYTES >> 20
                ),
                "too large for a space file".to_string(),
                "check the path: a space file is text written by hand, far smaller than this",
            ),
            kind => {
                let reason = match kind {
                    ErrorKind::NotFound => "no such file".to_string(),
                    ErrorKind::PermissionDenied => "permission denied".to_string(),
                    ErrorKind::InvalidData => "not UTF-8 text".to_string(),
                    _ => error.to_string(),
                };
                let shown = source::normalize(path);
                (
                    format!("cannot read `{}`: {reason}", shown.display()),
                    reason,
                    "include paths are relative to the including file",
                )
            }
        };
        self.diagnostics.push(match included_at {
            Some(span) => Diagnostic::error("include", message, span, reason).with_note(note),
            None => Diagnostic::plain("read", message),
        });
    }
}
