//! Polly's schedule as decisions of the loop space.
//!
//! Each statement of the nest is matched with one of Polly's (in textual
//! order, at the same depth; Polly splits and merges statements by basic
//! block, so the match is an alignment), and its schedule is read as a
//! chain of the statement's dimensions, outermost first: a loop becomes
//! its tile (of size 1) and point dimensions, a tiled loop its tile and
//! point dimensions with the tile size. Two statements share their
//! schedule's dimensions up to the first constant where they differ: the
//! dimensions before it are merged (fused), and after it the statement
//! with the smaller constant and all its dimensions come before the
//! other's; statements of different regions (Polly splits a nest around
//! what it does not model) keep their original order. Every relation is
//! applied as an `order` decision and every
//! size as a `tile_size` one; what propagation refuses, and what the
//! space cannot express (skews, shifts, statements that match none), is
//! listed, not dropped silently. Polly's JSCoP export does not say which
//! loops its parallel mode runs in parallel: [`starts`] adds a start with
//! the outermost loop the dependences allow in parallel.

use std::time::{Duration, Instant};

use commute_runtime::{Action, DeadEnd, Domain, InstanceId};

use super::schedule::{PollyRegion, PollyStatement, ScheduleDim};
use crate::frontend::{Kernel, RegionKind, StatementId};
use crate::space::complete::{complete_with_original, replayed_dead_end};
use crate::space::host::{Dimension, KernelHost, Part};
use crate::space::names::Names;
use crate::space::{dim_kind, order, tile_size, LoopCandidate, StatementsId};

/// The longest the relations are applied for: on kernels of thousands of
/// decisions (PolyBench's deriche, adi) each one propagates for long.
const APPLY_TIME: Duration = Duration::from_secs(20);

/// A statement of the nest and the schedule Polly gave it.
#[derive(Clone, Debug)]
pub struct MappedStatement {
    /// The statement's index in the nest (`S0`, `S1`...).
    pub statement: usize,
    /// Polly's statement.
    pub polly: String,
    /// Its schedule as isl wrote it.
    pub text: String,
    /// Its schedule in the nest's names (`i.tile(32), j, i`).
    pub named: String,
}

/// Polly's schedule read as decisions.
#[derive(Clone)]
pub struct Translation {
    /// The JSCoP files the nest was matched with, in the nest's order
    /// (Polly splits a nest into several regions around what it cannot
    /// model, a call to `sqrt` or a conditional store); none when no
    /// region matches.
    pub regions: Vec<String>,
    /// The statements of the nest Polly's schedule was read for.
    pub statements: Vec<MappedStatement>,
    /// The decisions taken (propagation's consequences aside).
    pub taken: Vec<Action>,
    /// What did not translate, one line each.
    pub untranslated: Vec<String>,
    /// The root with the decisions taken.
    pub candidate: LoopCandidate,
    /// Each mapped statement's dimensions, outermost first.
    chains: Vec<Vec<StatementsId>>,
}

/// One element of a statement's chain: a dimension and its place in the
/// schedule (the schedule dimension, then 0 for a tile part and 1 for a
/// point part).
#[derive(Clone, Copy, Debug)]
struct Element {
    object: StatementsId,
    rank: (usize, u8),
}

/// A statement read: its chain, whether its whole schedule was read (else
/// it takes no part in relations with others), and its schedule.
struct ReadStatement {
    statement: usize,
    chain: Vec<Element>,
    whole: bool,
    dims: Vec<ScheduleDim>,
}

/// Reads the schedules of the regions that match the nest (see
/// [`choose_regions`]) into decisions applied to `root`.
pub fn translate(host: &KernelHost, root: &LoopCandidate, regions: &[PollyRegion]) -> Translation {
    let kernel = host.kernel();
    let nest: Vec<(usize, usize)> = kernel
        .statements
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.loops.is_empty())
        .map(|(i, s)| (i, s.loops.len()))
        .collect();
    let mut translation = Translation {
        regions: Vec::new(),
        statements: Vec::new(),
        taken: Vec::new(),
        untranslated: Vec::new(),
        // Without explanations: a copy per decision tried would copy a
        // slot per value of every instance (see `complete_with_original`).
        candidate: root.unexplained_copy(),
        chains: Vec::new(),
    };
    // Polly names each file after its function (`kernel_gemm___%entry...`):
    // a nest picked in a function matches only that function's regions,
    // not one alike in another file of the program (a loop initializing
    // an array).
    let own: Vec<PollyRegion> = match &kernel.region_kind {
        RegionKind::Nest { function } => regions
            .iter()
            .filter(|r| r.file.starts_with(&format!("{function}___")))
            .cloned()
            .collect(),
        RegionKind::Scop => regions.to_vec(),
    };
    let chosen = choose_regions(kernel, &nest, &own, &mut translation.untranslated);
    if chosen.is_empty() {
        return translation;
    }
    translation.regions = chosen.iter().map(|(r, _)| r.file.clone()).collect();
    let names = Names::new(host);
    // Each region's statements read, a group per region: their schedules
    // relate them to each other, not to another region's.
    let mut groups: Vec<Vec<ReadStatement>> = chosen.iter().map(|_| Vec::new()).collect();
    for &(s, _) in &nest {
        let Some((group, p)) = chosen
            .iter()
            .enumerate()
            .find_map(|(g, (_, pairs))| pairs.iter().find(|(c, _)| *c == s).map(|&(_, p)| (g, p)))
        else {
            translation.untranslated.push(format!(
                "S{s}: no statement of Polly's region matches it; its decisions are left to the search"
            ));
            continue;
        };
        let polly = &chosen[group].0.statements[p];
        if let Some(statement) = read_statement(host, root, s, polly, &names, &mut translation) {
            groups[group].push(statement);
        }
    }
    for (region, pairs) in &chosen {
        for (p, polly) in region.statements.iter().enumerate() {
            if polly.writes_memory() && !pairs.iter().any(|&(_, q)| q == p) {
                translation.untranslated.push(format!(
                    "Polly's {} (depth {}) matches no statement of the nest",
                    polly.name, polly.depth
                ));
            }
        }
    }
    let actions = relations(&groups, &mut translation.untranslated);
    // The first few refusals, named as `root` explains them; the others
    // counted.
    let (mut refused, mut hidden) = (Vec::new(), 0);
    let deadline = Instant::now() + APPLY_TIME;
    for (done, action) in actions.iter().enumerate() {
        // Most relations follow from the first ones: only those still
        // open are applied (each propagates).
        match translation.candidate.domain(&action.instance()) {
            Some(Domain::Enum(mask)) if mask == action.values => continue,
            _ => {}
        }
        if Instant::now() > deadline {
            translation.untranslated.push(format!(
                "stopped after {} s with {} of {} relations considered: the others are left to the search",
                APPLY_TIME.as_secs(),
                done,
                actions.len()
            ));
            break;
        }
        let action = action.clone();
        let mut next = translation.candidate.clone();
        match next.apply(&action) {
            Ok(()) => {
                translation.candidate = next;
                translation.taken.push(action);
            }
            Err(_) if refused.len() >= SHOWN => hidden += 1,
            Err(dead_end) => {
                refused.push(refusal(host, &names, root, &translation, &action, dead_end))
            }
        }
    }
    translation
        .untranslated
        .extend(refused.into_iter().map(|r| format!("refused {r}")));
    if hidden > 0 {
        translation
            .untranslated
            .push(format!("{hidden} more decisions refused"));
    }
    translation.chains = groups
        .iter()
        .flatten()
        .map(|r| r.chain.iter().map(|e| e.object).collect())
        .collect();
    translation
}

/// The leaves the search starts from: Polly's schedule with the other
/// decisions as in the original program, and (with several threads) the
/// same with the outermost dimension of each statement that the
/// dependences allow run in parallel, as Polly's parallel mode would.
pub fn starts(
    host: &KernelHost,
    translation: &Translation,
    threads: usize,
) -> Result<Vec<LoopCandidate>, String> {
    let mut leaves = vec![complete_with_original(host, &translation.candidate)?];
    if threads > 1 {
        let mut parallel = translation.candidate.clone();
        let mut any = false;
        for chain in &translation.chains {
            for &dim in chain {
                let action = Action {
                    choice: dim_kind::CHOICE,
                    objects: vec![dim.0],
                    values: dim_kind::PARALLEL,
                };
                if let Some(Domain::Enum(mask)) = parallel.domain(&action.instance()) {
                    if mask == dim_kind::PARALLEL {
                        break; // Merged with a dimension already parallel.
                    }
                }
                let mut next = parallel.clone();
                if next.apply(&action).is_ok() {
                    parallel = next;
                    any = true;
                    break;
                }
            }
        }
        if any {
            let leaf = complete_with_original(host, &parallel)?;
            if leaf.decisions() != leaves[0].decisions() {
                leaves.push(leaf);
            }
        }
    }
    Ok(leaves)
}

/// The regions whose statements stand for the nest's, each with its
/// pairs (statement of the nest, statement of the region), in the nest's
/// order. A region holding at least half the nest's statements is
/// enough alone (Polly's region of the whole nest). Polly also splits a
/// nest into several regions around what it does not model (a call to
/// `sqrt`, a conditional store): such a part is matched more strictly
/// (statements writing along the same loops, arrays named consistently,
/// every statement of the region writing memory matched, over a stretch
/// of the nest no other region's statement interrupts), and the parts
/// together must hold half the nest.
fn choose_regions<'r>(
    kernel: &Kernel,
    nest: &[(usize, usize)],
    regions: &'r [PollyRegion],
    untranslated: &mut Vec<String>,
) -> Vec<(&'r PollyRegion, Vec<(usize, usize)>)> {
    let mut chosen: Vec<(&PollyRegion, Vec<(usize, usize)>)> = Vec::new();
    // The region matching best, taken alone where it holds enough.
    let closest = regions
        .iter()
        .map(|region| (region, align(nest, &region.statements, |_, _| true)))
        .filter(|(_, (score, _))| *score > 0)
        .max_by_key(|(_, (score, _))| *score);
    if let Some((region, (_, pairs))) = &closest {
        // The inside of one of the nest's loops has that loop's iterator
        // as a parameter, and its statements match those at the wrong
        // depth: alone, a region with parameters must hold the whole nest.
        let partial = pairs.len() < nest.len() && !region.parameters.is_empty();
        if 2 * pairs.len() >= nest.len() && !partial {
            chosen.push((region, pairs.clone()));
        }
    }
    // Parts of the nest, matched strictly, until none is left.
    loop {
        let taken: Vec<usize> = chosen
            .iter()
            .flat_map(|(_, pairs)| pairs.iter().map(|&(s, _)| s))
            .collect();
        let open: Vec<(usize, usize)> = nest
            .iter()
            .copied()
            .filter(|(s, _)| !taken.contains(s))
            .collect();
        let best = regions
            .iter()
            .filter(|region| !chosen.iter().any(|(c, _)| c.file == region.file))
            .map(|region| {
                let strict = |s: usize, p: usize| writes_alike(kernel, region, s, p);
                (region, align(&open, &region.statements, strict))
            })
            .filter(|(region, (score, pairs))| {
                *score > 0
                    && whole(region, pairs)
                    && consistent(kernel, region, pairs)
                    && uninterrupted(nest, pairs, &taken)
            })
            .max_by_key(|(_, (score, _))| *score);
        match best {
            Some((region, (_, pairs))) => chosen.push((region, pairs)),
            None => break,
        }
    }
    let held: usize = chosen.iter().map(|(_, pairs)| pairs.len()).sum();
    if held > 0 && 2 * held >= nest.len() {
        chosen.sort_by_key(|(_, pairs)| pairs.first().map(|&(s, _)| s));
        return chosen;
    }
    untranslated.push(match closest {
        None => "no region Polly optimized matches the nest's statements".to_string(),
        Some((region, (_, pairs))) => format!(
            "no region Polly optimized matches the nest: the closest ({}) holds {} of its {} statements",
            region.file,
            pairs.len(),
            nest.len()
        ),
    });
    Vec::new()
}

/// The loops of statement `s` its target's subscripts read (places
/// around it, outermost first); `None` for a scalar target.
fn loops_written(kernel: &Kernel, s: usize) -> Option<Vec<usize>> {
    let statement = &kernel.statements[s];
    (!statement.write.subscripts.is_empty()).then(|| {
        (0..statement.loops.len())
            .filter(|&d| statement.write.reads_loop(statement.loops[d]))
            .collect()
    })
}

/// The statement of `region` that its statement `p` is the rest of, split
/// off by Polly (`Stmt3last` of `Stmt3`).
fn base_of(region: &PollyRegion, p: usize) -> Option<usize> {
    let base = region.statements[p].name.strip_suffix("last")?;
    region.statements.iter().position(|o| o.name == base)
}

/// Whether statement `s` of the nest and Polly's `p` write alike: an
/// array element along the same loops, or no array at all.
fn writes_alike(kernel: &Kernel, region: &PollyRegion, s: usize, p: usize) -> bool {
    let polly = &region.statements[p];
    base_of(region, p).is_none()
        && match loops_written(kernel, s) {
            Some(loops) => polly.writes.iter().any(|w| !w.scalar && w.loops == loops),
            None => !polly.writes_memory(),
        }
}

/// Whether every statement of `region` writing memory is matched (or is
/// the rest of one that is), and none writes an element a parameter
/// names (the region would be the inside of a loop whose iterator that
/// parameter is).
fn whole(region: &PollyRegion, pairs: &[(usize, usize)]) -> bool {
    let matched = |q: usize| pairs.iter().any(|&(_, p)| p == q);
    let inside_a_loop = region
        .statements
        .iter()
        .any(|s| s.writes.iter().any(|w| w.parametric));
    !inside_a_loop
        && (0..region.statements.len()).all(|q| {
            matched(q)
                || !region.statements[q].writes_memory()
                || base_of(region, q).is_some_and(matched)
        })
}

/// Whether the arrays of `region` and of the nest correspond one to one
/// in `pairs` (where a Polly statement writes one array).
fn consistent(kernel: &Kernel, region: &PollyRegion, pairs: &[(usize, usize)]) -> bool {
    let mut names: Vec<(&str, &str)> = Vec::new();
    for &(s, p) in pairs {
        let mut arrays = region.statements[p]
            .writes
            .iter()
            .filter(|w| !w.scalar)
            .map(|w| w.array.as_str());
        let (Some(polly), None) = (arrays.next(), arrays.next()) else {
            continue;
        };
        let ours = kernel.statements[s].write.name.as_str();
        if names.iter().any(|&(a, b)| (a == polly) != (b == ours)) {
            return false;
        }
        names.push((polly, ours));
    }
    true
}

/// Whether no statement `taken` by another region lies between the first
/// and the last statement of the nest that `pairs` match.
fn uninterrupted(nest: &[(usize, usize)], pairs: &[(usize, usize)], taken: &[usize]) -> bool {
    let position = |s: usize| nest.iter().position(|&(t, _)| t == s);
    let (Some(first), Some(last)) = (
        pairs.first().and_then(|&(s, _)| position(s)),
        pairs.last().and_then(|&(s, _)| position(s)),
    ) else {
        return false;
    };
    !nest[first..=last].iter().any(|(s, _)| taken.contains(s))
}

/// Aligns the nest's statements (index, depth) with Polly's, in order and
/// at equal depths; a Polly statement writing several arrays may stand
/// for as many consecutive statements; `compatible(statement, index in
/// polly)` may refuse more pairs. Returns the score (statements matched,
/// those that write memory counted twice) and the pairs.
fn align(
    nest: &[(usize, usize)],
    polly: &[PollyStatement],
    compatible: impl Fn(usize, usize) -> bool,
) -> (usize, Vec<(usize, usize)>) {
    let capacity: Vec<usize> = polly.iter().map(|p| p.written_arrays().max(1)).collect();
    let most = capacity.iter().copied().max().unwrap_or(1);
    let (n, m) = (nest.len(), polly.len());
    // best[i][j][k]: the best score for nest[i..] and polly[j..], with k
    // statements already matched to polly[j].
    let index = |i: usize, j: usize, k: usize| (i * (m + 1) + j) * (most + 1) + k;
    // Matching nest[i] with polly[j], which k statements already match:
    // a first match with a statement writing memory counts most.
    let gain = |i: usize, j: usize, k: usize| {
        (i < n
            && j < m
            && nest[i].1 == polly[j].depth
            && k < capacity[j]
            && compatible(nest[i].0, j))
        .then(|| {
            if k == 0 && polly[j].writes_memory() {
                2
            } else {
                1
            }
        })
    };
    let mut best = vec![0usize; (n + 1) * (m + 1) * (most + 1)];
    for i in (0..=n).rev() {
        for j in (0..=m).rev() {
            for k in 0..=most {
                let mut value = 0;
                if i < n {
                    value = value.max(best[index(i + 1, j, k)]);
                }
                if j < m {
                    value = value.max(best[index(i, j + 1, 0)]);
                }
                if let Some(gain) = gain(i, j, k) {
                    value = value.max(gain + best[index(i + 1, j, k + 1)]);
                }
                best[index(i, j, k)] = value;
            }
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < n && j < m {
        let here = best[index(i, j, k)];
        if let Some(gain) = gain(i, j, k) {
            if here == gain + best[index(i + 1, j, k + 1)] {
                pairs.push((nest[i].0, j));
                i += 1;
                k += 1;
                continue;
            }
        }
        if here == best[index(i, j + 1, 0)] {
            j += 1;
            k = 0;
        } else {
            i += 1;
        }
    }
    (best[index(0, 0, 0)], pairs)
}

/// A statement's schedule as a chain of its dimensions, with the tile
/// sizes it implies taken on `translation`'s candidate.
fn read_statement(
    host: &KernelHost,
    root: &LoopCandidate,
    s: usize,
    polly: &PollyStatement,
    names: &Names,
    translation: &mut Translation,
) -> Option<ReadStatement> {
    let loops = &host.kernel().statements[s].loops;
    let dims = match &polly.dims {
        Ok(dims) => dims.clone(),
        Err(e) => {
            translation.untranslated.push(format!(
                "S{s} ({}): its schedule `{}` is not read: {e}",
                polly.name, polly.text
            ));
            return None;
        }
    };
    // Polly's schedules tile once: its tiles and points, never blocks.
    let dim = |depth: usize, tile: bool| {
        loops.get(depth).and_then(|&l| {
            host.dim(Dimension {
                statement: StatementId(s),
                loop_id: l,
                part: if tile { Part::Tile } else { Part::Point },
            })
        })
    };
    let mut chain = Vec::new();
    let mut sizes: Vec<Option<i64>> = vec![None; loops.len()];
    let mut whole = true;
    let mut named = Vec::new();
    for (position, schedule_dim) in dims.iter().enumerate() {
        let parts: Vec<(usize, bool, i64)> = match *schedule_dim {
            ScheduleDim::Constant(c) => {
                named.push(c.to_string());
                continue;
            }
            ScheduleDim::Loop { depth } => vec![(depth, true, 1), (depth, false, 1)],
            ScheduleDim::Tile { depth, size } => vec![(depth, true, size)],
            ScheduleDim::Point { depth, size } => vec![(depth, false, size)],
            ScheduleDim::Other(ref text) => {
                translation.untranslated.push(format!(
                    "S{s} ({}): schedule dimension {position}, `{text}`, is not a loop, a tile or a point (a skew or a shift); the dimensions inside it are left to the search",
                    polly.name
                ));
                whole = false;
                break;
            }
        };
        let repeated = parts.iter().any(|&(depth, tile, _)| {
            chain
                .iter()
                .any(|e: &Element| dim(depth, tile) == Some(e.object))
        });
        if repeated {
            translation.untranslated.push(format!(
                "S{s} ({}): schedule dimension {position}, `{schedule_dim}`, repeats a loop (a skew or a shift); the dimensions inside it are left to the search",
                polly.name
            ));
            whole = false;
            break;
        }
        let mut text = Vec::new();
        for (depth, tile, size) in parts {
            let Some(object) = dim(depth, tile) else {
                translation.untranslated.push(format!(
                    "S{s} ({}): Polly's loop {depth} is not one of its {} loops",
                    polly.name,
                    loops.len()
                ));
                return None;
            };
            if sizes[depth].is_some_and(|known| known != size) {
                translation.untranslated.push(format!(
                    "S{s} ({}): loop {depth} is tiled by two sizes",
                    polly.name
                ));
                return None;
            }
            sizes[depth] = Some(size);
            chain.push(Element {
                object,
                rank: (position, u8::from(!tile)),
            });
            text.push(names.object(object.0));
        }
        named.push(match *schedule_dim {
            ScheduleDim::Tile { size, .. } => format!("{}({size})", text.join("")),
            _ => text.join(" "),
        });
    }
    for (depth, size) in sizes.iter().enumerate() {
        match size {
            Some(size) if whole => {
                take_tile_size(host, root, s, dim(depth, false), *size, names, translation)
            }
            Some(_) => {}
            None if whole => translation.untranslated.push(format!(
                "S{s} ({}): its loop {depth} is not in Polly's schedule",
                polly.name
            )),
            None => {}
        }
    }
    translation.statements.push(MappedStatement {
        statement: s,
        polly: polly.name.clone(),
        text: polly.text.clone(),
        named: named.join(", "),
    });
    Some(ReadStatement {
        statement: s,
        chain,
        whole,
        dims,
    })
}

/// `tile_size(point) = size`, or a line saying why not.
fn take_tile_size(
    host: &KernelHost,
    root: &LoopCandidate,
    s: usize,
    point: Option<StatementsId>,
    size: i64,
    names: &Names,
    translation: &mut Translation,
) {
    let Some(point) = point else { return };
    let instance = InstanceId {
        choice: tile_size::CHOICE,
        objects: vec![point.0],
    };
    let Some(Domain::Integer { universe, .. }) = translation.candidate.domain(&instance) else {
        return;
    };
    let Some(bit) = universe.iter().position(|&v| v == size) else {
        translation.untranslated.push(format!(
            "S{s}: tile size {size} of {} is not one the space offers ({universe:?})",
            names.object(point.0)
        ));
        return;
    };
    let action = Action {
        choice: tile_size::CHOICE,
        objects: vec![point.0],
        values: 1 << bit,
    };
    let mut next = translation.candidate.clone();
    match next.apply(&action) {
        Ok(()) => {
            translation.candidate = next;
            translation.taken.push(action);
        }
        Err(dead_end) => {
            let refused = refusal(host, names, root, translation, &action, dead_end);
            translation.untranslated.push(format!("refused {refused}"));
        }
    }
}

/// Refused decisions listed in the translation's notes (the others are
/// counted).
const SHOWN: usize = 8;

/// `action` and why it is refused after the translation's decisions, the
/// reason as `root`'s explanations give it where it keeps them.
fn refusal(
    host: &KernelHost,
    names: &Names,
    root: &LoopCandidate,
    translation: &Translation,
    action: &Action,
    dead_end: DeadEnd,
) -> String {
    let dead_end = replayed_dead_end(root, &translation.taken, action).unwrap_or(dead_end);
    format!(
        "{}: {}",
        names.describe(&translation.candidate, action),
        names.dead_end(host, &dead_end)
    )
}

/// The `order` decisions the chains imply, the telling ones first:
/// fusions, then the order of statements, then nesting. Statements relate
/// to those of their group (their region) only.
fn relations(groups: &[Vec<ReadStatement>], untranslated: &mut Vec<String>) -> Vec<Action> {
    let mut merged = Vec::new();
    let mut statements = Vec::new();
    let mut nesting = Vec::new();
    let mut rest = Vec::new();
    for r in groups.iter().flatten() {
        for (a, x) in r.chain.iter().enumerate() {
            for y in &r.chain[a + 1..] {
                nesting.push(order_action(x.object, y.object, order::OUTER));
            }
        }
    }
    for read in groups {
        relate(read, &mut merged, &mut statements, &mut rest, untranslated);
    }
    merged
        .into_iter()
        .chain(statements)
        .chain(nesting)
        .chain(rest)
        .collect()
}

/// The relations between the statements of one group whose schedules
/// were read whole: fusions to `merged`, the order of statements to
/// `statements`, the others to `rest`.
fn relate(
    read: &[ReadStatement],
    merged: &mut Vec<Action>,
    statements: &mut Vec<Action>,
    rest: &mut Vec<Action>,
    untranslated: &mut Vec<String>,
) {
    let whole: Vec<&ReadStatement> = read.iter().filter(|r| r.whole).collect();
    for (a, s) in whole.iter().enumerate() {
        for t in &whole[a + 1..] {
            let Some((split, s_first)) = divergence(&s.dims, &t.dims) else {
                untranslated.push(format!(
                    "S{} and S{}: their schedules do not read as one loop tree; their relative order is left to the search",
                    s.statement, t.statement
                ));
                continue;
            };
            let sequence = if s_first { order::BEFORE } else { order::AFTER };
            statements.push(order_action(
                StatementsId(s.statement as u32),
                StatementsId(t.statement as u32),
                sequence,
            ));
            for x in &s.chain {
                let outside_x = x.rank.0 < split;
                for y in &t.chain {
                    let outside_y = y.rank.0 < split;
                    let value = match (outside_x, outside_y) {
                        (true, true) if x.rank == y.rank => order::MERGED,
                        (true, true) if x.rank < y.rank => order::OUTER,
                        (true, true) => order::INNER,
                        (true, false) => order::OUTER,
                        (false, true) => order::INNER,
                        (false, false) => sequence,
                    };
                    let action = order_action(x.object, y.object, value);
                    if value == order::MERGED {
                        merged.push(action);
                    } else {
                        rest.push(action);
                    }
                }
                let statement = StatementsId(t.statement as u32);
                rest.push(order_action(
                    x.object,
                    statement,
                    if outside_x { order::OUTER } else { sequence },
                ));
            }
            for y in &t.chain {
                let statement = StatementsId(s.statement as u32);
                let value = if y.rank.0 < split {
                    order::INNER
                } else {
                    sequence
                };
                rest.push(order_action(statement, y.object, value));
            }
        }
    }
}

/// Where two statements' schedules part: the first dimension where their
/// constants differ, and whether the first statement comes first there
/// (statements never parted keep their textual order). `None` when one
/// has a loop where the other has a constant, or their loops differ in
/// kind or size there: that is not a loop tree.
fn divergence(s: &[ScheduleDim], t: &[ScheduleDim]) -> Option<(usize, bool)> {
    let padding = ScheduleDim::Constant(0);
    for p in 0..s.len().max(t.len()) {
        let (a, b) = (s.get(p).unwrap_or(&padding), t.get(p).unwrap_or(&padding));
        match (a, b) {
            (ScheduleDim::Constant(x), ScheduleDim::Constant(y)) if x == y => {}
            (ScheduleDim::Constant(x), ScheduleDim::Constant(y)) => return Some((p, x < y)),
            (ScheduleDim::Loop { .. }, ScheduleDim::Loop { .. }) => {}
            (ScheduleDim::Tile { size: x, .. }, ScheduleDim::Tile { size: y, .. })
            | (ScheduleDim::Point { size: x, .. }, ScheduleDim::Point { size: y, .. })
                if x == y => {}
            _ => return None,
        }
    }
    Some((s.len().max(t.len()), true))
}

/// `order(a, b) = value`, with its objects in the order the space
/// stores them (antisymmetric values swapped).
fn order_action(a: StatementsId, b: StatementsId, value: u64) -> Action {
    let (objects, value) = if a.0 < b.0 {
        (vec![a.0, b.0], value)
    } else {
        let swapped = match value {
            order::BEFORE => order::AFTER,
            order::AFTER => order::BEFORE,
            order::INNER => order::OUTER,
            order::OUTER => order::INNER,
            other => other,
        };
        (vec![b.0, a.0], swapped)
    };
    Action {
        choice: order::CHOICE,
        objects,
        values: value,
    }
}
