//! CUDA C lowering of the GPU space's leaves: seeded
//! descents of the four kernels the host builds, each leaf lowered,
//! compiled to PTX by clang and some run on the CPU emulator against a
//! reference computed in Rust; a partial candidate is refused.
//!
//! The tests need clang (CI installs clang-22): without it they fail and
//! say so.

use commute_runtime::descent::{random_descent, Descent};
use commute_runtime::{Action, Candidate};
use commute_spaces::gpu::cuda::{self, clang_cxx, compile_ptx, find_clang, LowerError};
use commute_spaces::gpu::device::{self, Cuda, Device, DeviceError, Emulated};
use commute_spaces::gpu::*;
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// Descents per kernel: 20 in release, 3 in debug; `GPU_CUDA_DESCENTS=N`
/// runs N.
fn descents() -> usize {
    let default = if cfg!(debug_assertions) { 3 } else { 20 };
    std::env::var("GPU_CUDA_DESCENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// Descents drawn past `descents()`, at most, to find leaves cheap enough
/// to emulate (random leaves often repeat loads in the loops of other
/// nests, and their barriers with them).
fn extra_descents() -> usize {
    if cfg!(debug_assertions) {
        10
    } else {
        150
    }
}

/// Leaves of each kernel run on the emulator.
fn emulated_runs() -> usize {
    if cfg!(debug_assertions) {
        2
    } else {
        6
    }
}

const SEED: u64 = 2021;
const PTX_TIMEOUT: Duration = Duration::from_secs(60);

fn clang() -> PathBuf {
    find_clang().unwrap_or_else(|| {
        panic!(
            "these tests need clang (clang-22, clang-21, clang-20 or clang in PATH, \
             or COMMUTE_CLANG): none found"
        )
    })
}

fn root(kernel: GpuKernel) -> Candidate<Backbone<GpuKernel>> {
    Candidate::new(Backbone(kernel)).expect("the root propagates")
}

#[derive(Default, Debug)]
struct Tally {
    descents: usize,
    dead_ends: usize,
    leaves: usize,
    lowered: usize,
    ptx: usize,
    with_shared: usize,
    emulated: usize,
    matched: usize,
    too_costly: usize,
    vector_types: usize,
    matched_vector_types: usize,
    refused: BTreeMap<String, usize>,
}

/// Lowers one leaf, compiles it to PTX and, if it is cheap enough and
/// fewer than `emulated_runs()` have run, emulates it.
fn check_leaf(
    name: &str,
    leaf: &Candidate<Backbone<GpuKernel>>,
    clang: &std::path::Path,
    emulator: &Emulated,
    tally: &mut Tally,
) {
    tally.leaves += 1;
    let lowered = match cuda::lower(leaf) {
        Ok(lowered) => lowered,
        Err(error) => {
            assert!(
                matches!(error, LowerError::Unsupported { .. }),
                "{name}: a leaf is undecided: {error}"
            );
            *tally.refused.entry(error.reason()).or_default() += 1;
            return;
        }
    };
    tally.lowered += 1;
    let ptx = compile_ptx(&lowered, clang, PTX_TIMEOUT)
        .unwrap_or_else(|e| panic!("{name}: PTX compilation failed: {e}\n{}", lowered.source()));
    assert!(ptx.contains(".entry"), "{name}: no .entry in the PTX");
    if lowered.shared_blocks > 0 {
        tally.with_shared += 1;
        assert!(
            ptx.contains(".shared"),
            "{name}: no .shared in the PTX\n{}",
            lowered.source()
        );
        assert!(
            ptx.contains("bar.sync"),
            "{name}: no bar.sync in the PTX\n{}",
            lowered.source()
        );
    }
    tally.ptx += 1;
    let vectors = lowered.body.contains("byte vector access per instruction");
    if vectors {
        tally.vector_types += 1;
    }
    // `GPU_CUDA_DUMP=DIR` keeps every lowered kernel and its PTX there.
    if let Some(dir) = std::env::var_os("GPU_CUDA_DUMP") {
        let dir = PathBuf::from(dir);
        let stem = format!("{name}-{}", tally.ptx);
        std::fs::create_dir_all(&dir).expect("the dump folder");
        std::fs::write(dir.join(format!("{stem}.cu")), lowered.source()).expect("a dump");
        std::fs::write(dir.join(format!("{stem}.ptx")), &ptx).expect("a dump");
    }
    // Emulation runs a block's threads one after another on the CPU,
    // switching at each barrier: leaves whose barriers or steps would
    // take it long are skipped.
    let threads: u64 = lowered.block.iter().product();
    let blocks: u64 = lowered.grid.iter().product();
    let cheap = blocks * threads * lowered.barriers_per_block <= 4_000_000
        && blocks * threads * lowered.steps_per_thread <= 200_000_000;
    if !cheap {
        tally.too_costly += 1;
        if std::env::var_os("GPU_CUDA_VERBOSE").is_some() {
            println!(
                "{name}: not emulated: {blocks} blocks of {threads} threads, \
                 {} barriers and {} steps per thread",
                lowered.barriers_per_block, lowered.steps_per_thread
            );
        }
    }
    if cheap && tally.emulated < emulated_runs() {
        tally.emulated += 1;
        let gpu = &leaf.backbone().0;
        let inputs = device::inputs(&lowered, tally.emulated as u64);
        let expected = device::reference(gpu, &inputs).expect("a reference");
        let run = emulator
            .run(&lowered, &inputs)
            .unwrap_or_else(|e| panic!("{name}: emulation failed: {e}\n{}", lowered.source()));
        if let Err(diff) = device::compare(&expected, &run.arrays, 1e-4) {
            panic!(
                "{name}: emulated output differs: {diff}\n{}",
                lowered.source()
            );
        }
        tally.matched += 1;
        if vectors {
            tally.matched_vector_types += 1;
        }
    }
}

/// Descends, lowers, compiles and emulates one kernel's leaves.
fn check_kernel(kernel: GpuKernel) -> Tally {
    let clang = clang();
    let emulator = Emulated::new(&clang_cxx(&clang));
    let name = kernel.name.clone();
    let start = root(kernel);
    let mut rng = rand::rngs::StdRng::seed_from_u64(SEED);
    let mut tally = Tally::default();
    // The seeded descents, then more (at most `extra_descents()`) until
    // enough leaves cheap enough to emulate have run.
    let mut drawn = 0;
    while drawn < descents()
        || (tally.emulated < emulated_runs() && drawn < descents() + extra_descents())
    {
        drawn += 1;
        let leaf = match random_descent(&start, MODEL.default_priority, &mut rng) {
            Descent::Leaf { leaf, .. } => leaf,
            Descent::DeadEnd { .. } => {
                tally.descents += 1;
                tally.dead_ends += 1;
                continue;
            }
        };
        tally.descents += 1;
        check_leaf(&name, &leaf, &clang, &emulator, &mut tally);
    }
    println!(
        "{name}: {} descents, {} dead ends, {} leaves, {} lowered ({} refused: {:?}), \
         {} compiled to PTX ({} with shared memory), {} emulated, {} matched \
         ({} too costly to emulate); {} use vector types ({} of them emulated and matched)",
        tally.descents,
        tally.dead_ends,
        tally.leaves,
        tally.lowered,
        tally.leaves - tally.lowered,
        tally.refused,
        tally.ptx,
        tally.with_shared,
        tally.emulated,
        tally.matched,
        tally.too_costly,
        tally.vector_types,
        tally.matched_vector_types
    );
    assert!(tally.lowered > 0, "{name}: no leaf lowered: {tally:?}");
    tally
}

#[test]
fn axpy_leaves_lower_compile_and_run() {
    check_kernel(GpuKernel::axpy(1024));
}

#[test]
fn matvec_leaves_lower_compile_and_run() {
    check_kernel(GpuKernel::matvec(64, 64));
}

#[test]
fn matmul_leaves_lower_compile_and_run() {
    check_kernel(GpuKernel::matmul(64, 64, 64));
}

#[test]
fn chained_matmul_leaves_lower_compile_and_run() {
    check_kernel(GpuKernel::chained_matmul(32, 32, 32, 32));
}

/// The lowered kernel of the first leaf of the seeded descents that lowers.
fn first_lowered(kernel: GpuKernel) -> commute_spaces::gpu::cuda::CudaKernel {
    let start = root(kernel);
    let mut rng = rand::rngs::StdRng::seed_from_u64(SEED);
    for _ in 0..100 {
        if let Descent::Leaf { leaf, .. } = random_descent(&start, MODEL.default_priority, &mut rng)
        {
            if let Ok(lowered) = cuda::lower(&leaf) {
                return lowered;
            }
        }
    }
    panic!("no leaf lowers in 100 descents");
}

/// The emulator is strict about barriers: without its `__syncthreads()`,
/// some lowered kernel whose threads share a staged block computes a wrong
/// result (each thread runs to its next barrier before the next starts).
#[test]
fn the_emulator_catches_a_missing_barrier() {
    let clang = clang();
    let emulator = Emulated::new(&clang_cxx(&clang));
    let start = root(GpuKernel::matvec(64, 64));
    let mut rng = rand::rngs::StdRng::seed_from_u64(SEED + 1);
    let mut tried = 0;
    for _ in 0..200 {
        let Descent::Leaf { leaf, .. } = random_descent(&start, MODEL.default_priority, &mut rng)
        else {
            continue;
        };
        let Ok(mut lowered) = cuda::lower(&leaf) else {
            continue;
        };
        let threads: u64 = lowered.block.iter().product();
        let blocks: u64 = lowered.grid.iter().product();
        if threads < 2
            || blocks * threads * lowered.barriers_per_block > 4_000_000
            || blocks * threads * lowered.steps_per_thread > 200_000_000
        {
            continue;
        }
        let gpu = &leaf.backbone().0;
        let inputs = device::inputs(&lowered, 7);
        let expected = device::reference(gpu, &inputs).expect("a reference");
        let run = emulator.run(&lowered, &inputs).expect("an emulation");
        device::compare(&expected, &run.arrays, 1e-4).expect("the lowered kernel is right");
        lowered.body = lowered.body.replace("__syncthreads();", "");
        let broken = emulator.run(&lowered, &inputs).expect("an emulation");
        if device::compare(&expected, &broken.arrays, 1e-4).is_err() {
            return;
        }
        tried += 1;
        if tried == 5 {
            break;
        }
    }
    panic!("no kernel without its barriers went wrong ({tried} tried)");
}

#[test]
fn a_partial_candidate_is_refused() {
    let kernel = GpuKernel::matmul(64, 64, 64);
    let mut candidate = root(kernel.clone());
    let error = cuda::lower(&candidate).expect_err("the root is undecided");
    assert!(matches!(error, LowerError::Undecided { .. }), "{error}");
    assert!(error.to_string().contains("undecided"), "{error}");
    // Deciding one kind leaves others open, still refused, naming one.
    let d = kernel.dim_named("fma.i1").expect("a dimension");
    candidate
        .apply(&Action {
            choice: dim_kind::CHOICE,
            objects: vec![kernel.dim_id(d).0],
            values: dim_kind::LOOP,
        })
        .expect("a loop");
    match cuda::lower(&candidate) {
        Err(LowerError::Undecided {
            instance,
            values_left,
        }) => {
            assert!(values_left > 1);
            assert!(instance.contains('('), "{instance}");
        }
        other => panic!("expected an undecided instance, got {other:?}"),
    }
}

#[test]
fn the_cuda_runner_reports_a_missing_driver() {
    match Cuda::detect(&clang()) {
        Err(DeviceError::NoDriver(why)) => {
            let message = DeviceError::NoDriver(why).to_string();
            assert!(
                message.contains("no CUDA driver on this machine"),
                "{message}"
            );
            // The runner itself, forced: it compiles the PTX and its host
            // program, which finds no driver either and says so.
            let runner = Cuda {
                clang: clang(),
                compile_timeout: Duration::from_secs(120),
                run_timeout: Duration::from_secs(60),
            };
            let lowered = first_lowered(GpuKernel::axpy(1024));
            let inputs = device::inputs(&lowered, 1);
            match runner.run(&lowered, &inputs) {
                Err(DeviceError::NoDriver(why)) => {
                    assert!(why.contains("no CUDA driver on this machine"), "{why}")
                }
                other => panic!("expected no driver, got {other:?}"),
            }
        }
        Err(other) => panic!("unexpected error: {other}"),
        Ok(runner) => {
            // A machine with a driver: run one lowered matmul leaf on it.
            let kernel = GpuKernel::matmul(64, 64, 64);
            let start = root(kernel);
            let mut rng = rand::rngs::StdRng::seed_from_u64(SEED);
            for _ in 0..20 {
                let Descent::Leaf { leaf, .. } =
                    random_descent(&start, MODEL.default_priority, &mut rng)
                else {
                    continue;
                };
                let Ok(lowered) = cuda::lower(&leaf) else {
                    continue;
                };
                let gpu = &leaf.backbone().0;
                let inputs = device::inputs(&lowered, 1);
                let expected = device::reference(gpu, &inputs).expect("a reference");
                match runner.run(&lowered, &inputs) {
                    Ok(run) => {
                        device::compare(&expected, &run.arrays, 1e-4)
                            .unwrap_or_else(|d| panic!("{}: {d}", runner.name()));
                        println!("ran on the GPU in {:?}", run.time);
                    }
                    Err(DeviceError::NoDriver(why)) => println!("no CUDA driver: {why}"),
                    Err(other) => panic!("{other}"),
                }
                return;
            }
        }
    }
}
