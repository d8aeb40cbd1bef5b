//! Version 8 time-based layouts: RFC 9562 Appendix B.1 (a 60-bit timestamp in
//! 10-ns units) and a distributed layout for §6.4 (milliseconds, node ID,
//! counter, random).

use rand_core::Rng;

use crate::generator::{
    ClockBackPolicy, DEFAULT_TOLERANCE_NS, Engine, EngineSpec, GenError, GenErrorKind, NoReserve,
    Reserve, RolloverPolicy, Stop,
};
use crate::{Clock, Uuid, V7State};

const MASK_60: u64 = (1 << 60) - 1;
const MASK_62: u128 = (1 << 62) - 1;

impl Uuid {
    /// A time-based v8 UUID in the layout of RFC 9562 Appendix B.1: the low 60 bits
    /// of a Unix timestamp in 10-ns units, most significant first (`custom_a` = its
    /// top 48 bits, `custom_b` = its low 12), then 62 bits of `custom_c` (random
    /// in B.1).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// // RFC 9562 Appendix B.1
    /// let u = Uuid::new_v8_time(0x2489E9AD2EE2E00, 0x0EC932D5F69181C0);
    /// assert_eq!(u.as_u128(), 0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0);
    /// ```
    #[inline]
    pub const fn new_v8_time(unix_10ns: u64, custom_c: u64) -> Uuid {
        let t = unix_10ns & MASK_60;
        Uuid::new_v8_from_parts(t >> 12, (t & 0xFFF) as u16, custom_c)
    }
}

/// A monotonic generator of B.1-layout v8 UUIDs (see [`Uuid::new_v8_time`]): the
/// timestamp is the clock in 10-ns units, moved one unit past the previous
/// timestamp when the clock has not advanced (so one generator's output strictly
/// increases), with 62 random bits. A clock step back within the tolerance
/// (default 10 s) keeps counting from the last timestamp; beyond it the
/// [`ClockBackPolicy`] applies. v8 uniqueness is implementation-specific
/// (§5.8): this layout has 62 random bits per UUID.
///
/// ```
/// use uuidkit::{ManualClock, ThreadRng, V8TimeGenerator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000);
/// let mut g = V8TimeGenerator::new(&clock, ThreadRng);
/// let (a, b) = (g.generate()?, g.generate()?);
/// assert_eq!(a.as_u128() >> 80, 0x2489E9AD2EE2);
/// assert_eq!(b.as_u128() >> 64 & 0xFFF, 0xE01); // one 10-ns unit later
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V8TimeGenerator<C, R> {
    clock: C,
    rng: R,
    last: u64,
    started: bool,
    clock_back: ClockBackPolicy,
    tolerance_ns: u64,
}

impl<C: Clock, R: Rng> V8TimeGenerator<C, R> {
    /// A generator with the default policy: reset beyond a 10 s step back.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V8TimeGenerator};
    /// let _g = V8TimeGenerator::new(ManualClock::new(0), ThreadRng);
    /// ```
    pub fn new(clock: C, rng: R) -> Self {
        V8TimeGenerator {
            clock,
            rng,
            last: 0,
            started: false,
            clock_back: ClockBackPolicy::Reset,
            tolerance_ns: DEFAULT_TOLERANCE_NS,
        }
    }

    /// Sets the clock-back policy and tolerance.
    ///
    /// ```
    /// use uuidkit::{ClockBackPolicy, ManualClock, ThreadRng, V8TimeGenerator};
    /// let _g = V8TimeGenerator::new(ManualClock::new(0), ThreadRng).with_clock_back(ClockBackPolicy::Error, 0);
    /// ```
    pub fn with_clock_back(mut self, policy: ClockBackPolicy, tolerance_ns: u64) -> Self {
        self.clock_back = policy;
        self.tolerance_ns = tolerance_ns;
        self
    }

    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// [`GenErrorKind::ClockBehind`] under [`ClockBackPolicy::Error`] only.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V8TimeGenerator};
    /// let mut g = V8TimeGenerator::new(ManualClock::new(10), ThreadRng);
    /// assert_eq!(g.generate()?.version(), Some(uuidkit::Version::Custom));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn generate(&mut self) -> Result<Uuid, GenError> {
        let now = self.clock.now_ns();
        self.at(now)
    }

    /// The next UUID as if the clock read `unix_ns`.
    ///
    /// # Errors
    /// As [`generate`](Self::generate).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V8TimeGenerator};
    /// let mut g = V8TimeGenerator::new(ManualClock::new(0), ThreadRng);
    /// assert_eq!(g.at(1_645_557_742_000_000_000)?.as_u128() >> 64 & !0xF000, 0x2489E9AD_2EE2_0E00);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn at(&mut self, unix_ns: u64) -> Result<Uuid, GenError> {
        let now = unix_ns / 10;
        let t = if !self.started || now > self.last {
            now
        } else if (self.last - now).saturating_mul(10) <= self.tolerance_ns {
            self.last + 1
        } else {
            match self.clock_back {
                ClockBackPolicy::Reset => now,
                ClockBackPolicy::Error => {
                    return Err(GenError::new(
                        GenErrorKind::ClockBehind,
                        self.last
                            .saturating_mul(10)
                            .saturating_sub(self.tolerance_ns),
                        unix_ns,
                    ));
                }
            }
        };
        self.last = t;
        self.started = true;
        Ok(Uuid::new_v8_time(t, self.rng.next_u64()))
    }
}

/// The configuration of a [`V8Distributed`] generator.
///
/// ```
/// let cfg = uuidkit::V8DistributedConfig::new(0x2A, 10);
/// assert_eq!((cfg.node_id, cfg.node_bits, cfg.counter_bits), (0x2A, 10, 24));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V8DistributedConfig {
    /// This generator's node ID; must fit `node_bits`.
    pub node_id: u64,
    /// Node ID width, 1..=32.
    pub node_bits: u8,
    /// Counter width, 0..=42 (`node_bits + counter_bits` at most 74). Default 24.
    pub counter_bits: u8,
    /// Top counter bits left clear at each new millisecond. Default 1.
    pub guard_bits: u8,
    /// Counter rollover policy. Default [`RolloverPolicy::AdvanceTimestamp`].
    pub rollover: RolloverPolicy,
    /// Clock-back policy beyond `tolerance_ns`. Default [`ClockBackPolicy::Reset`].
    pub clock_back: ClockBackPolicy,
    /// Clock-back tolerance. Default 10 s.
    pub tolerance_ns: u64,
}

impl V8DistributedConfig {
    /// Node `node_id` of `node_bits` bits, a 24-bit counter, the other defaults.
    ///
    /// ```
    /// assert_eq!(uuidkit::V8DistributedConfig::new(1, 8).guard_bits, 1);
    /// ```
    pub const fn new(node_id: u64, node_bits: u8) -> V8DistributedConfig {
        V8DistributedConfig {
            node_id,
            node_bits,
            counter_bits: 24,
            guard_bits: 1,
            rollover: RolloverPolicy::AdvanceTimestamp,
            clock_back: ClockBackPolicy::Reset,
            tolerance_ns: DEFAULT_TOLERANCE_NS,
        }
    }

    /// Sets the counter width.
    ///
    /// ```
    /// assert_eq!(uuidkit::V8DistributedConfig::new(1, 8).counter_bits(12).counter_bits, 12);
    /// ```
    pub const fn counter_bits(mut self, bits: u8) -> V8DistributedConfig {
        self.counter_bits = bits;
        self
    }

    /// Sets the rollover policy.
    ///
    /// ```
    /// use uuidkit::{RolloverPolicy, V8DistributedConfig};
    /// assert_eq!(V8DistributedConfig::new(1, 8).rollover(RolloverPolicy::Wait).rollover, RolloverPolicy::Wait);
    /// ```
    pub const fn rollover(mut self, policy: RolloverPolicy) -> V8DistributedConfig {
        self.rollover = policy;
        self
    }

    fn spec(&self) -> Result<EngineSpec, GenError> {
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
        if self.counter_bits != 0 && self.guard_bits >= self.counter_bits {
            return Err(GenError::config(
                "guard bits smaller than the counter width",
                self.guard_bits.into(),
            ));
        }
        Ok(EngineSpec {
            frac_bits: 0,
            counter_bits: self.counter_bits.into(),
            guard_bits: if self.counter_bits == 0 {
                0
            } else {
                self.guard_bits.into()
            },
            increment_bits: 0,
            rollover: self.rollover,
            clock_back: self.clock_back,
            tolerance_ns: self.tolerance_ns,
        })
    }
}

/// A v8 generator for distributed systems (RFC 9562 §6.4: "embedded node id →
/// SHOULD use UUIDv8"). Layout, most significant first:
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
/// use uuidkit::{ManualClock, ThreadRng, V8Distributed, V8DistributedConfig};
/// let clock = ManualClock::new(1_700_000_000_000_000_000);
/// let mut g = V8Distributed::new(&clock, ThreadRng, V8DistributedConfig::new(0xABC, 12))?;
/// let u = g.generate()?.as_u128();
/// assert_eq!(u >> 80, 1_700_000_000_000);
/// assert_eq!(u >> 64 & 0xFFF, 0xABC); // 12 node bits fill what v7 calls rand_a
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V8Distributed<C, R, S = NoReserve> {
    clock: C,
    rng: R,
    store: S,
    engine: Engine,
    node_id: u64,
    node_bits: u32,
    limit: u64,
}

impl<C: Clock, R: Rng> V8Distributed<C, R> {
    /// A generator with the given configuration.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`] when a width is out of range or the node ID
    /// does not fit its width.
    ///
    /// ```
    /// use uuidkit::{GenErrorKind, ManualClock, ThreadRng, V8Distributed, V8DistributedConfig};
    /// let err = V8Distributed::new(ManualClock::new(0), ThreadRng, V8DistributedConfig::new(256, 8)).unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
    /// ```
    pub fn new(clock: C, rng: R, config: V8DistributedConfig) -> Result<Self, GenError> {
        Ok(V8Distributed {
            clock,
            rng,
            store: NoReserve,
            engine: Engine::new(config.spec()?),
            node_id: config.node_id,
            node_bits: config.node_bits.into(),
            limit: 0,
        })
    }
}

impl<C, R, S> V8Distributed<C, R, S> {
    /// Attaches a [`Reserve`] (stable storage); timestamps are milliseconds and
    /// the state a [`V7State`] (millisecond and counter).
    ///
    /// ```
    /// use uuidkit::{ManualClock, NoReserve, ThreadRng, V8Distributed, V8DistributedConfig};
    /// let g = V8Distributed::new(ManualClock::new(0), ThreadRng, V8DistributedConfig::new(1, 4))?;
    /// let _g = g.with_reserve(NoReserve);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn with_reserve<S2>(self, store: S2) -> V8Distributed<C, R, S2> {
        V8Distributed {
            clock: self.clock,
            rng: self.rng,
            store,
            engine: self.engine,
            node_id: self.node_id,
            node_bits: self.node_bits,
            limit: 0,
        }
    }

    /// The current state: last millisecond and counter.
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V8Distributed, V8DistributedConfig};
    /// let g = V8Distributed::new(ManualClock::new(0), ThreadRng, V8DistributedConfig::new(1, 4))?;
    /// assert!(!g.state().valid);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn state(&self) -> V7State {
        let (last, valid) = self.engine.last();
        let (ms, counter) = self.engine.split(last);
        V7State {
            unix_ts_ms: if valid { ms } else { 0 },
            counter: if valid { counter } else { 0 },
            valid,
        }
    }
}

impl<C: Clock, R: Rng, S: Reserve<V7State>> V8Distributed<C, R, S> {
    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// As [`V7Generator::generate`](crate::V7Generator::generate).
    ///
    /// ```
    /// use uuidkit::{ManualClock, ThreadRng, V8Distributed, V8DistributedConfig};
    /// let clock = ManualClock::new(5_000_000);
    /// let mut g = V8Distributed::new(&clock, ThreadRng, V8DistributedConfig::new(1, 4))?;
    /// assert!(g.generate()? < g.generate()?);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn generate(&mut self) -> Result<Uuid, GenError> {
        let value = loop {
            let now = self.clock.now_ns();
            match self.engine.next(now, &mut self.rng) {
                Ok(v) => break v,
                Err(Stop::Wait) => self.clock.relax(),
                Err(Stop::Err(e)) => return Err(e),
            }
        };
        let (ms, counter) = self.engine.split(value);
        if ms >= self.limit {
            let state = self.state();
            let limit = self.store.reserve(&state, ms)?;
            self.limit = limit.max(ms.saturating_add(1));
        }
        let c = self.engine.spec().counter_bits;
        let random_bits = 74 - self.node_bits - c;
        let r = (((self.rng.next_u64() as u128) << 64) | self.rng.next_u64() as u128)
            & ((1u128 << random_bits) - 1);
        let field =
            ((self.node_id as u128) << (74 - self.node_bits)) | (counter << random_bits) | r;
        Ok(Uuid::new_v8_from_parts(
            ms,
            (field >> 62) as u16,
            (field & MASK_62) as u64,
        ))
    }
}
