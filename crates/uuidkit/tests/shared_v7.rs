//! `SharedV7` in memory shared between processes (a `MAP_SHARED` mapping
//! inherited across `fork()`): one sequence for all of them.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use test_support::fork::Forked;
use uuidkit::{SharedV7, Uuid, Version};

/// The shared region: the generator, a turn counter, and each call's result.
#[repr(C)]
struct Region<const N: usize> {
    generator: SharedV7,
    turn: AtomicU32,
    out: [Uuid; N],
}

/// A zero-filled `MAP_SHARED` mapping of a `Region`, unmapped on drop.
struct Shared<const N: usize>(*mut Region<N>);

impl<const N: usize> Shared<N> {
    fn new() -> Self {
        // SAFETY: an anonymous shared mapping; all-zero bytes are a valid
        // `Region` (a fresh `SharedV7`, turn 0, Nil UUIDs).
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size_of::<Region<N>>(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED, "mmap failed");
        Shared(p.cast())
    }

    fn region(&self) -> &Region<N> {
        // SAFETY: mapped for the life of `self`; the children write `out`
        // only through raw pointers, and the parent reads it after they exit.
        unsafe { &*self.0 }
    }

    fn out_ptr(&self, i: usize) -> *mut Uuid {
        assert!(i < N);
        // SAFETY: in bounds of the mapping.
        unsafe { (&raw mut (*self.0).out).cast::<Uuid>().add(i) }
    }
}

impl<const N: usize> Drop for Shared<N> {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.0.cast(), size_of::<Region<N>>()) };
    }
}

/// Forks `children` processes running `work(index)`; each exits 0 when it
/// returns true. Returns after all have exited, asserting that they succeeded.
fn run_children(children: usize, work: impl Fn(usize) -> bool) {
    // Seed this thread's RNG before forking, so the children inherit a seeded
    // generator and must reseed it (RFC 9562 §6.9).
    assert!(!Uuid::new_v4().is_nil());
    let forked: Vec<Forked> = (0..children)
        .map(|index| {
            // SAFETY: the child only generates UUIDs into the shared mapping,
            // spins on an atomic, and exits; it does not allocate.
            unsafe { Forked::spawn(|_| if work(index) { 0 } else { 1 }) }
        })
        .collect();
    for mut child in forked {
        let pid = child.pid();
        assert_eq!(child.wait(), Some(0), "child {pid} failed");
    }
}

#[test]
fn a_call_that_begins_after_another_returned_is_greater_across_processes() {
    // Two processes take turns: each call begins after the previous call, in
    // the other process, returned and passed the turn on.
    const ROUNDS: usize = 2000;
    let shared = Shared::<ROUNDS>::new();
    run_children(2, |me| {
        let region = shared.region();
        let deadline = Instant::now() + Duration::from_secs(30);
        for round in (me..ROUNDS).step_by(2) {
            while region.turn.load(Ordering::Acquire) as usize != round {
                if Instant::now() > deadline {
                    return false;
                }
                std::hint::spin_loop();
            }
            let u = region.generator.now_v7();
            unsafe { shared.out_ptr(round).write(u) };
            region.turn.store(round as u32 + 1, Ordering::Release);
        }
        true
    });
    let out = &shared.region().out;
    assert!(out.iter().all(|u| u.version() == Some(Version::SortRand)));
    for (i, w) in out.windows(2).enumerate() {
        assert!(
            w[0] < w[1],
            "call {} ({}) not below call {} ({})",
            i,
            w[0],
            i + 1,
            w[1]
        );
    }
}

#[test]
fn concurrent_processes_never_share_a_value_and_each_sees_its_own_increase() {
    const PER: usize = 20_000;
    const PROCS: usize = 3;
    let shared = Shared::<{ PER * PROCS }>::new();
    run_children(PROCS, |me| {
        let g = &shared.region().generator;
        for i in 0..PER {
            unsafe { shared.out_ptr(me * PER + i).write(g.now_v7()) };
        }
        true
    });
    let out = &shared.region().out;
    for (p, run) in out.chunks(PER).enumerate() {
        assert!(
            run.windows(2).all(|w| w[0] < w[1]),
            "process {p} not increasing"
        );
    }
    let mut all = out.to_vec();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), PER * PROCS, "a value was issued twice");
    // The parent's own calls continue the same sequence.
    let last = out.iter().max().copied().unwrap();
    assert!(shared.region().generator.now_v7() > last);
}
