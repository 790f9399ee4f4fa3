//! The flags a candidate's compiler decisions add to the user's: its
//! `optimizer` (none, Polly with `-mllvm -polly`, or Polly with its
//! parallel code generation; `-fopenmp`, which it needs, is always
//! passed), then its `vector_width` (`-mprefer-vector-width=512` for
//! `WIDE`).

use commute_runtime::{Domain, InstanceId};

use super::kernel::LoopCandidate;
use crate::harness::WIDE_VECTOR_FLAGS;
use crate::space::{optimizer, vector_width};

/// The flags after the user's that `leaf` is built with (none for a
/// decision still open).
pub(crate) fn candidate_flags(leaf: &LoopCandidate) -> Vec<String> {
    let value = |choice: u16| {
        leaf.domain(&InstanceId {
            choice,
            objects: Vec::new(),
        })
    };
    let optimizer: &[&str] = match value(optimizer::CHOICE) {
        Some(Domain::Enum(optimizer::POLLY)) => &["-mllvm", "-polly"],
        Some(Domain::Enum(optimizer::POLLY_PARALLEL)) => {
            &["-mllvm", "-polly", "-mllvm", "-polly-parallel"]
        }
        _ => &[],
    };
    let width: &[&str] = match value(vector_width::CHOICE) {
        Some(Domain::Enum(vector_width::WIDE)) => &WIDE_VECTOR_FLAGS,
        _ => &[],
    };
    optimizer
        .iter()
        .chain(width)
        .map(|f| f.to_string())
        .collect()
}
