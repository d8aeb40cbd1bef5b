//! The ticker clock (`docs/generator-design.md` G9): a reading is a recent past reading of the
//! real clock, never goes back under concurrent publishers, and a generator waiting for the next
//! tick never depends on the ticker thread: neither when it stops publishing nor in a forked
//! child, where the parent's thread does not exist.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use uuidkit::clock::{Clock, SystemClock, TickerClock};
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};

const MS: u64 = 1_000_000;

/// The ticker is one per process: tests that stop it or fork take turns.
static TURN: Mutex<()> = Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `n` IDs of a Twitter-layout generator on the ticker clock with worker `worker`, or `None` if
/// they take longer than `limit` (a generator waiting for a ticker that no longer moves).
fn ids_within(worker: u64, n: usize, limit: Duration) -> Option<Vec<u64>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut g = SnowflakeGenerator::builder(Layout::TWITTER)
            .worker(worker)
            .build(TickerClock::new(), ThreadRng)
            .expect("generator");
        let ids: Vec<u64> = (0..n).map(|_| g.generate().expect("id")).collect();
        let _ = tx.send(ids);
    });
    rx.recv_timeout(limit).ok()
}

/// IDs strictly increasing, spanning at least `ticks` ticks, the last one made at `after` or
/// later (Twitter's layout).
fn check(ids: &[u64], ticks: u64, after_ns: u64) {
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "not increasing");
    let tick = |id: u64| Layout::TWITTER.decompose(id).expect("an ID").tick;
    let (first, last) = (tick(ids[0]), tick(*ids.last().expect("IDs")));
    assert!(
        last - first + 1 >= ticks,
        "{} ticks for {} IDs",
        last - first + 1,
        ids.len()
    );
    assert!(
        Layout::TWITTER.unix_ns_of(last + 1) > after_ns,
        "the last ID's tick {last} is before the time it was made"
    );
}

#[test]
fn a_reading_is_a_recent_past_reading_of_the_real_clock_and_moves_by_itself() {
    let _t = turn();
    let clock = TickerClock::new();
    for _ in 0..1_000 {
        let before = SystemClock.now_ns();
        let t = clock.now_ns();
        let after = SystemClock.now_ns();
        assert!(t <= after, "{t} is ahead of the clock ({after})");
        // About a millisecond old; a loaded machine may delay the thread more.
        assert!(
            before.saturating_sub(t) < 500 * MS,
            "{} ms old",
            (before - t) / MS
        );
    }
    // With no generator waiting, only the thread moves it.
    let a = clock.now_ns();
    std::thread::sleep(Duration::from_millis(30));
    let b = clock.now_ns();
    assert!(b - a >= 10 * MS, "moved {} ns in 30 ms", b - a);
}

/// Readings from threads that also publish (as waiting generators do) never go back, in any
/// thread: a publisher whose reading is older than the word never replaces it.
#[test]
fn readings_never_go_back_under_concurrent_publishers() {
    let _t = turn();
    let clock = TickerClock::new();
    std::thread::scope(|s| {
        for k in 0..4u64 {
            s.spawn(move || {
                let mut last = 0;
                for i in 0..200_000u64 {
                    if i % (7 + k) == 0 {
                        clock.relax();
                    }
                    let t = clock.now_ns();
                    assert!(t >= last, "went back by {} ns", last - t);
                    last = t;
                }
            });
        }
    });
}

/// A ticker that stops publishing (a starved or stopped thread): the word stays, and a generator
/// stamps at most one tick's sequence with it, then reads the real clock itself while it waits.
#[test]
fn a_generator_on_a_stopped_ticker_reads_the_clock_itself_rather_than_wait_for_ever() {
    let _t = turn();
    let _ = TickerClock::new(); // the thread runs before it is halted
    uuidkit::__test_only::halt_ticker(true);
    // Let a beat under way finish; from then on the word moves only when a waiting generator
    // publishes.
    std::thread::sleep(Duration::from_millis(5));
    let stale = TickerClock.now_ns();
    std::thread::sleep(Duration::from_millis(20));
    let still = TickerClock.now_ns();
    let start = SystemClock.now_ns();
    let ids = ids_within(7, 3 * 4096 + 1, Duration::from_secs(20));
    uuidkit::__test_only::halt_ticker(false);
    assert_eq!(still, stale, "the ticker did not stop: nothing is tested");
    let ids = ids.expect("the generator waited for a ticker that had stopped");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
    // Four ticks at least (three used up), and the last one real: the clock read by the waits.
    check(&ids, 4, start);
}

#[cfg(unix)]
mod fork {
    use super::*;

    /// Forks; the child runs `f` and exits with its result as status (254 if `f` panics); the
    /// parent waits at most `limit`, then kills the child and reports 255, as for a signal.
    fn in_child(limit: Duration, f: impl FnOnce() -> i32) -> i32 {
        // SAFETY: the child runs `f` and exits; the allocator and the ticker's state are valid
        // in a fresh child (glibc's and the fork handler's).
        let mut child = unsafe {
            test_support::fork::Forked::spawn(|_| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(254)
            })
        };
        child.wait_within(limit).unwrap_or(255)
    }

    /// A forked child has only the thread that forked: its ticker is its own, started by its
    /// first reading. Its readings move by themselves, and its generator never waits on the
    /// parent's thread.
    #[test]
    fn a_forked_child_starts_a_ticker_of_its_own() {
        let _t = turn();
        let mut parent = SnowflakeGenerator::builder(Layout::TWITTER)
            .worker(1)
            .build(TickerClock::new(), ThreadRng)
            .expect("generator");
        let before = parent.generate().expect("id");
        let code = in_child(Duration::from_secs(20), || {
            let a = TickerClock.now_ns();
            std::thread::sleep(Duration::from_millis(30));
            let b = TickerClock.now_ns();
            if b < a + 10 * MS {
                return 1; // frozen: no ticker in the child
            }
            let start = SystemClock.now_ns();
            let mut g = SnowflakeGenerator::builder(Layout::TWITTER)
                .worker(2)
                .build(TickerClock::new(), ThreadRng)
                .expect("generator");
            let ids: Vec<u64> = (0..2 * 4096 + 1)
                .map(|_| g.generate().expect("id"))
                .collect();
            check(&ids, 3, start);
            0
        });
        assert_eq!(
            code, 0,
            "1: the child's readings stood still; 255: the child hung"
        );
        assert!(
            parent.generate().expect("id") > before,
            "the parent goes on"
        );
    }
}
