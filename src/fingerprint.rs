//! Fingerprints written into journal headers: a journal stores decisions as
//! value bits, so it is resumed only against the same space and backbone.

use commute_runtime::{Backbone, Candidate};
use commute_spaces::loops::fnv::Fnv;

/// A hash of `input` (what the backbone was built from) and of every
/// instance's values at `root`.
pub fn fingerprint<B: Backbone>(input: &[u8], root: &Candidate<B>) -> String {
    let mut hash = Fnv::default();
    hash.feed(input);
    let model = root.model();
    for instance in root.instances(&[]) {
        hash.feed(instance.display(model).as_bytes());
        hash.feed(format!("{:?}", root.domain(&instance)).as_bytes());
    }
    hash.hex()
}
