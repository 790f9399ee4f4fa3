//! Conditions on objects themselves: membership (`$x in Set`) and order
//! (`$a < $b`).
//!
//! Both are known before any decision, so each becomes a literal on a
//! boolean property that the checker declares and the engine computes from
//! its own set tables ([`Derived`]): the rest of the pipeline sees an
//! ordinary property. Membership of a quotient set is the exception: it
//! changes during the search, and is the quotient's representative flag.

use super::context::{Checker, Scope, UNRESOLVED};
use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::ir::*;
use crate::source::Span;

impl Checker<'_> {
    /// `$x [not] in Set(args)`.
    pub(super) fn membership(
        &mut self,
        var: &ast::Ident,
        negated: bool,
        set_ref: &ast::SetRef,
        span: Span,
        scope: &mut Scope,
    ) -> Option<Literal> {
        let object = self.var(var, scope);
        let set = self.set_ref(set_ref, scope);
        let (object, set) = (object?, set?);
        Self::mark_used(scope, &[object]);
        let object_set = scope.vars[object.index()].set.set;
        if object_set == UNRESOLVED {
            return None;
        }
        let (object_root, set_root) = (self.space.root(object_set), self.space.root(set.set));
        if object_root != set_root {
            let names = |id: SetId| self.space.set(id).name.clone();
            self.error(
                Diagnostic::error(
                    "membership-type",
                    format!(
                        "`${}` is an object of `{}`, which has no object in common with `{}`",
                        var.name,
                        names(object_set),
                        names(set.set)
                    ),
                    span,
                    if negated { "always holds" } else { "never holds" },
                )
                .with_note(format!(
                    "objects of different root sets (sets with no `subsetof`) are never the same: {}; test `${}` against `{}` or one of its subsets",
                    [(set.set, set_root), (object_set, object_root)]
                        .iter()
                        .filter(|(s, r)| s != r)
                        .map(|&(s, r)| format!("`{}` is a subset of `{}`", names(s), names(r)))
                        .chain((set.set == set_root && object_set == object_root).then(|| {
                            format!("`{}` and `{}` are both root sets", names(set.set), names(object_set))
                        }))
                        .collect::<Vec<_>>()
                        .join(" and "),
                    var.name,
                    names(object_root)
                )),
            );
            return None;
        }
        let mut args = set.args.clone();
        args.push(object);
        if let Some(quotient) = self.space.sets[set.set.index()].quotient {
            // The quotient's objects are its representatives.
            let value = if negated {
                QUOTIENT_FALSE
            } else {
                QUOTIENT_TRUE
            };
            return Some(Literal::Is {
                instance: Instance {
                    choice: self.space.quotients[quotient.index()].flag,
                    args,
                },
                values: ValueSet::single(value),
            });
        }
        if set.args.is_empty() && self.space.is_subset(object_set, set.set) {
            let names = |id: SetId| self.space.set(id).name.clone();
            self.diagnostics.push(
                Diagnostic::warning(
                    "membership-known",
                    format!(
                        "`${}` is an object of `{}`, a subset of `{}`: this condition {}",
                        var.name,
                        names(object_set),
                        names(set.set),
                        if negated {
                            "never holds"
                        } else {
                            "always holds"
                        }
                    ),
                    span,
                    "known from the sets",
                )
                .with_note("remove it, or test a set the objects may be outside of"),
            );
        }
        let set_name = self.space.sets[set.set.index()].name.clone();
        let mut params: Vec<SetId> = self.space.sets[set.set.index()]
            .params
            .iter()
            .map(|p| self.space.root(p.set.set))
            .collect();
        params.push(object_root);
        let property = self.derived_property(
            Derived::Member {
                set: set.set.index() as u16,
            },
            format!("in {set_name}"),
            &params,
            span,
        );
        Some(Literal::Property {
            call: PropertyCall { property, args },
            negated,
        })
    }

    /// `$a < $b` and the other comparisons of two objects of one root set.
    pub(super) fn object_order(
        &mut self,
        lhs: &ast::Ident,
        op: CompareOp,
        op_span: Span,
        rhs: &ast::Ident,
        scope: &mut Scope,
    ) -> Option<Literal> {
        let a = self.var(lhs, scope);
        let b = self.var(rhs, scope);
        let (a, b) = (a?, b?);
        Self::mark_used(scope, &[a, b]);
        let span = lhs.span.to(rhs.span);
        if a == b {
            self.error(
                Diagnostic::error(
                    "object-compare",
                    format!("`${}` is compared with itself", lhs.name),
                    span,
                    "always true or always false",
                )
                .with_note(
                    "compare two variables: `$a < $b` takes each pair of distinct objects once",
                ),
            );
            return None;
        }
        let (set_a, set_b) = (scope.vars[a.index()].set.set, scope.vars[b.index()].set.set);
        if set_a == UNRESOLVED || set_b == UNRESOLVED {
            return None;
        }
        let (root_a, root_b) = (self.space.root(set_a), self.space.root(set_b));
        if root_a != root_b {
            let names = |id: SetId| self.space.set(id).name.clone();
            self.error(
                Diagnostic::error(
                    "object-compare",
                    format!(
                        "`${}` and `${}` are objects of `{}` and `{}`, which have no order in common",
                        lhs.name,
                        rhs.name,
                        names(root_a),
                        names(root_b)
                    ),
                    op_span,
                    "objects of different root sets",
                )
                .with_note("objects are ordered within their root set (the set with no `subsetof`); compare two variables of one root set"),
            );
            return None;
        }
        // `>` and `>=` are `<` and `<=` with the objects swapped, so that
        // each order is one property.
        let (op, args) = match op {
            CompareOp::Gt => (CompareOp::Lt, vec![b, a]),
            CompareOp::Ge => (CompareOp::Le, vec![b, a]),
            op => (op, vec![a, b]),
        };
        let property = self.derived_property(
            Derived::Order(op),
            format!("object {}", op.symbol()),
            &[root_a, root_a],
            span,
        );
        Some(Literal::Property {
            call: PropertyCall { property, args },
            negated: false,
        })
    }

    /// The derived property `derived` over objects of `params`, declared on
    /// its first use.
    fn derived_property(
        &mut self,
        derived: Derived,
        name: String,
        params: &[SetId],
        span: Span,
    ) -> PropertyId {
        let existing = self.space.properties.iter().position(|p| {
            p.derived == Some(derived)
                && p.params
                    .iter()
                    .map(|v| v.set.set)
                    .eq(params.iter().copied())
        });
        if let Some(index) = existing {
            return PropertyId(index as u32);
        }
        let id = PropertyId(self.space.properties.len() as u32);
        let vars = params
            .iter()
            .enumerate()
            .map(|(i, &set)| Variable {
                name: format!("o{i}"),
                set: SetExpr {
                    set,
                    args: Vec::new(),
                },
                span,
            })
            .collect();
        self.property_param_spans.push(vec![span; params.len()]);
        self.space.properties.push(Property {
            name,
            doc: Vec::new(),
            params: vars,
            ty: PropertyType::Bool,
            derived: Some(derived),
            origin: self.origin(span),
        });
        id
    }
}
