//! The tables built in memory from a space file (`commute_codegen::load_in`)
//! equal, field by field, the `MODEL` the build script generated from it:
//! one lowering, two outputs.

use commute_spaces::{model_sources, models, package_dir};

#[test]
fn every_bundled_space_loads_to_its_generated_tables() {
    let sources = model_sources();
    assert_eq!(sources.len(), models().len());
    for ((name, generated), (source_name, path)) in models().into_iter().zip(sources) {
        assert_eq!(name, source_name);
        let loaded =
            commute_codegen::load_in(package_dir(), path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(loaded, generated, "{name}: loaded tables differ from MODEL");
    }
}
