//! The tutorial's space (`docs/tutorial/tune.space`) with a host written
//! in Rust: the same objects and values as `docs/tutorial/host.toml`, given
//! by code instead of data. The build script generates `MODEL`, the id
//! type `LoopsId`, the `Host` trait and the `Backbone` adapter.

#![forbid(unsafe_code)]

/// What the build script generated from the space.
#[allow(missing_docs)]
pub mod tune {
    include!(concat!(env!("OUT_DIR"), "/tune.rs"));
}

use tune::{Host, LoopsId};

/// The loops of a matrix multiply: their names and extents.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Each loop's name and extent, `LoopsId(i)` for the `i`-th.
    pub loops: Vec<(String, i64)>,
    /// The tile sizes worth trying, for every loop.
    pub tile_sizes: Vec<i64>,
    /// The most iterations a tile may hold.
    pub max_tile_volume: i64,
}

impl Kernel {
    /// The kernel of `docs/tutorial/kernel.c` at its default size, as
    /// `docs/tutorial/host.toml` describes it.
    pub fn tutorial() -> Kernel {
        Kernel {
            loops: vec![("i".to_string(), 256), ("j".to_string(), 256)],
            tile_sizes: vec![1, 8, 16, 32, 64],
            max_tile_volume: 1024,
        }
    }
}

impl Host for Kernel {
    fn loops(&self) -> Vec<LoopsId> {
        (0..self.loops.len() as u32).map(LoopsId).collect()
    }

    fn extent(&self, l: LoopsId) -> i64 {
        self.loops
            .get(l.0 as usize)
            .map_or(0, |(_, extent)| *extent)
    }

    fn tile_sizes(&self, _l: LoopsId) -> Vec<i64> {
        self.tile_sizes.clone()
    }

    fn max_tile_volume(&self) -> i64 {
        self.max_tile_volume
    }
}
