//! A space for the searches' unit tests.

use crate::model::*;

/// `x(s)` in {A, B, C} for every `s`, unconstrained: a neighbour's
/// changes are exactly the decisions it differs in.
pub(crate) static MODEL: Model = Model {
    name: "m",
    sets: &[SetDef {
        name: "S",
        params: &[],
        superset: None,
        quotient: None,
    }],
    properties: &[],
    choices: &[ChoiceDef {
        name: "x",
        params: &[VarDef {
            name: "s",
            set: 0,
            args: &[],
        }],
        kind: ChoiceKind::Enum {
            values: &["A", "B", "C"],
        },
        symmetry: Symmetry::None,
        origin: "m:1",
    }],
    constraints: &[],
    triggers: &[],
    callbacks: &[],
    clauses_by_choice: &[&[]],
    counters_by_choice: &[&[]],
    default_priority: &[0],
};
