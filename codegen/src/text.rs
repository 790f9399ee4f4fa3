//! The source text of checked items, for the docs and descriptions of the
//! generated code.

use commute_dsl::ir::Origin;
use commute_dsl::SourceMap;

/// Where an item's declaration is, for the generated code.
pub struct Located<'a> {
    sources: &'a SourceMap,
}

impl<'a> Located<'a> {
    pub fn new(sources: &'a SourceMap) -> Self {
        Located { sources }
    }

    /// The declaration's text without its leading doc comments, and the
    /// byte offset where it starts.
    fn body(&self, origin: &Origin) -> (usize, &'a str) {
        let text = self.sources.text(origin.span.file);
        let end = origin.span.end.min(text.len());
        let start = origin.span.start.min(end);
        let Some(mut declaration) = text.get(start..end) else {
            return (start, "");
        };
        let mut offset = start;
        loop {
            let trimmed = declaration.trim_start();
            offset += declaration.len() - trimmed.len();
            declaration = trimmed;
            // Doc comments, and comments between them and the keyword.
            let skip = if declaration.starts_with("//") {
                declaration.find('\n').unwrap_or(declaration.len())
            } else if let Some(comment) = declaration.strip_prefix("/*") {
                comment.find("*/").map_or(declaration.len(), |i| i + 4)
            } else {
                return (offset, declaration);
            };
            offset += skip;
            declaration = &declaration[skip..];
        }
    }

    /// `file:line` of the declaration's first keyword (after its docs), with
    /// the file named as in the source map.
    pub fn position(&self, origin: &Origin) -> String {
        let (offset, _) = self.body(origin);
        let (line, _) = self.sources.line_column(origin.span.file, offset);
        format!("{}:{line}", self.sources.name(origin.span.file))
    }

    /// The declaration on one line: comments dropped, white space runs
    /// collapsed to one space.
    pub fn one_line(&self, origin: &Origin) -> String {
        collapse(&strip_comments(self.body(origin).1))
    }

    /// The declaration as written, its lines de-indented as a block.
    pub fn verbatim(&self, origin: &Origin) -> Vec<String> {
        let (offset, body) = self.body(origin);
        let text = self.sources.text(origin.span.file);
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let first_indent = offset - line_start;
        let lines: Vec<&str> = body.lines().map(str::trim_end).collect();
        let indent = lines
            .iter()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .chain([first_indent])
            .min()
            .unwrap_or(0);
        lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                if i == 0 {
                    // The first line starts at the keyword: re-indent it by
                    // what it had beyond the block's indentation.
                    format!("{}{line}", " ".repeat(first_indent - indent))
                } else {
                    line.get(indent..).unwrap_or(line.trim_start()).to_string()
                }
            })
            .collect()
    }
}

/// Removes `//` and `/* */` comments, leaving strings alone.
fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            rest = &rest[end..];
            out.push(' ');
        } else if rest.starts_with("/*") {
            let end = rest[2..].find("*/").map_or(rest.len(), |i| i + 4);
            rest = &rest[end..];
            out.push(' ');
        } else if c == '"' {
            let mut end = 1;
            let mut escaped = false;
            for (i, ch) in rest.char_indices().skip(1) {
                end = i + ch.len_utf8();
                match ch {
                    '\\' if !escaped => escaped = true,
                    '"' if !escaped => break,
                    _ => escaped = false,
                }
            }
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_stripped_outside_strings() {
        assert_eq!(
            collapse(&strip_comments("a // x\n  b /* y\n */ \"c // d\"")),
            "a b \"c // d\""
        );
    }
}
