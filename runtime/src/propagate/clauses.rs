//! Clauses: filtering one constraint instance (fails when no literal can
//! hold, enforces the one that can), the enforcement of its last
//! literal with the cause kept for explanations, and dead ends named by
//! their constraint and bindings. Reads literal statuses and enforcement
//! (`literals`).

use super::state::{Clause, Flow, Propagator, Reason};
use crate::action::DeadEnd;
use crate::backbone::ObjectId;
use crate::binding::Binding;
use crate::model::*;
use crate::values::Status;

impl<'a> Propagator<'a> {
    /// Runs one constraint instance: fails if no literal can hold, enforces
    /// the last one that can.
    pub(super) fn filter(&mut self, constraint: u16, b: &Binding) -> Flow {
        self.filter_with(constraint, b, false)
    }

    /// [`Propagator::filter`] of a clause whose property literals are
    /// known to be false under `b` (a `Bound` visit that its skip set let
    /// through: one that holds would have it skipped), so not read.
    pub(super) fn filter_known(&mut self, constraint: u16, b: &Binding) -> Flow {
        self.filter_with(constraint, b, true)
    }

    #[inline(always)]
    fn filter_with(&mut self, constraint: u16, b: &Binding, properties_false: bool) -> Flow {
        // The constraint's generated filter, if the candidate has them:
        // the same statuses read in the same order, the same enforcement.
        if let Some(dispatch) = self.compiled {
            let mut clause = Clause {
                propagator: self,
                binding: b,
                constraint,
                properties_known: properties_false,
            };
            if let Some(flow) = dispatch(&mut clause) {
                return flow;
            }
        }
        let def = &self.model().constraints[constraint as usize];
        let mut unknown = None;
        for literal in def.literals {
            if properties_false && matches!(literal, Literal::Property { .. }) {
                continue;
            }
            match self.status_inline(literal, b) {
                Status::True => return Ok(()),
                Status::False => {}
                Status::Unknown if unknown.is_some() => return Ok(()),
                Status::Unknown => unknown = Some(literal),
            }
        }
        self.enforce_clause(constraint, unknown, b)
    }

    /// The end of [`Propagator::filter`]: enforces the one literal that
    /// can still hold, or fails when none can.
    pub(super) fn enforce_clause(
        &mut self,
        constraint: u16,
        unknown: Option<&'static Literal>,
        b: &Binding,
    ) -> Flow {
        self.enforce_clause_by(
            constraint,
            unknown,
            || *b,
            |p, literal| p.enforce(literal, b),
        )
    }

    /// [`Propagator::enforce_clause`], the literal made to hold by
    /// `enforce`, the binding made by `binding` only when it is read (for
    /// explanations and failures).
    pub(super) fn enforce_clause_by(
        &mut self,
        constraint: u16,
        unknown: Option<&'static Literal>,
        binding: impl Fn() -> Binding,
        enforce: impl FnOnce(&mut Self, &'static Literal) -> Flow,
    ) -> Flow {
        // The cause is read only to keep explanations.
        let outer = self.reasons.is_some().then(|| {
            std::mem::replace(
                &mut self.cause,
                Reason {
                    constraint,
                    binding: binding(),
                },
            )
        });
        let enforced = match unknown {
            Some(literal) => enforce(self, literal),
            None => Ok(()),
        };
        if let Some(outer) = outer {
            self.cause = outer;
        }
        match unknown {
            Some(_) => enforced
                .map_err(|dead_end| self.enforcement_failed(constraint, &binding(), dead_end)),
            None => {
                let def = &self.model().constraints[constraint as usize];
                Err(self.dead(
                    Some(constraint),
                    &binding(),
                    def.vars,
                    format!("constraint {} fails: {}", def.origin, def.description),
                ))
            }
        }
    }

    /// Names the constraint whose enforcement under `b` emptied a domain
    /// (out of line: a dead end ends the propagation).
    #[cold]
    #[inline(never)]
    pub(super) fn enforcement_failed(
        &self,
        constraint: u16,
        b: &Binding,
        mut dead_end: DeadEnd,
    ) -> DeadEnd {
        if dead_end.constraint.is_none() {
            let def = &self.model().constraints[constraint as usize];
            let context = self.dead(
                Some(constraint),
                b,
                def.vars,
                format!("constraint {} fails: {}", def.origin, def.description),
            );
            dead_end.message = format!("{}: {}", context.message, dead_end.message);
            dead_end.constraint = context.constraint;
            dead_end.bindings = context.bindings;
        }
        dead_end
    }

    pub fn dead(
        &self,
        constraint: Option<u16>,
        b: &Binding,
        vars: &[VarDef],
        message: String,
    ) -> DeadEnd {
        let bindings: Vec<(String, ObjectId)> = vars
            .iter()
            .enumerate()
            .filter(|(i, _)| b.is_bound(*i as Var))
            .map(|(i, v)| (format!("${}", v.name), b.objects[i]))
            .collect();
        let shown: Vec<String> = bindings.iter().map(|(n, o)| format!("{n} = {o}")).collect();
        let message = if shown.is_empty() {
            message
        } else {
            format!("{message} (with {})", shown.join(", "))
        };
        DeadEnd {
            constraint,
            bindings,
            emptied: None,
            message,
        }
    }
}
