//! What a new layout of the same candidate changed: the objects that are
//! new, gone, or whose facts (set memberships, property values) differ
//! from the old tables. A constraint instance that binds none of them
//! reads the same facts as before, so after a trigger callback adds
//! objects only the instances that bind a changed object need filtering
//! again (see `Candidate::fire_pending`).

use super::{PropertyTable, Tables};
use crate::backbone::ObjectId;

/// Objects changed between two layouts, per root set, by object id.
#[derive(Debug, Default)]
pub(crate) struct ChangedObjects {
    /// Per set id (only root sets are filled): whether each object id
    /// changed.
    by_root: Vec<Vec<bool>>,
    /// Per set id: whether its root has any changed object.
    any: Vec<bool>,
}

impl ChangedObjects {
    /// Whether `object` of root set `root` changed.
    #[inline]
    pub(crate) fn contains(&self, root: u16, object: ObjectId) -> bool {
        self.by_root
            .get(root as usize)
            .and_then(|ids| ids.get(object as usize))
            .copied()
            .unwrap_or(false)
    }

    /// Whether root set `root` has a changed object.
    #[inline]
    pub(crate) fn touches(&self, root: u16) -> bool {
        self.any.get(root as usize).copied().unwrap_or(false)
    }

    /// Whether no object changed.
    pub(crate) fn is_empty(&self) -> bool {
        !self.any.iter().any(|&a| a)
    }

    fn mark(&mut self, root: u16, object: ObjectId) {
        let ids = &mut self.by_root[root as usize];
        if ids.len() <= object as usize {
            ids.resize(object as usize + 1, false);
        }
        ids[object as usize] = true;
        self.any[root as usize] = true;
    }
}

impl Tables {
    /// The objects of these tables that `old` (the same backbone before a
    /// callback changed it) did not have, that are gone, or whose facts
    /// differ: a member added to or removed from a set whose arguments
    /// both tables have (a constraint instance reading that membership
    /// binds the member), or a property value that differs on a tuple of
    /// objects both tables have (with every object of the tuple).
    pub(crate) fn changed_objects(&self, old: &Tables) -> ChangedObjects {
        let sets = self.model.sets.len();
        let mut changed = ChangedObjects {
            by_root: vec![Vec::new(); sets],
            any: vec![false; sets],
        };
        let root_of = |set: u16| self.roots[set as usize];
        for (index, def) in self.model.sets.iter().enumerate() {
            // A quotient's candidate members are its superset's; its
            // membership lives in the vector, carried over.
            if def.quotient.is_some() {
                continue;
            }
            let set = index as u16;
            let root = root_of(set);
            if def.params.is_empty() {
                let (new, was) = (&self.objects[index], &old.objects[index]);
                for &o in new.iter().filter(|&&o| old.position(set, o).is_none()) {
                    changed.mark(root, o);
                }
                for &o in was.iter().filter(|&&o| self.position(set, o).is_none()) {
                    changed.mark(root, o);
                }
                continue;
            }
            let Ok(tuples) = self.tuples(def.params) else {
                continue;
            };
            for (i, args) in tuples.iter().enumerate() {
                let new = self.param_objects[index]
                    .get(i)
                    .map_or(&[][..], Vec::as_slice);
                // Arguments the old tables lack are changed objects already.
                if old.tuple_index(def.params, args).is_none() {
                    continue;
                }
                let was = old.set_objects(set, args);
                let differ: Vec<ObjectId> = new
                    .iter()
                    .filter(|o| !was.contains(o))
                    .chain(was.iter().filter(|o| !new.contains(o)))
                    .copied()
                    .collect();
                if differ.is_empty() {
                    continue;
                }
                for o in differ {
                    changed.mark(root, o);
                }
            }
        }
        for (index, property) in self.model.properties.iter().enumerate() {
            let Ok(tuples) = self.tuples(property.params) else {
                continue;
            };
            let (new, was) = (&self.properties[index], &old.properties[index]);
            for (i, args) in tuples.iter().enumerate() {
                let Some(j) = old.tuple_index(property.params, args) else {
                    continue;
                };
                let same = match (new, was) {
                    (PropertyTable::Bool(a), PropertyTable::Bool(b)) => a.get(i) == b.get(j),
                    (PropertyTable::Int(a), PropertyTable::Int(b)) => a.get(i) == b.get(j),
                    (PropertyTable::List(a), PropertyTable::List(b)) => a.get(i) == b.get(j),
                    _ => false,
                };
                if !same {
                    for (&param, &arg) in property.params.iter().zip(args) {
                        changed.mark(root_of(param), arg);
                    }
                }
            }
        }
        changed
    }
}
