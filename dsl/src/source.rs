//! Source files of a space and the spans that point into them.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use codespan_reporting::files::{Files, SimpleFiles};

/// Index of a file in a [`SourceMap`].
pub type FileId = usize;

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// The file, in the [`SourceMap`] of the compilation.
    pub file: FileId,
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset just past the last byte.
    pub end: usize,
}

impl Span {
    /// The bytes `start..end` of `file`.
    pub fn new(file: FileId, start: usize, end: usize) -> Self {
        Span { file, start, end }
    }

    /// The smallest span covering `self` and `other` (same file).
    pub fn to(self, other: Span) -> Span {
        Span::new(
            self.file,
            self.start.min(other.start),
            self.end.max(other.end),
        )
    }
}

/// Every file read while checking a space, with its text, for diagnostics
/// and for the line numbers generated code points back to.
#[derive(Default)]
pub struct SourceMap {
    files: SimpleFiles<String, String>,
    count: usize,
}

impl SourceMap {
    /// Adds a file under the name diagnostics show for it.
    pub fn add(&mut self, name: String, text: String) -> FileId {
        self.count += 1;
        self.files.add(name, text)
    }

    /// The name of `file` as given or included, or `<unknown>`.
    pub fn name(&self, file: FileId) -> &str {
        self.files
            .get(file)
            .map(|f| f.name().as_str())
            .unwrap_or("<unknown>")
    }

    /// The text of `file`, or `""` for an unknown id.
    pub fn text(&self, file: FileId) -> &str {
        self.files
            .get(file)
            .map(|f| f.source().as_str())
            .unwrap_or("")
    }

    /// 1-based line and column of a byte offset.
    pub fn line_column(&self, file: FileId, offset: usize) -> (usize, usize) {
        let line = self.files.line_index(file, offset).unwrap_or(0);
        let column = self.files.column_number(file, line, offset).unwrap_or(1);
        (line + 1, column)
    }

    /// How many files were read.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no file could be read, not even the root one.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub(crate) fn files(&self) -> &SimpleFiles<String, String> {
        &self.files
    }
}

/// Where the text of a space's files comes from: the file system for the
/// command line and build scripts, memory for tests and fuzzing.
pub trait FileLoader {
    /// The text of the file at `path`; `NotFound`, `PermissionDenied`,
    /// `IsADirectory`, `FileTooLarge` and `InvalidData` (not UTF-8) errors
    /// get their own message in diagnostics.
    fn load(&self, path: &Path) -> io::Result<String>;
}

/// The largest space file [`FsLoader`] reads: 16 MiB, far above any
/// hand-written space, so that an include of a device such as `/dev/zero`
/// or of a huge data file fails instead of filling memory.
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// Reads files from disk, at most [`MAX_SOURCE_BYTES`] each; a directory
/// is an `IsADirectory` error and a longer file a `FileTooLarge` one.
pub struct FsLoader;

impl FileLoader for FsLoader {
    fn load(&self, path: &Path) -> io::Result<String> {
        use std::io::Read as _;
        let file = std::fs::File::open(path)?;
        // Opening a directory succeeds on Unix; only reading it fails, with
        // a message that does not say what to do.
        if file.metadata()?.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        let mut bytes = Vec::new();
        file.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_SOURCE_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                "larger than a space file may be",
            ));
        }
        String::from_utf8(bytes)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8"))
    }
}

/// Serves files from a map of paths to texts.
#[derive(Default)]
pub struct MemoryLoader {
    /// Texts by path; paths are compared after [`normalize`], so
    /// `dir/../a.space` finds `a.space`.
    pub files: HashMap<PathBuf, String>,
}

impl MemoryLoader {
    /// A loader without files.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file under `path`, the path that [`compile_with`] or an
    /// `include` item names it by.
    ///
    /// [`compile_with`]: crate::compile_with
    pub fn with(mut self, path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        self.files.insert(path.into(), text.into());
        self
    }
}

impl FileLoader for MemoryLoader {
    fn load(&self, path: &Path) -> io::Result<String> {
        let normalized = normalize(path);
        self.files
            .iter()
            .find(|(p, _)| normalize(p) == normalized)
            .map(|(_, text)| text.clone())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
}

/// Removes `.` and resolves `..` lexically, so that the same file reached
/// through different relative paths gets one identity.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
