//! Entropy: a thread-local ChaCha12 CSPRNG seeded from the operating system
//! (`getrandom`), reseeded after `fork()` and periodically.
//!
//! # Fork safety
//! A child process must never repeat its parent's random values. On Unix the
//! first seeding registers a `pthread_atfork` child handler that bumps a global
//! fork generation; every draw compares the thread's generation with it (one
//! relaxed atomic load) and reseeds from the OS when they differ. A child created
//! by a raw `clone`/`vfork` that bypasses `pthread_atfork` is not detected; the
//! periodic reseed (every [`RESEED_INTERVAL`] draws) then bounds the overlap.

use core::cell::RefCell;
use core::convert::Infallible;
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread_local;

use rand_chacha::ChaCha12Rng;
use rand_core::{Rng, SeedableRng, TryCryptoRng, TryRng};

/// Draws (calls of 8 bytes, or 8-byte chunks of a fill) after which a thread's
/// generator reseeds from the operating system.
pub const RESEED_INTERVAL: u32 = 1 << 16;

static FORK_GENERATION: AtomicU64 = AtomicU64::new(0);
static ATFORK: Once = Once::new();

struct Local {
    rng: ChaCha12Rng,
    generation: u64,
    draws: u32,
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

#[cfg(unix)]
extern "C" fn on_fork_child() {
    FORK_GENERATION.fetch_add(1, Ordering::Relaxed);
}

fn register_atfork() {
    ATFORK.call_once(|| {
        #[cfg(unix)]
        // SAFETY: the handler only performs an atomic increment, which is
        // async-signal-safe and valid in a freshly forked child.
        unsafe {
            libc::pthread_atfork(None, None, Some(on_fork_child));
        }
    });
}

#[cold]
#[inline(never)]
fn seed_local(slot: &mut Option<Local>) {
    register_atfork();
    let mut seed = [0u8; 32];
    if let Err(e) = getrandom::fill(&mut seed) {
        panic!("uuidkit: the operating system's random source failed: {e}");
    }
    *slot = Some(Local {
        rng: ChaCha12Rng::from_seed(seed),
        generation: FORK_GENERATION.load(Ordering::Relaxed),
        draws: 0,
    });
}

#[inline]
fn with_local<T>(draws: u32, f: impl FnOnce(&mut ChaCha12Rng) -> T) -> T {
    LOCAL.with(|cell| {
        let mut slot = cell.borrow_mut();
        let fresh = match &mut *slot {
            Some(l) => {
                l.draws = l.draws.saturating_add(draws);
                l.generation == FORK_GENERATION.load(Ordering::Relaxed) && l.draws < RESEED_INTERVAL
            }
            None => false,
        };
        if !fresh {
            seed_local(&mut slot);
        }
        match &mut *slot {
            Some(l) => f(&mut l.rng),
            None => unreachable!("seed_local always fills the slot"),
        }
    })
}

/// 64 random bits from this thread's generator.
#[inline]
pub(crate) fn next_u64() -> u64 {
    with_local(1, |r| r.next_u64())
}

/// 128 random bits from this thread's generator.
#[inline]
pub(crate) fn next_u128() -> u128 {
    with_local(2, |r| {
        let hi = r.next_u64() as u128;
        (hi << 64) | r.next_u64() as u128
    })
}

/// Fills `dst` with 64-bit words from this thread's generator.
#[inline]
pub(crate) fn fill_u64(dst: &mut [u64]) {
    let draws = u32::try_from(dst.len()).unwrap_or(u32::MAX);
    with_local(draws, |r| {
        for x in dst.iter_mut() {
            *x = r.next_u64();
        }
    })
}

/// Fills `dst` from this thread's generator.
#[inline]
pub(crate) fn fill(dst: &mut [u8]) {
    let draws = u32::try_from(dst.len() / 8 + 1).unwrap_or(u32::MAX);
    with_local(draws, |r| r.fill_bytes(dst))
}

/// The process's default entropy source: a handle on the calling thread's
/// ChaCha12 generator, seeded from the operating system (`getrandom`), reseeded
/// after `fork()` and every [`RESEED_INTERVAL`] draws.
///
/// It is a zero-sized handle: every call uses the generator of the thread that
/// makes it. It implements `rand_core`'s [`TryRng`] (infallible, so also
/// [`Rng`]) and [`TryCryptoRng`], so it can be given to any generator of this
/// crate.
///
/// # Panics
/// Only if the operating system's random source fails when a thread's generator
/// is (re)seeded, which `getrandom` reports for a broken or absent `/dev/urandom`.
///
/// ```
/// use rand_core::Rng;
/// let mut rng = uuidkit::ThreadRng;
/// assert_ne!(rng.next_u64(), rng.next_u64()); // fails with probability 2^-64
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ThreadRng;

impl TryRng for ThreadRng {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(next_u64() as u32)
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(next_u64())
    }

    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        fill(dst);
        Ok(())
    }
}

impl TryCryptoRng for ThreadRng {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_reseed_keeps_producing_distinct_values() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..(RESEED_INTERVAL as usize + 10) {
            assert!(seen.insert(next_u64()), "repeated 64-bit value");
        }
    }

    #[test]
    fn fork_generation_bump_forces_a_reseed() {
        let before = next_u64();
        let gen_before = LOCAL.with(|c| c.borrow().as_ref().map(|l| l.generation));
        FORK_GENERATION.fetch_add(1, Ordering::Relaxed);
        let after = next_u64();
        let gen_after = LOCAL.with(|c| c.borrow().as_ref().map(|l| l.generation));
        assert_ne!(before, after);
        assert_ne!(gen_before, gen_after, "the thread generator was reseeded");
    }
}
