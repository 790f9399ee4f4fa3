//! What the kernel's names stand for in the program as compiled: the
//! values of the parameters in its bounds (`_PB_N`, `N`: macros, from the
//! file's `#define`s and the `-D` flags) and the element types of its
//! arrays and scalars, read from the preprocessor's output. A name whose
//! value or type cannot be read this way (a function parameter, a global
//! set at run time) is unknown, and the bound counts nothing it decides.

use std::collections::HashMap;

/// The element type of an array or scalar, as far as the bound cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// `double`: 8 bytes, one operation per arithmetic operator.
    Double,
    /// `float`: 4 bytes; vector units do twice as many per cycle.
    Float,
}

impl Element {
    /// Bytes per element.
    pub fn bytes(self) -> f64 {
        match self {
            Element::Double => 8.0,
            Element::Float => 4.0,
        }
    }
}

/// The lines appended to a kernel's source so that the preprocessor
/// writes each parameter's expansion: `commute_param_0 = (_PB_N);`.
pub fn probe_lines(params: &[String]) -> String {
    let mut text = String::from("\n");
    for (k, name) in params.iter().enumerate() {
        text.push_str(&format!("commute_param_{k} = ({name});\n"));
    }
    text
}

/// The values of `params` from the preprocessed text of a source that
/// ended with [`probe_lines`]: `None` where the expansion is not an
/// integer constant expression.
pub fn read_values(preprocessed: &str, params: &[String]) -> Vec<Option<i64>> {
    let mut found: HashMap<usize, Option<i64>> = HashMap::new();
    for line in preprocessed.lines() {
        let Some(rest) = line.trim().strip_prefix("commute_param_") else {
            continue;
        };
        let Some((index, expression)) = rest.split_once('=') else {
            continue;
        };
        let Ok(index) = index.trim().parse::<usize>() else {
            continue;
        };
        let expression = expression.trim().trim_end_matches(';');
        found.insert(index, evaluate(expression));
    }
    (0..params.len())
        .map(|k| found.get(&k).copied().flatten())
        .collect()
}

/// The element type `name` is declared with in `preprocessed`, if a
/// declaration of it reads `double` or `float` (`static double A[N][N]`,
/// `double alpha` in a parameter list, `double (*A)[N]`, `double A[N],
/// B[N]`).
pub fn element_type(preprocessed: &str, name: &str) -> Option<Element> {
    let tokens = tokenize(preprocessed);
    for (at, token) in tokens.iter().enumerate() {
        if *token != name {
            continue;
        }
        if let Some(element) = declared_before(&tokens, at) {
            return Some(element);
        }
    }
    None
}

/// The type keyword of the declaration whose declarator holds the token
/// at `at`, if it is `double` or `float`.
fn declared_before(tokens: &[&str], at: usize) -> Option<Element> {
    const SKIP: [&str; 8] = [
        "*",
        "(",
        "const",
        "restrict",
        "__restrict",
        "__restrict__",
        "volatile",
        "register",
    ];
    let mut k = at;
    while k > 0 && SKIP.contains(&tokens[k - 1]) {
        k -= 1;
    }
    let before = *tokens.get(k.checked_sub(1)?)?;
    if let Some(element) = keyword(before) {
        return Some(element);
    }
    if before != "," {
        return None;
    }
    // A later declarator of a list: the type starts the declaration.
    let mut depth = 0i32;
    let mut start = k - 1;
    while start > 0 {
        let token = tokens[start - 1];
        match token {
            ")" | "]" | "}" => depth += 1,
            "[" => depth -= 1,
            "(" if depth == 0 => return None, // an argument list
            "(" => depth -= 1,
            ";" | "{" if depth == 0 => break,
            "{" => depth -= 1,
            _ => {}
        }
        start -= 1;
    }
    tokens[start..k]
        .iter()
        .find(|t| !matches!(**t, "static" | "const" | "extern" | "volatile" | "register"))
        .and_then(|t| keyword(t))
}

fn keyword(token: &str) -> Option<Element> {
    match token {
        "double" => Some(Element::Double),
        "float" => Some(Element::Float),
        _ => None,
    }
}

/// Identifiers, numbers and single punctuation characters.
fn tokenize(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        let c = bytes[k];
        if c.is_ascii_whitespace() {
            k += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
            let start = k;
            while k < bytes.len()
                && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_' || bytes[k] == b'.')
            {
                k += 1;
            }
            tokens.push(&text[start..k]);
        } else {
            // One character; `text` is UTF-8, so skip whole characters.
            let width = text[k..].chars().next().map_or(1, char::len_utf8);
            tokens.push(&text[k..k + width]);
            k += width;
        }
    }
    tokens
}

/// The value of an integer constant expression of literals, `+ - * / %`,
/// parentheses and casts to integer types; `None` for anything else
/// (names left after preprocessing, floating-point literals, overflow).
pub fn evaluate(expression: &str) -> Option<i64> {
    let tokens = tokenize(expression);
    let mut parser = Expression { tokens, at: 0 };
    let value = parser.sum()?;
    (parser.at == parser.tokens.len()).then_some(value)
}

struct Expression<'a> {
    tokens: Vec<&'a str>,
    at: usize,
}

impl<'a> Expression<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.at).copied()
    }

    fn sum(&mut self) -> Option<i64> {
        let mut value = self.product()?;
        while let Some(op) = self.peek().filter(|t| *t == "+" || *t == "-") {
            let plus = op == "+";
            self.at += 1;
            let right = self.product()?;
            value = if plus {
                value.checked_add(right)?
            } else {
                value.checked_sub(right)?
            };
        }
        Some(value)
    }

    fn product(&mut self) -> Option<i64> {
        let mut value = self.unary()?;
        while let Some(op) = self.peek().filter(|t| matches!(*t, "*" | "/" | "%")) {
            let op = op.to_string();
            self.at += 1;
            let right = self.unary()?;
            value = match op.as_str() {
                "*" => value.checked_mul(right)?,
                "/" => value.checked_div(right)?,
                _ => value.checked_rem(right)?,
            };
        }
        Some(value)
    }

    fn unary(&mut self) -> Option<i64> {
        match self.peek()? {
            "-" => {
                self.at += 1;
                self.unary()?.checked_neg()
            }
            "+" => {
                self.at += 1;
                self.unary()
            }
            "(" => {
                self.at += 1;
                // A cast to an integer type: `(int)`, `(long)`, `(unsigned long)`.
                let mut k = self.at;
                while self.tokens.get(k).is_some_and(|t| {
                    matches!(
                        *t,
                        "int" | "long" | "short" | "unsigned" | "signed" | "size_t"
                    )
                }) {
                    k += 1;
                }
                if k > self.at && self.tokens.get(k) == Some(&")") {
                    self.at = k + 1;
                    return self.unary();
                }
                let value = self.sum()?;
                (self.peek()? == ")").then_some(())?;
                self.at += 1;
                Some(value)
            }
            literal => {
                self.at += 1;
                integer_literal(literal)
            }
        }
    }
}

/// `1000`, `0x10`, `100L`, `8u`.
fn integer_literal(text: &str) -> Option<i64> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        return i64::from_str_radix(hex, 16).ok();
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return i64::from_str_radix(&digits[1..], 8).ok();
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_expressions() {
        assert_eq!(evaluate("(1000)"), Some(1000));
        assert_eq!(evaluate("((1000 + 0) * 2 - 3 % 2)"), Some(1999));
        assert_eq!(evaluate("(int)(1200L)"), Some(1200));
        assert_eq!(evaluate("0x10 / 4"), Some(4));
        assert_eq!(evaluate("(n)"), None);
        assert_eq!(evaluate("(1.5)"), None);
        assert_eq!(evaluate("9223372036854775807 + 1"), None);
    }

    #[test]
    fn values_from_probe_lines() {
        let params = vec!["_PB_N".to_string(), "n".to_string()];
        assert_eq!(
            probe_lines(&params),
            "\ncommute_param_0 = (_PB_N);\ncommute_param_1 = (n);\n"
        );
        let preprocessed = "int x;\ncommute_param_0 = (500);\ncommute_param_1 = (n);\n";
        assert_eq!(read_values(preprocessed, &params), [Some(500), None]);
    }

    #[test]
    fn declared_element_types() {
        let text = "static double A[1000][1200];\nstatic float B[10], C[20];\n\
                    static void kernel(int n, double alpha, double (*D)[10], int E[5]) {\n\
                    A[0][0] = (double)E[0]; f(x, C); }";
        assert_eq!(element_type(text, "A"), Some(Element::Double));
        assert_eq!(element_type(text, "B"), Some(Element::Float));
        assert_eq!(element_type(text, "C"), Some(Element::Float));
        assert_eq!(element_type(text, "alpha"), Some(Element::Double));
        assert_eq!(element_type(text, "D"), Some(Element::Double));
        assert_eq!(element_type(text, "E"), None);
        assert_eq!(element_type(text, "n"), None);
        assert_eq!(element_type(text, "x"), None);
    }
}
