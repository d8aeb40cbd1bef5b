//! The timestamp and clock-sequence engine shared by versions 1 and 6, bound
//! to a [`Reserve`] store: 60-bit Gregorian timestamps that never repeat for
//! one clock sequence, and a clock sequence that changes when the clock goes
//! back or the node changes (RFC 9562 §5.1, §6.1).
//!
//! Like the counter engine, it first proposes a [`Tick`] and commits it only
//! once the store's reservation covers it, so a store that declines leaves the
//! state untouched.

use rand_core::Rng;

use super::{
    ClockBackPolicy, GenError, GenErrorKind, Owner, Reading, Reservation, Reserve, RolloverPolicy,
    Stop, Window,
};
use crate::clock::Clock;
use crate::generator::V1State;
use crate::layout::{
    GREGORIAN_TO_UNIX_100NS as GREGORIAN_OFFSET, MAX_CLOCK_SEQ as CLOCK_SEQ_MASK,
    MAX_GREGORIAN_TIMESTAMP as MAX_TS60,
};
use crate::node::{MaybeNodeSource, NodeId};

/// A random node: 48 random bits with the multicast bit (0x01 of the first
/// octet) set, RFC 9562 §6.10.
#[inline]
pub(crate) fn random_node(bits: u64) -> [u8; 6] {
    let b = bits.to_be_bytes();
    [b[2] | 0x01, b[3], b[4], b[5], b[6], b[7]]
}

/// A random 14-bit clock sequence.
#[inline]
pub(crate) fn random_clock_seq(bits: u64) -> u16 {
    bits as u16 & CLOCK_SEQ_MASK
}

/// Unix nanoseconds of a 60-bit Gregorian timestamp (0 before 1970).
fn unix_ns_of(ts: u64) -> u64 {
    ts.saturating_sub(GREGORIAN_OFFSET).saturating_mul(100)
}

/// A proposed timestamp, with the clock sequence and clock reading it leaves
/// behind once committed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tick {
    pub(crate) ts: u64,
    pub(crate) clock_seq: u16,
    clock: u64,
}

/// How a v1/v6 core handles an overrun and a clock that goes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct GregorianPolicy {
    pub(crate) rollover: RolloverPolicy,
    pub(crate) clock_back: ClockBackPolicy,
    /// How far (in 100-ns ticks) the clock may be behind the last timestamp
    /// while the core holds above it.
    pub(crate) tolerance: u64,
}

impl GregorianPolicy {
    /// v1's rules (RFC 9562 §5.1): wait on an overrun; any step back changes
    /// the clock sequence and follows the clock (v1 is not time-ordered).
    pub(crate) const V1: GregorianPolicy = GregorianPolicy {
        rollover: RolloverPolicy::Wait,
        clock_back: ClockBackPolicy::Reset,
        tolerance: 0,
    };

    /// v6's: as v1, but a step back of up to 10 s is held (the timestamp keeps
    /// rising above the last one), and a longer one is an error.
    pub(crate) const V6: GregorianPolicy = GregorianPolicy {
        clock_back: ClockBackPolicy::Error,
        tolerance: super::DEFAULT_TOLERANCE_NS / 100,
        ..GregorianPolicy::V1
    };

    /// The tolerance given in nanoseconds (`u64::MAX`: unbounded).
    pub(crate) const fn ticks(tolerance_ns: u64) -> u64 {
        if tolerance_ns == u64::MAX {
            u64::MAX
        } else {
            tolerance_ns / 100
        }
    }
}

/// The v1/v6 state machine and its store. Dropping it releases the store with
/// the last state.
#[derive(Debug)]
pub(crate) struct GregorianCore<S: Reserve<V1State>> {
    policy: GregorianPolicy,
    node: [u8; 6],
    node_given: bool,
    clock_seq: u16,
    last_ts: u64,
    last_clock: u64,
    started: bool,
    store: S,
    window: Window,
    owner: Owner,
}

impl<S: Reserve<V1State>> Drop for GregorianCore<S> {
    fn drop(&mut self) {
        let last = self.state();
        self.store.release(&last);
    }
}

impl<S: Reserve<V1State>> GregorianCore<S> {
    /// A core that has issued nothing. `node_given` says whether `node` came
    /// from the caller (a store keeps it) or was drawn at random.
    pub(crate) fn new(
        policy: GregorianPolicy,
        node: [u8; 6],
        node_given: bool,
        clock_seq: u16,
        store: S,
    ) -> GregorianCore<S> {
        GregorianCore {
            policy,
            node,
            node_given,
            clock_seq: clock_seq & CLOCK_SEQ_MASK,
            last_ts: 0,
            last_clock: 0,
            started: false,
            store,
            window: Window::default(),
            owner: Owner::here(),
        }
    }

    pub(crate) fn store(&self) -> &S {
        &self.store
    }

    pub(crate) fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    pub(crate) fn node(&self) -> [u8; 6] {
        self.node
    }

    pub(crate) fn clock_seq(&self) -> u16 {
        self.clock_seq
    }

    pub(crate) fn state(&self) -> V1State {
        V1State {
            timestamp: if self.started { self.last_ts } else { 0 },
            clock_seq: self.clock_seq,
            node: self.node,
            node_given: self.node_given,
            valid: self.started,
        }
    }

    /// Restores `state` (the timestamp only if `valid`); the next UUID goes
    /// through the store.
    pub(crate) fn set_state(&mut self, state: V1State) {
        self.identify(state.node, state.node_given, state.clock_seq);
        if state.valid {
            self.last_ts = state.timestamp & MAX_TS60;
            self.last_clock = self.last_ts;
            self.started = true;
        }
    }

    /// Uses `node` from now on. After UUIDs with another node, the clock
    /// sequence changes too (§5.1: random, but never the old one).
    pub(crate) fn set_node<R: Rng>(&mut self, node: [u8; 6], rng: &mut R) {
        let changed = node != self.node;
        self.take_node(node, changed, rng);
    }

    /// Uses `node` from now on, and after UUIDs were issued, a new random
    /// clock sequence (never the old one) if `new_sequence`.
    fn take_node<R: Rng>(&mut self, node: [u8; 6], new_sequence: bool, rng: &mut R) {
        let mut clock_seq = self.clock_seq;
        if new_sequence && self.started {
            while clock_seq == self.clock_seq {
                clock_seq = random_clock_seq(rng.next_u64());
            }
        }
        self.identify(node, true, clock_seq);
    }

    /// Before every UUID: in a forked child, the parent goes on with the
    /// same clock sequence and node from the same last timestamp, so the
    /// child draws a new clock sequence (never the parent's) and, unless the
    /// node was given, a new node, from the CSPRNG.
    #[inline(always)]
    pub(crate) fn claim<R: Rng>(&mut self, rng: &mut R) {
        if self.owner.forked() {
            self.after_fork(rng);
        }
    }

    /// A child's new clock sequence and node: random, independent of any
    /// process id, so two workers share a clock sequence with probability
    /// 2⁻¹⁴ whenever and however they were forked (`docs/generator-design.md`
    /// G1 weighs this against deriving it).
    #[cold]
    fn after_fork<R: Rng>(&mut self, rng: &mut R) {
        self.owner.take_over();
        let node = if self.node_given {
            self.node
        } else {
            random_node(super::fork_entropy(rng))
        };
        #[cfg(feature = "std")]
        if let Some(delta) = crate::fork::legacy_pid_delta() {
            let mut clock_seq = self.clock_seq.wrapping_add(delta as u16) & CLOCK_SEQ_MASK;
            if clock_seq == self.clock_seq {
                clock_seq = (clock_seq + 1) & CLOCK_SEQ_MASK;
            }
            self.identify(node, self.node_given, clock_seq);
            return;
        }
        let mut clock_seq = self.clock_seq;
        while clock_seq == self.clock_seq {
            clock_seq = random_clock_seq(super::fork_entropy(rng));
        }
        self.identify(node, self.node_given, clock_seq);
    }

    /// The one place the node and clock sequence are set, whether the caller
    /// or a store changes them (apart from the increment a clock step back
    /// commits); the next UUID goes through the store.
    fn identify(&mut self, node: [u8; 6], node_given: bool, clock_seq: u16) {
        self.node = node;
        self.node_given = node_given;
        self.clock_seq = clock_seq & CLOCK_SEQ_MASK;
        self.window.close();
    }

    /// The next timestamp for a clock reading of `unix_ns`, not yet committed.
    #[inline(always)]
    fn step(&self, unix_ns: u64, resolution_ns: u64) -> Result<Tick, Stop> {
        let now = unix_ns / 100 + GREGORIAN_OFFSET;
        if now > MAX_TS60 {
            return Err(Stop::Err(GenError::new(
                GenErrorKind::TimestampOutOfRange,
                MAX_TS60,
                now,
            )));
        }
        let same_seq = |ts| Tick {
            ts,
            clock_seq: self.clock_seq,
            clock: now,
        };
        if !self.started {
            return Ok(same_seq(now));
        }
        if now < self.last_clock {
            return self.behind(now, unix_ns);
        }
        let ts = now.max(self.last_ts + 1);
        let ahead_allowed = (resolution_ns / 100).max(1);
        if ts - now >= ahead_allowed {
            match self.policy.rollover {
                RolloverPolicy::AdvanceTimestamp => {}
                RolloverPolicy::Wait => return Err(Stop::Wait),
                RolloverPolicy::Error => return Err(Stop::Err(self.exhausted(unix_ns))),
            }
        }
        if ts > MAX_TS60 {
            return Err(Stop::Err(GenError::new(
                GenErrorKind::TimestampOutOfRange,
                MAX_TS60,
                ts,
            )));
        }
        Ok(same_seq(ts))
    }

    /// The clock reads `now`, earlier than at the last UUID. Within the
    /// tolerance, hold: the next tick after the last timestamp, same clock
    /// sequence, the clock reading kept (so order is kept). Beyond it, as
    /// the policy says: `Reset` changes the clock sequence (§5.1 MUST;
    /// incremented, as the MAY allows, so it cannot return to a recent
    /// value) and follows the clock; `Error` reports.
    #[cold]
    fn behind(&self, now: u64, unix_ns: u64) -> Result<Tick, Stop> {
        let tolerance = self.policy.tolerance;
        if self.last_ts.saturating_sub(now) <= tolerance {
            let ts = self.last_ts + 1;
            if ts > MAX_TS60 {
                return Err(Stop::Err(GenError::new(
                    GenErrorKind::TimestampOutOfRange,
                    MAX_TS60,
                    ts,
                )));
            }
            return Ok(Tick {
                ts,
                clock_seq: self.clock_seq,
                clock: self.last_clock,
            });
        }
        match self.policy.clock_back {
            ClockBackPolicy::Reset => Ok(Tick {
                ts: now,
                clock_seq: (self.clock_seq + 1) & CLOCK_SEQ_MASK,
                clock: now,
            }),
            ClockBackPolicy::Error => Err(Stop::Err(GenError::new(
                GenErrorKind::ClockBehind,
                unix_ns_of(self.last_ts).saturating_sub(tolerance.saturating_mul(100)),
                unix_ns,
            ))),
        }
    }

    #[cold]
    fn exhausted(&self, unix_ns: u64) -> GenError {
        GenError::new(
            GenErrorKind::CounterExhausted,
            unix_ns_of(self.last_ts),
            unix_ns,
        )
    }

    /// The next tick, waiting for the clock on a `Wait` rollover.
    #[inline(always)]
    fn propose<C: Clock>(&self, clock: &C, reading: &mut Reading) -> Result<Tick, GenError> {
        loop {
            match self.step(reading.now, clock.resolution_ns()) {
                Ok(t) => return Ok(t),
                Err(Stop::Wait) if !reading.fixed => {
                    clock.relax();
                    reading.now = clock.now_ns();
                }
                Err(Stop::Wait) => return Err(self.exhausted(reading.now)),
                Err(Stop::Err(e)) => return Err(e),
            }
        }
    }

    /// The next tick: proposed, admitted by the store, then committed.
    ///
    /// # Errors
    /// The engine's (as configured) or the store's.
    #[inline(always)]
    pub(crate) fn next<C: Clock>(
        &mut self,
        clock: &C,
        reading: &mut Reading,
    ) -> Result<Tick, GenError> {
        let tick = self.propose(clock, reading)?;
        if tick.clock_seq == self.clock_seq && self.window.covers(tick.ts) && self.store.is_held() {
            self.commit(tick);
            return Ok(tick);
        }
        self.admit(clock, reading, tick)
    }

    /// Asks the store about `tick` until it admits one; commits that one.
    /// Resuming from a state ahead of the clock first waits for the clock:
    /// v1/v6 never run ahead of it.
    #[cold]
    fn admit<C: Clock>(
        &mut self,
        clock: &C,
        reading: &mut Reading,
        mut tick: Tick,
    ) -> Result<Tick, GenError> {
        loop {
            let state = V1State {
                timestamp: tick.ts,
                clock_seq: tick.clock_seq,
                node: self.node,
                node_given: self.node_given,
                valid: true,
            };
            match self.store.reserve(&state, tick.ts)? {
                Reservation::Until(limit) => {
                    self.window.grant(tick.ts, limit);
                    self.commit(tick);
                    return Ok(tick);
                }
                Reservation::ResumeFrom(resume) => {
                    self.set_state(resume);
                    let target = unix_ns_of(self.last_ts);
                    if reading.fixed {
                        if reading.now < target {
                            return Err(self.exhausted(reading.now));
                        }
                    } else {
                        crate::clock::wait_until(clock, target);
                        reading.now = clock.now_ns();
                    }
                    tick = self.propose(clock, reading)?;
                }
            }
        }
    }

    #[inline(always)]
    fn commit(&mut self, tick: Tick) {
        self.last_ts = tick.ts;
        self.last_clock = tick.clock;
        // Only on change: a small store next to the node would stall the
        // wider load of the node that follows in the UUID layout.
        if tick.clock_seq != self.clock_seq || !self.started {
            self.clock_seq = tick.clock_seq;
            self.started = true;
        }
    }
}

/// A v1/v6 generator's link to its node source ([`MaybeNodeSource`]): asks
/// the source before every UUID and moves the core onto each new node.
/// Without a source ([`NoNodeSource`](crate::node::NoNodeSource)) the check
/// compiles to the core's fork check alone.
#[derive(Clone, Debug)]
pub(crate) struct NodeFollow<N> {
    source: N,
    /// The epoch of the node in use; `None` until the source was first read.
    epoch: Option<u64>,
}

impl<N> NodeFollow<N> {
    pub(crate) fn source(&self) -> &N {
        &self.source
    }

    /// Makes the next check take the source's node again (after the caller
    /// set a node or a state of its own, which must not outlive that check).
    pub(crate) fn forget(&mut self) {
        self.epoch = None;
    }
}

impl<N: MaybeNodeSource> NodeFollow<N> {
    /// Follows `source`, which must hand out 48-bit nodes if it is one.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`] for a source of another width.
    pub(crate) fn new(source: N) -> Result<NodeFollow<N>, GenError> {
        if let Some(bits) = source.source_bits().filter(|&b| b != 48) {
            return Err(GenError::config(
                "a 48-bit node source for v1/v6",
                bits.into(),
            ));
        }
        Ok(NodeFollow {
            source,
            epoch: None,
        })
    }

    /// Before a tick, while no node of the source is in use (the first UUID,
    /// or after [`forget`](NodeFollow::forget)): the source's node goes into
    /// `core` first, so that the tick and whatever the core's store records
    /// for it are the node's own.
    ///
    /// # Errors
    /// [`GenErrorKind::NodeLost`] when the source holds no node.
    #[inline(always)]
    pub(crate) fn first<S: Reserve<V1State>, R: Rng>(
        &mut self,
        core: &mut GregorianCore<S>,
        rng: &mut R,
    ) -> Result<(), GenError> {
        if self.epoch.is_some() {
            return Ok(());
        }
        match self.source.source_current() {
            None => Ok(()),
            Some(Ok(id)) => self.adopt(id, core, rng),
            Some(Err(lost)) => Err(GenError::from_node_lost(lost)),
        }
    }

    /// After every tick, before its UUID is made: the source's answer, if there
    /// is a source. `Ok(true)`: the tick may be used (no source, or the node in
    /// use is still held). `Ok(false)`: the source hands out a new node (a new
    /// epoch), which is now in `core` with a new clock sequence, so the old
    /// node's sequence is never continued (RFC 9562 §6.3); the tick, drawn under
    /// the old node, must be dropped and drawn again.
    ///
    /// The source is asked after the clock was read, not before: a lease's
    /// deadline check then comes after the time the UUID carries, so no UUID
    /// carries a time past its node's tenure, however long the process stood
    /// still in between.
    ///
    /// # Errors
    /// [`GenErrorKind::NodeLost`] when the source holds no node.
    #[inline(always)]
    pub(crate) fn confirm<S: Reserve<V1State>, R: Rng>(
        &mut self,
        core: &mut GregorianCore<S>,
        rng: &mut R,
    ) -> Result<bool, GenError> {
        // The answer before every UUID is a yes; a no (another tenure, or
        // none), or no node in use yet, takes the cold path, which asks the
        // source for its node.
        let held = match self.epoch {
            Some(epoch) => self.source.source_holds(epoch) != Some(false),
            None => self.source.source_bits().is_none(),
        };
        if held {
            return Ok(true);
        }
        self.renew(core, rng)
    }

    /// The source holds another tenure than the one in use (or none was in
    /// use): its node goes into `core`, and the tick is drawn again.
    #[cold]
    fn renew<S: Reserve<V1State>, R: Rng>(
        &mut self,
        core: &mut GregorianCore<S>,
        rng: &mut R,
    ) -> Result<bool, GenError> {
        match self.source.source_current() {
            None => Ok(true),
            Some(Ok(id)) if Some(id.epoch()) == self.epoch => Ok(true),
            Some(Ok(id)) => self.adopt(id, core, rng).map(|()| false),
            Some(Err(lost)) => Err(GenError::from_node_lost(lost)),
        }
    }

    #[cold]
    fn adopt<S: Reserve<V1State>, R: Rng>(
        &mut self,
        id: NodeId,
        core: &mut GregorianCore<S>,
        rng: &mut R,
    ) -> Result<(), GenError> {
        let Some(node) = id.as_bytes6() else {
            return Err(GenError::config(
                "a 48-bit node from the node source",
                id.bits().into(),
            ));
        };
        // Even the same value: in a new epoch it may have been another
        // generator's in between.
        core.take_node(node, true, rng);
        self.epoch = Some(id.epoch());
        Ok(())
    }
}
