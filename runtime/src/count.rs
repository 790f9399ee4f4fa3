//! Counting the leaves below a candidate without visiting each one.
//!
//! Two open instances interact only through a constraint instance that
//! reads both (directly, or through a counter). Laid out once, the
//! constraint instances give an interaction graph over the instances;
//! below a candidate, the open instances fall into connected components
//! whose leaves combine freely, so the count is the product of theirs.
//! The count of a component depends only on its instances' domains and
//! the values of the decided instances it touches, so it is memoized on
//! those. Each component is counted by deciding its most connected
//! instance, value by value, each propagated; the component left may split
//! again. Spaces whose objects change during a search (triggers, quotient
//! sets) are counted leaf by leaf instead.

use std::collections::{BTreeSet, HashMap};

use crate::backbone::{Backbone, ObjectId};
use crate::candidate::Candidate;
use crate::layout::Layout;
use crate::model::limits::MAX_VARS;
use crate::model::{ChoiceKind, InstanceRef, Literal, Term, VarDef};

/// What counting found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// The leaves (fully decided candidates) below the candidate.
    pub leaves: u128,
    /// Decisions taken while counting.
    pub decisions: u64,
    /// Decisions that propagation refuted.
    pub dead_ends: u64,
    /// Components whose count was reused rather than counted again.
    pub reused: u64,
}

/// The number of leaves below `root`, branching in `priority` order
/// where the interaction graph does not decide.
pub fn count_leaves<B: Backbone>(root: &Candidate<B>, priority: &[u16]) -> Count {
    let model = root.model();
    let mut count = Count::default();
    if !model.triggers.is_empty() || model.sets.iter().any(|s| s.quotient.is_some()) {
        count.leaves = leaf_by_leaf(root, priority, &mut count);
        return count;
    }
    let graph = Graph::new(root.layout());
    let open: Vec<u32> = (0..graph.instances.len() as u32)
        .filter(|&g| graph.is_open(root, g))
        .collect();
    let mut counter = Counter {
        graph: &graph,
        priority,
        memo: HashMap::new(),
        count: &mut count,
    };
    let mut leaves = 1u128;
    for component in counter.components(root, &open) {
        leaves = leaves.saturating_mul(counter.component(root, &component));
        if leaves == 0 {
            break;
        }
    }
    count.leaves = leaves;
    count
}

/// Depth first, every leaf visited.
fn leaf_by_leaf<B: Backbone>(root: &Candidate<B>, priority: &[u16], count: &mut Count) -> u128 {
    let mut leaves = 0u128;
    let mut stack = vec![root.clone()];
    while let Some(candidate) = stack.pop() {
        let Some(instance) = candidate.next_open(priority) else {
            leaves += 1;
            continue;
        };
        for action in candidate.alternatives(&instance) {
            let mut child = candidate.clone();
            count.decisions += 1;
            match child.apply(&action) {
                Ok(()) => stack.push(child),
                Err(_) => count.dead_ends += 1,
            }
        }
    }
    leaves
}

/// Instances (enum and integer, numbered as the layout stores them) and
/// the constraint instances that tie them.
struct Graph {
    /// Per instance: its choice and storage index.
    instances: Vec<(u16, usize)>,
    /// Per instance: the edges that hold it.
    edges_of: Vec<Vec<u32>>,
    /// Per edge: its instances, sorted.
    edges: Vec<Vec<u32>>,
    /// Per choice: the number of the first of its instances.
    first: Vec<u32>,
}

impl Graph {
    fn new(layout: &Layout) -> Graph {
        let model = layout.model;
        let mut instances = Vec::new();
        let mut first = Vec::new();
        for (c, shape) in layout.shapes.iter().enumerate() {
            first.push(instances.len() as u32);
            for index in 0..shape.count {
                instances.push((c as u16, index));
            }
        }
        let mut graph = Graph {
            edges_of: vec![Vec::new(); instances.len()],
            instances,
            edges: Vec::new(),
            first,
        };
        let mut counter_reads = HashMap::new();
        let mut unique = BTreeSet::new();
        for def in model.constraints {
            let mut objects = [0; MAX_VARS];
            each_binding(layout, def.vars, &mut objects, 0, &mut |objects| {
                let statically_true = def.literals.iter().any(|l| match l {
                    Literal::Property {
                        property,
                        args,
                        negated,
                    } => {
                        let args: Vec<ObjectId> =
                            args.iter().map(|&a| objects[a as usize]).collect();
                        layout.bool_property(*property, &args) != *negated
                    }
                    _ => false,
                });
                if statically_true {
                    return;
                }
                let mut edge = BTreeSet::new();
                for literal in def.literals {
                    graph.literal_reads(layout, literal, objects, &mut counter_reads, &mut edge);
                }
                if edge.len() > 1 {
                    unique.insert(edge.into_iter().collect::<Vec<u32>>());
                }
            });
        }
        for edge in unique {
            let number = graph.edges.len() as u32;
            for &g in &edge {
                graph.edges_of[g as usize].push(number);
            }
            graph.edges.push(edge);
        }
        graph
    }

    /// The instances `literal` reads under `objects`, counters expanded
    /// into what they read.
    fn literal_reads(
        &self,
        layout: &Layout,
        literal: &Literal,
        objects: &[ObjectId; MAX_VARS],
        counters: &mut HashMap<(u16, usize), Vec<u32>>,
        out: &mut BTreeSet<u32>,
    ) {
        let mut read = |instance: &InstanceRef| self.read(layout, instance, objects, counters, out);
        match literal {
            Literal::Is { instance, .. } => read(instance),
            Literal::Same { lhs, rhs, .. } => {
                read(lhs);
                read(rhs);
            }
            Literal::Compare { lhs, rhs, .. } => {
                fn each(term: &Term, read: &mut dyn FnMut(&InstanceRef)) {
                    match term {
                        Term::Choice(instance) => read(instance),
                        Term::Product(factors) => factors.iter().for_each(|f| each(f, read)),
                        Term::Const(_) | Term::Property { .. } => {}
                    }
                }
                each(lhs, &mut read);
                each(rhs, &mut read);
            }
            Literal::Property { .. } => {}
        }
    }

    fn read(
        &self,
        layout: &Layout,
        instance: &InstanceRef,
        objects: &[ObjectId; MAX_VARS],
        counters: &mut HashMap<(u16, usize), Vec<u32>>,
        out: &mut BTreeSet<u32>,
    ) {
        let args: Vec<ObjectId> = instance.args.iter().map(|&a| objects[a as usize]).collect();
        let Some((index, _)) = layout.instance(instance.choice, &args) else {
            return;
        };
        let ChoiceKind::Counter(counter) = &layout.model.choices[instance.choice as usize].kind
        else {
            out.insert(self.first[instance.choice as usize] + index as u32);
            return;
        };
        let key = (instance.choice, index);
        if let Some(reads) = counters.get(&key) {
            out.extend(reads);
            return;
        }
        // What every binding of the counter's own variables reads.
        let mut reads = BTreeSet::new();
        let mut bound = [0; MAX_VARS];
        bound[..args.len()].copy_from_slice(&args);
        let params = layout.model.choices[instance.choice as usize].params.len();
        each_binding(layout, counter.vars, &mut bound, params, &mut |objects| {
            if let Term::Choice(increment) = &counter.increment {
                self.read(layout, increment, objects, counters, &mut reads);
            }
            for literal in counter.condition {
                self.literal_reads(layout, literal, objects, counters, &mut reads);
            }
        });
        out.extend(&reads);
        counters.insert(key, reads.into_iter().collect());
    }

    fn mask<B: Backbone>(&self, candidate: &Candidate<B>, g: u32) -> u64 {
        let (choice, index) = self.instances[g as usize];
        candidate.open_values(choice, index)
    }

    fn is_open<B: Backbone>(&self, candidate: &Candidate<B>, g: u32) -> bool {
        let (choice, _) = self.instances[g as usize];
        if matches!(
            candidate.model().choices[choice as usize].kind,
            ChoiceKind::Counter(_)
        ) {
            return false;
        }
        let mask = self.mask(candidate, g);
        mask & mask.wrapping_sub(1) != 0
    }
}

/// Calls `f` on every tuple of pairwise distinct objects of `vars` from
/// variable `i` on (the earlier ones bound already).
fn each_binding(
    layout: &Layout,
    vars: &[VarDef],
    objects: &mut [ObjectId; MAX_VARS],
    i: usize,
    f: &mut dyn FnMut(&[ObjectId; MAX_VARS]),
) {
    if i == vars.len() {
        f(objects);
        return;
    }
    let var = &vars[i];
    let args: Vec<ObjectId> = var.args.iter().map(|&a| objects[a as usize]).collect();
    let root = layout.roots[var.set as usize];
    for &object in layout.set_objects(var.set, &args) {
        let clash =
            (0..i).any(|j| objects[j] == object && layout.roots[vars[j].set as usize] == root);
        if !clash {
            objects[i] = object;
            each_binding(layout, vars, objects, i + 1, f);
        }
    }
}

struct Counter<'g, 'c> {
    graph: &'g Graph,
    priority: &'g [u16],
    memo: HashMap<Vec<u64>, u128>,
    count: &'c mut Count,
}

impl Counter<'_, '_> {
    /// `open` split into connected components, each sorted.
    fn components<B: Backbone>(&self, candidate: &Candidate<B>, open: &[u32]) -> Vec<Vec<u32>> {
        let in_open: BTreeSet<u32> = open.iter().copied().collect();
        let mut seen = BTreeSet::new();
        let mut components = Vec::new();
        for &start in open {
            if !seen.insert(start) {
                continue;
            }
            let mut component = vec![start];
            let mut next = 0;
            while next < component.len() {
                let g = component[next];
                next += 1;
                for &e in &self.graph.edges_of[g as usize] {
                    for &h in &self.graph.edges[e as usize] {
                        if in_open.contains(&h) && seen.insert(h) {
                            component.push(h);
                        }
                    }
                }
            }
            component.sort_unstable();
            components.push(component);
        }
        let _ = candidate;
        components
    }

    /// The leaves of one component below `candidate`.
    fn component<B: Backbone>(&mut self, candidate: &Candidate<B>, component: &[u32]) -> u128 {
        let key = self.key(candidate, component);
        if let Some(&leaves) = self.memo.get(&key) {
            self.count.reused += 1;
            return leaves;
        }
        let branch = self.branching(candidate, component);
        let (choice, index) = self.graph.instances[branch as usize];
        let mask = candidate.open_values(choice, index);
        let mut leaves = 0u128;
        let mut rest = mask;
        while rest != 0 {
            let bit = rest & rest.wrapping_neg();
            rest &= rest - 1;
            let mut child = candidate.clone();
            self.count.decisions += 1;
            if child.decide(choice, index, bit).is_err() {
                self.count.dead_ends += 1;
                continue;
            }
            let open: Vec<u32> = component
                .iter()
                .copied()
                .filter(|&g| self.graph.is_open(&child, g))
                .collect();
            let mut product = 1u128;
            for part in self.components(&child, &open) {
                product = product.saturating_mul(self.component(&child, &part));
                if product == 0 {
                    break;
                }
            }
            leaves = leaves.saturating_add(product);
        }
        self.memo.insert(key, leaves);
        leaves
    }

    /// The component's instances and domains, and the domains of the
    /// instances it touches.
    fn key<B: Backbone>(&self, candidate: &Candidate<B>, component: &[u32]) -> Vec<u64> {
        let mut touched = BTreeSet::new();
        for &g in component {
            for &e in &self.graph.edges_of[g as usize] {
                touched.extend(
                    self.graph.edges[e as usize]
                        .iter()
                        .filter(|h| component.binary_search(h).is_err()),
                );
            }
        }
        let mut key = Vec::with_capacity(2 * (component.len() + touched.len()) + 1);
        for &g in component {
            key.push(u64::from(g));
            key.push(self.graph.mask(candidate, g));
        }
        key.push(u64::MAX);
        for g in touched {
            key.push(u64::from(g));
            key.push(self.graph.mask(candidate, g));
        }
        key
    }

    /// The instance to decide first: the one in most edges with another
    /// open instance of the component, the earliest in priority order on
    /// a tie.
    fn branching<B: Backbone>(&self, candidate: &Candidate<B>, component: &[u32]) -> u32 {
        let rank = |g: u32| {
            let (choice, _) = self.graph.instances[g as usize];
            self.priority
                .iter()
                .position(|&c| c == choice)
                .unwrap_or(self.priority.len())
        };
        let degree = |g: u32| {
            self.graph.edges_of[g as usize]
                .iter()
                .filter(|&&e| {
                    self.graph.edges[e as usize]
                        .iter()
                        .any(|&h| h != g && component.binary_search(&h).is_ok())
                })
                .count()
        };
        let _ = candidate;
        component
            .iter()
            .copied()
            .max_by_key(|&g| (degree(g), std::cmp::Reverse(rank(g)), std::cmp::Reverse(g)))
            .unwrap_or(component[0])
    }
}
