//! Why a candidate's output differs from the original program's.
//!
//! The interpreter ([`crate::emit::interpret`]) runs both loop trees at
//! small sizes, with sums whose value does not depend on the order of
//! their terms. Equal there, the candidate differs only by rounding: it
//! reassociates a floating-point sum (splits it across threads, vector
//! lanes or tiles), and the result moved beyond the harness's tolerance
//! (Gram-Schmidt at PolyBench's large size, whose errors grow from one
//! column to the next). Different there, or racing, it breaks a
//! dependence: a legality bug.

use crate::emit::interpret::{run, Element, RunError};
use crate::lowering::schedule::Schedule;
use crate::space::complete::complete_with_original;
use crate::space::host::KernelHost;
use crate::space::LoopCandidate;

/// Sizes given to the kernel's parameters, in turn: small, and distinct
/// so that a transposition shows.
const SIZES: [i64; 4] = [11, 13, 9, 15];

/// Statement instances each run may execute.
const LIMIT: usize = 4_000_000;

/// What the interpreter says of a candidate whose output differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Diagnosis {
    /// It computes what the original does but for the order of sums.
    Rounding,
    /// It computes other values, or races: the reason.
    Illegal(String),
    /// The interpreter could not tell: why.
    Unknown(String),
}

/// Runs the original program's loop tree (`root` completed as the
/// original program decides) and `candidate` in the interpreter and
/// compares what they write.
pub fn diagnose(host: &KernelHost, root: &LoopCandidate, candidate: &Schedule) -> Diagnosis {
    let kernel = host.kernel();
    let original = match complete_with_original(host, root)
        .and_then(|leaf| Schedule::from_candidate(host, &leaf).map_err(|e| e.to_string()))
    {
        Ok(original) => original,
        Err(e) => return Diagnosis::Unknown(format!("the original loop tree: {e}")),
    };
    let params: Vec<i64> = (0..kernel.params.len())
        .map(|p| SIZES[p % SIZES.len()])
        .collect();
    let expected = match run(kernel, &original, &params, LIMIT) {
        Ok(memory) => memory,
        Err(e) => return Diagnosis::Unknown(format!("the original program: {}", describe(&e))),
    };
    let actual = match run(kernel, candidate, &params, LIMIT) {
        Ok(memory) => memory,
        Err(e @ RunError::Race { .. }) => return Diagnosis::Illegal(describe(&e)),
        Err(e) => return Diagnosis::Unknown(describe(&e)),
    };
    let mut differing: Vec<_> = expected
        .iter()
        .filter(|(element, value)| actual.get(*element) != Some(value))
        .map(|(element, _)| element)
        .chain(actual.keys().filter(|e| !expected.contains_key(*e)))
        .collect();
    differing.sort();
    match differing.first() {
        None => Diagnosis::Rounding,
        Some(first) => Diagnosis::Illegal(format!(
            "with {}, {} elements differ, the first {}",
            sizes(&kernel.params, &params),
            differing.len(),
            element_text(first)
        )),
    }
}

fn sizes(names: &[String], values: &[i64]) -> String {
    if names.is_empty() {
        return "the kernel's sizes".to_string();
    }
    names
        .iter()
        .zip(values)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `A[2][3]`.
fn element_text((name, subscripts): &Element) -> String {
    let subscripts: String = subscripts.iter().map(|s| format!("[{s}]")).collect();
    format!("{name}{subscripts}")
}

fn describe(error: &RunError) -> String {
    match error {
        RunError::Race { element, loop_name } => format!(
            "iterations of `{loop_name}` race on {}",
            element_text(element)
        ),
        RunError::TooLong => format!("more than {LIMIT} statement instances"),
        RunError::Unbound(what)
        | RunError::Bounds(what)
        | RunError::OutsideDomain(what)
        | RunError::Unpacked(what) => what.clone(),
    }
}

#[cfg(test)]
mod tests {
    use commute_runtime::Candidate;

    use super::*;
    use crate::frontend::{read_kernel, LoopId};
    use crate::lowering::schedule::{Kind, Node, Part};
    use crate::space::Backbone;

    /// `schedule` with the point loop of `l` running as `kind`.
    fn with_kind(mut schedule: Schedule, l: usize, kind: Kind) -> Schedule {
        fn visit(nodes: &mut [Node], l: usize, kind: Kind) {
            for node in nodes {
                if let Node::Loop(tree_loop) = node {
                    if tree_loop.part == Part::Point && tree_loop.loops.contains(&LoopId(l)) {
                        tree_loop.kind = kind;
                    }
                    visit(&mut tree_loop.body, l, kind);
                }
            }
        }
        visit(&mut schedule.roots, l, kind);
        schedule
    }

    #[test]
    fn reassociated_sums_are_rounding_and_broken_dependences_are_not() {
        let source = "double A[100], B[100], s;\nvoid kernel(int n) {\n  int i;\n#pragma scop\n  for (i = 1; i < n; i++)\n    A[i] = A[i - 1] * 0.5 + B[i];\n  for (i = 0; i < n; i++)\n    s += B[i] * B[i];\n#pragma endscop\n}\n";
        let host = KernelHost::new(read_kernel("kernel.c", source).expect("the kernel reads"));
        let root = Candidate::new_explained(Backbone(host.clone())).expect("a root");
        let leaf = complete_with_original(&host, &root).expect("the original");
        let original = Schedule::from_candidate(&host, &leaf).expect("a loop tree");
        assert_eq!(diagnose(&host, &root, &original), Diagnosis::Rounding);
        // The sum split across threads: its value changes by rounding only.
        let parallel_sum = with_kind(original.clone(), 1, Kind::Parallel);
        assert_ne!(parallel_sum, original);
        assert_eq!(diagnose(&host, &root, &parallel_sum), Diagnosis::Rounding);
        // The recurrence in parallel races; run backwards, it computes
        // other values.
        match diagnose(
            &host,
            &root,
            &with_kind(original.clone(), 0, Kind::Parallel),
        ) {
            Diagnosis::Illegal(why) => assert!(why.contains("race on A["), "{why}"),
            other => panic!("{other:?}"),
        }
        match diagnose(&host, &root, &with_kind(original, 0, Kind::Reverse)) {
            Diagnosis::Illegal(why) => {
                assert!(
                    why.starts_with("with n = 11, 9 elements differ, the first A[2]"),
                    "{why}"
                )
            }
            other => panic!("{other:?}"),
        }
    }
}
