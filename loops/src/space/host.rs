//! A kernel as the loop space's host: the objects and facts of
//! `loops.space` computed from the front-end's description and the
//! dependence analysis.
//!
//! Objects of `Statements`: the kernel's statements `0..n`, then the
//! dimensions: for each statement in order, for each loop around it from
//! the outermost, a block dimension (in nests three loops deep or more,
//! where [`KernelHost::with_blocks`] asks for them), a tile dimension and
//! a point dimension.

use std::collections::HashMap;
use std::sync::Arc;

use crate::analysis::dependences::{dependences, Dependence, Distance};
use crate::analysis::fusion::Fusion;
use crate::analysis::shift::{shifted, shifts};
use crate::analysis::skew::{skewed, skews, Skew};
use crate::frontend::{Combiner, Kernel, LoopId, StatementId, Variable};
use crate::space::{order, DepsId, Host, OperandsId, StatementsId};

/// Tile sizes offered for a point dimension (1: not tiled).
const TILE_SIZES: [i64; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// Spans offered for a block dimension, in iterations (1: no block).
const BLOCK_SPANS: [i64; 7] = [1, 16, 32, 64, 128, 256, 512];

/// Statements in nests at least this deep have block dimensions, and so
/// do the loops they may be merged with: a second tiling level pays where
/// a tile reuses data along a third loop (a product's `k`, a stencil's
/// time), and each one adds a dimension per loop to the order the search
/// decides.
const BLOCKED_DEPTH: usize = 3;

/// Which part of a strip-mined C loop a dimension is, outermost first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    /// Steps by the block's span over the loop's range: a tile of tiles
    /// (the second tiling level, for caches around register tiles).
    Block,
    /// Steps by the tile size over the loop's range, or over one block.
    Tile,
    /// The iterations of one tile, or the whole loop when it is not tiled.
    Point,
}

/// One part (block, tile or point) of one C loop around one statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dimension {
    /// The statement the dimension is of.
    pub statement: StatementId,
    /// The C loop it comes from.
    pub loop_id: LoopId,
    /// Which part of the loop.
    pub part: Part,
}

impl Dimension {
    /// Whether the dimension steps by tiles or blocks (not the points).
    pub fn steps_by_tiles(&self) -> bool {
        self.part != Part::Point
    }
}

/// The dimension objects: per statement, per loop around it from the
/// outermost, its block (where `blocks` and the loop is blocked), tile and
/// point dimensions. A loop has blocks where a statement in a nest deep
/// enough has it, or one it may be merged with: merged dimensions are the
/// same part, so every statement a block may hold needs its own.
fn dimensions(kernel: &Kernel, fusion: &Fusion, blocks: bool) -> Vec<Dimension> {
    let loops = |s: usize| kernel.statements[s].loops.iter().map(move |&l| (s, l));
    let deep: Vec<(usize, LoopId)> = (0..kernel.statements.len())
        .filter(|&s| blocks && kernel.statements[s].loops.len() >= BLOCKED_DEPTH)
        .flat_map(loops)
        .collect();
    let blocked = |s: usize, l: LoopId| {
        deep.iter().any(|&(x, y)| {
            (x, y) == (s, l) || fusion.may_merge((StatementId(s), l), (StatementId(x), y))
        })
    };
    let mut dims = Vec::new();
    for s in 0..kernel.statements.len() {
        for (_, l) in loops(s) {
            for part in [Part::Block, Part::Tile, Part::Point] {
                if part != Part::Block || blocked(s, l) {
                    dims.push(Dimension {
                        statement: StatementId(s),
                        loop_id: l,
                        part,
                    });
                }
            }
        }
    }
    dims
}

/// A dependence's distance along a dimension: as written, and with the
/// dimension's loop skewed (where it may be). A dimension counts for
/// another (a carrier, a guard) only by what holds either way.
#[derive(Clone, Copy, Debug)]
struct Variants {
    plain: Distance,
    skewed: Option<Distance>,
}

impl Variants {
    /// `test` holds of the distance whether the loop is skewed or not.
    fn both(self, test: impl Fn(Distance) -> bool) -> bool {
        test(self.plain) && self.skewed.is_none_or(&test)
    }

    /// `test` holds of the distance skewed or not, one way or the other.
    fn either(self, test: impl Fn(Distance) -> bool) -> bool {
        test(self.plain) || self.skewed.is_some_and(&test)
    }
}

/// A kernel as the host of `loops.space`: its statements and dimensions,
/// its dependences and fusion classes, computed once and shared by clones.
#[derive(Clone, Debug)]
pub struct KernelHost {
    kernel: Arc<Kernel>,
    deps: Arc<Vec<Dependence>>,
    /// The dimension objects, from object `n` on.
    dims: Arc<Vec<Dimension>>,
    fusion: Arc<Fusion>,
    /// The skews offered to statements' loops.
    skews: Arc<HashMap<(StatementId, LoopId), Skew>>,
    /// The shifts offered to statements' loops.
    shifts: Arc<HashMap<(StatementId, LoopId), i64>>,
    /// The arrays of `Operands`, by id ([`Kernel::operands`]).
    operands: Arc<Vec<String>>,
    /// Whether candidates may be built with Polly (the compiler has it).
    polly: bool,
    /// Whether candidates may prefer 512-bit vectors (the target has them).
    wide_vectors: bool,
    /// Whether every sum keeps its order: no sum or product is offered as
    /// a reduction.
    sums_in_order: bool,
}

impl KernelHost {
    /// Analyses the kernel: dependences, dimensions, fusion classes.
    pub fn new(kernel: Kernel) -> Self {
        // A statement's read before its own write in one instance is not a
        // dependence between two instances.
        let deps: Vec<Dependence> = dependences(&kernel)
            .into_iter()
            .filter(|d| {
                !(d.source == d.sink && d.distances.iter().all(|x| *x == Distance::Exact(0)))
            })
            .collect();
        let fusion = Fusion::of(&kernel);
        let dims = dimensions(&kernel, &fusion, false);
        let shifts = shifts(&deps);
        let skews = skews(&kernel, &deps, &shifts, &fusion);
        KernelHost {
            fusion: Arc::new(fusion),
            skews: Arc::new(skews),
            shifts: Arc::new(shifts),
            operands: Arc::new(kernel.operands()),
            kernel: Arc::new(kernel),
            deps: Arc::new(deps),
            dims: Arc::new(dims),
            polly: false,
            wide_vectors: false,
            sums_in_order: false,
        }
    }

    /// The host with the compiler's Polly offered (`has_polly()`, which
    /// `optimizer`'s Polly values require), or not: without it, the
    /// default, `optimizer` has one value.
    pub fn with_polly(mut self, polly: bool) -> Self {
        self.polly = polly;
        self
    }

    /// The host with block dimensions (tiles of tiles, a second level of
    /// tiling) around the tiles of loops in nests three deep or more, or
    /// without them, the default: they double the decisions open on a
    /// product's nest, which the search then spends evaluations on.
    pub fn with_blocks(mut self, blocks: bool) -> Self {
        self.dims = Arc::new(dimensions(&self.kernel, &self.fusion, blocks));
        self
    }

    /// The host with 512-bit vectors offered (`has_wide_vectors()`, which
    /// `vector_width() = WIDE` requires), or not: without them, the
    /// default, `vector_width` has one value.
    pub fn with_wide_vectors(mut self, wide: bool) -> Self {
        self.wide_vectors = wide;
        self
    }

    /// The host where every floating-point sum (and product) keeps the
    /// order of its terms, or not, the default: with it, no sum or
    /// product is offered as a reduction, so no loop that carries one
    /// runs in parallel or in vector lanes (which split it into partial
    /// sums) and no element's sum is held in an accumulator (which adds a
    /// partial sum to it); their dependences are kept as written. Read
    /// the kernel with
    /// [`ReadOptions::sums_in_order`](crate::frontend::ReadOptions) too.
    pub fn with_sums_in_order(mut self, in_order: bool) -> Self {
        self.sums_in_order = in_order;
        self
    }

    /// Whether every sum keeps its order (see
    /// [`with_sums_in_order`](KernelHost::with_sums_in_order)).
    pub fn sums_in_order(&self) -> bool {
        self.sums_in_order
    }

    /// The kernel as read.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The dependences between two instances (a statement's read before
    /// its own write in one instance is not one).
    pub fn dependences(&self) -> &[Dependence] {
        &self.deps
    }

    /// How a statement's loop runs when its dimensions are skewed
    /// (`skew(d) = YES`); `None` where no skew is offered.
    pub fn skew_of(&self, statement: StatementId, l: LoopId) -> Option<Skew> {
        self.skews.get(&(statement, l)).copied()
    }

    /// By how many iterations a statement's loop runs late when its
    /// dimensions are shifted (`shift(d) = YES`); `None` where no shift is
    /// offered.
    pub fn shift_of(&self, statement: StatementId, l: LoopId) -> Option<i64> {
        self.shifts.get(&(statement, l)).copied()
    }

    /// The shift offered to a dimension's loop.
    fn dimension_shift(&self, d: StatementsId) -> Option<i64> {
        let d = self.dimension(d)?;
        self.shift_of(d.statement, d.loop_id)
    }

    /// The loops a skewed loop's bounds read: its base, the base's base...
    fn skew_chain(&self, statement: StatementId, l: LoopId) -> Vec<LoopId> {
        let mut chain = Vec::new();
        let mut at = l;
        while let Some(skew) = self.skew_of(statement, at) {
            if chain.contains(&skew.base) {
                break;
            }
            chain.push(skew.base);
            at = skew.base;
        }
        chain
    }

    /// For a statement's dependence on itself, `d`'s distances (plain and
    /// skewed), and whether `d` steps by tiles.
    fn own_distances(&self, dep: DepsId, d: StatementsId) -> Option<(Variants, bool)> {
        let (dependence, p, tile) = self.position(dep, d)?;
        Some((self.own_distances_at(dependence, p), tile))
    }

    /// A statement's own dependence's distances along its loop at
    /// `position`: plain, and with that loop skewed.
    fn own_distances_at(&self, dependence: &Dependence, position: usize) -> Variants {
        let plain = dependence.distances[position];
        let skewed = self
            .skew_of(dependence.source, dependence.loops[position])
            .and_then(|skew| {
                let base = dependence.loops.iter().position(|x| *x == skew.base)?;
                Some(skewed(plain, skew.factor, dependence.distances[base]))
            });
        Variants { plain, skewed }
    }

    /// For a dependence between two statements, the distances of the pair
    /// `(d, f)` (skewed where they may merge skewed), and whether they are
    /// tiles.
    fn pair_distances(
        &self,
        dep: DepsId,
        d: StatementsId,
        f: StatementsId,
    ) -> Option<(Variants, bool)> {
        let (dependence, p, tile) = self.pair(dep, d, f)?;
        Some((
            self.pair_variants(dependence, d, f, dependence.distances[p]),
            tile,
        ))
    }

    /// A pair's distance `plain` (as written, or shifted), and skewed where
    /// `d` and `f` may merge skewed: plus the factor times the distance
    /// along their bases.
    fn pair_variants(
        &self,
        dependence: &Dependence,
        d: StatementsId,
        f: StatementsId,
        plain: Distance,
    ) -> Variants {
        let skews = self
            .dimension(d)
            .zip(self.dimension(f))
            .filter(|_| self.skew_compatible(d, f))
            .and_then(|(a, b)| {
                self.skew_of(a.statement, a.loop_id)
                    .zip(self.skew_of(b.statement, b.loop_id))
            });
        let skewed = skews.map(|(sa, sb)| {
            let base = if sa.base == sb.base {
                dependence.loops.iter().position(|x| *x == sa.base)
            } else {
                None
            }
            .or_else(|| {
                dependence
                    .aligned
                    .iter()
                    .position(|&pair| pair == (sa.base, sb.base))
                    .map(|i| dependence.loops.len() + i)
            });
            let by = base.map_or(Distance::ANY, |i| dependence.distances[i]);
            skewed(plain, sa.factor, by)
        });
        Variants { plain, skewed }
    }

    /// For a dependence between two statements, the distances of the pair
    /// `(d, f)` once the sink's loop (`sink`) or the source's runs shifted,
    /// where it may (skewed too where they may merge skewed), and whether
    /// they are tiles.
    fn shifted_pair_distances(
        &self,
        dep: DepsId,
        d: StatementsId,
        f: StatementsId,
        sink: bool,
    ) -> Option<(Variants, bool)> {
        let (dependence, p, tile) = self.pair(dep, d, f)?;
        let by = if sink {
            self.dimension_shift(f)?
        } else {
            -self.dimension_shift(d)?
        };
        let plain = shifted(dependence.distances[p], by);
        Some((self.pair_variants(dependence, d, f, plain), tile))
    }

    /// The array an object of `Operands` is.
    pub fn operand(&self, a: OperandsId) -> Option<&str> {
        self.operands.get(a.0 as usize).map(String::as_str)
    }

    /// The read a packed copy of operand `a` at tile dimension `d` holds:
    /// its statement and index among the statement's reads, where
    /// `packable(d, a)`.
    pub fn packed_read(&self, d: StatementsId, a: OperandsId) -> Option<(StatementId, usize)> {
        let dimension = self.dimension(d).filter(|x| x.part == Part::Tile)?;
        let s = dimension.statement;
        let index = self.kernel.single_read(s, self.operand(a)?)?;
        let statement = &self.kernel.statements[s.0];
        let read = &statement.reads[index];
        let ranges = statement
            .loops
            .iter()
            .all(|&x| !read.reads_loop(x) || self.kernel.independent_range(s, x));
        let conditions = statement.guards.iter().all(|g| !g.reads_iterators());
        (ranges && conditions).then_some((s, index))
    }

    /// The object of a statement, by its index in textual order.
    pub fn inst(&self, statement: usize) -> StatementsId {
        StatementsId(statement as u32)
    }

    /// Every object of `Statements`: statements, then dimensions.
    pub fn object_count(&self) -> usize {
        self.kernel.statements.len() + self.dims.len()
    }

    /// What a dimension object is; `None` for a statement.
    pub fn dimension(&self, d: StatementsId) -> Option<Dimension> {
        let offset = (d.0 as usize).checked_sub(self.kernel.statements.len())?;
        self.dims.get(offset).copied()
    }

    /// The object of a dimension.
    pub fn dim(&self, dimension: Dimension) -> Option<StatementsId> {
        self.dims
            .iter()
            .position(|x| *x == dimension)
            .map(|i| StatementsId((self.kernel.statements.len() + i) as u32))
    }

    /// Whether a statement is a reduction into an array element (a scalar
    /// target is a local already).
    fn array_reduction(&self, s: StatementId) -> bool {
        self.reduction_offered(s) && !self.kernel.statements[s.0].write.subscripts.is_empty()
    }

    /// Whether a statement's reduction may be exploited (run in any order,
    /// held in accumulators): not a sum or a product where sums keep their
    /// order (a maximum or minimum is exact in any order), nor where one
    /// of its loops is offered a skew, after which its target reads
    /// the base's iterator too (fdtd-2d's `ey[i][j] -= ...`, skewed by
    /// `t`, updates another element along `t`). Its dependences are then
    /// kept as written.
    fn reduction_offered(&self, s: StatementId) -> bool {
        self.kernel.reduction(s).is_some_and(|update| {
            !self.sums_in_order || matches!(update.combiner, Combiner::Max | Combiner::Min)
        }) && !self.skews.keys().any(|&(t, _)| t == s)
    }

    /// The dimensions of a C loop, one tile and one point per statement
    /// inside it (merged in the original program).
    pub fn loop_dims(&self, l: LoopId) -> Vec<StatementsId> {
        (0..self.dims.len())
            .filter(|&i| self.dims[i].loop_id == l)
            .map(|i| StatementsId((self.kernel.statements.len() + i) as u32))
            .collect()
    }

    /// The point dimension of a loop around its first statement (every
    /// statement's in the original program, being merged).
    pub fn point(&self, l: LoopId) -> Option<StatementsId> {
        self.loop_dims(l)
            .into_iter()
            .find(|&d| self.dimension(d).is_some_and(|x| x.part == Part::Point))
    }

    fn statement(&self, i: StatementsId) -> Option<usize> {
        ((i.0 as usize) < self.kernel.statements.len()).then_some(i.0 as usize)
    }

    /// For a dependence of a statement on itself, the position of a
    /// dimension's loop among its loops, and whether it steps by tiles.
    fn position(&self, dep: DepsId, d: StatementsId) -> Option<(&Dependence, usize, bool)> {
        let dependence = self.deps.get(dep.0 as usize)?;
        let dimension = self.dimension(d)?;
        if dimension.statement != dependence.source || dependence.source != dependence.sink {
            return None;
        }
        let position = dependence
            .loops
            .iter()
            .position(|x| *x == dimension.loop_id)?;
        Some((dependence, position, dimension.steps_by_tiles()))
    }

    /// For a dependence between two statements, the position of the pair
    /// of `d` (a dimension of its source) and `f` (one of its sink, the
    /// same part) among its distances, and whether they step by tiles.
    fn pair(
        &self,
        dep: DepsId,
        d: StatementsId,
        f: StatementsId,
    ) -> Option<(&Dependence, usize, bool)> {
        let dependence = self.deps.get(dep.0 as usize)?;
        let (a, b) = (self.dimension(d)?, self.dimension(f)?);
        if dependence.source == dependence.sink
            || a.statement != dependence.source
            || b.statement != dependence.sink
            || a.part != b.part
        {
            return None;
        }
        let position = if a.loop_id == b.loop_id {
            dependence.loops.iter().position(|x| *x == a.loop_id)?
        } else {
            dependence.loops.len()
                + dependence
                    .aligned
                    .iter()
                    .position(|&pair| pair == (a.loop_id, b.loop_id))?
        };
        Some((dependence, position, a.steps_by_tiles()))
    }

    /// Whether `e`, a dimension of an earlier loop of a statement's own
    /// dependence, must stay outside `d`, whose distance may be negative
    /// (with `d`'s loop skewed or not): wherever `e`'s may be non-zero,
    /// skewed or not, unless a loop before `e`'s surely carries the
    /// dependence forward, skewed or not (that loop, outside `d`, keeps
    /// the order whatever `e` does).
    fn guard(&self, dep: DepsId, e: StatementsId, d: StatementsId, skew: bool) -> bool {
        let (Some((dependence, pe, _)), Some((_, pd, _))) =
            (self.position(dep, e), self.position(dep, d))
        else {
            return false;
        };
        let along = self.own_distances_at(dependence, pd);
        let negative = if skew {
            along.skewed.is_some_and(Distance::may_be_negative)
        } else {
            along.plain.may_be_negative()
        };
        let nonzero = self
            .own_distances_at(dependence, pe)
            .either(Distance::may_be_nonzero);
        let carried_before = (0..pe).any(|q| {
            self.own_distances_at(dependence, q)
                .both(Distance::surely_positive)
        });
        pe < pd && negative && nonzero && !carried_before
    }

    /// Whether the source held the sum of dimension `d`'s statement in a
    /// scalar along `d` ([`Kernel::in_place`]): `d` is the point of the
    /// outermost loop inside the scalar's loop around an update. The
    /// original program accumulates there.
    pub fn accumulated_in_source(&self, d: StatementsId) -> bool {
        let Some(dimension) = self.dimension(d) else {
            return false;
        };
        let loops = &self.kernel.statements[dimension.statement.0].loops;
        dimension.part == Part::Point
            && self.kernel.in_place.iter().any(|in_place| {
                in_place.updates.contains(&dimension.statement)
                    && loops
                        .iter()
                        .position(|&l| l == in_place.loop_id)
                        .and_then(|at| loops.get(at + 1))
                        == Some(&dimension.loop_id)
            })
    }

    /// The value of `order(a, b)` in the original program, strip-mined
    /// with every tile just outside its point dimension and the dimensions
    /// of one loop merged across its statements.
    pub fn original_order(&self, a: StatementsId, b: StatementsId) -> u64 {
        // Statements of one C statement share its start: their numbers
        // order them.
        let start = |x: StatementsId| match (self.statement(x), self.dimension(x)) {
            (Some(s), _) => self.kernel.textual_position(StatementId(s)),
            (_, Some(d)) => (self.kernel.loops[d.loop_id.0].span.start, 0),
            _ => (0, 0),
        };
        let textual = if start(a) < start(b) {
            order::BEFORE
        } else {
            order::AFTER
        };
        match (
            self.dimension(a),
            self.dimension(b),
            self.statement(a),
            self.statement(b),
        ) {
            (Some(da), Some(db), _, _) if da.loop_id == db.loop_id => match da.part.cmp(&db.part) {
                std::cmp::Ordering::Less => order::OUTER,
                std::cmp::Ordering::Greater => order::INNER,
                std::cmp::Ordering::Equal => order::MERGED,
            },
            (Some(da), Some(db), _, _) => {
                if self.kernel.loop_encloses(da.loop_id, db.loop_id) {
                    order::OUTER
                } else if self.kernel.loop_encloses(db.loop_id, da.loop_id) {
                    order::INNER
                } else {
                    textual
                }
            }
            (Some(d), _, _, Some(s)) => {
                if self.kernel.statements[s].loops.contains(&d.loop_id) {
                    order::OUTER
                } else {
                    textual
                }
            }
            (_, Some(d), Some(s), _) => {
                if self.kernel.statements[s].loops.contains(&d.loop_id) {
                    order::INNER
                } else {
                    textual
                }
            }
            _ => textual,
        }
    }

    /// `order(...) = VALUE` decisions that fix the original program's
    /// order, for `commute_runtime::fix::apply_fixes`.
    pub fn original_schedule(&self) -> Vec<String> {
        let count = self.object_count();
        let mut fixes = Vec::new();
        for a in 0..count as u32 {
            for b in a + 1..count as u32 {
                let value = self.original_order(StatementsId(a), StatementsId(b));
                let name = ["BEFORE", "AFTER", "INNER", "OUTER", "MERGED"]
                    [value.trailing_zeros() as usize];
                fixes.push(format!("order({a}, {b}) = {name}"));
            }
        }
        fixes
    }
}

impl Host for KernelHost {
    fn has_polly(&self) -> bool {
        self.polly
    }

    fn has_wide_vectors(&self) -> bool {
        self.wide_vectors
    }

    fn statements(&self) -> Vec<StatementsId> {
        (0..self.object_count() as u32).map(StatementsId).collect()
    }

    fn insts(&self) -> Vec<StatementsId> {
        (0..self.kernel.statements.len() as u32)
            .map(StatementsId)
            .collect()
    }

    fn dims(&self) -> Vec<StatementsId> {
        (self.kernel.statements.len() as u32..self.object_count() as u32)
            .map(StatementsId)
            .collect()
    }

    fn deps(&self) -> Vec<DepsId> {
        (0..self.deps.len() as u32).map(DepsId).collect()
    }

    fn operands(&self) -> Vec<OperandsId> {
        (0..self.operands.len() as u32).map(OperandsId).collect()
    }

    fn tile_of(&self, d: StatementsId, p: StatementsId) -> bool {
        matches!((self.dimension(d), self.dimension(p)),
            (Some(t), Some(p)) if t.part == Part::Tile && p.part == Part::Point
                && t.loop_id == p.loop_id && t.statement == p.statement)
    }

    fn block_of(&self, b: StatementsId, t: StatementsId) -> bool {
        matches!((self.dimension(b), self.dimension(t)),
            (Some(b), Some(t)) if b.part == Part::Block && t.part == Part::Tile
                && b.loop_id == t.loop_id && b.statement == t.statement)
    }

    fn is_tile(&self, d: StatementsId) -> bool {
        self.dimension(d).is_some_and(|d| d.steps_by_tiles())
    }

    fn is_block(&self, d: StatementsId) -> bool {
        self.dimension(d).is_some_and(|d| d.part == Part::Block)
    }

    fn encloses(&self, d: StatementsId, i: StatementsId) -> bool {
        matches!((self.dimension(d), self.statement(i)), (Some(d), Some(s)) if d.statement.0 == s)
    }

    fn in_loop(&self, d: StatementsId, i: StatementsId) -> bool {
        match (self.dimension(d), self.statement(i)) {
            (Some(d), Some(s)) => {
                d.statement.0 == s
                    || self.kernel.statements[s].loops.iter().any(|&l| {
                        self.fusion
                            .may_merge((d.statement, d.loop_id), (StatementId(s), l))
                    })
            }
            _ => false,
        }
    }

    fn counterpart(&self, a: StatementsId, b: StatementsId) -> bool {
        matches!((self.dimension(a), self.dimension(b)),
            (Some(a), Some(b)) if a.part == b.part
                && self.fusion.may_merge((a.statement, a.loop_id), (b.statement, b.loop_id)))
    }

    fn possible_sizes(&self, d: StatementsId) -> Vec<i64> {
        match self.dimension(d) {
            Some(Dimension {
                loop_id: l, part, ..
            }) => {
                let lp = &self.kernel.loops[l.0];
                // A constant extent bounds the useful sizes.
                let extent = lp
                    .upper
                    .as_constant()
                    .zip(lp.lower.as_constant())
                    .map(|(u, l)| u - l);
                let offered: &[i64] = if part == Part::Block {
                    &BLOCK_SPANS
                } else {
                    &TILE_SIZES
                };
                offered
                    .iter()
                    .copied()
                    .filter(|&s| s == 1 || extent.is_none_or(|e| s < e))
                    .collect()
            }
            _ => vec![1],
        }
    }

    fn between(&self, dep: DepsId, s: StatementsId, t: StatementsId) -> bool {
        self.deps
            .get(dep.0 as usize)
            .is_some_and(|d| d.source.0 == s.0 as usize && d.sink.0 == t.0 as usize && s != t)
    }

    fn surely_positive(&self, dep: DepsId, d: StatementsId) -> bool {
        // A tile dimension's distance may be 0 even when the loop's is
        // positive; the point dimension then carries the dependence, and
        // when the point's distance is negative the tile outside it does.
        // Counted as a carrier whether skewed or not: positive both ways.
        self.own_distances(dep, d)
            .is_some_and(|(v, tile)| !tile && v.both(Distance::surely_positive))
    }

    fn guards(&self, dep: DepsId, e: StatementsId, d: StatementsId) -> bool {
        self.guard(dep, e, d, false)
    }

    fn guards_skewed(&self, dep: DepsId, e: StatementsId, d: StatementsId) -> bool {
        self.guard(dep, e, d, true)
    }

    fn pair_positive(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        // A tile pair's distance may be 0 where its points' is positive.
        // Counted as a carrier whether skewed or not: positive both ways.
        self.pair_distances(dep, d, f)
            .is_some_and(|(v, tile)| !tile && v.both(Distance::surely_positive))
    }

    fn pair_positive_shifted_sink(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        self.shifted_pair_distances(dep, d, f, true)
            .is_some_and(|(v, tile)| !tile && v.both(Distance::surely_positive))
    }

    fn pair_positive_shifted_source(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        self.shifted_pair_distances(dep, d, f, false)
            .is_some_and(|(v, tile)| !tile && v.both(Distance::surely_positive))
    }

    fn may_carry(&self, dep: DepsId, e: StatementsId) -> bool {
        self.dims().into_iter().any(|g| {
            self.pair_positive(dep, e, g)
                || self.pair_positive_shifted_sink(dep, e, g)
                || self.pair_positive_shifted_source(dep, e, g)
        })
    }

    // The pair's distance may be negative: as written (the rules that read
    // these hold where the loops are not skewed), and skewed (where they
    // are; a pair that may not merge skewed is read as written).

    fn pair_negative(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        self.pair_distances(dep, d, f)
            .is_some_and(|(v, _)| v.plain.may_be_negative())
    }

    fn pair_negative_skewed(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        self.pair_distances(dep, d, f)
            .is_some_and(|(v, _)| v.skewed.unwrap_or(v.plain).may_be_negative())
    }

    fn pair_negative_shifted_sink(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        self.shifted_pair_distances(dep, d, f, true)
            .is_some_and(|(v, _)| v.plain.may_be_negative())
    }

    fn pair_negative_shifted_sink_skewed(
        &self,
        dep: DepsId,
        d: StatementsId,
        f: StatementsId,
    ) -> bool {
        self.shifted_pair_distances(dep, d, f, true)
            .is_some_and(|(v, _)| v.skewed.unwrap_or(v.plain).may_be_negative())
    }

    fn pair_negative_shifted_source(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        self.shifted_pair_distances(dep, d, f, false)
            .is_some_and(|(v, _)| v.plain.may_be_negative())
    }

    fn pair_negative_shifted_source_skewed(
        &self,
        dep: DepsId,
        d: StatementsId,
        f: StatementsId,
    ) -> bool {
        self.shifted_pair_distances(dep, d, f, false)
            .is_some_and(|(v, _)| v.skewed.unwrap_or(v.plain).may_be_negative())
    }

    // Non-zero one way or the other: the rules that read these forbid
    // what a carried dependence forbids, skewed or not.

    fn pair_nonzero(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        self.pair_distances(dep, d, f)
            .is_some_and(|(v, _)| v.either(Distance::may_be_nonzero))
    }

    fn pair_nonzero_shifted_sink(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        self.shifted_pair_distances(dep, d, f, true)
            .is_some_and(|(v, _)| v.either(Distance::may_be_nonzero))
    }

    fn pair_nonzero_shifted_source(&self, dep: DepsId, d: StatementsId, f: StatementsId) -> bool {
        self.shifted_pair_distances(dep, d, f, false)
            .is_some_and(|(v, _)| v.either(Distance::may_be_nonzero))
    }

    fn shiftable(&self, d: StatementsId) -> bool {
        self.dimension_shift(d).is_some()
    }

    fn maybe_nonzero(&self, dep: DepsId, d: StatementsId) -> bool {
        self.position(dep, d)
            .is_some_and(|(dependence, p, _)| dependence.maybe_nonzero_at(p))
    }

    fn maybe_nonzero_skewed(&self, dep: DepsId, d: StatementsId) -> bool {
        self.own_distances(dep, d)
            .is_some_and(|(v, _)| v.skewed.is_some_and(Distance::may_be_nonzero))
    }

    fn skewable(&self, d: StatementsId) -> bool {
        self.dimension(d)
            .is_some_and(|d| self.skew_of(d.statement, d.loop_id).is_some())
    }

    fn skew_base(&self, d: StatementsId, e: StatementsId) -> bool {
        match (self.dimension(d), self.dimension(e)) {
            (Some(d), Some(e)) => {
                d.statement == e.statement
                    && self.skew_chain(d.statement, d.loop_id).contains(&e.loop_id)
            }
            _ => false,
        }
    }

    fn skew_compatible(&self, a: StatementsId, b: StatementsId) -> bool {
        let (Some(a), Some(b)) = (self.dimension(a), self.dimension(b)) else {
            return false;
        };
        match (
            self.skew_of(a.statement, a.loop_id),
            self.skew_of(b.statement, b.loop_id),
        ) {
            (Some(sa), Some(sb)) => {
                a.statement != b.statement
                    && sa.factor == sb.factor
                    && (sa.base == sb.base
                        || self
                            .fusion
                            .may_merge((a.statement, sa.base), (b.statement, sb.base)))
            }
            _ => false,
        }
    }

    fn reducible(&self, dep: DepsId, d: StatementsId) -> bool {
        self.position(dep, d).is_some_and(|(dependence, p, _)| {
            dependence.reduction
                && self.reduction_offered(dependence.source)
                && !self
                    .kernel
                    .target_reads(dependence.source, dependence.loops[p])
        })
    }

    fn privatized(&self, dep: DepsId, d: StatementsId) -> bool {
        match (self.deps.get(dep.0 as usize), self.dimension(d)) {
            (Some(dependence), Some(dimension)) => {
                self.kernel.private_to(&dependence.name, dimension.loop_id)
            }
            _ => false,
        }
    }

    fn target_reads(&self, dep: DepsId, e: StatementsId) -> bool {
        self.position(dep, e).is_some_and(|(dependence, p, _)| {
            dependence.reduction
                && self.reduction_offered(dependence.source)
                && self
                    .kernel
                    .target_reads(dependence.source, dependence.loops[p])
        })
    }

    fn coupled(&self, d: StatementsId, e: StatementsId) -> bool {
        match (self.dimension(d), self.dimension(e)) {
            (Some(d), Some(e)) if d.statement == e.statement && d.loop_id != e.loop_id => {
                let loops = self.kernel.loops_of(d.statement);
                // The loops reached from d's through bounds, either way.
                // A condition of the statement that reads both loops ties
                // them as a bound does.
                let guards = &self.kernel.statements[d.statement.0].guards;
                let reads = |a: LoopId, b: LoopId| {
                    let lp = &self.kernel.loops[a.0];
                    let (va, vb) = (Variable::Iterator(a), Variable::Iterator(b));
                    lp.lower.coefficient(vb) != 0
                        || lp.upper.coefficient(vb) != 0
                        || guards
                            .iter()
                            .any(|g| g.coefficient(va) != 0 && g.coefficient(vb) != 0)
                };
                let mut reached = vec![d.loop_id];
                let mut changed = true;
                while changed {
                    changed = false;
                    for &l in loops {
                        if !reached.contains(&l)
                            && reached.iter().any(|&r| reads(l, r) || reads(r, l))
                        {
                            reached.push(l);
                            changed = true;
                        }
                    }
                }
                reached.contains(&e.loop_id)
            }
            _ => false,
        }
    }

    fn wave_helps(&self, d: StatementsId) -> bool {
        let Some(d) = self.dimension(d) else {
            return false;
        };
        self.deps.iter().any(|dependence| {
            let common = dependence
                .loops
                .iter()
                .position(|&l| l == d.loop_id)
                .filter(|_| dependence.source == d.statement || dependence.sink == d.statement);
            let aligned = dependence
                .aligned
                .iter()
                .enumerate()
                .filter_map(|(k, &(a, b))| {
                    let ends = (dependence.source == d.statement && a == d.loop_id)
                        || (dependence.sink == d.statement && b == d.loop_id);
                    ends.then_some(dependence.loops.len() + k)
                });
            common
                .into_iter()
                .chain(aligned)
                .any(|p| dependence.distances[p].may_be_nonzero())
        })
    }

    fn unbalanced(&self, d: StatementsId) -> bool {
        self.dims().into_iter().any(|e| self.coupled(d, e))
    }

    fn accumulable(&self, d: StatementsId) -> bool {
        // Not a block: its accumulators would hold a tile of tiles.
        self.dimension(d).is_some_and(|d| {
            d.part != Part::Block
                && self.array_reduction(d.statement)
                && !self.kernel.target_reads(d.statement, d.loop_id)
        })
    }

    fn blockable(&self, e: StatementsId) -> bool {
        self.dimension(e).is_some_and(|e| {
            e.part == Part::Point
                && self.array_reduction(e.statement)
                && self.kernel.blockable(e.statement, e.loop_id)
        })
    }

    fn target_reads_loop(&self, d: StatementsId, e: StatementsId) -> bool {
        match (self.dimension(d), self.dimension(e)) {
            (Some(d), Some(e)) => {
                d.statement == e.statement
                    && self.array_reduction(d.statement)
                    && self.kernel.target_reads(e.statement, e.loop_id)
            }
            _ => false,
        }
    }

    fn target_conflict(&self, dep: DepsId, d: StatementsId, t: StatementsId) -> bool {
        let (Some(dependence), Some(d), Some(t)) = (
            self.deps.get(dep.0 as usize),
            self.dimension(d),
            self.statement(t),
        ) else {
            return false;
        };
        let s = d.statement;
        let ends = (dependence.source, dependence.sink);
        self.array_reduction(s)
            && t != s.0
            && (ends == (s, StatementId(t)) || ends == (StatementId(t), s))
            && self
                .kernel
                .may_alias(&dependence.name, &self.kernel.statements[s.0].write.name)
    }

    fn packable(&self, d: StatementsId, a: OperandsId) -> bool {
        self.packed_read(d, a).is_some()
    }

    fn pack_loop(&self, d: StatementsId, a: OperandsId, e: StatementsId) -> bool {
        match (self.packed_read(d, a), self.dimension(e)) {
            (Some((s, _)), Some(e)) => e.statement == s,
            _ => false,
        }
    }

    fn pack_reads(&self, d: StatementsId, a: OperandsId, e: StatementsId) -> bool {
        match (self.packed_read(d, a), self.dimension(e)) {
            (Some((s, index)), Some(e)) => {
                e.statement == s && self.kernel.statements[s.0].reads[index].reads_loop(e.loop_id)
            }
            _ => false,
        }
    }

    fn vectorizable(&self, d: StatementsId) -> bool {
        // The point dimension of an innermost loop, or of a loop whose
        // iterator indexes the last subscript of one of the statement's
        // accesses (contiguous once innermost, which the rules require).
        match self.dimension(d) {
            Some(Dimension {
                statement,
                loop_id: l,
                part: Part::Point,
            }) => {
                let statement = &self.kernel.statements[statement.0];
                let innermost = !self.kernel.loops.iter().any(|x| x.parent == Some(l));
                let contiguous = std::iter::once(&statement.write)
                    .chain(&statement.reads)
                    .any(|a| a.contiguous_in(l));
                innermost || contiguous
            }
            _ => false,
        }
    }
}
