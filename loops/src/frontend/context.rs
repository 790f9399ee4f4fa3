//! What the declarations around a region say about the names its
//! statements subscript: which are pointers, and which of those are
//! `restrict`-qualified. Arrays (declared with `[]`, parameters included,
//! as PolyBench declares them) are distinct objects; a pointer may point
//! into any of them or into another pointer's memory, unless it is
//! `restrict`.

use std::collections::HashMap;

use tree_sitter::Node;

/// How a name is declared, where it matters for aliasing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pointer {
    /// `T *restrict p`: nothing else reaches its memory.
    Restrict,
    /// `T *p`: may point anywhere.
    Plain,
    /// `T **p`: its rows are pointers of their own, which may overlap.
    ToPointers,
}

/// The pointers declared at file scope, as parameters of `function`, or in
/// its body; a name declared several ways counts as the least restricted.
pub(crate) fn pointers(
    root: Node,
    function: Option<Node>,
    source: &str,
) -> HashMap<String, Pointer> {
    let mut out: HashMap<String, Pointer> = HashMap::new();
    let mut record = |name: String, kind: Pointer| {
        let rank = |k: Pointer| match k {
            Pointer::Restrict => 0,
            Pointer::Plain => 1,
            Pointer::ToPointers => 2,
        };
        let entry = out.entry(name).or_insert(kind);
        if rank(kind) > rank(*entry) {
            *entry = kind;
        }
    };
    each_declaration(root, function, &mut |declaration| {
        declared(declaration, source, &mut record)
    });
    out
}

/// Calls `f` on each declaration at file scope, each parameter of
/// `function` and each declaration in its body.
fn each_declaration<'t>(root: Node<'t>, function: Option<Node<'t>>, f: &mut impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        if child.kind() == "declaration" {
            f(child);
        }
    }
    let Some(function) = function else { return };
    if let Some(parameters) = function
        .child_by_field_name("declarator")
        .and_then(function_declarator)
        .and_then(|d| d.child_by_field_name("parameters"))
    {
        let mut cursor = parameters.walk();
        for parameter in parameters.named_children(&mut cursor) {
            if parameter.kind() == "parameter_declaration" {
                f(parameter);
            }
        }
    }
    if let Some(body) = function.child_by_field_name("body") {
        nested_declarations(body, f);
    }
}

fn nested_declarations<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    if node.kind() == "declaration" {
        f(node);
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        nested_declarations(child, f);
    }
}

/// The function declarator of a function definition's declarator (under
/// pointers for functions returning them).
pub(crate) fn function_declarator(node: Node) -> Option<Node> {
    match node.kind() {
        "function_declarator" => Some(node),
        "pointer_declarator" | "parenthesized_declarator" => node
            .child_by_field_name("declarator")
            .or_else(|| node.named_child(0))
            .and_then(function_declarator),
        _ => None,
    }
}

/// The name a function definition defines.
pub(crate) fn function_name(function: Node, source: &str) -> Option<String> {
    let declarator = function
        .child_by_field_name("declarator")
        .and_then(function_declarator)?
        .child_by_field_name("declarator")?;
    (declarator.kind() == "identifier").then(|| source[declarator.byte_range()].to_string())
}

/// Records the pointers a declaration (or parameter declaration) declares.
fn declared(declaration: Node, source: &str, record: &mut impl FnMut(String, Pointer)) {
    let mut cursor = declaration.walk();
    for declarator in declaration.children_by_field_name("declarator", &mut cursor) {
        if let Some((name, kind)) = pointer_of(declarator, source) {
            record(name, kind);
        }
    }
}

/// The declared name and its kind, for a declarator with pointers. The
/// first subscript applies to the level nearest the name: a pointer
/// there is the name's memory; a pointer at a later level (`double **p`,
/// `double *p[4]`) makes rows that are pointers of their own.
fn pointer_of(declarator: Node, source: &str) -> Option<(String, Pointer)> {
    // (is a pointer, is restrict), outermost level first.
    let mut levels: Vec<(bool, bool)> = Vec::new();
    let mut node = declarator;
    loop {
        match node.kind() {
            "identifier" => break,
            "init_declarator" | "parenthesized_declarator" => {}
            "array_declarator" => levels.push((false, false)),
            "pointer_declarator" => {
                let mut cursor = node.walk();
                let restrict = node.named_children(&mut cursor).any(|c| {
                    c.kind() == "type_qualifier"
                        && matches!(
                            &source[c.byte_range()],
                            "restrict" | "__restrict" | "__restrict__"
                        )
                });
                levels.push((true, restrict));
            }
            _ => return None,
        }
        node = node
            .child_by_field_name("declarator")
            .or_else(|| node.named_child(0))?;
    }
    let name = source[node.byte_range()].to_string();
    let (&nearest, later) = levels.split_last()?;
    let kind = if later.iter().any(|(pointer, _)| *pointer) {
        Pointer::ToPointers
    } else {
        match nearest {
            (false, _) => return None,
            (true, true) => Pointer::Restrict,
            (true, false) => Pointer::Plain,
        }
    };
    Some((name, kind))
}

/// The pairs of distinct arrays (sorted by name) that may share memory:
/// at least one a pointer without `restrict`, neither `restrict`.
pub(crate) fn aliasing(
    arrays: &[String],
    pointers: &HashMap<String, Pointer>,
) -> Vec<(String, String)> {
    let mut names: Vec<&String> = arrays.iter().collect();
    names.sort();
    names.dedup();
    let kind = |n: &str| pointers.get(n).copied();
    let mut out = Vec::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let restricted =
                kind(a) == Some(Pointer::Restrict) || kind(b) == Some(Pointer::Restrict);
            let plain = |n: &str| matches!(kind(n), Some(Pointer::Plain | Pointer::ToPointers));
            if !restricted && (plain(a) || plain(b)) {
                out.push(((*a).clone(), (*b).clone()));
            }
        }
    }
    out
}

/// The type each name is declared with at file scope, as a parameter of
/// `function` or in its body (an element's type for arrays and pointers:
/// `double` for `double A[n][n]`, `double *p` and PolyBench's `DATA_TYPE
/// POLYBENCH_2D(A, ...)`), qualifiers left out; `None` for a name declared
/// with several types.
pub(crate) fn declared_types(
    root: Node,
    function: Option<Node>,
    source: &str,
) -> HashMap<String, Option<String>> {
    let mut out: HashMap<String, Option<String>> = HashMap::new();
    let mut record = |declaration: Node| {
        let Some(type_name) = type_of(declaration, source) else {
            return;
        };
        let mut cursor = declaration.walk();
        for declarator in declaration.children_by_field_name("declarator", &mut cursor) {
            let Some(name) = declared_name(declarator, source) else {
                continue;
            };
            let entry = out.entry(name).or_insert_with(|| Some(type_name.clone()));
            if entry.as_deref() != Some(type_name.as_str()) {
                *entry = None;
            }
        }
    };
    each_declaration(root, function, &mut record);
    out
}

/// A declaration's type, its words separated by one space, without
/// qualifiers and storage classes.
fn type_of(declaration: Node, source: &str) -> Option<String> {
    let type_node = declaration.child_by_field_name("type")?;
    let words: Vec<&str> = source[type_node.byte_range()]
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "restrict" | "register"))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The name a declarator declares, through initializers, arrays,
/// pointers and parentheses; a declarator macro (`POLYBENCH_2D(A, M, N,
/// m, n)`, its name in capitals) declares its first argument.
fn declared_name(declarator: Node, source: &str) -> Option<String> {
    let text = |n: Node| source[n.byte_range()].to_string();
    match declarator.kind() {
        "identifier" => Some(text(declarator)),
        "init_declarator"
        | "array_declarator"
        | "pointer_declarator"
        | "parenthesized_declarator" => declarator
            .child_by_field_name("declarator")
            .or_else(|| declarator.named_child(0))
            .and_then(|d| declared_name(d, source)),
        "function_declarator" => {
            let macro_name = declarator.child_by_field_name("declarator").map(text)?;
            if macro_name.chars().any(|c| c.is_ascii_lowercase()) {
                return None;
            }
            let first = declarator
                .child_by_field_name("parameters")?
                .named_child(0)
                .map(text)?;
            let first = first.trim().to_string();
            (!first.is_empty() && first.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .then_some(first)
        }
        _ => None,
    }
}
