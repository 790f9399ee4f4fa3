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
//! A parallel loop does not reduce a statement whose target is a scalar
//! private to it ([`privatized`]): each thread has its own copy, which
//! every iteration assigns before updating it.
//!
//! A sequential loop reduces the statements it accumulates
//! ([`TreeLoop::accumulating`], the space's `accumulate`): their element
//! is held in a local accumulator while the loop runs (scalar
//! replacement), which no other statement inside may touch. Its target
//! may also read point loops inside it whose tile loops are outside
//! ([`block`]): the elements of one tile are then held in an array of
//! accumulators, one per point (gemm's `C[i][j]` across `k` with the
//! points of a `j` tile in vector lanes inside `k`).

use crate::frontend::{Kernel, LoopId, StatementId};
use crate::lowering::schedule::{Kind, Node, Part, TreeLoop};

/// The most points of one tile an array of accumulators holds per loop
/// (the space's `tile_size($e) <= 64` for a block's dimensions).
pub const BLOCK_SIZE_LIMIT: i64 = 64;

/// The statements `l` reduces, in the order they appear below it: none
/// unless `l` is parallel or vector, or sequential and accumulating.
pub fn reduced(kernel: &Kernel, l: &TreeLoop) -> Vec<StatementId> {
    let held = |s: StatementId| match l.kind {
        Kind::Parallel | Kind::Vector => !reads_inside(kernel, s, &l.body),
        Kind::Sequential => l.accumulating.contains(&s) && block(kernel, l, s).is_some(),
        _ => false,
    };
    l.members(kernel)
        .into_iter()
        .filter(|&(s, x)| kernel.reduction(s).is_some() && !kernel.target_reads(s, x) && held(s))
        .filter(|&(s, x)| !(l.kind == Kind::Parallel && private_target(kernel, s, x)))
        .map(|(s, _)| s)
        .collect()
}

/// Whether statement `s`'s target is a scalar private to loop `x` (of
/// `s`): a parallel loop there gives each thread a copy ([`privatized`]),
/// whose updates are not combined.
fn private_target(kernel: &Kernel, s: StatementId, x: LoopId) -> bool {
    let write = &kernel.statements[s.0].write;
    write.subscripts.is_empty() && kernel.private_to(&write.name, x)
}

/// The scalars a parallel loop `l` makes private (OpenMP's `private`):
/// those private to the loop of `l` of a statement below that touches
/// them ([`Kernel::private_to`]), sorted. Empty for other loops.
pub fn privatized(kernel: &Kernel, l: &TreeLoop) -> Vec<String> {
    if l.kind != Kind::Parallel {
        return Vec::new();
    }
    let members = l.members(kernel);
    let mut names: Vec<String> = kernel
        .private_scalars
        .iter()
        .filter(|p| {
            members.iter().any(|&(s, x)| {
                kernel.statements[s.0].touches_scalar(&p.name) && kernel.private_to(&p.name, x)
            })
        })
        .map(|p| p.name.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// For statement `s` below the sequential loop `l`: the point loops
/// inside `l` that its target reads, outermost first, with their tile
/// sizes (the block of elements one run of `l` updates: empty for one
/// element). `None` when the target reads another loop inside `l`: a
/// tile or block loop, an untiled loop, or one [`Kernel::blockable`]
/// refuses.
pub fn block(kernel: &Kernel, l: &TreeLoop, s: StatementId) -> Option<Vec<(LoopId, i64)>> {
    let mut out = Vec::new();
    for t in path_to(&l.body, s)? {
        for (m, x) in t.members(kernel) {
            if m != s || !kernel.target_reads(s, x) {
                continue;
            }
            if t.part != Part::Point
                || t.size <= 1
                || t.size > BLOCK_SIZE_LIMIT
                || !kernel.blockable(s, x)
            {
                return None;
            }
            out.push((x, t.size));
        }
    }
    Some(out)
}

/// The loops from `nodes` down to statement `s`, outermost first.
fn path_to(nodes: &[Node], s: StatementId) -> Option<Vec<&TreeLoop>> {
    for node in nodes {
        match node {
            Node::Statement(t) if *t == s => return Some(Vec::new()),
            Node::Statement(_) => {}
            Node::Loop(l) => {
                if let Some(mut path) = path_to(&l.body, s) {
                    path.insert(0, l);
                    return Some(path);
                }
            }
        }
    }
    None
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
