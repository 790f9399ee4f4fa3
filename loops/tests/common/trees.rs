//! Loop trees built by hand, for the tests that check the emitters and
//! the interpreter on trees the space does not have to offer: builders,
//! the original program's tree, and compiled runs with OpenMP.

use commute_loops::emit::explicit::{explicit_code, reference_code};
use commute_loops::emit::interpret::{run, Memory};
use commute_loops::frontend::{Kernel, LoopId, StatementId};
use commute_loops::lowering::schedule::{Kind, Node, Part, Schedule, TreeLoop};
use commute_loops::space::complete::complete_with_original;
use commute_loops::space::host::KernelHost;
use commute_loops::space::names::apply_named_fixes;
use commute_loops::space::Backbone;
use commute_runtime::Candidate;

/// How many statement instances an interpreter run may execute.
pub const LIMIT: usize = 1_000_000;

pub fn statement(s: usize) -> Node {
    Node::Statement(StatementId(s))
}

/// A loop over the C loops `loops` (several when they are merged), as
/// `part` of them, running as `kind`, static.
pub fn tree_loop(loops: &[usize], part: Part, size: i64, kind: Kind, body: Vec<Node>) -> Node {
    Node::Loop(TreeLoop {
        loops: loops.iter().map(|&l| LoopId(l)).collect(),
        statements: Vec::new(),
        part,
        size,
        kind,
        dynamic: false,
        accumulating: Vec::new(),
        packs: Vec::new(),
        body,
    })
}

/// The node with its (outermost) loop running as `kind`, dynamically
/// scheduled when asked.
pub fn running(node: Node, kind: Kind, dynamic: bool) -> Node {
    match node {
        Node::Loop(l) => Node::Loop(TreeLoop { kind, dynamic, ..l }),
        other => other,
    }
}

/// A tree with no skew and no shift.
pub fn tree(roots: Vec<Node>) -> Schedule {
    Schedule {
        roots,
        skews: Vec::new(),
        shifts: Vec::new(),
    }
}

/// The original program: every loop untiled and sequential, in place.
pub fn original_tree(kernel: &Kernel) -> Schedule {
    fn children(kernel: &Kernel, parent: Option<LoopId>) -> Vec<Node> {
        let mut items: Vec<(usize, Node)> = Vec::new();
        for (l, lp) in kernel.loops.iter().enumerate() {
            if lp.parent == parent {
                let body = children(kernel, Some(LoopId(l)));
                let node = tree_loop(&[l], Part::Point, 1, Kind::Sequential, body);
                items.push((lp.span.start, node));
            }
        }
        for (s, st) in kernel.statements.iter().enumerate() {
            if st.loops.last().copied() == parent {
                items.push((st.span.start, statement(s)));
            }
        }
        items.sort_by_key(|(start, _)| *start);
        items.into_iter().map(|(_, node)| node).collect()
    }
    tree(children(kernel, None))
}

/// The parameters' values, in the kernel's order.
pub fn values(kernel: &Kernel, params: &[(&str, i64)]) -> Vec<i64> {
    kernel
        .params
        .iter()
        .map(|p| {
            params
                .iter()
                .find(|(name, _)| name == p)
                .unwrap_or_else(|| panic!("no value for the parameter {p}"))
                .1
        })
        .collect()
}

/// Compiles a program with OpenMP (`cc -O1`, unknown pragmas an error)
/// and runs it on two threads, in a scratch directory of the test binary
/// `test`: what it printed on stderr.
pub fn openmp_output(test: &str, name: &str, source: &str) -> String {
    let dir = super::scratch(test, name);
    let flags = ["-O1", "-fopenmp", "-Werror=unknown-pragmas"];
    let printed = super::compile_and_run("cc", &flags, 2, &dir, name, source);
    std::fs::remove_dir_all(&dir).ok();
    printed
}

/// What trees are checked against: the original program's memory after
/// the interpreter runs `tree` (the original nesting), and what the
/// original C prints.
pub struct Original {
    pub memory: Memory,
    pub printed: String,
}

impl Original {
    pub fn new(test: &str, name: &str, kernel: &Kernel, tree: &Schedule, values: &[i64]) -> Self {
        let memory = run(kernel, tree, values, LIMIT).expect("the original runs");
        let printed = openmp_output(test, &format!("{name}-original"), &reference_code(kernel));
        assert!(!printed.trim().is_empty(), "the original prints its arrays");
        Original { memory, printed }
    }

    /// Checks the case `case` of the kernel `name`: the interpreter runs
    /// `schedule` (the original instances, no race) to the original
    /// memory, and its explicit C, compiled with OpenMP and run on two
    /// threads, prints the original arrays. Its explicit code.
    pub fn check_explicit(
        &self,
        test: &str,
        (name, case): (&str, &str),
        kernel: &Kernel,
        schedule: &Schedule,
        values: &[i64],
    ) -> String {
        let outline = schedule.outline(kernel);
        let memory = run(kernel, schedule, values, LIMIT)
            .unwrap_or_else(|e| panic!("{name}, {case}: {e:?}\n{outline}"));
        assert!(
            memory == self.memory,
            "{name}, {case}: the interpreter computes other memory\n{outline}"
        );
        let code = explicit_code(kernel, schedule, &[])
            .unwrap_or_else(|e| panic!("{name}, {case}: {e}\n{outline}"));
        let label = format!("{name}-{}", case.replace(' ', "-"));
        assert!(
            openmp_output(test, &label, &code) == self.printed,
            "{name}, {case}: the explicit code prints other arrays\n{outline}\n{code}"
        );
        code
    }
}

/// The loop tree of the candidate `fixes` name (as `--fix` takes them),
/// its other decisions completed as in the original program.
pub fn named(host: &KernelHost, fixes: &[&str]) -> Result<Schedule, String> {
    let mut candidate = Candidate::new(Backbone(host.clone())).map_err(|e| e.to_string())?;
    let fixes: Vec<String> = fixes.iter().map(|f| f.to_string()).collect();
    apply_named_fixes(host, &mut candidate, &fixes).map_err(|e| e.to_string())?;
    let complete = complete_with_original(host, &candidate).map_err(|e| e.to_string())?;
    Schedule::from_candidate(host, &complete).map_err(|e| e.to_string())
}
