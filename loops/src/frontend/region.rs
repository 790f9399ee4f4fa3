//! Where the loop nest to read is: the region between `#pragma scop` and
//! `#pragma endscop`, or else one of the file's loop nests (an outermost
//! `for` statement of a function), picked by function name or line with
//! `--nest`, or the only one that reads.

use std::ops::Range;
use std::path::Path;

use tree_sitter::{Node, Parser, Tree};

use super::context::function_name;
use super::kernel::{line_column, FrontendError, Kernel, RegionKind};
use super::reader::{read_region, ReadOptions};

/// Reads and parses the C file at `path` (named in errors as given): the
/// scop region, or the nest `nest` names (a function or a line), or the
/// file's only readable nest. Errors are for people, reading the file's
/// included.
pub fn read_kernel_file(path: &Path, nest: Option<&str>) -> Result<Kernel, String> {
    read_kernel_file_with(path, nest, ReadOptions::default())
}

/// [`read_kernel_file`], read as `reading` says.
pub fn read_kernel_file_with(
    path: &Path,
    nest: Option<&str>,
    reading: ReadOptions,
) -> Result<Kernel, String> {
    let source = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    read_nest_with(&path.display().to_string(), &source, nest, reading).map_err(|e| e.to_string())
}

/// Reads the loop nest of `source` (the text of the file at `path`): its
/// scop region, or else its only readable loop nest.
pub fn read_kernel(path: &str, source: &str) -> Result<Kernel, FrontendError> {
    read_nest(path, source, None)
}

/// Reads the loop nest `nest` names (a function's name, or a line inside
/// the nest), or without it the scop region, or else the file's only
/// readable nest.
pub fn read_nest(path: &str, source: &str, nest: Option<&str>) -> Result<Kernel, FrontendError> {
    read_nest_with(path, source, nest, ReadOptions::default())
}

/// [`read_nest`], read as `reading` says.
pub fn read_nest_with(
    path: &str,
    source: &str,
    nest: Option<&str>,
    reading: ReadOptions,
) -> Result<Kernel, FrontendError> {
    let tree = parse(path, source)?;
    if nest.is_none() {
        if let Some(region) = find_region(path, source)? {
            let function = enclosing_function(tree.root_node(), region.start);
            return read_region(
                path,
                source,
                tree.root_node(),
                region,
                RegionKind::Scop,
                function,
                reading,
            );
        }
    }
    let nests = nests_of(path, source, &tree, reading);
    match nest {
        Some(wanted) => pick(path, nests, wanted),
        None => only_readable(path, nests),
    }
}

/// One loop nest of a file: an outermost `for` statement of a function,
/// and what reading it gave.
#[derive(Debug)]
pub struct Nest {
    /// The function it is in.
    pub function: String,
    /// The `for` statement's byte span.
    pub span: Range<usize>,
    /// 1-based line of the `for`.
    pub line: usize,
    /// 1-based line of the nest's end.
    pub last_line: usize,
    /// For a nest inside one that does not read, the line of that one.
    pub inside: Option<usize>,
    /// The nest read, or why it cannot be.
    pub outcome: Result<Kernel, FrontendError>,
}

impl Nest {
    fn within(&self) -> String {
        self.inside
            .map(|line| format!(" (in the loop of line {line})"))
            .unwrap_or_default()
    }

    /// `function, line L` with its depth and statements, or the reason it
    /// does not read.
    pub fn describe(&self) -> String {
        match &self.outcome {
            Ok(kernel) => {
                let depth = kernel
                    .statements
                    .iter()
                    .map(|s| s.loops.len())
                    .max()
                    .unwrap_or(0);
                let count = kernel.statements.len();
                format!(
                    "{}, line {}{}: depth {depth}, {count} statement{}",
                    self.function,
                    self.line,
                    self.within(),
                    if count == 1 { "" } else { "s" }
                )
            }
            Err(e) => format!(
                "{}, line {}{}: not read: line {}, column {}: {}: {}",
                self.function,
                self.line,
                self.within(),
                e.line,
                e.column,
                e.construct,
                e.message
            ),
        }
    }
}

/// Every loop nest of a file without a scop region, in textual order
/// (with a scop region too: the nests then ignore it).
pub fn list_nests(path: &str, source: &str) -> Result<Vec<Nest>, FrontendError> {
    let tree = parse(path, source)?;
    Ok(nests_of(path, source, &tree, ReadOptions::default()))
}

/// Whether the file has a `#pragma scop` region (an unclosed or nested
/// one is an error).
pub fn has_scop_region(path: &str, source: &str) -> Result<bool, FrontendError> {
    Ok(find_region(path, source)?.is_some())
}

fn parse(path: &str, source: &str) -> Result<Tree, FrontendError> {
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
    parser.parse(source, None).ok_or_else(|| FrontendError {
        path: path.into(),
        line: 1,
        column: 1,
        construct: "C parser".into(),
        message: "the parser gave no tree".into(),
    })
}

fn nests_of(path: &str, source: &str, tree: &Tree, reading: ReadOptions) -> Vec<Nest> {
    let file = File {
        path,
        source,
        root: tree.root_node(),
        reading,
    };
    let mut functions = Vec::new();
    collect_functions(file.root, &mut functions);
    let mut nests = Vec::new();
    for function in functions {
        let name = function_name(function, source).unwrap_or_else(|| "?".to_string());
        if let Some(body) = function.child_by_field_name("body") {
            let mut loops = Vec::new();
            outermost_loops(body, &mut loops);
            for node in loops {
                file.read_with_inner_nests(&name, node, None, &mut nests);
            }
        }
    }
    nests
}

/// A parsed file whose nests are read, and how.
struct File<'s, 't> {
    path: &'s str,
    source: &'s str,
    root: Node<'t>,
    reading: ReadOptions,
}

impl File<'_, '_> {
    /// Reads the nest of the `for` statement `node`; if it does not read
    /// (a timing loop calling a function around the kernel, say), the
    /// nests inside it are tried in turn, so the kernel within stays
    /// reachable.
    fn read_with_inner_nests(
        &self,
        function: &str,
        node: Node,
        inside: Option<usize>,
        nests: &mut Vec<Nest>,
    ) {
        let span = node.byte_range();
        let (line, _) = line_column(self.source, span.start);
        let (last_line, _) = line_column(self.source, span.end);
        let outcome = read_region(
            self.path,
            self.source,
            self.root,
            span.clone(),
            RegionKind::Nest {
                function: function.to_string(),
            },
            enclosing_function(self.root, span.start),
            self.reading,
        );
        let readable = outcome.is_ok();
        nests.push(Nest {
            function: function.to_string(),
            span,
            line,
            last_line,
            inside,
            outcome,
        });
        if !readable {
            if let Some(body) = node.child_by_field_name("body") {
                let mut loops = Vec::new();
                if body.kind() == "for_statement" {
                    loops.push(body);
                } else {
                    outermost_loops(body, &mut loops);
                }
                for inner in loops {
                    self.read_with_inner_nests(function, inner, Some(line), nests);
                }
            }
        }
    }
}

fn collect_functions<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "function_definition" {
            out.push(child);
        } else if child.named_child_count() > 0 && child.kind() != "compound_statement" {
            // Functions inside preprocessor conditionals and the like.
            collect_functions(child, out);
        }
    }
}

fn outermost_loops<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "for_statement" {
            out.push(child);
        } else {
            outermost_loops(child, out);
        }
    }
}

/// The function definition around a byte offset.
fn enclosing_function(root: Node, offset: usize) -> Option<Node> {
    let mut node = root.descendant_for_byte_range(offset, offset)?;
    loop {
        if node.kind() == "function_definition" {
            return Some(node);
        }
        node = node.parent()?;
    }
}

fn pick(path: &str, nests: Vec<Nest>, wanted: &str) -> Result<Kernel, FrontendError> {
    let error = |construct: &str, message: String| FrontendError {
        path: path.into(),
        line: 1,
        column: 1,
        construct: construct.into(),
        message,
    };
    let listing = |indices: &[usize]| {
        indices
            .iter()
            .map(|&i| format!("\n  {}", nests[i].describe()))
            .collect::<String>()
    };
    let line = wanted.trim().parse::<usize>().ok();
    let chosen: Vec<usize> = (0..nests.len())
        .filter(|&i| {
            let n = &nests[i];
            match line {
                Some(line) => (n.line..=n.last_line).contains(&line),
                None => n.function == wanted,
            }
        })
        .collect();
    let readable: Vec<usize> = chosen
        .iter()
        .copied()
        .filter(|&i| nests[i].outcome.is_ok())
        .collect();
    let index = match (chosen.as_slice(), readable.as_slice()) {
        ([], _) => {
            let all: Vec<usize> = (0..nests.len()).collect();
            return Err(error(
                "no such loop nest",
                format!(
                    "no loop nest is in a function named `{wanted}` or at line {wanted}; the file's nests:{}",
                    listing(&all)
                ),
            ));
        }
        (_, [only]) | ([only], []) => *only,
        (_, []) => {
            return Err(error(
                "no readable loop nest",
                format!("no nest of `{wanted}` reads:{}", listing(&chosen)),
            ))
        }
        _ => {
            return Err(error(
                "several loop nests",
                format!(
                    "`{wanted}` has several; give `--nest LINE` with one of their lines:{}",
                    listing(&readable)
                ),
            ))
        }
    };
    nests.into_iter().nth(index).map_or_else(
        || Err(error("no such loop nest", String::new())),
        |n| n.outcome,
    )
}

fn only_readable(path: &str, nests: Vec<Nest>) -> Result<Kernel, FrontendError> {
    let error = |construct: &str, message: String| FrontendError {
        path: path.into(),
        line: 1,
        column: 1,
        construct: construct.into(),
        message,
    };
    let listing: String = nests
        .iter()
        .map(|n| format!("\n  {}", n.describe()))
        .collect();
    let readable = nests.iter().filter(|n| n.outcome.is_ok()).count();
    match (nests.len(), readable) {
        (0, _) => Err(error(
            "no region",
            "the file has no `#pragma scop` ... `#pragma endscop` region and no `for` loop in a function"
                .into(),
        )),
        (1, _) => nests
            .into_iter()
            .next()
            .map_or_else(|| Err(error("no region", String::new())), |n| n.outcome),
        (_, 1) => nests
            .into_iter()
            .find(|n| n.outcome.is_ok())
            .map_or_else(|| Err(error("no region", String::new())), |n| n.outcome),
        (_, 0) => Err(error(
            "no readable loop nest",
            format!("the file has no `#pragma scop` region and none of its loop nests reads:{listing}"),
        )),
        _ => Err(error(
            "several loop nests",
            format!(
                "the file has no `#pragma scop` region and several loop nests; pick one with `--nest FUNCTION` or `--nest LINE`:{listing}"
            ),
        )),
    }
}

/// The byte range between the `#pragma scop` line and the `#pragma
/// endscop` line, if the file has them.
fn find_region(path: &str, source: &str) -> Result<Option<Range<usize>>, FrontendError> {
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
            (true, Some("endscop"), Some(begin)) => return Ok(Some(begin..offset)),
            _ => {}
        }
        offset += line.len();
    }
    match start {
        None => Ok(None),
        Some(_) => Err(FrontendError {
            path: path.into(),
            line: 1,
            column: 1,
            construct: "unclosed region".into(),
            message: "`#pragma scop` has no matching `#pragma endscop`".into(),
        }),
    }
}
