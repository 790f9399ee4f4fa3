//! Code generation speed: `commute_codegen::generate` on the largest
//! bundled space (the one whose generated code is longest).
//! Run with `cargo bench --bench codegen`.

use std::path::PathBuf;

use commute_dsl::Compilation;

fn main() {
    divan::main();
}

fn bundled_spaces() -> Vec<PathBuf> {
    commute_spaces::bundled_space_files()
}

/// The compilation of the bundled space with the most generated code.
fn largest_space() -> Compilation {
    bundled_spaces()
        .into_iter()
        .map(commute_dsl::compile)
        .max_by_key(|c| commute_codegen::generate(c).map_or(0, |code| code.len()))
        .expect("bundled spaces")
}

/// Generate and format the code of an already checked space.
#[divan::bench]
fn generate_largest_space(bencher: divan::Bencher) {
    let compilation = largest_space();
    bencher.bench(|| {
        commute_codegen::generate(divan::black_box(&compilation))
            .expect("generates")
            .len()
    });
}

/// Read, check and generate the same space: what a build script pays.
#[divan::bench]
fn check_and_generate_largest_space(bencher: divan::Bencher) {
    let path = PathBuf::from(largest_space().sources.name(0));
    bencher.bench(|| {
        let compilation = commute_dsl::compile(divan::black_box(&path));
        commute_codegen::generate(&compilation)
            .expect("generates")
            .len()
    });
}
