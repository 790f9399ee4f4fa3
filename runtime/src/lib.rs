//! What generated code and searches share: the static description of a
//! space ([`model`]), the backbone interface ([`backbone`]), and the engine
//! that stores, restricts and propagates decision vectors.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The static tables generated code defines, the vocabulary they share
/// with the language, and the limits of the engine.
pub use commute_model as model;

pub mod action;
pub mod backbone;
mod binding;
pub mod candidate;
pub mod check;
pub mod compiled;
pub mod count;
pub mod descent;
pub mod estimate;
pub mod explore;
pub mod fix;
pub mod layout;
pub mod outcome;
mod plan;
mod propagate;
pub mod search;
mod tables;
pub mod testing;
mod values;

pub use action::{Action, DeadEnd, InstanceId};
pub use backbone::{Backbone, ObjectId};
pub use candidate::{Candidate, CandidateError, Decisions, Domain};
pub use check::Violation;
pub use layout::{Layout, LayoutError};
pub use model::Model;
pub use outcome::Outcome;
