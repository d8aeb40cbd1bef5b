//! The counter engine shared by v7 (all three §6.2 methods) and the v8
//! distributed layout.
//!
//! The ordered part of a UUID is one unsigned number
//! `value = (tick << counter_bits) | counter`, where `tick = (ms << frac_bits) |
//! frac` is the timestamp at the chosen precision (Method 3 adds `frac_bits`
//! sub-millisecond bits, `floor(fraction × 2^frac_bits)`). Every UUID the engine
//! hands out has a greater `value` than the one before, except after an explicit
//! [`ClockBackPolicy::Reset`].

use rand_core::Rng;

use super::{ClockBackPolicy, GenError, GenErrorKind, RolloverPolicy};

const NS_PER_MS: u64 = 1_000_000;
/// Largest millisecond timestamp a 48-bit field holds.
pub(crate) use crate::MAX_UNIX_TS_MS as MAX_MS;

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
}

/// Why [`Engine::next`] produced no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The counter is used up and the policy is `Wait`: read the clock again.
    Wait,
    Err(GenError),
}

#[derive(Clone, Debug)]
pub(crate) struct Engine {
    spec: EngineSpec,
    tolerance_ticks: u64,
    last: u128,
    started: bool,
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
        }
    }

    pub(crate) fn spec(&self) -> &EngineSpec {
        &self.spec
    }

    /// The last value handed out, and whether there was one.
    pub(crate) fn last(&self) -> (u128, bool) {
        (self.last, self.started)
    }

    /// Restores a value as if it had been handed out last.
    pub(crate) fn set_last(&mut self, value: u128) {
        self.last = value & mask(48 + self.spec.frac_bits + self.spec.counter_bits);
        self.started = true;
    }

    /// The tick (timestamp at the engine's precision) of `unix_ns`.
    #[inline]
    fn tick_of(&self, unix_ns: u64) -> Result<u64, GenError> {
        let ms = unix_ns / NS_PER_MS;
        if ms > MAX_MS {
            return Err(GenError::new(GenErrorKind::TimestampOutOfRange, MAX_MS, ms));
        }
        let f = self.spec.frac_bits;
        let frac = ((unix_ns % NS_PER_MS) << f) / NS_PER_MS;
        Ok((ms << f) | frac)
    }

    /// The start of `tick` in Unix nanoseconds (for error messages).
    fn ns_of(&self, tick: u64) -> u64 {
        let f = self.spec.frac_bits;
        let ms = tick >> f;
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

    /// The next value for a clock reading of `unix_ns`.
    #[inline]
    pub(crate) fn next<R: Rng + ?Sized>(
        &mut self,
        unix_ns: u64,
        rng: &mut R,
    ) -> Result<u128, Stop> {
        let now = self.tick_of(unix_ns).map_err(Stop::Err)?;
        let c = self.spec.counter_bits;
        let last_tick = (self.last >> c) as u64;
        if !self.started || now > last_tick {
            return Ok(self.commit(((now as u128) << c) | self.seed(rng)));
        }
        if last_tick - now > self.tolerance_ticks {
            return match self.spec.clock_back {
                ClockBackPolicy::Reset => Ok(self.commit(((now as u128) << c) | self.seed(rng))),
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
            return Ok(self.commit(next));
        }
        match self.spec.rollover {
            RolloverPolicy::AdvanceTimestamp => {
                let tick = last_tick + 1;
                if tick >> self.spec.frac_bits > MAX_MS {
                    return Err(Stop::Err(GenError::new(
                        GenErrorKind::TimestampOutOfRange,
                        MAX_MS,
                        tick >> self.spec.frac_bits,
                    )));
                }
                Ok(self.commit(((tick as u128) << c) | self.seed(rng)))
            }
            RolloverPolicy::Wait => Err(Stop::Wait),
            RolloverPolicy::Error => Err(Stop::Err(GenError::new(
                GenErrorKind::CounterExhausted,
                self.ns_of(last_tick),
                unix_ns,
            ))),
        }
    }

    #[inline]
    fn commit(&mut self, value: u128) -> u128 {
        self.last = value;
        self.started = true;
        value
    }

    /// Splits a value into its millisecond timestamp and the bits that follow it
    /// (fraction, then counter), right-aligned.
    #[inline]
    pub(crate) fn split(&self, value: u128) -> (u64, u128) {
        let low = self.spec.frac_bits + self.spec.counter_bits;
        ((value >> low) as u64, value & mask(low))
    }

    /// The millisecond timestamp of a value.
    #[inline]
    pub(crate) fn ms_of(&self, value: u128) -> u64 {
        self.split(value).0
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
        let a = e.next(7_000_000, &mut rng).unwrap();
        assert_eq!(a >> 12, 7);
        assert!(a & 0xFFF < 0x800, "seeded with the guard bit clear");
        let b = e.next(7_000_000, &mut rng).unwrap();
        assert_eq!(b, a + 1, "same tick: increment");
        let c = e.next(8_000_000, &mut rng).unwrap();
        assert_eq!(c >> 12, 8, "new tick: reseed");
        assert_eq!(e.split(c), (8, c & 0xFFF));
    }
}
