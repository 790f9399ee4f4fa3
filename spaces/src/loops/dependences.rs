//! Dependences between statement instances of a kernel: flow (write then
//! read), anti (read then write) and output (write then write), each with
//! a distance per common loop. Distances are exact when the two accesses'
//! subscripts differ by constants (uniform dependences, the common case in
//! dense kernels) and unknown otherwise: an unknown distance may take any
//! value, so a transformation is only allowed if it is legal for all of
//! them. The analysis may forbid a legal transformation, never allow an
//! illegal one.

use std::fmt;

use super::frontend::{Access, Affine, Kernel, LoopId, StatementId, Variable};

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
    Exact(i64),
    /// Any value (the subscripts do not determine it).
    Unknown,
}

/// A dependence from an instance of `source` to a later instance of
/// `sink`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependence {
    pub kind: Kind,
    pub source: StatementId,
    pub sink: StatementId,
    /// The array or scalar.
    pub name: String,
    /// The loops around both statements, outermost first.
    pub loops: Vec<LoopId>,
    /// One distance per common loop; the vector is lexicographically
    /// positive, or zero with the source before the sink in the text.
    pub distances: Vec<Distance>,
    /// Whether the sink may run in the same iteration of every common loop
    /// as the source (the source statement then comes first in the text).
    pub zero_possible: bool,
}

impl Dependence {
    /// The common loop that carries the dependence if its distance vector
    /// is exact: the first with a non-zero distance. `None` when no common
    /// loop carries it (a dependence within one iteration).
    pub fn carrier(&self) -> Option<LoopId> {
        self.distances
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
        let earlier_zero = self.distances[..position]
            .iter()
            .all(|d| matches!(d, Distance::Exact(0) | Distance::Unknown));
        earlier_zero && self.distances[position] != Distance::Exact(0)
    }

    /// The first position whose distance is not exactly zero.
    fn first_nonzero(&self) -> Option<usize> {
        self.distances.iter().position(|d| *d != Distance::Exact(0))
    }

    /// Along the common loop at `position`, the distance is surely
    /// positive: an exact positive distance, or the first unknown one when
    /// everything after it is zero and the zero vector is excluded (the
    /// vector is lexicographically positive, so that entry is).
    pub fn surely_positive_at(&self, position: usize) -> bool {
        match self.distances.get(position) {
            Some(Distance::Exact(v)) => *v > 0,
            Some(Distance::Unknown) => {
                self.first_nonzero() == Some(position)
                    && !self.zero_possible
                    && self.distances[position + 1..]
                        .iter()
                        .all(|d| *d == Distance::Exact(0))
            }
            None => false,
        }
    }

    /// Along the common loop at `position`, the distance may be negative:
    /// an exact negative one, or an unknown one after the first non-zero
    /// entry (the first is non-negative, the vector being lexicographically
    /// positive).
    pub fn maybe_negative_at(&self, position: usize) -> bool {
        match self.distances.get(position) {
            Some(Distance::Exact(v)) => *v < 0,
            Some(Distance::Unknown) => self.first_nonzero() != Some(position),
            None => false,
        }
    }

    /// Along the common loop at `position`, the distance may be non-zero.
    pub fn maybe_nonzero_at(&self, position: usize) -> bool {
        self.distances
            .get(position)
            .is_some_and(|d| *d != Distance::Exact(0))
    }

    /// Written with the kernel's names, e.g. `flow S0 -> S1 on A (i: 1, j: 0)`.
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
            .map(|(l, d)| {
                let d = match d {
                    Distance::Exact(v) => v.to_string(),
                    Distance::Unknown => "*".to_string(),
                };
                format!("{}: {d}", kernel.loops[l.0].iterator)
            })
            .collect();
        format!(
            "{kind} S{} -> S{} on {} ({})",
            self.source.0,
            self.sink.0,
            self.name,
            distances.join(", ")
        )
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
    let mut out = Vec::new();
    let n = kernel.statements.len();
    for first in 0..n {
        for second in first..n {
            let (s1, s2) = (&kernel.statements[first], &kernel.statements[second]);
            let common: Vec<LoopId> = s1
                .loops
                .iter()
                .zip(&s2.loops)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect();
            // Every pair of accesses with a write, in both orders.
            let accesses1 =
                std::iter::once((&s1.write, true)).chain(s1.reads.iter().map(|r| (r, false)));
            for (a1, w1) in accesses1 {
                let accesses2 =
                    std::iter::once((&s2.write, true)).chain(s2.reads.iter().map(|r| (r, false)));
                for (a2, w2) in accesses2 {
                    if a1.name != a2.name || !(w1 || w2) {
                        continue;
                    }
                    // An access with itself matters too: two instances of one
                    // write are an output dependence (a zero distance, the
                    // same instance, is none).
                    let Some(distances) = distance(a1, a2, &common) else {
                        continue;
                    };
                    pair(
                        &mut out,
                        (StatementId(first), a1, w1),
                        (StatementId(second), w2),
                        &common,
                        distances,
                    );
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

/// The distances `iteration(a2) - iteration(a1)` along `common` for which
/// both accesses touch the same element, or `None` if they never do.
fn distance(a1: &Access, a2: &Access, common: &[LoopId]) -> Option<Vec<Distance>> {
    let mut distances = vec![Distance::Unknown; common.len()];
    if a1.subscripts.len() != a2.subscripts.len() {
        // The same name with different ranks: assume any overlap.
        return Some(distances);
    }
    for (s1, s2) in a1.subscripts.iter().zip(&a2.subscripts) {
        match uniform(s1, s2, common) {
            Uniform::Never => return None,
            Uniform::Loop { position, value } => match distances[position] {
                Distance::Exact(v) if v != value => return None,
                _ => distances[position] = Distance::Exact(value),
            },
            Uniform::Equal | Uniform::Unknown => {}
        }
    }
    // Common loops that no subscript constrains stay unknown: any distance.
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

/// Records the dependences between two accesses given their possible
/// distance vectors: those that go forward from `one` to `two`, and those
/// that go forward from `two` to `one`.
fn pair(
    out: &mut Vec<Dependence>,
    one: (StatementId, &Access, bool),
    two: (StatementId, bool),
    common: &[LoopId],
    distances: Vec<Distance>,
) {
    let kind = |from_write: bool, to_write: bool| match (from_write, to_write) {
        (true, true) => Kind::Output,
        (true, false) => Kind::Flow,
        _ => Kind::Anti,
    };
    let (s1, a1, w1) = one;
    let (s2, w2) = two;
    let forward = sign(&distances);
    // `one` then `two`: the vector is lexicographically positive, or zero
    // with `one` first in the text (within one statement: its reads come
    // before its write).
    let textual = s1 < s2 || (s1 == s2 && !w1 && w2);
    if forward.positive || (forward.zero && textual) {
        out.push(Dependence {
            kind: kind(w1, w2),
            source: s1,
            sink: s2,
            name: a1.name.clone(),
            loops: common.to_vec(),
            distances: distances.clone(),
            zero_possible: forward.zero && textual,
        });
    }
    let zero_backwards = forward.zero && ((!textual && s1 != s2) || (s1 == s2 && w1 && !w2));
    if forward.negative || zero_backwards {
        let reversed: Vec<Distance> = distances
            .iter()
            .map(|d| match d {
                Distance::Exact(v) => Distance::Exact(-v),
                Distance::Unknown => Distance::Unknown,
            })
            .collect();
        out.push(Dependence {
            kind: kind(w2, w1),
            source: s2,
            sink: s1,
            name: a1.name.clone(),
            loops: common.to_vec(),
            distances: reversed,
            zero_possible: zero_backwards,
        });
    }
}

struct Sign {
    positive: bool,
    zero: bool,
    negative: bool,
}

/// Which signs the lexicographic order of a distance vector may have.
fn sign(distances: &[Distance]) -> Sign {
    for d in distances {
        match d {
            Distance::Exact(0) => continue,
            Distance::Exact(v) if *v > 0 => {
                return Sign {
                    positive: true,
                    zero: false,
                    negative: false,
                }
            }
            Distance::Exact(_) => {
                return Sign {
                    positive: false,
                    zero: false,
                    negative: true,
                }
            }
            // An unknown entry: anything from here on.
            Distance::Unknown => {
                return Sign {
                    positive: true,
                    zero: true,
                    negative: true,
                }
            }
        }
    }
    Sign {
        positive: false,
        zero: true,
        negative: false,
    }
}
