//! Version 6: reordered Gregorian time-based (RFC 9562 §5.6).

use rand_core::Rng;

use crate::generator::{
    ClockBackPolicy, GenError, Generator, GregorianCore, GregorianPolicy, NoReserve, NodeFollow,
    Reading, Reserve, RolloverPolicy, random_node,
};
use crate::{Clock, NodeSource, StaticNode, Uuid, V1Builder, V1Generator, V1State};

/// The validated configuration of a [`V6Generator`]; made by
/// [`V6Generator::builder`]. By default the generator draws a fresh clock
/// sequence and node per UUID; [`retain`](Self::retain), a
/// [`clock_seq`](Self::clock_seq) or a [`node`](Self::node) make it keep one.
///
/// ```
/// use uuidkit::{Generator, ManualClock, ThreadRng, V6Generator};
/// let mut g = V6Generator::builder()
///     .node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46])
///     .clock_seq(0x33C8)
///     .build(ManualClock::new(1_645_557_742_000_000_000), ThreadRng)?;
/// assert_eq!(g.generate()?.as_u128(), 0x1EC9414C_232A_6B00_B3C8_9F6BDECED846); // RFC 9562 A.5
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct V6Builder {
    v1: V1Builder,
    retain: bool,
}

impl V6Builder {
    /// Keeps one clock sequence and node (initially random, multicast bit set),
    /// with v1's rules (§5.6 "MAY retain").
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let g = V6Generator::builder().retain().build(ManualClock::new(0), ThreadRng)?;
    /// assert!(g.is_retaining());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn retain(mut self) -> V6Builder {
        self.retain = true;
        self
    }

    /// The retained clock sequence, 0..=0x3FFF; implies [`retain`](Self::retain).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let g = V6Generator::builder().clock_seq(0x33C8).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!((g.clock_seq(), g.is_retaining()), (0x33C8, true));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_seq(self, clock_seq: u16) -> V6Builder {
        V6Builder {
            v1: self.v1.clock_seq(clock_seq),
            retain: true,
        }
    }

    /// The retained node (a MAC identifies the host: §8); implies
    /// [`retain`](Self::retain). See [`V1Builder::node`].
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let g = V6Generator::builder().node([2; 6]).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!((g.node(), g.is_retaining()), ([2; 6], true));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn node(self, node: [u8; 6]) -> V6Builder {
        V6Builder {
            v1: self.v1.node(node),
            retain: true,
        }
    }

    /// The rollover policy; see [`V1Builder::rollover`].
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, Generator, ManualClock, RolloverPolicy, ThreadRng, V6Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V6Generator::builder().rollover(RolloverPolicy::Error).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::CounterExhausted);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn rollover(self, policy: RolloverPolicy) -> V6Builder {
        V6Builder {
            v1: self.v1.rollover(policy),
            retain: self.retain,
        }
    }

    /// What to do when the clock reads earlier than the last timestamp by
    /// more than `tolerance_ns` (`u64::MAX`: no limit; see
    /// [`V1Builder::clock_back`]). Within the tolerance the generator holds
    /// above its last timestamp, so its UUIDs keep increasing. The default is
    /// [`ClockBackPolicy::Error`] beyond 10 s: a v6 generator never goes
    /// back silently. [`ClockBackPolicy::Reset`] follows the clock (a smaller
    /// UUID, with the clock sequence changed as §5.1 requires).
    ///
    /// ```
    /// use uuidkit::{ClockBackPolicy, GenErrorKind, Generator, ManualClock, ThreadRng, V6Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V6Generator::new(&clock, ThreadRng); // the default: hold up to 10 s, then report
    /// let a = g.generate()?;
    /// clock.step_back(1_000_000_000);
    /// let b = g.generate()?;
    /// assert!(b > a, "1 s back: held above the last UUID");
    /// clock.step_back(20_000_000_000);
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
    ///
    /// let mut g = V6Generator::builder().clock_back(ClockBackPolicy::Reset, 0).build(&clock, ThreadRng)?;
    /// let a = g.generate()?;
    /// clock.step_back(1_000);
    /// assert!(g.generate()? < a, "Reset follows the clock");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_back(self, policy: ClockBackPolicy, tolerance_ns: u64) -> V6Builder {
        V6Builder {
            v1: self.v1.clock_back(policy, tolerance_ns),
            retain: self.retain,
        }
    }

    /// Checks the configuration and makes the generator.
    ///
    /// # Errors
    /// As [`V1Builder::build`].
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, ManualClock, ThreadRng, V6Generator};
    /// let err = V6Generator::builder().clock_seq(0xFFFF).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
    /// ```
    pub fn build<C: Clock, R: Rng>(self, clock: C, rng: R) -> Result<V6Generator<C, R>, GenError> {
        let (core, rng) = self.v1.core(rng, GregorianPolicy::V6)?;
        Ok(V6Generator {
            clock,
            rng,
            core,
            fresh: !self.retain,
            follow: NodeFollow::none(),
        })
    }
}

/// A version 6 UUID generator (RFC 9562 §5.6): v1's timestamp, stored most
/// significant bits first, so that byte order is time order; configured by
/// [`V6Generator::builder`].
///
/// By default every UUID gets a fresh random clock sequence and a fresh random
/// node (multicast bit set), as §5.6 recommends ("SHOULD"). With
/// [`V6Builder::retain`] (or a given clock sequence or node) it keeps one clock
/// sequence and node with exactly the rules of [`V1Generator`].
///
/// Timestamps come from the same logic as v1: consecutive 100-ns ticks within a
/// clock reading, never one clock resolution ahead of it (default
/// [`RolloverPolicy::Wait`]), so one generator's output increases while the clock
/// does not step back. With a [`NodeSource`]
/// ([`with_node_source`](Self::with_node_source)) it retains the source's node
/// with v1's rules for a node source. When it does, the timestamp follows the clock and the
/// (retained) clock sequence changes. Prefer v7 where v1 compatibility is not
/// needed (§5.6).
///
/// ```
/// use uuidkit::{Generator, ManualClock, ThreadRng, V6Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
/// let mut g = V6Generator::new(&clock, ThreadRng);
/// let (a, b) = (g.generate()?, g.generate()?);
/// assert!(a < b);
/// assert_eq!(a.as_bytes()[10] & 0x01, 0x01); // random node, multicast bit set
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V6Generator<C, R, S: Reserve<V1State> = NoReserve, N = StaticNode> {
    clock: C,
    rng: R,
    core: GregorianCore<S>,
    fresh: bool,
    follow: NodeFollow<N>,
}

#[cfg(feature = "std")]
impl V6Generator<crate::CoarseClock, crate::ThreadRng> {
    /// A generator on the system's coarse clock ([`CoarseClock`](crate::CoarseClock))
    /// and [`ThreadRng`](crate::ThreadRng), with fresh random clock sequence and node
    /// per UUID.
    ///
    /// ```
    /// use uuidkit::Generator;
    /// let mut g = uuidkit::V6Generator::system();
    /// assert_eq!(g.generate()?.version(), Some(uuidkit::Version::SortMac));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn system() -> Self {
        V6Generator::new(crate::CoarseClock::new(), crate::ThreadRng)
    }
}

impl V6Generator<(), ()> {
    /// The builder: every setting, checked by [`V6Builder::build`].
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let g = V6Generator::builder().build(ManualClock::new(0), ThreadRng)?;
    /// assert!(!g.is_retaining());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn builder() -> V6Builder {
        V6Builder {
            v1: V1Generator::builder(),
            retain: false,
        }
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
        match V6Generator::builder().build(clock, rng) {
            Ok(g) => g,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }
}

impl<C, R, S: Reserve<V1State>, N> V6Generator<C, R, S, N> {
    /// Binds the generator to a [`Reserve`] store (stable storage, §6.3), for
    /// instance a [`state::GregorianLease`](crate::state::GregorianLease); the
    /// current store is released. Whether the clock sequence and node are
    /// retained is kept.
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
    /// use uuidkit::{CoarseClock, Generator, ThreadRng, V6Generator};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V6Generator::builder().retain().build(CoarseClock::new(), ThreadRng)?.with_store(r.lease_v6());
    /// let (a, b) = (g.generate()?, g.generate()?);
    /// assert!(a < b);
    /// assert_eq!(a.node(), Some(g.store().block().unwrap().node)); // the store's node
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn with_store<S2: Reserve<V1State>>(self, store: S2) -> V6Generator<C, R, S2, N> {
        V6Generator {
            clock: self.clock,
            rng: self.rng,
            core: self.core.rebind(store),
            fresh: self.fresh,
            follow: self.follow,
        }
    }

    /// Takes the node from `source` (48 bits wide), asked before every UUID,
    /// and retains it (as [`V6Builder::retain`]); see
    /// [`V1Generator::with_node_source`] for what a loss and a new node do.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::GenErrorKind::InvalidConfig) for
    /// a source that is not 48 bits wide.
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, Generator, ManualClock, NodeSlot, ThreadRng, V6Generator};
    /// let slot = NodeSlot::new(48)?;
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V6Generator::new(&clock, ThreadRng).with_node_source(&slot)?;
    /// assert!(g.is_retaining());
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::NodeLost); // nothing claimed yet
    /// slot.set(0x0300_0000_0001)?;
    /// let (a, b) = (g.generate()?, g.generate()?);
    /// assert_eq!((a.node(), b.node()), (Some([3, 0, 0, 0, 0, 1]), Some([3, 0, 0, 0, 0, 1])));
    /// assert!(a < b);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn with_node_source<N2: NodeSource>(
        self,
        source: N2,
    ) -> Result<V6Generator<C, R, S, N2>, GenError> {
        Ok(V6Generator {
            clock: self.clock,
            rng: self.rng,
            core: self.core,
            fresh: false,
            follow: NodeFollow::new(source)?,
        })
    }

    /// The node source, if the generator has one
    /// ([`with_node_source`](Self::with_node_source)).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// assert!(V6Generator::new(ManualClock::new(0), ThreadRng).node_source().is_none());
    /// ```
    pub fn node_source(&self) -> Option<&N> {
        self.follow.source()
    }

    /// The store.
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
    /// use uuidkit::{Generator, ManualClock, ThreadRng, V6Generator};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V6Generator::new(ManualClock::new(1_645_557_742_000_000_000), ThreadRng).with_store(r.lease_v6());
    /// assert!(g.store().status().is_none());
    /// g.generate()?;
    /// assert!(!g.store().status().unwrap().is_safe()); // the store was empty
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn store(&self) -> &S {
        self.core.store()
    }

    /// The store, mutably; see [`V1Generator::store_mut`].
    ///
    /// ```
    /// use uuidkit::{ManualClock, NoReserve, Reservation, Reserve, ThreadRng, V1State, V6Generator};
    /// let mut g = V6Generator::new(ManualClock::new(0), ThreadRng);
    /// let state = g.state();
    /// assert_eq!(g.store_mut().reserve(&state, 1)?, Reservation::Until(u64::MAX));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn store_mut(&mut self) -> &mut S {
        self.core.store_mut()
    }

    /// The clock.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let g = V6Generator::new(ManualClock::new(5), ThreadRng);
    /// assert_eq!(g.clock().now(), 5);
    /// ```
    pub fn clock(&self) -> &C {
        &self.clock
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

    /// Restores a state; see [`V1Generator::with_state`]. Does not change
    /// whether clock sequence and node are retained.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1State, V6Generator};
    /// let s = V1State { timestamp: 5, clock_seq: 1, node: [3; 6], node_given: false, valid: true };
    /// assert_eq!(V6Generator::new(ManualClock::new(0), ThreadRng).with_state(s).state(), s);
    /// ```
    pub fn with_state(mut self, state: V1State) -> Self {
        self.core.set_state(state);
        self.follow.forget();
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
        self.core.state()
    }

    /// The retained node.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// assert_eq!(V6Generator::new(ManualClock::new(0), ThreadRng).node()[0] & 1, 1);
    /// ```
    pub fn node(&self) -> [u8; 6] {
        self.core.node()
    }

    /// The retained clock sequence.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// assert!(V6Generator::new(ManualClock::new(0), ThreadRng).clock_seq() < 0x4000);
    /// ```
    pub fn clock_seq(&self) -> u16 {
        self.core.clock_seq()
    }
}

impl<C: Clock, R: Rng, S: Reserve<V1State>, N: NodeSource> V6Generator<C, R, S, N> {
    /// The next UUID as if the clock read `unix_ns`; see [`V1Generator::at`].
    ///
    /// # Errors
    /// As [`generate`](Generator::generate).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V6Generator};
    /// let mut g = V6Generator::new(ManualClock::new(0), ThreadRng);
    /// let u = g.at(1_645_557_742_000_000_000)?;
    /// assert_eq!(u.as_u128() >> 80, 0x1EC9414C_232A);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn at(&mut self, unix_ns: u64) -> Result<Uuid, GenError> {
        self.follow.check(&mut self.core, &mut self.rng)?;
        let ts = self.core.next(&self.clock, &mut Reading::at(unix_ns))?.ts;
        Ok(self.layout(ts))
    }

    #[inline]
    fn layout(&mut self, ts: u64) -> Uuid {
        if self.fresh {
            let r = self.rng.next_u64();
            Uuid::new_v6_from_parts(ts, r as u16, random_node(r >> 16))
        } else {
            Uuid::new_v6_from_parts(ts, self.core.clock_seq(), self.core.node())
        }
    }
}

impl<C: Clock, R: Rng, S: Reserve<V1State>, N: NodeSource> Generator for V6Generator<C, R, S, N> {
    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// As [`V1Generator`]'s (a node source's loss included).
    ///
    /// ```
    /// use uuidkit::{Generator, ManualClock, ThreadRng, V6Generator};
    /// let mut g = V6Generator::new(ManualClock::new(1_645_557_742_000_000_000), ThreadRng);
    /// assert_eq!(g.generate()?.as_u128() >> 64 & !0xF000, 0x1EC9414C_232A_0B00);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[inline(always)]
    fn generate(&mut self) -> Result<Uuid, GenError> {
        self.follow.check(&mut self.core, &mut self.rng)?;
        let ts = self
            .core
            .next(&self.clock, &mut Reading::of(&self.clock))?
            .ts;
        Ok(self.layout(ts))
    }
}
