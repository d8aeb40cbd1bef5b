//! The one fork detector: a process-wide count of `fork()`s, bumped in the
//! child by a `pthread_atfork` handler registered on first use.
//!
//! Whatever must not be carried from a parent into its child (the thread
//! RNG's state, a reserved block of timestamps) remembers the generation it
//! was made in and compares it with [`generation`] before use: one relaxed
//! atomic load. A child made by a raw `clone`/`vfork` that bypasses
//! `pthread_atfork` is not seen; the RNG's periodic reseed bounds the damage
//! there.

use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

static GENERATION: AtomicU64 = AtomicU64::new(0);
static REGISTER: Once = Once::new();

#[cfg(unix)]
extern "C" fn on_fork_child() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
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
