//! The checked form of a space as the engine reads it: static tables that
//! generated code defines once per space (`static MODEL: Model = ...`).
//!
//! Indices: sets, properties, choices, constraints and callbacks are
//! numbered in declaration order. A *scope* is the list of variables of a
//! declaration; a variable index ([`Var`]) points into the scope of the
//! declaration it appears in. Objects bound to the variables of one scope
//! are pairwise distinct.
//!
//! A model fits the engine's [`limits`](crate::limits): generated models of
//! checked spaces always do, and the engine checks hand-written ones with
//! [`Model::over_limit`] before it lays out a backbone.

use crate::vocabulary::{CompareOp, CounterOp, Derived, PropertyType};

/// Index of a variable in its scope (below
/// [`MAX_VARS`](crate::limits::MAX_VARS)).
pub type Var = u8;

/// A set of the space.
#[derive(Debug, PartialEq)]
pub struct SetDef {
    /// The set's name in the space.
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
#[derive(Debug, PartialEq)]
pub struct QuotientDef {
    /// The membership choice: `flag(params..., x)`, whose value
    /// [`QUOTIENT_TRUE`](crate::QUOTIENT_TRUE) puts `x` in the set.
    pub flag: u16,
}

impl SetDef {
    /// A set without parameters that is not a quotient: a root set, or a
    /// subset of `superset` (for models written by hand, as in tests).
    pub const fn plain(name: &'static str, superset: Option<u16>) -> SetDef {
        SetDef {
            name,
            params: &[],
            superset,
            quotient: None,
        }
    }

    /// The root of the set's subset hierarchy is the set whose object ids it
    /// uses.
    pub fn is_root(&self) -> bool {
        self.superset.is_none()
    }
}

/// A variable: the set its objects come from, applied to earlier
/// variables of the same scope if the set is parametrized.
#[derive(Debug, PartialEq)]
pub struct VarDef {
    /// The variable's name, without its `$`.
    pub name: &'static str,
    /// The set its objects come from.
    pub set: u16,
    /// The earlier variables the set is applied to (empty for a set
    /// without parameters).
    pub args: &'static [Var],
}

/// A property of objects that the host answers (through the backbone), or
/// that the engine derives from the sets itself.
#[derive(Debug, PartialEq)]
pub struct PropertyDef {
    /// The property's name in the space (for a derived one, the condition
    /// it stands for, such as `in Kernels`).
    pub name: &'static str,
    /// The sets of its parameters.
    pub params: &'static [u16],
    /// What it returns.
    pub ty: PropertyType,
    /// How the engine computes it; `None`: the host answers it.
    pub derived: Option<Derived>,
}

/// A choice: one decision per tuple of distinct objects of its
/// parameters' sets (an instance).
#[derive(Debug, PartialEq)]
pub struct ChoiceDef {
    /// The choice's name in the space.
    pub name: &'static str,
    /// Its parameters, a scope of variables.
    pub params: &'static [VarDef],
    /// What its instances take.
    pub kind: ChoiceKind,
    /// How `c(b, a)` relates to `c(a, b)`, for a choice of two parameters
    /// over one set.
    pub symmetry: Symmetry,
    /// `file:line` of the declaration in the space.
    pub origin: &'static str,
}

/// What the instances of a choice take.
#[derive(Debug, PartialEq)]
pub enum ChoiceKind {
    /// One of named values, value `i` being bit `i` of a mask (so at
    /// most [`MAX_VALUES`](crate::limits::MAX_VALUES)).
    Enum {
        /// The values' names, in declaration order.
        values: &'static [&'static str],
    },
    /// One integer of a universe (at most
    /// [`MAX_VALUES`](crate::limits::MAX_VALUES) values per instance).
    Integer {
        /// Where each instance's values come from.
        universe: Universe,
    },
    /// An integer computed from other choices, kept as a range.
    Counter(CounterDef),
}

/// The values an integer choice's instance may take.
#[derive(Debug, PartialEq)]
pub enum Universe {
    /// The same values for every instance.
    List(&'static [i64]),
    /// A `[int]` property applied to the choice's parameters.
    Property {
        /// The property.
        property: u16,
        /// The parameters it is applied to.
        args: &'static [Var],
    },
}

/// How the two orientations of a choice over two parameters of one set
/// relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// Not related: `c(a, b)` and `c(b, a)` are two instances.
    None,
    /// `c(b, a)` takes the value `c(a, b)` takes.
    Symmetric,
    /// `c(b, a)` takes `inverse[v]` when `c(a, b)` takes `v`.
    Antisymmetric {
        /// Per value, its inverse.
        inverse: &'static [u8],
    },
}

/// A counter: for every binding of its quantified variables whose
/// condition holds, its increment is added or multiplied in.
#[derive(Debug, PartialEq)]
pub struct CounterDef {
    /// How increments combine.
    pub op: CounterOp,
    /// Declared `half`: only its upper bound matters to the space (the
    /// engine keeps both bounds all the same).
    pub half: bool,
    /// The counter's parameters, then its quantified variables.
    pub vars: &'static [VarDef],
    /// What one binding adds or multiplies in.
    pub increment: Term,
    /// A conjunction.
    pub condition: &'static [Literal],
    /// The value before any increment (`from`), a constant or an `int`
    /// property of the parameters; `None`: 0 for a sum, 1 for a product.
    pub base: Option<Term>,
}

/// A choice applied to variables of the enclosing scope.
#[derive(Debug, PartialEq)]
pub struct InstanceRef {
    /// The choice.
    pub choice: u16,
    /// The variables bound to its parameters, in order.
    pub args: &'static [Var],
}

/// An integer operand of a comparison or a counter.
#[derive(Debug, PartialEq)]
pub enum Term {
    /// A literal integer.
    Const(i64),
    /// An `int` property applied to variables.
    Property {
        /// The property.
        property: u16,
        /// The variables it is applied to.
        args: &'static [Var],
    },
    /// An integer choice or a counter applied to variables.
    Choice(InstanceRef),
    /// The product of two or more terms (none of them a product), in
    /// comparisons only.
    Product(&'static [Term]),
}

/// A test on the variables of a scope: a constraint is a disjunction of
/// literals, a counter's or a trigger's condition a conjunction.
#[derive(Debug, PartialEq)]
pub enum Literal {
    /// The enum instance takes a value of the mask.
    Is {
        /// The instance.
        instance: InstanceRef,
        /// The values, bit `i` for value `i` (`is not` is complemented
        /// already).
        values: u64,
    },
    /// Two instances of one enum choice take the same (or different) values.
    Same {
        /// One instance.
        lhs: InstanceRef,
        /// The other, of the same choice.
        rhs: InstanceRef,
        /// The same value when true, different values when false.
        equal: bool,
    },
    /// An integer comparison.
    Compare {
        /// The left operand.
        lhs: Term,
        /// The operator.
        op: CompareOp,
        /// The right operand.
        rhs: Term,
    },
    /// A `bool` property applied to variables, known before any decision.
    Property {
        /// The property.
        property: u16,
        /// The variables it is applied to.
        args: &'static [Var],
        /// The literal holds where the property is false.
        negated: bool,
    },
}

impl Literal {
    /// The choice instances the literal reads (the factors of products
    /// included).
    pub fn instances(&self) -> Vec<&InstanceRef> {
        fn term<'l>(t: &'l Term, out: &mut Vec<&'l InstanceRef>) {
            match t {
                Term::Choice(inst) => out.push(inst),
                Term::Product(factors) => factors.iter().for_each(|f| term(f, out)),
                Term::Const(_) | Term::Property { .. } => {}
            }
        }
        let mut out = Vec::new();
        match self {
            Literal::Is { instance, .. } => out.push(instance),
            Literal::Same { lhs, rhs, .. } => out.extend([lhs, rhs]),
            Literal::Compare { lhs, rhs, .. } => {
                term(lhs, &mut out);
                term(rhs, &mut out);
            }
            Literal::Property { .. } => {}
        }
        out
    }
}

/// `forall vars: literals[0] || literals[1] || ...`.
#[derive(Debug, PartialEq)]
pub struct ConstraintDef {
    /// The quantified variables.
    pub vars: &'static [VarDef],
    /// The disjunction.
    pub literals: &'static [Literal],
    /// `file:line` of the constraint in the space, and what it is.
    pub origin: &'static str,
    /// What the constraint says, on one line, for messages about it.
    pub description: &'static str,
}

/// What a trigger does for each binding whose condition is certain.
#[derive(Debug, PartialEq)]
pub enum TriggerAction {
    /// Calls a host callback, which may add objects to sets.
    Callback {
        /// The callback.
        callback: u16,
        /// The trigger's variables passed to it.
        args: &'static [Var],
    },
    /// Membership of a quotient set, kept by the engine itself.
    AddToQuotient {
        /// The quotient set.
        set: u16,
        /// The variables its parameters are bound to.
        set_args: &'static [Var],
        /// The variable whose object joins it.
        object: Var,
    },
}

/// `forall vars: when condition, action`.
#[derive(Debug, PartialEq)]
pub struct TriggerDef {
    /// The quantified variables.
    pub vars: &'static [VarDef],
    /// A conjunction that must be certain for the action to run.
    pub condition: &'static [Literal],
    /// What runs.
    pub action: TriggerAction,
    /// `file:line` of the trigger in the space.
    pub origin: &'static str,
}

/// A host callback that triggers call.
#[derive(Debug, PartialEq)]
pub struct CallbackDef {
    /// The callback's name in the space.
    pub name: &'static str,
    /// The sets of its parameters.
    pub params: &'static [u16],
}

/// A literal of a constraint that reads a choice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClauseRef {
    /// The constraint.
    pub constraint: u16,
    /// The literal's index in the constraint (so a constraint has at most
    /// [`MAX_CONDITIONS`](crate::limits::MAX_CONDITIONS) literals).
    pub literal: u8,
}

/// A whole space.
#[derive(Debug, PartialEq)]
pub struct Model {
    /// The space's name.
    pub name: &'static str,
    /// Its sets, in declaration order.
    pub sets: &'static [SetDef],
    /// Its host properties.
    pub properties: &'static [PropertyDef],
    /// Its choices (counters included).
    pub choices: &'static [ChoiceDef],
    /// Its constraints: `require`s, values' `requires`, and the
    /// constraints that maintain quotient sets.
    pub constraints: &'static [ConstraintDef],
    /// Its triggers.
    pub triggers: &'static [TriggerDef],
    /// The host callbacks its triggers call.
    pub callbacks: &'static [CallbackDef],
    /// Per choice, the constraint literals that read it.
    pub clauses_by_choice: &'static [&'static [ClauseRef]],
    /// Per choice, the counters that read it.
    pub counters_by_choice: &'static [&'static [u16]],
    /// Choices in the order a search branches on them by default.
    pub default_priority: &'static [u16],
}

impl Model {
    /// A model with nothing in it, to complete one written by hand (as in
    /// tests: `Model { name: "m", sets: ..., ..Model::EMPTY }`).
    pub const EMPTY: Model = Model {
        name: "",
        sets: &[],
        properties: &[],
        choices: &[],
        constraints: &[],
        triggers: &[],
        callbacks: &[],
        clauses_by_choice: &[],
        counters_by_choice: &[],
        default_priority: &[],
    };

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

    /// Whether `sub` is `sup` or one of its subsets, transitively.
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

    /// The choice named `name`.
    pub fn choice_index(&self, name: &str) -> Option<u16> {
        self.choices
            .iter()
            .position(|c| c.name == name)
            .map(|i| i as u16)
    }
}
