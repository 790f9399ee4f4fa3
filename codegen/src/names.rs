//! Rust identifiers for the names of a space.
//!
//! Space names follow a looser convention than Rust's (any letter case,
//! Rust keywords allowed), so every name goes through [`ident`], and names
//! that end up in one Rust namespace go through a [`Namespace`], which
//! reports two space names that would become the same Rust name.

use std::collections::HashMap;

use proc_macro2::{Ident, Span};

use crate::Error;

/// Keywords that cannot be raw identifiers: they get a trailing `_`.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Rust keywords, strict and reserved, of every edition up to 2024.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// The Rust spelling of a name: raw if it is a keyword, with a trailing
/// `_` if it is a keyword that cannot be raw.
pub fn rust_name(name: &str) -> String {
    if NOT_RAW.contains(&name) {
        format!("{name}_")
    } else if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// An identifier for `name` (see [`rust_name`]).
pub fn ident(name: &str) -> Ident {
    let name = rust_name(name);
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(&name, Span::call_site()),
    }
}

/// `MemBlocks` -> `mem_blocks`, `HTTPServer` -> `http_server`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let previous = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = match previous {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `mem_blocks` -> `MemBlocks`; names already in camel case are kept.
pub fn upper_camel_case(name: &str) -> String {
    let mut out = String::new();
    let leading = name.len() - name.trim_start_matches('_').len();
    out.push_str(&name[..leading]);
    for part in name[leading..].split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    out
}

/// Whether rustc's `non_snake_case` lint accepts `name`.
pub fn is_snake_case(name: &str) -> bool {
    !name.chars().any(|c| c.is_ascii_uppercase())
}

/// Whether rustc's `non_upper_case_globals` lint accepts `name`.
pub fn is_upper_case(name: &str) -> bool {
    !name.chars().any(|c| c.is_ascii_lowercase())
}

/// Rust names already taken in one namespace, with what took them.
pub struct Namespace {
    what: &'static str,
    taken: HashMap<String, String>,
}

impl Namespace {
    pub fn new(what: &'static str) -> Self {
        Namespace {
            what,
            taken: HashMap::new(),
        }
    }

    /// Reserves names the generated code itself uses.
    pub fn reserve(&mut self, names: &[&str], by: &str) {
        for name in names {
            self.taken.insert(name.to_string(), by.to_string());
        }
    }

    /// Takes the Rust name `rust` for `owner` (a description such as
    /// "set `MemBlocks` (every_construct.space:7)"), or reports a clash.
    pub fn take(&mut self, rust: &str, owner: String) -> Result<Ident, Error> {
        let rust = rust_name(rust);
        if let Some(first) = self.taken.get(&rust) {
            return Err(Error::Unsupported(format!(
                "{owner} and {first} both become the {} `{rust}` in the generated code: rename one of them",
                self.what
            )));
        }
        self.taken.insert(rust.clone(), owner);
        Ok(match rust.strip_prefix("r#") {
            Some(raw) => Ident::new_raw(raw, Span::call_site()),
            None => Ident::new(&rust, Span::call_site()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(snake_case("MemBlocks"), "mem_blocks");
        assert_eq!(snake_case("AccessedArrays"), "accessed_arrays");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("Dims2D"), "dims2_d");
        assert_eq!(snake_case("already_snake"), "already_snake");
        assert_eq!(upper_camel_case("mem_blocks"), "MemBlocks");
        assert_eq!(upper_camel_case("Statements"), "Statements");
        assert_eq!(rust_name("type"), "r#type");
        assert_eq!(rust_name("self"), "self_");
        assert_eq!(ident("loop").to_string(), "r#loop");
    }
}
