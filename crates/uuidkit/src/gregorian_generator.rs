//! The generator surface versions 1 and 6 share (RFC 9562 §5.1, §5.6): one
//! type, [`GregorianGenerator`], whose layout parameter says which of the two
//! it writes. [`V1Generator`](crate::V1Generator) and
//! [`V6Generator`](crate::V6Generator) are its two instances; what differs
//! (the builders, v1's `set_node`, v6's fresh or retained node) is in
//! `v1.rs` and `v6.rs`, and the timestamp and clock-sequence engine under
//! both in `generator/clock_sequence.rs`.

use core::fmt;
use core::marker::PhantomData;

use rand_core::Rng;

use crate::Uuid;
use crate::clock::Clock;
use crate::generator::V1State;
use crate::generator::{
    GenError, Generator, GregorianCore, NoReserve, NodeFollow, Reading, Reserve, random_node,
};
use crate::node::{MaybeNodeSource, NoNodeSource};

/// Which version a [`GregorianGenerator`] writes: [`V1Layout`] or
/// [`V6Layout`]. Sealed.
///
/// ```
/// use uuidkit::{clock::ManualClock, generator::{GregorianGenerator, GregorianLayout}};
/// use uuidkit::{rng::ThreadRng, Generator, V1Generator, V6Generator, Version};
/// // One function for both versions.
/// fn version<L: GregorianLayout>(g: &mut GregorianGenerator<L, ManualClock, ThreadRng>) -> Option<Version> {
///     g.generate().ok()?.version()
/// }
/// let clock = || ManualClock::new(1_645_557_742_000_000_000);
/// assert_eq!(version(&mut V1Generator::new(clock(), ThreadRng)), Some(Version::Mac));
/// assert_eq!(version(&mut V6Generator::new(clock(), ThreadRng)), Some(Version::SortMac));
/// ```
pub trait GregorianLayout: layout::Sealed + fmt::Debug {}

/// Version 1's layout (RFC 9562 §5.1): the timestamp's least significant
/// bits first; the layout of a [`V1Generator`](crate::V1Generator).
///
/// ```
/// use uuidkit::{clock::ManualClock, generator::{GregorianGenerator, V1Layout}, rng::ThreadRng};
/// let mut g: GregorianGenerator<V1Layout, ManualClock, ThreadRng> =
///     uuidkit::V1Generator::new(ManualClock::new(0), ThreadRng);
/// let u = g.at(1_645_557_742_000_000_000)?;
/// assert_eq!(u.as_u128() >> 96, 0xC232_AB00); // time_low first (RFC 9562 A.1)
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct V1Layout;

/// Version 6's layout (RFC 9562 §5.6): the timestamp's most significant bits
/// first, so that byte order is time order; the layout of a
/// [`V6Generator`](crate::V6Generator).
///
/// ```
/// use uuidkit::{clock::ManualClock, generator::{GregorianGenerator, V6Layout}, rng::ThreadRng};
/// let mut g: GregorianGenerator<V6Layout, ManualClock, ThreadRng> =
///     uuidkit::V6Generator::new(ManualClock::new(0), ThreadRng);
/// let u = g.at(1_645_557_742_000_000_000)?;
/// assert_eq!(u.as_u128() >> 80, 0x1EC9414C_232A); // time_high first (RFC 9562 A.5)
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct V6Layout;

impl GregorianLayout for V1Layout {}
impl GregorianLayout for V6Layout {}

mod layout {
    use crate::Uuid;

    /// The UUID of a timestamp, clock sequence and node.
    pub trait Sealed {
        fn uuid(ts: u64, clock_seq: u16, node: [u8; 6]) -> Uuid;
    }

    impl Sealed for super::V1Layout {
        #[inline(always)]
        fn uuid(ts: u64, clock_seq: u16, node: [u8; 6]) -> Uuid {
            Uuid::new_v1_from_parts(ts, clock_seq, node)
        }
    }

    impl Sealed for super::V6Layout {
        #[inline(always)]
        fn uuid(ts: u64, clock_seq: u16, node: [u8; 6]) -> Uuid {
            Uuid::new_v6_from_parts(ts, clock_seq, node)
        }
    }
}

/// A version 1 or 6 generator (RFC 9562 §5.1, §5.6), by its layout `L`:
/// name it as [`V1Generator`](crate::V1Generator) or
/// [`V6Generator`](crate::V6Generator), and make it with their builders.
/// Everything below is the same for both: the clock and the entropy
/// injected, a [`Reserve`] store, a node source, the state.
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V1Generator, V6Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000);
/// let mut v1 = V1Generator::builder().node([1; 6]).clock_seq(7).build(&clock, ThreadRng)?;
/// let mut v6 = V6Generator::builder().node([1; 6]).clock_seq(7).build(&clock, ThreadRng)?;
/// let (a, b) = (v1.generate()?, v6.generate()?);
/// assert_eq!(a.gregorian_timestamp(), b.gregorian_timestamp()); // one timestamp, two layouts
/// assert_eq!((a.clock_seq(), a.node()), (b.clock_seq(), b.node()));
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct GregorianGenerator<L, C, R, S: Reserve<V1State> = NoReserve, N = NoNodeSource> {
    pub(crate) clock: C,
    pub(crate) rng: R,
    pub(crate) core: GregorianCore<S>,
    pub(crate) follow: NodeFollow<N>,
    /// v6 only: a fresh random clock sequence and node per UUID.
    pub(crate) fresh: bool,
    pub(crate) layout: PhantomData<L>,
}

impl<L, C, R, S: Reserve<V1State>, N> GregorianGenerator<L, C, R, S, N> {
    /// The node source ([`V1Builder::node_source`](crate::generator::V1Builder::node_source),
    /// [`V6Builder::node_source`](crate::generator::V6Builder::node_source);
    /// [`NoNodeSource`] if none was given).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, node::{NoNodeSource, NodeSource, StaticNode}};
    /// use uuidkit::{rng::ThreadRng, V1Generator, V6Generator};
    /// let g = V1Generator::builder().node_source(StaticNode::from_bytes6([1; 6])).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.node_source().bits(), 48);
    /// let _: &NoNodeSource = V6Generator::new(ManualClock::new(0), ThreadRng).node_source();
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn node_source(&self) -> &N {
        self.follow.source()
    }

    /// The store.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve, V1State}};
    /// use uuidkit::{rng::ThreadRng, GenError, Generator, V1Generator};
    /// #[derive(Default)]
    /// struct Blocks { asked: Vec<u64> }
    /// impl Reserve<V1State> for Blocks {
    ///     fn reserve(&mut self, _: &V1State, needed: u64) -> Result<Reservation<V1State>, GenError> {
    ///         self.asked.push(needed);
    ///         Ok(Reservation::Until(needed + 1_000_000)) // 100 ms of 100-ns ticks
    ///     }
    /// }
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V1Generator::builder().store(Blocks::default()).build(&clock, ThreadRng)?;
    /// assert!(g.store().asked.is_empty());
    /// let u = g.generate()?;
    /// clock.advance(1_000); // 1 µs: the next timestamp
    /// g.generate()?;
    /// assert_eq!(g.store().asked, [u.gregorian_timestamp().unwrap()]); // one block for both
    /// # Ok::<(), GenError>(())
    /// ```
    pub fn store(&self) -> &S {
        self.core.store()
    }

    /// The store, mutably.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve, V1State}};
    /// use uuidkit::{rng::ThreadRng, GenError, Generator, V1Generator};
    /// struct Log(Vec<u64>);
    /// impl Reserve<V1State> for Log {
    ///     fn reserve(&mut self, _: &V1State, needed: u64) -> Result<Reservation<V1State>, GenError> {
    ///         self.0.push(needed);
    ///         Ok(Reservation::Until(needed + 10))
    ///     }
    /// }
    /// let mut g = V1Generator::builder().store(Log(Vec::new())).build(ManualClock::new(0), ThreadRng)?;
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
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator};
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
    /// clock sequence. A v6 generator keeps drawing a fresh clock sequence and
    /// node per UUID unless it retains them.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::V1State, rng::ThreadRng, Generator, V1Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let stored = V1State { timestamp: 0x1EC9414C232AB00 + 50_000_000, clock_seq: 7, node: [1; 6], node_given: true, valid: true };
    /// let mut g = V1Generator::new(&clock, ThreadRng).with_state(stored);
    /// g.generate()?; // the clock is 5 s behind the stored timestamp
    /// assert_eq!(g.clock_seq(), 8);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn with_state(mut self, state: V1State) -> Self {
        self.core.set_state(state);
        self.follow.forget();
        self
    }

    /// The current state (for v6, the retained clock sequence and node, even
    /// when they are not used).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator};
    /// assert!(!V1Generator::new(ManualClock::new(0), ThreadRng).state().valid);
    /// ```
    pub fn state(&self) -> V1State {
        self.core.state()
    }

    /// The node in use (v6: the retained one).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator};
    /// let g = V1Generator::builder().node([2; 6]).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.node(), [2; 6]);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn node(&self) -> [u8; 6] {
        self.core.node()
    }

    /// The clock sequence in use (v6: the retained one).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator};
    /// assert!(V1Generator::new(ManualClock::new(0), ThreadRng).clock_seq() < 0x4000);
    /// ```
    pub fn clock_seq(&self) -> u16 {
        self.core.clock_seq()
    }
}

impl<L: GregorianLayout, C: Clock, R: Rng, S: Reserve<V1State>, N: MaybeNodeSource>
    GregorianGenerator<L, C, R, S, N>
{
    /// The next UUID as if the clock read `unix_ns` (nanoseconds since the Unix
    /// epoch); the state moves on as for [`generate`](Generator::generate).
    /// Waiting is impossible here: a
    /// [`RolloverPolicy::Wait`](crate::generator::RolloverPolicy::Wait) overrun (or a
    /// store's block ahead of `unix_ns`) reports
    /// [`GenErrorKind::CounterExhausted`](crate::generator::GenErrorKind::CounterExhausted).
    ///
    /// # Errors
    /// As [`generate`](Generator::generate).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V1Generator, V6Generator};
    /// let mut g = V1Generator::builder()
    ///     .node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]).clock_seq(0x33C8)
    ///     .build(ManualClock::new(0), ThreadRng)?;
    /// let u = g.at(1_645_557_742_000_000_000)?;
    /// assert_eq!(u.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // RFC 9562 A.1
    /// let u = V6Generator::new(ManualClock::new(0), ThreadRng).at(1_645_557_742_000_000_000)?;
    /// assert_eq!(u.as_u128() >> 80, 0x1EC9414C_232A);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn at(&mut self, unix_ns: u64) -> Result<Uuid, GenError> {
        loop {
            self.core.claim(&mut self.rng);
            self.follow.first(&mut self.core, &mut self.rng)?;
            let tick = self.core.next(&self.clock, &mut Reading::at(unix_ns))?;
            if self.follow.confirm(&mut self.core, &mut self.rng)? {
                return Ok(self.layout(tick.ts, tick.clock_seq));
            }
        }
    }

    #[inline(always)]
    fn layout(&mut self, ts: u64, clock_seq: u16) -> Uuid {
        if self.fresh {
            let r = self.rng.next_u64();
            L::uuid(ts, r as u16, random_node(r >> 16))
        } else {
            L::uuid(ts, clock_seq, self.core.node())
        }
    }
}

impl<L: GregorianLayout, C: Clock, R: Rng, S: Reserve<V1State>, N: MaybeNodeSource> Generator
    for GregorianGenerator<L, C, R, S, N>
{
    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// [`GenErrorKind::CounterExhausted`](crate::generator::GenErrorKind::CounterExhausted) under
    /// [`RolloverPolicy::Error`](crate::generator::RolloverPolicy::Error);
    /// [`GenErrorKind::ClockBehind`](crate::generator::GenErrorKind::ClockBehind) under
    /// [`ClockBackPolicy::Error`](crate::generator::ClockBackPolicy::Error) (v6's
    /// default beyond 10 s);
    /// [`GenErrorKind::TimestampOutOfRange`](crate::generator::GenErrorKind::TimestampOutOfRange) after
    /// 5236-03-31; whatever the [`Reserve`] store returns;
    /// [`GenErrorKind::NodeLost`](crate::generator::GenErrorKind::NodeLost) while its node source holds
    /// no node. With v1's defaults it cannot fail before 5236.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V1Generator, V6Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V1Generator::new(&clock, ThreadRng);
    /// let a = g.generate()?;
    /// let b = g.generate()?; // the next 100-ns tick: a 1 µs clock allows 10 per reading
    /// assert_eq!(b.gregorian_timestamp(), a.gregorian_timestamp().map(|t| t + 1));
    /// let mut g = V6Generator::new(&clock, ThreadRng);
    /// assert!(g.generate()? < g.generate()?);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[inline(always)]
    fn generate(&mut self) -> Result<Uuid, GenError> {
        loop {
            self.core.claim(&mut self.rng);
            self.follow.first(&mut self.core, &mut self.rng)?;
            let tick = self.core.next(&self.clock, &mut Reading::of(&self.clock))?;
            if self.follow.confirm(&mut self.core, &mut self.rng)? {
                return Ok(self.layout(tick.ts, tick.clock_seq));
            }
        }
    }
}
