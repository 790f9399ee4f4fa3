//! The journal of a search: one JSON line per evaluation, written as it
//! happens, so that an interrupted search resumes without re-evaluating
//! and a finished one can be summarized and plotted later.
//!
//! The first line is a [`Header`]:
//!
//! ```text
//! {"journal":"commute","version":1,"space":"gemm","search":"mcts","seed":7,"config":{...},"started":1735689600}
//! ```
//!
//! and every further line one [`Evaluation`]:
//!
//! ```text
//! {"index":0,"path":[{"choice":0,"objects":[0,1],"values":2}],"status":"ok","value":0.00125,"elapsed":0.4}
//! ```
//!
//! with, when the evaluator gives them, a `flag` (`"cut_off"`,
//! `"timed_out"`, `"slower"`), the `phases` the time went to (`{"compile":0.8,
//! "check":0.3,"timing":1.6}`), the leaf's lower `bound`, and the best
//! leaf's value measured again (`"incumbent":{"index":3,"value":0.0011}`).
//!
//! Beside evaluations, a journal may hold *records*: lines whose object
//! has a string `record` key (`{"record":"baseline","name":"polly",...}`),
//! what the evaluator measured outside the search (the programs a result
//! is compared with, say). Searches and summaries do not see them; see
//! [`Journal::append_record`] and [`read_records`].
//!
//! Each line is written with a single `write` call, newline last, so an
//! interrupted write leaves at most an unterminated last line. Readers drop
//! such a line, and [`Journal::open_for_resume`] also cuts it off the file
//! so that appends continue on a clean line.
//!
//! ```
//! use commute_runtime::search::journal::{read_journal, Header, Journal, Replay};
//! use commute_runtime::search::{Evaluation, Status};
//! # let dir = std::env::temp_dir().join(format!("commute-journal-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("run.jsonl");
//! let header = Header::new("gemm", "random", 7, serde_json::json!({ "budget": 100 }));
//! let mut journal = Journal::create(&path, &header)?;
//! let evaluation = Evaluation::new(0, vec![], Status::Ok, Some(1.5), 0.1);
//! journal.append(&evaluation)?;
//! drop(journal);
//!
//! // Later, after an interruption: the recorded leaves are not run again.
//! let (header, evaluations, _journal) = Journal::open_for_resume(&path)?;
//! assert_eq!(header.search, "random");
//! let mut replay = Replay::new(evaluations);
//! assert_eq!(replay.lookup(&[]).and_then(|e| e.value), Some(1.5));
//! assert_eq!(replay.consumed(), 1);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::record::{Evaluation, Flag, Status};
use crate::action::Action;

/// The value of a header's `journal` key.
pub const FORMAT: &str = "commute";

/// The journal format this version writes and reads.
pub const VERSION: u64 = 1;

/// The first line of a journal: what ran, with which settings, and when.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The space searched (its name, or the file it came from).
    pub space: String,
    /// The search algorithm (`"mcts"`, `"random"`, ...).
    pub search: String,
    /// The search's seed.
    pub seed: u64,
    /// The search's other settings, free-form.
    #[serde(default)]
    pub config: serde_json::Value,
    /// When the search started, in seconds since the Unix epoch.
    pub started: u64,
}

impl Header {
    /// A header stamped with the current time.
    pub fn new(
        space: impl Into<String>,
        search: impl Into<String>,
        seed: u64,
        config: serde_json::Value,
    ) -> Header {
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Header {
            space: space.into(),
            search: search.into(),
            seed,
            config,
            started,
        }
    }

    /// Why a search described by `other` cannot resume this journal (a
    /// different space, search, seed or configuration), if it cannot.
    /// `started` is not compared.
    pub fn mismatch(&self, other: &Header) -> Option<String> {
        if self.space != other.space {
            return Some(format!(
                "the journal is of space `{}`, not `{}`",
                self.space, other.space
            ));
        }
        if self.search != other.search {
            return Some(format!(
                "the journal is of search `{}`, not `{}`",
                self.search, other.search
            ));
        }
        if self.seed != other.seed {
            return Some(format!(
                "the journal has seed {}, not {}",
                self.seed, other.seed
            ));
        }
        if self.config != other.config {
            return Some(format!(
                "the journal has configuration {}, not {}",
                self.config, other.config
            ));
        }
        None
    }
}

/// The header as written: the format's name and version first.
#[derive(Serialize)]
struct HeaderLine<'a> {
    journal: &'static str,
    version: u64,
    #[serde(flatten)]
    header: &'a Header,
}

/// A journal being written: every [`append`](Journal::append) writes one
/// line and hands it to the operating system before returning.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    evaluations: usize,
}

impl Journal {
    /// Creates (or truncates) the journal at `path` and writes its header.
    pub fn create(path: impl AsRef<Path>, header: &Header) -> io::Result<Journal> {
        let path = path.as_ref().to_path_buf();
        let mut file = File::create(&path)?;
        let line = HeaderLine {
            journal: FORMAT,
            version: VERSION,
            header,
        };
        let mut text = serde_json::to_string(&line).map_err(io::Error::other)?;
        text.push('\n');
        file.write_all(text.as_bytes())?;
        file.flush()?;
        Ok(Journal {
            path,
            file,
            evaluations: 0,
        })
    }

    /// Appends one evaluation as one line. Values must be finite (JSON has
    /// no NaN or infinity): an evaluation with a non-finite value,
    /// measurement or time is refused with `InvalidInput` and nothing is
    /// written.
    pub fn append(&mut self, evaluation: &Evaluation) -> io::Result<()> {
        if let Some(field) = non_finite(evaluation) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "evaluation {}: {field} is not a finite number",
                    evaluation.index
                ),
            ));
        }
        let mut text = serde_json::to_string(evaluation).map_err(io::Error::other)?;
        text.push('\n');
        // One call, newline last: an interruption leaves an unterminated
        // line, which readers drop.
        self.file.write_all(text.as_bytes())?;
        self.file.flush()?;
        self.evaluations += 1;
        Ok(())
    }

    /// Appends a record (not an evaluation): `fields`, an object, with
    /// `"record": kind` first. Replays, summaries and searches skip it;
    /// [`read_records`] reads it back.
    pub fn append_record(&mut self, kind: &str, fields: &serde_json::Value) -> io::Result<()> {
        let mut object = serde_json::Map::new();
        object.insert("record".to_string(), serde_json::Value::from(kind));
        if let Some(fields) = fields.as_object() {
            for (key, value) in fields {
                if key != "record" {
                    object.insert(key.clone(), value.clone());
                }
            }
        }
        let mut text = serde_json::to_string(&object).map_err(io::Error::other)?;
        text.push('\n');
        self.file.write_all(text.as_bytes())?;
        self.file.flush()
    }

    /// Asks the operating system to put what was written on disk (slow;
    /// `append` does not wait for it).
    pub fn sync(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// The journal's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many evaluations the journal holds, including those it had when
    /// it was opened for resuming.
    pub fn evaluations(&self) -> usize {
        self.evaluations
    }

    /// Opens an existing journal to continue it: returns its header, its
    /// complete evaluations, and a journal that appends after them.
    ///
    /// An unterminated last line (a write that was interrupted) is dropped
    /// and cut off the file, unless it is a complete record that only
    /// lacks its newline, which is then added.
    pub fn open_for_resume(
        path: impl AsRef<Path>,
    ) -> Result<(Header, Vec<Evaluation>, Journal), JournalError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| JournalError::io(path, e))?;
        let parsed = parse(path, &bytes)?;
        let mut file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| JournalError::io(path, e))?;
        match parsed.tail {
            Tail::Clean => {}
            Tail::MissingNewline => {
                file.write_all(b"\n")
                    .and_then(|()| file.flush())
                    .map_err(|e| JournalError::io(path, e))?;
            }
            Tail::Truncated { keep } => {
                file.set_len(keep as u64)
                    .map_err(|e| JournalError::io(path, e))?;
            }
        }
        let journal = Journal {
            path: path.to_path_buf(),
            file,
            evaluations: parsed.evaluations.len(),
        };
        Ok((parsed.header, parsed.evaluations, journal))
    }
}

/// The first field of `evaluation` that JSON cannot hold.
fn non_finite(evaluation: &Evaluation) -> Option<&'static str> {
    if evaluation.value.is_some_and(|v| !v.is_finite()) {
        Some("value")
    } else if evaluation.measurements.iter().any(|m| !m.is_finite()) {
        Some("a measurement")
    } else if !evaluation.elapsed.is_finite() {
        Some("elapsed")
    } else if evaluation.phases.is_some_and(|p| !p.is_finite()) {
        Some("a phase's time")
    } else if evaluation.bound.is_some_and(|b| !b.is_finite()) {
        Some("bound")
    } else if evaluation.incumbent.is_some_and(|r| !r.value.is_finite()) {
        Some("the incumbent's value")
    } else {
        None
    }
}

/// Reads a whole journal (for reports): its header and its complete
/// evaluations. An unterminated last line is dropped, as when resuming,
/// but the file is left as it is.
pub fn read_journal(path: impl AsRef<Path>) -> Result<(Header, Vec<Evaluation>), JournalError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| JournalError::io(path, e))?;
    let parsed = parse(path, &bytes)?;
    Ok((parsed.header, parsed.evaluations))
}

/// The records of a journal (see [`Journal::append_record`]) of this
/// `kind`, in the order they were written, each its whole object.
pub fn read_records(
    path: impl AsRef<Path>,
    kind: &str,
) -> Result<Vec<serde_json::Value>, JournalError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| JournalError::io(path, e))?;
    let parsed = parse(path, &bytes)?;
    Ok(parsed
        .records
        .into_iter()
        .filter(|r| r.get("record").and_then(|k| k.as_str()) == Some(kind))
        .collect())
}

/// Why a journal could not be read.
#[derive(Debug)]
pub enum JournalError {
    /// The file could not be read or written.
    Io {
        /// The journal's file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A line (1-based) is not what a journal holds there.
    Line {
        /// The journal's file.
        path: PathBuf,
        /// The line's number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

impl JournalError {
    fn io(path: &Path, source: io::Error) -> JournalError {
        JournalError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    fn line(path: &Path, line: usize, message: impl Into<String>) -> JournalError {
        JournalError::Line {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }

    /// The journal's file.
    pub fn path(&self) -> &Path {
        match self {
            JournalError::Io { path, .. } | JournalError::Line { path, .. } => path,
        }
    }
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Io { path, source } => {
                write!(f, "{}: {source}", path.display())
            }
            JournalError::Line {
                path,
                line,
                message,
            } => write!(f, "{}:{line}: {message}", path.display()),
        }
    }
}

impl std::error::Error for JournalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JournalError::Io { source, .. } => Some(source),
            JournalError::Line { .. } => None,
        }
    }
}

/// How a journal's bytes end.
enum Tail {
    /// With a newline after the last record (or empty lines).
    Clean,
    /// With a complete record that lacks its newline.
    MissingNewline,
    /// With part of a record: keep only the first `keep` bytes.
    Truncated { keep: usize },
}

struct Parsed {
    header: Header,
    evaluations: Vec<Evaluation>,
    records: Vec<serde_json::Value>,
    tail: Tail,
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Parsed, JournalError> {
    let mut header = None;
    let mut evaluations = Vec::new();
    let mut records = Vec::new();
    let mut tail = Tail::Clean;
    let mut start = 0;
    let mut number = 0;
    while start < bytes.len() {
        number += 1;
        let (line, terminated, end) = match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(n) => (&bytes[start..start + n], true, start + n + 1),
            None => (&bytes[start..], false, bytes.len()),
        };
        let blank = line.iter().all(u8::is_ascii_whitespace);
        if !blank {
            let result = if header.is_none() {
                parse_header(line).map(|h| header = Some(h))
            } else {
                parse_line(line).map(|line| match line {
                    Line::Evaluation(e) => evaluations.push(*e),
                    Line::Record(r) => records.push(r),
                })
            };
            match result {
                Ok(()) if !terminated => tail = Tail::MissingNewline,
                Ok(()) => {}
                // An interrupted write: keep what came before.
                Err(_) if !terminated && header.is_some() => {
                    tail = Tail::Truncated { keep: start };
                }
                Err(message) => return Err(JournalError::line(path, number, message)),
            }
        }
        start = end;
    }
    match header {
        Some(header) => Ok(Parsed {
            header,
            evaluations,
            records,
            tail,
        }),
        None => Err(JournalError::line(
            path,
            1,
            "empty: a journal starts with a header line",
        )),
    }
}

/// A line after the header.
enum Line {
    Evaluation(Box<Evaluation>),
    Record(serde_json::Value),
}

fn parse_line(line: &[u8]) -> Result<Line, String> {
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| format!("not an evaluation: {e}"))?;
    if value
        .get("record")
        .is_some_and(serde_json::Value::is_string)
    {
        return Ok(Line::Record(value));
    }
    serde_json::from_value(value)
        .map(|e| Line::Evaluation(Box::new(e)))
        .map_err(|e| format!("not an evaluation: {e}"))
}

fn parse_header(line: &[u8]) -> Result<Header, String> {
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| format!("not a journal header: {e}"))?;
    if value.get("journal").and_then(|v| v.as_str()) != Some(FORMAT) {
        return Err(format!(
            "not a journal: the first line has no `\"journal\": \"{FORMAT}\"`"
        ));
    }
    match value.get("version").and_then(|v| v.as_u64()) {
        Some(VERSION) => {}
        Some(other) => {
            return Err(format!(
                "journal version {other}: this commute reads version {VERSION}"
            ))
        }
        None => return Err("the header has no `version`".to_string()),
    }
    serde_json::from_value(value).map_err(|e| format!("bad journal header: {e}"))
}

/// The recorded evaluations of a journal, by the exact sequence of actions
/// that led to each leaf: a resumed search takes a recorded result instead
/// of evaluating the leaf again.
///
/// A leaf evaluated several times has several records; lookups of it take
/// them in journal order, one per lookup, and then find nothing, so a
/// resumed search that replays the interrupted one evaluates exactly what
/// the interrupted one had not. What a lookup returns is already in the
/// journal: do not append it again.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    evaluations: Vec<Evaluation>,
    /// Per path, the positions of its records and how many were taken.
    by_path: HashMap<Vec<Action>, (Vec<usize>, usize)>,
    consumed: usize,
}

impl Replay {
    /// A replay of `evaluations`, in journal order.
    pub fn new(evaluations: Vec<Evaluation>) -> Replay {
        let mut by_path: HashMap<Vec<Action>, (Vec<usize>, usize)> = HashMap::new();
        for (position, evaluation) in evaluations.iter().enumerate() {
            by_path
                .entry(evaluation.path.clone())
                .or_default()
                .0
                .push(position);
        }
        Replay {
            evaluations,
            by_path,
            consumed: 0,
        }
    }

    /// Whether a record of the leaf reached by `path` is left for a
    /// lookup.
    pub fn has(&self, path: &[Action]) -> bool {
        self.by_path
            .get(path)
            .is_some_and(|(positions, taken)| *taken < positions.len())
    }

    /// The next unused record of the leaf reached by `path`, if any, which
    /// counts as consumed.
    pub fn lookup(&mut self, path: &[Action]) -> Option<&Evaluation> {
        let (positions, taken) = self.by_path.get_mut(path)?;
        let position = *positions.get(*taken)?;
        *taken += 1;
        self.consumed += 1;
        Some(&self.evaluations[position])
    }

    /// How many records lookups have taken.
    pub fn consumed(&self) -> usize {
        self.consumed
    }

    /// How many records no lookup has taken yet.
    pub fn remaining(&self) -> usize {
        self.evaluations.len() - self.consumed
    }

    /// Whether every record was taken.
    pub fn is_exhausted(&self) -> bool {
        self.remaining() == 0
    }

    /// How many records there are in all.
    pub fn len(&self) -> usize {
        self.evaluations.len()
    }

    /// Whether there are no records at all.
    pub fn is_empty(&self) -> bool {
        self.evaluations.is_empty()
    }

    /// The largest recorded `elapsed`: how long the interrupted search had
    /// run, to carry its clock on.
    pub fn elapsed(&self) -> f64 {
        self.evaluations
            .iter()
            .map(|e| e.elapsed)
            .fold(0.0, f64::max)
    }

    /// All the records, in journal order.
    pub fn evaluations(&self) -> &[Evaluation] {
        &self.evaluations
    }
}

/// What a list of evaluations amounts to.
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct Summary {
    /// Evaluations in all.
    pub evaluations: usize,
    /// Measured evaluations (`Status::Ok` with a value), flagged ones
    /// included.
    pub ok: usize,
    /// Of those, evaluations cut off after one run (`Flag::CutOff`).
    pub cut_off: usize,
    /// Of those, evaluations stopped at the run timeout
    /// (`Flag::TimedOut`).
    pub timed_out: usize,
    /// Of those, evaluations timed but no faster than the best, not
    /// checked (`Flag::Slower`).
    pub slower: usize,
    /// Evaluations that measured nothing (failed, or `Ok` without a
    /// value).
    pub failed: usize,
    /// Leaves that gave a wrong result: a legality bug in the space.
    pub wrong: usize,
    /// Different leaves (action sequences) among the evaluations.
    pub distinct_leaves: usize,
    /// The lowest full measurement (not flagged), with re-measurements of
    /// the best applied; the first evaluation to reach it wins ties.
    pub best_value: Option<f64>,
    /// The [`Evaluation::index`] of that evaluation.
    pub best_index: Option<usize>,
    /// Its position in the summarized slice.
    pub best_position: Option<usize>,
    /// When it was found (seconds since the search started).
    pub best_elapsed: Option<f64>,
    /// The best value so far after every evaluation from the first
    /// measured one on: `(Evaluation::index, best value)`, one point per
    /// evaluation; it goes up only where the best was measured again
    /// slower.
    pub best_so_far: Vec<(usize, f64)>,
    /// The largest `elapsed`: how long the search ran.
    pub elapsed: f64,
}

impl Summary {
    /// The best evaluation of `evaluations` (the slice summarized).
    pub fn best<'a>(&self, evaluations: &'a [Evaluation]) -> Option<&'a Evaluation> {
        self.best_position.and_then(|p| evaluations.get(p))
    }
}

/// Counts, the best measured evaluation, and the best-so-far series.
pub fn summarize(evaluations: &[Evaluation]) -> Summary {
    let mut summary = Summary {
        evaluations: evaluations.len(),
        ..Summary::default()
    };
    let mut leaves = HashSet::new();
    for (position, evaluation) in evaluations.iter().enumerate() {
        leaves.insert(&evaluation.path);
        summary.elapsed = summary.elapsed.max(evaluation.elapsed);
        if let Some(revision) = evaluation.incumbent {
            if summary.best_index == Some(revision.index) {
                summary.best_value = Some(revision.value);
            }
        }
        match (evaluation.status, evaluation.value) {
            (Status::Ok, Some(value)) if !value.is_nan() => {
                summary.ok += 1;
                match evaluation.flag {
                    Some(Flag::CutOff) => summary.cut_off += 1,
                    Some(Flag::TimedOut) => summary.timed_out += 1,
                    Some(Flag::Slower) => summary.slower += 1,
                    None => {}
                }
                let full = evaluation.flag.is_none();
                if full && summary.best_value.is_none_or(|best| value < best) {
                    summary.best_value = Some(value);
                    summary.best_index = Some(evaluation.index);
                    summary.best_position = Some(position);
                    summary.best_elapsed = Some(evaluation.elapsed);
                }
            }
            // Measured nothing: counts as a failure.
            (Status::Ok, _) | (Status::Failed, _) => summary.failed += 1,
            (Status::Wrong, _) => summary.wrong += 1,
        }
        if let Some(best) = summary.best_value {
            summary.best_so_far.push((evaluation.index, best));
        }
    }
    summary.distinct_leaves = leaves.len();
    summary
}
