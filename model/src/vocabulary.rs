//! The words the language and the engine share: comparison operators,
//! property types, counter operators and the values of a quotient's
//! membership flag. The parser builds them, the checker keeps them in its
//! checked form, the generator writes them into [`Model`](crate::Model)
//! tables and the engine evaluates them, so each is declared once, here.

/// An object of a backbone: an id unique within its root set.
pub type ObjectId = u32;

/// A comparison of two integers; `==` and `!=` also compare two instances
/// of one enum choice. `Multiple` and `NotMultiple` are divisibility:
/// `a % b == 0` and `a % b != 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `lhs % rhs == 0`: `lhs` is a multiple of `rhs` (only 0 is a
    /// multiple of 0).
    Multiple,
    /// `lhs % rhs != 0`.
    NotMultiple,
}

/// A boolean property the engine computes from the backbone's sets
/// instead of asking the host. The checker declares one for each
/// `$x in S` and `$a < $b` a space writes, so these conditions reach the
/// engine as ordinary property literals, known before any decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Derived {
    /// The last argument is an object of the set `set` (by index) applied
    /// to the other arguments: `$x in S` or `$x in S($p)`.
    Member {
        /// The set tested, never a quotient set.
        set: u16,
    },
    /// The two arguments, objects of one root set, compare with the
    /// operator by id: `$a < $b` orders the objects, so a trigger or a
    /// constraint can take each unordered pair once.
    Order(CompareOp),
}

impl CompareOp {
    /// The operator that holds exactly when this one does not.
    pub fn negated(self) -> CompareOp {
        match self {
            CompareOp::Eq => CompareOp::Ne,
            CompareOp::Ne => CompareOp::Eq,
            CompareOp::Lt => CompareOp::Ge,
            CompareOp::Le => CompareOp::Gt,
            CompareOp::Gt => CompareOp::Le,
            CompareOp::Ge => CompareOp::Lt,
            CompareOp::Multiple => CompareOp::NotMultiple,
            CompareOp::NotMultiple => CompareOp::Multiple,
        }
    }

    /// Whether `lhs op rhs` holds.
    pub fn eval(self, lhs: i64, rhs: i64) -> bool {
        match self {
            CompareOp::Eq => lhs == rhs,
            CompareOp::Ne => lhs != rhs,
            CompareOp::Lt => lhs < rhs,
            CompareOp::Le => lhs <= rhs,
            CompareOp::Gt => lhs > rhs,
            CompareOp::Ge => lhs >= rhs,
            CompareOp::Multiple => is_multiple(lhs, rhs),
            CompareOp::NotMultiple => !is_multiple(lhs, rhs),
        }
    }

    /// The operator as a space writes it, for messages and generated
    /// comments.
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
            CompareOp::Multiple => "% ... == 0",
            CompareOp::NotMultiple => "% ... != 0",
        }
    }
}

/// Whether `a` is a multiple of `b` (`a % b == 0`); only 0 is a multiple
/// of 0.
pub fn is_multiple(a: i64, b: i64) -> bool {
    match b {
        0 => a == 0,
        // `i64::MIN % -1` overflows; every integer is a multiple of -1.
        -1 => true,
        _ => a % b == 0,
    }
}

/// What a host property returns, which decides where a space may use it.
/// The host answers before any decision, so a property never changes
/// during a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PropertyType {
    /// `bool`: a condition on its own, `p($x)` or `!p($x)`.
    Bool,
    /// `int`: an integer operand of comparisons and counters.
    Int,
    /// `[int]`: a list of integers, the universe of integer choices.
    IntList,
}

/// How a counter combines the increments of the bindings it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CounterOp {
    /// `sum`: adds them, starting from 0.
    Sum,
    /// `mul`: multiplies them, starting from 1.
    Mul,
}

/// Value index of `TRUE` in the membership choice a quotient declares
/// (`flag(params..., x)`): the object represents its class and is in the
/// quotient set.
pub const QUOTIENT_TRUE: usize = 0;

/// Value index of `FALSE` in the membership choice a quotient declares:
/// the object is not in the quotient set.
pub const QUOTIENT_FALSE: usize = 1;
