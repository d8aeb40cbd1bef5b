//! Version 1: Gregorian time-based (RFC 9562 §5.1), and the timestamp and clock
//! sequence logic it shares with version 6.

use rand_core::Rng;

use crate::generator::{GenError, GenErrorKind, NoReserve, Reserve, RolloverPolicy, Stop};
use crate::{Clock, Uuid};

use crate::{GREGORIAN_TO_UNIX_100NS as GREGORIAN_OFFSET, MAX_GREGORIAN_TIMESTAMP as MAX_TS60};

/// The state of a [`V1Generator`] or [`V6Generator`](crate::V6Generator), as
/// RFC 9562 §6.3 lists it for stable storage: the last timestamp (60-bit count of
/// 100-ns intervals since 1582-10-15), the clock sequence and the node. `valid`
/// is false before the first UUID (and then `timestamp` is 0).
///
/// ```
/// use uuidkit::{ManualClock, ThreadRng, V1Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000);
/// let mut g = V1Generator::new(&clock, ThreadRng);
/// g.generate()?;
/// assert_eq!(g.state().timestamp, 0x1EC9414C232AB00);
/// assert!(g.state().valid);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct V1State {
    /// The last 60-bit Gregorian timestamp used.
    pub timestamp: u64,
    /// The 14-bit clock sequence.
    pub clock_seq: u16,
    /// The 48-bit node.
    pub node: [u8; 6],
    /// Whether a UUID has been generated (or a state restored).
    pub valid: bool,
}

/// The shared v1/v6 machinery: timestamps that never repeat for one clock
/// sequence, a clock sequence that changes when the clock goes back.
#[derive(Debug)]
pub(crate) struct Gregorian<C, R, S> {
    pub(crate) clock: C,
    pub(crate) rng: R,
    pub(crate) store: S,
    pub(crate) rollover: RolloverPolicy,
    pub(crate) node: [u8; 6],
    pub(crate) clock_seq: u16,
    last_ts: u64,
    last_clock: u64,
    started: bool,
    limit: u64,
}

/// A random node: 48 random bits with the multicast bit (0x01 of the first
/// octet) set, RFC 9562 §6.10.
#[inline]
pub(crate) fn random_node(bits: u64) -> [u8; 6] {
    let b = bits.to_be_bytes();
    [b[2] | 0x01, b[3], b[4], b[5], b[6], b[7]]
}

impl<C: Clock, R: Rng> Gregorian<C, R, NoReserve> {
    pub(crate) fn new(clock: C, mut rng: R) -> Self {
        let r = rng.next_u64();
        Gregorian {
            clock,
            node: random_node(r),
            clock_seq: (rng.next_u64() & 0x3FFF) as u16,
            rng,
            store: NoReserve,
            rollover: RolloverPolicy::Wait,
            last_ts: 0,
            last_clock: 0,
            started: false,
            limit: 0,
        }
    }
}

impl<C, R, S> Gregorian<C, R, S> {
    pub(crate) fn with_reserve<S2>(self, store: S2) -> Gregorian<C, R, S2> {
        Gregorian {
            clock: self.clock,
            rng: self.rng,
            store,
            rollover: self.rollover,
            node: self.node,
            clock_seq: self.clock_seq,
            last_ts: self.last_ts,
            last_clock: self.last_clock,
            started: self.started,
            limit: 0,
        }
    }

    pub(crate) fn state(&self) -> V1State {
        V1State {
            timestamp: if self.started { self.last_ts } else { 0 },
            clock_seq: self.clock_seq,
            node: self.node,
            valid: self.started,
        }
    }

    pub(crate) fn set_state(&mut self, state: V1State) {
        self.clock_seq = state.clock_seq & 0x3FFF;
        self.node = state.node;
        if state.valid {
            self.last_ts = state.timestamp & MAX_TS60;
            self.last_clock = self.last_ts;
            self.started = true;
        }
    }
}

impl<C: Clock, R: Rng, S: Reserve<V1State>> Gregorian<C, R, S> {
    pub(crate) fn set_node(&mut self, node: [u8; 6]) {
        if node != self.node && self.started {
            // §5.1: a new node gets a new clock sequence (random, but never the old one).
            let old = self.clock_seq;
            while self.clock_seq == old {
                self.clock_seq = (self.rng.next_u64() & 0x3FFF) as u16;
            }
        }
        self.node = node;
    }

    /// The next timestamp (60-bit Gregorian) for a reading of `unix_ns`.
    #[inline]
    fn step(&mut self, unix_ns: u64) -> Result<u64, Stop> {
        let now = unix_ns / 100 + GREGORIAN_OFFSET;
        if now > MAX_TS60 {
            return Err(Stop::Err(GenError::new(
                GenErrorKind::TimestampOutOfRange,
                MAX_TS60,
                now,
            )));
        }
        if !self.started {
            self.started = true;
            self.last_clock = now;
            self.last_ts = now;
            return Ok(now);
        }
        if now < self.last_clock {
            // The clock went back: timestamps up to last_ts may have been used
            // with this clock sequence, so change it (§5.1 MUST; incremented,
            // as the MAY allows, so it cannot return to a recent value).
            self.clock_seq = (self.clock_seq + 1) & 0x3FFF;
            self.last_clock = now;
            self.last_ts = now;
            return Ok(now);
        }
        self.last_clock = now;
        let ts = now.max(self.last_ts + 1);
        let ahead_allowed = (self.clock.resolution_ns() / 100).max(1);
        if ts - now >= ahead_allowed {
            match self.rollover {
                RolloverPolicy::AdvanceTimestamp => {}
                RolloverPolicy::Wait => return Err(Stop::Wait),
                RolloverPolicy::Error => {
                    return Err(Stop::Err(GenError::new(
                        GenErrorKind::CounterExhausted,
                        self.last_ts
                            .saturating_sub(GREGORIAN_OFFSET)
                            .saturating_mul(100),
                        unix_ns,
                    )));
                }
            }
        }
        if ts > MAX_TS60 {
            return Err(Stop::Err(GenError::new(
                GenErrorKind::TimestampOutOfRange,
                MAX_TS60,
                ts,
            )));
        }
        self.last_ts = ts;
        Ok(ts)
    }

    /// The next timestamp, reading the clock (or using `at`).
    #[inline]
    pub(crate) fn next_ts(&mut self, at: Option<u64>) -> Result<u64, GenError> {
        let ts = loop {
            let now = match at {
                Some(t) => t,
                None => self.clock.now_ns(),
            };
            match self.step(now) {
                Ok(ts) => break ts,
                Err(Stop::Wait) if at.is_none() => self.clock.relax(),
                Err(Stop::Wait) => {
                    return Err(GenError::new(
                        GenErrorKind::CounterExhausted,
                        self.last_ts
                            .saturating_sub(GREGORIAN_OFFSET)
                            .saturating_mul(100),
                        now,
                    ));
                }
                Err(Stop::Err(e)) => return Err(e),
            }
        };
        if ts >= self.limit {
            self.reserve_slow(ts)?;
        }
        Ok(ts)
    }

    #[cold]
    fn reserve_slow(&mut self, ts: u64) -> Result<(), GenError> {
        let state = self.state();
        let limit = self.store.reserve(&state, ts)?;
        self.limit = limit.max(ts.saturating_add(1));
        Ok(())
    }
}

/// A version 1 UUID generator (RFC 9562 §5.1), with the clock and the entropy
/// injected.
///
/// - **Node**: 48 random bits with the multicast bit (0x01 of the first octet)
///   set (§6.10), unless the caller passes one with [`with_node`](Self::with_node).
///   A MAC address identifies the host (§8): pass one only if you mean to.
/// - **Clock sequence**: random once per generator; incremented when the clock
///   reads earlier than before; replaced by a different random value when the
///   node changes.
/// - **Timestamps**: never repeated for one clock sequence. Several UUIDs per
///   clock reading get consecutive 100-ns ticks (§6.1), but never reach one clock
///   resolution ahead of the reading: then the generator follows its
///   [`RolloverPolicy`] (default [`RolloverPolicy::Wait`]: re-read the clock).
///
/// v1 UUIDs do not sort by time; prefer v7 (§5.7) or, for v1 compatibility, v6.
///
/// ```
/// use uuidkit::{ManualClock, ThreadRng, V1Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000); // 2022-02-22T19:22:22Z
/// let mut g = V1Generator::new(&clock, ThreadRng)
///     .with_node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46])
///     .with_clock_seq(0x33C8);
/// assert_eq!(g.generate()?.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // RFC 9562 A.1
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V1Generator<C, R, S = NoReserve> {
    inner: Gregorian<C, R, S>,
}

#[cfg(feature = "std")]
impl V1Generator<crate::CoarseClock, crate::ThreadRng> {
    /// A generator on the system's coarse clock ([`CoarseClock`](crate::CoarseClock))
    /// and [`ThreadRng`](crate::ThreadRng).
    ///
    /// ```
    /// let mut g = uuidkit::V1Generator::system();
    /// assert_eq!(g.generate()?.version(), Some(uuidkit::Version::Mac));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn system() -> Self {
        V1Generator::new(crate::CoarseClock::new(), crate::ThreadRng)
    }
}

impl<C: Clock, R: Rng> V1Generator<C, R> {
    /// A generator with a random node (multicast bit set) and a random clock
    /// sequence.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(0), ThreadRng);
    /// assert_eq!(g.node()[0] & 0x01, 0x01);
    /// ```
    pub fn new(clock: C, rng: R) -> Self {
        V1Generator {
            inner: Gregorian::new(clock, rng),
        }
    }
}

impl<C, R, S> V1Generator<C, R, S> {
    /// Attaches a [`Reserve`] (stable storage, §6.3).
    ///
    /// ```
    /// use uuidkit::{ManualClock, NoReserve, ThreadRng, V1Generator};
    /// let _g = V1Generator::new(ManualClock::new(0), ThreadRng).with_reserve(NoReserve);
    /// ```
    pub fn with_reserve<S2>(self, store: S2) -> V1Generator<C, R, S2> {
        V1Generator {
            inner: self.inner.with_reserve(store),
        }
    }

    /// The attached [`Reserve`].
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(0), ThreadRng);
    /// let _: &uuidkit::NoReserve = g.reserve_ref();
    /// ```
    pub fn reserve_ref(&self) -> &S {
        &self.inner.store
    }

    /// The clock (added for the stable-storage binding, issue 4).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(5), ThreadRng);
    /// assert_eq!(g.clock().now(), 5);
    /// ```
    pub fn clock(&self) -> &C {
        &self.inner.clock
    }

    /// Sets the clock sequence (14 bits; higher bits are dropped).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(0), ThreadRng).with_clock_seq(0xFFFF);
    /// assert_eq!(g.clock_seq(), 0x3FFF);
    /// ```
    pub fn with_clock_seq(mut self, clock_seq: u16) -> Self {
        self.inner.clock_seq = clock_seq & 0x3FFF;
        self
    }

    /// Sets the rollover policy (what happens when UUIDs are requested faster than
    /// one per 100-ns tick for a whole clock resolution).
    ///
    /// ```
    /// use uuidkit::{ManualClock, RolloverPolicy, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(0), ThreadRng).with_rollover(RolloverPolicy::Error);
    /// # let _ = g;
    /// ```
    pub fn with_rollover(mut self, policy: RolloverPolicy) -> Self {
        self.inner.rollover = policy;
        self
    }

    /// Restores a state (for instance from stable storage): clock sequence, node
    /// and, if `valid`, the last timestamp. If the clock then reads earlier than
    /// that timestamp, the clock sequence changes before the next UUID.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator, V1State};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let stored = V1State { timestamp: 0x1EC9414C232AB00 + 50_000_000, clock_seq: 7, node: [1; 6], valid: true };
    /// let mut g = V1Generator::new(&clock, ThreadRng).with_state(stored);
    /// g.generate()?; // the clock is 5 s behind the stored timestamp
    /// assert_eq!(g.clock_seq(), 8);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn with_state(mut self, state: V1State) -> Self {
        self.inner.set_state(state);
        self
    }

    /// The current state.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// assert!(!V1Generator::new(ManualClock::new(0), ThreadRng).state().valid);
    /// ```
    pub fn state(&self) -> V1State {
        self.inner.state()
    }

    /// The node in use.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(0), ThreadRng).with_node([2; 6]);
    /// assert_eq!(g.node(), [2; 6]);
    /// ```
    pub fn node(&self) -> [u8; 6] {
        self.inner.node
    }

    /// The clock sequence in use.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// assert!(V1Generator::new(ManualClock::new(0), ThreadRng).clock_seq() < 0x4000);
    /// ```
    pub fn clock_seq(&self) -> u16 {
        self.inner.clock_seq
    }
}

impl<C: Clock, R: Rng, S: Reserve<V1State>> V1Generator<C, R, S> {
    /// Uses `node` (for instance an IEEE 802 MAC address, which identifies the
    /// host: RFC 9562 §8) instead of the random node. If UUIDs were already
    /// generated with another node, the clock sequence changes too.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(0), ThreadRng).with_node([0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);
    /// assert_eq!(g.node(), [0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);
    /// ```
    pub fn with_node(mut self, node: [u8; 6]) -> Self {
        self.inner.set_node(node);
        self
    }

    /// Changes the node between UUIDs; see [`with_node`](Self::with_node).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let mut g = V1Generator::new(ManualClock::new(1 << 60), ThreadRng);
    /// g.generate()?;
    /// let before = g.clock_seq();
    /// g.set_node([4; 6]);
    /// assert_ne!(g.clock_seq(), before);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn set_node(&mut self, node: [u8; 6]) {
        self.inner.set_node(node);
    }

    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// [`GenErrorKind::CounterExhausted`](crate::GenErrorKind::CounterExhausted) under
    /// [`RolloverPolicy::Error`];
    /// [`GenErrorKind::TimestampOutOfRange`](crate::GenErrorKind::TimestampOutOfRange) after
    /// 5236-03-31; whatever the [`Reserve`] returns. With the defaults it cannot fail
    /// before 5236.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V1Generator::new(&clock, ThreadRng);
    /// let a = g.generate()?;
    /// let b = g.generate()?; // the next 100-ns tick: a 1 µs clock allows 10 per reading
    /// assert_ne!(a, b);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn generate(&mut self) -> Result<Uuid, GenError> {
        let ts = self.inner.next_ts(None)?;
        Ok(Uuid::new_v1_from_parts(
            ts,
            self.inner.clock_seq,
            self.inner.node,
        ))
    }

    /// The next UUID as if the clock read `unix_ns` (nanoseconds since the Unix
    /// epoch); the state moves on as for [`generate`](Self::generate). Waiting is
    /// impossible here: a [`RolloverPolicy::Wait`] overrun reports
    /// [`GenErrorKind::CounterExhausted`](crate::GenErrorKind::CounterExhausted).
    ///
    /// # Errors
    /// As [`generate`](Self::generate).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let mut g = V1Generator::new(ManualClock::new(0), ThreadRng)
    ///     .with_node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]).with_clock_seq(0x33C8);
    /// let u = g.at(1_645_557_742_000_000_000)?;
    /// assert_eq!(u.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn at(&mut self, unix_ns: u64) -> Result<Uuid, GenError> {
        let ts = self.inner.next_ts(Some(unix_ns))?;
        Ok(Uuid::new_v1_from_parts(
            ts,
            self.inner.clock_seq,
            self.inner.node,
        ))
    }

    /// Fills `out` with UUIDs, as repeated [`generate`](Self::generate) calls.
    ///
    /// # Errors
    /// As [`generate`](Self::generate); the contents of `out` are then unspecified.
    ///
    /// ```
    /// use uuidkit::{CoarseClock, ThreadRng, Uuid, V1Generator};
    /// let mut g = V1Generator::new(CoarseClock::new(), ThreadRng);
    /// let mut out = [Uuid::NIL; 16];
    /// g.fill(&mut out)?;
    /// assert!(out.iter().all(|u| !u.is_nil()));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn fill(&mut self, out: &mut [Uuid]) -> Result<(), GenError> {
        for slot in out {
            *slot = self.generate()?;
        }
        Ok(())
    }
}
