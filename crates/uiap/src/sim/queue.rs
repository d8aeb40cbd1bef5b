//! The event queue of the simulator, and what each queued event does: deliveries to a device,
//! device timers, and scheduled actions (claims, releases, links and nodes going down and up).

use std::collections::BinaryHeap;
use std::net::Ipv6Addr;
use std::rc::Rc;

use core::cmp::{Ordering, Reverse};

use super::record::{Timed, hex};
use super::{ClaimRef, NodeId, Outcome, Sim};
use crate::device::{InterfaceId, Peer};
use crate::time::Instant;

/// A scheduled change to the site, from the public `*_at` methods of [`Sim`].
#[derive(Clone, Debug)]
pub(super) enum Action {
    Claim(ClaimRef),
    Release(ClaimRef),
    Renew(ClaimRef),
    Link {
        node: NodeId,
        iface: usize,
        up: bool,
    },
    Node {
        node: NodeId,
        up: bool,
    },
}

/// What one queue entry does when its time comes.
#[derive(Clone, Debug)]
pub(super) enum Work {
    Deliver {
        node: NodeId,
        iface: usize,
        from: Ipv6Addr,
        payload: Rc<Vec<u8>>,
    },
    Timer(NodeId),
    Action(Action),
}

/// A queue entry: ordered by time, then by the order it was scheduled in.
#[derive(Debug)]
struct Queued {
    at: Instant,
    seq: u64,
    work: Work,
}

impl PartialEq for Queued {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Queued {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

/// The most entries the queue holds at once: about 64 bytes each (a delivery shares its
/// payload with the others of its transmit), so at most about 256 MiB (docs/uiap-design.md D78).
/// A run that needs more stops where the queue filled ([`SimStats::stopped_full`]).
///
/// ```
/// # use uiap::{config::Config, sim::*, time::Instant};
/// let mut sim = Sim::new(1, Config::default());
/// sim.run_until(Instant::from_secs(1));
/// assert_eq!(sim.stats().stopped_full, None);
/// assert!(sim.stats().peak_queued <= MAX_QUEUED as u64);
/// ```
///
/// [`SimStats::stopped_full`]: super::SimStats::stopped_full
pub const MAX_QUEUED: usize = 4_000_000;

/// Pending work in time order; work scheduled for the same instant runs in the order it was
/// scheduled, which keeps a run reproducible.
#[derive(Debug, Default)]
pub(super) struct EventQueue {
    heap: BinaryHeap<Reverse<Queued>>,
    seq: u64,
    /// The most entries held at once.
    peak: usize,
    /// Work was refused for want of room: the run cannot go on faithfully.
    full: bool,
}

impl EventQueue {
    /// Queues `work` at `at`; refused, and the queue marked full, when [`MAX_QUEUED`] entries
    /// are waiting.
    pub(super) fn push(&mut self, at: Instant, work: Work) {
        if self.heap.len() >= MAX_QUEUED {
            self.full = true;
            return;
        }
        self.seq += 1;
        self.heap.push(Reverse(Queued {
            at,
            seq: self.seq,
            work,
        }));
        self.peak = self.peak.max(self.heap.len());
    }

    /// The most entries held at once so far.
    pub(super) fn peak(&self) -> usize {
        self.peak
    }

    /// Whether work was refused for want of room.
    pub(super) fn full(&self) -> bool {
        self.full
    }

    /// Removes and returns the earliest work if it is due at or before `end`.
    pub(super) fn pop_until(&mut self, end: Instant) -> Option<(Instant, Work)> {
        if self.full || self.heap.peek().is_none_or(|Reverse(q)| q.at > end) {
            return None;
        }
        self.heap.pop().map(|Reverse(q)| (q.at, q.work))
    }

    pub(super) fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

impl Sim {
    pub(super) fn node_up(&self, node: NodeId) -> bool {
        self.nodes[node.0].ifaces.iter().any(|i| i.up) || self.nodes[node.0].ifaces.is_empty()
    }

    pub(super) fn step(&mut self, work: Work) {
        let now = self.now;
        match work {
            Work::Deliver {
                node,
                iface,
                from,
                payload,
            } => {
                let n = &mut self.nodes[node.0];
                if !n.ifaces[iface].up {
                    self.stats.unroutable += 1;
                    return;
                }
                self.stats.delivered += 1;
                let peer = Peer {
                    interface: InterfaceId(iface as u32 + 1),
                    addr: from,
                };
                n.device.handle_datagram(now, peer, &payload);
                self.log(|| {
                    format!(
                        "{now} {} rx if{} from {from} {}",
                        self.nodes[node.0].name,
                        iface + 1,
                        hex(&payload)
                    )
                });
                self.service(node);
            }
            Work::Timer(node) => {
                if self.nodes[node.0].timer != Some(now) {
                    return;
                }
                self.nodes[node.0].timer = None;
                self.nodes[node.0].device.handle_timeout(now);
                self.service(node);
            }
            Work::Action(a) => self.act(a),
        }
    }

    pub(super) fn act(&mut self, action: Action) {
        let now = self.now;
        match action {
            Action::Claim(r) => {
                let (node, spec) = (self.claims[r.0].node, self.claims[r.0].spec.clone());
                let dev = &mut self.nodes[node.0].device;
                match dev.claim(now, spec) {
                    Ok(id) => {
                        self.claims[r.0].id = Some(id);
                        self.nodes[node.0].claims.insert(id, r);
                    }
                    Err(e) => {
                        self.claims[r.0].outcome = Some(Timed {
                            at: now,
                            kind: Outcome::Rejected(e.kind()),
                        })
                    }
                }
                self.log(|| {
                    format!(
                        "{now} {} claim #{} {:?}",
                        self.nodes[node.0].name, r.0, self.claims[r.0].outcome
                    )
                });
                self.service(node);
            }
            Action::Release(r) => {
                let node = self.claims[r.0].node;
                if let Some(id) = self.claims[r.0].id {
                    let _ = self.nodes[node.0].device.release(id);
                }
                self.log(|| format!("{now} {} release #{}", self.nodes[node.0].name, r.0));
                self.service(node);
            }
            Action::Renew(r) => {
                let node = self.claims[r.0].node;
                if let Some(id) = self.claims[r.0].id {
                    let _ = self.nodes[node.0].device.renew(now, id);
                }
                self.log(|| format!("{now} {} renew #{}", self.nodes[node.0].name, r.0));
                self.service(node);
            }
            Action::Link { node, iface, up } => {
                if let Some(i) = self
                    .nodes
                    .get_mut(node.0)
                    .and_then(|n| n.ifaces.get_mut(iface))
                {
                    i.up = up;
                }
                self.log(|| {
                    format!(
                        "{now} {} link if{} {}",
                        self.nodes[node.0].name,
                        iface + 1,
                        if up { "up" } else { "down" }
                    )
                });
            }
            Action::Node { node, up } => {
                let was_up = self.node_up(node);
                for i in &mut self.nodes[node.0].ifaces {
                    i.up = up;
                }
                if up && !was_up {
                    // Catch up on timers missed while away.
                    self.nodes[node.0].device.handle_timeout(now);
                    self.service(node);
                } else if !up {
                    self.nodes[node.0].timer = None;
                }
                self.log(|| {
                    format!(
                        "{now} {} {}",
                        self.nodes[node.0].name,
                        if up { "joins" } else { "leaves" }
                    )
                });
            }
        }
    }

    /// Drains a node's transmits and events and re-arms its timer.
    pub(super) fn service(&mut self, node: NodeId) {
        let now = self.now;
        while let Some(t) = self.nodes[node.0].device.poll_transmit() {
            self.log(|| {
                format!(
                    "{now} {} tx {:?} {}",
                    self.nodes[node.0].name,
                    t.destination,
                    hex(&t.payload)
                )
            });
            self.route(node, t.destination, Rc::new(t.payload));
        }
        while let Some(e) = self.nodes[node.0].device.poll_event() {
            self.log(|| format!("{now} {} event {e:?}", self.nodes[node.0].name));
            self.record_event(node, e);
        }
        let up = self.node_up(node);
        let n = &mut self.nodes[node.0];
        let next = if up { n.device.poll_timeout() } else { None };
        if next != n.timer {
            n.timer = next;
            if let Some(t) = next {
                self.push(t.max(now), Work::Timer(node));
                // A timer in the past fires now; keep the recorded time equal to the queued one.
                self.nodes[node.0].timer = Some(t.max(now));
            }
        }
    }
}
