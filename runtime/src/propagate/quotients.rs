//! Quotient sets and triggers: membership of an object (certain for
//! constraints, possible for counters), what a changed membership flag
//! filters and recounts, and the trigger instances whose condition is
//! certain. Reads domains, enumeration, clauses and counters.

use super::state::{Flow, Propagator};
use crate::backbone::ObjectId;
use crate::binding::{Binding, PARAM_VARS};
use crate::model::*;
use crate::values::{Status, MEMBER};

impl<'a> Propagator<'a> {
    /// Quotient sets hold the objects whose flag is certainly TRUE.
    pub(super) fn is_member(&self, set: u16, args: &[ObjectId], object: ObjectId) -> bool {
        if !self.layout.is_quotient[set as usize] {
            return true;
        }
        match &self.model().sets[set as usize].quotient {
            Some(quotient) => {
                let n = args.len();
                let mask = match self.layout.instance_by(quotient.flag, n + 1, |k| {
                    if k < n {
                        args[k]
                    } else {
                        object
                    }
                }) {
                    Some((instance, reversed)) => {
                        let shape = &self.layout.shapes[quotient.flag as usize];
                        let mask = self.words[shape.base + instance * shape.width];
                        if reversed {
                            self.layout.map_inverse(quotient.flag, mask)
                        } else {
                            mask
                        }
                    }
                    None => 0,
                };
                if self.possible_members {
                    mask & MEMBER != 0
                } else {
                    mask == MEMBER
                }
            }
            None => true,
        }
    }

    /// The membership flags of the quotient-set variables `from..` of a
    /// binding, each as (flag choice, its objects).
    pub(super) fn membership_flags(
        &self,
        vars: &[VarDef],
        from: usize,
        b: &Binding,
    ) -> Vec<(u16, Vec<ObjectId>)> {
        let model = self.model();
        (from..vars.len())
            .filter_map(|i| {
                let quotient = model.sets[vars[i].set as usize].quotient.as_ref()?;
                let mut objects: Vec<ObjectId> = b.args(vars[i].args).to_vec();
                objects.push(b.objects[i]);
                Some((quotient.flag, objects))
            })
            .collect()
    }

    /// The instances of callback triggers whose condition is certain: each
    /// as (trigger, objects of its variables).
    pub fn certain_triggers(&mut self) -> Vec<(u16, Vec<ObjectId>)> {
        let model = self.model();
        let mut out = Vec::new();
        for (t, trigger) in model.triggers.iter().enumerate() {
            if !matches!(trigger.action, TriggerAction::Callback { .. }) {
                continue;
            }
            let mut b = Binding::empty();
            let _ = self.for_each(trigger.vars, &mut b, &mut |p, b| {
                if trigger
                    .condition
                    .iter()
                    .all(|l| p.status(l, b) == Status::True)
                {
                    out.push((t as u16, b.objects[..trigger.vars.len()].to_vec()));
                }
                Ok(())
            });
        }
        out
    }

    /// A quotient flag changed: constraints and counters quantified over the
    /// quotient set see a new member.
    pub(super) fn on_membership_change(&mut self, choice: u16, objects: &[ObjectId]) -> Flow {
        let model = self.model();
        let Some(set) = self.layout.flag_of[choice as usize] else {
            return Ok(());
        };
        // Constraints hold for certain members only; counters count
        // possible ones, so they follow every change.
        let certain = self.mask(choice, objects) == 1;
        let (args, member) = objects.split_at(objects.len() - 1);
        let bind_member = |vars: &[VarDef], v: usize, b: &mut Binding| -> bool {
            vars[v].args.iter().zip(args).all(|(&a, &o)| b.bind(a, o))
                && b.bind(v as Var, member[0])
        };
        for (c, def) in model.constraints.iter().enumerate().filter(|_| certain) {
            for v in (0..def.vars.len()).filter(|&v| def.vars[v].set == set) {
                let mut b = Binding::empty();
                if bind_member(def.vars, v, &mut b) {
                    self.for_each(def.vars, &mut b, &mut |p, b| p.filter(c as u16, b))?;
                }
            }
        }
        for (k, choice_def) in model.choices.iter().enumerate() {
            let ChoiceKind::Counter(def) = &choice_def.kind else {
                continue;
            };
            let params = choice_def.params.len();
            for v in (0..def.vars.len()).filter(|&v| def.vars[v].set == set) {
                let mut b = Binding::empty();
                if bind_member(def.vars, v, &mut b) {
                    b.bound &= (1u32 << params) - 1;
                    self.for_each(&def.vars[..params], &mut b, &mut |p, b| {
                        p.update_counter(k as u16, &b.args(&PARAM_VARS[..params]))
                    })?;
                }
            }
        }
        Ok(())
    }
}
