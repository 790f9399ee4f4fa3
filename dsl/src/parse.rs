//! From text to syntax tree: the pest grammar, item-by-item recovery and
//! syntax errors a person can act on.

use pest::iterators::Pair;
use pest::Parser as _;

use crate::ast::*;
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::source::{FileId, Span};

/// The generated parser, in a module of its own so that its `Rule` enum
/// stays out of the public API.
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar.pest"]
    pub(super) struct Grammar;
}

use grammar::{Grammar, Rule};

/// What parsing one file produced: the items that parsed, the syntax
/// errors, and the names of items that did not parse (later checks stay
/// quiet about those names instead of reporting them as unknown).
#[derive(Debug, Default)]
pub struct ParsedFile {
    /// The items that parsed, in the order written.
    pub items: Vec<Item>,
    /// Syntax errors (one per item that did not parse) and integers out of
    /// range.
    pub diagnostics: Vec<Diagnostic>,
    /// Names of items that did not parse, as far as they could be read.
    pub broken_names: Vec<String>,
    /// An `include` did not parse: names declared there are unknown.
    pub broken_include: bool,
}

/// Punctuation that structures the language; other literal tokens (the
/// `_` inside names, white space) make poor "expected" messages.
const STRUCTURAL_TOKENS: &[&str] = &[
    ":", "(", ")", ",", "->", "=", "[", "]", "/", "*/", "\"", "|",
];

/// Keywords that start a top-level item; the parser resumes at the next
/// line starting with one of them after a syntax error.
const ITEM_KEYWORDS: &[&str] = &[
    "include", "set", "property", "choice", "require", "trigger", "quotient",
];

/// Parses the text of `file`. A valid file parses in one pass; after a
/// syntax error, parsing resumes at the next line that starts an item, so
/// one mistake costs one item, not the rest of the file.
pub fn parse_file(file: FileId, text: &str) -> ParsedFile {
    let mut parsed = ParsedFile::default();
    // One pass over a valid file; item by item only to recover from errors.
    if let Ok(mut pairs) = Grammar::parse(Rule::file, text) {
        for pair in pairs.next().into_iter().flat_map(|f| f.into_inner()) {
            if pair.as_rule() == Rule::EOI {
                continue;
            }
            let builder = Builder {
                file,
                offset: 0,
                diagnostics: &mut parsed.diagnostics,
            };
            if let Some(item) = builder.item(pair) {
                parsed.items.push(item);
            }
        }
        return parsed;
    }
    // Track literal tokens too, so a missing `:` is reported as such.
    pest::set_error_detail(true);
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        if Grammar::parse(Rule::end_of_input, rest).is_ok() {
            break;
        }
        match Grammar::parse(Rule::one_item, rest) {
            Ok(mut pairs) => {
                let Some(one_item) = pairs.next() else { break };
                let consumed = one_item.as_span().end();
                if let Some((error_pos, diagnostic)) = cut_short(file, text, pos, consumed) {
                    parsed.diagnostics.push(diagnostic);
                    match skip_broken_item(&mut parsed, text, pos, error_pos) {
                        Some(next) => pos = next,
                        None => break,
                    }
                    continue;
                }
                let builder = Builder {
                    file,
                    offset: pos,
                    diagnostics: &mut parsed.diagnostics,
                };
                if let Some(pair) = one_item.into_inner().next() {
                    if let Some(item) = builder.item(pair) {
                        parsed.items.push(item);
                    }
                }
                if consumed == 0 {
                    break;
                }
                pos += consumed;
            }
            Err(error) => {
                let (error_pos, diagnostic) = syntax_error(file, text, pos, &error);
                parsed.diagnostics.push(diagnostic);
                match skip_broken_item(&mut parsed, text, pos, error_pos) {
                    Some(next) => pos = next,
                    None => break,
                }
            }
        }
    }
    parsed
}

/// Records what the item that failed at `error_pos` declared (so that its
/// uses are not reported as unknown) and returns where parsing resumes.
fn skip_broken_item(
    parsed: &mut ParsedFile,
    text: &str,
    pos: usize,
    error_pos: usize,
) -> Option<usize> {
    let item_start = item_start_before(text, pos, error_pos);
    parsed.broken_include |= text[item_start..].starts_with("include");
    if let Some(name) = declared_name(&text[item_start..]) {
        parsed.broken_names.push(name);
    }
    next_item_start(text, pos, error_pos)
}

/// The syntax error of an item that parsed from `pos` for `consumed` bytes
/// but stopped short: what follows starts no item, and the item itself got
/// further than that leftover (a string after `==`). Keeping the short
/// item would add a type error about it to the syntax error at the
/// leftover, both at the wrong place. A leftover the item never reached
/// into (a stray `;`) keeps its own error.
fn cut_short(file: FileId, text: &str, pos: usize, consumed: usize) -> Option<(usize, Diagnostic)> {
    let rest = &text[pos..];
    let leftover = match Grammar::parse(Rule::next_item, &rest[consumed..]) {
        Ok(_) => return None,
        Err(error) => pos + consumed + error_offset(&error),
    };
    let error = Grammar::parse(Rule::whole_item, rest).err()?;
    let (error_pos, diagnostic) = syntax_error(file, text, pos, &error);
    (error_pos > leftover).then_some((error_pos, diagnostic))
}

fn error_offset(error: &pest::error::Error<Rule>) -> usize {
    match error.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((start, _)) => start,
    }
}

/// Whether the line starting at `line` starts an item: its first word is
/// an item keyword, or it is a doc comment, which belongs to the next item.
/// Returns the offset of that first word.
fn item_start_in_line(text: &str, line: usize) -> Option<usize> {
    let end = text[line..].find('\n').map_or(text.len(), |i| line + i);
    let content = &text[line..end];
    let trimmed = content.trim_start();
    let start = line + (content.len() - trimmed.len());
    let starts_item = trimmed.starts_with("///")
        || ITEM_KEYWORDS.iter().any(|kw| {
            trimmed.starts_with(kw)
                && !trimmed[kw.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        });
    starts_item.then_some(start)
}

/// Offsets of the line starts in `text[from..to]`, `from` being a line start.
fn line_starts(text: &str, from: usize, to: usize) -> impl Iterator<Item = usize> + '_ {
    let to = to.min(text.len());
    let from = from.min(to);
    std::iter::once(from)
        .chain(
            text[from..to]
                .match_indices('\n')
                .map(move |(i, _)| from + i + 1),
        )
        .filter(move |&s| s < to)
}

/// Where parsing resumes after an error: the error's own place if it is
/// the start of a later item (a block missing its `end`), else the next
/// line that starts an item.
fn next_item_start(text: &str, from: usize, error_pos: usize) -> Option<usize> {
    let line_of_error = text[..error_pos].rfind('\n').map_or(0, |i| i + 1);
    if error_pos > from && item_start_in_line(text, line_of_error) == Some(error_pos) {
        return Some(error_pos);
    }
    let line_end = text[error_pos..].find('\n').map(|i| error_pos + i + 1)?;
    line_starts(text, line_end, text.len()).find_map(|line| item_start_in_line(text, line))
}

/// The start of the item the error is in: the last item line between the
/// parse start `from` and the error (the error's own place excluded, unless
/// the item fails on its first word).
fn item_start_before(text: &str, from: usize, error_pos: usize) -> usize {
    let end_of_error_line = text[error_pos..]
        .find('\n')
        .map_or(text.len(), |i| error_pos + i);
    let first_line = text[..from].rfind('\n').map_or(0, |i| i + 1);
    line_starts(text, first_line, end_of_error_line)
        .filter_map(|line| item_start_in_line(text, line))
        .filter(|&s| s >= from && (s < error_pos || s == from) && !text[s..].starts_with("///"))
        .last()
        .unwrap_or(from)
}

/// The name an item declares, read word by word from its first line, so a
/// broken declaration still silences "unknown name" errors about it.
fn declared_name(item_text: &str) -> Option<String> {
    // Look for the declaring keyword among the first words, so that a typo
    // such as `chioce enum name` still names `name`.
    let words: Vec<&str> = item_text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .take(5)
        .collect();
    let keyword = words.iter().position(|w| {
        matches!(
            *w,
            "set" | "property" | "quotient" | "enum" | "integer" | "counter"
        )
    })?;
    words.get(keyword + 1).map(|name| name.to_string())
}

fn describe_rule(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::include_decl => "`include`",
        Rule::set_decl => "`set`",
        Rule::property_decl => "`property`",
        Rule::choice_decl => "`choice`",
        Rule::require_decl => "`require`",
        Rule::trigger_decl => "`trigger`",
        Rule::quotient_decl => "`quotient`",
        Rule::EOI => "end of file",
        Rule::ident => "a name",
        Rule::var => "a variable such as `$x`",
        Rule::integer => "an integer",
        Rule::string => "a quoted path",
        Rule::params => "a parameter list `($x in Set)`",
        Rule::param => "a parameter `$x in Set`",
        Rule::set_ref => "a set name",
        Rule::superset => "`subsetof`",
        Rule::disjoint => "`disjoint`",
        Rule::prop_type => "a type (`bool`, `int` or `[int]`)",
        Rule::int_list_type => "`[int]`",
        Rule::enum_choice => "`enum`",
        Rule::integer_choice => "`integer`",
        Rule::counter_choice => "`counter`",
        Rule::value_decl => "`value`",
        Rule::alias_decl => "`alias`",
        Rule::antisymmetric_decl => "`antisymmetric`",
        Rule::symmetric_decl => "`symmetric`",
        Rule::requires_clause => "`requires`",
        Rule::value_mapping => "a mapping `A -> B`",
        Rule::universe => "a universe (a `[int]` property call or a list such as `[1, 2, 4]`)",
        Rule::int_list => "a list of integers",
        Rule::counter_op => "`sum` or `mul`",
        Rule::quantifiers | Rule::quantifier => "`forall`",
        Rule::condition_list | Rule::condition => "a condition",
        Rule::is_condition => "`is`",
        Rule::compare_condition | Rule::compare_op => "a comparison operator",
        Rule::bool_condition | Rule::plain_condition | Rule::member_condition => "a condition",
        Rule::object_compare => "a comparison of two objects such as `$a < $b`",
        Rule::list_condition => "`in`",
        Rule::counter_base | Rule::kw_from => "`from`",
        Rule::same_truth | Rule::truth_side => "a condition in parentheses",
        Rule::bool_side => "a boolean property",
        Rule::truth_op => "`==` or `!=`",
        Rule::clause_groups | Rule::clause_group => "a group of conditions in parentheses",
        Rule::logic_op => "`||`/`&&`",
        Rule::operand | Rule::product => "an integer or a call",
        Rule::modulo => "`%`",
        Rule::call => "a call such as `name($x)`",
        Rule::value_set => "a value name",
        Rule::kw_alias => "`alias`",
        Rule::kw_antisymmetric => "`antisymmetric`",
        Rule::kw_bool => "`bool`",
        Rule::kw_choice => "`choice`",
        Rule::kw_counter => "`counter`",
        Rule::kw_disjoint => "`disjoint`",
        Rule::kw_end => "`end`",
        Rule::kw_enum => "`enum`",
        Rule::kw_forall => "`forall`",
        Rule::kw_half => "`half`",
        Rule::kw_in => "`in`",
        Rule::kw_include => "`include`",
        Rule::kw_int => "`int`",
        Rule::kw_integer => "`integer`",
        Rule::kw_is => "`is`",
        Rule::kw_mul => "`mul`",
        Rule::kw_not => "`not`",
        Rule::kw_of => "`of`",
        Rule::kw_property => "`property`",
        Rule::kw_quotient => "`quotient`",
        Rule::kw_require => "`require`",
        Rule::kw_requires => "`requires`",
        Rule::kw_set => "`set`",
        Rule::kw_subsetof => "`subsetof`",
        Rule::kw_sum => "`sum`",
        Rule::kw_symmetric => "`symmetric`",
        Rule::kw_trigger => "`trigger`",
        Rule::kw_value => "`value`",
        Rule::kw_when => "`when`",
        Rule::negation => "`!`",
        _ => return None,
    })
}

/// What stands at `pos`: a word, a string, one character, or the end.
fn found_token(text: &str, pos: usize) -> (String, usize) {
    let rest = &text[pos..];
    let Some(first) = rest.chars().next() else {
        return ("end of file".to_string(), 0);
    };
    if rest.starts_with("///") {
        return ("a doc comment".to_string(), 3);
    }
    if rest.starts_with("//") {
        return ("a comment".to_string(), 2);
    }
    let len = if first.is_ascii_alphanumeric() || first == '_' || first == '$' {
        rest.char_indices()
            .skip(1)
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(rest.len(), |(i, _)| i)
    } else if first == '"' {
        match rest[1..].find(['"', '\n']) {
            Some(i) if rest[1 + i..].starts_with('"') => i + 2,
            Some(i) => i + 1,
            None => rest.len(),
        }
    } else {
        let two = rest.get(..2).unwrap_or("");
        if ["||", "&&", "->", "==", "!=", "<=", ">=", "/*"].contains(&two) {
            2
        } else {
            first.len_utf8()
        }
    };
    let token = &rest[..len];
    if token.trim().is_empty() {
        return ("the end of the line".to_string(), 0);
    }
    (format!("`{token}`"), len)
}

fn join_alternatives(mut names: Vec<String>) -> String {
    names.sort();
    names.dedup();
    match names.len() {
        0 => "something else".to_string(),
        1 => names[0].clone(),
        n => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

/// Builds the diagnostic of a failed parse that started at `from`, and
/// returns the offset of the error.
fn syntax_error(
    file: FileId,
    text: &str,
    from: usize,
    error: &pest::error::Error<Rule>,
) -> (usize, Diagnostic) {
    let mut pos = from + error_offset(error);
    let mut positives: Vec<Rule> = match &error.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => positives.clone(),
        pest::error::ErrorVariant::CustomError { .. } => Vec::new(),
    };
    let mut literals: Vec<String> = Vec::new();
    // The detailed attempts also know literal tokens such as `:`; when one
    // of them was expected further than any rule, it is the better message.
    if let Some(attempts) = error.parse_attempts() {
        let tokens: Vec<String> = attempts
            .expected_tokens()
            .iter()
            .map(|t| t.to_string())
            .filter(|t| STRUCTURAL_TOKENS.contains(&t.as_str()))
            .collect();
        if from + attempts.max_position > pos && !tokens.is_empty() {
            pos = from + attempts.max_position;
            positives.clear();
            literals = tokens.into_iter().map(|t| format!("`{t}`")).collect();
        }
    }
    let item_rules = [
        Rule::include_decl,
        Rule::set_decl,
        Rule::property_decl,
        Rule::choice_decl,
        Rule::require_decl,
        Rule::trigger_decl,
        Rule::quotient_decl,
    ];
    let mut expects_item = positives.iter().any(|r| item_rules.contains(r));
    let mut expected: Vec<String> = positives
        .iter()
        .filter_map(|r| describe_rule(*r))
        .map(String::from)
        .collect();
    if expects_item {
        expected.retain(|e| {
            !item_rules
                .iter()
                .any(|r| describe_rule(*r) == Some(e.as_str()))
        });
        expected.push(
            "an item (`set`, `property`, `choice`, `require`, `trigger`, `quotient` or `include`)"
                .into(),
        );
    }
    let missing_punctuation = !literals.is_empty();
    let wants_call_parenthesis = literals.iter().any(|l| l == "`(`");
    expected.extend(literals);
    if expected.is_empty() {
        // Nothing more specific: the parser was between items.
        expects_item = true;
    }
    if let Some(open) = unclosed_block_comment(text, from, pos) {
        let diagnostic = Diagnostic::error(
            "syntax",
            "unterminated block comment",
            Span::new(file, open, open + 2),
            "opened here, never closed with `*/`",
        )
        .with_note("everything after `/*` was read as a comment");
        return (open, diagnostic);
    }
    if wants_call_parenthesis {
        if let Some(diagnostic) = boolean_literal(file, text, from, pos) {
            return (pos, diagnostic);
        }
    }
    let (found, len) = found_token(text, pos);
    let word = found.trim_matches('`').to_string();
    if expects_item {
        // A list of every item keyword says little about a stray token.
        expected = vec!["an item".into()];
    }
    let expected = join_alternatives(expected);
    // Missing punctuation at the end of a line belongs after the last token,
    // not on the next line.
    let before = text[..pos].trim_end();
    let mut diagnostic = if missing_punctuation && text[before.len()..pos].contains('\n') {
        let at = Span::new(file, before.len(), before.len());
        Diagnostic::error(
            "syntax",
            format!("expected {expected} at the end of this line"),
            at,
            format!("expected {expected} here"),
        )
        .with_label(Span::new(file, pos, pos + len), format!("found {found}"))
    } else {
        Diagnostic::error(
            "syntax",
            format!("expected {expected}, found {found}"),
            Span::new(file, pos, pos + len),
            format!("expected {expected}"),
        )
    };
    let rest = &text[pos..];
    let word = word.as_str();
    let expects_condition = positives.iter().any(|r| {
        matches!(
            r,
            Rule::condition | Rule::condition_list | Rule::call | Rule::operand | Rule::ident
        )
    });
    if rest.starts_with('"') && !rest[1..].contains('"')
        || (rest.starts_with('\n') && found_quote_expected(&expected))
    {
        diagnostic =
            diagnostic.with_note("a string ends on the line it starts: close it with `\"`");
    } else if let Some(number) = quoted_integer(rest).filter(|_| expects_condition) {
        diagnostic = diagnostic.with_note(format!(
            "an integer is written without quotes: `{number}`; strings only name the file of an `include`"
        ));
    } else if rest.starts_with('"')
        && expects_condition
        && ["=", "<", ">", "*", "%", "sum", "mul"]
            .iter()
            .any(|op| text[..pos].trim_end().ends_with(op))
    {
        diagnostic = diagnostic.with_note(
            "strings only name the file of an `include`: an operand is an integer or a call such as `size($d)`",
        );
    } else if rest.starts_with('"') && expects_condition {
        diagnostic = diagnostic.with_note(
            "quoted Rust snippets are not part of the language: declare a typed `property` \
             and call it, e.g. `property is_vectorizable($i in Insts) -> bool`",
        );
    } else if rest.starts_with("/*") {
        diagnostic = diagnostic.with_note("this block comment is never closed with `*/`");
    } else if positives.contains(&Rule::truth_op) && rest.starts_with(')') {
        diagnostic = diagnostic.with_note(
            "a condition in parentheses is a clause of `require ... (a || b) && (c)` or a side \
             of `(a) == (b)`; parentheses around it once more are not needed",
        );
    } else if (word == "==" || word == "!=") && text[..pos].trim_end().ends_with(')') {
        diagnostic = diagnostic.with_note(
            "`(a) == (b)` tests two conditions together and does not chain: write one test \
             per clause, `((a) == (b)) && ((b) == (c))`",
        );
    } else if is_keyword(word) && positives.contains(&Rule::ident) {
        diagnostic = diagnostic.with_note(format!(
            "`{word}` is a keyword and cannot be used as a name"
        ));
    } else if rest.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        && positives.contains(&Rule::var)
    {
        diagnostic = diagnostic.with_note(
            "arguments are variables bound by a parameter or a `forall`, such as `$d` in \
             `forall $d in Dims: ...`; constants go in comparisons",
        );
    } else if positives.contains(&Rule::var)
        && rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
    {
        diagnostic = diagnostic.with_note(format!("variables start with `$`: write `${word}`"));
    } else if positives.contains(&Rule::kw_end) || (expects_item && pos == text.len()) {
        diagnostic = diagnostic
            .with_note("blocks (`choice enum`, `choice counter`, `quotient`) close with `end`");
        let item = item_start_before(text, from, pos);
        let keyword_end = text[item..]
            .find([' ', '\t', '\n', '('])
            .map_or(text.len(), |i| item + i);
        if item < pos && keyword_end > item {
            diagnostic = diagnostic.with_label(
                Span::new(file, item, keyword_end),
                "this block is not closed",
            );
        }
    } else if expects_item {
        if let Some(keyword) = did_you_mean(word, ITEM_KEYWORDS.iter().copied()) {
            diagnostic = diagnostic.with_note(format!("did you mean `{keyword}`?"));
        } else if word == ";" {
            diagnostic =
                diagnostic.with_note("the language has no statement separator: remove the `;`");
        } else {
            diagnostic = diagnostic.with_note(
                "an item starts with `set`, `property`, `choice`, `require`, `trigger`, `quotient` or `include`",
            );
        }
    }
    (pos, diagnostic)
}

/// The integer inside a string that starts `rest`, as in `== "4"`.
fn quoted_integer(rest: &str) -> Option<&str> {
    let inner = rest.strip_prefix('"')?;
    let number = &inner[..inner.find('"')?];
    number
        .trim()
        .parse::<i64>()
        .is_ok()
        .then_some(number.trim())
}

/// The error for `true` or `false` written as a condition or an operand:
/// the parser read a call named `true` and wants its `(`. Says what to
/// write instead, which depends on what stands before the literal.
fn boolean_literal(file: FileId, text: &str, from: usize, pos: usize) -> Option<Diagnostic> {
    let before = text[..pos].trim_end();
    let literal = ["true", "false"].into_iter().find(|l| {
        before.ends_with(l)
            && !before[..before.len() - l.len()]
                .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    })?;
    let start = before.len() - literal.len();
    let preceding = text[..start].trim_end();
    let previous_word = preceding
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("");
    let holds = literal == "true";
    let in_trigger = text[item_start_before(text, from, start)..].starts_with("trigger");
    let note = match previous_word {
        "when" if in_trigger && holds => "a trigger always has a condition; objects it would always add are better declared upfront by the host",
        "when" if in_trigger => "a trigger that never fires can be removed",
        "require" if holds => "a constraint that always holds constrains nothing: remove this `require`",
        "require" => "a constraint that never holds leaves no valid candidate; to forbid a value, remove the value from its choice",
        "requires" if holds => "a clause that always holds restricts nothing: remove this `requires`",
        "requires" => "a value that can never be taken should not be declared: remove the value",
        "when" if holds => "a part that always applies has no `when`: remove `when true`",
        "when" => "a counter increment or trigger that never applies can be removed",
        "==" | "!=" => "test a boolean property directly: `p($x)` where it must hold, `!p($x)` where it must not",
        _ => "conditions are `is` tests, comparisons and boolean properties (`p($x)` or `!p($x)`); leave out a condition that always holds",
    };
    Some(
        Diagnostic::error(
            "syntax",
            format!("`{literal}` is not a condition: the language has no `true` or `false`"),
            Span::new(file, start, before.len()),
            "not a condition",
        )
        .with_note(note),
    )
}

/// The `/*` of a block comment left open before `pos`, if the error is at
/// the end of the input.
fn unclosed_block_comment(text: &str, from: usize, pos: usize) -> Option<usize> {
    if !text[pos..].trim().is_empty() {
        return None;
    }
    let mut at = from;
    let mut open = None;
    // Walk comments and strings in order so `/*` inside `//` does not count.
    while at < text.len() {
        let rest = &text[at..];
        if rest.starts_with("//") {
            at += rest.find('\n').unwrap_or(rest.len());
        } else if let Some(comment) = rest.strip_prefix("/*") {
            match comment.find("*/") {
                Some(end) => at += end + 4,
                None => {
                    open = Some(at);
                    break;
                }
            }
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    open
}

fn found_quote_expected(expected: &str) -> bool {
    expected.contains("`\"`")
}

/// The comparison operator written `symbol` (rule `compare_op`).
fn compare_op(symbol: &str) -> CompareOp {
    match symbol {
        "==" => CompareOp::Eq,
        "!=" => CompareOp::Ne,
        "<=" => CompareOp::Le,
        ">=" => CompareOp::Ge,
        "<" => CompareOp::Lt,
        _ => CompareOp::Gt,
    }
}

fn is_keyword(word: &str) -> bool {
    Grammar::parse(Rule::keyword, word)
        .is_ok_and(|mut p| p.next().is_some_and(|k| k.as_str() == word))
}

/// Turns pest pairs into syntax nodes. Grammar and builder agree by
/// construction; a mismatch (a bug here, not in the user's input) is
/// reported as an internal error rather than a panic.
struct Builder<'d> {
    file: FileId,
    offset: usize,
    diagnostics: &'d mut Vec<Diagnostic>,
}

type Pairs<'i> = pest::iterators::Pairs<'i, Rule>;

impl Builder<'_> {
    fn span(&self, pair: &Pair<'_, Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.file, self.offset + s.start(), self.offset + s.end())
    }

    /// The span of a pair up to the end of its last token: a rule that
    /// ends with a repetition (`product`) also holds the white space the
    /// repetition skipped before it stopped.
    fn tight_span(&self, pair: &Pair<'_, Rule>) -> Span {
        let mut last = pair.clone();
        while matches!(
            last.as_rule(),
            Rule::condition | Rule::compare_condition | Rule::product
        ) {
            match last.clone().into_inner().last() {
                Some(inner) => last = inner,
                None => break,
            }
        }
        let span = self.span(pair);
        Span::new(self.file, span.start, self.span(&last).end.max(span.start))
    }

    fn ident(&self, pair: Pair<'_, Rule>) -> Ident {
        let span = self.span(&pair);
        Ident {
            name: pair.as_str().trim_start_matches('$').to_string(),
            span,
        }
    }

    fn internal(&mut self, span: Span, what: &str) {
        self.diagnostics.push(Diagnostic::error(
            "internal",
            format!("internal error: unexpected syntax tree ({what})"),
            span,
            "while reading this",
        ));
    }

    fn item(mut self, pair: Pair<'_, Rule>) -> Option<Item> {
        let span = self.span(&pair);
        let item = match pair.as_rule() {
            Rule::include_decl => self.include(pair).map(Item::Include),
            Rule::set_decl => self.set(pair).map(Item::Set),
            Rule::property_decl => self.property(pair).map(Item::Property),
            Rule::choice_decl => self.choice(pair).map(|c| Item::Choice(Box::new(c))),
            Rule::require_decl => self.require(pair).map(Item::Require),
            Rule::trigger_decl => self.trigger(pair).map(Item::Trigger),
            Rule::quotient_decl => self.quotient(pair).map(|q| Item::Quotient(Box::new(q))),
            _ => None,
        };
        if item.is_none() {
            self.internal(span, "item");
        }
        item
    }

    fn docs(&self, pair: Pair<'_, Rule>) -> Vec<String> {
        pair.into_inner()
            .map(|line| {
                let text = line.into_inner().next().map_or("", |t| t.as_str());
                text.strip_prefix(' ')
                    .unwrap_or(text)
                    .trim_end()
                    .to_string()
            })
            .collect()
    }

    /// Takes the doc comments at the head of `inner`, if any.
    fn leading_docs(&self, inner: &mut std::iter::Peekable<Pairs<'_>>) -> Vec<String> {
        if inner
            .peek()
            .is_some_and(|p| p.as_rule() == Rule::doc_comments)
        {
            inner.next().map(|p| self.docs(p)).unwrap_or_default()
        } else {
            Vec::new()
        }
    }

    fn include(&mut self, pair: Pair<'_, Rule>) -> Option<Include> {
        let span = self.span(&pair);
        let string = pair.into_inner().find(|p| p.as_rule() == Rule::string)?;
        let path_span = self.span(&string);
        let path = string
            .into_inner()
            .next()
            .map_or(String::new(), |p| p.as_str().replace("\\\"", "\""));
        Some(Include {
            path,
            path_span,
            span,
        })
    }

    fn params(&mut self, pair: Pair<'_, Rule>) -> Option<Vec<Param>> {
        pair.into_inner().map(|p| self.param(p)).collect()
    }

    fn param(&mut self, pair: Pair<'_, Rule>) -> Option<Param> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().filter(|p| p.as_rule() != Rule::kw_in);
        let var = self.ident(inner.next()?);
        let set = self.set_ref(inner.next()?)?;
        Some(Param { var, set, span })
    }

    fn set_ref(&mut self, pair: Pair<'_, Rule>) -> Option<SetRef> {
        let span = self.span(&pair);
        let has_parens = pair.as_str().contains('(');
        let mut inner = pair.into_inner();
        let name = self.ident(inner.next()?);
        let args: Vec<Ident> = inner.map(|p| self.ident(p)).collect();
        // Without arguments, the pair also holds the white space skipped
        // before the `(` that did not come.
        let span = if has_parens { span } else { name.span };
        Some(SetRef {
            name,
            args: has_parens.then_some(args),
            span,
        })
    }

    fn set(&mut self, pair: Pair<'_, Rule>) -> Option<SetDecl> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().peekable();
        let doc = self.leading_docs(&mut inner);
        let mut decl = SetDecl {
            doc,
            name: Ident {
                name: String::new(),
                span,
            },
            params: Vec::new(),
            superset: None,
            disjoint: Vec::new(),
            span,
        };
        for p in inner {
            match p.as_rule() {
                Rule::ident => decl.name = self.ident(p),
                Rule::params => decl.params = self.params(p)?,
                Rule::superset => decl.superset = Some(self.set_ref(p.into_inner().nth(1)?)?),
                Rule::disjoint => {
                    decl.disjoint = p
                        .into_inner()
                        .filter(|p| p.as_rule() == Rule::ident)
                        .map(|p| self.ident(p))
                        .collect()
                }
                _ => {}
            }
        }
        Some(decl)
    }

    fn property(&mut self, pair: Pair<'_, Rule>) -> Option<PropertyDecl> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().peekable();
        let doc = self.leading_docs(&mut inner);
        let mut inner = inner.filter(|p| p.as_rule() != Rule::kw_property);
        let name = self.ident(inner.next()?);
        let params = self.params(inner.next()?)?;
        let ty_pair = inner.next()?;
        let ty_span = self.span(&ty_pair);
        let ty = match ty_pair.into_inner().next()?.as_rule() {
            Rule::kw_bool => PropertyType::Bool,
            Rule::kw_int => PropertyType::Int,
            _ => PropertyType::IntList,
        };
        Some(PropertyDecl {
            doc,
            name,
            params,
            ty,
            ty_span,
            span,
        })
    }

    fn choice(&mut self, pair: Pair<'_, Rule>) -> Option<ChoiceDecl> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().peekable();
        let doc = self.leading_docs(&mut inner);
        let keyword = inner.next()?;
        let header_start = self.span(&keyword).start;
        let body = inner.next()?;
        let rule = body.as_rule();
        let mut parts = body.into_inner().peekable();
        let mut half = false;
        while parts.peek().is_some_and(|p| {
            matches!(
                p.as_rule(),
                Rule::kw_enum | Rule::kw_integer | Rule::kw_counter | Rule::kw_half
            )
        }) {
            half |= parts.next().is_some_and(|p| p.as_rule() == Rule::kw_half);
        }
        let name = self.ident(parts.next()?);
        let params_pair = parts.next()?;
        let header_span = Span::new(self.file, header_start, self.span(&params_pair).end);
        let params = self.params(params_pair)?;
        let kind = match rule {
            Rule::enum_choice => ChoiceKind::Enum(self.enum_body(parts)?),
            Rule::integer_choice => ChoiceKind::Integer(self.universe(parts.next()?)?),
            _ => ChoiceKind::Counter(self.counter_body(parts, half)?),
        };
        Some(ChoiceDecl {
            doc,
            name,
            params,
            kind,
            header_span,
            span,
        })
    }

    fn enum_body(&mut self, parts: std::iter::Peekable<Pairs<'_>>) -> Option<EnumBody> {
        let mut body = EnumBody::default();
        for p in parts {
            let span = self.span(&p);
            match p.as_rule() {
                Rule::value_decl => {
                    let mut inner = p.into_inner().peekable();
                    let doc = self.leading_docs(&mut inner);
                    let mut inner = inner.filter(|p| p.as_rule() != Rule::kw_value);
                    let name = self.ident(inner.next()?);
                    let requires = inner.map(|r| self.requires(r)).collect::<Option<_>>()?;
                    body.values.push(ValueDecl {
                        doc,
                        name,
                        requires,
                    });
                }
                Rule::alias_decl => {
                    let mut inner = p.into_inner().peekable();
                    let doc = self.leading_docs(&mut inner);
                    let mut inner = inner.filter(|p| p.as_rule() != Rule::kw_alias);
                    let name = self.ident(inner.next()?);
                    let values = self.value_set(inner.next()?);
                    let requires = inner.map(|r| self.requires(r)).collect::<Option<_>>()?;
                    body.aliases.push(AliasDecl {
                        doc,
                        name,
                        values,
                        requires,
                        span,
                    });
                }
                Rule::antisymmetric_decl => {
                    let mappings = p
                        .into_inner()
                        .filter(|m| m.as_rule() == Rule::value_mapping)
                        .map(|m| {
                            let mut names = m.into_inner();
                            Some((self.ident(names.next()?), self.ident(names.next()?)))
                        })
                        .collect::<Option<_>>()?;
                    let keyword =
                        Span::new(self.file, span.start, span.start + "antisymmetric".len());
                    body.symmetries.push(SymmetryDecl::Antisymmetric {
                        mappings,
                        span: keyword,
                    });
                }
                Rule::symmetric_decl => body.symmetries.push(SymmetryDecl::Symmetric(span)),
                _ => {}
            }
        }
        Some(body)
    }

    fn requires(&mut self, pair: Pair<'_, Rule>) -> Option<Requires> {
        let span = self.span(&pair);
        let mut quantifiers = Vec::new();
        let mut conditions = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::quantifiers => quantifiers = self.quantifiers(p)?,
                Rule::condition_list => conditions = Some(self.condition_list(p)?),
                _ => {}
            }
        }
        Some(Requires {
            quantifiers,
            conditions: conditions?,
            span,
        })
    }

    fn universe(&mut self, pair: Pair<'_, Rule>) -> Option<Universe> {
        let inner = pair.into_inner().next()?;
        let span = self.span(&inner);
        Some(match inner.as_rule() {
            Rule::int_list => {
                let values = inner
                    .into_inner()
                    .map(|i| self.integer(i))
                    .collect::<Option<_>>()?;
                Universe::List { values, span }
            }
            _ => Universe::Property(self.call(inner)?),
        })
    }

    fn integer(&mut self, pair: Pair<'_, Rule>) -> Option<(i64, Span)> {
        let span = self.span(&pair);
        match pair.as_str().parse::<i64>() {
            Ok(v) => Some((v, span)),
            Err(_) => {
                self.diagnostics.push(Diagnostic::error(
                    "integer-range",
                    "integer out of range",
                    span,
                    format!("integers range from {} to {}", i64::MIN, i64::MAX),
                ));
                Some((0, span))
            }
        }
    }

    fn counter_body(
        &mut self,
        parts: std::iter::Peekable<Pairs<'_>>,
        half: bool,
    ) -> Option<CounterBody> {
        let mut quantifiers = Vec::new();
        let mut op = CounterOp::Sum;
        let mut operand = None;
        let mut conditions = None;
        let mut base = None;
        for p in parts {
            match p.as_rule() {
                Rule::quantifiers => quantifiers = self.quantifiers(p)?,
                Rule::counter_op => {
                    op = if p.into_inner().next()?.as_rule() == Rule::kw_mul {
                        CounterOp::Mul
                    } else {
                        CounterOp::Sum
                    }
                }
                Rule::operand => operand = Some(self.operand(p)?),
                Rule::condition_list => conditions = Some(self.condition_list(p)?),
                Rule::counter_base => base = Some(self.operand(p.into_inner().nth(1)?)?),
                _ => {}
            }
        }
        Some(CounterBody {
            half,
            quantifiers,
            op,
            operand: operand?,
            conditions,
            base,
        })
    }

    fn quantifiers(&mut self, pair: Pair<'_, Rule>) -> Option<Vec<Param>> {
        let mut params = Vec::new();
        for quantifier in pair.into_inner() {
            for p in quantifier
                .into_inner()
                .filter(|p| p.as_rule() == Rule::param)
            {
                params.push(self.param(p)?);
            }
        }
        Some(params)
    }

    fn require(&mut self, pair: Pair<'_, Rule>) -> Option<RequireDecl> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().peekable();
        let doc = self.leading_docs(&mut inner);
        let mut quantifiers = Vec::new();
        let mut clauses = Vec::new();
        for p in inner {
            match p.as_rule() {
                Rule::quantifiers => quantifiers = self.quantifiers(p)?,
                Rule::condition_list => clauses.push(self.condition_list(p)?),
                Rule::clause_groups => {
                    for group in p.into_inner() {
                        clauses.push(self.condition_list(group.into_inner().next()?)?);
                    }
                }
                _ => {}
            }
        }
        if clauses.is_empty() {
            return None;
        }
        Some(RequireDecl {
            doc,
            quantifiers,
            clauses,
            span,
        })
    }

    fn trigger(&mut self, pair: Pair<'_, Rule>) -> Option<TriggerDecl> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().peekable();
        let doc = self.leading_docs(&mut inner);
        let mut quantifiers = Vec::new();
        let mut callback = None;
        let mut conditions = None;
        for p in inner {
            match p.as_rule() {
                Rule::quantifiers => quantifiers = self.quantifiers(p)?,
                Rule::call => callback = Some(self.call(p)?),
                Rule::condition_list => conditions = Some(self.condition_list(p)?),
                _ => {}
            }
        }
        Some(TriggerDecl {
            doc,
            quantifiers,
            callback: callback?,
            conditions: conditions?,
            span,
        })
    }

    fn quotient(&mut self, pair: Pair<'_, Rule>) -> Option<QuotientDecl> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().peekable();
        let doc = self.leading_docs(&mut inner);
        let mut inner = inner.filter(|p| {
            !matches!(
                p.as_rule(),
                Rule::kw_quotient | Rule::kw_of | Rule::kw_is | Rule::kw_end
            )
        });
        let name = self.ident(inner.next()?);
        let params = self.params(inner.next()?)?;
        let member = self.param(inner.next()?)?;
        let flag = self.ident(inner.next()?);
        let condition = self.condition(inner.next()?)?;
        let relation = self.ident(inner.next()?);
        let relation_values = self.value_set(inner.next()?);
        Some(QuotientDecl {
            doc,
            name,
            params,
            member,
            flag,
            condition,
            relation,
            relation_values,
            span,
        })
    }

    fn condition_list(&mut self, pair: Pair<'_, Rule>) -> Option<ConditionList> {
        let span = self.span(&pair);
        let mut conditions = Vec::new();
        let mut ops = Vec::new();
        for p in pair.into_inner() {
            if p.as_rule() == Rule::logic_op {
                let op = if p.as_str() == "||" {
                    LogicOp::Or
                } else {
                    LogicOp::And
                };
                ops.push((op, self.span(&p)));
            } else {
                conditions.push(self.condition(p)?);
            }
        }
        Some(ConditionList {
            conditions,
            ops,
            span,
        })
    }

    fn condition(&mut self, pair: Pair<'_, Rule>) -> Option<Condition> {
        let mut span = self.tight_span(&pair);
        let inner = pair.into_inner().next()?;
        let kind = match inner.as_rule() {
            Rule::member_condition => {
                let mut parts = inner.into_inner().filter(|p| p.as_rule() != Rule::kw_in);
                let var = self.ident(parts.next()?);
                let mut next = parts.next()?;
                let negated = next.as_rule() == Rule::kw_not;
                if negated {
                    next = parts.next()?;
                }
                let set = self.set_ref(next)?;
                // The set's pair may end with skipped white space.
                span = Span::new(self.file, span.start, set.span.end);
                ConditionKind::Member { var, negated, set }
            }
            Rule::list_condition => {
                let mut parts = inner.into_inner().filter(|p| p.as_rule() != Rule::kw_in);
                let value = self.product(parts.next()?)?;
                let list = self.call(parts.next()?)?;
                ConditionKind::InList { value, list }
            }
            Rule::object_compare => {
                let mut parts = inner.into_inner();
                let lhs = self.ident(parts.next()?);
                let op_pair = parts.next()?;
                let op_span = self.span(&op_pair);
                let op = compare_op(op_pair.as_str());
                let rhs = self.ident(parts.next()?);
                ConditionKind::ObjectCompare {
                    lhs,
                    op,
                    op_span,
                    rhs,
                }
            }
            Rule::same_truth => {
                let mut parts = inner.into_inner();
                let lhs = self.truth_side(parts.next()?)?;
                let op_pair = parts.next()?;
                let op_span = self.span(&op_pair);
                let rhs = self.truth_side(parts.next()?)?;
                ConditionKind::SameTruth {
                    lhs: Box::new(lhs),
                    equal: op_pair.as_str() == "==",
                    op_span,
                    rhs: Box::new(rhs),
                }
            }
            Rule::is_condition => {
                let mut parts = inner.into_inner().filter(|p| p.as_rule() != Rule::kw_is);
                let call = self.call(parts.next()?)?;
                let mut next = parts.next()?;
                let negated = next.as_rule() == Rule::kw_not;
                if negated {
                    next = parts.next()?;
                }
                ConditionKind::Is {
                    call,
                    negated,
                    values: self.value_set(next),
                }
            }
            Rule::compare_condition => {
                let mut parts = inner.into_inner().peekable();
                let lhs = self.product(parts.next()?)?;
                let divisor = match parts.peek().map(|p| p.as_rule()) {
                    Some(Rule::modulo) => {
                        let modulo = parts.next()?;
                        Some(self.product(modulo.into_inner().next()?)?)
                    }
                    _ => None,
                };
                let op_pair = parts.next()?;
                let op_span = self.span(&op_pair);
                let op = compare_op(op_pair.as_str());
                let rhs = self.product(parts.next()?)?;
                match divisor {
                    None => ConditionKind::Compare {
                        lhs,
                        op,
                        op_span,
                        rhs,
                    },
                    Some(divisor) => {
                        let op = match (op, &rhs) {
                            (CompareOp::Eq, Operand::Int(0, _)) => CompareOp::Multiple,
                            (CompareOp::Ne, Operand::Int(0, _)) => CompareOp::NotMultiple,
                            _ => {
                                self.diagnostics.push(
                                    Diagnostic::error(
                                        "modulo",
                                        "a remainder is only compared with 0",
                                        op_span.to(rhs.span()),
                                        "expected `== 0` or `!= 0`",
                                    )
                                    .with_note(
                                        "`a % b == 0` says that `a` is a multiple of `b`, `a % b != 0` that it is not",
                                    ),
                                );
                                CompareOp::Multiple
                            }
                        };
                        ConditionKind::Compare {
                            lhs,
                            op,
                            op_span,
                            rhs: divisor,
                        }
                    }
                }
            }
            _ => {
                let mut parts = inner.into_inner().peekable();
                let negated = parts.peek().is_some_and(|p| p.as_rule() == Rule::negation);
                if negated {
                    parts.next();
                }
                ConditionKind::Bool {
                    call: self.call(parts.next()?)?,
                    negated,
                }
            }
        };
        Some(Condition { kind, span })
    }

    /// A side of `(a) == (b)`: a condition in parentheses (rules
    /// `truth_side` and `plain_condition`, which has `condition`'s forms but
    /// does not nest), or a boolean property (rule `bool_side`).
    fn truth_side(&mut self, pair: Pair<'_, Rule>) -> Option<Condition> {
        match pair.as_rule() {
            Rule::truth_side => self.condition(pair.into_inner().next()?),
            Rule::bool_side => {
                let span = self.tight_span(&pair);
                let mut parts = pair.into_inner().peekable();
                let negated = parts.peek().is_some_and(|p| p.as_rule() == Rule::negation);
                if negated {
                    parts.next();
                }
                Some(Condition {
                    kind: ConditionKind::Bool {
                        call: self.call(parts.next()?)?,
                        negated,
                    },
                    span,
                })
            }
            _ => self.condition(pair),
        }
    }

    /// A product of operands, or its only operand (rules `product`, and
    /// `operand` itself where a divisor is a single operand).
    fn product(&mut self, pair: Pair<'_, Rule>) -> Option<Operand> {
        if pair.as_rule() == Rule::operand {
            return self.operand(pair);
        }
        let span = self.tight_span(&pair);
        let mut factors = Vec::new();
        for factor in pair.into_inner() {
            factors.push(self.operand(factor)?);
        }
        if factors.len() == 1 {
            return factors.pop();
        }
        Some(Operand::Product(factors, span))
    }

    fn operand(&mut self, pair: Pair<'_, Rule>) -> Option<Operand> {
        let inner = pair.into_inner().next()?;
        Some(match inner.as_rule() {
            Rule::integer => {
                let (value, span) = self.integer(inner)?;
                Operand::Int(value, span)
            }
            _ => Operand::Call(self.call(inner)?),
        })
    }

    fn call(&mut self, pair: Pair<'_, Rule>) -> Option<Call> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner();
        let name = self.ident(inner.next()?);
        let args = inner.map(|p| self.ident(p)).collect();
        Some(Call { name, args, span })
    }

    fn value_set(&mut self, pair: Pair<'_, Rule>) -> Vec<Ident> {
        pair.into_inner().map(|p| self.ident(p)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_items_and_recovers_after_an_error() {
        let text = "set A\nchoice enum broken($a in A):\n  value X\n  value\nend\nset B\n";
        let parsed = parse_file(0, text);
        assert_eq!(parsed.items.len(), 2, "{:?}", parsed.diagnostics);
        assert_eq!(parsed.diagnostics.len(), 1);
        assert_eq!(parsed.broken_names, vec!["broken".to_string()]);
    }

    #[test]
    fn keeps_doc_comments() {
        let parsed = parse_file(0, "/// Loops.\n/// Second line.\nset Loops // trailing\n");
        let Some(Item::Set(set)) = parsed.items.first() else {
            panic!("{:?}", parsed)
        };
        assert_eq!(set.doc, vec!["Loops.", "Second line."]);
    }
}
