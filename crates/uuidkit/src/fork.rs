//! The one fork detector: a process-wide count of `fork()`s, bumped in the
//! child by a `pthread_atfork` handler registered on first use.
//!
//! Whatever must not be carried from a parent into its child (the thread
//! RNG's state, a reserved block of timestamps) remembers the generation it
//! was made in and compares it with [`generation`] before use: one relaxed
//! atomic load. A child made by a raw `clone`/`vfork` that bypasses
//! `pthread_atfork` is not seen; the RNG's periodic reseed bounds the damage
//! there.
//!
//! What a generator re-draws in the child is recorded in
//! `docs/generator-design.md` (G1): the RNG reseeds, v7/v8 counters move to
//! a freshly seeded next tick, v1/v6 change their clock sequence by the
//! difference of the process ids (so siblings forked from one parent never
//! share one) and draw a new node unless the node was given.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static GENERATION: AtomicU64 = AtomicU64::new(0);
static REGISTER: Once = Once::new();
/// Test-only: the child handler does nothing (see [`disable_for_tests`]).
static DISABLED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_fork_child() {
    if !DISABLED.load(Ordering::Relaxed) {
        GENERATION.fetch_add(1, Ordering::Relaxed);
    }
}

/// Turns fork detection off for the rest of this process and its children:
/// a forked child then continues its parent's generators as they were. It
/// exists only so that a test can show that its duplicate checker finds the
/// duplicates this causes (the negative control of the torture suite); no
/// program should call it.
pub(crate) fn disable_for_tests() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// The current fork generation. The first call registers the handler, so a
/// value read before any fork is always compared against later bumps.
#[inline]
pub(crate) fn generation() -> u64 {
    REGISTER.call_once(|| {
        #[cfg(unix)]
        // SAFETY: the handler only performs an atomic increment, which is
        // async-signal-safe and valid in a freshly forked child.
        unsafe {
            libc::pthread_atfork(None, None, Some(on_fork_child));
        }
    });
    GENERATION.load(Ordering::Relaxed)
}

/// The current fork generation without the registration check: one relaxed
/// load, for hot paths that compare against a value they got from
/// [`generation`] (which registered the handler before that value was read).
#[inline(always)]
pub(crate) fn current() -> u64 {
    GENERATION.load(Ordering::Relaxed)
}

/// The process a generator's in-memory state belongs to: the fork
/// generation and process id it was last used in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner {
    generation: u64,
    pid: u32,
}

impl Owner {
    /// This process (registering the fork handler if nothing has yet).
    pub(crate) fn here() -> Owner {
        Owner {
            generation: generation(),
            pid: std::process::id(),
        }
    }

    /// Whether the process forked since this owner was recorded: one
    /// relaxed load and a compare.
    #[inline(always)]
    pub(crate) fn forked(&self) -> bool {
        current() != self.generation
    }

    /// Makes this process the owner; returns its process id minus the
    /// previous owner's (wrapping), which differs between any two processes
    /// forked from one owner.
    #[cold]
    pub(crate) fn take_over(&mut self) -> u32 {
        let before = self.pid;
        *self = Owner::here();
        self.pid.wrapping_sub(before)
    }
}

/// Simulates a fork in tests: what a child's handler would do.
#[cfg(test)]
pub(crate) fn bump_for_test() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fork_bumps_the_generation_in_the_child_only() {
        let before = super::generation();
        // SAFETY: the child only calls async-signal-safe code (an atomic load in
        // `generation`, after registration, and `_exit`).
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let code = if super::generation() == before + 1 {
                0
            } else {
                1
            };
            // SAFETY: `_exit` is async-signal-safe and ends the child at once.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: `pid` is our child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child saw no bump"
        );
        assert_eq!(
            super::generation(),
            before,
            "the parent's generation is unchanged"
        );
    }
}
