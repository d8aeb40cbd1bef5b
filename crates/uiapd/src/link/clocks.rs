//! How far each neighbour's clock is ahead of ours, from the time its authenticated datagrams
//! carry (docs/uiap-design.md D72).
//!
//! A datagram's offset — the time in its trailer minus our clock when we read it — is below the
//! sender's true offset by the datagram's delay from its sealing to our reading (and by less
//! than a millisecond of rounding): it never overstates how far ahead the sender is. So each
//! offset counts with [`TRANSIT_MS`] added, and with 1,000 ppm of its age for the clocks' rates
//! (as the high-water millisecond allows, docs/distributed-generation.md). The largest of these
//! over the last [`KEEP`] is what a claim's answer reports. The offsets are kept as the split
//! detector keeps its own: a few per neighbour, for a bounded number of neighbours.

use std::net::Ipv6Addr;
use std::time::Duration;

use super::split::Offsets;

/// How long an offset counts: longer than a site lease's renewal interval plus the key's
/// 30 s window, so that a holder whose tenure could still matter was heard within it.
pub(crate) const KEEP: Duration = Duration::from_secs(120);
/// Added to every measured offset: the longest delay assumed between a neighbour sealing a
/// datagram and this daemon reading its clock for it, for the least delayed of its datagrams.
pub(crate) const TRANSIT_MS: i64 = 50;
/// The neighbour furthest ahead, as a claim's answer says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ahead {
    /// How far ahead of our clock, margins included (0: none ahead).
    pub(crate) ahead_ms: u64,
    /// How long the interfaces that participate now have been heard, up to [`KEEP`].
    pub(crate) listened: Duration,
    /// The neighbour furthest ahead, if any is.
    pub(crate) neighbour: Option<(u32, Ipv6Addr)>,
}

/// The offsets of every neighbour's recent authenticated datagrams.
#[derive(Debug, Default)]
pub(crate) struct Clocks {
    offsets: Offsets,
    /// Since when the interfaces that participate now have all been heard.
    since: Duration,
}

impl Clocks {
    /// An interface joined at `now`: its neighbours were not heard before.
    pub(crate) fn joined(&mut self, now: Duration) {
        self.since = now;
    }

    /// A datagram from `source` verified, sealed `offset_ms` from our clock, at `now`.
    pub(crate) fn record(&mut self, source: (u32, Ipv6Addr), offset_ms: i64, now: Duration) {
        self.offsets.record(source, offset_ms, now);
    }

    /// How far ahead of ours the clocks heard in the last [`KEEP`] before `now` may be.
    pub(crate) fn ahead(&self, now: Duration) -> Ahead {
        let bound = |&(at, offset_ms): &(Duration, i64)| {
            let age = now.saturating_sub(at);
            let slew = i64::try_from(age.as_millis() / 1_000).unwrap_or(i64::MAX) + 1;
            offset_ms
                .saturating_add(TRANSIT_MS + 1)
                .saturating_add(slew)
        };
        let furthest = self
            .offsets
            .neighbours
            .iter()
            .flat_map(|(source, seen)| {
                seen.iter()
                    .filter(|(at, _)| now.saturating_sub(*at) < KEEP)
                    .map(move |s| (bound(s), *source))
            })
            .max_by_key(|(b, _)| *b)
            .filter(|(b, _)| *b > 0);
        Ahead {
            ahead_ms: furthest.map_or(0, |(b, _)| b.unsigned_abs()),
            listened: now.saturating_sub(self.since).min(KEEP),
            neighbour: furthest.map(|(_, s)| s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::split::tests::{S, addr};
    use super::super::split::{MAX_NEIGHBOURS, OFFSETS};
    use super::*;

    #[test]
    fn the_furthest_ahead_counts_with_transit_and_slew_and_only_while_recent() {
        let mut clocks = Clocks::default();
        clocks.joined(S);
        assert_eq!(
            clocks.ahead(3 * S),
            Ahead {
                ahead_ms: 0,
                listened: 2 * S,
                neighbour: None
            }
        );
        // Behind by more than the margins: not ahead.
        clocks.record(addr(1), -1_000, 3 * S);
        assert_eq!(clocks.ahead(3 * S).ahead_ms, 0);
        // 20 s ahead, heard 10 s ago: 20,000 + 50 + 1 + 10 ms of slew + 1.
        clocks.record(addr(2), 20_000, 3 * S);
        clocks.record(addr(2), 19_990, 4 * S);
        let ahead = clocks.ahead(13 * S);
        assert_eq!(ahead.ahead_ms, 20_062);
        assert_eq!(ahead.neighbour, Some(addr(2)));
        assert_eq!(ahead.listened, 12 * S);
        // Past the window it no longer counts, and the listening is capped.
        let later = clocks.ahead(4 * S + KEEP);
        assert_eq!((later.ahead_ms, later.neighbour), (0, None));
        assert_eq!(later.listened, KEEP);
        // A new interface: its neighbours were not heard before.
        clocks.joined(50 * S);
        assert_eq!(clocks.ahead(51 * S).listened, S);
    }

    #[test]
    fn samples_and_neighbours_are_bounded() {
        let mut clocks = Clocks::default();
        for i in 0..=MAX_NEIGHBOURS as u16 {
            clocks.record(addr(i), 1, S + Duration::from_millis(u64::from(i)));
        }
        let neighbours = &clocks.offsets.neighbours;
        assert_eq!(neighbours.len(), MAX_NEIGHBOURS);
        assert!(!neighbours.contains_key(&addr(0)));
        for n in 0..2 * OFFSETS as i64 {
            clocks.record(addr(1), n, 2 * S);
        }
        assert_eq!(clocks.offsets.neighbours[&addr(1)].len(), OFFSETS);
    }
}
