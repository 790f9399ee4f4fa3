//! Slot plans: how a change of a triangle choice with bit planes filters
//! a constraint whose rows are those of the changed instance's two
//! objects. The objects' positions are the instance's in the triangle, so
//! rows are found without bindings or position lookups, and the ORs of a
//! row's planes are kept per set of values while the row is unchanged
//! (see `Propagator::slot_filter`). Reads the tables, vector plans and
//! the row table indices.

use super::row_index::ROW_ORS_VALUES;
use super::vector::{RowLiteral, VectorPlan};
use crate::model::*;
use crate::tables::{Planes, Tables};

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
pub(crate) const PAIR_VALUES: usize = ROW_ORS_VALUES;

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
    /// read the free variable, `p` not one of `slots`, the positions of
    /// the changed instance's objects).
    #[inline]
    pub fn at_free(&self, slots: [usize; 2], p: usize) -> bool {
        match self {
            SlotEnforce::Is { .. } => true,
            SlotEnforce::Same { lhs, rhs, .. } => {
                lhs.args.contains(&SlotArg::Z)
                    && rhs.args.contains(&SlotArg::Z)
                    && !slots.contains(&p)
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
pub(super) fn slot_plan(
    tables: &Tables,
    choice: usize,
    constraint: u16,
    args: &[Var],
    plan: &VectorPlan,
    known_false: Option<usize>,
) -> Option<SlotPlan> {
    let own = tables.shapes[choice].planes?;
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
    let def = &tables.model.constraints[constraint as usize];
    let instance = |inst: &InstanceRef| -> Option<SlotInstance> {
        let shape = &tables.shapes[inst.choice as usize];
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
