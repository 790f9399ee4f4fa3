//! Bit planes: writing a triangle instance's mask into its choice's
//! planes, clearing removed values from them (and dropping the row
//! tables of the two rows written), and rebuilding every plane from the
//! masks. Reads the layout's plane descriptions.

use super::state::Propagator;
use crate::tables::Planes;

impl<'a> Propagator<'a> {
    /// Mirrors the mask of a triangle instance into its choice's planes.
    fn write_planes(&mut self, choice: u16, instance: usize, mask: u64) {
        let shape = &self.layout.shapes[choice as usize];
        let Some(planes) = shape.planes else { return };
        let (low, high) = self.layout.triangle_positions(instance);
        for v in 0..planes.values {
            let on = mask & (1 << v) != 0;
            let back = planes.inverse.map_or(v, |inverse| {
                inverse.get(v).copied().unwrap_or(v as u8) as usize
            });
            let forward_word = planes.base + low * planes.values + v;
            let backward_word = planes.base + high * planes.values + back;
            if on {
                self.words[forward_word] |= 1 << high;
                self.words[backward_word] |= 1 << low;
            } else {
                self.words[forward_word] &= !(1 << high);
                self.words[backward_word] &= !(1 << low);
            }
        }
    }

    /// Takes the values `removed` from the triangle instance at positions
    /// `(low, high)` out of its choice's `planes`.
    #[inline(always)]
    pub(super) fn clear_planes(
        &mut self,
        planes: &Planes,
        (low, high): (usize, usize),
        removed: u64,
    ) {
        let mut rest = removed & planes.all;
        while rest != 0 {
            let v = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let back = planes.inverse.map_or(v, |inverse| {
                inverse.get(v).copied().unwrap_or(v as u8) as usize
            });
            self.words[planes.base + low * planes.values + v] &= !(1 << high);
            self.words[planes.base + high * planes.values + back] &= !(1 << low);
        }
        self.row_ors.changed([
            planes.base + low * planes.values,
            planes.base + high * planes.values,
        ]);
    }

    /// Recomputes every plane from the masks.
    pub fn rebuild_planes(&mut self) {
        self.row_ors.clear();
        let layout = self.layout;
        for (c, shape) in layout.shapes.iter().enumerate() {
            let Some(planes) = shape.planes else { continue };
            let n = layout.plain_objects(planes.set).len();
            self.words[planes.base..planes.base + n * planes.values].fill(0);
            for instance in 0..shape.count {
                let mask = self.words[shape.base + instance];
                self.write_planes(c as u16, instance, mask);
            }
        }
    }
}
