//! FNV-1a, the one hash the loop space uses for build directories, journal
//! fingerprints and the interpreter's initial memory: stable across runs
//! and platforms, unlike `std`'s hasher.

/// An FNV-1a hash being fed.
#[derive(Clone, Copy, Debug)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Hashes `bytes` after what was fed before.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The hash of everything fed.
    pub fn finish(self) -> u64 {
        self.0
    }

    /// 16 hex digits.
    pub fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}
