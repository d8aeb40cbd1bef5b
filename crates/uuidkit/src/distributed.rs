//! Distributed generation (RFC 9562 §6.4: "embedded node id → SHOULD use
//! UUIDv8"): a v8 layout of milliseconds, a node ID, a counter and random
//! bits, on the counter engine v7 uses.

use rand_core::Rng;

use crate::generator::{
    ClockBackPolicy, CounterOptions, EngineCore, GenError, Generator, NoReserve, Reading, Reserve,
    RolloverPolicy,
};
use crate::{Clock, Uuid, V7State};

const MASK_62: u128 = (1 << 62) - 1;
/// The bits after the timestamp, skipping the version and variant.
const PAYLOAD_BITS: u32 = 74;

/// The validated configuration of a [`V8Distributed`] generator; made by
/// [`V8Distributed::builder`].
///
/// ```
/// use uuidkit::{Generator, ManualClock, RolloverPolicy, ThreadRng, V8Distributed};
/// let mut g = V8Distributed::builder(0x2A, 10)
///     .counter_bits(12)
///     .rollover(RolloverPolicy::Wait)
///     .build(ManualClock::new(1_700_000_000_000_000_000), ThreadRng)?;
/// assert_eq!(g.generate()?.custom_b().unwrap() >> 2, 0x2A); // 10 node bits, then the counter
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V8DistributedBuilder {
    node_id: u64,
    node_bits: u8,
    counter_bits: u8,
    options: CounterOptions,
}

impl V8DistributedBuilder {
    /// The counter width, 0..=42, with `node_bits + counter_bits` at most 74.
    /// Default 24.
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, ManualClock, ThreadRng, V8Distributed};
    /// let err = V8Distributed::builder(1, 8).counter_bits(43).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected counter bits in 0..=42, found 43");
    /// ```
    pub const fn counter_bits(mut self, bits: u8) -> V8DistributedBuilder {
        self.counter_bits = bits;
        self
    }

    /// Top counter bits left clear at each new millisecond; smaller than the
    /// counter width. Default 1.
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, ManualClock, ThreadRng, V8Distributed};
    /// let err = V8Distributed::builder(1, 8).counter_bits(4).guard_bits(4).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
    /// ```
    pub const fn guard_bits(mut self, bits: u8) -> V8DistributedBuilder {
        self.options.guard_bits = bits;
        self
    }

    /// The counter rollover policy. Default [`RolloverPolicy::AdvanceTimestamp`].
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, Generator, ManualClock, RolloverPolicy, ThreadRng, V8Distributed};
    /// let mut g = V8Distributed::builder(1, 8)
    ///     .counter_bits(0)
    ///     .rollover(RolloverPolicy::Error)
    ///     .build(ManualClock::new(1_700_000_000_000_000_000), ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::CounterExhausted);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn rollover(mut self, policy: RolloverPolicy) -> V8DistributedBuilder {
        self.options.rollover = policy;
        self
    }

    /// The clock-back policy beyond `tolerance_ns`; see
    /// [`V7Builder::clock_back`](crate::V7Builder::clock_back). Default
    /// [`ClockBackPolicy::Reset`] beyond 10 s.
    ///
    /// ```
    /// use uuidkit::{ClockBackPolicy, GenErrorKind, Generator, ManualClock, ThreadRng, V8Distributed};
    /// let clock = ManualClock::new(1_700_000_000_000_000_000);
    /// let mut g = V8Distributed::builder(1, 8).clock_back(ClockBackPolicy::Error, 0).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// clock.step_back(1_000_000);
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_back(
        mut self,
        policy: ClockBackPolicy,
        tolerance_ns: u64,
    ) -> V8DistributedBuilder {
        self.options.clock_back = policy;
        self.options.tolerance_ns = tolerance_ns;
        self
    }

    /// Checks the configuration and makes the generator.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::GenErrorKind::InvalidConfig) when a
    /// width is out of range or the node ID does not fit its width.
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, ManualClock, ThreadRng, V8Distributed};
    /// let err = V8Distributed::builder(256, 8).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
    /// assert_eq!(err.to_string(), "invalid generator config: expected a node id that fits the node bits, found 256");
    /// ```
    pub fn build<C: Clock, R: Rng>(
        self,
        clock: C,
        rng: R,
    ) -> Result<V8Distributed<C, R>, GenError> {
        if !(1..=32).contains(&self.node_bits) {
            return Err(GenError::config(
                "node bits in 1..=32",
                self.node_bits.into(),
            ));
        }
        if self.node_id >> self.node_bits != 0 {
            return Err(GenError::config(
                "a node id that fits the node bits",
                self.node_id,
            ));
        }
        if self.counter_bits > 42 {
            return Err(GenError::config(
                "counter bits in 0..=42",
                self.counter_bits.into(),
            ));
        }
        Ok(V8Distributed {
            clock,
            rng,
            core: EngineCore::new(self.options.spec(0, self.counter_bits, 0)?, NoReserve),
            node_id: self.node_id,
            node_bits: self.node_bits.into(),
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
/// 64–65). One generator's output strictly increases (same rules as
/// [`V7Generator`](crate::V7Generator) Method 1); UUIDs of different nodes never
/// collide within a millisecond as long as node IDs are unique. The node ID
/// should not be a MAC address (§6.4).
///
/// ```
/// use uuidkit::{Generator, ManualClock, ThreadRng, V8Distributed};
/// let clock = ManualClock::new(1_700_000_000_000_000_000);
/// let mut g = V8Distributed::builder(0xABC, 12).build(&clock, ThreadRng)?;
/// let u = g.generate()?;
/// assert_eq!(u.custom_a(), Some(1_700_000_000_000));
/// assert_eq!(u.custom_b(), Some(0xABC)); // 12 node bits fill what v7 calls rand_a
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V8Distributed<C, R, S: Reserve<V7State> = NoReserve> {
    clock: C,
    rng: R,
    core: EngineCore<S>,
    node_id: u64,
    node_bits: u32,
}

impl V8Distributed<(), ()> {
    /// The builder for node `node_id` of `node_bits` (1..=32) bits, with a
    /// 24-bit counter, 1 guard bit, advance on rollover and reset beyond a
    /// 10 s clock step back unless set otherwise.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V8Distributed};
    /// let err = V8Distributed::builder(0, 0).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected node bits in 1..=32, found 0");
    /// ```
    pub const fn builder(node_id: u64, node_bits: u8) -> V8DistributedBuilder {
        V8DistributedBuilder {
            node_id,
            node_bits,
            counter_bits: 24,
            options: CounterOptions::DEFAULT,
        }
    }
}

impl<C, R, S: Reserve<V7State>> V8Distributed<C, R, S> {
    /// Binds the generator to a [`Reserve`] store (stable storage); timestamps
    /// are milliseconds and the state a [`V7State`] (millisecond and counter).
    /// The current store is released.
    ///
    /// ```
    /// use uuidkit::{GenError, Generator, ManualClock, Reservation, Reserve, ThreadRng, V7State, V8Distributed};
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
    /// let mut g = V8Distributed::builder(1, 4).build(&clock, ThreadRng)?.with_store(Above(1_700_000_000_005));
    /// assert_eq!(g.generate()?.custom_a(), Some(1_700_000_000_006)); // above the store's mark
    /// # Ok::<(), GenError>(())
    /// ```
    pub fn with_store<S2: Reserve<V7State>>(self, store: S2) -> V8Distributed<C, R, S2> {
        V8Distributed {
            clock: self.clock,
            rng: self.rng,
            core: self.core.rebind(store),
            node_id: self.node_id,
            node_bits: self.node_bits,
        }
    }

    /// The store.
    ///
    /// ```
    /// use uuidkit::{ManualClock, NoReserve, ThreadRng, V8Distributed};
    /// let g = V8Distributed::builder(1, 4).build(ManualClock::new(0), ThreadRng)?;
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
    /// use uuidkit::{ManualClock, Reservation, Reserve, ThreadRng, V8Distributed};
    /// let mut g = V8Distributed::builder(1, 4).build(ManualClock::new(0), ThreadRng)?;
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
    /// use uuidkit::{ManualClock, ThreadRng, V8Distributed};
    /// let g = V8Distributed::builder(1, 4).build(ManualClock::new(0), ThreadRng)?;
    /// assert!(!g.state().valid);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn state(&self) -> V7State {
        self.core.state()
    }
}

impl<C: Clock, R: Rng, S: Reserve<V7State>> Generator for V8Distributed<C, R, S> {
    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// As [`V7Generator`](crate::V7Generator)'s.
    ///
    /// ```
    /// use uuidkit::{Generator, ManualClock, ThreadRng, V8Distributed};
    /// let clock = ManualClock::new(5_000_000);
    /// let mut g = V8Distributed::builder(1, 4).build(&clock, ThreadRng)?;
    /// assert!(g.generate()? < g.generate()?);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    fn generate(&mut self) -> Result<Uuid, GenError> {
        let value = self
            .core
            .next(&self.clock, &mut self.rng, &mut Reading::of(&self.clock))?;
        let (ms, counter) = self.core.split(value);
        let random_bits = PAYLOAD_BITS - self.node_bits - self.core.spec().counter_bits;
        let r = (((self.rng.next_u64() as u128) << 64) | self.rng.next_u64() as u128)
            & ((1u128 << random_bits) - 1);
        let field = ((self.node_id as u128) << (PAYLOAD_BITS - self.node_bits))
            | (counter << random_bits)
            | r;
        Ok(Uuid::new_v8_from_parts(
            ms,
            (field >> 62) as u16,
            (field & MASK_62) as u64,
        ))
    }
}
