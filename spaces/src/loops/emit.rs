//! Lowering a loop tree to C: the user's file with the region between
//! `#pragma scop` and `#pragma endscop` replaced by the transformed nest,
//! written out as plain loops (tile loops with `min` bounds, unrolled and
//! jammed bodies) annotated with `#pragma omp parallel for` and
//! `#pragma omp simd`. The result compiles with gcc and clang alike; every
//! loop iterator is declared by its own loop, so each thread of a parallel
//! loop has its own.

use std::collections::HashSet;
use std::ops::Range;

use super::frontend::{Affine, Kernel, LoopId};
use super::schedule::{Kind, Node, Part, Schedule, TreeLoop};

/// The whole file, its region replaced by the schedule's loop nest.
/// `comment` lines go into a comment at the top of the region.
pub fn explicit_code(kernel: &Kernel, schedule: &Schedule, comment: &[String]) -> String {
    let lines = pragma_lines(kernel);
    let indent = indentation(&kernel.source[lines.0.clone()]);
    let mut writer = Writer {
        kernel,
        tile_names: tile_names(kernel),
        out: String::new(),
    };
    writer.line(
        &indent,
        "/* commute: transformed region (was `#pragma scop`) */",
    );
    for line in comment {
        writer.line(&indent, &format!("/* {} */", line.replace("*/", "* /")));
    }
    writer.line(&indent, "{");
    writer.nodes(&schedule.roots, &format!("{indent}  "), &[]);
    writer.line(&indent, "}");
    writer.line(&indent, "/* commute: end of the transformed region */");
    let mut file = String::with_capacity(kernel.source.len() + writer.out.len());
    file.push_str(&kernel.source[..lines.0.start]);
    file.push_str(&writer.out);
    file.push_str(&kernel.source[lines.1.end..]);
    file
}

/// The unmodified program with its two region pragmas turned into
/// comments: compilers that reject unknown pragmas build it as it is.
pub fn reference_code(kernel: &Kernel) -> String {
    let (scop, endscop) = pragma_lines(kernel);
    let mut file = String::with_capacity(kernel.source.len());
    file.push_str(&kernel.source[..scop.start]);
    file.push_str(&commented(&kernel.source[scop.clone()]));
    file.push_str(&kernel.source[scop.end..endscop.start]);
    file.push_str(&commented(&kernel.source[endscop.clone()]));
    file.push_str(&kernel.source[endscop.end..]);
    file
}

pub(crate) fn commented(line: &str) -> String {
    let body = line.trim_end_matches(['\n', '\r']);
    format!("{}/* {} */\n", indentation(body), body.trim())
}

/// The byte ranges of the `#pragma scop` and `#pragma endscop` lines,
/// line ends included.
pub(crate) fn pragma_lines(kernel: &Kernel) -> (Range<usize>, Range<usize>) {
    let source = &kernel.source;
    let region = &kernel.region;
    // The region starts just after the scop line and ends at the start of
    // the endscop line.
    let scop_start = source[..region.start.saturating_sub(1)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let endscop_end = source[region.end..]
        .find('\n')
        .map_or(source.len(), |i| region.end + i + 1);
    (scop_start..region.start, region.end..endscop_end)
}

pub(crate) fn indentation(line: &str) -> String {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// A name per loop for its tile iterator, `<iterator>_t`, made unique
/// against every identifier of the file.
fn tile_names(kernel: &Kernel) -> Vec<String> {
    let mut taken: HashSet<String> = kernel
        .source
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    kernel
        .loops
        .iter()
        .map(|l| {
            let mut name = format!("{}_t", l.iterator);
            while taken.contains(&name) {
                name.push('t');
            }
            taken.insert(name.clone());
            name
        })
        .collect()
}

/// An unrolled-and-jammed loop around the statements being written: each
/// is repeated for `iterator = base + 0 .. base + count - 1`.
struct Jam {
    /// The iterators of the jammed loop, several when loops are fused:
    /// they move together.
    iterators: Vec<String>,
    base: String,
    count: i64,
}

struct Writer<'a> {
    kernel: &'a Kernel,
    tile_names: Vec<String>,
    out: String,
}

impl Writer<'_> {
    fn line(&mut self, indent: &str, text: &str) {
        self.out.push_str(indent);
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn affine(&self, a: &Affine) -> String {
        a.display(self.kernel)
    }

    fn nodes(&mut self, nodes: &[Node], indent: &str, jams: &[Jam]) {
        for node in nodes {
            match node {
                Node::Statement(s) => self.statement(s.0, indent, jams),
                Node::Loop(l) => self.tree_loop(l, indent, jams),
            }
        }
    }

    fn statement(&mut self, s: usize, indent: &str, jams: &[Jam]) {
        let text = self.kernel.source[self.kernel.statements[s].span.clone()]
            .trim()
            .to_string();
        if jams.is_empty() {
            self.line(indent, &text);
            return;
        }
        // One copy per combination of the jammed iterations, innermost
        // jam varying fastest.
        let total: i64 = jams.iter().map(|j| j.count).product();
        for index in 0..total {
            let mut rest = index;
            let mut bindings = Vec::new();
            for jam in jams.iter().rev() {
                let offset = rest % jam.count;
                rest /= jam.count;
                for iterator in jam.iterators.iter().rev() {
                    bindings.push(format!("const int {iterator} = {} + {offset};", jam.base));
                }
            }
            bindings.reverse();
            self.line(indent, &format!("{{ {} {text} }}", bindings.join(" ")));
        }
    }

    fn tree_loop(&mut self, l: &TreeLoop, indent: &str, jams: &[Jam]) {
        let first = l.loops[0];
        let c_loop = &self.kernel.loops[first.0];
        let lower = self.affine(&c_loop.lower);
        let upper = self.affine(&c_loop.upper);
        let tile = self.tile_names[first.0].clone();
        let iterator = c_loop.iterator.clone();
        let inner = format!("{indent}  ");
        match (l.part, l.kind) {
            (Part::Tile, kind) => {
                self.pragma(kind, indent);
                self.line(
                    indent,
                    &format!(
                        "for (int {tile} = {lower}; {tile} < {upper}; {tile} += {}) {{",
                        l.size
                    ),
                );
                self.aliases(l, &inner, true);
                self.nodes(&l.body, &inner, jams);
                self.line(indent, "}");
            }
            (Part::Point, Kind::Unroll) if l.size > 1 => {
                // A full tile is unrolled and jammed; the last, partial
                // one runs as a plain loop.
                self.line(indent, &format!("if ({tile} + {} <= {upper}) {{", l.size));
                let mut jammed: Vec<Jam> = jams
                    .iter()
                    .map(|j| Jam {
                        iterators: j.iterators.clone(),
                        base: j.base.clone(),
                        count: j.count,
                    })
                    .collect();
                let mut iterators = vec![iterator.clone()];
                for &other in &l.loops[1..] {
                    let name = &self.kernel.loops[other.0].iterator;
                    if !iterators.contains(name) {
                        iterators.push(name.clone());
                    }
                }
                jammed.push(Jam {
                    iterators,
                    base: tile.clone(),
                    count: l.size,
                });
                self.nodes(&l.body, &inner, &jammed);
                self.line(indent, "} else {");
                self.line(
                    &inner,
                    &format!(
                        "for (int {iterator} = {tile}; {iterator} < {upper}; {iterator}++) {{"
                    ),
                );
                let deeper = format!("{inner}  ");
                self.aliases(l, &deeper, false);
                self.nodes(&l.body, &deeper, jams);
                self.line(&inner, "}");
                self.line(indent, "}");
            }
            (Part::Point, Kind::Reverse) => {
                self.line(
                    indent,
                    &format!(
                        "for (int {iterator} = ({upper}) - 1; {iterator} >= {lower}; {iterator}--) {{"
                    ),
                );
                self.aliases(l, &inner, false);
                self.nodes(&l.body, &inner, jams);
                self.line(indent, "}");
            }
            (Part::Point, kind) => {
                self.pragma(kind, indent);
                let (start, end) = if l.size > 1 {
                    (
                        tile.clone(),
                        format!(
                            "({upper} < {tile} + {size} ? {upper} : {tile} + {size})",
                            size = l.size
                        ),
                    )
                } else {
                    (lower, upper)
                };
                self.line(
                    indent,
                    &format!("for (int {iterator} = {start}; {iterator} < {end}; {iterator}++) {{"),
                );
                self.aliases(l, &inner, false);
                self.nodes(&l.body, &inner, jams);
                self.line(indent, "}");
            }
        }
    }

    fn pragma(&mut self, kind: Kind, indent: &str) {
        match kind {
            Kind::Parallel => self.line(indent, "#pragma omp parallel for"),
            Kind::Vector => self.line(indent, "#pragma omp simd"),
            Kind::Sequential | Kind::Unroll | Kind::Reverse => {}
        }
    }

    /// Merged loops share the first loop's iterator (their bounds are
    /// equal): the others are declared equal to it.
    fn aliases(&mut self, l: &TreeLoop, indent: &str, tile: bool) {
        let name = |w: &Self, x: LoopId| {
            if tile {
                w.tile_names[x.0].clone()
            } else {
                w.kernel.loops[x.0].iterator.clone()
            }
        };
        let first = name(self, l.loops[0]);
        let mut declared = vec![first.clone()];
        for &other in &l.loops[1..] {
            let alias = name(self, other);
            // Fused loops often share their iterator's name.
            if !declared.contains(&alias) {
                self.line(indent, &format!("const int {alias} = {first};"));
                declared.push(alias);
            }
        }
    }
}
