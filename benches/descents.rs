//! A fixed number of seeded random descents on one bench space, for
//! instruction counts that do not depend on the machine's load:
//!
//! ```sh
//! cargo bench --bench descents --no-run   # prints the binary's path
//! valgrind --tool=callgrind BINARY ordering 300
//! valgrind --tool=callgrind BINARY ordering 0   # the root's setup alone
//! valgrind --tool=callgrind BINARY ordering 300 tables
//! ```
//!
//! Instructions per decision: the difference of the two totals divided
//! by the decisions printed. `gpu` is the GPU space on a 1024-cubed
//! matrix product. The name of a bundled example, such as `gemm`
//! (the loop space of `examples/gemm.c`), works the same way. Every leaf is hashed, as `commute bench --digest`
//! does, so that the work cannot be optimized away. A third argument,
//! `tables`, leaves the space's generated propagators out (the engine's
//! table-driven path, `Interpreted`); the hash printed is the same.

use commute_loops::fnv::Fnv;
use commute_loops::frontend::read_kernel;
use commute_loops::space::host::KernelHost;
use commute_loops::space::Backbone as LoopBackbone;
use commute_loops::space::DECISION_PRIORITY;
use commute_runtime::backbone::Interpreted;
use commute_runtime::descent::{random_descent, Descent};
use commute_runtime::{Backbone, Candidate};
use commute_spaces::gpu::{self, GpuKernel};
use commute_spaces::paper::ordering;
use rand::rngs::StdRng;
use rand::SeedableRng;

fn descend<B: Backbone>(root: &Candidate<B>, priority: &[u16], descents: usize) {
    let mut rng = StdRng::seed_from_u64(1);
    let (mut hash, mut decisions, mut dead_ends) = (Fnv::default(), 0, 0);
    let started = std::time::Instant::now();
    for _ in 0..descents {
        let descent = random_descent(root, priority, &mut rng);
        decisions += descent.decisions();
        match descent {
            Descent::Leaf { leaf, .. } => {
                for word in leaf.decisions().words {
                    hash.feed(&word.to_le_bytes());
                }
            }
            Descent::DeadEnd { .. } => dead_ends += 1,
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{descents} descents, {decisions} decisions, {dead_ends} dead ends, hash {}, {:.0} descents/s",
        hash.hex(),
        descents as f64 / seconds
    );
}

fn main() {
    // `cargo bench` passes `--bench`; the space and the count are the
    // other arguments.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let space = args.first().map_or("ordering", String::as_str);
    let descents = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(300);
    let tables = args.get(2).is_some_and(|path| path == "tables");
    match space {
        "ordering" => {
            let backbone = ordering::Backbone(ordering::Chain(30));
            if tables {
                let root =
                    Candidate::new(Interpreted(backbone)).expect("the ordering space is not empty");
                descend(&root, ordering::MODEL.default_priority, descents);
            } else {
                let root = Candidate::new(backbone).expect("the ordering space is not empty");
                descend(&root, ordering::MODEL.default_priority, descents);
            }
        }
        "gpu" => {
            let backbone = gpu::Backbone(GpuKernel::matmul(1024, 1024, 1024));
            if tables {
                let root =
                    Candidate::new(Interpreted(backbone)).expect("the GPU space is not empty");
                descend(&root, gpu::MODEL.default_priority, descents);
            } else {
                let root = Candidate::new(backbone).expect("the GPU space is not empty");
                descend(&root, gpu::MODEL.default_priority, descents);
            }
        }
        name if !name.contains('/') && !name.contains('.') => {
            let path = format!("{}/examples/{name}.c", env!("CARGO_MANIFEST_DIR"));
            let Ok(source) = std::fs::read_to_string(&path) else {
                eprintln!(
                    "unknown space `{name}`: ordering, gpu, or a bundled example (gemm, jacobi-2d, ...)"
                );
                std::process::exit(2);
            };
            let kernel = read_kernel(&path, &source).expect("bundled examples are supported");
            let backbone = LoopBackbone(KernelHost::new(kernel));
            if tables {
                let root =
                    Candidate::new(Interpreted(backbone)).expect("a loop space is not empty");
                descend(&root, &DECISION_PRIORITY, descents);
            } else {
                let root = Candidate::new(backbone).expect("a loop space is not empty");
                descend(&root, &DECISION_PRIORITY, descents);
            }
        }
        other => {
            eprintln!(
                "unknown space `{other}`: ordering, gpu, or a bundled example (gemm, jacobi-2d, ...)"
            );
            std::process::exit(2);
        }
    }
}
