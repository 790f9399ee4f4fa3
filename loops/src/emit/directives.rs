//! Lowering a loop tree to the user's own source with OpenMP 6.0
//! loop-transformation directives inserted before its `for` statements:
//! the file is unchanged except that the `#pragma scop` / `#pragma endscop`
//! lines become comments (as in [`reference_code`]), a comment block
//! follows the first of them, and directive lines stand directly before
//! some `for` statements. Only schedules that keep the original loop
//! structure can be written so; for the others [`directive_code`] answers
//! [`NotExpressible`] and the caller falls back to [`explicit_code`].
//!
//! # Bands and segments
//!
//! A *band* of the original nest is a maximal chain of loops `L1 .. Lm`
//! where the body of each `Li` (i < m) is exactly the loop `Li+1` (braces
//! allowed, no `if` around it) and `L1` is not the only child of a loop.
//! The user's code is kept as it is: `if` statements, declarations,
//! chained assignments and loops counting down (whose logical iterations,
//! which OpenMP tiles, are commute's counter) need nothing more; a nest
//! picked with `--nest` gets its comment block before its `for`. A schedule is
//! expressible when:
//!
//! 1. Its statements and loops have the original structure: the children
//!    of every original loop (and of the region) appear in the tree in the
//!    same textual order, every band becomes a chain of tree loops (each
//!    the only child of the previous) holding exactly the band's
//!    dimensions (the point dimension of every loop, and its tile
//!    dimension when its size is above 1), and the last loop of the chain
//!    holds the children of `Lm`. No loop is merged with another (fusion),
//!    none is split (distribution), siblings keep their order.
//! 2. Each band's chain cuts into *segments*, finest first: consecutive
//!    loops `La .. Lb` whose dimensions are consecutive in the chain. A
//!    segment gets one stack of directives before the `for` of `La`, the
//!    top line first:
//!    - one loop, its point dimension only (not tiled): nothing when
//!      sequential, `#pragma omp parallel for private(..)` when parallel,
//!      `#pragma omp simd` when vector and the loop has no inner loop;
//!    - one loop tiled by `T`, its tile dimension directly outside its
//!      point dimension: `#pragma omp tile sizes(T)` when the point is
//!      sequential; `#pragma omp unroll partial(T)` when the point is
//!      unrolled and the loop has no inner loop (it holds statements only,
//!      so unroll-and-jam is plain unrolling; with several statements the
//!      directive keeps their original order per iteration where the
//!      explicit code jams them, and the legality rules admit the jammed
//!      order only when it computes the same); `parallel for` on top when
//!      the tile dimension is parallel;
//!    - several loops (a rectangular sub-nest: no loop's bounds read the
//!      iterator of another loop of the segment): when some are tiled,
//!      `#pragma omp tile sizes(s_a, .., s_b)` with `1` for the untiled
//!      ones. OpenMP then makes the tile loops `T_a .. T_b` (an untiled
//!      loop's "tile loop" steps by 1 over its whole range: it is our point
//!      dimension of that loop) around the point loops `P_a .. P_b` in the
//!      original order (an untiled loop's point loop runs once: it is in
//!      no tree). The chain must be a permutation of `T_a .. T_b` followed
//!      by the point dimensions of the tiled loops in the original order;
//!      the permutation, when not the identity, is
//!      `#pragma omp interchange permutation(..)` (1-based) above the tile
//!      directive. Without tiling, the chain is a permutation of the
//!      segment's loops: `interchange` alone. `parallel for` on top when
//!      the outermost loop of the chain is parallel; every other dimension
//!      of the segment must be sequential.
//!
//! Anything else is [`NotExpressible`]: point loops in another order than
//! the original's, a parallel, vector or unrolled dimension inside a
//! segment's generated nest, a vector tiled loop, unroll-and-jam of a loop
//! with inner loops, a triangular segment, a collapsed loop, a reduction
//! into an array element (its private accumulator is explicit code's), a
//! packed operand (its buffer is explicit code's), a block loop (a tile
//! of tiles: the explicit code's), and any schedule of a kernel whose
//! scalar sums the front-end accumulates in place ([`Kernel::in_place`]:
//! the user's code still sums in the scalar).
//!
//! A loop that reduces scalars ([`reduced`]) gets `reduction(+: s)` (or
//! `*`) on its `parallel for` or `simd`; a dynamic parallel loop gets
//! `schedule(dynamic)`; one whose iterations have their own copy of a
//! scalar, `private(s)`.
//!
//! `parallel for` privatizes the iterators of its loop and of every loop
//! inside it that are not declared by their own `for` (PolyBench declares
//! `int i, j, k;` at function scope; shared, they race), and the scalars
//! private to its iterations ([`privatized`]); a scalar declared in one of
//! the nest's blocks is left to explicit code.
//!
//! # What clang-22 was checked to do
//!
//! With `-O2 -fopenmp -fopenmp-version=60 -Werror=unknown-pragmas`, on
//! small nests whose iteration order was recorded and compared with the
//! order these rules assume: `tile sizes(..)` of depth 1 to 3 with any
//! sizes from {1, 2, 4} (1 included), each under every
//! `interchange permutation(..)` of its tile loops (183 cases, all in the
//! assumed order); `interchange` alone of 2 and 3 loops; braces around
//! the inner loops of a tiled nest; `parallel for private(..)` over
//! `interchange` over `tile`, over `interchange`, over `tile`, over
//! `unroll partial`; `tile`, `unroll partial`, `simd` and
//! `parallel for` on loops inside the body of a tiled nest; `simd` on a
//! plain innermost loop. Rejected or wrong, hence not emitted:
//! `interchange` over `tile` permuting the generated point loops (4 loops:
//! "statement after '#pragma omp interchange' must be a for loop"; 3
//! loops: accepted and *miscompiled*, iterations lost), `tile` of a
//! triangular nest ("expected loop invariant expression"), and from
//! the design notes `tile` over `interchange`, `simd` over `tile` and the
//! `apply` clause (clang hangs). Bounds that read the iterator of a loop
//! outside the segment (syrk's `j <= i` under a tiled `k, j` band) are
//! loop-invariant for the directives and compile.
//!
//! `tests/directives.rs` compiles such candidates of the examples with
//! clang, compares their array dumps with the original's, and compares the
//! order in which their statement instances run (one thread) with the
//! explicit code's for the same schedule.
//!
//! [`reference_code`]: crate::emit::explicit::reference_code
//! [`explicit_code`]: crate::emit::explicit::explicit_code

use std::collections::HashSet;
use std::fmt;

use crate::emit::region::{commented, indentation, placement};
use crate::frontend::{Combiner, Kernel, LoopId, StatementId, Variable};
use crate::lowering::reductions::{privatized, reduced};
use crate::lowering::schedule::{Kind, Node, Part, Schedule, TreeLoop};

/// Why a schedule cannot be written as directives on the original loops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotExpressible(pub String);

impl fmt::Display for NotExpressible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotExpressible {}

/// The whole file with directives before its loops, or why the schedule
/// cannot be written so. `comment` lines go into a comment block after the
/// (commented) `#pragma scop` line.
pub fn directive_code(
    kernel: &Kernel,
    schedule: &Schedule,
    comment: &[String],
) -> Result<String, NotExpressible> {
    let plan = loop_directives(kernel, schedule)?;
    Ok(write(kernel, &plan, comment))
}

/// The directive lines (`#pragma omp ...`, top first) to put before each
/// loop's `for`, loops in textual order; loops without directives are left
/// out.
pub fn loop_directives(
    kernel: &Kernel,
    schedule: &Schedule,
) -> Result<Vec<(LoopId, Vec<String>)>, NotExpressible> {
    // The user's code holds the scalar accumulator the statements no
    // longer have: directives on it would need what it held privatized.
    if let Some(in_place) = kernel.in_place.first() {
        return fail(format!(
            "the source sums in scalar `{}`, which the candidate's statements accumulate in `{}`: explicit code writes them",
            in_place.scalar, in_place.target
        ));
    }
    // A tile of tiles would be `tile` over `tile`, whose generated loops
    // then need interchanging; clang was not checked to do that right.
    if let Some(l) = schedule.loops().iter().find(|l| l.part == Part::Block) {
        return fail(format!(
            "the loop {} is blocked (tiles of tiles): explicit code writes its block loop",
            loop_name(kernel, l.loops[0])
        ));
    }
    // A reduction into an array element needs a private accumulator,
    // which only the explicit code declares.
    for l in schedule.loops() {
        for s in reduced(kernel, l) {
            let write = &kernel.statements[s.0].write;
            if !write.subscripts.is_empty() {
                return fail(format!(
                    "the loop {} reduces S{} into an element of {}: explicit code keeps it in an accumulator",
                    loop_name(kernel, l.loops[0]),
                    s.0,
                    write.name
                ));
            }
        }
    }
    // The larger or smaller in vector lanes vectorizes as `fmax`/`fmin`,
    // which the user's comparison is not (see the explicit code's
    // helpers): explicit code writes it so.
    for l in schedule
        .loops()
        .into_iter()
        .filter(|l| l.kind == Kind::Vector)
    {
        if let Some(&(s, _)) = l.statements.iter().find(|&&(s, _)| {
            kernel
                .reduction(s)
                .is_some_and(|u| matches!(u.combiner, Combiner::Max | Combiner::Min))
        }) {
            return fail(format!(
                "the loop {} runs S{}'s larger or smaller in vector lanes: explicit code writes it with `fmax` or `fmin`",
                loop_name(kernel, l.loops[0]),
                s.0
            ));
        }
    }
    // A scalar declared in one of the nest's blocks may be declared where
    // the loop that makes it private cannot name it: explicit code
    // declares it at the region's top.
    for l in schedule.loops() {
        if let Some(name) = privatized(kernel, l).into_iter().find(|name| {
            kernel
                .locals
                .iter()
                .any(|x| x.name == *name && !x.top_level)
        }) {
            return fail(format!(
                "the loop {} makes `{name}` private, which is declared inside the nest: explicit code declares it at the nest's top",
                loop_name(kernel, l.loops[0])
            ));
        }
    }
    // Nor is there one that copies an operand into a local buffer.
    if let Some((l, pack)) = schedule
        .loops()
        .into_iter()
        .find_map(|l| l.packs.first().map(|p| (l, p)))
    {
        let read = &kernel.statements[pack.statement.0].reads[pack.read];
        return fail(format!(
            "the loop {} packs {} for S{}: explicit code declares its buffer",
            loop_name(kernel, l.loops[0]),
            read.name,
            pack.statement.0
        ));
    }
    // OpenMP has no wavefront of tiles.
    if let Some(l) = schedule.loops().iter().find(|l| l.kind == Kind::Wave) {
        return fail(format!(
            "the tiles of the loop {} run in waves: explicit code writes the wavefront",
            loop_name(kernel, l.loops[0])
        ));
    }
    // OpenMP has no directive that skews a loop.
    if let Some(&(s, l, _)) = schedule.skews.first() {
        return fail(format!(
            "the loop {} of S{} runs skewed: explicit code binds its iterator",
            loop_name(kernel, l),
            s.0
        ));
    }
    // Nor one that shifts a statement within a fused loop.
    if let Some(&(s, l, by)) = schedule.shifts.first() {
        return fail(format!(
            "the loop {} of S{} runs {by} iterations late in a fused loop: explicit code binds its iterator",
            loop_name(kernel, l),
            s.0
        ));
    }
    if let Some(l) = schedule.loops().iter().find(|l| l.kind == Kind::Collapsed) {
        return fail(format!(
            "the loop {} is collapsed with its parallel parent: explicit code writes collapse(2)",
            loop_name(kernel, l.loops[0])
        ));
    }
    let mut planner = Planner {
        kernel,
        out: Vec::new(),
    };
    planner.nodes(None, &children(kernel, None), &schedule.roots)?;
    planner
        .out
        .sort_by_key(|(l, _)| kernel.loops[l.0].span.start);
    Ok(planner.out)
}

fn fail<T>(message: String) -> Result<T, NotExpressible> {
    Err(NotExpressible(message))
}

/// A child of a loop (or of the region) in the original program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Child {
    Loop(LoopId),
    Statement(StatementId),
}

/// The loops and statements directly inside `of` (the region when
/// `None`), in textual order.
fn children(kernel: &Kernel, of: Option<LoopId>) -> Vec<Child> {
    let mut found: Vec<(usize, Child)> = Vec::new();
    for (l, lp) in kernel.loops.iter().enumerate() {
        if lp.parent == of {
            found.push((lp.span.start, Child::Loop(LoopId(l))));
        }
    }
    for (s, st) in kernel.statements.iter().enumerate() {
        if st.loops.last().copied() == of {
            found.push((st.span.start, Child::Statement(StatementId(s))));
        }
    }
    found.sort_by_key(|(start, _)| *start);
    found.into_iter().map(|(_, c)| c).collect()
}

struct Planner<'a> {
    kernel: &'a Kernel,
    out: Vec<(LoopId, Vec<String>)>,
}

impl Planner<'_> {
    fn name(&self, l: LoopId) -> String {
        loop_name(self.kernel, l)
    }

    /// Matches the tree's `nodes` against the original children of `of`.
    fn nodes(
        &mut self,
        of: Option<LoopId>,
        original: &[Child],
        nodes: &[Node],
    ) -> Result<(), NotExpressible> {
        let kernel = self.kernel;
        let place = || match of {
            Some(l) => format!("the loop {}", loop_name(kernel, l)),
            None => "the region".to_string(),
        };
        if original.len() != nodes.len() {
            return fail(format!(
                "{} holds {} loops and statements in the schedule, {} in the original: \
                 loops are fused or distributed",
                place(),
                nodes.len(),
                original.len()
            ));
        }
        for (child, node) in original.iter().zip(nodes) {
            match (child, node) {
                (Child::Statement(a), Node::Statement(b)) if a == b => {}
                (Child::Loop(l), Node::Loop(tree))
                    if band_of(kernel, *l).contains(&tree.loops[0]) =>
                {
                    self.band(*l, tree)?
                }
                _ => {
                    return fail(format!(
                        "the children of {} are not in their original order",
                        place()
                    ))
                }
            }
        }
        Ok(())
    }

    /// Matches the band starting at `head` against the chain starting at
    /// `tree`, plans its directives and goes on below it.
    fn band(&mut self, head: LoopId, tree: &TreeLoop) -> Result<(), NotExpressible> {
        let kernel = self.kernel;
        let band = band_of(kernel, head);
        let in_band = |t: &TreeLoop| t.loops.iter().any(|l| band.contains(l));
        let mut chain: Vec<&TreeLoop> = vec![tree];
        loop {
            let last = chain[chain.len() - 1];
            match last.body.as_slice() {
                [Node::Loop(next)] if in_band(next) => chain.push(next),
                _ => break,
            }
        }
        for t in &chain {
            if t.loops.len() != 1 {
                return fail(format!(
                    "the loops {} are merged (fused)",
                    t.loops
                        .iter()
                        .map(|&l| self.name(l))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if !band.contains(&t.loops[0]) {
                return fail(format!(
                    "the loop {} is not where the original has it",
                    self.name(t.loops[0])
                ));
            }
        }
        // Every dimension of the band once: the point, and the tile when
        // the loop is tiled.
        for &l in &band {
            let find = |part: Part| {
                chain
                    .iter()
                    .filter(|t| t.loops[0] == l && t.part == part)
                    .count()
            };
            let size = chain.iter().find(|t| t.loops[0] == l).map_or(1, |t| t.size);
            if find(Part::Point) != 1 || find(Part::Tile) != usize::from(size > 1) {
                return fail(format!(
                    "the dimensions of the loop {} are not nested as the original's band {}",
                    self.name(l),
                    band.iter()
                        .map(|&x| kernel.loops[x.0].iterator.as_str())
                        .collect::<Vec<_>>()
                        .join(" > ")
                ));
            }
        }
        self.segments(&band, &chain)?;
        let last = band[band.len() - 1];
        let inner = chain[chain.len() - 1];
        self.nodes(Some(last), &children(kernel, Some(last)), &inner.body)
    }

    /// Cuts a band's chain into the finest segments and plans each.
    fn segments(&mut self, band: &[LoopId], chain: &[&TreeLoop]) -> Result<(), NotExpressible> {
        let mut a = 0;
        let mut q = 0;
        while a < band.len() {
            let mut found = None;
            let mut count = 0;
            for b in a..band.len() {
                count += chain.iter().filter(|t| t.loops[0] == band[b]).count();
                let part = &chain[q..q + count];
                if part.iter().all(|t| band[a..=b].contains(&t.loops[0])) {
                    found = Some(b);
                    break;
                }
            }
            // The whole rest of the band always qualifies.
            let b = found.unwrap_or(band.len() - 1);
            self.segment(&band[a..=b], &chain[q..q + count])?;
            a = b + 1;
            q += count;
        }
        Ok(())
    }

    fn segment(&mut self, loops: &[LoopId], part: &[&TreeLoop]) -> Result<(), NotExpressible> {
        let head = loops[0];
        let mut lines = Vec::new();
        let innermost = |l: LoopId| !self.kernel.loops.iter().any(|x| x.parent == Some(l));
        if loops.len() == 1 {
            match part {
                [point] => match point.kind {
                    Kind::Sequential => {}
                    Kind::Collapsed | Kind::Wave | Kind::Wavefront => {
                        return fail(format!("the loop {} is {:?}", self.name(head), point.kind))
                    }
                    Kind::Parallel => lines.push(self.parallel(head) + &self.clause(point)),
                    Kind::Reverse => lines.push("#pragma omp reverse".to_string()),
                    Kind::Vector if innermost(head) => {
                        lines.push(format!("#pragma omp simd{}", self.clause(point)))
                    }
                    Kind::Vector => {
                        return fail(format!(
                            "the vector loop {} has inner loops",
                            self.name(head)
                        ))
                    }
                    Kind::Unroll => {
                        return fail(format!(
                            "the loop {} is unrolled but not tiled",
                            self.name(head)
                        ))
                    }
                },
                [tile, point] => {
                    match tile.kind {
                        Kind::Sequential => {}
                        Kind::Parallel => lines.push(self.parallel(head) + &self.clause(tile)),
                        kind => {
                            return fail(format!(
                                "the tile loop of {} is {kind:?}",
                                self.name(head)
                            ))
                        }
                    }
                    match point.kind {
                        Kind::Sequential => {
                            lines.push(format!("#pragma omp tile sizes({})", point.size))
                        }
                        Kind::Unroll if innermost(head) => {
                            lines.push(format!("#pragma omp unroll partial({})", point.size))
                        }
                        Kind::Unroll => {
                            return fail(format!(
                                "unroll-and-jam of the loop {}, which has inner loops",
                                self.name(head)
                            ))
                        }
                        kind => {
                            return fail(format!(
                                "the point loop of the tiled loop {} is {kind:?}",
                                self.name(head)
                            ))
                        }
                    }
                }
                _ => unreachable!("a loop has one or two dimensions"),
            }
        } else {
            self.nest(loops, part, &mut lines)?;
        }
        if !lines.is_empty() {
            self.out.push((head, lines));
        }
        Ok(())
    }

    /// A segment of several loops: tile, interchange, parallel for.
    fn nest(
        &self,
        loops: &[LoopId],
        part: &[&TreeLoop],
        lines: &mut Vec<String>,
    ) -> Result<(), NotExpressible> {
        let kernel = self.kernel;
        for &l in loops {
            let lp = &kernel.loops[l.0];
            for &other in loops {
                let v = Variable::Iterator(other);
                if other != l && (lp.lower.coefficient(v) != 0 || lp.upper.coefficient(v) != 0) {
                    return fail(format!(
                        "the bounds of the loop {} read the iterator of {}, which is moved",
                        self.name(l),
                        self.name(other)
                    ));
                }
            }
        }
        for t in &part[1..] {
            if t.kind != Kind::Sequential {
                return fail(format!(
                    "the {:?} loop {} is inside other loops of its transformed band",
                    t.kind,
                    self.name(t.loops[0])
                ));
            }
        }
        let size = |l: LoopId| part.iter().find(|t| t.loops[0] == l).map_or(1, |t| t.size);
        let tiled = loops.iter().any(|&l| size(l) > 1);
        // The outer loops the directives make, by (loop, part), and the
        // point loops of the tiled loops after them.
        let outer: Vec<(LoopId, Part)> = loops
            .iter()
            .map(|&l| (l, if size(l) > 1 { Part::Tile } else { Part::Point }))
            .collect();
        let points: Vec<(LoopId, Part)> = if tiled {
            loops
                .iter()
                .filter(|&&l| size(l) > 1)
                .map(|&l| (l, Part::Point))
                .collect()
        } else {
            Vec::new()
        };
        let target: Vec<(LoopId, Part)> = part.iter().map(|t| (t.loops[0], t.part)).collect();
        let (head, tail) = target.split_at(outer.len());
        if tail != points.as_slice() {
            return fail(format!(
                "the point loops of the tiled band {} are not innermost in their original order",
                loops
                    .iter()
                    .map(|&l| kernel.loops[l.0].iterator.as_str())
                    .collect::<Vec<_>>()
                    .join(" > ")
            ));
        }
        let mut permutation = Vec::new();
        for x in head {
            match outer.iter().position(|y| y == x) {
                Some(p) => permutation.push(p + 1),
                None => {
                    return fail(format!(
                        "the tile and point loops of {} are interleaved",
                        self.name(x.0)
                    ))
                }
            }
        }
        if part[0].kind == Kind::Parallel {
            lines.push(self.parallel(loops[0]) + &self.clause(part[0]));
        } else if part[0].kind != Kind::Sequential {
            return fail(format!(
                "the outermost loop of a transformed band, {}, is {:?}",
                self.name(part[0].loops[0]),
                part[0].kind
            ));
        }
        if permutation.iter().enumerate().any(|(i, &p)| p != i + 1) {
            let list: Vec<String> = permutation.iter().map(usize::to_string).collect();
            lines.push(format!(
                "#pragma omp interchange permutation({})",
                list.join(", ")
            ));
        }
        if tiled {
            let list: Vec<String> = loops.iter().map(|&l| size(l).to_string()).collect();
            lines.push(format!("#pragma omp tile sizes({})", list.join(", ")));
        }
        Ok(())
    }

    /// The `reduction` clauses of a loop that reduces scalars (` reduction(+:
    /// s)`), empty for others.
    fn clause(&self, tree: &TreeLoop) -> String {
        let mut out = String::new();
        if tree.dynamic && tree.kind == Kind::Parallel {
            out.push_str(" schedule(dynamic)");
        }
        for combiner in Combiner::ALL {
            let names: Vec<&str> = reduced(self.kernel, tree)
                .into_iter()
                .filter(|&s| self.kernel.reduction(s).map(|u| u.combiner) == Some(combiner))
                .map(|s| self.kernel.statements[s.0].write.name.as_str())
                .collect();
            if !names.is_empty() {
                out.push_str(&format!(
                    " reduction({}: {})",
                    combiner.clause_operator(),
                    names.join(", ")
                ));
            }
        }
        let private = privatized(self.kernel, tree);
        if !private.is_empty() {
            out.push_str(&format!(" private({})", private.join(", ")));
        }
        out
    }

    /// `parallel for` privatizing the iterators of `head` and of every
    /// loop inside it that are declared outside their `for`.
    fn parallel(&self, head: LoopId) -> String {
        let kernel = self.kernel;
        let inside = |l: LoopId| kernel.loop_encloses(head, l);
        let mut seen = HashSet::new();
        let mut names = Vec::new();
        for (l, lp) in kernel.loops.iter().enumerate() {
            if inside(LoopId(l))
                && !declares_iterator(kernel, LoopId(l))
                && seen.insert(lp.iterator.clone())
            {
                names.push(lp.iterator.clone());
            }
        }
        if names.is_empty() {
            "#pragma omp parallel for".to_string()
        } else {
            format!("#pragma omp parallel for private({})", names.join(", "))
        }
    }
}

/// The band starting at `head`: it and each loop that is the only child of
/// the previous one.
fn band_of(kernel: &Kernel, head: LoopId) -> Vec<LoopId> {
    let mut band = vec![head];
    while let [Child::Loop(next)] = children(kernel, band.last().copied()).as_slice() {
        // A loop inside an `if` is not nested perfectly.
        if kernel.loops[next.0].guarded {
            break;
        }
        band.push(*next);
    }
    band
}

/// A loop's iterator and line, for messages.
fn loop_name(kernel: &Kernel, l: LoopId) -> String {
    let lp = &kernel.loops[l.0];
    let (line, _) = kernel.line_column(lp.span.start);
    format!("`{}` (line {line})", lp.iterator)
}

/// Whether a loop declares its iterator in its `for` (`for (int i = ...`):
/// the init clause does not start with the iterator's name.
fn declares_iterator(kernel: &Kernel, l: LoopId) -> bool {
    let lp = &kernel.loops[l.0];
    let text = &kernel.source[lp.span.clone()];
    let Some(open) = text.find('(') else {
        return false;
    };
    let init = text[open + 1..].trim_start();
    match init.strip_prefix(lp.iterator.as_str()) {
        Some(rest) => rest
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'),
        None => true,
    }
}

/// The file with the pragma lines (if any) commented, the comment block
/// and the directives inserted.
fn write(kernel: &Kernel, plan: &[(LoopId, Vec<String>)], comment: &[String]) -> String {
    let source = &kernel.source;
    let place = placement(kernel);
    let indent = &place.indent;
    let mut out = String::with_capacity(source.len() + 256);
    out.push_str(&source[..place.replaced.start]);
    if let Some((scop, _)) = &place.pragmas {
        out.push_str(&commented(&source[scop.clone()]));
    } else if place.newline_before {
        out.push('\n');
    }
    out.push_str(&format!(
        "{indent}/* commute: the original loops with OpenMP loop-transformation directives */\n"
    ));
    for line in comment {
        out.push_str(&format!("{indent}/* {} */\n", line.replace("*/", "* /")));
    }
    let mut cursor = match &place.pragmas {
        Some((scop, _)) => scop.end,
        None => place.replaced.start,
    };
    if place.newline_before {
        // The nest's `for` follows on the new line, indented as its line.
        out.push_str(indent);
    }
    for (l, lines) in plan {
        let start = kernel.loops[l.0].span.start;
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let before = &source[line_start..start];
        let own = indentation(before);
        let (at, text) = if before.trim().is_empty() {
            let mut text = String::new();
            for line in lines {
                text.push_str(&format!("{own}{line}\n"));
            }
            (line_start, text)
        } else {
            // Something precedes the `for` on its line: the directives go
            // on lines of their own between the two.
            let mut text = "\n".to_string();
            for line in lines {
                text.push_str(&format!("{own}{line}\n"));
            }
            text.push_str(&own);
            (start, text)
        };
        let at = at.max(cursor);
        out.push_str(&source[cursor..at]);
        out.push_str(&text);
        cursor = at;
    }
    match &place.pragmas {
        Some((_, endscop)) => {
            out.push_str(&source[cursor..endscop.start]);
            out.push_str(&commented(&source[endscop.clone()]));
            out.push_str(&source[endscop.end..]);
        }
        None => out.push_str(&source[cursor..]),
    }
    out
}
