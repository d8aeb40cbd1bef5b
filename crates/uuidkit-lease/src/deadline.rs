//! The safety rule every lease source keeps: a local deadline after which its node is reported
//! lost even though no failure has been observed (docs/distributed-generation.md, "The lease
//! deadline").
//!
//! A registry grants a node for a time to live (TTL) counted from when it *received* the grant
//! or renewal request; the holder counts the same TTL from when it *sent* that request, which is
//! earlier, on a clock that keeps running while the process is stopped or the machine sleeps
//! ([`BootTime`]), and takes a margin off for the two clocks' rate difference. Its deadline is
//! therefore before the registry can grant the node to anyone else, whatever happened in
//! between: a pause (SIGSTOP, a frozen VM), a partition, a renewal thread that never ran.

use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use uuidkit::node::{NodeId, NodeLost, NodeLostKind, NodeSlot, NodeSource};

use crate::{LeaseError, LeaseErrorKind};

/// A clock that never goes back and keeps counting while the process is stopped and while the
/// machine is suspended: the clock lease deadlines are kept on. Its zero is arbitrary; only
/// differences count.
///
/// ```
/// use std::time::Duration;
/// use uuidkit_lease::{BootClock, BootTime, ManualBootClock};
///
/// let a = BootTime.now();
/// assert!(BootTime.now() >= a);
/// let manual = ManualBootClock::new(Duration::from_secs(5));
/// manual.advance(Duration::from_millis(1500));
/// assert_eq!(manual.now(), Duration::from_millis(6500));
/// ```
pub trait BootClock: Send + Sync + fmt::Debug {
    /// The time since the clock's zero.
    fn now(&self) -> Duration;

    /// [`now`](Self::now) in nanoseconds (saturating): what a
    /// [`LeaseClock`](crate::LeaseClock) reads before every UUID, so a clock may give it more
    /// cheaply than through a [`Duration`].
    ///
    /// ```
    /// use uuidkit_lease::{BootClock, BootTime};
    /// let (a, b) = (BootTime.now_nanos(), BootTime.now().as_nanos() as u64);
    /// assert!(b >= a && b - a < 1_000_000_000);
    /// ```
    #[inline]
    fn now_nanos(&self) -> u64 {
        u64::try_from(self.now().as_nanos()).unwrap_or(u64::MAX)
    }

    /// The Unix time, in nanoseconds, of the clock's zero: a reading plus this is wall-clock
    /// time. The default compares the system's wall clock with [`now`](Self::now), so it moves
    /// when the wall clock is stepped or slewed; it is sampled, not read per UUID
    /// ([`LeaseClock`](crate::LeaseClock)).
    ///
    /// ```
    /// use uuidkit_lease::{BootClock, BootTime};
    ///
    /// let unix = BootTime.unix_at_zero() + BootTime.now().as_nanos() as u64;
    /// assert!(unix > 1_600_000_000_000_000_000); // after September 2020
    /// ```
    fn unix_at_zero(&self) -> u64 {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        u64::try_from(wall.saturating_sub(self.now().as_nanos())).unwrap_or(u64::MAX)
    }
}

impl<C: BootClock + ?Sized> BootClock for &C {
    fn now(&self) -> Duration {
        (**self).now()
    }
    #[inline]
    fn now_nanos(&self) -> u64 {
        (**self).now_nanos()
    }
    fn unix_at_zero(&self) -> u64 {
        (**self).unix_at_zero()
    }
}

impl<C: BootClock + ?Sized> BootClock for std::sync::Arc<C> {
    fn now(&self) -> Duration {
        (**self).now()
    }
    #[inline]
    fn now_nanos(&self) -> u64 {
        (**self).now_nanos()
    }
    fn unix_at_zero(&self) -> u64 {
        (**self).unix_at_zero()
    }
}

/// The system's boot clock: `CLOCK_BOOTTIME` on Linux and Android, which counts time suspended;
/// elsewhere the monotonic clock of [`std::time::Instant`], which keeps counting while the
/// process is stopped but, on some systems, not while the machine sleeps.
///
/// ```
/// use uuidkit_lease::{BootClock, BootTime};
///
/// let (a, b) = (BootTime.now(), BootTime.now());
/// assert!(b >= a && a.as_nanos() > 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BootTime;

impl BootClock for BootTime {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[inline]
    fn now(&self) -> Duration {
        let ts = boot_timespec();
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[inline]
    fn now_nanos(&self) -> u64 {
        let ts = boot_timespec();
        // The boot clock counts from boot: seconds fit many centuries of nanoseconds.
        (ts.tv_sec as u64)
            .wrapping_mul(1_000_000_000)
            .wrapping_add(ts.tv_nsec as u64)
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn now(&self) -> Duration {
        static ZERO: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        ZERO.get_or_init(std::time::Instant::now).elapsed()
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline]
fn boot_timespec() -> libc::timespec {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime fills the timespec it is given; CLOCK_BOOTTIME exists on every
    // Linux this crate builds for (2.6.39 and later).
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    debug_assert_eq!(rc, 0);
    ts
}

/// A boot clock that moves only when told: deadlines tested without waiting.
///
/// ```
/// use std::time::Duration;
/// use uuidkit_lease::{BootClock, ManualBootClock};
///
/// let c = ManualBootClock::new(Duration::ZERO);
/// c.set(Duration::from_secs(3));
/// assert_eq!(c.now(), Duration::from_secs(3));
/// ```
#[derive(Debug, Default)]
pub struct ManualBootClock {
    nanos: AtomicU64,
}

impl ManualBootClock {
    /// A clock reading `start`.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use uuidkit_lease::{BootClock, ManualBootClock};
    /// assert_eq!(ManualBootClock::new(Duration::from_secs(1)).now(), Duration::from_secs(1));
    /// ```
    pub fn new(start: Duration) -> ManualBootClock {
        ManualBootClock {
            nanos: AtomicU64::new(nanos(start)),
        }
    }

    /// Moves the clock forward by `by`.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use uuidkit_lease::{BootClock, ManualBootClock};
    /// let c = ManualBootClock::new(Duration::ZERO);
    /// c.advance(Duration::from_millis(7));
    /// assert_eq!(c.now(), Duration::from_millis(7));
    /// ```
    pub fn advance(&self, by: Duration) {
        self.nanos.fetch_add(nanos(by), Ordering::SeqCst);
    }

    /// Sets the clock to `to`.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use uuidkit_lease::{BootClock, ManualBootClock};
    /// let c = ManualBootClock::new(Duration::ZERO);
    /// c.set(Duration::from_secs(9));
    /// assert_eq!(c.now(), Duration::from_secs(9));
    /// ```
    pub fn set(&self, to: Duration) {
        self.nanos.store(nanos(to), Ordering::SeqCst);
    }
}

impl BootClock for ManualBootClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }

    /// Fixed, so that tests are deterministic: [`MANUAL_UNIX_AT_ZERO`].
    fn unix_at_zero(&self) -> u64 {
        MANUAL_UNIX_AT_ZERO
    }
}

/// The Unix time a [`ManualBootClock`]'s zero stands for: 2023-11-14T22:13:20Z.
///
/// ```
/// use uuidkit_lease::{BootClock, MANUAL_UNIX_AT_ZERO, ManualBootClock};
/// assert_eq!(ManualBootClock::default().unix_at_zero(), MANUAL_UNIX_AT_ZERO);
/// ```
pub const MANUAL_UNIX_AT_ZERO: u64 = 1_700_000_000_000_000_000;

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// How long [`LeaseSlot::retire`] waits between marking a node lost and letting it go back to
/// the registry: two milliseconds, so that even a clock slewed by NTP (at most 500 ppm) has
/// moved on to another millisecond.
pub const RELEASE_GAP: Duration = Duration::from_millis(2);

/// The margin taken off a lease's TTL unless configured: a twentieth of the TTL, at least
/// 100 ms. It covers a rate difference between the holder's and the registry's clocks of up to
/// 5 % (a hundred times the 500 ppm an NTP-disciplined clock may slew) and, for short TTLs, the
/// scheduling delay between a check of the deadline and the UUID it allows.
///
/// ```
/// use std::time::Duration;
/// use uuidkit_lease::default_margin;
///
/// assert_eq!(default_margin(Duration::from_secs(60)), Duration::from_secs(3));
/// assert_eq!(default_margin(Duration::from_secs(1)), Duration::from_millis(100));
/// ```
pub fn default_margin(ttl: Duration) -> Duration {
    (ttl / 20).max(MIN_MARGIN)
}

const MIN_MARGIN: Duration = Duration::from_millis(100);

/// The deadline word: the deadline in whole [ticks](TICK_SHIFT) of the boot clock (rounded
/// down) above the low [`TAG_BITS`] bits, which hold the epoch of the tenure it belongs to.
const TAG_BITS: u32 = 24;
const TAG: u64 = (1 << TAG_BITS) - 1;
/// The latest deadline a word can hold, in ticks: later ones are held as this.
pub(crate) const MAX_DEADLINE_TICK: u64 = u64::MAX >> TAG_BITS;

/// Deadlines are judged in ticks of 2^20 ns (about 1.05 ms): a reading becomes a tick by a
/// shift, not a division, on the path every UUID takes. A reading in the deadline's own tick
/// counts as past it, so the node is reported lost up to one tick early, never late. The 40 bits
/// above the tag hold 2^60 ns of boot time, 36 years.
pub(crate) const TICK_SHIFT: u32 = 20;

/// A boot-clock reading in nanoseconds, in ticks.
#[inline(always)]
pub(crate) const fn tick(nanos: u64) -> u64 {
    nanos >> TICK_SHIFT
}

/// The writer's side: the tenure the slot publishes.
#[derive(Debug, Default)]
struct Tenure {
    /// The slot's epoch: the number of grants so far (the slot counts the same).
    epoch: u64,
    /// The node held, if any.
    value: Option<u64>,
    /// The deadline, for the writer's own decisions (exact, not rounded).
    deadline: Duration,
}

/// A [`NodeSlot`] with a lease deadline: the [`NodeSource`] every lease source hands to its
/// generators. The lease's client thread publishes grants and renewals
/// ([`grant`](Self::grant), [`renew`](Self::renew)), each with the boot-clock instant its request
/// was sent and the TTL the registry granted; [`current`](NodeSource::current) gives the node
/// only before `sent + TTL − margin`, and reports it lost after that even if no renewal failed
/// yet (the client may be stopped, cut off, or waiting for an answer that will not come).
///
/// A node that comes back after its deadline passed comes back as a new epoch, so generators
/// start a new clock sequence (v1/v6) or counter (v8) for it, as for any new tenure.
///
/// Reading costs the slot's few atomic loads, one more, and one read of the boot clock.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use uuidkit::node::{NodeLostKind, NodeSource};
/// use uuidkit_lease::{LeaseSlot, ManualBootClock};
///
/// let clock = Arc::new(ManualBootClock::new(Duration::from_secs(100)));
/// let slot = LeaseSlot::new(16, clock.clone(), Duration::from_millis(100))?;
/// let sent = clock.now();
/// let node = slot.grant(0xBEEF, sent, Duration::from_secs(2))?; // TTL 2 s
/// assert_eq!(slot.current(), Ok(node));
/// clock.advance(Duration::from_millis(1899));
/// assert_eq!(slot.current(), Ok(node));
/// clock.advance(Duration::from_millis(1)); // sent + 2 s − 100 ms: no renewal arrived
/// assert_eq!(slot.current().unwrap_err().kind(), NodeLostKind::RenewalFailed);
/// # use uuidkit_lease::BootClock;
/// # Ok::<(), uuidkit_lease::LeaseError>(())
/// ```
#[derive(Debug)]
pub struct LeaseSlot<C: BootClock = BootTime> {
    slot: NodeSlot,
    word: AtomicU64,
    /// The epoch of the latest tenure published, whole (the word holds its low bits): stored
    /// before the word, so a reader that acquired a word sees this epoch or a later one.
    epoch: AtomicU64,
    clock: C,
    margin: Duration,
    enforced: AtomicBool,
    /// The clock's [`BootClock::unix_at_zero`], sampled at every grant and renewal.
    unix_at_zero: AtomicU64,
    /// The largest sample of it so far: the pair clock's readings never exceed this plus the
    /// boot clock's reading.
    top_zero: AtomicU64,
    /// Test-only: nanoseconds added to every sample ([`offset_wall`](Self::offset_wall)).
    wall_offset: AtomicI64,
    writer: Mutex<Tenure>,
}

impl<C: BootClock> LeaseSlot<C> {
    /// An empty slot for nodes `bits` wide (1 to 48), whose deadlines are kept on `clock`
    /// and fall `margin` before the end of each TTL ([`default_margin`] is the usual choice).
    ///
    /// # Errors
    ///
    /// [`LeaseErrorKind::Config`] for a width outside 1 to 48.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit_lease::{BootTime, LeaseSlot};
    ///
    /// assert!(LeaseSlot::new(49, BootTime, Duration::ZERO).is_err());
    /// ```
    pub fn new(bits: u8, clock: C, margin: Duration) -> Result<LeaseSlot<C>, LeaseError> {
        crate::check_bits(bits)?;
        let slot = NodeSlot::new(bits)
            .map_err(|e| LeaseError::new(LeaseErrorKind::Config, format!("node bits: {e}")))?;
        Ok(LeaseSlot {
            slot,
            word: AtomicU64::new(0),
            epoch: AtomicU64::new(0),
            unix_at_zero: AtomicU64::new(clock.unix_at_zero()),
            top_zero: AtomicU64::new(clock.unix_at_zero()),
            wall_offset: AtomicI64::new(0),
            clock,
            margin,
            enforced: AtomicBool::new(true),
            writer: Mutex::new(Tenure::default()),
        })
    }

    /// The boot clock's time now: what a client records as a request's send instant, just
    /// before sending it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit_lease::{LeaseSlot, ManualBootClock};
    ///
    /// let slot = LeaseSlot::new(8, ManualBootClock::new(Duration::from_secs(4)), Duration::ZERO)?;
    /// assert_eq!(slot.now(), Duration::from_secs(4));
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn now(&self) -> Duration {
        self.clock.now()
    }

    /// The margin taken off each TTL.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit_lease::{BootTime, LeaseSlot};
    ///
    /// let slot = LeaseSlot::new(8, BootTime, Duration::from_millis(250))?;
    /// assert_eq!(slot.margin(), Duration::from_millis(250));
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn margin(&self) -> Duration {
        self.margin
    }

    /// Publishes `value` as newly granted, under a new epoch, with the deadline
    /// `sent + ttl − margin` (`sent`: the boot-clock instant the grant request was sent).
    ///
    /// # Errors
    ///
    /// [`LeaseErrorKind::Config`] if `value` does not fit the slot's width; the slot is then
    /// unchanged.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::node::NodeSource;
    /// use uuidkit_lease::{LeaseSlot, ManualBootClock};
    ///
    /// let slot = LeaseSlot::new(8, ManualBootClock::new(Duration::ZERO), Duration::ZERO)?;
    /// assert!(slot.grant(256, Duration::ZERO, Duration::from_secs(1)).is_err());
    /// assert_eq!(slot.grant(7, Duration::ZERO, Duration::from_secs(1))?.epoch(), 1);
    /// assert_eq!(slot.grant(7, Duration::ZERO, Duration::from_secs(1))?.epoch(), 2);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn grant(&self, value: u64, sent: Duration, ttl: Duration) -> Result<NodeId, LeaseError> {
        NodeId::new(value, self.slot.bits(), 0).map_err(|e| {
            LeaseError::new(
                LeaseErrorKind::Config,
                format!("node {value:#x}/{}: {e}", self.slot.bits()),
            )
        })?;
        let mut tenure = self.lock();
        Ok(self.publish(&mut tenure, value, self.end(sent, ttl)))
    }

    /// Publishes a renewal sent at `sent` and granted for `ttl`: the deadline moves to
    /// `sent + ttl − margin` if that is later. Returns the node as generators now see it: the
    /// same epoch while the deadline had not passed; a new epoch if it had (readers may have
    /// reported the node lost meanwhile, and a node that comes back is a new tenure); `None` if
    /// no node is held (never granted, or lost: a renewal does not bring it back).
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::node::NodeSource;
    /// use uuidkit_lease::{BootClock, LeaseSlot, ManualBootClock};
    ///
    /// let clock = ManualBootClock::new(Duration::ZERO);
    /// let slot = LeaseSlot::new(8, &clock, Duration::ZERO)?;
    /// assert!(slot.renew(clock.now(), Duration::from_secs(1)).is_none()); // nothing held
    /// slot.grant(9, clock.now(), Duration::from_secs(1))?;
    /// clock.advance(Duration::from_millis(500));
    /// assert_eq!(slot.renew(clock.now(), Duration::from_secs(1)).map(|n| n.epoch()), Some(1));
    /// clock.advance(Duration::from_secs(2)); // past the deadline: lost until a renewal
    /// assert!(slot.current().is_err());
    /// assert_eq!(slot.renew(clock.now(), Duration::from_secs(1)).map(|n| n.epoch()), Some(2));
    /// assert_eq!(slot.current()?.epoch(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn renew(&self, sent: Duration, ttl: Duration) -> Option<NodeId> {
        let mut tenure = self.lock();
        let value = tenure.value?;
        let end = self.end(sent, ttl).max(tenure.deadline);
        if passed(self.clock.now(), tenure.deadline) {
            return Some(self.publish(&mut tenure, value, end));
        }
        tenure.deadline = end;
        self.word.store(word(end, tenure.epoch), Ordering::Release);
        self.sample_unix_at_zero();
        NodeId::new(value, self.slot.bits(), tenure.epoch).ok()
    }

    /// Publishes that the node is no longer held, and why: generators stop at their next UUID.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::node::{NodeLost, NodeLostKind, NodeSource};
    /// use uuidkit_lease::{BootTime, LeaseSlot};
    ///
    /// let slot = LeaseSlot::new(8, BootTime, Duration::ZERO)?;
    /// slot.grant(3, BootTime.now(), Duration::from_secs(60))?;
    /// slot.lose(NodeLost::new(NodeLostKind::Conflict).with_detail("taken"));
    /// assert_eq!(slot.current().unwrap_err().detail(), "taken");
    /// # use uuidkit_lease::BootClock;
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn lose(&self, lost: NodeLost) {
        let mut tenure = self.lock();
        tenure.value = None;
        // The word first: a reader that still sees the node sees no deadline for it.
        self.word.store(0, Ordering::Release);
        self.slot.lose(lost);
    }

    /// Gives the node up for good before it goes back to the registry: marks it lost (as
    /// [`lose`](Self::lose)), then waits [`RELEASE_GAP`]. A generator asks for its node after
    /// reading the clock, so every UUID made with the node carries a time before this call; the
    /// wait puts the next holder's first UUID into a later millisecond (and a later 100-ns tick)
    /// of this host's clock than the last UUID made here, even when the registry hands the node
    /// on at once.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::node::{NodeLost, NodeLostKind, NodeSource};
    /// use uuidkit_lease::{BootClock, BootTime, LeaseSlot, RELEASE_GAP};
    ///
    /// let slot = LeaseSlot::new(8, BootTime, Duration::ZERO)?;
    /// slot.grant(3, BootTime.now(), Duration::from_secs(60))?;
    /// let before = BootTime.now();
    /// slot.retire(NodeLost::new(NodeLostKind::Released));
    /// assert!(slot.current().is_err());
    /// assert!(BootTime.now() - before >= RELEASE_GAP);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn retire(&self, lost: NodeLost) {
        self.lose(lost);
        std::thread::sleep(RELEASE_GAP);
    }

    /// The deadline of the node held, on the boot clock; `None` if none is held.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit_lease::{LeaseSlot, ManualBootClock};
    ///
    /// let slot = LeaseSlot::new(8, ManualBootClock::new(Duration::ZERO), Duration::from_millis(100))?;
    /// slot.grant(1, Duration::from_secs(10), Duration::from_secs(2))?;
    /// assert_eq!(slot.deadline(), Some(Duration::from_millis(11_900)));
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn deadline(&self) -> Option<Duration> {
        let tenure = self.lock();
        tenure.value.map(|_| tenure.deadline)
    }

    /// Whether the deadline of the node held has passed (readers report it lost), or no node
    /// is held.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit_lease::{LeaseSlot, ManualBootClock};
    ///
    /// let clock = ManualBootClock::new(Duration::ZERO);
    /// let slot = LeaseSlot::new(8, &clock, Duration::ZERO)?;
    /// assert!(slot.expired());
    /// slot.grant(1, Duration::ZERO, Duration::from_secs(1))?;
    /// assert!(!slot.expired());
    /// clock.advance(Duration::from_secs(1));
    /// assert!(slot.expired());
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn expired(&self) -> bool {
        let tenure = self.lock();
        tenure.value.is_none() || passed(self.clock.now(), tenure.deadline)
    }

    /// Test-only: with `false`, [`current`](NodeSource::current) ignores the deadline (losses
    /// and grants still count). It exists so that a fault test can show that its checker finds
    /// the overlap the deadline prevents; nothing else may call it.
    #[doc(hidden)]
    pub fn enforce_deadline(&self, on: bool) {
        self.enforced.store(on, Ordering::Relaxed);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tenure> {
        // The tenure is rewritten whole by every writer: a panic elsewhere leaves it usable.
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn end(&self, sent: Duration, ttl: Duration) -> Duration {
        (sent + ttl).saturating_sub(self.margin)
    }

    /// A new tenure of `value` until `end`: the deadline word before the slot, so a reader that
    /// sees the new epoch sees its deadline.
    /// Follows the wall clock (a step, a slew) at every grant and renewal: what
    /// [`LeaseClock`](crate::LeaseClock)s add to the boot clock.
    fn sample_unix_at_zero(&self) {
        let zero = self.zero();
        self.unix_at_zero.store(zero, Ordering::Relaxed);
        self.top_zero.fetch_max(zero, Ordering::Relaxed);
    }

    /// The clock's Unix time of its zero now, with the test-only offset.
    fn zero(&self) -> u64 {
        let offset = self.wall_offset.load(Ordering::Relaxed);
        self.clock.unix_at_zero().saturating_add_signed(offset)
    }

    /// The wall-clock time now, in whole milliseconds, as the slot's pair clock counts it.
    #[cfg(any(
        feature = "etcd",
        feature = "postgres",
        feature = "zookeeper",
        all(feature = "uiap", unix)
    ))]
    pub(crate) fn wall_ms(&self) -> u64 {
        self.zero().saturating_add(self.clock.now_nanos()) / 1_000_000
    }

    /// The high-water millisecond of a deadline of `sent + ttl − margin`: the latest wall-clock
    /// millisecond a UUID made before it can carry, by any sample of the wall clock this slot
    /// took or takes now, with a slew allowance. Written to the registry before that deadline
    /// is published.
    #[cfg(any(feature = "etcd", feature = "postgres", feature = "zookeeper"))]
    pub(crate) fn high_water_until(&self, sent: Duration, ttl: Duration) -> u64 {
        let end = self.end(sent, ttl);
        let top = self.top_zero.load(Ordering::Relaxed).max(self.zero());
        let span = end.saturating_sub(self.clock.now());
        crate::high_water::ceil_ms(
            top.saturating_add(nanos(end))
                .saturating_add(crate::high_water::slew(span)),
        )
    }

    /// The high-water millisecond now, once no UUID is made any more (the node retired).
    #[cfg(any(feature = "etcd", feature = "postgres", feature = "zookeeper"))]
    pub(crate) fn high_water_now(&self) -> u64 {
        let top = self.top_zero.load(Ordering::Relaxed).max(self.zero());
        crate::high_water::ceil_ms(
            top.saturating_add(self.clock.now_nanos())
                .saturating_add(crate::high_water::slew(Duration::ZERO)),
        )
    }

    /// Test-only: the wall clock this slot samples (and its pair clock gives) is `ms` off, as on
    /// a host whose clock is wrong. Nothing else may call it.
    #[doc(hidden)]
    pub fn offset_wall(&self, ms: i64) {
        self.wall_offset
            .store(ms.saturating_mul(1_000_000), Ordering::Relaxed);
        self.sample_unix_at_zero();
        self.top_zero.store(self.zero(), Ordering::Relaxed);
    }

    /// The Unix time, in nanoseconds, of the boot clock's zero, as last sampled.
    #[inline]
    pub(crate) fn unix_at_zero(&self) -> u64 {
        self.unix_at_zero.load(Ordering::Relaxed)
    }

    /// The boot clock, for [`LeaseClock`](crate::LeaseClock)s.
    #[inline]
    pub(crate) fn clock(&self) -> &C {
        &self.clock
    }

    fn publish(&self, tenure: &mut Tenure, value: u64, end: Duration) -> NodeId {
        self.sample_unix_at_zero();
        tenure.epoch += 1;
        tenure.value = Some(value);
        tenure.deadline = end;
        self.epoch.store(tenure.epoch, Ordering::Relaxed);
        self.word.store(word(end, tenure.epoch), Ordering::Release);
        // The width was checked by `grant`, and `renew` republishes a granted value.
        self.slot
            .set(value)
            .expect("a value that fits the slot was checked before")
    }
}

/// Whether a deadline has passed, as readers judge it: in whole ticks (the word's unit).
fn passed(now: Duration, deadline: Duration) -> bool {
    tick(nanos(now)) >= tick(nanos(deadline))
}

fn word(end: Duration, epoch: u64) -> u64 {
    (tick(nanos(end)).min(MAX_DEADLINE_TICK) << TAG_BITS) | (epoch & TAG)
}

impl<C: BootClock> NodeSource for LeaseSlot<C> {
    #[inline]
    fn bits(&self) -> u8 {
        self.slot.bits()
    }

    #[inline]
    fn current(&self) -> Result<NodeId, NodeLost> {
        self.current_by(|| tick(self.clock.now_nanos()))
    }

    #[inline]
    fn holds(&self, epoch: u64) -> bool {
        self.still_holds(epoch, tick(self.clock.now_nanos()))
    }
}

impl<C: BootClock> LeaseSlot<C> {
    /// [`holds`](NodeSource::holds) with no read of the node itself: whether the tenure of
    /// `epoch` is the latest published and its deadline is after `now` (a boot-clock reading in
    /// [ticks](TICK_SHIFT)). A `false` sends the generator to [`current`](NodeSource::current),
    /// which also knows why (a loss, a new tenure, or the test-only switch that ignores the
    /// deadline).
    ///
    /// A loss clears the word before anything else, and a grant writes the whole epoch before
    /// its word: a word acquired with `epoch`'s low bits and a later deadline, followed by
    /// `epoch` itself, is the word of `epoch`'s tenure, as [`current_by`](Self::current_by)'s
    /// check of the word against the slot's epoch finds it.
    /// For a generator's one-step path: the word now, and the boot-clock nanosecond its
    /// deadline falls on (the first reading [`still_holds`](Self::still_holds) refuses), when
    /// the tenure of `epoch` is the latest published; `None` otherwise. While the word is
    /// unchanged the tenure stands: a loss clears it, a grant or a renewal writes a new one.
    #[inline]
    pub(crate) fn window(&self, epoch: u64) -> Option<(u64, u64)> {
        let word = self.word.load(Ordering::Acquire);
        (word & TAG == epoch & TAG && self.epoch.load(Ordering::Relaxed) == epoch)
            .then_some((word, (word >> TAG_BITS) << TICK_SHIFT))
    }

    /// Whether the word is still `word` (one [`window`](Self::window) gave).
    #[inline(always)]
    pub(crate) fn word_is(&self, word: u64) -> bool {
        self.word.load(Ordering::Acquire) == word
    }

    #[inline(always)]
    pub(crate) fn still_holds(&self, epoch: u64, now: u64) -> bool {
        let word = self.word.load(Ordering::Acquire);
        word & TAG == epoch & TAG
            && now < word >> TAG_BITS
            && self.epoch.load(Ordering::Relaxed) == epoch
    }

    /// As [`current`](NodeSource::current), with the deadline compared with `now()` (a reading
    /// of the boot clock in [ticks](TICK_SHIFT)), asked after the slot's loads.
    #[inline(always)]
    pub(crate) fn current_by(&self, now: impl Fn() -> u64) -> Result<NodeId, NodeLost> {
        loop {
            let id = self.slot.current()?;
            let word = self.word.load(Ordering::Acquire);
            if word & TAG == id.epoch() & TAG {
                let now = now();
                if now < word >> TAG_BITS || !self.enforced.load(Ordering::Relaxed) {
                    return Ok(id);
                }
                return Err(deadline_passed());
            }
            // A grant or loss is being published (the word is written first): read again.
            std::thread::yield_now();
        }
    }
}

#[cold]
fn deadline_passed() -> NodeLost {
    NodeLost::new(NodeLostKind::RenewalFailed)
        .with_detail("the lease's deadline passed before a renewal was confirmed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const MS: Duration = Duration::from_millis(1);

    fn slot(clock: &Arc<ManualBootClock>) -> LeaseSlot<Arc<ManualBootClock>> {
        LeaseSlot::new(12, clock.clone(), 100 * MS).unwrap()
    }

    #[test]
    fn the_deadline_counts_from_the_send_instant_not_the_answer() {
        let clock = Arc::new(ManualBootClock::new(1000 * MS));
        let s = slot(&clock);
        let sent = clock.now();
        clock.advance(700 * MS); // the answer took 700 ms
        s.grant(5, sent, 2000 * MS).unwrap();
        assert_eq!(s.deadline(), Some(2900 * MS));
        clock.set(2899 * MS);
        assert!(s.current().is_ok());
        clock.set(2900 * MS);
        let lost = s.current().unwrap_err();
        assert_eq!(lost.kind(), NodeLostKind::RenewalFailed);
        assert!(lost.detail().contains("deadline"), "{lost}");
    }

    #[test]
    fn the_deadline_is_judged_in_ticks_early_by_less_than_one_never_late() {
        let tick_len = Duration::from_nanos(1 << TICK_SHIFT);
        // Deadlines at, just after and just before a tick's start, and in its middle.
        for offset in [0, 1, (1 << TICK_SHIFT) / 2, (1 << TICK_SHIFT) - 1] {
            let end = tick_len * 5_000 + Duration::from_nanos(offset);
            let clock = Arc::new(ManualBootClock::new(Duration::ZERO));
            let s = LeaseSlot::new(12, clock.clone(), Duration::ZERO).unwrap();
            s.grant(5, Duration::ZERO, end).unwrap();
            // The last instant of the tick before the deadline's: still held.
            clock.set(tick_len * 5_000 - Duration::from_nanos(1));
            assert!(s.current().is_ok(), "offset {offset}");
            // Anywhere in the deadline's own tick, before the deadline too: lost.
            for at in [
                tick_len * 5_000,
                end.saturating_sub(Duration::from_nanos(1)),
                end,
            ] {
                clock.set(at.max(tick_len * 5_000));
                assert!(s.current().is_err(), "offset {offset}, at {at:?}");
                assert!(s.expired(), "the writer judges as readers do");
            }
        }
    }

    #[test]
    fn a_renewal_in_time_keeps_the_epoch_and_an_older_one_never_shortens() {
        let clock = Arc::new(ManualBootClock::new(Duration::ZERO));
        let s = slot(&clock);
        s.grant(5, Duration::ZERO, 1000 * MS).unwrap();
        clock.set(500 * MS);
        assert_eq!(s.renew(400 * MS, 1000 * MS).unwrap().epoch(), 1);
        assert_eq!(s.deadline(), Some(1300 * MS));
        // A late answer to an earlier request does not pull the deadline back.
        assert_eq!(s.renew(100 * MS, 1000 * MS).unwrap().epoch(), 1);
        assert_eq!(s.deadline(), Some(1300 * MS));
        clock.set(1299 * MS);
        assert_eq!(s.current().unwrap().epoch(), 1);
    }

    #[test]
    fn a_node_back_after_its_deadline_is_a_new_epoch() {
        let clock = Arc::new(ManualBootClock::new(Duration::ZERO));
        let s = slot(&clock);
        s.grant(5, Duration::ZERO, 1000 * MS).unwrap();
        clock.set(950 * MS); // stopped past the deadline (900 ms)
        assert!(s.current().is_err());
        let back = s.renew(950 * MS, 1000 * MS).unwrap();
        assert_eq!((back.value(), back.epoch()), (5, 2));
        assert_eq!(s.current(), Ok(back));
        assert_eq!(s.deadline(), Some(1850 * MS));
    }

    #[test]
    fn a_lost_node_is_not_revived_by_a_renewal() {
        let clock = Arc::new(ManualBootClock::new(Duration::ZERO));
        let s = slot(&clock);
        assert!(s.renew(Duration::ZERO, 1000 * MS).is_none());
        s.grant(5, Duration::ZERO, 1000 * MS).unwrap();
        s.lose(NodeLost::new(NodeLostKind::SourceGone));
        assert!(s.renew(10 * MS, 1000 * MS).is_none());
        assert_eq!(s.current().unwrap_err().kind(), NodeLostKind::SourceGone);
        assert_eq!(s.deadline(), None);
        assert_eq!(s.grant(6, 10 * MS, 1000 * MS).unwrap().epoch(), 2);
    }

    #[test]
    fn a_ttl_shorter_than_the_margin_is_lost_at_once() {
        let clock = Arc::new(ManualBootClock::new(5000 * MS));
        let s = slot(&clock);
        s.grant(5, clock.now(), 50 * MS).unwrap();
        assert!(s.current().is_err());
    }

    #[test]
    fn the_test_switch_ignores_the_deadline_only() {
        let clock = Arc::new(ManualBootClock::new(Duration::ZERO));
        let s = slot(&clock);
        s.grant(5, Duration::ZERO, 1000 * MS).unwrap();
        s.enforce_deadline(false);
        clock.set(10_000 * MS);
        assert!(s.current().is_ok());
        s.lose(NodeLost::new(NodeLostKind::Released));
        assert!(s.current().is_err());
    }

    #[test]
    fn readers_never_see_a_node_with_another_tenures_deadline() {
        // Tenures alternate between a node with a live deadline and one already expired;
        // a reader that pairs a node with the other tenure's deadline would see an expired
        // value as held.
        let clock = Arc::new(ManualBootClock::new(10_000 * MS));
        let s = Arc::new(slot(&clock));
        s.grant(1, clock.now(), 5000 * MS).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let (held, expired) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let reader = {
            let (s, stop) = (s.clone(), stop.clone());
            let (held, expired) = (held.clone(), expired.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match s.current() {
                        Ok(id) => {
                            assert_eq!(id.value(), 1, "epoch {}", id.epoch());
                            held.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(lost) => {
                            assert_eq!(lost.kind(), NodeLostKind::RenewalFailed);
                            expired.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        };
        // Until the reader has seen both many times (it may be scheduled late).
        let mut grants = 0u64;
        while held.load(Ordering::Relaxed) < 1000 || expired.load(Ordering::Relaxed) < 1000 {
            s.grant(2, Duration::ZERO, 1000 * MS).unwrap(); // expired long ago
            s.grant(1, clock.now(), 5000 * MS).unwrap();
            grants += 1;
            assert!(grants < 50_000_000, "the reader made no progress");
            if grants.is_multiple_of(1024) {
                std::thread::yield_now();
            }
        }
        stop.store(true, Ordering::Relaxed);
        reader.join().unwrap();
    }

    #[test]
    fn the_boot_clock_moves_forward() {
        let a = BootTime.now();
        std::thread::sleep(5 * MS);
        assert!(BootTime.now() >= a + 5 * MS);
    }
}
