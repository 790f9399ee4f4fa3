//! Counting leaves by components and memoized counts
//! (`commute_runtime::count`) gives the number of leaves a depth-first
//! enumeration reaches, on random backbones of every bundled space.

use commute_runtime::count::count_leaves;
use commute_runtime::explore::enumerate;
use commute_runtime::testing::RandomBackbone;
use commute_runtime::Candidate;

#[test]
fn counts_equal_enumerations_on_random_backbones() {
    let mut compared = 0;
    for (name, model) in commute_spaces::models() {
        for size in [1u32, 2, 3, 4] {
            for seed in 0..6 {
                let Ok(root) = Candidate::new(RandomBackbone::new(model, seed, size)) else {
                    continue;
                };
                let listed = enumerate(&root, model.default_priority, 20_000);
                if listed.truncated {
                    continue;
                }
                let counted = count_leaves(&root, model.default_priority);
                assert_eq!(
                    counted.leaves,
                    listed.leaves.len() as u128,
                    "{name}, size {size}, seed {seed}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "only {compared} backbones compared");
}
