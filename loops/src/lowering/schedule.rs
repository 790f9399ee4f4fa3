//! A fully decided candidate of the loop space read as a loop tree: what
//! the emitters write out and the interpreter runs.
//!
//! Every C loop around every statement is strip-mined into a tile dimension
//! and a point dimension, and where the space has blocks (`--blocks`) the
//! loops of statements in nests of three loops or more into a block
//! dimension too (a tile of tiles); merged dimensions (the statements of
//! one C loop not distributed) are one loop of the tree, and a distributed
//! C loop appears once per group of statements. With a tile size of 1 the
//! loop is not tiled: its tile dimension runs once and is left out of the
//! tree, and the point dimension is the whole loop. With a size `T > 1` the
//! tile dimension steps by `T` over the loop's range and the point
//! dimension runs the (at most `T`) iterations of one tile. A block of span
//! `S > 1` (a multiple of `T`, more than `T`) steps by `S` over the loop's
//! range, outside its tile loop, which then steps by `T` over the `S / T`
//! tiles of one block; a block of span 1 runs once and is left out. A
//! dimension's kind says how it runs; an unrolled point dimension is
//! unrolled and jammed: every statement below it is repeated once per
//! iteration of the tile, in place.

use std::fmt;

use commute_runtime::{Candidate, Domain, InstanceId};

use crate::analysis::skew::Skew;
use crate::frontend::{Kernel, LoopId, StatementId};
use crate::space::host::{Dimension, KernelHost};
use crate::space::{
    accumulate, dim_kind, order, pack, schedule, shift, skew, tile_size, Backbone, Host,
    StatementsId,
};

/// How a loop of the tree runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One iteration after the other.
    Sequential,
    /// Iterations shared among threads.
    Parallel,
    /// Iterations in vector lanes.
    Vector,
    /// Unrolled and jammed by the tile size.
    Unroll,
    /// Sequential, last iteration first (untiled loops only).
    Reverse,
    /// Shared among threads with the parallel loop directly around it:
    /// one iteration space of both (`collapse(2)`).
    Collapsed,
    /// A tile loop whose tiles, with those of the [`Kind::Wavefront`] tile
    /// loop that is its whole body, run as a wavefront: one anti-diagonal
    /// of tile pairs (their tile indices summing to a constant) after the
    /// other, in order.
    Wave,
    /// The tile loop directly and only inside a [`Kind::Wave`] one: the
    /// tile pairs of one anti-diagonal are shared among threads.
    Wavefront,
}

pub use crate::space::host::Part;

/// A loop of the tree: one dimension, or several merged (fused) ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeLoop {
    /// The C loops of the merged dimensions, sorted.
    pub loops: Vec<LoopId>,
    /// Each statement inside the loop with its own C loop here; empty in
    /// trees written by hand, where [`TreeLoop::members`] reads them from
    /// `loops`.
    pub statements: Vec<(StatementId, LoopId)>,
    /// The block, tile or point part of the C loops.
    pub part: Part,
    /// The tile size of the C loop (1: not tiled), or for a block loop
    /// the block's span in iterations of the C loop (a multiple of the
    /// tile size, larger).
    pub size: i64,
    /// How the loop runs.
    pub kind: Kind,
    /// A parallel loop's iterations go to the first thread free
    /// (`schedule(dynamic)`), not in equal blocks.
    pub dynamic: bool,
    /// The statements whose reduction into an array element is held in
    /// local accumulators while this sequential loop runs (scalar
    /// replacement); parallel and vector loops reduce without being asked.
    pub accumulating: Vec<StatementId>,
    /// The operands copied into local buffers at the start of each
    /// iteration (packing).
    pub packs: Vec<Pack>,
    /// What runs inside, in order.
    pub body: Vec<Node>,
}

/// An operand a statement reads, copied into a contiguous local buffer at
/// the start of each iteration of a loop (the space's `pack`): the buffer
/// holds what the statement reads of it in that iteration, indexed by the
/// points of the tiles inside the loop that the read's subscripts read,
/// each point's offset in its tile. The statement then reads the buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pack {
    /// The statement that reads the operand.
    pub statement: StatementId,
    /// The read, by its index among the statement's reads.
    pub read: usize,
    /// The loops whose points index the buffer, outermost first, with
    /// their tile sizes (the buffer's extents).
    pub loops: Vec<(LoopId, i64)>,
}

impl TreeLoop {
    /// Each statement inside the loop with its own C loop here: the
    /// recorded ones, or else the one of `loops` each statement has.
    pub fn members(&self, kernel: &Kernel) -> Vec<(StatementId, LoopId)> {
        if !self.statements.is_empty() {
            return self.statements.clone();
        }
        fn below(nodes: &[Node], out: &mut Vec<StatementId>) {
            for node in nodes {
                match node {
                    Node::Statement(s) => out.push(*s),
                    Node::Loop(l) => below(&l.body, out),
                }
            }
        }
        let mut statements = Vec::new();
        below(&self.body, &mut statements);
        statements
            .into_iter()
            .filter_map(|s| {
                let own = kernel.statements.get(s.0)?;
                let l = self.loops.iter().copied().find(|l| own.loops.contains(l))?;
                Some((s, l))
            })
            .collect()
    }
}

/// A node of the loop tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A loop and its body.
    Loop(TreeLoop),
    /// One statement instance per iteration of the loops around it.
    Statement(StatementId),
}

/// The loop tree of a fully decided candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The outermost nodes, in order.
    pub roots: Vec<Node>,
    /// The statements' loops that run skewed: each loop's iterator (as
    /// the tree's loops and bounds read it) is the statement's own plus
    /// the factor times its base's own.
    pub skews: Vec<(StatementId, LoopId, Skew)>,
    /// The statements' loops that run shifted: each loop's iterator is the
    /// statement's own plus the shift (its iteration `x` runs in the
    /// merged loop's iteration `x + shift`).
    pub shifts: Vec<(StatementId, LoopId, i64)>,
}

/// Why a candidate gives no loop tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleError(pub String);

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScheduleError {}

/// The decided values the tree is read from.
struct Decided<'a> {
    candidate: &'a Candidate<Backbone<KernelHost>>,
}

impl Decided<'_> {
    fn single(&self, choice: u16, objects: Vec<u32>) -> Result<(u64, Domain), ScheduleError> {
        let instance = InstanceId { choice, objects };
        let domain = self.candidate.domain(&instance).ok_or_else(|| {
            ScheduleError(format!(
                "no instance {}",
                instance.display(self.candidate.model())
            ))
        })?;
        let mask = match &domain {
            Domain::Enum(mask) | Domain::Integer { mask, .. } => *mask,
            Domain::Counter { .. } => 0,
        };
        if mask.count_ones() != 1 {
            return Err(ScheduleError(format!(
                "{} is not decided",
                instance.display(self.candidate.model())
            )));
        }
        Ok((mask, domain))
    }

    fn order(&self, a: u32, b: u32) -> Result<u64, ScheduleError> {
        Ok(self.single(order::CHOICE, vec![a, b])?.0)
    }

    fn kind(&self, d: u32) -> Result<Kind, ScheduleError> {
        let mask = self.single(dim_kind::CHOICE, vec![d])?.0;
        Ok(match mask {
            dim_kind::PARALLEL => Kind::Parallel,
            dim_kind::VECTOR => Kind::Vector,
            dim_kind::UNROLL => Kind::Unroll,
            dim_kind::REVERSED => Kind::Reverse,
            dim_kind::COLLAPSED => Kind::Collapsed,
            dim_kind::WAVE => Kind::Wave,
            dim_kind::WAVEFRONT => Kind::Wavefront,
            _ => Kind::Sequential,
        })
    }

    fn skewed(&self, d: u32) -> Result<bool, ScheduleError> {
        Ok(self.single(skew::CHOICE, vec![d])?.0 == skew::YES)
    }

    fn shifted(&self, d: u32) -> Result<bool, ScheduleError> {
        Ok(self.single(shift::CHOICE, vec![d])?.0 == shift::YES)
    }

    fn accumulates(&self, d: u32) -> Result<bool, ScheduleError> {
        Ok(self.single(accumulate::CHOICE, vec![d])?.0 == accumulate::YES)
    }

    fn packs(&self, d: u32, a: u32) -> Result<bool, ScheduleError> {
        Ok(self.single(pack::CHOICE, vec![d, a])?.0 == pack::YES)
    }

    fn dynamic(&self, d: u32) -> Result<bool, ScheduleError> {
        Ok(self.single(schedule::CHOICE, vec![d])?.0 == schedule::DYNAMIC)
    }

    fn size(&self, d: u32) -> Result<i64, ScheduleError> {
        match self.single(tile_size::CHOICE, vec![d])? {
            (mask, Domain::Integer { universe, .. }) => universe
                .get(mask.trailing_zeros() as usize)
                .copied()
                .ok_or_else(|| ScheduleError(format!("tile_size({d}) out of its universe"))),
            _ => Err(ScheduleError(format!("tile_size({d}) is not an integer"))),
        }
    }
}

impl Schedule {
    /// Reads the loop tree of a complete candidate.
    pub fn from_candidate(
        host: &KernelHost,
        candidate: &Candidate<Backbone<KernelHost>>,
    ) -> Result<Schedule, ScheduleError> {
        let decided = Decided { candidate };
        let n = host.kernel().statements.len() as u32;
        let objects = host.object_count() as u32;
        // Per dimension object: its loop, its part, and the tile size of
        // its loop around its statement (a block's: its span).
        let mut dims: Vec<(LoopId, Part, i64)> = Vec::new();
        for d in n..objects {
            let dimension = host
                .dimension(StatementsId(d))
                .ok_or_else(|| ScheduleError(format!("object {d} is not a dimension")))?;
            let sized = if dimension.part == Part::Block {
                StatementsId(d)
            } else {
                host.dim(Dimension {
                    part: Part::Point,
                    ..dimension
                })
                .ok_or_else(|| ScheduleError(format!("no point dimension for {d}")))?
            };
            dims.push((dimension.loop_id, dimension.part, decided.size(sized.0)?));
        }
        let dimension = |d: u32| {
            let (l, part, _) = dims[(d - n) as usize];
            (l, part)
        };
        let sizes: Vec<i64> = dims.iter().map(|x| x.2).collect();
        // Tile dimensions of untiled loops and blocks of span 1 run once:
        // they are left out.
        let present: Vec<u32> = (0..objects)
            .filter(|&x| {
                x < n || {
                    let (_, part, size) = dims[(x - n) as usize];
                    part == Part::Point || size > 1
                }
            })
            .collect();
        // Merged dimensions form one loop, named by the smallest.
        let mut group: Vec<u32> = (0..objects).collect();
        for &a in &present {
            for &b in &present {
                if a < b && b >= n && a >= n && decided.order(a, b)? == order::MERGED {
                    group[b as usize] = group[a as usize].min(group[b as usize]);
                }
            }
        }
        let heads: Vec<u32> = present
            .iter()
            .copied()
            .filter(|&x| group[x as usize] == x)
            .collect();
        // The parent of an object is the innermost loop outside it.
        let mut parent: Vec<Option<u32>> = vec![None; objects as usize];
        for &x in &heads {
            let mut outer: Vec<u32> = Vec::new();
            for &d in &heads {
                if d != x && d >= n && decided.order(d, x)? == order::OUTER {
                    outer.push(d);
                }
            }
            for &d in &outer {
                let innermost = outer
                    .iter()
                    .all(|&e| e == d || decided.order(e, d) == Ok(order::OUTER));
                if innermost {
                    parent[x as usize] = Some(d);
                }
            }
        }
        let statement_of = |d: u32| {
            host.dimension(StatementsId(d))
                .map_or(StatementId(usize::MAX), |x| x.statement)
        };
        // Per dimension object, the operands its iterations pack: the
        // loops of the read inside it, their points offsets in the buffer.
        let mut packs: Vec<Vec<Pack>> = vec![Vec::new(); (objects - n) as usize];
        for d in n..objects {
            for a in host.operands() {
                if !decided.packs(d, a.0)? {
                    continue;
                }
                let (statement, read) = host.packed_read(StatementsId(d), a).ok_or_else(|| {
                    ScheduleError(format!("pack({d}, {}) is YES, not offered", a.0))
                })?;
                let access = &host.kernel().statements[statement.0].reads[read];
                let mut loops = Vec::new();
                for &x in host.kernel().loops_of(statement) {
                    let point = host
                        .dim(Dimension {
                            statement,
                            loop_id: x,
                            part: Part::Point,
                        })
                        .ok_or_else(|| ScheduleError(format!("no point dimension for {d}")))?;
                    if access.reads_loop(x) && decided.order(d, point.0)? == order::OUTER {
                        loops.push((x, sizes[(point.0 - n) as usize]));
                    }
                }
                packs[(d - n) as usize].push(Pack {
                    statement,
                    read,
                    loops,
                });
            }
        }
        let build = Builder {
            packs: &packs,
            decided: &decided,
            statement_of: &statement_of,
            n,
            heads: &heads,
            parent: &parent,
            group: &group,
            sizes: &sizes,
            dimension: &dimension,
        };
        let mut skews = Vec::new();
        let mut shifts = Vec::new();
        for d in n..objects {
            let Some(dimension) = host.dimension(StatementsId(d)) else {
                continue;
            };
            let (s, l) = (dimension.statement, dimension.loop_id);
            let not_offered =
                |what: &str| ScheduleError(format!("{what}({d}) is YES, not offered"));
            if dimension.part == Part::Point && decided.skewed(d)? {
                let skew = host.skew_of(s, l).ok_or_else(|| not_offered("skew"))?;
                skews.push((s, l, skew));
            }
            if dimension.part == Part::Point && decided.shifted(d)? {
                let by = host.shift_of(s, l).ok_or_else(|| not_offered("shift"))?;
                shifts.push((s, l, by));
            }
        }
        Ok(Schedule {
            roots: build.children(None)?,
            skews,
            shifts,
        })
    }

    /// How many iterations late statement `s`'s loop `l` runs (0 when it
    /// is not shifted).
    pub fn shift(&self, s: StatementId, l: LoopId) -> i64 {
        self.shifts
            .iter()
            .find(|(x, y, _)| *x == s && *y == l)
            .map_or(0, |(_, _, by)| *by)
    }

    /// How statement `s`'s loop `l` is skewed, if it is.
    pub fn skew(&self, s: StatementId, l: LoopId) -> Option<Skew> {
        self.skews
            .iter()
            .find(|(x, y, _)| *x == s && *y == l)
            .map(|(_, _, skew)| *skew)
    }

    /// The skewed loops that run outside their base's point loop, per
    /// statement: the interchanges their skews made legal.
    pub fn skews_outside_their_base(&self, kernel: &Kernel) -> Vec<(StatementId, LoopId)> {
        fn walk(
            schedule: &Schedule,
            kernel: &Kernel,
            nodes: &[Node],
            outer: &mut Vec<(StatementId, LoopId)>,
            out: &mut Vec<(StatementId, LoopId)>,
        ) {
            for node in nodes {
                match node {
                    Node::Statement(s) => {
                        let mine: Vec<LoopId> = outer
                            .iter()
                            .filter(|(x, _)| x == s)
                            .map(|(_, l)| *l)
                            .collect();
                        for (at, &l) in mine.iter().enumerate() {
                            let outside = schedule
                                .skew(*s, l)
                                .is_some_and(|k| mine[at + 1..].contains(&k.base));
                            if outside && !out.contains(&(*s, l)) {
                                out.push((*s, l));
                            }
                        }
                    }
                    Node::Loop(l) => {
                        let pushed = outer.len();
                        if l.part == Part::Point {
                            outer.extend(l.members(kernel));
                        }
                        walk(schedule, kernel, &l.body, outer, out);
                        outer.truncate(pushed);
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(self, kernel, &self.roots, &mut Vec::new(), &mut out);
        out
    }

    /// Every loop of the tree, outermost first, depth first.
    pub fn loops(&self) -> Vec<&TreeLoop> {
        fn walk<'a>(nodes: &'a [Node], out: &mut Vec<&'a TreeLoop>) {
            for node in nodes {
                if let Node::Loop(l) = node {
                    out.push(l);
                    walk(&l.body, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.roots, &mut out);
        out
    }

    /// An indented outline, one line per loop or statement.
    pub fn outline(&self, kernel: &Kernel) -> String {
        fn walk(
            schedule: &Schedule,
            nodes: &[Node],
            kernel: &Kernel,
            depth: usize,
            out: &mut String,
        ) {
            for node in nodes {
                let indent = "  ".repeat(depth);
                match node {
                    Node::Statement(s) => {
                        let code = &kernel.statements[s.0].code;
                        out.push_str(&format!("{indent}{}\n", code.trim()));
                    }
                    Node::Loop(l) => {
                        // A skewed or shifted loop is named by what it
                        // runs: `j+i`, `i+1`.
                        let names: Vec<String> = l
                            .loops
                            .iter()
                            .map(|x| {
                                let name = kernel.loops[x.0].iterator.clone();
                                let members = l.members(kernel);
                                let skew = members.iter().find_map(|&(s, y)| {
                                    (y == *x).then(|| schedule.skew(s, y)).flatten()
                                });
                                let shift = members
                                    .iter()
                                    .find(|&&(s, y)| y == *x && schedule.shift(s, y) != 0)
                                    .map(|&(s, y)| schedule.shift(s, y));
                                if let Some(by) = shift {
                                    return format!("{name}+{by}");
                                }
                                match skew {
                                    Some(k) if k.factor == 1 => {
                                        format!("{name}+{}", kernel.loops[k.base.0].iterator)
                                    }
                                    Some(k) => format!(
                                        "{name}+{}*{}",
                                        k.factor, kernel.loops[k.base.0].iterator
                                    ),
                                    None => name,
                                }
                            })
                            .collect();
                        let part = match (l.part, l.size) {
                            (Part::Block, size) => format!(" blocks of {size}"),
                            (Part::Tile, size) => format!(" tiles of {size}"),
                            (Part::Point, 1) => String::new(),
                            (Part::Point, size) => format!(" within a tile of {size}"),
                        };
                        let kind = match l.kind {
                            Kind::Sequential => "",
                            Kind::Parallel => " parallel",
                            Kind::Vector => " vector",
                            Kind::Unroll => " unrolled and jammed",
                            Kind::Reverse => " reversed",
                            Kind::Collapsed => " collapsed",
                            Kind::Wave => " in waves",
                            Kind::Wavefront => " parallel along the waves",
                        };
                        let mut kind = if l.dynamic {
                            format!("{kind} (dynamic)")
                        } else {
                            kind.to_string()
                        };
                        for s in &l.accumulating {
                            kind.push_str(&format!(" accumulating S{}", s.0));
                        }
                        for p in &l.packs {
                            let read = &kernel.statements[p.statement.0].reads[p.read];
                            kind.push_str(&format!(
                                " packing {} for S{}",
                                read.name, p.statement.0
                            ));
                        }
                        out.push_str(&format!("{indent}for {}{part}{kind}\n", names.join("=")));
                        walk(schedule, &l.body, kernel, depth + 1, out);
                    }
                }
            }
        }
        let mut out = String::new();
        walk(self, &self.roots, kernel, 0, &mut out);
        out
    }
}

struct Builder<'a, F: Fn(u32) -> (LoopId, Part), G: Fn(u32) -> StatementId> {
    decided: &'a Decided<'a>,
    packs: &'a [Vec<Pack>],
    statement_of: &'a G,
    n: u32,
    heads: &'a [u32],
    parent: &'a [Option<u32>],
    group: &'a [u32],
    sizes: &'a [i64],
    dimension: &'a F,
}

impl<F: Fn(u32) -> (LoopId, Part), G: Fn(u32) -> StatementId> Builder<'_, F, G> {
    fn children(&self, of: Option<u32>) -> Result<Vec<Node>, ScheduleError> {
        let mut members: Vec<u32> = self
            .heads
            .iter()
            .copied()
            .filter(|&x| self.parent[x as usize] == of)
            .collect();
        // Siblings are totally ordered by BEFORE; count predecessors.
        let mut rank = Vec::new();
        for &x in &members {
            let mut before = 0;
            for &y in &members {
                if y != x && self.decided.order(y, x)? == order::BEFORE {
                    before += 1;
                }
            }
            rank.push((before, x));
        }
        rank.sort();
        members = rank.into_iter().map(|(_, x)| x).collect();
        let mut nodes = Vec::new();
        for x in members {
            if x < self.n {
                nodes.push(Node::Statement(StatementId(x as usize)));
                continue;
            }
            let merged: Vec<u32> = (self.n..self.group.len() as u32)
                .filter(|&d| self.group[d as usize] == x)
                .collect();
            let (_, part) = (self.dimension)(x);
            let kind = self.decided.kind(x)?;
            // The merged dimensions of one C loop around several statements
            // are one loop.
            let mut loops: Vec<LoopId> = merged.iter().map(|&d| (self.dimension)(d).0).collect();
            loops.sort();
            loops.dedup();
            let mut statements: Vec<(StatementId, LoopId)> = merged
                .iter()
                .map(|&d| ((self.statement_of)(d), (self.dimension)(d).0))
                .collect();
            statements.sort();
            let mut accumulating = Vec::new();
            for &d in &merged {
                if self.decided.accumulates(d)? {
                    accumulating.push((self.statement_of)(d));
                }
            }
            accumulating.sort();
            let packs: Vec<Pack> = merged
                .iter()
                .flat_map(|&d| self.packs[(d - self.n) as usize].iter().cloned())
                .collect();
            nodes.push(Node::Loop(TreeLoop {
                packs,
                loops,
                statements,
                part,
                size: self.sizes[(x - self.n) as usize],
                kind,
                dynamic: self.decided.dynamic(x)?,
                accumulating,
                body: self.children(Some(x))?,
            }));
        }
        Ok(nodes)
    }
}
