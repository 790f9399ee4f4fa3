//! `commute bench --digest`: hashes of where seeded random descents end
//! on every bundled space. A change to the engine that must not change
//! what propagation decides (a faster path, a new plan) is checked by
//! running it before and after the change: every line must be equal.
//!
//! Leaves are hashed by their decision vector and the number of decisions
//! that reached them, dead ends by the constraint, bindings, emptied
//! instance and message they report, so a reordering that only makes a
//! dead end name another constraint shows too.
//!
//! With `--loaded`, every space is read from its file and lowered in
//! memory (`commute_codegen::load_in`) rather than taken from the
//! generated code, the same backbones answering: every line must equal
//! the generated run's, since both paths build the same tables.
//!
//! With `--interpreted`, the generated tables are used without the
//! space's generated propagators: every constraint is filtered by the
//! engine's table-driven path (the path of loaded spaces), and every line
//! must equal the run through the propagators.

use commute_loops::fnv::Fnv;
use commute_loops::space::host::KernelHost;
use commute_loops::space::Backbone as LoopBackbone;
use commute_loops::space::DECISION_PRIORITY;
use commute_runtime::backbone::WithModel;
use commute_runtime::compiled::{Propagators, Tables as TableFilters};
use commute_runtime::descent::{random_descent, random_descent_backtracking, Descent};
use commute_runtime::testing::RandomBackbone;
use commute_runtime::{Backbone, Candidate, Model};
use commute_spaces::gpu;
use commute_spaces::paper::ordering;
use commute_spaces::VisitModel;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// The descents of one space and backbone (or family of backbones).
#[derive(Debug, serde::Serialize)]
pub struct Line {
    pub name: String,
    pub descents: usize,
    pub decisions: usize,
    pub dead_ends: usize,
    /// 16 hex digits.
    pub hash: String,
}

#[derive(Debug, serde::Serialize)]
pub struct Digest {
    pub lines: Vec<Line>,
    /// The hash of every line's hash.
    pub total: String,
}

/// What a run of descents added up to.
#[derive(Default)]
struct Tally {
    hash: Fnv,
    descents: usize,
    decisions: usize,
    dead_ends: usize,
}

impl Tally {
    /// `descents` seeded descents from `root`; every fourth backtracks
    /// over refuted values when `backtrack` is set, so that refutations
    /// are hashed too.
    fn descend<B: Backbone>(
        &mut self,
        root: &Candidate<B>,
        priority: &[u16],
        descents: usize,
        seed: u64,
        backtrack: bool,
    ) {
        let mut rng = StdRng::seed_from_u64(seed);
        for i in 0..descents {
            let descent = if backtrack && i % 4 == 3 {
                random_descent_backtracking(root, priority, &mut rng)
            } else {
                random_descent(root, priority, &mut rng)
            };
            self.descents += 1;
            self.decisions += descent.decisions();
            self.hash.feed(&(descent.decisions() as u64).to_le_bytes());
            match &descent {
                Descent::Leaf { leaf, .. } => {
                    self.hash.feed(b"leaf");
                    for word in leaf.decisions().words {
                        self.hash.feed(&word.to_le_bytes());
                    }
                }
                Descent::DeadEnd { dead_end, .. } => {
                    self.dead_ends += 1;
                    self.hash.feed(b"dead end");
                    let account = format!(
                        "{:?} {:?} {:?} {}",
                        dead_end.constraint, dead_end.bindings, dead_end.emptied, dead_end.message
                    );
                    self.hash.feed(account.as_bytes());
                }
            }
        }
    }

    /// A backbone the engine refused to lay out counts by its error.
    fn refused(&mut self, error: &str) {
        self.hash.feed(b"refused");
        self.hash.feed(error.as_bytes());
    }

    fn line(self, name: String) -> Line {
        Line {
            name,
            descents: self.descents,
            decisions: self.decisions,
            dead_ends: self.dead_ends,
            hash: self.hash.hex(),
        }
    }
}

/// Where the engine's tables come from, and which path filters
/// constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tables {
    /// The `MODEL` statics generated at build time, constraints filtered
    /// by the space's generated propagators.
    Generated,
    /// The generated `MODEL` statics, every constraint filtered from the
    /// tables (the propagators left out).
    Interpreted,
    /// Each space file read and lowered in memory when the run starts
    /// (so filtered from the tables).
    Loaded,
}

impl Tables {
    /// The tables of the space whose generated ones are `generated`, read
    /// from `path` relative to the folder `dir` when loaded.
    pub fn of(
        self,
        generated: &'static Model,
        dir: &std::path::Path,
        path: &str,
    ) -> Result<&'static Model, String> {
        match self {
            Tables::Generated | Tables::Interpreted => Ok(generated),
            Tables::Loaded => commute_codegen::load_in(dir, path).map_err(|e| e.to_string()),
        }
    }

    /// Whether backbones hand their generated propagators over.
    pub fn compiled(self) -> bool {
        self != Tables::Interpreted
    }
}

/// `backbone` seen through `model`, the tables of its own space, its
/// generated propagators handed over where `tables` uses them.
pub fn with_model<B: Backbone>(backbone: B, model: &'static Model, tables: Tables) -> WithModel<B> {
    WithModel {
        inner: backbone,
        model,
        compiled: tables.compiled(),
    }
}

/// The tables of the ordering space.
pub fn ordering_tables(tables: Tables) -> Result<&'static Model, String> {
    tables.of(
        &ordering::MODEL,
        commute_spaces::package_dir(),
        "paper/listing07_ordering.space",
    )
}

/// The tables of the loop space.
pub fn loop_tables(tables: Tables) -> Result<&'static Model, String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("loops");
    tables.of(&commute_loops::space::MODEL, &dir, "loops/loops.space")
}

/// The tables of the GPU space.
pub fn gpu_tables(tables: Tables) -> Result<&'static Model, String> {
    tables.of(
        &commute_spaces::gpu::MODEL,
        commute_spaces::package_dir(),
        "gpu/gpu.space",
    )
}

type OrderingRoot = Candidate<WithModel<ordering::Backbone<ordering::Chain>>>;

fn ordering_root(
    statements: u32,
    model: &'static Model,
    tables: Tables,
) -> Result<OrderingRoot, String> {
    Candidate::new(with_model(
        ordering::Backbone(ordering::Chain(statements)),
        model,
        tables,
    ))
    .map_err(|e| e.to_string())
}

/// Runs every descent of the digest on `tables`; `scale` multiplies their
/// numbers. `progress` is told each line's name before it runs.
pub fn run(scale: usize, tables: Tables, progress: &mut dyn FnMut(&str)) -> Result<Digest, String> {
    let ordering_model = ordering_tables(tables)?;
    let loop_model = loop_tables(tables)?;
    let mut lines = Vec::new();
    let mut add = |name: String, fill: &mut dyn FnMut(&mut Tally)| {
        progress(&name);
        let mut tally = Tally::default();
        fill(&mut tally);
        lines.push(tally.line(name));
    };

    // The two spaces `commute bench` times, from several seeds.
    let root = ordering_root(30, ordering_model, tables)?;
    for seed in 1..=4u64 {
        add(format!("ordering, 30 statements, seed {seed}"), &mut |t| {
            t.descend(
                &root,
                ordering::MODEL.default_priority,
                2_000 * scale,
                seed,
                seed % 2 == 0,
            );
        });
    }
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let gemm = loop_root("gemm.c", loop_model, tables)?;
    for seed in 1..=4u64 {
        add(format!("loops, examples/gemm.c, seed {seed}"), &mut |t| {
            t.descend(
                &gemm,
                &DECISION_PRIORITY,
                5_000 * scale,
                seed,
                seed % 2 == 0,
            );
        });
    }
    // Other sizes of the ordering space, from 2 statements (one instance)
    // to 70 (past one word of bit planes).
    for (statements, descents) in [(2u32, 500), (5, 500), (12, 500), (50, 50), (70, 10)] {
        let root = ordering_root(statements, ordering_model, tables)?;
        add(format!("ordering, {statements} statements"), &mut |t| {
            t.descend(
                &root,
                ordering::MODEL.default_priority,
                descents * scale,
                7 + u64::from(statements),
                true,
            );
        });
    }
    // Every bundled model on small random backbones: these reach dead
    // ends, and their spaces use every construct of the language.
    let sources = commute_spaces::model_sources();
    for ((name, generated, random), (_, path)) in random_paths(tables).into_iter().zip(sources) {
        let model = tables.of(generated, commute_spaces::package_dir(), path)?;
        if name == "gpu" {
            // Random facts never describe a kernel (every root is empty):
            // the kernels its host builds instead.
            for kernel in crate::bench::gpu_kernels() {
                let kernel_name = kernel.name.clone();
                let root = Candidate::new(with_model(gpu::Backbone(kernel), model, tables));
                add(format!("gpu, {kernel_name}"), &mut |t| match &root {
                    Ok(root) => t.descend(root, gpu::MODEL.default_priority, 5 * scale, 17, true),
                    Err(error) => t.refused(&error.to_string()),
                });
            }
            continue;
        }
        add(format!("{name}, random backbones"), &mut |t| {
            for size in [2u32, 3, 4, 6, 9] {
                for seed in 0..(2 * scale as u64) {
                    random(t, model, seed, size);
                }
            }
        });
    }
    // The loop space of every bundled example, in the order `tune` decides
    // and in the model's own order.
    let mut files: Vec<_> = std::fs::read_dir(&examples)
        .map_err(|e| format!("cannot read `{}`: {e}", examples.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    files.sort();
    for path in files {
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().to_string());
        // An example the front end does not take alone (several loop
        // nests and no `#pragma scop`, as `matmul-pointers.c`) counts by
        // its error, as a refused random backbone does.
        let root = loop_root(&name, loop_model, tables);
        add(format!("loops, examples/{name}"), &mut |t| match &root {
            Ok(root) => {
                t.descend(root, &DECISION_PRIORITY, 200 * scale, 11, true);
                t.descend(root, &[], 50 * scale, 13, true);
            }
            Err(error) => t.refused(error),
        });
    }

    let mut total = Fnv::default();
    for line in &lines {
        total.feed(line.hash.as_bytes());
    }
    Ok(Digest {
        lines,
        total: total.hex(),
    })
}

/// Descents on one random backbone of a space: `(tally, model, seed,
/// size)`, through the space's generated propagators or the tables.
type RandomDescents = fn(&mut Tally, &'static Model, u64, u32);

/// The descents of the digest on the random backbone of `model` drawn from
/// `seed` with `size` objects per root set, through the propagators `P`.
fn random_descents<P: Propagators>(t: &mut Tally, model: &'static Model, seed: u64, size: u32) {
    match Candidate::new(RandomBackbone::<P>::with_propagators(model, seed, size)) {
        Ok(root) => {
            let seed = seed * 31 + u64::from(size);
            t.descend(&root, model.default_priority, 30, seed, true);
            t.descend(&root, &[], 10, seed + 1, false);
        }
        Err(error) => t.refused(&error.to_string()),
    }
}

/// Every bundled space (as [`commute_spaces::models`]) with the descents
/// on its random backbones that `tables` asks for.
fn random_paths(tables: Tables) -> Vec<(&'static str, &'static Model, RandomDescents)> {
    struct Collect(Vec<(&'static str, &'static Model, RandomDescents)>, bool);
    impl VisitModel for Collect {
        fn visit<P: Propagators>(&mut self, name: &'static str, model: &'static Model) {
            let descents = if self.1 {
                random_descents::<P>
            } else {
                random_descents::<TableFilters>
            };
            self.0.push((name, model, descents));
        }
    }
    let mut collect = Collect(Vec::new(), tables.compiled());
    commute_spaces::visit_models(&mut collect);
    collect.0
}

/// The root of the loop space of `examples/NAME`.
fn loop_root(
    name: &str,
    model: &'static Model,
    tables: Tables,
) -> Result<Candidate<WithModel<LoopBackbone<KernelHost>>>, String> {
    let host = crate::bench::bundled_kernel(name)?;
    Candidate::new(with_model(LoopBackbone(host), model, tables))
        .map_err(|e| format!("examples/{name}: {e}"))
}

pub fn print(digest: &Digest) {
    for line in &digest.lines {
        say!(
            "{:40} {:>7} descents {:>9} decisions {:>6} dead ends  {}",
            line.name,
            line.descents,
            line.decisions,
            line.dead_ends,
            line.hash
        );
    }
    say!("{:40} {}", "all", digest.total);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(statements: u32, seed: u64) -> Line {
        let root = ordering_root(statements, &ordering::MODEL, Tables::Generated)
            .expect("the ordering space is not empty");
        let mut tally = Tally::default();
        tally.descend(&root, ordering::MODEL.default_priority, 20, seed, true);
        tally.line(String::new())
    }

    /// The digest's descents on small backbones of every bundled space and
    /// of the loop space, through generated tables with their propagators,
    /// generated tables without them, and loaded tables: equal hashes
    /// (`commute bench --digest --loaded` and `--interpreted` compare
    /// every line).
    #[test]
    fn every_path_reaches_the_same_leaves_and_dead_ends() {
        let hash = |tables: Tables| {
            let mut lines = Vec::new();
            let root = ordering_root(6, ordering_tables(tables).expect("loads"), tables)
                .expect("the ordering space is not empty");
            // Through the propagators exactly where they are used (unless
            // the build left them out, `COMMUTE_PROPAGATORS=tables`).
            let compiled = <ordering::Propagators as Propagators>::model().is_some();
            assert_eq!(root.is_compiled(), compiled && tables == Tables::Generated);
            let mut tally = Tally::default();
            tally.descend(&root, ordering::MODEL.default_priority, 50, 1, true);
            lines.push(tally.line("ordering".into()));
            let sources = commute_spaces::model_sources();
            for ((name, generated, random), (_, path)) in
                random_paths(tables).into_iter().zip(sources)
            {
                let model = tables
                    .of(generated, commute_spaces::package_dir(), path)
                    .expect("loads");
                let mut tally = Tally::default();
                for seed in 0..3 {
                    for size in [2, 3, 4] {
                        random(&mut tally, model, seed, size);
                    }
                }
                lines.push(tally.line(name.into()));
            }
            let root =
                loop_root("atax.c", loop_tables(tables).expect("loads"), tables).expect("lays out");
            assert_eq!(root.is_compiled(), tables == Tables::Generated);
            let mut tally = Tally::default();
            tally.descend(&root, &DECISION_PRIORITY, 20, 5, true);
            lines.push(tally.line("loops".into()));
            lines
                .into_iter()
                .map(|l| (l.name, l.decisions, l.dead_ends, l.hash))
                .collect::<Vec<_>>()
        };
        let generated = hash(Tables::Generated);
        assert_eq!(generated, hash(Tables::Loaded));
        // The generated propagators and the table-driven filters: the
        // same leaves, and the same dead ends, named alike.
        assert_eq!(generated, hash(Tables::Interpreted));
    }

    #[test]
    fn same_seed_same_hash_other_seed_other_hash() {
        let (first, again, other) = (tally(8, 3), tally(8, 3), tally(8, 4));
        assert_eq!(first.descents, 20);
        assert_eq!(first.hash, again.hash);
        assert_eq!(first.decisions, again.decisions);
        assert_ne!(first.hash, other.hash);
    }
}
