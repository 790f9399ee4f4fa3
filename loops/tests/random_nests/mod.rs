//! Random affine loop nests written as C, for property tests: up to three
//! statements assigning array elements or a scalar, in loops whose bounds
//! are constants, an enclosing iterator (triangular nests) or a symbolic
//! size, with affine subscripts; loops may count down or step by more than
//! one, statements may sit
//! under `if` statements with affine conditions (conjunctions, `!=`,
//! `else`), and right-hand sides may be conditional expressions.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// What the nests look like; each probability is that of one draw.
pub struct Style {
    /// Iterator names, outermost first; their number bounds the depth.
    pub iterators: &'static [&'static str],
    pub arrays: &'static [&'static str],
    /// A constant subscript in `0..constants` instead of an iterator.
    pub constant_subscript: f64,
    pub constants: i32,
    /// Subscripts such as `i + j` and `2 * i` besides `i`, `i + 1` and
    /// `i - 1`.
    pub rich_subscripts: bool,
    /// A loop rather than a statement, where one may go.
    pub nest: f64,
    /// A lower bound equal to the enclosing iterator.
    pub lower_outer: f64,
    /// An upper bound of the enclosing iterator plus one.
    pub upper_outer: f64,
    /// An upper bound `n` (the kernel's parameter).
    pub upper_symbolic: f64,
    /// Constant upper bounds are drawn in this range.
    pub extents: (i32, i32),
    /// A loop with the bounds of the previous loop at its depth under the
    /// same parent (a candidate for fusion).
    pub repeat_bounds: f64,
    /// Another top-level nest while there are fewer than 2 statements.
    pub more: f64,
    /// A loop that counts down over the same range.
    pub down: f64,
    /// A loop that steps up by 2 or 3 over the same range, where the
    /// enclosing loops do not change its bounds.
    pub strided: f64,
    /// A statement under an `if` (with an `else` half the time).
    pub guard: f64,
    /// A conditional expression as the right-hand side.
    pub conditional: f64,
    /// The C before the region: declarations and the function's head.
    pub head: &'static str,
}

struct Generator<'a> {
    style: &'a Style,
    rng: StdRng,
    statements: usize,
    /// Per depth, the bounds of the last loop made there under the
    /// current parents.
    siblings: Vec<Option<(String, String)>>,
}

impl Generator<'_> {
    fn subscript(&mut self, around: &[&str]) -> String {
        let style = self.style;
        if around.is_empty() || self.rng.random_bool(style.constant_subscript) {
            return self.rng.random_range(0..style.constants).to_string();
        }
        let pick = |rng: &mut StdRng| around[rng.random_range(0..around.len())];
        let first = pick(&mut self.rng);
        if style.rich_subscripts {
            return match self.rng.random_range(0..6) {
                0 => format!("{first} + {}", pick(&mut self.rng)),
                1 => format!("2 * {first}"),
                2 => format!("{first} + 1"),
                3 => format!("{first} - 1"),
                _ => first.to_string(),
            };
        }
        match self.rng.random_range(-1..=1) {
            0 => first.to_string(),
            offset if offset > 0 => format!("{first} + {offset}"),
            offset => format!("{first} - {}", -offset),
        }
    }

    fn access(&mut self, around: &[&str]) -> String {
        if self.rng.random_bool(0.1) {
            return "s".to_string();
        }
        let array = self.style.arrays[self.rng.random_range(0..self.style.arrays.len())];
        let first = self.subscript(around);
        let second = self.subscript(around);
        format!("{array}[{first}][{second}]")
    }

    fn statement(&mut self, around: &[&str], indent: &str) -> String {
        if !around.is_empty() && draw(self.style.guard, &mut self.rng) {
            let condition = self.condition(around);
            let then = self.assignment(around);
            if self.rng.random_bool(0.5) {
                let otherwise = self.assignment(around);
                return format!(
                    "{indent}if ({condition})\n{indent}  {then}{indent}else\n{indent}  {otherwise}"
                );
            }
            return format!("{indent}if ({condition})\n{indent}  {then}");
        }
        format!("{indent}{}", self.assignment(around))
    }

    /// One assignment statement, its line end included.
    fn assignment(&mut self, around: &[&str]) -> String {
        self.statements += 1;
        let target = self.access(around);
        let op = ["=", "+="][self.rng.random_range(0..2)];
        if draw(self.style.conditional, &mut self.rng) {
            let (a, b, c) = (
                self.access(around),
                self.access(around),
                self.access(around),
            );
            return format!("{target} {op} {a} < {b} ? {c} : {a} * 0.5;\n");
        }
        let reads: Vec<String> = (0..self.rng.random_range(1..=2))
            .map(|_| self.access(around))
            .collect();
        format!("{target} {op} {} * 0.5;\n", reads.join(" + "))
    }

    /// An affine condition on the iterators around.
    fn condition(&mut self, around: &[&str]) -> String {
        let atom = |rng: &mut StdRng| {
            let x = around[rng.random_range(0..around.len())];
            let y = around[rng.random_range(0..around.len())];
            let k = rng.random_range(0..4);
            match rng.random_range(0..6) {
                0 => format!("{x} > {k}"),
                1 => format!("{x} <= {k}"),
                2 if x != y => format!("{x} != {y}"),
                3 if x != y => format!("{x} + {y} < {}", k + 3),
                4 if x != y => format!("{x} >= {y} + {}", k % 2),
                _ => format!("{x} != {k}"),
            }
        };
        let first = atom(&mut self.rng);
        if self.rng.random_bool(0.3) {
            format!("{first} && {}", atom(&mut self.rng))
        } else {
            first
        }
    }

    fn body(&mut self, around: &mut Vec<&'static str>, indent: &str) -> String {
        let mut out = String::new();
        for _ in 0..self.rng.random_range(1..=2) {
            let nested =
                around.len() < self.style.iterators.len() && self.rng.random_bool(self.style.nest);
            if nested && self.statements < 3 {
                out.push_str(&self.nest(around, indent));
            } else if self.statements < 3 || out.is_empty() {
                out.push_str(&self.statement(around, indent));
            }
        }
        out
    }

    fn nest(&mut self, around: &mut Vec<&'static str>, indent: &str) -> String {
        let style = self.style;
        let iterator = style.iterators[around.len()];
        let outer = around.last().copied();
        let depth = around.len();
        self.siblings.resize(depth + 1, None);
        let previous = self.siblings[depth].clone();
        let (lower, upper) = match previous {
            Some(bounds) if draw(style.repeat_bounds, &mut self.rng) => bounds,
            _ => self.bounds(outer),
        };
        self.siblings[depth] = Some((lower.clone(), upper.clone()));
        // The loops inside this one start afresh.
        self.siblings.truncate(depth + 1);
        around.push(iterator);
        let body = self.body(around, &format!("{indent}  "));
        around.pop();
        if draw(style.down, &mut self.rng) {
            return format!("{indent}for ({iterator} = {upper} - 1; {iterator} >= {lower}; {iterator}--) {{\n{body}{indent}}}\n");
        }
        let fixed = outer.is_none_or(|o| !lower.contains(o) && !upper.contains(o));
        if fixed && draw(style.strided, &mut self.rng) {
            let step = self.rng.random_range(2..=3);
            return format!("{indent}for ({iterator} = {lower}; {iterator} < {upper}; {iterator} += {step}) {{\n{body}{indent}}}\n");
        }
        format!("{indent}for ({iterator} = {lower}; {iterator} < {upper}; {iterator}++) {{\n{body}{indent}}}\n")
    }

    /// Fresh bounds for a loop inside `outer`.
    fn bounds(&mut self, outer: Option<&str>) -> (String, String) {
        let style = self.style;
        let lower = match outer {
            Some(outer) if draw(style.lower_outer, &mut self.rng) => outer.to_string(),
            _ => self.rng.random_range(0..=1).to_string(),
        };
        let upper = match outer {
            Some(outer) if draw(style.upper_outer, &mut self.rng) => format!("{outer} + 1"),
            _ if draw(style.upper_symbolic, &mut self.rng) => "n".to_string(),
            _ => self
                .rng
                .random_range(style.extents.0..=style.extents.1)
                .to_string(),
        };
        (lower, upper)
    }
}

/// A draw of probability `p`; none at all for 0, so that styles without a
/// kind of bound keep their sequence of draws.
fn draw(p: f64, rng: &mut StdRng) -> bool {
    p > 0.0 && rng.random_bool(p)
}

/// The C program of a seed.
pub fn program(style: &Style, seed: u64) -> String {
    let mut generator = Generator {
        style,
        rng: StdRng::seed_from_u64(seed),
        statements: 0,
        siblings: Vec::new(),
    };
    let mut region = String::new();
    while region.is_empty() || (generator.statements < 2 && generator.rng.random_bool(style.more)) {
        region.push_str(&generator.nest(&mut Vec::new(), "  "));
    }
    format!(
        "{}\n#pragma scop\n{region}#pragma endscop\n}}\n",
        style.head
    )
}
