//! The dependence analysis is sound: on small random affine nests (offset
//! and transposed subscripts, sums of iterators, triangular bounds, a
//! symbolic size), every pair of statement instances that touch the same
//! element, one of them writing, found by running the nest for concrete
//! sizes, is covered by a reported dependence with that kind, direction
//! and distance vector.

use std::collections::HashMap;

use commute_spaces::loops::dependences::{dependences, Dependence, Distance, Kind};
use commute_spaces::loops::frontend::{read_kernel, Affine, Kernel, LoopId, Variable};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const ITERATORS: [&str; 3] = ["i", "j", "k"];

struct Generator {
    rng: StdRng,
    statements: usize,
}

impl Generator {
    fn subscript(&mut self, around: &[&str]) -> String {
        if around.is_empty() || self.rng.random_bool(0.1) {
            return self.rng.random_range(0..3).to_string();
        }
        let pick = |rng: &mut StdRng| around[rng.random_range(0..around.len())];
        let first = pick(&mut self.rng);
        match self.rng.random_range(0..6) {
            0 => format!("{first} + {}", pick(&mut self.rng)),
            1 => format!("2 * {first}"),
            2 => format!("{first} + 1"),
            3 => format!("{first} - 1"),
            _ => first.to_string(),
        }
    }

    fn access(&mut self, around: &[&str]) -> String {
        if self.rng.random_bool(0.1) {
            return "s".to_string();
        }
        let array = ["A", "B"][self.rng.random_range(0..2)];
        let first = self.subscript(around);
        let second = self.subscript(around);
        format!("{array}[{first}][{second}]")
    }

    fn statement(&mut self, around: &[&str], indent: &str) -> String {
        self.statements += 1;
        let target = self.access(around);
        let op = ["=", "+="][self.rng.random_range(0..2)];
        let reads: Vec<String> = (0..self.rng.random_range(1..=2))
            .map(|_| self.access(around))
            .collect();
        format!("{indent}{target} {op} {} * 0.5;\n", reads.join(" + "))
    }

    fn body(&mut self, around: &mut Vec<&'static str>, indent: &str) -> String {
        let mut out = String::new();
        for _ in 0..self.rng.random_range(1..=2) {
            let nested = around.len() < ITERATORS.len() && self.rng.random_bool(0.5);
            if nested && self.statements < 3 {
                out.push_str(&self.nest(around, indent));
            } else if self.statements < 3 || out.is_empty() {
                out.push_str(&self.statement(around, indent));
            }
        }
        out
    }

    fn nest(&mut self, around: &mut Vec<&'static str>, indent: &str) -> String {
        let iterator = ITERATORS[around.len()];
        let outer = around.last().copied();
        let lower = match outer {
            Some(outer) if self.rng.random_bool(0.25) => outer.to_string(),
            _ => self.rng.random_range(0..=1).to_string(),
        };
        let upper = match outer {
            Some(outer) if self.rng.random_bool(0.25) => format!("{outer} + 1"),
            _ if self.rng.random_bool(0.3) => "n".to_string(),
            _ => self.rng.random_range(3..=5).to_string(),
        };
        around.push(iterator);
        let body = self.body(around, &format!("{indent}  "));
        around.pop();
        format!("{indent}for ({iterator} = {lower}; {iterator} < {upper}; {iterator}++) {{\n{body}{indent}}}\n")
    }

    fn program(seed: u64) -> String {
        let mut generator = Generator {
            rng: StdRng::seed_from_u64(seed),
            statements: 0,
        };
        let mut region = String::new();
        while region.is_empty() || (generator.statements < 2 && generator.rng.random_bool(0.6)) {
            region.push_str(&generator.nest(&mut Vec::new(), "  "));
        }
        format!(
            "double A[20][20], B[20][20], s;\nvoid kernel(int n) {{\n  int i, j, k;\n#pragma scop\n{region}#pragma endscop\n}}\n"
        )
    }
}

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
                Err(s) => out.push(Instance {
                    statement: s,
                    iterators: iterators.clone(),
                }),
            }
        }
    }
    let mut out = Vec::new();
    run(kernel, None, &mut HashMap::new(), size, &mut out);
    out
}

fn covers(
    d: &Dependence,
    kind: Kind,
    source: usize,
    sink: usize,
    name: &str,
    distances: &[i64],
) -> bool {
    d.kind == kind
        && d.source.0 == source
        && d.sink.0 == sink
        && d.name == name
        && d.distances.len() == distances.len()
        && d.distances.iter().zip(distances).all(|(d, &v)| match d {
            Distance::Exact(e) => *e == v,
            Distance::Signs(s) => {
                (v < 0 && s.negative) || (v == 0 && s.zero) || (v > 0 && s.positive)
            }
        })
        && (distances.iter().any(|&v| v != 0) || d.zero_possible)
}

/// Checks one nest for two sizes; returns the number of instance pairs
/// that depend on each other.
fn check(seed: u64) -> usize {
    let source = Generator::program(seed);
    let kernel = read_kernel("random.c", &source).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let deps = dependences(&kernel);
    let mut checked = 0;
    for size in [3, 6] {
        let instances = trace(&kernel, size);
        // Every access of an instance: (name, element, is a write).
        let touched: Vec<Vec<(&str, Vec<i64>, bool)>> = instances
            .iter()
            .map(|instance| {
                let statement = &kernel.statements[instance.statement];
                let element = |a: &commute_spaces::loops::frontend::Access| {
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
                let (s1, s2) = (
                    &kernel.statements[earlier.statement],
                    &kernel.statements[second.statement],
                );
                let common: Vec<LoopId> = s1
                    .loops
                    .iter()
                    .zip(&s2.loops)
                    .take_while(|(a, b)| a == b)
                    .map(|(a, _)| *a)
                    .collect();
                let distances: Vec<i64> = common
                    .iter()
                    .map(|l| second.iterators[l] - earlier.iterators[l])
                    .collect();
                for (n1, e1, w1) in &touched[first] {
                    for (n2, e2, w2) in &touched[later] {
                        if n1 != n2 || e1 != e2 || !(*w1 || *w2) {
                            continue;
                        }
                        let kind = match (w1, w2) {
                            (true, true) => Kind::Output,
                            (true, false) => Kind::Flow,
                            _ => Kind::Anti,
                        };
                        checked += 1;
                        assert!(
                            deps.iter().any(|d| covers(
                                d,
                                kind,
                                earlier.statement,
                                second.statement,
                                n1,
                                &distances
                            )),
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
}
