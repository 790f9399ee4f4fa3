//! The checker: does a fully decided vector satisfy every constraint?
//! It evaluates constraints on fixed values, sharing nothing with
//! propagation but the tables, so that tests can compare the two.

use std::fmt;

use crate::backbone::ObjectId;
use crate::layout::Layout;
use crate::model::limits::MAX_VARS;
use crate::model::*;

/// A constraint that a complete candidate breaks, or an open instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The broken constraint (`None`: an instance is not decided).
    pub constraint: Option<u16>,
    /// The objects bound to its variables, by variable name.
    pub bindings: Vec<(String, ObjectId)>,
    /// A readable account, with names from the space.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Violation {}

struct Checker<'a> {
    layout: &'a Layout,
    words: &'a [u64],
}

pub(crate) fn check(layout: &Layout, words: &[u64]) -> Result<(), Violation> {
    let checker = Checker { layout, words };
    let model = layout.model;
    for (c, choice) in model.choices.iter().enumerate() {
        if matches!(choice.kind, ChoiceKind::Counter(_)) {
            continue;
        }
        let shape = &layout.shapes[c];
        for instance in 0..shape.count {
            let objects = layout.instance_objects(c as u16, instance);
            if layout.instance_exists(c as u16, &objects)
                && words[shape.base + instance * shape.width].count_ones() != 1
            {
                return Err(Violation {
                    constraint: None,
                    bindings: Vec::new(),
                    message: format!("{}{objects:?} is not decided", choice.name),
                });
            }
        }
    }
    for (c, def) in model.constraints.iter().enumerate() {
        let mut objects = [0; MAX_VARS];
        let mut failure = None;
        checker.each(def.vars, &mut objects, 0, &mut |objects| {
            if def.literals.iter().any(|l| checker.holds(l, objects)) {
                return true;
            }
            let bindings: Vec<(String, ObjectId)> = def
                .vars
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("${}", v.name), objects[i]))
                .collect();
            let shown: Vec<String> = bindings.iter().map(|(n, o)| format!("{n} = {o}")).collect();
            failure = Some(Violation {
                constraint: Some(c as u16),
                message: format!(
                    "constraint {} fails: {} (with {})",
                    def.origin,
                    def.description,
                    shown.join(", ")
                ),
                bindings,
            });
            false
        });
        if let Some(violation) = failure {
            return Err(violation);
        }
    }
    Ok(())
}

impl Checker<'_> {
    /// Calls `f` on every tuple of pairwise distinct objects of `vars`;
    /// stops when `f` returns false.
    fn each(
        &self,
        vars: &[VarDef],
        objects: &mut [ObjectId; MAX_VARS],
        i: usize,
        f: &mut dyn FnMut(&[ObjectId; MAX_VARS]) -> bool,
    ) -> bool {
        if i == vars.len() {
            return f(objects);
        }
        let var = &vars[i];
        let args: Vec<ObjectId> = var.args.iter().map(|&a| objects[a as usize]).collect();
        let root = self.layout.roots[var.set as usize];
        for &object in self.layout.set_objects(var.set, &args) {
            let clash = (0..i)
                .any(|j| objects[j] == object && self.layout.roots[vars[j].set as usize] == root);
            if clash || !self.member(var.set, &args, object) {
                continue;
            }
            objects[i] = object;
            if !self.each(vars, objects, i + 1, f) {
                return false;
            }
        }
        true
    }

    fn member(&self, set: u16, args: &[ObjectId], object: ObjectId) -> bool {
        match &self.layout.model.sets[set as usize].quotient {
            Some(q) => {
                let mut objects = args.to_vec();
                objects.push(object);
                self.enum_value(q.flag, &objects) == Some(QUOTIENT_TRUE)
            }
            None => true,
        }
    }

    /// The value index of a decided enum or integer instance, in the order
    /// of `objects`.
    fn enum_value(&self, choice: u16, objects: &[ObjectId]) -> Option<usize> {
        let (instance, reversed) = self.layout.instance(choice, objects)?;
        let shape = &self.layout.shapes[choice as usize];
        let mask = self.words[shape.base + instance * shape.width];
        if mask.count_ones() != 1 {
            return None;
        }
        let value = mask.trailing_zeros() as usize;
        match (
            &self.layout.model.choices[choice as usize].symmetry,
            reversed,
        ) {
            (Symmetry::Antisymmetric { inverse }, true) => inverse.get(value).map(|&v| v as usize),
            _ => Some(value),
        }
    }

    fn value(&self, term: &Term, objects: &[ObjectId; MAX_VARS]) -> Option<i64> {
        let args =
            |vars: &[Var]| -> Vec<ObjectId> { vars.iter().map(|&v| objects[v as usize]).collect() };
        match term {
            Term::Const(c) => Some(*c),
            Term::Property { property, args: a } => {
                Some(self.layout.int_property(*property, &args(a)))
            }
            Term::Product(factors) => factors.iter().try_fold(1i64, |product, factor| {
                Some(product.saturating_mul(self.value(factor, objects)?))
            }),
            Term::Choice(inst) => {
                let objects = args(inst.args);
                match &self.layout.model.choices[inst.choice as usize].kind {
                    ChoiceKind::Counter(def) => self.counter(def, &objects),
                    _ => {
                        let (instance, _) = self.layout.instance(inst.choice, &objects)?;
                        let index = self.enum_value(inst.choice, &objects)?;
                        self.layout
                            .universe(inst.choice, instance)
                            .get(index)
                            .copied()
                    }
                }
            }
        }
    }

    /// A counter's exact value, by enumeration.
    fn counter(&self, def: &CounterDef, params: &[ObjectId]) -> Option<i64> {
        let mut objects = [0; MAX_VARS];
        objects[..params.len()].copy_from_slice(params);
        let mut total = match (&def.base, def.op) {
            (Some(base), _) => self.value(base, &objects)?,
            (None, CounterOp::Sum) => 0i64,
            (None, CounterOp::Mul) => 1i64,
        };
        let mut ok = true;
        // The quantified variables, with the parameters bound.
        self.each(def.vars, &mut objects, params.len(), &mut |objects| {
            if def.condition.iter().all(|l| self.holds(l, objects)) {
                match self.value(&def.increment, objects) {
                    Some(v) if def.op == CounterOp::Sum => total = total.saturating_add(v),
                    Some(v) => total = total.saturating_mul(v),
                    None => ok = false,
                }
            }
            true
        });
        ok.then_some(total)
    }

    fn holds(&self, literal: &Literal, objects: &[ObjectId; MAX_VARS]) -> bool {
        let args =
            |vars: &[Var]| -> Vec<ObjectId> { vars.iter().map(|&v| objects[v as usize]).collect() };
        match literal {
            Literal::Is { instance, values } => self
                .enum_value(instance.choice, &args(instance.args))
                .is_some_and(|v| values & (1 << v) != 0),
            Literal::Same { lhs, rhs, equal } => {
                let l = self.enum_value(lhs.choice, &args(lhs.args));
                let r = self.enum_value(rhs.choice, &args(rhs.args));
                l.is_some() && r.is_some() && (l == r) == *equal
            }
            Literal::Compare { lhs, op, rhs } => {
                match (self.value(lhs, objects), self.value(rhs, objects)) {
                    (Some(l), Some(r)) => op.eval(l, r),
                    _ => false,
                }
            }
            Literal::Property {
                property,
                args: a,
                negated,
            } => self.layout.bool_property(*property, &args(a)) != *negated,
        }
    }
}
