//! What a change of one choice instance runs, compiled once per layout:
//! per choice, the constraint literals that read it (in the order the
//! propagator visits them) and, for each, how the constraint is filtered
//! over bit planes once the literal's variables are bound (see
//! `Propagator::vector_filter`). Per domain of a changed instance, the
//! visits run as [`Step`]s, the commonest slot-plan shapes compiled to
//! the row table entries they read; per changed instance, the visits and
//! counter reads that can do nothing whatever the domains are listed so
//! that they are skipped (see [`skips`], [`read_skips`]).

use crate::layout::{Layout, Planes};
use crate::model::*;
use crate::propagate::{is_single, literal_instances, map_mask, never_counts, Binding};
use crate::slots::{slot_plan, PairRow, RowOrs, SlotLiteral, SlotPlan, ROW_ORS_VALUES};

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
}

/// The hold of a property literal of a scope with variables `vars`, the
/// variables of `bound` bound before enumerating: it is tested at its
/// last variable not among them.
fn hold(layout: &Layout, vars: &[VarDef], literal: &'static Literal, bound: u32) -> Option<Hold> {
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
    let root = layout.roots[vars[last as usize].set as usize];
    let row = match slots.as_slice() {
        &[slot]
            if layout.property_rows[*property as usize]
                .get(slot)
                .is_some_and(|r| r.as_ref().is_some_and(|r| r.root == root)) =>
        {
            Some((*property, slot, *args, *negated))
        }
        _ => None,
    };
    Some(Hold { last, literal, row })
}

/// The variables a literal reads, as a mask.
fn literal_vars(literal: &Literal) -> u32 {
    let mask = |args: &[Var]| args.iter().fold(0u32, |m, &v| m | 1 << v);
    let term = |t: &Term| match t {
        Term::Const(_) => 0,
        Term::Property { args, .. } => mask(args),
        Term::Choice(instance) => mask(instance.args),
    };
    match literal {
        Literal::Is { instance, .. } => mask(instance.args),
        Literal::Same { lhs, rhs, .. } => mask(lhs.args) | mask(rhs.args),
        Literal::Compare { lhs, rhs, .. } => term(lhs) | term(rhs),
        Literal::Property { args, .. } => mask(args),
    }
}

/// A constraint with every variable bound but `z`, filtered for every
/// position of `z` in its set at once.
#[derive(Debug)]
pub(crate) struct VectorPlan {
    pub z: Var,
    /// The set of `z`: a plain root set of at most 64 objects.
    pub set: u16,
    /// Every position of the set.
    pub full: u64,
    /// Bound variables of the same root set as `z` (their positions are
    /// taken out).
    pub same_root: Vec<Var>,
    pub literals: Vec<RowLiteral>,
}

/// How one literal is read for every position of the free variable.
#[derive(Debug)]
pub(crate) enum RowLiteral {
    /// The literal does not read the free variable.
    Constant(&'static Literal),
    /// `c(u, z) is values` (or `c(z, u)`): `stored` are the values in
    /// storage orientation.
    Is { u: Var, planes: Planes, stored: u64 },
    /// `fixed == c(u, z)` (or `!=`, either orientation of the row).
    Same {
        fixed: &'static InstanceRef,
        choice: u16,
        u: Var,
        planes: Planes,
        inverse: bool,
        equal: bool,
    },
    /// `c(u, z) == c(w, z)` (or `!=`, in any orientation).
    SameRows {
        planes: Planes,
        lhs: (Var, Option<&'static [u8]>),
        rhs: (Var, Option<&'static [u8]>),
        equal: bool,
    },
    /// Not readable from planes: the caller enumerates.
    Unsupported,
}

/// Literals per constraint at most for the vector path.
pub(crate) const MAX_ROW_LITERALS: usize = 16;

/// The visits of every choice.
pub(crate) fn visits(layout: &Layout) -> Vec<Vec<Visit>> {
    let model = layout.model;
    (0..model.choices.len())
        .map(|choice| {
            let mut out = Vec::new();
            // The clause literal of each visit.
            let mut literals = Vec::new();
            for clause in model.clauses_by_choice.get(choice).copied().unwrap_or(&[]) {
                let def = &model.constraints[clause.constraint as usize];
                let literal = &def.literals[clause.literal as usize];
                for instance in literal_instances(literal).into_iter().flatten() {
                    if instance.choice as usize != choice {
                        continue;
                    }
                    let is_values = match literal {
                        Literal::Is { values, .. } => Some(*values),
                        _ => None,
                    };
                    let bound = instance.args.iter().fold(0u32, |m, &v| m | 1 << v);
                    let is_enum = matches!(model.choices[choice].kind, ChoiceKind::Enum { .. });
                    let plan = vector_plan(layout, def, bound);
                    let known_false =
                        (is_values.is_some() && is_enum).then_some(clause.literal as usize);
                    out.push(Visit {
                        choice: choice as u16,
                        constraint: clause.constraint,
                        args: instance.args,
                        is_values,
                        slots: plan.as_ref().and_then(|plan| {
                            slot_plan(
                                layout,
                                choice,
                                clause.constraint,
                                instance.args,
                                plan,
                                known_false,
                            )
                        }),
                        plan,
                        fallback: fallback(layout, def, bound),
                        known_false,
                        properties: def
                            .literals
                            .iter()
                            .filter_map(|literal| hold(layout, def.vars, literal, bound))
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
            for visit in &mut out {
                visit.skip = skips(layout, choice, visit);
                visit.checked =
                    visit.plan.is_none() && !matches!(visit.fallback, Fallback::Generic);
            }
            for i in 1..out.len() {
                let (first, second) = (&out[i - 1], &out[i]);
                if first.constraint == second.constraint
                    && literals[i - 1] == literals[i]
                    && !out[i - 1].mirrors
                    && mirrored_pair(layout, choice, first, second, literals[i])
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
    layout: &Layout,
    choice: usize,
    first: &Visit,
    second: &Visit,
    literal: u8,
) -> bool {
    let model = layout.model;
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
fn skips(layout: &Layout, choice: usize, visit: &Visit) -> Vec<u64> {
    let model = layout.model;
    let def = &model.constraints[visit.constraint as usize];
    let generic_static = def.vars.iter().all(|v| {
        let set = &model.sets[v.set as usize];
        v.args.is_empty() && set.params.is_empty() && set.quotient.is_none()
    });
    if visit.plan.is_some() || (matches!(visit.fallback, Fallback::Generic) && !generic_static) {
        return Vec::new();
    }
    let count = layout.shapes[choice].count;
    if matches!(visit.fallback, Fallback::Generic) {
        // The completions of every instance, at most: laying out must
        // stay cheap (triggers lay candidates out again while searching).
        let bound = visit.args.iter().fold(0u32, |m, &v| m | 1 << v);
        let completions = (0..def.vars.len())
            .filter(|&i| bound & (1 << i) == 0)
            .try_fold(count, |n, i| {
                n.checked_mul(layout.set_objects(def.vars[i].set, &[]).len())
            });
        if completions.is_none_or(|n| n > MAX_STATIC_COMPLETIONS) {
            return Vec::new();
        }
    }
    skip_bits(layout, choice, |objects| {
        static_noop(layout, def, visit, objects)
    })
}

/// Whether bit `2 * instance + orientation` of a skip set is on.
#[inline]
fn skip_bit(bits: &[u64], instance: usize, orientation: usize) -> bool {
    let bit = 2 * instance + orientation;
    bits.get(bit / 64)
        .is_some_and(|word| word >> (bit % 64) & 1 != 0)
}

/// The skip set of `choice`: bit `2 * instance + orientation` on where
/// `noop` holds for the instance's objects read in that orientation
/// (reversed, the second orientation of a symmetric pair choice).
fn skip_bits(
    layout: &Layout,
    choice: usize,
    mut noop: impl FnMut(&[crate::backbone::ObjectId]) -> bool,
) -> Vec<u64> {
    let def = &layout.model.choices[choice];
    let symmetric = def.symmetry != Symmetry::None && def.params.len() == 2;
    let count = layout.shapes[choice].count;
    let mut bits = vec![0u64; (2 * count).div_ceil(64)];
    for instance in 0..count {
        let objects = layout.instance_objects(choice as u16, instance);
        let reversed: Vec<_> = objects.iter().rev().copied().collect();
        let orientations: &[&[_]] = if symmetric {
            &[&objects, &reversed]
        } else {
            &[&objects]
        };
        for (orientation, objects) in orientations.iter().enumerate() {
            if noop(objects) {
                let bit = 2 * instance + orientation;
                bits[bit / 64] |= 1 << (bit % 64);
            }
        }
    }
    bits
}

/// Whether `visit` does nothing for the changed instance's `objects` (see
/// [`skips`]), as `Propagator::visit` would find.
fn static_noop(
    layout: &Layout,
    def: &ConstraintDef,
    visit: &Visit,
    objects: &[crate::backbone::ObjectId],
) -> bool {
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
                && layout.bool_property_by(*property, args.len(), |i| b.objects[args[i] as usize])
                    != *negated
        }
        _ => false,
    };
    match &visit.fallback {
        // `filter` stops at a true literal (or earlier), before enforcing.
        Fallback::Bound(checks) => !checks.passes(layout, &b) || def.literals.iter().any(holds),
        Fallback::Screen(plan) => {
            if !plan.checks.passes(layout, &b) {
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
                            layout.property_row(*property, *slot, |i| b.objects[args[i] as usize])
                        {
                            sat |= if *negated { !row } else { row };
                        }
                    }
                    _ => {}
                }
            }
            // Every completion is left out by `screen_filter`.
            layout.plain_objects(plan.set).iter().all(|&object| {
                plan.same_root
                    .iter()
                    .any(|&v| b.objects[v as usize] == object)
                    || layout
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
                    || layout.is_plain_root[var.set as usize]
                    || layout.contains(var.set, &[], b.objects[i])
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
                        layout.bool_property_by(*property, args.len(), |i| {
                            b.objects[args[i] as usize]
                        }) != *negated
                    }
                    _ => false,
                })
            };
            every_completion(layout, def, &free, b, &holds_at)
        }
    }
}

/// Completions at most that the static test of a generic visit
/// enumerates, over all the instances of its choice (see [`skips`]).
const MAX_STATIC_COMPLETIONS: usize = 1 << 16;

/// Whether `test` holds for every binding of the variables `free` of
/// `def` (in their sets, without parameters) that extends `b`.
fn every_completion(
    layout: &Layout,
    def: &ConstraintDef,
    free: &[usize],
    b: Binding,
    test: &dyn Fn(&Binding) -> bool,
) -> bool {
    let Some((&first, rest)) = free.split_first() else {
        return test(&b);
    };
    layout
        .set_objects(def.vars[first].set, &[])
        .iter()
        .all(|&object| {
            let mut inner = b;
            inner.bind(first as Var, object);
            every_completion(layout, def, rest, inner, test)
        })
}

/// Per domain of a changed instance (the mask as an index), the visits
/// it runs, in order.
pub(crate) type Runs = Vec<Run>;

/// The visits a change runs for one domain of the changed instance.
#[derive(Debug)]
pub(crate) struct Run {
    pub steps: Vec<Step>,
    /// How the propagator tells whether a step can be passed over (see
    /// [`Quiet`]): `[0]` while the changed instance has the run's domain,
    /// `[1]` once a unit narrowed it (the rows steps that read that domain
    /// are then never passed over).
    pub quiet: [Quiets; 2],
}

/// The [`Quiet`] checks of a run's steps.
#[derive(Debug)]
pub(crate) struct Quiets {
    /// Per step.
    pub all: Vec<Quiet>,
    /// Those left when each check equal to an earlier one is taken out
    /// (the mirrored visits of a rule read the same rows), with their
    /// steps. A pass from a step may read these when every check taken
    /// out past that step has its earlier equal there too: read in the
    /// same tables, a check equal to one found quiet is quiet.
    pub distinct: Vec<Quiet>,
    pub distinct_steps: Vec<u16>,
    /// Per step (and the run's end): the first of `distinct` at or past
    /// it, or `u16::MAX` where a pass from there reads `all` (empty when
    /// no check is taken out).
    pub from: Vec<u16>,
}

impl Quiets {
    fn new(all: Vec<Quiet>) -> Quiets {
        let n = all.len();
        // Per check, the nearest earlier one equal to it (never quiet
        // checks are kept: a pass stops at them anyway).
        let earlier: Vec<Option<usize>> = (0..n)
            .map(|j| {
                let check = all[j];
                (check != Quiet::NOISY && n < u16::MAX as usize)
                    .then(|| (0..j).rev().find(|&i| all[i] == check))
                    .flatten()
            })
            .collect();
        if earlier.iter().all(Option::is_none) {
            // Nothing to take out: every pass reads `all`.
            return Quiets {
                all,
                distinct: Vec::new(),
                distinct_steps: Vec::new(),
                from: Vec::new(),
            };
        }
        let distinct_steps: Vec<u16> = (0..n)
            .filter(|&j| earlier[j].is_none())
            .map(|j| j as u16)
            .collect();
        let distinct = distinct_steps.iter().map(|&j| all[j as usize]).collect();
        // From the end: whether every check taken out at or past a step has
        // its earlier equal there too.
        let mut usable = vec![true; n + 1];
        let mut lowest = usize::MAX;
        for f in (0..n).rev() {
            if let Some(i) = earlier[f] {
                lowest = lowest.min(i);
            }
            usable[f] = lowest >= f;
        }
        let mut first = 0u16;
        let from = (0..=n)
            .map(|f| {
                let at = if usable[f] { first } else { u16::MAX };
                if earlier.get(f).is_some_and(Option::is_none) {
                    first += 1;
                }
                at
            })
            .collect();
        Quiets {
            all,
            distinct,
            distinct_steps,
            from,
        }
    }
}

/// Whether a step of a run neither fails nor has a unit, read from the
/// row tables without going through the step (`RowOrs::first_noisy`):
/// the step is quiet when no position is in both `open` ORs without
/// being in both `can` ORs. Pair steps and rows steps with at most two
/// literals besides one false everywhere are read so: a position is
/// open where the step's valid mask has it and neither literal is
/// certainly true, and each literal can hold where its `can` OR has it.
/// Two ORs stand for those three: where a literal is never true
/// ([`RowOrs::NONE`]) the valid mask takes its place, and where the two
/// literals read different tables the valid mask is left out, since
/// it changes nothing: a row has no instance at its own position, and
/// none past the set's objects, so the row of the changed instance's
/// low object never has the low position, nor its high row the high
/// one. Other steps are never quiet here ([`Quiet::NOISY`]), the
/// propagator reading them itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Quiet {
    pub open: [u8; 2],
    pub can: [u8; 2],
}

impl Quiet {
    /// Never quiet: open everywhere, can hold nowhere.
    const NOISY: Quiet = Quiet {
        open: [RowOrs::NONE; 2],
        can: [RowOrs::EMPTY; 2],
    };

    /// How `step` is read when the changed instance's domain `moved`
    /// (see [`Run::quiet`]).
    fn of(step: &Step, moved: bool) -> Quiet {
        // The step's literals as (where it is not certainly true, where it
        // can hold), and its valid mask.
        let (literals, excluded) = match *step {
            Step::Pair {
                excluded,
                rows: [a, b],
                ..
            } => ([(a.outside, a.inside), (b.outside, b.inside)], excluded),
            Step::Rows {
                excluded,
                reads_domain,
                reads,
                ..
            } if !(reads_domain && moved) => {
                // A literal false everywhere changes nothing: the step is a
                // pair of the two others.
                let Some(k) = reads.iter().position(|read| *read == RowRead::FALSE) else {
                    return Quiet::NOISY;
                };
                let [a, b] = match k {
                    0 => [reads[1], reads[2]],
                    1 => [reads[0], reads[2]],
                    _ => [reads[0], reads[1]],
                };
                ([(a.holds, a.fails), (b.holds, b.fails)], excluded)
            }
            _ => return Quiet::NOISY,
        };
        let [(a, a_can), (b, b_can)] = literals;
        let valid = RowOrs::VALID + (excluded & 3);
        let table = |index: u8| (index < RowOrs::VALID).then_some(index >> ROW_ORS_VALUES);
        let open = if a == RowOrs::NONE {
            [valid, b]
        } else if b == RowOrs::NONE {
            [valid, a]
        } else if matches!((table(a), table(b)), (Some(x), Some(y)) if x != y) {
            [a, b]
        } else {
            return Quiet::NOISY;
        };
        Quiet {
            open,
            can: [a_can, b_can],
        }
    }
}

/// One visit of a run: a visit of the choice in one orientation, its
/// commonest shape (a slot plan with a pair, see [`SlotPlan::pair`])
/// compiled down to what its filter reads, so that the propagator's loop
/// over a run does not go through the visit unless a position is unit or
/// fails.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    Visit {
        index: u16,
        orientation: u8,
    },
    /// A visit whose slot plan has a pair.
    Pair {
        index: u16,
        orientation: u8,
        /// Which positions of the changed instance are taken out of the
        /// free variable's, in storage order (bit 0: the low position),
        /// as an index of the change's valid masks.
        excluded: u8,
        rows: [PairStep; 2],
    },
    /// A visit with a slot plan whose literals are its own `is` literal,
    /// `is` literals over rows of the changed choice and `==` literals
    /// with the changed instance (`reads`, then literals false
    /// everywhere), compiled for the run's domain of the changed instance.
    Rows {
        index: u16,
        orientation: u8,
        /// As for [`Step::Pair`].
        excluded: u8,
        /// Whether a literal reads the changed instance's domain (an
        /// `==`): the step holds only while it is the run's domain.
        reads_domain: bool,
        reads: [RowRead; ROW_STEPS],
    },
}

/// A literal of a [`Step::Rows`], read as `Propagator::slot_status` reads
/// it, over rows of the changed choice's own planes in storage order:
/// indices of [`RowOrs`] whose complements are the positions where it is
/// certainly true and certainly false (an `==` with the changed instance
/// read with the run's domain; [`RowOrs::NONE`] and [`RowOrs::EMPTY`]
/// for nowhere and everywhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowRead {
    pub holds: u8,
    pub fails: u8,
}

impl RowRead {
    /// A literal false at every position (the visit's own, or none).
    pub const FALSE: RowRead = RowRead {
        holds: RowOrs::NONE,
        fails: RowOrs::EMPTY,
    };
}

/// Literals at most of a [`Step::Rows`].
pub(crate) const ROW_STEPS: usize = 3;

/// A [`PairRow`] read in storage order, as indices of [`RowOrs`] whose
/// table 0 is the changed instance's low row and table 1 its high row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairStep {
    pub inside: u8,
    pub outside: u8,
}

/// Enum choices of at most this many values list their visits per
/// domain (see [`runs`]).
const RUN_VALUES: usize = 6;

/// For an enum choice of at most [`RUN_VALUES`] values read in one
/// orientation, or stored as a triangle (read in both, the second through
/// the inverse): per domain of a changed instance, the visits that are not
/// skipped, in the propagator's order, each with its orientation (an `is`
/// literal that the domain does not make false is skipped).
pub(crate) fn runs(layout: &Layout) -> Vec<Option<Runs>> {
    let model = layout.model;
    (0..model.choices.len())
        .map(|choice| {
            let def = &model.choices[choice];
            let ChoiceKind::Enum { values } = def.kind else {
                return None;
            };
            let symmetric = def.symmetry != Symmetry::None && def.params.len() == 2;
            if values.len() > RUN_VALUES || (symmetric && !layout.shapes[choice].triangle) {
                return None;
            }
            let visits = &layout.visits[choice];
            let runs = (0..1u64 << values.len())
                .map(|mask| {
                    let masks = [mask, layout.map_inverse(choice as u16, mask)];
                    let orientations = if symmetric { 2 } else { 1 };
                    let mut run = Vec::new();
                    for (index, visit) in visits.iter().enumerate() {
                        for (orientation, mask) in masks.iter().enumerate().take(orientations) {
                            if visit.is_values.is_some_and(|values| mask & values != 0) {
                                continue;
                            }
                            run.push(step(
                                layout,
                                choice,
                                visit,
                                masks[0],
                                index as u16,
                                orientation as u8,
                            ));
                        }
                    }
                    let quiet = [false, true].map(|moved| {
                        Quiets::new(run.iter().map(|step| Quiet::of(step, moved)).collect())
                    });
                    Run { steps: run, quiet }
                })
                .collect();
            Some(runs)
        })
        .collect()
}

/// The step of a run for `visit` in `orientation` (1: the changed
/// instance's objects read in reverse), for the changed instance's domain
/// `mask`.
fn step(
    layout: &Layout,
    choice: usize,
    visit: &Visit,
    mask: u64,
    index: u16,
    orientation: u8,
) -> Step {
    let Some(slots) = visit.slots.as_ref().filter(|_| visit.plan.is_some()) else {
        return Step::Visit { index, orientation };
    };
    // Slot `i` of the visit is the instance's object `i ^ orientation` in
    // storage order.
    let flip = |bit: u8| (bit ^ orientation) & 1;
    let excluded = (0..2u8)
        .filter(|&i| slots.excluded & (1 << i) != 0)
        .fold(0u8, |m, i| m | 1 << flip(i));
    let Some(pair) = &slots.pair else {
        return rows_step(
            layout,
            choice,
            visit,
            slots,
            mask,
            index,
            orientation,
            excluded,
        )
        .unwrap_or(Step::Visit { index, orientation });
    };
    let row = |row: &PairRow| {
        let table = flip(row.slot) as usize;
        PairStep {
            inside: RowOrs::index(table, row.inside) as u8,
            outside: RowOrs::index(table, row.outside) as u8,
        }
    };
    Step::Pair {
        index,
        orientation,
        excluded,
        rows: [row(&pair[0]), row(&pair[1])],
    }
}

/// The [`Step::Rows`] of a visit with slot plan `slots`, if every literal
/// can be read so (see [`RowRead`]), for the changed instance's domain
/// `mask`.
#[allow(clippy::too_many_arguments)]
fn rows_step(
    layout: &Layout,
    choice: usize,
    visit: &Visit,
    slots: &SlotPlan,
    mask: u64,
    index: u16,
    orientation: u8,
    excluded: u8,
) -> Option<Step> {
    let own = layout.shapes[choice].planes?;
    if own.values > ROW_ORS_VALUES || slots.literals.len() > ROW_STEPS {
        return None;
    }
    let flip = |bit: u8| (bit ^ orientation) & 1;
    let all = (1usize << own.values) - 1;
    // Where the sets of values `inside` and its complement are met.
    let ors = |table: u8, inside: usize| {
        (
            RowOrs::index(table as usize, inside) as u8,
            RowOrs::index(table as usize, all & !inside) as u8,
        )
    };
    let mut reads = [RowRead::FALSE; ROW_STEPS];
    let mut reads_domain = false;
    for (i, literal) in slots.literals.iter().enumerate() {
        reads[i] = match literal {
            SlotLiteral::Constant if visit.known_false == Some(i) => RowRead::FALSE,
            SlotLiteral::Is {
                slot,
                planes,
                stored,
            } if planes.base == own.base => {
                let (has_in, has_out) = ors(flip(*slot), *stored as usize & all);
                RowRead {
                    holds: has_out,
                    fails: has_in,
                }
            }
            SlotLiteral::Same {
                fixed_slots,
                slot,
                planes,
                inverse,
                equal,
                ..
            } if planes.base == own.base => {
                // The changed instance, read in the order of the slots (its
                // first object is the instance's high one when flipped).
                reads_domain = true;
                let m = if flip(fixed_slots[0]) == 1 {
                    layout.map_inverse(choice as u16, mask)
                } else {
                    mask
                };
                let stored = if *inverse {
                    layout.map_inverse(choice as u16, m)
                } else {
                    m
                };
                let (has_in, has_out) = ors(flip(*slot), stored as usize & all);
                // Equal: certain when both are the same single value;
                // impossible when they share no value.
                let same = if is_single(m) { has_out } else { RowOrs::NONE };
                if *equal {
                    RowRead {
                        holds: same,
                        fails: has_in,
                    }
                } else {
                    RowRead {
                        holds: has_in,
                        fails: same,
                    }
                }
            }
            _ => return None,
        };
    }
    Some(Step::Rows {
        index,
        orientation,
        excluded,
        reads_domain,
        reads,
    })
}

/// The plan for `def` with the variables of `bound` bound, if it has one
/// free variable over a plain set of at most 64 objects and every other
/// variable ranges over a plain root set.
fn vector_plan(layout: &Layout, def: &ConstraintDef, bound: u32) -> Option<VectorPlan> {
    let mut free = None;
    for (i, var) in def.vars.iter().enumerate() {
        if bound & (1 << i) == 0 {
            if free.is_some() {
                return None;
            }
            free = Some(i);
        } else if !layout.is_plain_root[var.set as usize] {
            return None;
        }
    }
    let z = free?;
    let set = def.vars[z].set;
    if !layout.is_plain_root[set as usize] {
        return None;
    }
    let n = layout.plain_objects(set).len();
    if n > 64 || def.literals.len() > MAX_ROW_LITERALS {
        return None;
    }
    let root = layout.roots[set as usize];
    let same_root = (0..def.vars.len())
        .filter(|&i| i != z && layout.roots[def.vars[i].set as usize] == root)
        .map(|i| i as Var)
        .collect();
    let z = z as Var;
    Some(VectorPlan {
        z,
        set,
        full: if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
        same_root,
        literals: def
            .literals
            .iter()
            .map(|l| row_literal(layout, l, z))
            .collect(),
    })
}

/// The row of `c(u, z)` or `c(z, u)` for a choice with planes: `u`, the
/// planes, and whether it is read against storage orientation.
fn row_of(layout: &Layout, instance: &InstanceRef, z: Var) -> Option<(Var, Planes, bool)> {
    let planes = layout.shapes[instance.choice as usize].planes?;
    let [x, y] = instance.args else { return None };
    match (*x == z, *y == z) {
        (false, true) => Some((*x, planes, false)),
        (true, false) => Some((*y, planes, true)),
        _ => None,
    }
}

/// The inverse a row read against storage orientation maps values by.
fn row_inverse(layout: &Layout, choice: u16, reversed: bool) -> Option<&'static [u8]> {
    match (reversed, layout.model.choices[choice as usize].symmetry) {
        (true, Symmetry::Antisymmetric { inverse }) => Some(inverse),
        _ => None,
    }
}

fn row_literal(layout: &Layout, literal: &'static Literal, z: Var) -> RowLiteral {
    let mentions = |args: &[Var]| args.contains(&z);
    match literal {
        Literal::Is { instance, .. } if !mentions(instance.args) => RowLiteral::Constant(literal),
        Literal::Is { instance, values } => match row_of(layout, instance, z) {
            Some((u, planes, reversed)) => RowLiteral::Is {
                u,
                planes,
                stored: match row_inverse(layout, instance.choice, reversed) {
                    Some(inverse) => map_mask(*values, inverse),
                    None => *values,
                },
            },
            None => RowLiteral::Unsupported,
        },
        Literal::Same { lhs, rhs, equal } => {
            let (fixed, row) = match (mentions(lhs.args), mentions(rhs.args)) {
                (false, false) => return RowLiteral::Constant(literal),
                (false, true) => (lhs, rhs),
                (true, false) => (rhs, lhs),
                (true, true) => {
                    if lhs.choice != rhs.choice {
                        return RowLiteral::Unsupported;
                    }
                    let (Some(l), Some(r)) = (row_of(layout, lhs, z), row_of(layout, rhs, z))
                    else {
                        return RowLiteral::Unsupported;
                    };
                    return RowLiteral::SameRows {
                        planes: l.1,
                        lhs: (l.0, row_inverse(layout, lhs.choice, l.2)),
                        rhs: (r.0, row_inverse(layout, rhs.choice, r.2)),
                        equal: *equal,
                    };
                }
            };
            if fixed.choice != row.choice {
                return RowLiteral::Unsupported;
            }
            match row_of(layout, row, z) {
                Some((u, planes, reversed)) => RowLiteral::Same {
                    fixed,
                    choice: row.choice,
                    u,
                    planes,
                    inverse: row_inverse(layout, row.choice, reversed).is_some(),
                    equal: *equal,
                },
                None => RowLiteral::Unsupported,
            }
        }
        Literal::Property { args, .. } if !mentions(args) => RowLiteral::Constant(literal),
        Literal::Property { .. } => RowLiteral::Unsupported,
        Literal::Compare { lhs, rhs, .. } => {
            let reads_z = |t: &Term| match t {
                Term::Const(_) => false,
                Term::Property { args, .. } => mentions(args),
                Term::Choice(inst) => mentions(inst.args),
            };
            if reads_z(lhs) || reads_z(rhs) {
                RowLiteral::Unsupported
            } else {
                RowLiteral::Constant(literal)
            }
        }
    }
}

/// How the completions of a binding are enumerated when the vector path
/// does not apply. Both fast forms call `Propagator::filter` on the same
/// completions, in the same order, as `Propagator::for_each` would, less
/// those where a literal is certainly true (there `filter` does nothing,
/// and a literal once certainly true stays so).
#[derive(Debug)]
pub(crate) enum Fallback {
    /// Every variable is bound: one completion, if the objects belong to
    /// their sets and are distinct.
    Bound(Checks),
    /// One free variable over a set without parameters whose root set is
    /// plain and has at most 64 objects.
    Screen(Box<ScreenPlan>),
    /// `Propagator::for_each`.
    Generic,
}

/// What the bound variables of a binding must satisfy for it to have
/// completions.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    /// Variables over a set that is not a plain root: their object must
    /// belong to it.
    pub members: Vec<(Var, u16)>,
    /// Pairs of variables of one root set: their objects must differ.
    pub distinct: Vec<(Var, Var)>,
}

impl Checks {
    /// Whether the objects of `b` satisfy the checks.
    #[inline]
    pub fn passes(&self, layout: &Layout, b: &Binding) -> bool {
        self.members
            .iter()
            .all(|&(v, set)| layout.position(set, b.objects[v as usize]).is_some())
            && self
                .distinct
                .iter()
                .all(|&(v, w)| b.objects[v as usize] != b.objects[w as usize])
    }
}

#[derive(Debug)]
pub(crate) struct ScreenPlan {
    pub checks: Checks,
    pub z: Var,
    /// The set of `z`.
    pub set: u16,
    /// Its root set: screens are bitsets over its positions.
    pub root: u16,
    /// Bound variables of the same root set as `z`.
    pub same_root: Vec<Var>,
    pub literals: Vec<ZLiteral>,
    /// The positions of `set` in `root`, when its objects are listed in
    /// the order of their positions (see [`ordered_members`]).
    pub members: Option<u64>,
    /// Every property literal is over bound variables only or has a row:
    /// at the positions a screen lets through, each is false once the
    /// bound ones are known false (see `Propagator::screen_filter`).
    pub properties_screened: bool,
}

/// How a literal over the quantified or free variable `z` is read, for
/// screens and for counters alike.
#[derive(Debug)]
pub(crate) enum ZLiteral {
    /// The literal does not read `z`.
    Constant(&'static Literal),
    /// Read from planes over the root set of `z`.
    Row(RowLiteral),
    /// A boolean property with `z` as its argument `slot`.
    Property {
        property: u16,
        slot: usize,
        args: &'static [Var],
        negated: bool,
    },
    /// None of the above: screens leave it to `filter`, counters read it
    /// position by position.
    Other(&'static Literal),
    /// For counters only: `c(z) is values`, `c` a choice of one parameter
    /// over `z`'s root set, read position by position from the word of
    /// each position's instance (`None`: no instance, a mask of 0, as
    /// `Propagator::status` reads it).
    Own {
        values: u64,
        words: Vec<Option<usize>>,
    },
}

fn fallback(layout: &Layout, def: &ConstraintDef, bound: u32) -> Fallback {
    let model = layout.model;
    // Parametrized and quotient sets need the generic enumeration.
    if def.vars.iter().any(|v| {
        let set = &model.sets[v.set as usize];
        !v.args.is_empty() || !set.params.is_empty() || set.quotient.is_some()
    }) {
        return Fallback::Generic;
    }
    let free: Vec<usize> = (0..def.vars.len())
        .filter(|&i| bound & (1 << i) == 0)
        .collect();
    let checks = checks(layout, def.vars, bound);
    match free.as_slice() {
        [] => Fallback::Bound(checks),
        &[z] => {
            let set = def.vars[z].set;
            let root = layout.roots[set as usize];
            if !layout.is_plain_root[root as usize] || layout.plain_objects(root).len() > 64 {
                return Fallback::Generic;
            }
            let same_root = (0..def.vars.len())
                .filter(|&i| i != z && layout.roots[def.vars[i].set as usize] == root)
                .map(|i| i as Var)
                .collect();
            let z = z as Var;
            let literals: Vec<ZLiteral> = def
                .literals
                .iter()
                .map(|literal| z_literal(layout, def.vars, literal, z, root))
                .collect();
            let properties_screened = literals
                .iter()
                .all(|literal| !matches!(literal, ZLiteral::Other(Literal::Property { .. })));
            Fallback::Screen(Box::new(ScreenPlan {
                checks,
                z,
                set,
                root,
                same_root,
                literals,
                members: ordered_members(layout, set, root),
                properties_screened,
            }))
        }
        _ => Fallback::Generic,
    }
}

/// The positions in `root` of the objects of `set`, if the set lists
/// them in increasing order of position: then going through the bits of a
/// screen over `root` visits the set's objects in its own order, as
/// enumerating the set does.
fn ordered_members(layout: &Layout, set: u16, root: u16) -> Option<u64> {
    let (mut members, mut next) = (0u64, 0);
    for &object in layout.plain_objects(set) {
        let p = layout.position(root, object)?;
        if p < next || p >= 64 {
            return None;
        }
        members |= 1 << p;
        next = p + 1;
    }
    Some(members)
}

/// The checks on the variables of `bound`.
fn checks(layout: &Layout, vars: &[VarDef], bound: u32) -> Checks {
    let mut checks = Checks::default();
    for (i, var) in vars.iter().enumerate() {
        if bound & (1 << i) == 0 {
            continue;
        }
        if !layout.is_plain_root[var.set as usize] {
            checks.members.push((i as Var, var.set));
        }
        for (j, other) in vars.iter().enumerate().take(i) {
            if bound & (1 << j) != 0
                && layout.roots[var.set as usize] == layout.roots[other.set as usize]
            {
                checks.distinct.push((j as Var, i as Var));
            }
        }
    }
    checks
}

/// How `literal` of a scope with variables `vars` is read over `z`,
/// whose root set is `root`.
fn z_literal(
    layout: &Layout,
    vars: &[VarDef],
    literal: &'static Literal,
    z: Var,
    root: u16,
) -> ZLiteral {
    // The rows read are those of bound variables of the root set too.
    let of_root = |v: Var| layout.roots[vars[v as usize].set as usize] == root;
    if let Literal::Property {
        property,
        args,
        negated,
    } = literal
    {
        let slots: Vec<usize> = (0..args.len()).filter(|&i| args[i] == z).collect();
        let params = layout.model.properties[*property as usize].params;
        return match slots.as_slice() {
            [] => ZLiteral::Constant(literal),
            &[slot]
                if args.len() == params.len()
                    && layout.property_rows[*property as usize]
                        .get(slot)
                        .is_some_and(|r| r.as_ref().is_some_and(|r| r.root == root)) =>
            {
                ZLiteral::Property {
                    property: *property,
                    slot,
                    args,
                    negated: *negated,
                }
            }
            _ => ZLiteral::Other(literal),
        };
    }
    match row_literal(layout, literal, z) {
        RowLiteral::Constant(literal) => ZLiteral::Constant(literal),
        RowLiteral::Unsupported => ZLiteral::Other(literal),
        row => {
            let of_planes = match &row {
                RowLiteral::Is { planes, u, .. } | RowLiteral::Same { planes, u, .. } => {
                    planes.set == root && of_root(*u)
                }
                RowLiteral::SameRows {
                    planes, lhs, rhs, ..
                } => planes.set == root && of_root(lhs.0) && of_root(rhs.0),
                _ => false,
            };
            if of_planes {
                ZLiteral::Row(row)
            } else {
                ZLiteral::Other(literal)
            }
        }
    }
}

/// For a boolean property and one of its parameters (the slot), per
/// tuple of the other arguments' positions (dense, in parameter order),
/// the positions in the slot's root set of the objects for which the
/// property holds.
#[derive(Debug)]
pub(crate) struct PropertyRows {
    pub root: u16,
    pub rows: Vec<u64>,
}

/// Rows above this many are not kept.
const MAX_PROPERTY_ROWS: usize = 1 << 16;

/// The rows of every boolean property and slot whose root set is plain
/// with at most 64 objects.
pub(crate) fn property_rows(layout: &Layout) -> Vec<Vec<Option<PropertyRows>>> {
    let model = layout.model;
    model
        .properties
        .iter()
        .enumerate()
        .map(|(property, def)| {
            (0..def.params.len())
                .map(|slot| {
                    if def.ty != PropertyType::Bool
                        || def
                            .params
                            .iter()
                            .any(|&s| !model.sets[s as usize].params.is_empty())
                    {
                        return None;
                    }
                    let set = def.params[slot];
                    let root = layout.roots[set as usize];
                    if !layout.is_plain_root[root as usize] || layout.plain_objects(root).len() > 64
                    {
                        return None;
                    }
                    let sizes: Vec<usize> = def
                        .params
                        .iter()
                        .map(|&s| layout.set_objects(s, &[]).len())
                        .collect();
                    let count: usize = (0..sizes.len())
                        .filter(|&i| i != slot)
                        .map(|i| sizes[i])
                        .product();
                    if count > MAX_PROPERTY_ROWS {
                        return None;
                    }
                    let mut rows = vec![0u64; count];
                    let mut args = vec![0; sizes.len()];
                    for (index, row) in rows.iter_mut().enumerate() {
                        let mut rest = index;
                        for i in (0..sizes.len()).rev().filter(|&i| i != slot) {
                            args[i] = layout.set_objects(def.params[i], &[])[rest % sizes[i]];
                            rest /= sizes[i];
                        }
                        for &object in layout.set_objects(set, &[]) {
                            args[slot] = object;
                            if layout.bool_property(property as u16, &args) {
                                if let Some(p) = layout.position(root, object) {
                                    *row |= 1 << p;
                                }
                            }
                        }
                    }
                    Some(PropertyRows { root, rows })
                })
                .collect()
        })
        .collect()
}

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
    /// As [`ScreenPlan::members`].
    pub members: Option<u64>,
}

/// The screen of a read of a counter whose parameters are its first
/// `params` variables, the read binding `args`.
fn read_screen(
    layout: &Layout,
    def: &'static CounterDef,
    params: usize,
    args: &[Var],
) -> Option<ReadScreen> {
    let model = layout.model;
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
    let checks = checks(layout, vars, read & param_bits);
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
    let root = layout.roots[set as usize];
    if !layout.is_plain_root[root as usize] || layout.plain_objects(root).len() > 64 {
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
                if layout.property_rows[property as usize]
                    .get(slot)
                    .is_some_and(|r| r.as_ref().is_some_and(|r| r.root == root)) =>
            {
                rows.push((property, slot, args, negated))
            }
            _ => others = true,
        }
    }
    let same_root = (0..params)
        .filter(|&i| i != z as usize && layout.roots[vars[i].set as usize] == root)
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
            members: ordered_members(layout, set, root),
        }),
    })
}

/// Per choice, its reads by counters, in the order the propagator runs
/// them: counters as `counters_by_choice` lists them, then the
/// condition's literals and the increment.
pub(crate) fn counter_reads(layout: &Layout) -> Vec<Vec<CounterRead>> {
    let model = layout.model;
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
                        literal_instances(l)
                            .into_iter()
                            .flatten()
                            .map(move |i| (i, values))
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
                        screen: read_screen(layout, def, params, instance.args),
                        skip: Vec::new(),
                    });
                }
            }
            for read in &mut out {
                read.skip = read_skips(layout, choice, read);
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
pub(crate) fn counter_plans(layout: &Layout) -> Vec<Option<CounterPlan>> {
    let model = layout.model;
    (0..model.choices.len())
        .map(|choice| {
            let ChoiceKind::Counter(def) = &model.choices[choice].kind else {
                return None;
            };
            let params = model.choices[choice].params.len();
            if def.op != CounterOp::Sum
                || !matches!(def.increment, Term::Const(1))
                || def.vars.len() != params + 1
                || layout.counter_tuples[choice].is_none()
            {
                return None;
            }
            let z = params;
            let set = def.vars[z].set;
            let root = layout.roots[set as usize];
            if !layout.is_plain_root[root as usize] || layout.plain_objects(root).len() > 64 {
                return None;
            }
            let mut members = 0u64;
            for &object in layout.plain_objects(set) {
                members |= 1 << layout.position(root, object)?;
            }
            let of_root = |v: Var| layout.roots[def.vars[v as usize].set as usize] == root;
            let same_root = (0..params as Var).filter(|&v| of_root(v)).collect();
            let z = z as Var;
            let literals: Vec<ZLiteral> = def
                .condition
                .iter()
                .map(
                    |literal| match z_literal(layout, def.vars, literal, z, root) {
                        ZLiteral::Other(literal) => own_literal(layout, literal, z, root)
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
                    }) && ordered_members(layout, set, root).is_some() =>
                {
                    Some(row)
                }
                _ => None,
            };
            Some(CounterPlan {
                checks: checks(layout, def.vars, (1u32 << params) - 1),
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
fn own_literal(layout: &Layout, literal: &'static Literal, z: Var, root: u16) -> Option<ZLiteral> {
    let Literal::Is { instance, values } = literal else {
        return None;
    };
    let shape = &layout.shapes[instance.choice as usize];
    if instance.args != [z]
        || shape.sets.len() != 1
        || shape.triangle
        || layout.roots[shape.sets[0] as usize] != root
        || !layout.is_plain_root[root as usize]
        || matches!(
            layout.model.choices[instance.choice as usize].kind,
            ChoiceKind::Counter(_)
        )
    {
        return None;
    }
    let words = layout
        .plain_objects(root)
        .iter()
        .map(|&object| {
            let (index, _) = layout.instance(instance.choice, &[object])?;
            Some(shape.base + index * shape.width)
        })
        .collect();
    Some(ZLiteral::Own {
        values: *values,
        words,
    })
}

/// For a counter read with a screen: per instance of `choice` and
/// orientation (as in [`skips`]), whether `Propagator::screened_updates`
/// updates no counter instance there: the screen's checks, its property
/// literals and property rows depend on the layout only.
fn read_skips(layout: &Layout, choice: usize, read: &CounterRead) -> Vec<u64> {
    let Some(screen) = &read.screen else {
        return Vec::new();
    };
    skip_bits(layout, choice, |objects| {
        let mut b = Binding::empty();
        !read
            .args
            .iter()
            .zip(objects.iter())
            .all(|(&v, &o)| b.bind(v, o))
            || screen_updates_nothing(layout, read, screen, &b)
    })
}

/// Whether `Propagator::screened_updates` selects no counter instance for
/// the binding `b` (the same tests, in the same order).
fn screen_updates_nothing(
    layout: &Layout,
    read: &CounterRead,
    screen: &ReadScreen,
    b: &Binding,
) -> bool {
    if !screen.checks.passes(layout, b) {
        return true;
    }
    let holds = |literal: &Literal| match literal {
        Literal::Property {
            property,
            args,
            negated,
        } => {
            layout.bool_property_by(*property, args.len(), |i| b.objects[args[i] as usize])
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
        let bits = layout
            .property_row(property, slot, |i| b.objects[args[i] as usize])
            .unwrap_or(0);
        mask &= if negated { !bits } else { bits };
    }
    let mut with_z = *b;
    with_z.bound |= 1 << free.z;
    layout.plain_objects(free.set).iter().all(|&object| {
        if free
            .same_root
            .iter()
            .any(|&v| b.objects[v as usize] == object)
        {
            return true;
        }
        if layout
            .position(free.root, object)
            .is_some_and(|p| mask & (1 << p) == 0)
        {
            return true;
        }
        with_z.objects[free.z as usize] = object;
        free.others && never_counts(layout, read.def, with_z.bound, &with_z)
    })
}
