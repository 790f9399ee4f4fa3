//! Parsing with tree-sitter's C grammar: finds the region between
//! `#pragma scop` and `#pragma endscop` and reads its loops and
//! assignments into a [`Kernel`].

use std::ops::Range;
use std::path::Path;

use tree_sitter::{Node, Parser};

use super::kernel::{
    line_column, Access, Affine, FrontendError, Kernel, Loop, LoopId, Statement, Variable,
};

/// Reads and parses the C file at `path` (named in errors as given);
/// errors are for people, reading the file's included.
pub fn read_kernel_file(path: &Path) -> Result<Kernel, String> {
    let source = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    read_kernel(&path.display().to_string(), &source).map_err(|e| e.to_string())
}

/// Reads the loop nest of `source` (the text of the file at `path`).
pub fn read_kernel(path: &str, source: &str) -> Result<Kernel, FrontendError> {
    let region = find_region(path, source)?;
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_c::LANGUAGE.into())
        .map_err(|e| FrontendError {
            path: path.into(),
            line: 1,
            column: 1,
            construct: "C parser".into(),
            message: format!("cannot load the C grammar: {e}"),
        })?;
    let tree = parser.parse(source, None).ok_or_else(|| FrontendError {
        path: path.into(),
        line: 1,
        column: 1,
        construct: "C parser".into(),
        message: "the parser gave no tree".into(),
    })?;
    let mut reader = Reader {
        path,
        source,
        kernel: Kernel {
            path: path.into(),
            source: source.into(),
            region: region.clone(),
            params: Vec::new(),
            loops: Vec::new(),
            statements: Vec::new(),
        },
        iterators: Vec::new(),
    };
    let top = region_nodes(tree.root_node(), &region);
    if top.is_empty() {
        return Err(reader.error_at(
            region.start,
            "empty region",
            "nothing between `#pragma scop` and `#pragma endscop`",
        ));
    }
    for node in top {
        reader.statement(node)?;
    }
    if reader.kernel.statements.is_empty() {
        return Err(reader.error_at(region.start, "empty region", "the region has no assignment"));
    }
    reader.check_names()?;
    Ok(reader.kernel)
}

/// The byte range between the `#pragma scop` line and the `#pragma
/// endscop` line.
fn find_region(path: &str, source: &str) -> Result<Range<usize>, FrontendError> {
    let mut offset = 0;
    let mut start = None;
    for line in source.split_inclusive('\n') {
        let words: Vec<&str> = line
            .trim()
            .trim_start_matches('#')
            .split_whitespace()
            .collect();
        let is_pragma = line.trim_start().starts_with('#') && words.first() == Some(&"pragma");
        match (is_pragma, words.get(1).copied(), start) {
            (true, Some("scop"), None) => start = Some(offset + line.len()),
            (true, Some("scop"), Some(_)) => {
                let (line_no, column) = line_column(source, offset);
                return Err(FrontendError {
                    path: path.into(),
                    line: line_no,
                    column,
                    construct: "nested `#pragma scop`".into(),
                    message: "a region is already open; close it with `#pragma endscop` first"
                        .into(),
                });
            }
            (true, Some("endscop"), Some(begin)) => return Ok(begin..offset),
            _ => {}
        }
        offset += line.len();
    }
    let (construct, message) = match start {
        None => ("no region", "the file has no `#pragma scop` ... `#pragma endscop` region around the loop nest to tune"),
        Some(_) => ("unclosed region", "`#pragma scop` has no matching `#pragma endscop`"),
    };
    Err(FrontendError {
        path: path.into(),
        line: 1,
        column: 1,
        construct: construct.into(),
        message: message.into(),
    })
}

/// The outermost nodes that lie inside the region.
fn region_nodes<'t>(node: Node<'t>, region: &Range<usize>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.end_byte() <= region.start || child.start_byte() >= region.end {
            continue;
        }
        if child.start_byte() >= region.start && child.end_byte() <= region.end {
            if child.is_named() && child.kind() != "comment" {
                out.push(child);
            }
        } else {
            out.extend(region_nodes(child, region));
        }
    }
    out
}

struct Reader<'s> {
    path: &'s str,
    source: &'s str,
    kernel: Kernel,
    /// Loops around the current node, outermost first.
    iterators: Vec<LoopId>,
}

impl Reader<'_> {
    fn text(&self, node: Node) -> &str {
        &self.source[node.byte_range()]
    }

    fn error_at(&self, offset: usize, construct: &str, message: &str) -> FrontendError {
        let (line, column) = line_column(self.source, offset);
        FrontendError {
            path: self.path.into(),
            line,
            column,
            construct: construct.into(),
            message: message.into(),
        }
    }

    fn error(&self, node: Node, construct: &str, message: &str) -> FrontendError {
        self.error_at(node.start_byte(), construct, message)
    }

    fn unsupported(&self, node: Node) -> FrontendError {
        let construct = match node.kind() {
            "if_statement" => "if statement",
            "while_statement" => "while loop",
            "do_statement" => "do-while loop",
            "switch_statement" => "switch statement",
            "return_statement" => "return statement",
            "break_statement" => "break statement",
            "continue_statement" => "continue statement",
            "goto_statement" => "goto statement",
            "declaration" => "declaration",
            "call_expression" => "function call",
            "pointer_expression" => "pointer dereference",
            "field_expression" => "structure field",
            "conditional_expression" => "conditional expression",
            "comma_expression" => "comma expression",
            "preproc_call" | "preproc_if" | "preproc_ifdef" => "preprocessor directive",
            "ERROR" => "syntax error",
            other => other,
        };
        let message = if node.kind() == "ERROR" {
            "the C parser cannot read this"
        } else {
            "not supported inside the scop region: only `for` loops and assignments are"
        };
        self.error(node, construct, message)
    }

    /// Bounds and subscripts may only use iterators of enclosing loops and
    /// symbolic constants that the region does not write; a loop's
    /// iterator is not a value outside its loop. Anything else would hide
    /// a dependence.
    fn check_names(&self) -> Result<(), FrontendError> {
        let kernel = &self.kernel;
        for statement in &kernel.statements {
            let write = &statement.write;
            if write.subscripts.is_empty() && kernel.params.contains(&write.name) {
                return Err(self.error_at(
                    write.span.start,
                    "assignment to a symbolic constant",
                    &format!("`{}` is used in loop bounds or subscripts, so it must not change inside the region", write.name),
                ));
            }
            for access in std::iter::once(write).chain(&statement.reads) {
                if !access.subscripts.is_empty() {
                    continue;
                }
                let outside = kernel.loops.iter().enumerate().any(|(l, lp)| {
                    lp.iterator == access.name && !statement.loops.contains(&LoopId(l))
                });
                if outside {
                    return Err(self.error_at(
                        access.span.start,
                        "loop iterator outside its loop",
                        &format!(
                            "`{}` is the iterator of a loop that does not enclose this statement",
                            access.name
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn statement(&mut self, node: Node) -> Result<(), FrontendError> {
        if node.has_error() {
            let bad = first_error(node).unwrap_or(node);
            return Err(self.unsupported(bad));
        }
        match node.kind() {
            "compound_statement" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .collect();
                for child in children {
                    self.statement(child)?;
                }
                Ok(())
            }
            "for_statement" => self.for_loop(node),
            "expression_statement" => {
                let Some(expression) = node.named_child(0) else {
                    return Ok(());
                };
                self.assignment(expression, node)
            }
            "comment" => Ok(()),
            _ => Err(self.unsupported(node)),
        }
    }

    fn for_loop(&mut self, node: Node) -> Result<(), FrontendError> {
        let init = node.child_by_field_name("initializer").ok_or_else(|| {
            self.error(
                node,
                "for loop",
                "a loop needs an initialization `i = lower`",
            )
        })?;
        let (iterator, lower_node) = match init.kind() {
            "assignment_expression"
                if self.text(init.child_by_field_name("operator").unwrap_or(init)) == "=" =>
            {
                let left = init
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "identifier");
                let right = init.child_by_field_name("right");
                match (left, right) {
                    (Some(l), Some(r)) => (self.text(l).to_string(), r),
                    _ => {
                        return Err(self.error(init, "loop initialization", "expected `i = lower`"))
                    }
                }
            }
            "declaration" => {
                let declarator = init
                    .child_by_field_name("declarator")
                    .filter(|d| d.kind() == "init_declarator");
                let name = declarator
                    .and_then(|d| d.child_by_field_name("declarator"))
                    .filter(|n| n.kind() == "identifier");
                let value = declarator.and_then(|d| d.child_by_field_name("value"));
                match (name, value) {
                    (Some(n), Some(v)) => (self.text(n).to_string(), v),
                    _ => {
                        return Err(self.error(
                            init,
                            "loop initialization",
                            "expected `int i = lower`",
                        ))
                    }
                }
            }
            _ => return Err(self.error(init, "loop initialization", "expected `i = lower`")),
        };
        let lower = self.affine(lower_node, "loop bound")?;
        let condition = node
            .child_by_field_name("condition")
            .ok_or_else(|| self.error(node, "for loop", "a loop needs a condition `i < upper`"))?;
        let upper = self.upper_bound(condition, &iterator)?;
        let update = node
            .child_by_field_name("update")
            .ok_or_else(|| self.error(node, "for loop", "a loop needs an increment `i++`"))?;
        self.check_unit_step(update, &iterator)?;
        let id = LoopId(self.kernel.loops.len());
        self.kernel.loops.push(Loop {
            iterator,
            lower,
            upper,
            parent: self.iterators.last().copied(),
            span: node.byte_range(),
        });
        self.iterators.push(id);
        let body = node
            .child_by_field_name("body")
            .ok_or_else(|| self.error(node, "for loop", "a loop needs a body"))?;
        let result = self.statement(body);
        self.iterators.pop();
        result
    }

    fn upper_bound(&mut self, condition: Node, iterator: &str) -> Result<Affine, FrontendError> {
        let construct = "loop condition";
        if condition.kind() != "binary_expression" {
            return Err(self.error(condition, construct, "expected `i < upper` or `i <= upper`"));
        }
        let operator = condition
            .child_by_field_name("operator")
            .map(|o| self.text(o).to_string())
            .unwrap_or_default();
        let left = condition.child_by_field_name("left");
        let right = condition.child_by_field_name("right");
        let (Some(left), Some(right)) = (left, right) else {
            return Err(self.error(condition, construct, "expected `i < upper`"));
        };
        if self.text(left) != iterator {
            return Err(self.error(
                left,
                construct,
                &format!("the condition must test the loop's iterator `{iterator}`"),
            ));
        }
        let bound = self.affine(right, "loop bound")?;
        match operator.as_str() {
            "<" => Ok(bound),
            "<=" => bound
                .add(&Affine::constant(1), 1)
                .ok_or_else(|| self.error(right, "loop bound", "integer overflow")),
            _ => Err(self.error(
                condition,
                construct,
                &format!("`{operator}`: only `<` and `<=` loops (counting up) are supported"),
            )),
        }
    }

    fn check_unit_step(&self, update: Node, iterator: &str) -> Result<(), FrontendError> {
        let text: String = self
            .text(update)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let accepted = [
            format!("{iterator}++"),
            format!("++{iterator}"),
            format!("{iterator}+=1"),
            format!("{iterator}={iterator}+1"),
        ];
        if accepted.contains(&text) {
            Ok(())
        } else {
            Err(self.error(
                update,
                "loop increment",
                &format!(
                    "`{}`: only steps of 1 (`{iterator}++`) are supported",
                    self.text(update)
                ),
            ))
        }
    }

    fn assignment(&mut self, expression: Node, statement: Node) -> Result<(), FrontendError> {
        if expression.kind() != "assignment_expression" {
            return Err(if expression.kind() == "update_expression" {
                self.error(
                    expression,
                    "increment statement",
                    "write `x += 1` rather than `x++` inside the region",
                )
            } else {
                self.unsupported(expression)
            });
        }
        let operator = expression
            .child_by_field_name("operator")
            .map(|o| self.text(o).to_string())
            .unwrap_or_default();
        let (Some(left), Some(right)) = (
            expression.child_by_field_name("left"),
            expression.child_by_field_name("right"),
        ) else {
            return Err(self.error(expression, "assignment", "expected `target = expression`"));
        };
        let write = self.access(left)?;
        let mut reads = Vec::new();
        if operator != "=" {
            if !["+=", "-=", "*=", "/="].contains(&operator.as_str()) {
                return Err(self.error(
                    expression,
                    "assignment",
                    &format!("`{operator}` is not supported; use `=`, `+=`, `-=`, `*=` or `/=`"),
                ));
            }
            reads.push(write.clone());
        }
        self.reads(right, &mut reads)?;
        self.kernel.statements.push(Statement {
            loops: self.iterators.clone(),
            write,
            reads,
            span: statement.byte_range(),
        });
        Ok(())
    }

    /// An array element `A[i][j + 1]` or a scalar `s`.
    fn access(&mut self, node: Node) -> Result<Access, FrontendError> {
        let span = node.byte_range();
        let mut subscripts = Vec::new();
        let mut current = node;
        while current.kind() == "subscript_expression" {
            let index = current
                .child_by_field_name("index")
                .ok_or_else(|| self.error(current, "array subscript", "missing index"))?;
            subscripts.push(self.affine(index, "array subscript")?);
            current = current
                .child_by_field_name("argument")
                .ok_or_else(|| self.error(current, "array subscript", "missing array"))?;
        }
        if current.kind() != "identifier" {
            return Err(self.unsupported(current));
        }
        let name = self.text(current).to_string();
        if self
            .iterators
            .iter()
            .any(|l| self.kernel.loops[l.0].iterator == name)
            && subscripts.is_empty()
        {
            return Err(self.error(
                current,
                "assignment to a loop iterator",
                &format!("`{name}` is the iterator of an enclosing loop"),
            ));
        }
        subscripts.reverse();
        Ok(Access {
            name,
            subscripts,
            span,
        })
    }

    /// Collects the elements and scalars an expression reads.
    fn reads(&mut self, node: Node, out: &mut Vec<Access>) -> Result<(), FrontendError> {
        match node.kind() {
            "number_literal" | "char_literal" | "true" | "false" | "comment" => Ok(()),
            "identifier" => {
                let name = self.text(node).to_string();
                let is_iterator = self
                    .iterators
                    .iter()
                    .any(|l| self.kernel.loops[l.0].iterator == name);
                if !is_iterator {
                    out.push(Access {
                        name,
                        subscripts: Vec::new(),
                        span: node.byte_range(),
                    });
                }
                Ok(())
            }
            "subscript_expression" => {
                let access = self.access(node)?;
                out.push(access);
                Ok(())
            }
            "binary_expression"
            | "parenthesized_expression"
            | "unary_expression"
            | "cast_expression" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    if child.kind() != "type_descriptor" {
                        self.reads(child, out)?;
                    }
                }
                Ok(())
            }
            // Calls of pure functions and macros (`sqrt(x)`, `SCALAR_VAL(2.0)`):
            // their arguments are read.
            "call_expression" => {
                if let Some(arguments) = node.child_by_field_name("arguments") {
                    let mut cursor = arguments.walk();
                    let children: Vec<Node> = arguments.named_children(&mut cursor).collect();
                    for child in children {
                        self.reads(child, out)?;
                    }
                }
                Ok(())
            }
            _ => Err(self.unsupported(node)),
        }
    }

    /// An affine expression of the enclosing iterators and parameters.
    fn affine(&mut self, node: Node, construct: &str) -> Result<Affine, FrontendError> {
        let not_affine = |reader: &Self, n: Node, why: &str| {
            reader.error(
                n,
                construct,
                &format!("`{}` is not affine: {why}", reader.text(n)),
            )
        };
        match node.kind() {
            "number_literal" => {
                let text = self.text(node).trim_end_matches(['u', 'U', 'l', 'L']);
                text.parse::<i64>().map(Affine::constant).map_err(|_| not_affine(self, node, "only integer constants"))
            }
            "identifier" => {
                let name = self.text(node).to_string();
                if let Some(l) = self.iterators.iter().rev().find(|l| self.kernel.loops[l.0].iterator == name) {
                    return Ok(Affine::variable(Variable::Iterator(*l)));
                }
                let index = match self.kernel.params.iter().position(|p| *p == name) {
                    Some(i) => i,
                    None => {
                        self.kernel.params.push(name);
                        self.kernel.params.len() - 1
                    }
                };
                Ok(Affine::variable(Variable::Param(index)))
            }
            "parenthesized_expression" => match node.named_child(0) {
                Some(inner) => self.affine(inner, construct),
                None => Err(not_affine(self, node, "empty parentheses")),
            },
            "unary_expression" => {
                let operator = node.child_by_field_name("operator").map(|o| self.text(o).to_string()).unwrap_or_default();
                let argument = node.child_by_field_name("argument").ok_or_else(|| not_affine(self, node, "missing operand"))?;
                let value = self.affine(argument, construct)?;
                match operator.as_str() {
                    "-" => value.scale(-1).ok_or_else(|| not_affine(self, node, "overflow")),
                    "+" => Ok(value),
                    _ => Err(not_affine(self, node, &format!("operator `{operator}`"))),
                }
            }
            "binary_expression" => {
                let operator = node.child_by_field_name("operator").map(|o| self.text(o).to_string()).unwrap_or_default();
                let (Some(l), Some(r)) = (node.child_by_field_name("left"), node.child_by_field_name("right")) else {
                    return Err(not_affine(self, node, "missing operand"));
                };
                let left = self.affine(l, construct)?;
                let right = self.affine(r, construct)?;
                let result = match operator.as_str() {
                    "+" => left.add(&right, 1),
                    "-" => left.add(&right, -1),
                    "*" => match (left.as_constant(), right.as_constant()) {
                        (Some(c), _) => right.scale(c),
                        (_, Some(c)) => left.scale(c),
                        _ => return Err(not_affine(self, node, "a product of two variables")),
                    },
                    _ => return Err(not_affine(self, node, &format!("operator `{operator}`"))),
                };
                result.ok_or_else(|| not_affine(self, node, "integer overflow"))
            }
            _ => Err(not_affine(self, node, "only integers, loop iterators, symbolic constants, `+`, `-` and products by constants")),
        }
    }
}

fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    children.into_iter().find_map(first_error)
}
