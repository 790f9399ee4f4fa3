//! A host as data: a TOML file that gives a space's objects, property
//! values and trigger additions, read into a backbone the engine runs on
//! (with tables loaded at run time, `commute_codegen::load`), so that a
//! space can be explored and searched without writing Rust.
//!
//! ```toml
//! [sets]
//! Dims = ["x", "y"]                # a root set: its objects, by name
//! Tiled = ["x"]                    # a subset: objects of its superset
//! Inner = { x = ["y"] }            # a parametrized set, per argument
//!
//! [properties]
//! max_threads = 1024               # no parameter: the value
//! size = { x = 4096, y = 2048 }    # per object
//! coupled = { "x, y" = true, "*" = false }   # per tuple; "*": the others
//! sizes = { "*" = [8, 16, 32] }    # [int]: an array
//!
//! [callbacks.copy_to_shared]       # what a trigger callback adds, per tuple
//! x = { Dims = ["x_copy"] }
//! ```
//!
//! Every set of the space that the host answers is listed (`[]` for none);
//! a parametrized set lists its objects per argument tuple (a tuple not
//! listed is empty). Every property has a value for every tuple of
//! distinct objects of its parameters' sets, or a default under `"*"`;
//! the conditions `$x in S` and `$a < $b` are no properties of the host
//! (the engine computes them from the sets), so the file gives none.
//! Objects are named within their root set; ids follow the order of the
//! root set's list, then objects that only callbacks add. Mistakes are
//! reported all at once, each with its file, line and column
//! ([`HostError`]): unknown sets, objects, properties and callbacks,
//! missing sets and property values, values of the wrong type, objects
//! of a subset that are not in its superset.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod host;
mod read;

use std::path::Path;

pub use error::{HostError, HostErrors};
pub use host::DataHost;
pub use read::{read, HostData, DEFAULT_KEY};

use commute_runtime::model::Model;

/// Reads the host file at `path` against `model`.
pub fn read_file(model: &'static Model, path: &Path) -> Result<DataHost, HostErrors> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        HostErrors(vec![HostError {
            file: file.clone(),
            line: 1,
            column: 1,
            message: format!("cannot read the host file: {e}"),
        }])
    })?;
    read(model, &file, &text).map(DataHost::new)
}
