//! Counter plans: per choice, the counters that read it and how the
//! counter instances a change concerns are found (a screen over property
//! rows, with a skip set), and for `sum 1` counters over one quantified
//! variable, how they are counted over bitsets. Reads the tables,
//! bindings, screens' literal reads and skip sets.

use super::screens::{checks, ordered_members, z_literal, Checks, ZLiteral};
use super::skips::{skip_bit, skip_bits};
use super::vector::RowLiteral;
use crate::binding::Binding;
use crate::model::*;
use crate::tables::Tables;

/// A read of a choice by a counter: a change of one of the choice's
/// instances recomputes the counter instances the read selects.
#[derive(Debug)]
pub(crate) struct CounterRead {
    pub counter: u16,
    pub def: &'static CounterDef,
    /// The counter's parameters (its first variables).
    pub params: usize,
    /// The read instance's arguments, variables of the counter.
    pub args: &'static [Var],
    /// For an `is` literal: its values.
    pub values: Option<u64>,
    /// How the counter instances are found without enumerating, when the
    /// counter has that shape.
    pub screen: Option<ReadScreen>,
    /// Bit `2 * instance + orientation`: with `screen`, no counter
    /// instance is updated for that changed instance in that orientation,
    /// whatever the domains (see [`read_skips`]); empty when not computed.
    pub skip: Vec<u64>,
}

impl CounterRead {
    /// Whether the read is known to update nothing for a change of
    /// `instance` read in `orientation`.
    #[inline]
    pub fn skips(&self, instance: usize, orientation: usize) -> bool {
        skip_bit(&self.skip, instance, orientation)
    }
}

/// The counter instances a read updates, found from property rows: the
/// read binds every parameter but at most one, `free`, and the
/// condition's property literals over bound variables and `free` select
/// its objects with one bitset (see `Propagator::screened_updates`).
#[derive(Debug)]
pub(crate) struct ReadScreen {
    /// What the bound parameters must satisfy.
    pub checks: Checks,
    /// Property literals of the condition over bound variables only.
    pub constant: Vec<&'static Literal>,
    pub free: Option<FreeParam>,
}

/// The parameter a counter read leaves free: over a plain set without
/// parameters whose root is plain with at most 64 objects.
#[derive(Debug)]
pub(crate) struct FreeParam {
    pub z: Var,
    pub set: u16,
    pub root: u16,
    /// Bound parameters of the same root set (their objects are left
    /// out).
    pub same_root: Vec<Var>,
    /// Property literals over `z` and bound variables, each as
    /// (property, slot of `z`, arguments, negated).
    pub rows: Vec<(u16, usize, &'static [Var], bool)>,
    /// Some property literal over `z` has no row: it is checked object by
    /// object.
    pub others: bool,
    /// As [`ScreenPlan::members`](super::screens::ScreenPlan::members).
    pub members: Option<u64>,
}

/// The screen of a read of a counter whose parameters are its first
/// `params` variables, the read binding `args`.
fn read_screen(
    tables: &Tables,
    def: &'static CounterDef,
    params: usize,
    args: &[Var],
) -> Option<ReadScreen> {
    let model = tables.model;
    let vars = &def.vars[..params];
    if vars.iter().any(|v| {
        let set = &model.sets[v.set as usize];
        !v.args.is_empty() || !set.params.is_empty() || set.quotient.is_some()
    }) {
        return None;
    }
    let read = args.iter().fold(0u32, |m, &v| m | 1 << v);
    let param_bits = (1u32 << params) - 1;
    let free: Vec<usize> = (0..params).filter(|&i| read & (1 << i) == 0).collect();
    // `never_counts` reads the property literals whose variables are all
    // bound once every parameter is.
    let applies = |args: &[Var]| args.iter().all(|&v| (read | param_bits) & (1 << v) != 0);
    let properties = def.condition.iter().filter_map(|literal| match literal {
        Literal::Property {
            property,
            args,
            negated,
        } if applies(args) => Some((literal, *property, *args, *negated)),
        _ => None,
    });
    let checks = checks(tables, vars, read & param_bits);
    let free = match free.as_slice() {
        [] => None,
        &[z] => Some(z as Var),
        _ => return None,
    };
    let Some(z) = free else {
        return Some(ReadScreen {
            checks,
            constant: properties.map(|p| p.0).collect(),
            free: None,
        });
    };
    let set = vars[z as usize].set;
    let root = tables.roots[set as usize];
    if !tables.is_plain_root[root as usize] || tables.plain_objects(root).len() > 64 {
        return None;
    }
    let mut constant = Vec::new();
    let mut rows = Vec::new();
    let mut others = false;
    for (literal, property, args, negated) in properties {
        let slots: Vec<usize> = (0..args.len()).filter(|&i| args[i] == z).collect();
        match slots.as_slice() {
            [] => constant.push(literal),
            &[slot]
                if tables.property_rows[property as usize]
                    .get(slot)
                    .is_some_and(|r| r.as_ref().is_some_and(|r| r.root == root)) =>
            {
                rows.push((property, slot, args, negated))
            }
            _ => others = true,
        }
    }
    let same_root = (0..params)
        .filter(|&i| i != z as usize && tables.roots[vars[i].set as usize] == root)
        .map(|i| i as Var)
        .collect();
    Some(ReadScreen {
        checks,
        constant,
        free: Some(FreeParam {
            z,
            set,
            root,
            same_root,
            rows,
            others,
            members: ordered_members(tables, set, root),
        }),
    })
}

/// Per choice, its reads by counters, in the order the propagator runs
/// them: counters as `counters_by_choice` lists them, then the
/// condition's literals and the increment.
pub(super) fn counter_reads(tables: &Tables) -> Vec<Vec<CounterRead>> {
    let model = tables.model;
    (0..model.choices.len())
        .map(|choice| {
            let mut out = Vec::new();
            for &counter in model.counters_by_choice.get(choice).copied().unwrap_or(&[]) {
                let ChoiceKind::Counter(def) = &model.choices[counter as usize].kind else {
                    continue;
                };
                let params = model.choices[counter as usize].params.len();
                let reads = def
                    .condition
                    .iter()
                    .flat_map(|l| {
                        let values = match l {
                            Literal::Is { values, .. } => Some(*values),
                            _ => None,
                        };
                        l.instances().into_iter().map(move |i| (i, values))
                    })
                    .chain(match &def.increment {
                        Term::Choice(inst) => Some((inst, None)),
                        _ => None,
                    });
                for (instance, values) in reads.filter(|(i, _)| i.choice as usize == choice) {
                    out.push(CounterRead {
                        counter,
                        def,
                        params,
                        args: instance.args,
                        values,
                        screen: read_screen(tables, def, params, instance.args),
                        skip: Vec::new(),
                    });
                }
            }
            for read in &mut out {
                read.skip = read_skips(tables, choice, read);
            }
            out
        })
        .collect()
}

/// A counter `sum 1 when ...` over one quantified variable `z` whose
/// bindings are static: its range is counted over bitsets of the
/// positions of `z`'s root set (see `Propagator::count_rows`).
#[derive(Debug)]
pub(crate) struct CounterPlan {
    /// What the parameters must satisfy for the counter to have
    /// bindings.
    pub checks: Checks,
    /// The quantified variable (after the parameters).
    pub z: Var,
    pub root: u16,
    /// The positions of `z`'s set in its root set.
    pub members: u64,
    /// Parameters of the same root set as `z`.
    pub same_root: Vec<Var>,
    pub literals: Vec<ZLiteral>,
    /// When the condition is one `is` literal read from planes or
    /// [`ZLiteral::Own`] and property literals, and `z`'s set lists its
    /// objects in the order of their positions: the index of that literal.
    /// Back-propagation then forces it at the positions where it is
    /// unknown, in the order of the counter's bindings (see
    /// `Propagator::back_propagate_rows`).
    pub forced: Option<usize>,
}

/// The counter plans of every choice.
pub(super) fn counter_plans(tables: &Tables) -> Vec<Option<CounterPlan>> {
    let model = tables.model;
    (0..model.choices.len())
        .map(|choice| {
            let ChoiceKind::Counter(def) = &model.choices[choice].kind else {
                return None;
            };
            let params = model.choices[choice].params.len();
            // Rows count from 0: a counter with a base takes the general path.
            if def.op != CounterOp::Sum
                || def.base.is_some()
                || !matches!(def.increment, Term::Const(1))
                || def.vars.len() != params + 1
                || tables.counter_tuples[choice].is_none()
                || def
                    .vars
                    .iter()
                    .any(|v| !model.sets[v.set as usize].params.is_empty())
            {
                return None;
            }
            let z = params;
            let set = def.vars[z].set;
            let root = tables.roots[set as usize];
            if !tables.is_plain_root[root as usize] || tables.plain_objects(root).len() > 64 {
                return None;
            }
            let mut members = 0u64;
            for &object in tables.plain_objects(set) {
                members |= 1 << tables.position(root, object)?;
            }
            let of_root = |v: Var| tables.roots[def.vars[v as usize].set as usize] == root;
            let same_root = (0..params as Var).filter(|&v| of_root(v)).collect();
            let z = z as Var;
            let literals: Vec<ZLiteral> = def
                .condition
                .iter()
                .map(
                    |literal| match z_literal(tables, def.vars, literal, z, root) {
                        ZLiteral::Other(literal) => own_literal(tables, literal, z, root)
                            .unwrap_or(ZLiteral::Other(literal)),
                        other => other,
                    },
                )
                .collect();
            let rows: Vec<usize> = (0..literals.len())
                .filter(|&i| {
                    matches!(
                        literals[i],
                        ZLiteral::Row(RowLiteral::Is { .. }) | ZLiteral::Own { .. }
                    )
                })
                .collect();
            let forced = match rows.as_slice() {
                &[row]
                    if literals.iter().enumerate().all(|(i, literal)| {
                        i == row || matches!(literal, ZLiteral::Property { .. })
                    }) && ordered_members(tables, set, root).is_some() =>
                {
                    Some(row)
                }
                _ => None,
            };
            Some(CounterPlan {
                checks: checks(tables, def.vars, (1u32 << params) - 1),
                z,
                root,
                members,
                same_root,
                literals,
                forced,
            })
        })
        .collect()
}

/// `literal` as a [`ZLiteral::Own`], if it is `c(z) is values` with `c`
/// an enum or integer choice of one parameter over a plain set of
/// `root`, the root set of `z`.
fn own_literal(tables: &Tables, literal: &'static Literal, z: Var, root: u16) -> Option<ZLiteral> {
    let Literal::Is { instance, values } = literal else {
        return None;
    };
    let shape = &tables.shapes[instance.choice as usize];
    if instance.args != [z]
        || shape.sets.len() != 1
        || shape.triangle
        || tables.roots[shape.sets[0] as usize] != root
        || !tables.is_plain_root[root as usize]
        || matches!(
            tables.model.choices[instance.choice as usize].kind,
            ChoiceKind::Counter(_)
        )
    {
        return None;
    }
    let words = tables
        .plain_objects(root)
        .iter()
        .map(|&object| {
            let (index, _) = tables.instance(instance.choice, &[object])?;
            Some(shape.base + index * shape.width)
        })
        .collect();
    Some(ZLiteral::Own {
        values: *values,
        words,
    })
}

/// For a counter read with a screen: per instance of `choice` and
/// orientation (as for visits, see [`skip_bits`]), whether `Propagator::screened_updates`
/// updates no counter instance there: the screen's checks, its property
/// literals and property rows depend on the layout only.
fn read_skips(tables: &Tables, choice: usize, read: &CounterRead) -> Vec<u64> {
    let Some(screen) = &read.screen else {
        return Vec::new();
    };
    skip_bits(tables, choice, |objects| {
        let mut b = Binding::empty();
        !read
            .args
            .iter()
            .zip(objects.iter())
            .all(|(&v, &o)| b.bind(v, o))
            || screen_updates_nothing(tables, read, screen, &b)
    })
}

/// Whether `Propagator::screened_updates` selects no counter instance for
/// the binding `b` (the same tests, in the same order).
fn screen_updates_nothing(
    tables: &Tables,
    read: &CounterRead,
    screen: &ReadScreen,
    b: &Binding,
) -> bool {
    if !screen.checks.passes(tables, b) {
        return true;
    }
    let holds = |literal: &Literal| match literal {
        Literal::Property {
            property,
            args,
            negated,
        } => {
            tables.bool_property_by(*property, args.len(), |i| b.objects[args[i] as usize])
                != *negated
        }
        _ => true,
    };
    if !screen.constant.iter().all(|literal| holds(literal)) {
        return true;
    }
    let Some(free) = &screen.free else {
        return false;
    };
    let mut mask = u64::MAX;
    for &(property, slot, args, negated) in &free.rows {
        let bits = tables
            .property_row(property, slot, |i| b.objects[args[i] as usize])
            .unwrap_or(0);
        mask &= if negated { !bits } else { bits };
    }
    let mut with_z = *b;
    with_z.bound |= 1 << free.z;
    tables.plain_objects(free.set).iter().all(|&object| {
        if free
            .same_root
            .iter()
            .any(|&v| b.objects[v as usize] == object)
        {
            return true;
        }
        if tables
            .position(free.root, object)
            .is_some_and(|p| mask & (1 << p) == 0)
        {
            return true;
        }
        with_z.objects[free.z as usize] = object;
        free.others && never_counts(tables, read.def, with_z.bound, &with_z)
    })
}

/// Whether a property literal of a counter's condition fails for the
/// objects of `b` (only literals whose variables are all in `bound` are
/// read): the increment at `b` never counts, whatever the domains.
pub(crate) fn never_counts(tables: &Tables, def: &CounterDef, bound: u32, b: &Binding) -> bool {
    def.condition.iter().any(|literal| match literal {
        Literal::Property {
            property,
            args,
            negated,
        } => {
            args.iter().all(|&v| bound & (1 << v) != 0)
                && tables.bool_property_by(*property, args.len(), |i| b.objects[args[i] as usize])
                    == *negated
        }
        _ => false,
    })
}
