//! Fingerprints written into journal headers: a journal stores decisions as
//! value bits, so it is resumed only against the same space and backbone.
//!
//! The hash is fed data, not text: each instance's choice index and object
//! ids, then its domain's kind and bits (enum and integer masks with the
//! integer universe, counter bounds), all as little-endian bytes. (Until
//! the loop tuner became its own crate it hashed `{:?}` renderings, so
//! journals written before cannot be resumed.)

use commute_runtime::{Backbone, Candidate, Domain};

use crate::fnv::Fnv;

/// A hash of `input` (what the backbone was built from) and of every
/// instance's values at `root`: 16 hex digits.
pub fn fingerprint<B: Backbone>(input: &[u8], root: &Candidate<B>) -> String {
    let mut hash = Fnv::default();
    hash.feed(&(input.len() as u64).to_le_bytes());
    hash.feed(input);
    for instance in root.instances(&[]) {
        hash.feed(&instance.choice.to_le_bytes());
        hash.feed(&(instance.objects.len() as u64).to_le_bytes());
        for object in &instance.objects {
            hash.feed(&object.to_le_bytes());
        }
        feed_domain(&mut hash, root.domain(&instance).as_ref());
    }
    hash.hex()
}

/// A domain as a tag byte and its numbers; an instance without a domain
/// has a tag of its own.
fn feed_domain(hash: &mut Fnv, domain: Option<&Domain>) {
    match domain {
        None => hash.feed(&[0]),
        Some(Domain::Enum(mask)) => {
            hash.feed(&[1]);
            hash.feed(&mask.to_le_bytes());
        }
        Some(Domain::Integer { universe, mask }) => {
            hash.feed(&[2]);
            hash.feed(&mask.to_le_bytes());
            hash.feed(&(universe.len() as u64).to_le_bytes());
            for value in universe {
                hash.feed(&value.to_le_bytes());
            }
        }
        Some(Domain::Counter { min, max }) => {
            hash.feed(&[3]);
            hash.feed(&min.to_le_bytes());
            hash.feed(&max.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::read_kernel;
    use crate::space::host::KernelHost;

    fn root(body: &str) -> Candidate<crate::space::Backbone<KernelHost>> {
        let source = format!("#pragma scop\n{body}\n#pragma endscop\n");
        let kernel = read_kernel("k.c", &source).expect("the kernel reads");
        Candidate::new(crate::space::Backbone(KernelHost::new(kernel))).expect("a root")
    }

    /// The fingerprint follows the input and the root's instances and
    /// domains, and nothing else.
    #[test]
    fn fingerprints_tell_spaces_and_inputs_apart() {
        let one = root("for (i = 0; i < n; i++) A[i] = A[i] + 1;");
        let two = root("for (i = 0; i < n; i++) for (j = 0; j < n; j++) A[i][j] = 0;");
        assert_eq!(fingerprint(b"a", &one), fingerprint(b"a", &one.clone()));
        assert_ne!(fingerprint(b"a", &one), fingerprint(b"b", &one));
        assert_ne!(fingerprint(b"a", &one), fingerprint(b"a", &two));
        assert_eq!(fingerprint(b"a", &one).len(), 16);
    }
}
