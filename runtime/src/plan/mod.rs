//! What a change of one choice instance runs, compiled once per layout
//! from its tables (the second step of laying a backbone out): per
//! choice, the constraint literals that read it, in the order the
//! propagator visits them, and how each is filtered (`vector` over bit
//! planes, `slots` by the changed instance's rows, `screens` otherwise;
//! see `visits`); per domain of a changed instance, the visits run as
//! steps (`runs`); and the counters that read it (`counters`). Per
//! changed instance, the visits and counter reads that can do nothing
//! whatever the domains are listed so that they are skipped (`skips`).
//! Reads the tables, the model, bindings and value masks, never the
//! propagator; this module gathers the plans of a layout.

mod counters;
mod fresh;
pub(crate) mod row_index;
mod runs;
mod screens;
mod skips;
mod slots;
mod vector;
mod visits;

use crate::tables::Tables;

pub(crate) use counters::{never_counts, CounterPlan, CounterRead, FreeParam, ReadScreen};
pub(crate) use runs::{PairStep, Quiet, Quiets, RowRead, Runs, Step, ROW_STEPS};
pub(crate) use screens::{Checks, Fallback, ScreenPlan, ZLiteral};
pub(crate) use slots::{PairRow, SlotArg, SlotEnforce, SlotInstance, SlotLiteral, SlotPlan};
pub(crate) use vector::{RowLiteral, VectorPlan, MAX_ROW_LITERALS};
pub(crate) use visits::{Hold, Visit};

/// The plans of one layout, per choice.
#[derive(Debug)]
pub(crate) struct Plans {
    /// Per choice, the constraint literals a change of one of its
    /// instances visits (see [`visits::visits`]).
    pub visits: Vec<Vec<Visit>>,
    /// Per choice, the visits a change runs per domain, where listed (see
    /// [`runs::runs`]).
    pub runs: Vec<Option<Runs>>,
    /// Per choice, the counters that read it (see
    /// [`counters::counter_reads`]).
    pub counter_reads: Vec<Vec<CounterRead>>,
    /// Per counter, how it is counted over bitsets, if it can be.
    pub counter_plans: Vec<Option<CounterPlan>>,
    /// Per constraint, its property literals as holds with nothing bound:
    /// filtering every instance of a constraint (at the root, after a
    /// callback) leaves out the bindings where one holds.
    pub initial_holds: Vec<Vec<Hold>>,
    /// Per constraint, the variables that, bound to an object a trigger
    /// callback added, leave two literals unknown: filtering after the
    /// callback leaves those bindings to the queue (see [`fresh`]).
    pub unknown_on_new: Vec<u32>,
}

impl Plans {
    /// Compiles every plan of the backbone laid out in `tables`. Without
    /// `with_skips`, visits have no skip sets (they cost more to compute
    /// than they save on a layout that lives for a few decisions: one
    /// laid out again after a trigger callback).
    pub(crate) fn compile(tables: &Tables, with_skips: bool) -> Plans {
        let visits = visits::visits(tables, with_skips);
        let runs = runs::runs(tables, &visits);
        Plans {
            runs,
            visits,
            counter_reads: counters::counter_reads(tables),
            counter_plans: counters::counter_plans(tables),
            initial_holds: visits::initial_holds(tables),
            unknown_on_new: fresh::unknown_on_new(tables.model),
        }
    }
}
