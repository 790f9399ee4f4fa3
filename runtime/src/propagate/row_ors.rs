//! Row tables: for the changed instance's two rows, the OR of the row's
//! planes for every set of values, kept while the row is unchanged, and
//! the pair, rows and quiet checks of a run's steps read from them.
//! Reads the plans' steps and the row table indices.

use crate::plan::row_index::{self, ORS_LEN, ROW_ORS_VALUES};
use crate::plan::{PairStep, Quiet, Quiets, RowRead, ROW_STEPS};

/// The OR of the planes of a row for every set of values, for two rows
/// (tables 0 and 1, the changed instance's low and high rows when a slot
/// plan reads them): the filters of one change read the same two rows,
/// with different sets of values, many times. A table is dropped when a
/// plane of its row is cleared.
pub(crate) struct RowOrs {
    /// Per table, its row's first plane word (`usize::MAX`: none).
    first: [usize; 2],
    /// The OR of table `t` for the set of values `s`, at
    /// `t << ROW_ORS_VALUES | s` (see [`row_index::index`]); then the
    /// valid masks at [`row_index::VALID`], unused entries, and
    /// [`row_index::NONE`] (any index a byte holds is in bounds).
    ors: [u64; ORS_LEN],
}

impl RowOrs {
    /// Tables for no row yet.
    pub fn new() -> RowOrs {
        let mut ors = [0; ORS_LEN];
        ors[row_index::NONE as usize] = u64::MAX;
        RowOrs {
            first: [usize::MAX; 2],
            ors,
        }
    }

    /// The OR at `index` (see [`row_index::index`]).
    #[inline(always)]
    pub fn or(&self, index: usize) -> u64 {
        self.ors[index & (ORS_LEN - 1)]
    }

    /// A pair step (see `Step::Pair`) over the tables: the positions
    /// where it fails and where it is unit, and those whose domain meets
    /// its first literal's values. The positions the free variable may
    /// take are the valid mask of `excluded` (see [`RowOrs::valid`]).
    #[inline(always)]
    pub fn pair(&self, excluded: u8, [a, b]: [PairStep; 2]) -> (u64, u64, u64) {
        let (a_in, a_out) = (self.or(a.inside.into()), self.or(a.outside.into()));
        let (b_in, b_out) = (self.or(b.inside.into()), self.or(b.outside.into()));
        // The visit's own literal is false: a position fails where both
        // rows are false and is unit where one is.
        let open = self.valid(excluded) & a_out & b_out;
        (open & !a_in & !b_in, open & (a_in ^ b_in), a_in)
    }

    /// A rows step (see `Step::Rows`) over the tables: the positions
    /// where it fails and where it is unit, and per literal those where it
    /// is false (literals past the visit's are false everywhere, which
    /// changes nothing). `valid` is the positions the free variable may
    /// take.
    #[inline(always)]
    pub fn rows(&self, valid: u64, reads: &[RowRead; ROW_STEPS]) -> (u64, u64, [u64; ROW_STEPS]) {
        let (mut sat, mut all_false) = (0u64, valid);
        // Positions where at least one literal, and at least two, are not
        // false.
        let (mut one, mut two) = (0u64, 0u64);
        let mut falses = [0u64; ROW_STEPS];
        for (read, false_at) in reads.iter().zip(&mut falses) {
            let t = !self.or(read.holds.into()) & valid;
            let f = !self.or(read.fails.into()) & valid;
            sat |= t;
            all_false &= f;
            two |= one & !f;
            one |= !f;
            *false_at = f;
        }
        let open = valid & !sat;
        (open & all_false, open & one & !two, falses)
    }

    /// The first step of a run from step `from` that fails or has a unit
    /// (the run's length: none), read from `checks` (see [`Quiets`]); the
    /// valid masks are those of the last [`RowOrs::set_valid`].
    #[inline(always)]
    pub fn first_noisy(&self, checks: &Quiets, from: usize) -> usize {
        match checks.from.get(from) {
            Some(&first) if first != u16::MAX => {
                let found = self.first_noisy_in(&checks.distinct, first.into());
                checks
                    .distinct_steps
                    .get(found)
                    .map_or(checks.all.len(), |&step| step.into())
            }
            _ => self.first_noisy_in(&checks.all, from),
        }
    }

    /// The first of `checks` from `from` that is not quiet
    /// (`checks.len()`: none).
    #[inline(always)]
    fn first_noisy_in(&self, checks: &[Quiet], from: usize) -> usize {
        let noisy = |check: &Quiet| {
            let [a, b] = check.open;
            let open = self.or(a.into()) & self.or(b.into());
            let [a, b] = check.can;
            open & !(self.or(a.into()) & self.or(b.into()))
        };
        let rest = checks.get(from..).unwrap_or_default();
        // Two checks at a time: one test and one loop step for both.
        let mut pairs = rest.chunks_exact(2);
        for (i, two) in pairs.by_ref().enumerate() {
            let (first, second) = (noisy(&two[0]), noisy(&two[1]));
            if first | second != 0 {
                return from + 2 * i + usize::from(first == 0);
            }
        }
        match pairs.remainder() {
            [last] if noisy(last) != 0 => checks.len() - 1,
            _ => checks.len(),
        }
    }

    /// The valid mask of the last [`RowOrs::set_valid`] for `excluded`
    /// (which of the changed instance's positions are taken out).
    #[inline(always)]
    pub fn valid(&self, excluded: u8) -> u64 {
        self.or(row_index::VALID as usize + (excluded as usize & 3))
    }

    /// Keeps a change's valid masks (the positions the free variable may
    /// take, per set of the changed instance's positions taken out) at
    /// [`row_index::VALID`], for [`RowOrs::first_noisy`].
    #[inline(always)]
    pub fn set_valid(&mut self, valid: &[u64; 4]) {
        let start = row_index::VALID as usize;
        self.ors[start..start + 4].copy_from_slice(valid);
    }

    /// Over the row of `values` planes from word `first` (at most
    /// [`ROW_ORS_VALUES`]), kept in table `table`: the positions whose
    /// domain meets `stored`, and those whose domain has a value outside
    /// it.
    #[inline(always)]
    pub fn masks(
        &mut self,
        table: usize,
        words: &[u64],
        first: usize,
        values: usize,
        stored: u64,
    ) -> (u64, u64) {
        self.read(table, words, first, values);
        let all = (1usize << values) - 1;
        let inside = stored as usize & all;
        (
            self.or(row_index::index(table, inside)),
            self.or(row_index::index(table, all & !inside)),
        )
    }

    /// Makes table `table` that of the row from word `first`.
    #[inline(always)]
    pub fn read(&mut self, table: usize, words: &[u64], first: usize, values: usize) {
        let table = table & 1;
        if self.first[table] != first {
            self.fill(table, words, first, values);
        }
    }

    /// Computes table `table` for the row from word `first` (out of line:
    /// most reads find the table made already).
    #[inline(never)]
    fn fill(&mut self, table: usize, words: &[u64], first: usize, values: usize) {
        debug_assert!(values <= ROW_ORS_VALUES);
        let start = (table & 1) << ROW_ORS_VALUES;
        // A table is `1 << ROW_ORS_VALUES` entries: the conversion holds.
        let Ok(ors) = <&mut [u64; 1 << ROW_ORS_VALUES]>::try_from(
            &mut self.ors[start..start + (1 << ROW_ORS_VALUES)],
        ) else {
            return;
        };
        let Some(planes) = words.get(first..first + values) else {
            return;
        };
        // One copy per number of values, each fully unrolled: the planes
        // are read once, without a branch per value.
        match values {
            0 => fill_with::<0>(ors, planes),
            1 => fill_with::<1>(ors, planes),
            2 => fill_with::<2>(ors, planes),
            3 => fill_with::<3>(ors, planes),
            4 => fill_with::<4>(ors, planes),
            5 => fill_with::<5>(ors, planes),
            _ => fill_with::<6>(ors, planes),
        }
        self.first[table & 1] = first;
    }

    /// A plane of the rows from words `rows` changed (the two rows of a
    /// written instance): their tables are computed again when next read.
    #[inline(always)]
    pub fn changed(&mut self, rows: [usize; 2]) {
        for table in &mut self.first {
            // One pass over both rows, without a branch per row.
            if (*table == rows[0]) | (*table == rows[1]) {
                *table = usize::MAX;
            }
        }
    }

    /// Drops both tables.
    pub fn clear(&mut self) {
        self.first = [usize::MAX; 2];
    }
}

/// Fills a table from the first `VALUES` planes of a row: the sets with
/// value `v` are those without it, or `v`'s plane (constant counts,
/// unrolled).
#[inline(always)]
fn fill_with<const VALUES: usize>(ors: &mut [u64; 1 << ROW_ORS_VALUES], planes: &[u64]) {
    let Ok(planes) = <&[u64; VALUES]>::try_from(planes) else {
        return;
    };
    ors[0] = 0;
    for (v, &plane) in planes.iter().enumerate() {
        // Split so that the compiler sees the two halves apart (and
        // vectorizes the copy).
        let (without, with) = ors.split_at_mut(1 << v);
        for (to, &from) in with.iter_mut().zip(without.iter()) {
            *to = from | plane;
        }
    }
}
