//! Neighbours whose authenticated datagrams arrive outside the freshness window: a site split by
//! a clock, not junk (docs/uiap-design.md D71).
//!
//! A datagram whose tag verifies was sealed by a holder of the key. When it is stale, either the
//! sender's clock is off by more than the window (its claims and ours can no longer see each
//! other: neither side's Claim-Denies count at the other), or someone replays a datagram older
//! than the window. A neighbour is split when its stale datagrams agree on the offset: two or
//! more within [`KEEP`], within [`AGREE_MS`] of each other. A single replayed datagram is not
//! enough; a sender whose clock stepped is seen at its next claim or renewal.

use std::collections::{BTreeMap, VecDeque};
use std::net::Ipv6Addr;
use std::time::Duration;

/// How long a stale datagram counts.
pub(crate) const KEEP: Duration = Duration::from_secs(60);
/// Offsets this close agree.
const AGREE_MS: i64 = 1_000;
/// Stale datagrams that must agree before a neighbour is split.
const AGREEING: usize = 2;
/// Offsets remembered per neighbour.
pub(crate) const OFFSETS: usize = 8;
/// Neighbours tracked at most; the one heard from least recently makes room.
pub(crate) const MAX_NEIGHBOURS: usize = 256;

/// One split neighbour, for a claim's answer and its watchers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Split {
    /// Interface index and link-local address.
    pub(crate) source: (u32, Ipv6Addr),
    /// Its clock minus ours, in milliseconds (the latest stale datagram's).
    pub(crate) offset_ms: i64,
    /// When its latest stale datagram came.
    pub(crate) last: Duration,
}

impl std::fmt::Display for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (direction, offset) = if self.offset_ms >= 0 {
            ("ahead of", self.offset_ms)
        } else {
            ("behind", -self.offset_ms)
        };
        write!(
            f,
            "neighbour {}%{} seals authenticated datagrams {}.{:03} s {direction} this host's \
             clock, outside the {} s window: the site is split, its Claim-Denies and ours do not \
             count at each other",
            self.source.1,
            self.source.0,
            offset / 1000,
            offset % 1000,
            super::psk::WINDOW_MS / 1000,
        )
    }
}

/// The stale authenticated datagrams of every neighbour, and the last step of this host's own
/// wall clock (docs/uiap-design.md D76).
#[derive(Debug, Default)]
pub(crate) struct Splits {
    offsets: Offsets,
    own_step: Option<super::step::Step>,
}

/// The offsets of a few recent datagrams of each neighbour (theirs minus ours, in
/// milliseconds, and when they came), for a bounded number of neighbours.
#[derive(Debug, Default)]
pub(crate) struct Offsets {
    pub(crate) neighbours: BTreeMap<(u32, Ipv6Addr), VecDeque<(Duration, i64)>>,
}

impl Offsets {
    /// A datagram from `source` was sealed `offset_ms` away from our clock, and came at `now`.
    /// The neighbour heard from least recently makes room for a new one; its oldest offset,
    /// for a new offset.
    pub(crate) fn record(&mut self, source: (u32, Ipv6Addr), offset_ms: i64, now: Duration) {
        if !self.neighbours.contains_key(&source) && self.neighbours.len() >= MAX_NEIGHBOURS {
            let quietest = self
                .neighbours
                .iter()
                .min_by_key(|(_, seen)| seen.back().map(|s| s.0))
                .map(|(k, _)| *k);
            if let Some(k) = quietest {
                self.neighbours.remove(&k);
            }
        }
        let seen = self.neighbours.entry(source).or_default();
        if seen.len() >= OFFSETS {
            seen.pop_front();
        }
        seen.push_back((now, offset_ms));
    }
}

impl Splits {
    /// A datagram from `source` verified but was sealed `offset_ms` away from our clock, at
    /// `now`.
    pub(crate) fn record(&mut self, source: (u32, Ipv6Addr), offset_ms: i64, now: Duration) {
        self.offsets.record(source, offset_ms, now);
    }

    /// This host's wall clock stepped: its datagrams may be stale at its neighbours.
    pub(crate) fn stepped(&mut self, step: super::step::Step) {
        self.own_step = Some(step);
    }

    /// The last step of this host's wall clock, if any.
    pub(crate) fn own_step(&self) -> Option<super::step::Step> {
        self.own_step
    }

    /// The split neighbour heard from most recently at `now`, if any.
    pub(crate) fn current(&self, now: Duration) -> Option<Split> {
        self.offsets
            .neighbours
            .iter()
            .filter_map(|(source, seen)| {
                let recent: Vec<_> = seen
                    .iter()
                    .filter(|(at, _)| now.saturating_sub(*at) < KEEP)
                    .collect();
                let &&(last, offset_ms) = recent.last()?;
                let agreeing = recent
                    .iter()
                    .filter(|(_, o)| (o - offset_ms).abs() <= AGREE_MS)
                    .count();
                (agreeing >= AGREEING).then_some(Split {
                    source: *source,
                    offset_ms,
                    last,
                })
            })
            .max_by_key(|s| s.last)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(crate) const S: Duration = Duration::from_secs(1);

    /// Neighbour `i` on interface 2.
    pub(crate) fn addr(i: u16) -> (u32, Ipv6Addr) {
        (2, Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, i))
    }

    #[test]
    fn a_neighbour_is_split_when_its_stale_datagrams_agree_on_the_offset() {
        let mut splits = Splits::default();
        splits.record(addr(1), 40_000, S);
        assert_eq!(splits.current(S), None, "one datagram may be a replay");
        // Replays from far apart in time disagree on the offset.
        splits.record(addr(2), -95_000, S);
        splits.record(addr(2), -31_000, S);
        assert_eq!(splits.current(S), None);
        splits.record(addr(1), 40_120, 2 * S);
        let split = splits.current(2 * S).expect("split");
        assert_eq!((split.source, split.offset_ms), (addr(1), 40_120));
        assert!(
            split
                .to_string()
                .starts_with("neighbour fe80::1%2 seals authenticated datagrams 40.120 s ahead of"),
            "{split}"
        );
        splits.record(addr(3), -31_500, 3 * S);
        splits.record(addr(3), -31_400, 3 * S);
        let split = splits.current(3 * S).expect("split");
        assert!(split.to_string().contains("31.400 s behind"), "{split}");
        // A minute later it is over.
        assert_eq!(splits.current(3 * S + KEEP), None);
    }

    #[test]
    fn neighbours_are_bounded() {
        let mut splits = Splits::default();
        for i in 0..=MAX_NEIGHBOURS as u16 {
            splits.record(addr(i), 40_000, S + Duration::from_millis(u64::from(i)));
        }
        assert_eq!(splits.offsets.neighbours.len(), MAX_NEIGHBOURS);
        assert!(!splits.offsets.neighbours.contains_key(&addr(0)));
    }
}
