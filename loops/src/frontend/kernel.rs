//! What the front-end reads of a C file: the kernel's loops, statements
//! and accesses, with affine expressions over iterators and parameters.

use std::fmt;
use std::ops::Range;

/// A loop of the nest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub usize);

/// A statement of the nest, numbered in textual order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StatementId(pub usize);

/// What an affine expression's terms range over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variable {
    /// The iterator of a loop.
    Iterator(LoopId),
    /// A symbolic constant: an identifier (or macro) bound outside the
    /// region, by index into [`Kernel::params`].
    Param(usize),
}

/// `constant + sum(coefficient * variable)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Affine {
    /// The constant term.
    pub constant: i64,
    /// Sorted by variable, without zero coefficients.
    pub terms: Vec<(Variable, i64)>,
}

impl Affine {
    pub(crate) fn constant(value: i64) -> Affine {
        Affine {
            constant: value,
            terms: Vec::new(),
        }
    }

    pub(crate) fn variable(variable: Variable) -> Affine {
        Affine {
            constant: 0,
            terms: vec![(variable, 1)],
        }
    }

    pub(crate) fn add(mut self, other: &Affine, sign: i64) -> Option<Affine> {
        self.constant = self
            .constant
            .checked_add(other.constant.checked_mul(sign)?)?;
        for &(variable, coefficient) in &other.terms {
            let coefficient = coefficient.checked_mul(sign)?;
            match self.terms.iter_mut().find(|(v, _)| *v == variable) {
                Some((_, c)) => *c = c.checked_add(coefficient)?,
                None => self.terms.push((variable, coefficient)),
            }
        }
        self.terms.retain(|(_, c)| *c != 0);
        self.terms.sort();
        Some(self)
    }

    pub(crate) fn scale(mut self, factor: i64) -> Option<Affine> {
        self.constant = self.constant.checked_mul(factor)?;
        for (_, c) in &mut self.terms {
            *c = c.checked_mul(factor)?;
        }
        self.terms.retain(|(_, c)| *c != 0);
        Some(self)
    }

    /// The value if the expression has no variable.
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// The coefficient of a variable.
    pub fn coefficient(&self, variable: Variable) -> i64 {
        self.terms
            .iter()
            .find(|(v, _)| *v == variable)
            .map_or(0, |(_, c)| *c)
    }

    /// Written with the kernel's names.
    pub fn display(&self, kernel: &Kernel) -> String {
        let mut out = String::new();
        for &(variable, coefficient) in &self.terms {
            let name = match variable {
                Variable::Iterator(l) => kernel.loops[l.0].iterator.as_str(),
                Variable::Param(p) => kernel.params[p].as_str(),
            };
            let sign = if coefficient < 0 {
                "-"
            } else if out.is_empty() {
                ""
            } else {
                "+"
            };
            let magnitude = coefficient.unsigned_abs();
            let term = if magnitude == 1 {
                name.to_string()
            } else {
                format!("{magnitude}*{name}")
            };
            out.push_str(&if out.is_empty() {
                format!("{sign}{term}")
            } else {
                format!(" {sign} {term}")
            });
        }
        if self.constant != 0 || out.is_empty() {
            if out.is_empty() {
                out = self.constant.to_string();
            } else {
                out.push_str(&format!(
                    " {} {}",
                    if self.constant < 0 { "-" } else { "+" },
                    self.constant.unsigned_abs()
                ));
            }
        }
        out
    }
}

/// `for (iterator = lower; iterator < upper; iterator++)`, the upper bound
/// exclusive (`<= u` is read as `< u + 1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The iterator's name.
    pub iterator: String,
    /// The first iteration.
    pub lower: Affine,
    /// One past the last iteration.
    pub upper: Affine,
    /// The enclosing loop.
    pub parent: Option<LoopId>,
    /// Byte span of the `for` statement in the file.
    pub span: Range<usize>,
}

/// One reference to an array element or a scalar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The array or scalar.
    pub name: String,
    /// Empty for a scalar.
    pub subscripts: Vec<Affine>,
    /// Byte span of the access in the file.
    pub span: Range<usize>,
}

/// An assignment: `target op= expression;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// Enclosing loops, outermost first.
    pub loops: Vec<LoopId>,
    /// The element or scalar assigned.
    pub write: Access,
    /// Every element or scalar read, the target included for `+=` and the
    /// like.
    pub reads: Vec<Access>,
    /// Byte span of the statement in the file.
    pub span: Range<usize>,
}

/// The loop nest of a C file.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The file's path as given, for messages.
    pub path: String,
    /// The whole file's text.
    pub source: String,
    /// Byte range of the region's content (between the two pragma lines).
    pub region: Range<usize>,
    /// Symbolic constants used in bounds and subscripts, in order of first
    /// use.
    pub params: Vec<String>,
    /// The `for` loops, outer ones before the loops they enclose.
    pub loops: Vec<Loop>,
    /// In textual order.
    pub statements: Vec<Statement>,
}

impl Kernel {
    /// 1-based line and column of a byte offset.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        line_column(&self.source, offset)
    }

    /// The loops around a statement, outermost first.
    pub fn loops_of(&self, statement: StatementId) -> &[LoopId] {
        &self.statements[statement.0].loops
    }

    /// Whether two different loops may be fused: at the same depth, with
    /// the same parent or fusable parents, and equal bounds (which then
    /// read only loops around both, or parameters).
    pub fn fusable(&self, a: LoopId, b: LoopId) -> bool {
        if a == b {
            return false;
        }
        let (la, lb) = (&self.loops[a.0], &self.loops[b.0]);
        let parents = match (la.parent, lb.parent) {
            (None, None) => true,
            (Some(pa), Some(pb)) => pa == pb || self.fusable(pa, pb),
            _ => false,
        };
        parents && la.lower == lb.lower && la.upper == lb.upper
    }

    /// The loops around both statements, outermost first.
    pub fn common_loops(&self, a: StatementId, b: StatementId) -> Vec<LoopId> {
        self.loops_of(a)
            .iter()
            .zip(self.loops_of(b))
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| *x)
            .collect()
    }
}

/// Why a file's loop nest cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontendError {
    /// The file, as given.
    pub path: String,
    /// 1-based line of the construct.
    pub line: usize,
    /// 1-based column of the construct.
    pub column: usize,
    /// The construct, as a person would name it (`while loop`, `function
    /// call`).
    pub construct: String,
    /// Why it cannot be read, and what would do.
    pub message: String,
}

impl fmt::Display for FrontendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.path, self.line, self.column, self.construct, self.message
        )
    }
}

impl std::error::Error for FrontendError {}

pub(crate) fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}
