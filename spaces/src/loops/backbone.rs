//! A kernel as the loop space's host: the objects and facts of
//! `loops.space` computed from the front-end's description and the
//! dependence analysis.
//!
//! Objects of `Statements`: the kernel's statements `0..n`, then for each
//! loop `l` a tile dimension `n + 2l` and a point dimension `n + 2l + 1`.

use std::sync::Arc;

use super::dependences::{dependences, Dependence, Distance};
use super::frontend::{Kernel, LoopId, Variable};
use super::space::{order, DepsId, Host, StatementsId};

/// Tile sizes offered for a point dimension (1: not tiled).
const TILE_SIZES: [i64; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

#[derive(Clone, Debug)]
pub struct KernelHost {
    kernel: Arc<Kernel>,
    deps: Arc<Vec<Dependence>>,
}

impl KernelHost {
    pub fn new(kernel: Kernel) -> Self {
        // A statement's read before its own write in one instance is not a
        // dependence between two instances.
        let deps = dependences(&kernel)
            .into_iter()
            .filter(|d| {
                !(d.source == d.sink && d.distances.iter().all(|x| *x == Distance::Exact(0)))
            })
            .collect();
        KernelHost {
            kernel: Arc::new(kernel),
            deps: Arc::new(deps),
        }
    }

    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    pub fn dependences(&self) -> &[Dependence] {
        &self.deps
    }

    pub fn inst(&self, statement: usize) -> StatementsId {
        StatementsId(statement as u32)
    }

    pub fn tile(&self, l: LoopId) -> StatementsId {
        StatementsId((self.kernel.statements.len() + 2 * l.0) as u32)
    }

    pub fn point(&self, l: LoopId) -> StatementsId {
        StatementsId((self.kernel.statements.len() + 2 * l.0 + 1) as u32)
    }

    /// The loop of a dimension, and whether it is its tile dimension.
    fn dimension(&self, d: StatementsId) -> Option<(LoopId, bool)> {
        let offset = (d.0 as usize).checked_sub(self.kernel.statements.len())?;
        let l = offset / 2;
        (l < self.kernel.loops.len()).then_some((LoopId(l), offset % 2 == 0))
    }

    fn statement(&self, i: StatementsId) -> Option<usize> {
        ((i.0 as usize) < self.kernel.statements.len()).then_some(i.0 as usize)
    }

    /// The position of a dimension's loop among a dependence's common loops.
    fn position(&self, dep: DepsId, d: StatementsId) -> Option<(&Dependence, usize, bool)> {
        let dependence = self.deps.get(dep.0 as usize)?;
        let (l, tile) = self.dimension(d)?;
        let position = dependence.loops.iter().position(|x| *x == l)?;
        Some((dependence, position, tile))
    }

    /// Whether loop `outer` encloses loop `inner` (or is it).
    fn loop_encloses(&self, outer: LoopId, inner: LoopId) -> bool {
        std::iter::successors(Some(inner), |l| self.kernel.loops[l.0].parent).any(|l| l == outer)
    }

    /// The value of `order(a, b)` in the original program, strip-mined
    /// with every tile just outside its point dimension.
    pub fn original_order(&self, a: StatementsId, b: StatementsId) -> u64 {
        let start = |x: StatementsId| match (self.statement(x), self.dimension(x)) {
            (Some(s), _) => self.kernel.statements[s].span.start,
            (_, Some((l, _))) => self.kernel.loops[l.0].span.start,
            _ => 0,
        };
        let textual = if start(a) < start(b) {
            order::BEFORE
        } else {
            order::AFTER
        };
        match (
            self.dimension(a),
            self.dimension(b),
            self.statement(a),
            self.statement(b),
        ) {
            (Some((la, ta)), Some((lb, _)), _, _) if la == lb => {
                if ta {
                    order::OUTER
                } else {
                    order::INNER
                }
            }
            (Some((la, _)), Some((lb, _)), _, _) => {
                if self.loop_encloses(la, lb) {
                    order::OUTER
                } else if self.loop_encloses(lb, la) {
                    order::INNER
                } else {
                    textual
                }
            }
            (Some((l, _)), _, _, Some(s)) => {
                if self.kernel.statements[s].loops.contains(&l) {
                    order::OUTER
                } else {
                    textual
                }
            }
            (_, Some((l, _)), Some(s), _) => {
                if self.kernel.statements[s].loops.contains(&l) {
                    order::INNER
                } else {
                    textual
                }
            }
            _ => textual,
        }
    }

    /// `order(...) = VALUE` decisions that fix the original program's
    /// order, for `commute_runtime::fix::apply_fixes`.
    pub fn original_schedule(&self) -> Vec<String> {
        let count = self.kernel.statements.len() + 2 * self.kernel.loops.len();
        let mut fixes = Vec::new();
        for a in 0..count as u32 {
            for b in a + 1..count as u32 {
                let value = self.original_order(StatementsId(a), StatementsId(b));
                let name = ["BEFORE", "AFTER", "INNER", "OUTER", "MERGED"]
                    [value.trailing_zeros() as usize];
                fixes.push(format!("order({a}, {b}) = {name}"));
            }
        }
        fixes
    }
}

impl Host for KernelHost {
    fn statements(&self) -> Vec<StatementsId> {
        (0..(self.kernel.statements.len() + 2 * self.kernel.loops.len()) as u32)
            .map(StatementsId)
            .collect()
    }

    fn insts(&self) -> Vec<StatementsId> {
        (0..self.kernel.statements.len() as u32)
            .map(StatementsId)
            .collect()
    }

    fn dims(&self) -> Vec<StatementsId> {
        let n = self.kernel.statements.len() as u32;
        (n..n + 2 * self.kernel.loops.len() as u32)
            .map(StatementsId)
            .collect()
    }

    fn deps(&self) -> Vec<DepsId> {
        (0..self.deps.len() as u32).map(DepsId).collect()
    }

    fn tile_of(&self, d: StatementsId, p: StatementsId) -> bool {
        matches!((self.dimension(d), self.dimension(p)), (Some((a, true)), Some((b, false))) if a == b)
    }

    fn is_tile(&self, d: StatementsId) -> bool {
        self.dimension(d).is_some_and(|(_, tile)| tile)
    }

    fn encloses(&self, d: StatementsId, i: StatementsId) -> bool {
        match (self.dimension(d), self.statement(i)) {
            (Some((l, _)), Some(s)) => self.kernel.statements[s].loops.contains(&l),
            _ => false,
        }
    }

    fn possible_sizes(&self, d: StatementsId) -> Vec<i64> {
        match self.dimension(d) {
            Some((l, false)) => {
                let lp = &self.kernel.loops[l.0];
                // A constant extent bounds the useful sizes.
                let extent = lp
                    .upper
                    .as_constant()
                    .zip(lp.lower.as_constant())
                    .map(|(u, l)| u - l);
                TILE_SIZES
                    .iter()
                    .copied()
                    .filter(|&s| s == 1 || extent.is_none_or(|e| s < e))
                    .collect()
            }
            _ => vec![1],
        }
    }

    fn fusable(&self, _a: StatementsId, _b: StatementsId) -> bool {
        // Fusion needs equal bounds and dependence checks across the two
        // loops; until the analysis gives them, no two loops fuse.
        false
    }

    fn between(&self, dep: DepsId, s: StatementsId, t: StatementsId) -> bool {
        self.deps
            .get(dep.0 as usize)
            .is_some_and(|d| d.source.0 == s.0 as usize && d.sink.0 == t.0 as usize && s != t)
    }

    fn surely_positive(&self, dep: DepsId, d: StatementsId) -> bool {
        // A tile dimension's distance may be 0 even when the loop's is
        // positive; the point dimension then carries the dependence, and
        // when the point's distance is negative the tile outside it does.
        self.position(dep, d)
            .is_some_and(|(dependence, p, tile)| !tile && dependence.surely_positive_at(p))
    }

    fn guards(&self, dep: DepsId, e: StatementsId, d: StatementsId) -> bool {
        match (self.position(dep, e), self.position(dep, d)) {
            (Some((dependence, pe, _)), Some((_, pd, _))) => {
                pe < pd && dependence.maybe_negative_at(pd) && dependence.maybe_nonzero_at(pe)
            }
            _ => false,
        }
    }

    fn zero_possible(&self, dep: DepsId) -> bool {
        self.deps
            .get(dep.0 as usize)
            .is_some_and(|d| d.zero_possible)
    }

    fn maybe_nonzero(&self, dep: DepsId, d: StatementsId) -> bool {
        self.position(dep, d)
            .is_some_and(|(dependence, p, _)| dependence.maybe_nonzero_at(p))
    }

    fn bound_uses(&self, d: StatementsId, e: StatementsId) -> bool {
        match (self.dimension(d), self.dimension(e)) {
            (Some((ld, _)), Some((le, false))) => {
                let lp = &self.kernel.loops[ld.0];
                let variable = Variable::Iterator(le);
                lp.lower.coefficient(variable) != 0 || lp.upper.coefficient(variable) != 0
            }
            _ => false,
        }
    }

    fn vectorizable(&self, d: StatementsId) -> bool {
        // The point dimension of an innermost loop.
        match self.dimension(d) {
            Some((l, false)) => !self.kernel.loops.iter().any(|x| x.parent == Some(l)),
            _ => false,
        }
    }
}
