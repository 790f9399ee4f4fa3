//! A journal read and summarized, as reports and plots take it.

use std::path::Path;

use crate::search::journal::{read_journal, summarize, Header, Summary};
use crate::search::Evaluation;

/// One journal, read and summarized.
pub struct Run {
    /// How the report names this run: its search's name unless given.
    pub name: String,
    /// The journal's header.
    pub header: Header,
    /// Every evaluation the journal holds, in order.
    pub evaluations: Vec<Evaluation>,
    /// The journal's totals and best-so-far curve.
    pub summary: Summary,
}

impl Run {
    /// Reads and summarizes the journal at `path`.
    pub fn read(path: &Path, name: Option<String>) -> Result<Run, String> {
        let (header, evaluations) = read_journal(path).map_err(|e| e.to_string())?;
        let summary = summarize(&evaluations);
        Ok(Run {
            name: name.unwrap_or_else(|| header.search.clone()),
            header,
            evaluations,
            summary,
        })
    }

    /// How many evaluations the search made (indices are 0-based).
    pub fn length(&self) -> usize {
        self.evaluations
            .iter()
            .map(|e| e.index + 1)
            .max()
            .unwrap_or(0)
    }
}
