//! Time tiling: a time loop's sweeps fused (shifted where they need it),
//! each sweep's rows skewed by the time step (those of a single sweep
//! too, such as seidel-2d's), and time steps and rows
//! tiled together, the tiles run as a wavefront on several threads:
//! leaves `commute tune` evaluates first, as it does Polly's schedule.
//!
//! A stencil over time whose arrays outgrow the caches streams them from
//! memory at every time step, however its sweeps run; tiled across time
//! steps, a tile's rows stay in cache for all the steps of the tile. That
//! takes a dozen decisions together (a fusion with its shift, a skew per
//! sweep, two tile sizes, an interchange, a wavefront), which a random
//! descent almost never reaches, while local steps from it tune the
//! sizes. `docs/loops.md`, "The time-tiled start".

use commute_runtime::Action;

use super::blocked_start::{kind, nest, tile_size_action};
use super::fused_start::fused;
use super::kernel::LoopCandidate;
use crate::frontend::{LoopId, StatementId};
use crate::space::complete::complete_with_original;
use crate::space::host::{Dimension, KernelHost, Part};
use crate::space::{dim_kind, skew, StatementsId};

/// Time steps and rows per tile, one leaf each.
const TILES: [(i64, i64); 3] = [(8, 32), (16, 64), (32, 128)];

/// The time-tiled start.
pub struct TimeTiledStart {
    /// One leaf per tile shape that the space holds.
    pub leaves: Vec<LoopCandidate>,
    /// The time loop.
    pub time: LoopId,
    /// Time steps and rows per tile of each leaf.
    pub tiles: Vec<(i64, i64)>,
    /// Whether loops of several statements were fused.
    pub fused: bool,
}

/// The time-tiled leaves of `root`: where every statement is inside one
/// outermost loop (the time loop) and the loop right inside it in each
/// statement (its rows) is offered a skew by it. `None` elsewhere, and
/// where the skewed rows may not be tiled with the time loop.
pub fn time_tiled_start(
    host: &KernelHost,
    root: &LoopCandidate,
    threads: usize,
) -> Result<Option<TimeTiledStart>, String> {
    let kernel = host.kernel();
    let Some(&time) = kernel.statements.first().and_then(|s| s.loops.first()) else {
        return Ok(None);
    };
    let mut rows: Vec<(StatementId, LoopId)> = Vec::new();
    for (s, statement) in kernel.statements.iter().enumerate() {
        let s = StatementId(s);
        let row = match statement.loops[..] {
            [t, row, ..] if t == time => row,
            _ => return Ok(None),
        };
        if host.skew_of(s, row).is_none_or(|skew| skew.base != time) {
            return Ok(None);
        }
        rows.push((s, row));
    }
    let dim = |(statement, loop_id): (StatementId, LoopId), part| {
        host.dim(Dimension {
            statement,
            loop_id,
            part,
        })
        .ok_or_else(|| {
            format!(
                "no dimension of S{} for its loop L{}",
                statement.0, loop_id.0
            )
        })
    };
    // The sweeps fused over time steps and rows (columns fused too would
    // test every statement inside the innermost loop); a single sweep
    // (seidel-2d) as it is.
    let fused = fused(host, root, 2);
    let was_fused = fused.is_some();
    let mut candidate = fused.map_or_else(|| root.clone(), |(c, _)| c);
    for &slot in &rows {
        let skewed = Action {
            choice: skew::CHOICE,
            objects: vec![dim(slot, Part::Point)?.0],
            values: skew::YES,
        };
        if candidate.apply(&skewed).is_err() {
            return Ok(None);
        }
    }
    let first = rows[0];
    let time_point: StatementsId = dim((first.0, time), Part::Point)?;
    let time_tile = dim((first.0, time), Part::Tile)?;
    let (row_point, row_tile) = (dim(first, Part::Point)?, dim(first, Part::Tile)?);
    let mut start = TimeTiledStart {
        leaves: Vec::new(),
        time,
        tiles: Vec::new(),
        fused: was_fused,
    };
    for (steps, row_count) in TILES {
        let mut leaf = candidate.clone();
        let mut actions = vec![
            tile_size_action(&leaf, time_point, steps),
            tile_size_action(&leaf, row_point, row_count),
            Some(nest(row_tile, time_point)),
        ];
        if threads > 1 {
            actions.push(Some(kind(time_tile, dim_kind::WAVE)));
            actions.push(Some(kind(row_tile, dim_kind::WAVEFRONT)));
        }
        let applied = actions
            .into_iter()
            .all(|action| action.is_some_and(|a| leaf.apply(&a).is_ok()));
        if !applied {
            continue;
        }
        if let Ok(complete) = complete_with_original(host, &leaf) {
            if !start
                .leaves
                .iter()
                .any(|l| l.decisions() == complete.decisions())
            {
                start.tiles.push((steps, row_count));
                start.leaves.push(complete);
            }
        }
    }
    Ok((!start.leaves.is_empty()).then_some(start))
}
