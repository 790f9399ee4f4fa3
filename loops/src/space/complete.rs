//! Completing a partly decided candidate without searching: every open
//! decision takes the original program's value when propagation allows it
//! (the original order, no skew or shift, tile size 1, sequential
//! dimensions), else the first value that survives. `commute lower` completes an expert's fixed
//! decisions this way.

use commute_runtime::{Action, Candidate, DeadEnd, Domain, InstanceId};

use crate::space::host::KernelHost;
use crate::space::names::Names;
use crate::space::{
    accumulate, dim_kind, optimizer, order, pack, schedule, shift, skew, tile_size, vector_width,
    Backbone, StatementsId,
};

/// The candidate with every open decision taken, original values first.
/// Returned without explanations (a slot per value of every instance,
/// copied at every try: 98 s of copies on PolyBench's deriche); when a
/// decision has no value left, the error names the constraint that
/// removed them where `start` keeps explanations.
pub fn complete_with_original(
    host: &KernelHost,
    start: &Candidate<Backbone<KernelHost>>,
) -> Result<Candidate<Backbone<KernelHost>>, String> {
    let mut candidate = start.unexplained_copy();
    // Every try is made on `child`, refilled from `candidate` in place.
    let mut child = candidate.clone();
    let mut taken = Vec::new();
    while let Some(instance) = candidate.next_open(&COMPLETION_PRIORITY) {
        let mut alternatives = candidate.alternatives(&instance);
        let preferred = original_value(host, &candidate, &instance);
        alternatives.sort_by_key(|a| a.values != preferred);
        // The last value refused, and why.
        let mut refused = None;
        let mut applied = None;
        for action in alternatives {
            child.clone_from(&candidate);
            match child.apply(&action) {
                Ok(()) => {
                    applied = Some(action);
                    break;
                }
                Err(dead_end) => refused = Some((action, dead_end)),
            }
        }
        let Some(action) = applied else {
            let dead_end = refused.map(|(action, dead_end)| {
                replayed_dead_end(start, &taken, &action).unwrap_or(dead_end)
            });
            let names = Names::new(host);
            return Err(format!(
                "no value of {} holds after the fixed decisions{}",
                instance.display(candidate.model()),
                dead_end.map_or(String::new(), |e| format!(": {}", names.dead_end(host, &e)))
            ));
        };
        std::mem::swap(&mut candidate, &mut child);
        taken.push(action);
    }
    Ok(candidate)
}

/// Order first: it decides the shape (and skews and shifts where it needs
/// them), then sizes, then kinds, then the compiler's flags.
const COMPLETION_PRIORITY: [u16; 10] = [
    order::CHOICE,
    skew::CHOICE,
    shift::CHOICE,
    tile_size::CHOICE,
    dim_kind::CHOICE,
    schedule::CHOICE,
    accumulate::CHOICE,
    pack::CHOICE,
    optimizer::CHOICE,
    vector_width::CHOICE,
];

/// Why `action` is refused once `taken` is applied to `start`, as
/// `start`'s explanations tell it: for a search that runs on a copy
/// without them (see [`complete_with_original`]) and names the
/// constraint only when a decision is refused. `None` when `start` keeps
/// no explanations or `action` holds.
pub fn replayed_dead_end(
    start: &Candidate<Backbone<KernelHost>>,
    taken: &[Action],
    action: &Action,
) -> Option<DeadEnd> {
    replay(start, taken)?.apply(action).err()
}

/// `start`, explained, with `taken` applied; `None` when it keeps no
/// explanations or one is refused.
fn replay(
    start: &Candidate<Backbone<KernelHost>>,
    taken: &[Action],
) -> Option<Candidate<Backbone<KernelHost>>> {
    if !start.is_explained() {
        return None;
    }
    let mut replayed = start.clone();
    for action in taken {
        replayed.apply(action).ok()?;
    }
    Some(replayed)
}

/// The value an instance has in the original program, as a mask (0 for
/// counters).
pub fn original_value(
    host: &KernelHost,
    candidate: &Candidate<Backbone<KernelHost>>,
    instance: &InstanceId,
) -> u64 {
    let object = |i: usize| StatementsId(instance.objects[i]);
    match instance.choice {
        order::CHOICE => host.original_order(object(0), object(1)),
        dim_kind::CHOICE => dim_kind::SEQUENTIAL,
        schedule::CHOICE => schedule::STATIC,
        accumulate::CHOICE if host.accumulated_in_source(object(0)) => accumulate::YES,
        accumulate::CHOICE => accumulate::NO,
        pack::CHOICE => pack::NO,
        skew::CHOICE => skew::NO,
        shift::CHOICE => shift::NO,
        optimizer::CHOICE => optimizer::NONE,
        vector_width::CHOICE => vector_width::NATIVE,
        tile_size::CHOICE => match candidate.domain(instance) {
            Some(Domain::Integer { universe, .. }) => {
                universe.iter().position(|&v| v == 1).map_or(0, |i| 1 << i)
            }
            _ => 0,
        },
        _ => 0,
    }
}
