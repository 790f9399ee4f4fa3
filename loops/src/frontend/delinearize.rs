//! Linearized subscripts (`A[i * n + j]`, the way code reaches a matrix
//! through a pointer) read as one subscript per dimension (`A[i][j]`), as
//! Polly's delinearization does.
//!
//! A subscript is read as a [`Polynomial`]: a sum of monomials, each a
//! coefficient times at most one loop counter times parameters. An affine
//! subscript is one subscript. Otherwise the innermost dimension's size is
//! the parameter `p` found in every monomial of degree two or more: the
//! subscript is `p * q + r` with `r` the monomials without `p`, which must
//! be affine, and `q` the others divided by `p`, read again the same way.
//! The split is right only if `0 <= r < p` for every instance: that is
//! proved from the statement's domain (its loops' bounds and guards) by
//! showing both violations infeasible; when it is not proved, the
//! subscript is refused. So `A[i * n + j]` in `for (j = 0; j < n; j++)` is
//! `A[i][j]` with rows of `n`, and `A[(i * n + j) * m + k]` is
//! `A[i][j][k]`.

use std::collections::BTreeMap;
use std::ops::Range;

use super::kernel::{Affine, Variable};
use crate::analysis::inequalities::System;

/// An access as read, before its subscripts are delinearized (which needs
/// the statement's domain).
#[derive(Clone, Debug)]
pub(crate) struct RawAccess {
    pub name: String,
    /// Each subscript and its byte span.
    pub subscripts: Vec<(Polynomial, Range<usize>)>,
    pub span: Range<usize>,
}

/// A product of at most one loop counter and parameters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Monomial {
    /// The counter, by the index of its loop.
    counter: Option<usize>,
    /// Parameters by index, sorted, repeated for powers.
    params: Vec<usize>,
}

impl Monomial {
    fn degree(&self) -> usize {
        usize::from(self.counter.is_some()) + self.params.len()
    }
}

/// A polynomial over the loop counters and the parameters, each monomial
/// linear in the counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Polynomial {
    terms: BTreeMap<Monomial, i64>,
}

/// Why a product cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProductError {
    /// Two loop counters multiply each other.
    Counters,
    /// A coefficient overflows.
    Overflow,
}

impl Polynomial {
    /// An affine expression as a polynomial.
    pub(crate) fn from_affine(affine: &Affine) -> Polynomial {
        let mut terms = BTreeMap::new();
        if affine.constant != 0 {
            terms.insert(
                Monomial {
                    counter: None,
                    params: Vec::new(),
                },
                affine.constant,
            );
        }
        for &(variable, coefficient) in &affine.terms {
            let monomial = match variable {
                Variable::Iterator(l) => Monomial {
                    counter: Some(l.0),
                    params: Vec::new(),
                },
                Variable::Param(p) => Monomial {
                    counter: None,
                    params: vec![p],
                },
            };
            terms.insert(monomial, coefficient);
        }
        Polynomial { terms }
    }

    /// The polynomial as an affine expression, if it is one.
    pub(crate) fn to_affine(&self) -> Option<Affine> {
        let mut out = Affine::constant(0);
        for (monomial, &coefficient) in &self.terms {
            let variable = match (monomial.counter, monomial.params.as_slice()) {
                (None, []) => {
                    out.constant = out.constant.checked_add(coefficient)?;
                    continue;
                }
                (Some(l), []) => Variable::Iterator(super::kernel::LoopId(l)),
                (None, [p]) => Variable::Param(*p),
                _ => return None,
            };
            out = out.add(&Affine::variable(variable).scale(coefficient)?, 1)?;
        }
        Some(out)
    }

    /// `self + sign * other`.
    pub(crate) fn add(mut self, other: &Polynomial, sign: i64) -> Option<Polynomial> {
        for (monomial, &coefficient) in &other.terms {
            let entry = self.terms.entry(monomial.clone()).or_insert(0);
            *entry = entry.checked_add(coefficient.checked_mul(sign)?)?;
        }
        self.terms.retain(|_, c| *c != 0);
        Some(self)
    }

    /// The product, if no monomial gets two counters.
    pub(crate) fn multiply(&self, other: &Polynomial) -> Result<Polynomial, ProductError> {
        let mut out = Polynomial::default();
        for (a, &ca) in &self.terms {
            for (b, &cb) in &other.terms {
                let counter = match (a.counter, b.counter) {
                    (Some(_), Some(_)) => return Err(ProductError::Counters),
                    (x, y) => x.or(y),
                };
                let mut params = a.params.clone();
                params.extend(&b.params);
                params.sort_unstable();
                let coefficient = ca.checked_mul(cb).ok_or(ProductError::Overflow)?;
                let entry = out.terms.entry(Monomial { counter, params }).or_insert(0);
                *entry = entry
                    .checked_add(coefficient)
                    .ok_or(ProductError::Overflow)?;
            }
        }
        out.terms.retain(|_, c| *c != 0);
        Ok(out)
    }

    /// The parameter that every monomial of degree two or more has, the
    /// one in the most monomials if several (ties: the smallest index).
    fn common_parameter(&self) -> Option<usize> {
        let high: Vec<&Monomial> = self.terms.keys().filter(|m| m.degree() >= 2).collect();
        let first = high.first()?;
        let mut candidates: Vec<usize> = first
            .params
            .iter()
            .copied()
            .filter(|p| high.iter().all(|m| m.params.contains(p)))
            .collect();
        candidates.dedup();
        candidates.into_iter().max_by_key(|&p| {
            let uses = self.terms.keys().filter(|m| m.params.contains(&p)).count();
            (uses, std::cmp::Reverse(p))
        })
    }

    /// `(q, r)` with `self = p * q + r`, `r` without `p`.
    fn divide(&self, p: usize) -> (Polynomial, Polynomial) {
        let (mut quotient, mut rest) = (Polynomial::default(), Polynomial::default());
        for (monomial, &coefficient) in &self.terms {
            match monomial.params.iter().position(|&x| x == p) {
                Some(at) => {
                    let mut params = monomial.params.clone();
                    params.remove(at);
                    quotient.terms.insert(
                        Monomial {
                            counter: monomial.counter,
                            params,
                        },
                        coefficient,
                    );
                }
                None => {
                    rest.terms.insert(monomial.clone(), coefficient);
                }
            }
        }
        (quotient, rest)
    }
}

/// A statement's domain for the proofs: `rows` over its counters (by loop
/// index, `counters[k]` is the `k`-th unknown) and then the parameters.
pub(crate) struct Domain<'a> {
    /// The loops around the statement, by index, outermost first.
    pub counters: &'a [usize],
    /// How many parameters the kernel has so far.
    pub params: usize,
    /// The domain's constraints `e >= 0`.
    pub constraints: &'a [Affine],
}

impl Domain<'_> {
    fn row(&self, affine: &Affine) -> Option<(Vec<i64>, i64)> {
        let mut row = vec![0; self.counters.len() + self.params];
        for &(variable, coefficient) in &affine.terms {
            let index = match variable {
                Variable::Iterator(l) => self.counters.iter().position(|&c| c == l.0)?,
                Variable::Param(p) if p < self.params => self.counters.len() + p,
                Variable::Param(_) => return None,
            };
            row[index] += coefficient;
        }
        Some((row, affine.constant))
    }

    /// Whether `e >= 0` holds at every point of the domain (proved by the
    /// opposite, `-e - 1 >= 0`, having no integer point).
    pub(crate) fn implies(&self, e: &Affine) -> bool {
        let mut system = System::new(self.counters.len() + self.params);
        for constraint in self.constraints {
            let Some((row, constant)) = self.row(constraint) else {
                continue;
            };
            system.at_least_zero(row, constant);
        }
        let Some(negated) = e
            .clone()
            .scale(-1)
            .and_then(|n| n.add(&Affine::constant(-1), 1))
        else {
            return false;
        };
        let Some((row, constant)) = self.row(&negated) else {
            return false;
        };
        system.at_least_zero(row, constant);
        !system.may_be_feasible()
    }
}

/// A subscript read as one affine subscript per dimension, and the sizes
/// of the dimensions after the first (parameters by index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Delinearized {
    pub subscripts: Vec<Affine>,
    pub sizes: Vec<usize>,
}

/// Why a subscript does not split into dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No parameter is a factor of every product.
    NoSize,
    /// The part without the size (a parameter, by index) is not affine.
    NotAffine(usize),
    /// `0 <= inner < size` is not proved for every instance.
    Unproved { inner: Affine, size: usize },
}

/// Reads a polynomial subscript as dimensions.
pub(crate) fn delinearize(
    subscript: &Polynomial,
    domain: &Domain,
) -> Result<Delinearized, Refusal> {
    if let Some(affine) = subscript.to_affine() {
        return Ok(Delinearized {
            subscripts: vec![affine],
            sizes: Vec::new(),
        });
    }
    let p = subscript.common_parameter().ok_or(Refusal::NoSize)?;
    let (quotient, rest) = subscript.divide(p);
    let inner = rest.to_affine().ok_or(Refusal::NotAffine(p))?;
    let size = Affine::variable(Variable::Param(p));
    // 0 <= inner and inner <= p - 1.
    let below = size
        .add(&inner, -1)
        .and_then(|x| x.add(&Affine::constant(-1), 1));
    let proved = domain.implies(&inner) && below.is_some_and(|b| domain.implies(&b));
    if !proved {
        return Err(Refusal::Unproved { inner, size: p });
    }
    let mut outer = delinearize(&quotient, domain)?;
    outer.subscripts.push(inner);
    outer.sizes.push(p);
    Ok(outer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::kernel::LoopId;

    fn counter(l: usize) -> Polynomial {
        Polynomial::from_affine(&Affine::variable(Variable::Iterator(LoopId(l))))
    }

    fn param(p: usize) -> Polynomial {
        Polynomial::from_affine(&Affine::variable(Variable::Param(p)))
    }

    fn constant(c: i64) -> Polynomial {
        Polynomial::from_affine(&Affine::constant(c))
    }

    /// `0 <= L0 < n` and `0 <= L1 < n` (n is parameter 0), `0 <= L2 < m`
    /// (parameter 1).
    fn square() -> Vec<Affine> {
        let c = |l: usize| Affine::variable(Variable::Iterator(LoopId(l)));
        let p = |p: usize| Affine::variable(Variable::Param(p));
        let minus_one = Affine::constant(-1);
        vec![
            c(0),
            p(0).add(&c(0), -1).unwrap().add(&minus_one, 1).unwrap(),
            c(1),
            p(0).add(&c(1), -1).unwrap().add(&minus_one, 1).unwrap(),
            c(2),
            p(1).add(&c(2), -1).unwrap().add(&minus_one, 1).unwrap(),
        ]
    }

    #[test]
    fn a_row_major_matrix_splits_into_rows_and_columns() {
        // i * n + j
        let subscript = counter(0)
            .multiply(&param(0))
            .unwrap()
            .add(&counter(1), 1)
            .unwrap();
        let constraints = square();
        let domain = Domain {
            counters: &[0, 1, 2],
            params: 2,
            constraints: &constraints,
        };
        let split = delinearize(&subscript, &domain).expect("splits");
        assert_eq!(split.sizes, [0]);
        assert_eq!(
            split.subscripts[0],
            Affine::variable(Variable::Iterator(LoopId(0)))
        );
        assert_eq!(
            split.subscripts[1],
            Affine::variable(Variable::Iterator(LoopId(1)))
        );
    }

    #[test]
    fn three_dimensions_split_from_the_innermost() {
        // (i * n + j) * m + k
        let subscript = counter(0)
            .multiply(&param(0))
            .unwrap()
            .add(&counter(1), 1)
            .unwrap()
            .multiply(&param(1))
            .unwrap()
            .add(&counter(2), 1)
            .unwrap();
        let constraints = square();
        let domain = Domain {
            counters: &[0, 1, 2],
            params: 2,
            constraints: &constraints,
        };
        let split = delinearize(&subscript, &domain).expect("splits");
        assert_eq!(split.sizes, [0, 1]);
        assert_eq!(split.subscripts.len(), 3);
    }

    #[test]
    fn a_column_outside_the_row_is_refused() {
        // i * n + j - 1 with j from 0: -1 is before the row.
        let subscript = counter(0)
            .multiply(&param(0))
            .unwrap()
            .add(&counter(1), 1)
            .unwrap()
            .add(&constant(-1), 1)
            .unwrap();
        let constraints = square();
        let domain = Domain {
            counters: &[0, 1, 2],
            params: 2,
            constraints: &constraints,
        };
        let error = delinearize(&subscript, &domain).expect_err("refused");
        assert!(
            matches!(error, Refusal::Unproved { size: 0, .. }),
            "{error:?}"
        );
    }

    #[test]
    fn two_counters_do_not_multiply() {
        assert_eq!(
            counter(0).multiply(&counter(1)),
            Err(ProductError::Counters)
        );
    }
}
