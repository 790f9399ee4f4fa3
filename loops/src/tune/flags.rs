//! The flags a candidate's `optimizer` decision adds to the compiler's:
//! none, Polly (`-mllvm -polly`), or Polly with its parallel code
//! generation (`-fopenmp`, which it needs, is always passed).

use commute_runtime::{Domain, InstanceId};

use super::kernel::LoopCandidate;
use crate::space::optimizer;

/// The flags after the user's that `leaf` is built with (none while its
/// optimizer is not decided).
pub(crate) fn optimizer_flags(leaf: &LoopCandidate) -> Vec<String> {
    let instance = InstanceId {
        choice: optimizer::CHOICE,
        objects: Vec::new(),
    };
    let flags: &[&str] = match leaf.domain(&instance) {
        Some(Domain::Enum(optimizer::POLLY)) => &["-mllvm", "-polly"],
        Some(Domain::Enum(optimizer::POLLY_PARALLEL)) => {
            &["-mllvm", "-polly", "-mllvm", "-polly-parallel"]
        }
        _ => &[],
    };
    flags.iter().map(|f| f.to_string()).collect()
}
