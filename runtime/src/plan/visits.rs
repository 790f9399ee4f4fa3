//! Visits: per choice, the constraint literals that read it, in the
//! order the propagator runs them, each with how its constraint is
//! filtered once the literal's variables are bound to the changed
//! instance's objects (a vector or slot plan, a screen, or the generic
//! enumeration), and the changed instances for which it can do nothing
//! whatever the domains (its skip set). Reads the tables and the other
//! plan modules below it (vector, slots, screens, skip sets).

use super::screens::{fallback, Fallback, ZLiteral};
use super::skips::{skip_bit, skip_bits};
use super::slots::{slot_plan, SlotPlan};
use super::vector::{vector_plan, VectorPlan};
use crate::backbone::ObjectId;
use crate::binding::Binding;
use crate::model::*;
use crate::tables::Tables;
use crate::values::map_mask;

/// One instance of a literal that reads the changed choice: the literal's
/// variables `args` are bound to the changed instance's objects.
#[derive(Debug)]
pub(crate) struct Visit {
    /// The changed choice.
    pub choice: u16,
    pub constraint: u16,
    pub args: &'static [Var],
    /// For an `is` literal: its values (a literal that did not become
    /// false is skipped).
    pub is_values: Option<u64>,
    /// How to filter every completion at once, when the constraint has
    /// that shape.
    pub plan: Option<VectorPlan>,
    /// How to enumerate the completions otherwise.
    pub fallback: Fallback,
    /// For an `is` literal of an enum choice: its index. A visit that is
    /// not skipped finds it false (the changed instance's domain misses
    /// its values and is not empty).
    pub known_false: Option<usize>,
    /// `plan` read by argument slot, when every row it reads is a row of
    /// the changed instance's objects (see [`SlotPlan`]).
    pub slots: Option<SlotPlan>,
    /// The constraint's property literals, each with its last variable:
    /// the generic enumeration leaves out the completions where one holds.
    pub properties: Vec<Hold>,
    /// The constraint's literals over `args` only, property literals
    /// first: when one is certainly true, every completion is, and the
    /// generic enumeration is not run.
    pub constant: Vec<&'static Literal>,
    /// Bit `2 * instance + orientation`: the visit does nothing for that
    /// changed instance in that orientation, whatever the domains (see
    /// [`skips`]); empty when not computed.
    pub skip: Vec<u64>,
    /// The skip set covers the fallback's static checks: a visit that is
    /// not skipped passes them (see [`skips`]).
    pub checked: bool,
    /// This visit and the next are the two sides of a symmetric literal
    /// of a symmetric constraint (see [`mirrored_pair`]).
    pub mirrored: bool,
    /// This visit is the second of such a pair: after the first, it
    /// filters the same constraint instances with their two variables
    /// swapped.
    pub mirrors: bool,
}

impl Visit {
    /// Whether the visit is known to do nothing for a change of
    /// `instance` read in `orientation`.
    #[inline]
    pub fn skips(&self, instance: usize, orientation: usize) -> bool {
        skip_bit(&self.skip, instance, orientation)
    }
}

/// A property literal of a clause, tested by the generic enumeration as
/// soon as its last variable is bound (see `Propagator::for_each_unless`).
#[derive(Debug)]
pub(crate) struct Hold {
    pub last: Var,
    pub literal: &'static Literal,
    /// Where the last variable is a slot of the property with rows over
    /// its root set and appears once: (property, slot, arguments,
    /// negated), to screen its objects with one row.
    pub row: Option<(u16, usize, &'static [Var], bool)>,
    /// Where the literal is negated, its last variable is a slot of the
    /// property with lists over the variable's own set and appears once:
    /// (property, slot, arguments), to enumerate only the objects for
    /// which the property holds (where it does not, the literal is true).
    pub list: Option<(u16, usize, &'static [Var])>,
}

/// The hold of a property literal of a scope with variables `vars`, the
/// variables of `bound` bound before enumerating: it is tested at its
/// last variable not among them.
fn hold(tables: &Tables, vars: &[VarDef], literal: &'static Literal, bound: u32) -> Option<Hold> {
    let Literal::Property {
        property,
        args,
        negated,
    } = literal
    else {
        return None;
    };
    let free = args.iter().filter(|&&v| bound & (1 << v) == 0).max();
    let last = *free.or(args.iter().max())?;
    let slots: Vec<usize> = (0..args.len()).filter(|&i| args[i] == last).collect();
    let root = tables.roots[vars[last as usize].set as usize];
    let row = match slots.as_slice() {
        &[slot]
            if tables.property_rows[*property as usize]
                .get(slot)
                .is_some_and(|r| r.as_ref().is_some_and(|r| r.root == root)) =>
        {
            Some((*property, slot, *args, *negated))
        }
        _ => None,
    };
    let list = match slots.as_slice() {
        &[slot]
            if *negated
                && tables.property_lists[*property as usize]
                    .get(slot)
                    .is_some_and(|l| {
                        l.as_ref().is_some_and(|l| l.set == vars[last as usize].set)
                    }) =>
        {
            Some((*property, slot, *args))
        }
        _ => None,
    };
    Some(Hold {
        last,
        literal,
        row,
        list,
    })
}

/// Per constraint, the holds of its property literals with no variable
/// bound before enumerating.
pub(super) fn initial_holds(tables: &Tables) -> Vec<Vec<Hold>> {
    tables
        .model
        .constraints
        .iter()
        .map(|def| {
            def.literals
                .iter()
                .filter_map(|literal| hold(tables, def.vars, literal, 0))
                .collect()
        })
        .collect()
}

/// The variables a literal reads, as a mask.
fn literal_vars(literal: &Literal) -> u32 {
    fn mask(args: &[Var]) -> u32 {
        args.iter().fold(0u32, |m, &v| m | 1 << v)
    }
    fn term(t: &Term) -> u32 {
        match t {
            Term::Const(_) => 0,
            Term::Property { args, .. } => mask(args),
            Term::Choice(instance) => mask(instance.args),
            Term::Product(factors) => factors.iter().fold(0, |m, f| m | term(f)),
        }
    }
    match literal {
        Literal::Is { instance, .. } => mask(instance.args),
        Literal::Same { lhs, rhs, .. } => mask(lhs.args) | mask(rhs.args),
        Literal::Compare { lhs, rhs, .. } => term(lhs) | term(rhs),
        Literal::Property { args, .. } => mask(args),
    }
}

/// The visits of every choice, with their skip sets when `with_skips`.
pub(super) fn visits(tables: &Tables, with_skips: bool) -> Vec<Vec<Visit>> {
    let model = tables.model;
    (0..model.choices.len())
        .map(|choice| {
            let mut out = Vec::new();
            // The clause literal of each visit.
            let mut literals = Vec::new();
            for clause in model.clauses_by_choice.get(choice).copied().unwrap_or(&[]) {
                let def = &model.constraints[clause.constraint as usize];
                let literal = &def.literals[clause.literal as usize];
                for instance in literal.instances() {
                    if instance.choice as usize != choice {
                        continue;
                    }
                    let is_values = match literal {
                        Literal::Is { values, .. } => Some(*values),
                        _ => None,
                    };
                    let bound = instance.args.iter().fold(0u32, |m, &v| m | 1 << v);
                    let is_enum = matches!(model.choices[choice].kind, ChoiceKind::Enum { .. });
                    let plan = vector_plan(tables, def, bound);
                    let known_false =
                        (is_values.is_some() && is_enum).then_some(clause.literal as usize);
                    out.push(Visit {
                        choice: choice as u16,
                        constraint: clause.constraint,
                        args: instance.args,
                        is_values,
                        slots: plan.as_ref().and_then(|plan| {
                            slot_plan(
                                tables,
                                choice,
                                clause.constraint,
                                instance.args,
                                plan,
                                known_false,
                            )
                        }),
                        plan,
                        fallback: fallback(tables, def, bound),
                        known_false,
                        properties: def
                            .literals
                            .iter()
                            .filter_map(|literal| hold(tables, def.vars, literal, bound))
                            .collect(),
                        constant: {
                            let (mut properties, others): (Vec<_>, Vec<_>) = def
                                .literals
                                .iter()
                                .filter(|&l| literal_vars(l) & !bound == 0)
                                .partition(|l| matches!(l, Literal::Property { .. }));
                            properties.extend(others);
                            properties
                        },
                        skip: Vec::new(),
                        checked: false,
                        mirrored: false,
                        mirrors: false,
                    });
                    literals.push(clause.literal);
                }
            }
            if with_skips {
                for visit in &mut out {
                    visit.skip = skips(tables, choice, visit);
                    visit.checked =
                        visit.plan.is_none() && !matches!(visit.fallback, Fallback::Generic);
                }
            }
            for i in 1..out.len() {
                let (first, second) = (&out[i - 1], &out[i]);
                if first.constraint == second.constraint
                    && literals[i - 1] == literals[i]
                    && !out[i - 1].mirrors
                    && mirrored_pair(tables, choice, first, second, literals[i])
                {
                    out[i - 1].mirrored = true;
                    out[i].mirrors = true;
                }
            }
            out
        })
        .collect()
}

/// Whether `first` and `second`, the visits of the two sides of literal
/// `literal` of their constraint for a change of `choice`, filter the
/// same constraint instances with two variables swapped: the literal is
/// `c(x) == c(y)` (or `!=`, as a comparison or over an enum choice), the
/// constraint's variables are those of `x` and `y` over the same sets, and
/// swapping them leaves every other literal as it is (an `is` literal of a
/// symmetric choice over them whose values map to themselves, as
/// `order($a, $b) is not MERGED`). Both visits are screens, and the
/// changed choice is read in one orientation. Then, where the first
/// visit does not write the changed instance, the second finds every
/// instance as the first left it and does nothing (see
/// `Propagator::visit`).
fn mirrored_pair(
    tables: &Tables,
    choice: usize,
    first: &Visit,
    second: &Visit,
    literal: u8,
) -> bool {
    let model = tables.model;
    let def = &model.constraints[first.constraint as usize];
    let choice_def = &model.choices[choice];
    if (choice_def.symmetry != Symmetry::None && choice_def.params.len() == 2)
        || first.plan.is_some()
        || second.plan.is_some()
        || !matches!(first.fallback, Fallback::Screen(_))
        || !matches!(second.fallback, Fallback::Screen(_))
    {
        return false;
    }
    let (lhs, rhs) = match &def.literals[literal as usize] {
        Literal::Same { lhs, rhs, .. } => (lhs, rhs),
        Literal::Compare {
            lhs: Term::Choice(lhs),
            op: CompareOp::Eq | CompareOp::Ne,
            rhs: Term::Choice(rhs),
        } => (lhs, rhs),
        _ => return false,
    };
    if lhs.choice != rhs.choice
        || lhs.args.len() != rhs.args.len()
        || first.args != lhs.args
        || second.args != rhs.args
        || def.vars.len() != 2 * lhs.args.len()
    {
        return false;
    }
    // The swap, as a map of variables.
    let mut swap: Vec<Option<Var>> = vec![None; def.vars.len()];
    for (&x, &y) in lhs.args.iter().zip(rhs.args) {
        let (vx, vy) = (&def.vars[x as usize], &def.vars[y as usize]);
        if x == y
            || swap[x as usize].is_some()
            || swap[y as usize].is_some()
            || vx.set != vy.set
            || !vx.args.is_empty()
            || !vy.args.is_empty()
        {
            return false;
        }
        swap[x as usize] = Some(y);
        swap[y as usize] = Some(x);
    }
    let swapped = |v: Var| swap.get(v as usize).copied().flatten();
    def.literals.iter().enumerate().all(|(i, other)| {
        if i == literal as usize {
            return true;
        }
        match other {
            Literal::Is { instance, values } => {
                if instance.args.iter().all(|&v| swapped(v).is_none()) {
                    return true;
                }
                let &[u, v] = instance.args else {
                    return false;
                };
                swapped(u) == Some(v)
                    && match model.choices[instance.choice as usize].symmetry {
                        Symmetry::Symmetric => true,
                        Symmetry::Antisymmetric { inverse } => {
                            map_mask(*values, inverse) == *values
                        }
                        Symmetry::None => false,
                    }
            }
            _ => false,
        }
    })
}

/// For a visit without a vector plan whose fallback is `Bound` or
/// `Screen`: per instance of `choice` and orientation (bit `2 * instance +
/// orientation`, orientation 1 reading a symmetric choice's two objects in
/// reverse, as the propagator does), whether the visit is a no-op there
/// for every vector: its objects fail the static checks, a property
/// literal of the clause holds (so every literal status read stops
/// there), or the property rows screen out every completion. These
/// depend on the layout only; a change of such an instance skips the
/// visit.
fn skips(tables: &Tables, choice: usize, visit: &Visit) -> Vec<u64> {
    let model = tables.model;
    let def = &model.constraints[visit.constraint as usize];
    let generic_static = def.vars.iter().all(|v| {
        let set = &model.sets[v.set as usize];
        v.args.is_empty() && set.params.is_empty() && set.quotient.is_none()
    });
    if visit.plan.is_some() || (matches!(visit.fallback, Fallback::Generic) && !generic_static) {
        return Vec::new();
    }
    let count = tables.shapes[choice].count;
    if matches!(visit.fallback, Fallback::Generic) {
        // The completions of every instance, at most: laying out must
        // stay cheap (triggers lay candidates out again while searching).
        let bound = visit.args.iter().fold(0u32, |m, &v| m | 1 << v);
        let completions = (0..def.vars.len())
            .filter(|&i| bound & (1 << i) == 0)
            .try_fold(count, |n, i| {
                n.checked_mul(tables.set_objects(def.vars[i].set, &[]).len())
            });
        if completions.is_none_or(|n| n > MAX_STATIC_COMPLETIONS) {
            return Vec::new();
        }
    }
    skip_bits(tables, choice, |objects| {
        static_noop(tables, def, visit, objects)
    })
}

/// Whether `visit` does nothing for the changed instance's `objects` (see
/// [`skips`]), as `Propagator::visit` would find.
fn static_noop(tables: &Tables, def: &ConstraintDef, visit: &Visit, objects: &[ObjectId]) -> bool {
    let mut b = Binding::empty();
    if !visit
        .args
        .iter()
        .zip(objects.iter())
        .all(|(&v, &o)| b.bind(v, o))
    {
        return true;
    }
    // A property literal over bound variables only.
    let holds = |literal: &Literal| match literal {
        Literal::Property {
            property,
            args,
            negated,
        } => {
            args.iter().all(|&v| b.is_bound(v))
                && tables.bool_property_by(*property, args.len(), |i| b.objects[args[i] as usize])
                    != *negated
        }
        _ => false,
    };
    match &visit.fallback {
        // `filter` stops at a true literal (or earlier), before enforcing.
        Fallback::Bound(checks) => !checks.passes(tables, &b) || def.literals.iter().any(holds),
        Fallback::Screen(plan) => {
            if !plan.checks.passes(tables, &b) {
                return true;
            }
            let mut sat = 0u64;
            for literal in &plan.literals {
                match literal {
                    ZLiteral::Constant(literal) if holds(literal) => return true,
                    ZLiteral::Property {
                        property,
                        slot,
                        args,
                        negated,
                    } => {
                        if let Some(row) =
                            tables.property_row(*property, *slot, |i| b.objects[args[i] as usize])
                        {
                            sat |= if *negated { !row } else { row };
                        }
                    }
                    _ => {}
                }
            }
            // Every completion is left out by `screen_filter`.
            tables.plain_objects(plan.set).iter().all(|&object| {
                plan.same_root
                    .iter()
                    .any(|&v| b.objects[v as usize] == object)
                    || tables
                        .position(plan.root, object)
                        .is_some_and(|p| sat & (1 << p) != 0)
            })
        }
        Fallback::Generic => {
            // Sets without parameters that are not quotients: every
            // completion `for_each` can reach is in the product of the
            // free variables' sets; the visit is a no-op if a property
            // literal holds on each (`skips` bounds their number).
            let bound = def.vars.iter().enumerate().all(|(i, var)| {
                !b.is_bound(i as Var)
                    || tables.is_plain_root[var.set as usize]
                    || tables.contains(var.set, &[], b.objects[i])
            });
            if !bound {
                return true;
            }
            let free: Vec<usize> = (0..def.vars.len())
                .filter(|&i| !b.is_bound(i as Var))
                .collect();
            let holds_at = |b: &Binding| {
                def.literals.iter().any(|literal| match literal {
                    Literal::Property {
                        property,
                        args,
                        negated,
                    } => {
                        tables.bool_property_by(*property, args.len(), |i| {
                            b.objects[args[i] as usize]
                        }) != *negated
                    }
                    _ => false,
                })
            };
            every_completion(tables, def, &free, b, &holds_at)
        }
    }
}

/// Completions at most that the static test of a generic visit
/// enumerates, over all the instances of its choice (see [`skips`]).
const MAX_STATIC_COMPLETIONS: usize = 1 << 16;

/// Whether `test` holds for every binding of the variables `free` of
/// `def` (in their sets, without parameters) that extends `b`.
fn every_completion(
    tables: &Tables,
    def: &ConstraintDef,
    free: &[usize],
    b: Binding,
    test: &dyn Fn(&Binding) -> bool,
) -> bool {
    let Some((&first, rest)) = free.split_first() else {
        return test(&b);
    };
    tables
        .set_objects(def.vars[first].set, &[])
        .iter()
        .all(|&object| {
            let mut inner = b;
            inner.bind(first as Var, object);
            every_completion(tables, def, rest, inner, test)
        })
}
