//! Propagation to a fixpoint: a work queue of changed choice instances;
//! for each, the constraint literals and counters that read it are run on
//! the tuples of objects the change concerns. The propagator is one
//! state (`state`) with one `impl` block per phase: domains, literals,
//! clauses, bit planes and their rows, vector, slot and screen filters,
//! enumeration, counters and back-propagation, visits of a change, and
//! quotient sets. This module only declares them and names what the
//! candidate uses.

mod back_propagate;
mod clause;
mod clauses;
mod counters;
mod domains;
mod enumerate;
mod idle;
mod literals;
mod planes;
mod quotients;
mod row_filter;
mod row_ors;
mod rows;
mod screens;
mod slot_filter;
mod slot_view;
mod state;
mod visits;

pub(crate) use domains::{emptied_dead_end, read_counter, read_mask};
pub(crate) use state::{Clause, Dispatch, Propagator, Reason, Scratch, NO_REASON, VALUE_SLOTS};
