//! The per-neighbour rate limit (docs/uiap-design.md D45): token buckets per neighbour, checked
//! before anything is parsed.

use std::collections::HashMap;
use std::net::Ipv6Addr;
use std::time::Duration;

/// Datagrams per second one neighbour may send on average (docs/uiap-design.md D45).
pub(crate) const NEIGHBOUR_RATE: u32 = 1000;
/// How many datagrams one neighbour may send in a burst.
pub(crate) const NEIGHBOUR_BURST: u32 = 2000;
/// Neighbours with a bucket of their own; beyond them, new neighbours share one bucket.
pub(crate) const MAX_NEIGHBOURS: usize = 1024;
/// A neighbour silent this long gives up its bucket to a new one (microseconds).
const IDLE_US: u64 = 60_000_000;

#[derive(Clone, Copy, Debug)]
struct Bucket {
    /// Tokens, in millionths of a datagram.
    micro_tokens: u64,
    /// When the tokens were last topped up, in microseconds of the daemon's clock.
    at: u64,
}

/// Token buckets per neighbour (interface, link-local address).
#[derive(Debug)]
pub(crate) struct RateLimiter {
    rate: u64,
    burst: u64,
    max: usize,
    buckets: HashMap<(u32, Ipv6Addr), Bucket>,
    overflow: Option<Bucket>,
    /// When quiet neighbours were last looked for (microseconds): at most once a second, so
    /// that a flood from ever-new addresses does not make every datagram scan the table.
    swept_at: Option<u64>,
}

impl RateLimiter {
    /// `rate` datagrams per second and `burst` at once for each of at most `max` neighbours;
    /// further neighbours share one bucket with the same limits.
    pub(crate) fn new(rate: u32, burst: u32, max: usize) -> RateLimiter {
        RateLimiter {
            rate: u64::from(rate.max(1)),
            burst: u64::from(burst.max(1)),
            max,
            buckets: HashMap::new(),
            overflow: None,
            swept_at: None,
        }
    }

    /// Whether a datagram from `neighbour` (interface index, address) may pass at `now` (the
    /// daemon's clock); takes one token if so.
    pub(crate) fn allow(&mut self, now: Duration, neighbour: (u32, Ipv6Addr)) -> bool {
        let now = u64::try_from(now.as_micros()).unwrap_or(u64::MAX);
        let full = Bucket {
            micro_tokens: self.burst * 1_000_000,
            at: now,
        };
        if !self.buckets.contains_key(&neighbour)
            && self.buckets.len() >= self.max
            && self
                .swept_at
                .is_none_or(|t| now.saturating_sub(t) >= 1_000_000)
        {
            // Forget neighbours silent for a minute. Not sooner: a flood from ever-new addresses
            // would take every freed bucket at once, and an honest neighbour that paused would
            // be left to share the flooded overflow bucket.
            self.swept_at = Some(now);
            self.buckets
                .retain(|_, b| now.saturating_sub(b.at) < IDLE_US);
        }
        let (rate, burst) = (self.rate, self.burst);
        let bucket = if self.buckets.len() < self.max || self.buckets.contains_key(&neighbour) {
            self.buckets.entry(neighbour).or_insert(full)
        } else {
            self.overflow.get_or_insert(full)
        };
        *bucket = refill(*bucket, now, rate, burst);
        if bucket.micro_tokens >= 1_000_000 {
            bucket.micro_tokens -= 1_000_000;
            true
        } else {
            false
        }
    }

    /// Neighbours with a bucket of their own.
    #[cfg(test)]
    fn neighbours(&self) -> usize {
        self.buckets.len()
    }
}

fn refill(b: Bucket, now: u64, rate: u64, burst: u64) -> Bucket {
    let elapsed = now.saturating_sub(b.at);
    Bucket {
        micro_tokens: b
            .micro_tokens
            .saturating_add(elapsed.saturating_mul(rate))
            .min(burst * 1_000_000),
        at: now.max(b.at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_neighbour_gets_its_burst_then_its_rate() {
        let mut limits = RateLimiter::new(10, 20, 4);
        let n = (2, "fe80::1".parse().unwrap());
        let passed = (0..30).filter(|_| limits.allow(Duration::ZERO, n)).count();
        assert_eq!(passed, 20, "the burst");
        assert!(
            limits.allow(Duration::from_millis(100), n),
            "one more after 1/10 s"
        );
        assert!(!limits.allow(Duration::from_millis(100), n));
        assert_eq!(limits.neighbours(), 1);
    }

    #[test]
    fn neighbours_are_limited_apart_and_extra_ones_share_a_bucket() {
        let mut limits = RateLimiter::new(100, 10, 2);
        let n = |i: u16| (2, Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, i));
        let t = Duration::ZERO;
        assert_eq!((0..50).filter(|_| limits.allow(t, n(1))).count(), 10);
        // Another neighbour has its own bucket.
        assert_eq!((0..50).filter(|_| limits.allow(t, n(2))).count(), 10);
        // The table is full of busy neighbours: new ones share the overflow bucket.
        assert_eq!((0..50).filter(|_| limits.allow(t, n(3))).count(), 10);
        assert_eq!((0..50).filter(|_| limits.allow(t, n(4))).count(), 0);
        // 100 per second: 5 more after 50 ms.
        let later = Duration::from_millis(50);
        assert_eq!((0..50).filter(|_| limits.allow(later, n(1))).count(), 5);
        // A neighbour that paused keeps its bucket: a new one still shares the overflow.
        let later = Duration::from_secs(30);
        assert_eq!((0..50).filter(|_| limits.allow(later, n(6))).count(), 10);
        assert_eq!((0..50).filter(|_| limits.allow(later, n(2))).count(), 10);
        // Neighbours silent for a minute are forgotten, making room.
        let much_later = Duration::from_secs(61);
        assert!(limits.allow(much_later, n(5)));
        assert!(limits.neighbours() <= 2);
        assert_eq!(
            (0..50).filter(|_| limits.allow(much_later, n(5))).count(),
            9
        );
    }
}
