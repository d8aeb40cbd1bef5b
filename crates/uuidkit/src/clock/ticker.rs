//! The process's one ticker: a thread that publishes a reading of the
//! real-time clock into a word every millisecond, so that a [`TickerClock`]
//! reading is one load (`docs/generator-design.md` G9).
//!
//! What the word holds, and why it is safe for a generator to stamp IDs
//! with it:
//!
//! * **A past reading, never a guess.** Every value published is a reading of
//!   `CLOCK_REALTIME` taken by the publisher. A stale word stamps an ID with
//!   an older time, as a generator paused between its clock reading and its
//!   ID would; it never runs ahead of the clock.
//! * **It goes back only when the wall clock did.** A publisher loads the word
//!   first and reads the clock after: absent a step of the wall clock, that
//!   reading is at least the word, and it goes in with `fetch_max`. A reading
//!   below the word proves a step back; it replaces exactly the value loaded
//!   (a compare-and-swap), so a late publisher's old reading never undoes a
//!   newer one. A generator meets a real step back with its clock-back policy,
//!   as it would with [`SystemClock`](super::SystemClock).
//! * **Waiting never depends on the thread.** A generator that waits for the
//!   next tick calls [`Clock::relax`] between readings; the ticker clock's
//!   relax reads the real clock and publishes it, so a starved or missing
//!   thread can delay nothing. It also starts a thread if this process has
//!   none (a forked child, a stopped ticker).
//! * **One thread per process, started lazily.** The first reading starts it;
//!   a forked child (which has only the thread that forked) finds the word
//!   and the state cleared by the fork handler, and starts its own on its
//!   first reading. Nothing here depends on a process id.

use core::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use super::{Clock, system_now_ns};

/// The last reading published, in Unix nanoseconds; 0: none in this process
/// (not started yet, or cleared in a forked child).
static NOW: AtomicU64 = AtomicU64::new(0);
/// The thread's state in this process.
static STATE: AtomicU8 = AtomicU8::new(IDLE);
const IDLE: u8 = 0;
const STARTING: u8 = 1;
const RUNNING: u8 = 2;
/// The thread could not be started: every reading reads the clock.
const FAILED: u8 = 3;
/// Test-only: the thread stops publishing (a starved or stopped ticker).
static HALTED: AtomicBool = AtomicBool::new(false);

/// How often the thread publishes: every millisecond, just after the wall
/// clock's millisecond begins, so a 1-ms layout's tick is usually current.
const PERIOD_NS: u64 = 1_000_000;

/// A reading: one load; the first in a process (or a forked child) starts
/// the thread.
#[inline(always)]
pub(super) fn now_ns() -> u64 {
    match NOW.load(Ordering::Relaxed) {
        0 => first_reading(),
        t => t,
    }
}

#[cold]
#[inline(never)]
fn first_reading() -> u64 {
    ensure_running();
    if STATE.load(Ordering::Acquire) == FAILED {
        // No thread: the word stays empty, and every reading is the clock's.
        return system_now_ns();
    }
    publish()
}

/// Reads the real clock and publishes the reading under the rules above;
/// returns the reading.
fn publish() -> u64 {
    let seen = NOW.load(Ordering::Acquire);
    let t = system_now_ns();
    publish_into(&NOW, seen, t);
    t
}

/// Publishes `t`, a clock reading taken after `word` was seen to hold `seen`.
fn publish_into(word: &AtomicU64, seen: u64, t: u64) {
    if t >= seen {
        word.fetch_max(t, Ordering::AcqRel);
    } else {
        // Read after `seen` was published, yet below it: the wall clock went
        // back. Replace exactly what was seen; if another publisher came
        // between, the next beat tries again.
        let _ = word.compare_exchange(seen, t, Ordering::AcqRel, Ordering::Relaxed);
    }
}

/// What a waiting generator does between readings: reads the real clock and
/// publishes it, and starts a thread if this process has none.
pub(super) fn relax() {
    core::hint::spin_loop();
    if STATE.load(Ordering::Acquire) != RUNNING {
        ensure_running();
    }
    if STATE.load(Ordering::Acquire) != FAILED {
        publish();
    }
}

/// Starts the thread unless this process has one (or could not make one).
#[cold]
fn ensure_running() {
    // The fork handler that clears the word in a child is registered with
    // the generators' one (G1); register it before the first thread exists.
    let _ = crate::fork::generation();
    if STATE
        .compare_exchange(IDLE, STARTING, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("uuidkit-ticker".into())
        .spawn(beat);
    STATE.store(
        if spawned.is_ok() { RUNNING } else { FAILED },
        Ordering::Release,
    );
}

/// The thread: publish, then sleep to just past the next millisecond.
fn beat() {
    loop {
        let t = if HALTED.load(Ordering::Relaxed) {
            system_now_ns()
        } else {
            publish()
        };
        let wait = PERIOD_NS - t % PERIOD_NS;
        std::thread::sleep(Duration::from_nanos(wait));
    }
}

/// In a forked child (from the fork handler: atomic stores only): the
/// parent's thread is not here, and its last reading grows staler.
#[cfg(unix)]
pub(crate) fn after_fork_in_child() {
    NOW.store(0, Ordering::Relaxed);
    STATE.store(IDLE, Ordering::Relaxed);
}

/// Test-only: the thread stops publishing (`true`) or publishes again.
pub(crate) fn halt_for_tests(halted: bool) {
    HALTED.store(halted, Ordering::Relaxed);
}

/// A clock read from a word that one thread per process refreshes every
/// millisecond: a reading is one atomic load, where [`SystemClock`]'s is a
/// `CLOCK_REALTIME` call (about 20 ns). Made for
/// [`SnowflakeGenerator`](crate::snowflake::SnowflakeGenerator) with a fixed
/// worker, whose per-ID cost is otherwise mostly that call.
///
/// What it trades, and what stays safe (`docs/generator-design.md` G9):
///
/// * A reading is a real reading of `CLOCK_REALTIME` at most about a
///   millisecond old (longer if the thread is starved): an ID may carry a
///   slightly earlier time than [`SystemClock`] would give, never a later one.
///   A lease's deadline checked against the same reading therefore holds.
/// * A generator waiting for the next tick reads the real clock itself (in
///   [`Clock::relax`]), so a starved, stopped or missing thread never makes it
///   wait longer than with [`SystemClock`].
/// * One thread per process, started by the first reading; a forked child
///   starts its own on its first reading. The thread never exits.
/// * The reading goes back only when the wall clock is stepped back; the
///   generators meet that with their clock-back policy, as with
///   [`SystemClock`].
///
/// Worth it in a long-lived process that makes many IDs; a short-lived one
/// (a command-line run) pays for the thread's start more than it saves.
///
/// [`SystemClock`]: super::SystemClock
///
/// ```
/// use uuidkit::clock::{Clock, SystemClock, TickerClock};
/// use uuidkit::{rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
///
/// let clock = TickerClock::new();
/// let before = SystemClock.now_ns();
/// let t = clock.now_ns();
/// assert!(t <= SystemClock.now_ns() && before.saturating_sub(t) < 1_000_000_000); // a past reading, not far back
/// let mut g = SnowflakeGenerator::builder(Layout::TWITTER).worker(1).build(clock, ThreadRng)?;
/// let (a, b) = (g.generate()?, g.generate()?);
/// assert!(b > a);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TickerClock;

impl TickerClock {
    /// The process's ticker clock; starts the thread if this process has none.
    ///
    /// ```
    /// use uuidkit::clock::{Clock, TickerClock};
    /// assert!(TickerClock::new().now_ns() > 1_600_000_000_000_000_000); // after September 2020
    /// ```
    #[must_use]
    pub fn new() -> TickerClock {
        now_ns();
        TickerClock
    }
}

impl Clock for TickerClock {
    #[inline(always)]
    fn now_ns(&self) -> u64 {
        now_ns()
    }

    fn relax(&self) {
        relax();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A publisher preempted between its reading and its store comes back with
    /// a reading older than the word: the word keeps the newer one.
    #[test]
    fn a_late_publisher_never_takes_the_word_back() {
        let word = AtomicU64::new(200);
        publish_into(&word, 100, 150); // saw 100, read 150, meanwhile someone published 200
        assert_eq!(word.load(Ordering::Relaxed), 200);
        publish_into(&word, 200, 250);
        assert_eq!(word.load(Ordering::Relaxed), 250);
    }

    /// A reading below what was seen before it was taken is a step of the wall
    /// clock: it is followed, unless a newer reading came in between.
    #[test]
    fn a_step_back_of_the_wall_clock_is_followed_once_seen() {
        let word = AtomicU64::new(1_000);
        publish_into(&word, 1_000, 400);
        assert_eq!(word.load(Ordering::Relaxed), 400);
        let word = AtomicU64::new(1_200);
        publish_into(&word, 1_000, 400); // 1_200 came in between: the next beat decides
        assert_eq!(word.load(Ordering::Relaxed), 1_200);
    }
}
