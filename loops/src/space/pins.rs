//! Decisions no search needs to take: the place of the statements outside
//! every loop (the straight-line scalar code before, between and after
//! the loop nests of a region). Moving such a statement changes no loop,
//! yet each one independent of another would double the candidates, so
//! they keep their place in the original program.

use commute_runtime::{Action, Candidate};

use crate::frontend::StatementId;
use crate::space::host::KernelHost;
use crate::space::names::Names;
use crate::space::{order, Backbone, StatementsId};

/// Fixes the order of every statement outside all loops with every other
/// object, as in the original program.
pub fn pin_straight_line_code(
    host: &KernelHost,
    candidate: &mut Candidate<Backbone<KernelHost>>,
) -> Result<(), String> {
    let kernel = host.kernel();
    let count = host.object_count() as u32;
    for (s, statement) in kernel.statements.iter().enumerate() {
        if !statement.loops.is_empty() {
            continue;
        }
        let pinned = host.inst(s);
        for other in (0..count).map(StatementsId).filter(|&o| o != pinned) {
            let (a, b) = if pinned.0 < other.0 {
                (pinned, other)
            } else {
                (other, pinned)
            };
            let action = Action {
                choice: order::CHOICE,
                objects: vec![a.0, b.0],
                values: host.original_order(a, b),
            };
            candidate.apply(&action).map_err(|dead_end| {
                format!(
                    "S{} cannot keep its place: {}",
                    StatementId(s).0,
                    Names::new(host).dead_end(host, &dead_end)
                )
            })?;
        }
    }
    Ok(())
}
