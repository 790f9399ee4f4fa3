//! The original program with each sum over a loop run as a block of
//! accumulators held in registers: a leaf `commute tune` evaluates first,
//! as it does Polly's schedule.
//!
//! Dense products (`C[i][j] += A[i][k] * B[k][j]` and its kin) are fastest
//! as a micro-kernel: a few rows of the target unrolled and jammed, a
//! strip of its columns in vector lanes, and the summed loop between the
//! strip and the rows, so that the block's sums stay in registers for the
//! whole sum; where an operand is read across the columns (`B[j][k]`),
//! the lanes go along the sum instead, each of a block of rows by columns
//! a vector dot product. That shape takes a dozen decisions taken together
//! (tile sizes, kinds, orders, the accumulators, a parallel loop), so a
//! random descent almost never reaches it, while local steps from it tune
//! its sizes and order. On `examples/gemm.c` (1000 x 1100 x 1200, 2
//! threads, 200 evaluations, seed 1) the search ended at 0.0171 s with it
//! and 0.0301 s without it, one run after the other (`docs/loops.md`,
//! "The blocked start").

use commute_runtime::{Action, Domain};

use super::kernel::LoopCandidate;
use crate::frontend::{LoopId, StatementId};
use crate::space::complete::complete_with_original;
use crate::space::host::{Dimension, KernelHost, Part};
use crate::space::names::Names;
use crate::space::{accumulate, dim_kind, order, tile_size, StatementsId};

/// Rows of the target jammed into one block.
const ROWS: i64 = 4;
/// Columns of the target in one block: four vectors of doubles at 512
/// bits, eight at 256 (the largest tile size the space offers up to this
/// is taken).
const COLUMNS: i64 = 32;

/// Columns of the target jammed into one block of dot products.
const DOT_COLUMNS: i64 = 4;

/// Where a block's vector lanes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// Along the target's columns: the columns are tiled by up to
    /// [`COLUMNS`], their points in vector lanes, and the sum runs between
    /// the column tiles and the rows' points, accumulated (`C[i][j] +=
    /// A[i][k] * B[k][j]`).
    Columns,
    /// Along the sum, where an operand is strided along the columns but
    /// contiguous along the sum (`C[i][j] += A[i][k] * B[j][k]`): the
    /// columns are tiled by [`DOT_COLUMNS`] and jammed with the rows, and
    /// the sum runs innermost in vector lanes, each of the block's dot
    /// products a vector reduction.
    Sum,
}

/// One statement's block: the loops it puts where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// The statement.
    pub statement: StatementId,
    /// Its rows: tiled by [`ROWS`], the points unrolled and jammed.
    pub rows: LoopId,
    /// The summed loop.
    pub sum: LoopId,
    /// Its columns: the innermost loop the target's last subscript reads.
    pub columns: LoopId,
    /// Which loop runs in vector lanes.
    pub lanes: Lanes,
}

impl Block {
    /// `S1: rows i, sum over k, columns j#2 in vector lanes`, by the
    /// loops' names.
    pub fn describe(&self, host: &KernelHost, names: &Names) -> String {
        let name = |loop_id| {
            host.dim(Dimension {
                statement: self.statement,
                loop_id,
                part: Part::Point,
            })
            .map_or_else(|| format!("L{}", loop_id.0), |d| names.object(d.0))
        };
        let (sum, columns) = match self.lanes {
            Lanes::Columns => ("", " in vector lanes"),
            Lanes::Sum => (" in vector lanes", ""),
        };
        format!(
            "S{}: rows {}, sum over {}{sum}, columns {}{columns}",
            self.statement.0,
            name(self.rows),
            name(self.sum),
            name(self.columns)
        )
    }
}

/// The blocked start, and the blocks it holds.
pub struct BlockedStart {
    /// The leaf: the blocks, every other decision as in the original
    /// program.
    pub leaf: LoopCandidate,
    /// Every statement's block, in statement order.
    pub blocks: Vec<Block>,
}

/// Blocks every statement of `root` that sums over a loop its target does
/// not read, where the space allows it (the first shape that completes,
/// for each statement in turn). With several threads, the row tiles (else
/// the column tiles) run in parallel where they may. `None` when no
/// statement is blocked.
pub fn blocked_start(
    host: &KernelHost,
    root: &LoopCandidate,
    threads: usize,
) -> Result<Option<BlockedStart>, String> {
    let kernel = host.kernel();
    let mut candidate = root.clone();
    let mut blocks = Vec::new();
    for (index, statement) in kernel.statements.iter().enumerate() {
        let write = &statement.write;
        // The columns: a loop the target's last subscript reads (the
        // innermost such, where the elements are contiguous).
        let Some(columns) = statement
            .loops
            .iter()
            .rev()
            .copied()
            .find(|&l| write.contiguous_in(l))
        else {
            continue;
        };
        let sums = statement
            .loops
            .iter()
            .copied()
            .filter(|&l| !write.reads_loop(l));
        let rows: Vec<LoopId> = statement
            .loops
            .iter()
            .copied()
            .filter(|&l| l != columns && write.reads_loop(l))
            .collect();
        // An operand read across the columns (the column loop in one of
        // its subscripts, not in its last) would be gathered lane by lane:
        // such a statement takes its lanes along the sum, where that read
        // is contiguous.
        let strided = |l: LoopId| {
            statement
                .reads
                .iter()
                .any(|read| read.reads_loop(l) && !read.contiguous_in(l))
        };
        let lanes = if strided(columns) {
            Lanes::Sum
        } else {
            Lanes::Columns
        };
        let shapes = sums
            .filter(|&sum| lanes == Lanes::Columns || !strided(sum))
            .flat_map(|sum| {
                rows.iter().map(move |&rows| Block {
                    statement: StatementId(index),
                    rows,
                    sum,
                    columns,
                    lanes,
                })
            });
        for block in shapes {
            if let Some(blocked) = apply_block(host, &candidate, block, threads) {
                candidate = blocked;
                blocks.push(block);
                break;
            }
        }
    }
    if blocks.is_empty() {
        return Ok(None);
    }
    let leaf = complete_with_original(host, &candidate)?;
    Ok(Some(BlockedStart { leaf, blocks }))
}

/// `candidate` with `block`'s decisions taken, if they hold and the
/// candidate still completes.
fn apply_block(
    host: &KernelHost,
    candidate: &LoopCandidate,
    block: Block,
    threads: usize,
) -> Option<LoopCandidate> {
    let dim = |loop_id, part| {
        host.dim(Dimension {
            statement: block.statement,
            loop_id,
            part,
        })
    };
    let (rows_tile, rows) = (dim(block.rows, Part::Tile)?, dim(block.rows, Part::Point)?);
    let (columns_tile, columns) = (
        dim(block.columns, Part::Tile)?,
        dim(block.columns, Part::Point)?,
    );
    let sum = dim(block.sum, Part::Point)?;
    let mut next = candidate.clone();
    // Sizes one at a time: each reads the domain the last one left.
    let (columns_size, columns_kind) = match block.lanes {
        Lanes::Columns => (COLUMNS, dim_kind::VECTOR),
        Lanes::Sum => (DOT_COLUMNS, dim_kind::UNROLL),
    };
    for (d, size) in [(rows, ROWS), (columns, columns_size), (sum, 1)] {
        let action = tile_size_action(&next, d, size)?;
        next.apply(&action).ok()?;
    }
    let shape = match block.lanes {
        Lanes::Columns => vec![
            kind(rows, dim_kind::UNROLL),
            kind(columns, columns_kind),
            nest(rows_tile, columns_tile),
            nest(columns_tile, sum),
            nest(sum, rows),
            nest(rows, columns),
            Action {
                choice: accumulate::CHOICE,
                objects: vec![sum.0],
                values: accumulate::YES,
            },
        ],
        Lanes::Sum => vec![
            kind(rows, dim_kind::UNROLL),
            kind(columns, columns_kind),
            kind(sum, dim_kind::VECTOR),
            nest(rows_tile, columns_tile),
            nest(columns_tile, rows),
            nest(rows, columns),
            nest(columns, sum),
        ],
    };
    for action in &shape {
        next.apply(action).ok()?;
    }
    complete_with_original(host, &next).ok()?;
    if threads > 1 {
        // The rows' tiles share the work best (each thread its own rows
        // of the target); the columns' where the rows may not.
        for tile in [rows_tile, columns_tile] {
            let mut parallel = next.clone();
            if parallel.apply(&kind(tile, dim_kind::PARALLEL)).is_ok()
                && complete_with_original(host, &parallel).is_ok()
            {
                return Some(parallel);
            }
        }
    }
    Some(next)
}

/// The largest tile size of `d` at most `largest` that its domain holds.
pub(super) fn tile_size_action(
    candidate: &LoopCandidate,
    d: StatementsId,
    largest: i64,
) -> Option<Action> {
    let instance = Action {
        choice: tile_size::CHOICE,
        objects: vec![d.0],
        values: 0,
    }
    .instance();
    let Some(Domain::Integer { universe, mask }) = candidate.domain(&instance) else {
        return None;
    };
    let position = (0..universe.len())
        .filter(|&p| mask & (1 << p) != 0 && universe[p] <= largest)
        .max_by_key(|&p| universe[p])?;
    Some(Action {
        choice: tile_size::CHOICE,
        objects: vec![d.0],
        values: 1 << position,
    })
}

pub(super) fn kind(d: StatementsId, value: u64) -> Action {
    Action {
        choice: dim_kind::CHOICE,
        objects: vec![d.0],
        values: value,
    }
}

/// `outer` encloses `inner`.
pub(super) fn nest(outer: StatementsId, inner: StatementsId) -> Action {
    Action {
        choice: order::CHOICE,
        objects: vec![outer.0, inner.0],
        values: order::OUTER,
    }
}
