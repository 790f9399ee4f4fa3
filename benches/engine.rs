//! The engine on the paper's ordering space (Listing 7) with a backbone of
//! 30 statements: clone, one decision with its propagation, and a full
//! random descent. Run with `cargo bench --bench engine`;
//! `commute bench` prints the same figures as rates.

use commute_runtime::descent::random_descent;
use commute_runtime::Candidate;
use commute_spaces::paper::ordering;
use rand::rngs::StdRng;
use rand::SeedableRng;

fn main() {
    divan::main();
}

fn root() -> Candidate<ordering::Backbone<ordering::Chain>> {
    Candidate::new(ordering::Backbone(ordering::Chain(30)))
        .expect("the ordering space is not empty")
}

#[divan::bench]
fn clone_candidate(bencher: divan::Bencher) {
    let root = root();
    bencher.bench(|| divan::black_box(&root).clone());
}

/// The first decision of a descent, from the root, with propagation.
#[divan::bench]
fn first_decision(bencher: divan::Bencher) {
    let root = root();
    let instance = root
        .next_open(ordering::MODEL.default_priority)
        .expect("open");
    let action = root.alternatives(&instance)[0].clone();
    bencher
        .with_inputs(|| root.clone())
        .bench_local_values(|mut candidate| {
            candidate
                .apply(&action)
                .expect("the first decision succeeds");
            candidate
        });
}

#[divan::bench(sample_count = 20)]
fn full_random_descent(bencher: divan::Bencher) {
    let root = root();
    let mut rng = StdRng::seed_from_u64(1);
    bencher.bench_local(|| {
        random_descent(&root, ordering::MODEL.default_priority, &mut rng).decisions()
    });
}

#[divan::bench(sample_count = 10)]
fn initial_propagation() -> usize {
    root().vector_words()
}
