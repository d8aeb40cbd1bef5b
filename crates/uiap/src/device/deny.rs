//! Receiving a Claim-Deny (§2.4.4, §4.3.2, docs/uiap-design.md D14): fail our claim, forward it one
//! hop back along the reverse path, or drop it.

use rand_core::Rng;

use super::forward::rewritten;
use super::{Destination, Device, DropReason, Event, FailureReason, Peer, Transmit};
use crate::time::Instant;
use crate::wire::{Packet, Repr};

impl<R: Rng> Device<R> {
    pub(crate) fn on_deny(&mut self, now: Instant, packet: &Packet<&[u8]>, repr: Repr) {
        self.counters.denies_received += 1;
        let id = repr.message_id();
        if self.is_own(repr.origin) {
            let Some(own) = self
                .own
                .get_mut(repr.sequence)
                .filter(|o| o.origin == repr.origin)
            else {
                self.counters.drop(DropReason::UnknownDeny);
                return;
            };
            if own.domain != repr.domain || own.space != repr.space {
                self.counters.drop(DropReason::DenyMismatch);
                return;
            }
            if own.denied {
                self.counters.drop(DropReason::SecondDeny);
                return;
            }
            own.denied = true;
            let (claim, round) = (own.claim, own.round);
            let live = self
                .claims
                .get(&claim)
                .is_some_and(|c| c.round.as_ref().is_some_and(|r| r.number == round));
            if live {
                self.fail_claim(now, claim, FailureReason::Denied { message: id });
            } else {
                self.counters.drop(DropReason::LateDeny);
                self.counters.late_conflicts += 1;
                let claim = self.claims.contains_key(&claim).then_some(claim);
                self.events
                    .push_back(Event::LateConflict { claim, message: id });
            }
            return;
        }
        let Some(record) = self.table.get_mut(now, &id) else {
            self.counters.drop(DropReason::UnknownDeny);
            return;
        };
        if record.domain != repr.domain || record.space != repr.space {
            self.counters.drop(DropReason::DenyMismatch);
            return;
        }
        if record.deny_sent {
            self.counters.drop(DropReason::SecondDeny);
            return;
        }
        let h = repr.hop_limit.min(self.config.hop_limit);
        if h == 0 {
            self.counters.drop(DropReason::DenyHopLimit);
            return;
        }
        if !self.interfaces.contains(&record.first_interface) {
            self.counters.drop(DropReason::DenyInterfaceGone);
            return;
        }
        record.deny_sent = true;
        let to = Peer {
            interface: record.first_interface,
            addr: record.previous_hop,
        };
        // A proxied claim whose reclaim is denied is not worth defending.
        self.proxies.forget(repr.origin, &repr.domain, &repr.space);
        let payload = rewritten(packet, |p| p.set_hop_limit(h - 1));
        self.counters.denies_forwarded += 1;
        self.transmits.push_back(Transmit {
            destination: Destination::Unicast(to),
            payload,
        });
    }
}
