//! Skip sets: one bit per changed instance and orientation, on where a
//! visit or a counter read is known to do nothing whatever the domains.
//! Reads the tables only.

use crate::backbone::ObjectId;
use crate::model::Symmetry;
use crate::tables::Tables;

/// Whether bit `2 * instance + orientation` of a skip set is on.
#[inline]
pub(super) fn skip_bit(bits: &[u64], instance: usize, orientation: usize) -> bool {
    let bit = 2 * instance + orientation;
    bits.get(bit / 64)
        .is_some_and(|word| word >> (bit % 64) & 1 != 0)
}

/// The skip set of `choice`: bit `2 * instance + orientation` on where
/// `noop` holds for the instance's objects read in that orientation
/// (reversed, the second orientation of a symmetric pair choice).
pub(super) fn skip_bits(
    tables: &Tables,
    choice: usize,
    mut noop: impl FnMut(&[ObjectId]) -> bool,
) -> Vec<u64> {
    let def = &tables.model.choices[choice];
    let symmetric = def.symmetry != Symmetry::None && def.params.len() == 2;
    let count = tables.shapes[choice].count;
    let mut bits = vec![0u64; (2 * count).div_ceil(64)];
    for instance in 0..count {
        let objects = tables.instance_objects(choice as u16, instance);
        let reversed: Vec<_> = objects.iter().rev().copied().collect();
        let orientations: &[&[_]] = if symmetric {
            &[&objects, &reversed]
        } else {
            &[&objects]
        };
        for (orientation, objects) in orientations.iter().enumerate() {
            if noop(objects) {
                let bit = 2 * instance + orientation;
                bits[bit / 64] |= 1 << (bit % 64);
            }
        }
    }
    bits
}
