//! Time as the protocol sees it: an [`Instant`] on a monotonic clock that the caller supplies.
//!
//! The protocol core never reads a clock. A daemon maps its runtime clock onto [`Instant`] (for
//! example microseconds since it started); the simulator uses virtual time starting at
//! [`Instant::ZERO`]. Durations are [`core::time::Duration`].

use core::fmt;
use core::ops::{Add, AddAssign, Sub};
use core::time::Duration;

/// A point on a monotonic clock, in microseconds from an arbitrary zero.
///
/// Arithmetic saturates instead of overflowing or panicking: `Instant::MAX + d == Instant::MAX`
/// and `a - b` is [`Duration::ZERO`] when `b` is later than `a`.
///
/// # Example
/// ```
/// use core::time::Duration;
/// use uiap::time::Instant;
///
/// let t = Instant::from_millis(2_500);
/// assert_eq!(t.as_micros(), 2_500_000);
/// assert_eq!(t + Duration::from_millis(500), Instant::from_millis(3_000));
/// assert_eq!(Instant::from_millis(3_000) - t, Duration::from_millis(500));
/// assert_eq!(t.to_string(), "2.500000s");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

impl Instant {
    /// The zero of the clock.
    pub const ZERO: Instant = Instant(0);
    /// The latest representable instant.
    pub const MAX: Instant = Instant(u64::MAX);

    /// An instant `us` microseconds after zero.
    ///
    /// ```
    /// # use uiap::time::Instant;
    /// assert_eq!(Instant::from_micros(7).as_micros(), 7);
    /// ```
    pub const fn from_micros(us: u64) -> Instant {
        Instant(us)
    }

    /// An instant `ms` milliseconds after zero (saturating).
    ///
    /// ```
    /// # use uiap::time::Instant;
    /// assert_eq!(Instant::from_millis(3).as_micros(), 3_000);
    /// ```
    pub const fn from_millis(ms: u64) -> Instant {
        Instant(ms.saturating_mul(1_000))
    }

    /// An instant `s` seconds after zero (saturating).
    ///
    /// ```
    /// # use uiap::time::Instant;
    /// assert_eq!(Instant::from_secs(2).as_micros(), 2_000_000);
    /// ```
    pub const fn from_secs(s: u64) -> Instant {
        Instant(s.saturating_mul(1_000_000))
    }

    /// Microseconds since zero.
    ///
    /// ```
    /// # use uiap::time::Instant;
    /// assert_eq!(Instant::from_millis(1).as_micros(), 1_000);
    /// ```
    pub const fn as_micros(self) -> u64 {
        self.0
    }

    /// The time elapsed since `earlier`, or zero if `earlier` is later than `self`.
    ///
    /// ```
    /// # use uiap::time::Instant;
    /// # use core::time::Duration;
    /// let a = Instant::from_millis(10);
    /// assert_eq!(a.saturating_duration_since(Instant::ZERO), Duration::from_millis(10));
    /// assert_eq!(Instant::ZERO.saturating_duration_since(a), Duration::ZERO);
    /// ```
    pub const fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration::from_micros(self.0.saturating_sub(earlier.0))
    }
}

/// Whole microseconds in `d`, saturating at `u64::MAX`.
pub(crate) fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, rhs: Duration) -> Instant {
        Instant(self.0.saturating_add(micros(rhs)))
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;
    fn sub(self, rhs: Duration) -> Instant {
        Instant(self.0.saturating_sub(micros(rhs)))
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;
    fn sub(self, rhs: Instant) -> Duration {
        self.saturating_duration_since(rhs)
    }
}

impl fmt::Display for Instant {
    /// Seconds with six decimals, e.g. `2.500000s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:06}s", self.0 / 1_000_000, self.0 % 1_000_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(Instant::MAX + Duration::from_secs(1), Instant::MAX);
        assert_eq!(Instant::ZERO - Duration::from_secs(1), Instant::ZERO);
        assert_eq!(Instant::ZERO - Instant::MAX, Duration::ZERO);
        assert_eq!(Instant::MAX + Duration::MAX, Instant::MAX);
        let mut t = Instant::from_secs(1);
        t += Duration::from_micros(5);
        assert_eq!(t.as_micros(), 1_000_005);
        assert_eq!(t.to_string(), "1.000005s");
    }
}
