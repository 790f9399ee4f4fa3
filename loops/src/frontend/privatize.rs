//! Scalars private to the iterations of a loop: temporaries such as a dot
//! product's `sum` (`sum = 0; for (k ...) sum += ...; C[i][j] = sum;`),
//! which every iteration of `j` assigns before it reads them. Read as one
//! variable, such a scalar carries dependences along every loop around
//! it; with a copy per iteration (OpenMP's `private`) those loops may run
//! in parallel. The space keeps the dependences (they still forbid moving
//! the scalar's statements apart or interleaving the iterations) and lets
//! a loop run in parallel past them ([`Kernel::private_to`]).
//!
//! A loop's iterations start by assigning a scalar when the first of the
//! scalar's accesses inside the loop, in the text, is an assignment that
//! runs once in every iteration (directly in the loop's body, under no
//! `if`) and does not read it. The scalar is private when every statement
//! touching it is inside such a loop (several loop nests may each reset
//! it) and the program does not read it after the region: it is declared
//! in one of the region's blocks, or it is a local of the function (not
//! `static`) named nowhere else in the function outside the region (not
//! even to take its address). A loop may then give each iteration a copy
//! when every statement inside it that touches the scalar is inside one
//! of those loops that is it or inside it.

use std::ops::Range;

use tree_sitter::Node;

use super::kernel::{Kernel, LoopId, PrivateScalar, Statement};

/// The scalars of `kernel` private to loops, in order of first write;
/// `outlives(name)` says whether the program may read a scalar after the
/// region.
pub(crate) fn private_scalars(
    kernel: &Kernel,
    outlives: &dyn Fn(&str) -> bool,
) -> Vec<PrivateScalar> {
    let mut names: Vec<&str> = Vec::new();
    for statement in &kernel.statements {
        let write = &statement.write;
        if write.subscripts.is_empty() && !names.contains(&write.name.as_str()) {
            names.push(&write.name);
        }
    }
    names
        .into_iter()
        .filter(|name| !outlives(name))
        .filter_map(|name| {
            let loops = assigning_loops(kernel, name)?;
            Some(PrivateScalar {
                name: name.to_string(),
                loops,
            })
        })
        .collect()
}

/// The loops whose iterations start by assigning `name` (see
/// [`PrivateScalar::loops`]), when every statement touching it is inside
/// one of them; `None` otherwise (a read may then see a value from
/// outside an iteration).
fn assigning_loops(kernel: &Kernel, name: &str) -> Option<Vec<LoopId>> {
    let touching: Vec<&Statement> = kernel
        .statements
        .iter()
        .filter(|s| s.touches_scalar(name))
        .collect();
    // Statements are in the order they run within one iteration: the
    // first inside a loop runs first in each of its iterations.
    let starts_by_assigning = |l: LoopId| {
        touching
            .iter()
            .find(|s| s.loops.contains(&l))
            .is_some_and(|first| {
                first.loops.last() == Some(&l)
                    && first.guards.is_empty()
                    && first.write.subscripts.is_empty()
                    && first.write.name == name
                    && !first
                        .reads
                        .iter()
                        .any(|a| a.subscripts.is_empty() && a.name == name)
            })
    };
    let mut loops: Vec<LoopId> = Vec::new();
    for statement in &touching {
        let mut found = statement
            .loops
            .iter()
            .copied()
            .filter(|&l| starts_by_assigning(l))
            .peekable();
        found.peek()?;
        for l in found {
            if !loops.contains(&l) {
                loops.push(l);
            }
        }
    }
    loops.sort_by_key(|l| kernel.loops[l.0].span.start);
    (!loops.is_empty()).then_some(loops)
}

/// Whether the program may read scalar `name`, which the region `region`
/// of `function` writes, after the region: unless it is a local of the
/// function (a declaration in its body without `static` or `extern`, or a
/// parameter passed by value) that is named nowhere in the function
/// outside the region but where it is declared, and whose address is
/// never taken. Without a function, it may.
pub(crate) fn outlives_region(
    name: &str,
    function: Option<Node>,
    region: &Range<usize>,
    source: &str,
) -> bool {
    let Some(function) = function else {
        return true;
    };
    let mut local = false;
    let mut named_outside = false;
    let mut address_taken = false;
    visit(function, &mut |node| {
        let text = |n: Node| &source[n.byte_range()];
        match node.kind() {
            "declaration" | "parameter_declaration" => {
                let storage = {
                    let mut cursor = node.walk();
                    let found = node.named_children(&mut cursor).any(|c| {
                        c.kind() == "storage_class_specifier"
                            && matches!(text(c), "static" | "extern")
                    });
                    found
                };
                let mut cursor = node.walk();
                for declarator in node.children_by_field_name("declarator", &mut cursor) {
                    if declared_scalar(declarator).is_some_and(|n| text(n) == name) && !storage {
                        local = true;
                    }
                }
            }
            "pointer_expression" => {
                let operand = node.child_by_field_name("argument");
                let operator = node.child_by_field_name("operator").map(text);
                if operator == Some("&") && operand.is_some_and(|o| text(o) == name) {
                    address_taken = true;
                }
            }
            "identifier" if text(node) == name => {
                let outside = node.end_byte() <= region.start || node.start_byte() >= region.end;
                let declares = node.parent().is_some_and(|p| {
                    matches!(p.kind(), "declaration" | "parameter_declaration")
                        || (p.kind() == "init_declarator"
                            && p.child_by_field_name("declarator") == Some(node))
                });
                if outside && !declares {
                    named_outside = true;
                }
            }
            _ => {}
        }
    });
    !local || named_outside || address_taken
}

/// The identifier a declarator declares when it declares a plain scalar
/// (`x`, `x = e`), not an array, pointer or function.
fn declared_scalar(declarator: Node) -> Option<Node> {
    match declarator.kind() {
        "identifier" => Some(declarator),
        "init_declarator" => declarator
            .child_by_field_name("declarator")
            .filter(|d| d.kind() == "identifier"),
        _ => None,
    }
}

fn visit<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    f(node);
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
    for child in children {
        visit(child, f);
    }
}
