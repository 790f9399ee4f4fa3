//! Reading rows of bit planes: where a literal over the free variable is
//! certainly true and certainly false for every position at once, by a
//! binding's objects (vector plans, screens, counter plans) or by the
//! changed instance's slots through the row tables (slot plans). Reads
//! the planes, the row tables and the plans' row literals.

use super::slot_view::SlotsAt;
use super::state::Propagator;
use crate::backbone::ObjectId;
use crate::binding::Binding;
use crate::plan::row_index::{self, ROW_ORS_VALUES};
use crate::plan::{PairRow, RowLiteral, SlotLiteral};
use crate::tables::Planes;
use crate::values::is_single;

impl<'a> Propagator<'a> {
    /// [`Propagator::row_masks`] of the row of a slot of `at`, through
    /// [`RowOrs`](super::row_ors::RowOrs) when `tables` and the planes have at most
    /// [`ROW_ORS_VALUES`] values.
    #[inline(always)]
    fn slot_row_masks(
        &mut self,
        planes: &Planes,
        slot: u8,
        at: &SlotsAt,
        stored: u64,
        tables: bool,
    ) -> (u64, u64) {
        let first = planes.base + at.positions[slot as usize] * planes.values;
        if !tables || planes.values > ROW_ORS_VALUES {
            return self.row_masks(first, planes.values, stored);
        }
        let table = (slot as usize ^ at.flip) & 1;
        self.row_ors
            .masks(table, self.words, first, planes.values, stored)
    }

    /// The positions whose domain meets a pair literal's values, and those
    /// whose domain has a value outside them.
    #[inline(always)]
    pub(super) fn pair_row(&mut self, row: &PairRow, at: &SlotsAt) -> (u64, u64) {
        let slot = row.slot as usize & 1;
        let table = (slot ^ at.flip) & 1;
        self.row_ors
            .read(table, self.words, at.rows[slot], at.values);
        (
            self.row_ors.or(row_index::index(table, row.inside)),
            self.row_ors.or(row_index::index(table, row.outside)),
        )
    }

    /// [`Propagator::row_status`] of a literal of a slot plan, its rows
    /// read through [`RowOrs`](super::row_ors::RowOrs) if `tables` (else from the planes: after a
    /// write, reading a row once costs less than making its table again).
    #[inline(always)]
    pub(super) fn slot_status(
        &mut self,
        literal: &SlotLiteral,
        at: &SlotsAt,
        tables: bool,
    ) -> (u64, u64) {
        let row =
            |planes: &Planes, slot: u8| planes.base + at.positions[slot as usize] * planes.values;
        match literal {
            SlotLiteral::Is {
                slot,
                planes,
                stored,
            } => {
                let (has_in, has_out) = self.slot_row_masks(planes, *slot, at, *stored, tables);
                (!has_out, !has_in)
            }
            SlotLiteral::Same {
                fixed_slots,
                choice,
                slot,
                planes,
                inverse,
                equal,
            } => {
                // The changed instance, read in the order of the slots.
                let word = self.words[at.word];
                let m = if at.positions[fixed_slots[0] as usize]
                    > at.positions[fixed_slots[1] as usize]
                {
                    self.layout.map_inverse(at.choice, word)
                } else {
                    word
                };
                let stored = if *inverse {
                    self.layout.map_inverse(*choice, m)
                } else {
                    m
                };
                let (has_in, has_out) = self.slot_row_masks(planes, *slot, at, stored, tables);
                let same = if is_single(m) { !has_out } else { 0 };
                if *equal {
                    (same, !has_in)
                } else {
                    (!has_in, same)
                }
            }
            SlotLiteral::SameRows {
                planes,
                lhs,
                rhs,
                equal,
            } => {
                let (t, f) = self.row_same(
                    planes.values,
                    (row(planes, lhs.0), lhs.1),
                    (row(planes, rhs.0), rhs.1),
                );
                if *equal {
                    (t, f)
                } else {
                    (f, t)
                }
            }
            SlotLiteral::Constant => (0, 0),
        }
    }

    /// Where a literal read from planes is certainly true and certainly
    /// false, over the positions of the free variable; `None` when it
    /// cannot be read for these objects.
    #[inline(always)]
    pub(super) fn row_status(&self, literal: &RowLiteral, b: &Binding) -> Option<(u64, u64)> {
        match literal {
            RowLiteral::Is { u, planes, stored } => {
                let first = self.plane_row(planes, b.objects[*u as usize])?;
                let (has_in, has_out) = self.row_masks(first, planes.values, *stored);
                Some((!has_out, !has_in))
            }
            RowLiteral::Same {
                fixed,
                choice,
                u,
                planes,
                inverse,
                equal,
            } => {
                let first = self.plane_row(planes, b.objects[*u as usize])?;
                let m = self.mask_of(fixed, b);
                let stored = if *inverse {
                    self.layout.map_inverse(*choice, m)
                } else {
                    m
                };
                let (has_in, has_out) = self.row_masks(first, planes.values, stored);
                // Equal: certain when both are the same single value;
                // impossible when they share no value.
                let same = if is_single(m) { !has_out } else { 0 };
                Some(if *equal {
                    (same, !has_in)
                } else {
                    (!has_in, same)
                })
            }
            RowLiteral::SameRows {
                planes,
                lhs,
                rhs,
                equal,
            } => {
                let l_first = self.plane_row(planes, b.objects[lhs.0 as usize])?;
                let r_first = self.plane_row(planes, b.objects[rhs.0 as usize])?;
                let (t, f) = self.row_same(planes.values, (l_first, lhs.1), (r_first, rhs.1));
                Some(if *equal { (t, f) } else { (f, t) })
            }
            RowLiteral::Constant(_) | RowLiteral::Unsupported => None,
        }
    }

    /// The first plane word of the row of `object`, if it has one.
    #[inline]
    fn plane_row(&self, planes: &Planes, object: ObjectId) -> Option<usize> {
        let row = self.layout.position(planes.set, object)?;
        Some(planes.base + row * planes.values)
    }

    /// Over the `count` planes of a row from word `first`: the positions
    /// whose domain meets `stored` (values in storage orientation), and
    /// those whose domain has a value outside it.
    #[inline]
    fn row_masks(&self, first: usize, count: usize, stored: u64) -> (u64, u64) {
        let row = &self.words[first..first + count];
        let all = if count >= 64 {
            u64::MAX
        } else {
            (1u64 << count) - 1
        };
        let (mut has_in, mut has_out) = (0u64, 0u64);
        let mut inside = stored & all;
        while inside != 0 {
            has_in |= row[inside.trailing_zeros() as usize];
            inside &= inside - 1;
        }
        let mut outside = !stored & all;
        while outside != 0 {
            has_out |= row[outside.trailing_zeros() as usize];
            outside &= outside - 1;
        }
        (has_in, has_out)
    }

    /// `c(u, z) == c(w, z)` for every `z`, both rows read from planes
    /// (each as its first word and the inverse its values are read
    /// through): where it certainly holds, and where it certainly fails.
    fn row_same(
        &self,
        count: usize,
        (l_first, l_inverse): (usize, Option<&[u8]>),
        (r_first, r_inverse): (usize, Option<&[u8]>),
    ) -> (u64, u64) {
        let stored = |inverse: Option<&[u8]>, v: usize| {
            inverse.map_or(v, |inv| inv.get(v).copied().unwrap_or(v as u8) as usize)
        };
        // Positions where the domains share a value, where each has at
        // least one value, and where each has at least two.
        let (mut common, mut l_one, mut l_two, mut r_one, mut r_two) = (0u64, 0, 0, 0, 0);
        for v in 0..count {
            let l = self.words[l_first + stored(l_inverse, v)];
            let r = self.words[r_first + stored(r_inverse, v)];
            common |= l & r;
            l_two |= l_one & l;
            l_one |= l;
            r_two |= r_one & r;
            r_one |= r;
        }
        // Both a single value, and a shared one: the same value.
        let same = common & l_one & !l_two & r_one & !r_two;
        (same, !common)
    }
}
