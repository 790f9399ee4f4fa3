//! Feeds generated and mutated inputs to the parser and checker: no input
//! may panic or hang. The number of cases comes from `COMMUTE_FUZZ_CASES`
//! (CI runs a few thousand; a long run takes 100,000 or more).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use commute_dsl::{compile_with, MemoryLoader};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

/// Every space of the corpora, as (path, text): seeds for mutation and
/// targets of includes.
fn corpus() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = [
        root.join("tests/pass"),
        root.join("tests/fail"),
        root.join("tests/fail/include"),
        root.join("../spaces/paper"),
    ];
    let mut files = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "space"))
            .collect();
        paths.sort();
        for path in paths {
            if let Ok(text) = std::fs::read_to_string(&path) {
                files.push((
                    path.strip_prefix(root)
                        .map(Path::to_path_buf)
                        .unwrap_or(path),
                    text,
                ));
            }
        }
    }
    assert!(!files.is_empty(), "no corpus found");
    files
}

/// Tokens of the language and a few that are not, for insertions and soup.
const TOKENS: &[&str] = &[
    "set ",
    "subsetof ",
    "disjoint ",
    "property ",
    "choice ",
    "enum ",
    "integer ",
    "counter ",
    "half ",
    "value ",
    "alias ",
    "requires ",
    "require ",
    "antisymmetric:",
    "symmetric ",
    "end\n",
    "forall ",
    " in ",
    " is ",
    " not ",
    "sum ",
    "mul ",
    " when ",
    "trigger ",
    "quotient ",
    " of ",
    "include \"",
    "\"",
    "bool",
    "int",
    "[int]",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "->",
    "=",
    "|",
    "||",
    "&&",
    "!",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "/",
    "$a",
    "$b",
    "$",
    "A",
    "B",
    "Dims",
    "Statements",
    "order",
    "dim_kind",
    "LOOP",
    "0",
    "-1",
    "99999999999999999999999",
    "///",
    "//",
    "/*",
    "*/",
    "\n",
    " ",
    "\t",
    "é",
    "\u{0}",
    "🦀",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, token: usize },
    Duplicate { at: usize, len: usize },
    Truncate { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..40usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(at, token)| Mutation::Insert { at, token }),
        (any::<usize>(), 1..200usize).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

/// The char boundary at or before `at % (len + 1)`.
fn boundary(text: &str, at: usize) -> usize {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(text: &str, mutation: &Mutation) -> String {
    let mut text = text.to_string();
    match *mutation {
        Mutation::Delete { at, len } => {
            let start = boundary(&text, at);
            let end = boundary(&text, (start + len).min(text.len()));
            text.replace_range(start..end.max(start), "");
        }
        Mutation::Insert { at, token } => {
            let at = boundary(&text, at);
            text.insert_str(at, TOKENS[token]);
        }
        Mutation::Duplicate { at, len } => {
            let start = boundary(&text, at);
            let end = boundary(&text, (start + len).min(text.len())).max(start);
            let copy = text[start..end].to_string();
            text.insert_str(end, &copy);
        }
        Mutation::Truncate { at } => {
            let at = boundary(&text, at);
            text.truncate(at);
        }
    }
    text
}

#[derive(Clone, Debug)]
enum Input {
    Mutated {
        seed: usize,
        mutations: Vec<Mutation>,
    },
    Soup(Vec<usize>),
}

fn input(seeds: usize) -> impl Strategy<Value = Input> {
    prop_oneof![
        4 => (0..seeds, prop::collection::vec(mutation(), 1..6)).prop_map(|(seed, mutations)| Input::Mutated { seed, mutations }),
        1 => prop::collection::vec(0..TOKENS.len(), 0..120).prop_map(Input::Soup),
    ]
}

#[test]
fn parser_and_checker_never_panic_nor_hang() {
    let corpus = corpus();
    let cases: u32 = std::env::var("COMMUTE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    // A fixed seed unless `PROPTEST_RNG_SEED` picks one: CI runs the same
    // inputs every time; a longer or reseeded run explores further.
    let default = Config::default();
    let rng_seed = match default.rng_seed {
        RngSeed::Random => RngSeed::Fixed(0xf022),
        chosen => chosen,
    };
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        rng_seed,
        ..default
    });
    let started = Instant::now();
    let result = runner.run(&input(corpus.len()), |input| {
        let (path, text) = match &input {
            Input::Mutated { seed, mutations } => {
                let (path, text) = &corpus[*seed];
                (
                    path.clone(),
                    mutations.iter().fold(text.clone(), |t, m| apply(&t, m)),
                )
            }
            Input::Soup(tokens) => (
                PathBuf::from("tests/pass/soup.space"),
                tokens.iter().map(|&t| TOKENS[t]).collect(),
            ),
        };
        // The mutated file replaces its original; includes still find the rest.
        let mut loader = MemoryLoader::new();
        for (p, t) in &corpus {
            loader = loader.with(p.clone(), t.clone());
        }
        loader = loader.with(path.clone(), text);
        let start = Instant::now();
        let compilation = compile_with(&path, &loader);
        let rendered = compilation.render_diagnostics();
        let elapsed = start.elapsed();
        // Generous: a normal input takes well under a millisecond. This
        // catches hangs and blow-ups, not slowness.
        prop_assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
        prop_assert_eq!(compilation.space.is_some(), !compilation.has_errors());
        prop_assert!(compilation.space.is_some() || !rendered.is_empty());
        Ok(())
    });
    eprintln!("fuzz: {cases} cases in {:.1?}", started.elapsed());
    if let Err(error) = result {
        panic!("{error}");
    }
}

#[test]
fn pathological_inputs_are_handled() {
    let long_line = "set A ".repeat(5_000);
    let nested = "(".repeat(100_000);
    let many_errors = "choice enum x(:\n".repeat(2_000);
    let many_items = "set S\n".to_string() + &"require forall $a in S: f($a)\n".repeat(1_000);
    for text in [
        long_line,
        nested,
        many_errors,
        many_items,
        "/*".into(),
        "\"".into(),
        "include \"".into(),
    ] {
        let loader = MemoryLoader::new().with("p.space", text);
        let start = Instant::now();
        let compilation = compile_with("p.space", &loader);
        assert!(compilation.has_errors() || compilation.space.is_some());
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "took {:?}",
            start.elapsed()
        );
    }
}
