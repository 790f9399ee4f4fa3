//! Front-end speed: reading and checking the bundled spaces.
//! Run with `cargo bench --bench check`.

use std::path::PathBuf;

fn main() {
    divan::main();
}

fn bundled_spaces() -> Vec<PathBuf> {
    commute_spaces::bundled_space_files()
}

/// Parse and check every bundled space once.
#[divan::bench]
fn check_all_bundled_spaces(bencher: divan::Bencher) {
    let spaces = bundled_spaces();
    bencher.bench(|| {
        for path in &spaces {
            let compilation = commute_dsl::compile(divan::black_box(path));
            assert!(compilation.space.is_some());
        }
    });
}

/// Parse and check a file with many syntax errors (the recovery path).
#[divan::bench]
fn check_with_syntax_errors(bencher: divan::Bencher) {
    let text =
        "set S\nchoice enum broken($s in S)\n  value A\nrequire forall $s in S: broken($s) is A\n"
            .repeat(200);
    let loader = commute_dsl::MemoryLoader::new().with("errors.space", text);
    bencher.bench(|| {
        commute_dsl::compile_with("errors.space", divan::black_box(&loader))
            .diagnostics
            .len()
    });
}
