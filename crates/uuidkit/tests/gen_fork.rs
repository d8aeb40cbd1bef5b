//! After a real `fork()`, parent and child produce different v4 and v7 values
//! (RFC 9562 §6.9: reseed the CSPRNG on fork).

use test_support::fork::{Forked, write_all};
use uuidkit::Uuid;

use crate::gen_support::{uuid_bytes, uuids};

const N: usize = 1000;

fn generate() -> [Uuid; 2 * N] {
    let mut out = [Uuid::NIL; 2 * N];
    for i in 0..N {
        out[i] = Uuid::new_v4();
        out[N + i] = Uuid::now_v7();
    }
    out
}

#[test]
fn parent_and_child_never_share_values() {
    // Seed this thread's generator and the v7 state before forking, so the child
    // inherits both.
    let warm = generate();
    assert!(!warm[0].is_nil());
    // SAFETY: the child only generates UUIDs into a stack array and writes them
    // to its pipe; it does not allocate.
    let child = unsafe {
        Forked::spawn(|out| {
            if write_all(out, uuid_bytes(&generate())) {
                0
            } else {
                2
            }
        })
    };
    let parent = generate();
    let (bytes, code) = child.finish();
    assert_eq!(
        (bytes.len(), code),
        (2 * N * 16, Some(0)),
        "the child's output"
    );
    let child = uuids(&bytes);
    assert!(
        child[..N]
            .iter()
            .all(|u| u.version() == Some(uuidkit::Version::Random))
    );
    assert!(
        child[N..]
            .iter()
            .all(|u| u.version() == Some(uuidkit::Version::SortRand))
    );
    let mut all: Vec<Uuid> = parent.iter().chain(child.iter()).copied().collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 4 * N, "parent and child share no v4 or v7 value");
    // The 58-bit random tails of v7 differ, too, not only the whole values.
    let tails = |v: &[Uuid]| -> std::collections::HashSet<u64> {
        v.iter()
            .map(|u| (u.as_u128() as u64) & ((1 << 58) - 1))
            .collect()
    };
    assert!(tails(&parent[N..]).is_disjoint(&tails(&child[N..])));
}
