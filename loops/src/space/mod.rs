//! The loop-transformation space of a kernel: the tables and host trait
//! generated from `loops/loops.space` (decisions: `order`, `dim_kind`,
//! `tile_size`, `schedule` of parallel loops, `accumulate` (reductions
//! held in local accumulators), `pack` (operands copied into local
//! buffers), `skew` (a loop's iterator plus a multiple
//! of an outer one's), `shift` (a loop run late to be fused), and
//! `optimizer`, the compiler's Polly or not; legality from the
//! dependences' per-dimension signs), the
//! kernel as its host ([`host`]), the names people give its objects
//! ([`names`], for `--fix` and reports), completion of a partly decided
//! candidate with the original program's values ([`complete`]), the
//! decisions no search takes ([`pins`]), and the
//! order in which decisions are taken ([`DECISION_PRIORITY`]).

pub mod complete;
pub mod host;
pub mod names;
pub mod pins;

include!(concat!(env!("OUT_DIR"), "/loops.rs"));

/// A candidate of a kernel's loop space.
pub type LoopCandidate = commute_runtime::Candidate<Backbone<host::KernelHost>>;

/// The space's source file, from the root of the repository.
pub const SOURCE_FILE: &str = "loops/loops/loops.space";

/// The order in which searches, `commute show` and the benches take the
/// space's decisions: skews and shifts first (they decide which nestings,
/// tilings and fusions are legal), the loop structure, then how each loop
/// runs, then tile sizes, then parallel loops' schedules, then
/// accumulators, then packed copies.
pub const DECISION_PRIORITY: [u16; 8] = [
    skew::CHOICE,
    shift::CHOICE,
    order::CHOICE,
    dim_kind::CHOICE,
    tile_size::CHOICE,
    schedule::CHOICE,
    accumulate::CHOICE,
    pack::CHOICE,
];

/// Whether `instance` is a decision a tile or block dimension takes from
/// its loop's point dimension (a tile's size, skew and shift; a block's
/// skew and shift, its span being its own): listings name the point's
/// only.
pub fn follows_the_point(host: &host::KernelHost, instance: &commute_runtime::InstanceId) -> bool {
    let part = |o: &u32| host.dimension(StatementsId(*o)).map(|d| d.part);
    instance.objects.iter().any(|o| match part(o) {
        Some(host::Part::Tile) => {
            matches!(
                instance.choice,
                tile_size::CHOICE | skew::CHOICE | shift::CHOICE
            )
        }
        Some(host::Part::Block) => matches!(instance.choice, skew::CHOICE | shift::CHOICE),
        _ => false,
    })
}
