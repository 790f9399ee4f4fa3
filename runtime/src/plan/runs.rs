//! Runs: for enum choices of a few values, the visits a change runs per
//! domain of the changed instance, in order, the commonest slot-plan
//! shapes compiled to steps that read the entries of the propagator's row
//! tables, each with a quiet check that passes over it when it can
//! neither fail nor enforce. Reads the tables, the visits and their slot
//! plans, and the row table indices.

use super::row_index::{self, ROW_ORS_VALUES};
use super::slots::{PairRow, SlotLiteral, SlotPlan};
use super::visits::Visit;
use crate::model::*;
use crate::tables::Tables;
use crate::values::is_single;

/// Per domain of a changed instance (the mask as an index), the visits
/// it runs, in order.
pub(crate) type Runs = Vec<Run>;

/// The visits a change runs for one domain of the changed instance.
#[derive(Debug)]
pub(crate) struct Run {
    pub steps: Vec<Step>,
    /// How the propagator tells whether a step can be passed over (see
    /// [`Quiet`]): `[0]` while the changed instance has the run's domain,
    /// `[1]` once a unit narrowed it (the rows steps that read that domain
    /// are then never passed over).
    pub quiet: [Quiets; 2],
}

/// The [`Quiet`] checks of a run's steps.
#[derive(Debug)]
pub(crate) struct Quiets {
    /// Per step.
    pub all: Vec<Quiet>,
    /// Those left when each check equal to an earlier one is taken out
    /// (the mirrored visits of a rule read the same rows), with their
    /// steps. A pass from a step may read these when every check taken
    /// out past that step has its earlier equal there too: read in the
    /// same tables, a check equal to one found quiet is quiet.
    pub distinct: Vec<Quiet>,
    pub distinct_steps: Vec<u16>,
    /// Per step (and the run's end): the first of `distinct` at or past
    /// it, or `u16::MAX` where a pass from there reads `all` (empty when
    /// no check is taken out).
    pub from: Vec<u16>,
}

impl Quiets {
    fn new(all: Vec<Quiet>) -> Quiets {
        let n = all.len();
        // Per check, the nearest earlier one equal to it (never quiet
        // checks are kept: a pass stops at them anyway).
        let earlier: Vec<Option<usize>> = (0..n)
            .map(|j| {
                let check = all[j];
                (check != Quiet::NOISY && n < u16::MAX as usize)
                    .then(|| (0..j).rev().find(|&i| all[i] == check))
                    .flatten()
            })
            .collect();
        if earlier.iter().all(Option::is_none) {
            // Nothing to take out: every pass reads `all`.
            return Quiets {
                all,
                distinct: Vec::new(),
                distinct_steps: Vec::new(),
                from: Vec::new(),
            };
        }
        let distinct_steps: Vec<u16> = (0..n)
            .filter(|&j| earlier[j].is_none())
            .map(|j| j as u16)
            .collect();
        let distinct = distinct_steps.iter().map(|&j| all[j as usize]).collect();
        // From the end: whether every check taken out at or past a step has
        // its earlier equal there too.
        let mut usable = vec![true; n + 1];
        let mut lowest = usize::MAX;
        for f in (0..n).rev() {
            if let Some(i) = earlier[f] {
                lowest = lowest.min(i);
            }
            usable[f] = lowest >= f;
        }
        let mut first = 0u16;
        let from = (0..=n)
            .map(|f| {
                let at = if usable[f] { first } else { u16::MAX };
                if earlier.get(f).is_some_and(Option::is_none) {
                    first += 1;
                }
                at
            })
            .collect();
        Quiets {
            all,
            distinct,
            distinct_steps,
            from,
        }
    }
}

/// Whether a step of a run neither fails nor has a unit, read from the
/// row tables without going through the step (the propagator's
/// `RowOrs::first_noisy`): the step is quiet when no position is in both
/// `open` ORs without being in both `can` ORs. Pair steps and rows steps
/// with at most two literals besides one false everywhere are read so: a
/// position is open where the step's valid mask has it and neither
/// literal is certainly true, and each literal can hold where its `can`
/// OR has it.
/// Two ORs stand for those three: where a literal is never true
/// ([`row_index::NONE`]) the valid mask takes its place, and where the two
/// literals read different tables the valid mask is left out, since
/// it changes nothing: a row has no instance at its own position, and
/// none past the set's objects, so the row of the changed instance's
/// low object never has the low position, nor its high row the high
/// one. Other steps are never quiet here ([`Quiet::NOISY`]), the
/// propagator reading them itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Quiet {
    pub open: [u8; 2],
    pub can: [u8; 2],
}

impl Quiet {
    /// Never quiet: open everywhere, can hold nowhere.
    const NOISY: Quiet = Quiet {
        open: [row_index::NONE; 2],
        can: [row_index::EMPTY; 2],
    };

    /// How `step` is read when the changed instance's domain `moved`
    /// (see [`Run::quiet`]).
    fn of(step: &Step, moved: bool) -> Quiet {
        // The step's literals as (where it is not certainly true, where it
        // can hold), and its valid mask.
        let (literals, excluded) = match *step {
            Step::Pair {
                excluded,
                rows: [a, b],
                ..
            } => ([(a.outside, a.inside), (b.outside, b.inside)], excluded),
            Step::Rows {
                excluded,
                reads_domain,
                reads,
                ..
            } if !(reads_domain && moved) => {
                // A literal false everywhere changes nothing: the step is a
                // pair of the two others.
                let Some(k) = reads.iter().position(|read| *read == RowRead::FALSE) else {
                    return Quiet::NOISY;
                };
                let [a, b] = match k {
                    0 => [reads[1], reads[2]],
                    1 => [reads[0], reads[2]],
                    _ => [reads[0], reads[1]],
                };
                ([(a.holds, a.fails), (b.holds, b.fails)], excluded)
            }
            _ => return Quiet::NOISY,
        };
        let [(a, a_can), (b, b_can)] = literals;
        let valid = row_index::VALID + (excluded & 3);
        let table = |index: u8| (index < row_index::VALID).then_some(index >> ROW_ORS_VALUES);
        let open = if a == row_index::NONE {
            [valid, b]
        } else if b == row_index::NONE {
            [valid, a]
        } else if matches!((table(a), table(b)), (Some(x), Some(y)) if x != y) {
            [a, b]
        } else {
            return Quiet::NOISY;
        };
        Quiet {
            open,
            can: [a_can, b_can],
        }
    }
}

/// One visit of a run: a visit of the choice in one orientation, its
/// commonest shape (a slot plan with a pair, see [`SlotPlan::pair`])
/// compiled down to what its filter reads, so that the propagator's loop
/// over a run does not go through the visit unless a position is unit or
/// fails.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    Visit {
        index: u16,
        orientation: u8,
    },
    /// A visit whose slot plan has a pair.
    Pair {
        index: u16,
        orientation: u8,
        /// Which positions of the changed instance are taken out of the
        /// free variable's, in storage order (bit 0: the low position),
        /// as an index of the change's valid masks.
        excluded: u8,
        rows: [PairStep; 2],
    },
    /// A visit with a slot plan whose literals are its own `is` literal,
    /// `is` literals over rows of the changed choice and `==` literals
    /// with the changed instance (`reads`, then literals false
    /// everywhere), compiled for the run's domain of the changed instance.
    Rows {
        index: u16,
        orientation: u8,
        /// As for [`Step::Pair`].
        excluded: u8,
        /// Whether a literal reads the changed instance's domain (an
        /// `==`): the step holds only while it is the run's domain.
        reads_domain: bool,
        reads: [RowRead; ROW_STEPS],
    },
}

/// A literal of a [`Step::Rows`], read as `Propagator::slot_status` reads
/// it, over rows of the changed choice's own planes in storage order:
/// indices of the row tables ([`row_index`]) whose complements are the
/// positions where it is certainly true and certainly false (an `==`
/// with the changed instance read with the run's domain;
/// [`row_index::NONE`] and [`row_index::EMPTY`] for nowhere and
/// everywhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowRead {
    pub holds: u8,
    pub fails: u8,
}

impl RowRead {
    /// A literal false at every position (the visit's own, or none).
    pub const FALSE: RowRead = RowRead {
        holds: row_index::NONE,
        fails: row_index::EMPTY,
    };
}

/// Literals at most of a [`Step::Rows`].
pub(crate) const ROW_STEPS: usize = 3;

/// A [`PairRow`] read in storage order, as indices of the row tables
/// ([`row_index`]) whose table 0 is the changed instance's low row and
/// table 1 its high row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairStep {
    pub inside: u8,
    pub outside: u8,
}

/// Enum choices of at most this many values list their visits per
/// domain (see [`runs`]).
const RUN_VALUES: usize = 6;

/// For an enum choice of at most [`RUN_VALUES`] values read in one
/// orientation, or stored as a triangle (read in both, the second through
/// the inverse): per domain of a changed instance, the visits that are not
/// skipped, in the propagator's order, each with its orientation (an `is`
/// literal that the domain does not make false is skipped).
pub(super) fn runs(tables: &Tables, visits: &[Vec<Visit>]) -> Vec<Option<Runs>> {
    let model = tables.model;
    (0..model.choices.len())
        .map(|choice| {
            let def = &model.choices[choice];
            let ChoiceKind::Enum { values } = def.kind else {
                return None;
            };
            let symmetric = def.symmetry != Symmetry::None && def.params.len() == 2;
            if values.len() > RUN_VALUES || (symmetric && !tables.shapes[choice].triangle) {
                return None;
            }
            let visits = &visits[choice];
            let runs = (0..1u64 << values.len())
                .map(|mask| {
                    let masks = [mask, tables.map_inverse(choice as u16, mask)];
                    let orientations = if symmetric { 2 } else { 1 };
                    let mut run = Vec::new();
                    for (index, visit) in visits.iter().enumerate() {
                        for (orientation, mask) in masks.iter().enumerate().take(orientations) {
                            if visit.is_values.is_some_and(|values| mask & values != 0) {
                                continue;
                            }
                            run.push(step(
                                tables,
                                choice,
                                visit,
                                masks[0],
                                index as u16,
                                orientation as u8,
                            ));
                        }
                    }
                    let quiet = [false, true].map(|moved| {
                        Quiets::new(run.iter().map(|step| Quiet::of(step, moved)).collect())
                    });
                    Run { steps: run, quiet }
                })
                .collect();
            Some(runs)
        })
        .collect()
}

/// The step of a run for `visit` in `orientation` (1: the changed
/// instance's objects read in reverse), for the changed instance's domain
/// `mask`.
fn step(
    tables: &Tables,
    choice: usize,
    visit: &Visit,
    mask: u64,
    index: u16,
    orientation: u8,
) -> Step {
    let Some(slots) = visit.slots.as_ref().filter(|_| visit.plan.is_some()) else {
        return Step::Visit { index, orientation };
    };
    // Slot `i` of the visit is the instance's object `i ^ orientation` in
    // storage order.
    let flip = |bit: u8| (bit ^ orientation) & 1;
    let excluded = (0..2u8)
        .filter(|&i| slots.excluded & (1 << i) != 0)
        .fold(0u8, |m, i| m | 1 << flip(i));
    let Some(pair) = &slots.pair else {
        return rows_step(
            tables,
            choice,
            visit,
            slots,
            mask,
            index,
            orientation,
            excluded,
        )
        .unwrap_or(Step::Visit { index, orientation });
    };
    let row = |row: &PairRow| {
        let table = flip(row.slot) as usize;
        PairStep {
            inside: row_index::index(table, row.inside) as u8,
            outside: row_index::index(table, row.outside) as u8,
        }
    };
    Step::Pair {
        index,
        orientation,
        excluded,
        rows: [row(&pair[0]), row(&pair[1])],
    }
}

/// The [`Step::Rows`] of a visit with slot plan `slots`, if every literal
/// can be read so (see [`RowRead`]), for the changed instance's domain
/// `mask`.
#[allow(clippy::too_many_arguments)]
fn rows_step(
    tables: &Tables,
    choice: usize,
    visit: &Visit,
    slots: &SlotPlan,
    mask: u64,
    index: u16,
    orientation: u8,
    excluded: u8,
) -> Option<Step> {
    let own = tables.shapes[choice].planes?;
    if own.values > ROW_ORS_VALUES || slots.literals.len() > ROW_STEPS {
        return None;
    }
    let flip = |bit: u8| (bit ^ orientation) & 1;
    let all = (1usize << own.values) - 1;
    // Where the sets of values `inside` and its complement are met.
    let ors = |table: u8, inside: usize| {
        (
            row_index::index(table as usize, inside) as u8,
            row_index::index(table as usize, all & !inside) as u8,
        )
    };
    let mut reads = [RowRead::FALSE; ROW_STEPS];
    let mut reads_domain = false;
    for (i, literal) in slots.literals.iter().enumerate() {
        reads[i] = match literal {
            SlotLiteral::Constant if visit.known_false == Some(i) => RowRead::FALSE,
            SlotLiteral::Is {
                slot,
                planes,
                stored,
            } if planes.base == own.base => {
                let (has_in, has_out) = ors(flip(*slot), *stored as usize & all);
                RowRead {
                    holds: has_out,
                    fails: has_in,
                }
            }
            SlotLiteral::Same {
                fixed_slots,
                slot,
                planes,
                inverse,
                equal,
                ..
            } if planes.base == own.base => {
                // The changed instance, read in the order of the slots (its
                // first object is the instance's high one when flipped).
                reads_domain = true;
                let m = if flip(fixed_slots[0]) == 1 {
                    tables.map_inverse(choice as u16, mask)
                } else {
                    mask
                };
                let stored = if *inverse {
                    tables.map_inverse(choice as u16, m)
                } else {
                    m
                };
                let (has_in, has_out) = ors(flip(*slot), stored as usize & all);
                // Equal: certain when both are the same single value;
                // impossible when they share no value.
                let same = if is_single(m) {
                    has_out
                } else {
                    row_index::NONE
                };
                if *equal {
                    RowRead {
                        holds: same,
                        fails: has_in,
                    }
                } else {
                    RowRead {
                        holds: has_in,
                        fails: same,
                    }
                }
            }
            _ => return None,
        };
    }
    Some(Step::Rows {
        index,
        orientation,
        excluded,
        reads_domain,
        reads,
    })
}
