//! What the kernel's names stand for in the program as compiled: the
//! values of the parameters in its bounds (`_PB_N`, `N`: macros, from the
//! file's `#define`s and the `-D` flags) and the element types of its
//! arrays and scalars, read from the preprocessor's output. A parameter of
//! the kernel's function takes the value every call gives it (an integer,
//! or a variable every assignment gives one: PolyBench's `int ni = NI;`
//! in `main`). A name whose value or type cannot be read this way (a
//! global set at run time, calls that disagree) is unknown, and the bound
//! counts nothing it decides.

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
    let mut found: HashMap<usize, String> = HashMap::new();
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
        found.insert(index, expression.trim().trim_end_matches(';').to_string());
    }
    let mut tokens = None;
    (0..params.len())
        .map(|k| {
            let expression = found.get(&k)?;
            evaluate(expression).or_else(|| {
                // A parameter of the kernel's function (`_PB_NI` expands
                // to `ni`): its value where the function is called.
                let name = expression.trim_matches(|c: char| c == '(' || c == ')' || c == ' ');
                if !is_identifier(name) {
                    return None;
                }
                let tokens = tokens.get_or_insert_with(|| tokenize(preprocessed));
                through_calls(tokens, name)
            })
        })
        .collect()
}

/// The value a function's parameter `name` gets at every call of the
/// function in the text (PolyBench's `kernel_gemm(ni, ...)` called from
/// `main` after `int ni = 1000;`), when every call gives one and they
/// agree.
fn through_calls(tokens: &[&str], name: &str) -> Option<i64> {
    let mut value = None;
    for (at, &function) in tokens.iter().enumerate() {
        if !is_identifier(function) || tokens.get(at + 1) != Some(&"(") {
            continue;
        }
        let close = closing(tokens, at + 1)?;
        if tokens.get(close + 1) != Some(&"{") {
            continue;
        }
        // A definition with `name` among its parameters.
        let parameters = arguments(&tokens[at + 2..close]);
        let Some(index) = parameters.iter().position(|p| p.last() == Some(&name)) else {
            continue;
        };
        for (call, &callee) in tokens.iter().enumerate() {
            let declared = call
                .checked_sub(1)
                .is_some_and(|b| is_identifier(tokens[b]) && tokens[b] != "return");
            if callee != function || call == at || declared || tokens.get(call + 1) != Some(&"(") {
                continue;
            }
            let end = closing(tokens, call + 1)?;
            let items = arguments(&tokens[call + 2..end]);
            let mut argument = &items.get(index)?[..];
            while argument.len() > 2
                && argument[0] == "("
                && closing(argument, 0) == Some(argument.len() - 1)
            {
                argument = &argument[1..argument.len() - 1];
            }
            let here = evaluate(&argument.join(" ")).or_else(|| match argument[..] {
                [variable] if is_identifier(variable) => assigned(tokens, variable),
                _ => None,
            })?;
            if value.is_some_and(|v| v != here) {
                return None;
            }
            value = Some(here);
        }
    }
    value
}

/// The value every assignment or initialization `variable = ...;` in the
/// text gives it, when they agree.
fn assigned(tokens: &[&str], variable: &str) -> Option<i64> {
    let mut value = None;
    for at in 0..tokens.len() {
        if tokens[at] != variable || tokens.get(at + 1) != Some(&"=") {
            continue;
        }
        let start = at + 2;
        let mut end = start;
        let mut depth = 0i32;
        while let Some(&t) = tokens.get(end) {
            match t {
                "(" | "[" => depth += 1,
                ")" | "]" => depth -= 1,
                ";" | "," if depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        let here = evaluate(&tokens[start..end].join(" "))?;
        if value.is_some_and(|v| v != here) {
            return None;
        }
        value = Some(here);
    }
    value
}

/// The index of the parenthesis closing the one at `open`.
fn closing(tokens: &[&str], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &t) in tokens.iter().enumerate().skip(open) {
        match t {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The comma-separated items of an argument or parameter list, commas
/// inside parentheses or brackets kept.
fn arguments<'a>(tokens: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut items = vec![Vec::new()];
    let mut depth = 0i32;
    for &t in tokens {
        match t {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            "," if depth == 0 => {
                items.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(item) = items.last_mut() {
            item.push(t);
        }
    }
    items
}

fn is_identifier(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The element type `name` is declared with in `preprocessed`, if a
/// declaration of it reads `double` or `float` (`static double A[N][N]`,
/// `double alpha` in a parameter list, `double (*A)[N]`, `double A[N],
/// B[N]`), or a name a `typedef` gives one of them (TSVC's `typedef
/// float real_t;`).
pub fn element_type(preprocessed: &str, name: &str) -> Option<Element> {
    let tokens = tokenize(preprocessed);
    let typedefs = typedefs(&tokens);
    let type_name = |token: &str| keyword(token).or_else(|| typedefs.get(token).copied());
    for (at, token) in tokens.iter().enumerate() {
        if *token != name {
            continue;
        }
        if let Some(element) = declared_before(&tokens, at, &type_name) {
            return Some(element);
        }
    }
    None
}

/// The names `typedef` declarations give `double` or `float` (qualified,
/// or through an earlier such name): `typedef float real_t;`.
fn typedefs<'t>(tokens: &[&'t str]) -> HashMap<&'t str, Element> {
    let mut names = HashMap::new();
    for (at, _) in tokens.iter().enumerate().filter(|(_, t)| **t == "typedef") {
        let Some(end) = tokens[at..].iter().position(|t| *t == ";") else {
            break;
        };
        let [types @ .., name] = &tokens[at + 1..at + end] else {
            continue;
        };
        if !is_identifier(name) {
            continue;
        }
        let mut element = None;
        for token in types {
            match keyword(token).or_else(|| names.get(token).copied()) {
                Some(e) => element = Some(e),
                None if matches!(*token, "const" | "volatile") => {}
                // A pointer, array, function or other type.
                None => {
                    element = None;
                    break;
                }
            }
        }
        if let Some(element) = element {
            names.insert(*name, element);
        }
    }
    names
}

/// The type of the declaration whose declarator holds the token at `at`,
/// if `type_name` reads it as `double` or `float`.
fn declared_before(
    tokens: &[&str],
    at: usize,
    type_name: &dyn Fn(&str) -> Option<Element>,
) -> Option<Element> {
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
    if let Some(element) = type_name(before) {
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
    // The first token that is no storage class, qualifier or attribute.
    let mut first = start;
    while first < k {
        match tokens[first] {
            "static" | "const" | "extern" | "volatile" | "register" => first += 1,
            "__attribute__" if tokens.get(first + 1) == Some(&"(") => {
                first = closing(tokens, first + 1)? + 1;
            }
            token => return type_name(token),
        }
    }
    None
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

    /// PolyBench passes its sizes to the kernel's function: they are read
    /// at the call, through `main`'s variables; calls that disagree, or a
    /// value set at run time, leave the parameter unknown.
    #[test]
    fn values_of_function_parameters_at_their_calls() {
        let params = vec!["_PB_NI".to_string(), "nj".to_string()];
        let text = "static void kernel_gemm(int ni, int nj, double A[1000][1100]);\n\
                    static void kernel_gemm(int ni, int nj, double A[1000][1100]) {\n\
                    A[0][0] = ni + nj; }\n\
                    int main(int argc, char **argv) {\n\
                    int ni = 1000; int nj = 1100;\n\
                    kernel_gemm (ni, (nj), (double(*)[1100])f(a, b));\n\
                    return 0; }\n\
                    commute_param_0 = (ni);\ncommute_param_1 = (nj);\n";
        assert_eq!(read_values(text, &params), [Some(1000), Some(1100)]);
        let twice = text.replace("return 0;", "kernel_gemm(500, nj, 0); return 0;");
        assert_eq!(read_values(&twice, &params), [None, Some(1100)]);
        let read = text.replace("int nj = 1100;", "int nj = atoi(argv[1]);");
        assert_eq!(read_values(&read, &params), [Some(1000), None]);
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
        // Names typedefs give the types, as TSVC declares its arrays.
        let text = "typedef float real_t;\ntypedef const real_t creal;\ntypedef real_t (*f_t)(int);\ntypedef real_t *p_t;\n\
                    extern __attribute__((aligned(64))) real_t a[32000], b[32000];\n\
                    creal s; f_t f; p_t p;";
        assert_eq!(element_type(text, "a"), Some(Element::Float));
        assert_eq!(element_type(text, "b"), Some(Element::Float));
        assert_eq!(element_type(text, "s"), Some(Element::Float));
        assert_eq!(element_type(text, "f"), None);
    }
}
