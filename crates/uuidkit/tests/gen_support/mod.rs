//! Shared helpers for the gen_* integration tests.
#![allow(dead_code)]

use core::cell::Cell;
use core::convert::Infallible;

use rand_core::{SeedableRng, TryRng};
use uuidkit::clock::{Clock, ManualClock};

/// Returns the given words in order, then a fixed pattern.
pub struct Script {
    words: Vec<u64>,
    next: usize,
}

impl Script {
    pub fn new(words: &[u64]) -> Script {
        Script {
            words: words.to_vec(),
            next: 0,
        }
    }
}

impl TryRng for Script {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.try_next_u64()? as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let w = self
            .words
            .get(self.next)
            .copied()
            .unwrap_or(0x5555_5555_5555_5555);
        self.next += 1;
        Ok(w)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for b in dst {
            *b = self.try_next_u64()? as u8;
        }
        Ok(())
    }
}

/// A seeded CSPRNG, for reproducible tests.
pub fn seeded(seed: u64) -> rand_chacha::ChaCha12Rng {
    rand_chacha::ChaCha12Rng::seed_from_u64(seed)
}

/// Counts clock readings.
pub struct CountingClock<'a> {
    pub inner: &'a ManualClock,
    pub reads: Cell<u64>,
}

impl Clock for CountingClock<'_> {
    fn now_ns(&self) -> u64 {
        self.reads.set(self.reads.get() + 1);
        self.inner.now_ns()
    }
}

/// 2022-02-22T19:22:22Z, the RFC 9562 Appendix A time.
pub const T_A: u64 = 1_645_557_742_000_000_000;
pub const NODE_A: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];
pub const MS: u64 = 1_000_000;

pub fn ms_of(u: uuidkit::Uuid) -> u64 {
    (u.as_u128() >> 80) as u64
}

/// The octets of `uuids`, in order: what a forked child sends back without
/// allocating.
#[cfg(unix)]
pub fn uuid_bytes(uuids: &[uuidkit::Uuid]) -> &[u8] {
    // SAFETY: a `Uuid` is its 16 octets (`repr(transparent)` over `[u8; 16]`),
    // so the slice's memory is `16 * len` initialised bytes, borrowed as long
    // as `uuids`.
    unsafe { core::slice::from_raw_parts(uuids.as_ptr().cast::<u8>(), size_of_val(uuids)) }
}

/// The UUIDs in `bytes`, 16 octets each.
#[cfg(unix)]
pub fn uuids(bytes: &[u8]) -> Vec<uuidkit::Uuid> {
    bytes
        .chunks_exact(16)
        .map(|c| uuidkit::Uuid::from_bytes(c.try_into().unwrap()))
        .collect()
}
