//! Skewing: which outer loop a statement's loop may be skewed by, with
//! which factor, and the distances of dependences once it is.
//!
//! A loop `j` skewed by its base `i` with factor `f` runs `j' = j + f * i`
//! (`i` the base's own iterator, not its skewed one). Distances become
//! `d_j + f * d_i`: the transformation is unimodular and lower triangular,
//! so every distance vector keeps its first non-zero component and stays
//! lexicographically positive. What it changes is the signs further in:
//! a Gauss-Seidel sweep's `(0, 1, -1)` along `(t, i, j)` becomes `(0, 1,
//! 0)`, after which `i` and `j'` may be interchanged and tiled.
//!
//! A loop is offered a skew only where that helps: some dependence of its
//! statement on itself that an outer loop carries runs backwards along it.
//! The base is the innermost such outer loop, and the factor the smallest
//! that makes those distances non-negative. Only exact distances are
//! skewed (the uniform dependences of stencils); statements with bounds
//! or conditions tying two loops are left alone. A reduction offered a
//! skew (fdtd-2d's `ey[i][j] -= ...` inside `t`) is no longer one for the
//! space: skewed, its target would read the base's iterator.
//!
//! Loops of two statements that may be merged are offered a skew by the
//! loop right around them the same way, from the dependences between them:
//! jacobi-2d's sweeps, fused with the second one shifted by a row, read
//! rows up to two ahead of where the previous time step wrote them
//! (`(t: +, i~i: -2)`), so both `i` loops are offered a skew by `t` with
//! factor 2, which makes the pair of `t` and the fused `i` tileable (time
//! tiling). A shift the loop may have counts: the factor is the smallest
//! that suits the loop shifted or not. Loops that may be merged and are
//! skewed by one base get one factor (the largest), as merged loops must
//! be skewed alike.

use std::collections::HashMap;

use crate::analysis::dependences::{Dependence, Distance, Signs};
use crate::analysis::fusion::Fusion;
use crate::analysis::shift::shifted;
use crate::frontend::{Kernel, LoopId, StatementId, Variable};

/// The largest factor offered.
const MAX_FACTOR: i64 = 4;

/// How a statement's loop may be skewed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Skew {
    /// The outer loop of the statement whose iterator is added.
    pub base: LoopId,
    /// What it is multiplied by (1 to 4).
    pub factor: i64,
}

/// The skews offered to each statement's loops, given the shifts offered
/// to them ([`crate::analysis::shift::shifts`]).
pub fn skews(
    kernel: &Kernel,
    deps: &[Dependence],
    shifts: &HashMap<(StatementId, LoopId), i64>,
    fusion: &Fusion,
) -> HashMap<(StatementId, LoopId), Skew> {
    let skewable = |s: StatementId| untied(kernel, s);
    let mut out = HashMap::new();
    for (s, statement) in kernel.statements.iter().enumerate() {
        let s = StatementId(s);
        if !skewable(s) {
            continue;
        }
        let own: Vec<&Dependence> = deps
            .iter()
            .filter(|d| d.source == s && d.sink == s)
            .collect();
        for (p, &l) in statement.loops.iter().enumerate() {
            if let Some(skew) = skew_of(&own, &statement.loops, p) {
                out.insert((s, l), skew);
            }
        }
    }
    for dependence in deps
        .iter()
        .filter(|d| d.source != d.sink && skewable(d.source) && skewable(d.sink))
    {
        let common = dependence.loops.len();
        for (k, &(from, to)) in dependence.aligned.iter().enumerate() {
            let along = dependence.distances[common + k];
            // As written, with the sink's loop shifted, with the source's.
            let variants = [
                Some(0),
                shifts.get(&(dependence.sink, to)).copied(),
                shifts.get(&(dependence.source, from)).map(|&c| -c),
            ];
            for by in variants.into_iter().flatten() {
                let Some(skew) = skew_between(dependence, shifted(along, by)) else {
                    continue;
                };
                for slot in [(dependence.source, from), (dependence.sink, to)] {
                    // The base is the loop right outside the skewed one:
                    // time tiling skews the rows of sweeps, and loops
                    // further in skewed too make bounds whose
                    // elimination overflows (heat-3d's three).
                    let loops = &kernel.statements[slot.0 .0].loops;
                    let at = |l: LoopId| loops.iter().position(|&x| x == l);
                    if !matches!((at(skew.base), at(slot.1)), (Some(b), Some(p)) if b + 1 == p) {
                        continue;
                    }
                    let offered = out.entry(slot).or_insert(skew);
                    // A skew by another loop (from the statement's own
                    // dependences) stays.
                    if offered.base == skew.base {
                        offered.factor = offered.factor.max(skew.factor);
                    }
                }
            }
        }
    }
    // Loops that may merge, skewed by one base, get one factor.
    let mut largest: HashMap<(usize, LoopId), i64> = HashMap::new();
    for (&slot, skew) in &out {
        if let Some(class) = fusion.class_of(slot) {
            let factor = largest.entry((class, skew.base)).or_insert(0);
            *factor = (*factor).max(skew.factor);
        }
    }
    for (&slot, skew) in out.iter_mut() {
        if let Some(&factor) = fusion
            .class_of(slot)
            .and_then(|class| largest.get(&(class, skew.base)))
        {
            skew.factor = factor;
        }
    }
    out.retain(|_, skew| skew.factor <= MAX_FACTOR);
    out
}

/// The skew, by a loop around both ends, that a dependence between two
/// statements needs along a pair of their loops whose distance is
/// `along`: the innermost common loop that may carry it while `along` may
/// be negative, and the factor that makes `along` non-negative there.
fn skew_between(dependence: &Dependence, along: Distance) -> Option<Skew> {
    if !along.may_be_negative() {
        return None;
    }
    let common = &dependence.distances[..dependence.loops.len()];
    let base = (0..common.len())
        .rev()
        .find(|&b| common[..b].iter().all(|x| x.may_be_zero()) && common[b].signs().positive)?;
    let (along, by) = (least(along)?, least(common[base])?);
    if by <= 0 {
        return None;
    }
    let factor = (-along + by - 1).div_euclid(by);
    (factor >= 1).then_some(Skew {
        base: dependence.loops[base],
        factor,
    })
}

/// Whether no bound or condition of the statement reads a loop's iterator
/// (its domain is a box): skewing then ties only a loop and its base.
fn untied(kernel: &Kernel, s: StatementId) -> bool {
    let statement = &kernel.statements[s.0];
    statement.loops.iter().all(|l| {
        let lp = &kernel.loops[l.0];
        !lp.lower.reads_iterators() && !lp.upper.reads_iterators()
    }) && statement.guards.iter().all(|g| {
        g.terms
            .iter()
            .filter(|(v, _)| matches!(v, Variable::Iterator(_)))
            .count()
            <= 1
    })
}

/// The skew of the loop at `position` among `loops` (a statement's), from
/// the statement's dependences on itself.
fn skew_of(own: &[&Dependence], loops: &[LoopId], position: usize) -> Option<Skew> {
    for base in (0..position).rev() {
        // The dependences the base may carry that run backwards here.
        let backwards: Vec<&&Dependence> = own
            .iter()
            .filter(|d| {
                d.distances[..base].iter().all(|x| x.may_be_zero())
                    && d.distances[base].signs().positive
                    && d.distances[position].may_be_negative()
            })
            .collect();
        if backwards.is_empty() {
            continue;
        }
        let mut factor = 0;
        for d in backwards {
            // The least distance along the loop and along the base: the
            // base's must be positive, the loop's bounded below.
            let along = least(d.distances[position])?;
            let by = least(d.distances[base])?;
            if by <= 0 {
                return None;
            }
            factor = factor.max((-along + by - 1).div_euclid(by));
        }
        return (1..=MAX_FACTOR).contains(&factor).then_some(Skew {
            base: loops[base],
            factor,
        });
    }
    None
}

/// The least value a distance may have (a sign alone says at least 1
/// when positive); `None` when it may be any negative value.
fn least(d: Distance) -> Option<i64> {
    pieces(d).iter().map(|(low, _)| *low).min().flatten()
}

/// A distance's values as intervals, `None` where unbounded: one for an
/// exact distance, one per sign it may have otherwise.
fn pieces(d: Distance) -> Vec<(Option<i64>, Option<i64>)> {
    match d {
        Distance::Exact(v) => vec![(Some(v), Some(v))],
        Distance::Signs(s) => [
            (s.negative, (None, Some(-1))),
            (s.zero, (Some(0), Some(0))),
            (s.positive, (Some(1), None)),
        ]
        .into_iter()
        .filter(|(may, _)| *may)
        .map(|(_, piece)| piece)
        .collect(),
    }
}

/// `along + factor * by` (`factor >= 1`): exact when both are, else the
/// signs the sum of any two of their values may have.
pub fn skewed(along: Distance, factor: i64, by: Distance) -> Distance {
    if let (Distance::Exact(a), Distance::Exact(b)) = (along, by) {
        if let Some(v) = b.checked_mul(factor).and_then(|x| x.checked_add(a)) {
            return Distance::Exact(v);
        }
    }
    let add = |x: Option<i64>, y: Option<i64>| {
        x.zip(y)
            .and_then(|(x, y)| y.checked_mul(factor).and_then(|y| y.checked_add(x)))
    };
    let mut signs = Signs {
        negative: false,
        zero: false,
        positive: false,
    };
    for (a_low, a_high) in pieces(along) {
        for (b_low, b_high) in pieces(by) {
            let (low, high) = (add(a_low, b_low), add(a_high, b_high));
            signs.negative |= low.is_none_or(|x| x < 0);
            signs.zero |= low.is_none_or(|x| x <= 0) && high.is_none_or(|x| x >= 0);
            signs.positive |= high.is_none_or(|x| x > 0);
        }
    }
    Distance::Signs(signs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::dependences::dependences;
    use crate::analysis::shift::shifts;
    use crate::frontend::read_kernel;

    /// Jacobi's two sweeps: with the second a row late, the first reads
    /// rows the second wrote a step before up to two rows ahead.
    const SWEEPS: &str = "double A[10][10], B[10][10];
void f(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < 4; t++) {
    for (i = 1; i < 9; i++)
      for (j = 1; j < 9; j++)
        B[i][j] = A[i - 1][j] + A[i][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1];
    for (i = 1; i < 9; i++)
      for (j = 1; j < 9; j++)
        A[i][j] = B[i - 1][j] + B[i][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1];
  }
#pragma endscop
}
";

    #[test]
    fn the_rows_of_sweeps_are_skewed_by_twice_the_time_step() {
        let kernel = read_kernel("sweeps.c", SWEEPS).expect("reads");
        let deps = dependences(&kernel);
        let offered = skews(&kernel, &deps, &shifts(&deps), &Fusion::of(&kernel));
        let by_time = Skew {
            base: LoopId(0),
            factor: 2,
        };
        let mut found: Vec<_> = offered.into_iter().collect();
        found.sort_by_key(|((s, l), _)| (s.0, l.0));
        // The rows of both sweeps (L1, L3), not their columns: only the
        // loop right inside the base.
        assert_eq!(
            found,
            [
                ((StatementId(0), LoopId(1)), by_time),
                ((StatementId(1), LoopId(3)), by_time)
            ]
        );
    }

    #[test]
    fn exact_distances_add() {
        assert_eq!(
            skewed(Distance::Exact(-1), 2, Distance::Exact(1)),
            Distance::Exact(1)
        );
    }

    #[test]
    fn a_positive_sign_counts_at_least_one() {
        // Gauss-Seidel's (t: +, i: -1): i + t is at least 0.
        let d = skewed(Distance::Exact(-1), 1, Distance::POSITIVE);
        assert!(!d.may_be_negative() && d.may_be_zero() && !d.surely_positive());
        assert!(skewed(Distance::Exact(0), 1, Distance::POSITIVE).surely_positive());
        let d = skewed(Distance::ANY, 1, Distance::Exact(0));
        assert!(d.may_be_negative() && d.may_be_zero() && d.may_be_nonzero());
        assert_eq!(least(Distance::POSITIVE), Some(1));
        assert_eq!(least(Distance::ANY), None);
    }
}
