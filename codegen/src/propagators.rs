//! The space's propagators as Rust: per constraint, the filter the engine
//! runs on one of its instances, each literal's read written out with its
//! choice, variables, values and operator as constants (see
//! `commute_runtime::compiled`). The filters read the literals in the
//! tables' order and end in the engine's enforcement, as the table-driven
//! path does, so both reach the same leaves and dead ends.
//!
//! Emitted only for spaces whose constraints have at most
//! [`MAX_COMPILED_LITERALS`] literals in all (or as [`Propagators`] asks):
//! a larger space keeps the tables alone, so that its crate's build stays
//! short, its `Propagators` then an alias of the runtime's `Tables` (no
//! filter), so that code naming it builds either way.

use commute_model::{self as model, Model};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};

/// Whether generated code includes the space's propagators.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Propagators {
    /// Compiled when the space has at most [`MAX_COMPILED_LITERALS`]
    /// constraint literals, the tables alone otherwise.
    #[default]
    Auto,
    /// Always compiled.
    Compiled,
    /// Never: the engine filters every constraint from the tables (the
    /// generated file is as it was before propagators were compiled, but
    /// for `Propagators`, an alias of the runtime's `compiled::Tables`).
    Tables,
}

/// Constraint literals above which [`Propagators::Auto`] keeps the tables
/// alone: a few lines of Rust per literal (more for a mask of many
/// values). The bundled spaces have at most 268 (`limits_at_the_edge`;
/// the loop space 100).
pub const MAX_COMPILED_LITERALS: usize = 4096;

impl Propagators {
    /// Whether the propagators of `model` are compiled.
    pub(crate) fn compiles(self, model: &Model) -> bool {
        match self {
            Propagators::Auto => {
                let literals: usize = model.constraints.iter().map(|c| c.literals.len()).sum();
                literals <= MAX_COMPILED_LITERALS
            }
            Propagators::Compiled => true,
            Propagators::Tables => false,
        }
    }
}

/// What the emitter needs of the generator: the tables and how to name a
/// choice's index and value masks with the constants of its module.
pub(crate) struct Names<'g> {
    pub model: &'static Model,
    pub choice_modules: &'g [Ident],
    pub mask: &'g dyn Fn(u16, u64) -> TokenStream,
    /// Doc comment lines, wrapped as the rest of the file's.
    pub doc: &'g dyn Fn(&[String]) -> TokenStream,
}

impl Names<'_> {
    fn choice(&self, choice: u16) -> TokenStream {
        let module = &self.choice_modules[usize::from(choice)];
        quote!(#module::CHOICE)
    }
}

/// The `Propagators` item and its impls.
pub(crate) fn emit(names: &Names<'_>, main: &str) -> TokenStream {
    let model = names.model;
    let filters: Vec<TokenStream> = model
        .constraints
        .iter()
        .enumerate()
        .map(|(index, constraint)| filter(names, index, constraint))
        .collect();
    let arms: Vec<TokenStream> = (0..model.constraints.len())
        .map(|index| {
            let n = Lit::u16_unsuffixed(index as u16);
            let name = filter_name(index);
            quote!(#n => Propagators::#name(clause))
        })
        .collect();
    let dispatch = if arms.is_empty() {
        quote! {
            let _ = (constraint, clause);
            None
        }
    } else {
        quote! {
            Some(match constraint {
                #(#arms,)*
                _ => return None,
            })
        }
    };
    let docs = (names.doc)(&[
        format!("The propagators compiled from `{main}`: per constraint of [`MODEL`], the filter the engine runs on one of its instances, its literals' reads written out."),
        String::new(),
        "[`Backbone`] hands them to the engine, which compares them with its table-driven path in tests (`commute_runtime::compiled`).".to_string(),
    ]);
    quote! {
        #docs
        #[derive(Clone, Copy, Debug)]
        pub struct Propagators;

        impl ::commute_runtime::compiled::Propagators for Propagators {
            fn model() -> Option<&'static ::commute_runtime::Model> {
                Some(&MODEL)
            }

            #[inline(always)]
            fn filter<C: ::commute_runtime::compiled::Reads>(
                constraint: u16,
                clause: &mut C,
            ) -> Option<Result<(), C::Error>> {
                #dispatch
            }
        }

        impl Propagators {
            #(#filters)*
        }
    }
}

/// `Propagators` of a space left to the tables: the same item, so that
/// code naming it builds either way, with no filter (the `Backbone`
/// then hands nothing over).
pub(crate) fn tables_only(doc: &dyn Fn(&[String]) -> TokenStream, main: &str) -> TokenStream {
    let docs = doc(&[
        format!("No propagators are compiled from `{main}`: the engine filters every constraint of [`MODEL`] from the tables."),
    ]);
    quote! {
        #docs
        pub type Propagators = ::commute_runtime::compiled::Tables;
    }
}

/// The two methods of the `Backbone` impl that hand the propagators over.
pub(crate) fn backbone_methods() -> TokenStream {
    quote! {
        fn compiled_for(&self) -> Option<&'static ::commute_runtime::Model> {
            <Propagators as ::commute_runtime::compiled::Propagators>::model()
        }

        #[inline(always)]
        fn filter<C: ::commute_runtime::compiled::Reads>(
            constraint: u16,
            clause: &mut C,
        ) -> Option<Result<(), C::Error>> {
            <Propagators as ::commute_runtime::compiled::Propagators>::filter(constraint, clause)
        }
    }
}

fn filter_name(index: usize) -> Ident {
    format_ident!("constraint_{}", index)
}

/// One constraint's filter: its literals read in order, the clause
/// settled as soon as one holds or two are unknown, then enforced.
fn filter(names: &Names<'_>, index: usize, constraint: &model::ConstraintDef) -> TokenStream {
    let name = filter_name(index);
    let docs = (names.doc)(&[format!(
        "`{}`: {}",
        constraint.origin, constraint.description
    )]);
    let reads = constraint.literals.iter().enumerate().map(|(i, literal)| {
        let position = Lit::u8_unsuffixed(i as u8);
        let status = status(names, literal);
        quote! {
            if ::commute_runtime::compiled::settles(#status, #position, &mut unknown) {
                return Ok(());
            }
        }
    });
    quote! {
        #docs
        #[inline]
        fn #name<C: ::commute_runtime::compiled::Reads>(clause: &mut C) -> Result<(), C::Error> {
            let mut unknown = None;
            #(#reads)*
            clause.enforce(unknown)
        }
    }
}

/// The expression reading one literal's status.
fn status(names: &Names<'_>, literal: &model::Literal) -> TokenStream {
    match literal {
        model::Literal::Is { instance, values } => {
            let choice = names.choice(instance.choice);
            let args = vars(instance.args);
            let values = (names.mask)(instance.choice, *values);
            quote!(clause.is(#choice, #args, #values))
        }
        model::Literal::Same { lhs, rhs, equal } => {
            let choice = names.choice(lhs.choice);
            let (lhs, rhs) = (vars(lhs.args), vars(rhs.args));
            quote!(clause.same(#choice, #lhs, #rhs, #equal))
        }
        model::Literal::Compare { lhs, op, rhs } => {
            let (lhs, rhs) = (term(names, lhs), term(names, rhs));
            let op = format_ident!("{}", format!("{op:?}"));
            quote! {
                ::commute_runtime::compiled::compare(
                    ::commute_runtime::model::CompareOp::#op,
                    #lhs,
                    #rhs,
                )
            }
        }
        model::Literal::Property {
            property,
            args,
            negated,
        } => {
            let property = Lit::u16_unsuffixed(*property);
            let args = vars(args);
            // Known false where the engine checked the clause's property
            // literals before filtering.
            quote! {
                if clause.properties_known() {
                    ::commute_runtime::compiled::Status::False
                } else {
                    clause.property(#property, #args, #negated)
                }
            }
        }
    }
}

/// The expression of a term's range.
fn term(names: &Names<'_>, term: &model::Term) -> TokenStream {
    match term {
        model::Term::Const(n) => {
            let magnitude = Lit::u64_unsuffixed(n.unsigned_abs());
            let n = if *n < 0 {
                quote!(-#magnitude)
            } else {
                quote!(#magnitude)
            };
            quote!(::commute_runtime::compiled::constant(#n))
        }
        model::Term::Property { property, args } => {
            let property = Lit::u16_unsuffixed(*property);
            let args = vars(args);
            quote!(clause.int_property(#property, #args))
        }
        model::Term::Choice(instance) => {
            let choice = names.choice(instance.choice);
            let args = vars(instance.args);
            match names.model.choices[usize::from(instance.choice)].kind {
                model::ChoiceKind::Counter(_) => quote!(clause.counter(#choice, #args)),
                _ => quote!(clause.integer(#choice, #args)),
            }
        }
        model::Term::Product(factors) => {
            let factors = factors.iter().map(|f| self::term(names, f));
            quote!(::commute_runtime::compiled::product(&[#(#factors),*]))
        }
    }
}

fn vars(list: &[model::Var]) -> TokenStream {
    let list = list.iter().map(|&v| Lit::u8_unsuffixed(v));
    quote!(&[#(#list),*])
}
