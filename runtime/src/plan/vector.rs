//! Vector plans: a constraint with every variable bound but one, `z`,
//! filtered for every position of `z` at once, each literal read as a
//! row of bit planes where it can be. Reads the tables and value masks.

use crate::model::*;
use crate::tables::{Planes, Tables};
use crate::values::map_mask;

/// A constraint with every variable bound but `z`, filtered for every
/// position of `z` in its set at once.
#[derive(Debug)]
pub(crate) struct VectorPlan {
    pub z: Var,
    /// The set of `z`: a plain root set of at most 64 objects.
    pub set: u16,
    /// Every position of the set.
    pub full: u64,
    /// Bound variables of the same root set as `z` (their positions are
    /// taken out).
    pub same_root: Vec<Var>,
    pub literals: Vec<RowLiteral>,
}

/// How one literal is read for every position of the free variable.
#[derive(Debug)]
pub(crate) enum RowLiteral {
    /// The literal does not read the free variable.
    Constant(&'static Literal),
    /// `c(u, z) is values` (or `c(z, u)`): `stored` are the values in
    /// storage orientation.
    Is { u: Var, planes: Planes, stored: u64 },
    /// `fixed == c(u, z)` (or `!=`, either orientation of the row).
    Same {
        fixed: &'static InstanceRef,
        choice: u16,
        u: Var,
        planes: Planes,
        inverse: bool,
        equal: bool,
    },
    /// `c(u, z) == c(w, z)` (or `!=`, in any orientation).
    SameRows {
        planes: Planes,
        lhs: (Var, Option<&'static [u8]>),
        rhs: (Var, Option<&'static [u8]>),
        equal: bool,
    },
    /// Not readable from planes: the caller enumerates.
    Unsupported,
}

/// Literals per constraint at most for the vector path.
pub(crate) const MAX_ROW_LITERALS: usize = 16;

/// The plan for `def` with the variables of `bound` bound, if it has one
/// free variable over a plain set of at most 64 objects and every other
/// variable ranges over a plain root set.
pub(super) fn vector_plan(tables: &Tables, def: &ConstraintDef, bound: u32) -> Option<VectorPlan> {
    let mut free = None;
    for (i, var) in def.vars.iter().enumerate() {
        if bound & (1 << i) == 0 {
            if free.is_some() {
                return None;
            }
            free = Some(i);
        } else if !tables.is_plain_root[var.set as usize] {
            return None;
        }
    }
    let z = free?;
    let set = def.vars[z].set;
    if !tables.is_plain_root[set as usize] {
        return None;
    }
    let n = tables.plain_objects(set).len();
    if n > 64 || def.literals.len() > MAX_ROW_LITERALS {
        return None;
    }
    let root = tables.roots[set as usize];
    let same_root = (0..def.vars.len())
        .filter(|&i| i != z && tables.roots[def.vars[i].set as usize] == root)
        .map(|i| i as Var)
        .collect();
    let z = z as Var;
    Some(VectorPlan {
        z,
        set,
        full: if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
        same_root,
        literals: def
            .literals
            .iter()
            .map(|l| row_literal(tables, l, z))
            .collect(),
    })
}

/// The row of `c(u, z)` or `c(z, u)` for a choice with planes: `u`, the
/// planes, and whether it is read against storage orientation.
fn row_of(tables: &Tables, instance: &InstanceRef, z: Var) -> Option<(Var, Planes, bool)> {
    let planes = tables.shapes[instance.choice as usize].planes?;
    let [x, y] = instance.args else { return None };
    match (*x == z, *y == z) {
        (false, true) => Some((*x, planes, false)),
        (true, false) => Some((*y, planes, true)),
        _ => None,
    }
}

/// The inverse a row read against storage orientation maps values by.
fn row_inverse(tables: &Tables, choice: u16, reversed: bool) -> Option<&'static [u8]> {
    match (reversed, tables.model.choices[choice as usize].symmetry) {
        (true, Symmetry::Antisymmetric { inverse }) => Some(inverse),
        _ => None,
    }
}

pub(super) fn row_literal(tables: &Tables, literal: &'static Literal, z: Var) -> RowLiteral {
    let mentions = |args: &[Var]| args.contains(&z);
    match literal {
        Literal::Is { instance, .. } if !mentions(instance.args) => RowLiteral::Constant(literal),
        Literal::Is { instance, values } => match row_of(tables, instance, z) {
            Some((u, planes, reversed)) => RowLiteral::Is {
                u,
                planes,
                stored: match row_inverse(tables, instance.choice, reversed) {
                    Some(inverse) => map_mask(*values, inverse),
                    None => *values,
                },
            },
            None => RowLiteral::Unsupported,
        },
        Literal::Same { lhs, rhs, equal } => {
            let (fixed, row) = match (mentions(lhs.args), mentions(rhs.args)) {
                (false, false) => return RowLiteral::Constant(literal),
                (false, true) => (lhs, rhs),
                (true, false) => (rhs, lhs),
                (true, true) => {
                    if lhs.choice != rhs.choice {
                        return RowLiteral::Unsupported;
                    }
                    let (Some(l), Some(r)) = (row_of(tables, lhs, z), row_of(tables, rhs, z))
                    else {
                        return RowLiteral::Unsupported;
                    };
                    return RowLiteral::SameRows {
                        planes: l.1,
                        lhs: (l.0, row_inverse(tables, lhs.choice, l.2)),
                        rhs: (r.0, row_inverse(tables, rhs.choice, r.2)),
                        equal: *equal,
                    };
                }
            };
            if fixed.choice != row.choice {
                return RowLiteral::Unsupported;
            }
            match row_of(tables, row, z) {
                Some((u, planes, reversed)) => RowLiteral::Same {
                    fixed,
                    choice: row.choice,
                    u,
                    planes,
                    inverse: row_inverse(tables, row.choice, reversed).is_some(),
                    equal: *equal,
                },
                None => RowLiteral::Unsupported,
            }
        }
        Literal::Property { args, .. } if !mentions(args) => RowLiteral::Constant(literal),
        Literal::Property { .. } => RowLiteral::Unsupported,
        Literal::Compare { lhs, rhs, .. } => {
            fn reads(t: &Term, mentions: &dyn Fn(&[Var]) -> bool) -> bool {
                match t {
                    Term::Const(_) => false,
                    Term::Property { args, .. } => mentions(args),
                    Term::Choice(inst) => mentions(inst.args),
                    Term::Product(factors) => factors.iter().any(|f| reads(f, mentions)),
                }
            }
            let reads_z = |t: &Term| reads(t, &mentions);
            if reads_z(lhs) || reads_z(rhs) {
                RowLiteral::Unsupported
            } else {
                RowLiteral::Constant(literal)
            }
        }
    }
}
