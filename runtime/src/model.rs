//! The checked form of a space as the engine reads it: static tables that
//! generated code defines once per space (`static MODEL: Model = ...`).
//!
//! Indices: sets, properties, choices, constraints and callbacks are
//! numbered in declaration order. A *scope* is the list of variables of a
//! declaration; a variable index ([`Var`]) points into the scope of the
//! declaration it appears in. Objects bound to the variables of one scope
//! are pairwise distinct.

/// Index of a variable in its scope.
pub type Var = u8;

/// A set of the space.
#[derive(Debug)]
pub struct SetDef {
    pub name: &'static str,
    /// Sets of the parameters of a parametrized set.
    pub params: &'static [u16],
    /// The set this one is a subset of.
    pub superset: Option<u16>,
    /// Objects kept by the engine (a quotient set): the objects of the
    /// superset whose membership flag is TRUE.
    pub quotient: Option<QuotientDef>,
}

/// How the engine maintains a quotient set.
#[derive(Debug)]
pub struct QuotientDef {
    /// The membership choice: `flag(params..., x)`, value 0 is TRUE.
    pub flag: u16,
}

impl SetDef {
    /// The root of the set's subset hierarchy is the set whose object ids it
    /// uses.
    pub fn is_root(&self) -> bool {
        self.superset.is_none()
    }
}

/// A variable: the set its objects come from, applied to earlier
/// variables of the same scope if the set is parametrized.
#[derive(Debug)]
pub struct VarDef {
    pub name: &'static str,
    pub set: u16,
    pub args: &'static [Var],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyType {
    Bool,
    Int,
    IntList,
}

#[derive(Debug)]
pub struct PropertyDef {
    pub name: &'static str,
    pub params: &'static [u16],
    pub ty: PropertyType,
}

#[derive(Debug)]
pub struct ChoiceDef {
    pub name: &'static str,
    pub params: &'static [VarDef],
    pub kind: ChoiceKind,
    pub symmetry: Symmetry,
    /// `file:line` of the declaration in the space.
    pub origin: &'static str,
}

#[derive(Debug)]
pub enum ChoiceKind {
    Enum { values: &'static [&'static str] },
    Integer { universe: Universe },
    Counter(CounterDef),
}

#[derive(Debug)]
pub enum Universe {
    List(&'static [i64]),
    /// A `[int]` property applied to the choice's parameters.
    Property {
        property: u16,
        args: &'static [Var],
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
    None,
    Symmetric,
    /// `c(b, a)` takes `inverse[v]` when `c(a, b)` takes `v`.
    Antisymmetric {
        inverse: &'static [u8],
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterOp {
    Sum,
    Mul,
}

#[derive(Debug)]
pub struct CounterDef {
    pub op: CounterOp,
    pub half: bool,
    /// The counter's parameters, then its quantified variables.
    pub vars: &'static [VarDef],
    pub increment: Term,
    /// A conjunction.
    pub condition: &'static [Literal],
}

/// A choice applied to variables of the enclosing scope.
#[derive(Debug)]
pub struct InstanceRef {
    pub choice: u16,
    pub args: &'static [Var],
}

#[derive(Debug)]
pub enum Term {
    Const(i64),
    Property { property: u16, args: &'static [Var] },
    Choice(InstanceRef),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CompareOp {
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

#[derive(Debug)]
pub enum Literal {
    /// The enum instance takes a value of the mask.
    Is {
        instance: InstanceRef,
        values: u64,
    },
    /// Two instances of one enum choice take the same (or different) values.
    Same {
        lhs: InstanceRef,
        rhs: InstanceRef,
        equal: bool,
    },
    Compare {
        lhs: Term,
        op: CompareOp,
        rhs: Term,
    },
    Property {
        property: u16,
        args: &'static [Var],
        negated: bool,
    },
}

/// `forall vars: literals[0] || literals[1] || ...`.
#[derive(Debug)]
pub struct ConstraintDef {
    pub vars: &'static [VarDef],
    pub literals: &'static [Literal],
    /// `file:line` of the constraint in the space, and what it is.
    pub origin: &'static str,
    pub description: &'static str,
}

#[derive(Debug)]
pub enum TriggerAction {
    Callback {
        callback: u16,
        args: &'static [Var],
    },
    /// Membership of a quotient set, kept by the engine itself.
    AddToQuotient {
        set: u16,
        set_args: &'static [Var],
        object: Var,
    },
}

#[derive(Debug)]
pub struct TriggerDef {
    pub vars: &'static [VarDef],
    pub condition: &'static [Literal],
    pub action: TriggerAction,
    pub origin: &'static str,
}

#[derive(Debug)]
pub struct CallbackDef {
    pub name: &'static str,
    pub params: &'static [u16],
}

/// A literal of a constraint that reads a choice.
#[derive(Clone, Copy, Debug)]
pub struct ClauseRef {
    pub constraint: u16,
    pub literal: u8,
}

/// A whole space.
#[derive(Debug)]
pub struct Model {
    pub name: &'static str,
    pub sets: &'static [SetDef],
    pub properties: &'static [PropertyDef],
    pub choices: &'static [ChoiceDef],
    pub constraints: &'static [ConstraintDef],
    pub triggers: &'static [TriggerDef],
    pub callbacks: &'static [CallbackDef],
    /// Per choice, the constraint literals that read it.
    pub clauses_by_choice: &'static [&'static [ClauseRef]],
    /// Per choice, the counters that read it.
    pub counters_by_choice: &'static [&'static [u16]],
    /// Choices in the order a search branches on them by default.
    pub default_priority: &'static [u16],
}

impl Model {
    /// The root set whose object ids `set` uses.
    pub fn root(&self, mut set: u16) -> u16 {
        for _ in 0..=self.sets.len() {
            match self.sets[set as usize].superset {
                Some(parent) => set = parent,
                None => break,
            }
        }
        set
    }

    pub fn is_subset(&self, mut sub: u16, sup: u16) -> bool {
        for _ in 0..=self.sets.len() {
            if sub == sup {
                return true;
            }
            match self.sets[sub as usize].superset {
                Some(parent) => sub = parent,
                None => return false,
            }
        }
        false
    }

    pub fn choice_index(&self, name: &str) -> Option<u16> {
        self.choices
            .iter()
            .position(|c| c.name == name)
            .map(|i| i as u16)
    }
}
