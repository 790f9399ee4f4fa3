//! The loop space's source checks without any diagnostic (the language's
//! pass corpus did this while the file lived under `spaces/`).

use std::path::Path;

#[test]
fn the_loop_space_checks_without_any_diagnostic() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("loops/loops.space");
    let compilation = commute_dsl::compile(&path);
    assert!(
        compilation.diagnostics.is_empty(),
        "{}:\n{}",
        path.display(),
        compilation.render_diagnostics()
    );
    assert!(compilation.space.is_some());
}
