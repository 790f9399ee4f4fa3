//! Diagnostics as values: what went wrong, where, and what would fix it.

use codespan_reporting::diagnostic as cs;
use codespan_reporting::term::{self, termcolor};

use crate::source::{SourceMap, Span};

/// How bad a diagnostic is: an error rejects the space, a warning does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The space is wrong: no checked form is produced.
    Error,
    /// Probably a mistake, such as an unused quantifier; the space is still
    /// checked and generated.
    Warning,
}

/// A span with a message under it.
#[derive(Clone, Debug)]
pub struct Label {
    /// The source range underlined.
    pub span: Span,
    /// Text printed next to the underline.
    pub message: String,
    /// The primary label is the place of the mistake; secondary ones give
    /// context (a previous definition, the declaration of a parameter).
    pub primary: bool,
}

/// One problem in a space.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A short stable name of the error class, such as `unknown-set`.
    pub code: &'static str,
    /// One line saying what is wrong, naming the names involved.
    pub message: String,
    /// Places in the source: the primary one first, then context; empty for
    /// a problem of no place, like an unreadable root file.
    pub labels: Vec<Label>,
    /// Explanations and hints shown under the source excerpt.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`, with `label` under it as the primary label.
    pub fn error(
        code: &'static str,
        message: impl Into<String>,
        span: Span,
        label: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            labels: vec![Label {
                span,
                message: label.into(),
                primary: true,
            }],
            notes: Vec::new(),
        }
    }

    /// A warning at `span`, with `label` under it as the primary label.
    pub fn warning(
        code: &'static str,
        message: impl Into<String>,
        span: Span,
        label: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, span, label)
        }
    }

    /// An error about no place in particular, such as an unreadable file.
    pub fn plain(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    /// Adds a note under the source excerpt: an explanation or a fix.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Whether it rejects the space.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The primary span, if any.
    pub fn span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    fn to_codespan(&self) -> cs::Diagnostic<usize> {
        let severity = match self.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
        };
        let labels = self
            .labels
            .iter()
            .map(|l| {
                let style = if l.primary {
                    cs::LabelStyle::Primary
                } else {
                    cs::LabelStyle::Secondary
                };
                cs::Label::new(style, l.span.file, l.span.start..l.span.end)
                    .with_message(&l.message)
            })
            .collect();
        cs::Diagnostic::new(severity)
            .with_code(self.code)
            .with_message(&self.message)
            .with_labels(labels)
            .with_notes(self.notes.clone())
    }

    /// Renders the diagnostic as plain text: `file:line:column`, the source
    /// excerpt with the span underlined, and the notes.
    pub fn render(&self, sources: &SourceMap) -> String {
        let config = term::Config::default();
        term::emit_into_string(&config, sources.files(), &self.to_codespan())
            .unwrap_or_else(|_| format!("{}: {}\n", self.code, self.message))
    }

    /// Writes the diagnostic to standard error, in color when it is a terminal.
    /// A standard error that cannot be written (a reader that closed the
    /// pipe) loses the diagnostic rather than panicking.
    pub fn emit_to_stderr(&self, sources: &SourceMap, color: bool) {
        let choice = if color {
            termcolor::ColorChoice::Auto
        } else {
            termcolor::ColorChoice::Never
        };
        let stream = termcolor::StandardStream::stderr(choice);
        let mut lock = stream.lock();
        let config = term::Config::default();
        if term::emit_to_write_style(&mut lock, &config, sources.files(), &self.to_codespan())
            .is_err()
        {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "{}: {}", self.code, self.message);
        }
    }
}

/// Renders several diagnostics, one after the other.
pub fn render_all(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    diagnostics.iter().map(|d| d.render(sources)).collect()
}

/// The closest candidate to `name` by edit distance, if close enough to be
/// a plausible typo.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            did_you_mean("dim_knd", ["dim_kind", "order"]),
            Some("dim_kind")
        );
        assert_eq!(did_you_mean("xyz", ["dim_kind", "order"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
