//! Which unicast datagrams (Claim-Denies) go to the kernel now, which wait here for their
//! neighbour to resolve, and which are not sent (docs/uiap-design.md D79).
//!
//! A Deny to a neighbour the kernel has resolved goes at once. The first Deny to one it has not
//! goes too — it starts neighbour discovery — and the neighbour is then *resolving*: later
//! Denies to it wait here, not in the kernel, until it resolves (they go then, in order) or
//! until neighbour discovery has given up on it ([`RESOLVE_FOR`]; nobody was there to tell). At
//! most [`MAX_RESOLVING`] neighbours resolve at once. So Denies to forged addresses hold at most
//! that many datagrams in the kernel: they never fill the reply socket's send buffer, which
//! would stop the daemon's one loop (neither forwarding nor answering, a silence others take as
//! consent), and they never fill the kernel's neighbour table, which would keep real neighbours
//! from resolving.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use uiap::device::Peer;

/// Neighbours that may be resolving at once: well under the kernel's neighbour table (1,024
/// IPv6 entries by default, `gc_thresh3`), and their first Denies well under a default send
/// buffer (208 KiB).
pub(crate) const MAX_RESOLVING: usize = 64;
/// How long a neighbour may resolve: the kernel's neighbour discovery gives up after three
/// solicitations a second apart; the rest is margin.
pub(crate) const RESOLVE_FOR: Duration = Duration::from_millis(3_500);
/// Denies waiting for one resolving neighbour: more than a burst of one device's claims.
pub(crate) const HELD_PER_NEIGHBOUR: usize = 256;

/// Denies held for a neighbour that is resolving.
#[derive(Debug)]
struct Resolving {
    since: Duration,
    held: Vec<Vec<u8>>,
}

/// The gate: neighbours resolving, the Denies ready to go, and what was not sent.
#[derive(Debug, Default)]
pub(crate) struct UnicastGate {
    resolving: HashMap<Peer, Resolving>,
    ready: VecDeque<(Peer, Vec<u8>)>,
    unsent: u64,
}

impl UnicastGate {
    /// A Deny for `peer` at `now`; `resolved`: whether the kernel has a usable entry for it.
    /// What may go is queued for [`next_ready`](Self::next_ready).
    pub(crate) fn offer(&mut self, now: Duration, peer: Peer, payload: Vec<u8>, resolved: bool) {
        if resolved {
            // Held ones first: they were answers to earlier Attempts.
            if let Some(r) = self.resolving.remove(&peer) {
                self.ready.extend(r.held.into_iter().map(|p| (peer, p)));
            }
            self.ready.push_back((peer, payload));
            return;
        }
        if let Some(r) = self.resolving.get_mut(&peer) {
            if r.held.len() < HELD_PER_NEIGHBOUR {
                r.held.push(payload);
            } else {
                self.unsent += 1;
            }
            return;
        }
        if self.resolving.len() >= MAX_RESOLVING {
            // Full: free the places of neighbours that discovery has given up on.
            self.poll(now, |_| false);
        }
        if self.resolving.len() < MAX_RESOLVING {
            self.resolving.insert(
                peer,
                Resolving {
                    since: now,
                    held: Vec::new(),
                },
            );
            self.ready.push_back((peer, payload));
        } else {
            self.unsent += 1;
        }
    }

    /// At `now`, with `resolved` telling what the kernel has resolved: the held Denies of
    /// neighbours that resolved become ready; those of neighbours that did not in time are
    /// counted unsent.
    pub(crate) fn poll(&mut self, now: Duration, resolved: impl Fn(&Peer) -> bool) {
        let (ready, unsent) = (&mut self.ready, &mut self.unsent);
        self.resolving.retain(|peer, r| {
            if resolved(peer) {
                ready.extend(std::mem::take(&mut r.held).into_iter().map(|p| (*peer, p)));
                false
            } else if now.saturating_sub(r.since) >= RESOLVE_FOR {
                *unsent += r.held.len() as u64;
                false
            } else {
                true
            }
        });
    }

    /// The next Deny to hand to the kernel.
    pub(crate) fn next_ready(&mut self) -> Option<(Peer, Vec<u8>)> {
        self.ready.pop_front()
    }

    /// Whether any neighbour is resolving (the daemon then looks at the kernel's table often).
    pub(crate) fn waiting(&self) -> bool {
        !self.resolving.is_empty()
    }

    /// Denies not sent: their neighbour never resolved, too many were resolving, or too many
    /// waited for one.
    pub(crate) fn unsent(&self) -> u64 {
        self.unsent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv6Addr;
    use uiap::device::InterfaceId;

    fn peer(n: u16) -> Peer {
        Peer {
            interface: InterfaceId(2),
            addr: Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, n),
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn drain(g: &mut UnicastGate) -> Vec<(u16, u8)> {
        std::iter::from_fn(|| g.next_ready())
            .map(|(p, d)| (p.addr.segments()[7], d[0]))
            .collect()
    }

    #[test]
    fn a_resolved_neighbour_gets_every_deny_at_once() {
        let mut g = UnicastGate::default();
        for i in 0..1_000u16 {
            g.offer(ms(0), peer(1), vec![i as u8], true);
        }
        assert_eq!(drain(&mut g).len(), 1_000);
        assert!(!g.waiting());
        assert_eq!(g.unsent(), 0);
    }

    /// The first Deny starts neighbour discovery; the rest wait here and go in order once the
    /// neighbour resolves, and a Deny offered as it resolves goes after them.
    #[test]
    fn denies_to_a_resolving_neighbour_wait_and_go_in_order_when_it_resolves() {
        let mut g = UnicastGate::default();
        g.offer(ms(0), peer(1), vec![0], false);
        g.offer(ms(1), peer(1), vec![1], false);
        g.offer(ms(2), peer(1), vec![2], false);
        assert_eq!(drain(&mut g), [(1, 0)]);
        assert!(g.waiting());
        g.poll(ms(10), |_| false);
        assert_eq!(drain(&mut g), []);
        g.poll(ms(20), |p| *p == peer(1));
        assert_eq!(drain(&mut g), [(1, 1), (1, 2)]);
        assert!(!g.waiting());

        g.offer(ms(30), peer(2), vec![0], false);
        g.offer(ms(31), peer(2), vec![1], false);
        g.offer(ms(32), peer(2), vec![2], true);
        assert_eq!(drain(&mut g), [(2, 0), (2, 1), (2, 2)]);
        assert_eq!(g.unsent(), 0);
    }

    /// Addresses nobody answers for: at most `MAX_RESOLVING` at once, each holding one datagram
    /// in the kernel; their held Denies are counted unsent when neighbour discovery gives up,
    /// and their places are free again.
    #[test]
    fn unanswered_addresses_take_a_bounded_number_of_places_and_free_them() {
        let mut g = UnicastGate::default();
        for n in 0..1_000u16 {
            for _ in 0..3 {
                g.offer(ms(1), peer(n), vec![0], false);
            }
        }
        assert_eq!(drain(&mut g).len(), MAX_RESOLVING);
        let held = 2 * MAX_RESOLVING as u64;
        let refused = 3 * (1_000 - MAX_RESOLVING as u64);
        assert_eq!(g.unsent(), refused);
        g.poll(ms(1) + RESOLVE_FOR, |_| false);
        assert!(!g.waiting());
        assert_eq!(g.unsent(), refused + held);
        // A real neighbour now gets a place.
        g.offer(ms(1) + RESOLVE_FOR, peer(5_000), vec![7], false);
        assert_eq!(drain(&mut g), [(5_000, 7)]);
    }

    #[test]
    fn a_resolving_neighbour_holds_a_bounded_number_of_denies() {
        let mut g = UnicastGate::default();
        for _ in 0..HELD_PER_NEIGHBOUR + 11 {
            g.offer(ms(0), peer(1), vec![0], false);
        }
        assert_eq!(g.unsent(), 10);
        g.poll(ms(5), |_| true);
        assert_eq!(drain(&mut g).len(), HELD_PER_NEIGHBOUR + 1);
    }
}
