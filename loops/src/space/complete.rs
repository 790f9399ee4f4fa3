//! Completing a partly decided candidate without searching: every open
//! decision takes the original program's value when propagation allows it
//! (the original order, no skew or shift, tile size 1, sequential
//! dimensions), else the first value that survives. `commute lower` completes an expert's fixed
//! decisions this way.

use commute_runtime::{Candidate, Domain, InstanceId};

use crate::space::host::KernelHost;
use crate::space::names::Names;
use crate::space::{
    accumulate, dim_kind, optimizer, order, pack, schedule, shift, skew, tile_size, vector_width,
    Backbone, StatementsId,
};

/// The candidate with every open decision taken, original values first.
pub fn complete_with_original(
    host: &KernelHost,
    start: &Candidate<Backbone<KernelHost>>,
) -> Result<Candidate<Backbone<KernelHost>>, String> {
    let mut candidate = start.clone();
    // Order first: it decides the shape (and skews and shifts where it
    // needs them), then sizes, then kinds, then the compiler's flags.
    let priority = [
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
    while let Some(instance) = candidate.next_open(&priority) {
        let mut alternatives = candidate.alternatives(&instance);
        let preferred = original_value(host, &candidate, &instance);
        alternatives.sort_by_key(|a| a.values != preferred);
        let mut last_error = None;
        let mut applied = false;
        for action in alternatives {
            let mut child = candidate.clone();
            match child.apply(&action) {
                Ok(()) => {
                    candidate = child;
                    applied = true;
                    break;
                }
                Err(dead_end) => last_error = Some(dead_end),
            }
        }
        if !applied {
            let names = Names::new(host);
            return Err(format!(
                "no value of {} holds after the fixed decisions{}",
                instance.display(candidate.model()),
                last_error.map_or(String::new(), |e| format!(": {}", names.dead_end(host, &e)))
            ));
        }
    }
    Ok(candidate)
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
