//! Expressions of the region: affine ones (bounds, conditions), subscripts
//! (polynomials, delinearized later), what a right-hand side reads, and
//! `if` conditions as unions of pieces ([`Condition`]).

use tree_sitter::Node;

use super::condition::{Condition, ValueTest};
use super::delinearize::RawAccess;
use super::delinearize::{Polynomial, ProductError};
use super::kernel::{Affine, FrontendError, Gather, Variable};
use super::reader::{Reader, Reading};

impl Reader<'_> {
    /// An affine expression of the enclosing counters and the parameters
    /// (a counting-down loop's iterator is `first - counter`).
    pub(super) fn affine(&mut self, node: Node, construct: &str) -> Result<Affine, FrontendError> {
        let polynomial = self.polynomial(node, construct)?;
        polynomial.to_affine().ok_or_else(|| {
            self.error(
                node,
                construct,
                &format!(
                    "`{}` is not affine: a product of two variables",
                    self.text(node)
                ),
            )
        })
    }

    /// An integer expression whose products may multiply parameters with
    /// a counter or each other (linearized subscripts).
    pub(super) fn polynomial(
        &mut self,
        node: Node,
        construct: &str,
    ) -> Result<Polynomial, FrontendError> {
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
                text.parse::<i64>()
                    .map(|v| Polynomial::from_affine(&Affine::constant(v)))
                    .map_err(|_| not_affine(self, node, "only integer constants"))
            }
            "identifier" => {
                let name = self.text(node).to_string();
                if let Some(&l) = self
                    .iterators
                    .iter()
                    .rev()
                    .find(|l| self.kernel.loops[l.0].iterator == name)
                {
                    let value = self.kernel.loops[l.0].iterator_value(l);
                    return Ok(Polynomial::from_affine(&value));
                }
                if let Some(known) = self.known_scalar(&name) {
                    return Ok(known);
                }
                let index = self.param(&name);
                Ok(Polynomial::from_affine(&Affine::variable(Variable::Param(
                    index,
                ))))
            }
            "parenthesized_expression" => match node.named_child(0) {
                Some(inner) => self.polynomial(inner, construct),
                None => Err(not_affine(self, node, "empty parentheses")),
            },
            "unary_expression" => {
                let operator = self.operator(node);
                let argument = node
                    .child_by_field_name("argument")
                    .ok_or_else(|| not_affine(self, node, "missing operand"))?;
                let value = self.polynomial(argument, construct)?;
                match operator.as_str() {
                    "-" => Polynomial::default()
                        .add(&value, -1)
                        .ok_or_else(|| not_affine(self, node, "overflow")),
                    "+" => Ok(value),
                    _ => Err(not_affine(self, node, &format!("operator `{operator}`"))),
                }
            }
            "binary_expression" => {
                let operator = self.operator(node);
                let (Some(l), Some(r)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return Err(not_affine(self, node, "missing operand"));
                };
                if !["+", "-", "*"].contains(&operator.as_str()) {
                    let why = match self.symbolic_constant(node) {
                        // A quotient of symbolic constants (`LEN_1D/2`,
                        // `n % 4`) is one too: fixed while the nest runs.
                        Ok(name) => {
                            let index = self.param(&name);
                            let param = Affine::variable(Variable::Param(index));
                            return Ok(Polynomial::from_affine(&param));
                        }
                        Err(reason) => reason,
                    };
                    return Err(not_affine(
                        self,
                        node,
                        &format!("operator `{operator}`{why}"),
                    ));
                }
                let left = self.polynomial(l, construct)?;
                let right = self.polynomial(r, construct)?;
                match operator.as_str() {
                    "+" => left.add(&right, 1),
                    "-" => left.add(&right, -1),
                    _ => match left.multiply(&right) {
                        Ok(product) => Some(product),
                        Err(ProductError::Counters) => {
                            return Err(not_affine(self, node, "a product of two variables"))
                        }
                        Err(ProductError::Overflow) => None,
                    },
                }
                .ok_or_else(|| not_affine(self, node, "integer overflow"))
            }
            _ => Err(not_affine(
                self,
                node,
                "only integers, loop iterators, symbolic constants, `+`, `-` and products",
            )),
        }
    }

    /// `node`'s text as the name of a symbolic constant when it is an
    /// integer expression of symbolic constants alone (`LEN_1D/2`): its
    /// tokens without the spaces between them, in brackets so that the
    /// name reads as one value wherever code uses it. Otherwise what it
    /// reads that is not one, for the error (` of the loop iterator `i``).
    pub(super) fn symbolic_constant(&self, node: Node) -> Result<String, String> {
        self.check_integer(node, Reading::SymbolicConstants)?;
        Ok(format!("({})", canonical_text(self.text(node))))
    }

    /// Whether `node` is an integer expression of integer constants and
    /// names the region does not assign (`+`, `-`, `*`, and for
    /// [`Reading::SymbolicConstants`] `/` and `%`), reading also the
    /// iterators and known scalars for [`Reading::Values`]; otherwise
    /// what it reads that it may not, for an error.
    pub(super) fn check_integer(&self, node: Node, reading: Reading) -> Result<(), String> {
        let values = reading == Reading::Values;
        match node.kind() {
            "number_literal" => {
                let text = self.text(node).trim_end_matches(['u', 'U', 'l', 'L']);
                match text.parse::<i64>() {
                    Ok(_) => Ok(()),
                    Err(_) => Err(format!(" of `{}`, not an integer", self.text(node))),
                }
            }
            "identifier" => {
                let name = self.text(node);
                let iterator = self
                    .iterators
                    .iter()
                    .any(|l| self.kernel.loops[l.0].iterator == name);
                if iterator && !values {
                    Err(format!(" of the loop iterator `{name}`"))
                } else if iterator || (values && self.known_scalar(name).is_some()) {
                    Ok(())
                } else if self.written.contains(name) {
                    Err(format!(" of `{name}`, which the loop nest assigns"))
                } else {
                    Ok(())
                }
            }
            "parenthesized_expression" | "unary_expression" | "binary_expression" => {
                let operator = self.operator(node);
                let allowed: &[&str] = match (node.kind(), reading) {
                    ("unary_expression", _) => &["-", "+"],
                    ("binary_expression", Reading::Values) => &["+", "-", "*"],
                    ("binary_expression", Reading::SymbolicConstants) => &["+", "-", "*", "/", "%"],
                    _ => &[],
                };
                if node.kind() != "parenthesized_expression" && !allowed.contains(&&*operator) {
                    return Err(format!(" of operator `{operator}`"));
                }
                let mut cursor = node.walk();
                let operands: Vec<Node> = node.named_children(&mut cursor).collect();
                operands
                    .into_iter()
                    .try_for_each(|o| self.check_integer(o, reading))
            }
            _ => Err(format!(" of `{}`", self.text(node))),
        }
    }

    /// The index of a parameter, added at its first use.
    pub(super) fn param(&mut self, name: &str) -> usize {
        match self.kernel.params.iter().position(|p| p == name) {
            Some(i) => i,
            None => {
                self.kernel.params.push(name.to_string());
                self.kernel.params.len() - 1
            }
        }
    }

    pub(super) fn operator(&self, node: Node) -> String {
        node.child_by_field_name("operator")
            .map(|o| self.text(o).to_string())
            .unwrap_or_default()
    }

    /// An array element `A[i][j + 1]` or a scalar `s`, its subscripts as
    /// polynomials.
    pub(super) fn access(&mut self, node: Node) -> Result<RawAccess, FrontendError> {
        let span = node.byte_range();
        let mut subscripts = Vec::new();
        let mut current = node;
        while current.kind() == "subscript_expression" {
            let index = current
                .child_by_field_name("index")
                .ok_or_else(|| self.error(current, "array subscript", "missing index"))?;
            subscripts.push((
                self.polynomial(index, "array subscript")?,
                index.byte_range(),
            ));
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
        Ok(RawAccess {
            name,
            subscripts,
            span,
        })
    }

    /// Collects the elements and scalars an expression reads.
    pub(super) fn reads(
        &mut self,
        node: Node,
        out: &mut Vec<RawAccess>,
    ) -> Result<(), FrontendError> {
        match node.kind() {
            "number_literal" | "char_literal" | "true" | "false" | "comment" | "null"
            | "string_literal" => Ok(()),
            "identifier" => {
                let name = self.text(node).to_string();
                let is_iterator = self
                    .iterators
                    .iter()
                    .any(|l| self.kernel.loops[l.0].iterator == name);
                if !is_iterator {
                    out.push(RawAccess {
                        name,
                        subscripts: Vec::new(),
                        span: node.byte_range(),
                    });
                }
                Ok(())
            }
            "subscript_expression" => {
                if let Some(scalar) = self.computed_index(node) {
                    let refused = self.error(
                        node,
                        "array subscript",
                        &format!("`{scalar}` is a value the loop nest computes, not affine"),
                    );
                    return self.gather(node, out, refused);
                }
                match self.access(node) {
                    Ok(access) => {
                        out.push(access);
                        Ok(())
                    }
                    Err(refused) => self.gather(node, out, refused),
                }
            }
            // Conditional expressions (`a < b ? a : b`) are pure: the
            // condition and both branches are read.
            "binary_expression"
            | "parenthesized_expression"
            | "unary_expression"
            | "cast_expression"
            | "conditional_expression" => {
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

    /// A scalar the subscripts of `node` read that the nest assigns a value
    /// the front-end does not know as affine (`k` in `b[k]` after `k =
    /// ip[i];`): such a subscript reaches elements no affine form names,
    /// though the scalar would otherwise read as a symbolic constant.
    fn computed_index(&self, node: Node) -> Option<String> {
        fn find(reader: &Reader<'_>, n: Node) -> Option<String> {
            if n.kind() == "identifier" {
                let name = reader.text(n);
                let computed = reader.written.contains(name)
                    && reader.known_scalar(name).is_none()
                    && !reader
                        .iterators
                        .iter()
                        .any(|l| reader.kernel.loops[l.0].iterator == name);
                return computed.then(|| name.to_string());
            }
            let mut cursor = n.walk();
            let children: Vec<Node> = n.named_children(&mut cursor).collect();
            children.into_iter().find_map(|c| find(reader, c))
        }
        let mut current = node;
        while current.kind() == "subscript_expression" {
            if let Some(found) = current
                .child_by_field_name("index")
                .and_then(|index| find(self, index))
            {
                return Some(found);
            }
            current = current.child_by_field_name("argument")?;
        }
        None
    }

    /// A read at a computed subscript (`b[ip[i]]`) of an array the nest
    /// never writes: a [`Gather`], what its subscripts read being read.
    /// Otherwise `refused`, the subscript's error, saying why not.
    fn gather(
        &mut self,
        node: Node,
        out: &mut Vec<RawAccess>,
        refused: FrontendError,
    ) -> Result<(), FrontendError> {
        let mut indices = Vec::new();
        let mut current = node;
        while current.kind() == "subscript_expression" {
            let (Some(index), Some(argument)) = (
                current.child_by_field_name("index"),
                current.child_by_field_name("argument"),
            ) else {
                return Err(refused);
            };
            indices.push(index);
            current = argument;
        }
        if current.kind() != "identifier" {
            return Err(refused);
        }
        let name = self.text(current).to_string();
        if self.written.contains(&name) {
            return Err(FrontendError {
                message: format!(
                    "{}; an array is read at such a subscript only if the loop nest does not write it, and it writes `{name}`",
                    refused.message
                ),
                ..refused
            });
        }
        for index in indices.into_iter().rev() {
            self.reads(index, out)?;
        }
        let span = node.byte_range();
        if !self.kernel.gathers.iter().any(|g| g.span == span) {
            self.kernel.gathers.push(Gather { name, span });
        }
        Ok(())
    }

    /// An `if` condition: affine comparisons (joined by `&&`, `||`, `!`)
    /// become pieces of the statements' domains; anything that reads
    /// values (array elements, scalars the region writes, calls) is a
    /// test of values, kept as C.
    pub(super) fn condition(&mut self, node: Node) -> Result<Condition, FrontendError> {
        let too_many = |reader: &Self| {
            reader.error(
                node,
                "condition",
                &format!(
                    "`{}` splits the statements it guards into more than {} cases",
                    reader.text(node),
                    super::condition::MAX_PIECES
                ),
            )
        };
        match node.kind() {
            "parenthesized_expression" => match node.named_child(0) {
                Some(inner) if inner.kind() != "comment" => self.condition(inner),
                _ => Err(self.unsupported(node)),
            },
            "unary_expression" if self.operator(node) == "!" => {
                let argument = node
                    .child_by_field_name("argument")
                    .ok_or_else(|| self.unsupported(node))?;
                let inner = self.condition(argument)?;
                inner.not().map_err(|_| too_many(self))
            }
            "binary_expression" if matches!(self.operator(node).as_str(), "&&" | "||") => {
                let (Some(l), Some(r)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return Err(self.unsupported(node));
                };
                let left = self.condition(l)?;
                let right = self.condition(r)?;
                if self.operator(node) == "&&" {
                    left.and(&right)
                } else {
                    left.or(&right)
                }
                .map_err(|_| too_many(self))
            }
            "binary_expression" if self.is_affine_comparison(node) => self.comparison(node),
            _ if self.is_affine_syntax(node) => {
                // `if (e)`: e != 0.
                let e = self.affine(node, "condition")?;
                let negative = Condition::at_least_zero(shifted(negated(&e), -1));
                let positive = Condition::at_least_zero(shifted(e, -1));
                negative.or(&positive).map_err(|_| too_many(self))
            }
            _ => {
                let mut reads = Vec::new();
                self.reads(node, &mut reads)?;
                Ok(Condition::test(ValueTest {
                    text: self.text(node).to_string(),
                    reads,
                }))
            }
        }
    }

    fn is_affine_comparison(&self, node: Node) -> bool {
        let comparison = matches!(
            self.operator(node).as_str(),
            "<" | "<=" | ">" | ">=" | "==" | "!="
        );
        let side = |field: &str| {
            node.child_by_field_name(field)
                .is_some_and(|n| self.is_affine_syntax(n))
        };
        comparison && side("left") && side("right")
    }

    /// Whether an expression is affine by its shape: integers, iterators
    /// and names the region does not write, `+`, `-`, and products with a
    /// constant side.
    fn is_affine_syntax(&self, node: Node) -> bool {
        match node.kind() {
            "number_literal" => self
                .text(node)
                .trim_end_matches(['u', 'U', 'l', 'L'])
                .parse::<i64>()
                .is_ok(),
            "identifier" => {
                let name = self.text(node);
                self.iterators
                    .iter()
                    .any(|l| self.kernel.loops[l.0].iterator == name)
                    || !self.written.contains(name)
            }
            "parenthesized_expression" => node
                .named_child(0)
                .is_some_and(|inner| self.is_affine_syntax(inner)),
            "unary_expression" => {
                matches!(self.operator(node).as_str(), "-" | "+")
                    && node
                        .child_by_field_name("argument")
                        .is_some_and(|a| self.is_affine_syntax(a))
            }
            "binary_expression" => {
                let (Some(l), Some(r)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return false;
                };
                let both = self.is_affine_syntax(l) && self.is_affine_syntax(r);
                match self.operator(node).as_str() {
                    "+" | "-" => both,
                    "*" => both && (self.is_constant_syntax(l) || self.is_constant_syntax(r)),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    fn is_constant_syntax(&self, node: Node) -> bool {
        match node.kind() {
            "number_literal" => self.is_affine_syntax(node),
            "parenthesized_expression" | "unary_expression" | "binary_expression" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                self.is_affine_syntax(node) && children.iter().all(|c| self.is_constant_syntax(*c))
            }
            _ => false,
        }
    }

    /// `a op b` for affine sides, as pieces.
    fn comparison(&mut self, node: Node) -> Result<Condition, FrontendError> {
        let (Some(l), Some(r)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            return Err(self.unsupported(node));
        };
        let left = self.affine(l, "condition")?;
        let right = self.affine(r, "condition")?;
        let overflow = |reader: &Self| reader.error(node, "condition", "integer overflow");
        // right - left, and left - right.
        let up = right.clone().add(&left, -1).ok_or_else(|| overflow(self))?;
        let down = left.add(&right, -1).ok_or_else(|| overflow(self))?;
        let condition = match self.operator(node).as_str() {
            "<" => Condition::at_least_zero(shifted(up, -1)),
            "<=" => Condition::at_least_zero(up),
            ">" => Condition::at_least_zero(shifted(down, -1)),
            ">=" => Condition::at_least_zero(down),
            "==" => Condition::at_least_zero(up)
                .and(&Condition::at_least_zero(down))
                .map_err(|_| overflow(self))?,
            _ => Condition::at_least_zero(shifted(up, -1))
                .or(&Condition::at_least_zero(shifted(down, -1)))
                .map_err(|_| overflow(self))?,
        };
        Ok(condition)
    }
}

fn shifted(mut e: Affine, by: i64) -> Affine {
    e.constant += by;
    e
}

fn negated(e: &Affine) -> Affine {
    let mut out = e.clone();
    out.constant = -out.constant;
    for (_, c) in &mut out.terms {
        *c = -*c;
    }
    out
}

/// `text` without the spaces between its tokens (`LEN_1D / 2` and
/// `LEN_1D/2` name one value), but for one between two tokens that would
/// run together (`a - -b`, `x y`).
fn canonical_text(text: &str) -> String {
    let joins = |a: char, b: char| {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        (word(a) && word(b)) || ("+-".contains(a) && "+-".contains(b))
    };
    let mut out = String::new();
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && out.chars().last().is_some_and(|last| joins(last, c)) {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::canonical_text;

    #[test]
    fn names_of_quotients_drop_spaces_between_tokens_but_not_inside_them() {
        assert_eq!(canonical_text("LEN_1D / 2"), "LEN_1D/2");
        assert_eq!(canonical_text(" ( n + 1 ) % 4"), "(n+1)%4");
        assert_eq!(canonical_text("a - -b"), "a- -b");
        assert_eq!(canonical_text("long n / 2"), "long n/2");
    }
}
