//! Failures that stop the tuning (no compiler, a reference program that
//! does not build or run), as opposed to a candidate's failures, which are
//! [`Measurement`](super::Measurement)s.

use std::fmt;
use std::io;
use std::path::Path;

/// What kind of failure a [`HarnessError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HarnessErrorKind {
    /// The compiler was not found or cannot be run.
    Compiler,
    /// The reference program does not compile, crashes or times out.
    Reference,
    /// Files of the work directory cannot be written or read.
    Io,
    /// [`Harness::remeasure`](super::Harness::remeasure) was given a source that was not evaluated
    /// successfully, or one of its runs failed.
    Remeasure,
}

/// A failure that stops the tuning: no compiler, or a reference program
/// that does not build or run. Candidates' failures are [`Measurement`](super::Measurement)s.
#[derive(Clone, Debug)]
pub struct HarnessError {
    kind: HarnessErrorKind,
    message: String,
}

impl HarnessError {
    pub(super) fn new(kind: HarnessErrorKind, message: impl Into<String>) -> HarnessError {
        HarnessError {
            kind,
            message: message.into(),
        }
    }

    pub(super) fn io(what: &str, path: &Path, error: &io::Error) -> HarnessError {
        HarnessError::new(
            HarnessErrorKind::Io,
            format!("cannot {what} {}: {error}", path.display()),
        )
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> HarnessErrorKind {
        self.kind
    }

    /// The message, as displayed.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HarnessError {}
