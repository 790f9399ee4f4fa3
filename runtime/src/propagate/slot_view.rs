//! Slot views: a changed instance of a triangle choice with planes as
//! a slot plan reads it, in one orientation (positions, rows, word), and
//! the instances a slot plan names found from it. Reads bindings and
//! slot instances.

use crate::backbone::ObjectId;
use crate::binding::Binding;
use crate::model::Var;
use crate::plan::{SlotArg, SlotInstance};

/// A changed instance of a triangle choice with planes, in one
/// orientation: what a slot plan reads.
pub(crate) struct SlotsAt<'o> {
    /// The objects, in the orientation's order: slot `i` is bound to the
    /// visit's `args[i]`.
    pub objects: &'o [ObjectId],
    /// 1 when the orientation is reversed: slot `i ^ flip` is the
    /// instance's `i`-th object in storage order.
    pub flip: usize,
    /// The positions of the slots' objects in the planes' set.
    pub positions: [usize; 2],
    /// The first words of the slots' rows in the choice's planes, and
    /// the number of planes per row.
    pub rows: [usize; 2],
    pub values: usize,
    /// The instance's word, and its choice.
    pub word: usize,
    pub choice: u16,
}

impl SlotsAt<'_> {
    /// The triangle index of a slot instance with the free variable at
    /// position `p`, and whether its arguments are in the other order.
    #[inline]
    pub fn instance(&self, instance: &SlotInstance, p: usize) -> (usize, bool) {
        let (index, reversed, _) = self.instance_at(instance, p);
        (index, reversed)
    }

    /// [`SlotsAt::instance`] with the instance's triangle positions (low,
    /// high), for writes that clear its planes there.
    #[inline(always)]
    pub fn instance_at(&self, instance: &SlotInstance, p: usize) -> (usize, bool, (usize, usize)) {
        let position = |arg: SlotArg| match arg {
            SlotArg::Slot(i) => self.positions[i as usize & 1],
            SlotArg::Z => p,
        };
        let (a, b) = (position(instance.args[0]), position(instance.args[1]));
        let (low, high, reversed) = if a < b { (a, b, false) } else { (b, a, true) };
        (high * (high - 1) / 2 + low, reversed, (low, high))
    }

    pub fn binding(&self, args: &[Var]) -> Binding {
        let mut b = Binding::empty();
        for (&v, &o) in args.iter().zip(self.objects) {
            b.bind(v, o);
        }
        b
    }
}

/// The slot view of a changed instance in `orientation`, from its view in
/// the first (`view`): the second reads the instance's objects in reverse
/// (`reversed`), made in `flipped` only when a step reads it (most read the
/// first alone).
#[inline(always)]
pub(super) fn oriented<'v, 'o>(
    view: &'v SlotsAt<'o>,
    orientation: usize,
    reversed: &'o [ObjectId],
    flipped: &'v mut Option<SlotsAt<'o>>,
) -> &'v SlotsAt<'o> {
    if orientation == 0 {
        return view;
    }
    let [low, high] = view.positions;
    let [low_row, high_row] = view.rows;
    flipped.insert(SlotsAt {
        objects: reversed,
        flip: 1,
        positions: [high, low],
        rows: [high_row, low_row],
        values: view.values,
        word: view.word,
        choice: view.choice,
    })
}
