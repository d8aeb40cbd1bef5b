//! Version 1: Gregorian time-based (RFC 9562 §5.1). The timestamp and clock
//! sequence logic it shares with version 6 is in `generator/gregorian.rs`.

use rand_core::Rng;

use crate::generator::{
    ClockBackPolicy, GenError, Generator, GregorianCore, GregorianPolicy, NoReserve, NodeFollow,
    Reading, Reserve, RolloverPolicy, random_clock_seq, random_node,
};
use crate::{Clock, NodeSource, StaticNode, Uuid};

/// The state of a [`V1Generator`] or [`V6Generator`](crate::V6Generator), as
/// RFC 9562 §6.3 lists it for stable storage: the last timestamp (60-bit count of
/// 100-ns intervals since 1582-10-15), the clock sequence and the node. `valid`
/// is false before the first UUID (and then `timestamp` is 0).
///
/// ```
/// use uuidkit::{Generator, ManualClock, ThreadRng, V1Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000);
/// let mut g = V1Generator::new(&clock, ThreadRng);
/// g.generate()?;
/// assert_eq!(g.state().timestamp, 0x1EC9414C232AB00);
/// assert!(g.state().valid && !g.state().node_given);
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
    /// Whether `node` was chosen by the caller (the builder's `node`, or
    /// `set_node`): a store keeps it. A random node (`false`) may be replaced
    /// by the one a store holds, so that every process sharing the store uses
    /// one node.
    pub node_given: bool,
    /// Whether a UUID has been generated (or a state restored).
    pub valid: bool,
}

/// The validated configuration of a [`V1Generator`]; made by
/// [`V1Generator::builder`].
///
/// ```
/// use uuidkit::{Generator, ManualClock, RolloverPolicy, ThreadRng, V1Generator};
/// let mut g = V1Generator::builder()
///     .node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46])
///     .clock_seq(0x33C8)
///     .rollover(RolloverPolicy::Error)
///     .build(ManualClock::new(1_645_557_742_000_000_000), ThreadRng)?;
/// assert_eq!(g.generate()?.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // RFC 9562 A.1
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct V1Builder {
    clock_seq: Option<u16>,
    node: Option<[u8; 6]>,
    rollover: Option<RolloverPolicy>,
    clock_back: Option<(ClockBackPolicy, u64)>,
}

impl V1Builder {
    /// The clock sequence, 0..=0x3FFF (default: random).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::builder().clock_seq(0x3FFF).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.clock_seq(), 0x3FFF);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_seq(mut self, clock_seq: u16) -> V1Builder {
        self.clock_seq = Some(clock_seq);
        self
    }

    /// The node, for instance an IEEE 802 MAC address, which identifies the
    /// host (RFC 9562 §8): pass one only if you mean to. The default is 48
    /// random bits with the multicast bit set (§6.10). A store keeps a node
    /// given here; it replaces a random one with the node it holds.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::builder().node([0x00, 0x11, 0x22, 0x33, 0x44, 0x55]).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.node(), [0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn node(mut self, node: [u8; 6]) -> V1Builder {
        self.node = Some(node);
        self
    }

    /// What happens when UUIDs are requested faster than one per 100-ns tick
    /// for a whole clock resolution (default [`RolloverPolicy::Wait`]).
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, Generator, ManualClock, RolloverPolicy, ThreadRng, V1Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000); // 1-ns resolution: one UUID per reading
    /// let mut g = V1Generator::builder().rollover(RolloverPolicy::Error).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::CounterExhausted);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn rollover(mut self, policy: RolloverPolicy) -> V1Builder {
        self.rollover = Some(policy);
        self
    }

    /// What to do when the clock reads earlier than the last timestamp by
    /// more than `tolerance_ns` (`u64::MAX`: no limit). Within the tolerance
    /// the generator holds: the next timestamp is the tick after the last
    /// one, with the same clock sequence. The v1 default is RFC 9562 §5.1's
    /// rule, [`ClockBackPolicy::Reset`] with no tolerance: any step back
    /// changes the clock sequence and follows the clock (v1 UUIDs are not
    /// ordered by time). v6 defaults to [`ClockBackPolicy::Error`] beyond
    /// 10 s ([`V6Builder::clock_back`](crate::V6Builder::clock_back)).
    ///
    /// ```
    /// use uuidkit::{ClockBackPolicy, GenErrorKind, Generator, ManualClock, ThreadRng, V1Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V1Generator::builder().clock_back(ClockBackPolicy::Error, 1_000_000).build(&clock, ThreadRng)?;
    /// let a = g.generate()?;
    /// clock.step_back(500_000); // 0.5 ms: held above the last timestamp
    /// let b = g.generate()?;
    /// assert_eq!(b.gregorian_timestamp(), a.gregorian_timestamp().map(|t| t + 1));
    /// assert_eq!(b.clock_seq(), a.clock_seq());
    /// clock.step_back(1_000_000); // 1.5 ms behind: beyond the tolerance
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_back(mut self, policy: ClockBackPolicy, tolerance_ns: u64) -> V1Builder {
        self.clock_back = Some((policy, tolerance_ns));
        self
    }

    /// Checks the configuration and makes the generator, drawing whatever was
    /// not given from `rng`.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::GenErrorKind::InvalidConfig) for a
    /// clock sequence above 0x3FFF.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let err = V1Generator::builder().clock_seq(0x4000).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected clock sequence in 0..=16383, found 16384");
    /// ```
    pub fn build<C: Clock, R: Rng>(self, clock: C, rng: R) -> Result<V1Generator<C, R>, GenError> {
        let (core, rng) = self.core(rng, GregorianPolicy::V1)?;
        Ok(V1Generator {
            clock,
            rng,
            core,
            follow: NodeFollow::none(),
        })
    }

    /// The validated core (shared with [`V6Builder`](crate::V6Builder)): the
    /// RNG draws a node and then a clock sequence, whether or not they were
    /// given, so that a seeded RNG gives the same stream either way.
    pub(crate) fn core<R: Rng>(
        self,
        mut rng: R,
        defaults: GregorianPolicy,
    ) -> Result<(GregorianCore<NoReserve>, R), GenError> {
        let random = random_node(rng.next_u64());
        let random_seq = random_clock_seq(rng.next_u64());
        if let Some(cs) = self.clock_seq.filter(|&cs| cs > crate::MAX_CLOCK_SEQ) {
            return Err(GenError::config("clock sequence in 0..=16383", cs.into()));
        }
        let mut policy = defaults;
        if let Some(rollover) = self.rollover {
            policy.rollover = rollover;
        }
        if let Some((clock_back, tolerance_ns)) = self.clock_back {
            policy.clock_back = clock_back;
            policy.tolerance = GregorianPolicy::ticks(tolerance_ns);
        }
        let core = GregorianCore::new(
            policy,
            self.node.unwrap_or(random),
            self.node.is_some(),
            self.clock_seq.unwrap_or(random_seq),
            NoReserve,
        );
        Ok((core, rng))
    }
}

/// A version 1 UUID generator (RFC 9562 §5.1), with the clock and the entropy
/// injected; configured by [`V1Generator::builder`].
///
/// - **Node**: 48 random bits with the multicast bit (0x01 of the first octet)
///   set (§6.10), unless the builder is given one ([`V1Builder::node`]) or the
///   generator a [`NodeSource`] ([`with_node_source`](Self::with_node_source)).
/// - **Clock sequence**: random once per generator; incremented when the clock
///   reads earlier than before; replaced by a different random value when the
///   node changes ([`set_node`](Self::set_node)).
/// - **Timestamps**: never repeated for one clock sequence. Several UUIDs per
///   clock reading get consecutive 100-ns ticks (§6.1), but never reach one clock
///   resolution ahead of the reading: then the generator follows its
///   [`RolloverPolicy`] (default [`RolloverPolicy::Wait`]: re-read the clock).
///
/// v1 UUIDs do not sort by time; prefer v7 (§5.7) or, for v1 compatibility, v6.
///
/// ```
/// use uuidkit::{Generator, ManualClock, ThreadRng, V1Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000); // 2022-02-22T19:22:22Z
/// let mut g = V1Generator::builder()
///     .node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46])
///     .clock_seq(0x33C8)
///     .build(&clock, ThreadRng)?;
/// assert_eq!(g.generate()?.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // RFC 9562 A.1
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V1Generator<C, R, S: Reserve<V1State> = NoReserve, N = StaticNode> {
    clock: C,
    rng: R,
    core: GregorianCore<S>,
    follow: NodeFollow<N>,
}

#[cfg(feature = "std")]
impl V1Generator<crate::CoarseClock, crate::ThreadRng> {
    /// A generator on the system's coarse clock ([`CoarseClock`](crate::CoarseClock))
    /// and [`ThreadRng`](crate::ThreadRng).
    ///
    /// ```
    /// use uuidkit::Generator;
    /// let mut g = uuidkit::V1Generator::system();
    /// assert_eq!(g.generate()?.version(), Some(uuidkit::Version::Mac));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn system() -> Self {
        V1Generator::new(crate::CoarseClock::new(), crate::ThreadRng)
    }
}

impl V1Generator<(), ()> {
    /// The builder: every setting, checked by [`V1Builder::build`].
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::builder().clock_seq(7).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.clock_seq(), 7);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn builder() -> V1Builder {
        V1Builder {
            clock_seq: None,
            node: None,
            rollover: None,
            clock_back: None,
        }
    }
}

impl<C: Clock, R: Rng> V1Generator<C, R> {
    /// A generator with the defaults: a random node (multicast bit set), a
    /// random clock sequence, [`RolloverPolicy::Wait`].
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(0), ThreadRng);
    /// assert_eq!(g.node()[0] & 0x01, 0x01);
    /// ```
    pub fn new(clock: C, rng: R) -> Self {
        let (core, rng) = match V1Generator::builder().core(rng, GregorianPolicy::V1) {
            Ok(parts) => parts,
            Err(_) => unreachable!("the default configuration is valid"),
        };
        V1Generator {
            clock,
            rng,
            core,
            follow: NodeFollow::none(),
        }
    }
}

impl<C, R, S: Reserve<V1State>, N> V1Generator<C, R, S, N> {
    /// Binds the generator to a [`Reserve`] store (stable storage, §6.3), for
    /// instance a [`state::GregorianLease`](crate::state::GregorianLease); the
    /// current store is released.
    ///
    /// ```
    /// use uuidkit::{Generator, ManualClock, NoReserve, ThreadRng, V1Generator};
    /// let mut g = V1Generator::new(ManualClock::new(1 << 60), ThreadRng).with_store(NoReserve);
    /// assert!(g.generate().is_ok());
    /// ```
    pub fn with_store<S2: Reserve<V1State>>(self, store: S2) -> V1Generator<C, R, S2, N> {
        V1Generator {
            clock: self.clock,
            rng: self.rng,
            core: self.core.rebind(store),
            follow: self.follow,
        }
    }

    /// Takes the node from `source` (48 bits wide) from now on, asked before
    /// every UUID (RFC 9562 §6.4): while it holds no node, generation returns
    /// [`GenErrorKind::NodeLost`](crate::GenErrorKind::NodeLost) and issues
    /// nothing; each new node it hands out (a new epoch) starts a new random
    /// clock sequence, so no node's sequence is ever continued under another
    /// (§6.3). A store keeps the source's node as a given one
    /// ([`V1Builder::node`]), and resumes the sequence it recorded for that
    /// node value, if any. Pass an `Arc` of a shared source (a
    /// [`NodeSlot`](crate::NodeSlot)) to keep a handle on it, or a `&` of one.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::GenErrorKind::InvalidConfig) for
    /// a source that is not 48 bits wide.
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, Generator, ManualClock, NodeLost, NodeLostKind, NodeSlot, ThreadRng, V1Generator};
    /// let slot = NodeSlot::new(48)?;
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V1Generator::new(&clock, ThreadRng).with_node_source(&slot)?;
    /// slot.set(0x0300_0000_0001)?;
    /// let a = g.generate()?;
    /// assert_eq!(a.node(), Some([3, 0, 0, 0, 0, 1]));
    ///
    /// slot.lose(NodeLost::new(NodeLostKind::Conflict));
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::NodeLost);
    ///
    /// slot.set(0x0300_0000_0002)?; // a new lease: new node, new clock sequence
    /// let b = g.generate()?;
    /// assert_eq!(b.node(), Some([3, 0, 0, 0, 0, 2]));
    /// assert_ne!(b.clock_seq(), a.clock_seq());
    /// assert!(V1Generator::new(&clock, ThreadRng).with_node_source(NodeSlot::new(16)?).is_err());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn with_node_source<N2: NodeSource>(
        self,
        source: N2,
    ) -> Result<V1Generator<C, R, S, N2>, GenError> {
        Ok(V1Generator {
            clock: self.clock,
            rng: self.rng,
            core: self.core,
            follow: NodeFollow::new(source)?,
        })
    }

    /// The node source, if the generator has one
    /// ([`with_node_source`](Self::with_node_source)).
    ///
    /// ```
    /// use uuidkit::{ManualClock, NodeSource, StaticNode, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(0), ThreadRng);
    /// assert!(g.node_source().is_none());
    /// let g = g.with_node_source(StaticNode::from_bytes6([1; 6]))?;
    /// assert_eq!(g.node_source().map(|s| s.bits()), Some(48));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn node_source(&self) -> Option<&N> {
        self.follow.source()
    }

    /// The store.
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
    /// use uuidkit::{Generator, ManualClock, ThreadRng, V1Generator};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V1Generator::new(&clock, ThreadRng).with_store(r.lease_v1());
    /// let u = g.generate()?;
    /// assert_eq!(g.store().block().map(|b| b.node), u.node()); // the store's node
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn store(&self) -> &S {
        self.core.store()
    }

    /// The store, mutably.
    ///
    /// ```
    /// use uuidkit::{GenError, Generator, ManualClock, Reservation, Reserve, ThreadRng, V1Generator, V1State};
    /// struct Log(Vec<u64>);
    /// impl Reserve<V1State> for Log {
    ///     fn reserve(&mut self, _: &V1State, needed: u64) -> Result<Reservation<V1State>, GenError> {
    ///         self.0.push(needed);
    ///         Ok(Reservation::Until(needed + 10))
    ///     }
    /// }
    /// let mut g = V1Generator::new(ManualClock::new(0), ThreadRng).with_store(Log(Vec::new()));
    /// g.generate()?;
    /// assert_eq!(g.store_mut().0.drain(..).count(), 1);
    /// # Ok::<(), GenError>(())
    /// ```
    pub fn store_mut(&mut self) -> &mut S {
        self.core.store_mut()
    }

    /// The clock.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(5), ThreadRng);
    /// assert_eq!(g.clock().now(), 5);
    /// ```
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// Restores a state (for instance from stable storage): clock sequence, node
    /// and, if `valid`, the last timestamp. If the clock then reads earlier than
    /// that timestamp, the clock sequence changes before the next UUID. With a
    /// node source, the next UUID takes the source's node again, with a new
    /// clock sequence.
    ///
    /// ```
    /// use uuidkit::{Generator, ManualClock, ThreadRng, V1Generator, V1State};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let stored = V1State { timestamp: 0x1EC9414C232AB00 + 50_000_000, clock_seq: 7, node: [1; 6], node_given: true, valid: true };
    /// let mut g = V1Generator::new(&clock, ThreadRng).with_state(stored);
    /// g.generate()?; // the clock is 5 s behind the stored timestamp
    /// assert_eq!(g.clock_seq(), 8);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn with_state(mut self, state: V1State) -> Self {
        self.core.set_state(state);
        self.follow.forget();
        self
    }

    /// The current state.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// assert!(!V1Generator::new(ManualClock::new(0), ThreadRng).state().valid);
    /// ```
    pub fn state(&self) -> V1State {
        self.core.state()
    }

    /// The node in use.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let g = V1Generator::builder().node([2; 6]).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.node(), [2; 6]);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn node(&self) -> [u8; 6] {
        self.core.node()
    }

    /// The clock sequence in use.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// assert!(V1Generator::new(ManualClock::new(0), ThreadRng).clock_seq() < 0x4000);
    /// ```
    pub fn clock_seq(&self) -> u16 {
        self.core.clock_seq()
    }
}

impl<C: Clock, R: Rng, S: Reserve<V1State>, N: NodeSource> V1Generator<C, R, S, N> {
    /// Changes the node between UUIDs. If UUIDs were already generated with
    /// another node, the clock sequence changes too (to a random value other
    /// than the current one), and the next UUID goes through the store. With
    /// a node source, the source's node replaces it before the next UUID.
    ///
    /// ```
    /// use uuidkit::{Generator, ManualClock, ThreadRng, V1Generator};
    /// let mut g = V1Generator::new(ManualClock::new(1 << 60), ThreadRng);
    /// g.generate()?;
    /// let before = g.clock_seq();
    /// g.set_node([4; 6]);
    /// assert_ne!(g.clock_seq(), before);
    /// assert!(g.state().node_given);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn set_node(&mut self, node: [u8; 6]) {
        self.core.set_node(node, &mut self.rng);
        self.follow.forget();
    }

    /// The next UUID as if the clock read `unix_ns` (nanoseconds since the Unix
    /// epoch); the state moves on as for [`generate`](Generator::generate).
    /// Waiting is impossible here: a [`RolloverPolicy::Wait`] overrun (or a
    /// store's block ahead of `unix_ns`) reports
    /// [`GenErrorKind::CounterExhausted`](crate::GenErrorKind::CounterExhausted).
    ///
    /// # Errors
    /// As [`generate`](Generator::generate).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V1Generator};
    /// let mut g = V1Generator::builder()
    ///     .node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]).clock_seq(0x33C8)
    ///     .build(ManualClock::new(0), ThreadRng)?;
    /// let u = g.at(1_645_557_742_000_000_000)?;
    /// assert_eq!(u.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn at(&mut self, unix_ns: u64) -> Result<Uuid, GenError> {
        self.follow.check(&mut self.core, &mut self.rng)?;
        let tick = self.core.next(&self.clock, &mut Reading::at(unix_ns))?;
        Ok(Uuid::new_v1_from_parts(
            tick.ts,
            tick.clock_seq,
            self.core.node(),
        ))
    }
}

impl<C: Clock, R: Rng, S: Reserve<V1State>, N: NodeSource> Generator for V1Generator<C, R, S, N> {
    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// [`GenErrorKind::CounterExhausted`](crate::GenErrorKind::CounterExhausted) under
    /// [`RolloverPolicy::Error`];
    /// [`GenErrorKind::TimestampOutOfRange`](crate::GenErrorKind::TimestampOutOfRange) after
    /// 5236-03-31; whatever the [`Reserve`] store returns;
    /// [`GenErrorKind::NodeLost`](crate::GenErrorKind::NodeLost) while its node source holds
    /// no node. With the defaults it cannot fail before 5236.
    ///
    /// ```
    /// use uuidkit::{Generator, ManualClock, ThreadRng, V1Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V1Generator::new(&clock, ThreadRng);
    /// let a = g.generate()?;
    /// let b = g.generate()?; // the next 100-ns tick: a 1 µs clock allows 10 per reading
    /// assert_eq!(b.gregorian_timestamp(), a.gregorian_timestamp().map(|t| t + 1));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[inline(always)]
    fn generate(&mut self) -> Result<Uuid, GenError> {
        self.follow.check(&mut self.core, &mut self.rng)?;
        let tick = self.core.next(&self.clock, &mut Reading::of(&self.clock))?;
        Ok(Uuid::new_v1_from_parts(
            tick.ts,
            tick.clock_seq,
            self.core.node(),
        ))
    }
}
