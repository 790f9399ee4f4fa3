//! Reading a host file against a space's tables: every set, object,
//! property value and trigger addition resolved to ids and checked, every
//! mistake located.

use std::collections::BTreeMap;
use std::ops::Range;

use commute_runtime::model::{Model, PropertyType};
use commute_runtime::ObjectId;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::error::{HostErrors, Locator};

/// The key of a parametrized table that gives every argument tuple not
/// listed its value.
pub const DEFAULT_KEY: &str = "*";

/// A property's value for one argument tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    Bool(bool),
    Int(i64),
    List(Vec<i64>),
}

/// A property's values, by argument tuple, with the value of the others.
#[derive(Clone, Debug, Default)]
pub(crate) struct PropertyValues {
    pub default: Option<Value>,
    pub values: BTreeMap<Vec<ObjectId>, Value>,
}

/// Objects a callback adds to one set.
#[derive(Clone, Debug)]
pub(crate) struct Addition {
    pub set: u16,
    pub args: Vec<ObjectId>,
    pub objects: Vec<ObjectId>,
}

/// A host file read against a space: objects as ids, values by tuple.
#[derive(Debug)]
pub struct HostData {
    pub(crate) model: &'static Model,
    /// Per set: names of the objects of its root set, by id (filled for
    /// root sets only).
    pub(crate) names: Vec<Vec<String>>,
    /// Per set: its objects by argument tuple (the empty tuple for plain
    /// sets), sorted by id.
    pub(crate) members: Vec<BTreeMap<Vec<ObjectId>, Vec<ObjectId>>>,
    pub(crate) properties: Vec<PropertyValues>,
    /// Per callback: what it adds, by argument tuple.
    pub(crate) callbacks: Vec<BTreeMap<Vec<ObjectId>, Vec<Addition>>>,
}

type Table<'i> = DeTable<'i>;
type Item<'i> = Spanned<DeValue<'i>>;

/// Reads `text` (the file named `file`) as a host of `model`.
pub fn read(model: &'static Model, file: &str, text: &str) -> Result<HostData, HostErrors> {
    let mut loc = Locator::new(file, text);
    let document = match DeTable::parse(text) {
        Ok(document) => document,
        Err(error) => {
            let at = error.span().map_or(0, |s| s.start);
            loc.error(at, format!("not TOML: {}", error.message().trim()));
            loc.finish()?;
            unreachable!("an error was recorded");
        }
    };
    let mut reader = Reader {
        model,
        loc,
        names: vec![Vec::new(); model.sets.len()],
    };
    let mut sections: BTreeMap<&str, &Item> = BTreeMap::new();
    for (key, value) in document.get_ref().iter() {
        match key.get_ref().as_ref() {
            name @ ("sets" | "properties" | "callbacks") => {
                if value.get_ref().as_table().is_none() {
                    reader.loc.error(
                        value.span().start,
                        format!("`{name}` must be a table (`[{name}]`)"),
                    );
                } else {
                    sections.insert(name, value);
                }
            }
            other => reader.loc.error(
                key.span().start,
                format!(
                    "unknown section `{other}`: a host file has `[sets]`, `[properties]` and `[callbacks]`"
                ),
            ),
        }
    }
    let empty = Table::default();
    let table = |name: &str| {
        sections
            .get(name)
            .and_then(|v| v.get_ref().as_table())
            .unwrap_or(&empty)
    };
    let at = |name: &str| sections.get(name).map_or(0, |v| v.span().start);
    let (sets, properties, callbacks) = (table("sets"), table("properties"), table("callbacks"));
    reader.collect_names(sets, callbacks);
    let members = reader.read_sets(sets, at("sets"));
    let additions = reader.read_callbacks(callbacks, &members);
    let properties = reader.read_properties(properties, at("properties"), &members, &additions);
    let Reader { names, loc, .. } = reader;
    loc.finish()?;
    Ok(HostData {
        model,
        names,
        members,
        properties,
        callbacks: additions,
    })
}

struct Reader<'a> {
    model: &'static Model,
    loc: Locator<'a>,
    names: Vec<Vec<String>>,
}

impl Reader<'_> {
    fn set_index(&self, name: &str) -> Option<u16> {
        self.model
            .sets
            .iter()
            .position(|s| s.name == name)
            .map(|i| i as u16)
    }

    fn root(&self, set: u16) -> u16 {
        self.model.root(set)
    }

    /// The names of every root set: its own lists, then the objects
    /// callbacks add to it or its subsets, first appearance first.
    fn collect_names(&mut self, sets: &Table, callbacks: &Table) {
        let add = |reader: &mut Self, set: u16, objects: &Item| {
            let root = reader.root(set) as usize;
            let mut lists = Vec::new();
            match objects.get_ref() {
                DeValue::Array(items) => lists.push(items),
                DeValue::Table(tuples) => {
                    lists.extend(tuples.iter().filter_map(|(_, v)| v.get_ref().as_array()))
                }
                _ => {}
            }
            for item in lists.into_iter().flatten() {
                if let Some(name) = item.get_ref().as_str() {
                    if !reader.names[root].iter().any(|n| n == name) {
                        reader.names[root].push(name.to_string());
                    }
                }
            }
        };
        // Root sets first, so that their lists fix the first ids.
        for pass_roots in [true, false] {
            for (key, value) in sets.iter() {
                if let Some(set) = self.set_index(key.get_ref()) {
                    if self.model.sets[set as usize].is_root() == pass_roots {
                        add(self, set, value);
                    }
                }
            }
        }
        for (_, per_tuple) in callbacks.iter() {
            for (_, additions) in per_tuple.get_ref().as_table().into_iter().flatten() {
                for (key, value) in additions.get_ref().as_table().into_iter().flatten() {
                    if let Some(set) = self.set_index(key.get_ref()) {
                        add(self, set, value);
                    }
                }
            }
        }
    }

    /// The object named `name` of `set`'s root, or an error at `span`.
    fn object(&mut self, set: u16, item: &Item) -> Option<ObjectId> {
        let Some(name) = item.get_ref().as_str() else {
            self.loc.error(
                item.span().start,
                format!(
                    "expected the name of an object of `{}` (a string), found {}",
                    self.model.sets[set as usize].name,
                    item.get_ref().type_str()
                ),
            );
            return None;
        };
        self.object_named(set, name, item.span())
    }

    fn object_named(&mut self, set: u16, name: &str, span: Range<usize>) -> Option<ObjectId> {
        let root = self.root(set);
        match self.names[root as usize].iter().position(|n| n == name) {
            Some(id) => Some(id as ObjectId),
            None => {
                let known = &self.names[root as usize];
                let (set_name, root_name) = (
                    self.model.sets[set as usize].name,
                    self.model.sets[root as usize].name,
                );
                let known = if known.is_empty() {
                    "none".to_string()
                } else {
                    list(known)
                };
                let whose = if set == root {
                    format!("the objects of `{root_name}` are")
                } else {
                    format!("`{set_name}` is a subset of `{root_name}`, whose objects are")
                };
                self.loc.error(
                    span.start,
                    format!("unknown object `{name}` of `{set_name}`: {whose} {known}"),
                );
                None
            }
        }
    }

    /// A tuple key (`"i"`, `"i, j"`) as objects of `params`' sets.
    fn tuple(
        &mut self,
        params: &[u16],
        key: &Spanned<std::borrow::Cow<str>>,
    ) -> Option<Vec<ObjectId>> {
        let text: &str = key.get_ref();
        let parts: Vec<&str> = if params.is_empty() {
            Vec::new()
        } else {
            text.split(',').map(str::trim).collect()
        };
        if parts.len() != params.len() {
            let sets: Vec<&str> = params
                .iter()
                .map(|&s| self.model.sets[s as usize].name)
                .collect();
            self.loc.error(
                key.span().start,
                format!(
                    "`{text}` names {} object(s); expected one of each of {} (separated by commas)",
                    parts.len(),
                    sets.join(", ")
                ),
            );
            return None;
        }
        let mut tuple = Vec::new();
        for (&set, name) in params.iter().zip(parts) {
            tuple.push(self.object_named(set, name, key.span())?);
        }
        Some(tuple)
    }

    /// A list of objects of `set`, sorted by id, checked against the
    /// superset's objects `superset` when it has no parameters.
    fn objects(&mut self, set: u16, value: &Item, superset: Option<&[ObjectId]>) -> Vec<ObjectId> {
        let Some(items) = value.get_ref().as_array() else {
            self.loc.error(
                value.span().start,
                format!(
                    "expected the objects of `{}` (an array of names), found {}",
                    self.model.sets[set as usize].name,
                    value.get_ref().type_str()
                ),
            );
            return Vec::new();
        };
        let mut ids = Vec::new();
        for item in items.iter() {
            let Some(id) = self.object(set, item) else {
                continue;
            };
            if let (Some(superset), Some(parent)) =
                (superset, self.model.sets[set as usize].superset)
            {
                if !superset.contains(&id) {
                    let root = self.root(set) as usize;
                    self.loc.error(
                        item.span().start,
                        format!(
                            "`{}` is listed in `{}` but not in its superset `{}`",
                            self.names[root][id as usize],
                            self.model.sets[set as usize].name,
                            self.model.sets[parent as usize].name
                        ),
                    );
                }
            }
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        ids.sort_unstable();
        ids
    }

    fn read_sets(
        &mut self,
        sets: &Table,
        section: usize,
    ) -> Vec<BTreeMap<Vec<ObjectId>, Vec<ObjectId>>> {
        let model = self.model;
        let mut members = vec![BTreeMap::new(); model.sets.len()];
        for (key, _) in sets.iter() {
            let name: &str = key.get_ref();
            match self.set_index(name) {
                None => self.loc.error(
                    key.span().start,
                    format!(
                        "the space has no set `{name}`; its sets are {}",
                        model.sets.iter().filter(|s| s.quotient.is_none()).map(|s| s.name).collect::<Vec<_>>().join(", ")
                    ),
                ),
                Some(set) if model.sets[set as usize].quotient.is_some() => self.loc.error(
                    key.span().start,
                    format!("`{name}` is a quotient set: the engine keeps its objects, the host does not list them"),
                ),
                Some(_) => {}
            }
        }
        // Supersets before subsets, so that subsets are checked against them.
        let mut order: Vec<u16> = (0..model.sets.len() as u16).collect();
        order.sort_by_key(|&s| depth(model, s));
        for set in order {
            let def = &model.sets[set as usize];
            if def.quotient.is_some() {
                continue;
            }
            let Some(value) = sets.get(def.name) else {
                self.loc.error(
                    section,
                    format!("no objects for the set `{}`: list them in `[sets]` (`{} = [...]`, or `[]` for none)", def.name, def.name),
                );
                continue;
            };
            let superset: Option<Vec<ObjectId>> = def
                .superset
                .filter(|&p| model.sets[p as usize].params.is_empty())
                .map(|p| {
                    members[p as usize]
                        .get(&Vec::new())
                        .cloned()
                        .unwrap_or_default()
                });
            if def.params.is_empty() {
                let objects = self.objects(set, value, superset.as_deref());
                members[set as usize].insert(Vec::new(), objects);
                continue;
            }
            let Some(tuples) = value.get_ref().as_table() else {
                self.loc.error(
                    value.span().start,
                    format!(
                        "`{}` is parametrized: expected a table from argument tuples to arrays of objects, found {}",
                        def.name,
                        value.get_ref().type_str()
                    ),
                );
                continue;
            };
            for (key, objects) in tuples.iter() {
                if let Some(tuple) = self.tuple(def.params, key) {
                    let objects = self.objects(set, objects, superset.as_deref());
                    members[set as usize].insert(tuple, objects);
                }
            }
        }
        members
    }

    fn read_callbacks(
        &mut self,
        callbacks: &Table,
        members: &[BTreeMap<Vec<ObjectId>, Vec<ObjectId>>],
    ) -> Vec<BTreeMap<Vec<ObjectId>, Vec<Addition>>> {
        let model = self.model;
        let mut out = vec![BTreeMap::new(); model.callbacks.len()];
        for (key, per_tuple) in callbacks.iter() {
            let name: &str = key.get_ref();
            let Some(callback) = model.callbacks.iter().position(|c| c.name == name) else {
                let names: Vec<&str> = model.callbacks.iter().map(|c| c.name).collect();
                self.loc.error(
                    key.span().start,
                    format!(
                        "the space has no trigger callback `{name}`; its callbacks are {}",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                );
                continue;
            };
            let params = model.callbacks[callback].params;
            let Some(per_tuple) = per_tuple.get_ref().as_table() else {
                self.loc.error(
                    per_tuple.span().start,
                    format!("`{name}`: expected a table from argument tuples to the objects the call adds"),
                );
                continue;
            };
            for (tuple_key, additions) in per_tuple.iter() {
                let Some(tuple) = self.tuple(params, tuple_key) else {
                    continue;
                };
                let Some(additions) = additions.get_ref().as_table() else {
                    self.loc.error(
                        additions.span().start,
                        format!(
                            "`{name}({})`: expected a table from sets to the objects added",
                            tuple_key.get_ref()
                        ),
                    );
                    continue;
                };
                let mut list = Vec::new();
                for (set_key, objects) in additions.iter() {
                    let Some(set) = self.set_index(set_key.get_ref()) else {
                        self.loc.error(
                            set_key.span().start,
                            format!("the space has no set `{}`", set_key.get_ref()),
                        );
                        continue;
                    };
                    let def = &model.sets[set as usize];
                    if def.quotient.is_some() {
                        self.loc.error(
                            set_key.span().start,
                            format!(
                                "`{}` is a quotient set: the engine keeps its objects",
                                def.name
                            ),
                        );
                        continue;
                    }
                    // A subset's new objects must be in its superset, before or
                    // by the same call.
                    let superset = def
                        .superset
                        .filter(|&p| model.sets[p as usize].params.is_empty())
                        .map(|p| {
                            let mut known = members[p as usize]
                                .get(&Vec::new())
                                .cloned()
                                .unwrap_or_default();
                            if let Some(added) = additions.get(model.sets[p as usize].name) {
                                for item in added.get_ref().as_array().into_iter().flatten() {
                                    if let Some(id) = item.get_ref().as_str().and_then(|n| {
                                        self.names[self.root(p) as usize]
                                            .iter()
                                            .position(|m| m == n)
                                    }) {
                                        known.push(id as ObjectId);
                                    }
                                }
                            }
                            known
                        });
                    if def.params.is_empty() {
                        let objects = self.objects(set, objects, superset.as_deref());
                        list.push(Addition {
                            set,
                            args: Vec::new(),
                            objects,
                        });
                    } else if let Some(tuples) = objects.get_ref().as_table() {
                        for (key, objects) in tuples.iter() {
                            if let Some(args) = self.tuple(def.params, key) {
                                let objects = self.objects(set, objects, superset.as_deref());
                                list.push(Addition { set, args, objects });
                            }
                        }
                    } else {
                        self.loc.error(objects.span().start, format!("`{}` is parametrized: expected a table from argument tuples to arrays of objects", def.name));
                    }
                }
                out[callback].insert(tuple, list);
            }
        }
        out
    }

    fn read_properties(
        &mut self,
        properties: &Table,
        section: usize,
        members: &[BTreeMap<Vec<ObjectId>, Vec<ObjectId>>],
        additions: &[BTreeMap<Vec<ObjectId>, Vec<Addition>>],
    ) -> Vec<PropertyValues> {
        let model = self.model;
        // The engine computes derived properties (`in S`, `<`) from the
        // sets; the host gives the others.
        let hosted = || model.properties.iter().filter(|p| p.derived.is_none());
        for (key, _) in properties.iter() {
            let name: &str = key.get_ref();
            if model
                .properties
                .iter()
                .any(|p| p.name == name && p.derived.is_some())
            {
                self.loc.error(
                    key.span().start,
                    format!(
                        "`{name}` is a condition of the space, not a property of the host: the engine computes it from the sets"
                    ),
                );
            } else if !hosted().any(|p| p.name == name) {
                let names: Vec<&str> = hosted().map(|p| p.name).collect();
                self.loc.error(
                    key.span().start,
                    format!(
                        "the space has no property `{name}`; its properties are {}",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                );
            }
        }
        let mut out = Vec::new();
        for def in model.properties {
            let mut values = PropertyValues::default();
            if def.derived.is_some() {
                // Kept empty so that values stay indexed by property.
                out.push(values);
                continue;
            }
            let Some(item) = properties.get(def.name) else {
                self.loc.error(
                    section,
                    format!(
                        "missing property `{}`: give its value in `[properties]`",
                        def.name
                    ),
                );
                out.push(values);
                continue;
            };
            if def.params.is_empty() {
                values.default = self.value(def.name, def.ty, item);
                out.push(values);
                continue;
            }
            let Some(tuples) = item.get_ref().as_table() else {
                self.loc.error(
                    item.span().start,
                    format!(
                        "property `{}` takes objects: expected a table from argument tuples (and `\"*\"` for the others) to values, found {}",
                        def.name,
                        item.get_ref().type_str()
                    ),
                );
                out.push(values);
                continue;
            };
            for (key, value) in tuples.iter() {
                if key.get_ref() == DEFAULT_KEY {
                    values.default = self.value(def.name, def.ty, value);
                } else if let Some(tuple) = self.tuple(def.params, key) {
                    if let Some(value) = self.value(def.name, def.ty, value) {
                        values.values.insert(tuple, value);
                    }
                }
            }
            if values.default.is_none() {
                // Every tuple of distinct objects the engine may ask about.
                let candidates: Vec<Vec<ObjectId>> = def
                    .params
                    .iter()
                    .map(|&s| potential_members(model, s, members, additions))
                    .collect();
                let mut missing = Vec::new();
                for_each_tuple(model, def.params, &candidates, &mut |tuple| {
                    if !values.values.contains_key(tuple) && missing.len() < 4 {
                        missing.push(tuple.to_vec());
                    }
                });
                for tuple in missing {
                    let names: Vec<&str> = tuple
                        .iter()
                        .zip(def.params)
                        .map(|(&o, &s)| self.names[self.root(s) as usize][o as usize].as_str())
                        .collect();
                    self.loc.error(
                        item.span().start,
                        format!(
                            "missing value of property `{}` for ({}), and no default (`\"*\" = ...`)",
                            def.name,
                            names.join(", ")
                        ),
                    );
                }
            }
            out.push(values);
        }
        out
    }

    /// A value of a property of type `ty`.
    fn value(&mut self, property: &str, ty: PropertyType, item: &Item) -> Option<Value> {
        let found = item.get_ref().type_str();
        let value = match (ty, item.get_ref()) {
            (PropertyType::Bool, DeValue::Boolean(b)) => Some(Value::Bool(*b)),
            (PropertyType::Int, DeValue::Integer(_)) => integer(item).map(Value::Int),
            (PropertyType::IntList, DeValue::Array(items)) => items
                .iter()
                .map(|i| match i.get_ref() {
                    DeValue::Integer(_) => integer(i),
                    _ => None,
                })
                .collect::<Option<Vec<i64>>>()
                .map(Value::List),
            _ => None,
        };
        if value.is_none() {
            let expected = match ty {
                PropertyType::Bool => "a boolean (`true` or `false`)",
                PropertyType::Int => "an integer",
                PropertyType::IntList => "an array of integers",
            };
            self.loc.error(
                item.span().start,
                format!("property `{property}`: expected {expected}, found {found}"),
            );
        }
        value
    }
}

fn integer(item: &Item) -> Option<i64> {
    match item.get_ref() {
        DeValue::Integer(n) => i64::from_str_radix(n.as_str(), n.radix()).ok(),
        _ => None,
    }
}

fn depth(model: &Model, mut set: u16) -> usize {
    let mut depth = 0;
    while let Some(parent) = model.sets[set as usize].superset {
        set = parent;
        depth += 1;
        if depth > model.sets.len() {
            break;
        }
    }
    depth
}

/// Every object that may ever be in `set`: its lists and what callbacks
/// add to it.
pub(crate) fn potential_members(
    model: &Model,
    set: u16,
    members: &[BTreeMap<Vec<ObjectId>, Vec<ObjectId>>],
    additions: &[BTreeMap<Vec<ObjectId>, Vec<Addition>>],
) -> Vec<ObjectId> {
    let mut all: Vec<ObjectId> = members[set as usize].values().flatten().copied().collect();
    for per_tuple in additions {
        for list in per_tuple.values() {
            for addition in list.iter().filter(|a| a.set == set) {
                all.extend(&addition.objects);
            }
        }
    }
    all.sort_unstable();
    all.dedup();
    let _ = model;
    all
}

/// Calls `visit` with every tuple of one object per candidate list whose
/// objects of one root set are distinct.
fn for_each_tuple(
    model: &Model,
    params: &[u16],
    candidates: &[Vec<ObjectId>],
    visit: &mut dyn FnMut(&[ObjectId]),
) {
    fn go(
        model: &Model,
        params: &[u16],
        candidates: &[Vec<ObjectId>],
        prefix: &mut Vec<ObjectId>,
        visit: &mut dyn FnMut(&[ObjectId]),
    ) {
        let depth = prefix.len();
        if depth == params.len() {
            visit(prefix);
            return;
        }
        for &object in &candidates[depth] {
            let clash = (0..depth)
                .any(|i| prefix[i] == object && model.root(params[i]) == model.root(params[depth]));
            if !clash {
                prefix.push(object);
                go(model, params, candidates, prefix, visit);
                prefix.pop();
            }
        }
    }
    go(model, params, candidates, &mut Vec::new(), visit);
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
