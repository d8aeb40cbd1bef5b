//! Version 7: Unix epoch time-based (RFC 9562 §5.7), with the monotonicity
//! methods of §6.2.

use rand_core::Rng;

use crate::Uuid;
use crate::clock::Clock;
use crate::generator::{
    ClockBackPolicy, CounterOptions, EngineCore, EngineSpec, GenError, Generator, NoReserve,
    Reading, Reserve, RolloverPolicy,
};

const MASK_62: u128 = (1 << 62) - 1;

/// How a [`V7Generator`] keeps UUIDs generated within one millisecond ordered
/// (RFC 9562 §6.2). The 74 bits after the 48-bit millisecond timestamp are filled,
/// most significant first, with: the sub-millisecond fraction (Method 3), the
/// counter (Methods 1 and 2), then fresh random bits.
///
/// ```
/// use uuidkit::generator::V7Method;
/// assert_eq!(V7Method::default(), V7Method::Counter { bits: 42 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum V7Method {
    /// Method 1, fixed-length dedicated counter: `bits` (12..=42) counter bits
    /// right after the timestamp (`rand_a`, then the top of `rand_b`), seeded
    /// randomly at each new millisecond with the top guard bit(s) clear and
    /// incremented by 1 within it; the remaining `74 - bits` bits are random per
    /// UUID. The default is 42 bits (32 random bits remain).
    Counter {
        /// Counter width, 12..=42.
        bits: u8,
    },
    /// Method 2, monotonic random: all 74 bits form one number, seeded randomly
    /// (top guard bit(s) clear) at each new millisecond and increased within it by
    /// a random increment drawn uniformly from `[1, 2^increment_bits]`
    /// (`increment_bits` 0..=32; 0 means increment by exactly 1).
    MonotonicRandom {
        /// Width of the random increment, 0..=32.
        increment_bits: u8,
    },
    /// Method 3, increased clock precision: `bits` (1..=12) sub-millisecond bits
    /// `floor(fraction × 2^bits)` right after the timestamp, the rest random. Two
    /// UUIDs in the same sub-millisecond tick are kept ordered by the rollover
    /// policy (by default, the second one moves to the next tick).
    SubMillis {
        /// Fraction width, 1..=12.
        bits: u8,
    },
    /// Method 3 followed by a Method 1 counter: `frac_bits` (1..=12) fraction bits,
    /// then `counter_bits` (at least 1) counter bits, then random bits; the two widths
    /// together are 12..=42 bits.
    ///
    /// Both parts order the UUIDs of one millisecond, the fraction by time and the
    /// counter within a tick, so §6.2's bound on a counter's width (12 to 42 bits)
    /// applies to their sum: at least 4096 UUIDs ordered per millisecond before the
    /// rollover policy acts, and at least 32 random bits left, as with Method 1.
    SubMillisCounter {
        /// Fraction width, 1..=12.
        frac_bits: u8,
        /// Counter width, at least 1, with `frac_bits + counter_bits` in 12..=42.
        counter_bits: u8,
    },
}

impl Default for V7Method {
    fn default() -> V7Method {
        V7Method::Counter { bits: 42 }
    }
}

/// The validated configuration of a [`V7Generator`]; made by
/// [`V7Generator::builder`].
///
/// ```
/// use uuidkit::generator::{ClockBackPolicy, RolloverPolicy, V7Method};
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V7Generator};
/// let mut g = V7Generator::builder()
///     .method(V7Method::SubMillisCounter { frac_bits: 12, counter_bits: 18 })
///     .rollover(RolloverPolicy::Wait)
///     .clock_back(ClockBackPolicy::Error, 1_000_000_000) // 1 s tolerance
///     .build(ManualClock::new(1_645_557_742_000_456_700), ThreadRng)?;
/// // 0.4567 ms into the millisecond: floor(0.4567 × 4096) = 1870 in rand_a.
/// assert_eq!(g.generate()?.rand_a(), Some(1870));
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use = "a builder does nothing until `build`; its methods return the changed builder"]
pub struct V7Builder<S = NoReserve> {
    method: V7Method,
    options: CounterOptions,
    start_ms: u64,
    store: S,
}

impl Default for V7Builder {
    fn default() -> V7Builder {
        V7Generator::builder()
    }
}

impl<S> V7Builder<S> {
    /// The §6.2 method (default: a 42-bit Method 1 counter).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::V7Method, rng::ThreadRng, Generator, V7Generator};
    /// let mut g = V7Generator::builder()
    ///     .method(V7Method::MonotonicRandom { increment_bits: 0 })
    ///     .build(ManualClock::new(1_700_000_000_000_000_000), ThreadRng)?;
    /// let (a, b) = (g.generate()?, g.generate()?);
    /// assert_eq!(b.as_u128() - a.as_u128(), 1); // an increment of exactly 1
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn method(mut self, method: V7Method) -> V7Builder<S> {
        self.method = method;
        self
    }

    /// Top counter bits left clear at each seeding, as rollover guard (§6.2):
    /// smaller than the counter width. Default 1. Ignored by
    /// [`V7Method::SubMillis`], which has no counter.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::V7Method, rng::ThreadRng, Generator, V7Generator};
    /// let mut g = V7Generator::builder()
    ///     .method(V7Method::Counter { bits: 12 })
    ///     .guard_bits(4)
    ///     .build(ManualClock::new(1_700_000_000_000_000_000), ThreadRng)?;
    /// assert!(g.generate()?.rand_a().unwrap() < 1 << 8); // the top 4 of 12 bits clear
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn guard_bits(mut self, bits: u8) -> V7Builder<S> {
        self.options.guard_bits = bits;
        self
    }

    /// What to do when the counter is used up within one tick. Default
    /// [`RolloverPolicy::AdvanceTimestamp`].
    ///
    /// ```
    /// use uuidkit::generator::{GenErrorKind, RolloverPolicy, V7Method};
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V7Generator};
    /// let mut g = V7Generator::builder()
    ///     .method(V7Method::SubMillis { bits: 12 })
    ///     .rollover(RolloverPolicy::Error)
    ///     .build(ManualClock::new(1_700_000_000_000_000_000), ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::CounterExhausted);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn rollover(mut self, policy: RolloverPolicy) -> V7Builder<S> {
        self.options.rollover = policy;
        self
    }

    /// What to do when the clock is behind the last timestamp by more than
    /// `tolerance_ns`. Within the tolerance the generator keeps its last
    /// timestamp and counts on. Default [`ClockBackPolicy::Error`] beyond 10 s;
    /// `u64::MAX` means no limit (the policy is then never applied).
    ///
    /// ```
    /// use uuidkit::generator::{ClockBackPolicy, GenErrorKind};
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V7Generator};
    /// let clock = ManualClock::new(1_700_000_000_000_000_000);
    /// let mut g = V7Generator::builder().clock_back(ClockBackPolicy::Error, 0).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// clock.step_back(1_000_000);
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_back(mut self, policy: ClockBackPolicy, tolerance_ns: u64) -> V7Builder<S> {
        self.options.clock_back = policy;
        self.options.tolerance_ns = tolerance_ns;
        self
    }

    /// Starts time at the Unix millisecond `unix_ts_ms`: the clock's zero
    /// stands for it, so the timestamp is `unix_ts_ms` plus the clock's
    /// reading. With a [`ManualClock`](crate::clock::ManualClock) standing at a
    /// sub-millisecond offset this makes UUIDs "at" a given time anywhere in
    /// the 48-bit range (to the year 10889, past the year 2554 where a
    /// nanosecond clock in a `u64` ends), with the counter and rollover
    /// working as at the real time. Default 0 (the clock reads Unix time).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, layout::MAX_UNIX_TS_MS, rng::ThreadRng, Generator, V7Generator};
    /// let mut g = V7Generator::builder().start_ms(MAX_UNIX_TS_MS).build(ManualClock::new(0), ThreadRng)?;
    /// let (a, b) = (g.generate()?, g.generate()?);
    /// assert_eq!((a.unix_ts_ms(), b.unix_ts_ms()), (Some(MAX_UNIX_TS_MS), Some(MAX_UNIX_TS_MS)));
    /// assert!(a < b);
    /// let mut g = V7Generator::builder().start_ms(MAX_UNIX_TS_MS).build(ManualClock::new(1_000_000), ThreadRng)?;
    /// assert_eq!(g.generate().unwrap_err().kind(), uuidkit::generator::GenErrorKind::TimestampOutOfRange);
    /// // Past the field itself: refused when built.
    /// assert!(V7Generator::builder().start_ms(MAX_UNIX_TS_MS + 1).build(ManualClock::new(0), ThreadRng).is_err());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn start_ms(mut self, unix_ts_ms: u64) -> V7Builder<S> {
        self.start_ms = unix_ts_ms;
        self
    }

    /// Binds the generator to a [`Reserve`] store (stable storage, §6.3), for
    /// instance a state file's `V7Lease` (the `uuidkit-state` crate),
    /// consulted before the first UUID and whenever its reservation runs
    /// out. A store moves the generator above what it has issued:
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve, V7State}};
    /// use uuidkit::{rng::ThreadRng, GenError, Generator, V7Generator};
    /// // A previous run issued up to 5 s ahead of this clock.
    /// struct Above(u64);
    /// impl Reserve<V7State> for Above {
    ///     fn reserve(&mut self, s: &V7State, needed: u64) -> Result<Reservation<V7State>, GenError> {
    ///         Ok(if needed < self.0 {
    ///             Reservation::ResumeFrom(V7State { unix_ts_ms: self.0, valid: true, ..*s })
    ///         } else {
    ///             Reservation::Until(needed + 100)
    ///         })
    ///     }
    /// }
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V7Generator::builder().store(Above(1_645_557_747_000)).build(&clock, ThreadRng)?;
    /// assert!(g.generate()?.unix_ts_ms() >= Some(1_645_557_747_000));
    /// # Ok::<(), GenError>(())
    /// ```
    pub fn store<S2: Reserve<V7State>>(self, store: S2) -> V7Builder<S2> {
        V7Builder {
            method: self.method,
            options: self.options,
            start_ms: self.start_ms,
            store,
        }
    }
}

impl<S: Reserve<V7State>> V7Builder<S> {
    /// Checks the configuration and makes the generator.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig) when a
    /// width is outside the range [`V7Method`] documents, or the guard is not
    /// smaller than the counter.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{GenErrorKind, V7Method}, rng::ThreadRng, V7Generator};
    /// let err = V7Generator::builder()
    ///     .method(V7Method::Counter { bits: 50 })
    ///     .build(ManualClock::new(0), ThreadRng)
    ///     .unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
    /// assert_eq!(err.to_string(), "invalid generator config: expected counter bits in 12..=42, found 50");
    /// ```
    pub fn build<C: Clock, R: Rng>(
        self,
        clock: C,
        rng: R,
    ) -> Result<V7Generator<C, R, S>, GenError> {
        Ok(V7Generator {
            clock,
            rng,
            core: EngineCore::new(self.spec()?, self.store),
        })
    }

    fn spec(&self) -> Result<EngineSpec, GenError> {
        let (frac, counter, inc) = match self.method {
            V7Method::Counter { bits } => {
                if !(12..=42).contains(&bits) {
                    return Err(GenError::config("counter bits in 12..=42", bits.into()));
                }
                (0, bits, 0)
            }
            V7Method::MonotonicRandom { increment_bits } => {
                if increment_bits > 32 {
                    return Err(GenError::config(
                        "increment bits in 0..=32",
                        increment_bits.into(),
                    ));
                }
                (0, 74, increment_bits)
            }
            V7Method::SubMillis { bits } => {
                if !(1..=12).contains(&bits) {
                    return Err(GenError::config("fraction bits in 1..=12", bits.into()));
                }
                (bits, 0, 0)
            }
            V7Method::SubMillisCounter {
                frac_bits,
                counter_bits,
            } => {
                if !(1..=12).contains(&frac_bits) {
                    return Err(GenError::config(
                        "fraction bits in 1..=12",
                        frac_bits.into(),
                    ));
                }
                if counter_bits == 0 {
                    return Err(GenError::config("counter bits of at least 1", 0));
                }
                let ordering = u64::from(frac_bits) + u64::from(counter_bits);
                if !(12..=42).contains(&ordering) {
                    return Err(GenError::config(
                        "fraction and counter bits together in 12..=42",
                        ordering,
                    ));
                }
                (frac_bits, counter_bits, 0)
            }
        };
        if self.start_ms > crate::layout::MAX_UNIX_TS_MS {
            // No clock reading could bring it back into the 48-bit field.
            return Err(GenError::config(
                "a start_ms that fits 48 bits",
                self.start_ms,
            ));
        }
        let mut spec = self.options.spec(frac, counter, inc)?;
        spec.start_ms = self.start_ms;
        Ok(spec)
    }
}

/// The state of a [`V7Generator`]: its high-water mark, for stable storage
/// (RFC 9562 §6.3). `counter` holds the bits that order UUIDs within the
/// millisecond (the sub-millisecond fraction, then the counter), right-aligned;
/// `valid` is false before the first UUID.
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V7Generator};
/// let clock = ManualClock::new(1_700_000_000_123_000_000);
/// let mut g = V7Generator::new(&clock, ThreadRng);
/// assert!(!g.state().valid);
/// let u = g.generate()?;
/// let s = g.state();
/// assert_eq!(s.unix_ts_ms, 1_700_000_000_123);
/// // Default Method 1: the 42 counter bits are the 12 of rand_a and the top 30 of rand_b.
/// let bits = u.as_u128();
/// assert_eq!(s.counter, ((bits >> 64) & 0xFFF) << 30 | ((bits >> 32) & ((1 << 30) - 1)));
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct V7State {
    /// The millisecond timestamp of the last UUID.
    pub unix_ts_ms: u64,
    /// The fraction and counter bits of the last UUID, right-aligned.
    pub counter: u128,
    /// Whether a UUID has been generated (or a state restored).
    pub valid: bool,
}

/// A configurable, monotonic v7 generator (RFC 9562 §5.7, §6.2), with the time
/// and the entropy injected; configured by [`V7Generator::builder`].
///
/// Guarantees, for one generator: every UUID is greater than the previous one,
/// unless the clock stepped back by more than the tolerance and the policy is
/// [`ClockBackPolicy::Reset`] (by default such a step is an error). A counter
/// is never wrapped. A forked child goes on above its parent's last UUID on
/// a freshly seeded counter, so parent and child never share a counter run. For process-wide
/// monotonicity across threads use [`Uuid::now_v7`] (or share one generator
/// behind a lock).
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V7Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000); // 2022-02-22T19:22:22Z
/// let mut g = V7Generator::new(&clock, ThreadRng);
/// let a = g.generate()?;
/// let b = g.generate()?; // same millisecond: the counter orders them
/// assert!(a < b);
/// assert_eq!(a.as_u128() >> 80, 0x017F22E279B0);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[doc = std_link!("Uuid::now_v7", "crate::Uuid::now_v7")]
#[derive(Debug)]
pub struct V7Generator<C, R, S: Reserve<V7State> = NoReserve> {
    clock: C,
    rng: R,
    core: EngineCore<S>,
}

impl V7Generator<(), ()> {
    /// The builder: every setting, checked by [`V7Builder::build`]. The
    /// defaults: a 42-bit Method 1 counter, 1 guard bit, advance on rollover,
    /// reset beyond a 10 s clock step back.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V7Generator};
    /// assert!(V7Generator::builder().build(ManualClock::new(0), ThreadRng).is_ok());
    /// ```
    pub const fn builder() -> V7Builder {
        V7Builder {
            method: V7Method::Counter { bits: 42 },
            options: CounterOptions::DEFAULT,
            start_ms: 0,
            store: NoReserve,
        }
    }
}

impl<C: Clock, R: Rng> V7Generator<C, R> {
    /// A generator with the defaults of [`V7Generator::builder`].
    ///
    /// ```
    /// use uuidkit::{clock::SystemClock, rng::ThreadRng, Generator, V7Generator};
    /// let mut g = V7Generator::new(SystemClock, ThreadRng);
    /// assert_eq!(g.generate()?.version(), Some(uuidkit::Version::SortRand));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn new(clock: C, rng: R) -> V7Generator<C, R> {
        match V7Generator::builder().build(clock, rng) {
            Ok(g) => g,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }
}

impl<C, R, S: Reserve<V7State>> V7Generator<C, R, S> {
    /// The store.
    ///
    /// ```
    /// use uuidkit::{clock::SystemClock, generator::{Reservation, Reserve, V7State}};
    /// use uuidkit::{rng::ThreadRng, GenError, Generator, V7Generator};
    /// #[derive(Default)]
    /// struct Blocks { start_ms: Option<u64> }
    /// impl Reserve<V7State> for Blocks {
    ///     fn reserve(&mut self, _: &V7State, needed: u64) -> Result<Reservation<V7State>, GenError> {
    ///         self.start_ms = Some(needed);
    ///         Ok(Reservation::Until(needed + 100))
    ///     }
    /// }
    /// let mut g = V7Generator::builder().store(Blocks::default()).build(SystemClock, ThreadRng)?;
    /// let ms = g.generate()?.unix_ts_ms().unwrap();
    /// let start = g.store().start_ms.unwrap();
    /// assert!(start <= ms && ms < start + 100);
    /// # Ok::<(), GenError>(())
    /// ```
    pub fn store(&self) -> &S {
        self.core.store()
    }

    /// The store, mutably; see [`V1Generator::store_mut`](crate::V1Generator::store_mut).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve}, rng::ThreadRng, V7Generator};
    /// let mut g = V7Generator::new(ManualClock::new(0), ThreadRng);
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
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V7Generator};
    /// let g = V7Generator::new(ManualClock::new(5), ThreadRng);
    /// assert_eq!(g.clock().now(), 5);
    /// ```
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The current state (high-water mark).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V7Generator};
    /// let g = V7Generator::new(ManualClock::new(0), ThreadRng);
    /// assert_eq!(g.state(), uuidkit::generator::V7State::default());
    /// ```
    pub fn state(&self) -> V7State {
        self.core.state()
    }

    /// Restores a state, for instance read back from stable storage: the next UUID
    /// is greater than any UUID with that millisecond timestamp and counter (while
    /// the clock is within the tolerance of it). A state with `valid == false` is
    /// ignored. Counter bits beyond the configured width are dropped.
    ///
    /// To continue above a high-water mark `ms` whatever counter was reached, pass
    /// `V7State { unix_ts_ms: ms, counter: u128::MAX, valid: true }`.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::V7State, rng::ThreadRng, Generator, V7Generator};
    /// let clock = ManualClock::new(1_700_000_000_000_000_000);
    /// let mut g = V7Generator::new(&clock, ThreadRng)
    ///     .with_state(V7State { unix_ts_ms: 1_700_000_000_005, counter: u128::MAX, valid: true });
    /// // The clock is 5 ms behind the stored mark: the generator continues above it.
    /// assert_eq!(g.generate()?.as_u128() >> 80, 1_700_000_000_006);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn with_state(mut self, state: V7State) -> Self {
        self.core.set_state(state);
        self
    }
}

impl<C: Clock, R: Rng, S: Reserve<V7State>> V7Generator<C, R, S> {
    /// The next UUID as if the clock read `unix_ns` (nanoseconds since the Unix
    /// epoch). The generator's state moves on exactly as for
    /// [`generate`](Generator::generate); [`RolloverPolicy::Wait`] cannot wait for a
    /// given time and reports [`GenErrorKind::CounterExhausted`](crate::generator::GenErrorKind::CounterExhausted).
    ///
    /// # Errors
    /// As [`generate`](Generator::generate).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V7Generator};
    /// let mut g = V7Generator::new(ManualClock::new(0), ThreadRng);
    /// let u = g.at(1_645_557_742_000_000_000)?;
    /// assert_eq!(u.as_u128() >> 80, 0x017F22E279B0); // RFC 9562 A.6's timestamp
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn at(&mut self, unix_ns: u64) -> Result<Uuid, GenError> {
        let value = self
            .core
            .next(&self.clock, &mut self.rng, &mut Reading::at(unix_ns))?;
        Ok(self.layout(value))
    }

    #[inline]
    fn layout(&mut self, value: u128) -> Uuid {
        let s = self.core.spec();
        let ordered_bits = s.frac_bits + s.counter_bits;
        let (ms, ordered) = self.core.split(value);
        let field = if ordered_bits >= 74 {
            ordered
        } else {
            let random_bits = 74 - ordered_bits;
            let r = if random_bits > 64 {
                ((self.rng.next_u64() as u128) << 64) | self.rng.next_u64() as u128
            } else {
                self.rng.next_u64() as u128
            };
            (ordered << random_bits) | (r & ((1u128 << random_bits) - 1))
        };
        Uuid::new_v7_from_parts(ms, (field >> 62) as u16, (field & MASK_62) as u64)
    }
}

impl<C: Clock, R: Rng, S: Reserve<V7State>> Generator for V7Generator<C, R, S> {
    /// The next UUID, at the clock's current time.
    ///
    /// # Errors
    /// Only as configured: [`GenErrorKind::CounterExhausted`](crate::generator::GenErrorKind::CounterExhausted)
    /// under [`RolloverPolicy::Error`], [`GenErrorKind::ClockBehind`](crate::generator::GenErrorKind::ClockBehind)
    /// under [`ClockBackPolicy::Error`],
    /// [`GenErrorKind::TimestampOutOfRange`](crate::generator::GenErrorKind::TimestampOutOfRange) after the
    /// year 10889, and whatever the [`Reserve`] store returns. With the default
    /// configuration and store, it cannot fail before 10889.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V7Generator};
    /// let mut g = V7Generator::new(ManualClock::new(1_000_000), ThreadRng);
    /// assert_eq!(g.generate()?.as_u128() >> 80, 1);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[inline]
    fn generate(&mut self) -> Result<Uuid, GenError> {
        let value = self
            .core
            .next(&self.clock, &mut self.rng, &mut Reading::of(&self.clock))?;
        Ok(self.layout(value))
    }

    /// Fills `out` with increasing UUIDs from one clock reading (a second one only
    /// when waiting out a rollover under [`RolloverPolicy::Wait`]).
    ///
    /// # Errors
    /// As [`generate`](Self::generate). On error the contents of `out` are
    /// unspecified; the UUIDs written before the failure count as issued.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, Uuid, V7Generator};
    /// let mut g = V7Generator::new(ManualClock::new(1_700_000_000_000_000_000), ThreadRng);
    /// let mut batch = [Uuid::NIL; 100];
    /// g.fill(&mut batch)?;
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    fn fill(&mut self, out: &mut [Uuid]) -> Result<(), GenError> {
        let mut reading = Reading::of(&self.clock);
        for slot in out.iter_mut() {
            let value = self.core.next(&self.clock, &mut self.rng, &mut reading)?;
            *slot = self.layout(value);
        }
        Ok(())
    }
}

impl Uuid {
    /// The smallest v7 UUID with the millisecond timestamp `unix_ts_ms`: all
    /// other bits 0, version and variant set. With [`Uuid::v7_max`] it bounds the
    /// UUIDs of a time range, for range queries and partition keys. The timestamp
    /// is truncated to 48 bits like every v7 timestamp (§6.1).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let lo = Uuid::v7_min(0x017F22E279B0);
    /// assert_eq!(lo.as_u128(), 0x017F22E2_79B0_7000_8000_000000000000);
    /// let a6 = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F); // RFC 9562 A.6
    /// assert!(lo <= a6 && a6 <= Uuid::v7_max(0x017F22E279B0));
    /// ```
    #[must_use]
    pub const fn v7_min(unix_ts_ms: u64) -> Uuid {
        Uuid::new_v7_from_parts(unix_ts_ms, 0, 0)
    }

    /// The largest v7 UUID with the millisecond timestamp `unix_ts_ms`: all other
    /// bits 1, version and variant set.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// assert_eq!(Uuid::v7_max(0x017F22E279B0).as_u128(), 0x017F22E2_79B0_7FFF_BFFF_FFFFFFFFFFFF);
    /// assert!(Uuid::v7_max(5) < Uuid::v7_min(6));
    /// ```
    #[must_use]
    pub const fn v7_max(unix_ts_ms: u64) -> Uuid {
        Uuid::new_v7_from_parts(unix_ts_ms, u16::MAX, u64::MAX)
    }
}

#[cfg(feature = "std")]
impl Uuid {
    /// A v7 UUID for the current time (RFC 9562 §5.7), from the process-wide
    /// generator.
    ///
    /// Guarantees: if one call happens-before another (in any threads), the
    /// second UUID is greater; no two calls in a process return the same UUID.
    /// Layout: 48-bit Unix milliseconds, a 16-bit counter (Method 1, seeded
    /// with 15 random bits at each new millisecond, overflow advancing the
    /// timestamp), then 58 random bits from [`ThreadRng`](crate::rng::ThreadRng).
    /// If the system clock steps back, the generator keeps its last
    /// timestamp and counts on (unbounded tolerance: process-wide
    /// monotonicity is never given up); the timestamp catches up with the
    /// clock when the clock passes it again: this function cannot return
    /// an error, so it holds, however far the clock went back (the
    /// configurable [`V7Generator`](crate::V7Generator) reports instead).
    /// A forked child moves on to the next millisecond with a freshly
    /// seeded counter and freshly seeded random bits, so it never walks its
    /// parent's counter run (one relaxed load and a compare per call see
    /// the fork).
    ///
    /// In memory only, always: it takes no lock, reads no environment
    /// variable and touches no file. State in stable storage, shared with
    /// other processes, is the explicit API of the `uuidkit-state` crate.
    ///
    /// On `wasm32-unknown-unknown` (feature `js`) the clock is the host's
    /// `Date.now()`, whole milliseconds, so the counter orders every
    /// UUID within one; the seed and random bits come from
    /// `crypto.getRandomValues`.
    ///
    /// ```
    /// use uuidkit::{Uuid, Version};
    /// let a = Uuid::now_v7();
    /// let b = Uuid::now_v7();
    /// assert!(a < b);
    /// assert_eq!(a.version(), Some(Version::SortRand));
    /// ```
    ///
    /// # References
    /// RFC 9562 §5.7 and §6.2 (Method 1).
    #[inline]
    #[must_use]
    pub fn now_v7() -> Uuid {
        let state = global::next(global::now_ms());
        let u = global::layout(state, crate::rng::next_u64());
        // Handed back through memory (the call is not inlined), and callers
        // copy a UUID in one 16-byte load: written as two 8-byte stores, that
        // load could not take its data from them and would wait for both to
        // reach the cache. One 16-byte store is forwarded to it (and to 8-byte
        // loads of either half).
        let mut bytes = *u.as_bytes();
        let word =
            |i: usize| u64::from_le_bytes(u.as_bytes()[i..i + 8].try_into().unwrap_or_default());
        if crate::arch::store_16_whole(&mut bytes, word(0), word(8)) {
            return Uuid::from_bytes(bytes);
        }
        u
    }

    /// Fills `out` with v7 UUIDs from the process-wide generator, reading the
    /// clock once and updating the shared state once: the batch is increasing,
    /// and ordered with every other [`Uuid::now_v7`] call as that function
    /// documents.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let mut batch = [Uuid::NIL; 1000];
    /// Uuid::fill_v7(&mut batch);
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// assert!(batch[999] < Uuid::now_v7());
    /// ```
    pub fn fill_v7(out: &mut [Uuid]) {
        if out.is_empty() {
            return;
        }
        let first = global::reserve(global::now_ms(), out.len() as u64);
        global::fill_from(first, out);
    }
}

#[cfg(feature = "std")]
pub(crate) mod global;
