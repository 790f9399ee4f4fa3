//! Decisions fixed by a person before a search: read against the space,
//! applied with propagation, and refused with the decision and the
//! constraint named.

use commute_runtime::fix::{apply_fixes, parse_fix};
use commute_runtime::{Candidate, Domain, InstanceId};
use commute_spaces::corpus::integers;
use commute_spaces::paper::ordering::{order, Backbone, Chain};

fn root(n: u32) -> Candidate<Backbone<Chain>> {
    Candidate::new_explained(Backbone(Chain(n))).expect("non-empty")
}

fn fixes(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn fixed_decisions_are_applied_with_propagation() {
    let mut candidate = root(3);
    let actions = apply_fixes(
        &mut candidate,
        &fixes(&["order(0, 1) = BEFORE", "order(1,2)=BEFORE | INNER"]),
    )
    .expect("consistent");
    assert_eq!(actions[1].values, order::BEFORE | order::INNER);
    assert_eq!(
        candidate.domain(&InstanceId {
            choice: order::CHOICE,
            objects: vec![0, 2]
        }),
        Some(Domain::Enum(order::BEFORE | order::INNER)),
        "0 before 1, 1 before or inside 2: 0 is before 2 or inside it"
    );
}

#[test]
fn a_conflicting_fix_names_the_decision_and_the_constraint() {
    let mut candidate = root(3);
    let error = apply_fixes(
        &mut candidate,
        &fixes(&[
            "order(0, 1) = BEFORE",
            "order(1, 2) = BEFORE",
            "order(0, 2) = AFTER",
        ]),
    )
    .expect_err("conflict");
    let text = error.to_string();
    assert!(
        text.starts_with(
            "cannot fix `order(0, 2) = AFTER`: order(0, 2) can only be BEFORE now: constraint "
        ),
        "{text}"
    );
    assert!(text.contains("listing07_ordering.space:"), "{text}");
}

#[test]
fn unreadable_fixes_say_what_is_wrong() {
    let candidate = root(3);
    let message = |text: &str| {
        parse_fix(&candidate, text)
            .expect_err("refused")
            .to_string()
    };
    assert!(message("order(0, 1)").contains("expected `choice(objects) = VALUE`"));
    assert!(message("ordre(0, 1) = BEFORE")
        .contains("no choice is named `ordre`; the choices are order"));
    assert!(message("order(0) = BEFORE").contains("takes 2 object(s), 1 given"));
    assert!(message("order(0, x) = BEFORE").contains("`x` is not an object id"));
    assert!(message("order(0, 0) = BEFORE").contains("is not an instance of this kernel"));
    assert!(message("order(0, 1) = BEFOR").contains(
        "`BEFOR` is not a value of `order`; its values are BEFORE, AFTER, INNER, OUTER, MERGED"
    ));
}

#[test]
fn integer_choices_are_fixed_by_value() {
    let backbone = commute_runtime::testing::RandomBackbone::new(&integers::MODEL, 3, 2);
    let candidate = Candidate::new(backbone).expect("non-empty");
    let instance = InstanceId {
        choice: integers::unroll::CHOICE,
        objects: vec![0],
    };
    let Some(Domain::Integer { universe, mask }) = candidate.domain(&instance) else {
        panic!("integer domain")
    };
    let value = (0..universe.len())
        .find(|i| mask & (1 << i) != 0)
        .map(|i| universe[i])
        .expect("some value");
    let action = parse_fix(&candidate, &format!("unroll(0) = {value}")).expect("readable");
    assert_eq!(action.values.count_ones(), 1);
    assert!(parse_fix(&candidate, "unroll(0) = 3")
        .expect_err("not in the universe")
        .to_string()
        .contains("is not a possible value"));
}
