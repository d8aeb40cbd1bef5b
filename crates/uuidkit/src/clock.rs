//! Time sources for the generators: the [`Clock`] trait, the system clocks and a
//! [`ManualClock`] for tests.
//!
//! Every time-based generator takes its clock as a value, so that tests can drive
//! time by hand and so that no generator is tied to the real clock.

use core::sync::atomic::{AtomicU64, Ordering};

// A thread per process publishing the clock: not on a JavaScript host, which has no threads.
#[cfg(all(
    feature = "std",
    not(all(target_arch = "wasm32", target_os = "unknown"))
))]
pub(crate) mod ticker;
#[cfg(all(
    feature = "std",
    not(all(target_arch = "wasm32", target_os = "unknown"))
))]
pub use ticker::TickerClock;

/// A source of wall-clock time: nanoseconds since the Unix epoch
/// (1970-01-01T00:00:00Z, leap seconds excluded, as POSIX and RFC 9562 §5.7 count).
///
/// The generators read it once per UUID (once per batch for the `fill` methods)
/// and never assume it is monotonic: a clock that steps back is handled by each
/// generator's documented policy.
///
/// ```
/// use uuidkit::clock::{Clock, ManualClock};
/// let clock = ManualClock::new(1_645_557_742_000_000_000);
/// assert_eq!(clock.now_ns(), 1_645_557_742_000_000_000);
/// assert_eq!(clock.resolution_ns(), 1);
/// ```
pub trait Clock {
    /// The current time in nanoseconds since the Unix epoch.
    fn now_ns(&self) -> u64;

    /// The clock's resolution in nanoseconds (at least 1): readings are multiples of
    /// it, and a reading may be up to this much behind the true time.
    ///
    /// v1/v6 generators count several UUIDs per reading (RFC 9562 §6.1), up to
    /// this many nanoseconds' worth of 100-ns ticks, so they never run more than
    /// one resolution step ahead of the clock.
    fn resolution_ns(&self) -> u64 {
        1
    }

    /// Called by a generator that waits for the clock to advance (the
    /// [`RolloverPolicy::Wait`](crate::generator::RolloverPolicy::Wait) policy), between two
    /// readings. The default is a spin-loop hint; a [`ManualClock`] may advance
    /// itself here so that waiting is deterministic in tests.
    fn relax(&self) {
        core::hint::spin_loop();
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    #[inline]
    fn now_ns(&self) -> u64 {
        (**self).now_ns()
    }
    #[inline]
    fn resolution_ns(&self) -> u64 {
        (**self).resolution_ns()
    }
    #[inline]
    fn relax(&self) {
        (**self).relax()
    }
}

#[cfg(feature = "std")]
impl<C: Clock + ?Sized> Clock for std::sync::Arc<C> {
    #[inline]
    fn now_ns(&self) -> u64 {
        (**self).now_ns()
    }
    #[inline]
    fn resolution_ns(&self) -> u64 {
        (**self).resolution_ns()
    }
    #[inline]
    fn relax(&self) {
        (**self).relax()
    }
}

/// A clock set by hand, for deterministic tests. It is shared through `&` (the
/// reading is an atomic), so a test can keep a reference and move time while a
/// generator holds another.
///
/// ```
/// use uuidkit::clock::{Clock, ManualClock};
/// let clock = ManualClock::new(1_000);
/// clock.advance(500);
/// assert_eq!(clock.now_ns(), 1_500);
/// clock.set(10);                  // steps back are allowed: that is what tests need
/// assert_eq!(clock.now_ns(), 10);
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    now: AtomicU64,
    resolution: u64,
    step_on_relax: u64,
}

impl ManualClock {
    /// A clock stopped at `unix_ns`, with 1 ns resolution, that never moves by itself.
    /// A generator that must wait for the next tick
    /// ([`RolloverPolicy::Wait`](crate::generator::RolloverPolicy::Wait), the v1/v6
    /// default) waits on it for ever unless it is advanced from another thread
    /// or built [`advancing_on_relax`](Self::advancing_on_relax).
    ///
    /// ```
    /// assert_eq!(uuidkit::clock::ManualClock::new(7).now(), 7);
    /// ```
    #[must_use]
    pub const fn new(unix_ns: u64) -> ManualClock {
        ManualClock {
            now: AtomicU64::new(unix_ns),
            resolution: 1,
            step_on_relax: 0,
        }
    }

    /// Reports `resolution_ns` (at least 1) as the clock's resolution.
    ///
    /// ```
    /// use uuidkit::clock::{Clock, ManualClock};
    /// assert_eq!(ManualClock::new(0).with_resolution(1_000).resolution_ns(), 1_000);
    /// ```
    #[must_use]
    pub const fn with_resolution(mut self, resolution_ns: u64) -> ManualClock {
        self.resolution = if resolution_ns == 0 { 1 } else { resolution_ns };
        self
    }

    /// Makes [`Clock::relax`] advance the clock by `step_ns`, so a generator that
    /// waits for time to pass makes progress deterministically.
    ///
    /// ```
    /// use uuidkit::clock::{Clock, ManualClock};
    /// let c = ManualClock::new(0).advancing_on_relax(1_000_000);
    /// c.relax();
    /// assert_eq!(c.now(), 1_000_000);
    /// ```
    #[must_use]
    pub const fn advancing_on_relax(mut self, step_ns: u64) -> ManualClock {
        self.step_on_relax = step_ns;
        self
    }

    /// The current reading.
    ///
    /// ```
    /// assert_eq!(uuidkit::clock::ManualClock::new(3).now(), 3);
    /// ```
    pub fn now(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }

    /// Sets the reading (forwards or backwards).
    ///
    /// ```
    /// let c = uuidkit::clock::ManualClock::new(3);
    /// c.set(1);
    /// assert_eq!(c.now(), 1);
    /// ```
    pub fn set(&self, unix_ns: u64) {
        self.now.store(unix_ns, Ordering::SeqCst);
    }

    /// Moves the reading forwards by `ns` (saturating).
    ///
    /// ```
    /// let c = uuidkit::clock::ManualClock::new(3);
    /// c.advance(2);
    /// assert_eq!(c.now(), 5);
    /// ```
    pub fn advance(&self, ns: u64) {
        let _ = self
            .now
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                Some(t.saturating_add(ns))
            });
    }

    /// Moves the reading backwards by `ns` (saturating at 0).
    ///
    /// ```
    /// let c = uuidkit::clock::ManualClock::new(3);
    /// c.step_back(5);
    /// assert_eq!(c.now(), 0);
    /// ```
    pub fn step_back(&self, ns: u64) {
        let _ = self
            .now
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                Some(t.saturating_sub(ns))
            });
    }
}

impl Clock for ManualClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        self.now()
    }
    #[inline]
    fn resolution_ns(&self) -> u64 {
        self.resolution
    }
    fn relax(&self) {
        if self.step_on_relax == 0 {
            core::hint::spin_loop();
        } else {
            self.advance(self.step_on_relax);
        }
    }
}

/// Waits until `clock` reads at least `target_ns`: relaxing between readings
/// (so a [`ManualClock`] that advances on relax makes progress), and with
/// `std`, sleeping in short steps while the target is far and the clock hardly
/// moved during a relax, so a long wait does not spin.
pub(crate) fn wait_until<C: Clock + ?Sized>(clock: &C, target_ns: u64) {
    loop {
        let now = clock.now_ns();
        if now >= target_ns {
            return;
        }
        clock.relax();
        // No thread can sleep on a JavaScript host: spin there.
        #[cfg(all(
            feature = "std",
            not(all(target_arch = "wasm32", target_os = "unknown"))
        ))]
        {
            let moved = clock.now_ns().saturating_sub(now);
            if target_ns - now > 2_000_000 && moved < 1_000_000 {
                std::thread::sleep(core::time::Duration::from_millis(1));
            }
        }
    }
}

/// The system's real-time clock at full precision (`CLOCK_REALTIME` on Unix,
/// through `std::time::SystemTime`). Every system generator uses it by default:
/// v7, v8, and v1/v6 (`V1Generator::system`), whose UUIDs then carry the 100-ns
/// tick they were made in.
///
/// On `wasm32-unknown-unknown` with the `js` feature it is the host's
/// `Date.now()` (1 ms resolution, reported by [`Clock::resolution_ns`]);
/// without `js` there, `SystemTime` panics, so give the generators a clock
/// of your own.
///
/// A time before 1970 reads as 0; after the year 2554 (the end of `u64`
/// nanoseconds) it saturates.
///
/// ```
/// use uuidkit::clock::{Clock, SystemClock};
/// let t = SystemClock.now_ns();
/// assert!(t > 1_600_000_000_000_000_000); // after September 2020
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

#[cfg(feature = "std")]
impl Clock for SystemClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        system_now_ns()
    }

    #[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "js"))]
    fn resolution_ns(&self) -> u64 {
        crate::external::js::RESOLUTION_NS
    }

    /// `clock_getres(CLOCK_REALTIME)`, asked once per process: 1 ns on
    /// Linux, so a v1/v6 generator stamps each UUID with the 100-ns tick it
    /// was made in; on a coarser platform clock it counts ticks within one
    /// reading (RFC 9562 §6.1).
    #[cfg(unix)]
    #[inline]
    fn resolution_ns(&self) -> u64 {
        realtime::resolution_ns()
    }
}

#[cfg(all(feature = "std", unix))]
mod realtime {
    use core::sync::atomic::{AtomicU64, Ordering};

    /// The resolution once asked; 0 before.
    static RESOLUTION: AtomicU64 = AtomicU64::new(0);

    #[inline]
    pub(super) fn resolution_ns() -> u64 {
        match RESOLUTION.load(Ordering::Relaxed) {
            0 => ask(),
            r => r,
        }
    }

    #[cold]
    fn ask() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; CLOCK_REALTIME exists on
        // every Unix.
        let rc = unsafe { libc::clock_getres(libc::CLOCK_REALTIME, &mut ts) };
        let r = if rc != 0 || ts.tv_sec < 0 {
            1
        } else {
            (ts.tv_sec as u64)
                .saturating_mul(1_000_000_000)
                .saturating_add(ts.tv_nsec as u64)
                .max(1)
        };
        RESOLUTION.store(r, Ordering::Relaxed);
        r
    }
}

/// Nanoseconds since the Unix epoch from `SystemTime` (0 before 1970, saturating).
#[cfg(feature = "std")]
#[inline]
pub(crate) fn system_now_ns() -> u64 {
    // `SystemTime` panics on wasm32-unknown-unknown: ask the JavaScript host.
    #[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "js"))]
    {
        crate::external::js::now_ns()
    }
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown", feature = "js")))]
    {
        // `SystemTime::now().duration_since(UNIX_EPOCH)` reads the same clock but
        // spends a third of the time in the conversion through `Duration`; this is
        // the hot part of `Uuid::now_v7`, so read `CLOCK_REALTIME` directly.
        #[cfg(unix)]
        {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: `ts` is a valid, writable timespec and CLOCK_REALTIME exists
            // on every Unix.
            if unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) } == 0 {
                return match u64::try_from(ts.tv_sec) {
                    // tv_nsec is in 0..1e9 when the call succeeds.
                    Ok(s) => s
                        .saturating_mul(1_000_000_000)
                        .saturating_add(ts.tv_nsec as u64),
                    Err(_) => 0, // before 1970
                };
            }
        }
        match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
            Err(_) => 0,
        }
    }
}

/// The system's cheap, coarse real-time clock: `CLOCK_REALTIME_COARSE` on Linux
/// (typically 1–4 ms resolution, read in a few nanoseconds through the vDSO), the
/// full-precision clock elsewhere. [`Clock::resolution_ns`] reports the true
/// resolution (from `clock_getres`), so the v1/v6 generators given it count
/// UUIDs within one reading as RFC 9562 §6.1 describes.
///
/// Those counted ticks are the same in every process that reads the same
/// coarse value: two v1/v6 generators with one node (a given node, or a
/// shared state file's) and equal clock sequences then issue the same
/// timestamps even though they never ran in the same 100-ns tick. The
/// system generators (`V1Generator::system`) use [`SystemClock`] for that
/// reason (`docs/generator-design.md` G8); use this one only where a node
/// and clock sequence are this process's alone.
///
/// ```
/// use uuidkit::clock::{Clock, CoarseClock};
/// let c = CoarseClock::new();
/// assert!(c.resolution_ns() >= 1);
/// assert!(c.now_ns() > 1_600_000_000_000_000_000);
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug)]
pub struct CoarseClock {
    resolution: u64,
}

#[cfg(feature = "std")]
impl CoarseClock {
    /// Queries the resolution once.
    ///
    /// ```
    /// use uuidkit::clock::{Clock, CoarseClock};
    /// let clock = CoarseClock::new();
    /// assert_eq!(clock.resolution_ns(), CoarseClock::new().resolution_ns());
    /// ```
    #[must_use]
    pub fn new() -> CoarseClock {
        CoarseClock {
            resolution: coarse::resolution_ns(),
        }
    }
}

#[cfg(feature = "std")]
impl Default for CoarseClock {
    fn default() -> CoarseClock {
        CoarseClock::new()
    }
}

#[cfg(feature = "std")]
impl Clock for CoarseClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        coarse::now_ns()
    }
    #[inline]
    fn resolution_ns(&self) -> u64 {
        self.resolution
    }
}

#[cfg(all(feature = "std", any(target_os = "linux", target_os = "android")))]
mod coarse {
    #[inline]
    pub(super) fn now_ns() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; CLOCK_REALTIME_COARSE exists on
        // every Linux since 2.6.32 and the call cannot fail with valid arguments.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) };
        if rc != 0 || ts.tv_sec < 0 {
            return super::system_now_ns();
        }
        (ts.tv_sec as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add(ts.tv_nsec as u64)
    }

    pub(super) fn resolution_ns() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: as above.
        let rc = unsafe { libc::clock_getres(libc::CLOCK_REALTIME_COARSE, &mut ts) };
        if rc != 0 || ts.tv_sec < 0 {
            return 1;
        }
        let r = (ts.tv_sec as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add(ts.tv_nsec as u64);
        r.max(1)
    }
}

#[cfg(all(feature = "std", not(any(target_os = "linux", target_os = "android"))))]
mod coarse {
    #[inline]
    pub(super) fn now_ns() -> u64 {
        super::system_now_ns()
    }
    pub(super) fn resolution_ns() -> u64 {
        1
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::system_now_ns;
    use std::time::{SystemTime, UNIX_EPOCH};

    fn std_now_ns() -> u128 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    }

    /// The direct clock read is the clock `SystemTime` reads: each reading
    /// lies between a `SystemTime` reading taken before and one taken after
    /// (with 1 ms of slack for a clock stepped by NTP in between).
    #[test]
    fn system_now_ns_reads_the_system_time_clock() {
        for _ in 0..1_000 {
            let before = std_now_ns();
            let ours = u128::from(system_now_ns());
            let after = std_now_ns();
            assert!(
                before <= ours + 1_000_000 && ours <= after + 1_000_000,
                "{before} <= {ours} <= {after}"
            );
        }
    }
}
