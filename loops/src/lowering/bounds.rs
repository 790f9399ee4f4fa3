//! The bounds of every loop of a loop tree, per statement, for any nesting
//! of the statement's dimensions.
//!
//! A statement's instances are the integer points of a polyhedron: its C
//! loops' bounds over their iterators and the kernel's parameters, plus
//! `t <= x <= t + T - 1` between a tiled loop's tile iterator `t` and its
//! point iterator `x`. Nested in the tree's order, a loop's bounds are the
//! constraints on its iterator once the iterators inside it are projected
//! out (Fourier–Motzkin elimination). So a triangular nest can be
//! interchanged (`for (j..) for (i = j + 1; ..)`) and tiled with the
//! triangle's rows split across tiles.
//!
//! Every constraint of the statement is enforced at the innermost of its
//! iterators; a point loop keeps the statement's own bounds where it has
//! them (the program reads as written), and the projection gives the
//! others: a bound a loop lacks once interchanged, and every bound of a
//! tile loop. A tile loop steps from an origin that is the same for every
//! statement of a merged loop: the loop's lower bound when it reads only
//! parameters, else 0.
//!
//! A blocked loop (a tile of tiles) has a block iterator `b` too, outside
//! its tile iterator, stepping by the span `S` (a multiple of the tile
//! size) from the same origin: `b <= t <= b + S - T`. The tile starts are
//! congruent to the origin modulo `T` and `b` is modulo `S`, so the tiles
//! inside one block are exactly those of these rows: the projection
//! stays exact, and every tile (so every point) falls in one block. A
//! blocked loop that is not tiled has its points in the block directly,
//! `b <= x <= b + S - 1`.
//!
//! The affine conditions of the `if` statements around a statement are
//! constraints of its polyhedron too, enforced like the bounds of the
//! innermost loop they read (so `if (j > i)` becomes a bound of `j`, or
//! of `i` once interchanged inside it); a condition that reads no loop is
//! left to the emitters.
//!
//! Merged loops of statements whose bounds differ run over the hull of
//! their ranges; the emitters then guard each statement with its own.

use std::collections::HashMap;

use crate::analysis::inequalities::{eliminate, Inequality, System};
use crate::frontend::{Affine, Kernel, LoopId, StatementId, Variable};
use crate::lowering::schedule::{Node, Part, Schedule, TreeLoop};

/// What a bound reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// A parameter of the kernel, by index into its `params`.
    Param(usize),
    /// The point iterator of a C loop (its own iterator).
    Point(LoopId),
    /// The tile iterator of a C loop.
    Tile(LoopId),
    /// The block iterator of a C loop (a tile of tiles).
    Block(LoopId),
}

/// `(constant + sum(coefficient * term)) / divisor`, rounded up when it is
/// a lower bound and down when it is an upper one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bound {
    /// The constant term.
    pub constant: i64,
    /// Sorted, without zero coefficients.
    pub terms: Vec<(Term, i64)>,
    /// Positive.
    pub divisor: i64,
}

impl Bound {
    /// One term.
    pub fn of_term(term: Term) -> Bound {
        Bound {
            constant: 0,
            terms: vec![(term, 1)],
            divisor: 1,
        }
    }

    fn constant(value: i64) -> Bound {
        Bound {
            constant: value,
            terms: Vec::new(),
            divisor: 1,
        }
    }

    /// The bound's value before rounding is `value(term) / divisor`; this
    /// is it rounded down (`up == false`) or up.
    pub fn eval(&self, value: impl Fn(Term) -> Option<i64>, up: bool) -> Option<i64> {
        let mut total = self.constant;
        for &(term, coefficient) in &self.terms {
            total = total.checked_add(coefficient.checked_mul(value(term)?)?)?;
        }
        Some(if up {
            ceil_div(total, self.divisor)
        } else {
            total.div_euclid(self.divisor)
        })
    }

    /// This bound plus a constant (exact only with a divisor of 1).
    pub fn plus(&self, value: i64) -> Bound {
        Bound {
            constant: self.constant + value * self.divisor,
            ..self.clone()
        }
    }

    /// Whether the bound is exactly one term.
    pub fn is(&self, term: Term) -> bool {
        self.constant == 0 && self.divisor == 1 && self.terms == [(term, 1)]
    }
}

/// `ceil(a / b)` for `b > 0`.
pub fn ceil_div(a: i64, b: i64) -> i64 {
    -((-a).div_euclid(b))
}

/// A loop's range for one statement: `max(lower) <= x <= min(upper)`, the
/// upper bounds inclusive.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Interval {
    /// The iterator is at least each of these.
    pub lower: Vec<Bound>,
    /// The iterator is at most each of these.
    pub upper: Vec<Bound>,
}

/// The bounds of one loop of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopBounds {
    /// Per statement inside the loop, in the tree's order: its own C loop
    /// at this level and its range.
    pub statements: Vec<(StatementId, LoopId, Interval)>,
    /// For a tile or block loop: the value its iterations are congruent
    /// to, modulo the tile size or the block's span (parameters only).
    pub origin: Bound,
}

/// The bounds of every loop of a schedule.
#[derive(Clone, Debug)]
pub struct Scan<'a> {
    /// In the order of [`Schedule::loops`].
    pub loops: Vec<LoopBounds>,
    /// The index of each loop of the schedule, by address (the schedule is
    /// borrowed for as long as the scan lives).
    index: HashMap<*const TreeLoop, usize>,
    schedule: std::marker::PhantomData<&'a Schedule>,
}

/// Why a tree has no bounds (a tree built by hand that does not nest a
/// statement in each of its loops, or coefficients past `i64`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanError(pub String);

impl std::fmt::Display for ScanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScanError {}

/// One loop around a statement, from the outermost.
#[derive(Clone, Copy, Debug)]
struct Level {
    /// Index of the tree loop in [`Schedule::loops`] order.
    tree: usize,
    loop_id: LoopId,
    part: Part,
    size: i64,
}

impl<'a> Scan<'a> {
    /// The bounds of one loop of the schedule the scan was made from.
    ///
    /// # Panics
    /// When `l` is not a loop of that schedule.
    pub fn of(&self, l: &TreeLoop) -> &LoopBounds {
        &self.loops[self.index[&(l as *const TreeLoop)]]
    }

    /// Computes the bounds of every loop of the schedule.
    pub fn new(kernel: &Kernel, schedule: &'a Schedule) -> Result<Scan<'a>, ScanError> {
        let tree_loops = schedule.loops();
        let mut paths: Vec<(StatementId, Vec<Level>)> = Vec::new();
        let mut counter = 0;
        collect(
            kernel,
            &schedule.roots,
            &mut Vec::new(),
            &mut counter,
            &mut paths,
        )?;
        let mut origins_found = Vec::with_capacity(tree_loops.len());
        origins(
            kernel,
            schedule,
            &schedule.roots,
            &mut Vec::new(),
            &mut origins_found,
        )?;
        let origins = origins_found;
        let mut per_loop: Vec<Vec<(StatementId, LoopId, Interval)>> =
            vec![Vec::new(); tree_loops.len()];
        for (statement, levels) in &paths {
            let ranges = statement_ranges(kernel, schedule, *statement, levels, &origins)?;
            for (level, range) in levels.iter().zip(ranges) {
                per_loop[level.tree].push((*statement, level.loop_id, range));
            }
        }
        Ok(Scan {
            loops: per_loop
                .into_iter()
                .zip(origins)
                .map(|(statements, origin)| LoopBounds { statements, origin })
                .collect(),
            index: tree_loops
                .iter()
                .enumerate()
                .map(|(i, l)| (*l as *const TreeLoop, i))
                .collect(),
            schedule: std::marker::PhantomData,
        })
    }
}

/// Walks the tree in [`Schedule::loops`] order, recording the loops around
/// each statement.
fn collect<'a>(
    kernel: &Kernel,
    nodes: &'a [Node],
    stack: &mut Vec<(usize, &'a TreeLoop)>,
    counter: &mut usize,
    paths: &mut Vec<(StatementId, Vec<Level>)>,
) -> Result<(), ScanError> {
    for node in nodes {
        match node {
            Node::Statement(s) => {
                let own = kernel
                    .statements
                    .get(s.0)
                    .ok_or_else(|| ScanError(format!("no statement S{}", s.0)))?;
                let mut levels = Vec::new();
                for &(tree, l) in stack.iter() {
                    let mine: Vec<LoopId> = l
                        .members(kernel)
                        .iter()
                        .filter(|(x, _)| x == s)
                        .map(|(_, l)| *l)
                        .collect();
                    let [loop_id] = mine[..] else {
                        let names: Vec<&str> = l
                            .loops
                            .iter()
                            .map(|x| kernel.loops[x.0].iterator.as_str())
                            .collect();
                        return Err(ScanError(format!(
                            "S{} is inside a loop ({}) that is not one of its own",
                            s.0,
                            names.join(", ")
                        )));
                    };
                    levels.push(Level {
                        tree,
                        loop_id,
                        part: l.part,
                        size: l.size,
                    });
                }
                for &l in &own.loops {
                    if !levels
                        .iter()
                        .any(|v| v.loop_id == l && v.part == Part::Point)
                    {
                        return Err(ScanError(format!(
                            "S{} is not inside its loop `{}`",
                            s.0, kernel.loops[l.0].iterator
                        )));
                    }
                }
                blocks_enclose_their_tiles(kernel, *s, &levels)?;
                paths.push((*s, levels));
            }
            Node::Loop(l) => {
                let index = *counter;
                *counter += 1;
                stack.push((index, l));
                collect(kernel, &l.body, stack, counter, paths)?;
                stack.pop();
            }
        }
    }
    Ok(())
}

/// The block rows hold only when a block is outside the tile and the
/// point of its C loop, spans more than a tile and a whole number of
/// tiles; a tree built otherwise is an error, not wrong bounds.
fn blocks_enclose_their_tiles(
    kernel: &Kernel,
    s: StatementId,
    levels: &[Level],
) -> Result<(), ScanError> {
    for (at, block) in levels.iter().enumerate() {
        if block.part != Part::Block {
            continue;
        }
        let name = &kernel.loops[block.loop_id.0].iterator;
        let of_loop = |part: Part| {
            levels
                .iter()
                .position(|v| v.loop_id == block.loop_id && v.part == part)
        };
        let outside = |i: Option<usize>| i.is_some_and(|i| i < at);
        let (tile, point) = (of_loop(Part::Tile), of_loop(Part::Point));
        if outside(tile) || outside(point) {
            return Err(ScanError(format!(
                "the block loop of `{name}` of S{} is inside its tile or point loop",
                s.0
            )));
        }
        if levels[at + 1..]
            .iter()
            .any(|v| v.loop_id == block.loop_id && v.part == Part::Block)
        {
            return Err(ScanError(format!(
                "the loop `{name}` of S{} has two block loops",
                s.0
            )));
        }
        let size = tile.map_or(1, |t| levels[t].size);
        if size < 1 || block.size <= size || block.size % size != 0 {
            return Err(ScanError(format!(
                "the block of `{name}` of S{} spans {} iterations, not a multiple of its tiles of {size} larger than them",
                s.0, block.size
            )));
        }
    }
    Ok(())
}

/// A loop around the one whose origin is sought: its part, its members
/// and its origin.
type Around = (Part, Vec<(StatementId, LoopId)>, Bound);

/// Each tree loop's origin, in [`Schedule::loops`] order: for a tile loop,
/// the lower bound its C loops share when it reads only parameters and
/// iterators of loops outside it that every statement of the loop shares
/// (as OpenMP's `tile` steps from the loop's own lower bound), else 0 (so
/// for a skewed or shifted loop); a block loop's alike (its tiles then
/// start at a block's start);
/// merged statements step through the same tiles either way. Iterators
/// are read as the loop's first statement's.
///
/// A tile loop inside a block loop of its C loop steps from the block's
/// origin instead: a block holds whole tiles only when its start is a tile
/// start, and a block merged over statements whose lower bounds differ
/// steps from 0 where a tile loop of one of them would step from its own
/// bound. Blocks of one tile loop's statements that step from different
/// origins are an error.
fn origins(
    kernel: &Kernel,
    schedule: &Schedule,
    nodes: &[Node],
    outer: &mut Vec<Around>,
    out: &mut Vec<Bound>,
) -> Result<(), ScanError> {
    for node in nodes {
        let Node::Loop(l) = node else { continue };
        let members = l.members(kernel);
        // A skewed loop's lower bound reads its base, a shifted one's is
        // not its own: tiles start at 0.
        let skewed = members
            .iter()
            .any(|&(s, x)| schedule.skew(s, x).is_some() || schedule.shift(s, x) != 0);
        let blocks: Vec<&Bound> = outer
            .iter()
            .filter(|(part, outer_members, _)| {
                *part == Part::Block && members.iter().any(|m| outer_members.contains(m))
            })
            .map(|(_, _, origin)| origin)
            .collect();
        let found = match blocks.first() {
            Some(&first) if l.part == Part::Tile => {
                if blocks.iter().any(|b| *b != first) {
                    return Err(ScanError(format!(
                        "the tile loop of `{}` is inside blocks that step from different origins",
                        kernel.loops[l.loops[0].0].iterator
                    )));
                }
                first.clone()
            }
            _ if skewed => Bound::constant(0),
            _ => origin(kernel, l, &members, &outer[..]),
        };
        out.push(found.clone());
        outer.push((l.part, members, found));
        let result = origins(kernel, schedule, &l.body, outer, out);
        outer.pop();
        result?;
    }
    Ok(())
}

fn origin(
    kernel: &Kernel,
    l: &TreeLoop,
    members: &[(StatementId, LoopId)],
    outer: &[Around],
) -> Bound {
    let lowers: Vec<&Affine> = members
        .iter()
        .map(|(_, x)| &kernel.loops[x.0].lower)
        .collect();
    let Some(&(first, _)) = members.first() else {
        return Bound::constant(0);
    };
    if l.part == Part::Point || lowers.iter().any(|a| *a != lowers[0]) {
        return Bound::constant(0);
    }
    let mut terms = Vec::new();
    for &(v, c) in &lowers[0].terms {
        match v {
            Variable::Param(p) => terms.push((Term::Param(p), c)),
            Variable::Iterator(x) => {
                // One outer point loop holds `x` for every statement here.
                let shared = outer.iter().any(|(part, outer_members, _)| {
                    *part == Part::Point
                        && outer_members.contains(&(first, x))
                        && members
                            .iter()
                            .all(|(s, _)| outer_members.contains(&(*s, x)))
                });
                if !shared {
                    return Bound::constant(0);
                }
                terms.push((Term::Point(x), c));
            }
        }
    }
    terms.sort();
    Bound {
        constant: lowers[0].constant,
        terms,
        divisor: 1,
    }
}

/// The statement's range at each of its levels.
fn statement_ranges(
    kernel: &Kernel,
    schedule: &Schedule,
    statement: StatementId,
    levels: &[Level],
    origins: &[Bound],
) -> Result<Vec<Interval>, ScanError> {
    let params = kernel.params.len();
    let width = params + levels.len();
    let point_var: HashMap<LoopId, usize> = levels
        .iter()
        .enumerate()
        .filter(|(_, v)| v.part == Part::Point)
        .map(|(i, v)| (v.loop_id, params + i))
        .collect();
    let overflow = || ScanError(format!("the bounds of S{} overflow", statement.0));
    let unknown = |l: LoopId| {
        ScanError(format!(
            "a bound of S{} reads `{}`, not one of its loops",
            statement.0, kernel.loops[l.0].iterator
        ))
    };
    // The statement's own iterator of loop `l` over the levels' variables,
    // as coefficients and a constant: the level's, less the shift where
    // `l` runs shifted, less the factor times the base's own where it
    // runs skewed.
    let own_iterator = |l: LoopId| -> Result<(Vec<i64>, i64), ScanError> {
        let mut coefficients = vec![0i64; width];
        let mut constant = 0i64;
        let (mut at, mut scale) = (l, 1i64);
        for _ in 0..=levels.len() {
            let var = *point_var.get(&at).ok_or_else(|| unknown(at))?;
            coefficients[var] = coefficients[var].checked_add(scale).ok_or_else(overflow)?;
            constant = scale
                .checked_mul(schedule.shift(statement, at))
                .and_then(|x| constant.checked_sub(x))
                .ok_or_else(overflow)?;
            match schedule.skew(statement, at) {
                Some(skew) => {
                    scale = scale.checked_mul(-skew.factor).ok_or_else(overflow)?;
                    at = skew.base;
                }
                None => return Ok((coefficients, constant)),
            }
        }
        Err(ScanError(format!(
            "the skews of S{} form a cycle",
            statement.0
        )))
    };
    let row_of =
        |a: &Affine, sign: i64, own: LoopId, constant: i64| -> Result<Inequality, ScanError> {
            // sign * (x_own - a) + constant >= 0
            let (own_coefficients, own_constant) = own_iterator(own)?;
            let mut coefficients: Vec<i64> = own_coefficients.iter().map(|c| c * sign).collect();
            let mut constant = sign
                .checked_mul(own_constant)
                .and_then(|x| constant.checked_add(x))
                .ok_or_else(overflow)?;
            for &(v, c) in &a.terms {
                match v {
                    Variable::Param(p) => coefficients[p] -= sign * c,
                    Variable::Iterator(l) => {
                        let (iterator, iterator_constant) = own_iterator(l)?;
                        for (index, x) in iterator.into_iter().enumerate() {
                            let delta = sign.checked_mul(c).and_then(|y| y.checked_mul(x));
                            coefficients[index] = delta
                                .and_then(|d| coefficients[index].checked_sub(d))
                                .ok_or_else(overflow)?;
                        }
                        constant = sign
                            .checked_mul(c)
                            .and_then(|y| y.checked_mul(iterator_constant))
                            .and_then(|d| constant.checked_sub(d))
                            .ok_or_else(overflow)?;
                    }
                }
            }
            let constant = constant
                .checked_sub(sign.checked_mul(a.constant).ok_or_else(overflow)?)
                .ok_or_else(overflow)?;
            Ok(Inequality {
                coefficients,
                constant,
            })
        };
    // The statement's own constraints, each with the C loop it bounds.
    let mut rows: Vec<(LoopId, Inequality)> = Vec::new();
    let own_statement = &kernel.statements[statement.0];
    for &l in &own_statement.loops {
        let c_loop = &kernel.loops[l.0];
        rows.push((l, row_of(&c_loop.lower, 1, l, 0)?)); // x - lower >= 0
        rows.push((l, row_of(&c_loop.upper, -1, l, -1)?)); // upper - 1 - x >= 0
    }
    // The conditions of its `if` statements bound the innermost of the
    // loops they read, like that loop's own bounds; those that read no
    // loop are the emitters' to test.
    for guard in &own_statement.guards {
        let innermost = own_statement
            .loops
            .iter()
            .rev()
            .find(|&&l| guard.coefficient(Variable::Iterator(l)) != 0);
        if let Some(&l) = innermost {
            // guard >= 0 is `1 * (x - (x - guard)) >= 0`.
            let x = Affine {
                constant: 0,
                terms: vec![(Variable::Iterator(l), 1)],
            };
            let shifted = x.add(guard, -1).ok_or_else(overflow)?;
            rows.push((l, row_of(&shifted, 1, l, 0)?));
        }
    }
    for (i, level) in levels.iter().enumerate() {
        if level.part == Part::Tile {
            // t <= x <= t + T - 1
            let (t, x) = (params + i, point_var[&level.loop_id]);
            for row in within(width, x, t, level.size - 1) {
                rows.push((level.loop_id, row));
            }
        }
        if level.part == Part::Block {
            // The block holds the tiles `b, b + T, .., b + S - T` (both
            // congruent to the origin, S a multiple of T), or the points
            // `b .. b + S - 1` of an untiled loop: exact rows, so the
            // tiles a projection finds in a block are all there is.
            let inner = levels
                .iter()
                .enumerate()
                .skip(i + 1)
                .find(|(_, v)| v.loop_id == level.loop_id && v.part == Part::Tile)
                .map_or((point_var[&level.loop_id], 1), |(j, v)| {
                    (params + j, v.size)
                });
            // b <= t <= b + S - T
            let (b, (t, size)) = (params + i, inner);
            for row in within(width, t, b, level.size - size) {
                rows.push((level.loop_id, row));
            }
        }
    }
    let own: Vec<Inequality> = rows.iter().map(|(_, r)| r.clone()).collect();
    // Bounds read the statement's own loops.
    let term_of = |index: usize| -> Term {
        if index < params {
            Term::Param(index)
        } else {
            let level = &levels[index - params];
            match level.part {
                Part::Point => Term::Point(level.loop_id),
                Part::Tile => Term::Tile(level.loop_id),
                Part::Block => Term::Block(level.loop_id),
            }
        }
    };
    // The whole projection onto each level and the ones outside it, from
    // the innermost level out to the outermost point level (the levels
    // that read it): each step eliminates one more iterator.
    let mut whole_at: Vec<Vec<Inequality>> = vec![Vec::new(); levels.len()];
    if let Some(first_point) = levels.iter().position(|l| l.part == Part::Point) {
        let mut whole = own.clone();
        for k in (first_point..levels.len()).rev() {
            if k + 1 < levels.len() {
                whole = project(&whole, params + k + 1).ok_or_else(overflow)?;
            }
            whole_at[k] = whole.clone();
        }
    }
    let mut enforced: Vec<Inequality> = Vec::new();
    let mut ranges = Vec::with_capacity(levels.len());
    for (k, level) in levels.iter().enumerate() {
        let var = params + k;
        // A loop's range in the original nest comes from its bounds and
        // its enclosing loops'; the loops inside it add only when they
        // are empty, which would make merged statements' ranges differ.
        // Project the iterators inside this level out of those.
        let mut projected: Vec<Inequality> = rows
            .iter()
            .filter(|(owner, _)| kernel.loop_encloses(*owner, level.loop_id))
            .map(|(_, r)| r.clone())
            .collect();
        for inner in (var + 1..width).rev() {
            projected = project(&projected, inner).ok_or_else(overflow)?;
        }
        // The loops inside do matter where they tie this loop to one
        // outside it: interchanged outward, lu's update `k < j < i` starts
        // `i` at `k + 2`, not 0, which keeps a parallel `i` balanced. A
        // point loop takes those rows of the whole projection (the ones
        // with constants and parameters only would trim edges and split
        // merged loops).
        let tied: Vec<Inequality> = if level.part == Part::Point {
            whole_at[k]
                .iter()
                .filter(|r| r.coefficients[var] != 0)
                .filter(|r| (params..var).any(|i| r.coefficients[i] != 0))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        let last_is_here = |r: &Inequality| r.coefficients[var + 1..].iter().all(|&c| c == 0);
        let mut sides = [Vec::new(), Vec::new()];
        for (side, sign) in [(0, 1i64), (1, -1i64)] {
            let on_side = |r: &&Inequality| r.coefficients[var].signum() == sign;
            // A point loop enforces the statement's own bounds that read
            // no inner iterator; the projection adds those that hold once
            // the loops inside are interchanged outward. Bounds the others
            // imply go below.
            let mut chosen: Vec<Inequality> = if level.part == Part::Point {
                own.iter()
                    .filter(on_side)
                    .filter(|r| last_is_here(r))
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            };
            for r in projected.iter().chain(&tied).filter(on_side) {
                if !chosen.contains(r) {
                    chosen.push(r.clone());
                }
            }
            if chosen.is_empty() {
                return Err(ScanError(format!(
                    "the loop `{}` of S{} has no {} bound",
                    kernel.loops[level.loop_id.0].iterator,
                    statement.0,
                    if sign > 0 { "lower" } else { "upper" }
                )));
            }
            // Outer loops (or guards, where merged loops run over a hull)
            // enforce what `enforced` holds, so a bound it implies goes.
            sides[side] = without_dominated(chosen, var, &enforced, width);
        }
        let [lower_rows, upper_rows] = sides;
        enforced.extend(lower_rows.iter().cloned());
        enforced.extend(upper_rows.iter().cloned());
        let to_bound = |r: &Inequality| -> Bound {
            // c·x + rest >= 0: x >= -rest / c (c > 0) or x <= rest / -c.
            let c = r.coefficients[var];
            let sign = if c > 0 { -1 } else { 1 };
            let mut terms: Vec<(Term, i64)> = (0..var)
                .filter(|&i| r.coefficients[i] != 0)
                .map(|i| (term_of(i), sign * r.coefficients[i]))
                .collect();
            terms.sort();
            Bound {
                constant: sign * r.constant,
                terms,
                divisor: c.abs(),
            }
        };
        let range = Interval {
            lower: lower_rows.iter().map(to_bound).collect(),
            upper: upper_rows.iter().map(to_bound).collect(),
        };
        if level.part != Part::Point {
            // Tile iterations are congruent to the origin, so each lower
            // bound that differs from it by a constant rounds up to the
            // next tile start: say so to the loops inside, which then drop
            // bounds the tile implies. Block iterations alike, modulo the
            // span.
            let origin = &origins[level.tree];
            for low in &range.lower {
                if low.divisor == 1 && low.terms == origin.terms {
                    let first = origin.constant
                        + level.size * ceil_div(low.constant - origin.constant, level.size);
                    let mut coefficients = vec![0i64; width];
                    coefficients[var] = 1;
                    let mut expressible = true;
                    for &(term, c) in &origin.terms {
                        let index = match term {
                            Term::Param(p) => Some(p),
                            Term::Point(x) => levels
                                .iter()
                                .position(|v| v.part == Part::Point && v.loop_id == x)
                                .map(|i| params + i),
                            Term::Tile(_) | Term::Block(_) => None,
                        };
                        match index {
                            Some(index) => coefficients[index] -= c,
                            None => expressible = false,
                        }
                    }
                    if !expressible {
                        continue;
                    }
                    let row = Inequality {
                        coefficients,
                        constant: -first,
                    };
                    rows.push((level.loop_id, row.clone()));
                    enforced.push(row);
                }
            }
        }
        ranges.push(range);
    }
    Ok(ranges)
}

/// The rows `start <= var <= start + span` over `width` variables.
fn within(width: usize, var: usize, start: usize, span: i64) -> [Inequality; 2] {
    let row = |sign: i64, constant: i64| {
        let mut coefficients = vec![0i64; width];
        coefficients[var] = sign;
        coefficients[start] = -sign;
        Inequality {
            coefficients,
            constant,
        }
    };
    [row(1, 0), row(-1, span)]
}

/// Projects `var` out of the rows; `None` when the elimination gives up.
/// A row left failing says the statement runs no instance, which the
/// statement's own bounds, enforced at their loops, find out.
fn project(rows: &[Inequality], var: usize) -> Option<Vec<Inequality>> {
    eliminate(rows, var).ok().map(|projected| projected.rows)
}

/// Drops the bounds another one of the same side implies, given the
/// constraints on the outer iterators; of equal ones, the first stays.
fn without_dominated(
    rows: Vec<Inequality>,
    var: usize,
    context: &[Inequality],
    width: usize,
) -> Vec<Inequality> {
    let mut rows = rows;
    rows.dedup();
    let mut kept: Vec<Inequality> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let dominated = rows.iter().enumerate().any(|(j, other)| {
            j != i
                && implies(other, r, var, context, width)
                && (j < i || !implies(r, other, var, context, width))
        });
        if !dominated && !kept.contains(r) {
            kept.push(r.clone());
        }
    }
    kept
}

/// Whether bound row `a` implies bound row `b` (same side) wherever the
/// context holds: for lower bounds `x >= -ea / ca` and `x >= -eb / cb`,
/// `-ea / ca >= -eb / cb`, that is `ca·eb - cb·ea >= 0` (upper bounds
/// alike with `ca, cb < 0`). Decided by showing the opposite infeasible.
fn implies(
    a: &Inequality,
    b: &Inequality,
    var: usize,
    context: &[Inequality],
    width: usize,
) -> bool {
    let (ca, cb) = (a.coefficients[var].abs(), b.coefficients[var].abs());
    // `ca·eb - cb·ea >= 0` where e is the row without x; the opposite is
    // `cb·ea - ca·eb - 1 >= 0`.
    let mut coefficients = Vec::with_capacity(width);
    for i in 0..width {
        if i == var {
            coefficients.push(0);
            continue;
        }
        let value =
            (cb as i128) * (a.coefficients[i] as i128) - (ca as i128) * (b.coefficients[i] as i128);
        match i64::try_from(value) {
            Ok(v) => coefficients.push(v),
            Err(_) => return false,
        }
    }
    let constant = (cb as i128) * (a.constant as i128) - (ca as i128) * (b.constant as i128) - 1;
    let Ok(constant) = i64::try_from(constant) else {
        return false;
    };
    let mut system = System::new(width);
    for r in context {
        system.at_least_zero(r.coefficients.clone(), r.constant);
    }
    system.at_least_zero(coefficients, constant);
    !system.may_be_feasible()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::read_kernel;
    use crate::lowering::schedule::Kind;

    fn kernel() -> Kernel {
        let source = "void f(void) {\n#pragma scop\n  for (i = 0; i < N; i++)\n    for (j = 0; j < i; j++)\n      A[i][j] = A[j][i];\n#pragma endscop\n}\n";
        read_kernel("t.c", source).expect("the nest reads")
    }

    /// Statement 0 in loops nested as listed, outermost first: (C loop,
    /// part, size).
    fn nest(levels: &[(usize, Part, i64)]) -> Schedule {
        let mut body = vec![Node::Statement(StatementId(0))];
        for &(loop_id, part, size) in levels.iter().rev() {
            body = vec![Node::Loop(TreeLoop {
                loops: vec![LoopId(loop_id)],
                statements: Vec::new(),
                part,
                size,
                kind: Kind::Sequential,
                dynamic: false,
                accumulating: Vec::new(),
                packs: Vec::new(),
                body,
            })];
        }
        Schedule {
            roots: body,
            skews: Vec::new(),
            shifts: Vec::new(),
        }
    }

    /// Each loop's range, written `lower..=upper` with its bounds.
    fn ranges(kernel: &Kernel, schedule: &Schedule) -> Vec<String> {
        let scan = Scan::new(kernel, schedule).expect("bounds");
        let name = |t: Term| match t {
            Term::Param(p) => kernel.params[p].clone(),
            Term::Point(l) => kernel.loops[l.0].iterator.clone(),
            Term::Tile(l) => format!("{}_t", kernel.loops[l.0].iterator),
            Term::Block(l) => format!("{}_b", kernel.loops[l.0].iterator),
        };
        let text = |b: &Bound| {
            let mut out = b.constant.to_string();
            for &(t, c) in &b.terms {
                out.push_str(&format!(" + {c}*{}", name(t)));
            }
            if b.divisor != 1 {
                out = format!("({out})/{}", b.divisor);
            }
            out
        };
        scan.loops
            .iter()
            .map(|l| {
                let range = &l.statements[0].2;
                let lower: Vec<String> = range.lower.iter().map(text).collect();
                let upper: Vec<String> = range.upper.iter().map(text).collect();
                format!("{}..={}", lower.join(","), upper.join(","))
            })
            .collect()
    }

    #[test]
    fn the_original_nest_keeps_its_bounds() {
        let kernel = kernel();
        let schedule = nest(&[(0, Part::Point, 1), (1, Part::Point, 1)]);
        assert_eq!(ranges(&kernel, &schedule), ["0..=-1 + 1*N", "0..=-1 + 1*i"]);
    }

    #[test]
    fn an_interchanged_triangle_projects_the_bounds() {
        // for j in 0..=N-2, for i in j+1..=N-1.
        let kernel = kernel();
        let schedule = nest(&[(1, Part::Point, 1), (0, Part::Point, 1)]);
        assert_eq!(
            ranges(&kernel, &schedule),
            ["0..=-2 + 1*N", "1 + 1*j..=-1 + 1*N"]
        );
    }

    #[test]
    fn a_tile_of_the_triangle_outside_its_bound_spans_every_row() {
        // Tiles of j (origin 0, size 4) outside i: the tile's first row
        // comes from j's lower bound, its last from j < i < N; i starts
        // past the tile's first row (j_t <= j < i ties it to the tile),
        // and j is within the tile and below i.
        let kernel = kernel();
        let schedule = nest(&[(1, Part::Tile, 4), (0, Part::Point, 1), (1, Part::Point, 4)]);
        assert_eq!(
            ranges(&kernel, &schedule),
            [
                "-3..=-2 + 1*N",
                "1 + 1*j_t..=-1 + 1*N",
                "0 + 1*j_t..=-1 + 1*i,3 + 1*j_t"
            ]
        );
    }

    #[test]
    fn a_block_holds_the_tiles_of_its_span() {
        // Blocks of 16 rows of i around tiles of 4: the blocks start at 0
        // (i's lower bound, rounded from -15 to the origin), each holds
        // the tiles i_b, .., i_b + 12 that are in i's range, and the
        // points are within their tile; j's triangle is unchanged.
        let kernel = kernel();
        let schedule = nest(&[
            (0, Part::Block, 16),
            (0, Part::Tile, 4),
            (0, Part::Point, 4),
            (1, Part::Point, 1),
        ]);
        assert_eq!(
            ranges(&kernel, &schedule),
            [
                "-15..=-1 + 1*N",
                "0 + 1*i_b..=12 + 1*i_b,-1 + 1*N",
                "0 + 1*i_t..=-1 + 1*N,3 + 1*i_t",
                "0..=-1 + 1*i"
            ]
        );
    }

    #[test]
    fn a_block_of_the_triangle_outside_the_other_loops_tile() {
        // Blocks of 16 of j outside tiles of 4 of i: j's blocks span j's
        // range (0 <= j < i < N), i's tiles span i's own (loops inside
        // add nothing unless empty), and j's tiles are in their block
        // and below the tile's last row.
        let kernel = kernel();
        let schedule = nest(&[
            (1, Part::Block, 16),
            (0, Part::Tile, 4),
            (1, Part::Tile, 4),
            (0, Part::Point, 4),
            (1, Part::Point, 4),
        ]);
        assert_eq!(
            ranges(&kernel, &schedule),
            [
                "-15..=-2 + 1*N",
                "-3..=-1 + 1*N",
                "0 + 1*j_b..=2 + 1*i_t,12 + 1*j_b,-2 + 1*N",
                "0 + 1*i_t,1 + 1*j_t..=-1 + 1*N,3 + 1*i_t",
                "0 + 1*j_t..=-1 + 1*i,3 + 1*j_t"
            ]
        );
    }

    #[test]
    fn a_block_inside_its_tile_or_not_spanning_whole_tiles_is_an_error() {
        let kernel = kernel();
        let inside = nest(&[
            (0, Part::Tile, 4),
            (0, Part::Block, 16),
            (0, Part::Point, 4),
            (1, Part::Point, 1),
        ]);
        let error = Scan::new(&kernel, &inside).expect_err("block inside its tile");
        assert!(error.0.contains("inside its tile"), "{error}");
        let uneven = nest(&[
            (0, Part::Block, 10),
            (0, Part::Tile, 4),
            (0, Part::Point, 4),
            (1, Part::Point, 1),
        ]);
        let error = Scan::new(&kernel, &uneven).expect_err("10 is not a multiple of 4");
        assert!(error.0.contains("not a multiple"), "{error}");
    }

    #[test]
    fn a_statement_outside_its_loop_is_an_error() {
        let kernel = kernel();
        let schedule = nest(&[(0, Part::Point, 1)]);
        let error = Scan::new(&kernel, &schedule).expect_err("j is missing");
        assert!(error.0.contains("not inside its loop `j`"), "{error}");
    }
}
