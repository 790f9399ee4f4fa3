//! Reading a region of a parsed C file (with tree-sitter's C grammar) into
//! a [`Kernel`]: its loops (counting up or down), `if` statements (their
//! affine conditions become parts of the statements' domains), scalar
//! declarations and assignments (chained ones split).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use tree_sitter::Node;

use super::condition::{Condition, Piece};
use super::context::{aliasing, declared_types, pointers, Pointer};
use super::delinearize::{delinearize, Domain, Polynomial, RawAccess, Refusal};
use super::in_place::{accumulate_in_place, joined_terms, replace_identifier};
use super::kernel::{
    line_column, Access, Affine, Combiner, Direction, FrontendError, Kernel, Linearized,
    LocalScalar, Loop, LoopId, RegionKind, Statement, Update, Variable,
};
use super::privatize::{outlives_region, private_scalars};

/// One assignment of a C statement (a chained assignment gives several).
struct Assignment {
    write: RawAccess,
    reads: Vec<RawAccess>,
    code: String,
    /// The assignment as an associative update of its target, if it is
    /// written as one.
    update: Option<Update>,
}

/// An integer scalar whose value is known where it is read: assigned an
/// expression of the iterators and parameters (`j = i + 1;`, `int idx =
/// i * n + j;`) without a condition, in a block around the read, and not
/// assigned since.
struct KnownScalar {
    name: String,
    value: Polynomial,
    /// The value as C, for the statements that read the scalar: `(i + 1)`,
    /// cast to the scalar's type unless it is `int`.
    text: String,
    /// The block of the assignment: the value is not known past it.
    block: Range<usize>,
}

/// What an integer expression may read (see `Reader::check_integer`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// Constants the nest does not change: a symbolic constant's value.
    SymbolicConstants,
    /// Also the iterators and known scalars: a known scalar's value.
    Values,
}

/// A scalar declared in the region, and where it may be used.
struct Declared {
    local: LocalScalar,
    /// The block it is declared in.
    scope: Range<usize>,
    /// The declaration's start: uses come after it.
    at: usize,
}

pub(crate) struct Reader<'s> {
    pub(super) path: &'s str,
    pub(super) source: &'s str,
    pub(super) kernel: Kernel,
    /// Loops around the current node, outermost first.
    pub(super) iterators: Vec<LoopId>,
    /// Names the region assigns or declares: not symbolic constants.
    pub(super) written: HashSet<String>,
    /// The conditions of the `if` statements around the current node.
    conditions: Vec<Condition>,
    /// The current node is inside an `if` since the innermost loop.
    in_if: bool,
    /// The innermost block around the current node.
    scope: Range<usize>,
    pointers: HashMap<String, Pointer>,
    declared: Vec<Declared>,
    /// Delinearized arrays: their sizes and the first such subscript.
    shapes: HashMap<String, (Vec<usize>, Range<usize>)>,
    /// Assignments read so far (a chained one counts each).
    assignments: usize,
    /// Scalars whose values subscripts, bounds and statements read.
    known: Vec<KnownScalar>,
    /// The types names are declared with (see [`declared_types`]).
    types: HashMap<String, Option<String>>,
}

/// How a nest is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Keep every floating-point sum in the order the source adds its
    /// terms: a scalar accumulator whose sum the source adds to an
    /// element with other terms, or times a factor, stays a scalar
    /// (accumulated in the element, its terms would be added to the
    /// element's value one by one, each times the factor: other
    /// roundings).
    pub sums_in_order: bool,
}

/// Reads the region `region` of `source` (parsed as `root`), inside
/// `function` if it is in one, as `reading` says.
pub(crate) fn read_region(
    path: &str,
    source: &str,
    root: Node,
    region: Range<usize>,
    region_kind: RegionKind,
    function: Option<Node>,
    reading: ReadOptions,
) -> Result<Kernel, FrontendError> {
    let mut reader = Reader {
        path,
        source,
        kernel: Kernel {
            path: path.into(),
            source: source.into(),
            region: region.clone(),
            region_kind,
            params: Vec::new(),
            loops: Vec::new(),
            statements: Vec::new(),
            locals: Vec::new(),
            linearized: Vec::new(),
            aliasing: Vec::new(),
            private_scalars: Vec::new(),
            in_place: Vec::new(),
            gathers: Vec::new(),
        },
        iterators: Vec::new(),
        written: HashSet::new(),
        conditions: Vec::new(),
        in_if: false,
        scope: region.clone(),
        pointers: pointers(root, function, source),
        declared: Vec::new(),
        shapes: HashMap::new(),
        assignments: 0,
        known: Vec::new(),
        types: declared_types(root, function, source),
    };
    let top = region_nodes(root, &region);
    if top.is_empty() {
        return Err(reader.error_at(
            region.start,
            "empty region",
            "nothing between `#pragma scop` and `#pragma endscop`",
        ));
    }
    for node in &top {
        collect_written(*node, source, &mut reader.written);
    }
    for node in top {
        reader.statement(node)?;
    }
    if reader.kernel.statements.is_empty() {
        let message = if reader.assignments > 0 {
            "no assignment of the region ever runs: the conditions around them never hold"
        } else {
            "the region has no assignment"
        };
        return Err(reader.error_at(region.start, "empty region", message));
    }
    reader.check_names()?;
    reader.check_locals()?;
    reader.finish();
    reader.check_gathers()?;
    let mut kernel = reader.kernel;
    kernel.private_scalars = private_scalars(&kernel, &|name| {
        outlives_region(name, function, &region, source)
    });
    accumulate_in_place(
        &mut kernel,
        &declared_types(root, function, source),
        reading.sums_in_order,
    );
    Ok(kernel)
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

/// The names a subtree assigns (the array or scalar of each target) or
/// declares.
fn collect_written(node: Node, source: &str, out: &mut HashSet<String>) {
    let base = |mut n: Node| {
        while n.kind() == "subscript_expression" {
            match n.child_by_field_name("argument") {
                Some(a) => n = a,
                None => break,
            }
        }
        (n.kind() == "identifier").then(|| source[n.byte_range()].to_string())
    };
    match node.kind() {
        "assignment_expression" => {
            if let Some(name) = node.child_by_field_name("left").and_then(base) {
                out.insert(name);
            }
        }
        "update_expression" => {
            if let Some(name) = node.child_by_field_name("argument").and_then(base) {
                out.insert(name);
            }
        }
        "init_declarator" => {
            if let Some(name) = node.child_by_field_name("declarator").and_then(base) {
                out.insert(name);
            }
        }
        "declaration" => {
            let mut cursor = node.walk();
            for declarator in node.children_by_field_name("declarator", &mut cursor) {
                if declarator.kind() == "identifier" {
                    out.insert(source[declarator.byte_range()].to_string());
                }
            }
        }
        _ => {}
    }
    // A loop's own initialization and step assign its iterator, which is
    // no value of the region.
    let header: Vec<usize> = if node.kind() == "for_statement" {
        ["initializer", "update"]
            .iter()
            .filter_map(|f| node.child_by_field_name(f))
            .map(|n| n.id())
            .collect()
    } else {
        Vec::new()
    };
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if !header.contains(&child.id()) {
            collect_written(child, source, out);
        }
    }
}

impl Reader<'_> {
    pub(super) fn text(&self, node: Node) -> &str {
        &self.source[node.byte_range()]
    }

    pub(super) fn error_at(&self, offset: usize, construct: &str, message: &str) -> FrontendError {
        let (line, column) = line_column(self.source, offset);
        FrontendError {
            path: self.path.into(),
            line,
            column,
            construct: construct.into(),
            message: message.into(),
        }
    }

    pub(super) fn error(&self, node: Node, construct: &str, message: &str) -> FrontendError {
        self.error_at(node.start_byte(), construct, message)
    }

    pub(super) fn unsupported(&self, node: Node) -> FrontendError {
        let construct = match node.kind() {
            "if_statement" => "if statement",
            "while_statement" => "while loop",
            "do_statement" => "do-while loop",
            "switch_statement" => "switch statement",
            "return_statement" => "return statement",
            "break_statement" => "break statement",
            "continue_statement" => "continue statement",
            "goto_statement" => "goto statement",
            "labeled_statement" => "label",
            "declaration" => "declaration",
            "call_expression" => "function call",
            "pointer_expression" => "pointer dereference",
            "field_expression" => "structure field",
            "conditional_expression" => "conditional expression",
            "comma_expression" => "comma expression",
            "assignment_expression" => "assignment inside an expression",
            "update_expression" => "increment inside an expression",
            "preproc_call" | "preproc_if" | "preproc_ifdef" => "preprocessor directive",
            "ERROR" => "syntax error",
            other => other,
        };
        let message = if node.kind() == "ERROR" {
            "the C parser cannot read this"
        } else {
            "not supported inside the loop nest: only `for` loops, `if` statements, scalar declarations and assignments are"
        };
        self.error(node, construct, message)
    }

    fn statement(&mut self, node: Node) -> Result<(), FrontendError> {
        if node.has_error() {
            let bad = first_error(node).unwrap_or(node);
            return Err(self.unsupported(bad));
        }
        match node.kind() {
            "compound_statement" => {
                let outer = std::mem::replace(&mut self.scope, node.byte_range());
                let mut cursor = node.walk();
                let children: Vec<Node> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .collect();
                let result = children.into_iter().try_for_each(|c| self.statement(c));
                self.scope = outer;
                self.known.retain(|k| k.block != node.byte_range());
                result
            }
            "for_statement" => self.for_loop(node),
            "if_statement" => self.if_statement(node),
            "expression_statement" => {
                let Some(expression) = node.named_child(0) else {
                    return Ok(());
                };
                let mut chain = match expression.kind() {
                    "assignment_expression" => self.chain(expression)?,
                    "update_expression" => vec![self.increment(expression)?],
                    _ => return Err(self.unsupported(expression)),
                };
                // One assignment runs as written.
                if let [only] = chain.as_mut_slice() {
                    only.code = self.text(node).trim().to_string();
                }
                let assigned = expression.kind() == "assignment_expression"
                    && self.operator(expression) == "=";
                let known = match (chain.as_slice(), expression.child_by_field_name("right")) {
                    ([only], Some(right)) if assigned && only.write.subscripts.is_empty() => {
                        let type_name = self.types.get(&only.write.name).cloned().flatten();
                        self.known_value(&only.write.name, type_name.as_deref(), right)
                    }
                    _ => None,
                };
                self.add_statements(chain, node.byte_range())?;
                self.known.extend(known);
                Ok(())
            }
            "declaration" => self.declaration(node),
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
        let (iterator, first_node) = match init.kind() {
            "assignment_expression" if self.operator(init) == "=" => {
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
        let first = self.affine(first_node, "loop bound")?;
        let condition = node
            .child_by_field_name("condition")
            .ok_or_else(|| self.error(node, "for loop", "a loop needs a condition `i < upper`"))?;
        let (up, end) = self.end_of_loop(condition, &iterator)?;
        let update = node
            .child_by_field_name("update")
            .ok_or_else(|| self.error(node, "for loop", "a loop needs an increment `i++`"))?;
        let step = self.step(update, &iterator)?;
        if (step > 0) != up {
            return Err(self.error(
                update,
                "loop increment",
                &format!(
                    "`{}` goes the other way than the condition `{}`",
                    self.text(update),
                    self.text(condition)
                ),
            ));
        }
        let overflow = |reader: &Self| reader.error(condition, "loop bound", "integer overflow");
        // The iterations a unit step would run: `end - first` going up,
        // `first - end + 1` going down (`end` inclusive).
        let unit_count = |reader: &Self| {
            let count = if up {
                end.clone().add(&first, -1)
            } else {
                first
                    .clone()
                    .add(&end, -1)
                    .and_then(|c| c.add(&Affine::constant(1), 1))
            };
            count.ok_or_else(|| overflow(reader))
        };
        let (lower, upper, direction) = match step {
            1 => (first, end, Direction::Up),
            // A loop counting down, `first` to `end` (inclusive), runs the
            // counter from 0 to `first - end`.
            -1 => (
                Affine::constant(0),
                unit_count(self)?,
                Direction::Down { first },
            ),
            // A longer step runs the counter from 0 to the count of steps,
            // `ceil(count / step)`.
            _ => {
                let count = unit_count(self)?;
                let steps = self.steps(count, step.abs(), condition)?;
                (
                    Affine::constant(0),
                    steps,
                    Direction::Strided { first, step },
                )
            }
        };
        let id = LoopId(self.kernel.loops.len());
        self.kernel.loops.push(Loop {
            iterator,
            lower,
            upper,
            direction,
            parent: self.iterators.last().copied(),
            guarded: self.in_if,
            span: node.byte_range(),
        });
        self.iterators.push(id);
        let body = node
            .child_by_field_name("body")
            .ok_or_else(|| self.error(node, "for loop", "a loop needs a body"))?;
        let in_if = std::mem::replace(&mut self.in_if, false);
        let outer = std::mem::replace(&mut self.scope, node.byte_range());
        let result = self.statement(body);
        self.scope = outer;
        self.known.retain(|k| k.block != node.byte_range());
        self.in_if = in_if;
        self.iterators.pop();
        result
    }

    /// The loop's direction (up: `true`) and its end: one past the last
    /// iteration going up, the last iteration going down.
    fn end_of_loop(
        &mut self,
        condition: Node,
        iterator: &str,
    ) -> Result<(bool, Affine), FrontendError> {
        let construct = "loop condition";
        let expected = "expected `i < upper`, `i <= upper`, `i >= lower` or `i > lower`";
        if condition.kind() != "binary_expression" {
            return Err(self.error(condition, construct, expected));
        }
        let operator = self.operator(condition);
        let (Some(left), Some(right)) = (
            condition.child_by_field_name("left"),
            condition.child_by_field_name("right"),
        ) else {
            return Err(self.error(condition, construct, expected));
        };
        // `i op bound`, or `bound op i` read the other way round.
        let (bound, operator) = if self.text(left) == iterator {
            (right, operator)
        } else if self.text(right) == iterator {
            let flipped = match operator.as_str() {
                "<" => ">",
                "<=" => ">=",
                ">" => "<",
                ">=" => "<=",
                other => other,
            };
            (left, flipped.to_string())
        } else {
            return Err(self.error(
                left,
                construct,
                &format!("the condition must test the loop's iterator `{iterator}`"),
            ));
        };
        let value = self.affine(bound, "loop bound")?;
        let plus_one = |reader: &Self, v: Affine| {
            v.add(&Affine::constant(1), 1)
                .ok_or_else(|| reader.error(bound, "loop bound", "integer overflow"))
        };
        match operator.as_str() {
            "<" => Ok((true, value)),
            "<=" => Ok((true, plus_one(self, value)?)),
            ">=" => Ok((false, value)),
            ">" => Ok((false, plus_one(self, value)?)),
            _ => Err(self.error(condition, construct, &format!("`{operator}`: {expected}"))),
        }
    }

    /// The update's step: `1` for `i++`, `-1` for `i--`, `k` for `i += k`
    /// and `-k` for `i -= k` (`k` an integer constant).
    fn step(&self, update: Node, iterator: &str) -> Result<i64, FrontendError> {
        let text: String = self
            .text(update)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let unit = [
            (format!("{iterator}++"), 1),
            (format!("++{iterator}"), 1),
            (format!("{iterator}--"), -1),
            (format!("--{iterator}"), -1),
        ];
        if let Some((_, step)) = unit.iter().find(|(form, _)| *form == text) {
            return Ok(*step);
        }
        let constant = |t: &str| t.parse::<i64>().ok().filter(|&k| k > 0);
        let step = if let Some(k) = text.strip_prefix(&format!("{iterator}+=")) {
            constant(k)
        } else if let Some(k) = text.strip_prefix(&format!("{iterator}-=")) {
            constant(k).map(|k| -k)
        } else if let Some(rest) = text.strip_prefix(&format!("{iterator}=")) {
            if let Some(k) = rest.strip_prefix(&format!("{iterator}+")) {
                constant(k)
            } else if let Some(k) = rest.strip_prefix(&format!("{iterator}-")) {
                constant(k).map(|k| -k)
            } else {
                rest.strip_suffix(&format!("+{iterator}"))
                    .and_then(constant)
            }
        } else {
            None
        };
        step.ok_or_else(|| {
            self.error(
                update,
                "loop increment",
                &format!(
                    "`{}`: only steps by an integer constant (`{iterator}++`, `{iterator}--`, `{iterator} += 2`) are supported",
                    self.text(update)
                ),
            )
        })
    }

    /// `ceil(count / step)`, the iterations of a loop stepping by `step`
    /// over `count` values: a constant, or, where `count` reads symbolic
    /// constants, the symbolic constant `((count + step - 1)/step)`.
    fn steps(&mut self, count: Affine, step: i64, at: Node) -> Result<Affine, FrontendError> {
        if count.terms.is_empty() {
            let count = count.constant.max(0);
            return Ok(Affine::constant(
                count / step + i64::from(count % step != 0),
            ));
        }
        if count
            .terms
            .iter()
            .any(|(v, _)| matches!(v, Variable::Iterator(_)))
        {
            return Err(self.error(
                at,
                "loop bound",
                &format!(
                    "a loop stepping by {step} must run a number of iterations that no enclosing loop changes"
                ),
            ));
        }
        let rounded = count
            .add(&Affine::constant(step - 1), 1)
            .ok_or_else(|| self.error(at, "loop bound", "integer overflow"))?;
        let name = match self.affine_text(&rounded) {
            word if word.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                format!("({word}/{step})")
            }
            sum => format!("(({sum})/{step})"),
        };
        Ok(Affine::variable(Variable::Param(self.param(&name))))
    }

    /// An affine expression of the parameters as C (`n-1`, `2*(n/2)+1`),
    /// written as [`Reader::symbolic_constant`] names values.
    fn affine_text(&self, value: &Affine) -> String {
        let mut text = String::new();
        for (variable, coefficient) in &value.terms {
            let name = match variable {
                Variable::Param(p) => self.kernel.params[*p].as_str(),
                Variable::Iterator(l) => self.kernel.loops[l.0].iterator.as_str(),
            };
            let sign = if *coefficient < 0 {
                "-"
            } else if text.is_empty() {
                ""
            } else {
                "+"
            };
            text.push_str(sign);
            match coefficient.unsigned_abs() {
                1 => text.push_str(name),
                k => text.push_str(&format!("{k}*{name}")),
            }
        }
        match value.constant {
            0 if !text.is_empty() => {}
            c if c < 0 || text.is_empty() => text.push_str(&c.to_string()),
            c => text.push_str(&format!("+{c}")),
        }
        text
    }

    /// `if (c) ... else ...`: the branches read under the condition and
    /// its negation.
    fn if_statement(&mut self, node: Node) -> Result<(), FrontendError> {
        let condition_node = node
            .child_by_field_name("condition")
            .ok_or_else(|| self.unsupported(node))?;
        let condition = self.condition(condition_node)?;
        if condition.tests_values() {
            if let Some(update) = self.extremum(node)? {
                return self.add_statements(vec![update], node.byte_range());
            }
            if let Some(update) = self.conditional_update(node)? {
                return self.add_statements(vec![update], node.byte_range());
            }
        }
        let statements_before = self.kernel.statements.len();
        let assignments_before = self.assignments;
        let loops_before = self.kernel.loops.len();
        let in_if = std::mem::replace(&mut self.in_if, true);
        let mut result = Ok(());
        if let Some(consequence) = node.child_by_field_name("consequence") {
            self.conditions.push(condition.clone());
            result = self.statement(consequence);
            self.conditions.pop();
        }
        if let (Ok(()), Some(alternative)) = (&result, node.child_by_field_name("alternative")) {
            let negated = condition.not().map_err(|_| {
                self.error(
                    condition_node,
                    "condition",
                    &format!(
                        "the `else` of `{}` has more than {} cases",
                        self.text(condition_node),
                        super::condition::MAX_PIECES
                    ),
                )
            })?;
            self.conditions.push(negated);
            let mut cursor = alternative.walk();
            let branch: Vec<Node> = alternative
                .named_children(&mut cursor)
                .filter(|c| c.kind() != "comment")
                .collect();
            result = branch.into_iter().try_for_each(|b| self.statement(b));
            self.conditions.pop();
        }
        self.in_if = in_if;
        result?;
        // A test of values runs again with every statement it guards: a
        // statement that changes what it reads would change the next
        // one's outcome. One assignment alone is safe.
        if condition.tests_values() {
            let several =
                self.assignments - assignments_before > 1 || self.kernel.loops.len() > loops_before;
            let tested: HashSet<&str> = condition
                .pieces
                .iter()
                .filter_map(|p| p.test.as_ref())
                .flat_map(|t| t.reads.iter().map(|r| r.name.as_str()))
                .collect();
            let changed = self.kernel.statements[statements_before..]
                .iter()
                .find(|s| tested.contains(s.write.name.as_str()));
            if let (true, Some(statement)) = (several, changed) {
                return Err(self.error(
                    condition_node,
                    "condition that reads values",
                    &format!(
                        "`{}` reads `{}`, which a statement it guards writes (line {}): give each assignment its own `if`, or compute the condition into a scalar first",
                        self.text(condition_node),
                        statement.write.name,
                        line_column(self.source, statement.span.start).0
                    ),
                ));
            }
        }
        Ok(())
    }

    /// An `if`/`else if`/`else` chain that tests values and whose every
    /// branch is one assignment to the same target (a clamp: `if (x[i] <
    /// lo) x[i] = lo; else if (x[i] > hi) x[i] = hi;`): one statement,
    /// the chain its code, reading everything the chain reads and its
    /// target (which may keep its value).
    fn conditional_update(&mut self, node: Node) -> Result<Option<Assignment>, FrontendError> {
        let mut conditions = Vec::new();
        let mut branches = Vec::new();
        let mut current = Some(node);
        while let Some(if_node) = current.take() {
            let Some(condition) = if_node.child_by_field_name("condition") else {
                return Ok(None);
            };
            conditions.push(condition);
            let Some(consequence) = if_node.child_by_field_name("consequence") else {
                return Ok(None);
            };
            branches.push(consequence);
            if let Some(alternative) = if_node.child_by_field_name("alternative") {
                let mut cursor = alternative.walk();
                let inner: Vec<Node> = alternative
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .collect();
                match inner.as_slice() {
                    [next] if next.kind() == "if_statement" => current = Some(*next),
                    [last] => branches.push(*last),
                    _ => return Ok(None),
                }
            }
        }
        // One branch alone is an ordinary `if`: its affine part is better
        // read into the domain.
        if branches.len() < 2 {
            return Ok(None);
        }
        let mut assignments = Vec::new();
        for branch in branches {
            match single_assignment(branch) {
                Some(a) => assignments.push(a),
                None => return Ok(None),
            }
        }
        let target_text = |reader: &Self, a: Node| {
            a.child_by_field_name("left").map(|l| {
                reader
                    .text(l)
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
            })
        };
        let first_target = target_text(self, assignments[0]);
        if first_target.is_none()
            || assignments
                .iter()
                .any(|a| target_text(self, *a) != first_target)
        {
            return Ok(None);
        }
        let Some(left) = assignments[0].child_by_field_name("left") else {
            return Ok(None);
        };
        let write = self.access(left)?;
        let mut reads = vec![write.clone()];
        for condition in conditions {
            self.reads(condition, &mut reads)?;
        }
        for assignment in assignments {
            let operator = self.operator(assignment);
            self.check_operator(assignment, &operator)?;
            if let Some(right) = assignment.child_by_field_name("right") {
                self.reads(right, &mut reads)?;
            }
        }
        Ok(Some(Assignment {
            write,
            reads,
            code: self.text(node).to_string(),
            update: None,
        }))
    }

    /// `if (e > x) x = e;` (`>=`, or `x < e`): an update of `x` to the
    /// larger, `Combiner::Max` (the smaller with `<`, `Combiner::Min`),
    /// its operand `e`. No `else`, one assignment.
    fn extremum(&mut self, node: Node) -> Result<Option<Assignment>, FrontendError> {
        let (Some(condition), Some(consequence), None) = (
            node.child_by_field_name("condition"),
            node.child_by_field_name("consequence"),
            node.child_by_field_name("alternative"),
        ) else {
            return Ok(None);
        };
        fn unwrapped(mut node: Node) -> Option<Node> {
            while node.kind() == "parenthesized_expression" {
                node = node.named_child(0)?;
            }
            Some(node)
        }
        let Some(test) = unwrapped(condition) else {
            return Ok(None);
        };
        let Some(assignment) = single_assignment(consequence) else {
            return Ok(None);
        };
        let (Some(a), Some(b), Some(target), Some(value)) = (
            test.child_by_field_name("left").and_then(unwrapped),
            test.child_by_field_name("right").and_then(unwrapped),
            assignment.child_by_field_name("left"),
            assignment.child_by_field_name("right").and_then(unwrapped),
        ) else {
            return Ok(None);
        };
        if test.kind() != "binary_expression" || self.operator(assignment) != "=" {
            return Ok(None);
        }
        let (target_text, value_text) = (compact(self.text(target)), compact(self.text(value)));
        let same = |x: Node, text: &str| compact(self.text(x)) == text;
        // `value OP target`, or `target OP value` read the other way round.
        let larger = match self.operator(test).as_str() {
            ">" | ">=" => true,
            "<" | "<=" => false,
            _ => return Ok(None),
        };
        let combiner = if same(a, &value_text) && same(b, &target_text) {
            if larger {
                Combiner::Max
            } else {
                Combiner::Min
            }
        } else if same(a, &target_text) && same(b, &value_text) {
            if larger {
                Combiner::Min
            } else {
                Combiner::Max
            }
        } else {
            return Ok(None);
        };
        let write = self.access(target)?;
        let mut reads = vec![write.clone()];
        self.reads(value, &mut reads)?;
        Ok(Some(Assignment {
            write,
            reads,
            code: self.text(node).to_string(),
            update: Some(Update {
                combiner,
                negated: false,
                operand: self.text(value).trim().to_string(),
            }),
        }))
    }

    fn check_operator(&self, expression: Node, operator: &str) -> Result<(), FrontendError> {
        if ["=", "+=", "-=", "*=", "/="].contains(&operator) {
            Ok(())
        } else {
            Err(self.error(
                expression,
                "assignment",
                &format!("`{operator}` is not supported; use `=`, `+=`, `-=`, `*=` or `/=`"),
            ))
        }
    }

    /// `x++`, `++x`, `x--` or `--x` as a statement: `x += 1` (`-= 1`).
    fn increment(&mut self, expression: Node) -> Result<Assignment, FrontendError> {
        let target = expression
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(expression))?;
        let write = self.access(target)?;
        let negated = self.operator(expression) == "--";
        Ok(Assignment {
            reads: vec![write.clone()],
            write,
            code: format!("{};", self.text(expression)),
            update: Some(Update {
                combiner: Combiner::Sum,
                negated,
                operand: "1".to_string(),
            }),
        })
    }

    /// An assignment expression as assignments in the order they run: `a
    /// = b = e` is `b = e`, then `a = b`.
    fn chain(&mut self, expression: Node) -> Result<Vec<Assignment>, FrontendError> {
        let operator = self.operator(expression);
        let (Some(left), Some(right)) = (
            expression.child_by_field_name("left"),
            expression.child_by_field_name("right"),
        ) else {
            return Err(self.error(expression, "assignment", "expected `target = expression`"));
        };
        self.check_operator(expression, &operator)?;
        let write = self.access(left)?;
        let mut reads = Vec::new();
        if operator != "=" {
            reads.push(write.clone());
        }
        if right.kind() == "assignment_expression" {
            let mut inner = self.chain(right)?;
            let inner_left = right
                .child_by_field_name("left")
                .ok_or_else(|| self.unsupported(right))?;
            reads.push(self.access(inner_left)?);
            let code = format!("{} {operator} {};", self.text(left), self.text(inner_left));
            inner.push(Assignment {
                write,
                reads,
                code,
                update: None,
            });
            return Ok(inner);
        }
        self.reads(right, &mut reads)?;
        let update = self.update(&operator, left, right);
        Ok(vec![Assignment {
            write,
            reads,
            code: format!("{};", self.text(expression)),
            update,
        }])
    }

    /// `target op= e` (`+=`, `-=`, `*=`), or `target = target op e`
    /// (`op` `+`, `-` or `*`; `e op target` for `+` and `*`), read as an
    /// update of the target by the operand `e`. Whether `e` reads the
    /// target is [`Kernel::reduction`]'s to say.
    fn update(&self, operator: &str, left: Node, right: Node) -> Option<Update> {
        let of = |op: &str, operand: Node| {
            let (combiner, negated) = match op {
                "+" => (Combiner::Sum, false),
                "-" => (Combiner::Sum, true),
                "*" => (Combiner::Product, false),
                _ => return None,
            };
            Some(Update {
                combiner,
                negated,
                operand: self.text(operand).trim().to_string(),
            })
        };
        match operator {
            "+=" | "-=" | "*=" => of(&operator[..1], right),
            "=" if right.kind() == "binary_expression" => {
                let op = self.operator(right);
                let (a, b) = (
                    right.child_by_field_name("left")?,
                    right.child_by_field_name("right")?,
                );
                let target = compact(self.text(left));
                if compact(self.text(a)) == target {
                    of(&op, b)
                } else if compact(self.text(b)) == target && op != "-" {
                    of(&op, a)
                } else {
                    self.sum_update(&target, right)
                }
            }
            _ => None,
        }
    }

    /// `target = a + target - b` (the target added once among the terms
    /// of a sum, `right`): an update by the other terms, `a - b`. The
    /// terms are read from the parse, so the sum is the whole right-hand
    /// side (`target + a > 0 ? ...` is no sum).
    fn sum_update(&self, target: &str, right: Node) -> Option<Update> {
        let mut terms = Vec::new();
        let mut node = right;
        while node.kind() == "binary_expression" && ["+", "-"].contains(&&*self.operator(node)) {
            let negated = self.operator(node) == "-";
            terms.push((negated, node.child_by_field_name("right")?));
            node = node.child_by_field_name("left")?;
        }
        terms.push((false, node));
        terms.reverse();
        let at = terms
            .iter()
            .position(|&(negated, term)| !negated && compact(self.text(term)) == target)?;
        terms.remove(at);
        let terms: Vec<(bool, String)> = terms
            .into_iter()
            .map(|(negated, term)| (negated, self.text(term).trim().to_string()))
            .collect();
        Some(Update {
            combiner: Combiner::Sum,
            negated: false,
            operand: joined_terms(&terms),
        })
    }

    /// A declaration of scalars inside the region: each initialized one
    /// is a statement assigning it.
    fn declaration(&mut self, node: Node) -> Result<(), FrontendError> {
        let mut cursor = node.walk();
        let declarators: Vec<Node> = node
            .children_by_field_name("declarator", &mut cursor)
            .collect();
        let Some(first) = declarators.first() else {
            return Err(self.unsupported(node));
        };
        let prefix = self.source[node.start_byte()..first.start_byte()].to_string();
        let words: Vec<&str> = prefix.split_whitespace().collect();
        let refused = [
            "static",
            "extern",
            "volatile",
            "typedef",
            "_Thread_local",
            "thread_local",
        ];
        if let Some(word) = words.iter().find(|w| refused.contains(w)) {
            return Err(self.error(
                node,
                "declaration",
                &format!("a `{word}` declaration inside the loop nest is not supported; declare it before the nest"),
            ));
        }
        let type_name: Vec<&str> = words
            .iter()
            .copied()
            .filter(|w| !["const", "register", "auto"].contains(w))
            .collect();
        let type_name = type_name.join(" ");
        let mut statements = Vec::new();
        let mut known = Vec::new();
        for declarator in declarators {
            let (name_node, value) = match declarator.kind() {
                "identifier" => (declarator, None),
                "init_declarator" => match (
                    declarator.child_by_field_name("declarator"),
                    declarator.child_by_field_name("value"),
                ) {
                    (Some(n), v) if n.kind() == "identifier" => (n, v),
                    _ => return Err(self.declaration_refused(declarator)),
                },
                _ => return Err(self.declaration_refused(declarator)),
            };
            let name = self.text(name_node).to_string();
            if self.kernel.loops.iter().any(|l| l.iterator == name) {
                return Err(self.error(
                    name_node,
                    "declaration",
                    &format!("`{name}` is also a loop iterator of the nest; rename it"),
                ));
            }
            self.declared.push(Declared {
                local: LocalScalar {
                    name: name.clone(),
                    type_name: type_name.clone(),
                    top_level: self.iterators.is_empty()
                        && self.conditions.is_empty()
                        && self.scope == self.kernel.region,
                },
                scope: self.scope.clone(),
                at: node.start_byte(),
            });
            let Some(value) = value else { continue };
            if value.kind() == "initializer_list" {
                return Err(self.declaration_refused(declarator));
            }
            let write = RawAccess {
                name: name.clone(),
                subscripts: Vec::new(),
                span: name_node.byte_range(),
            };
            if value.kind() == "assignment_expression" {
                let mut inner = self.chain(value)?;
                let inner_left = value
                    .child_by_field_name("left")
                    .ok_or_else(|| self.unsupported(value))?;
                let reads = vec![self.access(inner_left)?];
                let code = format!("{name} = {};", self.text(inner_left));
                inner.push(Assignment {
                    write,
                    reads,
                    code,
                    update: None,
                });
                statements.extend(inner);
            } else {
                let mut reads = Vec::new();
                self.reads(value, &mut reads)?;
                let code = format!("{name} = {};", self.text(value));
                known.extend(self.known_value(&name, Some(&type_name), value));
                statements.push(Assignment {
                    write,
                    reads,
                    code,
                    update: None,
                });
            }
        }
        if statements.is_empty() {
            return Ok(());
        }
        self.add_statements(statements, node.byte_range())?;
        self.known.extend(known);
        Ok(())
    }

    /// `name = value` as a [`KnownScalar`], where `name` has a signed
    /// integer type, no condition guards the assignment within its loop,
    /// and `value` is an integer expression of the iterators, the
    /// parameters and known scalars (no name the region assigns otherwise).
    fn known_value(
        &mut self,
        name: &str,
        type_name: Option<&str>,
        value: Node,
    ) -> Option<KnownScalar> {
        const SIGNED: [&str; 12] = [
            "int",
            "signed",
            "signed int",
            "long",
            "long int",
            "long long",
            "long long int",
            "short",
            "int32_t",
            "int64_t",
            "ptrdiff_t",
            "ssize_t",
        ];
        let type_name = type_name.filter(|t| SIGNED.contains(t))?;
        if self.in_if
            || self.pointers.contains_key(name)
            || self.check_integer(value, Reading::Values).is_err()
        {
            return None;
        }
        let params = self.kernel.params.len();
        let Ok(polynomial) = self.polynomial(value, "value") else {
            self.kernel.params.truncate(params);
            return None;
        };
        let text = self.with_known(self.text(value).trim());
        let text = match type_name {
            "int" => format!("({text})"),
            other => format!("(({other})({text}))"),
        };
        Some(KnownScalar {
            name: name.to_string(),
            value: polynomial,
            text,
            block: self.scope.clone(),
        })
    }

    /// The value of `name` if it is a known scalar here.
    pub(super) fn known_scalar(&self, name: &str) -> Option<Polynomial> {
        self.known
            .iter()
            .rev()
            .find(|k| k.name == name)
            .map(|k| k.value.clone())
    }

    /// `text` with each known scalar it names replaced by its value.
    fn with_known(&self, text: &str) -> String {
        self.known
            .iter()
            .rev()
            .fold(text.to_string(), |text, known| {
                replace_identifier(&text, &known.name, &known.text)
            })
    }

    fn declaration_refused(&self, declarator: Node) -> FrontendError {
        self.error(
            declarator,
            "declaration",
            &format!(
                "`{}`: only scalars (`double s = 0.0;`) may be declared inside the loop nest; declare arrays and pointers before it",
                self.text(declarator)
            ),
        )
    }

    /// The loops' bounds around the current node as constraints `e >= 0`.
    fn loop_constraints(&self) -> Vec<Affine> {
        let mut out = Vec::new();
        for &l in &self.iterators {
            let lp = &self.kernel.loops[l.0];
            let counter = Affine::variable(Variable::Iterator(l));
            if let Some(low) = counter.clone().add(&lp.lower, -1) {
                out.push(low);
            }
            if let Some(high) = lp
                .upper
                .clone()
                .add(&counter, -1)
                .and_then(|h| h.add(&Affine::constant(-1), 1))
            {
                out.push(high);
            }
        }
        out
    }

    /// The pieces of the current node's domain: the conditions around it,
    /// intersected, without the pieces no instance can be in and without
    /// the inequalities the others and the loops' bounds imply.
    fn pieces(&self, at: usize) -> Result<Vec<Piece>, FrontendError> {
        let mut condition = Condition::always();
        for c in &self.conditions {
            condition = condition.and(c).map_err(|_| {
                self.error_at(
                    at,
                    "condition",
                    &format!(
                        "the conditions around this statement split it into more than {} cases",
                        super::condition::MAX_PIECES
                    ),
                )
            })?;
        }
        let bounds = self.loop_constraints();
        let counters: Vec<usize> = self.iterators.iter().map(|l| l.0).collect();
        let mut out = Vec::new();
        for mut piece in condition.pieces {
            let mut all = bounds.clone();
            all.extend(piece.affine.iter().cloned());
            let domain = Domain {
                counters: &counters,
                params: self.kernel.params.len(),
                constraints: &all,
            };
            if domain.implies(&Affine::constant(-1)) {
                continue; // empty
            }
            // Drop what the rest implies, one inequality at a time.
            let mut k = 0;
            while k < piece.affine.len() {
                let mut others = bounds.clone();
                others.extend(
                    piece
                        .affine
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != k)
                        .map(|(_, e)| e.clone()),
                );
                let domain = Domain {
                    counters: &counters,
                    params: self.kernel.params.len(),
                    constraints: &others,
                };
                if domain.implies(&piece.affine[k]) {
                    piece.affine.remove(k);
                } else {
                    k += 1;
                }
            }
            out.push(piece);
        }
        Ok(out)
    }

    /// Adds the statements of one C statement, one per piece of its
    /// domain.
    fn add_statements(
        &mut self,
        assignments: Vec<Assignment>,
        span: Range<usize>,
    ) -> Result<(), FrontendError> {
        self.assignments += assignments.len();
        // What these assign is no longer known; what they read of the
        // others, they read as its value.
        self.known.retain(|k| {
            !assignments
                .iter()
                .any(|a| a.write.subscripts.is_empty() && a.write.name == k.name)
        });
        let pieces = self.pieces(span.start)?;
        let bounds = self.loop_constraints();
        let counters: Vec<usize> = self.iterators.iter().map(|l| l.0).collect();
        for piece in &pieces {
            let mut constraints = bounds.clone();
            constraints.extend(piece.affine.iter().cloned());
            for assignment in &assignments {
                let domain = Domain {
                    counters: &counters,
                    params: self.kernel.params.len(),
                    constraints: &constraints,
                };
                let write = self.resolve(&assignment.write, &domain)?;
                let mut reads = Vec::new();
                for read in &assignment.reads {
                    reads.push(self.resolve(read, &domain)?);
                }
                // An update under a test of values is left sequential.
                let update = match &piece.test {
                    Some(_) => None,
                    None => assignment.update.clone(),
                };
                let code = match &piece.test {
                    Some(test) => {
                        for read in &test.reads {
                            reads.push(self.resolve(read, &domain)?);
                        }
                        // Under a failed test the target keeps its value.
                        if !reads.contains(&write) {
                            reads.push(write.clone());
                        }
                        format!("if ({}) {}", test.text, assignment.code)
                    }
                    None => assignment.code.clone(),
                };
                let code = self.with_known(&code);
                reads.retain(|r| {
                    !(r.subscripts.is_empty() && self.known.iter().any(|k| k.name == r.name))
                });
                self.kernel.statements.push(Statement {
                    loops: self.iterators.clone(),
                    guards: piece.affine.clone(),
                    write,
                    reads,
                    code,
                    update,
                    span: span.clone(),
                });
            }
        }
        Ok(())
    }

    /// An access with its subscripts delinearized where they must be.
    fn resolve(&mut self, raw: &RawAccess, domain: &Domain) -> Result<Access, FrontendError> {
        let affine: Option<Vec<Affine>> =
            raw.subscripts.iter().map(|(p, _)| p.to_affine()).collect();
        if raw.subscripts.len() >= 2 && self.pointers.get(&raw.name) == Some(&Pointer::ToPointers) {
            return Err(self.error_at(
                raw.span.start,
                "pointer to pointers",
                &format!(
                    "`{}` is declared as pointers to rows, which may overlap, so `{}` is not an element of a matrix; use one pointer with linearized subscripts (`{}[i * n + j]`) or an array",
                    raw.name,
                    &self.source[raw.span.clone()],
                    raw.name
                ),
            ));
        }
        if let Some(subscripts) = affine {
            return Ok(Access {
                name: raw.name.clone(),
                subscripts,
                span: raw.span.clone(),
            });
        }
        let [(polynomial, subscript_span)] = raw.subscripts.as_slice() else {
            let (_, span) = raw
                .subscripts
                .iter()
                .find(|(p, _)| p.to_affine().is_none())
                .cloned()
                .unwrap_or_else(|| raw.subscripts[0].clone());
            return Err(self.error_at(
                span.start,
                "array subscript",
                &format!(
                    "`{}` is not affine: a linearized subscript is read only as an array's only subscript",
                    &self.source[span.clone()]
                ),
            ));
        };
        let text = &self.source[subscript_span.clone()];
        let split = delinearize(polynomial, domain).map_err(|refusal| {
            let why = match refusal {
                Refusal::NoSize => {
                    "no parameter is a factor of every product, so no dimension size shows"
                        .to_string()
                }
                Refusal::NotAffine(p) => {
                    format!("the part without `{}` is not affine", self.kernel.params[p])
                }
                Refusal::Unproved { inner, size } => format!(
                    "the loop bounds do not prove 0 <= {} < {} for every instance",
                    inner.display(&self.kernel),
                    self.kernel.params[size]
                ),
            };
            self.error_at(
                subscript_span.start,
                "array subscript",
                &format!("`{text}` is not affine and does not split into dimensions: {why}"),
            )
        })?;
        match self.shapes.get(&raw.name) {
            Some((sizes, first)) if *sizes != split.sizes => {
                let (line, _) = line_column(self.source, first.start);
                return Err(self.error_at(
                    subscript_span.start,
                    "array subscript",
                    &format!(
                        "`{text}` splits `{}` into rows of other sizes than `{}` (line {line})",
                        raw.name,
                        &self.source[first.clone()]
                    ),
                ));
            }
            Some(_) => {}
            None => {
                self.shapes.insert(
                    raw.name.clone(),
                    (split.sizes.clone(), subscript_span.clone()),
                );
            }
        }
        Ok(Access {
            name: raw.name.clone(),
            subscripts: split.subscripts,
            span: raw.span.clone(),
        })
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
                    &format!("`{}` is used in loop bounds, subscripts or conditions, so it must not change inside the loop nest", write.name),
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

    /// A scalar declared in the region is used only in its block, after
    /// its declaration, with one type per name: the explicit code
    /// declares it once at the top of the region.
    fn check_locals(&self) -> Result<(), FrontendError> {
        for declared in &self.declared {
            let local = &declared.local;
            if let Some(other) = self
                .declared
                .iter()
                .find(|d| d.local.name == local.name && d.local.type_name != local.type_name)
            {
                return Err(self.error_at(
                    other.at,
                    "declaration",
                    &format!(
                        "`{}` is declared as `{}` and as `{}` in the loop nest; rename one",
                        local.name, local.type_name, other.local.type_name
                    ),
                ));
            }
            for statement in &self.kernel.statements {
                let uses = std::iter::once(&statement.write)
                    .chain(&statement.reads)
                    .filter(|a| a.subscripts.is_empty() && a.name == local.name)
                    .any(|a| {
                        !self.declared.iter().any(|d| {
                            d.local.name == local.name
                                && d.scope.start <= a.span.start
                                && a.span.end <= d.scope.end
                                && d.at <= a.span.start
                        })
                    });
                if uses {
                    return Err(self.error_at(
                        statement.span.start,
                        "scalar used outside its block",
                        &format!(
                            "`{}` is declared inside the loop nest (line {}) and used where that declaration is not in scope; rename one of them",
                            local.name,
                            line_column(self.source, declared.at).0
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Locals, delinearized arrays and aliasing pairs, from what was read.
    fn finish(&mut self) {
        for declared in &self.declared {
            if !self
                .kernel
                .locals
                .iter()
                .any(|l| l.name == declared.local.name)
            {
                self.kernel.locals.push(declared.local.clone());
            } else if declared.local.top_level {
                if let Some(l) = self
                    .kernel
                    .locals
                    .iter_mut()
                    .find(|l| l.name == declared.local.name)
                {
                    l.top_level = true;
                }
            }
        }
        let mut linearized: Vec<Linearized> = self
            .shapes
            .iter()
            .filter(|(_, (sizes, _))| !sizes.is_empty())
            .map(|(name, (sizes, _))| Linearized {
                name: name.clone(),
                sizes: sizes.clone(),
            })
            .collect();
        linearized.sort_by(|a, b| a.name.cmp(&b.name));
        self.kernel.linearized = linearized;
        let arrays: Vec<String> = self
            .kernel
            .statements
            .iter()
            .flat_map(|s| std::iter::once(&s.write).chain(&s.reads))
            .filter(|a| !a.subscripts.is_empty())
            .map(|a| a.name.clone())
            .chain(self.kernel.gathers.iter().map(|g| g.name.clone()))
            .collect();
        self.kernel.aliasing = aliasing(&arrays, &self.pointers);
    }

    /// No array read at a computed subscript may share memory with one
    /// the nest writes (the array itself was refused as it was read).
    fn check_gathers(&self) -> Result<(), FrontendError> {
        for gather in &self.kernel.gathers {
            let written =
                self.kernel.statements.iter().map(|s| &s.write).find(|w| {
                    !w.subscripts.is_empty() && self.kernel.may_alias(&gather.name, &w.name)
                });
            if let Some(written) = written {
                return Err(self.error_at(
                    gather.span.start,
                    "array subscript",
                    &format!(
                        "`{}` reads `{}` at a subscript that is not affine, and `{}` may share memory with `{}`, which the loop nest writes (a pointer without `restrict`): an array is read at such a subscript only if the loop nest writes nothing it may share memory with",
                        &self.source[gather.span.clone()],
                        gather.name,
                        gather.name,
                        written.name
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The assignment of a branch that is one assignment statement (braces
/// allowed), not chained.
fn single_assignment(branch: Node) -> Option<Node> {
    let statement = if branch.kind() == "compound_statement" {
        let mut cursor = branch.walk();
        let inner: Vec<Node> = branch
            .named_children(&mut cursor)
            .filter(|c| c.kind() != "comment")
            .collect();
        match inner.as_slice() {
            [one] => *one,
            _ => return None,
        }
    } else {
        branch
    };
    let expression = (statement.kind() == "expression_statement")
        .then(|| statement.named_child(0))
        .flatten()?;
    let chained = expression
        .child_by_field_name("right")
        .is_some_and(|r| r.kind() == "assignment_expression");
    (expression.kind() == "assignment_expression" && !chained).then_some(expression)
}

fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    children.into_iter().find_map(first_error)
}

/// C text without white space, to compare two spellings of one access.
fn compact(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}
