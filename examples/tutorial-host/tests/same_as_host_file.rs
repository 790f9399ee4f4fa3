//! The Rust host and the host file describe the same kernel: the space
//! has as many leaves on either, and the same ones.

use commute_runtime::count::count_leaves;
use commute_runtime::explore::enumerate;
use commute_runtime::Candidate;
use commute_tutorial_host::{tune, Kernel};

#[test]
fn the_rust_host_and_the_host_file_give_the_same_leaves() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let model = commute_codegen::load_in(&dir, "docs/tutorial/tune.space").expect("loads");
    let host = commute_hostfile::read_file(model, &dir.join("docs/tutorial/host.toml"))
        .expect("the host file reads");
    let from_file = Candidate::new(host).expect("lays out");
    let from_rust = Candidate::new(tune::Backbone(Kernel::tutorial())).expect("lays out");
    let rust_count = count_leaves(&from_rust, tune::MODEL.default_priority).leaves;
    assert_eq!(rust_count, 142);
    assert_eq!(
        count_leaves(&from_file, model.default_priority).leaves,
        rust_count
    );
    let words = |leaves: Vec<Vec<u64>>| leaves;
    let file_leaves = words(
        enumerate(&from_file, model.default_priority, 1000)
            .leaves
            .iter()
            .map(|l| l.decisions().words)
            .collect(),
    );
    let rust_leaves: Vec<Vec<u64>> = enumerate(&from_rust, tune::MODEL.default_priority, 1000)
        .leaves
        .iter()
        .map(|l| l.decisions().words)
        .collect();
    assert_eq!(file_leaves, rust_leaves);
}
