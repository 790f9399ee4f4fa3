//! The checked form of a space: every name resolved to an id, every use
//! type-checked, constraints normalized into clauses, quotient sets
//! desugared. This is what the code generator reads.
//!
//! Variables: each declaration that binds variables (a choice's parameters,
//! a constraint's quantifiers, a counter's parameters then its own
//! quantifiers, ...) has a *scope*, a list of [`Variable`]s; a [`VarId`] is
//! an index into the scope of the declaration it appears in. Quantified
//! objects are distinct: an instance is only formed for tuples of pairwise
//! different objects.

use crate::source::Span;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(/// A set of the space.
    SetId);
id_type!(/// A host property.
    PropertyId);
id_type!(/// A choice: enum, integer or counter.
    ChoiceId);
id_type!(/// A constraint (after normalization).
    ConstraintId);
id_type!(/// A host callback that triggers call.
    CallbackId);
id_type!(/// A quotient set.
    QuotientId);
id_type!(/// A variable of the scope of the declaration it appears in.
    VarId);

/// Where a checked item comes from, for generated comments and messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file's path as it was given or included.
    pub file: String,
    /// 1-based line of the declaration's first character.
    pub line: usize,
    pub span: Span,
}

/// A checked space.
#[derive(Clone, Debug, Default)]
pub struct Space {
    pub sets: Vec<Set>,
    pub properties: Vec<Property>,
    pub choices: Vec<Choice>,
    pub constraints: Vec<Constraint>,
    pub triggers: Vec<Trigger>,
    pub callbacks: Vec<Callback>,
    pub quotients: Vec<Quotient>,
    /// For each choice, the constraint literals that read it: the index
    /// propagation starts from when the choice's domain shrinks.
    pub clauses_by_choice: Vec<Vec<ClauseRef>>,
    /// For each choice, the counters whose increment or condition reads it.
    pub counters_by_choice: Vec<Vec<ChoiceId>>,
}

/// A variable: its name (without `$`) and the set its objects come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    pub set: SetExpr,
}

/// A set, applied to variables of the enclosing scope if it is parametrized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetExpr {
    pub set: SetId,
    pub args: Vec<VarId>,
}

#[derive(Clone, Debug)]
pub struct Set {
    pub name: String,
    pub doc: Vec<String>,
    /// Parameters of a parametrized set (one host set per argument tuple).
    pub params: Vec<Variable>,
    /// The set this one is a subset of; its arguments index `params`.
    pub superset: Option<SetExpr>,
    /// Sets whose objects are never objects of this one.
    pub disjoint: Vec<SetId>,
    /// Set by a quotient: its objects are maintained by generated triggers,
    /// not by the host.
    pub quotient: Option<QuotientId>,
    pub origin: Origin,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyType {
    Bool,
    Int,
    IntList,
}

#[derive(Clone, Debug)]
pub struct Property {
    pub name: String,
    pub doc: Vec<String>,
    pub params: Vec<Variable>,
    pub ty: PropertyType,
    pub origin: Origin,
}

/// A property applied to variables of the enclosing scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyCall {
    pub property: PropertyId,
    pub args: Vec<VarId>,
}

#[derive(Clone, Debug)]
pub struct Choice {
    pub name: String,
    pub doc: Vec<String>,
    pub params: Vec<Variable>,
    pub kind: ChoiceKind,
    pub symmetry: Symmetry,
    /// Set for the membership choice and counter a quotient declares.
    pub quotient: Option<QuotientId>,
    pub origin: Origin,
}

#[derive(Clone, Debug)]
pub enum ChoiceKind {
    Enum(EnumDomain),
    /// Universe given per instance; the domain is a subset of it.
    Integer(Universe),
    Counter(Counter),
}

#[derive(Clone, Debug)]
pub struct EnumDomain {
    pub values: Vec<EnumValue>,
    pub aliases: Vec<Alias>,
}

impl EnumDomain {
    /// Every value of the domain.
    pub fn all(&self) -> ValueSet {
        ValueSet::all(self.values.len())
    }
}

#[derive(Clone, Debug)]
pub struct EnumValue {
    pub name: String,
    pub doc: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Alias {
    pub name: String,
    pub doc: Vec<String>,
    pub values: ValueSet,
}

/// A set of values of one enum choice: bit `i` is the choice's `i`-th value.
/// Enum choices have at most [`ValueSet::CAPACITY`] values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ValueSet(pub u64);

impl ValueSet {
    pub const CAPACITY: usize = 64;

    pub fn all(count: usize) -> ValueSet {
        if count >= 64 {
            ValueSet(u64::MAX)
        } else {
            ValueSet((1u64 << count) - 1)
        }
    }

    pub fn single(index: usize) -> ValueSet {
        ValueSet(1u64 << index)
    }

    pub fn contains(self, index: usize) -> bool {
        index < 64 && self.0 & (1u64 << index) != 0
    }

    pub fn union(self, other: ValueSet) -> ValueSet {
        ValueSet(self.0 | other.0)
    }

    /// The values of a domain of `count` values that are not in `self`.
    pub fn complement(self, count: usize) -> ValueSet {
        ValueSet(!self.0 & ValueSet::all(count).0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..64).filter(move |&i| self.contains(i))
    }
}

/// How the two instances `c(a, b)` and `c(b, a)` of a two-parameter choice
/// relate; only one of them is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Symmetry {
    None,
    /// `c(a, b) == c(b, a)`.
    Symmetric,
    /// `c(a, b) is v` iff `c(b, a) is inverse[v]`; an involution on values.
    Antisymmetric {
        inverse: Vec<usize>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Universe {
    /// A `[int]` property applied to the choice's parameters.
    Property(PropertyCall),
    List(Vec<i64>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterOp {
    Sum,
    Mul,
}

/// A counter: for every tuple of its quantified variables, `increment` is
/// added (or multiplied) when all of `condition` holds.
#[derive(Clone, Debug)]
pub struct Counter {
    pub op: CounterOp,
    /// Only the upper bound is tracked.
    pub half: bool,
    /// The counter's parameters (ids `0..params.len()`) followed by its
    /// quantified variables.
    pub vars: Vec<Variable>,
    pub increment: IntTerm,
    /// A conjunction of `is` tests and boolean properties.
    pub condition: Vec<Literal>,
}

/// An instance of a choice: the choice applied to variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    pub choice: ChoiceId,
    pub args: Vec<VarId>,
}

/// An integer-valued term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntTerm {
    Const(i64),
    Property(PropertyCall),
    /// An integer choice or a counter.
    Choice(Instance),
}

/// Comparison operators are the same in the syntax tree and here.
pub use crate::ast::CompareOp;

/// One condition of a constraint, trigger or counter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    /// The enum instance takes one of `values` (`is not` is already
    /// complemented).
    Is {
        instance: Instance,
        values: ValueSet,
    },
    /// Two instances of the same enum choice take the same value (`equal`)
    /// or different values.
    SameValue {
        lhs: Instance,
        rhs: Instance,
        equal: bool,
    },
    /// An integer comparison.
    Compare {
        lhs: IntTerm,
        op: CompareOp,
        rhs: IntTerm,
    },
    /// A boolean host property, negated or not: known before any decision.
    Property { call: PropertyCall, negated: bool },
}

/// Why a constraint exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstraintSource {
    Require,
    /// `requires` on `value` of `choice`.
    ValueRequires {
        choice: ChoiceId,
        value: usize,
    },
    /// Generated to maintain a quotient set.
    Quotient(QuotientId),
}

/// `forall vars: literals[0] || literals[1] || ...`.
#[derive(Clone, Debug)]
pub struct Constraint {
    pub doc: Vec<String>,
    pub vars: Vec<Variable>,
    pub literals: Vec<Literal>,
    pub source: ConstraintSource,
    pub origin: Origin,
}

/// A literal of a constraint that reads some choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClauseRef {
    pub constraint: ConstraintId,
    pub literal: usize,
}

#[derive(Clone, Debug)]
pub struct Callback {
    pub name: String,
    pub params: Vec<SetId>,
    pub origin: Origin,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TriggerAction {
    /// Call a host callback, which may add objects to sets.
    Callback {
        callback: CallbackId,
        args: Vec<VarId>,
    },
    /// Add `object` to the quotient set applied to `set_args`.
    AddToQuotient {
        quotient: QuotientId,
        set_args: Vec<VarId>,
        object: VarId,
    },
}

/// `forall vars: action when condition` (a conjunction), run once per
/// instance when the condition becomes certain.
#[derive(Clone, Debug)]
pub struct Trigger {
    pub doc: Vec<String>,
    pub vars: Vec<Variable>,
    pub condition: Vec<Literal>,
    pub action: TriggerAction,
    pub origin: Origin,
}

/// A quotient set and the items it was desugared into.
#[derive(Clone, Debug)]
pub struct Quotient {
    pub name: String,
    pub set: SetId,
    /// `flag(params, x)` is TRUE iff `x` is the representative of its class.
    pub flag: ChoiceId,
    /// The relation choice and the values that make two objects equivalent.
    pub relation: ChoiceId,
    pub relation_values: ValueSet,
    /// Counts the representatives in an object's class.
    pub class_counter: ChoiceId,
    pub origin: Origin,
}

/// Value indices of the membership choice a quotient declares.
pub const QUOTIENT_TRUE: usize = 0;
pub const QUOTIENT_FALSE: usize = 1;

impl Space {
    pub fn set(&self, id: SetId) -> &Set {
        &self.sets[id.index()]
    }

    pub fn choice(&self, id: ChoiceId) -> &Choice {
        &self.choices[id.index()]
    }

    pub fn property(&self, id: PropertyId) -> &Property {
        &self.properties[id.index()]
    }

    /// Whether objects of `sub` are always objects of `sup`.
    pub fn is_subset(&self, sub: SetId, sup: SetId) -> bool {
        let mut current = Some(sub);
        for _ in 0..=self.sets.len() {
            match current {
                Some(set) if set == sup => return true,
                Some(set) => current = self.sets[set.index()].superset.as_ref().map(|s| s.set),
                None => return false,
            }
        }
        false
    }

    /// Counts for a one-line summary.
    pub fn summary(&self) -> Summary {
        let counters = self
            .choices
            .iter()
            .filter(|c| matches!(c.kind, ChoiceKind::Counter(_)))
            .count();
        Summary {
            sets: self.sets.len(),
            properties: self.properties.len(),
            choices: self.choices.len() - counters,
            counters,
            constraints: self.constraints.len(),
            triggers: self.triggers.len(),
            quotients: self.quotients.len(),
        }
    }
}

/// How many of each item a space has, generated ones included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    pub sets: usize,
    pub properties: usize,
    pub choices: usize,
    pub counters: usize,
    pub constraints: usize,
    pub triggers: usize,
    pub quotients: usize,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        write!(
            f,
            "{}, {}, {}, {}, {}, {}, {}",
            plural(self.sets, "set"),
            plural(self.properties, "property").replace("propertys", "properties"),
            plural(self.choices, "choice"),
            plural(self.counters, "counter"),
            plural(self.constraints, "constraint"),
            plural(self.triggers, "trigger"),
            plural(self.quotients, "quotient"),
        )
    }
}
