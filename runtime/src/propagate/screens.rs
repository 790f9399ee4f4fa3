//! Screens: the completions of a binding by one free variable, in the
//! order the generic enumeration visits them, less those where a
//! literal is certainly true (read from planes and property rows).
//! Reads rows, literal statuses and clauses.

use super::state::{Flow, Propagator};
use crate::binding::Binding;
use crate::layout::Layout;
use crate::model::*;
use crate::plan::{Checks, ScreenPlan, ZLiteral};
use crate::values::Status;

impl<'a> Propagator<'a> {
    /// Whether the bound objects of a binding belong to their sets and
    /// are distinct where they must be.
    #[inline]
    pub(super) fn passes(&self, checks: &Checks, b: &Binding) -> bool {
        checks.passes(self.layout, b)
    }

    /// Filters the completions of `b` by the free variable of `plan`, in
    /// the order `for_each` visits them, less those where a literal is
    /// certainly true (`filter` would do nothing there).
    /// `checked`: `b` is known to pass the plan's checks.
    pub(super) fn screen_filter(
        &mut self,
        constraint: u16,
        plan: &ScreenPlan,
        b: &Binding,
        checked: bool,
    ) -> Flow {
        if !checked && !self.passes(&plan.checks, b) {
            return Ok(());
        }
        let layout = self.layout;
        // A checked visit that was not skipped has its constant property
        // literals false (one that holds would have it skipped), and the
        // others are false where `sat` lets positions through.
        let known = checked && plan.properties_screened;
        let mut sat = 0u64;
        // As for generic visits: a constant literal certainly true, or two
        // unknown, leave every completion alone.
        let mut unknown = 0;
        for literal in &plan.literals {
            match literal {
                ZLiteral::Constant(Literal::Property { .. }) if known => {}
                ZLiteral::Constant(literal) => match self.status(literal, b) {
                    Status::True => return Ok(()),
                    Status::Unknown if unknown == 1 => return Ok(()),
                    Status::Unknown => unknown += 1,
                    Status::False => {}
                },
                ZLiteral::Row(row) => {
                    if let Some((t, _)) = self.row_status(row, b) {
                        sat |= t;
                    }
                }
                ZLiteral::Property {
                    property,
                    slot,
                    args,
                    negated,
                } => {
                    if let Some(bits) =
                        layout.property_row(*property, *slot, |i| b.objects[args[i] as usize])
                    {
                        sat |= if *negated { !bits } else { bits };
                    }
                }
                ZLiteral::Other(_) | ZLiteral::Own { .. } => {}
            }
        }
        if let Some(members) = plan.members {
            // The same objects in the same order, by the bits of the
            // positions left.
            let mut rest = without_bound(layout, members & !sat, plan.root, &plan.same_root, b);
            let objects = layout.plain_objects(plan.root);
            let mut with_z = *b;
            with_z.bound |= 1 << plan.z;
            while rest != 0 {
                with_z.objects[plan.z as usize] = objects[rest.trailing_zeros() as usize];
                rest &= rest - 1;
                if known {
                    self.filter_known(constraint, &with_z)?;
                } else {
                    self.filter(constraint, &with_z)?;
                }
            }
            return Ok(());
        }
        'objects: for &object in layout.plain_objects(plan.set) {
            for &v in &plan.same_root {
                if b.objects[v as usize] == object {
                    continue 'objects;
                }
            }
            if let Some(p) = layout.position(plan.root, object) {
                if sat & (1 << p) != 0 {
                    continue;
                }
            }
            let mut with_z = *b;
            with_z.bind(plan.z, object);
            if known {
                self.filter_known(constraint, &with_z)?;
            } else {
                self.filter(constraint, &with_z)?;
            }
        }
        Ok(())
    }
}

/// The positions of `positions` (over the objects of set `root`) less
/// those of the objects `b` binds to the variables `same_root` (of the
/// same root set: the free variable must differ from them).
#[inline(always)]
pub(super) fn without_bound(
    layout: &Layout,
    mut positions: u64,
    root: u16,
    same_root: &[Var],
    b: &Binding,
) -> u64 {
    for &v in same_root {
        if let Some(p) = layout.position(root, b.objects[v as usize]) {
            positions &= !(1u64 << p);
        }
    }
    positions
}
