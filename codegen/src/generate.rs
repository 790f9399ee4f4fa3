//! From a checked space to Rust tokens.

use std::collections::HashSet;

use commute_dsl::ir::{
    self, ChoiceKind, PropertyType, SetId, Space, Symmetry, TriggerAction, ValueSet, Variable,
};
use commute_dsl::{Compilation, SourceMap};
use commute_model::{self as model, Model};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};

use crate::names::{self, ident, is_snake_case, is_upper_case, Namespace};
use crate::propagators::{self, Propagators};
use crate::text::Located;
use crate::Error;

/// Names the generated items and the prelude items they use take in the
/// module the file is included into.
const RESERVED_ITEMS: &[&str] = &[
    "MODEL",
    "Propagators",
    "Host",
    "Backbone",
    "Vec",
    "Clone",
    "Copy",
    "Debug",
    "Hash",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Option",
    "Some",
    "None",
    "bool",
    "i64",
    "u8",
    "u16",
    "u32",
    "u64",
    "usize",
    "str",
    "std",
    "core",
    "commute_runtime",
];

/// Methods every host has through `Host: Clone`.
const RESERVED_METHODS: &[&str] = &["clone", "clone_from"];

pub fn generate(compilation: &Compilation, propagators: Propagators) -> Result<String, Error> {
    let space = compilation
        .space
        .as_ref()
        .ok_or_else(|| Error::from_diagnostics(compilation))?;
    let model = crate::lower::lower(space, &compilation.sources);
    let mut generator = Generator::new(space, model, &compilation.sources)?;
    generator.propagators = propagators.compiles(model);
    let tokens = generator.file();
    let file: syn::File = syn::parse2(tokens).map_err(|error| {
        Error::Unsupported(format!(
            "internal error: the generated code does not parse ({error}); please report it with the space"
        ))
    })?;
    Ok(format!("{}{}", generator.header(), format_items(file)))
}

/// Formats items one by one, so that a blank line separates them, and
/// separates the methods and constants inside them too.
fn format_items(file: syn::File) -> String {
    let items: Vec<String> = file
        .items
        .into_iter()
        .map(|item| {
            let text = prettyplease::unparse(&syn::File {
                shebang: None,
                attrs: Vec::new(),
                items: vec![item],
            });
            separate_members(&text)
        })
        .collect();
    items.join("\n")
}

/// Inserts a blank line between two members of a trait, impl or module:
/// after a line at indentation 4 that closes one (`}` or `...;`), before a
/// line at indentation 4 that opens the next.
fn separate_members(text: &str) -> String {
    let at_member_level = |line: &str| line.starts_with("    ") && !line.starts_with("     ");
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut previous: Option<&str> = None;
    for line in text.lines() {
        if let Some(previous) = previous {
            let closes =
                at_member_level(previous) && (previous.trim() == "}" || previous.ends_with(';'));
            if closes && at_member_level(line) && line.trim() != "}" {
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
        previous = Some(line);
    }
    out
}

/// Checks that the space's names fit the generated code, then emits the
/// file.
struct Generator<'a> {
    space: &'a Space,
    /// The tables `MODEL` holds, lowered from `space`.
    model: &'static Model,
    sources: &'a SourceMap,
    loc: Located<'a>,
    /// Per set: the id type of its root set.
    id_types: Vec<Ident>,
    /// Per set: its host method, `None` for quotient sets.
    set_methods: Vec<Option<Ident>>,
    /// Per property: its host method, `None` for derived properties,
    /// which the engine computes itself.
    property_methods: Vec<Option<Ident>>,
    callback_methods: Vec<Ident>,
    /// Per callback: parameter names, from the first trigger that calls it.
    callback_params: Vec<Vec<Ident>>,
    choice_modules: Vec<Ident>,
    /// Per choice: the constants of its values then its aliases (enums).
    value_consts: Vec<Vec<Ident>>,
    alias_consts: Vec<Vec<Ident>>,
    /// Whether the file includes the space's propagators (`Propagators`).
    propagators: bool,
}

impl<'a> Generator<'a> {
    fn new(space: &'a Space, model: &'static Model, sources: &'a SourceMap) -> Result<Self, Error> {
        // The checker reports what the engine cannot hold (`limits`), so
        // only names are left to refuse here.
        let loc = Located::new(sources);
        let mut items = Namespace::new("item");
        items.reserve(RESERVED_ITEMS, "an item the generated code defines or uses");
        let mut methods = Namespace::new("host method");
        methods.reserve(
            RESERVED_METHODS,
            "a method of `Clone`, which `Host` extends",
        );

        let mut root_types = vec![None; space.sets.len()];
        for (index, set) in space.sets.iter().enumerate() {
            if set.superset.is_none() {
                let name = format!("{}Id", names::upper_camel_case(&set.name));
                let owner = format!("set `{}` ({})", set.name, loc.position(&set.origin));
                root_types[index] = Some(items.take(&name, owner)?);
            }
        }
        let id_types = (0..space.sets.len())
            .map(|index| {
                let root = root_of(space, SetId(index as u32));
                root_types[root.index()]
                    .clone()
                    .unwrap_or_else(|| format_ident!("UnknownId"))
            })
            .collect();

        let mut set_methods = Vec::new();
        for set in &space.sets {
            set_methods.push(match set.quotient {
                Some(_) => None,
                None => Some(methods.take(
                    &names::snake_case(&set.name),
                    format!("set `{}` ({})", set.name, loc.position(&set.origin)),
                )?),
            });
        }
        // A derived property's name is the condition it stands for (`in
        // Kernels`, `<`), not an identifier: it takes no method.
        let property_methods = space
            .properties
            .iter()
            .map(|p| match p.derived {
                Some(_) => Ok(None),
                None => methods
                    .take(
                        &p.name,
                        format!("property `{}` ({})", p.name, loc.position(&p.origin)),
                    )
                    .map(Some),
            })
            .collect::<Result<_, _>>()?;
        let callback_methods = space
            .callbacks
            .iter()
            .map(|c| {
                methods.take(
                    &c.name,
                    format!(
                        "trigger callback `{}` ({})",
                        c.name,
                        loc.position(&c.origin)
                    ),
                )
            })
            .collect::<Result<_, _>>()?;
        let callback_params = (0..space.callbacks.len())
            .map(|index| callback_param_names(space, index))
            .collect();

        let mut choice_modules = Vec::new();
        let mut value_consts = Vec::new();
        let mut alias_consts = Vec::new();
        for choice in &space.choices {
            let position = loc.position(&choice.origin);
            choice_modules.push(items.take(
                &choice.name,
                format!("choice `{}` ({position})", choice.name),
            )?);
            let mut consts = Namespace::new("constant");
            consts.reserve(&["CHOICE"], "the constant holding the choice's index");
            let (values, aliases) = match &choice.kind {
                ChoiceKind::Enum(domain) => (
                    domain
                        .values
                        .iter()
                        .map(|v| {
                            consts.take(
                                &v.name,
                                format!("value `{}` of `{}` ({position})", v.name, choice.name),
                            )
                        })
                        .collect::<Result<_, _>>()?,
                    domain
                        .aliases
                        .iter()
                        .map(|a| {
                            consts.take(
                                &a.name,
                                format!("alias `{}` of `{}` ({position})", a.name, choice.name),
                            )
                        })
                        .collect::<Result<_, _>>()?,
                ),
                _ => (Vec::new(), Vec::new()),
            };
            value_consts.push(values);
            alias_consts.push(aliases);
        }

        Ok(Generator {
            space,
            model,
            sources,
            loc,
            id_types,
            set_methods,
            property_methods,
            callback_methods,
            callback_params,
            choice_modules,
            value_consts,
            alias_consts,
            propagators: false,
        })
    }

    /// The `//` comment the file starts with: one line per source file, so
    /// that a long path never splits the first line.
    fn header(&self) -> String {
        let mut header = String::from("// Generated by commute-codegen. Do not edit.\n");
        header.push_str(&format!("// Source: {}\n", self.sources.name(0)));
        for file in 1..self.sources.len() {
            header.push_str(&format!("// Included: {}\n", self.sources.name(file)));
        }
        header.push('\n');
        header
    }

    fn file(&self) -> TokenStream {
        let model = self.model();
        let ids = self.id_types_decl();
        let host = self.host_trait();
        let backbone = self.backbone();
        let modules = self.choice_modules_decl();
        let propagators = if self.propagators {
            let mask = |choice: u16, values: u64| self.mask(choice, values);
            let names = propagators::Names {
                model: self.model,
                choice_modules: &self.choice_modules,
                mask: &mask,
                doc: &doc_lines,
            };
            propagators::emit(&names, self.sources.name(0))
        } else {
            propagators::tables_only(&doc_lines, self.sources.name(0))
        };
        quote! {
            #model
            #ids
            #host
            #backbone
            #modules
            #propagators
        }
    }

    // ------------------------------------------------------------ the model

    fn model(&self) -> TokenStream {
        let main = self.sources.name(0);
        let docs = doc_lines(&[
            format!("The tables of the space `{main}`, as the engine reads them."),
            String::new(),
            "Sets, properties, choices, constraints and callbacks are numbered in declaration \
             order; the `CHOICE` constant of each choice's module is its index."
                .to_string(),
        ]);
        let model = self.model;
        let name = model.name;
        let sets = model.sets.iter().map(|set| {
            let name = set.name;
            let params = set.params.iter().map(|&p| index(p.into()));
            let superset = option(set.superset.map(|s| index(s.into())));
            let quotient = option(set.quotient.as_ref().map(|q| {
                let flag = index(q.flag.into());
                quote!(::commute_runtime::model::QuotientDef { flag: #flag })
            }));
            quote! {
                ::commute_runtime::model::SetDef {
                    name: #name,
                    params: &[#(#params),*],
                    superset: #superset,
                    quotient: #quotient,
                }
            }
        });
        let properties = model.properties.iter().map(|property| {
            let name = property.name;
            let params = property.params.iter().map(|&p| index(p.into()));
            let ty = match property.ty {
                PropertyType::Bool => quote!(Bool),
                PropertyType::Int => quote!(Int),
                PropertyType::IntList => quote!(IntList),
            };
            let derived = option(property.derived.map(derived));
            quote! {
                ::commute_runtime::model::PropertyDef {
                    name: #name,
                    params: &[#(#params),*],
                    ty: ::commute_runtime::model::PropertyType::#ty,
                    derived: #derived,
                }
            }
        });
        let choices = model.choices.iter().map(|choice| {
            let name = choice.name;
            let params = var_defs(choice.params);
            let kind = match &choice.kind {
                model::ChoiceKind::Enum { values } => {
                    let values = values.iter();
                    quote!(::commute_runtime::model::ChoiceKind::Enum { values: &[#(#values),*] })
                }
                model::ChoiceKind::Integer { universe } => {
                    let universe = match universe {
                        model::Universe::List(list) => {
                            let list = list.iter().map(|&n| int(n));
                            quote!(::commute_runtime::model::Universe::List(&[#(#list),*]))
                        }
                        model::Universe::Property { property, args } => {
                            let property = index((*property).into());
                            let args = vars(args);
                            quote! {
                                ::commute_runtime::model::Universe::Property {
                                    property: #property,
                                    args: #args,
                                }
                            }
                        }
                    };
                    quote!(::commute_runtime::model::ChoiceKind::Integer { universe: #universe })
                }
                model::ChoiceKind::Counter(counter) => {
                    let op = match counter.op {
                        model::CounterOp::Sum => quote!(Sum),
                        model::CounterOp::Mul => quote!(Mul),
                    };
                    let half = counter.half;
                    let vars = var_defs(counter.vars);
                    let increment = term(&counter.increment);
                    let condition = self.literals(counter.condition);
                    let base = option(counter.base.as_ref().map(term));
                    quote! {
                        ::commute_runtime::model::ChoiceKind::Counter(
                            ::commute_runtime::model::CounterDef {
                                op: ::commute_runtime::model::CounterOp::#op,
                                half: #half,
                                vars: #vars,
                                increment: #increment,
                                condition: #condition,
                                base: #base,
                            }
                        )
                    }
                }
            };
            let symmetry = match &choice.symmetry {
                model::Symmetry::None => quote!(None),
                model::Symmetry::Symmetric => quote!(Symmetric),
                model::Symmetry::Antisymmetric { inverse } => {
                    let inverse = inverse.iter().map(|&v| index(v.into()));
                    quote!(Antisymmetric { inverse: &[#(#inverse),*] })
                }
            };
            let origin = choice.origin;
            quote! {
                ::commute_runtime::model::ChoiceDef {
                    name: #name,
                    params: #params,
                    kind: #kind,
                    symmetry: ::commute_runtime::model::Symmetry::#symmetry,
                    origin: #origin,
                }
            }
        });
        let constraints = model.constraints.iter().map(|constraint| {
            let vars = var_defs(constraint.vars);
            let literals = self.literals(constraint.literals);
            let origin = constraint.origin;
            let description = constraint.description;
            quote! {
                ::commute_runtime::model::ConstraintDef {
                    vars: #vars,
                    literals: #literals,
                    origin: #origin,
                    description: #description,
                }
            }
        });
        let triggers = model.triggers.iter().map(|trigger| {
            let vars = var_defs(trigger.vars);
            let condition = self.literals(trigger.condition);
            let action = match &trigger.action {
                model::TriggerAction::Callback { callback, args } => {
                    let callback = index((*callback).into());
                    let args = self::vars(args);
                    quote! {
                        ::commute_runtime::model::TriggerAction::Callback {
                            callback: #callback,
                            args: #args,
                        }
                    }
                }
                model::TriggerAction::AddToQuotient {
                    set,
                    set_args,
                    object,
                } => {
                    let set = index((*set).into());
                    let set_args = self::vars(set_args);
                    let object = index((*object).into());
                    quote! {
                        ::commute_runtime::model::TriggerAction::AddToQuotient {
                            set: #set,
                            set_args: #set_args,
                            object: #object,
                        }
                    }
                }
            };
            let origin = trigger.origin;
            quote! {
                ::commute_runtime::model::TriggerDef {
                    vars: #vars,
                    condition: #condition,
                    action: #action,
                    origin: #origin,
                }
            }
        });
        let callbacks = model.callbacks.iter().map(|callback| {
            let name = callback.name;
            let params = callback.params.iter().map(|&s| index(s.into()));
            quote! {
                ::commute_runtime::model::CallbackDef {
                    name: #name,
                    params: &[#(#params),*],
                }
            }
        });
        let clauses_by_choice = model.clauses_by_choice.iter().map(|clauses| {
            let clauses = clauses.iter().map(|clause| {
                let constraint = index(clause.constraint.into());
                let literal = index(clause.literal.into());
                quote! {
                    ::commute_runtime::model::ClauseRef {
                        constraint: #constraint,
                        literal: #literal,
                    }
                }
            });
            quote!(&[#(#clauses),*])
        });
        let counters_by_choice = model.counters_by_choice.iter().map(|counters| {
            let counters = counters.iter().map(|&c| index(c.into()));
            quote!(&[#(#counters),*])
        });
        let priority = model.default_priority.iter().map(|&i| index(i.into()));
        quote! {
            #docs
            pub static MODEL: ::commute_runtime::Model = ::commute_runtime::Model {
                name: #name,
                sets: &[#(#sets),*],
                properties: &[#(#properties),*],
                choices: &[#(#choices),*],
                constraints: &[#(#constraints),*],
                triggers: &[#(#triggers),*],
                callbacks: &[#(#callbacks),*],
                clauses_by_choice: &[#(#clauses_by_choice),*],
                counters_by_choice: &[#(#counters_by_choice),*],
                default_priority: &[#(#priority),*],
            };
        }
    }

    fn literals(&self, literals: &[model::Literal]) -> TokenStream {
        let literals = literals.iter().map(|literal| match literal {
            model::Literal::Is { instance, values } => {
                let values = self.mask(instance.choice, *values);
                let instance = instance_ref(instance);
                quote! {
                    ::commute_runtime::model::Literal::Is { instance: #instance, values: #values }
                }
            }
            model::Literal::Same { lhs, rhs, equal } => {
                let lhs = instance_ref(lhs);
                let rhs = instance_ref(rhs);
                quote! {
                    ::commute_runtime::model::Literal::Same { lhs: #lhs, rhs: #rhs, equal: #equal }
                }
            }
            model::Literal::Compare { lhs, op, rhs } => {
                let lhs = term(lhs);
                let rhs = term(rhs);
                let op = format_ident!("{}", format!("{op:?}"));
                quote! {
                    ::commute_runtime::model::Literal::Compare {
                        lhs: #lhs,
                        op: ::commute_runtime::model::CompareOp::#op,
                        rhs: #rhs,
                    }
                }
            }
            model::Literal::Property {
                property,
                args,
                negated,
            } => {
                let property = index((*property).into());
                let args = vars(args);
                quote! {
                    ::commute_runtime::model::Literal::Property {
                        property: #property,
                        args: #args,
                        negated: #negated,
                    }
                }
            }
        });
        quote!(&[#(#literals),*])
    }

    /// A value mask, written with the constants of the choice's module.
    fn mask(&self, choice: u16, values: u64) -> TokenStream {
        let module = &self.choice_modules[usize::from(choice)];
        let consts = &self.value_consts[usize::from(choice)];
        let named: Vec<TokenStream> = ValueSet(values)
            .iter()
            .map(|v| match consts.get(v) {
                Some(value) => quote!(#module::#value),
                None => {
                    let bit = index(v);
                    quote!((1 << #bit))
                }
            })
            .collect();
        if named.is_empty() {
            quote!(0)
        } else {
            quote!(#(#named)|*)
        }
    }

    // ------------------------------------------------------------ typed ids

    fn id_types_decl(&self) -> TokenStream {
        let types = self
            .space
            .sets
            .iter()
            .enumerate()
            .filter(|(_, s)| s.superset.is_none());
        let types = types.map(|(index, set)| {
            let ty = &self.id_types[index];
            let subsets: Vec<String> = self
                .space
                .sets
                .iter()
                .enumerate()
                .filter(|&(i, _)| {
                    i != index && root_of(self.space, SetId(i as u32)).index() == index
                })
                .map(|(_, s)| format!("`{}`", s.name))
                .collect();
            let mut lines = set.doc.clone();
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(if subsets.is_empty() {
                format!("The id of an object of `{}`.", set.name)
            } else {
                format!(
                    "The id of an object of `{}` or of its subsets {}.",
                    set.name,
                    subsets.join(", ")
                )
            });
            lines.push(format!(
                "Ids are chosen by the host and unique among the objects of `{}`.",
                set.name
            ));
            lines.push(format!("Declared at {}.", self.loc.position(&set.origin)));
            let docs = doc_lines(&lines);
            quote! {
                #docs
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
                pub struct #ty(pub ::commute_runtime::ObjectId);
            }
        });
        quote!(#(#types)*)
    }

    // ------------------------------------------------------------ the host

    fn host_trait(&self) -> TokenStream {
        let docs = doc_lines(&[
            "What the space needs from a kernel's description: the objects of each set, the \
             properties of objects, and the callbacks that triggers run."
                .to_string(),
            String::new(),
            "Lists of objects must come in a stable order (the same on every call) and hold no \
             duplicates; properties are constants. Wrap a host in [`Backbone`] to hand it to the \
             engine."
                .to_string(),
        ]);
        let mut methods = Vec::new();
        for (index, set) in self.space.sets.iter().enumerate() {
            let Some(method) = &self.set_methods[index] else {
                continue;
            };
            let ty = &self.id_types[index];
            let params = self.params(set.params.iter().map(|p| (p.name.as_str(), p.set.set)));
            let mut lines = set.doc.clone();
            if !lines.is_empty() {
                lines.push(String::new());
            }
            let signature = self.set_signature(set);
            lines.push(format!("The objects of `{signature}`."));
            if let Some(superset) = &set.superset {
                let superset = self.space.set(superset.set);
                lines.push(format!(
                    "A subset of `{}`: each of them is also an object of `{}`.",
                    superset.name, superset.name
                ));
            }
            if !set.disjoint.is_empty() {
                let others: Vec<String> = set
                    .disjoint
                    .iter()
                    .map(|&s| format!("`{}`", self.space.set(s).name))
                    .collect();
                lines.push(format!(
                    "Disjoint from {}: none of them is ever an object of those.",
                    others.join(", ")
                ));
            }
            lines.push(format!("Declared at {}.", self.loc.position(&set.origin)));
            let docs = doc_lines(&lines);
            let allow = allow_non_snake_case(method, &params);
            let params = params.iter().map(|(name, ty)| quote!(#name: #ty));
            methods.push(quote! {
                #docs
                #allow
                fn #method(&self #(, #params)*) -> Vec<#ty>;
            });
        }
        for (index, property) in self.space.properties.iter().enumerate() {
            // The engine computes derived properties from the sets.
            let Some(method) = &self.property_methods[index] else {
                continue;
            };
            let params = self.params(property.params.iter().map(|p| (p.name.as_str(), p.set.set)));
            let (ty, rust_ty) = match property.ty {
                PropertyType::Bool => ("bool", quote!(bool)),
                PropertyType::Int => ("int", quote!(i64)),
                PropertyType::IntList => ("[int]", quote!(Vec<i64>)),
            };
            let mut lines = property.doc.clone();
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(format!(
                "Property `{}({}) -> {ty}`, declared at {}.",
                property.name,
                self.param_list(&property.params),
                self.loc.position(&property.origin)
            ));
            let docs = doc_lines(&lines);
            let allow = allow_non_snake_case(method, &params);
            let params = params.iter().map(|(name, ty)| quote!(#name: #ty));
            methods.push(quote! {
                #docs
                #allow
                fn #method(&self #(, #params)*) -> #rust_ty;
            });
        }
        for (index, callback) in self.space.callbacks.iter().enumerate() {
            let method = &self.callback_methods[index];
            let params: Vec<(Ident, Ident)> = self.callback_params[index]
                .iter()
                .cloned()
                .zip(
                    callback
                        .params
                        .iter()
                        .map(|s| self.id_types[s.index()].clone()),
                )
                .collect();
            let mut lines = vec![format!(
                "Trigger callback `{}`: may add objects to sets, never removes any, and answers \
                 `Outcome::done()`, a refusal (`Outcome::refuse`: the candidate is a dead \
                 end) or decisions to apply (`Outcome::decide`), from its arguments and the \
                 host's objects only. The engine calls it once per tuple of objects, as soon as \
                 the condition of a trigger that calls it is certain:",
                callback.name
            )];
            for trigger in &self.space.triggers {
                if matches!(&trigger.action, TriggerAction::Callback { callback: c, .. } if c.index() == index)
                {
                    lines.push(format!(
                        "- `{}` ({})",
                        self.loc.one_line(&trigger.origin),
                        self.loc.position(&trigger.origin)
                    ));
                }
            }
            let docs = doc_lines(&lines);
            let allow = allow_non_snake_case(method, &params);
            let params = params.iter().map(|(name, ty)| quote!(#name: #ty));
            methods.push(quote! {
                #docs
                #allow
                fn #method(&mut self #(, #params)*) -> ::commute_runtime::Outcome;
            });
        }
        quote! {
            #docs
            pub trait Host: Clone {
                #(#methods)*
            }
        }
    }

    /// Parameter names and id types of a host method.
    fn params<'n>(&self, params: impl Iterator<Item = (&'n str, SetId)>) -> Vec<(Ident, Ident)> {
        let mut seen = HashSet::new();
        params
            .enumerate()
            .map(|(i, (name, set))| {
                let mut rust = names::rust_name(name);
                if !seen.insert(rust.clone()) {
                    rust = format!("{name}_{i}");
                    seen.insert(rust.clone());
                }
                (
                    ident(rust.trim_start_matches("r#")),
                    self.id_types[set.index()].clone(),
                )
            })
            .collect()
    }

    fn set_signature(&self, set: &ir::Set) -> String {
        if set.params.is_empty() {
            set.name.clone()
        } else {
            format!("{}({})", set.name, self.param_list(&set.params))
        }
    }

    /// `$d in Dims, $a in AccessedArrays($i)`.
    fn param_list(&self, params: &[Variable]) -> String {
        params
            .iter()
            .map(|p| format!("${} in {}", p.name, self.set_expr(&p.set, params)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn set_expr(&self, set: &ir::SetExpr, scope: &[Variable]) -> String {
        let name = &self.space.set(set.set).name;
        if set.args.is_empty() {
            name.clone()
        } else {
            let args: Vec<String> = set
                .args
                .iter()
                .map(|a| {
                    scope
                        .get(a.index())
                        .map_or_else(|| "?".to_string(), |v| format!("${}", v.name))
                })
                .collect();
            format!("{name}({})", args.join(", "))
        }
    }

    fn backbone(&self) -> TokenStream {
        let objects: Vec<TokenStream> = self
            .space
            .sets
            .iter()
            .enumerate()
            .filter_map(|(index, set)| {
                let method = self.set_methods[index].as_ref()?;
                let n = self::index(index);
                let (pattern, args) = self.arguments(set.params.iter().map(|p| p.set.set));
                Some(quote! {
                    (#n, &[#(#pattern),*]) => self.0.#method(#(#args),*).into_iter().map(|id| id.0).collect()
                })
            })
            .collect();
        let objects = dispatch(
            quote!(objects),
            quote!(set),
            &objects,
            quote!(Vec<::commute_runtime::ObjectId>),
            quote!(Vec::new()),
        );
        let property =
            |name: TokenStream, ty: PropertyType, rust_ty: TokenStream, default: TokenStream| {
                let arms: Vec<TokenStream> = self
                    .space
                    .properties
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.ty == ty)
                    // Derived properties have no method: the engine never
                    // asks the backbone for them.
                    .filter_map(|(index, p)| {
                        let method = self.property_methods[index].as_ref()?;
                        let n = self::index(index);
                        let (pattern, args) = self.arguments(p.params.iter().map(|p| p.set.set));
                        Some(quote!((#n, &[#(#pattern),*]) => self.0.#method(#(#args),*)))
                    })
                    .collect();
                dispatch(name, quote!(property), &arms, rust_ty, default)
            };
        let bool_property = property(
            quote!(bool_property),
            PropertyType::Bool,
            quote!(bool),
            quote!(false),
        );
        let int_property = property(
            quote!(int_property),
            PropertyType::Int,
            quote!(i64),
            quote!(0),
        );
        let list_property = property(
            quote!(list_property),
            PropertyType::IntList,
            quote!(Vec<i64>),
            quote!(Vec::new()),
        );
        let callbacks: Vec<(TokenStream, TokenStream)> = self
            .space
            .callbacks
            .iter()
            .enumerate()
            .map(|(index, c)| {
                let method = &self.callback_methods[index];
                let n = self::index(index);
                let (pattern, args) = self.arguments(c.params.iter().copied());
                (
                    quote!((#n, &[#(#pattern),*])),
                    quote!(self.0.#method(#(#args),*)),
                )
            })
            .collect();
        let callback = match callbacks.as_slice() {
            [] => quote! {
                fn callback(
                    &mut self,
                    _callback: u16,
                    _args: &[::commute_runtime::ObjectId],
                ) -> ::commute_runtime::Outcome {
                    ::commute_runtime::Outcome::done()
                }
            },
            arms => {
                let arms = arms.iter().map(|(pattern, call)| quote!(#pattern => #call));
                quote! {
                    fn callback(
                        &mut self,
                        callback: u16,
                        args: &[::commute_runtime::ObjectId],
                    ) -> ::commute_runtime::Outcome {
                        match (callback, args) {
                            #(#arms,)*
                            _ => ::commute_runtime::Outcome::done(),
                        }
                    }
                }
            }
        };
        let docs = doc_lines(&[
            "A [`Host`] seen through the engine's untyped interface: the engine asks for sets, \
             properties and callbacks by their index in [`MODEL`], with objects as plain ids."
                .to_string(),
            String::new(),
            "Indices the model does not have (and quotient sets and derived properties such as \
             `in S` or `<`, which the engine computes itself) get an empty list, `false` or `0`."
                .to_string(),
        ]);
        let compiled = if self.propagators {
            propagators::backbone_methods()
        } else {
            TokenStream::new()
        };
        quote! {
            #docs
            #[derive(Clone, Debug)]
            pub struct Backbone<H: Host>(pub H);

            impl<H: Host> ::commute_runtime::Backbone for Backbone<H> {
                fn model(&self) -> &'static ::commute_runtime::Model {
                    &MODEL
                }

                #objects

                #bool_property

                #int_property

                #list_property

                #callback

                #compiled
            }
        }
    }

    /// The slice pattern that binds a method's arguments, and the typed
    /// arguments.
    fn arguments(&self, sets: impl Iterator<Item = SetId>) -> (Vec<Ident>, Vec<TokenStream>) {
        sets.enumerate()
            .map(|(i, set)| {
                let name = format_ident!("a{}", i);
                let ty = &self.id_types[set.index()];
                (name.clone(), quote!(#ty(#name)))
            })
            .unzip()
    }

    // ------------------------------------------------------------ choice modules

    fn choice_modules_decl(&self) -> TokenStream {
        let modules = self.space.choices.iter().enumerate().map(|(index, choice)| {
            let module = &self.choice_modules[index];
            let n = self::index(index);
            let signature = format!("{}({})", choice.name, self.param_list(&choice.params));
            let position = self.loc.position(&choice.origin);
            let quotient = choice
                .quotient
                .map(|q| &self.space.quotients[q.index()]);
            let mut lines = choice.doc.clone();
            if !lines.is_empty() {
                lines.push(String::new());
            }
            let what = match &choice.kind {
                ChoiceKind::Enum(_) => "an enum choice",
                ChoiceKind::Integer(_) => "an integer choice",
                ChoiceKind::Counter(c) if c.half => "a half counter (only its upper bound is tracked)",
                ChoiceKind::Counter(_) => "a counter",
            };
            match quotient {
                Some(q) => lines.push(format!(
                    "`{signature}`: {what} generated by the quotient set `{}` declared at {position}.",
                    q.name
                )),
                None => lines.push(format!("`{signature}`: {what} declared at {position}.")),
            }
            let mut items = Vec::new();
            let mut allow = TokenStream::new();
            match &choice.kind {
                ChoiceKind::Enum(domain) => {
                    if let Some(q) = quotient.filter(|q| q.flag.index() == index) {
                        lines.push(String::new());
                        lines.push(format!(
                            "`TRUE` marks the representative of its class in `{}`.",
                            q.name
                        ));
                    }
                    if let Symmetry::Antisymmetric { inverse } = &choice.symmetry {
                        let pairs: Vec<String> = inverse
                            .iter()
                            .enumerate()
                            .filter(|&(v, &w)| v < w)
                            .map(|(v, &w)| {
                                let name = |i: usize| domain.values.get(i).map_or("?", |v| v.name.as_str());
                                format!("{} <-> {}", name(v), name(w))
                            })
                            .collect();
                        lines.push(String::new());
                        lines.push(format!(
                            "Antisymmetric: the instance for `(b, a)` holds the mirror of the value \
                             for `(a, b)` ({}); only one of them is stored.",
                            pairs.join(", ")
                        ));
                    } else if choice.symmetry == Symmetry::Symmetric {
                        lines.push(String::new());
                        lines.push(
                            "Symmetric: the instances for `(a, b)` and `(b, a)` are one."
                                .to_string(),
                        );
                    }
                    for (v, value) in domain.values.iter().enumerate() {
                        let name = &self.value_consts[index][v];
                        let bit = self::index(v);
                        let mut docs = value.doc.clone();
                        if !docs.is_empty() {
                            docs.push(String::new());
                        }
                        docs.push(format!("Value {v} of `{}`, as a mask.", choice.name));
                        let docs = doc_lines(&docs);
                        items.push(quote! {
                            #docs
                            pub const #name: u64 = 1 << #bit;
                        });
                    }
                    for (a, alias) in domain.aliases.iter().enumerate() {
                        let name = &self.alias_consts[index][a];
                        let values: Vec<&Ident> = alias
                            .values
                            .iter()
                            .filter_map(|v| self.value_consts[index].get(v))
                            .collect();
                        let mut docs = alias.doc.clone();
                        if !docs.is_empty() {
                            docs.push(String::new());
                        }
                        docs.push(format!("Alias of `{}`.", choice.name));
                        let docs = doc_lines(&docs);
                        let mask = if values.is_empty() {
                            quote!(0)
                        } else {
                            quote!(#(#values)|*)
                        };
                        items.push(quote! {
                            #docs
                            pub const #name: u64 = #mask;
                        });
                    }
                    let consts = domain
                        .values
                        .iter()
                        .map(|v| &v.name)
                        .chain(domain.aliases.iter().map(|a| &a.name));
                    if consts.clone().any(|name| !is_upper_case(name)) {
                        allow.extend(quote!(#[allow(non_upper_case_globals)]));
                    }
                }
                ChoiceKind::Integer(_) | ChoiceKind::Counter(_) => {
                    if quotient.is_none() {
                        lines.push(String::new());
                        lines.push("```text".to_string());
                        lines.extend(self.loc.verbatim(&choice.origin));
                        lines.push("```".to_string());
                    } else if let Some(q) = quotient {
                        lines.push(String::new());
                        lines.push(format!(
                            "Counts, for an object, the representatives of `{}` in its class.",
                            q.name
                        ));
                    }
                }
            }
            if !is_snake_case(&choice.name) {
                allow.extend(quote!(#[allow(non_snake_case)]));
            }
            let docs = doc_lines(&lines);
            let choice_doc = format!(" Index of `{}` in `MODEL.choices`.", choice.name);
            quote! {
                #docs
                #allow
                pub mod #module {
                    #[doc = #choice_doc]
                    pub const CHOICE: u16 = #n;
                    #(#items)*
                }
            }
        });
        quote!(#(#modules)*)
    }
}

/// The method `name`: `match (selector, args) { arms, _ => default }`, or
/// just `default` when there is no arm.
fn dispatch(
    name: TokenStream,
    selector: TokenStream,
    arms: &[TokenStream],
    ret: TokenStream,
    default: TokenStream,
) -> TokenStream {
    if arms.is_empty() {
        let unused = format_ident!("_{}", selector.to_string());
        return quote! {
            fn #name(&self, #unused: u16, _args: &[::commute_runtime::ObjectId]) -> #ret {
                #default
            }
        };
    }
    quote! {
        fn #name(&self, #selector: u16, args: &[::commute_runtime::ObjectId]) -> #ret {
            match (#selector, args) {
                #(#arms,)*
                _ => #default,
            }
        }
    }
}

fn allow_non_snake_case(method: &Ident, params: &[(Ident, Ident)]) -> TokenStream {
    let names = std::iter::once(method).chain(params.iter().map(|(name, _)| name));
    if names.map(|n| n.to_string()).all(|n| is_snake_case(&n)) {
        TokenStream::new()
    } else {
        quote!(#[allow(non_snake_case)])
    }
}

/// The parameter names of a callback, from the first trigger that calls it.
fn callback_param_names(space: &Space, callback: usize) -> Vec<Ident> {
    let count = space.callbacks[callback].params.len();
    let from_trigger = space.triggers.iter().find_map(|t| match &t.action {
        TriggerAction::Callback { callback: c, args } if c.index() == callback => Some(
            args.iter()
                .map(|a| t.vars.get(a.index()).map(|v| v.name.clone()))
                .collect::<Option<Vec<_>>>(),
        ),
        _ => None,
    });
    let names = from_trigger
        .flatten()
        .filter(|names| names.len() == count)
        .unwrap_or_else(|| (0..count).map(|i| format!("a{i}")).collect());
    let mut seen = HashSet::new();
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut rust = names::rust_name(name);
            if !seen.insert(rust.clone()) {
                rust = format!("{name}_{i}");
                seen.insert(rust.clone());
            }
            ident(rust.trim_start_matches("r#"))
        })
        .collect()
}

fn root_of(space: &Space, mut set: SetId) -> SetId {
    for _ in 0..=space.sets.len() {
        match &space.set(set).superset {
            Some(parent) => set = parent.set,
            None => break,
        }
    }
    set
}

/// `#[doc = " line"]` for each line, prose wrapped at [`DOC_WIDTH`]
/// (code blocks are kept as they are).
fn doc_lines(lines: &[String]) -> TokenStream {
    let mut wrapped = Vec::new();
    let mut in_code = false;
    for line in lines {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        if in_code || line.starts_with("```") {
            wrapped.push(line.clone());
        } else {
            wrapped.extend(wrap(line));
        }
    }
    let lines = wrapped.iter().map(|line| {
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        quote!(#[doc = #line])
    });
    quote!(#(#lines)*)
}

/// Width of the text of generated doc comments.
const DOC_WIDTH: usize = 80;

/// Splits a line of prose into lines of at most [`DOC_WIDTH`] characters
/// (longer words stay whole); list items continue with an indent.
fn wrap(line: &str) -> Vec<String> {
    if line.chars().count() <= DOC_WIDTH {
        return vec![line.to_string()];
    }
    let indent = line.len() - line.trim_start().len();
    let continuation = " ".repeat(
        indent
            + if line.trim_start().starts_with("- ") {
                2
            } else {
                0
            },
    );
    let mut lines = Vec::new();
    // Words, with inline code (`a, b`) kept in one piece.
    let mut words: Vec<String> = Vec::new();
    let mut in_code = false;
    for word in line.split_whitespace() {
        match words.last_mut() {
            Some(last) if in_code => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        in_code ^= word.matches('`').count() % 2 == 1;
    }
    let mut current = line[..indent].to_string();
    for word in &words {
        // A list marker stays with its first word.
        let empty = current.trim().is_empty() || current.trim() == "-";
        if !empty && current.chars().count() + 1 + word.chars().count() > DOC_WIDTH {
            lines.push(std::mem::replace(&mut current, continuation.clone()));
        } else if !current.trim().is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    lines.push(current);
    lines
}

/// An index or small count, written without a type suffix.
fn index(n: usize) -> Lit {
    Lit::usize_unsuffixed(n)
}

/// An integer constant of the space.
fn int(n: i64) -> TokenStream {
    let magnitude = Lit::u64_unsuffixed(n.unsigned_abs());
    if n < 0 {
        quote!(-#magnitude)
    } else {
        quote!(#magnitude)
    }
}

fn option(value: Option<impl quote::ToTokens>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

/// How the engine computes a derived property, as a `Derived` value.
fn derived(derived: model::Derived) -> TokenStream {
    match derived {
        model::Derived::Member { set } => {
            let set = index(set.into());
            quote!(::commute_runtime::model::Derived::Member { set: #set })
        }
        model::Derived::Order(op) => {
            let op = format_ident!("{}", format!("{op:?}"));
            quote!(::commute_runtime::model::Derived::Order(
                ::commute_runtime::model::CompareOp::#op
            ))
        }
    }
}

fn var_defs(defs: &[model::VarDef]) -> TokenStream {
    let defs = defs.iter().map(|v| {
        let name = v.name;
        let set = index(v.set.into());
        let args = vars(v.args);
        quote! {
            ::commute_runtime::model::VarDef { name: #name, set: #set, args: #args }
        }
    });
    quote!(&[#(#defs),*])
}

fn vars(list: &[model::Var]) -> TokenStream {
    let list = list.iter().map(|&v| index(v.into()));
    quote!(&[#(#list),*])
}

fn instance_ref(instance: &model::InstanceRef) -> TokenStream {
    let choice = index(instance.choice.into());
    let args = vars(instance.args);
    quote!(::commute_runtime::model::InstanceRef { choice: #choice, args: #args })
}

fn term(t: &model::Term) -> TokenStream {
    match t {
        model::Term::Const(n) => {
            let n = int(*n);
            quote!(::commute_runtime::model::Term::Const(#n))
        }
        model::Term::Property { property, args } => {
            let property = index((*property).into());
            let args = vars(args);
            quote!(::commute_runtime::model::Term::Property { property: #property, args: #args })
        }
        model::Term::Choice(instance) => {
            let instance = instance_ref(instance);
            quote!(::commute_runtime::model::Term::Choice(#instance))
        }
        model::Term::Product(factors) => {
            let factors = factors.iter().map(term);
            quote!(::commute_runtime::model::Term::Product(&[#(#factors),*]))
        }
    }
}
