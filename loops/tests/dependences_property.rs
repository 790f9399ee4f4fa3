//! The dependence analysis is sound: on small random affine nests (offset
//! and transposed subscripts, sums of iterators, triangular bounds, a
//! symbolic size, loops counting down, statements under affine `if`
//! conditions and `else`, conditional expressions), every pair of
//! statement instances that touch the same element, one of them writing,
//! found by running the nest for concrete sizes, is covered by a reported
//! dependence with that kind, direction and distance vector.

use std::collections::HashMap;

use commute_loops::analysis::dependences::{dependences, Dependence, Distance, Kind};
use commute_loops::frontend::{read_kernel, Affine, Kernel, LoopId, StatementId, Variable};
use random_nests::Style;

mod random_nests;

/// Nests up to three deep with sums of iterators, doubled iterators,
/// triangular bounds and a symbolic size `n`.
const STYLE: Style = Style {
    iterators: &["i", "j", "k"],
    arrays: &["A", "B"],
    constant_subscript: 0.1,
    constants: 3,
    rich_subscripts: true,
    nest: 0.5,
    lower_outer: 0.25,
    upper_outer: 0.25,
    upper_symbolic: 0.3,
    extents: (3, 5),
    repeat_bounds: 0.4,
    more: 0.6,
    down: 0.3,
    strided: 0.15,
    guard: 0.35,
    conditional: 0.15,
    head: "double A[20][20], B[20][20], s;\nvoid kernel(int n) {\n  int i, j, k;",
};

/// One executed statement instance: the statement and its iterators.
struct Instance {
    statement: usize,
    iterators: HashMap<LoopId, i64>,
}

fn value(affine: &Affine, iterators: &HashMap<LoopId, i64>, size: i64) -> i64 {
    affine.constant
        + affine
            .terms
            .iter()
            .map(|(variable, c)| {
                c * match variable {
                    Variable::Iterator(l) => iterators[l],
                    Variable::Param(_) => size,
                }
            })
            .sum::<i64>()
}

/// The statement instances in execution order, for a value of the size.
fn trace(kernel: &Kernel, size: i64) -> Vec<Instance> {
    fn run(
        kernel: &Kernel,
        parent: Option<LoopId>,
        iterators: &mut HashMap<LoopId, i64>,
        size: i64,
        out: &mut Vec<Instance>,
    ) {
        let mut items: Vec<(usize, Result<LoopId, usize>)> = Vec::new();
        for (l, lp) in kernel.loops.iter().enumerate() {
            if lp.parent == parent {
                items.push((lp.span.start, Ok(LoopId(l))));
            }
        }
        for (s, statement) in kernel.statements.iter().enumerate() {
            if statement.loops.last().copied() == parent {
                items.push((statement.span.start, Err(s)));
            }
        }
        items.sort_by_key(|(start, _)| *start);
        for (_, item) in items {
            match item {
                Ok(l) => {
                    let lp = &kernel.loops[l.0];
                    let (lower, upper) = (
                        value(&lp.lower, iterators, size),
                        value(&lp.upper, iterators, size),
                    );
                    for v in lower..upper {
                        iterators.insert(l, v);
                        run(kernel, Some(l), iterators, size, out);
                    }
                    iterators.remove(&l);
                }
                // An instance runs where the statement's conditions hold.
                Err(s) => {
                    if kernel.statements[s]
                        .guards
                        .iter()
                        .all(|g| value(g, iterators, size) >= 0)
                    {
                        out.push(Instance {
                            statement: s,
                            iterators: iterators.clone(),
                        })
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    run(kernel, None, &mut HashMap::new(), size, &mut out);
    out
}

/// Whether `d` covers the pair of instances `earlier` then `later`, one
/// of whose accesses to `name` gives a dependence of this kind: the
/// distances along the common loops (zero only where the record allows
/// it) and along the record's aligned loops match its own.
fn covers(d: &Dependence, kind: Kind, name: &str, earlier: &Instance, later: &Instance) -> bool {
    if d.kind != kind
        || d.source.0 != earlier.statement
        || d.sink.0 != later.statement
        || d.name != name
    {
        return false;
    }
    let common: Vec<i64> = d
        .loops
        .iter()
        .map(|l| later.iterators[l] - earlier.iterators[l])
        .collect();
    let aligned = d
        .aligned
        .iter()
        .map(|(a, b)| later.iterators[b] - earlier.iterators[a]);
    let actual: Vec<i64> = common.iter().copied().chain(aligned).collect();
    d.distances.len() == actual.len()
        && d.distances.iter().zip(&actual).all(|(d, &v)| match d {
            Distance::Exact(e) => *e == v,
            Distance::Signs(s) => {
                (v < 0 && s.negative) || (v == 0 && s.zero) || (v > 0 && s.positive)
            }
        })
        && (common.iter().any(|&v| v != 0) || d.zero_possible)
}

/// Checks one nest for two sizes; returns the number of instance pairs
/// that depend on each other.
fn check(seed: u64) -> usize {
    let source = random_nests::program(&STYLE, seed);
    let kernel = match read_kernel("random.c", &source) {
        Ok(kernel) => kernel,
        // Conditions that never hold leave nothing to check.
        Err(e) if e.message.contains("ever runs") => return 0,
        Err(e) => panic!("{e}\n{source}"),
    };
    let deps = dependences(&kernel);
    let mut checked = 0;
    for size in [3, 6] {
        let instances = trace(&kernel, size);
        // Every access of an instance: (name, element, is a write).
        let touched: Vec<Vec<(&str, Vec<i64>, bool)>> = instances
            .iter()
            .map(|instance| {
                let statement = &kernel.statements[instance.statement];
                let element = |a: &commute_loops::frontend::Access| {
                    a.subscripts
                        .iter()
                        .map(|s| value(s, &instance.iterators, size))
                        .collect::<Vec<i64>>()
                };
                std::iter::once((
                    statement.write.name.as_str(),
                    element(&statement.write),
                    true,
                ))
                .chain(
                    statement
                        .reads
                        .iter()
                        .map(|r| (r.name.as_str(), element(r), false)),
                )
                .collect()
            })
            .collect();
        for (first, earlier) in instances.iter().enumerate() {
            for (later, second) in instances.iter().enumerate().skip(first + 1) {
                let common = kernel.common_loops(
                    StatementId(earlier.statement),
                    StatementId(second.statement),
                );
                let distances: Vec<i64> = common
                    .iter()
                    .map(|l| second.iterators[l] - earlier.iterators[l])
                    .collect();
                for (n1, e1, w1) in &touched[first] {
                    for (n2, e2, w2) in &touched[later] {
                        if n1 != n2 || e1 != e2 || !(*w1 || *w2) {
                            continue;
                        }
                        let kind = Kind::of(*w1, *w2);
                        checked += 1;
                        assert!(
                            deps.iter().any(|d| covers(d, kind, n1, earlier, second)),
                            "seed {seed}, n = {size}: {kind} S{} -> S{} on {n1} with distances {distances:?} is not reported\n{source}\nreported:\n{}",
                            earlier.statement,
                            second.statement,
                            deps.iter().map(|d| d.display(&kernel)).collect::<Vec<_>>().join("\n")
                        );
                    }
                }
            }
        }
    }
    checked
}

#[test]
fn every_dependence_of_random_nests_is_reported() {
    let cases: u64 = std::env::var("COMMUTE_PROPERTY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let pairs: usize = (0..cases).map(check).sum();
    assert!(
        pairs > 0,
        "no nest had a dependence: the generator is broken"
    );
    eprintln!("{cases} nests, {pairs} dependent instance pairs, all reported");
    // The new constructs are among the nests.
    let mut seen = [0usize; 3];
    for seed in 0..cases {
        let source = random_nests::program(&STYLE, seed);
        let Ok(kernel) = read_kernel("random.c", &source) else {
            continue;
        };
        seen[0] += usize::from(kernel.loops.iter().any(|l| l.is_down()));
        seen[1] += usize::from(kernel.statements.iter().any(|s| !s.guards.is_empty()));
        seen[2] += usize::from(source.contains(" ? "));
    }
    eprintln!(
        "nests with loops counting down, guarded statements, conditional expressions: {seen:?}"
    );
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}
