//! Idle units: whether enforcing every unit position of a slot filter
//! would write nothing (each unit's one literal left is an `==` of two
//! instances with equal domains), read from the planes for every
//! position at once where it can be. Reads planes, slot views and
//! domains.

use super::slot_view::SlotsAt;
use super::state::Propagator;
use crate::plan::{SlotArg, SlotEnforce, SlotInstance, SlotPlan};
use crate::values::map_mask;

impl<'a> Propagator<'a> {
    /// Whether enforcing every unit position of a slot plan's filter
    /// (`units`, none failing) would change nothing: at each, the one
    /// literal that can still hold (the one `falses`, the positions where
    /// each literal is false, leaves out) is an `==` whose two instances
    /// have equal domains already. `slot_units` would then read the same
    /// statuses (nothing is written in between), enforce nothing and write
    /// nothing, so it need not run. On the ordering space most units of
    /// `order($a, $c) == order($b, $c)` are of this kind.
    pub(super) fn idle_units(
        &self,
        slots: &SlotPlan,
        at: &SlotsAt,
        units: u64,
        falses: &[u64],
    ) -> bool {
        let [p0, p1] = at.positions;
        if units & (1 << p0 | 1 << p1) != 0 {
            // No instance over an object and itself: read one by one, as
            // `enforce_slot` would.
            return self.idle_units_at(slots, at, units, falses);
        }
        // All at once: the units whose one literal left is literal `index`
        // are idle where its two instances have the same domain, which
        // the planes tell for every position.
        let mut rest = units;
        for (index, f) in falses[..slots.literals.len().min(falses.len())]
            .iter()
            .enumerate()
        {
            let here = rest & !f;
            rest &= f;
            if here == 0 {
                continue;
            }
            let Some((lhs, rhs)) = equality_of(slots, index) else {
                return false;
            };
            let Some(same) = self.same_domains(lhs, rhs, at) else {
                return self.idle_units_at(slots, at, units, falses);
            };
            if here & !same != 0 {
                return false;
            }
        }
        rest == 0
    }

    /// The positions of the free variable where two slot instances of one
    /// choice with planes have the same domain (`None`: other choices).
    fn same_domains(&self, lhs: &SlotInstance, rhs: &SlotInstance, at: &SlotsAt) -> Option<u64> {
        if lhs.choice != rhs.choice {
            return None;
        }
        // The commonest shape (`order($a, $c) == order($b, $c)`): two rows
        // read as they are stored, as below without the cases.
        if let Some(same) = self.same_rows(lhs, rhs, at) {
            return Some(same);
        }
        let planes = self.layout.shapes[lhs.choice as usize].planes.as_ref()?;
        // Per value, where the instance has it: a row of planes (the
        // value mapped through the inverse when the free variable comes
        // first), or everywhere or nowhere for an instance without it.
        let row = |slot: u8| planes.base + at.positions[slot as usize & 1] * planes.values;
        // A row against an instance without the free variable (on the
        // ordering space, the changed instance itself: `order($a, $c) ==
        // order($b, $c)` visited through its left side): as below, the
        // fixed instance's mask read once.
        let row_of = |instance: &SlotInstance| match instance.args {
            [SlotArg::Slot(i), SlotArg::Z] => Some((row(i), None)),
            [SlotArg::Z, SlotArg::Slot(i)] => Some((row(i), planes.inverse)),
            _ => None,
        };
        let fixed = |instance: &SlotInstance| {
            let (index, reversed) = at.instance(instance, 0);
            self.instance_mask(instance.choice, index, reversed)
        };
        let against = match (row_of(lhs), row_of(rhs)) {
            (Some(row), None) => Some((row, fixed(rhs))),
            (None, Some(row)) => Some((row, fixed(lhs))),
            _ => None,
        };
        if let Some(((first, inverse), mask)) = against {
            // The mask is mapped through the inverse (a permutation of the
            // values) once, rather than each value: the planes are then
            // read in storage order.
            let mask = inverse.map_or(mask, |inverse| map_mask(mask, inverse));
            let row = self.words.get(first..first + planes.values)?;
            return Some(row.iter().enumerate().fold(u64::MAX, |same, (v, &plane)| {
                same & !(plane ^ 0u64.wrapping_sub(mask >> v & 1))
            }));
        }
        let has = |instance: &SlotInstance| match instance.args {
            [SlotArg::Slot(i), SlotArg::Z] => (row(i), None, 0),
            [SlotArg::Z, SlotArg::Slot(i)] => (row(i), planes.inverse, 0),
            _ => {
                let (index, reversed) = at.instance(instance, 0);
                (
                    usize::MAX,
                    None,
                    self.instance_mask(instance.choice, index, reversed),
                )
            }
        };
        let read = |(first, inverse, mask): (usize, Option<&[u8]>, u64), v: usize| {
            if first == usize::MAX {
                return if mask & (1 << v) != 0 { u64::MAX } else { 0 };
            }
            let v = inverse.map_or(v, |inverse| {
                inverse.get(v).copied().unwrap_or(v as u8) as usize
            });
            self.words[first + v]
        };
        let (l, r) = (has(lhs), has(rhs));
        let mut same = u64::MAX;
        for v in 0..planes.values {
            same &= !(read(l, v) ^ read(r, v));
        }
        Some(same)
    }

    /// [`Propagator::same_domains`] of two instances that read the free
    /// variable second, as stored (`order($a, $c) == order($b, $c)`), and
    /// of those only (`None`: other shapes).
    #[inline(always)]
    pub(super) fn same_rows(
        &self,
        lhs: &SlotInstance,
        rhs: &SlotInstance,
        at: &SlotsAt,
    ) -> Option<u64> {
        let ([SlotArg::Slot(i), SlotArg::Z], [SlotArg::Slot(j), SlotArg::Z]) = (lhs.args, rhs.args)
        else {
            return None;
        };
        if lhs.choice != rhs.choice {
            return None;
        }
        let planes = self.layout.shapes[lhs.choice as usize].planes?;
        let row = |slot: u8| planes.base + at.positions[slot as usize & 1] * planes.values;
        let (l, r) = (row(i), row(j));
        let (l, r) = (
            self.words.get(l..l + planes.values)?,
            self.words.get(r..r + planes.values)?,
        );
        Some(
            l.iter()
                .zip(r)
                .fold(u64::MAX, |same, (l, r)| same & !(l ^ r)),
        )
    }

    /// [`Propagator::idle_units`] position by position.
    fn idle_units_at(
        &self,
        slots: &SlotPlan,
        at: &SlotsAt,
        mut units: u64,
        falses: &[u64],
    ) -> bool {
        while units != 0 {
            let p = units.trailing_zeros() as usize;
            units &= units - 1;
            let Some(index) = falses[..slots.literals.len().min(falses.len())]
                .iter()
                .position(|f| f & (1 << p) == 0)
            else {
                return false;
            };
            let Some((lhs, rhs)) = equality_of(slots, index) else {
                return false;
            };
            // As `enforce_slot` reads them.
            let (li, lr) = at.instance(lhs, p);
            let (ri, rr) = at.instance(rhs, p);
            if self.instance_mask(lhs.choice, li, lr) != self.instance_mask(rhs.choice, ri, rr) {
                return false;
            }
        }
        true
    }
}

/// The two instances of a slot plan's literal `index` when enforcing it
/// is an `==` between them (the only units `idle_units` can skip).
pub(super) fn equality_of(
    slots: &SlotPlan,
    index: usize,
) -> Option<(&SlotInstance, &SlotInstance)> {
    match slots.enforce.get(index) {
        Some(Some(SlotEnforce::Same {
            lhs,
            rhs,
            equal: true,
        })) => Some((lhs, rhs)),
        _ => None,
    }
}
