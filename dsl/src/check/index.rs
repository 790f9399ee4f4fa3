//! Indexes of the checked space, for propagation.
//!
//! Runs last, on a space with no more constraints or counters to come.
//! Reads every constraint and counter; produces
//! [`Space::clauses_by_choice`] and [`Space::counters_by_choice`], which say
//! which clauses and counters to revisit when a choice's domain changes.
//! Reports nothing.

use super::context::Checker;
use crate::ir::*;

impl Checker<'_> {
    /// Fills [`Space::clauses_by_choice`] and [`Space::counters_by_choice`].
    pub(super) fn index_clauses(&mut self) {
        let n = self.space.choices.len();
        let mut clauses: Vec<Vec<ClauseRef>> = vec![Vec::new(); n];
        for (c, constraint) in self.space.constraints.iter().enumerate() {
            for (l, literal) in constraint.literals.iter().enumerate() {
                for choice in literal_choices(literal) {
                    let clause = ClauseRef {
                        constraint: ConstraintId(c as u32),
                        literal: l,
                    };
                    if let Some(list) = clauses.get_mut(choice.index()) {
                        if !list.contains(&clause) {
                            list.push(clause);
                        }
                    }
                }
            }
        }
        let mut counters: Vec<Vec<ChoiceId>> = vec![Vec::new(); n];
        for (id, choice) in self.space.choices.iter().enumerate() {
            let ChoiceKind::Counter(counter) = &choice.kind else {
                continue;
            };
            let mut read: Vec<ChoiceId> =
                counter.condition.iter().flat_map(literal_choices).collect();
            if let IntTerm::Choice(inst) = &counter.increment {
                read.push(inst.choice);
            }
            for choice in read {
                if let Some(list) = counters.get_mut(choice.index()) {
                    if !list.contains(&ChoiceId(id as u32)) {
                        list.push(ChoiceId(id as u32));
                    }
                }
            }
        }
        self.space.clauses_by_choice = clauses;
        self.space.counters_by_choice = counters;
    }
}

/// The choices a literal reads.
fn literal_choices(literal: &Literal) -> Vec<ChoiceId> {
    fn term(t: &IntTerm) -> Vec<ChoiceId> {
        match t {
            IntTerm::Choice(inst) => vec![inst.choice],
            IntTerm::Product(factors) => factors.iter().flat_map(term).collect(),
            IntTerm::Const(_) | IntTerm::Property(_) => Vec::new(),
        }
    }
    match literal {
        Literal::Is { instance, .. } => vec![instance.choice],
        Literal::SameValue { lhs, rhs, .. } => vec![lhs.choice, rhs.choice],
        Literal::Compare { lhs, rhs, .. } => term(lhs).into_iter().chain(term(rhs)).collect(),
        Literal::Property { .. } => Vec::new(),
    }
}
