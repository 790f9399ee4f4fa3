//! Scalar accumulators stored to one element, accumulated in that element
//! instead: `s = 0; for (k ...) s += A[i][k] * B[k][j]; C[i][j] = s;`
//! reads as `C[i][j] = 0; for (k ...) C[i][j] += A[i][k] * B[k][j];`.
//!
//! A private scalar (see `privatize.rs`) keeps its loop's iterations
//! whole: the summed loop cannot move outside the loops around it (the
//! scalar holds one sum at a time), so a product written with an
//! accumulator keeps its dot-product order, which vectorizes only with
//! reassociation and streams one operand by columns. Accumulated in the
//! element, the sum is an array reduction like any other: the space may
//! interchange it, block it and hold blocks of sums in registers (the
//! `accumulate` decision, which the original program takes for these
//! statements: one accumulator along the summed loop, as the source had).
//!
//! The rewrite applies to a private scalar `s` and each loop `L` whose
//! iterations start by assigning it, when, inside `L`, the statements
//! touching `s` are: first `s = init` directly in `L`'s body (`init` not
//! reading `s`), then updates `s op= e` (reductions: `e` reads neither `s`
//! nor the element; at least one), and last a store `T = f(s)` directly in `L`'s body
//! that reads `s` once and nothing that may alias `T`'s array, `T` an
//! array element of the scalar's declared type; and no statement inside
//! `L` between the first and the last touches `T`'s array. The updates
//! become `T op= e`, the first `T = init`; the store disappears when it
//! is `T = s`, and reads `T` instead of `s` otherwise (`C[i][j] = alpha *
//! C[i][j]`).

use std::collections::HashMap;

use super::kernel::{Access, InPlace, Kernel, LoopId, StatementId};

/// Rewrites the accumulators of `kernel` as described above; `types`
/// gives the declared type of each name (`None` when declared several
/// ways).
pub(crate) fn accumulate_in_place(kernel: &mut Kernel, types: &HashMap<String, Option<String>>) {
    let privates = kernel.private_scalars.clone();
    for private in privates {
        let scalar = private.name.as_str();
        let declared = |name: &str| types.get(name).cloned().flatten();
        let Some(scalar_type) = declared(scalar) else {
            continue;
        };
        // Every loop's pattern must hold: the scalar then disappears.
        let Some(plans) = private
            .loops
            .iter()
            .map(|&l| plan(kernel, scalar, l))
            .collect::<Option<Vec<Plan>>>()
        else {
            continue;
        };
        if plans
            .iter()
            .any(|p| declared(&p.target.name).as_ref() != Some(&scalar_type))
        {
            continue;
        }
        let mut removed = Vec::new();
        for (plan, &l) in plans.iter().zip(&private.loops) {
            apply(kernel, scalar, plan);
            if plan.store_value.is_none() {
                removed.push(plan.store);
            }
            kernel.in_place.push(InPlace {
                scalar: scalar.to_string(),
                loop_id: l,
                target: plan.target_text.clone(),
                updates: plan.updates.clone(),
            });
        }
        // Without the stores the statements after them move up.
        removed.sort_unstable_by(|a, b| b.cmp(a));
        for store in removed {
            kernel.statements.remove(store.0);
            for in_place in &mut kernel.in_place {
                for s in &mut in_place.updates {
                    if s.0 > store.0 {
                        s.0 -= 1;
                    }
                }
            }
        }
        kernel.private_scalars.retain(|p| p.name != scalar);
        kernel.locals.retain(|l| l.name != scalar);
    }
}

/// What rewriting one loop's accumulator takes.
struct Plan {
    /// `s = init`.
    first: StatementId,
    /// `s op= e`.
    updates: Vec<StatementId>,
    /// `T = f(s)`.
    store: StatementId,
    /// `f(s)`'s C text, unless the store is `T = s` (it then goes).
    store_value: Option<String>,
    /// `T`.
    target: Access,
    /// `T` as the store writes it in C.
    target_text: String,
    /// `init`'s C text.
    init: String,
}

/// The rewrite of `scalar`'s accumulator in loop `l`, if its pattern holds.
fn plan(kernel: &Kernel, scalar: &str, l: LoopId) -> Option<Plan> {
    let inside: Vec<usize> = (0..kernel.statements.len())
        .filter(|&s| kernel.statements[s].loops.contains(&l))
        .collect();
    let touching: Vec<usize> = inside
        .iter()
        .copied()
        .filter(|&s| kernel.statements[s].touches_scalar(scalar))
        .collect();
    let (&first, rest) = touching.split_first()?;
    let (&store, updates) = rest.split_last()?;
    // Not an accumulator without updates: a temporary, left as it is.
    if updates.is_empty() {
        return None;
    }
    let directly_in_l =
        |s: usize| kernel.statements[s].loops.last() == Some(&l) && plain(kernel, s);
    // `s = init`.
    let init = {
        let statement = &kernel.statements[first];
        let (left, right) = assignment(&statement.code)?;
        let reads_scalar = statement.reads.iter().any(|r| r.name == scalar);
        (directly_in_l(first) && left == scalar && !reads_scalar && statement.update.is_none())
            .then(|| right.to_string())?
    };
    // `T = f(s)`.
    let statement = &kernel.statements[store];
    let target = statement.write.clone();
    let (target_text, value) = assignment(&statement.code)?;
    let scalar_reads = statement.reads.iter().filter(|r| r.name == scalar).count();
    let other_reads_alias = statement
        .reads
        .iter()
        .any(|r| r.name != scalar && kernel.may_alias(&r.name, &target.name));
    if !directly_in_l(store)
        || target.subscripts.is_empty()
        || statement.update.is_some()
        || scalar_reads != 1
        || other_reads_alias
        || occurrences(value, scalar) != 1
    {
        return None;
    }
    // `s op= e`, reductions of the scalar.
    let updates_hold = updates.iter().all(|&s| {
        let statement = &kernel.statements[s];
        statement.write.name == scalar
            && statement.write.subscripts.is_empty()
            && kernel.reduction(StatementId(s)).is_some()
            && statement
                .reads
                .iter()
                .all(|r| r.name == scalar || !kernel.may_alias(&r.name, &target.name))
    });
    // Nothing else between the first and the store touches `T`'s array.
    let untouched = inside
        .iter()
        .copied()
        .filter(|&s| s > first && s < store && !updates.contains(&s))
        .all(|s| {
            let statement = &kernel.statements[s];
            std::iter::once(&statement.write)
                .chain(&statement.reads)
                .all(|a| !kernel.may_alias(&a.name, &target.name))
        });
    let init_reads_target = kernel.statements[first]
        .reads
        .iter()
        .any(|r| kernel.may_alias(&r.name, &target.name));
    (updates_hold && untouched && !init_reads_target).then(|| Plan {
        first: StatementId(first),
        updates: updates.iter().map(|&s| StatementId(s)).collect(),
        store: StatementId(store),
        store_value: (value != scalar).then(|| value.to_string()),
        target,
        target_text: target_text.to_string(),
        init,
    })
}

/// Rewrites the statements `plan` names.
fn apply(kernel: &mut Kernel, scalar: &str, plan: &Plan) {
    let target = plan.target.clone();
    let text = plan.target_text.as_str();
    let first = &mut kernel.statements[plan.first.0];
    first.write = target.clone();
    first.code = format!("{text} = {};", plan.init);
    for &s in &plan.updates {
        let statement = &mut kernel.statements[s.0];
        let Some(update) = statement.update.clone() else {
            continue;
        };
        statement.write = target.clone();
        statement.reads = std::iter::once(target.clone())
            .chain(statement.reads.iter().filter(|r| r.name != scalar).cloned())
            .collect();
        statement.code = update.applied_to(text);
    }
    if let Some(value) = &plan.store_value {
        let store = &mut kernel.statements[plan.store.0];
        let value = replace_identifier(value, scalar, text);
        for read in &mut store.reads {
            if read.name == scalar {
                *read = target.clone();
            }
        }
        store.code = format!("{text} = {value};");
    }
}

/// Whether statement `s` runs in every iteration of its loops: no
/// condition, affine or on values.
fn plain(kernel: &Kernel, s: usize) -> bool {
    let statement = &kernel.statements[s];
    statement.guards.is_empty() && !statement.code.trim_start().starts_with("if")
}

/// `left = right;` split into its two sides, trimmed; `None` for another
/// operator (`+=`, `==`).
fn assignment(code: &str) -> Option<(&str, &str)> {
    let code = code.trim().strip_suffix(';')?;
    let at = code.find('=')?;
    let (left, right) = (&code[..at], &code[at + 1..]);
    let compound = left.ends_with(['+', '-', '*', '/', '%', '&', '|', '^', '<', '>', '!']);
    (!compound && !right.starts_with('=')).then(|| (left.trim(), right.trim()))
}

/// Whether `c` may be part of an identifier.
fn identifier_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The places where identifier `name` stands alone in `text`.
fn positions(text: &str, name: &str) -> Vec<usize> {
    text.match_indices(name)
        .map(|(at, _)| at)
        .filter(|&at| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            !before.is_some_and(|c| identifier_char(c) || c == '.')
                && !text[..at].ends_with("->")
                && !after.is_some_and(identifier_char)
        })
        .collect()
}

fn occurrences(text: &str, name: &str) -> usize {
    positions(text, name).len()
}

/// `text` with identifier `name` replaced by `by`.
fn replace_identifier(text: &str, name: &str, by: &str) -> String {
    let mut out = String::with_capacity(text.len() + by.len());
    let mut last = 0;
    for at in positions(text, name) {
        out.push_str(&text[last..at]);
        out.push_str(by);
        last = at + name.len();
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_split_and_identifiers_replace() {
        assert_eq!(assignment("C[i][j] = s;"), Some(("C[i][j]", "s")));
        assert_eq!(assignment("s=0.0;"), Some(("s", "0.0")));
        assert_eq!(assignment("s += x;"), None);
        assert_eq!(assignment("s == x;"), None);
        assert_eq!(
            replace_identifier("alpha * s + s2 + p->s + q.s + (s)", "s", "C[i][j]"),
            "alpha * C[i][j] + s2 + p->s + q.s + (C[i][j])"
        );
        assert_eq!(occurrences("sqrt(s) * sum", "s"), 1);
    }
}
