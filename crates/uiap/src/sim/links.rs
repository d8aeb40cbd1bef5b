//! Segments, links and the fault model of the simulator: who hears a transmit, and how each
//! delivery is lost, delayed, reordered or duplicated.

use std::net::Ipv6Addr;
use std::rc::Rc;

use core::time::Duration;

use rand_core::Rng;

use super::Sim;
use super::queue::Work;
use crate::device::Destination;
use crate::wire::{MessageType, Packet};

/// Identifies a segment of a [`Sim`] (a shared link: every multicast on it reaches
/// all other attached members).
///
/// ```
/// # use uiap::sim::SegmentId;
/// assert_eq!(SegmentId(3).0, 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SegmentId(pub usize);

/// Identifies a device (node) of a [`Sim`].
///
/// ```
/// # use uiap::sim::NodeId;
/// assert_eq!(NodeId(0).0, 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub usize);

/// The behaviour of one segment. Each delivery of a datagram to one member is lost with
/// probability `loss`; otherwise it arrives after `delay` plus a uniform `0..=jitter`, and with
/// probability `reorder` a further uniform `0..=reorder_delay` (overtaken by later datagrams);
/// with probability `duplicate` a second copy is delivered, with its own delay.
///
/// ```
/// # use uiap::sim::SegmentParams;
/// # use core::time::Duration;
/// let p = SegmentParams { loss: 0.1, ..SegmentParams::default() };
/// assert_eq!(p.delay, Duration::from_millis(1));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentParams {
    /// Fixed one-way delay (1 ms).
    pub delay: Duration,
    /// Random extra delay, uniform in `0..=jitter` (0).
    pub jitter: Duration,
    /// Probability that one delivery is lost (0).
    pub loss: f64,
    /// Probability that one delivery is duplicated (0).
    pub duplicate: f64,
    /// Probability that one delivery is held back by up to `reorder_delay` (0).
    pub reorder: f64,
    /// The largest hold-back of a reordered delivery (5 ms).
    pub reorder_delay: Duration,
}

impl Default for SegmentParams {
    fn default() -> SegmentParams {
        SegmentParams {
            delay: Duration::from_millis(1),
            jitter: Duration::ZERO,
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Duration::from_millis(5),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Segment {
    pub params: SegmentParams,
    /// (node, interface index on that node)
    pub members: Vec<(NodeId, usize)>,
}

pub(super) fn link_local(node: usize, iface: usize) -> Ipv6Addr {
    let n = node as u64 + 1;
    Ipv6Addr::new(
        0xfe80,
        0,
        0,
        0,
        (n >> 32) as u16,
        (n >> 16) as u16,
        n as u16,
        iface as u16 + 1,
    )
}

impl Sim {
    pub(super) fn route(&mut self, node: NodeId, dest: Destination, payload: Rc<Vec<u8>>) {
        let (iface, unicast) = match dest {
            Destination::Multicast(i) => (i, None),
            Destination::Unicast(p) => (p.interface, Some(p.addr)),
        };
        let Some(idx) = (iface.0 as usize).checked_sub(1) else {
            return;
        };
        let Some(src) = self.nodes[node.0].ifaces.get(idx) else {
            self.stats.unroutable += 1;
            return;
        };
        if !src.up {
            self.stats.unroutable += 1;
            return;
        }
        let (from, seg) = (src.addr, src.segment);
        if unicast.is_none()
            && let Some(f) = &mut self.forwards
        {
            let attempt = Packet::new_checked(&payload[..])
                .ok()
                .filter(|p| p.msg_type_raw() == MessageType::ClaimAttempt.raw())
                .and_then(|p| p.message_id());
            if let Some(id) = attempt
                && id.origin != self.nodes[node.0].device.device_id()
            {
                *f.entry((node, idx, id)).or_insert(0) += 1;
            }
        }
        let members = self.segments[seg.0].members.clone();
        let params = self.segments[seg.0].params.clone();
        let mut reached = false;
        for (m, mi) in members {
            if m == node {
                continue;
            }
            let target = &self.nodes[m.0].ifaces[mi];
            if !target.up || unicast.is_some_and(|a| a != target.addr) {
                continue;
            }
            reached = true;
            self.deliver(&params, m, mi, from, &payload);
        }
        if !reached {
            self.stats.unroutable += 1;
        }
    }

    pub(super) fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < p
    }

    pub(super) fn uniform(&mut self, max: Duration) -> Duration {
        let us = crate::time::micros(max);
        if us == 0 {
            Duration::ZERO
        } else {
            Duration::from_micros(self.rng.next_u64() % (us + 1))
        }
    }

    pub(super) fn deliver(
        &mut self,
        p: &SegmentParams,
        node: NodeId,
        iface: usize,
        from: Ipv6Addr,
        payload: &Rc<Vec<u8>>,
    ) {
        if self.chance(p.loss) {
            self.stats.lost += 1;
            return;
        }
        let copies = if self.chance(p.duplicate) { 2 } else { 1 };
        self.stats.duplicated += copies - 1;
        for _ in 0..copies {
            let mut delay = p.delay + self.uniform(p.jitter);
            if self.chance(p.reorder) {
                delay += self.uniform(p.reorder_delay);
            }
            let at = self.now + delay;
            self.push(
                at,
                Work::Deliver {
                    node,
                    iface,
                    from,
                    payload: Rc::clone(payload),
                },
            );
        }
    }
}
