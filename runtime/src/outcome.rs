//! What a trigger callback answers.
//!
//! A callback may add objects to the host's sets (the engine lays the
//! candidate out again), and it answers an [`Outcome`]: nothing more, a
//! refusal (the candidate is a dead end, for a rule only the host can
//! check), or decisions to apply to the choices of the objects it added or
//! of others. The answer must depend only on the callback's arguments and
//! the host's own objects, so that triggers keep commuting with decisions.

use crate::action::Action;

/// What a host's trigger callback answers, beyond the objects it added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Outcome {
    decisions: Vec<Action>,
    refusal: Option<String>,
    unchanged: bool,
}

impl Outcome {
    /// Nothing more: the objects added, if any, are the whole answer.
    pub fn done() -> Outcome {
        Outcome::default()
    }

    /// The candidate is a dead end, for `reason` (reported with the
    /// callback and its objects).
    pub fn refuse(reason: impl Into<String>) -> Outcome {
        Outcome {
            decisions: Vec::new(),
            refusal: Some(reason.into()),
            unchanged: false,
        }
    }

    /// Nothing more, and the callback changed nothing of the host (no
    /// object added, no fact of a set or property different; as a second
    /// spill of a value spilled already): the engine keeps the candidate's
    /// layout without reading the host's sets and properties again, which
    /// costs as much as laying it out. Debug builds read them and check.
    pub fn unchanged() -> Outcome {
        Outcome {
            unchanged: true,
            ..Outcome::default()
        }
    }

    /// Also restricts an instance to `action`'s values once the new
    /// objects are laid out; an instance the candidate does not have, or
    /// values it no longer allows, make the candidate a dead end.
    pub fn decide(mut self, action: Action) -> Outcome {
        self.decisions.push(action);
        self
    }

    /// The decisions to apply, in order.
    pub fn decisions(&self) -> &[Action] {
        &self.decisions
    }

    /// Why the host refuses the candidate, if it does.
    pub fn refusal(&self) -> Option<&str> {
        self.refusal.as_deref()
    }

    /// Whether the callback says it changed nothing of the host (see
    /// [`Outcome::unchanged`]).
    pub fn is_unchanged(&self) -> bool {
        self.unchanged
    }
}
