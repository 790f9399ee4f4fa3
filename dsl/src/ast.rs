//! The syntax tree of a space file, as written. Every node keeps its span.

use crate::source::Span;

/// A name with its place in the source. Variables keep their `$`-less name.
#[derive(Clone, Debug)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Item {
    Include(Include),
    Set(SetDecl),
    Property(PropertyDecl),
    Choice(Box<ChoiceDecl>),
    Require(RequireDecl),
    Trigger(TriggerDecl),
    Quotient(Box<QuotientDecl>),
}

/// `include "path"`.
#[derive(Clone, Debug)]
pub struct Include {
    pub path: String,
    /// The quoted path.
    pub path_span: Span,
    pub span: Span,
}

/// `$var in Set` or `$var in Set($arg)`.
#[derive(Clone, Debug)]
pub struct Param {
    pub var: Ident,
    pub set: SetRef,
    pub span: Span,
}

/// A set named in a declaration, with its arguments if it is parametrized.
#[derive(Clone, Debug)]
pub struct SetRef {
    pub name: Ident,
    /// `None` when written without parentheses.
    pub args: Option<Vec<Ident>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct SetDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub params: Vec<Param>,
    pub superset: Option<SetRef>,
    pub disjoint: Vec<Ident>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyType {
    Bool,
    Int,
    IntList,
}

#[derive(Clone, Debug)]
pub struct PropertyDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub params: Vec<Param>,
    pub ty: PropertyType,
    pub ty_span: Span,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ChoiceDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub params: Vec<Param>,
    pub kind: ChoiceKind,
    /// The header, `choice enum name(...)`, for labels that point at the
    /// choice as a whole.
    pub header_span: Span,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ChoiceKind {
    Enum(EnumBody),
    Integer(Universe),
    Counter(CounterBody),
}

#[derive(Clone, Debug, Default)]
pub struct EnumBody {
    pub values: Vec<ValueDecl>,
    pub aliases: Vec<AliasDecl>,
    pub symmetries: Vec<SymmetryDecl>,
}

#[derive(Clone, Debug)]
pub struct ValueDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub requires: Vec<Requires>,
}

/// `requires forall ...: a || b` on a value.
#[derive(Clone, Debug)]
pub struct Requires {
    pub quantifiers: Vec<Param>,
    pub conditions: ConditionList,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct AliasDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub values: Vec<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum SymmetryDecl {
    Symmetric(Span),
    Antisymmetric {
        mappings: Vec<(Ident, Ident)>,
        span: Span,
    },
}

impl SymmetryDecl {
    pub fn span(&self) -> Span {
        match self {
            SymmetryDecl::Symmetric(span) | SymmetryDecl::Antisymmetric { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Universe {
    List {
        values: Vec<(i64, Span)>,
        span: Span,
    },
    Property(Call),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterOp {
    Sum,
    Mul,
}

#[derive(Clone, Debug)]
pub struct CounterBody {
    pub half: bool,
    pub quantifiers: Vec<Param>,
    pub op: CounterOp,
    pub operand: Operand,
    pub conditions: Option<ConditionList>,
}

#[derive(Clone, Debug)]
pub struct RequireDecl {
    pub doc: Vec<String>,
    pub quantifiers: Vec<Param>,
    pub conditions: ConditionList,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TriggerDecl {
    pub doc: Vec<String>,
    pub quantifiers: Vec<Param>,
    pub callback: Call,
    pub conditions: ConditionList,
    pub span: Span,
}

/// `quotient Name(params) of $x in Set: flag = condition / relation is VALUES end`.
#[derive(Clone, Debug)]
pub struct QuotientDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub params: Vec<Param>,
    pub member: Param,
    pub flag: Ident,
    pub condition: Condition,
    pub relation: Ident,
    pub relation_values: Vec<Ident>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOp {
    Or,
    And,
}

/// Conditions joined by `||` or `&&`; which one a construct accepts is
/// checked later so the error can say so.
#[derive(Clone, Debug)]
pub struct ConditionList {
    pub conditions: Vec<Condition>,
    pub ops: Vec<(LogicOp, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Condition {
    pub kind: ConditionKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ConditionKind {
    /// `choice(args) is [not] A | B`
    Is {
        call: Call,
        negated: bool,
        values: Vec<Ident>,
    },
    /// `lhs < rhs`
    Compare {
        lhs: Operand,
        op: CompareOp,
        op_span: Span,
        rhs: Operand,
    },
    /// `[!]property(args)`
    Bool { call: Call, negated: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CompareOp {
    /// Applies the comparison.
    pub fn eval(self, lhs: i64, rhs: i64) -> bool {
        match self {
            CompareOp::Eq => lhs == rhs,
            CompareOp::Ne => lhs != rhs,
            CompareOp::Lt => lhs < rhs,
            CompareOp::Le => lhs <= rhs,
            CompareOp::Gt => lhs > rhs,
            CompareOp::Ge => lhs >= rhs,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        }
    }
}

#[derive(Clone, Debug)]
pub enum Operand {
    Int(i64, Span),
    Call(Call),
}

impl Operand {
    pub fn span(&self) -> Span {
        match self {
            Operand::Int(_, span) => *span,
            Operand::Call(call) => call.span,
        }
    }
}

/// `name($a, $b)`: a choice, property or callback applied to variables.
#[derive(Clone, Debug)]
pub struct Call {
    pub name: Ident,
    pub args: Vec<Ident>,
    pub span: Span,
}
