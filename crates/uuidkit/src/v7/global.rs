//! The state of the process-wide v7 generator behind [`Uuid::now_v7`]
//! and [`Uuid::fill_v7`] (defined in the parent module's `impl Uuid`), and
//! the same algorithm on a word the caller places, for
//! [`SharedV7`](crate::SharedV7).
//!
//! State: one `AtomicU64` holding `(unix_ms << 16) | counter`. An update
//! reads the clock, then either moves the word to `(now_ms << 16) | seed` (a
//! new millisecond; `seed` is 15 random bits, so the top counter bit is a
//! rollover guard) by compare-and-swap, or adds to it (same millisecond, or
//! clock behind). Every update is one read-modify-write on the same word and
//! reserves the values between the word's old and new value, so reserved
//! values are unique and ordered by the word's modification order, which
//! extends happens-before. A counter overflow carries into the millisecond:
//! the "advance the timestamp" policy, for free.
//!
//! [`Uuid::now_v7`] takes its value from a *run*: the values its thread's
//! last update reserved (up to [`MAX_RUN`] of them), used while that update
//! is still the word's last one — a plain load of the word, equal to the
//! run's end, shows that — so a thread calling alone makes one
//! read-modify-write per [`MAX_RUN`] calls (docs/generator-design.md G10
//! gives the order argument).

use core::cell::Cell;
use core::sync::atomic::{AtomicU64, Ordering};
use std::thread_local;

use crate::{Uuid, clock, fork, rng};

static STATE: AtomicU64 = AtomicU64::new(0);
/// The fork generation [`STATE`] was last used in.
static OWNER: AtomicU64 = AtomicU64::new(0);
const COUNTER_BITS: u32 = 16;

/// In a forked child, whose parent goes on counting from the same
/// state: the first caller moves the state to the next millisecond with
/// a fresh 15-bit seed, as a new millisecond would (the child runs at
/// most 1 ms ahead of its clock, and stays above everything its parent
/// issued before the fork).
#[cold]
#[inline(never)]
fn after_fork() {
    let generation = fork::generation();
    if OWNER.swap(generation, Ordering::Relaxed) == generation {
        return; // another thread of this child did it
    }
    let mut cur = STATE.load(Ordering::Relaxed);
    loop {
        let next_ms = ((cur >> COUNTER_BITS) + 1).min(crate::layout::MAX_UNIX_TS_MS);
        let seeded = (next_ms << COUNTER_BITS) | (rng::next_u64() & 0x7FFF);
        match STATE.compare_exchange_weak(
            cur,
            seeded.max(cur),
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => return,
            Err(seen) => cur = seen,
        }
    }
}

/// The most state values a thread reserves for its own calls in one update
/// of the word. The values of a run cut short (another thread updated the
/// word, or the clock moved to a new millisecond) are never issued: at most
/// this many less one, and a thread whose run was cut short by another
/// thread reserves one value next time.
const MAX_RUN: u64 = 16;

/// A thread's run of [`STATE`]'s values: `next..=end`, reserved by this
/// thread's last update of the word, which left the word holding `end`, in
/// fork generation `generation`; that update asked for `size` values. One
/// cell per field: a call that takes a value writes `next` alone.
struct Run {
    next: Cell<u64>,
    end: Cell<u64>,
    generation: Cell<u64>,
    size: Cell<u64>,
}

thread_local! {
    /// This thread's run; empty before its first call.
    static RUN: Run = const {
        Run {
            next: Cell::new(1),
            end: Cell::new(0),
            generation: Cell::new(u64::MAX),
            size: Cell::new(0),
        }
    };
}

/// The state value of one [`Uuid::now_v7`] call for a clock reading of
/// `now_ms`: the next value of this thread's run while the word still holds
/// the run's end (no update by anyone since the one that reserved it), the
/// value is in the clock's millisecond or later, and the process has not
/// forked since; otherwise one from a new run.
///
/// Why the order holds: if call A happens-before call B, the update that
/// reserved A's value happens-before B's load of the word, so that load reads
/// that update's value or a later one (coherence). B uses its run only if the
/// load reads the very value B's own reserving update left, so that update
/// is A's or a later one in the word's modification order: B's run is A's
/// (one thread, whose run counts up) or lies wholly above A's. B reserving a
/// new run takes values above every earlier update. Values are unique because
/// runs are disjoint and each is used by its own thread only.
#[inline]
pub(super) fn next(now_ms: u64) -> u64 {
    // A run of this generation was reserved after this process's first
    // caller since the fork moved the word on (`next_run` sees to it), so
    // the fork check of `reserve` is needed only when a new run is.
    let generation = fork::current();
    let target = now_ms << COUNTER_BITS;
    RUN.with(|run| {
        let next = run.next.get();
        let end = run.end.get();
        if next >= target
            && next <= end
            && run.generation.get() == generation
            && STATE.load(Ordering::Relaxed) == end
        {
            run.next.set(next.wrapping_add(1));
            return next;
        }
        next_run(run, now_ms, generation)
    })
}

/// Reserves a new run for this thread and returns its first value: twice
/// as long as the last one (up to [`MAX_RUN`]) when that one was used up
/// while no other update came between, one value when another did.
#[inline(never)]
fn next_run(run: &Run, now_ms: u64, generation: u64) -> u64 {
    if generation != OWNER.load(Ordering::Relaxed) {
        after_fork();
    }
    let alone =
        run.generation.get() == generation && STATE.load(Ordering::Relaxed) == run.end.get();
    let size = match (alone, run.next.get() > run.end.get()) {
        (true, true) => (run.size.get() * 2).clamp(1, MAX_RUN),
        (true, false) => run.size.get().max(1),
        (false, _) => 1,
    };
    let first = reserve_in(&STATE, now_ms, size);
    run.next.set(first.wrapping_add(1));
    run.end.set(first.wrapping_add(size - 1));
    run.generation.set(generation);
    run.size.set(size);
    first
}

/// Reserves `n ≥ 1` consecutive state values of the process-wide word;
/// returns the first.
#[inline]
pub(super) fn reserve(now_ms: u64, n: u64) -> u64 {
    if fork::current() != OWNER.load(Ordering::Relaxed) {
        after_fork();
    }
    reserve_in(&STATE, now_ms, n)
}

/// Reserves `n ≥ 1` consecutive values of the state word `state`;
/// returns the first.
#[inline]
pub(crate) fn reserve_in(state: &AtomicU64, now_ms: u64, n: u64) -> u64 {
    let target = now_ms << COUNTER_BITS;
    let mut cur = state.load(Ordering::Relaxed);
    loop {
        if cur >= target {
            return state.fetch_add(n, Ordering::Relaxed) + 1;
        }
        let first = target | (rng::next_u64() & 0x7FFF);
        match state.compare_exchange_weak(
            cur,
            first + (n - 1),
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => return first,
            Err(seen) => cur = seen,
        }
    }
}

/// The UUID for state value `state` (RFC 9562 §5.7 through
/// [`Uuid::new_v7_from_parts`]): its 48-bit millisecond as `unix_ts_ms`,
/// the top 12 counter bits as `rand_a`, and in `rand_b` the low 4 counter
/// bits, then 58 bits of `random`: the low 2 bits of its first
/// little-endian byte and its 7 other bytes, in that order, so bytes 9–15
/// of the UUID are `random`'s bytes 1–7 as they are (no byte swap for the
/// random half, which the 4-wide AVX2 layout relies on).
#[inline(always)]
pub(crate) fn layout(state: u64, random: u64) -> Uuid {
    const RANDOM_58: u64 = (1 << 58) - 1;
    let rand_b = ((state & 0xF) << 58) | (random.swap_bytes() & RANDOM_58);
    Uuid::new_v7_from_parts(state >> 16, (state >> 4) as u16, rand_b)
}

/// `out[i] = layout(base + i, randoms[i])`, four UUIDs per step with AVX2
/// where the CPU has it.
#[inline]
pub(super) fn lay_out(base: u64, randoms: &[u64], out: &mut [Uuid]) {
    let n = out.len().min(randoms.len());
    let done = crate::arch::v7_lay_out(base, &randoms[..n], &mut out[..n]);
    for i in done..n {
        out[i] = layout(base + i as u64, randoms[i]);
    }
}

#[inline]
pub(crate) fn now_ms() -> u64 {
    (clock::system_now_ns() / 1_000_000).min(crate::layout::MAX_UNIX_TS_MS)
}

/// Lays out `out` from the reserved run of state values starting at
/// `first`, with fresh random bits: in large fills (one thread-local
/// access and one reseed check per `CHUNK` UUIDs), 8 bytes per UUID.
pub(crate) fn fill_from(first: u64, out: &mut [Uuid]) {
    const CHUNK: usize = 256;
    let mut randoms = [0u64; CHUNK];
    for (chunk_index, chunk) in out.chunks_mut(CHUNK).enumerate() {
        let randoms = &mut randoms[..chunk.len()];
        rng::fill_u64(randoms);
        let base = first + (chunk_index * CHUNK) as u64;
        lay_out(base, randoms, chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    #[test]
    fn layout_places_counter_and_random_bits_exactly() {
        let state = (0x017F_22E2_79B0 << 16) | 0xABCD;
        let u = layout(state, 0x1122_3344_5566_7788);
        // rand_a = counter >> 4; byte 8 = variant, counter & 0xF, random bits 1..0
        // (0x88 & 3 = 0); then random bytes 0x77 … 0x11 as they are.
        assert_eq!(u.as_u128(), 0x017F22E2_79B0_7ABC_B477_665544332211);
        let u = layout(state | 0xFFFF, u64::MAX);
        assert_eq!(u.as_u128(), 0x017F22E2_79B0_7FFF_BFFF_FFFFFFFFFFFF);
    }

    #[test]
    fn bulk_layout_matches_layout_on_every_path() {
        // States across a millisecond carry, random words with every byte value.
        let base = (0x017F_22E2_79B0 << 16) | 0xFFF0;
        let randoms: std::vec::Vec<u64> = (0..300u64)
            .map(|i| {
                i.wrapping_mul(0x0101_0101_0101_0101)
                    ^ i.rotate_left(40).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            })
            .collect();
        for len in [0, 1, 3, 4, 5, 8, 31, 300] {
            let mut out = vec![Uuid::NIL; len];
            lay_out(base, &randoms[..len], &mut out);
            for (i, u) in out.iter().enumerate() {
                assert_eq!(*u, layout(base + i as u64, randoms[i]), "len {len} at {i}");
            }
        }
    }

    /// The state a v7 UUID of this generator encodes: `(ms << 16) | counter`.
    fn state_of(u: &Uuid) -> u64 {
        let x = u.as_u128();
        let ms = (x >> 80) as u64;
        let rand_a = ((x >> 64) & 0xFFF) as u64;
        let low4 = ((x >> 58) & 0xF) as u64;
        (ms << 16) | (rand_a << 4) | low4
    }

    #[test]
    fn fill_v7_is_a_run_of_counters_with_fair_random_bits() {
        const N: usize = 200_000;
        let mut v = vec![Uuid::NIL; N];
        for chunk in v.chunks_mut(4096 + 7) {
            Uuid::fill_v7(chunk);
            // One reserved run: consecutive state values.
            for w in chunk.windows(2) {
                assert_eq!(state_of(&w[1]), state_of(&w[0]) + 1);
            }
        }
        let mut ones = [0u32; 58];
        for u in &v {
            assert_eq!(u.version(), Some(crate::Version::SortRand));
            assert_eq!(u.variant(), crate::Variant::Rfc9562);
            let x = u.as_u128() as u64;
            for (bit, count) in ones.iter_mut().enumerate() {
                *count += ((x >> bit) & 1) as u32;
            }
        }
        assert!(
            v.windows(2).all(|w| w[0] < w[1]),
            "increasing across batches"
        );
        for (bit, count) in ones.iter().enumerate() {
            // 200 000 fair bits: σ ≈ 224, so ±2 000 is 9σ.
            assert!(
                count.abs_diff(N as u32 / 2) < 2_000,
                "random bit {bit}: {count} ones"
            );
        }
    }
}
