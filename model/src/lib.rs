//! The contract between the commute code generator and its engine.
//!
//! Generated code defines one [`Model`] per space, a set of static
//! tables; the engine reads nothing else of the space. The vocabulary
//! those tables share with the language (comparison operators, property
//! types, counter operators, the values of a quotient's membership flag)
//! is declared here once, for the parser, the checker, the generator and
//! the engine alike; and [`limits`] defines, once, the most a space may
//! hold, which the checker reports and the engine relies on.
//!
//! The engine re-exports this crate as `commute_runtime::model`, the path
//! generated code names.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod limits;
mod tables;
mod vocabulary;

pub use tables::{
    CallbackDef, ChoiceDef, ChoiceKind, ClauseRef, ConstraintDef, CounterDef, InstanceRef, Literal,
    Model, PropertyDef, QuotientDef, SetDef, Symmetry, Term, TriggerAction, TriggerDef, Universe,
    Var, VarDef,
};
pub use vocabulary::{
    is_multiple, CompareOp, CounterOp, Derived, ObjectId, PropertyType, QUOTIENT_FALSE,
    QUOTIENT_TRUE,
};
