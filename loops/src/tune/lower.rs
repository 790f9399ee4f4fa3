//! Lowering a leaf of a kernel's space to C: the schedule it describes,
//! written with directives or as explicit code, with a comment listing the
//! decisions that differ from the original program (those a person would
//! give `commute lower` to get it back).

use commute_runtime::{Action, Domain, InstanceId};

use super::flags::candidate_flags;
use super::kernel::{CompilerFeatures, LoadedKernel, LoopCandidate};
use super::options::{Emit, LowerOptions};
use crate::emit::directives::directive_code;
use crate::emit::explicit::explicit_code;
use crate::frontend::Kernel;
use crate::harness::{
    build_command, effective_cflags, with_built_with_line, Compiler, CompilerFamily,
};
use crate::lowering::schedule::Schedule;
use crate::space::complete::{complete_with_original, original_value};
use crate::space::{
    accumulate, dim_kind, follows_the_point, optimizer, order, pack, schedule, shift, skew,
    tile_size, vector_width,
};

/// The form a candidate was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// OpenMP 6.0 directives on the user's loops.
    Directives,
    /// Explicit loops.
    Code,
}

/// One candidate written as C by [`lower`].
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The whole C file, its first line a comment naming the command it
    /// would be built with.
    pub code: String,
    /// How it is written.
    pub form: Form,
    /// The loop nest, one loop per line, for people.
    pub outline: String,
}

/// `commute lower`: the fixed decisions completed as in the original
/// program, written as C, its first line naming the command it would be
/// built with. `Emit::Auto` writes directives where the compiler takes
/// them (and where it can, when no compiler is found).
pub fn lower(options: &LowerOptions) -> Result<Lowered, String> {
    // The compiler is named on the file's first line. Without one found,
    // `cc` is named and directives are written where they can be.
    let compiler = match Compiler::detect(options.cc.as_deref()) {
        Ok(compiler) => Some(compiler),
        Err(e) if options.cc.is_some() => return Err(e.to_string()),
        Err(_) => None,
    };
    // `optimizer() = POLLY` may be fixed where the compiler has Polly,
    // `vector_width() = WIDE` where the target has 512-bit vectors.
    let features = compiler
        .as_ref()
        .map_or_else(CompilerFeatures::default, |c| {
            let probes = std::env::temp_dir().join("commute-probes");
            CompilerFeatures::probe(c, &probes, &options.cflags)
        });
    let loaded = LoadedKernel::load_for(&options.kernel, features)?;
    let leaf = complete_with_original(&loaded.host, &loaded.root)?;
    let directives = compiler
        .as_ref()
        .is_none_or(Compiler::supports_loop_directives);
    let (schedule, code, form) = lower_leaf(&loaded, &leaf, options.emit, directives)?;
    let compiler = compiler.unwrap_or_else(|| Compiler {
        path: "cc".into(),
        version_line: String::new(),
        family: CompilerFamily::Other,
    });
    let cflags = effective_cflags(&options.cflags);
    let command = build_command(&compiler, &cflags, &candidate_flags(&leaf));
    Ok(Lowered {
        code: with_built_with_line(&code, &command),
        form,
        outline: schedule.outline(loaded.host.kernel()),
    })
}

/// The candidate written as C in the form `emit` asks for (`directives`:
/// whether the compiler takes OpenMP 6.0 loop directives), with its
/// decisions in a comment.
pub(super) fn lower_leaf(
    loaded: &LoadedKernel,
    leaf: &LoopCandidate,
    emit: Emit,
    directives: bool,
) -> Result<(Schedule, String, Form), String> {
    let schedule = Schedule::from_candidate(&loaded.host, leaf).map_err(|e| e.to_string())?;
    let mut comment = vec![format!(
        "decisions that differ from the original program ({}):",
        loaded.path.display()
    )];
    let changed = differences(loaded, leaf);
    if changed.is_empty() {
        comment.push("  none".to_string());
    }
    comment.extend(changed.into_iter().map(|d| format!("  {d}")));
    let kernel = loaded.host.kernel();
    let (code, form) = match (emit, directives) {
        (Emit::Directives, _) => (
            directive_code(kernel, &schedule, &comment)
                .map_err(|e| format!("not expressible with directives: {e}"))?,
            Form::Directives,
        ),
        (Emit::Auto, true) => match directive_code(kernel, &schedule, &comment) {
            Ok(code) => (code, Form::Directives),
            Err(_) => (explicit(kernel, &schedule, &comment)?, Form::Code),
        },
        (Emit::Auto, false) | (Emit::Code, _) => {
            (explicit(kernel, &schedule, &comment)?, Form::Code)
        }
    };
    Ok((schedule, code, form))
}

fn explicit(kernel: &Kernel, schedule: &Schedule, comment: &[String]) -> Result<String, String> {
    explicit_code(kernel, schedule, comment).map_err(|e| format!("cannot write the loops: {e}"))
}

/// The decisions of a leaf that differ from the original program's, for
/// people: only those the earlier ones do not imply, so that, given to
/// `commute lower` as fixed decisions (the rest completed as in the
/// original program), they give the leaf back.
pub(super) fn differences(loaded: &LoadedKernel, leaf: &LoopCandidate) -> Vec<String> {
    let mut changed = Vec::new();
    // Skews and shifts first: the nestings and fusions they allow would
    // imply them.
    let decisions = [
        skew::CHOICE,
        shift::CHOICE,
        order::CHOICE,
        tile_size::CHOICE,
        dim_kind::CHOICE,
        schedule::CHOICE,
        accumulate::CHOICE,
        pack::CHOICE,
        optimizer::CHOICE,
        vector_width::CHOICE,
    ];
    for instance in leaf.instances(&decisions) {
        // The other choices (`carries`) follow from these.
        if !decisions.contains(&instance.choice) {
            continue;
        }
        let Some(action) = single_action(leaf, &instance) else {
            continue;
        };
        // A tile dimension's size, skew and shift are its point's.
        if follows_the_point(&loaded.host, &instance) {
            continue;
        }
        if action.values != original_value(&loaded.host, leaf, &instance) {
            changed.push(action);
        }
    }
    let mut replayed = loaded.unfixed.clone();
    let mut needed = Vec::new();
    for action in &changed {
        let instance = action.instance();
        if single_action(&replayed, &instance).is_some_and(|a| a.values == action.values) {
            continue;
        }
        if replayed.apply(action).is_err() {
            // Cannot happen for a leaf of the same root; say everything.
            return loaded.names.summarize(leaf, &changed);
        }
        needed.push(action.clone());
    }
    loaded.names.summarize(leaf, &needed)
}

fn single_action(leaf: &LoopCandidate, instance: &InstanceId) -> Option<Action> {
    let values = match leaf.domain(instance)? {
        Domain::Enum(mask) => mask,
        Domain::Integer { mask, .. } => mask,
        Domain::Counter { .. } => return None,
    };
    (values.count_ones() == 1).then(|| Action {
        choice: instance.choice,
        objects: instance.objects.clone(),
        values,
    })
}
