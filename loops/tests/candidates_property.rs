//! The loop space never changes a program's result: small random affine
//! loop nests (loops counting down or stepping by more than one,
//! statements under affine conditions,
//! conditional expressions among them) are generated as C, every fully
//! decided candidate of their space is enumerated, and the reference
//! interpreter runs each loop tree: the memory must equal the original
//! program's, no parallel or vector loop may race, and no statement may
//! run outside its domain.

use commute_loops::emit::interpret::{run, Element, Memory, RunError};
use commute_loops::frontend::{
    read_kernel, Affine, Direction, Kernel, LoopId, StatementId, Variable,
};
use commute_loops::lowering::reductions::{block, reduced};
use commute_loops::lowering::schedule::{Kind, Node, Part, Schedule, TreeLoop};
use commute_loops::space::host::KernelHost;
use commute_loops::space::names::apply_named_fixes;
use commute_loops::space::Backbone;
use commute_runtime::descent::{random_descent_backtracking, Descent};
use commute_runtime::explore::enumerate;
use commute_runtime::Candidate;
use rand::rngs::StdRng;
use rand::SeedableRng;
use random_nests::Style;

mod random_nests;

const LIMIT: usize = 100_000;
/// Candidates enumerated per nest by default (`COMMUTE_PROPERTY_LEAVES`);
/// as many random ones past that.
const ENUMERATED: usize = 250;

/// Small nests, at most two deep, on three 12 x 12 arrays.
const STYLE: Style = Style {
    iterators: &["i", "j"],
    arrays: &["A", "B", "C"],
    constant_subscript: 0.15,
    constants: 4,
    rich_subscripts: false,
    nest: 0.6,
    lower_outer: 0.0,
    upper_outer: 0.2,
    upper_symbolic: 0.0,
    extents: (4, 9),
    repeat_bounds: 0.4,
    more: 0.5,
    down: 0.25,
    strided: 0.15,
    guard: 0.3,
    conditional: 0.15,
    head: "double A[12][12], B[12][12], C[12][12], s;\nvoid kernel(void) {\n  int i, j, k, l;",
};

/// Nests three deep, whose loops have blocks (tiles of tiles), with
/// extents above the smallest span offered (16).
const DEEP: Style = Style {
    iterators: &["i", "j", "k"],
    nest: 0.8,
    extents: (17, 20),
    head: "double A[28][28], B[28][28], C[28][28], s;\nvoid kernel(void) {\n  int i, j, k, l;",
    ..STYLE
};

fn root(host: &KernelHost) -> Candidate<Backbone<KernelHost>> {
    Candidate::new(Backbone(host.clone())).unwrap_or_else(|e| panic!("{e}"))
}

/// The original program as a loop tree: every loop untiled, sequential,
/// in its textual place.
fn original_tree(kernel: &Kernel) -> Schedule {
    fn children(kernel: &Kernel, parent: Option<LoopId>) -> Vec<Node> {
        let mut items: Vec<(usize, Node)> = Vec::new();
        for (l, lp) in kernel.loops.iter().enumerate() {
            if lp.parent == parent {
                items.push((
                    lp.span.start,
                    Node::Loop(TreeLoop {
                        loops: vec![LoopId(l)],
                        statements: (0..kernel.statements.len())
                            .filter(|&s| kernel.statements[s].loops.contains(&LoopId(l)))
                            .map(|s| (commute_loops::frontend::StatementId(s), LoopId(l)))
                            .collect(),
                        part: Part::Point,
                        size: 1,
                        kind: Kind::Sequential,
                        dynamic: false,
                        accumulating: Vec::new(),
                        packs: Vec::new(),
                        body: children(kernel, Some(LoopId(l))),
                    }),
                ));
            }
        }
        for (s, statement) in kernel.statements.iter().enumerate() {
            if statement.loops.last().copied() == parent {
                items.push((
                    statement.span.start,
                    Node::Statement(commute_loops::frontend::StatementId(s)),
                ));
            }
        }
        items.sort_by_key(|(start, _)| *start);
        items.into_iter().map(|(_, node)| node).collect()
    }
    Schedule {
        roots: children(kernel, None),
        skews: Vec::new(),
        shifts: Vec::new(),
    }
}

fn reference(kernel: &Kernel) -> Memory {
    run(kernel, &original_tree(kernel), &[], LIMIT).expect("the original program runs")
}

#[test]
fn every_candidate_of_random_nests_computes_the_original_memory() {
    let cases: u64 = std::env::var("COMMUTE_PROPERTY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let per_nest: usize = std::env::var("COMMUTE_PROPERTY_LEAVES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ENUMERATED);
    let mut leaves_checked = 0;
    let mut transformed = 0;
    // Tile loops, parallel, vector, unrolled and reversed loops seen, and
    // candidates with a distributed loop, with two loops fused, with a
    // loop outside one whose bounds read its iterator, with loops of
    // different depths or bounds merged, parallel and vector loops that
    // reduce a statement, collapsed loops, parallel loops scheduled
    // dynamically, sequential loops holding accumulators, of them those
    // holding a tile's elements in an array, candidates with a skewed
    // loop, of them those with a skewed loop outside its base, candidates
    // with a loop shifted in a fusion, loops packing an operand, tiles
    // run as a wavefront, of them with the wavefront's loop skewed, loops
    // of two statements merged skewed.
    let mut features = [0usize; 22];
    // Nests with loops counting down, statements under conditions,
    // conditional expressions, loops stepping by more than one.
    let mut constructs = [0usize; 4];
    for seed in 0..cases {
        let source = random_nests::program(&STYLE, seed);
        let kernel = match read_kernel("random.c", &source) {
            Ok(kernel) => kernel,
            // Conditions that never hold leave nothing to check.
            Err(e) if e.message.contains("ever runs") => continue,
            Err(e) => panic!("seed {seed}: the front-end refuses:\n{e}\n{source}"),
        };
        let expected = reference(&kernel);
        // The original tree runs exactly the statements' domains: it
        // writes what running the nest directly writes.
        let mut written: Vec<&Element> = expected.keys().collect();
        written.sort();
        assert_eq!(
            written,
            direct_writes(&kernel).iter().collect::<Vec<_>>(),
            "seed {seed}: the original tree runs other instances\n{source}"
        );
        constructs[0] += usize::from(kernel.loops.iter().any(|l| l.is_down()));
        constructs[1] += usize::from(kernel.statements.iter().any(|s| !s.guards.is_empty()));
        constructs[2] += usize::from(source.contains(" ? "));
        constructs[3] += usize::from(
            kernel
                .loops
                .iter()
                .any(|l| matches!(l.direction, Direction::Strided { .. })),
        );
        let host = KernelHost::new(kernel.clone());
        let enumeration = enumerate(&root(&host), &[], per_nest);
        assert!(
            !enumeration.leaves.is_empty(),
            "seed {seed}: no candidate\n{source}"
        );
        // Spaces too large to enumerate: the enumeration's first leaves
        // differ in their last decisions only, so random descents (with
        // backtracking: a dead end is not a candidate) go along.
        let mut leaves = enumeration.leaves;
        if enumeration.truncated {
            let mut rng = StdRng::seed_from_u64(seed);
            leaves.extend((0..per_nest).filter_map(|_| {
                match random_descent_backtracking(&root(&host), &[], &mut rng) {
                    Descent::Leaf { leaf, .. } => Some(leaf),
                    Descent::DeadEnd { .. } => None,
                }
            }));
        }
        let original = original_tree(&kernel);
        for leaf in &leaves {
            let schedule = Schedule::from_candidate(&host, leaf)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{source}"));
            match run(&kernel, &schedule, &[], LIMIT) {
                Ok(memory) => assert!(
                    memory == expected,
                    "seed {seed}: a candidate computes another result:\n{source}\n{}",
                    schedule.outline(&kernel)
                ),
                Err(error) => panic!(
                    "seed {seed}: {error:?}\n{source}\n{}",
                    schedule.outline(&kernel)
                ),
            }
            leaves_checked += 1;
            transformed += usize::from(schedule != original);
            features[15] += usize::from(!schedule.skews.is_empty());
            features[16] += usize::from(!schedule.skews_outside_their_base(&kernel).is_empty());
            features[17] += usize::from(!schedule.shifts.is_empty());
            let loops = schedule.loops();
            let mut points: Vec<LoopId> = loops
                .iter()
                .filter(|l| l.part == Part::Point)
                .map(|l| l.loops[0])
                .collect();
            let count = points.len();
            points.sort();
            points.dedup();
            features[5] += usize::from(points.len() < count);
            features[6] += usize::from(loops.iter().any(|l| l.loops.len() > 1));
            features[8] += usize::from(loops.iter().any(|l| {
                l.loops
                    .iter()
                    .any(|&a| l.loops.iter().any(|&b| a != b && !kernel.fusable(a, b)))
            }));
            features[7] += usize::from(triangular_interchanged(
                &kernel,
                &schedule.roots,
                &mut Vec::new(),
            ));
            for l in &loops {
                let reducing = reduced(&kernel, l);
                if !reducing.is_empty() {
                    features[match l.kind {
                        Kind::Parallel => 9,
                        Kind::Vector => 10,
                        _ => 13,
                    }] += 1;
                }
                features[14] += usize::from(
                    l.kind == Kind::Sequential
                        && reducing
                            .iter()
                            .any(|&s| block(&kernel, l, s).is_some_and(|b| !b.is_empty())),
                );
                features[11] += usize::from(l.kind == Kind::Collapsed);
                let skewed: Vec<StatementId> = l
                    .members(&kernel)
                    .into_iter()
                    .filter(|&(s, x)| schedule.skew(s, x).is_some())
                    .map(|(s, _)| s)
                    .collect();
                features[21] += usize::from(skewed.iter().any(|&s| s != skewed[0]));
                features[18] += usize::from(!l.packs.is_empty());
                features[12] += usize::from(l.dynamic);
                if let (Kind::Wave, [Node::Loop(inner)]) = (l.kind, &l.body[..]) {
                    features[19] += 1;
                    features[20] += usize::from(
                        schedule
                            .skews
                            .iter()
                            .any(|(_, skewed, _)| inner.loops.contains(skewed)),
                    );
                }
            }
            for l in loops {
                let index = match (l.part, l.kind) {
                    (Part::Tile, _) => 0,
                    (_, Kind::Parallel) => 1,
                    (_, Kind::Vector) => 2,
                    (_, Kind::Unroll) => 3,
                    (_, Kind::Reverse) => 4,
                    _ => continue,
                };
                features[index] += 1;
            }
        }
    }
    eprintln!(
        "{leaves_checked} candidates of {cases} random nests, {transformed} transformed; \
         tile loops, parallel, vector, unrolled, reversed loops, distributed, fused, \
         triangular interchanged, unequal loops fused candidates, parallel and vector \
         loops reducing, collapsed loops, dynamic parallel loops, sequential loops \
         accumulating, of them into a tile's elements, skewed, of them with a skewed \
         loop outside its base, shifted, packing, wavefronts, of them skewed, merged \
         skewed: {features:?}"
    );
    assert!(
        transformed > leaves_checked / 2,
        "the spaces are mostly the original program"
    );
    assert!(
        features.iter().all(|&f| f > 0),
        "every kind of transformation is exercised: {features:?}"
    );
    eprintln!("nests with loops counting down, guarded statements, conditional expressions, loops stepping by more than one: {constructs:?}");
    assert!(constructs.iter().all(|&c| c > 0), "{constructs:?}");
}

/// Random candidates of nests three deep, whose loops are tiled twice
/// (blocks of tiles) in about half of them: each computes the original
/// memory, and block loops are seen, parallel ones, and ones away from
/// their tile (other loops between).
#[test]
fn blocked_candidates_of_random_deep_nests_compute_the_original_memory() {
    let cases: u64 = std::env::var("COMMUTE_PROPERTY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(8, |c: u64| c.div_ceil(5));
    // Block loops, parallel ones, ones with another loop between them and
    // their tile.
    let mut blocks = [0usize; 3];
    let mut leaves_checked = 0;
    for seed in 0..cases {
        let source = random_nests::program(&DEEP, seed);
        let kernel = match read_kernel("random.c", &source) {
            Ok(kernel) => kernel,
            Err(e) if e.message.contains("ever runs") => continue,
            Err(e) => panic!("seed {seed}: the front-end refuses:\n{e}\n{source}"),
        };
        let expected = reference(&kernel);
        let host = KernelHost::new(kernel.clone()).with_blocks(true);
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..30 {
            let Descent::Leaf { leaf, .. } =
                random_descent_backtracking(&root(&host), &[], &mut rng)
            else {
                continue;
            };
            let schedule = Schedule::from_candidate(&host, &leaf)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{source}"));
            let outline = || schedule.outline(&kernel);
            match run(&kernel, &schedule, &[], LIMIT) {
                Ok(memory) => assert!(
                    memory == expected,
                    "seed {seed}: a candidate computes another result:\n{source}\n{}",
                    outline()
                ),
                Err(error) => panic!("seed {seed}: {error:?}\n{source}\n{}", outline()),
            }
            leaves_checked += 1;
            for l in schedule
                .loops()
                .into_iter()
                .filter(|l| l.part == Part::Block)
            {
                blocks[0] += 1;
                blocks[1] += usize::from(l.kind == Kind::Parallel);
                blocks[2] += usize::from(
                    !matches!(&l.body[..], [Node::Loop(t)] if t.part == Part::Tile && t.loops == l.loops),
                );
            }
        }
    }
    eprintln!(
        "{leaves_checked} candidates of {cases} random deep nests; block loops, parallel ones, \
         ones away from their tile: {blocks:?}"
    );
    assert!(blocks.iter().all(|&b| b > 0), "{blocks:?}");
}

/// Two sweeps over time, as jacobi-2d's, small: fused, the second
/// shifted by a row (and a column), both skewed by `t` (factor 2).
const SWEEPS: &str = "\
double A[9][10], B[9][10];
void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < 5; t++) {
    for (i = 1; i < 8; i++)
      for (j = 1; j < 9; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i - 1][j] + A[i + 1][j]);
    for (i = 1; i < 8; i++)
      for (j = 1; j < 9; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i - 1][j] + B[i + 1][j]);
  }
#pragma endscop
}
";

/// Random candidates of time-stepped sweeps whose rows are fused with a
/// shift and skewed by the time step (what time tiling starts from), with
/// the columns fused too or not: each computes the original memory, and among
/// them are time tiles (a tile of rows outside the time step's points),
/// of them run as a wavefront.
#[test]
fn random_time_tilings_of_fused_sweeps_compute_the_original_memory() {
    let per_case: usize = std::env::var("COMMUTE_PROPERTY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(150, |c: usize| c * 4);
    let kernel = read_kernel("sweeps.c", SWEEPS).unwrap_or_else(|e| panic!("{e}"));
    let expected = reference(&kernel);
    let host = KernelHost::new(kernel.clone());
    let rows = [
        "skew(i) = YES",
        "skew(i#2) = YES",
        "shift(i#2) = YES",
        "order(i, i#2) = MERGED",
    ];
    let columns = ["shift(j#2) = YES", "order(j, j#2) = MERGED"];
    // Candidates, time tiles, of them wavefronts.
    let mut seen = [0usize; 3];
    for (case, fixes) in [rows.to_vec(), [&rows[..], &columns[..]].concat()]
        .into_iter()
        .enumerate()
    {
        let mut pinned = root(&host);
        let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
        apply_named_fixes(&host, &mut pinned, &fixes).unwrap_or_else(|e| panic!("{e}"));
        let mut rng = StdRng::seed_from_u64(case as u64);
        for _ in 0..per_case {
            let Descent::Leaf { leaf, .. } = random_descent_backtracking(&pinned, &[], &mut rng)
            else {
                continue;
            };
            let schedule = Schedule::from_candidate(&host, &leaf)
                .unwrap_or_else(|e| panic!("case {case}: {e}"));
            let outline = || schedule.outline(&kernel);
            match run(&kernel, &schedule, &[], LIMIT) {
                Ok(memory) => assert!(
                    memory == expected,
                    "case {case}: a candidate computes another result:\n{}",
                    outline()
                ),
                Err(error) => panic!("case {case}: {error:?}\n{}", outline()),
            }
            seen[0] += 1;
            let time_tiled = time_tile(&schedule.roots, false);
            seen[1] += usize::from(time_tiled);
            seen[2] +=
                usize::from(time_tiled && schedule.loops().iter().any(|l| l.kind == Kind::Wave));
        }
    }
    eprintln!("candidates, time tiles, wavefronts of them: {seen:?}");
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

/// Whether a tile loop of skewed rows (`L1`) runs outside a point loop of
/// the time step (`L0`) of a tiled time loop.
fn time_tile(nodes: &[Node], rows_tile_outside: bool) -> bool {
    nodes.iter().any(|node| match node {
        Node::Statement(_) => false,
        Node::Loop(l) => {
            let rows_tile =
                rows_tile_outside || (l.part == Part::Tile && l.loops.contains(&LoopId(1)));
            (rows_tile && l.part == Part::Point && l.size > 1 && l.loops.contains(&LoopId(0)))
                || time_tile(&l.body, rows_tile)
        }
    })
}

/// The elements the nest writes, run directly from the kernel's loops
/// and conditions (no parameters), sorted.
fn direct_writes(kernel: &Kernel) -> Vec<Element> {
    fn value(a: &Affine, counters: &[i64]) -> i64 {
        a.constant
            + a.terms
                .iter()
                .map(|(v, c)| match v {
                    Variable::Iterator(l) => c * counters[l.0],
                    Variable::Param(_) => unreachable!("no parameters"),
                })
                .sum::<i64>()
    }
    fn run(kernel: &Kernel, depth: &[LoopId], counters: &mut Vec<i64>, out: &mut Vec<Element>) {
        for (s, statement) in kernel.statements.iter().enumerate() {
            let _ = s;
            if statement.loops == depth && statement.guards.iter().all(|g| value(g, counters) >= 0)
            {
                let element = (
                    statement.write.name.clone(),
                    statement
                        .write
                        .subscripts
                        .iter()
                        .map(|x| value(x, counters))
                        .collect(),
                );
                out.push(element);
            }
        }
        for (l, lp) in kernel.loops.iter().enumerate() {
            if lp.parent == depth.last().copied() {
                let mut inner = depth.to_vec();
                inner.push(LoopId(l));
                for c in value(&lp.lower, counters)..value(&lp.upper, counters) {
                    counters[l] = c;
                    run(kernel, &inner, counters, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    run(kernel, &[], &mut vec![0; kernel.loops.len()], &mut out);
    out.sort();
    out.dedup();
    out
}

/// Whether a statement has a loop inside one of its loops that reads
/// its iterator in its bounds: a triangular nest interchanged.
fn triangular_interchanged(kernel: &Kernel, nodes: &[Node], outer: &mut Vec<Vec<LoopId>>) -> bool {
    nodes.iter().any(|node| match node {
        Node::Statement(s) => {
            let own = kernel.loops_of(*s);
            let mut path: Vec<LoopId> = Vec::new();
            for merged in outer.iter() {
                path.extend(merged.iter().filter(|l| own.contains(l)));
            }
            path.iter().enumerate().any(|(a, &l)| {
                path[a + 1..].iter().any(|&inner| {
                    let reads = |b: &Affine| b.coefficient(Variable::Iterator(inner)) != 0;
                    reads(&kernel.loops[l.0].lower) || reads(&kernel.loops[l.0].upper)
                })
            })
        }
        Node::Loop(l) => {
            outer.push(if l.part == Part::Point {
                l.loops.clone()
            } else {
                Vec::new()
            });
            let found = triangular_interchanged(kernel, &l.body, outer);
            outer.pop();
            found
        }
    })
}

/// The interpreter itself can tell illegal loop trees apart.
#[test]
fn the_interpreter_sees_illegal_trees() {
    let source = "double A[8][8];\nvoid kernel(void) {\n  int i, j;\n#pragma scop\n  for (i = 1; i < 6; i++) {\n    for (j = 0; j < 5; j++) {\n      A[i][j] = A[i - 1][j + 1] * 0.5;\n    }\n  }\n#pragma endscop\n}\n";
    let kernel = read_kernel("stencil.c", source).expect("reads");
    let expected = reference(&kernel);
    // Interchanged: the (1, -1) dependence is reversed.
    let statement = Node::Statement(commute_loops::frontend::StatementId(0));
    let point = |l: usize, kind: Kind, body: Vec<Node>| {
        Node::Loop(TreeLoop {
            loops: vec![LoopId(l)],
            statements: Vec::new(),
            part: Part::Point,
            size: 1,
            kind,
            dynamic: false,
            accumulating: Vec::new(),
            packs: Vec::new(),
            body,
        })
    };
    let interchanged = Schedule {
        roots: vec![point(
            1,
            Kind::Sequential,
            vec![point(0, Kind::Sequential, vec![statement.clone()])],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    let memory = run(&kernel, &interchanged, &[], LIMIT).expect("runs");
    assert!(memory != expected, "the interchange must change the result");
    // The outer loop in parallel: its iterations race on A.
    let parallel = Schedule {
        roots: vec![point(
            0,
            Kind::Parallel,
            vec![point(1, Kind::Sequential, vec![statement.clone()])],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    assert!(matches!(
        run(&kernel, &parallel, &[], LIMIT),
        Err(RunError::Race { .. })
    ));
    // The inner loop in parallel is fine.
    let inner = Schedule {
        roots: vec![point(
            0,
            Kind::Sequential,
            vec![point(1, Kind::Parallel, vec![statement])],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    assert_eq!(run(&kernel, &inner, &[], LIMIT).expect("runs"), expected);
}

/// A reduction's instances run in any order; a parallel loop that reduces
/// it does not race on its target, but one where another statement reads
/// the target does.
#[test]
fn the_interpreter_runs_reductions_in_any_order_and_sees_their_races() {
    use commute_loops::frontend::StatementId;
    let source = "double A[8][8], B[8], s;\nvoid kernel(void) {\n  int i, j;\n#pragma scop\n  for (i = 0; i < 6; i++) {\n    for (j = 0; j < 5; j++) {\n      s += A[i][j] * 0.5;\n    }\n    B[i] = s;\n  }\n#pragma endscop\n}\n";
    let kernel = read_kernel("sum.c", source).expect("reads");
    assert!(kernel.reduction(StatementId(0)).is_some());
    assert!(kernel.reduction(StatementId(1)).is_none());
    let expected = reference(&kernel);
    let point = |l: usize, kind: Kind, body: Vec<Node>| {
        Node::Loop(TreeLoop {
            loops: vec![LoopId(l)],
            statements: Vec::new(),
            part: Part::Point,
            size: 1,
            kind,
            dynamic: false,
            accumulating: Vec::new(),
            packs: Vec::new(),
            body,
        })
    };
    let sum = Node::Statement(StatementId(0));
    let copy = Node::Statement(StatementId(1));
    // The inner loop in vector lanes: reduced, the same memory.
    let vector = Schedule {
        roots: vec![point(
            0,
            Kind::Sequential,
            vec![point(1, Kind::Vector, vec![sum.clone()]), copy.clone()],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    assert_eq!(
        reduced(&kernel, vector.loops()[1]),
        vec![StatementId(0)],
        "{}",
        vector.outline(&kernel)
    );
    assert_eq!(run(&kernel, &vector, &[], LIMIT).expect("runs"), expected);
    // Backwards, the sum alone is the same (the order of a reduction's
    // instances does not matter) ...
    let only_sum = |kind: Kind| Schedule {
        roots: vec![point(
            0,
            kind,
            vec![point(1, Kind::Sequential, vec![sum.clone()])],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    let forwards = run(&kernel, &only_sum(Kind::Sequential), &[], LIMIT).expect("runs");
    assert_eq!(
        run(&kernel, &only_sum(Kind::Reverse), &[], LIMIT).expect("runs"),
        forwards
    );
    assert_eq!(
        run(&kernel, &only_sum(Kind::Parallel), &[], LIMIT).expect("runs"),
        forwards
    );
    // ... but with the copy of s in the parallel loop, it races.
    let parallel = Schedule {
        roots: vec![point(
            0,
            Kind::Parallel,
            vec![point(1, Kind::Sequential, vec![sum]), copy],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    assert!(matches!(
        run(&kernel, &parallel, &[], LIMIT),
        Err(RunError::Race { .. })
    ));
}

/// A sequential loop that holds a reduction's element in an accumulator
/// computes the same memory, unless another statement inside it touches
/// the element: that one would see a stale value, an error.
#[test]
fn the_interpreter_checks_that_nothing_else_touches_an_accumulated_element() {
    use commute_loops::frontend::StatementId;
    let source = "double A[8][8], B[8][8], C[8];\nvoid kernel(void) {\n  int i, j;\n#pragma scop\n  for (i = 0; i < 6; i++) {\n    for (j = 0; j < 5; j++) {\n      C[i] += A[i][j] * 0.5;\n      B[i][j] = C[i];\n    }\n  }\n#pragma endscop\n}\n";
    let kernel = read_kernel("accumulate.c", source).expect("reads");
    assert!(kernel.reduction(StatementId(0)).is_some());
    let expected = reference(&kernel);
    let point = |l: usize, accumulating: Vec<StatementId>, body: Vec<Node>| {
        Node::Loop(TreeLoop {
            loops: vec![LoopId(l)],
            statements: Vec::new(),
            part: Part::Point,
            size: 1,
            kind: Kind::Sequential,
            dynamic: false,
            accumulating,
            packs: Vec::new(),
            body,
        })
    };
    let sum = Node::Statement(StatementId(0));
    let copy = Node::Statement(StatementId(1));
    // Distributed, the sum's `j` loop holds C[i] alone: reduced, the same
    // memory as the original's (the copy reads the final sums, as the
    // distribution does without accumulators).
    let distributed = |accumulating: Vec<StatementId>| Schedule {
        roots: vec![point(
            0,
            Vec::new(),
            vec![
                point(1, accumulating, vec![sum.clone()]),
                point(1, Vec::new(), vec![copy.clone()]),
            ],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    let plain = run(&kernel, &distributed(Vec::new()), &[], LIMIT).expect("runs");
    let held = distributed(vec![StatementId(0)]);
    assert_eq!(
        reduced(&kernel, held.loops()[1]),
        vec![StatementId(0)],
        "{}",
        held.outline(&kernel)
    );
    assert_eq!(run(&kernel, &held, &[], LIMIT).expect("runs"), plain);
    // Fused, the copy reads C[i] while the accumulator holds it.
    let fused = Schedule {
        roots: vec![point(
            0,
            Vec::new(),
            vec![point(1, vec![StatementId(0)], vec![sum, copy])],
        )],
        skews: Vec::new(),
        shifts: Vec::new(),
    };
    assert_ne!(plain, expected, "distribution changes what B holds");
    assert!(matches!(
        run(&kernel, &fused, &[], LIMIT),
        Err(RunError::Race { .. })
    ));
}
