//! The first step of laying a backbone out: where each choice instance
//! lives in the decision vector, and the backbone's sets and properties
//! in dense tables, computed once per backbone so that propagation never
//! calls the host. Plans (`plan`) are compiled from these tables, and a
//! [`Layout`](crate::layout::Layout) holds both. Reads the model, the
//! backbone, bindings and value masks only.

use std::fmt;
use std::sync::Arc;

use crate::backbone::{Backbone, ObjectId};
use crate::model::limits::{MAX_VALUES, MAX_VARS};
use crate::model::{
    ChoiceKind, CounterDef, Derived, Literal, Model, PropertyDef, PropertyType, SetDef, Symmetry,
    TriggerAction, Universe,
};
use crate::values::map_mask;

pub(crate) mod changes;
mod triggers;

/// Why a backbone cannot be laid out for its space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The space uses something this engine does not handle yet.
    Unsupported(String),
    /// The backbone gave inconsistent facts.
    Backbone(String),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::Unsupported(what) => write!(f, "unsupported: {what}"),
            LayoutError::Backbone(what) => write!(f, "invalid backbone: {what}"),
        }
    }
}

impl std::error::Error for LayoutError {}

const ABSENT: u32 = u32::MAX;

/// Triangle instances of sets of up to this many objects find their
/// positions in a table.
const TRIANGLE_TABLE_OBJECTS: usize = 64;

/// Antisymmetric enum choices with at most this many values map masks
/// through their inverse with a table.
const INVERSE_TABLE_BITS: usize = 8;

/// Storage of one choice's instances.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    /// First word of the choice's instances.
    pub base: usize,
    /// Words per instance: 1 for enum and integer masks, 2 for counters.
    pub width: usize,
    pub count: usize,
    /// Number of instances of the choices before this one.
    pub first_instance: usize,
    /// The parameters' sets (positions are taken in these).
    pub sets: Vec<u16>,
    pub sizes: Vec<usize>,
    /// Two parameters of one set stored as the triangle `p0 < p1`.
    pub triangle: bool,
    /// A symmetric or antisymmetric choice of two parameters: a change is
    /// visited in both orientations (found once, for every change).
    pub two_way: bool,
    /// An enum choice (its `is` literals are read from masks).
    pub is_enum: bool,
    /// Bit planes kept beside the masks of a triangle enum choice over a
    /// plain set of at most 64 objects: see [`Planes`].
    pub planes: Option<Planes>,
    /// Whether a callback trigger's condition reads the choice (see
    /// [`triggers`]).
    pub read_by_triggers: bool,
}

/// For a triangle enum choice `c` over a set `S`, word
/// `base + row * values + v` holds the positions `z` in `S` such that `v`
/// is in the domain of `c(S[row], S[z])`: the domains of a whole row at once, so a constraint
/// can be filtered for every `z` with a few word operations.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Planes {
    pub base: usize,
    pub values: usize,
    pub set: u16,
    /// The values an instance's domain may hold (`values` low bits).
    pub all: u64,
    /// The positions of the set's objects (its `n` low bits).
    pub positions: u64,
    /// For an antisymmetric choice, the value `c(b, a)` takes when
    /// `c(a, b)` takes `v`: the high object's row keeps `inverse[v]`.
    /// Kept here so that writing planes does not look the choice up.
    pub inverse: Option<&'static [u8]>,
}

/// The bindings of a counter's variables its increments are counted on,
/// per counter instance: `objects[starts[i]..starts[i + 1]]`, `width`
/// objects per binding.
#[derive(Debug)]
pub(crate) struct CounterTuples {
    width: usize,
    starts: Vec<u32>,
    objects: Vec<ObjectId>,
}

/// The dense tables of one backbone (what a [`Layout`](crate::layout::Layout)
/// dereferences to).
#[derive(Debug)]
pub struct Tables {
    /// The space laid out.
    pub model: &'static Model,
    /// Objects of each set that takes no parameter (for a quotient set: the
    /// objects of its superset, filtered at use by the membership flag).
    objects: Vec<Vec<ObjectId>>,
    /// Per set, the position of each object id in `objects`, or ABSENT.
    positions: Vec<Vec<u32>>,
    /// Parametrized sets: objects per tuple of argument positions.
    param_objects: Vec<Vec<Vec<ObjectId>>>,
    /// Root set of each set.
    pub(crate) roots: Vec<u16>,
    /// Sets kept by the engine (quotient sets).
    pub(crate) is_quotient: Vec<bool>,
    /// Root sets without parameters: every object of their id space that
    /// appears in an instance belongs to them.
    pub(crate) is_plain_root: Vec<bool>,
    /// Property values per tuple of argument positions.
    properties: Vec<PropertyTable>,
    pub(crate) shapes: Vec<Shape>,
    /// Antisymmetric choices with at most [`INVERSE_TABLE_BITS`] values: the
    /// image of every mask through the inverse (see [`Tables::map_inverse`]).
    inverse_tables: Vec<Vec<u64>>,
    /// Counters whose quantifier ranges over static sets: per instance, the
    /// bindings their increments are counted on (see [`CounterTuples`]).
    pub(crate) counter_tuples: Vec<Option<CounterTuples>>,
    /// Integer choices: sorted universe per instance, equal universes of
    /// a choice shared (so that comparing two is comparing pointers).
    universes: Vec<Vec<Arc<[i64]>>>,
    /// Per boolean property and parameter, where it holds for each tuple
    /// of the other arguments (see [`PropertyRows`]).
    pub(crate) property_rows: Vec<Vec<Option<PropertyRows>>>,
    /// Per boolean property and parameter over a set too large for rows,
    /// the objects for which it holds for each tuple of the other
    /// arguments (see [`PropertyLists`]).
    pub(crate) property_lists: Vec<Vec<Option<PropertyLists>>>,
    /// Per choice, the quotient set whose membership flag it is, if any
    /// (found once: the propagator asks on every change).
    pub(crate) flag_of: Vec<Option<u16>>,
    /// Whether a trigger calls the host (candidates look for pending ones
    /// after every decision only then).
    pub(crate) callbacks: bool,
    /// [`Tables::triangle_positions`] of the first instances (those of a
    /// set of up to [`TRIANGLE_TABLE_OBJECTS`] objects).
    triangle_table: Vec<(u8, u8)>,
    /// Words of a decision vector: domains, counters, then bit planes.
    pub words: usize,
    /// Instances of all choices.
    pub instances: usize,
}

#[derive(Debug)]
enum PropertyTable {
    Bool(Vec<bool>),
    Int(Vec<i64>),
    List(Vec<Vec<i64>>),
}

impl Tables {
    /// Asks `backbone` once for every set and host property, computes the
    /// derived properties from the sets, and places every choice instance
    /// in the vector.
    pub(crate) fn new<B: Backbone>(backbone: &B) -> Result<Tables, LayoutError> {
        let model = backbone.model();
        // Generated models fit the limits; a hand-written one that does
        // not would overflow the engine's fixed-size arrays.
        if let Some(excess) = model.over_limit() {
            return Err(LayoutError::Unsupported(excess));
        }
        let roots: Vec<u16> = (0..model.sets.len() as u16)
            .map(|s| model.root(s))
            .collect();
        let mut tables = Tables {
            model,
            objects: vec![Vec::new(); model.sets.len()],
            positions: vec![Vec::new(); model.sets.len()],
            param_objects: vec![Vec::new(); model.sets.len()],
            roots,
            is_quotient: model.sets.iter().map(|s| s.quotient.is_some()).collect(),
            is_plain_root: model
                .sets
                .iter()
                .map(|s| s.superset.is_none() && s.params.is_empty() && s.quotient.is_none())
                .collect(),
            properties: Vec::new(),
            shapes: Vec::new(),
            inverse_tables: model
                .choices
                .iter()
                .map(|choice| match (&choice.symmetry, &choice.kind) {
                    (Symmetry::Antisymmetric { inverse }, ChoiceKind::Enum { values })
                        if values.len() <= INVERSE_TABLE_BITS =>
                    {
                        (0..1u64 << values.len())
                            .map(|mask| map_mask(mask, inverse))
                            .collect()
                    }
                    _ => Vec::new(),
                })
                .collect(),
            counter_tuples: Vec::new(),
            universes: vec![Vec::new(); model.choices.len()],
            property_rows: Vec::new(),
            property_lists: Vec::new(),
            callbacks: model
                .triggers
                .iter()
                .any(|t| matches!(t.action, TriggerAction::Callback { .. })),
            flag_of: (0..model.choices.len())
                .map(|choice| {
                    let flags =
                        |s: &SetDef| s.quotient.as_ref().is_some_and(|q| q.flag == choice as u16);
                    model.sets.iter().position(flags).map(|set| set as u16)
                })
                .collect(),
            triangle_table: (0..TRIANGLE_TABLE_OBJECTS * (TRIANGLE_TABLE_OBJECTS - 1) / 2)
                .map(|i| {
                    let (low, high) = triangle_positions(i);
                    (low as u8, high as u8)
                })
                .collect(),
            words: 0,
            instances: 0,
        };
        // Sets without parameters first: parametrized sets and properties
        // are indexed by positions in them.
        for (index, set) in model.sets.iter().enumerate() {
            if !set.params.is_empty() {
                continue;
            }
            let objects = match set.quotient {
                Some(_) => Vec::new(),
                None => backbone.objects(index as u16, &[]),
            };
            tables.objects[index] = objects;
        }
        for (index, set) in model.sets.iter().enumerate() {
            if set.params.is_empty() && set.quotient.is_some() {
                let parent = set.superset.ok_or_else(|| {
                    LayoutError::Backbone(format!("quotient set `{}` has no superset", set.name))
                })?;
                tables.objects[index] = tables.objects[parent as usize].clone();
            }
        }
        for index in 0..model.sets.len() {
            tables.positions[index] = position_table(&tables.objects[index]);
        }
        for (index, set) in model.sets.iter().enumerate() {
            if set.params.is_empty() {
                continue;
            }
            let mut lists = Vec::new();
            for args in tables.tuples(set.params)?.iter() {
                lists.push(match set.quotient {
                    Some(_) => set
                        .superset
                        .map(|p| tables.objects[p as usize].clone())
                        .unwrap_or_default(),
                    None => backbone.objects(index as u16, args),
                });
            }
            tables.param_objects[index] = lists;
        }
        // Every set's objects are known by now, which derived properties
        // are computed from.
        for (index, property) in model.properties.iter().enumerate() {
            let tuples = tables.tuples(property.params)?;
            let p = index as u16;
            if let Some(derived) = property.derived {
                let values = tables.derived_values(property, derived, &tuples)?;
                tables.properties.push(PropertyTable::Bool(values));
                continue;
            }
            tables.properties.push(match property.ty {
                PropertyType::Bool => PropertyTable::Bool(
                    tuples
                        .iter()
                        .map(|a| backbone.bool_property(p, a))
                        .collect(),
                ),
                PropertyType::Int => {
                    PropertyTable::Int(tuples.iter().map(|a| backbone.int_property(p, a)).collect())
                }
                PropertyType::IntList => PropertyTable::List(
                    tuples
                        .iter()
                        .map(|a| backbone.list_property(p, a))
                        .collect(),
                ),
            });
        }
        let mut base = 0;
        let mut first_instance = 0;
        let trigger_reads = triggers::trigger_reads(model);
        for (choice, &read_by_triggers) in model.choices.iter().zip(&trigger_reads) {
            for param in choice.params {
                if !param.args.is_empty() {
                    return Err(LayoutError::Unsupported(format!(
                        "choice `{}` ({}) has a parameter over a parametrized set",
                        choice.name, choice.origin
                    )));
                }
            }
            let sets: Vec<u16> = choice.params.iter().map(|p| p.set).collect();
            let sizes: Vec<usize> = sets
                .iter()
                .map(|&s| tables.objects[s as usize].len())
                .collect();
            let triangle =
                choice.symmetry != Symmetry::None && sets.len() == 2 && sets[0] == sets[1];
            let count = if triangle {
                sizes[0] * sizes[0].saturating_sub(1) / 2
            } else {
                sizes.iter().product()
            };
            let width = if matches!(choice.kind, ChoiceKind::Counter(_)) {
                2
            } else {
                1
            };
            tables.shapes.push(Shape {
                base,
                width,
                count,
                first_instance,
                sets,
                sizes,
                triangle,
                two_way: choice.symmetry != Symmetry::None && choice.params.len() == 2,
                is_enum: matches!(choice.kind, ChoiceKind::Enum { .. }),
                planes: None,
                read_by_triggers,
            });
            base += count * width;
            first_instance += count;
        }
        // Bit planes go after every domain.
        for (index, choice) in model.choices.iter().enumerate() {
            let shape = &tables.shapes[index];
            let ChoiceKind::Enum { values } = &choice.kind else {
                continue;
            };
            let set = shape.sets.first().copied();
            if let (true, Some(set)) = (shape.triangle, set) {
                let def = &model.sets[set as usize];
                let n = tables.objects[set as usize].len();
                if def.params.is_empty() && def.quotient.is_none() && n <= 64 {
                    tables.shapes[index].planes = Some(Planes {
                        base,
                        values: values.len(),
                        set,
                        all: if values.len() >= 64 {
                            u64::MAX
                        } else {
                            (1u64 << values.len()) - 1
                        },
                        positions: if n >= 64 { u64::MAX } else { (1u64 << n) - 1 },
                        inverse: match choice.symmetry {
                            Symmetry::Antisymmetric { inverse } => Some(inverse),
                            _ => None,
                        },
                    });
                    base += n * values.len();
                }
            }
        }
        tables.words = base;
        tables.instances = first_instance;
        for (index, choice) in model.choices.iter().enumerate() {
            let ChoiceKind::Integer { universe } = &choice.kind else {
                continue;
            };
            let mut per_instance = Vec::with_capacity(tables.shapes[index].count);
            for instance in 0..tables.shapes[index].count {
                let objects = tables.instance_objects(index as u16, instance);
                let mut values = match universe {
                    Universe::List(values) => values.to_vec(),
                    Universe::Property { property, args } => {
                        let args: Vec<ObjectId> =
                            args.iter().map(|&v| objects[v as usize]).collect();
                        tables.list_property(*property, &args).to_vec()
                    }
                };
                values.sort_unstable();
                values.dedup();
                if values.len() > MAX_VALUES {
                    return Err(LayoutError::Backbone(format!(
                        "integer choice `{}` has {} possible values for {:?}; at most {MAX_VALUES} are supported (limit `MAX_VALUES`)",
                        choice.name,
                        values.len(),
                        objects
                    )));
                }
                let shared = per_instance.iter().find(|u: &&Arc<[i64]>| ***u == *values);
                per_instance.push(shared.cloned().unwrap_or_else(|| values.into()));
            }
            tables.universes[index] = per_instance;
        }
        tables.counter_tuples = (0..model.choices.len())
            .map(|c| tables.static_counter_tuples(c as u16))
            .collect();
        tables.property_rows = property_rows(&tables);
        tables.property_lists = property_lists(&tables);
        Ok(tables)
    }

    /// The values of a derived property, one per tuple of `tuples` (the
    /// tuples of its parameters' sets), computed from the sets' tables,
    /// which must be complete: the backbone is never asked.
    fn derived_values(
        &self,
        property: &PropertyDef,
        derived: Derived,
        tuples: &Tuples,
    ) -> Result<Vec<bool>, LayoutError> {
        let model = self.model;
        let unsupported = |why: String| {
            LayoutError::Unsupported(format!("derived property `{}` {why}", property.name))
        };
        if property.ty != PropertyType::Bool {
            return Err(unsupported(format!(
                "is declared {:?}; derived properties are `bool`",
                property.ty
            )));
        }
        // Whether the objects of `param` and of `set` are ids in one root
        // set: ids of two root sets never compare.
        let same_root =
            |param: u16, set: u16| self.roots[param as usize] == self.roots[set as usize];
        match derived {
            Derived::Member { set } => {
                let def = model.sets.get(set as usize).ok_or_else(|| {
                    unsupported(format!("tests set {set}, which the model lacks"))
                })?;
                // A quotient set changes during a search, so its
                // membership is no constant.
                if def.quotient.is_some() {
                    return Err(unsupported(format!(
                        "tests membership of the quotient set `{}`, which the engine fills \
                         during a search; only sets the host gives can be tested",
                        def.name
                    )));
                }
                let fits = property.params.len() == def.params.len() + 1
                    && property
                        .params
                        .iter()
                        .zip(def.params.iter().chain([&set]))
                        .all(|(&param, &expected)| same_root(param, expected));
                if !fits {
                    return Err(unsupported(format!(
                        "does not take the arguments of `{}` then one of its objects",
                        def.name
                    )));
                }
                Ok(tuples
                    .iter()
                    .map(|tuple| match tuple.split_last() {
                        Some((&object, args)) => self.contains(set, args, object),
                        None => false,
                    })
                    .collect())
            }
            Derived::Order(op) => {
                let &[a, b] = property.params else {
                    return Err(unsupported(format!(
                        "compares {} objects; an order compares two",
                        property.params.len()
                    )));
                };
                if !same_root(a, b) {
                    return Err(unsupported(format!(
                        "compares objects of `{}` and `{}`, whose ids do not compare",
                        model.sets[a as usize].name, model.sets[b as usize].name
                    )));
                }
                Ok(tuples
                    .iter()
                    .map(|tuple| op.eval(i64::from(tuple[0]), i64::from(tuple[1])))
                    .collect())
            }
        }
    }

    /// For a counter whose variables range over sets that are not
    /// quotient sets (parametrized ones included, as `IterDims($i)`): per
    /// instance, every binding of its variables the propagator's
    /// enumeration visits (parameters first, in the same order), less
    /// those where a property literal of the condition is false (their
    /// increment never counts).
    fn static_counter_tuples(&self, choice: u16) -> Option<CounterTuples> {
        let def = &self.model.choices[choice as usize];
        let ChoiceKind::Counter(counter) = &def.kind else {
            return None;
        };
        let vars = counter.vars;
        // (Without variables, there is one empty binding, which a list of
        // zero-width tuples cannot tell from none.)
        if vars.is_empty()
            || vars.len() > MAX_VARS
            || vars
                .iter()
                .any(|v| self.model.sets[v.set as usize].quotient.is_some())
        {
            return None;
        }
        let shape = &self.shapes[choice as usize];
        let params = def.params.len();
        let mut starts = Vec::with_capacity(shape.count + 1);
        let mut objects = Vec::new();
        let mut tuple = [0 as ObjectId; MAX_VARS];
        let mut instance_objects = Vec::new();
        for instance in 0..shape.count {
            starts.push(objects.len() as u32);
            self.instance_objects_into(choice, instance, &mut instance_objects);
            if instance_objects.len() != params {
                continue;
            }
            tuple[..params].copy_from_slice(&instance_objects);
            self.enumerate_tuples(counter, params, 0, &mut tuple, &mut objects);
        }
        starts.push(objects.len() as u32);
        Some(CounterTuples {
            width: vars.len(),
            starts,
            objects,
        })
    }

    /// Extends `tuple` (variables `..i` bound, parameters given) as
    /// `Propagator::for_each` does, keeping complete tuples whose property
    /// literals all hold.
    fn enumerate_tuples(
        &self,
        def: &CounterDef,
        params: usize,
        i: usize,
        tuple: &mut [ObjectId; MAX_VARS],
        out: &mut Vec<ObjectId>,
    ) {
        let vars = def.vars;
        if i == vars.len() {
            let holds = def.condition.iter().all(|literal| match literal {
                Literal::Property {
                    property,
                    args,
                    negated,
                } => {
                    let args: Vec<ObjectId> = args.iter().map(|&v| tuple[v as usize]).collect();
                    self.bool_property(*property, &args) != *negated
                }
                _ => true,
            });
            if holds {
                out.extend_from_slice(&tuple[..vars.len()]);
            }
            return;
        }
        let set = vars[i].set;
        let root = self.roots[set as usize];
        let distinct = |tuple: &[ObjectId; MAX_VARS], object: ObjectId| {
            (0..i).all(|j| self.roots[vars[j].set as usize] != root || tuple[j] != object)
        };
        // A parametrized set's arguments are earlier variables.
        let mut args = [0 as ObjectId; MAX_VARS];
        for (k, &arg) in vars[i].args.iter().enumerate() {
            args[k] = tuple[arg as usize];
        }
        let args = &args[..vars[i].args.len()];
        if i < params {
            // A parameter: bound by the counter instance.
            let object = tuple[i];
            if (self.is_plain_root[set as usize] || self.contains(set, args, object))
                && distinct(tuple, object)
            {
                self.enumerate_tuples(def, params, i + 1, tuple, out);
            }
            return;
        }
        for &object in self.set_objects(set, args) {
            if !distinct(tuple, object) {
                continue;
            }
            tuple[i] = object;
            self.enumerate_tuples(def, params, i + 1, tuple, out);
        }
    }

    /// The bindings an instance of a counter is computed over, each of
    /// `width` objects, if they are static.
    #[inline]
    pub(crate) fn counter_tuples(
        &self,
        choice: u16,
        instance: usize,
    ) -> Option<(usize, &[ObjectId])> {
        let tuples = self.counter_tuples.get(choice as usize)?.as_ref()?;
        let start = *tuples.starts.get(instance)? as usize;
        let end = tuples.starts[instance + 1] as usize;
        Some((tuples.width, &tuples.objects[start..end]))
    }

    /// Every tuple of objects of `sets` (sets without parameters), in
    /// dense-index order.
    fn tuples(&self, sets: &[u16]) -> Result<Tuples, LayoutError> {
        let mut sizes = Vec::with_capacity(sets.len());
        for &set in sets {
            if !self.model.sets[set as usize].params.is_empty() {
                return Err(LayoutError::Unsupported(format!(
                    "a parameter over the parametrized set `{}`",
                    self.model.sets[set as usize].name
                )));
            }
            sizes.push(self.objects[set as usize].len());
        }
        let count: usize = sizes.iter().product();
        let width = sets.len();
        let mut objects = Vec::with_capacity(count * width);
        let mut at = vec![0; width];
        for _ in 0..count {
            objects.extend(
                sets.iter()
                    .zip(&at)
                    .map(|(&set, &i)| self.objects[set as usize][i]),
            );
            // The last position moves fastest, as in a dense index.
            for slot in (0..width).rev() {
                at[slot] += 1;
                if at[slot] < sizes[slot] {
                    break;
                }
                at[slot] = 0;
            }
        }
        Ok(Tuples {
            width,
            count,
            objects,
        })
    }

    /// Position of `object` in `set` (a set without parameters).
    pub(crate) fn position(&self, set: u16, object: ObjectId) -> Option<usize> {
        let p = *self.positions[set as usize].get(object as usize)?;
        (p != ABSENT).then_some(p as usize)
    }

    /// The positions in its root set of the objects of `slot` for which a
    /// boolean property holds, the other arguments given by `object(i)`
    /// (`None` without rows for this slot).
    #[inline]
    pub(crate) fn property_row(
        &self,
        property: u16,
        slot: usize,
        object: impl Fn(usize) -> ObjectId,
    ) -> Option<u64> {
        let rows = self.property_rows[property as usize].get(slot)?.as_ref()?;
        Some(
            self.index_without(property, slot, object)
                .map_or(0, |index| rows.rows[index]),
        )
    }

    /// The objects of `slot`'s set (in the set's order) for which a
    /// boolean property holds, the other arguments given by `object(i)`
    /// (`None` without lists for this slot).
    #[inline]
    pub(crate) fn property_list(
        &self,
        property: u16,
        slot: usize,
        object: impl Fn(usize) -> ObjectId,
    ) -> Option<&[ObjectId]> {
        let lists = self.property_lists[property as usize].get(slot)?.as_ref()?;
        let Some(index) = self.index_without(property, slot, object) else {
            return Some(&[]);
        };
        let (start, end) = (lists.starts[index], lists.starts[index + 1]);
        Some(&lists.objects[start as usize..end as usize])
    }

    /// The index of a property's row or list: the dense index of its
    /// arguments but `slot`'s, given by `object(i)` (`None` when one is not
    /// an object of its set).
    #[inline]
    fn index_without(
        &self,
        property: u16,
        slot: usize,
        object: impl Fn(usize) -> ObjectId,
    ) -> Option<usize> {
        let sets = self.model.properties[property as usize].params;
        let mut index = 0;
        for (i, &set) in sets.iter().enumerate() {
            if i != slot {
                index = index * self.objects[set as usize].len() + self.position(set, object(i))?;
            }
        }
        Some(index)
    }

    /// Dense index of a tuple of objects of `sets`.
    fn tuple_index(&self, sets: &[u16], args: &[ObjectId]) -> Option<usize> {
        let mut index = 0;
        for (&set, &object) in sets.iter().zip(args) {
            index = index * self.objects[set as usize].len() + self.position(set, object)?;
        }
        Some(index)
    }

    /// The objects of a set given its arguments (quotient sets: every
    /// candidate member; the caller checks membership).
    pub(crate) fn set_objects(&self, set: u16, args: &[ObjectId]) -> &[ObjectId] {
        let def = &self.model.sets[set as usize];
        if def.params.is_empty() {
            return &self.objects[set as usize];
        }
        self.tuple_index(def.params, args)
            .and_then(|i| self.param_objects[set as usize].get(i))
            .map_or(&[], Vec::as_slice)
    }

    /// Whether `object` belongs to `set(args)`, quotient membership aside.
    pub(crate) fn contains(&self, set: u16, args: &[ObjectId], object: ObjectId) -> bool {
        if self.model.sets[set as usize].params.is_empty() {
            self.position(set, object).is_some()
        } else {
            self.set_objects(set, args).contains(&object)
        }
    }

    /// Like [`Tables::bool_property`], the `i`-th argument given by
    /// `object(i)`.
    #[inline]
    pub(crate) fn bool_property_by(
        &self,
        property: u16,
        len: usize,
        object: impl Fn(usize) -> ObjectId,
    ) -> bool {
        let sets = self.model.properties[property as usize].params;
        let PropertyTable::Bool(values) = &self.properties[property as usize] else {
            return false;
        };
        let mut index = 0;
        for (i, &set) in sets.iter().enumerate().take(len) {
            match self.position(set, object(i)) {
                Some(p) => index = index * self.objects[set as usize].len() + p,
                None => return false,
            }
        }
        values[index]
    }

    pub(crate) fn bool_property(&self, property: u16, args: &[ObjectId]) -> bool {
        let sets = self.model.properties[property as usize].params;
        match (
            &self.properties[property as usize],
            self.tuple_index(sets, args),
        ) {
            (PropertyTable::Bool(values), Some(i)) => values[i],
            _ => false,
        }
    }

    pub(crate) fn int_property(&self, property: u16, args: &[ObjectId]) -> i64 {
        let sets = self.model.properties[property as usize].params;
        match (
            &self.properties[property as usize],
            self.tuple_index(sets, args),
        ) {
            (PropertyTable::Int(values), Some(i)) => values[i],
            _ => 0,
        }
    }

    pub(crate) fn list_property(&self, property: u16, args: &[ObjectId]) -> &[i64] {
        let sets = self.model.properties[property as usize].params;
        match (
            &self.properties[property as usize],
            self.tuple_index(sets, args),
        ) {
            (PropertyTable::List(values), Some(i)) => &values[i],
            _ => &[],
        }
    }

    /// The instance of `choice` for `objects`, and whether it is stored
    /// reversed (the triangle keeps `c(a, b)` with `a` before `b`).
    #[inline]
    pub(crate) fn instance(&self, choice: u16, objects: &[ObjectId]) -> Option<(usize, bool)> {
        self.instance_by(choice, objects.len(), |i| objects[i])
    }

    /// Like [`Tables::instance`], the `i`-th object given by `object(i)`
    /// for `i < len` (so that callers need not gather the objects first).
    #[inline(always)]
    pub(crate) fn instance_by(
        &self,
        choice: u16,
        len: usize,
        object: impl Fn(usize) -> ObjectId,
    ) -> Option<(usize, bool)> {
        let shape = &self.shapes[choice as usize];
        if shape.triangle {
            let table = &self.positions[shape.sets[0] as usize];
            let a = *table.get(object(0) as usize)?;
            let b = *table.get(object(1) as usize)?;
            if a == ABSENT || b == ABSENT {
                return None;
            }
            let (a, b) = (a as usize, b as usize);
            let (low, high, reversed) = match a.cmp(&b) {
                std::cmp::Ordering::Less => (a, b, false),
                std::cmp::Ordering::Greater => (b, a, true),
                std::cmp::Ordering::Equal => return None,
            };
            return Some((high * (high - 1) / 2 + low, reversed));
        }
        if let ([set], 1) = (shape.sets.as_slice(), len) {
            // One parameter (as `dim_kind($d)`): the object's position.
            return Some((self.position(*set, object(0))?, false));
        }
        let mut index = 0;
        for (i, &set) in shape.sets.iter().enumerate().take(len) {
            index = index * shape.sizes[i] + self.position(set, object(i))?;
        }
        Some((index, false))
    }

    /// Positions `(low, high)` of the objects of a triangle instance.
    pub(crate) fn triangle_positions(&self, instance: usize) -> (usize, usize) {
        if let Some(&(low, high)) = self.triangle_table.get(instance) {
            return (low as usize, high as usize);
        }
        triangle_positions(instance)
    }

    /// The objects of a set without parameters.
    pub(crate) fn plain_objects(&self, set: u16) -> &[ObjectId] {
        &self.objects[set as usize]
    }

    /// The objects of an instance, in storage orientation.
    pub(crate) fn instance_objects(&self, choice: u16, instance: usize) -> Vec<ObjectId> {
        let mut out = Vec::new();
        self.instance_objects_into(choice, instance, &mut out);
        out
    }

    /// Like `instance_objects`, reusing `out`.
    pub(crate) fn instance_objects_into(
        &self,
        choice: u16,
        instance: usize,
        out: &mut Vec<ObjectId>,
    ) {
        out.clear();
        out.resize(self.shapes[choice as usize].sets.len(), 0);
        let len = self.instance_objects_in(choice, instance, out).unwrap_or(0);
        out.truncate(len);
    }

    /// Like `instance_objects`, into the start of `out` (without
    /// allocating): their number, or `None` if `out` is too short.
    #[inline]
    pub(crate) fn instance_objects_in(
        &self,
        choice: u16,
        instance: usize,
        out: &mut [ObjectId],
    ) -> Option<usize> {
        let shape = &self.shapes[choice as usize];
        if shape.triangle {
            let (low, high) = self.triangle_positions(instance);
            let objects = &self.objects[shape.sets[0] as usize];
            out.get_mut(..2)?
                .copy_from_slice(&[objects[low], objects[high]]);
            return Some(2);
        }
        let len = shape.sets.len();
        let out = out.get_mut(..len)?;
        let mut rest = instance;
        for i in (0..len).rev() {
            let position = rest % shape.sizes[i].max(1);
            rest /= shape.sizes[i].max(1);
            out[i] = self.objects[shape.sets[i] as usize][position];
        }
        Some(len)
    }

    /// Whether an instance has pairwise distinct objects, i.e. exists.
    pub(crate) fn instance_exists(&self, choice: u16, objects: &[ObjectId]) -> bool {
        let sets = &self.shapes[choice as usize].sets;
        for i in 0..objects.len() {
            for j in 0..i {
                if objects[i] == objects[j]
                    && self.roots[sets[i] as usize] == self.roots[sets[j] as usize]
                {
                    return false;
                }
            }
        }
        true
    }

    /// Sorted universe of an integer instance.
    pub(crate) fn universe(&self, choice: u16, instance: usize) -> &[i64] {
        self.universes[choice as usize]
            .get(instance)
            .map_or(&[], |u| u)
    }

    /// A mask of `choice` read in the other orientation: mapped through the
    /// inverse of an antisymmetric choice, unchanged otherwise.
    #[inline]
    pub(crate) fn map_inverse(&self, choice: u16, mask: u64) -> u64 {
        let table = &self.inverse_tables[choice as usize];
        if let Some(&mapped) = table.get(mask as usize) {
            return mapped;
        }
        match self.model.choices[choice as usize].symmetry {
            Symmetry::Antisymmetric { inverse } => map_mask(mask, inverse),
            _ => mask,
        }
    }
}

fn position_table(objects: &[ObjectId]) -> Vec<u32> {
    let len = objects.iter().map(|&o| o as usize + 1).max().unwrap_or(0);
    let mut table = vec![ABSENT; len];
    for (position, &object) in objects.iter().enumerate() {
        table[object as usize] = position as u32;
    }
    table
}

/// Positions `(low, high)` of the objects of a triangle instance, computed.
fn triangle_positions(instance: usize) -> (usize, usize) {
    let mut high = ((((8 * instance + 1) as f64).sqrt() + 1.0) / 2.0) as usize;
    while high * high.saturating_sub(1) / 2 > instance {
        high -= 1;
    }
    while (high + 1) * high / 2 <= instance {
        high += 1;
    }
    (instance - high * (high - 1) / 2, high)
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

/// For a boolean property and one of its parameters, whose set is too
/// large for [`PropertyRows`]: per tuple of the other arguments (in
/// [`Tables::tuple_index`] order without the parameter), the objects of
/// the parameter's set for which the property holds, in the set's order.
/// Enumerating a variable that a negated property literal screens (`!p ||
/// ...`) walks the list instead of the whole set: for a pair of loop
/// dimensions, the few dependences `pair_positive` names rather than all
/// 336 of PolyBench's deriche.
#[derive(Debug)]
pub(crate) struct PropertyLists {
    /// The parameter's set.
    pub set: u16,
    /// Where each tuple's objects start in `objects`, and a last end.
    starts: Vec<u32>,
    objects: Vec<ObjectId>,
}

std::thread_local! {
    /// Set by [`crate::testing::without_property_lists`].
    pub(crate) static NO_PROPERTY_LISTS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Every tuple of objects of some sets, laid end to end (one allocation
/// where a vector per tuple cost most of laying a candidate out again).
pub(crate) struct Tuples {
    width: usize,
    count: usize,
    objects: Vec<ObjectId>,
}

impl Tuples {
    /// The tuples, in dense-index order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[ObjectId]> {
        (0..self.count).map(move |i| &self.objects[i * self.width..(i + 1) * self.width])
    }
}

/// Tables larger than this many tuples (all arguments) get no lists.
const MAX_LISTED_TUPLES: usize = 1 << 25;

/// The lists of every boolean property and slot that a constraint reads
/// through a negated literal, over a plain set with more than 64 objects
/// (smaller ones have rows), where every parameter's set is plain.
fn property_lists(tables: &Tables) -> Vec<Vec<Option<PropertyLists>>> {
    let model = tables.model;
    if NO_PROPERTY_LISTS.get() {
        return model.properties.iter().map(|_| Vec::new()).collect();
    }
    let negated = |property: usize| {
        model.constraints.iter().any(|c| {
            c.literals.iter().any(|l| {
                matches!(l, Literal::Property { property: p, negated: true, .. } if *p as usize == property)
            })
        })
    };
    model
        .properties
        .iter()
        .enumerate()
        .map(|(property, def)| {
            let listed = def.ty == PropertyType::Bool
                && def
                    .params
                    .iter()
                    .all(|&s| model.sets[s as usize].params.is_empty())
                && negated(property);
            let sizes: Vec<usize> = def
                .params
                .iter()
                .map(|&s| tables.set_objects(s, &[]).len())
                .collect();
            let tuples: usize = sizes.iter().product();
            (0..def.params.len())
                .map(|slot| {
                    let set = def.params[slot];
                    if !listed || sizes[slot] <= 64 || tuples > MAX_LISTED_TUPLES {
                        return None;
                    }
                    let count = tuples / sizes[slot];
                    let mut starts = Vec::with_capacity(count + 1);
                    let mut objects = Vec::new();
                    let mut args = vec![0; sizes.len()];
                    for index in 0..count {
                        let mut rest = index;
                        for i in (0..sizes.len()).rev().filter(|&i| i != slot) {
                            args[i] = tables.set_objects(def.params[i], &[])[rest % sizes[i]];
                            rest /= sizes[i];
                        }
                        starts.push(u32::try_from(objects.len()).ok()?);
                        for &object in tables.set_objects(set, &[]) {
                            args[slot] = object;
                            if tables.bool_property(property as u16, &args) {
                                objects.push(object);
                            }
                        }
                    }
                    starts.push(u32::try_from(objects.len()).ok()?);
                    Some(PropertyLists {
                        set,
                        starts,
                        objects,
                    })
                })
                .collect()
        })
        .collect()
}

/// Rows above this many are not kept.
const MAX_PROPERTY_ROWS: usize = 1 << 16;

/// The rows of every boolean property and slot whose root set is plain
/// with at most 64 objects.
fn property_rows(tables: &Tables) -> Vec<Vec<Option<PropertyRows>>> {
    let model = tables.model;
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
                    let root = tables.roots[set as usize];
                    if !tables.is_plain_root[root as usize] || tables.plain_objects(root).len() > 64
                    {
                        return None;
                    }
                    let sizes: Vec<usize> = def
                        .params
                        .iter()
                        .map(|&s| tables.set_objects(s, &[]).len())
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
                            args[i] = tables.set_objects(def.params[i], &[])[rest % sizes[i]];
                            rest /= sizes[i];
                        }
                        for &object in tables.set_objects(set, &[]) {
                            args[slot] = object;
                            if tables.bool_property(property as u16, &args) {
                                if let Some(p) = tables.position(root, object) {
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

#[cfg(test)]
mod tests {
    use super::{LayoutError, Tables};
    use crate::backbone::{Backbone, ObjectId};
    use crate::model::{
        ChoiceDef, ChoiceKind, CompareOp, Derived, Model, PropertyDef, PropertyType, QuotientDef,
        SetDef, Symmetry, VarDef,
    };

    /// The objects of `Dims`, listed out of id order so that an order by
    /// position would differ from the order by id.
    const DIMS: &[ObjectId] = &[5, 2, 7, 0, 3];
    /// The objects of `Tiled`, a subset of `Dims`.
    const TILED: &[ObjectId] = &[2, 7];

    /// The objects of `Inner($d)`: those of `Dims` whose id is within 3
    /// above `d`'s.
    fn inner(d: ObjectId) -> Vec<ObjectId> {
        DIMS.iter()
            .copied()
            .filter(|&o| o > d && o <= d + 3)
            .collect()
    }

    fn hot(d: ObjectId) -> bool {
        d % 2 == 1
    }

    const fn derived(name: &'static str, params: &'static [u16], how: Derived) -> PropertyDef {
        PropertyDef {
            name,
            params,
            ty: PropertyType::Bool,
            derived: Some(how),
        }
    }

    const DIMS_SETS: [SetDef; 3] = [
        SetDef {
            name: "Dims",
            params: &[],
            superset: None,
            quotient: None,
        },
        SetDef {
            name: "Tiled",
            params: &[],
            superset: Some(0),
            quotient: None,
        },
        SetDef {
            name: "Inner",
            params: &[0],
            superset: Some(0),
            quotient: None,
        },
    ];

    static MODEL: Model = Model {
        name: "derived",
        sets: &DIMS_SETS,
        properties: &[
            derived("in Tiled", &[0], Derived::Member { set: 1 }),
            derived("in Inner", &[0, 0], Derived::Member { set: 2 }),
            derived("<", &[0, 0], Derived::Order(CompareOp::Lt)),
            derived("!=", &[0, 0], Derived::Order(CompareOp::Ne)),
            PropertyDef {
                name: "hot",
                params: &[0],
                ty: PropertyType::Bool,
                derived: None,
            },
        ],
        ..Model::EMPTY
    };

    /// Answers the sets and `hot`; panics when asked for a derived
    /// property, which the engine must compute itself.
    #[derive(Clone)]
    struct Dims(&'static Model);

    impl Backbone for Dims {
        fn model(&self) -> &'static Model {
            self.0
        }
        fn objects(&self, set: u16, args: &[ObjectId]) -> Vec<ObjectId> {
            match (self.0.sets[set as usize].name, args) {
                ("Dims", []) => DIMS.to_vec(),
                ("Tiled", []) => TILED.to_vec(),
                ("Inner", &[d]) => inner(d),
                other => panic!("no objects for {other:?}"),
            }
        }
        fn bool_property(&self, property: u16, args: &[ObjectId]) -> bool {
            let def = &self.0.properties[property as usize];
            assert!(
                def.derived.is_none(),
                "the host was asked for the derived property `{}`",
                def.name
            );
            hot(args[0])
        }
        fn int_property(&self, property: u16, _: &[ObjectId]) -> i64 {
            panic!("no int property {property}")
        }
        fn list_property(&self, property: u16, _: &[ObjectId]) -> Vec<i64> {
            panic!("no list property {property}")
        }
        fn callback(&mut self, _: u16, _: &[ObjectId]) -> crate::outcome::Outcome {
            crate::outcome::Outcome::done()
        }
    }

    #[test]
    fn derived_properties_come_from_the_sets_not_the_host() {
        let tables = Tables::new(&Dims(&MODEL)).expect("lays out");
        for &a in DIMS {
            assert_eq!(
                tables.bool_property(0, &[a]),
                TILED.contains(&a),
                "in Tiled({a})"
            );
            assert_eq!(tables.bool_property(4, &[a]), hot(a), "hot({a})");
            for &b in DIMS {
                assert_eq!(
                    tables.bool_property(1, &[a, b]),
                    inner(a).contains(&b),
                    "{b} in Inner({a})"
                );
                assert_eq!(tables.bool_property(2, &[a, b]), a < b, "{a} < {b}");
                assert_eq!(tables.bool_property(3, &[a, b]), a != b, "{a} != {b}");
            }
        }
        // The rows propagation reads agree with the values: objects of
        // `Dims` above 2 by id, as positions in `Dims`.
        let above_2: u64 = DIMS
            .iter()
            .enumerate()
            .filter(|&(_, &o)| o > 2)
            .map(|(p, _)| 1 << p)
            .sum();
        assert_eq!(tables.property_row(2, 1, |_| 2), Some(above_2));
    }

    fn refused(model: &'static Model) -> String {
        match Tables::new(&Dims(model)) {
            Err(LayoutError::Unsupported(message)) => message,
            Err(other) => panic!("refused for another reason: {other}"),
            Ok(_) => panic!("`{}` laid out", model.name),
        }
    }

    fn with_property(name: &'static str, property: PropertyDef) -> &'static Model {
        Box::leak(Box::new(Model {
            name,
            sets: &DIMS_SETS,
            properties: Box::leak(Box::new([property])),
            ..MODEL
        }))
    }

    #[test]
    fn membership_of_a_quotient_set_is_refused() {
        static QUOTIENT: Model = Model {
            name: "quotient",
            sets: &[
                SetDef {
                    name: "Dims",
                    params: &[],
                    superset: None,
                    quotient: None,
                },
                SetDef {
                    name: "Kept",
                    params: &[],
                    superset: Some(0),
                    quotient: Some(QuotientDef { flag: 0 }),
                },
            ],
            properties: &[derived("in Kept", &[0], Derived::Member { set: 1 })],
            choices: &[ChoiceDef {
                name: "kept",
                params: &[VarDef {
                    name: "d",
                    set: 0,
                    args: &[],
                }],
                kind: ChoiceKind::Enum {
                    values: &["TRUE", "FALSE"],
                },
                symmetry: Symmetry::None,
                origin: "test:1",
            }],
            clauses_by_choice: &[&[]],
            counters_by_choice: &[&[]],
            default_priority: &[0],
            ..MODEL
        };
        let message = refused(&QUOTIENT);
        assert!(
            message.contains("`in Kept`") && message.contains("quotient set `Kept`"),
            "{message}"
        );
    }

    #[test]
    fn derived_properties_of_the_wrong_shape_are_refused() {
        let cases = [
            (
                derived("in Inner", &[0], Derived::Member { set: 2 }),
                "does not take the arguments of `Inner`",
            ),
            (
                derived("in Nothing", &[0], Derived::Member { set: 9 }),
                "which the model lacks",
            ),
            (
                derived("<", &[0, 0, 0], Derived::Order(CompareOp::Lt)),
                "compares 3 objects",
            ),
            (
                PropertyDef {
                    ty: PropertyType::Int,
                    ..derived("<", &[0, 0], Derived::Order(CompareOp::Lt))
                },
                "derived properties are `bool`",
            ),
        ];
        for (property, expected) in cases {
            let message = refused(with_property("wrong", property));
            assert!(message.contains(expected), "{message}");
        }
    }
}
