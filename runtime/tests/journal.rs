//! Journals: written line by line, read back, resumed after an interrupted
//! write, replayed and summarized.

use std::path::{Path, PathBuf};

use commute_runtime::search::journal::{
    read_journal, read_records, summarize, Header, Journal, JournalError, Replay,
};
use commute_runtime::search::{Evaluation, Status};
use commute_runtime::Action;

/// A fresh directory for one test, removed when the test is done with it.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!(
        "commute-journal-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    Scratch(dir)
}

fn action(choice: u16, objects: &[u32], value: u32) -> Action {
    Action {
        choice,
        objects: objects.to_vec(),
        values: 1 << value,
    }
}

fn evaluation(index: usize, path: Vec<Action>, status: Status, value: Option<f64>) -> Evaluation {
    Evaluation {
        measurements: value.map_or_else(Vec::new, |v| vec![v, v * 1.01]),
        message: (status != Status::Ok).then(|| format!("evaluation {index} went wrong")),
        ..Evaluation::new(index, path, status, value, 0.25 * (index + 1) as f64)
    }
}

/// Six evaluations of distinct leaves: costs 5, failed, 3, wrong, 4, 2.
fn six() -> Vec<Evaluation> {
    let values = [
        (Status::Ok, Some(5.0)),
        (Status::Failed, None),
        (Status::Ok, Some(3.0)),
        (Status::Wrong, None),
        (Status::Ok, Some(4.0)),
        (Status::Ok, Some(2.0)),
    ];
    values
        .iter()
        .enumerate()
        .map(|(i, &(status, value))| {
            let path = vec![
                action(0, &[0, 1], (i % 3) as u32),
                action(1, &[2], (i / 3) as u32),
            ];
            evaluation(i, path, status, value)
        })
        .collect()
}

fn header() -> Header {
    Header::new(
        "listing07_ordering",
        "mcts",
        42,
        serde_json::json!({ "policy": "uct", "budget": { "evaluations": 6 } }),
    )
}

#[test]
fn a_journal_reads_back_what_was_written() {
    let dir = scratch("round-trip");
    let path = dir.join("run.jsonl");
    let header = header();
    let mut journal = Journal::create(&path, &header).unwrap();
    for e in six() {
        journal.append(&e).unwrap();
    }
    assert_eq!(journal.evaluations(), 6);
    drop(journal);

    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 7, "a header and one line each");
    assert!(text.ends_with('\n'));
    assert!(
        text.starts_with(r#"{"journal":"commute","version":1,"space":"listing07_ordering""#),
        "{text}"
    );

    let (read_header, evaluations) = read_journal(&path).unwrap();
    assert_eq!(read_header, header);
    assert_eq!(evaluations, six());
}

#[test]
fn values_read_back_bit_for_bit() {
    // A resumed search must see the very measurements it recorded.
    let dir = scratch("floats");
    let path = dir.join("run.jsonl");
    let values = [
        0.1 + 0.2,
        3.0300000000000002,
        1e-300,
        5e-324,
        f64::MAX,
        -0.0,
        1.0 / 3.0,
        123_456.789_012_345_67,
    ];
    let mut journal = Journal::create(&path, &header()).unwrap();
    for (index, &v) in values.iter().enumerate() {
        let mut e = evaluation(index, vec![], Status::Ok, Some(v));
        e.measurements = vec![v, v / 7.0];
        e.elapsed = v.abs().min(1e9) / 3.0;
        journal.append(&e).unwrap();
    }
    drop(journal);
    let (_, read) = read_journal(&path).unwrap();
    for (e, &v) in read.iter().zip(&values) {
        assert_eq!(e.value.map(f64::to_bits), Some(v.to_bits()));
        assert_eq!(e.measurements[1].to_bits(), (v / 7.0).to_bits());
        assert_eq!(e.elapsed.to_bits(), (v.abs().min(1e9) / 3.0).to_bits());
    }
}

#[test]
fn every_line_is_on_disk_as_soon_as_it_is_appended() {
    let dir = scratch("flushed");
    let path = dir.join("run.jsonl");
    let mut journal = Journal::create(&path, &header()).unwrap();
    for (i, e) in six().into_iter().enumerate() {
        journal.append(&e).unwrap();
        // Read while the journal is still open.
        let (_, read) = read_journal(&path).unwrap();
        assert_eq!(read.len(), i + 1);
        assert_eq!(read[i], e);
    }
}

#[test]
fn resuming_after_an_interrupted_write_drops_the_partial_line_and_appends_cleanly() {
    let dir = scratch("resume");
    let path = dir.join("run.jsonl");
    let all = six();
    let mut journal = Journal::create(&path, &header()).unwrap();
    for e in &all[..4] {
        journal.append(e).unwrap();
    }
    drop(journal);
    // The fifth write was interrupted halfway through its line.
    let complete = std::fs::read(&path).unwrap();
    let line = serde_json::to_string(&all[4]).unwrap();
    let mut bytes = complete.clone();
    bytes.extend_from_slice(&line.as_bytes()[..line.len() / 2]);
    std::fs::write(&path, &bytes).unwrap();

    // A report reads what is complete and leaves the file alone.
    let (_, read) = read_journal(&path).unwrap();
    assert_eq!(read, all[..4]);
    assert_eq!(std::fs::read(&path).unwrap(), bytes);

    let (read_header, recorded, mut journal) = Journal::open_for_resume(&path).unwrap();
    assert_eq!(read_header, header());
    assert_eq!(recorded, all[..4]);
    assert_eq!(journal.evaluations(), 4);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        complete,
        "the partial line is cut off"
    );

    for e in &all[4..] {
        journal.append(e).unwrap();
    }
    drop(journal);
    let (_, read) = read_journal(&path).unwrap();
    assert_eq!(read, all);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 7);
}

#[test]
fn resuming_keeps_a_complete_record_that_lacks_only_its_newline() {
    let dir = scratch("newline");
    let path = dir.join("run.jsonl");
    let all = six();
    let mut journal = Journal::create(&path, &header()).unwrap();
    for e in &all[..3] {
        journal.append(e).unwrap();
    }
    drop(journal);
    let mut bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.pop(), Some(b'\n'));
    std::fs::write(&path, &bytes).unwrap();

    let (_, recorded, mut journal) = Journal::open_for_resume(&path).unwrap();
    assert_eq!(recorded, all[..3]);
    journal.append(&all[3]).unwrap();
    drop(journal);
    assert_eq!(read_journal(&path).unwrap().1, all[..4]);
}

#[test]
fn a_broken_line_in_the_middle_is_an_error_naming_file_and_line() {
    let dir = scratch("broken");
    let path = dir.join("run.jsonl");
    let mut journal = Journal::create(&path, &header()).unwrap();
    for e in six() {
        journal.append(&e).unwrap();
    }
    drop(journal);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[3] = r#"{"index": 2, "path": "#;
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();

    for error in [
        read_journal(&path).unwrap_err(),
        Journal::open_for_resume(&path).unwrap_err(),
    ] {
        assert!(
            matches!(error, JournalError::Line { line: 4, .. }),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("{}:4: not an evaluation", path.display())),
            "{message}"
        );
    }
}

#[test]
fn a_file_that_is_not_a_journal_is_refused() {
    let dir = scratch("not-a-journal");
    let cases = [
        ("empty", "", "1: empty"),
        ("other", "{\"hello\": 1}\n", "1: not a journal"),
        (
            "version",
            "{\"journal\":\"commute\",\"version\":9,\"space\":\"s\",\"search\":\"x\",\"seed\":1,\"started\":0}\n",
            "1: journal version 9",
        ),
    ];
    for (name, text, expected) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let message = read_journal(&path).unwrap_err().to_string();
        assert!(message.contains(expected), "{name}: {message}");
    }
    let missing = read_journal(dir.join("missing")).unwrap_err();
    assert!(matches!(missing, JournalError::Io { .. }));
    assert!(missing.to_string().contains("missing"), "{missing}");
}

#[test]
fn non_finite_values_are_refused_before_anything_is_written() {
    let dir = scratch("nan");
    let path = dir.join("run.jsonl");
    let mut journal = Journal::create(&path, &header()).unwrap();
    let mut e = six().remove(0);
    e.value = Some(f64::NAN);
    let error = journal.append(&e).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(journal.evaluations(), 0);
    drop(journal);
    assert!(read_journal(&path).unwrap().1.is_empty());
}

#[test]
fn replay_finds_recorded_leaves_by_their_exact_path() {
    let all = six();
    let mut replay = Replay::new(all.clone());
    assert_eq!(replay.len(), 6);
    assert_eq!(replay.consumed(), 0);

    assert_eq!(replay.lookup(&all[2].path), Some(&all[2]));
    assert_eq!(replay.consumed(), 1);
    // Another order of the same actions is another path.
    let reversed: Vec<Action> = all[2].path.iter().rev().cloned().collect();
    assert_eq!(replay.lookup(&reversed), None);
    // A prefix is not a leaf.
    assert_eq!(replay.lookup(&all[2].path[..1]), None);
    // Each record is taken once.
    assert_eq!(replay.lookup(&all[2].path), None);
    assert_eq!(replay.consumed(), 1);
    assert_eq!(replay.remaining(), 5);

    for e in &all {
        if e.index != 2 {
            assert_eq!(replay.lookup(&e.path), Some(e));
        }
    }
    assert!(replay.is_exhausted());
    assert_eq!(replay.consumed(), 6);
    assert_eq!(replay.elapsed(), 1.5);
}

#[test]
fn replay_gives_the_records_of_a_leaf_evaluated_twice_in_journal_order() {
    let path = vec![action(0, &[0, 1], 1)];
    let first = evaluation(0, path.clone(), Status::Ok, Some(2.0));
    let other = evaluation(1, vec![action(0, &[0, 1], 0)], Status::Failed, None);
    let second = evaluation(2, path.clone(), Status::Ok, Some(2.5));
    let mut replay = Replay::new(vec![first.clone(), other, second.clone()]);
    assert_eq!(replay.lookup(&path), Some(&first));
    assert_eq!(replay.lookup(&path), Some(&second));
    assert_eq!(replay.lookup(&path), None, "then it must be evaluated");
    assert_eq!(replay.consumed(), 2);
}

#[test]
fn summary_counts_outcomes_and_tracks_the_best_so_far() {
    let all = six();
    let summary = summarize(&all);
    assert_eq!(summary.evaluations, 6);
    assert_eq!((summary.ok, summary.failed, summary.wrong), (4, 1, 1));
    assert_eq!(summary.distinct_leaves, 6);
    assert_eq!(summary.best_value, Some(2.0));
    assert_eq!(summary.best_index, Some(5));
    assert_eq!(summary.best_elapsed, Some(1.5));
    assert_eq!(summary.best(&all), Some(&all[5]));
    assert_eq!(
        summary.best_so_far,
        vec![(0, 5.0), (1, 5.0), (2, 3.0), (3, 3.0), (4, 3.0), (5, 2.0)]
    );
    assert_eq!(summary.elapsed, 1.5);
}

#[test]
fn summary_ignores_wrong_results_however_fast_and_starts_at_the_first_measurement() {
    let mut all = six();
    all[0] = evaluation(0, vec![], Status::Wrong, Some(0.001));
    let summary = summarize(&all);
    assert_eq!(summary.wrong, 2);
    assert_eq!(summary.best_value, Some(2.0));
    assert_eq!(summary.best_so_far.first(), Some(&(2, 3.0)));
    assert_eq!(summary.best_so_far.len(), 4);

    let empty = summarize(&[]);
    assert_eq!(empty.evaluations, 0);
    assert_eq!(empty.best_value, None);
    assert!(empty.best_so_far.is_empty());
}

#[test]
fn a_resumed_search_replays_then_continues_the_same_journal() {
    // What a search does: look each leaf up, evaluate and append only
    // those the journal does not have.
    let dir = scratch("continue");
    let path = dir.join("run.jsonl");
    let all = six();
    let mut journal = Journal::create(&path, &header()).unwrap();
    for e in &all[..3] {
        journal.append(e).unwrap();
    }
    drop(journal);

    let (read_header, recorded, mut journal) = Journal::open_for_resume(&path).unwrap();
    assert_eq!(read_header.mismatch(&header()), None);
    let mut other = header();
    other.seed = 43;
    assert!(read_header.mismatch(&other).unwrap().contains("seed"));
    let mut replay = Replay::new(recorded);
    let mut evaluated = 0;
    for e in &all {
        if replay.lookup(&e.path).is_none() {
            evaluated += 1;
            journal.append(e).unwrap();
        }
    }
    assert_eq!((replay.consumed(), evaluated), (3, 3));
    drop(journal);
    assert_eq!(read_journal(&path).unwrap().1, all);
}

#[test]
fn records_beside_evaluations_are_read_apart_and_survive_a_resume() {
    let dir = scratch("records");
    let path = dir.join("run.jsonl");
    let header = Header::new("gemm", "random", 1, serde_json::json!({}));
    let mut journal = Journal::create(&path, &header).unwrap();
    journal
        .append_record(
            "baseline",
            &serde_json::json!({ "name": "polly", "value": 0.5, "record": "ignored" }),
        )
        .unwrap();
    journal
        .append(&Evaluation::new(0, vec![], Status::Ok, Some(1.5), 0.1))
        .unwrap();
    journal
        .append_record("result", &serde_json::json!({ "written": "x" }))
        .unwrap();
    drop(journal);
    let (_, evaluations) = read_journal(&path).unwrap();
    assert_eq!(evaluations.len(), 1);
    assert_eq!(summarize(&evaluations).evaluations, 1);
    let baselines = read_records(&path, "baseline").unwrap();
    assert_eq!(baselines.len(), 1);
    assert_eq!(baselines[0]["name"], "polly");
    assert_eq!(baselines[0]["record"], "baseline");
    assert_eq!(read_records(&path, "result").unwrap().len(), 1);
    let (_, evaluations, journal) = Journal::open_for_resume(&path).unwrap();
    assert_eq!((evaluations.len(), journal.evaluations()), (1, 1));
}
