//! The counter engine shared by v7 (all three §6.2 methods) and the v8
//! distributed layout, and [`EngineCore`], which binds it to a [`Reserve`]
//! store.
//!
//! The ordered part of a UUID is one unsigned number
//! `value = (tick << counter_bits) | counter`, where `tick = (ms << frac_bits) |
//! frac` is the timestamp at the chosen precision (Method 3 adds `frac_bits`
//! sub-millisecond bits, `floor(fraction × 2^frac_bits)`). Every UUID the engine
//! hands out has a greater `value` than the one before, except after an explicit
//! [`ClockBackPolicy::Reset`]. [`Engine::next`] only proposes a value;
//! [`Engine::commit`] makes it the last one, once the store has admitted it.

use rand_core::Rng;

use super::{
    ClockBackPolicy, GenError, GenErrorKind, Owner, Reading, Reservation, Reserve, RolloverPolicy,
    Stop, Window,
};
use crate::clock::Clock;
use crate::generator::V7State;
use crate::layout::MAX_UNIX_TS_MS as MAX_MS;

const NS_PER_MS: u64 = 1_000_000;

/// How the engine counts; validated by the configs that build it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EngineSpec {
    /// Sub-millisecond precision bits (Method 3), 0..=12.
    pub frac_bits: u32,
    /// Counter bits after the timestamp, 0..=74.
    pub counter_bits: u32,
    /// Top counter bits left clear when seeding (rollover guard).
    pub guard_bits: u32,
    /// 0: increment by 1; k: increment drawn uniformly from [1, 2^k] (Method 2).
    pub increment_bits: u32,
    pub rollover: RolloverPolicy,
    pub clock_back: ClockBackPolicy,
    pub tolerance_ns: u64,
    /// The Unix millisecond the clock's zero stands for (0: the clock reads
    /// Unix time).
    pub start_ms: u64,
}

/// The settings a counter-based builder shares: guard bits and the rollover
/// and clock-back policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CounterOptions {
    pub(crate) guard_bits: u8,
    pub(crate) rollover: RolloverPolicy,
    pub(crate) clock_back: ClockBackPolicy,
    pub(crate) tolerance_ns: u64,
}

impl CounterOptions {
    /// One guard bit, advance on rollover, an error beyond a 10 s step back.
    pub(crate) const DEFAULT: CounterOptions = CounterOptions {
        guard_bits: 1,
        rollover: RolloverPolicy::AdvanceTimestamp,
        clock_back: ClockBackPolicy::Error,
        tolerance_ns: super::DEFAULT_TOLERANCE_NS,
    };

    /// The engine for these widths, with the guard checked against the
    /// counter (a layout without a counter has no guard).
    pub(crate) fn spec(
        &self,
        frac_bits: u8,
        counter_bits: u8,
        increment_bits: u8,
    ) -> Result<EngineSpec, GenError> {
        let guard = if counter_bits == 0 {
            0
        } else {
            self.guard_bits
        };
        if counter_bits != 0 && guard >= counter_bits {
            return Err(GenError::config(
                "guard bits smaller than the counter width",
                guard.into(),
            ));
        }
        Ok(EngineSpec {
            frac_bits: frac_bits.into(),
            counter_bits: counter_bits.into(),
            guard_bits: guard.into(),
            increment_bits: increment_bits.into(),
            rollover: self.rollover,
            clock_back: self.clock_back,
            tolerance_ns: self.tolerance_ns,
            start_ms: 0,
        })
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Engine {
    spec: EngineSpec,
    tolerance_ticks: u64,
    last: u128,
    started: bool,
    /// A store moved the engine above its clock (a stored mark ahead of the
    /// clock): until the clock catches up, a clock far behind is not a step
    /// back to follow or report, and a rollover advances the timestamp
    /// whatever the policy, so generation continues above the mark at once.
    pinned: bool,
}

#[inline]
const fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

impl Engine {
    pub(crate) fn new(spec: EngineSpec) -> Engine {
        // u64::MAX nanoseconds means "no limit".
        let tolerance_ticks = if spec.tolerance_ns == u64::MAX {
            u64::MAX
        } else {
            u64::try_from(((spec.tolerance_ns as u128) << spec.frac_bits) / NS_PER_MS as u128)
                .unwrap_or(u64::MAX)
        };
        Engine {
            spec,
            tolerance_ticks,
            last: 0,
            started: false,
            pinned: false,
        }
    }

    /// Restores a value as if it had been handed out last.
    fn set_last(&mut self, value: u128) {
        self.last = value & mask(48 + self.spec.frac_bits + self.spec.counter_bits);
        self.started = true;
    }

    /// The tick (timestamp at the engine's precision) of `unix_ns`.
    #[inline]
    fn tick_of(&self, unix_ns: u64) -> Result<u64, GenError> {
        let ms = (unix_ns / NS_PER_MS).saturating_add(self.spec.start_ms);
        if ms > MAX_MS {
            return Err(GenError::new(GenErrorKind::TimestampOutOfRange, MAX_MS, ms));
        }
        let f = self.spec.frac_bits;
        let frac = ((unix_ns % NS_PER_MS) << f) / NS_PER_MS;
        Ok((ms << f) | frac)
    }

    /// The start of `tick` as a clock reading in nanoseconds (for error messages).
    fn ns_of(&self, tick: u64) -> u64 {
        let f = self.spec.frac_bits;
        let ms = (tick >> f).saturating_sub(self.spec.start_ms);
        let frac = tick & ((1 << f) - 1);
        ms.saturating_mul(NS_PER_MS)
            .saturating_add((frac * NS_PER_MS) >> f)
    }

    #[inline]
    fn seed<R: Rng + ?Sized>(&self, rng: &mut R) -> u128 {
        let c = self.spec.counter_bits;
        if c == 0 {
            return 0;
        }
        let r = if c > 64 {
            ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128
        } else {
            rng.next_u64() as u128
        };
        r & (mask(c) >> self.spec.guard_bits)
    }

    /// The next value for a clock reading of `unix_ns`, not yet committed.
    #[inline(always)]
    fn next<R: Rng + ?Sized>(&self, unix_ns: u64, rng: &mut R) -> Result<u128, Stop> {
        let now = self.tick_of(unix_ns).map_err(Stop::Err)?;
        let c = self.spec.counter_bits;
        let last_tick = (self.last >> c) as u64;
        if !self.started || now > last_tick {
            return Ok(((now as u128) << c) | self.seed(rng));
        }
        if last_tick - now > self.tolerance_ticks && !self.pinned {
            return match self.spec.clock_back {
                ClockBackPolicy::Reset => Ok(((now as u128) << c) | self.seed(rng)),
                ClockBackPolicy::Error => Err(Stop::Err(GenError::new(
                    GenErrorKind::ClockBehind,
                    self.ns_of(last_tick).saturating_sub(self.spec.tolerance_ns),
                    unix_ns,
                ))),
            };
        }
        // Same tick, or behind within the tolerance: keep the last tick, count on.
        let inc = if self.spec.increment_bits == 0 {
            1
        } else {
            1 + (rng.next_u64() as u128 & mask(self.spec.increment_bits))
        };
        let next = self.last + inc;
        if (next >> c) as u64 == last_tick && c != 0 {
            return Ok(next);
        }
        match self.spec.rollover {
            _ if self.pinned => self.advance(last_tick, rng),
            RolloverPolicy::AdvanceTimestamp => self.advance(last_tick, rng),
            RolloverPolicy::Wait => Err(Stop::Wait),
            RolloverPolicy::Error => Err(Stop::Err(GenError::new(
                GenErrorKind::CounterExhausted,
                self.ns_of(last_tick),
                unix_ns,
            ))),
        }
    }

    /// The first value of the tick after `last_tick`.
    fn advance<R: Rng + ?Sized>(&self, last_tick: u64, rng: &mut R) -> Result<u128, Stop> {
        let tick = last_tick + 1;
        if tick >> self.spec.frac_bits > MAX_MS {
            return Err(Stop::Err(GenError::new(
                GenErrorKind::TimestampOutOfRange,
                MAX_MS,
                tick >> self.spec.frac_bits,
            )));
        }
        Ok(((tick as u128) << self.spec.counter_bits) | self.seed(rng))
    }

    /// Ends [`pinned`](Self::pinned) once the clock has reached the last tick.
    #[cold]
    fn unpin(&mut self, unix_ns: u64) {
        let last_tick = (self.last >> self.spec.counter_bits) as u64;
        if self.tick_of(unix_ns).is_ok_and(|now| now >= last_tick) {
            self.pinned = false;
        }
    }

    /// Makes `value` (from [`next`](Self::next)) the last one handed out.
    #[inline(always)]
    fn commit(&mut self, value: u128) {
        self.last = value;
        self.started = true;
    }

    /// Splits a value into its millisecond timestamp and the bits that follow it
    /// (fraction, then counter), right-aligned.
    #[inline]
    fn split(&self, value: u128) -> (u64, u128) {
        let low = self.spec.frac_bits + self.spec.counter_bits;
        ((value >> low) as u64, value & mask(low))
    }
}

/// An [`Engine`] bound to a [`Reserve`] store: a value is committed only once
/// the store's reservation covers its millisecond. Dropping it releases the
/// store with the last state.
#[derive(Debug)]
pub(crate) struct EngineCore<S: Reserve<V7State>> {
    engine: Engine,
    store: S,
    window: Window,
    owner: Owner,
}

impl<S: Reserve<V7State>> Drop for EngineCore<S> {
    fn drop(&mut self) {
        let last = self.state();
        self.store.release(&last);
    }
}

impl<S: Reserve<V7State>> EngineCore<S> {
    pub(crate) fn new(spec: EngineSpec, store: S) -> EngineCore<S> {
        EngineCore {
            engine: Engine::new(spec),
            store,
            window: Window::default(),
            owner: Owner::here(),
        }
    }

    pub(crate) fn spec(&self) -> &EngineSpec {
        &self.engine.spec
    }

    pub(crate) fn store(&self) -> &S {
        &self.store
    }

    pub(crate) fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// The millisecond timestamp and the ordered bits after it, right-aligned.
    #[inline]
    pub(crate) fn split(&self, value: u128) -> (u64, u128) {
        self.engine.split(value)
    }

    /// The state after the last value handed out.
    pub(crate) fn state(&self) -> V7State {
        if self.engine.started {
            self.state_of(self.engine.last)
        } else {
            V7State::default()
        }
    }

    fn state_of(&self, value: u128) -> V7State {
        let (unix_ts_ms, counter) = self.engine.split(value);
        V7State {
            unix_ts_ms,
            counter,
            valid: true,
        }
    }

    /// Forgets the last value: the next one starts from the clock with a
    /// fresh counter, as for a new generator (the store still bounds it).
    pub(crate) fn restart(&mut self) {
        self.engine.started = false;
        self.engine.pinned = false;
    }

    /// Restores `state` as if its value had been handed out last (counter
    /// bits beyond the configured width dropped); `valid == false` is ignored.
    pub(crate) fn set_state(&mut self, state: V7State) {
        if state.valid {
            let s = &self.engine.spec;
            let low = s.frac_bits + s.counter_bits;
            self.engine
                .set_last(((state.unix_ts_ms as u128) << low) | (state.counter & mask(low)));
        }
    }

    /// The next value: proposed by the engine, admitted by the store, then
    /// committed.
    ///
    /// # Errors
    /// The engine's (as configured) or the store's.
    #[inline(always)]
    pub(crate) fn next<C: Clock, R: Rng>(
        &mut self,
        clock: &C,
        rng: &mut R,
        reading: &mut Reading,
    ) -> Result<u128, GenError> {
        if self.owner.forked() {
            self.after_fork();
        }
        let value = self.propose(clock, rng, reading)?;
        if self.engine.pinned {
            self.engine.unpin(reading.now);
        }
        if self.window.covers(self.engine.split(value).0) && self.store.is_held() {
            self.engine.commit(value);
            return Ok(value);
        }
        self.admit(clock, rng, reading, value)
    }

    /// In a forked child: the parent goes on counting from the same value,
    /// so the child moves on to the next tick with a freshly seeded counter
    /// (as a new tick would), whatever the rollover policy; the clock
    /// catches up within one tick. Its UUIDs stay above those its parent
    /// issued before the fork.
    #[cold]
    fn after_fork(&mut self) {
        self.owner.take_over();
        if self.engine.started {
            let c = self.engine.spec.counter_bits;
            self.engine.last |= mask(c);
            self.engine.pinned = true;
        }
        self.window.close();
    }

    /// The engine's next value, waiting for the clock on a `Wait` rollover.
    #[inline(always)]
    fn propose<C: Clock, R: Rng>(
        &self,
        clock: &C,
        rng: &mut R,
        reading: &mut Reading,
    ) -> Result<u128, GenError> {
        loop {
            match self.engine.next(reading.now, rng) {
                Ok(v) => return Ok(v),
                Err(Stop::Wait) if !reading.fixed => {
                    clock.relax();
                    reading.now = clock.now_ns();
                }
                Err(Stop::Wait) => return Err(self.exhausted(reading.now)),
                Err(Stop::Err(e)) => return Err(e),
            }
        }
    }

    #[cold]
    fn exhausted(&self, now: u64) -> GenError {
        let ms = self.state().unix_ts_ms;
        GenError::new(
            GenErrorKind::CounterExhausted,
            ms.saturating_mul(NS_PER_MS),
            now,
        )
    }

    /// Asks the store about `value` until it admits one; commits that one.
    #[cold]
    fn admit<C: Clock, R: Rng>(
        &mut self,
        clock: &C,
        rng: &mut R,
        reading: &mut Reading,
        mut value: u128,
    ) -> Result<u128, GenError> {
        loop {
            let needed = self.engine.split(value).0;
            let state = self.state_of(value);
            match self.store.reserve(&state, needed)? {
                Reservation::Until(limit) => {
                    self.window.grant(needed, limit);
                    self.engine.commit(value);
                    return Ok(value);
                }
                Reservation::ResumeFrom(resume) => {
                    self.set_state(resume);
                    self.engine.pinned = resume.valid;
                    value = self.propose(clock, rng, reading)?;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::DEFAULT_TOLERANCE_NS;

    struct Counting(u64);
    impl rand_core::TryRng for Counting {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.try_next_u64()? as u32)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            Ok(self.0)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            dst.fill(0xA5);
            Ok(())
        }
    }

    fn spec(frac: u32, counter: u32) -> EngineSpec {
        EngineSpec {
            frac_bits: frac,
            counter_bits: counter,
            guard_bits: 1,
            increment_bits: 0,
            rollover: RolloverPolicy::AdvanceTimestamp,
            clock_back: ClockBackPolicy::Reset,
            tolerance_ns: DEFAULT_TOLERANCE_NS,
            start_ms: 0,
        }
    }

    #[test]
    fn method3_fraction_is_floor_of_fraction_times_4096() {
        let e = Engine::new(spec(12, 0));
        // 0.4567 ms → 1870 (RFC 9562 §6.2 Method 3 example), 0 → 0, 0.99999 → 4095.
        assert_eq!(e.tick_of(456_700).unwrap(), 1870);
        assert_eq!(e.tick_of(0).unwrap(), 0);
        assert_eq!(e.tick_of(999_990).unwrap(), 4095);
        assert_eq!(e.tick_of(5_000_000).unwrap(), 5 << 12);
    }

    #[test]
    fn three_branches_of_section_6_2() {
        let mut e = Engine::new(spec(0, 12));
        let mut rng = Counting(0);
        let mut next = |e: &mut Engine, ns: u64| {
            let v = e.next(ns, &mut rng).unwrap();
            e.commit(v);
            v
        };
        let a = next(&mut e, 7_000_000);
        assert_eq!(a >> 12, 7);
        assert!(a & 0xFFF < 0x800, "seeded with the guard bit clear");
        let b = next(&mut e, 7_000_000);
        assert_eq!(b, a + 1, "same tick: increment");
        let c = next(&mut e, 8_000_000);
        assert_eq!(c >> 12, 8, "new tick: reseed");
        assert_eq!(e.split(c), (8, c & 0xFFF));
    }

    #[test]
    fn a_proposed_value_is_not_the_last_until_committed() {
        let mut e = Engine::new(spec(0, 12));
        let mut rng = Counting(0);
        let a = e.next(7_000_000, &mut rng).unwrap();
        e.commit(a);
        let b = e.next(7_000_000, &mut rng).unwrap();
        assert_eq!(b, a + 1);
        assert_eq!(
            e.next(7_000_000, &mut rng).unwrap(),
            a + 1,
            "b was not committed"
        );
    }
}
