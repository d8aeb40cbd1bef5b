//! Version 1: Gregorian time-based (RFC 9562 §5.1). The generator surface it
//! shares with version 6 is in `gregorian_generator.rs`, the timestamp and
//! clock-sequence engine in `generator/clock_sequence.rs`.

use core::marker::PhantomData;

use rand_core::Rng;

use crate::clock::Clock;
use crate::generator::{
    ClockBackPolicy, GenError, GregorianCore, GregorianPolicy, NoReserve, NodeFollow, Reserve,
    RolloverPolicy, random_clock_seq, random_node,
};
use crate::generator::{GregorianGenerator, V1Layout};
use crate::node::{MaybeNodeSource, NoNodeSource};

/// The state of a [`V1Generator`] or [`V6Generator`](crate::V6Generator), as
/// RFC 9562 §6.3 lists it for stable storage: the last timestamp (60-bit count of
/// 100-ns intervals since 1582-10-15), the clock sequence and the node. `valid`
/// is false before the first UUID (and then `timestamp` is 0).
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V1Generator};
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
/// [`V1Generator::builder`]. Its seams are attached here and only here: a
/// node source ([`node_source`](Self::node_source)) and a store
/// ([`store`](Self::store)).
///
/// ```
/// use uuidkit::{clock::ManualClock, generator::RolloverPolicy, rng::ThreadRng, Generator, V1Generator};
/// let mut g = V1Generator::builder()
///     .node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46])
///     .clock_seq(0x33C8)
///     .rollover(RolloverPolicy::Error)
///     .build(ManualClock::new(1_645_557_742_000_000_000), ThreadRng)?;
/// assert_eq!(g.generate()?.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // RFC 9562 A.1
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use = "a builder does nothing until `build`; its methods return the changed builder"]
pub struct V1Builder<N = NoNodeSource, S = NoReserve> {
    clock_seq: Option<u16>,
    node: Option<[u8; 6]>,
    rollover: Option<RolloverPolicy>,
    clock_back: Option<(ClockBackPolicy, u64)>,
    node_source: N,
    store: S,
}

impl<N, S> V1Builder<N, S> {
    /// The clock sequence, 0..=0x3FFF (default: random).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator};
    /// let g = V1Generator::builder().clock_seq(0x3FFF).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.clock_seq(), 0x3FFF);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_seq(mut self, clock_seq: u16) -> V1Builder<N, S> {
        self.clock_seq = Some(clock_seq);
        self
    }

    /// The node, for instance an IEEE 802 MAC address, which identifies the
    /// host (RFC 9562 §8): pass one only if you mean to. The default is 48
    /// random bits with the multicast bit set (§6.10). A store keeps a node
    /// given here; it replaces a random one with the node it holds.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator};
    /// let g = V1Generator::builder().node([0x00, 0x11, 0x22, 0x33, 0x44, 0x55]).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.node(), [0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn node(mut self, node: [u8; 6]) -> V1Builder<N, S> {
        self.node = Some(node);
        self
    }

    /// What happens when UUIDs are requested faster than one per 100-ns tick
    /// for a whole clock resolution (default [`RolloverPolicy::Wait`]).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{GenErrorKind, RolloverPolicy}};
    /// use uuidkit::{rng::ThreadRng, Generator, V1Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000); // 1-ns resolution: one UUID per reading
    /// let mut g = V1Generator::builder().rollover(RolloverPolicy::Error).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::CounterExhausted);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn rollover(mut self, policy: RolloverPolicy) -> V1Builder<N, S> {
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
    /// 10 s ([`V6Builder::clock_back`](crate::generator::V6Builder::clock_back)).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{ClockBackPolicy, GenErrorKind}};
    /// use uuidkit::{rng::ThreadRng, Generator, V1Generator};
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
    pub const fn clock_back(
        mut self,
        policy: ClockBackPolicy,
        tolerance_ns: u64,
    ) -> V1Builder<N, S> {
        self.clock_back = Some((policy, tolerance_ns));
        self
    }

    /// Takes the node from `source` (48 bits wide), asked before every UUID
    /// (RFC 9562 §6.4): while it holds no node, generation returns
    /// [`GenErrorKind::NodeLost`](crate::generator::GenErrorKind::NodeLost) and issues
    /// nothing; each new node it hands out (a new epoch) starts a new random
    /// clock sequence, so no node's sequence is ever continued under another
    /// (§6.3). A store keeps the source's node as a given one
    /// ([`node`](Self::node)), and resumes the sequence it recorded for that
    /// node value, if any. Pass an `Arc` of a shared source (a
    /// [`NodeSlot`]) to keep a handle on it, or a `&` of one;
    /// an `Option` of one for a source chosen at run time (`None`: the
    /// generator keeps its own node). [`build`](Self::build) rejects a source
    /// that is not 48 bits wide.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::GenErrorKind};
    /// use uuidkit::{node::{NodeLost, NodeLostKind, NodeSlot}, rng::ThreadRng};
    /// use uuidkit::{Generator, V1Generator};
    /// let slot = NodeSlot::new(48)?;
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V1Generator::builder().node_source(&slot).build(&clock, ThreadRng)?;
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
    /// assert!(V1Generator::builder().node_source(NodeSlot::new(16)?).build(&clock, ThreadRng).is_err());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[doc = std_link!("NodeSlot", "crate::node::NodeSlot")]
    pub fn node_source<N2: MaybeNodeSource>(self, source: N2) -> V1Builder<N2, S> {
        V1Builder {
            clock_seq: self.clock_seq,
            node: self.node,
            rollover: self.rollover,
            clock_back: self.clock_back,
            node_source: source,
            store: self.store,
        }
    }

    /// Binds the generator to a [`Reserve`] store (stable storage, §6.3), for
    /// instance a state file's `GregorianLease` (the `uuidkit-state` crate).
    /// A store may move the generator onto the clock sequence and node it
    /// keeps:
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve, V1State}};
    /// use uuidkit::{rng::ThreadRng, GenError, Generator, V1Generator};
    /// struct Stored { clock_seq: u16, node: [u8; 6] }
    /// impl Reserve<V1State> for Stored {
    ///     fn reserve(&mut self, s: &V1State, needed: u64) -> Result<Reservation<V1State>, GenError> {
    ///         Ok(if (s.clock_seq, s.node) == (self.clock_seq, self.node) {
    ///             Reservation::Until(needed + 1_000_000)
    ///         } else {
    ///             let at = needed.saturating_sub(1);
    ///             Reservation::ResumeFrom(V1State { timestamp: at, clock_seq: self.clock_seq, node: self.node, ..*s })
    ///         })
    ///     }
    /// }
    /// let store = Stored { clock_seq: 0x33C8, node: [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46] };
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V1Generator::builder().store(store).build(&clock, ThreadRng)?;
    /// let u = g.generate()?;
    /// assert_eq!((u.clock_seq(), u.node()), (Some(0x33C8), Some([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46])));
    /// # Ok::<(), GenError>(())
    /// ```
    pub fn store<S2: Reserve<V1State>>(self, store: S2) -> V1Builder<N, S2> {
        V1Builder {
            clock_seq: self.clock_seq,
            node: self.node,
            rollover: self.rollover,
            clock_back: self.clock_back,
            node_source: self.node_source,
            store,
        }
    }
}

impl<N: MaybeNodeSource, S: Reserve<V1State>> V1Builder<N, S> {
    /// Checks the configuration and makes the generator, drawing whatever was
    /// not given from `rng`.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig) for a
    /// clock sequence above 0x3FFF, or a node source that is not 48 bits wide.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator};
    /// let err = V1Generator::builder().clock_seq(0x4000).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected clock sequence in 0..=16383, found 16384");
    /// ```
    pub fn build<C: Clock, R: Rng>(
        self,
        clock: C,
        rng: R,
    ) -> Result<V1Generator<C, R, S, N>, GenError> {
        let (core, follow, rng) = self.parts(rng, GregorianPolicy::V1)?;
        Ok(GregorianGenerator {
            clock,
            rng,
            core,
            follow,
            fresh: false,
            layout: PhantomData,
        })
    }

    /// Whether a node source is attached (v6 then retains its node).
    pub(crate) fn has_node_source(&self) -> bool {
        self.node_source.source_bits().is_some()
    }

    /// The validated core and node link (shared with
    /// [`V6Builder`](crate::generator::V6Builder)): the RNG draws a node and then a
    /// clock sequence, whether or not they were given, so that a seeded RNG
    /// gives the same stream either way.
    pub(crate) fn parts<R: Rng>(
        self,
        mut rng: R,
        defaults: GregorianPolicy,
    ) -> Result<(GregorianCore<S>, NodeFollow<N>, R), GenError> {
        let random = random_node(rng.next_u64());
        let random_seq = random_clock_seq(rng.next_u64());
        if let Some(cs) = self
            .clock_seq
            .filter(|&cs| cs > crate::layout::MAX_CLOCK_SEQ)
        {
            return Err(GenError::config("clock sequence in 0..=16383", cs.into()));
        }
        let follow = NodeFollow::new(self.node_source)?;
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
            self.store,
        );
        Ok((core, follow, rng))
    }
}

/// A version 1 UUID generator (RFC 9562 §5.1), with the clock and the entropy
/// injected; configured by [`V1Generator::builder`].
///
/// - **Node**: 48 random bits with the multicast bit (0x01 of the first octet)
///   set (§6.10), unless the builder is given one ([`V1Builder::node`]) or the
///   builder a [`NodeSource`](crate::node::NodeSource) ([`V1Builder::node_source`]).
/// - **Clock sequence**: random once per generator; incremented when the clock
///   reads earlier than before; replaced by a different random value when the
///   node changes (`set_node`).
/// - **Timestamps**: never repeated for one clock sequence. Several UUIDs per
///   clock reading get consecutive 100-ns ticks (§6.1), but never reach one clock
///   resolution ahead of the reading: then the generator follows its
///   [`RolloverPolicy`] (default [`RolloverPolicy::Wait`]: re-read the clock).
///
/// v1 UUIDs do not sort by time; prefer v7 (§5.7) or, for v1 compatibility, v6.
/// Its accessors are those of [`GregorianGenerator`], which it shares with
/// [`V6Generator`](crate::V6Generator).
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V1Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000); // 2022-02-22T19:22:22Z
/// let mut g = V1Generator::builder()
///     .node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46])
///     .clock_seq(0x33C8)
///     .build(&clock, ThreadRng)?;
/// assert_eq!(g.generate()?.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // RFC 9562 A.1
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub type V1Generator<C, R, S = NoReserve, N = NoNodeSource> =
    GregorianGenerator<V1Layout, C, R, S, N>;

#[cfg(feature = "std")]
impl V1Generator<crate::clock::SystemClock, crate::rng::ThreadRng> {
    /// A generator on the system's real-time clock at full precision
    /// ([`SystemClock`](crate::clock::SystemClock)) and
    /// [`ThreadRng`](crate::rng::ThreadRng). Each UUID carries the 100-ns tick
    /// it was made in (where the platform's clock is that precise), so two
    /// processes share a timestamp only when they really run in the same
    /// tick; at most one UUID per tick (`docs/generator-design.md` G8).
    ///
    /// ```
    /// use uuidkit::Generator;
    /// let mut g = uuidkit::V1Generator::system();
    /// let (a, b) = (g.generate()?, g.generate()?);
    /// assert_eq!(a.version(), Some(uuidkit::Version::Mac));
    /// assert!(b.gregorian_timestamp() > a.gregorian_timestamp()); // a new tick each
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn system() -> Self {
        V1Generator::new(crate::clock::SystemClock, crate::rng::ThreadRng)
    }
}

impl V1Generator<(), ()> {
    /// The builder: every setting, checked by [`V1Builder::build`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator};
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
            node_source: NoNodeSource,
            store: NoReserve,
        }
    }
}

impl<C: Clock, R: Rng> V1Generator<C, R> {
    /// A generator with the defaults: a random node (multicast bit set), a
    /// random clock sequence, [`RolloverPolicy::Wait`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator};
    /// let g = V1Generator::new(ManualClock::new(0), ThreadRng);
    /// assert_eq!(g.node()[0] & 0x01, 0x01);
    /// ```
    pub fn new(clock: C, rng: R) -> Self {
        match V1Generator::builder().build(clock, rng) {
            Ok(g) => g,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }
}

impl<C: Clock, R: Rng, S: Reserve<V1State>, N: MaybeNodeSource> V1Generator<C, R, S, N> {
    /// Changes the node between UUIDs. If UUIDs were already generated with
    /// another node, the clock sequence changes too (to a random value other
    /// than the current one), and the next UUID goes through the store. With
    /// a node source, the source's node replaces it before the next UUID.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V1Generator};
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
}
