//! The syntax tree of a space file, as written. Every node keeps its span.

use crate::source::Span;

/// The operators and types the language shares with the engine.
pub use commute_model::{CompareOp, CounterOp, PropertyType};

/// A name with its place in the source. Variables keep their `$`-less name.
#[derive(Clone, Debug)]
pub struct Ident {
    /// The name as written, without the `$` of a variable.
    pub name: String,
    /// Where the name is written.
    pub span: Span,
}

/// A top-level item of a space file. The checker declares every set, then
/// every choice and property, before it checks bodies, so an item may use
/// names declared after it or in a file included later.
#[derive(Clone, Debug)]
pub enum Item {
    /// `include "path"`: the included file's items join this space.
    Include(Include),
    /// `set Name(...) subsetof ... disjoint ...`.
    Set(SetDecl),
    /// `property name(...) -> type`: a function the host provides.
    Property(PropertyDecl),
    /// `choice enum|integer|counter name(...)`: a decision of the space.
    Choice(Box<ChoiceDecl>),
    /// `require ...`: a constraint every complete candidate obeys.
    Require(RequireDecl),
    /// `trigger ... callback(...) when ...`: asks the host to extend the
    /// backbone once the conditions are certain.
    Trigger(TriggerDecl),
    /// `quotient Name(...) of $x in S: ...`: one representative per class.
    Quotient(Box<QuotientDecl>),
}

/// `include "path"`.
#[derive(Clone, Debug)]
pub struct Include {
    /// The path as written, relative to the including file.
    pub path: String,
    /// The quoted path.
    pub path_span: Span,
    /// The whole `include` item.
    pub span: Span,
}

/// `$var in Set` or `$var in Set($arg)`.
#[derive(Clone, Debug)]
pub struct Param {
    /// The variable, without its `$`.
    pub var: Ident,
    /// The set its objects come from.
    pub set: SetRef,
    /// From the `$` to the end of the set reference.
    pub span: Span,
}

/// A set named in a declaration, with its arguments if it is parametrized.
#[derive(Clone, Debug)]
pub struct SetRef {
    /// The set's name.
    pub name: Ident,
    /// `None` when written without parentheses.
    pub args: Option<Vec<Ident>>,
    /// The name and its arguments.
    pub span: Span,
}

/// `set Name($p in P) subsetof Parent($p) disjoint A, B`.
#[derive(Clone, Debug)]
pub struct SetDecl {
    /// The `///` lines above the item, without the slashes; generated code
    /// carries them into its doc comments.
    pub doc: Vec<String>,
    /// The declared set.
    pub name: Ident,
    /// Parameters of a parametrized set, a family of sets: one per tuple
    /// of objects.
    pub params: Vec<Param>,
    /// The `subsetof` set, whose objects include this set's.
    pub superset: Option<SetRef>,
    /// The `disjoint` sets, which never share an object with this one.
    pub disjoint: Vec<Ident>,
    /// The whole item.
    pub span: Span,
}

/// `property name($x in S, ...) -> bool|int|[int]`.
#[derive(Clone, Debug)]
pub struct PropertyDecl {
    /// The `///` lines above the item.
    pub doc: Vec<String>,
    /// The property's name, in the namespace of choices and callbacks.
    pub name: Ident,
    /// The objects the host is asked about; none for a constant of the
    /// target.
    pub params: Vec<Param>,
    /// The returned type.
    pub ty: PropertyType,
    /// Where the type is written.
    pub ty_span: Span,
    /// The whole item.
    pub span: Span,
}

/// `choice enum|integer|counter name(params): ... end`.
#[derive(Clone, Debug)]
pub struct ChoiceDecl {
    /// The `///` lines above the item.
    pub doc: Vec<String>,
    /// The choice's name, in the namespace of properties and callbacks.
    pub name: Ident,
    /// One instance of the choice exists per tuple of distinct objects.
    pub params: Vec<Param>,
    /// The body, which depends on the kind of choice.
    pub kind: ChoiceKind,
    /// The header, `choice enum name(...)`, for labels that point at the
    /// choice as a whole.
    pub header_span: Span,
    /// The whole item.
    pub span: Span,
}

/// The body of a choice.
#[derive(Clone, Debug)]
pub enum ChoiceKind {
    /// `choice enum`: one of a list of named values.
    Enum(EnumBody),
    /// `choice integer`: one integer of a universe.
    Integer(Universe),
    /// `choice counter`: an integer computed from other choices.
    Counter(CounterBody),
}

/// The lines of an enum choice, in the order written within each kind.
#[derive(Clone, Debug, Default)]
pub struct EnumBody {
    /// `value NAME` lines; the order gives the bit of each value.
    pub values: Vec<ValueDecl>,
    /// `alias NAME = A | B` lines.
    pub aliases: Vec<AliasDecl>,
    /// `symmetric` or `antisymmetric:` blocks; more than one is an error
    /// the checker reports, so all are kept.
    pub symmetries: Vec<SymmetryDecl>,
}

/// `value NAME`, with its `requires` clauses.
#[derive(Clone, Debug)]
pub struct ValueDecl {
    /// The `///` lines above the value.
    pub doc: Vec<String>,
    /// The value's name, unique within its choice.
    pub name: Ident,
    /// Conditions that must all hold whenever an instance takes this value.
    pub requires: Vec<Requires>,
}

/// `requires forall ...: a || b` on a value.
#[derive(Clone, Debug)]
pub struct Requires {
    /// The clause's own `forall` variables, after the choice's parameters.
    pub quantifiers: Vec<Param>,
    /// A disjunction: at least one must hold.
    pub conditions: ConditionList,
    /// From `requires` to the end of the clause.
    pub span: Span,
}

/// `alias NAME = A | B`: a name for a union of values, with `requires`
/// clauses that hold for all of them.
#[derive(Clone, Debug)]
pub struct AliasDecl {
    /// The `///` lines above the alias.
    pub doc: Vec<String>,
    /// The alias, which must not be the name of a value of the choice.
    pub name: Ident,
    /// The values and other aliases of the choice it stands for.
    pub values: Vec<Ident>,
    /// Conditions that must all hold whenever an instance takes one of
    /// the alias's values.
    pub requires: Vec<Requires>,
    /// The whole declaration.
    pub span: Span,
}

/// How `c($a, $b)` relates to `c($b, $a)` on a two-parameter enum choice.
#[derive(Clone, Debug)]
pub enum SymmetryDecl {
    /// `symmetric`: both instances always hold the same value.
    Symmetric(Span),
    /// `antisymmetric:` with `A -> B` lines: `c(a, b)` is A exactly when
    /// `c(b, a)` is B; unmentioned values map to themselves.
    Antisymmetric {
        /// Each `from -> to` line.
        mappings: Vec<(Ident, Ident)>,
        /// The whole block.
        span: Span,
    },
}

impl SymmetryDecl {
    /// The whole declaration, for labels.
    pub fn span(&self) -> Span {
        match self {
            SymmetryDecl::Symmetric(span) | SymmetryDecl::Antisymmetric { span, .. } => *span,
        }
    }
}

/// The integers an integer choice may ever take.
#[derive(Clone, Debug)]
pub enum Universe {
    /// A literal list, `[1, 2, 4]`, the same for every instance.
    List {
        /// Each value with where it is written, for duplicate errors.
        values: Vec<(i64, Span)>,
        /// The brackets and what is inside.
        span: Span,
    },
    /// A `[int]` property applied to the choice's parameters: each instance
    /// gets its universe from the host.
    Property(Call),
}

/// `forall ...: sum|mul OPERAND when CONDITIONS from BASE`.
#[derive(Clone, Debug)]
pub struct CounterBody {
    /// `choice half counter`: only the upper bound is tracked, which is
    /// cheaper and enough for a counter only bounded from above.
    pub half: bool,
    /// The objects iterated over, after the counter's parameters.
    pub quantifiers: Vec<Param>,
    /// `sum` or `mul`.
    pub op: CounterOp,
    /// What is added or multiplied in for each binding.
    pub operand: Operand,
    /// The `when` part, a conjunction; `None` when absent (always counts).
    pub conditions: Option<ConditionList>,
    /// `from BASE`: the value before any increment (0 for `sum` and 1 for
    /// `mul` without it).
    pub base: Option<Operand>,
}

/// `require forall ...: a || b`, or `require forall ...: (a || b) && (c)`:
/// holds for every binding of the quantifiers.
#[derive(Clone, Debug)]
pub struct RequireDecl {
    /// The `///` lines above the item.
    pub doc: Vec<String>,
    /// The `forall` variables; none for a single fact.
    pub quantifiers: Vec<Param>,
    /// Disjunctions that must all hold, one constraint each: one without
    /// parentheses, or the parenthesized groups joined by `&&`.
    pub clauses: Vec<ConditionList>,
    /// The whole item.
    pub span: Span,
}

/// `trigger forall ...: callback($x) when a && b`.
#[derive(Clone, Debug)]
pub struct TriggerDecl {
    /// The `///` lines above the item.
    pub doc: Vec<String>,
    /// The `forall` variables.
    pub quantifiers: Vec<Param>,
    /// The host method to call; declared by its first use.
    pub callback: Call,
    /// A conjunction, all certain before the callback runs.
    pub conditions: ConditionList,
    /// The whole item.
    pub span: Span,
}

/// `quotient Name(params) of $x in Set: flag = condition / relation is VALUES end`.
#[derive(Clone, Debug)]
pub struct QuotientDecl {
    /// The `///` lines above the item.
    pub doc: Vec<String>,
    /// The quotient set, in the namespace of sets.
    pub name: Ident,
    /// Parameters of the quotient set, as for a parametrized set.
    pub params: Vec<Param>,
    /// `$x in S`: the objects partitioned into classes.
    pub member: Param,
    /// The generated TRUE/FALSE choice saying which object represents its
    /// class.
    pub flag: Ident,
    /// The `is` test an object must pass to be in a class.
    pub condition: Condition,
    /// A two-parameter enum choice over `S` relating objects.
    pub relation: Ident,
    /// The values of `relation` that put two objects in one class.
    pub relation_values: Vec<Ident>,
    /// The whole item.
    pub span: Span,
}

/// The operator between two conditions of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOp {
    /// `||`: at least one holds (`require`, `requires`).
    Or,
    /// `&&`: all hold (`when` of counters and triggers).
    And,
}

/// Conditions joined by `||` or `&&`; which one a construct accepts is
/// checked later so the error can say so.
#[derive(Clone, Debug)]
pub struct ConditionList {
    /// The conditions, in order.
    pub conditions: Vec<Condition>,
    /// The operator between each pair of consecutive conditions.
    pub ops: Vec<(LogicOp, Span)>,
    /// The whole list.
    pub span: Span,
}

/// One condition of a list.
#[derive(Clone, Debug)]
pub struct Condition {
    /// What it tests.
    pub kind: ConditionKind,
    /// The whole condition.
    pub span: Span,
}

/// The forms a condition takes.
#[derive(Clone, Debug)]
pub enum ConditionKind {
    /// `choice(args) is [not] A | B`
    Is {
        /// The enum choice instance tested.
        call: Call,
        /// `is not`: the value is none of `values`.
        negated: bool,
        /// Values or aliases of the choice.
        values: Vec<Ident>,
    },
    /// `lhs < rhs`; `lhs % rhs == 0` is `op` [`CompareOp::Multiple`].
    Compare {
        /// The left operand.
        lhs: Operand,
        /// The operator.
        op: CompareOp,
        /// Where the operator is written.
        op_span: Span,
        /// The right operand.
        rhs: Operand,
    },
    /// `[!]property(args)`
    Bool {
        /// The boolean property applied to variables.
        call: Call,
        /// Written with `!`: the property does not hold.
        negated: bool,
    },
    /// `$x [not] in Set(args)`
    Member {
        /// The object tested.
        var: Ident,
        /// `not in`: the object is not in the set.
        negated: bool,
        /// The set, applied to variables if it is parametrized.
        set: SetRef,
    },
    /// `value in list(args)`: an integer is one of a `[int]` property's
    /// values.
    InList {
        /// The integer tested.
        value: Operand,
        /// The `[int]` property applied to variables.
        list: Call,
    },
    /// `$a < $b`: two objects compared by their order in their root set.
    ObjectCompare {
        /// The left object.
        lhs: Ident,
        /// The operator.
        op: CompareOp,
        /// Where the operator is written.
        op_span: Span,
        /// The right object.
        rhs: Ident,
    },
    /// `(a) == (b)`: both conditions hold or neither; `!=`: exactly one.
    SameTruth {
        /// The left condition.
        lhs: Box<Condition>,
        /// `==` rather than `!=`.
        equal: bool,
        /// Where the operator is written.
        op_span: Span,
        /// The right condition.
        rhs: Box<Condition>,
    },
}

/// A side of a comparison or what a counter adds.
#[derive(Clone, Debug)]
pub enum Operand {
    /// An integer literal, with where it is written.
    Int(i64, Span),
    /// A property, integer choice or counter applied to variables.
    Call(Call),
    /// `a * b * ...`: two or more factors, none of them a product (in
    /// comparisons only).
    Product(Vec<Operand>, Span),
}

impl Operand {
    /// Where the operand is written.
    pub fn span(&self) -> Span {
        match self {
            Operand::Int(_, span) | Operand::Product(_, span) => *span,
            Operand::Call(call) => call.span,
        }
    }
}

/// `name($a, $b)`: a choice, property or callback applied to variables.
#[derive(Clone, Debug)]
pub struct Call {
    /// The callee.
    pub name: Ident,
    /// The variables passed, without their `$`.
    pub args: Vec<Ident>,
    /// From the name to the closing parenthesis.
    pub span: Span,
}
