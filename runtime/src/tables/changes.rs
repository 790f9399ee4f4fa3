//! What a new layout of the same candidate changed: the objects that are
//! new, gone, or whose facts (set memberships, property values) differ
//! from the old tables. A constraint instance that binds none of them
//! reads the same facts as before, so after a trigger callback adds
//! objects only the instances that bind a changed object need filtering
//! again (see `Candidate::fire_pending`). New objects are told apart from
//! old ones whose facts changed: every choice instance of a new one starts
//! with every value, which lets the filtering leave out the constraint
//! instances it cannot wake (`plan::fresh`).

use super::{PropertyTable, Tables};
use crate::backbone::ObjectId;

/// Objects changed between two layouts, per root set, by object id.
#[derive(Debug, Default)]
pub(crate) struct ChangedObjects {
    /// Per set id (only root sets are filled): per object id, whether it
    /// changed ([`CHANGED`]) and whether it is new ([`NEW`]).
    by_root: Vec<Vec<u8>>,
    /// Per set id: whether its root has any changed object.
    any: Vec<bool>,
    /// Per set id: whether its root has a changed object that is not new.
    any_old: Vec<bool>,
}

/// The object is new, gone, or its facts differ.
const CHANGED: u8 = 1;
/// The object is in the new tables alone: every choice instance binding
/// it is new, with every value.
const NEW: u8 = 2;

impl ChangedObjects {
    /// Whether `object` of root set `root` changed.
    #[inline]
    pub(crate) fn contains(&self, root: u16, object: ObjectId) -> bool {
        self.flags(root, object) & CHANGED != 0
    }

    /// Whether `object` of root set `root` is new.
    #[inline]
    pub(crate) fn is_new(&self, root: u16, object: ObjectId) -> bool {
        self.flags(root, object) & NEW != 0
    }

    #[inline]
    fn flags(&self, root: u16, object: ObjectId) -> u8 {
        self.by_root
            .get(root as usize)
            .and_then(|ids| ids.get(object as usize))
            .copied()
            .unwrap_or(0)
    }

    /// Whether root set `root` has a changed object.
    #[inline]
    pub(crate) fn touches(&self, root: u16) -> bool {
        self.any.get(root as usize).copied().unwrap_or(false)
    }

    /// Whether root set `root` has changed objects, all of them new.
    #[inline]
    pub(crate) fn only_new(&self, root: u16) -> bool {
        self.touches(root) && !self.any_old.get(root as usize).copied().unwrap_or(true)
    }

    /// Whether no object changed.
    pub(crate) fn is_empty(&self) -> bool {
        !self.any.iter().any(|&a| a)
    }

    fn mark(&mut self, root: u16, object: ObjectId, new: bool) {
        let ids = &mut self.by_root[root as usize];
        if ids.len() <= object as usize {
            ids.resize(object as usize + 1, 0);
        }
        ids[object as usize] |= CHANGED | if new { NEW } else { 0 };
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
            any_old: vec![false; sets],
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
                    changed.mark(root, o, old.position(root, o).is_none());
                }
                for &o in was.iter().filter(|&&o| self.position(set, o).is_none()) {
                    changed.mark(root, o, false);
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
                    changed.mark(root, o, false);
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
                        changed.mark(root_of(param), arg, false);
                    }
                }
            }
        }
        // Whether each root has a changed object that is not new, once
        // every object is marked (one can be marked as changed before its
        // set says it is new).
        for (any_old, flags) in changed.any_old.iter_mut().zip(&changed.by_root) {
            *any_old = flags.contains(&CHANGED);
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use crate::backbone::{Backbone, ObjectId};
    use crate::model::{Model, SetDef};
    use crate::outcome::Outcome;
    use crate::tables::Tables;

    /// `S`, and `Sub` within it.
    static MODEL: Model = Model {
        name: "changes",
        sets: &[SetDef::plain("S", None), SetDef::plain("Sub", Some(0))],
        ..Model::EMPTY
    };

    /// The objects of `S` and of `Sub`.
    #[derive(Clone)]
    struct Sets(&'static [ObjectId], &'static [ObjectId]);

    impl Backbone for Sets {
        fn model(&self) -> &'static Model {
            &MODEL
        }
        fn objects(&self, set: u16, _: &[ObjectId]) -> Vec<ObjectId> {
            if set == 0 { self.0 } else { self.1 }.to_vec()
        }
        fn bool_property(&self, _: u16, _: &[ObjectId]) -> bool {
            false
        }
        fn int_property(&self, _: u16, _: &[ObjectId]) -> i64 {
            0
        }
        fn list_property(&self, _: u16, _: &[ObjectId]) -> Vec<i64> {
            Vec::new()
        }
        fn callback(&mut self, _: u16, _: &[ObjectId]) -> Outcome {
            Outcome::done()
        }
    }

    fn tables(sets: Sets) -> Tables {
        Tables::new(&sets).expect("lays out")
    }

    #[test]
    fn objects_added_are_new_and_an_old_one_joining_a_subset_is_changed() {
        let old = tables(Sets(&[0, 1, 2], &[1]));
        let added = tables(Sets(&[0, 1, 2, 3], &[1, 3]));
        let changed = added.changed_objects(&old);
        assert!(changed.contains(0, 3) && changed.is_new(0, 3));
        assert!(!changed.contains(0, 2) && !changed.contains(0, 1));
        assert!(changed.only_new(0), "3 is the only change, and new");

        let joined = tables(Sets(&[0, 1, 2, 3], &[1, 2]));
        let changed = joined.changed_objects(&old);
        assert!(changed.contains(0, 2) && !changed.is_new(0, 2));
        assert!(changed.is_new(0, 3));
        assert!(!changed.only_new(0), "2 joined `Sub`: not new");

        assert!(old.changed_objects(&old).is_empty());
    }
}
