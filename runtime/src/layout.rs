//! A backbone laid out for propagation, in two steps: its dense tables
//! (`tables`: where each choice instance lives in the decision vector,
//! the backbone's sets and properties), then the plans compiled from
//! those tables (`plan`: what a change of each choice runs). Neither step
//! reads the other's module, so the tables know nothing of plans and the
//! plans read tables only; this module joins them.

use std::ops::Deref;

use crate::backbone::Backbone;
use crate::plan::Plans;
use crate::tables::Tables;

pub use crate::tables::LayoutError;

/// A backbone's dense tables and the propagation plans compiled from
/// them, computed once per backbone so that propagation never calls the
/// host. Dereferences to its tables.
#[derive(Debug)]
pub struct Layout {
    tables: Tables,
    /// What a change of each choice runs.
    pub(crate) plans: Plans,
}

impl Layout {
    /// Asks `backbone` once for every set and host property (derived
    /// properties are computed from the sets), places every choice
    /// instance in the vector, then compiles the plans.
    pub fn new<B: Backbone>(backbone: &B) -> Result<Layout, LayoutError> {
        let tables = Tables::new(backbone)?;
        let plans = Plans::compile(&tables, true);
        Ok(Layout { tables, plans })
    }

    /// The layout of a candidate laid out again after a trigger callback,
    /// from its new tables: plans without skip sets (see
    /// [`Plans::compile`]).
    pub(crate) fn relaid(tables: Tables) -> Layout {
        let plans = Plans::compile(&tables, false);
        Layout { tables, plans }
    }

    /// Number of instances of a choice.
    pub fn instance_count(&self, choice: u16) -> usize {
        self.tables.shapes[choice as usize].count
    }
}

impl Deref for Layout {
    type Target = Tables;

    #[inline(always)]
    fn deref(&self) -> &Tables {
        &self.tables
    }
}
