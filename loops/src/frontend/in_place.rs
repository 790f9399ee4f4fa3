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
//! reading `s` or the element's array), then updates `s op= e`
//! (reductions: `e` reads neither `s` nor the element's array; at least
//! one), and last a store directly in `L`'s body that reads `s` once, its
//! target `T` an array element of the scalar's declared type; and no
//! statement inside `L` between the first and the last touches `T`'s
//! array. The store takes one of two forms:
//!
//! - `T = f(s)`, `f` reading nothing that may alias `T`'s array: the
//!   updates become `T op= e`, the first `T = init`; the store disappears
//!   when it is `T = s`, and reads `T` instead of `s` otherwise (`C[i][j]
//!   = alpha * C[i][j]`).
//! - The sum added to the element: `T = rest + c * s` (any order of the
//!   terms, `-` for `+`, `c` optional), or `T += c * s`, where the updates
//!   are sums, `c` (factors without calls, `/` or `%`) reads nothing
//!   written in `L` or aliasing `T`'s array, and `rest` nothing written
//!   in `L` between the first and the store. The first becomes
//!   `T = rest + c * init` (`T = rest` for a zero `init`, as in
//!   `C[i][j] = beta * C[i][j]`; nothing at all when `rest` is `T`
//!   itself), the updates `T op= c * (e)`, and the store disappears:
//!   gemm written with a temporary reads as PolyBench's gemm.
//!
//! The first form keeps the order of the sum's terms (the element starts
//! at `init` and takes them one by one, as the scalar did); the second
//! does not (`rest + c * (e1 + e2)` becomes `(rest + c * e1) + c * e2`),
//! so reading with sums kept in order (`ReadOptions::sums_in_order`) leaves
//! such an accumulator a scalar.

use std::collections::HashMap;

use super::kernel::{Access, Combiner, InPlace, Kernel, LoopId, StatementId};

/// Rewrites the accumulators of `kernel` as described above; `types`
/// gives the declared type of each name (`None` when declared several
/// ways). With `sums_in_order`, only the first form: the second adds the
/// terms to the element's value one by one (each times `c`), where the
/// source adds their sum once.
pub(crate) fn accumulate_in_place(
    kernel: &mut Kernel,
    types: &HashMap<String, Option<String>>,
    sums_in_order: bool,
) {
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
            .map(|&l| plan(kernel, scalar, l, sums_in_order))
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
            removed.extend(plan.removed());
            kernel.in_place.push(InPlace {
                scalar: scalar.to_string(),
                loop_id: l,
                target: plan.target_text.clone(),
                updates: plan.updates.clone(),
            });
        }
        // Without the stores (and firsts) the statements after them move
        // up.
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
    /// The store, which reads `s`.
    store: StatementId,
    /// How the store uses the sum.
    form: StoreForm,
    /// `T`.
    target: Access,
    /// `T` as the store writes it in C.
    target_text: String,
    /// `init`'s C text.
    init: String,
}

/// How a store uses the sum (see the module documentation).
enum StoreForm {
    /// `T = f(s)`: `f`'s C text, `None` for `T = s` (the store goes).
    Value(Option<String>),
    /// `T = rest ± c * s`, or `T ±= c * s`.
    Added(Added),
}

/// The parts of a store that adds the sum to the element.
struct Added {
    /// `rest`'s C text, `None` when it is `T` alone (`T += c * s`).
    rest: Option<String>,
    /// `c`'s C text, `None` for the sum alone.
    coefficient: Option<String>,
    /// The sum is subtracted.
    negated: bool,
    /// What `rest` reads.
    rest_reads: Vec<Access>,
    /// What `c` reads.
    coefficient_reads: Vec<Access>,
}

impl Plan {
    /// The statements the rewrite leaves out: the store when the sum
    /// reaches the element by the updates alone, and the first when it
    /// would add zero to the element's own value.
    fn removed(&self) -> Vec<StatementId> {
        match &self.form {
            StoreForm::Value(Some(_)) => Vec::new(),
            StoreForm::Value(None) => vec![self.store],
            StoreForm::Added(added) if added.rest.is_none() && is_zero(&self.init) => {
                vec![self.first, self.store]
            }
            StoreForm::Added(_) => vec![self.store],
        }
    }
}

/// The rewrite of `scalar`'s accumulator in loop `l`, if its pattern holds
/// (of the first form only, with `sums_in_order`).
fn plan(kernel: &Kernel, scalar: &str, l: LoopId, sums_in_order: bool) -> Option<Plan> {
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
    // The store, reading `s` once.
    let statement = &kernel.statements[store];
    let target = statement.write.clone();
    let scalar_reads = statement.reads.iter().filter(|r| r.name == scalar).count();
    if !directly_in_l(store) || target.subscripts.is_empty() || scalar_reads != 1 {
        return None;
    }
    let aliases_target = |a: &Access| kernel.may_alias(&a.name, &target.name);
    let (target_text, form) = match assignment(&statement.code) {
        Some((target_text, value))
            if statement.update.is_none()
                && occurrences(value, scalar) == 1
                && !statement
                    .reads
                    .iter()
                    .any(|r| r.name != scalar && aliases_target(r)) =>
        {
            let value = (value != scalar).then(|| value.to_string());
            (target_text, StoreForm::Value(value))
        }
        _ if sums_in_order => return None,
        _ => {
            let (target_text, added) = added(kernel, scalar, store)?;
            // `c` reads nothing written in `L` (it is evaluated at each
            // update instead of once), `rest` nothing written between the
            // first and the store (it is evaluated at the first).
            let written = |between: Option<(usize, usize)>, reads: &[Access]| {
                inside
                    .iter()
                    .filter(|&&s| between.is_none_or(|(after, before)| s > after && s < before))
                    .any(|&s| {
                        let write = &kernel.statements[s].write;
                        reads.iter().any(|r| kernel.may_alias(&r.name, &write.name))
                    })
            };
            let sums = updates.iter().all(|&u| {
                kernel.statements[u]
                    .update
                    .as_ref()
                    .is_some_and(|u| u.combiner == Combiner::Sum)
            });
            if !sums
                || added.coefficient_reads.iter().any(aliases_target)
                || written(None, &added.coefficient_reads)
                || written(Some((first, store)), &added.rest_reads)
            {
                return None;
            }
            (target_text, StoreForm::Added(added))
        }
    };
    // `s op= e`, reductions of the scalar.
    let updates_hold = updates.iter().all(|&s| {
        let statement = &kernel.statements[s];
        statement.write.name == scalar
            && statement.write.subscripts.is_empty()
            && kernel.reduction(StatementId(s)).is_some()
            && statement
                .reads
                .iter()
                .all(|r| r.name == scalar || !aliases_target(r))
    });
    // Nothing else between the first and the store touches `T`'s array.
    let untouched = inside
        .iter()
        .copied()
        .filter(|&s| s > first && s < store && !updates.contains(&s))
        .all(|s| {
            let statement = &kernel.statements[s];
            !std::iter::once(&statement.write)
                .chain(&statement.reads)
                .any(aliases_target)
        });
    let init_reads_target = kernel.statements[first].reads.iter().any(aliases_target);
    (updates_hold && untouched && !init_reads_target).then(|| Plan {
        first: StatementId(first),
        updates: updates.iter().map(|&s| StatementId(s)).collect(),
        store: StatementId(store),
        form,
        target,
        target_text: target_text.to_string(),
        init,
    })
}

/// A store that adds `scalar` (once, maybe times a coefficient) to what
/// its other terms give: `T = rest ± c * s` or `T ±= c * s`; its target's
/// C text and parts.
fn added<'a>(kernel: &'a Kernel, scalar: &str, store: usize) -> Option<(&'a str, Added)> {
    let statement = &kernel.statements[store];
    let (target_text, mut terms) = match assignment(&statement.code) {
        Some((target_text, value)) => (target_text, signed_terms(value)?),
        None => {
            let (target_text, negated, value) = compound_sum(&statement.code)?;
            let mut terms = vec![(false, target_text.to_string())];
            terms.extend(
                signed_terms(value)?
                    .into_iter()
                    .map(|(minus, term)| (minus != negated, term)),
            );
            (target_text, terms)
        }
    };
    let at = terms
        .iter()
        .position(|(_, term)| occurrences(term, scalar) == 1)?;
    let (negated, term) = terms.remove(at);
    if term.contains(['/', '%']) {
        return None;
    }
    let mut factors = top_level_split(&term, &['*'])?;
    let at = factors
        .iter()
        .position(|(_, factor)| unparenthesized(factor) == scalar)?;
    factors.remove(at);
    let coefficient = (!factors.is_empty()).then(|| {
        factors
            .iter()
            .map(|(_, f)| f.trim())
            .collect::<Vec<_>>()
            .join(" * ")
    });
    let rest = match terms.as_slice() {
        [(false, only)] if only.trim() == target_text => None,
        // `T = c * s` alone is the other form, unless `c` reads `T`.
        [] => return None,
        _ => Some(joined_terms(&terms)),
    };
    if [&rest, &coefficient]
        .into_iter()
        .flatten()
        .any(|text| has_call(text) || occurrences(text, scalar) > 0)
    {
        return None;
    }
    let reads_in = |text: &Option<String>| -> Vec<Access> {
        let Some(text) = text else {
            return Vec::new();
        };
        statement
            .reads
            .iter()
            .filter(|r| r.name != scalar && occurrences(text, &r.name) > 0)
            .cloned()
            .collect()
    };
    let added = Added {
        rest_reads: reads_in(&rest),
        coefficient_reads: reads_in(&coefficient),
        rest,
        coefficient,
        negated,
    };
    Some((target_text, added))
}

/// Rewrites the statements `plan` names (those it removes stay, for the
/// caller to remove).
fn apply(kernel: &mut Kernel, scalar: &str, plan: &Plan) {
    let target = plan.target.clone();
    let text = plan.target_text.as_str();
    let coefficient = match &plan.form {
        StoreForm::Added(added) => added.coefficient.as_deref(),
        StoreForm::Value(_) => None,
    };
    let scaled = |operand: &str| match coefficient {
        Some(c) => format!("{c} * ({operand})"),
        None => operand.to_string(),
    };
    let first = &mut kernel.statements[plan.first.0];
    first.write = target.clone();
    first.code = match &plan.form {
        StoreForm::Value(_) => format!("{text} = {};", plan.init),
        StoreForm::Added(added) => {
            let sign = if added.negated { "-" } else { "+" };
            if added.rest.is_none() {
                // Reads the element: its old value stays in the sum.
                first.reads.push(target.clone());
            }
            let rest = added.rest.as_deref().unwrap_or(text);
            first.reads.extend(added.rest_reads.iter().cloned());
            if is_zero(&plan.init) {
                format!("{text} = {rest};")
            } else {
                first.reads.extend(added.coefficient_reads.iter().cloned());
                format!("{text} = {rest} {sign} {};", scaled(&plan.init))
            }
        }
    };
    for &s in &plan.updates {
        let statement = &mut kernel.statements[s.0];
        let Some(mut update) = statement.update.clone() else {
            continue;
        };
        statement.write = target.clone();
        statement.reads = std::iter::once(target.clone())
            .chain(statement.reads.iter().filter(|r| r.name != scalar).cloned())
            .collect();
        if let StoreForm::Added(added) = &plan.form {
            update.negated ^= added.negated;
            update.operand = scaled(&update.operand);
            statement
                .reads
                .extend(added.coefficient_reads.iter().cloned());
        }
        statement.code = update.applied_to(text);
        statement.update = Some(update);
    }
    if let StoreForm::Value(Some(value)) = &plan.form {
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

/// `left += right;` or `left -= right;`: the target's text, whether it
/// subtracts, and the operand's text.
fn compound_sum(code: &str) -> Option<(&str, bool, &str)> {
    let code = code.trim().strip_suffix(';')?;
    let at = code.find('=')?;
    let (left, right) = (&code[..at], &code[at + 1..]);
    let negated = match left.trim_end().chars().next_back()? {
        '+' => false,
        '-' => true,
        _ => return None,
    };
    let left = left.trim_end();
    Some((left[..left.len() - 1].trim(), negated, right.trim()))
}

/// `text` split at the top-level (outside brackets) characters of
/// `separators`: each piece with the separator before it (`None` for
/// the first). `None` when brackets do not balance.
fn top_level_split(text: &str, separators: &[char]) -> Option<Vec<(Option<char>, String)>> {
    let mut pieces = vec![(None, String::new())];
    let mut depth = 0usize;
    let mut previous: Option<char> = None;
    for c in text.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        // Binary only: not a sign after an operator or an exponent's.
        let binary = previous
            .is_some_and(|p| !matches!(p, '(' | '[' | '*' | '/' | '%' | '+' | '-' | '=' | ','))
            && !exponent_sign(&pieces.last()?.1, c);
        if depth == 0 && separators.contains(&c) && binary {
            pieces.push((Some(c), String::new()));
        } else {
            pieces.last_mut()?.1.push(c);
        }
        if !c.is_whitespace() {
            previous = Some(c);
        }
    }
    (depth == 0).then_some(pieces)
}

/// Whether `c` is the sign of an exponent that `before` ends with
/// (`1e-6`): its last word is a number ending in `e`.
fn exponent_sign(before: &str, c: char) -> bool {
    let word = before
        .trim_end()
        .rsplit(|c: char| !(identifier_char(c) || c == '.'))
        .next()
        .unwrap_or("");
    matches!(c, '+' | '-')
        && word.starts_with(|d: char| d.is_ascii_digit() || d == '.')
        && word.ends_with(['e', 'E'])
}

/// A sum's terms, each with whether it is subtracted (a leading `-`
/// included).
fn signed_terms(text: &str) -> Option<Vec<(bool, String)>> {
    let mut terms = Vec::new();
    for (separator, piece) in top_level_split(text, &['+', '-'])? {
        let mut negated = separator == Some('-');
        let mut piece = piece.trim();
        if separator.is_none() {
            if let Some(rest) = piece.strip_prefix('-') {
                negated = true;
                piece = rest.trim_start();
            }
        }
        if piece.is_empty() {
            return None;
        }
        terms.push((negated, piece.to_string()));
    }
    Some(terms)
}

/// Terms joined back into a sum's C text.
pub(super) fn joined_terms(terms: &[(bool, String)]) -> String {
    let mut text = String::new();
    for (at, (negated, term)) in terms.iter().enumerate() {
        match (at, negated) {
            (0, false) => {}
            (0, true) => text.push('-'),
            (_, false) => text.push_str(" + "),
            (_, true) => text.push_str(" - "),
        }
        text.push_str(term);
    }
    text
}

/// `text` trimmed, without parentheses around all of it.
fn unparenthesized(text: &str) -> &str {
    let mut text = text.trim();
    while let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        // `(a) * (b)` is not parenthesized as a whole: its inside closes
        // more than it opens.
        if top_level_split(inner, &[]).is_none() {
            break;
        }
        text = inner.trim();
    }
    text
}

/// Whether `text` calls a function (an identifier followed by `(`).
fn has_call(text: &str) -> bool {
    let mut previous_identifier = false;
    for c in text.chars() {
        if c == '(' && previous_identifier {
            return true;
        }
        if !c.is_whitespace() {
            previous_identifier = identifier_char(c);
        }
    }
    false
}

/// Whether a C constant's text is zero (`0`, `0.0`, `0.f`, `0e0`).
fn is_zero(text: &str) -> bool {
    let text = text.trim().trim_end_matches(['f', 'F', 'l', 'L']);
    text.chars()
        .all(|c| c.is_ascii_digit() || ".eE+-".contains(c))
        && text.parse::<f64>().is_ok_and(|v| v == 0.0)
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
pub(super) fn replace_identifier(text: &str, name: &str, by: &str) -> String {
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

    #[test]
    fn sums_split_into_signed_terms_and_factors() {
        let terms = |text| signed_terms(text).expect("balanced");
        assert_eq!(
            terms("beta * C[i][j-1] + alpha * s"),
            [
                (false, "beta * C[i][j-1]".into()),
                (false, "alpha * s".into())
            ]
        );
        assert_eq!(
            terms("-s + 1e-6 * x[i] - 2.5E+3*(a - b)"),
            [
                (true, "s".into()),
                (false, "1e-6 * x[i]".into()),
                (true, "2.5E+3*(a - b)".into())
            ]
        );
        assert_eq!(terms("a * -s"), [(false, "a * -s".into())]);
        assert_eq!(signed_terms("a + (b"), None);
        assert_eq!(joined_terms(&terms("-a - b + c")), "-a - b + c");
        assert_eq!(
            compound_sum("C[i][j] -= alpha * s;"),
            Some(("C[i][j]", true, "alpha * s"))
        );
        assert_eq!(compound_sum("x += s;"), Some(("x", false, "s")));
        assert_eq!(compound_sum("x = s;"), None);
        assert_eq!(compound_sum("x *= s;"), None);
        assert_eq!(unparenthesized(" ((s)) "), "s");
        assert_eq!(unparenthesized("(a) * (b)"), "(a) * (b)");
        assert!(has_call("2 * sqrt (x)") && !has_call("(a + b) * c[i]"));
        assert!(["0", "0.0", "0.f", "0e0", ".0"].into_iter().all(is_zero));
        assert!(!["1.0", "x", "0x10", ""].into_iter().any(is_zero));
    }
}
