//! Generates the Rust code of the loop space into `OUT_DIR`.
//!
//! The path is relative to this package, so that the generated comments
//! and the model's origins (`loops/loops.space:79`, which dead ends quote)
//! do not depend on where the workspace is checked out.

fn main() {
    commute_codegen::compile_or_exit("loops/loops.space");
}
