//! Enumeration of bindings: every completion of a binding over a scope,
//! unbound variables over their sets, bound ones checked for membership
//! (quotient sets through `quotients`), objects of one root set pairwise
//! distinct, optionally leaving out subtrees where a property literal
//! holds. Reads the tables and literal statuses.

use super::state::{Flow, Propagator};
use crate::backbone::ObjectId;
use crate::binding::{ArgBuf, Binding};
use crate::model::*;
use crate::plan::Hold;
use crate::tables::changes::ChangedObjects;
use crate::values::Status;

impl<'a> Propagator<'a> {
    /// Calls `f` for every completion of `b` over `vars`: unbound variables
    /// range over their sets, bound ones are checked for membership, and
    /// objects of one root set are pairwise distinct.
    pub fn for_each(
        &mut self,
        vars: &'static [VarDef],
        b: &mut Binding,
        f: &mut dyn FnMut(&mut Self, &Binding) -> Flow,
    ) -> Flow {
        self.for_each_from(vars, b, 0, &[], None, f)
    }

    /// Calls `f` for every binding over `vars` (from `b`, with nothing
    /// bound) that binds at least one object of `changed`, once each: the
    /// bindings whose first changed object is at variable `p`, for each
    /// `p` in turn; those where a literal of `holds` is certainly true are
    /// left out, as by [`Propagator::for_each_unless`], and so are those
    /// that bind a variable of the mask `unknown_on_new` to a new object
    /// (two literals unknown, see `plan::fresh`).
    pub(super) fn for_each_touching(
        &mut self,
        vars: &'static [VarDef],
        changed: &ChangedObjects,
        unknown_on_new: u32,
        holds: &[Hold],
        f: &mut dyn FnMut(&mut Self, &Binding) -> Flow,
    ) -> Flow {
        let roots = &self.layout.roots;
        for first in 0..vars.len() {
            let root = roots[vars[first].set as usize];
            // Every binding whose first changed object is there binds a
            // new one where the clause cannot act.
            if !changed.touches(root) || unknown_on_new & 1 << first != 0 && changed.only_new(root)
            {
                continue;
            }
            let mut b = Binding::empty();
            let touching = Touching {
                changed,
                first,
                unknown_on_new,
            };
            self.for_each_from(vars, &mut b, 0, holds, Some(touching), f)?;
        }
        Ok(())
    }

    /// Like [`Propagator::for_each`], leaving out the completions where a
    /// literal of `holds` is certainly true, as soon as its last variable
    /// is bound: for a clause, `filter` does nothing there.
    pub(super) fn for_each_unless(
        &mut self,
        vars: &'static [VarDef],
        b: &mut Binding,
        holds: &[Hold],
        f: &mut dyn FnMut(&mut Self, &Binding) -> Flow,
    ) -> Flow {
        self.for_each_from(vars, b, 0, holds, None, f)
    }

    fn for_each_from(
        &mut self,
        vars: &'static [VarDef],
        b: &mut Binding,
        i: usize,
        holds: &[Hold],
        touching: Option<Touching<'_>>,
        f: &mut dyn FnMut(&mut Self, &Binding) -> Flow,
    ) -> Flow {
        if i == vars.len() {
            return f(self, b);
        }
        let true_at = |p: &Self, b: &Binding| {
            holds
                .iter()
                .any(|hold| hold.last as usize == i && p.status(hold.literal, b) == Status::True)
        };
        let var = &vars[i];
        let layout = self.layout;
        let args = if var.args.is_empty() {
            ArgBuf::EMPTY
        } else {
            b.args(var.args)
        };
        let root = layout.roots[var.set as usize];
        let distinct = |b: &Binding, object: ObjectId| {
            (0..vars.len()).all(|j| {
                j == i
                    || !b.is_bound(j as Var)
                    || layout.roots[vars[j].set as usize] != root
                    || b.objects[j] != object
            })
        };
        if b.is_bound(i as Var) {
            let object = b.objects[i];
            // Objects bound from an instance belong to their root set.
            if (layout.is_plain_root[var.set as usize] || layout.contains(var.set, &args, object))
                && (!layout.is_quotient[var.set as usize] || self.is_member(var.set, &args, object))
                && distinct(b, object)
                && !true_at(self, b)
            {
                return self.for_each_from(vars, b, i + 1, holds, touching, f);
            }
            return Ok(());
        }
        // The positions in the root set where a literal with a row holds;
        // the other literals are tested object by object.
        let mut screened = 0u64;
        let mut others = false;
        for hold in holds.iter().filter(|hold| hold.last as usize == i) {
            match hold.row {
                Some((property, slot, args, negated)) => {
                    let bits = layout
                        .property_row(property, slot, |k| b.objects[args[k] as usize])
                        .unwrap_or(0);
                    screened |= if negated { !bits } else { bits };
                }
                None => others = true,
            }
        }
        // With `touching`: the variables before its first bind unchanged
        // objects, the first a changed one, the later ones anything; none
        // of `unknown_on_new` a new one.
        let wanted = touching.and_then(|t| (i <= t.first).then_some((t.changed, i == t.first)));
        let skip_new = touching.filter(|t| t.unknown_on_new & 1 << i != 0);
        // A negated literal with a list: only the objects for which its
        // property holds (the list is in the set's order, a part of it).
        let listed = holds
            .iter()
            .filter(|hold| hold.last as usize == i)
            .find_map(|hold| {
                let (property, slot, args) = hold.list?;
                layout.property_list(property, slot, |k| b.objects[args[k] as usize])
            });
        let objects = match listed {
            Some(objects) => objects,
            None => layout.set_objects(var.set, &args),
        };
        for &object in objects {
            if let Some((changed, want)) = wanted {
                if changed.contains(root, object) != want {
                    continue;
                }
            }
            if skip_new.is_some_and(|t| t.changed.is_new(root, object)) {
                continue;
            }
            if screened != 0
                && layout
                    .position(root, object)
                    .is_some_and(|p| screened & (1 << p) != 0)
            {
                continue;
            }
            if !distinct(b, object)
                || (layout.is_quotient[var.set as usize] && !self.is_member(var.set, &args, object))
            {
                continue;
            }
            let mut inner = *b;
            inner.bind(i as Var, object);
            if others && true_at(self, &inner) {
                continue;
            }
            self.for_each_from(vars, &mut inner, i + 1, holds, touching, f)?;
        }
        Ok(())
    }
}

/// What [`Propagator::for_each_touching`] asks of the bindings it
/// enumerates.
#[derive(Clone, Copy)]
struct Touching<'c> {
    changed: &'c ChangedObjects,
    /// The variable that binds the first changed object.
    first: usize,
    /// The variables not bound to a new object.
    unknown_on_new: u32,
}
