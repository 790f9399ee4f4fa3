//! The part of isl's textual notation that Polly writes in its JSCoP
//! files: a map such as
//! `[n] -> { Stmt2[i0, i1] -> [o0, i1, i0 - 32o0] : -31 + i0 <= 32o0 <= i0 }`,
//! read into its pieces, each with its tuples, output expressions and
//! constraints as affine expressions. Anything else (disjunctions,
//! existential blocks, non-affine terms) is an error naming what was met,
//! so that the caller lists the statement as not translated.

use std::collections::BTreeMap;
use std::fmt;

/// A variable of an affine expression: a name (input, output or
/// parameter), or `floor((expr)/d)`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Var {
    Name(String),
    Floor(Box<Affine>, i64),
}

/// `constant + sum(coefficient * variable)`, without zero coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Affine {
    pub constant: i64,
    pub terms: BTreeMap<Var, i64>,
}

impl Affine {
    fn constant(value: i64) -> Affine {
        Affine {
            constant: value,
            terms: BTreeMap::new(),
        }
    }

    fn var(var: Var) -> Affine {
        Affine {
            constant: 0,
            terms: BTreeMap::from([(var, 1)]),
        }
    }

    /// `self + factor * other`.
    fn add_scaled(mut self, other: &Affine, factor: i64) -> Affine {
        self.constant += factor * other.constant;
        for (var, c) in &other.terms {
            let entry = self.terms.entry(var.clone()).or_insert(0);
            *entry += factor * c;
            if *entry == 0 {
                self.terms.remove(var);
            }
        }
        self
    }

    /// The expression's single variable with coefficient 1 and no
    /// constant, if it is just that.
    pub fn as_var(&self) -> Option<&Var> {
        match (self.constant, self.terms.len()) {
            (0, 1) => self
                .terms
                .iter()
                .next()
                .filter(|(_, &c)| c == 1)
                .map(|(v, _)| v),
            _ => None,
        }
    }

    /// The coefficient of a named variable (0 when absent).
    #[cfg(test)]
    pub fn coefficient(&self, name: &str) -> i64 {
        self.terms
            .get(&Var::Name(name.to_string()))
            .copied()
            .unwrap_or(0)
    }
}

impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (var, &c) in &self.terms {
            let name = match var {
                Var::Name(n) => n.clone(),
                Var::Floor(inner, d) => format!("floor(({inner})/{d})"),
            };
            let sign = if c < 0 { "-" } else { "+" };
            let magnitude = c.abs();
            let scaled = if magnitude == 1 {
                name
            } else {
                format!("{magnitude}{name}")
            };
            match (first, c < 0) {
                (true, false) => write!(f, "{scaled}")?,
                (true, true) => write!(f, "-{scaled}")?,
                _ => write!(f, " {sign} {scaled}")?,
            }
            first = false;
        }
        if first {
            write!(f, "{}", self.constant)
        } else if self.constant != 0 {
            let sign = if self.constant < 0 { "-" } else { "+" };
            write!(f, " {sign} {}", self.constant.abs())
        } else {
            Ok(())
        }
    }
}

/// A constraint of a piece, normalized: `expr >= 0` or `expr = 0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub expr: Affine,
    pub equality: bool,
}

/// One piece of a map: `Name[inputs] -> [outputs] : constraints` (a set's
/// piece has no outputs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The input tuple's name (`Stmt2`).
    pub name: String,
    /// The input tuple's variables.
    pub inputs: Vec<String>,
    /// The output tuple's name (`MemRef0` for an access), if any.
    pub output_name: Option<String>,
    /// The output tuple's entries.
    pub outputs: Vec<Affine>,
    pub constraints: Vec<Constraint>,
}

/// A map or set: its parameters and pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    pub params: Vec<String>,
    pub pieces: Vec<Piece>,
}

/// Reads a map (`{ A[i] -> [i] }`) or a set (`{ A[i] : 0 <= i }`).
pub fn parse(text: &str) -> Result<Map, String> {
    let mut parser = Parser {
        tokens: tokenize(text)?,
        at: 0,
    };
    let map = parser.map()?;
    match parser.peek() {
        None => Ok(map),
        Some(token) => Err(format!("unexpected `{token}` after the map")),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Number(i64),
    Ident(String),
    Symbol(&'static str),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Number(n) => write!(f, "{n}"),
            Token::Ident(s) => write!(f, "{s}"),
            Token::Symbol(s) => write!(f, "{s}"),
        }
    }
}

const SYMBOLS: [&str; 16] = [
    "->", "<=", ">=", "{", "}", "[", "]", "(", ")", ",", ":", ";", "+", "-", "*", "/",
];

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let value = text[start..i]
                .parse()
                .map_err(|_| format!("number `{}` out of range", &text[start..i]))?;
            tokens.push(Token::Number(value));
        } else if c.is_ascii_alphabetic() || c == '_' || c == '%' || c == '.' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'%' | b'.'))
            {
                i += 1;
            }
            tokens.push(Token::Ident(text[start..i].to_string()));
        } else if let Some(symbol) = SYMBOLS.iter().find(|s| text[i..].starts_with(**s)) {
            tokens.push(Token::Symbol(symbol));
            i += symbol.len();
        } else if c == '<' || c == '>' || c == '=' {
            tokens.push(Token::Symbol(match c {
                '<' => "<",
                '>' => ">",
                _ => "=",
            }));
            i += 1;
        } else {
            return Err(format!("unexpected character `{c}`"));
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn is(&self, symbol: &str) -> bool {
        matches!(self.peek(), Some(Token::Symbol(s)) if *s == symbol)
    }

    fn eat(&mut self, symbol: &str) -> bool {
        let found = self.is(symbol);
        if found {
            self.at += 1;
        }
        found
    }

    fn expect(&mut self, symbol: &str) -> Result<(), String> {
        if self.eat(symbol) {
            Ok(())
        } else {
            Err(match self.peek() {
                Some(token) => format!("expected `{symbol}`, found `{token}`"),
                None => format!("expected `{symbol}` at the end"),
            })
        }
    }

    fn ident(&mut self) -> Result<String, String> {
        match self.peek().cloned() {
            Some(Token::Ident(name)) => {
                self.at += 1;
                Ok(name)
            }
            Some(token) => Err(format!("expected a name, found `{token}`")),
            None => Err("expected a name at the end".to_string()),
        }
    }

    fn map(&mut self) -> Result<Map, String> {
        let mut params = Vec::new();
        if self.eat("[") {
            while !self.eat("]") {
                params.push(self.ident()?);
                self.eat(",");
            }
            self.expect("->")?;
        }
        self.expect("{")?;
        let mut pieces = Vec::new();
        while !self.eat("}") {
            if self.eat(":") {
                // A set without tuple (`{ : }`, a context): no piece.
                while !self.is("}") && self.peek().is_some() {
                    self.at += 1;
                }
                continue;
            }
            pieces.push(self.piece()?);
            if !self.eat(";") && !self.is("}") {
                return Err(match self.peek() {
                    Some(token) => format!("unexpected `{token}`"),
                    None => "the map is not closed".to_string(),
                });
            }
        }
        Ok(Map { params, pieces })
    }

    fn piece(&mut self) -> Result<Piece, String> {
        let name = self.ident()?;
        let inputs = self.tuple_names()?;
        let (output_name, outputs) = if self.eat("->") {
            let output_name = match self.peek() {
                Some(Token::Ident(_)) => Some(self.ident()?),
                _ => None,
            };
            self.expect("[")?;
            let mut outputs = Vec::new();
            while !self.eat("]") {
                outputs.push(self.expr()?);
                if !self.eat(",") && !self.is("]") {
                    return Err("expected `,` or `]` in the output tuple".to_string());
                }
            }
            (output_name, outputs)
        } else {
            (None, Vec::new())
        };
        let mut constraints = Vec::new();
        if self.eat(":") {
            loop {
                self.chain(&mut constraints)?;
                match self.peek() {
                    Some(Token::Ident(word)) if word == "and" => self.at += 1,
                    Some(Token::Ident(word)) => {
                        return Err(format!("`{word}` in constraints is not read"))
                    }
                    _ => break,
                }
            }
        }
        Ok(Piece {
            name,
            inputs,
            output_name,
            outputs,
            constraints,
        })
    }

    /// A tuple's variables; a fixed entry (`S[0, i1]`, a loop that runs
    /// once) gets a name of its own (`_0`), so that positions stay.
    fn tuple_names(&mut self) -> Result<Vec<String>, String> {
        self.expect("[")?;
        let mut names = Vec::new();
        while !self.eat("]") {
            if let Some(Token::Number(n)) = self.peek().cloned() {
                self.at += 1;
                names.push(format!("_{n}"));
            } else {
                names.push(self.ident()?);
            }
            if !self.eat(",") && !self.is("]") {
                return Err("expected `,` or `]` in a tuple".to_string());
            }
        }
        Ok(names)
    }

    /// `e1 op e2 op e3 ...`, each adjacent pair a constraint.
    fn chain(&mut self, out: &mut Vec<Constraint>) -> Result<(), String> {
        let mut left = self.expr()?;
        let mut any = false;
        while let Some(Token::Symbol(op)) = self.peek().cloned() {
            if !matches!(op, "<=" | "<" | ">=" | ">" | "=") {
                break;
            }
            self.at += 1;
            let right = self.expr()?;
            let (expr, equality) = match op {
                "<=" => (right.clone().add_scaled(&left, -1), false),
                "<" => (
                    right
                        .clone()
                        .add_scaled(&left, -1)
                        .add_scaled(&Affine::constant(1), -1),
                    false,
                ),
                ">=" => (left.clone().add_scaled(&right, -1), false),
                ">" => (
                    left.clone()
                        .add_scaled(&right, -1)
                        .add_scaled(&Affine::constant(1), -1),
                    false,
                ),
                _ => (left.clone().add_scaled(&right, -1), true),
            };
            out.push(Constraint { expr, equality });
            left = right;
            any = true;
        }
        if any {
            Ok(())
        } else {
            Err("a constraint without comparison".to_string())
        }
    }

    fn expr(&mut self) -> Result<Affine, String> {
        let mut sum = if self.eat("-") {
            Affine::default().add_scaled(&self.term()?, -1)
        } else {
            self.term()?
        };
        loop {
            if self.eat("+") {
                sum = sum.add_scaled(&self.term()?, 1);
            } else if self.eat("-") {
                sum = sum.add_scaled(&self.term()?, -1);
            } else {
                return Ok(sum);
            }
        }
    }

    /// A number, a name, `floor(...)`, a parenthesized expression, or a
    /// number times one of those (`32o1`, `2*i0`).
    fn term(&mut self) -> Result<Affine, String> {
        if let Some(Token::Number(n)) = self.peek().cloned() {
            self.at += 1;
            self.eat("*");
            let starts_factor = matches!(self.peek(), Some(Token::Ident(word)) if word != "and" && word != "or")
                || self.is("(");
            return Ok(if starts_factor {
                Affine::default().add_scaled(&self.factor()?, n)
            } else {
                Affine::constant(n)
            });
        }
        self.factor()
    }

    fn factor(&mut self) -> Result<Affine, String> {
        if self.eat("(") {
            let inner = self.expr()?;
            self.expect(")")?;
            return Ok(inner);
        }
        let name = self.ident()?;
        if name == "floor" {
            self.expect("(")?;
            let inner = self.expr()?;
            self.expect("/")?;
            let divisor = match self.peek().cloned() {
                Some(Token::Number(d)) if d > 0 => {
                    self.at += 1;
                    d
                }
                _ => return Err("`floor` by something other than a positive number".to_string()),
            };
            self.expect(")")?;
            return Ok(Affine::var(Var::Floor(Box::new(inner), divisor)));
        }
        if matches!(
            name.as_str(),
            "and" | "or" | "exists" | "mod" | "min" | "max"
        ) {
            return Err(format!("`{name}` is not read"));
        }
        Ok(Affine::var(Var::Name(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_tiled_schedule() {
        let map =
            parse("{ Stmt2[i0, i1] -> [o0, 1, i0 - 32o0, i1] : -31 + i0 <= 32o0 <= i0 }").unwrap();
        let piece = &map.pieces[0];
        assert_eq!(piece.name, "Stmt2");
        assert_eq!(piece.inputs, ["i0", "i1"]);
        assert_eq!(piece.outputs.len(), 4);
        assert_eq!(piece.outputs[1].to_string(), "1");
        assert_eq!(piece.outputs[2].to_string(), "i0 - 32o0");
        assert_eq!(piece.outputs[2].coefficient("o0"), -32);
        // `-31 + i0 <= 32o0` and `32o0 <= i0`.
        assert_eq!(piece.constraints.len(), 2);
        assert_eq!(piece.constraints[0].expr.to_string(), "-i0 + 32o0 + 31");
        assert_eq!(piece.constraints[1].expr.to_string(), "i0 - 32o0");
    }

    #[test]
    fn reads_parameters_floors_strict_comparisons_and_access_tuples() {
        let map = parse(
            "[n] -> { S[i] -> A[floor((i)/4), 2*i + n] : 0 <= i < n and 5 >= 0; T[] -> B[] }",
        )
        .unwrap();
        assert_eq!(map.params, ["n"]);
        assert_eq!(map.pieces.len(), 2);
        let s = &map.pieces[0];
        assert_eq!(s.output_name.as_deref(), Some("A"));
        assert_eq!(s.outputs[0].to_string(), "floor((i)/4)");
        assert_eq!(s.outputs[1].to_string(), "2i + n");
        assert_eq!(s.constraints[1].expr.to_string(), "-i + n - 1");
        assert!(map.pieces[1].outputs.is_empty());
        // A fixed entry in a tuple keeps its position.
        let set = parse("{ Stmt1[0, i1] : 0 <= i1 <= 9 }").unwrap();
        assert_eq!(set.pieces[0].inputs, ["_0", "i1"]);
    }

    #[test]
    fn a_context_has_no_piece_and_disjunctions_are_refused() {
        assert!(parse("{  :  }").unwrap().pieces.is_empty());
        let error = parse("{ S[i] -> [i] : i <= 3 or i >= 5 }").unwrap_err();
        assert!(error.contains("`or`"), "{error}");
        assert!(parse("{ S[i] -> [i] ").is_err());
    }
}
