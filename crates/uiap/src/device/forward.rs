//! Receiving a Claim-Attempt (§2.4.2, §2.4.3, §2.4.6, §4.2.2, docs/uiap-design.md D13, D15, D16):
//! duplicate suppression, deny or forward, simultaneous claims, proxy defense and own traffic.

use rand_core::Rng;

use super::seen::{Record, TableFull};
use super::{Destination, Device, DropReason, Event, FailureReason, Peer, Transmit};
use crate::space::conflicts;
use crate::time::Instant;
use crate::wire::{DeviceId, MessageId, MessageType, Packet, Repr};

/// A copy of the received message with `edit` applied through [`Packet`]'s setters. Forwarders
/// and deniers pass every other octet on unchanged, reserved bits included
/// (docs/uiap-design.md D3).
pub(crate) fn rewritten(
    received: &Packet<&[u8]>,
    edit: impl FnOnce(&mut Packet<Vec<u8>>),
) -> Vec<u8> {
    // `received` parsed, so its length is checked; the copy has the same length.
    let mut copy = Packet::new_unchecked(received.as_ref().to_vec());
    edit(&mut copy);
    copy.into_inner()
}

impl<R: Rng> Device<R> {
    pub(crate) fn on_attempt(
        &mut self,
        now: Instant,
        from: Peer,
        packet: &Packet<&[u8]>,
        repr: Repr,
    ) {
        self.counters.attempts_received += 1;
        let id = repr.message_id();
        if self.is_own(repr.origin) {
            if self.own.contains(repr.origin, repr.sequence) {
                // Our own flood came back (multicast loopback or a loop).
                self.counters.drop(DropReason::OwnLoop);
                return;
            }
            if self.table.get_mut(now, &id).is_none() {
                // Someone else uses our device ID (§9, docs/uiap-design.md D15).
                self.on_id_collision(now, repr.origin, repr.sequence);
            }
        }
        // An Attempt that cannot be recorded (the table is full of records that may still route
        // a Deny back, and its sender holds the most of them) is still denied if we hold a
        // conflicting claim, but not forwarded (docs/uiap-design.md D44): it is answered with a
        // Deny all the same (D69).
        let Some(recorded) = self.remember(now, from, &repr, false) else {
            return;
        };

        // Our own claims first (§4.2.2.1, §2.4.6).
        let (deny, failed) = self.own_claims_against(&repr, id);
        for (claim, reason) in failed {
            self.fail_claim(now, claim, reason);
        }
        let proxy_deny = !deny
            && self
                .proxies
                .defends_against(now, repr.origin, &repr.domain, &repr.space)
                .is_some();
        if deny || proxy_deny {
            self.send_deny(now, from, packet, &id);
            if proxy_deny {
                self.counters.proxy_denies += 1;
            }
            return;
        }
        if !recorded {
            // Not forwarded: answered, so that the claim fails rather than succeeds on the
            // silence of a drop (docs/uiap-design.md D69).
            self.counters.drop(DropReason::TableFull);
            self.deny_dropped(now, from, packet, &id);
            return;
        }
        if self.config.proxy_defense && repr.proxy && repr.reclaim {
            self.record_proxy(now, &repr);
        }
        self.forward_attempt(now, from, packet, &id, repr.hop_limit);
    }

    /// What our own claims make of a received Attempt: whether one of them makes us deny it, and
    /// the claims it makes fail (§4.2.2.1, §2.4.6).
    fn own_claims_against(
        &self,
        repr: &Repr,
        id: MessageId,
    ) -> (bool, Vec<(super::ClaimId, FailureReason)>) {
        let mut deny = false;
        let mut failed = Vec::new();
        for claim in self.claims.values() {
            if !conflicts(&claim.domain, &claim.space, &repr.domain, &repr.space) {
                continue;
            }
            // A claim whose first attempt has not gone out (start delay, or rate limited) has
            // told nobody yet: it neither denies nor loses (docs/uiap-design.md D46).
            if !claim.held && claim.round.as_ref().is_some_and(|r| r.sent == 0) {
                continue;
            }
            match &claim.round {
                // Held and quiet: defend it.
                None => deny = true,
                // We are reclaiming: deny; both reclaiming: both fail.
                Some(r) if r.reclaim => {
                    deny = true;
                    if repr.reclaim {
                        failed.push((claim.id, FailureReason::Simultaneous { message: id }));
                    }
                }
                // We are making a new claim: a reclaim wins (forward it), a new claim ties (deny).
                Some(_) => {
                    if repr.reclaim {
                        failed.push((claim.id, FailureReason::Reclaimed { message: id }));
                    } else {
                        deny = true;
                        failed.push((claim.id, FailureReason::Simultaneous { message: id }));
                    }
                }
            }
        }
        (deny, failed)
    }

    /// Takes an X+R claim into the proxy table, within the caps of docs/uiap-design.md D43.
    fn record_proxy(&mut self, now: Instant, repr: &Repr) {
        use super::proxy::Recorded;
        if !repr
            .space
            .shares_leading_bits(self.config.proxy_min_prefix_bits)
        {
            self.counters.proxy_refused_wide += 1;
            return;
        }
        match self
            .proxies
            .record(now, repr.origin, &repr.domain, &repr.space, repr.lifetime)
        {
            Recorded::New => self.counters.proxies_recorded += 1,
            Recorded::Full => self.counters.proxy_table_full += 1,
            Recorded::Share => self.counters.proxy_refused_share += 1,
            Recorded::Refreshed | Recorded::NotKept => {}
        }
        self.counters.peak_proxy_table = self.counters.peak_proxy_table.max(self.proxies.len());
    }

    fn forward_attempt(
        &mut self,
        now: Instant,
        from: Peer,
        packet: &Packet<&[u8]>,
        id: &MessageId,
        hop_limit: u8,
    ) {
        let h = hop_limit.min(self.config.hop_limit);
        if h == 0 {
            self.counters.hop_limit_exhausted += 1;
            return;
        }
        if self.interfaces.iter().any(|&i| i != from.interface)
            && !self.forward_budget.take(now, from)
        {
            // Not forwarded: answered, so that the claim fails rather than succeeds on the
            // silence of a drop (docs/uiap-design.md D69).
            self.counters.drop(DropReason::ForwardLimited);
            self.deny_dropped(now, from, packet, id);
            return;
        }
        self.counters.attempts_forwarded += self.pass_on(from, packet, h);
    }

    /// Remembers a flood of another device (an Attempt, or a Loss-Notice) by its message ID, as
    /// first heard from `from`; `answered` marks it as one no Deny may answer. `None` for a copy
    /// already remembered (refreshed, and counted as a duplicate); otherwise whether it could be
    /// recorded (not when the table is full of young records, docs/uiap-design.md D44).
    pub(crate) fn remember(
        &mut self,
        now: Instant,
        from: Peer,
        repr: &Repr,
        answered: bool,
    ) -> Option<bool> {
        let id = repr.message_id();
        if self.table.get_mut(now, &id).is_some() {
            self.table.refresh(now, &id);
            self.counters.drop(DropReason::Duplicate);
            return None;
        }
        let record = Record {
            first_interface: from.interface,
            previous_hop: from.addr,
            expires: now,
            deny_sent: answered,
            domain: repr.domain,
            space: repr.space.clone(),
        };
        let recorded = match self.table.insert(now, id, record) {
            Ok(evicted) => {
                self.counters.table_evictions += evicted;
                true
            }
            Err(TableFull) => false,
        };
        self.counters.peak_message_table = self.counters.peak_message_table.max(self.table.len());
        Some(recorded)
    }

    /// Passes a flood on out every interface but the one it came in on, with hop limit `h − 1`
    /// and every other octet as received (docs/uiap-design.md D3); how many datagrams.
    pub(crate) fn pass_on(&mut self, from: Peer, packet: &Packet<&[u8]>, h: u8) -> u64 {
        let payload = rewritten(packet, |p| p.set_hop_limit(h - 1));
        let mut sent = 0;
        for &iface in &self.interfaces {
            if iface == from.interface {
                continue;
            }
            sent += 1;
            self.transmits.push_back(Transmit {
                destination: Destination::Multicast(iface),
                payload: payload.clone(),
            });
        }
        sent
    }

    /// Answers an Attempt this device could not pass on (its forwarding budget spent, or its
    /// message table full) with a Claim-Deny: devices beyond it never heard the claim, so its
    /// silence must not be taken as consent (docs/uiap-design.md D69). Counted in
    /// [`Counters::denies_for_drops`](super::Counters::denies_for_drops), not in `denies_sent`.
    fn deny_dropped(&mut self, now: Instant, from: Peer, packet: &Packet<&[u8]>, id: &MessageId) {
        if self.push_deny(now, from, packet, id) {
            self.counters.denies_for_drops += 1;
        }
    }

    /// Sends a Claim-Deny for the Attempt `packet` just received from `from` (§2.4.5, §4.3).
    fn send_deny(&mut self, now: Instant, from: Peer, packet: &Packet<&[u8]>, id: &MessageId) {
        if self.push_deny(now, from, packet, id) {
            self.counters.denies_sent += 1;
        }
    }

    /// Queues a Claim-Deny for `packet` to `from`: the Attempt's octets with type 1 and a fresh
    /// hop limit; false if one was already sent for it.
    fn push_deny(
        &mut self,
        now: Instant,
        from: Peer,
        packet: &Packet<&[u8]>,
        id: &MessageId,
    ) -> bool {
        // Without a record (the table was full) the Deny is still sent: the claimant needs it.
        if let Some(record) = self.table.get_mut(now, id) {
            if record.deny_sent {
                return false;
            }
            record.deny_sent = true;
        }
        let hop_limit = self.config.hop_limit;
        let payload = rewritten(packet, |p| {
            p.set_msg_type(MessageType::ClaimDeny);
            p.set_hop_limit(hop_limit);
        });
        self.transmits.push_back(Transmit {
            destination: Destination::Unicast(from),
            payload,
        });
        true
    }

    /// Whether `origin` is one of ours: the current ID, a recently retired one, or the ID a live
    /// claim still announces itself with (docs/uiap-design.md D40).
    pub(crate) fn is_own(&self, origin: DeviceId) -> bool {
        origin == self.device_id
            || self.retired_ids.contains(&origin)
            || self.claims.values().any(|c| c.origin == origin)
    }

    fn on_id_collision(&mut self, now: Instant, origin: DeviceId, sequence: u32) {
        self.counters.device_id_collisions += 1;
        // Move our sequence numbers far from the other device's (§9).
        let spread = self.rng.next_u32() >> 2;
        self.next_sequence = sequence.wrapping_add(1 << 31).wrapping_add(spread >> 1);
        // At most one new ID per conflict window: forged collisions cannot make the device churn
        // through IDs (and a daemon through writes of them) (docs/uiap-design.md D47).
        let may_change = self
            .last_id_change
            .is_none_or(|t| now - t >= self.config.conflict_window);
        let new_device_id =
            if self.config.random_device_id && origin == self.device_id && may_change {
                self.last_id_change = Some(now);
                let mut fresh = None;
                for _ in 0..8 {
                    if let Some(d) = DeviceId::new(self.rng.next_u64()) {
                        fresh = Some(d);
                        break;
                    }
                }
                if let Some(d) = fresh {
                    self.retired_ids.push(self.device_id);
                    if self.retired_ids.len() > 4 {
                        self.retired_ids.remove(0);
                    }
                    self.device_id = d;
                }
                fresh
            } else {
                None
            };
        self.events.push_back(Event::DeviceIdCollision {
            sequence,
            new_device_id,
        });
    }
}
