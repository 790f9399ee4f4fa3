//! The original program with each statement's outer loop run in parallel
//! where it may: a leaf `commute tune` evaluates after its other starts.
//!
//! It is what Polly's parallel mode does at its simplest, and the search
//! must not end below it. Where no other start applies (Polly's schedule
//! not read, no sum to block, no sweep to tile across time), a random
//! descent from the root almost always moves something that costs more
//! than threads gain at sizes that outgrow the caches (an interchange that
//! strides a row-major array, a small tile), and is stopped at the run
//! timeout, so the search learns nothing from it: on PolyBench's fdtd-2d
//! at its large size, 91 of 97 evaluations in four minutes were, and the
//! best was the original nest (1.03x over clang -O3, 0.77x Polly's
//! parallel mode), where running each sweep's rows in parallel is 2x.

use commute_runtime::Domain;

use super::blocked_start::{kind, nest};
use super::kernel::LoopCandidate;
use crate::frontend::StatementId;
use crate::space::complete::complete_with_original;
use crate::space::host::{Dimension, KernelHost, Part};
use crate::space::{dim_kind, StatementsId};

/// The parallel start: its leaf and the dimensions it runs in parallel.
pub struct ParallelStart {
    /// Every decision as in the original program but the parallel loops.
    pub leaf: LoopCandidate,
    /// The point dimensions made parallel, in statement order.
    pub parallel: Vec<StatementsId>,
}

/// `root` with each statement's outermost loop that may run in parallel,
/// of its two outermost, doing so. `None` on one thread, or where no loop
/// may.
pub fn parallel_start(
    host: &KernelHost,
    root: &LoopCandidate,
    threads: usize,
) -> Result<Option<ParallelStart>, String> {
    if threads <= 1 {
        return Ok(None);
    }
    let (candidate, parallel) = parallelized(host, root);
    if parallel.is_empty() {
        return Ok(None);
    }
    let leaf = complete_with_original(host, &candidate)?;
    Ok(Some(ParallelStart { leaf, parallel }))
}

/// `candidate` with each statement's outermost loop that may run in
/// parallel, among its two outermost (a time loop and a sweep's rows),
/// doing so, kept outside the statement's other loops: further in, a
/// parallel region per iteration of two loops costs more than it shares.
/// Returns the dimensions it made parallel (a statement whose loop is
/// merged with one already parallel adds none).
pub(super) fn parallelized(
    host: &KernelHost,
    candidate: &LoopCandidate,
) -> (LoopCandidate, Vec<StatementsId>) {
    let kernel = host.kernel();
    let mut parallel = candidate.clone();
    let mut made = Vec::new();
    for statement in 0..kernel.statements.len() {
        let loops = &kernel.statements[statement].loops;
        let dim = |l, part| {
            host.dim(Dimension {
                statement: StatementId(statement),
                loop_id: l,
                part,
            })
        };
        for (position, &l) in loops.iter().enumerate().take(2) {
            let Some(point) = dim(l, Part::Point) else {
                continue;
            };
            let parallel_point = kind(point, dim_kind::PARALLEL);
            if let Some(Domain::Enum(mask)) = parallel.domain(&parallel_point.instance()) {
                if mask == dim_kind::PARALLEL {
                    break; // Merged with a dimension already parallel.
                }
            }
            let inside = loops[position + 1..]
                .iter()
                .flat_map(|&x| [dim(x, Part::Block), dim(x, Part::Tile), dim(x, Part::Point)])
                .flatten()
                .map(|e| nest(point, e));
            let mut next = parallel.clone();
            let applied = inside
                .chain(std::iter::once(parallel_point))
                .all(|action| next.apply(&action).is_ok());
            if applied && complete_with_original(host, &next).is_ok() {
                parallel = next;
                made.push(point);
                break;
            }
        }
    }
    (parallel, made)
}
