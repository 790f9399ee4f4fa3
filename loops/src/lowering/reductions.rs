//! Which statements a loop of the tree runs as reductions: the one rule
//! the emitters (a `reduction` clause, private accumulators) and the
//! interpreter (order-free updates, no race on the target) share.
//!
//! A statement below a parallel or vector loop is reduced there when it is
//! a reduction ([`Kernel::reduction`]), its target does not read the
//! loop's iterator (every iteration updates the same location), and its
//! target reads no loop between that loop and the statement (the location
//! is fixed while the loop runs, so one accumulator per location known
//! before the loop suffices). The space allows a loop carrying a
//! reduction's dependence to be parallel or vector only in that case, so
//! a statement not reduced by this rule has no dependence along the loop.
//!
//! A sequential loop reduces the statements it accumulates
//! ([`TreeLoop::accumulating`], the space's `accumulate`) by the same rule:
//! their element is held in a local accumulator while the loop runs
//! (scalar replacement), which no other statement inside may touch.

use crate::frontend::{Kernel, StatementId};
use crate::lowering::schedule::{Kind, Node, TreeLoop};

/// The statements `l` reduces, in the order they appear below it: none
/// unless `l` is parallel or vector, or sequential and accumulating.
pub fn reduced(kernel: &Kernel, l: &TreeLoop) -> Vec<StatementId> {
    let asked = |s: StatementId| match l.kind {
        Kind::Parallel | Kind::Vector => true,
        Kind::Sequential => l.accumulating.contains(&s),
        _ => false,
    };
    l.members(kernel)
        .into_iter()
        .filter(|&(s, x)| {
            asked(s)
                && kernel.reduction(s).is_some()
                && !kernel.target_reads(s, x)
                && !reads_inside(kernel, s, &l.body)
        })
        .map(|(s, _)| s)
        .collect()
}

/// Whether `s`'s target reads a loop of `s` in `nodes` (at any depth).
fn reads_inside(kernel: &Kernel, s: StatementId, nodes: &[Node]) -> bool {
    nodes.iter().any(|node| match node {
        Node::Statement(_) => false,
        Node::Loop(l) => {
            l.members(kernel)
                .iter()
                .any(|&(t, x)| t == s && kernel.target_reads(s, x))
                || reads_inside(kernel, s, &l.body)
        }
    })
}
