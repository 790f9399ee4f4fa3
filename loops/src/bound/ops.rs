//! How many floating-point operations every instance of a statement
//! surely executes, whatever the candidate and the compiler (without
//! `-ffast-math`) do with it: the least the bound may count.
//!
//! An arithmetic operator (`+ - * / %`) on a `double` (or `float`) value
//! counts once per instance when its value changes along every loop
//! around the statement: the operands read an iterator of each loop, or
//! an array that some statement inside that loop writes. Any other
//! operation may be hoisted out of a loop and counts nothing. Neither does
//! an operation with a constant operand that may be the identity (a
//! literal 0 or 1, a call of constants such as `SCALAR_VAL(1.0)`, a
//! scalar the kernel only reads, which the compiler may know to be 1):
//! compilers drop `x * 1.0`. A compound assignment's own operation (the
//! `+` of `+=`) counts once per instance under the same rule for its
//! right-hand side's constants: floating-point additions cannot be
//! merged without reassociation. The other operations of a plain
//! assignment count only where no instance's store is overwritten
//! before it is read: the target's subscripts read every loop's
//! iterator, or a statement inside the loop reads the array.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::params::Element;
use crate::frontend::{Kernel, LoopId, StatementId};

/// What an expression is, for counting.
struct Term {
    /// Its type, if it is a floating-point value.
    element: Option<Element>,
    /// The loops of the statement along which its value changes.
    varies: BTreeSet<LoopId>,
    /// Operations counted inside it, per instance.
    operations: f64,
    /// Whether it may be a constant 0 or 1.
    maybe_identity: bool,
}

/// Reads a statement's right-hand side.
pub struct Counter<'a> {
    pub(super) kernel: &'a Kernel,
    pub(super) statement: StatementId,
    /// The element type of each array or scalar name, where known.
    pub(super) types: &'a dyn Fn(&str) -> Option<Element>,
}

impl Counter<'_> {
    /// Operations (in double-precision units: a `float` one counts half)
    /// every instance of the statement surely executes; 0 when the
    /// statement's text cannot be read.
    pub fn operations(&self, root: Node) -> f64 {
        let statement = &self.kernel.statements[self.statement.0];
        let Some(node) = root.descendant_for_byte_range(statement.span.start, statement.span.end)
        else {
            return 0.0;
        };
        let Some(assignment) = find_assignment(node) else {
            return 0.0;
        };
        let operator = assignment
            .child_by_field_name("operator")
            .map(|o| self.text(o))
            .unwrap_or("=");
        let Some(right) = assignment.child_by_field_name("right") else {
            return 0.0;
        };
        let target = (self.types)(&statement.write.name);
        let Some(value) = self.term(right) else {
            return 0.0;
        };
        if operator == "=" {
            let needed = statement.loops.iter().all(|l| {
                statement
                    .write
                    .subscripts
                    .iter()
                    .any(|s| s.coefficient(crate::frontend::Variable::Iterator(*l)) != 0)
                    || self.read_inside(&statement.write.name, *l)
            });
            return if needed { value.operations } else { 0.0 };
        }
        let own = match target {
            Some(element) if !value.maybe_identity => weight(element),
            _ => 0.0,
        };
        // Every instance updates the target, whatever varies.
        value.operations + own
    }

    fn text(&self, node: Node) -> &str {
        &self.kernel.source[node.byte_range()]
    }

    /// Whether some statement inside loop `l` reads `name`.
    fn read_inside(&self, name: &str, l: LoopId) -> bool {
        self.kernel
            .statements
            .iter()
            .any(|s| s.loops.contains(&l) && s.reads.iter().any(|r| r.name == name))
    }

    /// The loops of the statement inside which some statement writes
    /// `name`: along them, what `name` holds may change.
    fn written_in(&self, name: &str) -> BTreeSet<LoopId> {
        let own = &self.kernel.statements[self.statement.0].loops;
        own.iter()
            .copied()
            .filter(|l| {
                self.kernel
                    .statements
                    .iter()
                    .any(|s| s.loops.contains(l) && s.write.name == name)
            })
            .collect()
    }

    /// The loop of the statement whose iterator is `name`.
    fn iterator(&self, name: &str) -> Option<LoopId> {
        self.kernel.statements[self.statement.0]
            .loops
            .iter()
            .copied()
            .find(|l| self.kernel.loops[l.0].iterator == name)
    }

    /// The identifiers of a subtree that are iterators of the statement.
    fn iterators_in(&self, node: Node, out: &mut BTreeSet<LoopId>) {
        if node.kind() == "identifier" {
            out.extend(self.iterator(self.text(node)));
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.iterators_in(child, out);
        }
    }

    fn term(&self, node: Node) -> Option<Term> {
        let constant = |maybe_identity| Term {
            element: None,
            varies: BTreeSet::new(),
            operations: 0.0,
            maybe_identity,
        };
        match node.kind() {
            "number_literal" => {
                let text = self
                    .text(node)
                    .trim_end_matches(['f', 'F', 'l', 'L', 'u', 'U']);
                let is_float = !text.starts_with("0x")
                    && !text.starts_with("0X")
                    && (text.contains('.') || text.contains('e') || text.contains('E'));
                let value: Option<f64> = text.parse().ok();
                Some(Term {
                    element: is_float.then_some(Element::Double),
                    maybe_identity: value.is_none_or(|v| v == 0.0 || v == 1.0),
                    ..constant(false)
                })
            }
            "char_literal" | "true" | "false" => Some(constant(true)),
            "identifier" => {
                let name = self.text(node);
                if let Some(l) = self.iterator(name) {
                    return Some(Term {
                        varies: BTreeSet::from([l]),
                        ..constant(false)
                    });
                }
                let varies = self.written_in(name);
                Some(Term {
                    element: (self.types)(name),
                    // A scalar nothing in the kernel writes may be a known 1.
                    maybe_identity: varies.is_empty(),
                    varies,
                    operations: 0.0,
                })
            }
            "subscript_expression" => {
                let mut array = node;
                let mut varies = BTreeSet::new();
                while array.kind() == "subscript_expression" {
                    if let Some(index) = array.child_by_field_name("index") {
                        self.iterators_in(index, &mut varies);
                    }
                    array = array.child_by_field_name("argument")?;
                }
                let name = self.text(array);
                varies.extend(self.written_in(name));
                Some(Term {
                    element: (self.types)(name),
                    varies,
                    operations: 0.0,
                    maybe_identity: false,
                })
            }
            "parenthesized_expression" => self.term(node.named_child(0)?),
            "cast_expression" => {
                let value = self.term(node.child_by_field_name("value")?)?;
                let cast = node
                    .child_by_field_name("type")
                    .map(|t| self.text(t).trim().to_string())
                    .unwrap_or_default();
                let element = match cast.as_str() {
                    "double" => Some(Element::Double),
                    "float" => Some(Element::Float),
                    _ => None,
                };
                Some(Term { element, ..value })
            }
            "unary_expression" => {
                let operand = self.term(node.child_by_field_name("argument")?)?;
                let operator = node
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                Some(Term {
                    // `-1.0` may be the identity's opposite: still foldable.
                    maybe_identity: operand.maybe_identity,
                    element: if operator == "!" {
                        None
                    } else {
                        operand.element
                    },
                    ..operand
                })
            }
            "call_expression" => {
                let arguments = node.child_by_field_name("arguments")?;
                let mut cursor = arguments.walk();
                let mut terms = Vec::new();
                for child in arguments.named_children(&mut cursor) {
                    terms.push(self.term(child)?);
                }
                let element = terms.iter().find_map(|t| t.element);
                let constant_arguments = terms.iter().all(|t| t.varies.is_empty());
                Some(Term {
                    element,
                    varies: terms
                        .iter()
                        .flat_map(|t| t.varies.iter().copied())
                        .collect(),
                    operations: terms.iter().map(|t| t.operations).sum(),
                    maybe_identity: constant_arguments,
                })
            }
            "binary_expression" => {
                let left = self.term(node.child_by_field_name("left")?)?;
                let right = self.term(node.child_by_field_name("right")?)?;
                let operator = node
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                let element = match (left.element, right.element) {
                    (Some(Element::Double), _) | (_, Some(Element::Double)) => {
                        Some(Element::Double)
                    }
                    (Some(Element::Float), _) | (_, Some(Element::Float)) => Some(Element::Float),
                    _ => None,
                };
                let arithmetic = matches!(operator, "+" | "-" | "*" | "/" | "%");
                let varies: BTreeSet<LoopId> = left.varies.union(&right.varies).copied().collect();
                let every_loop = self.kernel.statements[self.statement.0]
                    .loops
                    .iter()
                    .all(|l| varies.contains(l));
                let counted = match element {
                    Some(element)
                        if arithmetic
                            && every_loop
                            && !left.maybe_identity
                            && !right.maybe_identity =>
                    {
                        weight(element)
                    }
                    _ => 0.0,
                };
                Some(Term {
                    element: if arithmetic { element } else { None },
                    varies,
                    operations: left.operations + right.operations + counted,
                    maybe_identity: left.maybe_identity && right.maybe_identity,
                })
            }
            _ => None,
        }
    }
}

/// Operations of one element type in double-precision units.
fn weight(element: Element) -> f64 {
    match element {
        Element::Double => 1.0,
        Element::Float => 0.5,
    }
}

/// The assignment at or below `node` (the statement's expression).
fn find_assignment(node: Node) -> Option<Node> {
    if node.kind() == "assignment_expression" {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    children.into_iter().find_map(find_assignment)
}
