//! Decisions and their failures, as values.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{Model, ObjectId};

/// Restrict one choice instance to a set of values: bit `i` is the choice's
/// `i`-th value (enum) or the `i`-th smallest value of the instance's
/// universe (integer).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Action {
    /// The choice.
    pub choice: u16,
    /// The objects bound to its parameters, in order.
    pub objects: Vec<ObjectId>,
    /// The values kept.
    pub values: u64,
}

impl Action {
    /// The instance this action restricts.
    pub fn instance(&self) -> InstanceId {
        InstanceId {
            choice: self.choice,
            objects: self.objects.clone(),
        }
    }
}

/// A choice instance: a choice applied to objects.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct InstanceId {
    /// The choice.
    pub choice: u16,
    /// The objects bound to its parameters, in order.
    pub objects: Vec<ObjectId>,
}

impl InstanceId {
    /// `name(o1, o2)` with the choice's name.
    pub fn display(&self, model: &Model) -> String {
        let name = model
            .choices
            .get(self.choice as usize)
            .map_or("?", |c| c.name);
        let objects: Vec<String> = self.objects.iter().map(|o| o.to_string()).collect();
        format!("{name}({})", objects.join(", "))
    }
}

/// A candidate with no valid implementation: which constraint failed, for
/// which objects, and which instance ran out of values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadEnd {
    /// Index of the failing constraint, if one failed.
    pub constraint: Option<u16>,
    /// The objects bound to the constraint's variables.
    pub bindings: Vec<(String, ObjectId)>,
    /// The instance whose domain became empty, if one did.
    pub emptied: Option<InstanceId>,
    /// A readable account, with names from the space.
    pub message: String,
}

impl fmt::Display for DeadEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeadEnd {}
