//! How plans name the entries of the propagator's row tables (`RowOrs`):
//! per table (the changed instance's low and high rows) and set of
//! values, the index of the OR of that row's planes for those values,
//! then constant entries. Plans compile these indices into their steps;
//! the propagator fills and reads its tables at them. A leaf.

/// Values per row at most for the row tables.
pub(crate) const ROW_ORS_VALUES: usize = 6;

/// Entries of the row tables: the two tables and the constant ones.
pub(crate) const ORS_LEN: usize = 256;

/// An index whose OR is every position (no position misses the values),
/// for a literal that holds nowhere.
pub(crate) const NONE: u8 = (ORS_LEN - 1) as u8;

/// An index whose OR is no position (the empty set of values), for a
/// literal that fails everywhere.
pub(crate) const EMPTY: u8 = 0;

/// The index of the first of the four valid masks of a change (the
/// positions the free variable may take, per set of the changed
/// instance's positions taken out), past both tables.
pub(crate) const VALID: u8 = 2 << ROW_ORS_VALUES;

/// The index of table `table`'s OR of the set of values `set` (below
/// 128: plans keep it in a byte).
pub(crate) fn index(table: usize, set: usize) -> usize {
    (table & 1) << ROW_ORS_VALUES | (set & ((1 << ROW_ORS_VALUES) - 1))
}
