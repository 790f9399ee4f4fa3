//! Fallbacks: how the completions of a binding are enumerated when the
//! vector path does not apply (one completion with its static checks, a
//! screen over one free variable read from planes and property rows, or
//! the generic enumeration), and how a literal over the free or
//! quantified variable is read, for screens and counter plans alike.
//! Reads the tables, bindings and vector plans' row literals.

use super::vector::{row_literal, RowLiteral};
use crate::binding::Binding;
use crate::model::*;
use crate::tables::Tables;

/// How the completions of a binding are enumerated when the vector path
/// does not apply. Both fast forms call `Propagator::filter` on the same
/// completions, in the same order, as `Propagator::for_each` would, less
/// those where a literal is certainly true (there `filter` does nothing,
/// and a literal once certainly true stays so).
#[derive(Debug)]
pub(crate) enum Fallback {
    /// Every variable is bound: one completion, if the objects belong to
    /// their sets and are distinct.
    Bound(Checks),
    /// One free variable over a set without parameters whose root set is
    /// plain and has at most 64 objects.
    Screen(Box<ScreenPlan>),
    /// `Propagator::for_each`.
    Generic,
}

/// What the bound variables of a binding must satisfy for it to have
/// completions.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    /// Variables over a set that is not a plain root: their object must
    /// belong to it.
    pub members: Vec<(Var, u16)>,
    /// Pairs of variables of one root set: their objects must differ.
    pub distinct: Vec<(Var, Var)>,
}

impl Checks {
    /// Whether the objects of `b` satisfy the checks.
    #[inline]
    pub fn passes(&self, tables: &Tables, b: &Binding) -> bool {
        self.members
            .iter()
            .all(|&(v, set)| tables.position(set, b.objects[v as usize]).is_some())
            && self
                .distinct
                .iter()
                .all(|&(v, w)| b.objects[v as usize] != b.objects[w as usize])
    }
}

#[derive(Debug)]
pub(crate) struct ScreenPlan {
    pub checks: Checks,
    pub z: Var,
    /// The set of `z`.
    pub set: u16,
    /// Its root set: screens are bitsets over its positions.
    pub root: u16,
    /// Bound variables of the same root set as `z`.
    pub same_root: Vec<Var>,
    pub literals: Vec<ZLiteral>,
    /// The positions of `set` in `root`, when its objects are listed in
    /// the order of their positions (see [`ordered_members`]).
    pub members: Option<u64>,
    /// Every property literal is over bound variables only or has a row:
    /// at the positions a screen lets through, each is false once the
    /// bound ones are known false (see `Propagator::screen_filter`).
    pub properties_screened: bool,
}

/// How a literal over the quantified or free variable `z` is read, for
/// screens and for counters alike.
#[derive(Debug)]
pub(crate) enum ZLiteral {
    /// The literal does not read `z`.
    Constant(&'static Literal),
    /// Read from planes over the root set of `z`.
    Row(RowLiteral),
    /// A boolean property with `z` as its argument `slot`.
    Property {
        property: u16,
        slot: usize,
        args: &'static [Var],
        negated: bool,
    },
    /// None of the above: screens leave it to `filter`, counters read it
    /// position by position.
    Other(&'static Literal),
    /// For counters only: `c(z) is values`, `c` a choice of one parameter
    /// over `z`'s root set, read position by position from the word of
    /// each position's instance (`None`: no instance, a mask of 0, as
    /// `Propagator::status` reads it).
    Own {
        values: u64,
        words: Vec<Option<usize>>,
    },
}

pub(super) fn fallback(tables: &Tables, def: &ConstraintDef, bound: u32) -> Fallback {
    let model = tables.model;
    // Parametrized and quotient sets need the generic enumeration.
    if def.vars.iter().any(|v| {
        let set = &model.sets[v.set as usize];
        !v.args.is_empty() || !set.params.is_empty() || set.quotient.is_some()
    }) {
        return Fallback::Generic;
    }
    let free: Vec<usize> = (0..def.vars.len())
        .filter(|&i| bound & (1 << i) == 0)
        .collect();
    let checks = checks(tables, def.vars, bound);
    match free.as_slice() {
        [] => Fallback::Bound(checks),
        &[z] => {
            let set = def.vars[z].set;
            let root = tables.roots[set as usize];
            if !tables.is_plain_root[root as usize] || tables.plain_objects(root).len() > 64 {
                return Fallback::Generic;
            }
            let same_root = (0..def.vars.len())
                .filter(|&i| i != z && tables.roots[def.vars[i].set as usize] == root)
                .map(|i| i as Var)
                .collect();
            let z = z as Var;
            let literals: Vec<ZLiteral> = def
                .literals
                .iter()
                .map(|literal| z_literal(tables, def.vars, literal, z, root))
                .collect();
            let properties_screened = literals
                .iter()
                .all(|literal| !matches!(literal, ZLiteral::Other(Literal::Property { .. })));
            Fallback::Screen(Box::new(ScreenPlan {
                checks,
                z,
                set,
                root,
                same_root,
                literals,
                members: ordered_members(tables, set, root),
                properties_screened,
            }))
        }
        _ => Fallback::Generic,
    }
}

/// The positions in `root` of the objects of `set`, if the set lists
/// them in increasing order of position: then going through the bits of a
/// screen over `root` visits the set's objects in its own order, as
/// enumerating the set does.
pub(super) fn ordered_members(tables: &Tables, set: u16, root: u16) -> Option<u64> {
    let (mut members, mut next) = (0u64, 0);
    for &object in tables.plain_objects(set) {
        let p = tables.position(root, object)?;
        if p < next || p >= 64 {
            return None;
        }
        members |= 1 << p;
        next = p + 1;
    }
    Some(members)
}

/// The checks on the variables of `bound`.
pub(super) fn checks(tables: &Tables, vars: &[VarDef], bound: u32) -> Checks {
    let mut checks = Checks::default();
    for (i, var) in vars.iter().enumerate() {
        if bound & (1 << i) == 0 {
            continue;
        }
        if !tables.is_plain_root[var.set as usize] {
            checks.members.push((i as Var, var.set));
        }
        for (j, other) in vars.iter().enumerate().take(i) {
            if bound & (1 << j) != 0
                && tables.roots[var.set as usize] == tables.roots[other.set as usize]
            {
                checks.distinct.push((j as Var, i as Var));
            }
        }
    }
    checks
}

/// How `literal` of a scope with variables `vars` is read over `z`,
/// whose root set is `root`.
pub(super) fn z_literal(
    tables: &Tables,
    vars: &[VarDef],
    literal: &'static Literal,
    z: Var,
    root: u16,
) -> ZLiteral {
    // The rows read are those of bound variables of the root set too.
    let of_root = |v: Var| tables.roots[vars[v as usize].set as usize] == root;
    if let Literal::Property {
        property,
        args,
        negated,
    } = literal
    {
        let slots: Vec<usize> = (0..args.len()).filter(|&i| args[i] == z).collect();
        let params = tables.model.properties[*property as usize].params;
        return match slots.as_slice() {
            [] => ZLiteral::Constant(literal),
            &[slot]
                if args.len() == params.len()
                    && tables.property_rows[*property as usize]
                        .get(slot)
                        .is_some_and(|r| r.as_ref().is_some_and(|r| r.root == root)) =>
            {
                ZLiteral::Property {
                    property: *property,
                    slot,
                    args,
                    negated: *negated,
                }
            }
            _ => ZLiteral::Other(literal),
        };
    }
    match row_literal(tables, literal, z) {
        RowLiteral::Constant(literal) => ZLiteral::Constant(literal),
        RowLiteral::Unsupported => ZLiteral::Other(literal),
        row => {
            let of_planes = match &row {
                RowLiteral::Is { planes, u, .. } | RowLiteral::Same { planes, u, .. } => {
                    planes.set == root && of_root(*u)
                }
                RowLiteral::SameRows {
                    planes, lhs, rhs, ..
                } => planes.set == root && of_root(lhs.0) && of_root(rhs.0),
                _ => false,
            };
            if of_planes {
                ZLiteral::Row(row)
            } else {
                ZLiteral::Other(literal)
            }
        }
    }
}
