//! Version 6: reordered Gregorian time-based (RFC 9562 §5.6).

use rand_core::Rng;

use crate::generator::{GenError, NoReserve, Reserve, RolloverPolicy};
use crate::v1::{Gregorian, V1State, random_node};
use crate::{Clock, Uuid};

/// A version 6 UUID generator (RFC 9562 §5.6): v1's timestamp, stored most
/// significant bits first, so that byte order is time order.
///
/// By default every UUID gets a fresh random clock sequence and a fresh random
/// node (multicast bit set), as §5.6 recommends ("SHOULD"). With
/// [`retain`](Self::retain) (or [`with_node`](Self::with_node)) it keeps one
/// clock sequence and node with exactly the rules of
/// [`V1Generator`](crate::V1Generator).
///
/// Timestamps come from the same logic as v1: consecutive 100-ns ticks within a
/// clock reading, never one clock resolution ahead of it (default
/// [`RolloverPolicy::Wait`]), so one generator's output increases while the clock
/// does not step back. When it does, the timestamp follows the clock and the
/// (retained) clock sequence changes. Prefer v7 where v1 compatibility is not
/// needed (§5.6).
///
/// ```
/// use uuidkit::{ManualClock, ThreadRng, V6Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
/// let mut g = V6Generator::new(&clock, ThreadRng);
/// let (a, b) = (g.generate()?, g.generate()?);
/// assert!(a < b);
/// assert_eq!(a.as_bytes()[10] & 0x01, 0x01); // random node, multicast bit set
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V6Generator<C, R, S = NoReserve> {
    inner: Gregorian<C, R, S>,
    fresh: bool,
}

#[cfg(feature = "std")]
impl V6Generator<crate::CoarseClock, crate::ThreadRng> {
    /// A generator on the system's coarse clock ([`CoarseClock`](crate::CoarseClock))
    /// and [`ThreadRng`](crate::ThreadRng), with fresh random clock sequence and node
    /// per UUID.
    ///
    /// ```
    /// let mut g = uuidkit::V6Generator::system();
    /// assert_eq!(g.generate()?.version(), Some(uuidkit::Version::SortMac));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn system() -> Self {
        V6Generator::new(crate::CoarseClock::new(), crate::ThreadRng)
    }
}

impl<C: Clock, R: Rng> V6Generator<C, R> {
    /// A generator drawing a fresh random clock sequence and node per UUID.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let g = V6Generator::new(ManualClock::new(0), ThreadRng);
    /// assert!(!g.is_retaining());
    /// ```
    pub fn new(clock: C, rng: R) -> Self {
        V6Generator {
            inner: Gregorian::new(clock, rng),
            fresh: true,
        }
    }
}

impl<C, R, S> V6Generator<C, R, S> {
    /// Attaches a [`Reserve`] (stable storage, §6.3).
    ///
    /// ```
    /// use uuidkit::{ManualClock, NoReserve, ThreadRng, V6Generator};
    /// let _g = V6Generator::new(ManualClock::new(0), ThreadRng).with_reserve(NoReserve);
    /// ```
    pub fn with_reserve<S2>(self, store: S2) -> V6Generator<C, R, S2> {
        V6Generator {
            inner: self.inner.with_reserve(store),
            fresh: self.fresh,
        }
    }

    /// The attached [`Reserve`].
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let g = V6Generator::new(ManualClock::new(0), ThreadRng);
    /// let _: &uuidkit::NoReserve = g.reserve_ref();
    /// ```
    pub fn reserve_ref(&self) -> &S {
        &self.inner.store
    }

    /// The clock (added for the stable-storage binding, issue 4).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let g = V6Generator::new(ManualClock::new(5), ThreadRng);
    /// assert_eq!(g.clock().now(), 5);
    /// ```
    pub fn clock(&self) -> &C {
        &self.inner.clock
    }

    /// Keeps one clock sequence and node (initially random, multicast bit set),
    /// with v1's rules (§5.6 "MAY retain").
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// assert!(V6Generator::new(ManualClock::new(0), ThreadRng).retain().is_retaining());
    /// ```
    pub fn retain(mut self) -> Self {
        self.fresh = false;
        self
    }

    /// Whether the clock sequence and node are retained between UUIDs.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// assert!(!V6Generator::new(ManualClock::new(0), ThreadRng).is_retaining());
    /// ```
    pub fn is_retaining(&self) -> bool {
        !self.fresh
    }

    /// Sets the retained clock sequence (14 bits) and switches to retaining.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let g = V6Generator::new(ManualClock::new(0), ThreadRng).with_clock_seq(0x33C8);
    /// assert_eq!((g.clock_seq(), g.is_retaining()), (0x33C8, true));
    /// ```
    pub fn with_clock_seq(mut self, clock_seq: u16) -> Self {
        self.inner.clock_seq = clock_seq & 0x3FFF;
        self.fresh = false;
        self
    }

    /// Sets the rollover policy; see [`V1Generator`](crate::V1Generator).
    ///
    /// ```
    /// use uuidkit::{ManualClock, RolloverPolicy, ThreadRng, V6Generator};
    /// let _g = V6Generator::new(ManualClock::new(0), ThreadRng).with_rollover(RolloverPolicy::Error);
    /// ```
    pub fn with_rollover(mut self, policy: RolloverPolicy) -> Self {
        self.inner.rollover = policy;
        self
    }

    /// Restores a state; see [`V1Generator::with_state`](crate::V1Generator::with_state).
    /// Does not change whether clock sequence and node are retained.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1State, V6Generator};
    /// let s = V1State { timestamp: 5, clock_seq: 1, node: [3; 6], valid: true };
    /// assert_eq!(V6Generator::new(ManualClock::new(0), ThreadRng).with_state(s).state(), s);
    /// ```
    pub fn with_state(mut self, state: V1State) -> Self {
        self.inner.set_state(state);
        self
    }

    /// The current state (the retained clock sequence and node, even when they are
    /// not used).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// assert!(!V6Generator::new(ManualClock::new(0), ThreadRng).state().valid);
    /// ```
    pub fn state(&self) -> V1State {
        self.inner.state()
    }

    /// The retained node.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// assert_eq!(V6Generator::new(ManualClock::new(0), ThreadRng).node()[0] & 1, 1);
    /// ```
    pub fn node(&self) -> [u8; 6] {
        self.inner.node
    }

    /// The retained clock sequence.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// assert!(V6Generator::new(ManualClock::new(0), ThreadRng).clock_seq() < 0x4000);
    /// ```
    pub fn clock_seq(&self) -> u16 {
        self.inner.clock_seq
    }
}

impl<C: Clock, R: Rng, S: Reserve<V1State>> V6Generator<C, R, S> {
    /// Uses `node` (a MAC identifies the host: §8) and switches to retaining; see
    /// [`V1Generator::with_node`](crate::V1Generator::with_node).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let mut g = V6Generator::new(ManualClock::new(1_645_557_742_000_000_000), ThreadRng)
    ///     .with_node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46])
    ///     .with_clock_seq(0x33C8);
    /// assert_eq!(g.generate()?.as_u128(), 0x1EC9414C_232A_6B00_B3C8_9F6BDECED846); // RFC 9562 A.5
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn with_node(mut self, node: [u8; 6]) -> Self {
        self.inner.set_node(node);
        self.fresh = false;
        self
    }

    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// As [`V1Generator::generate`](crate::V1Generator::generate).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let mut g = V6Generator::new(ManualClock::new(1_645_557_742_000_000_000), ThreadRng);
    /// assert_eq!(g.generate()?.as_u128() >> 64 & !0xF000, 0x1EC9414C_232A_0B00);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn generate(&mut self) -> Result<Uuid, GenError> {
        let ts = self.inner.next_ts(None)?;
        Ok(self.layout(ts))
    }

    /// The next UUID as if the clock read `unix_ns`; see
    /// [`V1Generator::at`](crate::V1Generator::at).
    ///
    /// # Errors
    /// As [`V1Generator::generate`](crate::V1Generator::generate).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let mut g = V6Generator::new(ManualClock::new(0), ThreadRng);
    /// let u = g.at(1_645_557_742_000_000_000)?;
    /// assert_eq!(u.as_u128() >> 80, 0x1EC9414C_232A);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn at(&mut self, unix_ns: u64) -> Result<Uuid, GenError> {
        let ts = self.inner.next_ts(Some(unix_ns))?;
        Ok(self.layout(ts))
    }

    /// Fills `out` with UUIDs, as repeated [`generate`](Self::generate) calls.
    ///
    /// # Errors
    /// As [`generate`](Self::generate); the contents of `out` are then unspecified.
    ///
    /// ```
    /// use uuidkit::{CoarseClock, ThreadRng, Uuid, V6Generator};
    /// let mut g = V6Generator::new(CoarseClock::new(), ThreadRng);
    /// let mut out = [Uuid::NIL; 16];
    /// g.fill(&mut out)?;
    /// assert!(out.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn fill(&mut self, out: &mut [Uuid]) -> Result<(), GenError> {
        for slot in out {
            *slot = self.generate()?;
        }
        Ok(())
    }

    #[inline]
    fn layout(&mut self, ts: u64) -> Uuid {
        if self.fresh {
            let r = self.inner.rng.next_u64();
            Uuid::new_v6_from_parts(ts, r as u16, random_node(r >> 16))
        } else {
            Uuid::new_v6_from_parts(ts, self.inner.clock_seq, self.inner.node)
        }
    }
}
