//! Slot plans: how a change of a triangle choice with bit planes filters
//! a constraint whose rows are those of the changed instance's two
//! objects. The objects' positions are the instance's in the triangle, so
//! rows are found without bindings or position lookups, and the ORs of a
//! row's planes are kept per set of values while the row is unchanged
//! (see `Propagator::slot_filter`).

use crate::backbone::ObjectId;
use crate::layout::{Layout, Planes};
use crate::model::*;
use crate::plan::{PairStep, Quiet, Quiets, RowLiteral, RowRead, VectorPlan, ROW_STEPS};
use crate::propagate::Binding;

// ---------------------------------------------------------------- plans

/// A vector plan of a visit to a triangle choice with planes, every row
/// it reads being that of one of the changed instance's two objects: the
/// objects' positions are those of the instance in the triangle, so the
/// filter needs neither a binding nor position lookups until a position
/// is unit or fails.
#[derive(Debug)]
pub(crate) struct SlotPlan {
    /// Bit `i` for argument slot `i` of the visit (the object bound to
    /// `args[i]`): its position is taken out of the free variable's.
    pub excluded: u64,
    pub literals: Vec<SlotLiteral>,
    /// Per literal, how a unit position enforces it without looking its
    /// instances up (`None`: through the binding).
    pub enforce: Vec<Option<SlotEnforce>>,
    /// When the literals are the visit's own `is` literal (known false)
    /// and two `is` literals over rows of the changed choice: those two,
    /// the commonest shape (transitivity rules), filtered without going
    /// through the list.
    pub pair: Option<[PairRow; 2]>,
    /// Whether a literal other than the visit's own is read through the
    /// binding (a [`SlotLiteral::Constant`]).
    pub reads_binding: bool,
}

/// An `is` literal over a row of the changed choice's planes: its slot,
/// and the sets of values in and out of its values (storage
/// orientation), as indices of `RowOrs`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairRow {
    pub slot: u8,
    pub inside: usize,
    pub outside: usize,
    /// The literal's index in its clause.
    pub literal: usize,
}

/// Values of a choice at most for a slot plan to have a pair (the
/// size of the propagator's row tables is `1 << PAIR_VALUES`).
pub(crate) const PAIR_VALUES: usize = 6;

/// Where an argument of an instance read by a slot plan comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotArg {
    Slot(u8),
    /// The free variable.
    Z,
}

/// An instance of a triangle choice over the planes' set, by where its
/// arguments come from (two different places).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlotInstance {
    pub choice: u16,
    pub args: [SlotArg; 2],
}

/// A literal of a slot plan made to hold at one position, as
/// `Propagator::enforce` does.
#[derive(Debug)]
pub(crate) enum SlotEnforce {
    Is {
        instance: SlotInstance,
        values: u64,
    },
    Same {
        lhs: SlotInstance,
        rhs: SlotInstance,
        equal: bool,
    },
}

impl SlotEnforce {
    /// Whether enforcing at position `p` writes only instances over the
    /// free variable's object there, so only the slots' rows at `p` and
    /// the row of `p` (an `is` literal, or an `==` of two instances that
    /// read the free variable, `p` not a slot's position).
    #[inline]
    pub fn at_free(&self, at: &SlotsAt, p: usize) -> bool {
        match self {
            SlotEnforce::Is { .. } => true,
            SlotEnforce::Same { lhs, rhs, .. } => {
                lhs.args.contains(&SlotArg::Z)
                    && rhs.args.contains(&SlotArg::Z)
                    && !at.positions.contains(&p)
            }
        }
    }
}

/// A [`RowLiteral`] whose row objects are named by argument slot.
#[derive(Debug)]
pub(crate) enum SlotLiteral {
    /// Does not read the free variable: its status is read with the
    /// binding.
    Constant,
    Is {
        slot: u8,
        planes: Planes,
        stored: u64,
    },
    /// `fixed == c(u, z)`, `fixed` being the changed instance itself,
    /// read with its arguments in slot order `fixed_slots`.
    Same {
        fixed_slots: [u8; 2],
        choice: u16,
        slot: u8,
        planes: Planes,
        inverse: bool,
        equal: bool,
    },
    SameRows {
        planes: Planes,
        lhs: (u8, Option<&'static [u8]>),
        rhs: (u8, Option<&'static [u8]>),
        equal: bool,
    },
}

/// The slot plan of a visit of `choice` (whose instances bind `args`),
/// if every literal of `plan` is constant or reads rows of `args` over
/// the set of the choice's planes.
pub(crate) fn slot_plan(
    layout: &Layout,
    choice: usize,
    constraint: u16,
    args: &[Var],
    plan: &VectorPlan,
    known_false: Option<usize>,
) -> Option<SlotPlan> {
    let own = layout.shapes[choice].planes?;
    let &[a0, a1] = args else { return None };
    if a0 == a1 || plan.set != own.set {
        return None;
    }
    let slot = |v: Var| -> Option<u8> {
        match (v == a0, v == a1) {
            (true, _) => Some(0),
            (_, true) => Some(1),
            _ => None,
        }
    };
    let same_set = |planes: &Planes| planes.set == own.set;
    let mut excluded = 0;
    for &v in &plan.same_root {
        excluded |= 1 << slot(v)?;
    }
    let literals = plan
        .literals
        .iter()
        .map(|literal| match literal {
            RowLiteral::Constant(_) => Some(SlotLiteral::Constant),
            RowLiteral::Is { u, planes, stored } if same_set(planes) => Some(SlotLiteral::Is {
                slot: slot(*u)?,
                planes: *planes,
                stored: *stored,
            }),
            RowLiteral::Same {
                fixed,
                choice: row_choice,
                u,
                planes,
                inverse,
                equal,
            } if same_set(planes) && fixed.choice as usize == choice => {
                let &[f0, f1] = fixed.args else { return None };
                if f0 == f1 {
                    return None;
                }
                Some(SlotLiteral::Same {
                    fixed_slots: [slot(f0)?, slot(f1)?],
                    choice: *row_choice,
                    slot: slot(*u)?,
                    planes: *planes,
                    inverse: *inverse,
                    equal: *equal,
                })
            }
            RowLiteral::SameRows {
                planes,
                lhs,
                rhs,
                equal,
            } if same_set(planes) => Some(SlotLiteral::SameRows {
                planes: *planes,
                lhs: (slot(lhs.0)?, lhs.1),
                rhs: (slot(rhs.0)?, rhs.1),
                equal: *equal,
            }),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let def = &layout.model.constraints[constraint as usize];
    let instance = |inst: &InstanceRef| -> Option<SlotInstance> {
        let shape = &layout.shapes[inst.choice as usize];
        if !shape.triangle || shape.planes.is_none_or(|p| p.set != own.set) {
            return None;
        }
        let arg = |v: Var| match slot(v) {
            Some(i) => Some(SlotArg::Slot(i)),
            None => (v == plan.z).then_some(SlotArg::Z),
        };
        let &[x, y] = inst.args else { return None };
        let args = [arg(x)?, arg(y)?];
        (args[0] != args[1]).then_some(SlotInstance {
            choice: inst.choice,
            args,
        })
    };
    let enforce = literals
        .iter()
        .zip(def.literals)
        .map(|(slotted, literal)| match (slotted, literal) {
            (SlotLiteral::Constant, _) => None,
            (
                _,
                Literal::Is {
                    instance: inst,
                    values,
                },
            ) => Some(SlotEnforce::Is {
                instance: instance(inst)?,
                values: *values,
            }),
            (_, Literal::Same { lhs, rhs, equal }) => Some(SlotEnforce::Same {
                lhs: instance(lhs)?,
                rhs: instance(rhs)?,
                equal: *equal,
            }),
            _ => None,
        })
        .collect();
    let all = (1usize << own.values) - 1;
    let mut rows = literals.iter().enumerate().filter_map(|(i, l)| match l {
        SlotLiteral::Is {
            slot,
            planes,
            stored,
        } if planes.base == own.base && own.values <= PAIR_VALUES => Some((
            i,
            PairRow {
                slot: *slot,
                inside: *stored as usize & all,
                outside: !(*stored as usize) & all,
                literal: i,
            },
        )),
        _ => None,
    });
    let pair = match (rows.next(), rows.next(), rows.next(), known_false) {
        (Some((i, a)), Some((j, b)), None, Some(k)) if literals.len() == 3 && k != i && k != j => {
            Some([a, b])
        }
        _ => None,
    };
    let reads_binding = literals
        .iter()
        .enumerate()
        .any(|(i, l)| matches!(l, SlotLiteral::Constant) && known_false != Some(i));
    Some(SlotPlan {
        excluded,
        literals,
        enforce,
        pair,
        reads_binding,
    })
}

// ---------------------------------------------------------------- reading rows

/// Values per row at most for [`RowOrs`].
pub(crate) const ROW_ORS_VALUES: usize = PAIR_VALUES;

/// The OR of the planes of a row for every set of values, for two rows
/// (tables 0 and 1, the changed instance's low and high rows when a slot
/// plan reads them): the filters of one change read the same two rows,
/// with different sets of values, many times. A table is dropped when a
/// plane of its row is cleared.
pub(crate) struct RowOrs {
    /// Per table, its row's first plane word (`usize::MAX`: none).
    first: [usize; 2],
    /// The OR of table `t` for the set of values `s`, at `t << ROW_ORS_VALUES | s`
    /// (see [`RowOrs::index`]); then the valid masks at [`RowOrs::VALID`],
    /// unused entries, and [`RowOrs::NONE`] (any index a byte holds is in
    /// bounds).
    ors: [u64; ORS_LEN],
}

/// Entries of [`RowOrs`]: the tables and the constant ones.
const ORS_LEN: usize = 256;

impl RowOrs {
    /// An index whose OR is every position (no position misses the
    /// values), for a literal that holds nowhere.
    pub const NONE: u8 = (ORS_LEN - 1) as u8;
    /// An index whose OR is no position (the empty set of values), for a
    /// literal that fails everywhere.
    pub const EMPTY: u8 = 0;
    /// The index of the first of the four valid masks kept by
    /// [`RowOrs::set_valid`] (past both tables).
    pub const VALID: u8 = 2 << ROW_ORS_VALUES;

    pub fn new() -> RowOrs {
        let mut ors = [0; ORS_LEN];
        ors[RowOrs::NONE as usize] = u64::MAX;
        RowOrs {
            first: [usize::MAX; 2],
            ors,
        }
    }

    /// The index of table `table`'s OR of the set of values `set`, for
    /// [`RowOrs::or`] (below 128: plans keep it in a byte).
    pub fn index(table: usize, set: usize) -> usize {
        (table & 1) << ROW_ORS_VALUES | (set & ((1 << ROW_ORS_VALUES) - 1))
    }

    /// The OR at `index` (see [`RowOrs::index`]).
    #[inline(always)]
    pub fn or(&self, index: usize) -> u64 {
        self.ors[index & (ORS_LEN - 1)]
    }

    /// A pair step (see [`crate::plan::Step::Pair`]) over the tables: the positions
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

    /// A rows step (see [`crate::plan::Step::Rows`]) over the tables: the positions
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
        self.or(RowOrs::VALID as usize + (excluded as usize & 3))
    }

    /// Keeps a change's valid masks (the positions the free variable may
    /// take, per set of the changed instance's positions taken out) at
    /// [`RowOrs::VALID`], for [`RowOrs::first_noisy`].
    #[inline(always)]
    pub fn set_valid(&mut self, valid: &[u64; 4]) {
        let start = RowOrs::VALID as usize;
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
            self.or(RowOrs::index(table, inside)),
            self.or(RowOrs::index(table, all & !inside)),
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
