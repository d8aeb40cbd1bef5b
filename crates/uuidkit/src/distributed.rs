//! Distributed generation (RFC 9562 §6.4: "embedded node id → SHOULD use
//! UUIDv8"): a v8 layout of milliseconds, a node ID, a counter and random
//! bits, on the counter engine v7 uses. The node comes from a
//! [`NodeSource`] given to the builder: a fixed one
//! ([`V8DistributedBuilder::node`]) or any other, such as a registry lease
//! ([`V8DistributedBuilder::node_source`]).

use rand_core::Rng;

use crate::Uuid;
use crate::clock::Clock;
use crate::generator::V7State;
use crate::generator::{
    ClockBackPolicy, CounterOptions, EngineCore, GenError, Generator, NoReserve, Reading, Reserve,
    RolloverPolicy,
};
use crate::node::{NoNodeSource, NodeSource, StaticNode};

const MASK_62: u128 = (1 << 62) - 1;
/// The bits after the timestamp, skipping the version and variant.
const PAYLOAD_BITS: u32 = 74;

/// The validated configuration of a [`V8Distributed`] generator; made by
/// [`V8Distributed::builder`]. It builds once it has a node: a fixed one
/// ([`node`](Self::node)) or a source ([`node_source`](Self::node_source)).
/// Its seams are attached here and only here: the node source and a
/// [`store`](Self::store).
///
/// ```
/// use uuidkit::{clock::ManualClock, generator::RolloverPolicy, rng::ThreadRng, Generator, V8Distributed};
/// let mut g = V8Distributed::builder()
///     .node(0x2A, 10)
///     .counter_bits(12)
///     .rollover(RolloverPolicy::Wait)
///     .build(ManualClock::new(1_700_000_000_000_000_000), ThreadRng)?;
/// assert_eq!(g.generate()?.custom_b().unwrap() >> 2, 0x2A); // 10 node bits, then the counter
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use = "a builder does nothing until `build`; its methods return the changed builder"]
pub struct V8DistributedBuilder<N = NoNodeSource, S = NoReserve> {
    /// The source, or why a fixed node given to `node` is invalid
    /// (reported by `build`, after the width check).
    node: Result<N, GenError>,
    node_bits: u8,
    counter_bits: u8,
    options: CounterOptions,
    store: S,
}

impl<N, S> V8DistributedBuilder<N, S> {
    /// The counter width, 0..=42, with `node_bits + counter_bits` at most 74.
    /// Default 24.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::GenErrorKind, rng::ThreadRng, V8Distributed};
    /// let err = V8Distributed::builder().node(1, 8).counter_bits(43).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected counter bits in 0..=42, found 43");
    /// ```
    pub const fn counter_bits(mut self, bits: u8) -> V8DistributedBuilder<N, S> {
        self.counter_bits = bits;
        self
    }

    /// Top counter bits left clear at each new millisecond; smaller than the
    /// counter width. Default 1.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::GenErrorKind, rng::ThreadRng, V8Distributed};
    /// let err = V8Distributed::builder().node(1, 8).counter_bits(4).guard_bits(4).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
    /// ```
    pub const fn guard_bits(mut self, bits: u8) -> V8DistributedBuilder<N, S> {
        self.options.guard_bits = bits;
        self
    }

    /// The counter rollover policy. Default [`RolloverPolicy::AdvanceTimestamp`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{GenErrorKind, RolloverPolicy}};
    /// use uuidkit::{rng::ThreadRng, Generator, V8Distributed};
    /// let mut g = V8Distributed::builder().node(1, 8)
    ///     .counter_bits(0)
    ///     .rollover(RolloverPolicy::Error)
    ///     .build(ManualClock::new(1_700_000_000_000_000_000), ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::CounterExhausted);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn rollover(mut self, policy: RolloverPolicy) -> V8DistributedBuilder<N, S> {
        self.options.rollover = policy;
        self
    }

    /// The clock-back policy beyond `tolerance_ns`; see
    /// [`V7Builder::clock_back`](crate::generator::V7Builder::clock_back). Default
    /// [`ClockBackPolicy::Error`] beyond 10 s.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{ClockBackPolicy, GenErrorKind}};
    /// use uuidkit::{rng::ThreadRng, Generator, V8Distributed};
    /// let clock = ManualClock::new(1_700_000_000_000_000_000);
    /// let mut g = V8Distributed::builder().node(1, 8).clock_back(ClockBackPolicy::Error, 0).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// clock.step_back(1_000_000);
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_back(
        mut self,
        policy: ClockBackPolicy,
        tolerance_ns: u64,
    ) -> V8DistributedBuilder<N, S> {
        self.options.clock_back = policy;
        self.options.tolerance_ns = tolerance_ns;
        self
    }

    /// A fixed node, `node_id` of `node_bits` (1..=48) bits.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V8Distributed};
    /// let err = V8Distributed::builder().node(0, 0).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected node bits in 1..=48, found 0");
    /// ```
    pub fn node(self, node_id: u64, node_bits: u8) -> V8DistributedBuilder<StaticNode, S> {
        V8DistributedBuilder {
            node: StaticNode::new(node_id, node_bits),
            node_bits,
            counter_bits: self.counter_bits,
            options: self.options,
            store: self.store,
        }
    }

    /// Nodes from `source`, of its [`bits`](NodeSource::bits) (1..=48,
    /// as every source's), asked before every UUID. Pass an `Arc` of a shared source (a
    /// [`NodeSlot`]) to keep a handle on it, or a `&` of
    /// one.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, node::NodeSlot, rng::ThreadRng, Generator, V8Distributed};
    /// let slot = NodeSlot::new(8)?;
    /// let mut g = V8Distributed::builder().node_source(&slot).counter_bits(12).build(ManualClock::new(1_700_000_000_000_000_000), ThreadRng)?;
    /// slot.set(0x5A)?;
    /// assert_eq!(g.generate()?.custom_b().unwrap() >> 4, 0x5A); // 8 node bits, then the counter
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[doc = std_link!("NodeSlot", "crate::node::NodeSlot")]
    pub fn node_source<N2: NodeSource>(self, source: N2) -> V8DistributedBuilder<N2, S> {
        V8DistributedBuilder {
            node_bits: source.bits(),
            node: Ok(source),
            counter_bits: self.counter_bits,
            options: self.options,
            store: self.store,
        }
    }

    /// Binds the generator to a [`Reserve`] store (stable storage); timestamps
    /// are milliseconds and the state a [`V7State`] (millisecond and counter).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve, V7State}};
    /// use uuidkit::{rng::ThreadRng, GenError, Generator, V8Distributed};
    /// struct Above(u64);
    /// impl Reserve<V7State> for Above {
    ///     fn reserve(&mut self, _: &V7State, needed: u64) -> Result<Reservation<V7State>, GenError> {
    ///         Ok(if needed <= self.0 {
    ///             Reservation::ResumeFrom(V7State { unix_ts_ms: self.0, counter: u128::MAX, valid: true })
    ///         } else {
    ///             Reservation::Until(u64::MAX)
    ///         })
    ///     }
    /// }
    /// let clock = ManualClock::new(1_700_000_000_000_000_000);
    /// let mut g = V8Distributed::builder().node(1, 4).store(Above(1_700_000_000_005)).build(&clock, ThreadRng)?;
    /// assert_eq!(g.generate()?.custom_a(), Some(1_700_000_000_006)); // above the store's mark
    /// # Ok::<(), GenError>(())
    /// ```
    pub fn store<S2: Reserve<V7State>>(self, store: S2) -> V8DistributedBuilder<N, S2> {
        V8DistributedBuilder {
            node: self.node,
            node_bits: self.node_bits,
            counter_bits: self.counter_bits,
            options: self.options,
            store,
        }
    }
}

impl<N: NodeSource, S: Reserve<V7State>> V8DistributedBuilder<N, S> {
    /// Checks the configuration and makes the generator.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig) when a
    /// width is out of range (a source's [`bits`](NodeSource::bits) included)
    /// or a fixed node ID does not fit its width.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::GenErrorKind, rng::ThreadRng, V8Distributed};
    /// let err = V8Distributed::builder().node(256, 8).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
    /// assert_eq!(err.to_string(), "invalid generator config: expected a node id that fits the node bits, found 256");
    /// ```
    pub fn build<C: Clock, R: Rng>(
        self,
        clock: C,
        rng: R,
    ) -> Result<V8Distributed<C, R, S, N>, GenError> {
        if !(1..=48).contains(&self.node_bits) {
            return Err(GenError::config(
                "node bits in 1..=48",
                self.node_bits.into(),
            ));
        }
        let node = self.node?;
        if self.counter_bits > 42 {
            return Err(GenError::config(
                "counter bits in 0..=42",
                self.counter_bits.into(),
            ));
        }
        // The node and the counter share the 74 payload bits; what is left is random.
        let shared = u32::from(self.node_bits) + u32::from(self.counter_bits);
        if shared > PAYLOAD_BITS {
            return Err(GenError::config(
                "node bits + counter bits at most 74",
                shared.into(),
            ));
        }
        Ok(V8Distributed {
            clock,
            rng,
            core: EngineCore::new(self.options.spec(0, self.counter_bits, 0)?, self.store),
            node,
            node_bits: self.node_bits.into(),
            epoch: None,
        })
    }
}

/// A v8 generator for distributed systems (RFC 9562 §6.4: "embedded node id →
/// SHOULD use UUIDv8"); configured by [`V8Distributed::builder`]. Layout, most
/// significant first:
///
/// | bits | field |
/// |---|---|
/// | 0–47 | Unix milliseconds |
/// | 48–51 | version `1000` |
/// | then `node_bits` | node ID |
/// | then `counter_bits` | counter (seeded randomly at each new ms, top guard bit(s) clear) |
/// | the rest (`74 − node_bits − counter_bits`) | random |
///
/// with the variant `10` at bits 64–65 (the 74 payload bits skip bits 48–51 and
/// 64–65). While its node stays the same, one generator's output strictly
/// increases (same rules as [`V7Generator`](crate::V7Generator) Method 1);
/// UUIDs of different nodes never collide, whatever the random bits, as long
/// as node IDs are unique. The node ID should not be a MAC address (§6.4).
///
/// The node is asked of the [`NodeSource`] before every UUID. If the source
/// holds none, `generate` returns
/// [`GenErrorKind::NodeLost`](crate::generator::GenErrorKind::NodeLost) and issues
/// nothing; if it holds a new node (a new epoch), the counter restarts as in
/// a new generator (from the clock, with a fresh random seed), so nothing of
/// the old node's sequence carries over. `fill` asks once per UUID, like
/// `generate`.
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V8Distributed};
/// let clock = ManualClock::new(1_700_000_000_000_000_000);
/// let mut g = V8Distributed::builder().node(0xABC, 12).build(&clock, ThreadRng)?;
/// let u = g.generate()?;
/// assert_eq!(u.custom_a(), Some(1_700_000_000_000));
/// assert_eq!(u.custom_b(), Some(0xABC)); // 12 node bits fill what v7 calls rand_a
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V8Distributed<C, R, S: Reserve<V7State> = NoReserve, N = StaticNode> {
    clock: C,
    rng: R,
    core: EngineCore<S>,
    node: N,
    node_bits: u32,
    /// The epoch of the node of the last UUID; `None` before the first.
    epoch: Option<u64>,
}

impl V8Distributed<(), ()> {
    /// The builder, with a 24-bit counter, 1 guard bit, advance on rollover
    /// and reset beyond a 10 s clock step back unless set otherwise; it
    /// builds once given a node ([`V8DistributedBuilder::node`]) or a node
    /// source ([`V8DistributedBuilder::node_source`]).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V8Distributed};
    /// let mut g = V8Distributed::builder().node(7, 3).build(ManualClock::new(1_700_000_000_000_000_000), ThreadRng)?;
    /// assert_eq!(g.generate()?.custom_b().unwrap() >> 9, 7); // 3 node bits of rand_a's 12
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn builder() -> V8DistributedBuilder {
        V8DistributedBuilder {
            node: Ok(NoNodeSource),
            node_bits: 0,
            counter_bits: 24,
            options: CounterOptions::DEFAULT,
            store: NoReserve,
        }
    }
}

impl<C, R, S: Reserve<V7State>, N> V8Distributed<C, R, S, N> {
    /// The node source.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, node::NodeSource, rng::ThreadRng, V8Distributed};
    /// let g = V8Distributed::builder().node(0x2A, 6).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.node_source().current()?.value(), 0x2A);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn node_source(&self) -> &N {
        &self.node
    }

    /// The store.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::NoReserve, rng::ThreadRng, V8Distributed};
    /// let g = V8Distributed::builder().node(1, 4).build(ManualClock::new(0), ThreadRng)?;
    /// let store: &NoReserve = g.store();
    /// assert_eq!(format!("{store:?}"), "NoReserve");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn store(&self) -> &S {
        self.core.store()
    }

    /// The store, mutably; see [`V1Generator::store_mut`](crate::V1Generator::store_mut).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve}, rng::ThreadRng, V8Distributed};
    /// let mut g = V8Distributed::builder().node(1, 4).build(ManualClock::new(0), ThreadRng)?;
    /// let state = g.state();
    /// assert_eq!(g.store_mut().reserve(&state, 1)?, Reservation::Until(u64::MAX));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn store_mut(&mut self) -> &mut S {
        self.core.store_mut()
    }

    /// The current state: last millisecond and counter.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V8Distributed};
    /// let g = V8Distributed::builder().node(1, 4).build(ManualClock::new(0), ThreadRng)?;
    /// assert!(!g.state().valid);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn state(&self) -> V7State {
        self.core.state()
    }
}

impl<C: Clock, R: Rng, S: Reserve<V7State>, N: NodeSource> Generator for V8Distributed<C, R, S, N> {
    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// As [`V7Generator`](crate::V7Generator)'s, and
    /// [`GenErrorKind::NodeLost`](crate::generator::GenErrorKind::NodeLost) when the
    /// node source holds no node.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V8Distributed};
    /// let clock = ManualClock::new(5_000_000);
    /// let mut g = V8Distributed::builder().node(1, 4).build(&clock, ThreadRng)?;
    /// assert!(g.generate()? < g.generate()?);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    fn generate(&mut self) -> Result<Uuid, GenError> {
        loop {
            let value =
                self.core
                    .next(&self.clock, &mut self.rng, &mut Reading::of(&self.clock))?;
            // The node is asked after the clock was read: a lease's deadline check then
            // comes after the time this UUID carries, so no UUID carries a time past its
            // node's tenure, however long the process stood still in between.
            let node = self.node.current().map_err(GenError::from_node_lost)?;
            if u32::from(node.bits()) != self.node_bits {
                // A source must keep its width; a wider value would spill into
                // the counter.
                return Err(GenError::config(
                    "a node id as wide as the source's bits",
                    node.bits().into(),
                ));
            }
            match self.epoch {
                Some(epoch) if epoch != node.epoch() => {
                    // A new node: nothing of the old node's counter carries over, and the
                    // value drawn under the old one is dropped.
                    self.core.restart();
                    self.epoch = Some(node.epoch());
                }
                _ => {
                    self.epoch = Some(node.epoch());
                    return Ok(self.assemble(value, node.value()));
                }
            }
        }
    }
}

impl<C: Clock, R: Rng, S: Reserve<V7State>, N: NodeSource> V8Distributed<C, R, S, N> {
    /// The UUID of one counter value (milliseconds and counter) under `node`.
    #[inline(always)]
    fn assemble(&mut self, value: u128, node: u64) -> Uuid {
        let (ms, counter) = self.core.split(value);
        let random_bits = PAYLOAD_BITS - self.node_bits - self.core.spec().counter_bits;
        let r = (((self.rng.next_u64() as u128) << 64) | self.rng.next_u64() as u128)
            & ((1u128 << random_bits) - 1);
        let field =
            ((node as u128) << (PAYLOAD_BITS - self.node_bits)) | (counter << random_bits) | r;
        Uuid::new_v8_from_parts(ms, (field >> 62) as u16, (field & MASK_62) as u64)
    }
}
