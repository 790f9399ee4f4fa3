//! The GPU space (`gpu/gpu.space`) on the four kernels its host builds:
//! roots that propagate, seeded random descents that reach valid leaves
//! (the dead-end rate and the rate of descents printed), decisions fixed
//! by hand that the space refuses, and what the trigger callbacks add.

use commute_runtime::descent::{random_descent, Descent};
use commute_runtime::{Action, Candidate, Domain, InstanceId, Outcome};
use commute_spaces::gpu::*;
use rand::SeedableRng;
use std::time::Instant;

/// Descents per kernel: the 300 in an optimized build
/// (`cargo test --release`). Unoptimized, a descent of the matrix product
/// takes about a second (each trigger lays the candidate out again and
/// propagates every constraint anew), so a debug build runs fewer.
/// `GPU_DESCENTS=N` runs N instead, for measurements.
fn descents() -> usize {
    let default = if cfg!(debug_assertions) { 10 } else { 300 };
    std::env::var("GPU_DESCENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The seed of every kernel's descents.
const SEED: u64 = 2019;

fn root(kernel: GpuKernel) -> Candidate<Backbone<GpuKernel>> {
    Candidate::new(Backbone(kernel)).expect("the root propagates")
}

/// A root that keeps explanations: a refused decision names the
/// constraint that removed its values.
fn explained(kernel: GpuKernel) -> Candidate<Backbone<GpuKernel>> {
    Candidate::new_explained(Backbone(kernel)).expect("the root propagates")
}

/// The statement id of the dimension or instruction named `name`.
fn id(kernel: &GpuKernel, name: &str) -> u32 {
    if let Some(d) = kernel.dim_named(name) {
        return kernel.dim_id(d).0;
    }
    let i = kernel.inst_named(name).expect("a statement of that name");
    kernel.inst_id(i).0
}

/// The memory block named `name`.
fn block(kernel: &GpuKernel, name: &str) -> u32 {
    let m = kernel.blocks.iter().position(|b| b.name == name);
    m.expect("a block of that name") as u32
}

/// The action restricting `choice(objects)` to `values`.
fn action(choice: u16, objects: Vec<u32>, values: u64) -> Action {
    Action {
        choice,
        objects,
        values,
    }
}

/// The action fixing the size of a static dimension (its universe is the
/// powers of two from 1 up).
fn size_of(kernel: &GpuKernel, dim: &str, size: u64) -> Action {
    action(
        size::CHOICE,
        vec![id(kernel, dim)],
        1 << size.trailing_zeros(),
    )
}

fn kind_of(kernel: &GpuKernel, dim: &str, kind: u64) -> Action {
    action(dim_kind::CHOICE, vec![id(kernel, dim)], kind)
}

/// Runs the seeded descents of one kernel: every leaf passes the checker;
/// prints the dead ends and the descents per second; returns the dead ends
/// and the descents.
fn descend(kernel: GpuKernel) -> (usize, usize) {
    let name = kernel.name.clone();
    let start = root(kernel);
    let mut rng = rand::rngs::StdRng::seed_from_u64(SEED);
    let (mut dead_ends, mut decisions) = (0, 0);
    let clock = Instant::now();
    let count = descents();
    for _ in 0..count {
        let descent = random_descent(&start, MODEL.default_priority, &mut rng);
        decisions += descent.decisions();
        match descent {
            Descent::Leaf { leaf, .. } => {
                if let Err(violation) = leaf.check() {
                    panic!("{name}: a leaf breaks the space: {violation:?}");
                }
            }
            Descent::DeadEnd { .. } => dead_ends += 1,
        }
    }
    let seconds = clock.elapsed().as_secs_f64();
    println!(
        "{name}: {count} descents (seed {SEED}), {dead_ends} dead ends ({:.1}%), \
         {:.1} decisions each, {:.1} descents/s",
        100.0 * dead_ends as f64 / count as f64,
        decisions as f64 / count as f64,
        count as f64 / seconds,
    );
    (dead_ends, count)
}

#[test]
fn every_kernel_has_a_root() {
    for kernel in [
        GpuKernel::axpy(1 << 20),
        GpuKernel::matvec(4096, 4096),
        GpuKernel::matmul(1024, 1024, 1024),
        GpuKernel::chained_matmul(1024, 1024, 1024, 256),
    ] {
        let start = root(kernel);
        assert!(
            !start.is_complete(),
            "{}: decisions left",
            start.backbone().0.name
        );
    }
}

// The bounds below hold for the seeded descents as measured; a change
// that raises them made propagation miss more. The bar is the
// matrix product's, under 1% of descents.

#[test]
fn axpy_descents_reach_valid_leaves() {
    let (dead_ends, count) = descend(GpuKernel::axpy(1 << 20));
    assert!(dead_ends * 100 <= count);
}

#[test]
fn matvec_descents_reach_valid_leaves() {
    let (dead_ends, count) = descend(GpuKernel::matvec(4096, 4096));
    assert!(dead_ends * 100 <= count);
}

#[test]
fn matmul_descents_reach_valid_leaves() {
    let (dead_ends, count) = descend(GpuKernel::matmul(1024, 1024, 1024));
    assert!(dead_ends * 100 < count.max(100));
}

/// The chained product keeps the product `A B` in the kernel: every nest
/// along `l` shares the second product's reduction loop, and some kinds
/// fail there only once the fusions they force are found.
#[test]
fn chained_matmul_descents_reach_valid_leaves() {
    let (dead_ends, count) = descend(GpuKernel::chained_matmul(1024, 1024, 1024, 256));
    assert!(dead_ends * 20 <= count.max(20));
}

#[test]
fn three_thread_dimensions_past_the_thread_limit_are_refused() {
    let kernel = GpuKernel::matmul(1024, 1024, 1024);
    let mut candidate = explained(kernel.clone());
    for (dim, size) in [("fma.i1", 32), ("fma.j1", 32), ("fma.i2", 2)] {
        candidate
            .apply(&size_of(&kernel, dim, size))
            .expect("a size");
    }
    // 32 x 32 threads fit in a block...
    for dim in ["fma.i1", "fma.j1"] {
        candidate
            .apply(&kind_of(&kernel, dim, dim_kind::THREAD))
            .expect("1024 threads fit");
    }
    // ... twice as many do not: propagation has removed the value (a
    // counter's bound removes it without naming itself in the message).
    let dead_end = candidate
        .apply(&kind_of(&kernel, "fma.i2", dim_kind::THREAD))
        .expect_err("2048 threads");
    assert!(dead_end.message.contains("dim_kind"), "{dead_end}");
    candidate
        .apply(&kind_of(&kernel, "fma.i2", dim_kind::LOOP))
        .expect("a loop of 2 inside the threads");
}

#[test]
fn a_vector_dimension_around_another_is_refused() {
    let kernel = GpuKernel::matmul(1024, 1024, 1024);
    let mut candidate = explained(kernel.clone());
    candidate
        .apply(&size_of(&kernel, "ld_B.j2", 4))
        .expect("a size");
    candidate
        .apply(&kind_of(&kernel, "ld_B.j2", dim_kind::VECTOR4))
        .expect("B is contiguous along j");
    let around = action(
        order::CHOICE,
        vec![id(&kernel, "ld_B.j2"), id(&kernel, "ld_B.k1")],
        order::OUTER,
    );
    let dead_end = candidate
        .apply(&around)
        .expect_err("vector lanes innermost");
    assert!(dead_end.message.contains("VECTOR"), "{dead_end}");
}

#[test]
fn a_reduction_on_threads_is_refused() {
    let kernel = GpuKernel::matmul(1024, 1024, 1024);
    let mut candidate = explained(kernel.clone());
    assert!(candidate
        .apply(&kind_of(&kernel, "fma.k1", dim_kind::THREAD))
        .is_err());
    // Nor may the loads of A along k: their values would reach the
    // accumulation's loop through each thread's private memory, which
    // other threads cannot read.
    let dead_end = candidate
        .apply(&kind_of(&kernel, "ld_A.k1", dim_kind::THREAD))
        .expect_err("a load along k on threads");
    assert!(
        dead_end
            .message
            .contains("dim_kind($a) is not THREAD || dim_kind($b) is THREAD"),
        "{dead_end}"
    );
    // Along i the load and the product may both run on threads.
    candidate
        .apply(&kind_of(&kernel, "ld_A.i1", dim_kind::THREAD))
        .expect("a load along i on threads");
}

#[test]
fn a_tile_past_the_shared_memory_is_refused() {
    let kernel = GpuKernel::matmul(1024, 1024, 1024);
    let mut candidate = explained(kernel.clone());
    for (dim, size) in [("ld_A.i1", 32), ("ld_A.i2", 32), ("ld_A.k1", 16)] {
        candidate
            .apply(&size_of(&kernel, dim, size))
            .expect("a size");
    }
    // 32 x 32 x 16 floats: 64 KiB.
    let shared = action(
        mem_space::CHOICE,
        vec![block(&kernel, "A@ld_A")],
        mem_space::SHARED,
    );
    let dead_end = candidate.apply(&shared).expect_err("over 48 KiB");
    assert!(dead_end.message.contains("mem_space"), "{dead_end}");
    // Half the tile fits.
    let mut smaller = explained(kernel.clone());
    for (dim, size) in [("ld_A.i1", 32), ("ld_A.i2", 32), ("ld_A.k1", 8)] {
        smaller.apply(&size_of(&kernel, dim, size)).expect("a size");
    }
    smaller.apply(&shared).expect("32 KiB");
}

#[test]
fn staging_a_tile_adds_its_copy() {
    let kernel = GpuKernel::matmul(1024, 1024, 1024);
    let mut candidate = root(kernel.clone());
    let tile = block(&kernel, "A@ld_A");
    candidate
        .apply(&action(mem_space::CHOICE, vec![tile], mem_space::SHARED))
        .expect("a small enough tile");
    let staged = &candidate.backbone().0;
    let copy_dims = &staged.blocks[tile as usize].copy_dims;
    assert_eq!(copy_dims.len(), 3, "one copy dimension per tile dimension");
    let load = id(staged, "copy_ld(A@ld_A)");
    let store = id(staged, "copy_st(A@ld_A)");
    let cache_of = |inst| {
        candidate.domain(&InstanceId {
            choice: cache::CHOICE,
            objects: vec![inst],
        })
    };
    // The callback decided the copy's load reads global memory; the store
    // and the tile's reader access shared memory.
    let Some(Domain::Enum(load_cache)) = cache_of(load) else {
        panic!("the copy's load has a cache directive");
    };
    assert_eq!(load_cache & !cache::GLOBAL_ACCESS, 0);
    assert_eq!(cache_of(store), Some(Domain::Enum(cache::SHARED)));
    assert_eq!(
        cache_of(id(staged, "ld_A")),
        Some(Domain::Enum(cache::SHARED))
    );
    // The copy comes before the reader.
    let before = candidate.domain(&InstanceId {
        choice: order::CHOICE,
        objects: vec![store, id(staged, "ld_A")],
    });
    assert_eq!(before, Some(Domain::Enum(order::BEFORE)));
}

#[test]
fn a_value_through_memory_is_spilled_once() {
    let kernel = GpuKernel::matmul(1024, 1024, 1024);
    let mut candidate = root(kernel.clone());
    for (producer, consumer) in [("ld_A.i1", "fma.i1"), ("ld_A.k1", "fma.k1")] {
        candidate
            .apply(&action(
                transfer::CHOICE,
                vec![id(&kernel, producer), id(&kernel, consumer)],
                transfer::MEMORY,
            ))
            .expect("a load's value may go through memory");
    }
    let spilled = &candidate.backbone().0;
    let temporaries: Vec<&Block> = spilled
        .blocks
        .iter()
        .filter(|b| b.spilled.is_some())
        .collect();
    assert_eq!(temporaries.len(), 1, "one temporary per value");
    assert_eq!(temporaries[0].readers.len(), 1);
    assert_eq!(temporaries[0].writers.len(), 1);
    assert!(spilled.inst_named("spill_ld(ld_A->fma)").is_some());
    // An accumulator stays in registers.
    let accumulator = action(
        transfer::CHOICE,
        vec![id(&kernel, "init.i1"), id(&kernel, "fma.i1")],
        transfer::MEMORY,
    );
    assert!(candidate.clone().apply(&accumulator).is_err());
}

#[test]
fn callbacks_refuse_what_the_host_cannot_lower() {
    let mut kernel = GpuKernel::matmul(1024, 1024, 1024);
    let (a, b) = (id(&kernel, "init.i1"), id(&kernel, "ld_B.j1"));
    let outcome: Outcome = kernel.spill(StatementsId(a), StatementsId(b));
    assert!(
        outcome
            .refusal()
            .is_some_and(|why| why.contains("no value flows")),
        "{outcome:?}"
    );
    assert!(kernel.stage_in(MemBlocksId(99)).refusal().is_some());
}

#[test]
fn the_callbacks_answer_the_same_whatever_the_order() {
    // Staging A then B, or B then A, gives the same objects, up to their
    // numbering: triggers commute with each other.
    let kernel = GpuKernel::matmul(1024, 1024, 1024);
    let (a, b) = (block(&kernel, "A@ld_A"), block(&kernel, "B@ld_B"));
    let shared = |m| action(mem_space::CHOICE, vec![m], mem_space::SHARED);
    let mut forward = root(kernel.clone());
    forward.apply(&shared(a)).expect("A staged");
    forward.apply(&shared(b)).expect("B staged");
    let mut backward = root(kernel);
    backward.apply(&shared(b)).expect("B staged");
    backward.apply(&shared(a)).expect("A staged");
    let names = |c: &Candidate<Backbone<GpuKernel>>| {
        let k = &c.backbone().0;
        let mut names: Vec<String> = (0..k.statements.len() as u32)
            .map(|s| k.statement_name(s))
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(&forward), names(&backward));
}
