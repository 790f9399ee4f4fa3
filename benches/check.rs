//! Front-end speed: reading and checking the bundled spaces.
//! Run with `cargo bench --bench check`.

use std::path::PathBuf;

fn main() {
    divan::main();
}

fn bundled_spaces() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["spaces/paper", "dsl/tests/pass"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        paths.extend(
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "space")),
        );
    }
    paths.sort();
    paths
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
