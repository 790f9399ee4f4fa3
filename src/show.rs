//! `commute show KERNEL.c`: what commute reads of a C file's loop nest,
//! and the loop space it gives.

use commute_loops::analysis::dependences::dependences;
use commute_loops::frontend::{
    has_scop_region, list_nests, Access, Affine, Direction, Kernel, LoopId, RegionKind,
};
use commute_loops::space::host::KernelHost;
use commute_loops::space::names::Names;
use commute_loops::space::pins::pin_straight_line_code;
use commute_loops::space::DECISION_PRIORITY;
use commute_loops::space::{
    accumulate, dim_kind, follows_the_point, order, pack, schedule, shift, skew, tile_size,
    Backbone,
};
use commute_loops::tune::KernelOptions;
use commute_runtime::estimate::{knuth, Options as EstimateOptions};
use commute_runtime::{Action, Candidate, Domain, InstanceId};

/// Open decisions listed per choice unless `--all` is given.
const LISTED_PER_CHOICE: usize = 40;

/// Knuth probes behind the estimated number of candidates.
const ESTIMATE_PROBES: usize = 1000;

/// The longest the estimate may take: a probe of a kernel with thousands
/// of open decisions (PolyBench's deriche) propagates thousands of times.
const ESTIMATE_TIME: std::time::Duration = std::time::Duration::from_secs(10);

pub fn run(options: &KernelOptions, all: bool) -> Result<(), String> {
    let path = &options.kernel;
    if options.nest.is_none() {
        let name = path.display().to_string();
        let source = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        if !has_scop_region(&name, &source).map_err(|e| e.to_string())? {
            // Without a region, the file's loop nests; the only readable
            // one is shown.
            let nests = list_nests(&name, &source).map_err(|e| e.to_string())?;
            say!("{name}: no `#pragma scop` region; its loop nests:");
            for n in &nests {
                say!("  {}", n.describe());
            }
            let readable = nests.iter().filter(|n| n.outcome.is_ok()).count();
            if readable != 1 {
                say!("`--nest FUNCTION` or `--nest LINE` shows one of them");
                return if readable == 0 {
                    Err(format!("{name}: no loop nest reads"))
                } else {
                    Ok(())
                };
            }
        }
    }
    let host = options.host()?;
    print(host.kernel());
    print_space(host, all)
}

/// The kernel's loop space: its objects, the open decisions with the
/// values propagation leaves them (per choice, kinds and sizes first, a
/// loop's name standing for its dimensions around each statement where
/// they all have the same values), and the estimated number of candidates.
fn print_space(host: KernelHost, all: bool) -> Result<(), String> {
    let names = Names::new(&host);
    let mut root = Candidate::new(Backbone(host.clone()))
        .map_err(|e| format!("the loop space has no candidate: {e}"))?;
    pin_straight_line_code(&host, &mut root)?;
    say!(
        "loop space ({}): objects {}",
        commute_loops::space::SOURCE_FILE,
        names.all().join(", ")
    );
    let priority = DECISION_PRIORITY;
    let instances = root.instances(&priority);
    let open = root.open_instances(&priority);
    say!(
        "decisions: {} ({} already decided by propagation, {} open):",
        instances.len(),
        instances.len() - open.len(),
        open.len()
    );
    // A tile dimension's size, skew and shift follow its point's: not
    // listed.
    let mirrored = |instance: &InstanceId| follows_the_point(&host, instance);
    for (choice, name) in [
        (dim_kind::CHOICE, "dim_kind"),
        (schedule::CHOICE, "schedule"),
        (accumulate::CHOICE, "accumulate"),
        (pack::CHOICE, "pack"),
        (skew::CHOICE, "skew"),
        (shift::CHOICE, "shift"),
        (tile_size::CHOICE, "tile_size"),
        (order::CHOICE, "order"),
    ] {
        let actions: Vec<Action> = open
            .iter()
            .filter(|i| i.choice == choice && !mirrored(i))
            .filter_map(|instance| {
                let values = match root.domain(instance) {
                    Some(Domain::Enum(mask)) | Some(Domain::Integer { mask, .. }) => mask,
                    _ => return None,
                };
                Some(Action {
                    choice: instance.choice,
                    objects: instance.objects.clone(),
                    values,
                })
            })
            .collect();
        if actions.is_empty() {
            continue;
        }
        let lines = names.summarize(&root, &actions);
        let shown = if all {
            lines.len()
        } else {
            lines.len().min(LISTED_PER_CHOICE)
        };
        let more = if shown < lines.len() {
            format!("; the first {shown}, `--all` lists every one")
        } else {
            String::new()
        };
        say!("  {name} ({} open{more}):", actions.len());
        for line in &lines[..shown] {
            say!("    {}", line.replacen(" = ", " in ", 1));
        }
    }
    let options =
        EstimateOptions::new(&priority, ESTIMATE_PROBES, 1).with_time_limit(ESTIMATE_TIME);
    let estimate = knuth(&root, &options);
    let cut = if estimate.samples < ESTIMATE_PROBES {
        format!(" in the {} s allowed", ESTIMATE_TIME.as_secs())
    } else {
        String::new()
    };
    say!(
        "estimated candidates (Knuth, {} probes{cut}): {:.3e}, 95% interval [{:.3e}, {:.3e}]; {:.1}% of uniform random descents end in a dead end, {:.1}% of the searches' descents (which try another value where propagation refutes one)",
        estimate.samples,
        estimate.mean,
        estimate.low,
        estimate.high,
        100.0 * estimate.dead_end_rate,
        100.0 * estimate.search_dead_end_rate
    );
    Ok(())
}

fn access(kernel: &Kernel, access: &Access) -> String {
    let subscripts: String = access
        .subscripts
        .iter()
        .map(|s| format!("[{}]", s.display(kernel)))
        .collect();
    format!("{}{subscripts}", access.name)
}

fn print(kernel: &Kernel) {
    let (first, _) = kernel.line_column(kernel.region.start);
    let (last, _) = kernel.line_column(kernel.region.end);
    match &kernel.region_kind {
        RegionKind::Scop => say!(
            "{}: scop region, lines {first} to {}",
            kernel.path,
            last.saturating_sub(1).max(first)
        ),
        RegionKind::Nest { function } => say!(
            "{}: loop nest of `{function}`, lines {first} to {last}",
            kernel.path
        ),
    }
    if !kernel.params.is_empty() {
        say!("parameters: {}", kernel.params.join(", "));
    }
    let private_to = |name: &str| {
        kernel
            .private_scalars
            .iter()
            .find(|p| p.name == name)
            .map(|p| {
                let iterators: Vec<String> = p
                    .loops
                    .iter()
                    .map(|l| format!("`{}`", kernel.loops[l.0].iterator))
                    .collect();
                iterators.join(", ")
            })
    };
    for local in &kernel.locals {
        match private_to(&local.name) {
            Some(iterator) => say!(
                "local scalar: {} {} (private to each iteration of {iterator}: assigned there before it is read)",
                local.type_name,
                local.name
            ),
            None => say!(
                "local scalar: {} {} (one variable for the whole nest)",
                local.type_name,
                local.name
            ),
        }
    }
    for private in &kernel.private_scalars {
        if let Some(iterators) = private_to(&private.name)
            .filter(|_| !kernel.locals.iter().any(|l| l.name == private.name))
        {
            say!(
                "scalar {}: private to each iteration of {iterators} (assigned there before it is read, not read after the nest)",
                private.name
            );
        }
    }
    for in_place in &kernel.in_place {
        let updates: Vec<String> = in_place
            .updates
            .iter()
            .map(|s| format!("S{}", s.0))
            .collect();
        say!(
            "scalar {}: its sum over each iteration of `{}` accumulates in {} instead (updated by {})",
            in_place.scalar,
            kernel.loops[in_place.loop_id.0].iterator,
            in_place.target,
            updates.join(", ")
        );
    }
    for array in &kernel.linearized {
        let sizes: Vec<String> = array
            .sizes
            .iter()
            .map(|&p| format!("[{}]", kernel.params[p]))
            .collect();
        say!(
            "linearized array: {}[]{} (its subscripts split into dimensions)",
            array.name,
            sizes.concat()
        );
    }
    for (a, b) in &kernel.aliasing {
        say!("may alias: {a} and {b} (a pointer without `restrict`): each access of one may touch any element of the other");
    }
    say!("loops:");
    for (index, l) in kernel.loops.iter().enumerate() {
        let depth = std::iter::successors(l.parent, |p| kernel.loops[p.0].parent).count();
        let (line, _) = kernel.line_column(l.span.start);
        let range = match &l.direction {
            Direction::Up => format!(
                "{} in [{}, {})",
                l.iterator,
                l.lower.display(kernel),
                l.upper.display(kernel)
            ),
            Direction::Down { first } => {
                let last = first
                    .clone()
                    .add(&l.upper, -1)
                    .and_then(|x| x.add(&Affine::constant(1), 1))
                    .map_or_else(|| "?".to_string(), |x| x.display(kernel));
                format!(
                    "{} from {} down to {last}",
                    l.iterator,
                    first.display(kernel)
                )
            }
            Direction::Strided { first, step } => {
                let first = match first.display(kernel) {
                    zero if zero == "0" && *step > 0 => String::new(),
                    first => format!("{first} {} ", if *step < 0 { "-" } else { "+" }),
                };
                format!(
                    "{} = {first}{}*{}, {} in [0, {})",
                    l.iterator,
                    step.unsigned_abs(),
                    l.counter_name(),
                    l.counter_name(),
                    l.upper.display(kernel)
                )
            }
        };
        say!(
            "  L{index} {}for {range}  (line {line})",
            "  ".repeat(depth)
        );
    }
    say!("statements:");
    for (index, s) in kernel.statements.iter().enumerate() {
        let (line, _) = kernel.line_column(s.span.start);
        let loops: Vec<String> = s
            .loops
            .iter()
            .map(|l| kernel.loops[l.0].iterator.clone())
            .collect();
        let reads: Vec<String> = s.reads.iter().map(|a| access(kernel, a)).collect();
        say!("  S{index} in ({})  (line {line})", loops.join(", "));
        if !s.guards.is_empty() {
            let guards: Vec<String> = s
                .guards
                .iter()
                .map(|g| format!("{} >= 0", g.display(kernel)))
                .collect();
            say!("      when   {}", guards.join(" and "));
        }
        if s.code.trim_start().starts_with("if") {
            say!(
                "      runs   {}",
                s.code.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }
        say!("      writes {}", access(kernel, &s.write));
        let gathers: Vec<&str> = kernel
            .gathers
            .iter()
            .filter(|g| s.span.start <= g.span.start && g.span.end <= s.span.end)
            .map(|g| &kernel.source[g.span.clone()])
            .collect();
        if !gathers.is_empty() {
            say!(
                "      gathers {} (at computed subscripts, from arrays the nest does not write: no dependence)",
                gathers.join(", ")
            );
        }
        say!(
            "      reads  {}",
            if reads.is_empty() {
                "nothing".to_string()
            } else {
                reads.join(", ")
            }
        );
    }
    let deps = dependences(kernel);
    say!(
        "dependences ({}; distances are sink minus source, in iterations (a loop counting down counts them up); +, - and * are a sign only, or any):",
        deps.len()
    );
    for d in &deps {
        say!("  {}", d.display(kernel));
    }
    let carrying: Vec<String> = (0..kernel.loops.len())
        .filter(|&l| deps.iter().any(|d| d.may_be_carried_by(LoopId(l))))
        .map(|l| format!("L{l} ({})", kernel.loops[l].iterator))
        .collect();
    let carrying = if carrying.is_empty() {
        "none".to_string()
    } else {
        carrying.join(", ")
    };
    say!("loops that may carry a dependence: {carrying}");
    let offered_shifts = commute_loops::analysis::shift::shifts(&deps);
    let fusion = commute_loops::analysis::fusion::Fusion::of(kernel);
    let mut skews: Vec<_> =
        commute_loops::analysis::skew::skews(kernel, &deps, &offered_shifts, &fusion)
            .into_iter()
            .collect();
    skews.sort_by_key(|((s, l), _)| (s.0, l.0));
    if !skews.is_empty() {
        say!("skews offered (`skew(...) = YES` runs a loop along its iterator plus the factor times its base's):");
        for ((s, l), skew) in skews {
            say!(
                "  S{}: L{} ({}) + {} * L{} ({})",
                s.0,
                l.0,
                kernel.loops[l.0].iterator,
                skew.factor,
                skew.base.0,
                kernel.loops[skew.base.0].iterator
            );
        }
    }
    let mut shifts: Vec<_> = offered_shifts.into_iter().collect();
    shifts.sort();
    if !shifts.is_empty() {
        say!("shifts offered (`shift(...) = YES` runs a loop that many iterations late in the loops it is fused with):");
        for ((s, l), by) in shifts {
            say!(
                "  S{}: L{} ({}) by {by}",
                s.0,
                l.0,
                kernel.loops[l.0].iterator
            );
        }
    }
}

/// `commute show --polly`: the schedule Polly chooses for the nest, as
/// isl wrote it and in the nest's names, the decisions it translates to
/// (those that differ from the original program, as `--fix` takes them)
/// and what does not translate.
pub fn polly(
    file: std::path::PathBuf,
    nest: Option<String>,
    cc: Option<&str>,
    cflags: &[String],
) -> Result<(), String> {
    let kernel = KernelOptions {
        kernel: file,
        nest,
        fixes: Vec::new(),
        fix_file: None,
        blocks: false,
        sums_in_order: false,
    };
    let (_, start) = commute_loops::tune::show_polly(&kernel, cc, cflags)?;
    let translation = &start.translation;
    say!("built with: {}", start.command);
    if translation.regions.is_empty() {
        say!("Polly optimized no region that matches the nest");
        for line in &translation.untranslated {
            say!("  {line}");
        }
        return Ok(());
    }
    say!(
        "Polly's region{}: {}",
        if translation.regions.len() > 1 {
            "s"
        } else {
            ""
        },
        translation.regions.join(", ")
    );
    for statement in &translation.statements {
        say!(
            "  S{} is Polly's {}: {}",
            statement.statement,
            statement.polly,
            statement.text
        );
        say!("    schedule: [{}]", statement.named);
    }
    if start.leaves.is_empty() {
        say!("no start: `commute tune` starts from the root");
    }
    let labels = [
        "its decisions that differ from the original program",
        "with the outermost loop the dependences allow in parallel (as Polly's parallel mode runs)",
    ];
    for ((label, differences), outline) in
        labels.iter().zip(&start.differences).zip(&start.outlines)
    {
        if differences.is_empty() {
            say!("{label}: none (the original schedule)");
            continue;
        }
        say!("{label}:");
        for line in differences {
            say!("  --fix \"{line}\"");
        }
        say!("  the loop nest:");
        for line in outline.lines() {
            say!("    {line}");
        }
    }
    if translation.untranslated.is_empty() {
        say!("everything translated");
    } else {
        say!("not translated:");
        for line in &translation.untranslated {
            say!("  {line}");
        }
    }
    Ok(())
}
