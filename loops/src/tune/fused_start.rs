//! The original program with its loops fused as far as the dependences
//! allow (shifted where they need it): a leaf `commute tune` evaluates
//! first, as it does Polly's schedule.
//!
//! Sweeps that stream arrays from memory (a stencil's two half steps,
//! fdtd-2d's field updates) gain most from fusion once their arrays
//! outgrow the caches, and a random descent rarely merges every pair of
//! loops that must be merged together for it. Fusing greedily, the
//! outermost loops first, gives the search that structure to take local
//! steps from.

use commute_runtime::{Action, Domain};

use super::kernel::LoopCandidate;
use super::parallel_start::parallelized;
use crate::space::complete::complete_with_original;
use crate::space::host::KernelHost;
use crate::space::{order, Host, StatementsId};

/// The fused start, and the pairs of loops it fused.
pub struct FusedStart {
    /// The leaves: the fused program with every other decision as in the
    /// original, then (with several threads) the same with each
    /// statement's outermost loop that may run in parallel doing so (of
    /// its two outermost, as in the parallel start).
    pub leaves: Vec<LoopCandidate>,
    /// The pairs of dimensions of different C loops merged, by object.
    pub merged: Vec<(StatementsId, StatementsId)>,
}

/// Fuses `root`'s loops greedily: each pair of counterpart dimensions
/// (tiles before points, outer loops before inner ones) is merged when
/// the candidate still completes. `None` when no two C loops fuse.
pub fn fused_start(
    host: &KernelHost,
    root: &LoopCandidate,
    threads: usize,
) -> Result<Option<FusedStart>, String> {
    let Some((candidate, merged)) = fused(host, root, usize::MAX) else {
        return Ok(None);
    };
    let mut leaves = vec![complete_with_original(host, &candidate)?];
    if threads > 1 {
        let (parallel, _) = parallelized(host, &candidate);
        let leaf = complete_with_original(host, &parallel)?;
        if leaf.decisions() != leaves[0].decisions() {
            leaves.push(leaf);
        }
    }
    Ok(Some(FusedStart { leaves, merged }))
}

/// `root` with its loops fused greedily (each pair of counterpart
/// dimensions, tiles before points, outer loops before inner ones, merged
/// when the candidate still completes), the loops of the `depths`
/// outermost depths only, and the pairs of different C loops merged;
/// `None` when no two C loops fuse.
pub(super) fn fused(
    host: &KernelHost,
    root: &LoopCandidate,
    depths: usize,
) -> Option<(LoopCandidate, Vec<(StatementsId, StatementsId)>)> {
    let kernel = host.kernel();
    let depth = |d: StatementsId| {
        host.dimension(d).map_or(0, |x| {
            kernel.statements[x.statement.0]
                .loops
                .iter()
                .position(|&l| l == x.loop_id)
                .unwrap_or(0)
        })
    };
    let mut pairs: Vec<(StatementsId, StatementsId)> = Vec::new();
    let dims = host.dims();
    // Loops at one depth only: a loop aligned with one at another depth
    // (fdtd-2d's boundary row `ey[0][j]` with the sweep's columns) fuses
    // only once the sweep is interchanged, which costs it its rows.
    for (i, &a) in dims.iter().enumerate() {
        for &b in &dims[i + 1..] {
            if host.counterpart(a, b) && depth(a) == depth(b) && depth(a) < depths {
                pairs.push((a, b));
            }
        }
    }
    // Outer loops first, and a loop's blocks and tiles before its points
    // (a merged point needs its tiles merged or nested around it).
    let part = |d: StatementsId| host.dimension(d).map(|x| x.part);
    pairs.sort_by_key(|&(a, b)| (depth(a), part(a), a.0, b.0));
    let mut candidate = root.clone();
    let mut merged = Vec::new();
    for (a, b) in pairs {
        let action = Action {
            choice: order::CHOICE,
            objects: vec![a.0, b.0],
            values: order::MERGED,
        };
        match candidate.domain(&action.instance()) {
            Some(Domain::Enum(mask)) if mask == order::MERGED => continue,
            Some(Domain::Enum(mask)) if mask & order::MERGED != 0 => {}
            _ => continue,
        }
        let mut next = candidate.clone();
        if next.apply(&action).is_ok() && complete_with_original(host, &next).is_ok() {
            candidate = next;
            // Dimensions of one C loop are merged in the original program.
            if host.dimension(a).map(|x| x.loop_id) != host.dimension(b).map(|x| x.loop_id) {
                merged.push((a, b));
            }
        }
    }
    (!merged.is_empty()).then_some((candidate, merged))
}
