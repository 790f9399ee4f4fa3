//! Dependences between statement instances of a kernel: flow (write then
//! read), anti (read then write) and output (write then write), each with
//! a distance per common loop. Distances are exact when the two accesses'
//! subscripts differ by constants (uniform dependences, the common case in
//! dense kernels); otherwise their signs come from a system of the two
//! instances' loop bounds and subscript equalities ([`inequalities`](super::inequalities)), so
//! triangular bounds (`k < i <= j`) and mirrored accesses (`A[i][j]`
//! against `A[j][i]` for `j >= i`) are told apart from real dependences.
//! Each dependence is split by the loop that carries it. Instances are
//! those of the statements' domains: their loops' bounds and the affine
//! conditions of the `if` statements around them. Two arrays that may
//! share memory (pointers without `restrict`) are paired like one array
//! whose subscripts tell nothing. The analysis may forbid a legal
//! transformation, never allow an illegal one.

use std::fmt;

use crate::analysis::fusion::Fusion;
use crate::analysis::inequalities::System;
use crate::frontend::{Access, Affine, Kernel, LoopId, StatementId, Variable};

/// What the two accesses of a dependence do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A write, then a read of the same element.
    Flow,
    /// A read, then a write.
    Anti,
    /// Two writes.
    Output,
}

/// The distance of a dependence along one common loop: the sink's
/// iteration minus the source's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Distance {
    /// Fixed by the subscripts (uniform dependences).
    Exact(i64),
    /// Not fixed by the subscripts: the signs it may have (never zero
    /// alone, which is `Exact(0)`).
    Signs(Signs),
}

/// Which signs a distance may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signs {
    /// The distance may be negative.
    pub negative: bool,
    /// The distance may be zero.
    pub zero: bool,
    /// The distance may be positive.
    pub positive: bool,
}

impl Distance {
    /// Any value.
    pub const ANY: Distance = Distance::Signs(Signs {
        negative: true,
        zero: true,
        positive: true,
    });

    /// Some positive value.
    pub const POSITIVE: Distance = Distance::Signs(Signs {
        negative: false,
        zero: false,
        positive: true,
    });

    /// The signs the distance may have.
    pub fn signs(self) -> Signs {
        match self {
            Distance::Exact(v) => Signs {
                negative: v < 0,
                zero: v == 0,
                positive: v > 0,
            },
            Distance::Signs(signs) => signs,
        }
    }

    /// Whether the distance may be negative.
    pub fn may_be_negative(self) -> bool {
        self.signs().negative
    }

    /// Whether the distance may be zero.
    pub fn may_be_zero(self) -> bool {
        self.signs().zero
    }

    /// Whether the distance may be other than zero.
    pub fn may_be_nonzero(self) -> bool {
        let signs = self.signs();
        signs.negative || signs.positive
    }

    /// Whether the distance is positive whatever the instances.
    pub fn surely_positive(self) -> bool {
        self.signs()
            == Signs {
                negative: false,
                zero: false,
                positive: true,
            }
    }

    fn negated(self) -> Distance {
        match self {
            Distance::Exact(v) => Distance::Exact(-v),
            Distance::Signs(s) => Distance::Signs(Signs {
                negative: s.positive,
                zero: s.zero,
                positive: s.negative,
            }),
        }
    }
}

impl fmt::Display for Distance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let signs = match self {
            Distance::Exact(v) => return write!(f, "{v}"),
            Distance::Signs(signs) => signs,
        };
        f.write_str(match (signs.negative, signs.zero, signs.positive) {
            (false, _, true) if !signs.zero => "+",
            (false, true, true) => ">=0",
            (true, false, false) => "-",
            (true, true, false) => "<=0",
            (true, false, true) => "!=0",
            (false, true, false) => "0",
            _ => "*",
        })
    }
}

/// A dependence from an instance of `source` to a later instance of
/// `sink`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependence {
    /// Flow, anti or output.
    pub kind: Kind,
    /// The statement whose instance comes first.
    pub source: StatementId,
    /// The statement whose instance comes later.
    pub sink: StatementId,
    /// The array or scalar.
    pub name: String,
    /// The loops around both statements, outermost first.
    pub loops: Vec<LoopId>,
    /// After those, pairs of different loops, one around each end (the
    /// source's first), that may be merged ([`Fusion`]): their distances
    /// follow the common loops' in `distances`, without the lexicographic
    /// order (in the original program they are different loops).
    pub aligned: Vec<(LoopId, LoopId)>,
    /// One distance per common loop, then per aligned pair; over the
    /// common loops the vector is lexicographically positive, or zero with
    /// the source before the sink in the text.
    pub distances: Vec<Distance>,
    /// Whether the sink may run in the same iteration of every common loop
    /// as the source (the source statement then comes first in the text).
    pub zero_possible: bool,
    /// A dependence of a reduction ([`Kernel::reduction`]) on itself
    /// through its target: its instances may run in any order, so a loop
    /// that carries only such dependences may run in parallel or in vector
    /// lanes with a reduction (partial results combined at the end).
    pub reduction: bool,
}

impl Dependence {
    /// The common loop that carries the dependence: the first whose
    /// distance is not exactly zero. `None` when no common loop carries it
    /// (a dependence within one iteration).
    pub fn carrier(&self) -> Option<LoopId> {
        self.distances[..self.loops.len()]
            .iter()
            .position(|d| *d != Distance::Exact(0))
            .map(|i| self.loops[i])
    }

    /// Whether the dependence may be carried by `l`: every distance before
    /// `l` may be 0 and the distance at `l` may be non-zero.
    pub fn may_be_carried_by(&self, l: LoopId) -> bool {
        let Some(position) = self.loops.iter().position(|x| *x == l) else {
            return false;
        };
        self.distances[..position].iter().all(|d| d.may_be_zero())
            && self.distances[position].may_be_nonzero()
    }

    /// Along the common loop at `position`, the distance is surely
    /// positive: that loop carries the dependence forward unless an outer
    /// one does.
    pub fn surely_positive_at(&self, position: usize) -> bool {
        self.distances
            .get(position)
            .is_some_and(|d| d.surely_positive())
    }

    /// Along the common loop at `position`, the distance may be negative.
    pub fn maybe_negative_at(&self, position: usize) -> bool {
        self.distances
            .get(position)
            .is_some_and(|d| d.may_be_negative())
    }

    /// Along the common loop at `position`, the distance may be non-zero.
    pub fn maybe_nonzero_at(&self, position: usize) -> bool {
        self.distances
            .get(position)
            .is_some_and(|d| d.may_be_nonzero())
    }

    /// Written with the kernel's names, e.g. `flow S0 -> S1 on A (i: 1, j: 0)`
    /// (`, a reduction` after a reduction's dependence on itself).
    pub fn display(&self, kernel: &Kernel) -> String {
        let kind = match self.kind {
            Kind::Flow => "flow",
            Kind::Anti => "anti",
            Kind::Output => "output",
        };
        let distances: Vec<String> = self
            .loops
            .iter()
            .zip(&self.distances)
            .map(|(l, d)| format!("{}: {d}", kernel.loops[l.0].iterator))
            .chain(
                self.aligned
                    .iter()
                    .zip(&self.distances[self.loops.len()..])
                    .map(|((a, b), d)| {
                        format!(
                            "{}~{}: {d}",
                            kernel.loops[a.0].iterator, kernel.loops[b.0].iterator
                        )
                    }),
            )
            .collect();
        format!(
            "{kind} S{} -> S{} on {} ({}){}",
            self.source.0,
            self.sink.0,
            self.name,
            distances.join(", "),
            if self.reduction { ", a reduction" } else { "" }
        )
    }
}

impl Kind {
    /// The kind of a dependence from an access (a write or not) to a
    /// later one.
    pub fn of(from_write: bool, to_write: bool) -> Kind {
        match (from_write, to_write) {
            (true, true) => Kind::Output,
            (true, false) => Kind::Flow,
            _ => Kind::Anti,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Flow => "flow",
            Kind::Anti => "anti",
            Kind::Output => "output",
        })
    }
}

/// Every dependence of the kernel.
pub fn dependences(kernel: &Kernel) -> Vec<Dependence> {
    let fusion = Fusion::of(kernel);
    let mut out = Vec::new();
    let n = kernel.statements.len();
    for first in 0..n {
        for second in first..n {
            let (s1, s2) = (&kernel.statements[first], &kernel.statements[second]);
            let common = kernel.common_loops(StatementId(first), StatementId(second));
            let mut aligned: Vec<(LoopId, LoopId)> = Vec::new();
            let mut depths: Vec<(usize, usize)> = Vec::new();
            for (d1, &a) in s1.loops.iter().enumerate() {
                for (d2, &b) in s2.loops.iter().enumerate() {
                    if a != b && fusion.may_merge((StatementId(first), a), (StatementId(second), b))
                    {
                        aligned.push((a, b));
                        depths.push((d1, d2));
                    }
                }
            }
            let instances = Instances::new(
                kernel,
                (StatementId(first), StatementId(second)),
                &s1.loops,
                &s2.loops,
            );
            // A reduction's accesses of its target depend on each other
            // only as a reduction (no other access may alias the target).
            let target = (first == second && kernel.reduction(StatementId(first)).is_some())
                .then_some(s1.write.name.as_str());
            let reduction = |a1: &Access, a2: &Access| {
                target
                    .is_some_and(|t| kernel.may_alias(&a1.name, t) && kernel.may_alias(&a2.name, t))
            };
            // Every pair of accesses with a write, in both orders.
            let accesses1 =
                std::iter::once((&s1.write, true)).chain(s1.reads.iter().map(|r| (r, false)));
            for (a1, w1) in accesses1 {
                let accesses2 =
                    std::iter::once((&s2.write, true)).chain(s2.reads.iter().map(|r| (r, false)));
                for (a2, w2) in accesses2 {
                    if !kernel.may_alias(&a1.name, &a2.name) || !(w1 || w2) {
                        continue;
                    }
                    // An access with itself matters too: two instances of one
                    // write are an output dependence (a zero distance, the
                    // same instance, is none).
                    let Some(uniform) = uniform_distances(a1, a2, &common) else {
                        continue;
                    };
                    let Some(system) = instances.same_element(a1, a2) else {
                        continue;
                    };
                    for (direction, distances) in directions(&system, &instances, &uniform, &depths)
                    {
                        record(
                            &mut out,
                            (StatementId(first), a1, w1),
                            (StatementId(second), &a2.name, w2),
                            (&common, &aligned),
                            (direction, reduction(a1, a2)),
                            distances,
                        );
                    }
                }
            }
        }
    }
    out.sort_by(|a, b| {
        (
            a.source,
            a.sink,
            a.kind,
            &a.name,
            &a.distances,
            a.zero_possible,
        )
            .cmp(&(
                b.source,
                b.sink,
                b.kind,
                &b.name,
                &b.distances,
                b.zero_possible,
            ))
    });
    out.dedup();
    out
}

/// The unknowns of a pair of statement instances: the first statement's
/// iterators, the second's, then the kernel's parameters (free).
struct Instances<'a> {
    kernel: &'a Kernel,
    first: &'a [LoopId],
    second: &'a [LoopId],
    /// Both instances inside their loops' bounds.
    bounds: System,
}

impl<'a> Instances<'a> {
    fn new(
        kernel: &'a Kernel,
        (first_statement, second_statement): (StatementId, StatementId),
        first: &'a [LoopId],
        second: &'a [LoopId],
    ) -> Self {
        let mut instances = Instances {
            kernel,
            first,
            second,
            bounds: System::new(first.len() + second.len() + kernel.params.len()),
        };
        let mut bounds = System::new(instances.variables());
        for (loops, second) in [(first, false), (second, true)] {
            for (depth, l) in loops.iter().enumerate() {
                let lp = &kernel.loops[l.0];
                let iterator = instances.iterator(second, depth);
                // A bound over an iterator not in scope cannot occur (the
                // front-end refuses it); leaving it out would only weaken
                // the system, which stays safe.
                if let Some((mut row, constant)) = instances.row(&lp.lower, second) {
                    // iterator - lower >= 0
                    row.iter_mut().for_each(|c| *c = -*c);
                    row[iterator] += 1;
                    bounds.at_least_zero(row, -constant);
                }
                if let Some((mut row, constant)) = instances.row(&lp.upper, second) {
                    // upper - 1 - iterator >= 0
                    row[iterator] -= 1;
                    bounds.at_least_zero(row, constant - 1);
                }
            }
        }
        // The conditions of the `if` statements around each statement.
        for (statement, second) in [(first_statement, false), (second_statement, true)] {
            for guard in &kernel.statements[statement.0].guards {
                if let Some((row, constant)) = instances.row(guard, second) {
                    bounds.at_least_zero(row, constant);
                }
            }
        }
        instances.bounds = bounds;
        instances
    }

    fn variables(&self) -> usize {
        self.first.len() + self.second.len() + self.kernel.params.len()
    }

    /// The unknown of the loop at `depth` around the first or second
    /// statement.
    fn iterator(&self, second: bool, depth: usize) -> usize {
        if second {
            self.first.len() + depth
        } else {
            depth
        }
    }

    /// An affine expression of one instance as coefficients and constant.
    fn row(&self, affine: &Affine, second: bool) -> Option<(Vec<i64>, i64)> {
        let loops = if second { self.second } else { self.first };
        let mut row = vec![0; self.variables()];
        for &(variable, coefficient) in &affine.terms {
            let index = match variable {
                Variable::Iterator(l) => self.iterator(second, loops.iter().position(|x| *x == l)?),
                Variable::Param(p) => self.first.len() + self.second.len() + p,
            };
            row[index] += coefficient;
        }
        Some((row, affine.constant))
    }

    /// The bounds with both accesses on the same element, or `None` when
    /// they never are.
    fn same_element(&self, a1: &Access, a2: &Access) -> Option<System> {
        let mut system = self.bounds.clone();
        // The same name with different ranks, or two arrays that may
        // share memory: assume any overlap.
        if a1.name == a2.name && a1.subscripts.len() == a2.subscripts.len() {
            for (s1, s2) in a1.subscripts.iter().zip(&a2.subscripts) {
                let (Some((r1, c1)), Some((r2, c2))) = (self.row(s1, false), self.row(s2, true))
                else {
                    continue;
                };
                let row = r1.iter().zip(&r2).map(|(a, b)| a - b).collect();
                system.equal_zero(row, c1 - c2);
            }
        }
        system.may_be_feasible().then_some(system)
    }

    /// `coefficients` of `iteration(second) - iteration(first)` along the
    /// common loop at `position`, times `sign`.
    fn difference(&self, position: usize, sign: i64) -> Vec<i64> {
        self.pair_difference((position, position), sign)
    }

    /// `coefficients` of the second instance's iterator at depth `.1`
    /// minus the first's at depth `.0`, times `sign`.
    fn pair_difference(&self, (first, second): (usize, usize), sign: i64) -> Vec<i64> {
        let mut row = vec![0; self.variables()];
        row[self.iterator(true, second)] += sign;
        row[self.iterator(false, first)] -= sign;
        row
    }
}

/// Which way a group of instance pairs goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// The second access's instance runs later (a positive vector).
    Forward,
    /// The first's runs later.
    Backward,
    /// The same iteration of every common loop.
    Same,
}

/// The instance pairs of `system` grouped by the common loop that orders
/// them (the first with a non-zero distance), each group with the
/// distances it may have (second minus first). `uniform` holds the
/// distances the subscripts fix.
fn directions(
    system: &System,
    instances: &Instances,
    uniform: &[Option<i64>],
    aligned: &[(usize, usize)],
) -> Vec<(Direction, Vec<Distance>)> {
    let common = uniform.len();
    // The signs along the aligned pairs, after the common loops, within a
    // group; `None` when the group has no integer pair.
    let with_aligned = |group: &System, mut distances: Vec<Distance>| {
        for &depths in aligned {
            distances.push(pair_distance(group, instances, depths)?);
        }
        Some(distances)
    };
    let mut out = Vec::new();
    let mut prefix = system.clone();
    for position in 0..uniform.len() {
        for (direction, sign) in [(Direction::Forward, 1), (Direction::Backward, -1)] {
            // The subscripts fix this distance to another sign.
            if uniform[position].is_some_and(|v| v * sign < 1) {
                continue;
            }
            // sign * distance >= 1
            let carried = prefix.with(instances.difference(position, sign), -1);
            if !carried.may_be_feasible() {
                continue;
            }
            let mut distances = vec![Distance::Exact(0); position];
            distances.push(uniform[position].map_or(
                if sign > 0 {
                    Distance::POSITIVE
                } else {
                    Distance::POSITIVE.negated()
                },
                Distance::Exact,
            ));
            let inner: Option<Vec<Distance>> = (position + 1..uniform.len())
                .map(|inner| match uniform[inner] {
                    Some(v) => Some(Distance::Exact(v)),
                    None => signs(&carried, instances, inner),
                })
                .collect();
            // No sign possible further in: no integer pair in this group.
            if let Some(inner) = inner {
                distances.extend(inner);
                if let Some(distances) = with_aligned(&carried, distances) {
                    out.push((direction, distances));
                }
            }
        }
        prefix.equal_zero(instances.difference(position, 1), 0);
        if !prefix.may_be_feasible() {
            return out;
        }
    }
    if let Some(distances) = with_aligned(&prefix, vec![Distance::Exact(0); common]) {
        out.push((Direction::Same, distances));
    }
    out
}

/// The signs the distance at `position` may have in `system`, or `None`
/// when it has none.
fn signs(system: &System, instances: &Instances, position: usize) -> Option<Distance> {
    pair_signs(system, instances, (position, position))
}

/// The signs the distance between the loops at the two depths may have.
fn pair_signs(system: &System, instances: &Instances, depths: (usize, usize)) -> Option<Distance> {
    let up = instances.pair_difference(depths, 1);
    let down = instances.pair_difference(depths, -1);
    let signs = Signs {
        negative: system.with(down.clone(), -1).may_be_feasible(),
        zero: {
            let mut zero = system.clone();
            zero.equal_zero(up.clone(), 0);
            zero.may_be_feasible()
        },
        positive: system.with(up, -1).may_be_feasible(),
    };
    match (signs.negative, signs.zero, signs.positive) {
        (false, false, false) => None,
        (false, true, false) => Some(Distance::Exact(0)),
        _ => Some(Distance::Signs(signs)),
    }
}

/// The largest aligned distance [`pair_distance`] finds exactly.
const EXACT_PAIR_DISTANCE: i64 = 8;

/// The distance between the loops at the two depths: exact where it is
/// one value of at most [`EXACT_PAIR_DISTANCE`] (a stencil's `B[i + 1]`
/// read in a loop aligned with the one writing `B[i]`: -1, which a shift
/// of the reading loop makes 0), else its signs.
fn pair_distance(
    system: &System,
    instances: &Instances,
    depths: (usize, usize),
) -> Option<Distance> {
    let distance = pair_signs(system, instances, depths)?;
    let Distance::Signs(signs) = distance else {
        return Some(distance);
    };
    if signs.zero || signs.negative == signs.positive {
        return Some(distance);
    }
    // Along `sign`, the distance is at least 1: it is `k` when it cannot
    // exceed `k` (`k + 1 - sign * d > 0` has no point).
    let sign = if signs.positive { 1 } else { -1 };
    let beyond = |k: i64| {
        system
            .with(instances.pair_difference(depths, sign), -(k + 1))
            .may_be_feasible()
    };
    let exact = (1..=EXACT_PAIR_DISTANCE)
        .find(|&k| !beyond(k))
        .filter(|&k| {
            // And not less than `k`: `k - 1 - sign * d >= 0` has no point.
            let below = system.with(instances.pair_difference(depths, -sign), k - 1);
            !below.may_be_feasible()
        });
    Some(exact.map_or(distance, |k| Distance::Exact(sign * k)))
}

/// The distances `iteration(a2) - iteration(a1)` that the subscripts fix,
/// per common loop, or `None` if the accesses never touch the same
/// element.
fn uniform_distances(a1: &Access, a2: &Access, common: &[LoopId]) -> Option<Vec<Option<i64>>> {
    let mut distances = vec![None; common.len()];
    if a1.name != a2.name || a1.subscripts.len() != a2.subscripts.len() {
        return Some(distances);
    }
    for (s1, s2) in a1.subscripts.iter().zip(&a2.subscripts) {
        match uniform(s1, s2, common) {
            Uniform::Never => return None,
            Uniform::Loop { position, value } => match distances[position] {
                Some(v) if v != value => return None,
                _ => distances[position] = Some(value),
            },
            Uniform::Equal | Uniform::Unknown => {}
        }
    }
    Some(distances)
}

enum Uniform {
    /// Equal for every iteration pair: no constraint.
    Equal,
    /// Equal iff the distance along `common[position]` is `value`.
    Loop { position: usize, value: i64 },
    /// Never equal.
    Never,
    /// Not uniform: any distance may make them equal.
    Unknown,
}

/// Compares one subscript of each access: `s1(i) = s2(i')`.
fn uniform(s1: &Affine, s2: &Affine, common: &[LoopId]) -> Uniform {
    // Same coefficients on every variable: the equality fixes a difference.
    if s1.terms != s2.terms {
        return Uniform::Unknown;
    }
    let difference = s1.constant - s2.constant;
    let iterators: Vec<(LoopId, i64)> = s1
        .terms
        .iter()
        .filter_map(|(v, c)| match v {
            Variable::Iterator(l) => Some((*l, *c)),
            Variable::Param(_) => None,
        })
        .collect();
    match iterators.as_slice() {
        [] => {
            if difference == 0 {
                Uniform::Equal
            } else {
                Uniform::Never
            }
        }
        // c * i1 + k1 = c * i2 + k2  <=>  i2 - i1 = (k1 - k2) / c.
        [(l, c)] => match common.iter().position(|x| x == l) {
            Some(position) if difference % c == 0 => Uniform::Loop {
                position,
                value: difference / c,
            },
            Some(_) => Uniform::Never,
            // A loop around one statement only: any value.
            None => Uniform::Unknown,
        },
        _ => Uniform::Unknown,
    }
}

/// Records one group of instance pairs of two accesses as a dependence
/// from the instance that runs first to the one that runs later.
fn record(
    out: &mut Vec<Dependence>,
    one: (StatementId, &Access, bool),
    (s2, a2_name, w2): (StatementId, &str, bool),
    (common, aligned): (&[LoopId], &[(LoopId, LoopId)]),
    (direction, reduction): (Direction, bool),
    distances: Vec<Distance>,
) {
    let (s1, a1, w1) = one;
    // In the same iteration, `one` runs first if it comes first in the
    // text (within one statement: its reads come before its write).
    let textual = s1 < s2 || (s1 == s2 && !w1 && w2);
    let same_backwards = (!textual && s1 != s2) || (s1 == s2 && w1 && !w2);
    let forward = match direction {
        Direction::Forward => true,
        Direction::Backward => false,
        Direction::Same if textual => true,
        Direction::Same if same_backwards => false,
        // The same instance of the same access.
        Direction::Same => return,
    };
    let zero_possible = direction == Direction::Same;
    // Two arrays that may share memory are named together.
    let name = if a1.name == a2_name {
        a1.name.clone()
    } else {
        format!("{}/{a2_name}", a1.name)
    };
    out.push(if forward {
        Dependence {
            kind: Kind::of(w1, w2),
            source: s1,
            sink: s2,
            name: name.clone(),
            loops: common.to_vec(),
            aligned: aligned.to_vec(),
            distances,
            zero_possible,
            reduction,
        }
    } else {
        Dependence {
            kind: Kind::of(w2, w1),
            source: s2,
            sink: s1,
            name,
            loops: common.to_vec(),
            aligned: aligned.iter().map(|&(a, b)| (b, a)).collect(),
            distances: distances.into_iter().map(Distance::negated).collect(),
            zero_possible,
            reduction,
        }
    });
}
