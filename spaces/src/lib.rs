//! The bundled spaces, compiled to Rust by `commute-codegen` at build time.
//!
//! Each module holds what the generator emits for one space: `MODEL` (the
//! tables the engine reads), one typed id per root set, the `Host` trait a
//! kernel's description implements, the `Backbone` adapter, and one module
//! per choice with its index and value masks.
//!
//! The loop-transformation space of C kernels is not here: it lives with
//! the loop tuner in `commute-loops`.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

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

        /// A kernel of `n` statements, numbered `0..n`: the backbone the
        /// engine benchmark runs this space on.
        #[derive(Clone, Debug)]
        pub struct Chain(pub u32);

        impl Host for Chain {
            fn statements(&self) -> Vec<StatementsId> {
                (0..self.0).map(StatementsId).collect()
            }
        }
    }
}

/// A space of GPU implementations of linear-algebra kernels
/// (`gpu/gpu.space`): dimension kinds, order and fusion, tiling, memory
/// placement and layout, cache directives, thread mapping and transfers
/// between loop nests, with counters for the device's limits and triggers
/// that add copies and spills. [`gpu::GpuKernel`] describes a kernel as
/// data and implements its host.
pub mod gpu {
    include!(concat!(env!("OUT_DIR"), "/gpu.rs"));
    include!("../gpu/host.rs");

    /// CUDA C lowering of fully decided candidates (`gpu/cuda.rs`):
    /// [`cuda::lower`] and the PTX check [`cuda::compile_ptx`].
    pub mod cuda {
        use super::*;
        include!("../gpu/cuda.rs");
    }

    /// Running lowered kernels (`gpu/device.rs`): the [`device::Device`]
    /// trait, a CPU emulator and a CUDA driver runner, and references.
    pub mod device {
        use super::*;
        include!("../gpu/device.rs");
    }
}

/// Small spaces, each exercising a few constructs, that tests run the
/// engine on (`corpus/` and `dsl/tests/pass/`).
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

    /// Enum choices, value `requires`, aliases, boolean properties and
    /// equality between instances of one choice.
    pub mod enum_requires {
        include!(concat!(env!("OUT_DIR"), "/enum_requires.rs"));
    }

    /// Integer choices over a `[int]` property and a literal list, compared
    /// with each other, constants and properties.
    pub mod integers {
        include!(concat!(env!("OUT_DIR"), "/integers.rs"));
    }

    /// Sum, mul and half counters, a counter of an integer choice and a
    /// counter of a counter.
    pub mod counters {
        include!(concat!(env!("OUT_DIR"), "/counters.rs"));
    }

    /// A symmetric choice (an equivalence) and an antisymmetric one (an
    /// order), with transitivity.
    pub mod symmetric {
        include!(concat!(env!("OUT_DIR"), "/symmetric.rs"));
    }

    /// A quotient set and a counter over it.
    pub mod quotient {
        include!(concat!(env!("OUT_DIR"), "/quotient.rs"));
    }

    /// A trigger whose condition reads a counter (and no choice of its
    /// variables): it becomes certain through the counter's move alone.
    pub mod trigger_on_counter {
        include!(concat!(env!("OUT_DIR"), "/trigger_on_counter.rs"));
    }

    /// Independent choices (a product of domains), for search tests.
    pub mod product {
        include!(concat!(env!("OUT_DIR"), "/product.rs"));

        /// Items `0..n`.
        #[derive(Clone, Debug)]
        pub struct Items(pub u32);

        impl Host for Items {
            fn items(&self) -> Vec<ItemsId> {
                (0..self.0).map(ItemsId).collect()
            }
        }
    }

    /// A trigger whose host callback adds objects (copies of blocks placed
    /// in local memory), and a counter over the added objects.
    pub mod triggers {
        include!(concat!(env!("OUT_DIR"), "/triggers.rs"));
    }

    /// Divisibility (`a % b == 0`, `!= 0`) and products of integers in
    /// comparisons.
    pub mod divisibility {
        include!(concat!(env!("OUT_DIR"), "/divisibility.rs"));
    }

    /// A parametrized set, declared in an included file, in quantifiers.
    pub mod parametrized_sets {
        include!(concat!(env!("OUT_DIR"), "/parametrized_sets.rs"));
    }

    /// Conditions on objects (membership of a plain, a parametrized and a
    /// quotient set; an order on objects in a constraint and a trigger),
    /// tests of two conditions together, and clauses joined by `&&`.
    pub mod object_conditions {
        include!(concat!(env!("OUT_DIR"), "/object_conditions.rs"));
    }
}

/// The source files of the bundled spaces, sorted: the paper's listings,
/// the engine's test spaces and the language's pass corpus (files that
/// only exist to be included are listed too). For benchmarks and tools
/// run from a checkout of this repository.
pub fn bundled_space_files() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["paper", "corpus", "gpu", "../dsl/tests/pass"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        paths.extend(
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "space")),
        );
    }
    paths.sort();
    paths
}

/// Every generated space by name (the ordering listing under `ordering`,
/// the others under their module names), for tools that pick a bundled
/// space by name.
pub fn models() -> Vec<(&'static str, &'static commute_runtime::Model)> {
    vec![
        ("ordering", &paper::ordering::MODEL),
        ("product", &corpus::product::MODEL),
        ("enum_requires", &corpus::enum_requires::MODEL),
        ("integers", &corpus::integers::MODEL),
        ("counters", &corpus::counters::MODEL),
        ("symmetric", &corpus::symmetric::MODEL),
        ("quotient", &corpus::quotient::MODEL),
        ("triggers", &corpus::triggers::MODEL),
        ("parametrized_sets", &corpus::parametrized_sets::MODEL),
        ("divisibility", &corpus::divisibility::MODEL),
        ("every_construct", &corpus::every_construct::MODEL),
        ("object_conditions", &corpus::object_conditions::MODEL),
        ("gpu", &gpu::MODEL),
    ]
}

/// What [`visit_models`] calls for each space of [`models`], with the
/// type of its generated propagators.
pub trait VisitModel {
    /// One space: its name (as in [`models`]), tables and propagators.
    fn visit<P: commute_runtime::compiled::Propagators>(
        &mut self,
        name: &'static str,
        model: &'static commute_runtime::Model,
    );
}

/// Calls `visitor` with every space of [`models`], in the same order, and
/// its generated `Propagators`: for tests and digests that run the
/// compiled path on backbones that are not generated (random ones).
pub fn visit_models(visitor: &mut impl VisitModel) {
    visitor.visit::<paper::ordering::Propagators>("ordering", &paper::ordering::MODEL);
    visitor.visit::<corpus::product::Propagators>("product", &corpus::product::MODEL);
    visitor.visit::<corpus::enum_requires::Propagators>(
        "enum_requires",
        &corpus::enum_requires::MODEL,
    );
    visitor.visit::<corpus::integers::Propagators>("integers", &corpus::integers::MODEL);
    visitor.visit::<corpus::counters::Propagators>("counters", &corpus::counters::MODEL);
    visitor.visit::<corpus::symmetric::Propagators>("symmetric", &corpus::symmetric::MODEL);
    visitor.visit::<corpus::quotient::Propagators>("quotient", &corpus::quotient::MODEL);
    visitor.visit::<corpus::triggers::Propagators>("triggers", &corpus::triggers::MODEL);
    visitor.visit::<corpus::parametrized_sets::Propagators>(
        "parametrized_sets",
        &corpus::parametrized_sets::MODEL,
    );
    visitor
        .visit::<corpus::divisibility::Propagators>("divisibility", &corpus::divisibility::MODEL);
    visitor.visit::<corpus::every_construct::Propagators>(
        "every_construct",
        &corpus::every_construct::MODEL,
    );
    visitor.visit::<corpus::object_conditions::Propagators>(
        "object_conditions",
        &corpus::object_conditions::MODEL,
    );
    visitor.visit::<gpu::Propagators>("gpu", &gpu::MODEL);
}

/// The source file of each space of [`models`], by the same name, relative
/// to this package's folder ([`package_dir`]), as its build script names
/// it: [`commute_codegen::load_in`] of the two gives the very tables the
/// build script generated.
pub fn model_sources() -> Vec<(&'static str, &'static str)> {
    vec![
        ("ordering", "paper/listing07_ordering.space"),
        ("product", "corpus/product.space"),
        ("enum_requires", "corpus/enum_requires.space"),
        ("integers", "corpus/integers.space"),
        ("counters", "corpus/counters.space"),
        ("symmetric", "corpus/symmetric.space"),
        ("quotient", "corpus/quotient.space"),
        ("triggers", "corpus/triggers.space"),
        ("parametrized_sets", "corpus/parametrized_sets.space"),
        ("divisibility", "corpus/divisibility.space"),
        ("every_construct", "../dsl/tests/pass/every_construct.space"),
        ("object_conditions", "corpus/object_conditions.space"),
        ("gpu", "gpu/gpu.space"),
    ]
}

/// This package's folder in the checkout it was built from.
pub fn package_dir() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}
