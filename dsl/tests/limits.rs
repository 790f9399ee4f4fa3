//! A limit no fail-corpus file shows: a table past `MAX_TABLE_LEN` needs
//! 65536 declarations, so the space is written here rather than checked in.

use commute_dsl::{compile_with, MemoryLoader};
use commute_model::limits::MAX_TABLE_LEN;

/// A space of `count` sets, one per line.
fn sets(count: usize) -> MemoryLoader {
    let text: String = (0..count).map(|i| format!("set S{i}\n")).collect();
    MemoryLoader::new().with("sets.space", text)
}

#[test]
fn a_table_holds_max_table_len_items_and_no_more() {
    let full = compile_with("sets.space", &sets(MAX_TABLE_LEN));
    assert!(full.space.is_some(), "{}", full.render_diagnostics());

    let past = compile_with("sets.space", &sets(MAX_TABLE_LEN + 1));
    assert!(past.space.is_none());
    let [diagnostic] = past.diagnostics.as_slice() else {
        panic!("one error expected:\n{}", past.render_diagnostics());
    };
    assert_eq!(diagnostic.code, "too-many-items");
    assert!(
        diagnostic
            .message
            .contains("the space has 65536 sets; the engine numbers them with 16 bits and holds at most 65535 (limit `MAX_TABLE_LEN`)"),
        "{}",
        diagnostic.message
    );
    let rendered = past.render_diagnostics();
    assert!(rendered.contains("sets.space:65536:1"), "{rendered}");
    assert!(rendered.contains("the 65536th set"), "{rendered}");
}
