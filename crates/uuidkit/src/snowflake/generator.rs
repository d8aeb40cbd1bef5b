//! [`SnowflakeGenerator`]: 64-bit IDs of a [`Layout`], the worker from a
//! [`NodeSource`], state in a [`Reserve`] store.

use rand_core::Rng;

use super::{Layout, SequenceStart, SnowflakeBuilder};
use crate::GenError;
use crate::clock::Clock;
use crate::generator::{
    ClockBackPolicy, GenErrorKind, NoReserve, Owner, Reservation, Reserve, RolloverPolicy, Window,
};
use crate::node::{NodeLost, NodeLostKind, NodeSource, StaticNode};

/// A snowflake generator's state, as it reaches a [`Reserve`] store: the
/// tick and sequence of the ID about to be returned (or of the last one),
/// and the worker it carries.
///
/// ```
/// use uuidkit::snowflake::SnowflakeState;
/// assert!(!SnowflakeState::default().valid);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SnowflakeState {
    /// Ticks since the layout's epoch.
    pub tick: u64,
    /// The sequence number within the tick.
    pub sequence: u64,
    /// The worker ID.
    pub worker: u64,
    /// False before the first ID.
    pub valid: bool,
}

impl<N: NodeSource, S: Reserve<SnowflakeState>> SnowflakeBuilder<N, S> {
    /// Checks the configuration and makes the generator.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`] when the worker does not fit the
    /// layout, a source's width differs from the layout's worker field, or
    /// the clock-back policy is `Reset`.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, node::NodeSlot, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let slot = NodeSlot::new(16)?;
    /// let err = SnowflakeGenerator::builder(Layout::TWITTER).node_source(&slot).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected a worker source as wide as the layout's worker field, found 16");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn build<C: Clock, R: Rng>(
        self,
        clock: C,
        rng: R,
    ) -> Result<SnowflakeGenerator<C, R, S, N>, GenError> {
        let node = self.node?;
        if node.bits() != self.layout.worker_bits() {
            return Err(GenError::config(
                "a worker source as wide as the layout's worker field",
                node.bits().into(),
            ));
        }
        if self.clock_back != ClockBackPolicy::Error {
            return Err(GenError::config(
                "clock-back policy Error (following the clock back repeats IDs)",
                1,
            ));
        }
        let l = self.layout;
        let (worker_shift, seq_shift) = l.shifts();
        Ok(SnowflakeGenerator {
            clock,
            rng,
            node,
            layout: l,
            time_shift: l.time_shift(),
            worker_shift,
            seq_shift,
            max_seq: l.max_sequence(),
            tolerance_ticks: if self.tolerance_ns == u64::MAX {
                u64::MAX
            } else {
                self.tolerance_ns.div_ceil(l.tick_ns())
            },
            tolerance_ns: self.tolerance_ns,
            rollover: self.rollover,
            guard: self.guard,
            last_tick: 0,
            seq: 0,
            started: false,
            pinned: false,
            cached: (u64::MAX, 0),
            hot: Hot {
                start: 0,
                span: 0,
                id: 0,
                end: 0,
                unit: 1 << seq_shift,
                epoch: 0,
                mark: 0,
                owner: Owner::here(),
            },
            tick_ns: l.tick_ns(),
            epoch: None,
            inherited: None,
            worker: 0,
            worker_field: 0,
            store: self.store,
            window: Window::default(),
        })
    }
}

/// A generator of 64-bit time-ordered IDs of one [`Layout`] (Twitter,
/// Discord, Instagram, Sonyflake, TSID or your own), made by
/// [`SnowflakeGenerator::builder`].
///
/// Guarantees:
/// - **Unique per worker.** While its worker stays the same, one generator's
///   IDs strictly increase; generators with different workers never make the
///   same ID. Uniqueness across generators is the uniqueness of their
///   workers: a lease source (etcd, PostgreSQL, a UIAP site) makes it the
///   registry's job.
/// - **The worker comes from a [`NodeSource`]**, asked for every ID after the
///   clock was read. Without a worker it returns
///   [`GenErrorKind::NodeLost`] and issues nothing; a new tenure (a new
///   lease) starts at a tick after the last one issued.
/// - **A used-up sequence waits** for the next tick (by default), and the end
///   of the time field is an error, never a wrap.
/// - **The clock going back**: held within the tolerance (10 s by default),
///   then `ClockBehind`; never a silent repeat.
/// - **A forked child** never continues its parent's sequence: with a store
///   that notices the fork (a state file's lease), it moves to a block of
///   ticks of its own; otherwise it refuses the worker tenure it inherited
///   (`NodeLost`) until its source hands it a new one.
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
/// let clock = ManualClock::new(1_700_000_000_000_000_000); // 2023-11-14T22:13:20Z
/// let mut g = SnowflakeGenerator::builder(Layout::DISCORD).worker(0b00001_00000).build(&clock, ThreadRng)?;
/// let (a, b) = (g.generate()?, g.generate()?);
/// assert_eq!(b, a + 1); // the same millisecond: the sequence counts
/// let p = Layout::DISCORD.decompose(a)?;
/// assert_eq!((Layout::DISCORD.unix_ms_of(p.tick), p.worker, p.sequence), (1_700_000_000_000, 32, 0));
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct SnowflakeGenerator<C, R, S: Reserve<SnowflakeState> = NoReserve, N = StaticNode> {
    clock: C,
    rng: R,
    node: N,
    layout: Layout,
    time_shift: u32,
    worker_shift: u32,
    seq_shift: u32,
    max_seq: u64,
    tolerance_ticks: u64,
    tolerance_ns: u64,
    rollover: RolloverPolicy,
    guard: bool,
    last_tick: u64,
    seq: u64,
    started: bool,
    /// A store moved the generator above its clock: until the clock catches
    /// up, a clock behind is not a step back, and a used-up tick moves on.
    pinned: bool,
    /// The clock's last tick and the Unix nanosecond it starts at: a reading
    /// within it needs no division.
    cached: (u64, u64),
    /// What the one-step path reads, in one cache line.
    hot: Hot,
    tick_ns: u64,
    /// The tenure of the worker in use; `None` before the first ID.
    epoch: Option<u64>,
    /// In a forked child whose store does not notice forks: the tenure
    /// in use at the fork, which is the parent's.
    inherited: Option<u64>,
    worker: u64,
    worker_field: u64,
    store: S,
    window: Window,
}

/// The one-step path's state: a reading in `[start, start + span)` is in the
/// last ID's tick, which the clock reached, the store's window covers and no
/// step above the clock pinned; `span` is 0 when that path is closed (before
/// the first ID, after a new tenure or a fork).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Hot {
    start: u64,
    span: u64,
    /// The last ID issued. While the path is open it is the authority for the
    /// sequence (`seq` is brought up to date from it before anything else
    /// reads it).
    id: u64,
    /// The ID of the last sequence number of the last ID's tick.
    end: u64,
    /// One step of the sequence field: `1 << seq_shift`.
    unit: u64,
    /// The tenure the last ID was made under.
    epoch: u64,
    /// The node source's mark for that tenure (`HoldWindow`), 0 without one.
    mark: u64,
    /// The process the generator's state belongs to.
    owner: Owner,
}

// What the one-step path reads of the generator is one cache line.
const _: () = assert!(core::mem::size_of::<Hot>() == 64);

impl<C, R, S: Reserve<SnowflakeState>, N> Drop for SnowflakeGenerator<C, R, S, N> {
    fn drop(&mut self) {
        let last = self.state();
        self.store.release(&last);
    }
}

impl<C, R, S: Reserve<SnowflakeState>, N> SnowflakeGenerator<C, R, S, N> {
    /// The layout.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let g = SnowflakeGenerator::builder(Layout::TSID).worker(1).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.layout(), Layout::TSID);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The worker's source.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, node::NodeSource, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let g = SnowflakeGenerator::builder(Layout::TWITTER).worker(9).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!(g.node_source().current()?.value(), 9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn node_source(&self) -> &N {
        &self.node
    }

    /// The store.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::NoReserve, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let g = SnowflakeGenerator::builder(Layout::TWITTER).worker(9).build(ManualClock::new(0), ThreadRng)?;
    /// let _: &NoReserve = g.store();
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The store, mutably.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve}, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let mut g = SnowflakeGenerator::builder(Layout::TWITTER).worker(9).build(ManualClock::new(0), ThreadRng)?;
    /// let state = g.state();
    /// assert_eq!(g.store_mut().reserve(&state, 1)?, Reservation::Until(u64::MAX));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// The state after the last ID issued (`valid` false before the first).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let clock = ManualClock::new(Layout::TWITTER.unix_ns_of(42));
    /// let mut g = SnowflakeGenerator::builder(Layout::TWITTER).worker(9).build(&clock, ThreadRng)?;
    /// assert!(!g.state().valid);
    /// g.generate()?;
    /// let s = g.state();
    /// assert_eq!((s.tick, s.sequence, s.worker, s.valid), (42, 0, 9, true));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn state(&self) -> SnowflakeState {
        SnowflakeState {
            tick: self.last_tick,
            sequence: self.sequence(),
            worker: self.worker,
            valid: self.started,
        }
    }
}

impl<C, R, S: Reserve<SnowflakeState>, N> SnowflakeGenerator<C, R, S, N> {
    /// The sequence number of the last ID: taken from the last ID while the
    /// one-step path, which counts there alone, is open.
    #[inline(always)]
    fn sequence(&self) -> u64 {
        if self.hot.span == 0 {
            self.seq
        } else {
            self.hot.id >> self.seq_shift & self.max_seq
        }
    }
}

impl<C: Clock, R: Rng, S: Reserve<SnowflakeState>, N: NodeSource> SnowflakeGenerator<C, R, S, N> {
    /// The next ID.
    ///
    /// # Errors
    /// [`GenErrorKind::NodeLost`] when the source holds no worker (or, in a
    /// forked child, only its parent's); `ClockBehind` beyond the tolerance;
    /// `CounterExhausted` with [`RolloverPolicy::Error`];
    /// `TimestampOutOfRange` before the layout's epoch or past the end of its
    /// time field; whatever the store reports. Nothing is issued then, and
    /// the state is as before.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let clock = ManualClock::new(Layout::TWITTER.unix_ns_of(7));
    /// let mut g = SnowflakeGenerator::builder(Layout::TWITTER).worker(3).build(&clock, ThreadRng)?;
    /// assert_eq!(g.generate()?, 7 << 22 | 3 << 12);
    /// clock.advance(1_000_000);
    /// assert_eq!(g.generate()?, 8 << 22 | 3 << 12); // a new tick: the sequence starts again
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[inline]
    pub fn generate(&mut self) -> Result<u64, GenError> {
        let now = self.clock.now_ns();
        // The common case, in one step: the clock still in the last ID's tick,
        // its sequence not used up, the worker still held (asked after the
        // reading, as below), nothing forked. The same answer the general path
        // gives there: the next sequence number of that tick.
        if now.wrapping_sub(self.hot.start) < self.hot.span
            && self.hot.id < self.hot.end
            && !self.hot.owner.forked()
            && self.node.holds_marked(self.hot.epoch, self.hot.mark)
            && self.store.is_held()
        {
            self.hot.id += self.hot.unit;
            return Ok(self.hot.id);
        }
        self.generate_from(now)
    }

    /// The general path, for a reading of `now`.
    #[inline(never)]
    fn generate_from(&mut self, mut now: u64) -> Result<u64, GenError> {
        self.seq = self.sequence();
        if self.hot.owner.forked() {
            self.after_fork();
        }
        loop {
            let (tick, seq) = self.propose(&mut now)?;
            // The worker is asked after the clock was read: a lease's deadline is
            // then checked after the time this ID carries.
            if !self.worker_held()? {
                continue;
            }
            if self.window.covers(tick) && self.store.is_held() {
                return Ok(self.commit(tick, seq));
            }
            if let Some(id) = self.admit(tick, seq)? {
                return Ok(id);
            }
        }
    }

    /// Fills `out` with the next IDs, as repeated [`generate`](Self::generate)
    /// calls (the worker asked for each).
    ///
    /// # Errors
    /// As [`generate`](Self::generate); the IDs written before the failure
    /// count as issued.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// let mut g = SnowflakeGenerator::builder(Layout::INSTAGRAM).worker(5).build(ManualClock::new(1 << 61), ThreadRng)?;
    /// let mut ids = [0u64; 100];
    /// g.fill(&mut ids)?;
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn fill(&mut self, out: &mut [u64]) -> Result<(), GenError> {
        for slot in out {
            *slot = self.generate()?;
        }
        Ok(())
    }

    /// The clock's tick at `now`.
    #[inline(always)]
    fn tick_at(&mut self, now: u64) -> Result<u64, GenError> {
        let (tick, start) = self.cached;
        if now.wrapping_sub(start) < self.layout.tick_ns() && tick != u64::MAX {
            return Ok(tick);
        }
        let tick = self.layout.tick_of(now)?;
        self.cached = (tick, self.layout.unix_ns_of(tick));
        Ok(tick)
    }

    #[inline(always)]
    fn first_sequence(&mut self) -> u64 {
        match self.layout.sequence_start() {
            SequenceStart::Zero => 0,
            SequenceStart::Random => self.rng.next_u64() & (self.max_seq >> 1),
        }
    }

    /// The next tick and sequence for a clock reading of `now`, waiting on a
    /// `Wait` rollover (which refreshes `now`); nothing is committed.
    #[inline(always)]
    fn propose(&mut self, now: &mut u64) -> Result<(u64, u64), GenError> {
        loop {
            let tick = self.tick_at(*now)?;
            if !self.started || tick > self.last_tick {
                return Ok((tick, self.first_sequence()));
            }
            if self.pinned {
                self.pinned = tick < self.last_tick;
            }
            let behind = self.last_tick - tick;
            if !self.guard && behind > 0 {
                // Test-only: no clock guard.
                return Ok((tick, self.first_sequence()));
            }
            if behind > self.tolerance_ticks && !self.pinned {
                return Err(self.clock_behind(*now));
            }
            if self.seq < self.max_seq {
                return Ok((self.last_tick, self.seq + 1));
            }
            match self.rollover {
                _ if self.pinned => return self.advance(),
                // Ahead of the clock by at most the tolerance, as a step back would be held.
                RolloverPolicy::AdvanceTimestamp if behind >= self.tolerance_ticks => {
                    return Err(self.clock_behind(*now));
                }
                RolloverPolicy::AdvanceTimestamp => return self.advance(),
                // The true time may be up to the clock's resolution past its reading: the
                // ticks in that span are not in the future (a coarse clock's whole step).
                _ if self.within_resolution(*now) => return self.advance(),
                RolloverPolicy::Error => return Err(self.exhausted(*now)),
                _ => {
                    self.clock.relax();
                    *now = self.clock.now_ns();
                }
            }
        }
    }

    /// Whether the tick after the last one begins before `now` plus the clock's
    /// resolution.
    #[cold]
    fn within_resolution(&self, now: u64) -> bool {
        let reach = now.saturating_add(self.clock.resolution_ns().saturating_sub(1));
        self.layout.unix_ns_of(self.last_tick + 1) <= reach
    }

    /// The first value of the tick after the last one.
    #[cold]
    fn advance(&mut self) -> Result<(u64, u64), GenError> {
        let tick = self.last_tick + 1;
        if tick > self.layout.max_tick() {
            return Err(self.layout.past_the_end(tick));
        }
        Ok((tick, self.first_sequence()))
    }

    #[cold]
    fn clock_behind(&self, now: u64) -> GenError {
        let last = self.layout.unix_ns_of(self.last_tick);
        GenError::new(
            GenErrorKind::ClockBehind,
            last.saturating_sub(self.tolerance_ns),
            now,
        )
    }

    #[cold]
    fn exhausted(&self, now: u64) -> GenError {
        GenError::new(
            GenErrorKind::CounterExhausted,
            self.layout.unix_ns_of(self.last_tick),
            now,
        )
    }

    /// Whether the tenure in use is still held (`Ok(true)`), or a new one was
    /// adopted (`Ok(false)`: the value proposed must be drawn again).
    #[inline(always)]
    fn worker_held(&mut self) -> Result<bool, GenError> {
        match self.epoch {
            Some(epoch) if self.node.holds(epoch) => Ok(true),
            _ => self.renew_worker(),
        }
    }

    #[cold]
    fn renew_worker(&mut self) -> Result<bool, GenError> {
        self.hot.span = 0;
        let id = self.node.current().map_err(GenError::from_node_lost)?;
        if id.bits() != self.layout.worker_bits() {
            return Err(GenError::config(
                "a worker as wide as the layout's worker field",
                id.bits().into(),
            ));
        }
        if Some(id.epoch()) == self.epoch {
            return Ok(true);
        }
        if Some(id.epoch()) == self.inherited {
            return Err(GenError::from_node_lost(
                NodeLost::new(NodeLostKind::NotAcquired).with_detail(
                    "a forked child: its worker is its parent's (lease one, or use a state file)",
                ),
            ));
        }
        // A new tenure: nothing of the last one's sequence carries on, and no
        // tick already used comes again.
        if self.started {
            self.seq = self.max_seq;
        }
        self.epoch = Some(id.epoch());
        self.worker = id.value();
        self.worker_field = id.value() << self.worker_shift;
        self.window.close();
        Ok(false)
    }

    /// In a forked child: the parent goes on with the same worker and
    /// sequence. A store that notices the fork reserves the child a block of
    /// its own; otherwise the inherited tenure is the parent's alone.
    #[cold]
    fn after_fork(&mut self) {
        self.hot.span = 0;
        self.hot.owner.take_over();
        self.window.close();
        if self.store.is_held() {
            self.inherited = self.epoch.or(self.inherited);
        }
        self.epoch = None;
    }

    /// Asks the store about `tick`: `Some(id)` once admitted, `None` when it
    /// moved the generator (a value to draw again).
    #[cold]
    fn admit(&mut self, tick: u64, seq: u64) -> Result<Option<u64>, GenError> {
        let state = SnowflakeState {
            tick,
            sequence: seq,
            worker: self.worker,
            valid: true,
        };
        match self.store.reserve(&state, tick)? {
            Reservation::Until(limit) => {
                self.window.grant(tick, limit);
                Ok(Some(self.commit(tick, seq)))
            }
            Reservation::ResumeFrom(resume) => {
                self.hot.span = 0;
                if resume.valid {
                    self.last_tick = resume.tick;
                    self.seq = resume.sequence.min(self.max_seq);
                    self.started = true;
                    self.pinned = true;
                }
                Ok(None)
            }
        }
    }

    #[inline(always)]
    fn commit(&mut self, tick: u64, seq: u64) -> u64 {
        if tick != self.last_tick || self.hot.span == 0 {
            self.open_hot_path(tick);
        }
        self.last_tick = tick;
        self.seq = seq;
        self.started = true;
        self.hot.id = self.hot.end & !(self.max_seq << self.seq_shift) | seq << self.seq_shift;
        self.hot.id
    }

    /// Sets the one-step path up for `tick`: open if the clock has reached
    /// the tick (its reading was within it: `cached`), the window covers it and
    /// the worker's tenure is known; closed otherwise.
    #[inline(never)]
    fn open_hot_path(&mut self, tick: u64) {
        self.hot.end = tick << self.time_shift | self.worker_field | self.max_seq << self.seq_shift;
        let reached = self.cached.0 == tick && !self.pinned;
        match self.epoch {
            Some(epoch) if reached && self.window.covers(tick) => {
                self.hot.start = self.cached.1;
                self.hot.span = self.tick_ns;
                self.hot.epoch = epoch;
                // A source that vouches for a stretch of the clock (a lease and its
                // deadline) is then asked only whether anything changed, and the path
                // ends where the stretch does.
                self.hot.mark = match self.node.hold_window(epoch) {
                    Some(w) => {
                        self.hot.span = self.tick_ns.min(w.before.saturating_sub(self.hot.start));
                        w.mark
                    }
                    None => 0,
                };
            }
            _ => self.hot.span = 0,
        }
    }
}
