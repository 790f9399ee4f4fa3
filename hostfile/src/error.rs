//! Mistakes in a host file, each with the file, line and column it is at.

use std::fmt;

/// One mistake in a host file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostError {
    /// The file as it was named.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong, naming the set, object or property.
    pub message: String,
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

/// Every mistake found in a host file, in the order of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostErrors(pub Vec<HostError>);

impl fmt::Display for HostErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for HostErrors {}

/// Turns byte offsets of one file into located errors.
pub(crate) struct Locator<'a> {
    file: &'a str,
    text: &'a str,
    pub(crate) errors: Vec<HostError>,
}

impl<'a> Locator<'a> {
    pub(crate) fn new(file: &'a str, text: &'a str) -> Self {
        Locator {
            file,
            text,
            errors: Vec::new(),
        }
    }

    /// Records `message` at the byte `offset`.
    pub(crate) fn error(&mut self, offset: usize, message: impl Into<String>) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        self.errors.push(HostError {
            file: self.file.to_string(),
            line,
            column,
            message: message.into(),
        });
    }

    /// The errors by position in the file.
    pub(crate) fn finish(mut self) -> Result<(), HostErrors> {
        if self.errors.is_empty() {
            return Ok(());
        }
        self.errors.sort_by_key(|e| (e.line, e.column));
        Err(HostErrors(self.errors))
    }
}
