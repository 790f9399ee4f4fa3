//! Generates the Rust code of the tutorial's space into `OUT_DIR`.

fn main() {
    commute_codegen::compile_or_exit("../../docs/tutorial/tune.space");
}
