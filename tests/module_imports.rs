//! The modules of every library crate import each other without a cycle:
//! every `use crate::...`, `use super::...`, `use self::...` (and path
//! written inline in code) names a module, and following those edges never
//! comes back. Run with `--nocapture` to see the edges. The model is a
//! crate of its own that the runtime re-exports (`crate::model`): paths
//! into it leave the runtime, so they are no edges.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Module name (`crate`, `plan`, `plan::runs`, ...) to its source.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).expect("the source folder is readable") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).expect("below the source folder");
            let mut parts: Vec<String> = relative
                .with_extension("")
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                parts.pop();
            }
            let name = if parts.is_empty() {
                "crate".to_string()
            } else {
                format!("crate::{}", parts.join("::"))
            };
            out.insert(name, fs::read_to_string(&path).expect("a readable file"));
        }
    }
    out
}

/// The code of a file without comments, string and character literals
/// (each replaced by a space), so that only code is searched.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        if rest.starts_with(&['/', '/']) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else if rest[0] == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if rest[0] == '\'' && (rest.get(1) == Some(&'\\') || rest.get(2) == Some(&'\'')) {
            // A character literal (a lifetime has no closing quote there).
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push(' ');
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    out
}

/// The paths of a use tree: `a::{b, c::{d, e as f}}` is `a::b`, `a::c::d`,
/// `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or("");
        return vec![path.replace(' ', "")];
    };
    let prefix = tree[..open].replace(' ', "");
    let close = tree.rfind('}').unwrap_or(tree.len());
    let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in tree[open + 1..close].chars() {
        match c {
            ',' if depth == 0 => parts.push(std::mem::take(&mut current)),
            '{' | '}' => {
                depth += if c == '{' { 1 } else { -1 };
                current.push(c);
            }
            _ => current.push(c),
        }
    }
    parts.push(current);
    parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(|p| expand(p))
        .map(|p| match p.as_str() {
            "self" => prefix.trim_end_matches(':').to_string(),
            _ => format!("{prefix}{p}"),
        })
        .collect()
}

/// Crates re-exported under a module's name (the runtime's `model`): a
/// `crate::` path into one names no module of the crate at hand.
const REEXPORTED_CRATES: &[&str] = &["model"];

/// The module a path names from module `here` inside `inline` inline
/// `mod x { }` blocks: the longest prefix of the path that is a module.
fn resolve(
    path: &str,
    here: &str,
    inline: usize,
    modules: &BTreeMap<String, String>,
) -> Option<String> {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Vec<String> = here.split("::").map(str::to_string).collect();
    match segments.first().copied()? {
        "crate" => {
            base = vec!["crate".to_string()];
            segments.remove(0);
            if segments
                .first()
                .is_some_and(|first| REEXPORTED_CRATES.contains(first))
            {
                return None;
            }
        }
        "super" | "self" => {
            base.extend(std::iter::repeat_n("<inline>".to_string(), inline));
            while let Some(&first) = segments.first() {
                match first {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                segments.remove(0);
            }
            base.retain(|b| b != "<inline>");
        }
        // A child module named without `self::` (2018 paths).
        child if modules.contains_key(&format!("{here}::{child}")) => {}
        _ => return None,
    }
    let mut best = base.join("::");
    for k in 1..=segments.len() {
        let candidate = format!("{}::{}", base.join("::"), segments[..k].join("::"));
        if modules.contains_key(&candidate) {
            best = candidate;
        }
    }
    Some(best)
}

/// Per module, the modules it imports.
fn edges(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (here, text) in modules {
        let code = code_only(text);
        let bytes = code.as_bytes();
        // Inline `mod x {` blocks, as byte ranges.
        let mut blocks = Vec::new();
        for (at, _) in code.match_indices("mod ") {
            let after = &code[at + 4..];
            let name_end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            if !after[name_end..].trim_start().starts_with('{') {
                continue;
            }
            let open = at + 4 + name_end + after[name_end..].find('{').unwrap_or(0);
            let (mut depth, mut end) = (0i32, open);
            for (k, &b) in bytes.iter().enumerate().skip(open) {
                depth += match b {
                    b'{' => 1,
                    b'}' => -1,
                    _ => 0,
                };
                if depth == 0 {
                    end = k;
                    break;
                }
            }
            blocks.push((at, end));
        }
        let inline = |at: usize| blocks.iter().filter(|&&(a, b)| a < at && at < b).count();
        let word_start = |at: usize| {
            at == 0
                || !(bytes[at - 1].is_ascii_alphanumeric()
                    || bytes[at - 1] == b'_'
                    || bytes[at - 1] == b':')
        };
        let mut paths = Vec::new();
        let mut used = Vec::new();
        for (at, _) in code.match_indices("use ") {
            if !word_start(at) {
                continue;
            }
            let Some(end) = code[at..].find(';') else {
                continue;
            };
            used.push((at, at + end));
            for path in expand(&code[at + 4..at + end]) {
                paths.push((path, inline(at)));
            }
        }
        for root in ["crate::", "super::"] {
            for (at, _) in code.match_indices(root) {
                if !word_start(at) || used.iter().any(|&(a, b)| a <= at && at <= b) {
                    continue;
                }
                let end = code[at..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .map_or(code.len(), |n| at + n);
                paths.push((code[at..end].to_string(), inline(at)));
            }
        }
        let out = edges.entry(here.clone()).or_default();
        for (path, depth) in paths {
            if let Some(target) = resolve(&path, here, depth, modules) {
                if &target != here {
                    out.insert(target);
                }
            }
        }
    }
    edges
}

/// A cycle of `edges`, if there is one.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut found = stack[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, done, stack) {
                return Some(found);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut done, &mut Vec::new()))
}

/// The import edges of the crate in `folder`, printed, after checking
/// that they form no circle.
fn acyclic_edges(folder: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join("src");
    let modules = modules(&src);
    let edges = edges(&modules);
    let short = |m: &str| m.strip_prefix("crate::").unwrap_or(m).to_string();
    for (module, targets) in &edges {
        let targets: Vec<String> = targets.iter().map(|t| short(t)).collect();
        println!("{folder}: {:28} -> {}", short(module), targets.join(", "));
    }
    if let Some(found) = cycle(&edges) {
        let found: Vec<String> = found.iter().map(|m| short(m)).collect();
        panic!(
            "the modules of {folder}/src import each other in a circle: {}",
            found.join(" -> ")
        );
    }
    edges
}

#[test]
fn runtime_modules_import_each_other_without_a_cycle() {
    let edges = acyclic_edges("runtime");
    // The leaves below the engine import nothing of it (the model is
    // another crate).
    for leaf in ["crate::binding", "crate::values", "crate::plan::row_index"] {
        assert!(
            edges[leaf].iter().all(|t| t == "crate::backbone"),
            "{leaf} imports {:?}",
            edges[leaf]
        );
    }
}

#[test]
fn language_modules_import_each_other_without_a_cycle() {
    for folder in ["model", "dsl", "codegen"] {
        acyclic_edges(folder);
    }
}

#[test]
fn loop_tuner_modules_import_each_other_without_a_cycle() {
    acyclic_edges("loops");
}
