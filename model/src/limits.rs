//! The most a space may hold, one constant per limit of the engine.
//!
//! The checker reports every declaration beyond one of these (with the
//! constant's name, so that a message and this module can be matched), and
//! the engine refuses a model beyond one when it lays out a backbone
//! ([`Model::over_limit`]), so no space reaches the fixed-size structures
//! below with more than they hold.

use crate::tables::{ChoiceKind, Model, Universe};

/// Values of one enum choice, and of one integer choice's universe per
/// instance, at most: a domain is a bit mask in one `u64`, value `i` being
/// bit `i`. Integer universes that a `[int]` property gives are only known
/// once the host answers, so the engine checks those when it lays out a
/// backbone.
pub const MAX_VALUES: usize = 64;

/// Variables of one scope at most. A scope is what one declaration binds:
/// a set's, property's or choice's parameters; a counter's parameters and
/// quantifiers; a constraint's quantifiers (after the choice's parameters,
/// for the `requires` of a value); a trigger's quantifiers; and the scopes a
/// quotient generates (its parameters, its member, and one more object of
/// the member's class for its class counter). The engine binds the objects
/// of a scope, and gathers the arguments of a set or property, in arrays of
/// this size.
pub const MAX_VARS: usize = 16;

/// Conditions (literals) of one constraint at most, the implicit `is not`
/// of a value's `requires` included: the engine numbers them with a `u8`
/// ([`ClauseRef::literal`](crate::ClauseRef::literal)).
pub const MAX_CONDITIONS: usize = u8::MAX as usize + 1;

/// Items of one table of a model at most: sets, properties, choices
/// (counters and generated ones included), constraints, triggers and
/// callbacks are numbered with a `u16`, and the engine keeps index
/// `u16::MAX` to mean "none" (a domain narrowed by a decision rather than
/// by a constraint).
pub const MAX_TABLE_LEN: usize = u16::MAX as usize;

impl Model {
    /// The first limit of this module the model goes beyond, described on
    /// one line, or `None` when it fits them all. Generated models of
    /// checked spaces always fit; this guards hand-written ones.
    pub fn over_limit(&self) -> Option<String> {
        self.table_over_limit()
            .or_else(|| self.scope_over_limit())
            .or_else(|| self.domain_over_limit())
            .or_else(|| self.clause_over_limit())
    }

    fn table_over_limit(&self) -> Option<String> {
        let tables = [
            ("sets", self.sets.len()),
            ("properties", self.properties.len()),
            ("choices", self.choices.len()),
            ("constraints", self.constraints.len()),
            ("triggers", self.triggers.len()),
            ("callbacks", self.callbacks.len()),
        ];
        let (what, len) = tables.into_iter().find(|&(_, len)| len > MAX_TABLE_LEN)?;
        Some(format!(
            "the model has {len} {what}, more than `MAX_TABLE_LEN` ({MAX_TABLE_LEN})"
        ))
    }

    fn scope_over_limit(&self) -> Option<String> {
        let sets = self.sets.iter().map(|s| ("set", s.name, s.params.len()));
        let properties = self
            .properties
            .iter()
            .map(|p| ("property", p.name, p.params.len()));
        let choices = self.choices.iter().map(|c| match &c.kind {
            // A counter's scope starts with its parameters.
            ChoiceKind::Counter(counter) => ("counter", c.name, counter.vars.len()),
            _ => ("choice", c.name, c.params.len()),
        });
        let constraints = self
            .constraints
            .iter()
            .map(|c| ("constraint at", c.origin, c.vars.len()));
        let triggers = self
            .triggers
            .iter()
            .map(|t| ("trigger at", t.origin, t.vars.len()));
        let (what, name, count) = sets
            .chain(properties)
            .chain(choices)
            .chain(constraints)
            .chain(triggers)
            .find(|&(_, _, count)| count > MAX_VARS)?;
        Some(format!(
            "the {what} `{name}` binds {count} variables, more than `MAX_VARS` ({MAX_VARS})"
        ))
    }

    fn domain_over_limit(&self) -> Option<String> {
        let (name, count) = self
            .choices
            .iter()
            .map(|c| match &c.kind {
                ChoiceKind::Enum { values } => (c.name, values.len()),
                ChoiceKind::Integer {
                    universe: Universe::List(list),
                } => (c.name, list.len()),
                _ => (c.name, 0),
            })
            .find(|&(_, count)| count > MAX_VALUES)?;
        Some(format!(
            "the choice `{name}` has {count} values, more than `MAX_VALUES` ({MAX_VALUES})"
        ))
    }

    fn clause_over_limit(&self) -> Option<String> {
        let constraint = self
            .constraints
            .iter()
            .find(|c| c.literals.len() > MAX_CONDITIONS)?;
        Some(format!(
            "the constraint at `{}` has {} conditions, more than `MAX_CONDITIONS` ({MAX_CONDITIONS})",
            constraint.origin,
            constraint.literals.len()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        ChoiceDef, ConstraintDef, Literal, SetDef, Symmetry, TriggerAction, TriggerDef, VarDef,
    };

    /// A variable over the only set; the limits do not read names.
    const VAR: VarDef = VarDef {
        name: "x",
        set: 0,
        args: &[],
    };
    static SIXTEEN: [VarDef; 16] = [VAR; 16];
    static SEVENTEEN: [VarDef; 17] = [VAR; 17];

    /// A literal that reads no choice.
    const FALSE: Literal = Literal::Property {
        property: 0,
        args: &[],
        negated: false,
    };

    const fn model(
        choices: &'static [ChoiceDef],
        constraints: &'static [ConstraintDef],
        triggers: &'static [TriggerDef],
    ) -> Model {
        Model {
            name: "limits",
            sets: &[SetDef {
                name: "S",
                params: &[],
                superset: None,
                quotient: None,
            }],
            properties: &[],
            choices,
            constraints,
            triggers,
            callbacks: &[],
            clauses_by_choice: &[],
            counters_by_choice: &[],
            default_priority: &[],
        }
    }

    const fn constraint(vars: &'static [VarDef], literals: &'static [Literal]) -> ConstraintDef {
        ConstraintDef {
            vars,
            literals,
            origin: "limits.space:1",
            description: "require ...",
        }
    }

    const fn trigger(vars: &'static [VarDef]) -> TriggerDef {
        TriggerDef {
            vars,
            condition: &[],
            action: TriggerAction::Callback {
                callback: 0,
                args: &[],
            },
            origin: "limits.space:2",
        }
    }

    const fn enum_choice(params: &'static [VarDef], values: &'static [&'static str]) -> ChoiceDef {
        ChoiceDef {
            name: "c",
            params,
            kind: ChoiceKind::Enum { values },
            symmetry: Symmetry::None,
            origin: "limits.space:3",
        }
    }

    #[test]
    fn sixteen_variables_fit_and_seventeen_do_not() {
        static FITS: Model = model(
            &[enum_choice(&SIXTEEN, &["A"])],
            &[constraint(&SIXTEEN, &[FALSE])],
            &[trigger(&SIXTEEN)],
        );
        assert_eq!(FITS.over_limit(), None);
        static CONSTRAINT: Model = model(&[], &[constraint(&SEVENTEEN, &[FALSE])], &[]);
        let message = CONSTRAINT.over_limit().expect("17 variables are too many");
        assert!(message.contains("17 variables"), "{message}");
        assert!(message.contains("`MAX_VARS` (16)"), "{message}");
        static TRIGGER: Model = model(&[], &[], &[trigger(&SEVENTEEN)]);
        assert!(TRIGGER.over_limit().is_some());
        static CHOICE: Model = model(&[enum_choice(&SEVENTEEN, &["A"])], &[], &[]);
        assert!(CHOICE.over_limit().is_some());
    }

    #[test]
    fn values_and_conditions_have_their_limits() {
        static VALUES: [&str; 65] = ["V"; 65];
        static ENUM: Model = model(&[enum_choice(&[], &VALUES)], &[], &[]);
        let message = ENUM.over_limit().expect("65 values are too many");
        assert!(message.contains("`MAX_VALUES` (64)"), "{message}");
        static EDGE: Model = model(&[enum_choice(&[], VALUES.split_at(64).0)], &[], &[]);
        assert_eq!(EDGE.over_limit(), None);
        static LITERALS: [Literal; 257] = [FALSE; 257];
        static CONDITIONS: Model = model(&[], &[constraint(&[], &LITERALS)], &[]);
        let message = CONDITIONS
            .over_limit()
            .expect("257 conditions are too many");
        assert!(message.contains("`MAX_CONDITIONS` (256)"), "{message}");
        static EDGE_CONDITIONS: Model =
            model(&[], &[constraint(&[], LITERALS.split_at(256).0)], &[]);
        assert_eq!(EDGE_CONDITIONS.over_limit(), None);
    }
}
