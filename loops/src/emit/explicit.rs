//! Lowering a loop tree to C: the user's file with the region between
//! `#pragma scop` and `#pragma endscop` replaced by the transformed nest,
//! written out as plain loops (tile loops with `min` bounds, unrolled and
//! jammed bodies) annotated with `#pragma omp parallel for` and
//! `#pragma omp simd`. The result compiles with gcc and clang alike; every
//! loop iterator is declared by its own loop, so each thread of a parallel
//! loop has its own. A loop counting down runs its counter and its
//! statements bind the iterator from it; statements are written as their
//! code, under the conditions that read no loop; scalars declared in the
//! region are declared at its top. A nest picked with `--nest` is
//! replaced the same way. A parallel or vector loop that reduces
//! statements ([`reduced`]) has a `reduction` clause: on a scalar target
//! directly, and for an array element through a private accumulator per
//! element (per copy of an unrolled and jammed statement), declared before
//! the loop and added to the element after it. A sequential loop that
//! accumulates (scalar replacement) is written the same way, without a
//! clause. A tile loop that packs operands declares a local buffer per
//! operand at the start of its body, fills it over the points of the
//! tiles inside, and the statement reads the buffer instead.

use std::collections::HashSet;

use crate::emit::region::placement;
pub use crate::emit::region::reference_code;
use crate::frontend::{
    Affine, Combiner, Direction, Kernel, LoopId, RegionKind, StatementId, Update, Variable,
};
use crate::lowering::bounds::{Bound, Interval, LoopBounds, Scan, ScanError, Term};
use crate::lowering::reductions::{block, privatized, reduced};
use crate::lowering::schedule::{Kind, Node, Pack, Part, Schedule, TreeLoop};

/// The whole file, its region replaced by the schedule's loop nest.
/// `comment` lines go into a comment at the top of the region.
pub fn explicit_code(
    kernel: &Kernel,
    schedule: &Schedule,
    comment: &[String],
) -> Result<String, ScanError> {
    let place = placement(kernel);
    let indent = place.indent.clone();
    let scan = Scan::new(kernel, schedule)?;
    let taken = identifiers(kernel);
    let mut writer = Writer {
        kernel,
        schedule,
        scan: &scan,
        tile_names: tile_names(kernel),
        block_names: block_names(kernel),
        point_names: point_names(kernel),
        skewed_names: skewed_names(kernel),
        path: Vec::new(),
        helpers: HELPER_DEFINITIONS.map(|(name, _, _, _)| {
            let mut unique = format!("commute_{name}");
            while taken.contains(&unique) {
                unique.push('_');
            }
            (unique, std::cell::Cell::new(false))
        }),
        taken,
        accumulators: Vec::new(),
        fresh: 0,
        packs: Vec::new(),
        fresh_packs: 0,
        problem: None,
        out: String::new(),
    };
    let opening = match kernel.region_kind {
        RegionKind::Scop => "/* commute: transformed region (was `#pragma scop`) */",
        RegionKind::Nest { .. } => "/* commute: transformed loop nest */",
    };
    writer.line(&indent, opening);
    for line in comment {
        writer.line(&indent, &format!("/* {} */", line.replace("*/", "* /")));
    }
    let header = std::mem::take(&mut writer.out);
    writer.nodes(&schedule.roots, &format!("{indent}  "), &[], &Guards::new());
    if let Some(problem) = writer.problem.take() {
        return Err(ScanError(problem));
    }
    let body = std::mem::take(&mut writer.out);
    // Bounds of interchanged or fused loops take minima, maxima and
    // rounded quotients: macros keep them readable, defined for the
    // region only.
    writer.out = header;
    let used: Vec<usize> = (0..HELPER_DEFINITIONS.len())
        .filter(|&h| writer.helpers[h].1.get())
        .collect();
    for &h in &used {
        let (_, parameters, definition, clang) = HELPER_DEFINITIONS[h];
        let name = &writer.helpers[h].0;
        let line = match clang {
            Some(clang) => format!(
                "#if defined(__clang__)\n#define {name}{parameters} {clang}\n#else\n#define {name}{parameters} {definition}\n#endif"
            ),
            None => format!("#define {name}{parameters} {definition}"),
        };
        writer.out.push_str(&line);
        writer.out.push('\n');
    }
    // Scalars declared in the region: those of its top level stay in
    // scope after it, the others are the region's.
    for top_level in [true, false] {
        if !top_level {
            writer.line(&indent, "{");
        }
        for local in kernel.locals.iter().filter(|l| l.top_level == top_level) {
            let at = if top_level {
                indent.clone()
            } else {
                format!("{indent}  ")
            };
            writer.line(&at, &format!("{} {};", local.type_name, local.name));
        }
    }
    writer.out.push_str(&body);
    writer.line(&indent, "}");
    for &h in &used {
        let line = format!("#undef {}", writer.helpers[h].0);
        writer.out.push_str(&line);
        writer.out.push('\n');
    }
    let closing = match kernel.region_kind {
        RegionKind::Scop => "/* commute: end of the transformed region */",
        RegionKind::Nest { .. } => "/* commute: end of the transformed loop nest */",
    };
    writer.line(&indent, closing);
    let source = &kernel.source;
    let mut file = String::with_capacity(source.len() + writer.out.len());
    file.push_str(&source[..place.replaced.start]);
    if place.newline_before {
        file.push('\n');
    }
    file.push_str(&writer.out);
    file.push_str(&source[place.replaced.end..]);
    Ok(file)
}

/// A name per loop for its counter: the iterator's for a loop that counts
/// up by one, `<iterator>_c` (unique in the file) for one that counts down
/// or steps by more, whose iterator the statements bind from it.
fn point_names(kernel: &Kernel) -> Vec<String> {
    let mut taken = identifiers(kernel);
    kernel
        .loops
        .iter()
        .map(|l| match l.direction {
            Direction::Up => l.iterator.clone(),
            Direction::Down { .. } | Direction::Strided { .. } => {
                let mut name = format!("{}_c", l.iterator);
                while taken.contains(&name) {
                    name.push('c');
                }
                taken.insert(name.clone());
                name
            }
        })
        .collect()
}

/// A name per loop for its tile iterator, `<iterator>_t`, made unique
/// against every identifier of the file.
fn tile_names(kernel: &Kernel) -> Vec<String> {
    suffixed_names(kernel, 't')
}

/// A name per loop for its block iterator (a tile of tiles), `<iterator>_b`,
/// made unique against every identifier of the file; it ends in another
/// letter than the tile, point and skewed names, so it is none of them.
fn block_names(kernel: &Kernel) -> Vec<String> {
    suffixed_names(kernel, 'b')
}

/// A name per loop for its skewed counter, `<iterator>_s` (the statements
/// bind their iterators from it), made unique against every identifier of
/// the file.
fn skewed_names(kernel: &Kernel) -> Vec<String> {
    suffixed_names(kernel, 's')
}

/// `<iterator>_<suffix>` per loop, the suffix repeated until the name is
/// no identifier of the file.
fn suffixed_names(kernel: &Kernel, suffix: char) -> Vec<String> {
    let mut taken = identifiers(kernel);
    kernel
        .loops
        .iter()
        .map(|l| {
            let mut name = format!("{}_{suffix}", l.iterator);
            while taken.contains(&name) {
                name.push(suffix);
            }
            taken.insert(name.clone());
            name
        })
        .collect()
}

/// Every identifier-like word of the file.
fn identifiers(kernel: &Kernel) -> HashSet<String> {
    kernel
        .source
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// An unrolled-and-jammed loop around the statements being written: each
/// is repeated for `iterator = base + 0 .. base + count - 1`.
#[derive(Clone)]
struct Jam {
    /// The jammed loop's variable.
    variable: String,
    base: String,
    count: i64,
}

/// A loop of the tree being written, around what is written now.
struct Scope {
    /// Its variable: unique along the path, so nothing inside shadows it.
    variable: String,
    part: Part,
    /// Whether its iterations run in vector lanes.
    lanes: bool,
    members: Vec<(StatementId, LoopId)>,
}

/// Conditions still to check before statements run, per statement: their
/// own ranges along merged loops that run over a hull.
type Guards = std::collections::BTreeMap<StatementId, Vec<String>>;

struct Writer<'a> {
    kernel: &'a Kernel,
    schedule: &'a Schedule,
    scan: &'a Scan<'a>,
    tile_names: Vec<String>,
    block_names: Vec<String>,
    point_names: Vec<String>,
    /// Per loop, the variable of its skewed point loops.
    skewed_names: Vec<String>,
    /// Every identifier of the file: fresh variables avoid them.
    taken: HashSet<String>,
    /// The loops around what is written now, outermost first.
    path: Vec<Scope>,
    /// The helper macros' names (`min`, `max`, `floord`, `ceild`, the
    /// larger and smaller in vector lanes), unique in the file, and which
    /// of them the code uses.
    helpers: [(String, std::cell::Cell<bool>); HELPER_DEFINITIONS.len()],
    /// The array elements reduced by the loops around what is written now.
    accumulators: Vec<Accumulator>,
    /// Accumulators declared so far (their names are numbered).
    fresh: usize,
    /// The packed copies the statements written now read.
    packs: Vec<PackedCopy>,
    /// Packed copies declared so far (their names are numbered).
    fresh_packs: usize,
    /// Why the code written is wrong, found while writing it.
    problem: Option<String>,
    out: String,
}

/// A buffer a statement reads an operand from (see [`Pack`]).
struct PackedCopy {
    statement: StatementId,
    /// The read's C text, as written.
    read: String,
    /// What replaces it: the buffer at the points' offsets.
    element: String,
}

/// Private accumulators of a statement reduced into an array element by a
/// parallel, vector or accumulating loop: one per copy of the statement
/// that the unrolled and jammed loops around that loop make.
struct Accumulator {
    statement: StatementId,
    update: Update,
    /// By jammed copy, the innermost jam varying fastest.
    names: Vec<String>,
    /// How many jams were around the reducing loop.
    jams: usize,
    /// For the elements of a tile ([`block`]): the point loops inside the
    /// reducing loop the target reads, with their tile sizes; each name
    /// is then an array indexed by the points' offsets in their tiles.
    block: Vec<(LoopId, i64)>,
}

const MIN: usize = 0;
const MAX: usize = 1;
const FLOORD: usize = 2;
const CEILD: usize = 3;
const LANES_MAX: usize = 4;
const LANES_MIN: usize = 5;

/// The helpers' definitions, by parameter list and body, and the body
/// clang gets where it differs. The larger and smaller in vector lanes
/// (`LANES_MAX`, `LANES_MIN`) are, for clang, the floating-point types'
/// `fmax` and `fmin`: clang-22 vectorizes those as a reduction under `omp
/// simd`, and not a comparison (without `-ffinite-math-only`); gcc 12
/// vectorizes the comparison and calls `fmax`. clang's differ from `if
/// (b > a) a = b;` only where `a` is a NaN (the other value is kept) and
/// between zeros of two signs.
const HELPER_DEFINITIONS: [(&str, &str, &str, Option<&str>); 6] = [
    ("min", "(a, b)", "((a) < (b) ? (a) : (b))", None),
    ("max", "(a, b)", "((a) > (b) ? (a) : (b))", None),
    (
        "floord",
        "(n, d)",
        "((n) >= 0 ? (n) / (d) : -((-(n) + (d) - 1) / (d)))",
        None,
    ),
    (
        "ceild",
        "(n, d)",
        "((n) >= 0 ? ((n) + (d) - 1) / (d) : -(-(n) / (d)))",
        None,
    ),
    (
        "lanes_max",
        "(a, b)",
        "((b) > (a) ? (b) : (a))",
        Some("_Generic((a), float: __builtin_fmaxf((a), (b)), double: __builtin_fmax((a), (b)), long double: __builtin_fmaxl((a), (b)), default: ((b) > (a) ? (b) : (a)))"),
    ),
    (
        "lanes_min",
        "(a, b)",
        "((b) < (a) ? (b) : (a))",
        Some("_Generic((a), float: __builtin_fminf((a), (b)), double: __builtin_fmin((a), (b)), long double: __builtin_fminl((a), (b)), default: ((b) < (a) ? (b) : (a)))"),
    ),
];

impl Writer<'_> {
    fn line(&mut self, indent: &str, text: &str) {
        self.out.push_str(indent);
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A call of one of the helper macros, which is then defined.
    fn helper(&self, which: usize, a: &str, b: &str) -> String {
        self.helpers[which].1.set(true);
        format!("{}({a}, {b})", self.helpers[which].0)
    }

    /// The smallest (`MIN`) or largest (`MAX`) of some values.
    fn fold(&self, values: Vec<String>, which: usize) -> String {
        let mut unique: Vec<String> = Vec::new();
        for v in values {
            if !unique.contains(&v) {
                unique.push(v);
            }
        }
        let mut iter = unique.into_iter();
        let first = iter.next().unwrap_or_else(|| "0".to_string());
        iter.fold(first, |acc, x| self.helper(which, &acc, &x))
    }

    /// The variable that holds statement `s`'s iterator `term` here.
    fn term(&self, s: StatementId, term: Term) -> String {
        let (loop_id, part) = match term {
            Term::Param(p) => return self.kernel.params[p].clone(),
            Term::Point(l) => (l, Part::Point),
            Term::Tile(l) => (l, Part::Tile),
            Term::Block(l) => (l, Part::Block),
        };
        self.path
            .iter()
            .rev()
            .find(|scope| scope.part == part && scope.members.contains(&(s, loop_id)))
            .map(|scope| scope.variable.clone())
            .unwrap_or_else(|| match part {
                Part::Point => self.point_names[loop_id.0].clone(),
                Part::Tile => self.tile_names[loop_id.0].clone(),
                Part::Block => self.block_names[loop_id.0].clone(),
            })
    }

    /// `constant + sum(coefficient * term)`, before division, read as
    /// statement `s`'s.
    fn numerator(&self, s: StatementId, b: &Bound) -> String {
        let mut out = String::new();
        for &(term, coefficient) in &b.terms {
            let name = self.term(s, term);
            let magnitude = coefficient.unsigned_abs();
            let text = if magnitude == 1 {
                name
            } else {
                format!("{magnitude} * {name}")
            };
            if out.is_empty() {
                out = if coefficient < 0 {
                    format!("-{text}")
                } else {
                    text
                };
            } else {
                out.push_str(if coefficient < 0 { " - " } else { " + " });
                out.push_str(&text);
            }
        }
        if out.is_empty() {
            return b.constant.to_string();
        }
        if b.constant != 0 {
            out.push_str(if b.constant < 0 { " - " } else { " + " });
            out.push_str(&b.constant.unsigned_abs().to_string());
        }
        out
    }

    /// A bound, rounded up (`up`) or down; C's `/` truncates, so a
    /// numerator that may be negative is rounded explicitly.
    fn bound(&self, s: StatementId, b: &Bound, up: bool) -> String {
        let n = self.numerator(s, b);
        match (b.divisor, up) {
            (1, _) => n,
            (d, true) => self.helper(CEILD, &n, &d.to_string()),
            (d, false) => self.helper(FLOORD, &n, &d.to_string()),
        }
    }

    /// The largest of a range's lower bounds.
    fn lower(&self, s: StatementId, range: &Interval) -> String {
        self.fold(
            range.lower.iter().map(|b| self.bound(s, b, true)).collect(),
            MAX,
        )
    }

    /// One past the smallest of a range's upper bounds.
    fn upper_exclusive(&self, s: StatementId, range: &Interval) -> String {
        self.fold(
            range
                .upper
                .iter()
                .map(|b| match b.divisor {
                    1 => self.bound(s, &b.plus(1), false),
                    _ => format!("{} + 1", self.bound(s, b, false)),
                })
                .collect(),
            MIN,
        )
    }

    /// One end of a loop's range (`lower`, or else the upper end,
    /// exclusive) over its statements, and the conditions of those whose
    /// own end is narrower. Ends that differ by constants only are
    /// compared here; others are folded with `min`/`max`, and every
    /// statement then checks its own.
    fn hull_side(
        &self,
        bounds: &LoopBounds,
        variable: &str,
        lower: bool,
    ) -> (String, Vec<(StatementId, String)>) {
        let side = |range: &'_ Interval| -> Vec<Bound> {
            if lower {
                range.lower.clone()
            } else {
                range.upper.clone()
            }
        };
        let texts: Vec<String> = bounds
            .statements
            .iter()
            .map(|(s, _, range)| {
                if lower {
                    self.lower(*s, range)
                } else {
                    self.upper_exclusive(*s, range)
                }
            })
            .collect();
        let mut distinct = texts.clone();
        distinct.sort();
        distinct.dedup();
        if distinct.len() <= 1 {
            return (
                texts.into_iter().next().unwrap_or_else(|| "0".into()),
                Vec::new(),
            );
        }
        let condition = |s: StatementId, b: &Bound| {
            if lower {
                format!("{variable} >= {}", self.bound(s, b, true))
            } else {
                format!("{variable} <= {}", self.bound(s, b, false))
            }
        };
        // Single bounds that differ by a constant: the extreme one is the
        // hull's, and only the others are checked.
        let shifted: Option<Vec<(String, i64)>> = bounds
            .statements
            .iter()
            .map(|(s, _, range)| match &side(range)[..] {
                [b] if b.divisor == 1 => Some((
                    self.numerator(
                        *s,
                        &Bound {
                            constant: 0,
                            ..b.clone()
                        },
                    ),
                    b.constant,
                )),
                _ => None,
            })
            .collect();
        if let Some(shifted) = shifted.filter(|v| v.iter().all(|(t, _)| *t == v[0].0)) {
            let extreme = if lower {
                shifted.iter().map(|x| x.1).min()
            } else {
                shifted.iter().map(|x| x.1).max()
            }
            .unwrap_or(0);
            let at = shifted.iter().position(|x| x.1 == extreme).unwrap_or(0);
            let mut checks = Vec::new();
            for ((s, _, range), (_, constant)) in bounds.statements.iter().zip(&shifted) {
                if *constant != extreme {
                    checks.push((*s, condition(*s, &side(range)[0])));
                }
            }
            return (texts[at].clone(), checks);
        }
        let hull = self.fold(texts, if lower { MIN } else { MAX });
        let checks = bounds
            .statements
            .iter()
            .flat_map(|(s, _, range)| side(range).into_iter().map(move |b| (*s, b)))
            .map(|(s, b)| (s, condition(s, &b)))
            .collect();
        (hull, checks)
    }

    /// A variable for a loop: the iterator (or tile) name most of its
    /// statements know it by, unless a loop around it has that name; then
    /// another of its names, or a fresh one.
    fn variable(&self, l: &TreeLoop, members: &[(StatementId, LoopId)]) -> String {
        let skewed = members
            .iter()
            .any(|&(s, x)| self.schedule.skew(s, x).is_some());
        let name = |x: LoopId| match l.part {
            Part::Point if skewed => self.skewed_names[x.0].clone(),
            Part::Point => self.point_names[x.0].clone(),
            Part::Tile => self.tile_names[x.0].clone(),
            Part::Block => self.block_names[x.0].clone(),
        };
        let mut candidates: Vec<(usize, String)> = Vec::new();
        for x in std::iter::once(l.loops[0]).chain(members.iter().map(|(_, x)| *x)) {
            let n = name(x);
            let count = members.iter().filter(|(_, y)| name(*y) == n).count();
            if !candidates.iter().any(|(_, c)| *c == n) {
                candidates.push((count, n));
            }
        }
        // Most statements first; among equals, the first loop's name.
        candidates.sort_by_key(|c| std::cmp::Reverse(c.0));
        if let Some((_, n)) = candidates.iter().find(|(_, n)| !self.in_path(n)) {
            return n.clone();
        }
        self.unused_variable(&candidates[0].1)
    }

    /// Whether a loop around what is written now has this variable.
    fn in_path(&self, name: &str) -> bool {
        self.path.iter().any(|scope| scope.variable == name)
    }

    /// `base_2`, `base_3`, ...: the first that no loop around has and no
    /// identifier of the file is.
    fn unused_variable(&self, base: &str) -> String {
        (2..)
            .map(|k| format!("{base}_{k}"))
            .find(|n| !self.in_path(n) && !self.taken.contains(n))
            .unwrap_or_else(|| base.to_string())
    }

    fn nodes(&mut self, nodes: &[Node], indent: &str, jams: &[Jam], guards: &Guards) {
        for node in nodes {
            // A condition every statement below shares is checked once,
            // here; the others go on down to the statements.
            let below = statements_of(node);
            let shared = shared_guard(node, guards);
            let (indent, rest): (String, Guards) = match &shared {
                Some(conditions) => {
                    self.line(indent, &format!("if ({}) {{", conditions.join(" && ")));
                    let rest = guards
                        .iter()
                        .filter(|(s, _)| !below.contains(s))
                        .map(|(s, g)| (*s, g.clone()))
                        .collect();
                    (format!("{indent}  "), rest)
                }
                None => (indent.to_string(), guards.clone()),
            };
            match node {
                Node::Statement(s) => self.statement(*s, &indent, jams, &rest),
                Node::Loop(l) => self.tree_loop(l, &indent, jams, &rest),
            }
            if shared.is_some() {
                self.line(&indent[2..], "}");
            }
        }
    }

    /// An affine expression of statement `s`'s counters and the
    /// parameters, with the variables that hold them here.
    fn affine(&self, s: StatementId, a: &Affine) -> String {
        let terms = a
            .terms
            .iter()
            .map(|&(v, c)| match v {
                Variable::Iterator(l) => (Term::Point(l), c),
                Variable::Param(p) => (Term::Param(p), c),
            })
            .collect();
        self.numerator(
            s,
            &Bound {
                constant: a.constant,
                terms,
                divisor: 1,
            },
        )
    }

    /// A statement: within the jammed iterations around it (one copy
    /// each), its guards, and its iterators bound to the loops' variables
    /// where their names differ (`first - counter` for a loop that counts
    /// down).
    fn statement(&mut self, s: StatementId, indent: &str, jams: &[Jam], guards: &Guards) {
        let statement = &self.kernel.statements[s.0];
        let accumulated = self.accumulators.iter().find(|a| a.statement == s);
        let copies: i64 = jams.iter().map(|j| j.count).product();
        // The larger or smaller in vector lanes is written with the
        // helpers that vectorize.
        let lanes = self.path.iter().any(|scope| scope.lanes);
        let extremum = |update: &Update, target: &str| {
            let which = match update.combiner {
                Combiner::Max => LANES_MAX,
                Combiner::Min => LANES_MIN,
                Combiner::Sum | Combiner::Product => return None,
            };
            Some(format!(
                "{target} = {};",
                self.helper(which, target, &format!("({})", update.operand))
            ))
        };
        // Each copy's code: a reduced statement updates its copy's
        // accumulator.
        let texts: Vec<String> = (0..copies.max(1))
            .map(|index| match accumulated {
                Some(a) => {
                    let inner: i64 = jams[a.jams.min(jams.len())..]
                        .iter()
                        .map(|j| j.count)
                        .product();
                    let name = &a.names[usize::try_from(index / inner.max(1))
                        .unwrap_or(0)
                        .min(a.names.len() - 1)];
                    let target = format!("{name}{}", self.block_index(s, &a.block));
                    lanes
                        .then(|| extremum(&a.update, &target))
                        .flatten()
                        .unwrap_or_else(|| a.update.applied_to(&target))
                }
                None => {
                    // The target as the user wrote it, where the
                    // statement's code is still the user's.
                    let code = statement.code.trim();
                    let source = &self.kernel.source;
                    let target = source
                        .get(statement.span.clone())
                        .filter(|text| text.trim() == code)
                        .and_then(|_| source.get(statement.write.span.clone()));
                    match (lanes, self.kernel.reduction(s), target) {
                        (true, Some(update), Some(target)) => extremum(update, target),
                        _ => None,
                    }
                    .unwrap_or_else(|| code.to_string())
                }
            })
            .collect();
        // Reads of packed operands read their buffers (the innermost
        // copy of each).
        let mut texts = texts;
        let mut replaced: Vec<&str> = Vec::new();
        for copy in self.packs.iter().rev().filter(|c| c.statement == s) {
            if replaced.contains(&copy.read.as_str()) {
                continue;
            }
            replaced.push(&copy.read);
            for text in &mut texts {
                match replace_access(text, &copy.read, &copy.element) {
                    Some(replaced) => *text = replaced,
                    None => {
                        self.problem.get_or_insert_with(|| {
                            format!(
                                "S{} packs `{}` but its code `{text}` does not read it as written",
                                s.0, copy.read
                            )
                        });
                    }
                }
            }
        }
        let conditions = self.statement_conditions(s, guards);
        let bodies: Vec<String> = texts
            .iter()
            .map(|text| {
                let body = self.binding(s, text, |_| true);
                if conditions.is_empty() {
                    body
                } else {
                    format!("if ({}) {body}", conditions.join(" && "))
                }
            })
            .collect();
        if jams.is_empty() {
            self.line(indent, &bodies[0]);
            return;
        }
        self.jammed(indent, jams, &bodies);
    }

    /// One line per combination of the jammed iterations around (`bodies`
    /// by combination, innermost jam varying fastest; one body for all),
    /// each binding the jammed variables.
    fn jammed(&mut self, indent: &str, jams: &[Jam], bodies: &[String]) {
        let total: i64 = jams.iter().map(|j| j.count).product();
        for index in 0..total {
            let mut rest = index;
            let mut bindings = Vec::new();
            for jam in jams.iter().rev() {
                let offset = rest % jam.count;
                rest /= jam.count;
                bindings.push(format!(
                    "const int {} = {} + {offset};",
                    jam.variable, jam.base
                ));
            }
            bindings.reverse();
            let body = &bodies[usize::try_from(index).unwrap_or(0).min(bodies.len() - 1)];
            self.line(indent, &format!("{{ {} {body} }}", bindings.join(" ")));
        }
    }

    /// The conditions statement `s` is tested under where it runs: the
    /// guards of the hulls around it, and its conditions that read no
    /// loop (the others are bounds of the loops).
    fn statement_conditions(&self, s: StatementId, guards: &Guards) -> Vec<String> {
        let mut conditions: Vec<String> = guards.get(&s).cloned().unwrap_or_default();
        for guard in &self.kernel.statements[s.0].guards {
            if !guard.reads_iterators() {
                conditions.push(format!("{} >= 0", self.affine(s, guard)));
            }
        }
        conditions
    }

    /// Statement `s`'s own counter of loop `l` from the loops' variables:
    /// the loop's, less the shift where `l` runs shifted (`i - 1`), less
    /// the factor times the base's own counter where it runs skewed
    /// (`j_s - i`).
    fn own_counter(&self, s: StatementId, l: LoopId) -> String {
        let variable = match self.schedule.shift(s, l) {
            0 => self.term(s, Term::Point(l)),
            by => format!("{} - {by}", self.term(s, Term::Point(l))),
        };
        match self.schedule.skew(s, l) {
            Some(skew) => {
                let base = parenthesized(&self.own_counter(s, skew.base));
                if skew.factor == 1 {
                    format!("{variable} - {base}")
                } else {
                    format!("{variable} - {} * {base}", skew.factor)
                }
            }
            None => variable,
        }
    }

    /// `text`, code of statement `s`, with the iterators of its loops that
    /// `keep` selects bound to the loops' variables where their names
    /// differ (`first - counter` for a loop that counts down, `first + step
    /// * counter` for one that steps by more than one).
    fn binding(&self, s: StatementId, text: &str, keep: impl Fn(LoopId) -> bool) -> String {
        let statement = &self.kernel.statements[s.0];
        let renames: Vec<(String, String)> = statement
            .loops
            .iter()
            .filter(|&&l| keep(l))
            .map(|&l| {
                let lp = &self.kernel.loops[l.0];
                let counter = self.own_counter(s, l);
                let value = match &lp.direction {
                    Direction::Up => counter,
                    Direction::Down { first } => format!(
                        "{} - {}",
                        parenthesized(&self.affine(s, first)),
                        parenthesized(&counter)
                    ),
                    Direction::Strided { first, step } => format!(
                        "{} {} {} * {}",
                        parenthesized(&self.affine(s, first)),
                        if *step < 0 { "-" } else { "+" },
                        step.unsigned_abs(),
                        parenthesized(&counter)
                    ),
                };
                (lp.iterator.clone(), value)
            })
            .filter(|(name, value)| name != value)
            .collect();
        let mut body = String::new();
        if !renames.is_empty() {
            // Through temporaries when a name is read by a value.
            let crossed = renames
                .iter()
                .any(|(name, _)| renames.iter().any(|(_, v)| mentions(v, name)));
            if crossed {
                let temporaries: Vec<String> = (0..renames.len())
                    .map(|k| format!("commute_v{k}"))
                    .collect();
                for ((_, v), t) in renames.iter().zip(&temporaries) {
                    body.push_str(&format!("const int {t} = {v}; "));
                }
                for ((name, _), t) in renames.iter().zip(&temporaries) {
                    body.push_str(&format!("const int {name} = {t}; "));
                }
            } else {
                for (name, v) in &renames {
                    body.push_str(&format!("const int {name} = {v}; "));
                }
            }
        }
        body.push_str(text);
        if !renames.is_empty() {
            body = format!("{{ {body} }}");
        }
        body
    }

    /// A loop of the tree, with the reductions it makes: scalars in its
    /// `reduction` clauses, array elements through private accumulators
    /// declared before it and added to the elements after it (under the
    /// statements' conditions, in each jammed copy).
    fn tree_loop(&mut self, l: &TreeLoop, indent: &str, jams: &[Jam], guards: &Guards) {
        let mut clauses: Vec<(Combiner, String)> = Vec::new();
        let mut accumulators = Vec::new();
        let copies: i64 = jams.iter().map(|j| j.count).product();
        for s in reduced(self.kernel, l) {
            let Some(update) = self.kernel.reduction(s) else {
                continue;
            };
            let write = &self.kernel.statements[s.0].write;
            if write.subscripts.is_empty() {
                clauses.push((update.combiner, write.name.clone()));
                continue;
            }
            // Reduced by a loop around this one too: its accumulators,
            // private there, are reduced here.
            if let Some(outer) = self.accumulators.iter().find(|a| a.statement == s) {
                for name in &outer.names {
                    clauses.push((update.combiner, name.clone()));
                }
                continue;
            }
            let names: Vec<String> = (0..copies)
                .map(|_| {
                    self.fresh += 1;
                    let mut name = format!("commute_acc{}", self.fresh - 1);
                    while self.taken.contains(&name) {
                        name.push('_');
                    }
                    name
                })
                .collect();
            for name in &names {
                clauses.push((update.combiner, name.clone()));
            }
            accumulators.push(Accumulator {
                statement: s,
                update: update.clone(),
                names,
                jams: jams.len(),
                // Empty but for a sequential loop holding a tile's elements.
                block: block(self.kernel, l, s).unwrap_or_default(),
            });
        }
        let clause = Combiner::ALL
            .iter()
            .filter_map(|&c| {
                let items: Vec<&str> = clauses
                    .iter()
                    .filter(|(x, _)| *x == c)
                    .map(|(_, n)| n.as_str())
                    .collect();
                (!items.is_empty())
                    .then(|| format!(" reduction({}: {})", c.clause_operator(), items.join(", ")))
            })
            .collect::<String>();
        let private = privatized(self.kernel, l);
        let clause = if private.is_empty() {
            clause
        } else {
            format!("{clause} private({})", private.join(", "))
        };
        let clause = if l.dynamic && l.kind == Kind::Parallel {
            format!("{clause} schedule(dynamic)")
        } else {
            clause
        };
        if accumulators.is_empty() {
            return self.plain_loop(l, indent, jams, guards, &clause);
        }
        self.line(indent, "{");
        let inner = format!("{indent}  ");
        for a in &accumulators {
            let target = self.target_text(a.statement);
            let element_type = format!("__typeof__({})", element_of(&target));
            let (extents, initial) = if a.block.is_empty() {
                (String::new(), a.update.combiner.initial(&target))
            } else {
                // Blocks hold sums only (`blockable`): all zero.
                let extents: String = a.block.iter().map(|(_, t)| format!("[{t}]")).collect();
                (extents, "{0}".to_string())
            };
            for name in &a.names {
                self.line(
                    &inner,
                    &format!("{element_type} {name}{extents} = {initial};"),
                );
            }
        }
        let count = accumulators.len();
        self.accumulators.extend(accumulators);
        self.plain_loop(l, &inner, jams, guards, &clause);
        let accumulators = self.accumulators.split_off(self.accumulators.len() - count);
        for a in &accumulators {
            let s = a.statement;
            let target = self.target_text(s);
            let write = &self.kernel.statements[s.0].write;
            let conditions = self.statement_conditions(s, guards);
            // A block's elements are combined over the points of its tiles,
            // within the statement's own bounds.
            let pushed = self.path.len();
            let headers = self.tile_point_loops(s, &a.block);
            let index = self.block_index(s, &a.block);
            let bodies: Vec<String> = a
                .names
                .iter()
                .map(|name| {
                    let text = a
                        .update
                        .combiner
                        .combined(&target, &format!("{name}{index}"));
                    let body = self.binding(s, &text, |x| {
                        write
                            .subscripts
                            .iter()
                            .any(|sub| sub.coefficient(Variable::Iterator(x)) != 0)
                            || mentions(&target, &self.kernel.loops[x.0].iterator)
                    });
                    let body = if conditions.is_empty() {
                        body
                    } else {
                        format!("if ({}) {body}", conditions.join(" && "))
                    };
                    if headers.is_empty() {
                        body
                    } else {
                        format!("{} {{ {body} }}", headers.join(" "))
                    }
                })
                .collect();
            self.path.truncate(pushed);
            if jams.is_empty() {
                self.line(&inner, &bodies[0]);
            } else {
                self.jammed(&inner, jams, &bodies);
            }
        }
        self.line(indent, "}");
    }

    /// A packed copy at the start of a tile loop's body: the buffer,
    /// declared here (private to the thread running the iteration), filled
    /// over the points of the tiles inside that the read reads, under the
    /// statement's conditions here (the loop may run over a hull wider
    /// than the statement's range); the statement's read is replaced
    /// below.
    fn packed_copy(&mut self, pack: &Pack, indent: &str, guards: &Guards) {
        let s = pack.statement;
        let access = &self.kernel.statements[s.0].reads[pack.read];
        let read = self
            .kernel
            .source
            .get(access.span.clone())
            .unwrap_or_default()
            .trim()
            .to_string();
        let mut name = format!("commute_pack{}", self.fresh_packs);
        self.fresh_packs += 1;
        while self.taken.contains(&name) {
            name.push('_');
        }
        let extents: String = pack.loops.iter().map(|(_, t)| format!("[{t}]")).collect();
        // Unary plus drops the element's qualifiers (`const double *`
        // operands): the buffer is written.
        self.line(
            indent,
            &format!("__typeof__(+{}) {name}{extents};", element_of(&read)),
        );
        let pushed = self.path.len();
        let headers = self.tile_point_loops(s, &pack.loops);
        let element = format!("{name}{}", self.block_index(s, &pack.loops));
        let reads =
            |x: LoopId| access.reads_loop(x) || mentions(&read, &self.kernel.loops[x.0].iterator);
        let body = self.binding(s, &format!("{element} = {read};"), reads);
        self.path.truncate(pushed);
        let conditions = self.statement_conditions(s, guards);
        let copy = format!("{} {{ {body} }}", headers.join(" "));
        if conditions.is_empty() {
            self.line(indent, &copy);
        } else {
            self.line(
                indent,
                &format!("if ({}) {{ {copy} }}", conditions.join(" && ")),
            );
        }
        self.packs.push(PackedCopy {
            statement: s,
            read,
            element,
        });
    }

    /// The headers of loops over the points of statement `s`'s current
    /// tiles of `loops` (with their sizes), within its own bounds, each
    /// pushed on the path with a variable that shadows nothing; the caller
    /// truncates the path after writing their body.
    fn tile_point_loops(&mut self, s: StatementId, loops: &[(LoopId, i64)]) -> Vec<String> {
        let mut headers = Vec::new();
        for &(x, size) in loops {
            let lp = &self.kernel.loops[x.0];
            let tile = self.term(s, Term::Tile(x));
            let lower = self.helper(MAX, &tile, &self.affine(s, &lp.lower));
            let upper = self.helper(MIN, &format!("{tile} + {size}"), &self.affine(s, &lp.upper));
            let base = &self.point_names[x.0];
            let variable = if self.in_path(base) {
                self.unused_variable(base)
            } else {
                base.clone()
            };
            headers.push(format!(
                "for (int {variable} = {lower}; {variable} < {upper}; {variable}++)"
            ));
            self.path.push(Scope {
                variable,
                part: Part::Point,
                lanes: false,
                members: vec![(s, x)],
            });
        }
        headers
    }

    /// The subscripts of a block of accumulators for statement `s`: each
    /// point's offset in its tile (empty for one element).
    fn block_index(&self, s: StatementId, block: &[(LoopId, i64)]) -> String {
        block
            .iter()
            .map(|&(x, _)| {
                format!(
                    "[{} - {}]",
                    self.kernel.loops[x.0].iterator,
                    self.term(s, Term::Tile(x))
                )
            })
            .collect()
    }

    /// The C text of a statement's target, as written.
    fn target_text(&self, s: StatementId) -> String {
        let span = self.kernel.statements[s.0].write.span.clone();
        self.kernel
            .source
            .get(span)
            .unwrap_or_default()
            .trim()
            .to_string()
    }

    /// A loop's variable, its members and the sides of the hull of its
    /// statements' ranges. Statements whose ranges differ run over the
    /// hull, each guarded by its own range where it is narrower: those
    /// conditions are added to `guarded`.
    fn hull(
        &self,
        l: &TreeLoop,
        guarded: &mut Guards,
    ) -> (String, Vec<(StatementId, LoopId)>, String, String) {
        let scan = self.scan;
        let bounds = scan.of(l);
        let members = l.members(self.kernel);
        let variable = self.variable(l, &members);
        let (lower, lower_guards) = self.hull_side(bounds, &variable, true);
        let (upper, upper_guards) = self.hull_side(bounds, &variable, false);
        for (s, condition) in lower_guards.into_iter().chain(upper_guards) {
            guarded.entry(s).or_default().push(condition);
        }
        (variable, members, lower, upper)
    }

    fn plain_loop(
        &mut self,
        l: &TreeLoop,
        indent: &str,
        jams: &[Jam],
        guards: &Guards,
        clause: &str,
    ) {
        if let (Kind::Wave, [Node::Loop(front)]) = (l.kind, &l.body[..]) {
            return self.wavefront(l, front, indent, jams, guards);
        }
        let scan = self.scan;
        let bounds = scan.of(l);
        let mut guarded = guards.clone();
        let (variable, members, lower, upper) = self.hull(l, &mut guarded);
        // A parallel loop whose only child is a collapsed loop, with no
        // condition checked between them, collapses with it; else the
        // child runs sequentially inside (the same iterations, fewer of
        // them shared).
        let collapse = l.kind == Kind::Parallel
            && matches!(l.body.as_slice(),
                [node @ Node::Loop(inner)] if inner.kind == Kind::Collapsed
                    && shared_guard(node, &guarded).is_none());
        let clause = if collapse {
            format!("{clause} collapse(2)")
        } else {
            clause.to_string()
        };
        let clause = clause.as_str();
        let full =
            if l.part == Part::Point && matches!(l.kind, Kind::Unroll | Kind::Vector) && l.size > 1
            {
                self.full_tile(l, bounds)
            } else {
                Vec::new()
            };
        // Blocks start like tiles, at a multiple of their span from the
        // origin; the tiles inside then start at the block's start.
        let tile_start = (l.part != Part::Point).then(|| self.tile_start(bounds, &lower, l.size));
        let jam_base = bounds
            .statements
            .first()
            .map(|(s, x, _)| self.term(*s, Term::Tile(*x)))
            .unwrap_or_default();
        self.path.push(Scope {
            variable: variable.clone(),
            part: l.part,
            lanes: l.kind == Kind::Vector,
            members,
        });
        let inner = format!("{indent}  ");
        // Steps of one through the statements' bounds.
        let bounded = format!("for (int {variable} = {lower}; {variable} < {upper}; {variable}++)");
        match (l.part, l.kind) {
            (Part::Tile | Part::Block, kind) => {
                let start = tile_start.unwrap_or_default();
                let header = format!(
                    "for (int {variable} = {start}; {variable} < {upper}; {variable} += {})",
                    l.size
                );
                self.pragma(kind, indent, clause);
                if l.packs.is_empty() {
                    self.counted_loop(indent, &header, &l.body, jams, &guarded);
                } else {
                    self.line(indent, &format!("{header} {{"));
                    let active = self.packs.len();
                    for pack in &l.packs {
                        self.packed_copy(pack, &inner, &guarded);
                    }
                    self.nodes(&l.body, &inner, jams, &guarded);
                    self.packs.truncate(active);
                    self.line(indent, "}");
                }
            }
            (Part::Point, Kind::Unroll) if l.size > 1 => {
                // A tile inside every statement's range is unrolled and
                // jammed; others (the last, partial one) run as a plain
                // loop.
                let jammed_branch = !full.is_empty();
                if jammed_branch {
                    self.line(indent, &format!("if ({}) {{", full.join(" && ")));
                }
                let jam_indent = if jammed_branch {
                    inner.clone()
                } else {
                    indent.to_string()
                };
                let mut jammed: Vec<Jam> = jams.to_vec();
                jammed.push(Jam {
                    variable: variable.clone(),
                    base: jam_base,
                    count: l.size,
                });
                self.nodes(&l.body, &jam_indent, &jammed, guards);
                if jammed_branch {
                    self.line(indent, "} else {");
                    self.counted_loop(&inner, &bounded, &l.body, jams, &guarded);
                    self.line(indent, "}");
                }
            }
            (Part::Point, Kind::Vector) if !full.is_empty() => {
                // A full tile runs a constant number of lanes, which the
                // compiler unrolls into whole vectors (and so keeps a
                // block of accumulators in registers); the partial one
                // runs to the bounds.
                self.line(indent, &format!("if ({}) {{", full.join(" && ")));
                let constant = format!(
                    "for (int {variable} = {jam_base}; {variable} < {jam_base} + {}; {variable}++)",
                    l.size
                );
                self.pragma(Kind::Vector, &inner, clause);
                self.counted_loop(&inner, &constant, &l.body, jams, guards);
                self.line(indent, "} else {");
                self.pragma(Kind::Vector, &inner, clause);
                self.counted_loop(&inner, &bounded, &l.body, jams, &guarded);
                self.line(indent, "}");
            }
            (Part::Point, Kind::Reverse) => {
                let header = format!(
                    "for (int {variable} = {} - 1; {variable} >= {lower}; {variable}--)",
                    parenthesized(&upper)
                );
                self.counted_loop(indent, &header, &l.body, jams, &guarded);
            }
            (Part::Point, kind) => {
                self.pragma(kind, indent, clause);
                self.counted_loop(indent, &bounded, &l.body, jams, &guarded);
            }
        }
        self.path.pop();
    }

    /// A wave loop and the wavefront loop that is its body (see
    /// [`Kind::Wave`]). A first pass over the wave loop's tiles counts
    /// them and finds the range of the wavefront loop's tile indices (from
    /// its origin) over all of them; then, one anti-diagonal of tile
    /// indices after the other, an `omp parallel for` over the wavefront's
    /// tile indices runs each pair whose wavefront tile lies in its range
    /// at that wave tile (skewed or triangular bounds leave some out).
    fn wavefront(
        &mut self,
        wave: &TreeLoop,
        front: &TreeLoop,
        indent: &str,
        jams: &[Jam],
        guards: &Guards,
    ) {
        let scan = self.scan;
        let mut guarded = guards.clone();
        // Both loops' headers, as sequential tile loops would have them.
        let mut header = |writer: &mut Self, l: &TreeLoop| {
            let bounds = scan.of(l);
            let (variable, members, lower, upper) = writer.hull(l, &mut guarded);
            let start = writer.tile_start(bounds, &lower, l.size);
            let origin = bounds.statements.first().map_or_else(
                || "0".to_string(),
                |(s, _, _)| writer.numerator(*s, &bounds.origin),
            );
            writer.path.push(Scope {
                variable: variable.clone(),
                part: l.part,
                lanes: false,
                members,
            });
            (variable, start, upper, origin)
        };
        let (a, a_start, a_upper, _) = header(self, wave);
        let (b, b_start, b_upper, b_origin) = header(self, front);
        let name = |writer: &Self, base: &str| {
            let mut name = format!("commute_{base}");
            while writer.taken.contains(&name) || writer.in_path(&name) {
                name.push('_');
            }
            name
        };
        let (tiles, low, high, w, k, first, last) = (
            name(self, "wave_tiles"),
            name(self, "front_low"),
            name(self, "front_high"),
            name(self, "wave"),
            name(self, "front"),
            name(self, "first"),
            name(self, "last"),
        );
        let (size_a, size_b) = (wave.size, front.size);
        let inner = format!("{indent}  ");
        let body = format!("{inner}  ");
        let nested = format!("{body}  ");
        let floord = |writer: &Self, n: String| writer.helper(FLOORD, &n, &size_b.to_string());
        self.line(indent, "{");
        self.line(
            &inner,
            &format!("/* tiles of {a} and {b} in waves: anti-diagonals of their tile indices */"),
        );
        self.line(&inner, &format!("int {tiles} = 0, {low} = 0, {high} = -1;"));
        self.line(
            &inner,
            &format!("for (int {a} = {a_start}; {a} < {a_upper}; {a} += {size_a}) {{"),
        );
        self.line(&body, &format!("int {b} = {b_start};"));
        self.line(&body, &format!("if ({b} < {b_upper}) {{"));
        // Tile indices count from the origin.
        let from_origin = |value: String| match b_origin.as_str() {
            "0" => value,
            origin => format!("{value} - ({origin})"),
        };
        let first_index = floord(self, from_origin(b.clone()));
        let last_index = floord(self, from_origin(format!("{b_upper} - 1")));
        self.line(
            &nested,
            &format!("int {first} = {first_index}, {last} = {last_index};"),
        );
        self.line(
            &nested,
            &format!("if ({low} > {high}) {{ {low} = {first}; {high} = {last}; }}"),
        );
        self.line(&nested, &format!("if ({first} < {low}) {low} = {first};"));
        self.line(&nested, &format!("if ({last} > {high}) {high} = {last};"));
        self.line(&body, "}");
        self.line(&body, &format!("{tiles}++;"));
        self.line(&inner, "}");
        let most = self.helper(MIN, &w, &high);
        let least = self.helper(MAX, &low, &format!("{w} - {tiles} + 1"));
        self.line(
            &inner,
            &format!("for (int {w} = {low}; {w} < {low} + {tiles} + {high} - {low}; {w}++) {{"),
        );
        let clause = if front.dynamic {
            " schedule(dynamic)"
        } else {
            ""
        };
        self.line(&body, &format!("#pragma omp parallel for{clause}"));
        self.line(
            &body,
            &format!("for (int {k} = {least}; {k} <= {most}; {k}++) {{"),
        );
        let tile = format!("{body}  ");
        let plus = |start: &str| match start {
            "0" => String::new(),
            start => format!("{start} + "),
        };
        self.line(
            &tile,
            &format!(
                "int {a} = {}{size_a} * ({w} - {k}), {b} = {}{size_b} * {k};",
                plus(&a_start),
                plus(&b_origin)
            ),
        );
        self.line(
            &tile,
            &format!("if ({b} < {b_start} || {b} >= {b_upper}) continue;"),
        );
        self.nodes(&front.body, &tile, jams, &guarded);
        self.line(&body, "}");
        self.line(&inner, "}");
        self.line(indent, "}");
        self.path.pop();
        self.path.pop();
    }

    /// The first tile (or block): the first value congruent to the origin
    /// modulo the size (or span) that is at least `lower`. The origin reads the first
    /// statement's iterators.
    fn tile_start(&self, bounds: &LoopBounds, lower: &str, size: i64) -> String {
        let origin = &bounds.origin;
        let Some(&(first, _, _)) = bounds.statements.first() else {
            return lower.to_string();
        };
        // One lower bound a constant away from the origin: fold it here.
        let lowers: Vec<&Bound> = bounds
            .statements
            .iter()
            .flat_map(|(_, _, r)| &r.lower)
            .collect();
        if let [low, rest @ ..] = &lowers[..] {
            let same = rest.iter().all(|x| x == low);
            // Tiles inside a block from its start: the block's iterator,
            // a tile start already.
            let block_start = bounds
                .statements
                .iter()
                .all(|(_, x, _)| low.is(Term::Block(*x)));
            if same && block_start {
                return self.numerator(first, low);
            }
            if same && low.divisor == 1 && low.terms == origin.terms {
                let start = origin.constant
                    + size
                        * crate::lowering::bounds::ceil_div(low.constant - origin.constant, size);
                return self.numerator(
                    first,
                    &Bound {
                        constant: start,
                        ..origin.clone()
                    },
                );
            }
        }
        let origin_text = self.numerator(first, origin);
        let at_zero = origin.terms.is_empty() && origin.constant == 0;
        let offset = if at_zero {
            lower.to_string()
        } else {
            format!("{lower} - ({origin_text})")
        };
        let tiles = self.helper(CEILD, &offset, &size.to_string());
        if at_zero {
            format!("{size} * {tiles}")
        } else {
            format!("{origin_text} + {size} * {tiles}")
        }
    }

    /// The conditions for a whole tile of an unrolled loop to lie within
    /// every statement's range: its bounds other than the tile's own.
    fn full_tile(&self, l: &TreeLoop, bounds: &LoopBounds) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (s, x, range) in &bounds.statements {
            let own_tile = Term::Tile(*x);
            let tile = self.term(*s, own_tile);
            for b in &range.lower {
                if !b.is(own_tile) {
                    out.push(format!("{} <= {tile}", self.bound(*s, b, true)));
                }
            }
            for b in &range.upper {
                if *b != Bound::of_term(own_tile).plus(l.size - 1) {
                    out.push(match b.divisor {
                        1 => format!(
                            "{tile} + {} <= {}",
                            l.size,
                            self.bound(*s, &b.plus(1), false)
                        ),
                        _ => format!("{tile} + {} <= {}", l.size - 1, self.bound(*s, b, false)),
                    });
                }
            }
        }
        let mut unique = Vec::new();
        for c in out {
            if !unique.contains(&c) {
                unique.push(c);
            }
        }
        unique
    }

    /// A loop, `header` (`for (...)`) and `body`, at `indent` (its
    /// directive, if any, written before).
    fn counted_loop(
        &mut self,
        indent: &str,
        header: &str,
        body: &[Node],
        jams: &[Jam],
        guards: &Guards,
    ) {
        self.line(indent, &format!("{header} {{"));
        self.nodes(body, &format!("{indent}  "), jams, guards);
        self.line(indent, "}");
    }

    fn pragma(&mut self, kind: Kind, indent: &str, clause: &str) {
        match kind {
            Kind::Parallel => self.line(indent, &format!("#pragma omp parallel for{clause}")),
            Kind::Vector => self.line(indent, &format!("#pragma omp simd{clause}")),
            // A collapsed loop's directive is its parallel parent's.
            Kind::Sequential
            | Kind::Unroll
            | Kind::Reverse
            | Kind::Collapsed
            | Kind::Wave
            | Kind::Wavefront => {}
        }
    }
}

/// An element of the array a target (`C[i][j]`, `A[i * n + j]`) is in,
/// for its type: every subscript 0 (`C[0][0]`).
fn element_of(target: &str) -> String {
    let Some(open) = target.find('[') else {
        return target.to_string();
    };
    let mut depth = 0;
    let mut groups = 0;
    for c in target[open..].chars() {
        match c {
            '[' => {
                if depth == 0 {
                    groups += 1;
                }
                depth += 1;
            }
            ']' => depth -= 1,
            _ => {}
        }
    }
    format!("{}{}", target[..open].trim(), "[0]".repeat(groups))
}

/// The conditions every statement below `node` shares, when there are
/// some: checked once, before the node.
fn shared_guard(node: &Node, guards: &Guards) -> Option<Vec<String>> {
    let below = statements_of(node);
    below
        .first()
        .and_then(|s| guards.get(s))
        .filter(|g| !g.is_empty() && below.iter().all(|s| guards.get(s) == Some(g)))
        .cloned()
}

/// Every statement below a node.
fn statements_of(node: &Node) -> Vec<StatementId> {
    match node {
        Node::Statement(s) => vec![*s],
        Node::Loop(l) => l.body.iter().flat_map(statements_of).collect(),
    }
}

/// `text` with every occurrence of the access `access` (`B[k][j]`) that
/// starts an identifier replaced by `by`; `None` if there is none.
fn replace_access(text: &str, access: &str, by: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut found = false;
    while let Some(at) = rest.find(access) {
        let starts = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        out.push_str(&rest[..at]);
        if starts {
            out.push_str(by);
            found = true;
        } else {
            out.push_str(access);
        }
        rest = &rest[at + access.len()..];
    }
    out.push_str(rest);
    found.then_some(out)
}

/// Whether `text` has `name` as an identifier.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

fn parenthesized(text: &str) -> String {
    if text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        || text.starts_with('(') && text.ends_with(')') && balanced_outer(text)
    {
        text.to_string()
    } else {
        format!("({text})")
    }
}

/// Whether the first parenthesis closes at the end.
fn balanced_outer(text: &str) -> bool {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 != text.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}
