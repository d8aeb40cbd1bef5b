//! The generators' randomness: the thread's CSPRNG, or — in debug builds only, for tests — a
//! generator seeded from `UUIDKIT_TEST_SEED` (docs/uiap-design.md D55).
//!
//! The hook exists so that a test can make several `uuidkit` processes draw exactly the same
//! random values (their default random nodes, clock sequences and counters), which is how it
//! shows that without a site lease they collide and with one they do not. It is compiled only
//! with `debug_assertions`: a release binary has no code that reads the variable, so it cannot
//! be reached by accident there. The site lease draws its node from its own variable,
//! `UUIDKIT_TEST_LEASE_SEED`, which a partition test sets on both sides so that they claim the
//! same node; it is separate because leases that draw the same values in lock-step on a
//! connected site would only keep clashing.

use std::convert::Infallible;

use rand_core::TryRng;
use uuidkit::rng::ThreadRng;

/// The environment variable of the generators' test-only seed hook (debug builds).
#[cfg(debug_assertions)]
pub const TEST_SEED_VAR: &str = "UUIDKIT_TEST_SEED";

/// The environment variable of the site lease's test-only seed hook (debug builds; the lease is
/// Unix-only).
#[cfg(all(debug_assertions, unix))]
pub const TEST_LEASE_SEED_VAR: &str = "UUIDKIT_TEST_LEASE_SEED";

/// The randomness a generator of this run uses.
#[derive(Debug)]
pub enum GenRng {
    /// The thread's CSPRNG, seeded from the operating system.
    Thread(ThreadRng),
    /// A ChaCha generator seeded from [`TEST_SEED_VAR`] (debug builds only).
    #[cfg(debug_assertions)]
    Seeded(Box<rand_chacha::ChaCha12Rng>),
}

impl GenRng {
    /// The thread's CSPRNG; in a debug build with [`TEST_SEED_VAR`] set to a number, a
    /// generator seeded from it.
    pub fn for_generator() -> GenRng {
        #[cfg(debug_assertions)]
        return GenRng::from_env(TEST_SEED_VAR);
        #[cfg(not(debug_assertions))]
        GenRng::Thread(ThreadRng)
    }

    /// The site lease's draws: as [`for_generator`](Self::for_generator), with
    /// [`TEST_LEASE_SEED_VAR`].
    #[cfg(unix)]
    pub fn for_lease() -> GenRng {
        #[cfg(debug_assertions)]
        return GenRng::from_env(TEST_LEASE_SEED_VAR);
        #[cfg(not(debug_assertions))]
        GenRng::Thread(ThreadRng)
    }

    #[cfg(debug_assertions)]
    fn from_env(var: &str) -> GenRng {
        match std::env::var(var).ok().and_then(|s| s.parse::<u64>().ok()) {
            Some(seed) => {
                use rand_core::SeedableRng;
                GenRng::Seeded(Box::new(rand_chacha::ChaCha12Rng::seed_from_u64(seed)))
            }
            None => GenRng::Thread(ThreadRng),
        }
    }
}

impl TryRng for GenRng {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        match self {
            GenRng::Thread(r) => r.try_next_u32(),
            #[cfg(debug_assertions)]
            GenRng::Seeded(r) => r.try_next_u32(),
        }
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        match self {
            GenRng::Thread(r) => r.try_next_u64(),
            #[cfg(debug_assertions)]
            GenRng::Seeded(r) => r.try_next_u64(),
        }
    }

    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        match self {
            GenRng::Thread(r) => r.try_fill_bytes(dst),
            #[cfg(debug_assertions)]
            GenRng::Seeded(r) => r.try_fill_bytes(dst),
        }
    }
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use super::*;
    use rand_core::Rng;

    #[test]
    fn the_same_seed_draws_the_same_values_and_none_draws_fresh_ones() {
        use rand_core::SeedableRng;
        let mut a = GenRng::Seeded(Box::new(rand_chacha::ChaCha12Rng::seed_from_u64(7)));
        let mut b = GenRng::Seeded(Box::new(rand_chacha::ChaCha12Rng::seed_from_u64(7)));
        let (x, y) = (a.next_u64(), b.next_u64());
        assert_eq!(x, y);
        let mut t = GenRng::Thread(ThreadRng);
        assert_ne!(t.next_u64(), t.next_u64()); // fails with probability 2^-64
    }
}
