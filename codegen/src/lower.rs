//! From a checked space to the engine's tables, as values: the one
//! lowering behind both outputs of this crate. The generator prints the
//! tables it returns as Rust statics (`static MODEL`), and
//! [`load`](crate::load) hands the very same values to the engine at run
//! time, so a space reaches the same leaves through either path.
//!
//! The tables borrow `'static` slices (the engine keeps a `&'static
//! Model`), so the lowering leaks what it allocates: once per space, which
//! a build script or a process that loads a space and searches it can
//! afford. A process that loads spaces without end should not use it.

use commute_dsl::ir::{self, ConstraintSource, IntTerm, Space, Variable};
use commute_dsl::SourceMap;
use commute_model::{
    CallbackDef, ChoiceDef, ChoiceKind, ClauseRef, ConstraintDef, CounterDef, InstanceRef, Literal,
    Model, PropertyDef, QuotientDef, SetDef, Symmetry, Term, TriggerAction, TriggerDef, Universe,
    Var, VarDef,
};

use crate::text::Located;

/// The tables of a checked space. `sources` locates its items (origins and
/// descriptions quote the files as the source map names them).
pub fn lower(space: &Space, sources: &SourceMap) -> &'static Model {
    let lowering = Lowering {
        space,
        loc: Located::new(sources),
    };
    leak_one(lowering.model(sources))
}

struct Lowering<'a> {
    space: &'a Space,
    loc: Located<'a>,
}

fn leak<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

fn leak_one<T>(item: T) -> &'static T {
    Box::leak(Box::new(item))
}

fn text(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn narrow(n: usize) -> u16 {
    // The checker bounds every table by `MAX_TABLE_LEN` (65,535).
    u16::try_from(n).unwrap_or(u16::MAX)
}

impl Lowering<'_> {
    fn model(&self, sources: &SourceMap) -> Model {
        let space = self.space;
        let main = sources.name(0);
        let name = std::path::Path::new(main)
            .file_stem()
            .map_or_else(|| main.to_string(), |s| s.to_string_lossy().into_owned());
        let sets = space
            .sets
            .iter()
            .map(|set| SetDef {
                name: text(&set.name),
                params: leak(
                    set.params
                        .iter()
                        .map(|p| narrow(p.set.set.index()))
                        .collect(),
                ),
                superset: set.superset.as_ref().map(|s| narrow(s.set.index())),
                quotient: set.quotient.map(|q| QuotientDef {
                    flag: narrow(space.quotients[q.index()].flag.index()),
                }),
            })
            .collect();
        let properties = space
            .properties
            .iter()
            .map(|property| PropertyDef {
                name: text(&property.name),
                params: leak(
                    property
                        .params
                        .iter()
                        .map(|p| narrow(p.set.set.index()))
                        .collect(),
                ),
                ty: property.ty,
                derived: property.derived,
            })
            .collect();
        let choices = space.choices.iter().map(|c| self.choice(c)).collect();
        let constraints = space
            .constraints
            .iter()
            .map(|constraint| ConstraintDef {
                vars: self.var_defs(&constraint.vars),
                literals: self.literals(&constraint.literals),
                origin: text(&self.loc.position(&constraint.origin)),
                description: text(&self.description(constraint)),
            })
            .collect();
        let triggers = space
            .triggers
            .iter()
            .map(|trigger| TriggerDef {
                vars: self.var_defs(&trigger.vars),
                condition: self.literals(&trigger.condition),
                action: match &trigger.action {
                    ir::TriggerAction::Callback { callback, args } => TriggerAction::Callback {
                        callback: narrow(callback.index()),
                        args: vars(args),
                    },
                    ir::TriggerAction::AddToQuotient {
                        quotient,
                        set_args,
                        object,
                    } => TriggerAction::AddToQuotient {
                        set: narrow(space.quotients[quotient.index()].set.index()),
                        set_args: vars(set_args),
                        object: var(*object),
                    },
                },
                origin: text(&self.loc.position(&trigger.origin)),
            })
            .collect();
        let callbacks = space
            .callbacks
            .iter()
            .map(|callback| CallbackDef {
                name: text(&callback.name),
                params: leak(callback.params.iter().map(|s| narrow(s.index())).collect()),
            })
            .collect();
        let clauses_by_choice = (0..space.choices.len())
            .map(|choice| {
                leak(
                    space
                        .clauses_by_choice
                        .get(choice)
                        .into_iter()
                        .flatten()
                        .map(|clause| ClauseRef {
                            constraint: narrow(clause.constraint.index()),
                            literal: u8::try_from(clause.literal).unwrap_or(u8::MAX),
                        })
                        .collect(),
                )
            })
            .collect();
        let counters_by_choice = (0..space.choices.len())
            .map(|choice| {
                leak(
                    space
                        .counters_by_choice
                        .get(choice)
                        .into_iter()
                        .flatten()
                        .map(|c| narrow(c.index()))
                        .collect(),
                )
            })
            .collect();
        let default_priority = space
            .choices
            .iter()
            .enumerate()
            .filter(|(_, c)| !matches!(c.kind, ir::ChoiceKind::Counter(_)))
            .map(|(i, _)| narrow(i))
            .collect();
        Model {
            name: text(&name),
            sets: leak(sets),
            properties: leak(properties),
            choices: leak(choices),
            constraints: leak(constraints),
            triggers: leak(triggers),
            callbacks: leak(callbacks),
            clauses_by_choice: leak(clauses_by_choice),
            counters_by_choice: leak(counters_by_choice),
            default_priority: leak(default_priority),
        }
    }

    fn choice(&self, choice: &ir::Choice) -> ChoiceDef {
        let kind = match &choice.kind {
            ir::ChoiceKind::Enum(domain) => ChoiceKind::Enum {
                values: leak(domain.values.iter().map(|v| text(&v.name)).collect()),
            },
            ir::ChoiceKind::Integer(universe) => ChoiceKind::Integer {
                universe: match universe {
                    ir::Universe::List(list) => Universe::List(leak(list.clone())),
                    ir::Universe::Property(call) => Universe::Property {
                        property: narrow(call.property.index()),
                        args: vars(&call.args),
                    },
                },
            },
            ir::ChoiceKind::Counter(counter) => ChoiceKind::Counter(CounterDef {
                op: counter.op,
                half: counter.half,
                vars: self.var_defs(&counter.vars),
                increment: self.term(&counter.increment),
                condition: self.literals(&counter.condition),
                base: counter.base.as_ref().map(|base| self.term(base)),
            }),
        };
        let symmetry = match &choice.symmetry {
            ir::Symmetry::None => Symmetry::None,
            ir::Symmetry::Symmetric => Symmetry::Symmetric,
            ir::Symmetry::Antisymmetric { inverse } => Symmetry::Antisymmetric {
                inverse: leak(
                    inverse
                        .iter()
                        .map(|&v| u8::try_from(v).unwrap_or(u8::MAX))
                        .collect(),
                ),
            },
        };
        ChoiceDef {
            name: text(&choice.name),
            params: self.var_defs(&choice.params),
            kind,
            symmetry,
            origin: text(&self.loc.position(&choice.origin)),
        }
    }

    fn var_defs(&self, defs: &[Variable]) -> &'static [VarDef] {
        leak(
            defs.iter()
                .map(|v| VarDef {
                    name: text(&v.name),
                    set: narrow(v.set.set.index()),
                    args: vars(&v.set.args),
                })
                .collect(),
        )
    }

    fn term(&self, term: &IntTerm) -> Term {
        match term {
            IntTerm::Const(n) => Term::Const(*n),
            IntTerm::Property(call) => Term::Property {
                property: narrow(call.property.index()),
                args: vars(&call.args),
            },
            IntTerm::Choice(instance) => Term::Choice(instance_ref(instance)),
            IntTerm::Product(factors) => {
                Term::Product(leak(factors.iter().map(|f| self.term(f)).collect()))
            }
        }
    }

    fn literals(&self, literals: &[ir::Literal]) -> &'static [Literal] {
        leak(
            literals
                .iter()
                .map(|literal| match literal {
                    ir::Literal::Is { instance, values } => Literal::Is {
                        instance: instance_ref(instance),
                        values: values.0,
                    },
                    ir::Literal::SameValue { lhs, rhs, equal } => Literal::Same {
                        lhs: instance_ref(lhs),
                        rhs: instance_ref(rhs),
                        equal: *equal,
                    },
                    ir::Literal::Compare { lhs, op, rhs } => Literal::Compare {
                        lhs: self.term(lhs),
                        op: *op,
                        rhs: self.term(rhs),
                    },
                    ir::Literal::Property { call, negated } => Literal::Property {
                        property: narrow(call.property.index()),
                        args: vars(&call.args),
                        negated: *negated,
                    },
                })
                .collect(),
        )
    }

    /// What a value's or an alias's `requires` says: `requires` of
    /// `choice` `relation` the value or alias `name` (its `index` if it has
    /// none), then the clause.
    fn requires_description(
        &self,
        constraint: &ir::Constraint,
        choice: &ir::Choice,
        relation: &str,
        name: Option<&String>,
        index: usize,
    ) -> String {
        let name = name.cloned().unwrap_or_else(|| index.to_string());
        let text = self.loc.one_line(&constraint.origin);
        let text = text.strip_prefix("requires ").unwrap_or(&text);
        format!("`requires` of {} {relation} {name}: {text}", choice.name)
    }

    /// What a constraint says, for messages about it.
    fn description(&self, constraint: &ir::Constraint) -> String {
        match &constraint.source {
            ConstraintSource::Require => self.loc.one_line(&constraint.origin),
            ConstraintSource::ValueRequires { choice, value } => {
                let choice = self.space.choice(*choice);
                let name = match &choice.kind {
                    ir::ChoiceKind::Enum(domain) => domain.values.get(*value).map(|v| &v.name),
                    _ => None,
                };
                self.requires_description(constraint, choice, "=", name, *value)
            }
            ConstraintSource::AliasRequires { choice, alias } => {
                let choice = self.space.choice(*choice);
                let name = match &choice.kind {
                    ir::ChoiceKind::Enum(domain) => domain.aliases.get(*alias).map(|a| &a.name),
                    _ => None,
                };
                self.requires_description(constraint, choice, "is", name, *alias)
            }
            ConstraintSource::Quotient(quotient) => {
                let quotient = &self.space.quotients[quotient.index()];
                let flag_params = self.space.choice(quotient.flag).params.len();
                let what = if constraint.vars.len() > flag_params {
                    "two representatives are never in the same class"
                } else if constraint
                    .literals
                    .iter()
                    .any(|l| matches!(l, ir::Literal::Compare { .. }))
                {
                    "an object that satisfies the condition is a representative or has one"
                } else {
                    "a representative satisfies the condition"
                };
                format!("maintains the quotient set {}: {what}", quotient.name)
            }
        }
    }
}

fn var(v: ir::VarId) -> Var {
    // The checker bounds every scope by `MAX_VARS` (16).
    Var::try_from(v.index()).unwrap_or(Var::MAX)
}

fn vars(list: &[ir::VarId]) -> &'static [Var] {
    leak(list.iter().map(|&v| var(v)).collect())
}

fn instance_ref(instance: &ir::Instance) -> InstanceRef {
    InstanceRef {
        choice: narrow(instance.choice.index()),
        args: vars(&instance.args),
    }
}
