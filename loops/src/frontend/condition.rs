//! The conditions of `if` statements as unions of disjoint pieces.
//!
//! A piece is a conjunction of affine inequalities `e >= 0` over the loop
//! counters and the parameters (it becomes part of a statement's domain),
//! with at most one test that reads values (`A[i] > 0`, kept as C text
//! and run with the statement). `&&` intersects pieces; a negation is a
//! union: `!(a && b)` is `!a`, then `a && !b`, so the pieces stay
//! disjoint and a statement under an `else` becomes one statement per
//! piece, each with a convex domain. `!=` is `<` or `>`, `||` is `a`, then
//! `!a && b`. A test of values is never split: negated or combined, it
//! stays one C expression, evaluated once per statement instance.

use super::delinearize::RawAccess;
use super::kernel::{Affine, Variable};
use crate::analysis::inequalities::System;

/// More pieces than this is refused: one statement each would make the
/// space too large to be of use.
pub(crate) const MAX_PIECES: usize = 16;

/// A test that reads values: C text and what it reads.
#[derive(Clone, Debug)]
pub(crate) struct ValueTest {
    /// A C expression, parenthesized where it combines.
    pub text: String,
    /// The elements and scalars it reads.
    pub reads: Vec<RawAccess>,
}

impl ValueTest {
    fn negated(&self) -> ValueTest {
        ValueTest {
            text: format!("!({})", self.text),
            reads: self.reads.clone(),
        }
    }

    fn and(&self, other: &ValueTest) -> ValueTest {
        let mut reads = self.reads.clone();
        reads.extend(other.reads.iter().cloned());
        ValueTest {
            text: format!("({}) && ({})", self.text, other.text),
            reads,
        }
    }
}

/// A conjunction: affine inequalities and at most one test of values.
#[derive(Clone, Debug, Default)]
pub(crate) struct Piece {
    /// Each `e >= 0`.
    pub affine: Vec<Affine>,
    /// A test of values, if any.
    pub test: Option<ValueTest>,
}

impl Piece {
    fn and(&self, other: &Piece) -> Piece {
        let mut affine = self.affine.clone();
        affine.extend(other.affine.iter().cloned());
        let test = match (&self.test, &other.test) {
            (Some(a), Some(b)) => Some(a.and(b)),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        Piece { affine, test }
    }

    /// False only when no integer point meets the inequalities.
    fn may_hold(&self) -> bool {
        let mut variables: Vec<Variable> = Vec::new();
        for e in &self.affine {
            for (v, _) in &e.terms {
                if !variables.contains(v) {
                    variables.push(*v);
                }
            }
        }
        let mut system = System::new(variables.len());
        for e in &self.affine {
            let mut row = vec![0; variables.len()];
            for (v, c) in &e.terms {
                if let Some(i) = variables.iter().position(|x| x == v) {
                    row[i] += c;
                }
            }
            system.at_least_zero(row, e.constant);
        }
        system.may_be_feasible()
    }

    /// The complement as disjoint pieces: the first inequality fails, or
    /// it holds and the second fails, ..., or all hold and the test fails.
    fn complement(&self) -> Condition {
        let mut pieces = Vec::new();
        for (k, e) in self.affine.iter().enumerate() {
            let mut affine = self.affine[..k].to_vec();
            affine.push(negate(e));
            pieces.push(Piece { affine, test: None });
        }
        if let Some(test) = &self.test {
            pieces.push(Piece {
                affine: self.affine.clone(),
                test: Some(test.negated()),
            });
        }
        Condition { pieces }
    }
}

/// `e >= 0` fails: `-e - 1 >= 0`.
fn negate(e: &Affine) -> Affine {
    let mut out = e.clone();
    out.constant = -out.constant - 1;
    for (_, c) in &mut out.terms {
        *c = -*c;
    }
    out
}

/// A union of disjoint pieces.
#[derive(Clone, Debug)]
pub(crate) struct Condition {
    pub pieces: Vec<Piece>,
}

/// A condition with too many pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooManyPieces;

impl Condition {
    /// True everywhere.
    pub(crate) fn always() -> Condition {
        Condition {
            pieces: vec![Piece::default()],
        }
    }

    /// `e >= 0`.
    pub(crate) fn at_least_zero(e: Affine) -> Condition {
        Condition {
            pieces: vec![Piece {
                affine: vec![e],
                test: None,
            }],
        }
    }

    /// A test of values.
    pub(crate) fn test(test: ValueTest) -> Condition {
        Condition {
            pieces: vec![Piece {
                affine: Vec::new(),
                test: Some(test),
            }],
        }
    }

    fn checked(self) -> Result<Condition, TooManyPieces> {
        if self.pieces.len() > MAX_PIECES {
            Err(TooManyPieces)
        } else {
            Ok(self)
        }
    }

    /// Both hold.
    pub(crate) fn and(&self, other: &Condition) -> Result<Condition, TooManyPieces> {
        let mut pieces = Vec::new();
        for a in &self.pieces {
            for b in &other.pieces {
                let piece = a.and(b);
                // Contradictions (`i < 3 && i > 3`) go at once, or
                // negations of negations would multiply them.
                if piece.may_hold() {
                    pieces.push(piece);
                }
            }
            if pieces.len() > MAX_PIECES {
                return Err(TooManyPieces);
            }
        }
        Condition { pieces }.checked()
    }

    /// The condition fails.
    pub(crate) fn not(&self) -> Result<Condition, TooManyPieces> {
        let mut out = Condition::always();
        for piece in &self.pieces {
            out = out.and(&piece.complement())?;
        }
        Ok(out)
    }

    /// Either holds: this one, or else the other.
    pub(crate) fn or(&self, other: &Condition) -> Result<Condition, TooManyPieces> {
        let rest = self.not()?.and(other)?;
        let mut pieces = self.pieces.clone();
        pieces.extend(rest.pieces);
        Condition { pieces }.checked()
    }

    /// Whether some piece tests values.
    pub(crate) fn tests_values(&self) -> bool {
        self.pieces.iter().any(|p| p.test.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::kernel::LoopId;

    fn i_minus(c: i64) -> Affine {
        // i - c >= 0
        Affine {
            constant: -c,
            terms: vec![(Variable::Iterator(LoopId(0)), 1)],
        }
    }

    /// Whether a value of `i` satisfies the piece.
    fn holds(piece: &Piece, i: i64) -> bool {
        piece
            .affine
            .iter()
            .all(|e| e.constant + e.coefficient(Variable::Iterator(LoopId(0))) * i >= 0)
    }

    #[test]
    fn a_negated_conjunction_is_disjoint_pieces_covering_the_rest() {
        // i >= 2 && -i + 5 >= 0 (2 <= i <= 5), negated.
        let mut upper = i_minus(0);
        upper.constant = 5;
        upper.terms[0].1 = -1;
        let both = Condition::at_least_zero(i_minus(2))
            .and(&Condition::at_least_zero(upper))
            .unwrap();
        let negated = both.not().unwrap();
        assert_eq!(negated.pieces.len(), 2);
        for i in -3..10 {
            let inside = (2..=5).contains(&i);
            let count = negated.pieces.iter().filter(|p| holds(p, i)).count();
            assert_eq!(count, usize::from(!inside), "i = {i}");
        }
    }

    #[test]
    fn or_is_the_first_then_the_rest_of_the_second() {
        let either = Condition::at_least_zero(i_minus(7))
            .or(&Condition::at_least_zero(negate(&i_minus(3))))
            .unwrap();
        for i in -3..12 {
            let count = either.pieces.iter().filter(|p| holds(p, i)).count();
            assert_eq!(count, usize::from(!(3..7).contains(&i)), "i = {i}");
        }
    }

    #[test]
    fn a_negated_test_of_values_stays_one_expression() {
        let test = Condition::test(ValueTest {
            text: "A[i] > 0".into(),
            reads: Vec::new(),
        });
        let guarded = Condition::at_least_zero(i_minus(1)).and(&test).unwrap();
        let negated = guarded.not().unwrap();
        let texts: Vec<Option<String>> = negated
            .pieces
            .iter()
            .map(|p| p.test.as_ref().map(|t| t.text.clone()))
            .collect();
        assert_eq!(texts, [None, Some("!(A[i] > 0)".to_string())]);
    }
}
