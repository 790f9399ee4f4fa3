//! What the engine asks of a kernel's description. Generated code
//! implements this trait for any type implementing the space's typed host
//! trait; hand-written backbones (tests) may implement it directly.

use crate::compiled::Reads;
use crate::model::Model;
use crate::outcome::Outcome;

pub use crate::model::ObjectId;

/// The objects, properties and callbacks of one kernel, by index into the
/// [`Model`]'s tables.
pub trait Backbone: Clone {
    /// The space this backbone is described in.
    fn model(&self) -> &'static Model;

    /// The objects of `set` (applied to `args` if it is parametrized), in a
    /// stable order. Never called for quotient sets, which the engine keeps.
    fn objects(&self, set: u16, args: &[ObjectId]) -> Vec<ObjectId>;

    /// A `bool` property of the objects `args`. Never called for derived
    /// properties ([`PropertyDef::derived`](crate::model::PropertyDef)),
    /// which the engine computes from the sets.
    fn bool_property(&self, property: u16, args: &[ObjectId]) -> bool;

    /// An `int` property of the objects `args`.
    fn int_property(&self, property: u16, args: &[ObjectId]) -> i64;

    /// An `[int]` property of the objects `args` (the universe of an
    /// integer choice).
    fn list_property(&self, property: u16, args: &[ObjectId]) -> Vec<i64>;

    /// Runs a trigger callback, which may add objects to sets, and answers
    /// whether the candidate stands and what else to decide.
    fn callback(&mut self, callback: u16, args: &[ObjectId]) -> Outcome;

    /// The tables the backbone's generated propagators were written for,
    /// if it has any: a candidate laid out from these very tables filters
    /// constraints with [`Backbone::filter`], and from the tables
    /// otherwise (see [`crate::compiled`]). Generated backbones answer
    /// their space's `MODEL`.
    fn compiled_for(&self) -> Option<&'static Model> {
        None
    }

    /// Filters one instance of `constraint` with the space's generated
    /// propagators (`None`: from the tables). Generated backbones call
    /// their space's `Propagators`.
    #[inline(always)]
    fn filter<C: Reads>(constraint: u16, clause: &mut C) -> Option<Result<(), C::Error>> {
        let _ = (constraint, clause);
        None
    }
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
    /// Whether the inner backbone's generated propagators are handed over
    /// (used only where `model` is the tables they were written for);
    /// false leaves every constraint to the table-driven path.
    pub compiled: bool,
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

    fn callback(&mut self, callback: u16, args: &[ObjectId]) -> Outcome {
        self.inner.callback(callback, args)
    }

    /// The inner backbone's when `compiled`, which candidates use only
    /// where `model` is the tables they were written for (the generated
    /// ones).
    fn compiled_for(&self) -> Option<&'static Model> {
        self.inner.compiled_for().filter(|_| self.compiled)
    }

    #[inline(always)]
    fn filter<C: Reads>(constraint: u16, clause: &mut C) -> Option<Result<(), C::Error>> {
        B::filter(constraint, clause)
    }
}

/// A backbone whose generated propagators are left out, so that the
/// engine filters every constraint from the tables: the path of spaces
/// loaded at run time, and the oracle tests compare the compiled path
/// with.
#[derive(Clone, Debug)]
pub struct Interpreted<B: Backbone>(pub B);

impl<B: Backbone> Backbone for Interpreted<B> {
    fn model(&self) -> &'static Model {
        self.0.model()
    }

    fn objects(&self, set: u16, args: &[ObjectId]) -> Vec<ObjectId> {
        self.0.objects(set, args)
    }

    fn bool_property(&self, property: u16, args: &[ObjectId]) -> bool {
        self.0.bool_property(property, args)
    }

    fn int_property(&self, property: u16, args: &[ObjectId]) -> i64 {
        self.0.int_property(property, args)
    }

    fn list_property(&self, property: u16, args: &[ObjectId]) -> Vec<i64> {
        self.0.list_property(property, args)
    }

    fn callback(&mut self, callback: u16, args: &[ObjectId]) -> Outcome {
        self.0.callback(callback, args)
    }
}
