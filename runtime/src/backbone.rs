//! What the engine asks of a kernel's description. Generated code
//! implements this trait for any type implementing the space's typed host
//! trait; hand-written backbones (tests) may implement it directly.

use crate::model::Model;

/// An object of the backbone: an id unique within its root set.
pub type ObjectId = u32;

/// The objects, properties and callbacks of one kernel, by index into the
/// [`Model`]'s tables.
pub trait Backbone: Clone {
    /// The space this backbone is described in.
    fn model(&self) -> &'static Model;

    /// The objects of `set` (applied to `args` if it is parametrized), in a
    /// stable order. Never called for quotient sets, which the engine keeps.
    fn objects(&self, set: u16, args: &[ObjectId]) -> Vec<ObjectId>;

    /// A `bool` property of the objects `args`.
    fn bool_property(&self, property: u16, args: &[ObjectId]) -> bool;

    /// An `int` property of the objects `args`.
    fn int_property(&self, property: u16, args: &[ObjectId]) -> i64;

    /// An `[int]` property of the objects `args` (the universe of an
    /// integer choice).
    fn list_property(&self, property: u16, args: &[ObjectId]) -> Vec<i64>;

    /// Runs a trigger callback, which may add objects to sets.
    fn callback(&mut self, callback: u16, args: &[ObjectId]);
}

/// A backbone seen through other tables of the same space: those built in
/// memory from the space file rather than generated (`commute bench
/// --digest --loaded` checks that both reach the same leaves). The tables
/// must be those of the backbone's own space, index for index.
#[derive(Clone, Debug)]
pub struct WithModel<B: Backbone> {
    /// The backbone that answers for objects, properties and callbacks.
    pub inner: B,
    /// The tables the engine reads instead of `inner.model()`.
    pub model: &'static Model,
}

impl<B: Backbone> Backbone for WithModel<B> {
    fn model(&self) -> &'static Model {
        self.model
    }

    fn objects(&self, set: u16, args: &[ObjectId]) -> Vec<ObjectId> {
        self.inner.objects(set, args)
    }

    fn bool_property(&self, property: u16, args: &[ObjectId]) -> bool {
        self.inner.bool_property(property, args)
    }

    fn int_property(&self, property: u16, args: &[ObjectId]) -> i64 {
        self.inner.int_property(property, args)
    }

    fn list_property(&self, property: u16, args: &[ObjectId]) -> Vec<i64> {
        self.inner.list_property(property, args)
    }

    fn callback(&mut self, callback: u16, args: &[ObjectId]) {
        self.inner.callback(callback, args);
    }
}
