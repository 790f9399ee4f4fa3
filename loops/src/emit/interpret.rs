//! A reference interpreter of loop trees, to check without a C compiler
//! that a candidate computes what the original program computes.
//!
//! Memory is a map from array elements to integers; an element never
//! written holds a value derived from its name and subscripts. A statement
//! instance reads its accesses in order and writes a mix of the statement's
//! number and the values read, a mix that depends on the order of its
//! operands: two instances that update one element (`C[i][j] = C[i][j] /
//! ...` over `k`) give another result when they swap. A reduction
//! ([`Kernel::reduction`]: `C[i][j] += e` with `e` not reading `C`) adds,
//! subtracts or multiplies its target by a mix of its other reads, in
//! wrapping integer arithmetic: the order of its own instances does not
//! change the result, as reassociated floating-point sums differ only by
//! rounding, which the harness's relative tolerance accepts.
//! Loops run as the emitters write them (tiles, partial tiles, unroll and
//! jam); a parallel or vector loop runs its iterations backwards, and any
//! element that one of its iterations writes and another reads or writes
//! is a race, reported as an error, except for the updates of the
//! statements the loop reduces ([`reduced`]): they go to private
//! accumulators, and only another statement's access of their target (or
//! another access of the statement) races with them, and for the scalars
//! the loop makes private ([`privatized`]): each iteration has its own
//! copy. Every statement instance the loops
//! run is checked against the statement's domain (its loops' bounds and
//! `if` conditions), which the tree's bounds must enforce; conditions that
//! read no loop are tested at the statement, as the emitters write them.
//! A loop that packs operands fills a buffer at the start of each
//! iteration, as the emitters do, and the statement reads the buffer: a
//! read the buffer does not hold is an error, and a stale copy gives
//! other memory.

use std::collections::HashMap;

use crate::fnv::Fnv;
use crate::frontend::Combiner;
use crate::frontend::{Affine, Kernel, LoopId, StatementId, Variable};
use crate::lowering::bounds::{Bound, Interval, LoopBounds, Scan, Term};
use crate::lowering::reductions::{privatized, reduced};
use crate::lowering::schedule::{Kind, Node, Pack, Part, Schedule, TreeLoop};

/// An array element: the array's name and its subscripts.
pub type Element = (String, Vec<i64>);

/// The final memory of a run: every element written, with its value.
pub type Memory = HashMap<Element, u64>;

/// Why a run cannot complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// Iterations of one parallel or vector loop touch the same element,
    /// at least one of them writing it.
    Race {
        /// The element both iterations touch.
        element: Element,
        /// The loop, as the emitters name it.
        loop_name: String,
    },
    /// A bound or subscript reads a parameter without a value, or an
    /// iterator outside its loop.
    Unbound(String),
    /// More statement instances than the limit.
    TooLong,
    /// The tree's loops have no bounds (see [`Scan`]).
    Bounds(String),
    /// A statement runs an instance outside its domain: the tree's
    /// bounds are wrong.
    OutsideDomain(String),
    /// A statement reads a packed copy at a point it does not hold.
    Unpacked(String),
}

/// Runs a schedule with the parameters' values (in the order of
/// [`Kernel::params`]), executing at most `limit` statement instances.
/// The memory returned leaves out the scalars private to a loop's
/// iterations ([`Kernel::private_scalars`]), dead after the region.
pub fn run(
    kernel: &Kernel,
    schedule: &Schedule,
    params: &[i64],
    limit: usize,
) -> Result<Memory, RunError> {
    let scan = Scan::new(kernel, schedule).map_err(|e| RunError::Bounds(e.0))?;
    let mut machine = Machine {
        kernel,
        schedule,
        scan: &scan,
        guards: Vec::new(),
        params,
        iterators: vec![vec![None; kernel.loops.len()]; kernel.statements.len()],
        tiles: vec![vec![None; kernel.loops.len()]; kernel.statements.len()],
        blocks: vec![vec![None; kernel.loops.len()]; kernel.statements.len()],
        memory: HashMap::new(),
        packs: Vec::new(),
        parallel: Vec::new(),
        executed: 0,
        limit,
    };
    machine.nodes(&schedule.roots, &[])?;
    let mut memory = machine.memory;
    // What a private scalar holds after a parallel loop is not the
    // original's, and nothing reads it.
    memory.retain(|(name, subscripts), _| {
        !subscripts.is_empty() || !kernel.private_scalars.iter().any(|p| p.name == *name)
    });
    Ok(memory)
}

/// The value of an element never written.
fn initial(element: &Element) -> u64 {
    let mut hash = Fnv::default();
    hash.feed(element.0.as_bytes());
    for &s in &element.1 {
        hash.feed(&s.to_le_bytes());
    }
    hash.finish()
}

/// A parallel loop being run, or a sequential one holding accumulators:
/// which iteration each element was touched by.
struct ParallelScope {
    name: String,
    /// A sequential loop that accumulates: only the accumulators' elements
    /// are checked (nothing else may touch them while it runs).
    sequential: bool,
    iteration: i64,
    writers: HashMap<Element, i64>,
    /// The iteration that read an element, `None` once several did.
    readers: HashMap<Element, Option<i64>>,
    /// The statements the loop reduces.
    reduced: Vec<usize>,
    /// The elements reductions updated, with the statement that did.
    reductions: HashMap<Element, usize>,
    /// The scalars each iteration has its own copy of ([`privatized`]).
    private: Vec<String>,
}

impl ParallelScope {
    /// The scope of a loop named `name`, before its first iteration.
    fn new(name: String, sequential: bool, reduced: Vec<usize>) -> ParallelScope {
        ParallelScope {
            private: Vec::new(),
            name,
            sequential,
            iteration: 0,
            writers: HashMap::new(),
            readers: HashMap::new(),
            reduced,
            reductions: HashMap::new(),
        }
    }
}

/// Unrolled-and-jammed loops around the statements: the iterator takes
/// `base .. base + count` in each leaf.
#[derive(Clone)]
struct Jam {
    /// The jammed loop's statements with their own loops: they move
    /// together.
    members: Vec<(StatementId, LoopId)>,
    base: i64,
    count: i64,
}

/// A packed operand's buffer: the values copied, by the points' offsets
/// in their tiles.
struct PackedCopy {
    statement: usize,
    read: usize,
    loops: Vec<LoopId>,
    values: HashMap<Vec<i64>, u64>,
}

struct Machine<'a> {
    schedule: &'a Schedule,
    kernel: &'a Kernel,
    scan: &'a Scan<'a>,
    /// The ranges statements must be in along the enclosing loops (which
    /// run over the hull of their statements' ranges): statement, its
    /// loop, block, tile or point, range.
    guards: Vec<(StatementId, LoopId, Part, &'a Interval)>,
    params: &'a [i64],
    /// Per statement and C loop, the iterator's value here: merged loops
    /// of different statements may be different C loops, and one C loop
    /// may be at two places for two statements.
    iterators: Vec<Vec<Option<i64>>>,
    tiles: Vec<Vec<Option<i64>>>,
    /// Per statement and C loop, the block iterator's value here.
    blocks: Vec<Vec<Option<i64>>>,
    memory: Memory,
    /// The packed copies filled by the loops around, innermost last.
    packs: Vec<PackedCopy>,
    parallel: Vec<ParallelScope>,
    executed: usize,
    limit: usize,
}

impl<'a> Machine<'a> {
    /// Statement `s`'s own counter of loop `l`: the loop's, less the
    /// shift where `l` runs shifted, less the factor times the base's own
    /// where it runs skewed.
    fn own(&self, s: usize, l: LoopId) -> Result<i64, RunError> {
        let value = self.iterators[s][l.0].ok_or_else(|| {
            RunError::Unbound(format!(
                "iterator `{}` outside its loop",
                self.kernel.loops[l.0].iterator
            ))
        })? - self.schedule.shift(StatementId(s), l);
        match self.schedule.skew(StatementId(s), l) {
            Some(skew) if skew.base != l => Ok(value - skew.factor * self.own(s, skew.base)?),
            _ => Ok(value),
        }
    }

    /// An affine expression of statement `s`'s iterators.
    fn eval(&self, s: usize, a: &Affine) -> Result<i64, RunError> {
        let mut value = a.constant;
        for &(variable, coefficient) in &a.terms {
            let x = match variable {
                Variable::Iterator(l) => self.own(s, l)?,
                Variable::Param(p) => *self.params.get(p).ok_or_else(|| {
                    RunError::Unbound(format!("parameter `{}`", self.kernel.params[p]))
                })?,
            };
            value += coefficient * x;
        }
        Ok(value)
    }

    fn nodes(&mut self, nodes: &[Node], jams: &[Jam]) -> Result<(), RunError> {
        for node in nodes {
            match node {
                Node::Statement(s) => self.leaf(s.0, jams)?,
                Node::Loop(l) => self.tree_loop(l, jams)?,
            }
        }
        Ok(())
    }

    /// A term of a bound, read as statement `s`'s.
    fn value(&self, s: StatementId, term: Term) -> Option<i64> {
        match term {
            Term::Param(p) => self.params.get(p).copied(),
            Term::Point(l) => self.iterators[s.0][l.0],
            Term::Tile(l) => self.tiles[s.0][l.0],
            Term::Block(l) => self.blocks[s.0][l.0],
        }
    }

    fn bound(&self, s: StatementId, b: &Bound, up: bool) -> Result<i64, RunError> {
        b.eval(|t| self.value(s, t), up)
            .ok_or_else(|| RunError::Unbound("a bound reads an iterator outside its loop".into()))
    }

    /// Statement `s`'s range: its first and last values.
    fn range(&self, s: StatementId, range: &Interval) -> Result<(i64, i64), RunError> {
        let mut low = i64::MIN;
        for b in &range.lower {
            low = low.max(self.bound(s, b, true)?);
        }
        let mut high = i64::MAX;
        for b in &range.upper {
            high = high.min(self.bound(s, b, false)?);
        }
        Ok((low, high))
    }

    /// The iterations of a loop, in program order: the hull of its
    /// statements' ranges, tiles (and blocks) from the first start at or
    /// past its lower end that is congruent to the origin.
    fn iterations(&self, l: &TreeLoop, bounds: &LoopBounds) -> Result<Vec<i64>, RunError> {
        let (mut lower, mut upper) = (i64::MAX, i64::MIN);
        for (s, _, range) in &bounds.statements {
            let (low, high) = self.range(*s, range)?;
            lower = lower.min(low);
            upper = upper.max(high);
        }
        if lower > upper {
            return Ok(Vec::new());
        }
        Ok(match l.part {
            Part::Tile | Part::Block => {
                let size = l.size.max(1);
                let first = bounds.statements.first().map_or(StatementId(0), |x| x.0);
                let origin = self.bound(first, &bounds.origin, false)?;
                let start = origin + size * crate::lowering::bounds::ceil_div(lower - origin, size);
                (start..=upper).step_by(size as usize).collect()
            }
            Part::Point => (lower..=upper).collect(),
        })
    }

    fn set(&mut self, l: &TreeLoop, members: &[(StatementId, LoopId)], value: Option<i64>) {
        for &(s, x) in members {
            match l.part {
                Part::Tile => self.tiles[s.0][x.0] = value,
                Part::Block => self.blocks[s.0][x.0] = value,
                Part::Point => self.iterators[s.0][x.0] = value,
            }
        }
    }

    fn tree_loop(&mut self, l: &TreeLoop, jams: &[Jam]) -> Result<(), RunError> {
        if let (Kind::Wave, [Node::Loop(front)]) = (l.kind, &l.body[..]) {
            return self.wavefront(l, front, jams);
        }
        let scan = self.scan;
        let bounds = scan.of(l);
        let members = l.members(self.kernel);
        let mut iterations = self.iterations(l, bounds)?;
        if l.part == Part::Point && l.kind == Kind::Unroll && l.size > 1 {
            // The tile's start, as the first statement's.
            let start = bounds
                .statements
                .first()
                .and_then(|&(s, x, _)| self.tiles[s.0][x.0])
                .ok_or_else(|| RunError::Unbound("an unrolled loop outside its tile".into()))?;
            // A tile inside every statement's range: the body once, every
            // leaf repeated.
            let mut full = true;
            for (s, _, range) in &bounds.statements {
                let (low, high) = self.range(*s, range)?;
                full &= low <= start && start + l.size - 1 <= high;
            }
            if full {
                let mut jammed = jams.to_vec();
                jammed.push(Jam {
                    members: members.clone(),
                    base: start,
                    count: l.size,
                });
                return self.nodes(&l.body, &jammed);
            }
        }
        let pushed = self.guards.len();
        for (statement, loop_id, range) in &bounds.statements {
            self.guards.push((*statement, *loop_id, l.part, range));
        }
        if l.kind == Kind::Reverse {
            iterations.reverse();
        }
        // A collapsed loop's iterations are shared among threads as its
        // parallel parent's are.
        let parallel = matches!(l.kind, Kind::Parallel | Kind::Vector | Kind::Collapsed);
        let reducing: Vec<usize> = reduced(self.kernel, l).iter().map(|s| s.0).collect();
        let accumulating = l.kind == Kind::Sequential && !reducing.is_empty();
        let scoped = parallel || accumulating;
        if parallel {
            iterations.reverse();
        }
        if scoped {
            let mut scope = ParallelScope::new(
                self.kernel.loops[l.loops[0].0].iterator.clone(),
                accumulating,
                reducing,
            );
            scope.private = privatized(self.kernel, l);
            self.parallel.push(scope);
        }
        let saved = (
            self.iterators.clone(),
            self.tiles.clone(),
            self.blocks.clone(),
        );
        let mut result = Ok(());
        for value in iterations {
            if let Some(scope) = self.parallel.last_mut().filter(|_| scoped) {
                scope.iteration = value;
            }
            self.set(l, &members, Some(value));
            let active = self.packs.len();
            result = l
                .packs
                .iter()
                .try_for_each(|pack| self.fill(pack))
                .and_then(|()| self.nodes(&l.body, jams));
            self.packs.truncate(active);
            if result.is_err() {
                break;
            }
        }
        (self.iterators, self.tiles, self.blocks) = saved;
        if scoped {
            self.parallel.pop();
        }
        self.guards.truncate(pushed);
        result
    }

    /// A wave loop and the wavefront loop inside it (see [`Kind::Wave`]):
    /// every pair of their tiles, by anti-diagonals of their tile indices
    /// in order; the pairs of one anti-diagonal are checked as a parallel
    /// loop's iterations are (run last first, races reported).
    fn wavefront(
        &mut self,
        wave: &TreeLoop,
        front: &TreeLoop,
        jams: &[Jam],
    ) -> Result<(), RunError> {
        let scan = self.scan;
        let (outer, inner) = (scan.of(wave), scan.of(front));
        let (wave_members, front_members) = (wave.members(self.kernel), front.members(self.kernel));
        let saved = (
            self.iterators.clone(),
            self.tiles.clone(),
            self.blocks.clone(),
        );
        let pushed = self.guards.len();
        for (statement, loop_id, range) in &outer.statements {
            self.guards.push((*statement, *loop_id, wave.part, range));
        }
        let pairs = self.wave_pairs(wave, front);
        // Stable: within an anti-diagonal, the sequential order, reversed
        // below as a parallel loop's iterations are.
        let result = pairs.and_then(|mut pairs| {
            pairs.sort_by_key(|&(w, _, _)| w);
            let name = self.kernel.loops[front.loops[0].0].iterator.clone();
            for diagonal in pairs.chunk_by(|x, y| x.0 == y.0) {
                self.parallel
                    .push(ParallelScope::new(name.clone(), false, Vec::new()));
                let ran = diagonal.iter().rev().try_for_each(|&(_, a, b)| {
                    if let Some(scope) = self.parallel.last_mut() {
                        scope.iteration = b;
                    }
                    self.set(wave, &wave_members, Some(a));
                    self.set(front, &front_members, Some(b));
                    let guards = self.guards.len();
                    for (statement, loop_id, range) in &inner.statements {
                        self.guards.push((*statement, *loop_id, front.part, range));
                    }
                    let ran = self.nodes(&front.body, jams);
                    self.guards.truncate(guards);
                    ran
                });
                self.parallel.pop();
                ran?;
            }
            Ok(())
        });
        (self.iterators, self.tiles, self.blocks) = saved;
        self.guards.truncate(pushed);
        result
    }

    /// Every pair of tiles of a wave loop and its wavefront loop, in the
    /// sequential order: the anti-diagonal (the sum of their tile indices,
    /// the wavefront's counted from its origin), the wave loop's value and
    /// the wavefront loop's.
    fn wave_pairs(
        &mut self,
        wave: &TreeLoop,
        front: &TreeLoop,
    ) -> Result<Vec<(i64, i64, i64)>, RunError> {
        let scan = self.scan;
        let (outer, inner) = (scan.of(wave), scan.of(front));
        let members = wave.members(self.kernel);
        let first = inner.statements.first().map_or(StatementId(0), |x| x.0);
        let mut pairs = Vec::new();
        for (a, value) in self.iterations(wave, outer)?.into_iter().enumerate() {
            self.set(wave, &members, Some(value));
            // The origin reads parameters and loops outside the wave only.
            let origin = self.bound(first, &inner.origin, false)?;
            for b in self.iterations(front, inner)? {
                let index = (b - origin).div_euclid(front.size.max(1));
                pairs.push((a as i64 + index, value, b));
            }
        }
        Ok(pairs)
    }

    /// Fills a packed copy as the emitters do: where the statement runs
    /// along the loops here, every point of the tiles inside, the read's
    /// element at each.
    fn fill(&mut self, pack: &Pack) -> Result<(), RunError> {
        let s = pack.statement.0;
        let mut copy = PackedCopy {
            statement: s,
            read: pack.read,
            loops: pack.loops.iter().map(|&(x, _)| x).collect(),
            values: HashMap::new(),
        };
        if self.guarded_in(s)? && self.conditions_hold(s, false)? {
            let mut ranges = Vec::new();
            for &(x, size) in &pack.loops {
                let lp = &self.kernel.loops[x.0];
                let tile = self.tiles[s][x.0]
                    .ok_or_else(|| RunError::Unbound("a packed copy outside its tile".into()))?;
                let low = tile.max(self.eval(s, &lp.lower)?);
                let high = (tile + size).min(self.eval(s, &lp.upper)?);
                ranges.push((x, tile, low, high));
            }
            let saved = self.iterators[s].clone();
            let read = &self.kernel.statements[s].reads[pack.read];
            let total: i64 = ranges.iter().map(|r| (r.3 - r.2).max(0)).product();
            for index in 0..total {
                // The point of this index, the last loop fastest.
                let mut rest = index;
                let mut offsets = vec![0; ranges.len()];
                for (k, &(x, tile, low, high)) in ranges.iter().enumerate().rev() {
                    let value = low + rest % (high - low);
                    rest /= high - low;
                    self.iterators[s][x.0] = Some(value);
                    offsets[k] = value - tile;
                }
                let element = self.element(s, &read.name, &read.subscripts)?;
                self.touch(&element, false, None)?;
                let value = self
                    .memory
                    .get(&element)
                    .copied()
                    .unwrap_or_else(|| initial(&element));
                copy.values.insert(offsets, value);
            }
            self.iterators[s] = saved;
        }
        self.packs.push(copy);
        Ok(())
    }

    fn leaf(&mut self, s: usize, jams: &[Jam]) -> Result<(), RunError> {
        let total: i64 = jams.iter().map(|j| j.count).product();
        let saved = self.iterators[s].clone();
        for index in 0..total {
            let mut rest = index;
            for jam in jams.iter().rev() {
                for &(t, l) in &jam.members {
                    if t.0 == s {
                        self.iterators[s][l.0] = Some(jam.base + rest % jam.count);
                    }
                }
                rest /= jam.count;
            }
            let result = match self
                .guarded_in(s)
                .and_then(|inside| Ok(inside && self.conditions_hold(s, false)?))
            {
                Ok(true) => self.in_domain(s).and_then(|()| self.statement(s)),
                Ok(false) => Ok(()),
                Err(e) => Err(e),
            };
            if result.is_err() {
                self.iterators[s] = saved;
                return result;
            }
        }
        self.iterators[s] = saved;
        Ok(())
    }

    /// Whether statement `s` is within its ranges along every enclosing
    /// loop.
    fn guarded_in(&self, s: usize) -> Result<bool, RunError> {
        for &(statement, loop_id, part, range) in &self.guards {
            if statement.0 != s {
                continue;
            }
            let value = match part {
                Part::Tile => self.tiles[s][loop_id.0],
                Part::Block => self.blocks[s][loop_id.0],
                Part::Point => self.iterators[s][loop_id.0],
            }
            .ok_or_else(|| RunError::Unbound("a guard outside its loop".into()))?;
            let (low, high) = self.range(statement, range)?;
            if value < low || value > high {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether statement `s`'s conditions hold here: those that read no
    /// loop (which the emitters test around the statement), or all.
    fn conditions_hold(&self, s: usize, all: bool) -> Result<bool, RunError> {
        for guard in &self.kernel.statements[s].guards {
            if (all || !guard.reads_iterators()) && self.eval(s, guard)? < 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// An instance the loops run must be one of the statement's: within
    /// its loops' bounds and meeting its conditions (the bounds of the
    /// tree enforce them).
    fn in_domain(&self, s: usize) -> Result<(), RunError> {
        let statement = &self.kernel.statements[s];
        for &l in &statement.loops {
            let lp = &self.kernel.loops[l.0];
            let counter = Affine::variable(Variable::Iterator(l));
            let value = self.eval(s, &counter)?;
            if value < self.eval(s, &lp.lower)? || value >= self.eval(s, &lp.upper)? {
                return Err(RunError::OutsideDomain(format!(
                    "S{s} runs with `{}` outside its loop's bounds",
                    lp.counter_name()
                )));
            }
        }
        if !self.conditions_hold(s, true)? {
            return Err(RunError::OutsideDomain(format!(
                "S{s} runs where its `if` conditions do not hold"
            )));
        }
        Ok(())
    }

    fn element(&self, s: usize, name: &str, subscripts: &[Affine]) -> Result<Element, RunError> {
        let values = subscripts
            .iter()
            .map(|a| self.eval(s, a))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((name.to_string(), values))
    }

    fn statement(&mut self, s: usize) -> Result<(), RunError> {
        self.executed += 1;
        if self.executed > self.limit {
            return Err(RunError::TooLong);
        }
        let kernel = self.kernel;
        let statement = &kernel.statements[s];
        let update = kernel.reduction(StatementId(s));
        let target = self.element(s, &statement.write.name, &statement.write.subscripts)?;
        let mut value = (s as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut old = None;
        for (index, read) in statement.reads.iter().enumerate() {
            let element = self.element(s, &read.name, &read.subscripts)?;
            if let Some(copy) = self
                .packs
                .iter()
                .rev()
                .find(|c| c.statement == s && c.read == index)
            {
                let offsets = copy
                    .loops
                    .iter()
                    .map(|x| match (self.iterators[s][x.0], self.tiles[s][x.0]) {
                        (Some(point), Some(tile)) => Ok(point - tile),
                        _ => Err(RunError::Unbound("a packed read outside its tile".into())),
                    })
                    .collect::<Result<Vec<i64>, RunError>>()?;
                let x = copy.values.get(&offsets).copied().ok_or_else(|| {
                    RunError::Unpacked(format!(
                        "S{s} reads {}{:?} from a packed copy that does not hold it",
                        element.0, element.1
                    ))
                })?;
                value = value.wrapping_mul(0x0100_0000_01b3).wrapping_add(x) ^ (value >> 29);
                continue;
            }
            let of_target = update.is_some() && element == target;
            self.touch(&element, false, of_target.then_some(s))?;
            let x = self
                .memory
                .get(&element)
                .copied()
                .unwrap_or_else(|| initial(&element));
            if of_target {
                // The target is combined with the rest, in any order.
                old = Some(x);
                continue;
            }
            value = value.wrapping_mul(0x0100_0000_01b3).wrapping_add(x) ^ (value >> 29);
        }
        if let (Some(update), Some(old)) = (update, old) {
            value = match (update.combiner, update.negated) {
                (Combiner::Sum, false) => old.wrapping_add(value),
                (Combiner::Sum, true) => old.wrapping_sub(value),
                (Combiner::Product, _) => old.wrapping_mul(value | 1),
                (Combiner::Max, _) => old.max(value),
                (Combiner::Min, _) => old.min(value),
            };
        }
        self.touch(&target, true, update.is_some().then_some(s))?;
        self.memory.insert(target, value);
        Ok(())
    }

    /// Records an access in every enclosing parallel loop; a race is an
    /// element another iteration of one of them wrote, or read and this
    /// one writes.
    /// `reducing` is the statement when the access is a reduction's of
    /// its target: a loop that reduces it only checks that nothing else
    /// touches the element.
    fn touch(
        &mut self,
        element: &Element,
        write: bool,
        reducing: Option<usize>,
    ) -> Result<(), RunError> {
        for scope in &mut self.parallel {
            if element.1.is_empty() && scope.private.contains(&element.0) {
                continue;
            }
            let race = || RunError::Race {
                element: element.clone(),
                loop_name: scope.name.clone(),
            };
            if let Some(s) = reducing.filter(|s| scope.reduced.contains(s)) {
                let others = scope.writers.contains_key(element)
                    || scope.readers.contains_key(element)
                    || scope.reductions.get(element).is_some_and(|&t| t != s);
                if others {
                    return Err(race());
                }
                scope.reductions.insert(element.clone(), s);
                continue;
            }
            if scope.reductions.contains_key(element) {
                return Err(race());
            }
            let me = scope.iteration;
            if scope.sequential {
                // Iterations in order race with nothing; the elements are
                // recorded for the accumulators' check above.
                if write {
                    scope.writers.insert(element.clone(), me);
                } else {
                    scope.readers.insert(element.clone(), Some(me));
                }
                continue;
            }
            let written_by_other = scope.writers.get(element).is_some_and(|&w| w != me);
            let read_by_other = scope.readers.get(element).is_some_and(|&r| r != Some(me));
            if written_by_other || (write && read_by_other) {
                return Err(RunError::Race {
                    element: element.clone(),
                    loop_name: scope.name.clone(),
                });
            }
            if write {
                scope.writers.insert(element.clone(), me);
            } else {
                let readers = match scope.readers.get(element) {
                    None => Some(me),
                    Some(&r) if r == Some(me) => r,
                    Some(_) => None,
                };
                scope.readers.insert(element.clone(), readers);
            }
        }
        Ok(())
    }
}
