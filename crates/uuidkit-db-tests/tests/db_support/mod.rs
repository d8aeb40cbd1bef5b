//! What the database tests (`tests/db_*.rs`) share: the values every driver
//! round-trips, and the checks made on what comes back.

#![allow(dead_code)] // each test file uses its own part

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use uuidkit::Uuid;

use crate::rfc_examples::VECTORS;

/// How many random values each `ORDER BY` check sorts on the server.
pub const RANDOM: usize = 10_000;

/// Every RFC 9562 example (Nil and Max among them), then `RANDOM` values
/// with all 128 bits random (not only v4's 122: a signed byte comparison
/// somewhere would show on the high bit of any octet), from a fixed seed.
pub fn values(seed: u64) -> Vec<Uuid> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out: Vec<Uuid> = VECTORS.iter().map(|&(_, v)| Uuid::from_u128(v)).collect();
    out.extend((0..RANDOM).map(|_| {
        let mut b = [0; 16];
        rng.fill_bytes(&mut b);
        Uuid::from_bytes(b)
    }));
    out
}

/// The RFC 9562 examples with their names, for messages.
pub fn examples() -> impl Iterator<Item = (&'static str, Uuid)> {
    VECTORS.iter().map(|&(name, v)| (name, Uuid::from_u128(v)))
}

/// `values` sorted by `Ord`: what a server's `ORDER BY` must return.
pub fn sorted(values: &[Uuid]) -> Vec<Uuid> {
    let mut v = values.to_vec();
    v.sort_unstable();
    v
}

/// Each example in the text forms `Uuid::parse` accepts, in both cases.
pub fn text_forms(u: Uuid) -> [String; 5] {
    [
        u.to_string(),
        u.to_string().to_uppercase(),
        u.simple().to_string(),
        u.braced().to_string(),
        u.urn().to_string().to_uppercase(),
    ]
}

/// Checks the server's order against `Ord`, naming the first place they
/// differ rather than printing 10 000 values.
pub fn assert_same_order(what: &str, server: &[Uuid], values: &[Uuid]) {
    let expected = sorted(values);
    assert_eq!(server.len(), expected.len(), "{what}: row count");
    if let Some(i) = (0..expected.len()).find(|&i| server[i] != expected[i]) {
        panic!(
            "{what}: row {i} is {}, Ord puts {} there",
            server[i], expected[i]
        );
    }
}

/// An error and its sources, each `Display`ed, joined by ": " (diesel 2.3
/// names the field in its own message and keeps the decoder's error as the
/// source).
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(e) = source {
        out.push_str(": ");
        out.push_str(&e.to_string());
        source = e.source();
    }
    out
}

/// A single-threaded tokio runtime for sqlx.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}
