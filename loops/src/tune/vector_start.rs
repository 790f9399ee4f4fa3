//! Reductions along their innermost loop run in vector lanes: leaves
//! `commute tune` evaluates right after the blocked and time-tiled starts.
//!
//! A compiler keeps a floating-point sum (`s += a[i]`, `tmp[i] +=
//! A[i][j] * x[j]`) in the order the program wrote it: without leave to
//! reassociate, it does not vectorize the loop, and the sum runs one add
//! per add's latency. The space's `VECTOR` kind (`omp simd reduction`)
//! gives that leave, which only a search reaches; a random descent almost
//! never takes it alone, and on loops whose run takes seconds a search of
//! a minute makes three or four evaluations. On TSVC's s311 (`sum +=
//! a[i]`, 32,000 floats, 100,000 times) the lanes alone ran 0.115 s
//! against the original's 2.617 s; with the loop's tiles also in parallel
//! on two threads, 0.311 s (a parallel region per sum of 32,000 elements
//! costs more than it shares). So the start is two leaves: lanes alone,
//! then lanes with the outer loops (or a 1-D loop's tiles) in parallel.

use super::blocked_start::{kind, tile_size_action};
use super::kernel::LoopCandidate;
use super::parallel_start::parallelized;
use crate::frontend::{Kernel, LoopId, StatementId, Variable};
use crate::space::complete::complete_with_original;
use crate::space::host::{Dimension, KernelHost, Part};
use crate::space::{dim_kind, StatementsId};

/// Points per tile of a 1-D reduction whose tiles run in parallel: the
/// largest size the space offers, so that each tile is a long vector sum.
const TILE: i64 = 256;

/// The vector start.
pub struct VectorStart {
    /// The lanes alone, then (on several threads, where a loop may run in
    /// parallel) the lanes with parallel loops.
    pub leaves: Vec<LoopCandidate>,
    /// The point dimensions in vector lanes, in statement order.
    pub lanes: Vec<StatementsId>,
    /// The dimensions the second leaf runs in parallel (empty without it).
    pub parallel: Vec<StatementsId>,
}

/// The statements of `kernel` that are reductions along their innermost
/// loop (their target does not read it), every access that reads that
/// loop reading it in its last subscript alone: the sums a compiler does
/// not vectorize by itself, whose lanes load contiguous elements.
fn lane_reductions(kernel: &Kernel) -> Vec<(StatementId, LoopId)> {
    (0..kernel.statements.len())
        .map(StatementId)
        .filter_map(|s| {
            let statement = &kernel.statements[s.0];
            let &innermost = statement.loops.last()?;
            kernel.reduction(s)?;
            let contiguous = std::iter::once(&statement.write)
                .chain(&statement.reads)
                .all(|access| {
                    let n = access.subscripts.len();
                    !access.reads_loop(innermost)
                        || (access.contiguous_in(innermost)
                            && access.subscripts[..n - 1].iter().all(|subscript| {
                                subscript.coefficient(Variable::Iterator(innermost)) == 0
                            }))
                });
            (!statement.write.reads_loop(innermost) && contiguous).then_some((s, innermost))
        })
        .collect()
}

/// The vector start of `root`: each of [`lane_reductions`] in vector lanes
/// where the space allows it. `None` where no statement is.
pub fn vector_start(
    host: &KernelHost,
    root: &LoopCandidate,
    threads: usize,
) -> Result<Option<VectorStart>, String> {
    let reductions = lane_reductions(host.kernel());
    let (lanes_only, lanes) = with_lanes(host, root, &reductions);
    if lanes.is_empty() {
        return Ok(None);
    }
    let mut leaves = vec![complete_with_original(host, &lanes_only)?];
    let mut parallel = Vec::new();
    if threads > 1 {
        // The 1-D reductions' tiles in parallel first: once the lanes are
        // taken, the point may no longer be tiled around them.
        let mut candidate = root.clone();
        for &(statement, innermost) in &reductions {
            if host.kernel().statements[statement.0].loops.len() == 1 {
                if let Some((tiled, tile)) = parallel_tiles(host, &candidate, statement, innermost)
                {
                    candidate = tiled;
                    parallel.push(tile);
                }
            }
        }
        let (candidate, _) = with_lanes(host, &candidate, &reductions);
        let (candidate, outer) = parallelized(host, &candidate);
        parallel.extend(outer);
        if !parallel.is_empty() {
            leaves.push(complete_with_original(host, &candidate)?);
        }
    }
    Ok(Some(VectorStart {
        leaves,
        lanes,
        parallel,
    }))
}

/// `candidate` with the point dimension of each of `reductions` in vector
/// lanes where that holds and the candidate still completes, and those
/// dimensions.
fn with_lanes(
    host: &KernelHost,
    candidate: &LoopCandidate,
    reductions: &[(StatementId, LoopId)],
) -> (LoopCandidate, Vec<StatementsId>) {
    let mut candidate = candidate.clone();
    let mut lanes = Vec::new();
    for &(statement, loop_id) in reductions {
        let Some(point) = host.dim(Dimension {
            statement,
            loop_id,
            part: Part::Point,
        }) else {
            continue;
        };
        let mut next = candidate.clone();
        if next.apply(&kind(point, dim_kind::VECTOR)).is_ok()
            && complete_with_original(host, &next).is_ok()
        {
            candidate = next;
            lanes.push(point);
        }
    }
    (candidate, lanes)
}

/// `candidate` with `loop_id`'s tiles of (at most) [`TILE`] points run in
/// parallel for `statement`, and the tile dimension; `None` where that
/// does not hold or complete.
fn parallel_tiles(
    host: &KernelHost,
    candidate: &LoopCandidate,
    statement: StatementId,
    loop_id: LoopId,
) -> Option<(LoopCandidate, StatementsId)> {
    let dim = |part| {
        host.dim(Dimension {
            statement,
            loop_id,
            part,
        })
    };
    let (tile, point) = (dim(Part::Tile)?, dim(Part::Point)?);
    let mut next = candidate.clone();
    next.apply(&tile_size_action(&next, point, TILE)?).ok()?;
    next.apply(&kind(tile, dim_kind::PARALLEL)).ok()?;
    complete_with_original(host, &next).ok()?;
    Some((next, tile))
}
