//! [`SnowflakeBuilder`]: a snowflake generator's validated settings and its seams (the worker's
//! source, a store), attached here and only here.

use super::{Layout, SnowflakeGenerator, SnowflakeState};
use crate::GenError;
use crate::generator::{ClockBackPolicy, NoReserve, Reserve, RolloverPolicy};
use crate::node::{NoNodeSource, NodeSource, StaticNode};

/// 10 seconds: the default clock-back tolerance, as for the UUID generators.
const DEFAULT_TOLERANCE_NS: u64 = 10_000_000_000;

/// The validated configuration of a [`SnowflakeGenerator`]; made by
/// [`SnowflakeGenerator::builder`]. It builds once it has a worker: a fixed
/// one ([`worker`](Self::worker)) or a source
/// ([`node_source`](Self::node_source)). Its seams are attached here and
/// only here: the worker's source and a [`store`](Self::store).
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
/// let clock = ManualClock::new(1_700_000_000_000_000_000);
/// let mut g = SnowflakeGenerator::builder(Layout::TWITTER).worker(37).build(&clock, ThreadRng)?;
/// let id = g.generate()?;
/// assert_eq!(Layout::TWITTER.decompose(id)?.worker, 37);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use = "a builder does nothing until `build`; its methods return the changed builder"]
pub struct SnowflakeBuilder<N = NoNodeSource, S = NoReserve> {
    pub(super) layout: Layout,
    pub(super) node: Result<N, GenError>,
    pub(super) rollover: RolloverPolicy,
    pub(super) clock_back: ClockBackPolicy,
    pub(super) tolerance_ns: u64,
    pub(super) guard: bool,
    pub(super) store: S,
}

impl<N, S> SnowflakeBuilder<N, S> {
    /// A fixed worker ID, which must fit the layout's worker field.
    /// Nothing makes a configured value unique (`docs/snowflake.md` says what
    /// does).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let err = SnowflakeGenerator::builder(Layout::TWITTER).worker(1024).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected a node id that fits the node bits, found 1024");
    /// ```
    pub fn worker(self, worker: u64) -> SnowflakeBuilder<StaticNode, S> {
        let node = StaticNode::new(worker, self.layout.worker_bits());
        self.with_node(node)
    }

    /// Worker IDs from `source` (a lease, a [`NodeSlot`],
    /// a [`RandomNode`](crate::node::RandomNode)…), as wide as the layout's
    /// worker field, asked after the clock is read for every ID (a lease's
    /// deadline is then checked against the time the ID carries).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::GenErrorKind, node::NodeSlot, rng::ThreadRng};
    /// use uuidkit::snowflake::{Layout, SnowflakeGenerator};
    /// let slot = NodeSlot::new(10)?;
    /// let mut g = SnowflakeGenerator::builder(Layout::TWITTER).node_source(&slot).build(ManualClock::new(1 << 61), ThreadRng)?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::NodeLost); // nothing leased yet
    /// slot.set(5)?;
    /// assert_eq!(Layout::TWITTER.decompose(g.generate()?)?.worker, 5);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[doc = std_link!("NodeSlot", "crate::node::NodeSlot")]
    pub fn node_source<N2: NodeSource>(self, source: N2) -> SnowflakeBuilder<N2, S> {
        self.with_node(Ok(source))
    }

    fn with_node<N2>(self, node: Result<N2, GenError>) -> SnowflakeBuilder<N2, S> {
        SnowflakeBuilder {
            layout: self.layout,
            node,
            rollover: self.rollover,
            clock_back: self.clock_back,
            tolerance_ns: self.tolerance_ns,
            guard: self.guard,
            store: self.store,
        }
    }

    /// What to do when a tick's sequence is used up. Default
    /// [`RolloverPolicy::Wait`]: wait for the clock's next tick, as Twitter's
    /// Snowflake does; [`AdvanceTimestamp`](RolloverPolicy::AdvanceTimestamp)
    /// runs ahead of the clock instead (by at most the clock-back tolerance:
    /// beyond it the next ID is a `ClockBehind` error until the clock has
    /// caught up); [`Error`](RolloverPolicy::Error) returns
    /// `CounterExhausted`.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{GenErrorKind, RolloverPolicy}, rng::ThreadRng};
    /// use uuidkit::snowflake::{Layout, SnowflakeGenerator};
    /// let layout = Layout::new(51, 12, 0, 0, 1_000_000)?; // no sequence bits: one ID per ms
    /// let mut g = SnowflakeGenerator::builder(layout).worker(1).rollover(RolloverPolicy::Error).build(ManualClock::new(1 << 60), ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::CounterExhausted);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn rollover(mut self, policy: RolloverPolicy) -> SnowflakeBuilder<N, S> {
        self.rollover = policy;
        self
    }

    /// The clock-back policy beyond `tolerance_ns` (default 10 s). Within the
    /// tolerance the generator *holds*: it keeps its last tick and counts on
    /// (waiting, once that tick's sequence is used up, for the clock to pass
    /// it). Beyond it, [`ClockBackPolicy::Error`] (the default, and the only
    /// policy `build` accepts): `ClockBehind`, the state kept, until the
    /// clock is back. [`ClockBackPolicy::Reset`] would follow the clock back
    /// and repeat IDs (a snowflake ID has no random bits), so `build` refuses
    /// it.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{ClockBackPolicy, GenErrorKind}, rng::ThreadRng};
    /// use uuidkit::snowflake::{Layout, SnowflakeGenerator};
    /// let clock = ManualClock::new(1_700_000_000_000_000_000);
    /// let mut g = SnowflakeGenerator::builder(Layout::TWITTER).worker(1).clock_back(ClockBackPolicy::Error, 5_000_000).build(&clock, ThreadRng)?;
    /// let a = g.generate()?;
    /// clock.step_back(4_000_000); // 4 ms: held
    /// assert!(g.generate()? > a);
    /// clock.step_back(2_000_000); // 6 ms behind: beyond the tolerance
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
    /// let err = SnowflakeGenerator::builder(Layout::TWITTER).worker(1).clock_back(ClockBackPolicy::Reset, 0).build(&clock, ThreadRng).unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_back(
        mut self,
        policy: ClockBackPolicy,
        tolerance_ns: u64,
    ) -> SnowflakeBuilder<N, S> {
        self.clock_back = policy;
        self.tolerance_ns = tolerance_ns;
        self
    }

    /// Test-only: the generator follows the clock back at once, however
    /// little, as generators without a clock guard do (and so repeats IDs).
    /// It exists so that the torture suite's negative control can show that
    /// its checker finds those repeats; nothing else may call it.
    #[doc(hidden)]
    pub const fn without_clock_guard_for_tests(mut self) -> SnowflakeBuilder<N, S> {
        self.guard = false;
        self
    }

    /// Binds the generator to a [`Reserve`] store of [`SnowflakeState`]s
    /// (timestamps are the layout's ticks), such as a state file's
    /// `SnowflakeLease` (the `uuidkit-state` crate): its last tick per
    /// layout and worker is kept there, so a restart with the clock behind
    /// continues above it.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve}, rng::ThreadRng, GenError};
    /// use uuidkit::snowflake::{Layout, SnowflakeGenerator, SnowflakeState};
    /// struct Above(u64);
    /// impl Reserve<SnowflakeState> for Above {
    ///     fn reserve(&mut self, s: &SnowflakeState, needed: u64) -> Result<Reservation<SnowflakeState>, GenError> {
    ///         Ok(if needed <= self.0 {
    ///             Reservation::ResumeFrom(SnowflakeState { tick: self.0, sequence: u64::MAX, valid: true, ..*s })
    ///         } else {
    ///             Reservation::Until(u64::MAX)
    ///         })
    ///     }
    /// }
    /// let clock = ManualClock::new(Layout::TWITTER.unix_ns_of(100));
    /// let mut g = SnowflakeGenerator::builder(Layout::TWITTER).worker(1).store(Above(500)).build(&clock, ThreadRng)?;
    /// assert_eq!(Layout::TWITTER.decompose(g.generate()?)?.tick, 501); // above the store's mark
    /// # Ok::<(), GenError>(())
    /// ```
    pub fn store<S2: Reserve<SnowflakeState>>(self, store: S2) -> SnowflakeBuilder<N, S2> {
        SnowflakeBuilder {
            layout: self.layout,
            node: self.node,
            rollover: self.rollover,
            clock_back: self.clock_back,
            tolerance_ns: self.tolerance_ns,
            guard: self.guard,
            store,
        }
    }
}

impl SnowflakeGenerator<(), ()> {
    /// The builder for `layout`, with `Wait` on a used-up tick and an error
    /// beyond a 10 s clock step back; it builds once given a worker
    /// ([`SnowflakeBuilder::worker`]) or a source of them
    /// ([`SnowflakeBuilder::node_source`]).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let mut g = SnowflakeGenerator::builder(Layout::SONYFLAKE).worker(0xBEEF).build(ManualClock::new(1 << 61), ThreadRng)?;
    /// assert_eq!(g.generate()? & 0xFFFF, 0xBEEF); // Sonyflake puts the machine ID last
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn builder(layout: Layout) -> SnowflakeBuilder {
        SnowflakeBuilder {
            layout,
            node: Ok(NoNodeSource),
            rollover: RolloverPolicy::Wait,
            clock_back: ClockBackPolicy::Error,
            tolerance_ns: DEFAULT_TOLERANCE_NS,
            guard: true,
            store: NoReserve,
        }
    }
}
