//! Symmetric and antisymmetric enum choices.
//!
//! Owns the `symmetric` and `antisymmetric` declarations: one per choice, on
//! a choice with exactly two parameters of one set, and for antisymmetric
//! ones, a mapping in which each value has one inverse. Reads the choice's
//! parameters and [`EnumDomain`]; produces its [`Symmetry`].

use super::context::{Checker, UNRESOLVED};
use crate::ast::{self, Ident};
use crate::diagnostic::Diagnostic;
use crate::ir::*;
use crate::source::Span;

impl Checker<'_> {
    /// Checks the `symmetric` or `antisymmetric` declaration of an enum choice.
    pub(super) fn symmetry(&mut self, id: ChoiceId, decl: &ast::ChoiceDecl, body: &ast::EnumBody) {
        let Some(first) = body.symmetries.first() else {
            return;
        };
        for extra in &body.symmetries[1..] {
            self.error(
                Diagnostic::error(
                    "symmetry",
                    format!("`{}` declares its symmetry twice", decl.name.name),
                    extra.span(),
                    "second declaration",
                )
                .with_label(first.span(), "first declaration"),
            );
        }
        let (kind, article) = if matches!(first, ast::SymmetryDecl::Symmetric(_)) {
            ("symmetric", "a")
        } else {
            ("antisymmetric", "an")
        };
        let params = &self.space.choices[id.index()].params;
        if params.len() != 2 {
            let message = format!(
                "`{}` has {} parameter(s), but {article} {kind} choice needs exactly two",
                decl.name.name,
                params.len()
            );
            self.error(
                Diagnostic::error(
                    "symmetry",
                    message,
                    first.span(),
                    format!("`{kind}` needs two parameters"),
                )
                .with_label(
                    self.param_list_span(id, decl.header_span),
                    "parameters declared here",
                )
                .with_note(format!("`{kind}` relates `c($a, $b)` and `c($b, $a)`")),
            );
            return;
        }
        if params[0].set.set != params[1].set.set {
            let (a, b) = (params[0].set.set, params[1].set.set);
            if a != UNRESOLVED && b != UNRESOLVED {
                let message = format!(
                    "`{}` has parameters in `{}` and `{}`, but {article} {kind} choice needs both in one set",
                    decl.name.name, self.space.sets[a.index()].name, self.space.sets[b.index()].name
                );
                let spans = &self.choice_param_spans[id.index()];
                let second = spans[1];
                self.error(
                    Diagnostic::error(
                        "symmetry",
                        message,
                        first.span(),
                        format!("`{kind}` needs parameters of one set"),
                    )
                    .with_label(second, "this parameter ranges over another set"),
                );
            }
            return;
        }
        let ChoiceKind::Enum(domain) = &self.space.choices[id.index()].kind else {
            return;
        };
        let domain = domain.clone();
        let symmetry = match first {
            ast::SymmetryDecl::Symmetric(_) => Symmetry::Symmetric,
            ast::SymmetryDecl::Antisymmetric { mappings, .. } => {
                let mut inverse: Vec<usize> = (0..domain.values.len()).collect();
                let mut mapped: Vec<Option<Span>> = vec![None; domain.values.len()];
                for (from, to) in mappings {
                    let (Some(a), Some(b)) = (
                        self.value_index(&decl.name.name, &domain, from),
                        self.value_index(&decl.name.name, &domain, to),
                    ) else {
                        continue;
                    };
                    if a == b {
                        // Unmentioned values already map to themselves, so
                        // `A -> A` is a typo for a real pair or a no-op.
                        self.error(
                            Diagnostic::error(
                                "symmetry",
                                format!("`{0} -> {0}` maps a value to itself", from.name),
                                from.span.to(to.span),
                                "a value mapped to itself",
                            )
                            .with_note(format!(
                                "values left out of `antisymmetric:` already map to themselves: remove this line, or name the value `{}` turns into when the arguments are swapped",
                                from.name
                            )),
                        );
                        continue;
                    }
                    let mut clash = false;
                    for (index, ident) in [(a, from), (b, to)] {
                        if let Some(previous) = mapped[index] {
                            clash = true;
                            self.error(
                                Diagnostic::error("symmetry", format!("value `{}` appears in two mappings", ident.name), ident.span, "mapped again here")
                                    .with_label(previous, "first mapped here")
                                    .with_note("each value has one inverse: `A -> B` already says that B maps back to A"),
                            );
                        }
                    }
                    if !clash {
                        mapped[a] = Some(from.span);
                        mapped[b] = Some(to.span);
                        inverse[a] = b;
                        inverse[b] = a;
                    }
                }
                Symmetry::Antisymmetric { inverse }
            }
        };
        self.space.choices[id.index()].symmetry = symmetry;
    }

    fn value_index(&mut self, choice: &str, domain: &EnumDomain, name: &Ident) -> Option<usize> {
        let set = self.value_set(
            choice,
            &EnumDomain {
                values: domain.values.clone(),
                aliases: Vec::new(),
            },
            std::slice::from_ref(name),
            false,
        )?;
        set.iter().next()
    }
}
