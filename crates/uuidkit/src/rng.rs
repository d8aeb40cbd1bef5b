//! Entropy: a thread-local ChaCha12 CSPRNG seeded from the operating system
//! (`getrandom`), reseeded after `fork()` and periodically.
//!
//! # The generator
//! ChaCha with 12 rounds (as `rand`'s `StdRng`), a 256-bit key from the OS, a
//! 64-bit block counter from 0 and stream 0: the block function of
//! `rand_chacha::ChaCha12Rng` (`chacha.rs`), computed 8 blocks at a
//! time with AVX2 (4 with SSE2, in `arch/`; 1 portably), so that a bulk
//! fill runs straight into the caller's buffer. The SIMD paths emit each group of blocks word-interleaved (word `w`
//! of blocks `0..n`, then word `w + 1`, …): a fixed permutation of the same
//! keystream words, tested word for word against `rand_chacha`.
//!
//! # Fork safety
//! A child process must never repeat its parent's random values. On Unix the
//! first seeding registers a `pthread_atfork` child handler that bumps a global
//! fork generation; every draw compares the thread's generation with it (one
//! relaxed atomic load) and reseeds from the OS when they differ. A child created
//! by a raw `clone`/`vfork` that bypasses `pthread_atfork` is not detected; the
//! periodic reseed (every [`RESEED_INTERVAL`] draws) then bounds the overlap.

use core::cell::UnsafeCell;
use core::convert::Infallible;
use std::thread_local;

use rand_core::{TryCryptoRng, TryRng};

use crate::chacha::{self, GROUP};

/// Draws (8-byte words of output) after which a thread's generator reseeds
/// from the operating system: every `8 × RESEED_INTERVAL` bytes (512 KiB) it
/// generates, whatever the calls that consume them.
pub const RESEED_INTERVAL: u32 = 1 << 16;

/// [`RESEED_INTERVAL`] in groups of blocks.
const RESEED_GROUPS: u32 = RESEED_INTERVAL / (GROUP / 8) as u32;

/// The first 8 bytes of `b`.
#[inline(always)]
fn take8(b: &[u8]) -> [u8; 8] {
    let mut out = [0u8; 8];
    out.copy_from_slice(&b[..8]);
    out
}

/// A buffered ChaCha12 stream: whole groups go straight into large fills; the
/// buffer serves small draws.
struct Stream {
    key: [u32; 8],
    /// The next block to generate.
    counter: u64,
    buf: [u8; GROUP],
    /// Bytes of `buf` already used.
    used: usize,
    /// Groups this key may still generate before the next reseed.
    groups_left: u32,
}

/// The group of blocks at `*counter` into `out`, then the counter moves past
/// it (a free function so that `Stream` can pass its own buffer).
#[inline]
fn advance(key: &[u32; 8], counter: &mut u64, out: &mut [u8; GROUP]) {
    if !crate::arch::chacha_group(key, *counter, out) {
        chacha::group_scalar(key, *counter, out);
    }
    *counter = counter.wrapping_add((GROUP / 64) as u64);
}

/// 32 bytes from the operating system.
///
/// # Panics
/// If the operating system's random source fails.
fn os_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    if let Err(e) = getrandom::fill(&mut seed) {
        panic!("uuidkit: the operating system's random source failed: {e}");
    }
    seed
}

impl Stream {
    /// A stream with no key and an empty buffer: what a thread holds before
    /// its first draw seeds it (see [`UNSEEDED`]).
    const EMPTY: Stream = Stream {
        key: [0; 8],
        counter: 0,
        buf: [0; GROUP],
        used: GROUP,
        groups_left: 0,
    };

    fn from_seed(seed: [u8; 32]) -> Stream {
        let mut key = [0u32; 8];
        for (k, c) in key.iter_mut().zip(seed.chunks_exact(4)) {
            *k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Stream {
            key,
            counter: 0,
            buf: [0; GROUP],
            used: GROUP,
            groups_left: RESEED_GROUPS,
        }
    }

    /// Counts the group about to be generated, reseeding first once the key
    /// has generated [`RESEED_GROUPS`] groups.
    #[inline]
    fn count_group(&mut self) {
        if self.groups_left == 0 {
            self.reseed();
        }
        self.groups_left -= 1;
    }

    /// A fresh key from the operating system, and the counter from 0.
    #[cold]
    #[inline(never)]
    fn reseed(&mut self) {
        let fresh = Stream::from_seed(os_seed());
        (self.key, self.counter, self.groups_left) = (fresh.key, 0, RESEED_GROUPS);
    }

    #[inline]
    fn next_group(&mut self, out: &mut [u8; GROUP]) {
        self.count_group();
        advance(&self.key, &mut self.counter, out);
    }

    /// Generates the next group into the buffer, in place. Out of line: it
    /// runs once per group, and kept apart it leaves the draws' path small
    /// enough to inline whole into the caller, thread-local access and all.
    #[inline(never)]
    fn refill(&mut self) {
        self.count_group();
        advance(&self.key, &mut self.counter, &mut self.buf);
        self.used = 0;
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        u64::from_le_bytes(self.next_bytes::<8>())
    }

    /// The next 16 bytes as two little-endian words, first word high (one
    /// buffer check for both).
    #[inline]
    fn next_u128(&mut self) -> u128 {
        let b = self.next_bytes::<16>();
        let word = |i: usize| u128::from(u64::from_le_bytes(take8(&b[i..])));
        (word(0) << 64) | word(8)
    }

    /// The next `N` bytes of the buffer, refilling it first when fewer are
    /// left (the rest of the old buffer is skipped, never reused).
    #[inline]
    fn next_bytes<const N: usize>(&mut self) -> [u8; N] {
        const { assert!(N <= GROUP) };
        // Where the draw starts, known to leave `N` bytes in the buffer on
        // both branches, so the copy needs no bounds check of its own.
        let at = if self.used > GROUP - N {
            self.refill();
            0
        } else {
            self.used
        };
        let mut out = [0u8; N];
        out.copy_from_slice(&self.buf[at..at + N]);
        self.used = at + N;
        out
    }

    fn fill_bytes(&mut self, mut dst: &mut [u8]) {
        // What the buffer holds first, then whole groups in place, then the buffer.
        let n = dst.len().min(GROUP - self.used);
        dst[..n].copy_from_slice(&self.buf[self.used..self.used + n]);
        self.used += n;
        dst = &mut dst[n..];
        let mut groups = dst.chunks_exact_mut(GROUP);
        for g in groups.by_ref() {
            if let Ok(g) = <&mut [u8; GROUP]>::try_from(g) {
                self.next_group(g);
            }
        }
        let rest = groups.into_remainder();
        if !rest.is_empty() {
            self.refill();
            rest.copy_from_slice(&self.buf[..rest.len()]);
            self.used = rest.len();
        }
    }
}

struct Local {
    rng: Stream,
    /// The fork generation the stream was seeded in, or [`UNSEEDED`].
    generation: u64,
}

/// The generation of a thread's stream before its first seeding: the fork
/// generation counts forks from 0 and never reaches it, so one compare per
/// draw tells both "not seeded yet" and "forked since".
const UNSEEDED: u64 = u64::MAX;

thread_local! {
    static LOCAL: UnsafeCell<Local> = const {
        UnsafeCell::new(Local { rng: Stream::EMPTY, generation: UNSEEDED })
    };
}

#[cold]
#[inline(never)]
fn seed_local(local: &mut Local) {
    *local = Local {
        rng: Stream::from_seed(os_seed()),
        generation: crate::fork::generation(),
    };
}

/// Runs `f` on this thread's stream, (re)seeding it first if it has none
/// yet or the process forked since it was seeded; the stream reseeds itself
/// every [`RESEED_INTERVAL`] draws.
///
/// `f` is one of this module's draws (the stream's own methods), never a
/// caller's code: nothing it runs (the stream's methods, ChaCha, the
/// operating system's random source) can call back into this function, so the one `&mut` made here is the only
/// reference to the thread's state while it lives. That is what lets the
/// state live in an `UnsafeCell` rather than a `RefCell`: no borrow flag to
/// check and no panic path, which keeps the whole draw small enough to inline
/// into the caller with the thread-local access.
#[inline]
fn with_local<T>(f: impl FnOnce(&mut Stream) -> T) -> T {
    LOCAL.with(|cell| {
        // SAFETY: see above: no other reference to this thread's `Local`
        // exists while `f` runs, and `f` cannot reach this function again.
        let local = unsafe { &mut *cell.get() };
        if local.generation != crate::fork::current() {
            seed_local(local);
        }
        f(&mut local.rng)
    })
}

/// 64 random bits from this thread's generator.
#[inline]
pub(crate) fn next_u64() -> u64 {
    with_local(Stream::next_u64)
}

/// 128 random bits from this thread's generator.
#[inline]
pub(crate) fn next_u128() -> u128 {
    with_local(Stream::next_u128)
}

/// Fills `dst` with 64-bit words from this thread's generator (in native byte
/// order: the generator's bytes, as they come, one fill for the whole slice).
#[inline]
pub(crate) fn fill_u64(dst: &mut [u64]) {
    // SAFETY: the bytes of a `[u64]`, which has no padding and for which every
    // bit pattern is valid; the slice borrows `dst` mutably for its lifetime.
    let bytes = unsafe {
        core::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), core::mem::size_of_val(dst))
    };
    with_local(|r| r.fill_bytes(bytes))
}

/// Fills `dst` from this thread's generator.
#[inline]
pub(crate) fn fill(dst: &mut [u8]) {
    with_local(|r| r.fill_bytes(dst))
}

/// The process's default entropy source: a handle on the calling thread's
/// ChaCha12 generator, seeded from the operating system (`getrandom`), reseeded
/// after `fork()` and every [`RESEED_INTERVAL`] draws.
///
/// It is a zero-sized handle: every call uses the generator of the thread that
/// makes it. It implements `rand_core`'s [`TryRng`] (infallible, so also
/// [`Rng`](rand_core::Rng)) and [`TryCryptoRng`], so it can be given to any generator of this
/// crate.
///
/// # Panics
/// Only if the operating system's random source fails when a thread's generator
/// is (re)seeded, which `getrandom` reports for a broken or absent `/dev/urandom`.
///
/// ```
/// use rand_core::Rng;
/// let mut rng = uuidkit::rng::ThreadRng;
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

    use rand_chacha::ChaCha12Rng;
    use rand_core::{Rng, SeedableRng};
    use std::vec::Vec;

    const SEED: [u8; 32] = *b"uuidkit rng test seed, 32 bytes!";

    /// `rand_chacha`'s keystream: `blocks` blocks from block `counter` on.
    fn reference(counter: u64, blocks: usize) -> Vec<u8> {
        let mut r = ChaCha12Rng::from_seed(SEED);
        r.set_word_pos(u128::from(counter) * 16);
        let mut v = std::vec![0u8; 64 * blocks];
        r.fill_bytes(&mut v);
        v
    }

    /// The reference, word-interleaved in runs of `n` blocks as the SIMD lanes emit it.
    fn interleaved(counter: u64, n: usize) -> Vec<u8> {
        let plain: [u8; GROUP] = reference(counter, 8).try_into().unwrap();
        chacha::interleaved(&plain, n).to_vec()
    }

    /// Block counters to check: the start, and across the carry into the high word.
    const COUNTERS: [u64; 4] = [0, 8, (1 << 32) - 3, u64::MAX - 4];

    #[test]
    fn portable_blocks_are_chacha12_word_for_word() {
        let key = Stream::from_seed(SEED).key;
        for counter in COUNTERS {
            let mut out = [0u8; GROUP];
            chacha::group_scalar(&key, counter, &mut out);
            assert_eq!(&out[..], &reference(counter, 8)[..], "counter {counter:#x}");
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn sse2_blocks_are_chacha12_word_for_word() {
        use crate::arch::x86_64::chacha::group_sse2;
        let key = Stream::from_seed(SEED).key;
        for counter in COUNTERS {
            let mut out = [0u8; GROUP];
            group_sse2(&key, counter, &mut out);
            assert_eq!(
                &out[..],
                &interleaved(counter, 4)[..],
                "counter {counter:#x}"
            );
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn simd_blocks_are_chacha12_word_for_word() {
        use crate::arch::x86_64::{chacha::group_avx2, cpu};
        let test = "rng::tests::simd_blocks_are_chacha12_word_for_word";
        let Some(t) = cpu::require(test, "avx2", cpu::avx2_uncapped()) else {
            return;
        };
        let key = Stream::from_seed(SEED).key;
        for counter in COUNTERS {
            let mut out = [0u8; GROUP];
            group_avx2(t, &key, counter, &mut out);
            assert_eq!(
                &out[..],
                &interleaved(counter, 8)[..],
                "counter {counter:#x}"
            );
            // The dispatcher takes the widest lanes allowed: 8 with AVX2,
            // 4 in a build capped at SSE2 (`--cfg uuidkit_simd="sse2"`).
            let widest = if cpu::avx2().is_some() { 8 } else { 4 };
            let mut best = [0u8; GROUP];
            advance(&key, &mut counter.clone(), &mut best);
            assert_eq!(
                &best[..],
                &interleaved(counter, widest)[..],
                "the dispatcher takes the best path"
            );
        }
    }

    #[test]
    fn stream_hands_out_consecutive_bytes_whatever_the_draw_sizes() {
        let mut whole = Stream::from_seed(SEED);
        let mut want = std::vec![0u8; 6 * GROUP];
        for g in want.chunks_exact_mut(GROUP) {
            let g: &mut [u8; GROUP] = g.try_into().unwrap();
            whole.next_group(g);
        }
        let mut s = Stream::from_seed(SEED);
        let mut got = Vec::new();
        for len in [3usize, 8, 0, 509, 1, 1500, 64, 7] {
            let mut b = std::vec![0u8; len];
            s.fill_bytes(&mut b);
            got.extend_from_slice(&b);
        }
        assert_eq!(got, want[..got.len()]);
        // `next_u64` takes the next 8 bytes, skipping a buffer tail shorter than 8.
        let at = got.len();
        let skip = if at % GROUP + 8 > GROUP {
            GROUP - at % GROUP
        } else {
            0
        };
        let x = s.next_u64().to_le_bytes();
        assert_eq!(x[..], want[at + skip..at + skip + 8]);
    }

    #[test]
    fn a_key_generates_reseed_interval_draws_then_is_replaced() {
        let mut s = Stream::from_seed(SEED);
        let first = s.key;
        let mut g = [0u8; GROUP];
        for _ in 0..RESEED_GROUPS {
            s.next_group(&mut g);
        }
        assert_eq!(
            s.key, first,
            "still the first key after {RESEED_GROUPS} groups"
        );
        assert_eq!(s.counter, u64::from(RESEED_GROUPS) * 8);
        assert_eq!(
            u64::from(RESEED_GROUPS) * GROUP as u64,
            u64::from(RESEED_INTERVAL) * 8
        );
        s.refill();
        assert_ne!(s.key, first, "a fresh key from the OS");
        assert_eq!((s.counter, s.groups_left), (8, RESEED_GROUPS - 1));
    }

    /// This thread's generation and key, read between draws (when no
    /// draw holds the state).
    fn local_state() -> (u64, [u32; 8]) {
        // SAFETY: no draw runs on this thread while the copy is made.
        LOCAL.with(|c| unsafe { ((*c.get()).generation, (*c.get()).rng.key) })
    }

    #[test]
    fn a_threads_first_draw_seeds_its_stream() {
        std::thread::spawn(|| {
            assert_eq!(local_state().0, UNSEEDED);
            let first = next_u64();
            let local = local_state();
            assert_ne!(local.0, UNSEEDED, "seeded in a fork generation");
            assert_ne!(local.1, [0; 8], "a key from the OS, not the empty stream's");
            assert_ne!(first, next_u64());
        })
        .join()
        .expect("the thread's draws");
    }

    #[test]
    fn fork_generation_bump_forces_a_reseed() {
        let before = next_u64();
        let gen_before = local_state().0;
        crate::fork::bump_for_test();
        let after = next_u64();
        let gen_after = local_state().0;
        assert_ne!(before, after);
        assert_ne!(gen_before, gen_after, "the thread generator was reseeded");
    }
}
