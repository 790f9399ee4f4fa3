//! The bundled spaces, compiled to Rust by `commute-codegen` at build time.
//!
//! Each module holds what the generator emits for one space: `MODEL` (the
//! tables the engine reads), one typed id per root set, the `Host` trait a
//! kernel's description implements, the `Backbone` adapter, and one module
//! per choice with its index and value masks.

/// Spaces from Beaugnon et al., "On the Representation of Partially
/// Specified Implementations and its Application to the Optimization of
/// Linear Algebra Kernels on GPU" (2019).
pub mod paper {
    /// Listing 7: the control-flow order between the statements of a kernel.
    /// One set (`Statements`) and one antisymmetric choice (`order`) whose
    /// values say whether a statement runs before, after, inside, around or
    /// fused with another; the constraints keep the order consistent over
    /// every triple of statements. Self-contained, so it can be instantiated
    /// on its own (for instance with a backbone of 30 statements).
    pub mod ordering {
        include!(concat!(env!("OUT_DIR"), "/listing07_ordering.rs"));
    }
}

/// Spaces of the language's test corpus (`dsl/tests/pass`).
pub mod corpus {
    /// A small space that uses every construct of the language: sets,
    /// subsets and a parametrized set (from an included file), properties
    /// of every type, enum choices with `requires` and aliases, an
    /// antisymmetric choice, integer choices over a property and a list,
    /// counters (`sum`, `mul`, `half`), constraints, a trigger and a
    /// quotient set.
    pub mod every_construct {
        include!(concat!(env!("OUT_DIR"), "/every_construct.rs"));
    }
}
