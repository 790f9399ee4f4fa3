//! Which loops of two statements may become one loop of the tree.
//!
//! Beyond one C loop around both statements, two loops pair up when they
//! are at the same depth with equal bounds (and pairable parents), or
//! when the statements' accesses align them: a subscript that is
//! `c * x + e` in one statement and `c * y + e'` in the other, on an array
//! one of them writes, pairs `x`'s loop with `y`'s, at any depth and with
//! any bounds. That is how lu's division `A[i][j] /= ...` (loop `j`) pairs
//! with the updates reading `A[i][k]` (loops `k`), which Polly's schedule
//! fuses. Pairing is closed under transitivity (merged is), so a class
//! holds loops of several statements; dimensions of one statement are
//! never merged whatever their class.

use std::collections::HashMap;

use crate::frontend::{Access, Affine, Kernel, LoopId, StatementId, Variable};

/// The classes of (statement, loop) slots that may be merged.
#[derive(Clone, Debug)]
pub struct Fusion {
    class: HashMap<(StatementId, LoopId), usize>,
}

impl Fusion {
    /// The classes of a kernel's slots, closed under transitivity.
    pub fn of(kernel: &Kernel) -> Fusion {
        let mut slots: Vec<(StatementId, LoopId)> = Vec::new();
        for (s, statement) in kernel.statements.iter().enumerate() {
            for &l in &statement.loops {
                slots.push((StatementId(s), l));
            }
        }
        let index: HashMap<(StatementId, LoopId), usize> =
            slots.iter().enumerate().map(|(i, &x)| (x, i)).collect();
        let mut parent: Vec<usize> = (0..slots.len()).collect();
        let n = kernel.statements.len();
        for a in 0..n {
            for b in a + 1..n {
                let (sa, sb) = (StatementId(a), StatementId(b));
                for &l in &kernel.statements[a].loops {
                    for &m in &kernel.statements[b].loops {
                        if l == m || kernel.fusable(l, m) {
                            union(&mut parent, index[&(sa, l)], index[&(sb, m)]);
                        }
                    }
                }
                for (x, y) in aligned_loops(kernel, a, b) {
                    union(&mut parent, index[&(sa, x)], index[&(sb, y)]);
                }
            }
        }
        let class = slots
            .iter()
            .enumerate()
            .map(|(i, &slot)| (slot, find(&mut parent, i)))
            .collect();
        Fusion { class }
    }

    /// Whether loop `a.1` of statement `a.0` and loop `b.1` of another
    /// statement `b.0` may be merged.
    pub fn may_merge(&self, a: (StatementId, LoopId), b: (StatementId, LoopId)) -> bool {
        a.0 != b.0
            && matches!((self.class.get(&a), self.class.get(&b)), (Some(x), Some(y)) if x == y)
    }

    /// The class of loop `slot.1` of statement `slot.0`: slots of one class
    /// may be merged (those of one statement excepted).
    pub fn class_of(&self, slot: (StatementId, LoopId)) -> Option<usize> {
        self.class.get(&slot).copied()
    }
}

/// Loop pairs `(of a, of b)` that one subscript position of two accesses
/// to the same array (one of them a write) aligns.
fn aligned_loops(kernel: &Kernel, a: usize, b: usize) -> Vec<(LoopId, LoopId)> {
    let accesses = |s: usize| {
        let statement = &kernel.statements[s];
        std::iter::once((&statement.write, true))
            .chain(statement.reads.iter().map(|r| (r, false)))
            .collect::<Vec<(&Access, bool)>>()
    };
    let mut out = Vec::new();
    for (x, wx) in accesses(a) {
        for (y, wy) in accesses(b) {
            if x.name != y.name || !(wx || wy) || x.subscripts.len() != y.subscripts.len() {
                continue;
            }
            for (sx, sy) in x.subscripts.iter().zip(&y.subscripts) {
                if let (Some((lx, cx)), Some((ly, cy))) = (single_iterator(sx), single_iterator(sy))
                {
                    if cx == cy && !out.contains(&(lx, ly)) {
                        out.push((lx, ly));
                    }
                }
            }
        }
    }
    out
}

/// `c * x + (parameters and a constant)`: `x`'s loop and `c`.
fn single_iterator(subscript: &Affine) -> Option<(LoopId, i64)> {
    let mut found = None;
    for &(v, c) in &subscript.terms {
        if let Variable::Iterator(l) = v {
            if found.is_some() {
                return None;
            }
            found = Some((l, c));
        }
    }
    found
}

fn find(parent: &mut [usize], x: usize) -> usize {
    let mut root = x;
    while parent[root] != root {
        root = parent[root];
    }
    let mut x = x;
    while parent[x] != root {
        let next = parent[x];
        parent[x] = root;
        x = next;
    }
    root
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
}
