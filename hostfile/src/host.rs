//! A host file as the engine's backbone, and the names of its objects for
//! people: instances, fixed decisions and dead ends written with them.

use std::collections::BTreeMap;
use std::sync::Arc;

use commute_runtime::fix::{parse_fix, FixError};
use commute_runtime::model::Model;
use commute_runtime::{Action, Backbone, Candidate, DeadEnd, InstanceId, ObjectId};

use crate::read::{HostData, Value};

/// A backbone whose objects, properties and trigger additions come from a
/// host file. Cloning is cheap until a callback runs.
#[derive(Clone, Debug)]
pub struct DataHost {
    data: Arc<HostData>,
    /// Objects that callbacks added, by set and argument tuple.
    added: BTreeMap<(u16, Vec<ObjectId>), Vec<ObjectId>>,
}

impl DataHost {
    /// The backbone of a host file that was read.
    pub fn new(data: HostData) -> Self {
        DataHost {
            data: Arc::new(data),
            added: BTreeMap::new(),
        }
    }

    /// The name of the object `id` of `set` (of its root set), or its id
    /// in digits when it has none.
    pub fn object_name(&self, set: u16, id: ObjectId) -> String {
        let root = self.data.model.root(set) as usize;
        self.data.names[root]
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    /// The object of `set`'s root named `name`.
    pub fn object_id(&self, set: u16, name: &str) -> Option<ObjectId> {
        let root = self.data.model.root(set) as usize;
        self.data.names[root]
            .iter()
            .position(|n| n == name)
            .map(|i| i as ObjectId)
    }

    /// `choice(a, b)` with the objects' names.
    pub fn instance(&self, instance: &InstanceId) -> String {
        let model = self.data.model;
        let Some(choice) = model.choices.get(instance.choice as usize) else {
            return instance.display(model);
        };
        let objects: Vec<String> = instance
            .objects
            .iter()
            .zip(choice.params)
            .map(|(&o, p)| self.object_name(p.set, o))
            .collect();
        format!("{}({})", choice.name, objects.join(", "))
    }

    /// `choice(a, b) = V` with the objects' names.
    pub fn describe<B: Backbone>(&self, candidate: &Candidate<B>, action: &Action) -> String {
        let with_ids = candidate.describe(action);
        let instance = action.instance();
        with_ids.replacen(
            &instance.display(self.data.model),
            &self.instance(&instance),
            1,
        )
    }

    /// Reads a decision written with names (`tile(i) = 8`).
    pub fn parse_fix<B: Backbone>(
        &self,
        candidate: &Candidate<B>,
        text: &str,
    ) -> Result<Action, FixError> {
        let error = |message: String| FixError {
            fix: text.trim().to_string(),
            message,
        };
        let model = self.data.model;
        let (Some(open), Some(close)) = (text.find('('), text.find(')')) else {
            return parse_fix(candidate, text);
        };
        let name = text[..open].trim();
        let Some(choice) = model.choices.iter().find(|c| c.name == name) else {
            return parse_fix(candidate, text);
        };
        if close < open {
            return Err(error("expected `choice(objects) = VALUE`".into()));
        }
        let names: Vec<&str> = text[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .collect();
        if names.len() != choice.params.len() {
            return Err(error(format!(
                "`{name}` takes {} object(s), {} given",
                choice.params.len(),
                names.len()
            )));
        }
        let mut ids = Vec::new();
        for (object, param) in names.iter().zip(choice.params) {
            let id = self.object_id(param.set, object).ok_or_else(|| {
                let root = model.root(param.set) as usize;
                error(format!(
                    "no object of `{}` is named `{object}`; they are {}",
                    model.sets[param.set as usize].name,
                    self.data.names[root].join(", ")
                ))
            })?;
            ids.push(id.to_string());
        }
        let with_ids = format!("{name}({}){}", ids.join(", "), &text[close + 1..]);
        parse_fix(candidate, &with_ids).map_err(|e| FixError {
            fix: text.trim().to_string(),
            message: self.rename(&e.message),
        })
    }

    /// Applies decisions written with names, each propagated; the first
    /// that cannot hold is reported with its dead end, in names. A value
    /// that propagation had removed already is reported with the earlier
    /// decision that removed it (or the root, when the host's values
    /// alone rule it out), since the engine does not keep why a counter's
    /// bound narrowed its inputs.
    pub fn apply_fixes<B: Backbone>(
        &self,
        candidate: &mut Candidate<B>,
        fixes: &[String],
    ) -> Result<Vec<Action>, String> {
        let start = candidate.clone();
        let mut actions = Vec::new();
        for fix in fixes {
            let action = self.parse_fix(candidate, fix).map_err(|e| e.to_string())?;
            let removed_already = candidate
                .domain(&action.instance())
                .is_some_and(|d| match d {
                    commute_runtime::Domain::Enum(mask)
                    | commute_runtime::Domain::Integer { mask, .. } => mask & action.values == 0,
                    commute_runtime::Domain::Counter { .. } => false,
                });
            candidate.apply(&action).map_err(|dead_end| {
                let mut text = format!(
                    "`{}` leads to a dead end:\n{}",
                    fix.trim(),
                    self.dead_end(&dead_end)
                );
                if removed_already && dead_end.constraint.is_none() {
                    text.push_str(&format!(
                        "\n  {}",
                        self.removed_by(&start, &actions, fixes, &action)
                    ));
                }
                text
            })?;
            actions.push(action);
        }
        Ok(actions)
    }

    /// Which of the decisions `taken` (written `fixes`) first left no
    /// value of `action` possible, replayed from `start`.
    fn removed_by<B: Backbone>(
        &self,
        start: &Candidate<B>,
        taken: &[Action],
        fixes: &[String],
        action: &Action,
    ) -> String {
        let possible = |c: &Candidate<B>| {
            c.domain(&action.instance()).is_some_and(|d| match d {
                commute_runtime::Domain::Enum(mask)
                | commute_runtime::Domain::Integer { mask, .. } => mask & action.values != 0,
                commute_runtime::Domain::Counter { .. } => true,
            })
        };
        if !possible(start) {
            return "the host's values rule it out before any decision".to_string();
        }
        let mut replay = start.clone();
        for (earlier, fix) in taken.iter().zip(fixes) {
            if replay.apply(earlier).is_err() || !possible(&replay) {
                return format!("`{}` ruled it out (with propagation)", fix.trim());
            }
        }
        "earlier decisions ruled it out".to_string()
    }

    /// A dead end for people: the constraint (its place and text) and the
    /// objects bound to its variables, by name, then the engine's account.
    pub fn dead_end(&self, dead_end: &DeadEnd) -> String {
        let model = self.data.model;
        let mut lines = Vec::new();
        if let Some(def) = dead_end
            .constraint
            .and_then(|c| model.constraints.get(c as usize))
        {
            lines.push(format!("  constraint: {}", def.origin));
            lines.push(format!("    {}", def.description));
            let objects: Vec<String> = dead_end
                .bindings
                .iter()
                .map(|(variable, object)| {
                    let set = def
                        .vars
                        .iter()
                        .find(|v| format!("${}", v.name) == *variable)
                        .map(|v| v.set);
                    match set {
                        Some(set) => format!(
                            "{variable} = {} (of {})",
                            self.object_name(set, *object),
                            model.sets[set as usize].name
                        ),
                        None => format!("{variable} = {object}"),
                    }
                })
                .collect();
            if !objects.is_empty() {
                lines.push(format!("  objects: {}", objects.join(", ")));
            }
        }
        let mut account = self.rename(&dead_end.message);
        if let Some(def) = dead_end
            .constraint
            .and_then(|c| model.constraints.get(c as usize))
        {
            for (variable, object) in &dead_end.bindings {
                if let Some(v) = def
                    .vars
                    .iter()
                    .find(|v| format!("${}", v.name) == *variable)
                {
                    account = account.replace(
                        &format!("{variable} = {object}"),
                        &format!("{variable} = {}", self.object_name(v.set, *object)),
                    );
                }
            }
        }
        match &dead_end.emptied {
            Some(emptied) if account == format!("no value left for {}", self.instance(emptied)) => {
                lines.push(format!("  {account}"));
            }
            Some(emptied) => {
                lines.push(format!("  no value left for {}", self.instance(emptied)));
                lines.push(format!("  engine: {account}"));
            }
            None => lines.push(format!("  engine: {account}")),
        }
        lines.join("\n")
    }

    /// A message of the engine with instances written by id
    /// (`tile(0)`) rewritten with names, and `$v = 3` bindings too.
    fn rename(&self, message: &str) -> String {
        let model = self.data.model;
        let mut out = message.to_string();
        for (index, choice) in model.choices.iter().enumerate() {
            let pattern = format!("{}(", choice.name);
            let mut from = 0;
            while let Some(at) = out[from..].find(&pattern) {
                let start = from + at + pattern.len();
                let Some(end) = out[start..].find(')').map(|e| start + e) else {
                    break;
                };
                let ids: Option<Vec<ObjectId>> = out[start..end]
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().ok())
                    .collect();
                match ids {
                    Some(ids) if ids.len() == choice.params.len() => {
                        let named = self.instance(&InstanceId {
                            choice: index as u16,
                            objects: ids,
                        });
                        let begin = start - pattern.len();
                        out.replace_range(begin..=end, &named);
                        from = begin + named.len();
                    }
                    _ => from = end,
                }
            }
        }
        out
    }
}

impl Backbone for DataHost {
    fn model(&self) -> &'static Model {
        self.data.model
    }

    fn objects(&self, set: u16, args: &[ObjectId]) -> Vec<ObjectId> {
        let listed = self
            .data
            .members
            .get(set as usize)
            .and_then(|m| m.get(args))
            .map_or(&[][..], Vec::as_slice);
        match self.added.get(&(set, args.to_vec())) {
            None => listed.to_vec(),
            Some(added) => {
                let mut all: Vec<ObjectId> = listed.iter().chain(added).copied().collect();
                all.sort_unstable();
                all.dedup();
                all
            }
        }
    }

    fn bool_property(&self, property: u16, args: &[ObjectId]) -> bool {
        matches!(self.value(property, args), Some(Value::Bool(true)))
    }

    fn int_property(&self, property: u16, args: &[ObjectId]) -> i64 {
        match self.value(property, args) {
            Some(Value::Int(n)) => *n,
            _ => 0,
        }
    }

    fn list_property(&self, property: u16, args: &[ObjectId]) -> Vec<i64> {
        match self.value(property, args) {
            Some(Value::List(list)) => list.clone(),
            _ => Vec::new(),
        }
    }

    /// A host file lists the objects a callback adds; it has no way to
    /// refuse a candidate or to decide a choice.
    fn callback(&mut self, callback: u16, args: &[ObjectId]) -> commute_runtime::Outcome {
        let data = Arc::clone(&self.data);
        let Some(additions) = data
            .callbacks
            .get(callback as usize)
            .and_then(|c| c.get(args))
        else {
            return commute_runtime::Outcome::done();
        };
        for addition in additions {
            let objects = self
                .added
                .entry((addition.set, addition.args.clone()))
                .or_default();
            objects.extend(&addition.objects);
            objects.sort_unstable();
            objects.dedup();
        }
        commute_runtime::Outcome::done()
    }
}

impl DataHost {
    fn value(&self, property: u16, args: &[ObjectId]) -> Option<&Value> {
        let values = self.data.properties.get(property as usize)?;
        values.values.get(args).or(values.default.as_ref())
    }
}
