//! The forwarding budget (docs/uiap-design.md D48, D69): `forward_rate` floods a second in all,
//! shared fairly among the previous hops that want it.
//!
//! Every previous hop that forwarded within the last second is active. While the shared bucket
//! is more than half full, any hop may take from it. Below that, a hop takes only what its own
//! bucket holds, topped up at `forward_rate / active hops` a second: a hop that sends more than
//! its share (a flooder, or a forwarder passing a flood on) cannot spend the share of a quiet
//! one, and the quiet one's own bucket is its share even when the shared bucket is empty.

use std::collections::HashMap;

use super::Peer;
use crate::time::{Instant, micros};

/// Millionths of a flood per flood.
const UNIT: u64 = 1_000_000;
/// How recently a hop must have forwarded to count as active.
const ACTIVE_FOR_MICROS: u64 = 1_000_000;
/// Previous hops with a bucket of their own; beyond this, new ones share one.
const MAX_HOPS: usize = 256;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: u64,
    at: Instant,
}

impl Bucket {
    fn top_up(&mut self, now: Instant, rate: u64, cap: u64) {
        let elapsed = micros(now - self.at.min(now));
        self.at = self.at.max(now);
        self.tokens = self
            .tokens
            .saturating_add(elapsed.saturating_mul(rate))
            .min(cap);
    }
}

/// The shared bucket and one per previous hop.
#[derive(Debug)]
pub(crate) struct ForwardBudget {
    rate: u64,
    shared: Bucket,
    hops: HashMap<Peer, Bucket>,
    /// The bucket of hops beyond [`MAX_HOPS`].
    overflow: Bucket,
    /// Active hops as last counted, and when: counted at most every [`RECOUNT_MICROS`], and
    /// inactive hops forgotten at most that often, so a flood costs no scan per datagram.
    active: (u64, Instant),
}

/// How often active hops are counted.
const RECOUNT_MICROS: u64 = 100_000;

impl ForwardBudget {
    /// A full budget of `rate` floods a second (0: unlimited).
    pub(crate) fn new(rate: u32) -> ForwardBudget {
        let rate = u64::from(rate);
        let full = Bucket {
            tokens: rate * UNIT,
            at: Instant::ZERO,
        };
        ForwardBudget {
            rate,
            shared: full,
            hops: HashMap::new(),
            overflow: full,
            active: (1, Instant::ZERO),
        }
    }

    fn active(&mut self, now: Instant) -> u64 {
        if micros(now - self.active.1.min(now)) >= RECOUNT_MICROS {
            self.hops
                .retain(|_, b| micros(now - b.at.min(now)) < ACTIVE_FOR_MICROS);
            self.active = ((self.hops.len() as u64).max(1), now);
        }
        self.active.0
    }

    /// Takes one flood for a forward from `hop`; false if the budget (or `hop`'s share of it,
    /// under contention) is spent.
    pub(crate) fn take(&mut self, now: Instant, hop: Peer) -> bool {
        if self.rate == 0 {
            return true;
        }
        let cap = self.rate * UNIT;
        self.shared.top_up(now, self.rate, cap);
        let share = (self.rate / self.active(now)).max(1);
        let hop_cap = share * UNIT;
        let full = Bucket {
            tokens: hop_cap,
            at: now,
        };
        let known = self.hops.contains_key(&hop);
        let bucket = if known || self.hops.len() < MAX_HOPS {
            if !known && !self.hops.is_empty() {
                // A new hop is counted at once, not at the next count: hops that appear together
                // (a flood from many sources) would otherwise each get the share of the first.
                self.active.0 += 1;
            }
            self.hops.entry(hop).or_insert(full)
        } else {
            &mut self.overflow
        };
        bucket.top_up(now, share, hop_cap);
        // A hop's own bucket is its share whatever the shared bucket holds: the shares add up
        // to the whole rate, so the hops that spend theirs in full keep the shared bucket near
        // empty, and a quiet hop that waited for it would never get its share.
        let uncontended = self.shared.tokens > cap / 2;
        if !uncontended && bucket.tokens < UNIT {
            return false;
        }
        bucket.tokens = bucket.tokens.saturating_sub(UNIT);
        self.shared.tokens = self.shared.tokens.saturating_sub(UNIT);
        true
    }
}
