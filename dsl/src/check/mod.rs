//! The checker: turns the parsed items of a space (all files, includes
//! resolved) into the checked [`Space`] and its diagnostics.
//!
//! The passes share one context, [`Checker`] ([`context`]): the space being
//! built, the name tables, the spans kept for error messages, and the
//! diagnostics in the order they are found. This module only runs the
//! passes, in a fixed order, because each reads what the earlier ones
//! produced:
//!
//! 1. [`resolve`]: set names, then each set's parameters, superset and
//!    disjoint sets;
//! 2. [`quotients`]: the shape of each quotient set and the choice and
//!    counter it generates, so that other items may use them;
//! 3. [`resolve`]: `subsetof` cycles are reported and cut, then properties
//!    and choice headers are declared ([`domains`] reads enum values and
//!    aliases on the way);
//! 4. choice bodies: integer universes ([`domains`]), symmetries
//!    ([`symmetry`]) and the `requires` of enum values ([`constraints`]);
//! 5. [`counters`]: counter bodies, once every callable is declared;
//! 6. [`constraints`]: `require` and `trigger` items;
//! 7. [`quotients`]: the bodies, which may read any choice;
//! 8. [`counters`]: cycles between counters, once every counter is known;
//! 9. [`index`]: which clauses and counters read each choice;
//! 10. [`limits`]: what the engine cannot hold or does not support yet,
//!     on the whole checked space.
//!
//! [`typing`] is not a pass of its own: it types the conditions and operands
//! that passes 4 to 7 meet, with [`objects`] for the conditions on objects
//! (membership and order).
//!
//! Errors accumulate: every item is checked even after an earlier one
//! failed, and a name whose declaration is broken is not reported again
//! where used. The order of the diagnostics is part of the interface (the
//! fail corpus snapshots record it), so changing the order of the passes
//! changes the output.

mod constraints;
mod context;
mod counters;
mod domains;
mod index;
mod limits;
mod objects;
mod quotients;
mod resolve;
mod symmetry;
mod typing;

use std::collections::{HashMap, HashSet};

use crate::ast::Item;
use crate::diagnostic::Diagnostic;
use crate::ir::*;
use crate::source::SourceMap;
use context::Checker;

/// Checks the items of a space (all files, includes resolved).
/// `incomplete` says an include could not be read or parsed: unknown names
/// are then not reported, as they may be declared there.
pub(crate) fn check(
    items: &[Item],
    broken: &HashSet<String>,
    incomplete: bool,
    sources: &SourceMap,
) -> (Space, Vec<Diagnostic>) {
    let mut checker = Checker {
        sources,
        broken,
        incomplete,
        diagnostics: Vec::new(),
        space: Space::default(),
        set_names: HashMap::new(),
        set_spans: Vec::new(),
        callables: HashMap::new(),
        property_param_spans: Vec::new(),
        choice_param_spans: Vec::new(),
        choice_spans: Vec::new(),
        callback_spans: Vec::new(),
        counter_bodies: Vec::new(),
        counter_operand_spans: HashMap::new(),
    };
    checker.run(items);
    (checker.space, checker.diagnostics)
}

impl<'a> Checker<'a> {
    /// Runs the passes in the order the module header explains.
    fn run(&mut self, items: &'a [Item]) {
        // Sets first: every other declaration refers to them.
        for item in items {
            match item {
                Item::Set(set) => self.declare_set(&set.name, &set.doc, set.span),
                Item::Quotient(q) => self.declare_set(&q.name, &q.doc, q.span),
                _ => {}
            }
        }
        let sets: Vec<&crate::ast::SetDecl> = items
            .iter()
            .filter_map(|item| match item {
                Item::Set(set) => Some(set),
                _ => None,
            })
            .collect();
        for index in resolution_order(&sets) {
            self.resolve_set(sets[index]);
        }
        // Quotient sets get their shape before subset cycles are cut: a
        // quotient is a subset of the set it partitions.
        let mut quotients = Vec::new();
        for item in items {
            if let Item::Quotient(q) = item {
                quotients.push(self.declare_quotient(q));
            }
        }
        self.break_subset_cycles();
        // Then every callable, so bodies may refer to any of them.
        let mut choices = Vec::new();
        for item in items {
            match item {
                Item::Property(p) => self.declare_property(p),
                Item::Choice(c) => choices.push((self.declare_choice(c), c)),
                _ => {}
            }
        }
        for (id, choice) in &choices {
            if let Some(id) = id {
                self.choice_body(*id, choice);
            }
        }
        // Counters last among choices: they may read any other choice.
        let bodies = std::mem::take(&mut self.counter_bodies);
        for (id, body, scope) in bodies {
            self.counter_body(id, body, scope);
        }
        for item in items {
            match item {
                Item::Require(r) => self.require(r),
                Item::Trigger(t) => self.trigger(t),
                _ => {}
            }
        }
        // Quotient bodies generate constraints over choices declared anywhere.
        for (q, decl) in quotients
            .into_iter()
            .zip(items.iter().filter_map(|i| match i {
                Item::Quotient(q) => Some(q),
                _ => None,
            }))
        {
            if let Some(q) = q {
                self.quotient_body(q, decl);
            }
        }
        self.check_counter_cycles();
        self.index_clauses();
        self.check_limits();
    }
}

/// The order in which to resolve `set` items: a set after the sets its
/// parameters and superset name, so that `set A($x in B)` sees whether `B`
/// takes arguments even when `B` is declared below. Otherwise, and for sets
/// on a cycle (reported where a set names itself, or as a missing
/// argument), the order of declaration, which keeps the order of the
/// diagnostics.
fn resolution_order(sets: &[&crate::ast::SetDecl]) -> Vec<usize> {
    use std::collections::BTreeSet;
    let index: HashMap<&str, usize> = sets
        .iter()
        .enumerate()
        .rev() // A duplicate name resolves to its first declaration.
        .map(|(i, s)| (s.name.name.as_str(), i))
        .collect();
    let mut waiting = vec![0usize; sets.len()];
    let mut needed_by: Vec<Vec<usize>> = vec![Vec::new(); sets.len()];
    for (i, set) in sets.iter().enumerate() {
        let named: BTreeSet<usize> = set
            .params
            .iter()
            .map(|p| &p.set)
            .chain(set.superset.as_ref())
            .filter_map(|r| index.get(r.name.name.as_str()).copied())
            .filter(|&j| j != i)
            .collect();
        waiting[i] = named.len();
        for j in named {
            needed_by[j].push(i);
        }
    }
    // Always the first ready set, so sets already in order stay in order.
    let mut ready: BTreeSet<usize> = (0..sets.len()).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(sets.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &k in &needed_by[i] {
            waiting[k] -= 1;
            if waiting[k] == 0 {
                ready.insert(k);
            }
        }
    }
    let placed: HashSet<usize> = order.iter().copied().collect();
    order.extend((0..sets.len()).filter(|i| !placed.contains(i)));
    order
}
