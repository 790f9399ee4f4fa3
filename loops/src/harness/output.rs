//! Reading what a program printed: the C source prepared for the
//! compiler, the time a run printed, the array dump or standard output to
//! compare, and the first difference between two outputs.

use super::config::TimePattern;

/// Absolute difference under which two dumped values are always equal
/// (values near zero, where a relative tolerance means nothing).
pub const ABSOLUTE_TOLERANCE: f64 = 1e-12;

const DUMP_BEGIN: &str = "==BEGIN DUMP_ARRAYS==";
const DUMP_END: &str = "==END   DUMP_ARRAYS==";

/// The last line of stderr outside the array dump (an assertion's
/// message, say).
pub(super) fn last_message_line(stderr: &str) -> Option<&str> {
    let mut inside = false;
    let mut last = None;
    for line in stderr.lines() {
        let trimmed = line.trim();
        if trimmed == DUMP_BEGIN {
            inside = true;
        } else if trimmed == DUMP_END {
            inside = false;
        } else if !inside && !trimmed.is_empty() {
            last = Some(trimmed);
        }
    }
    last
}

pub(super) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max).collect();
        cut.push_str("...");
        cut
    }
}

/// The source with its `#pragma scop` and `#pragma endscop` lines replaced
/// by a comment (they would be unknown pragmas).
pub fn without_scop_pragmas(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 64);
    for line in source.split_inclusive('\n') {
        let (body, ending) = match line.strip_suffix("\r\n") {
            Some(body) => (body, "\r\n"),
            None => match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            },
        };
        match scop_marker(body) {
            Some(marker) => {
                out.push_str("/* commute: #pragma ");
                out.push_str(marker);
                out.push_str(" */");
            }
            None => out.push_str(body),
        }
        out.push_str(ending);
    }
    out
}

/// `Some("scop")` or `Some("endscop")` for those pragma lines.
fn scop_marker(line: &str) -> Option<&'static str> {
    let rest = line.trim().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("pragma")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    match rest.trim() {
        "scop" => Some("scop"),
        "endscop" => Some("endscop"),
        _ => None,
    }
}

/// The time a run printed, per the pattern (`None` for `WallTime`).
pub(super) fn parse_time(stdout: &str, pattern: &TimePattern) -> Option<f64> {
    let value = match pattern {
        TimePattern::LastFloatLine => stdout.lines().rev().find_map(line_float)?,
        TimePattern::Prefix(prefix) => stdout.lines().rev().find_map(|line| {
            let at = line.find(prefix.as_str())?;
            line[at + prefix.len()..]
                .split_whitespace()
                .next()?
                .parse::<f64>()
                .ok()
        })?,
        TimePattern::WallTime => return None,
    };
    (value.is_finite() && value >= 0.0).then_some(value)
}

fn line_float(line: &str) -> Option<f64> {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return None;
    }
    trimmed.parse::<f64>().ok()
}

/// Standard output without the line the time was read from.
pub(super) fn strip_time_line(stdout: &str, pattern: &TimePattern) -> String {
    let lines: Vec<&str> = stdout.lines().collect();
    let skip = match pattern {
        TimePattern::LastFloatLine => lines.iter().rposition(|l| line_float(l).is_some()),
        TimePattern::Prefix(prefix) => lines.iter().rposition(|l| l.contains(prefix.as_str())),
        TimePattern::WallTime => None,
    };
    let mut out = String::with_capacity(stdout.len());
    for (i, line) in lines.iter().enumerate() {
        if Some(i) != skip {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every `==BEGIN DUMP_ARRAYS==` ... `==END   DUMP_ARRAYS==` section of
/// standard error, markers included; `None` when there is none.
pub(super) fn dump_section(stderr: &str) -> Option<String> {
    let mut out = String::new();
    let mut inside = false;
    let mut found = false;
    for line in stderr.lines() {
        let trimmed = line.trim();
        if trimmed == DUMP_BEGIN {
            inside = true;
            found = true;
        }
        if inside {
            out.push_str(trimmed);
            out.push('\n');
        }
        if trimmed == DUMP_END {
            inside = false;
        }
    }
    found.then_some(out)
}

/// A piece of output: a marker line compared whole, or a value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Token<'a> {
    Line(&'a str),
    Value {
        array: &'a str,
        index: usize,
        text: &'a str,
    },
}

/// The tokens of an output: marker lines (`==BEGIN ...`, `begin dump:`,
/// `end dump:`, `==END ...`) whole, and whitespace-separated values
/// numbered within their array (or within the output, outside arrays).
struct Tokens<'a> {
    lines: std::str::Lines<'a>,
    words: Option<std::str::SplitWhitespace<'a>>,
    array: &'a str,
    index: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Tokens<'a> {
        Tokens {
            lines: text.lines(),
            words: None,
            array: "",
            index: 0,
        }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            if let Some(word) = self.words.as_mut().and_then(Iterator::next) {
                let index = self.index;
                self.index += 1;
                return Some(Token::Value {
                    array: self.array,
                    index,
                    text: word,
                });
            }
            let line = self.lines.next()?.trim();
            if let Some(name) = line.strip_prefix("begin dump:") {
                self.array = name.trim();
                self.index = 0;
                self.words = None;
                return Some(Token::Line(line));
            }
            if line.starts_with("==") || (line.starts_with("end") && line.contains("dump:")) {
                self.words = None;
                return Some(Token::Line(line));
            }
            self.words = Some(line.split_whitespace());
        }
    }
}

/// Whether two tokens are equal: within the tolerance, or one unit of
/// the last digit either prints, when both parse as floats; textually
/// otherwise. A value printed with few digits (PolyBench dumps with
/// `%0.2lf`) rounds: sums taken in another order can differ in the last
/// digit printed even far within the tolerance (667.115 against
/// 667.1149, printed 667.12 and 667.11).
fn values_equal(a: &str, b: &str, tolerance: f64) -> bool {
    if a == b {
        return true;
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => {
            floats_equal(x, y, tolerance)
                || (x - y).abs() <= last_place(a).max(last_place(b)) * (1.0 + 1e-9)
        }
        _ => false,
    }
}

/// One unit of the last digit of a float as printed (`0.01` for
/// `667.12`, `1000` for `1.23e+05`); 0 for a number printed without a
/// decimal point or an exponent, as integers are, whose values do not
/// round.
fn last_place(text: &str) -> f64 {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i32>().unwrap_or(0)),
        None if text.contains('.') => (text, 0),
        None => return 0.0,
    };
    let decimals = mantissa
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.len());
    10f64.powi(exponent - decimals as i32)
}

/// `|x - y| <= tolerance * max(|x|, |y|)` or `|x - y| <=`
/// [`ABSOLUTE_TOLERANCE`]; NaNs equal each other, infinities themselves.
pub fn floats_equal(x: f64, y: f64, tolerance: f64) -> bool {
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if x == y {
        return true;
    }
    let diff = (x - y).abs();
    diff <= ABSOLUTE_TOLERANCE || diff <= tolerance * x.abs().max(y.abs()).max(1e-300)
}

fn where_of(token: &Token<'_>) -> String {
    match token {
        Token::Line(line) => format!("line `{}`", truncate(line, 80)),
        Token::Value {
            array: "",
            index,
            text,
        } => {
            format!("value {index} of stdout ({})", truncate(text, 40))
        }
        Token::Value { array, index, text } => {
            format!("array {array}, index {index} ({})", truncate(text, 40))
        }
    }
}

/// The first difference between the reference's output and a candidate's,
/// described; `None` when they agree.
pub(super) fn compare_outputs(expected: &str, actual: &str, tolerance: f64) -> Option<String> {
    let mut expected_tokens = Tokens::new(expected);
    let mut actual_tokens = Tokens::new(actual);
    loop {
        match (expected_tokens.next(), actual_tokens.next()) {
            (None, None) => return None,
            (Some(e), None) => {
                return Some(format!("output ends early: expected {} next", where_of(&e)))
            }
            (None, Some(a)) => {
                return Some(format!(
                    "extra output after the reference's: {}",
                    where_of(&a)
                ))
            }
            (Some(Token::Line(e)), Some(Token::Line(a))) => {
                if e != a {
                    return Some(format!(
                        "expected line `{}`, got `{}`",
                        truncate(e, 80),
                        truncate(a, 80)
                    ));
                }
            }
            (
                Some(Token::Value {
                    array,
                    index,
                    text: e,
                }),
                Some(Token::Value { text: a, .. }),
            ) => {
                if !values_equal(e, a, tolerance) {
                    let place = if array.is_empty() {
                        format!("stdout, value {index}")
                    } else {
                        format!("array {array}, index {index}")
                    };
                    return Some(format!(
                        "{place}: expected {}, got {}",
                        truncate(e, 40),
                        truncate(a, 40)
                    ));
                }
            }
            (Some(e), Some(a)) => {
                return Some(format!("expected {}, got {}", where_of(&e), where_of(&a)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scop_lines_become_comments() {
        let prepared =
            without_scop_pragmas("a\n#pragma scop\n  # pragma endscop  \n#pragma omp x\n");
        assert_eq!(
            prepared,
            "a\n/* commute: #pragma scop */\n/* commute: #pragma endscop */\n#pragma omp x\n"
        );
    }

    #[test]
    fn time_patterns() {
        let out = "hello 1.5\n0.250000\nbye\n";
        assert_eq!(parse_time(out, &TimePattern::LastFloatLine), Some(0.25));
        assert_eq!(
            parse_time("time: 2.5 s\n", &TimePattern::Prefix("time:".into())),
            Some(2.5)
        );
        assert_eq!(parse_time(out, &TimePattern::WallTime), None);
        assert_eq!(
            strip_time_line(out, &TimePattern::LastFloatLine),
            "hello 1.5\nbye\n"
        );
    }

    #[test]
    fn comparison_names_array_and_index() {
        let e = "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1 2 3\n4\nend   dump: A\n==END   DUMP_ARRAYS==\n";
        let a = e.replace('4', "5");
        assert_eq!(compare_outputs(e, e, 1e-6), None);
        assert_eq!(
            compare_outputs(e, &a, 1e-6).as_deref(),
            Some("array A, index 3: expected 4, got 5")
        );
        let short = e.replace("\n4\n", "\n");
        // Integers do not round: one apart is a difference.
        assert!(compare_outputs("7", "8", 1e-6).is_some());
        assert!(compare_outputs(e, &short, 1e-6).is_some_and(|d| d.contains("array A, index 3")));
    }

    #[test]
    fn values_printed_with_few_digits_may_differ_in_the_last_one() {
        assert_eq!(last_place("667.12"), 0.01);
        assert_eq!(last_place("1.5e+03"), 100.0);
        assert_eq!(last_place("2.50E-2"), 1e-4);
        assert_eq!(last_place("667"), 0.0);
        assert!(values_equal("667.12", "667.11", 1e-6));
        assert!(values_equal("1.5e+03", "1.6e+03", 1e-6));
        assert!(!values_equal("667.12", "667.10", 1e-6));
        assert!(!values_equal("667.120000", "667.110000", 1e-6));
        assert!(!values_equal("7", "8", 1e-6));
    }
}
