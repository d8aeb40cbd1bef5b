//! The daemon's side of the link: what every datagram must pass on its way in before the
//! protocol core sees it, the seal on everything going out, and the counts `status` reports.
//!
//! On the way in, in order: the source checks of docs/uiap-design.md D21 ([`source`]), the
//! per-neighbour rate limit (D45, [`limiter`]), the PSK trailer when a key is configured (D41,
//! [`psk`]), and the port and destination the message type belongs to (D42, [`port`]). Each
//! refusal is counted by reason. On the way out, the PSK seal; the seals sent are remembered so
//! that our own datagrams coming back are replays.

mod limiter;
mod port;
mod psk;
mod source;

pub(crate) use source::SourceDrop;

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv6Addr;
use std::time::Duration;

use tracing::{debug, warn};
use uiap::device::{InterfaceId, Peer};
use uiap::wire::MAX_MESSAGE_LEN;

use crate::socket::{Received, Role, Sockets};
use limiter::RateLimiter;
pub(crate) use limiter::{MAX_NEIGHBOURS, NEIGHBOUR_BURST, NEIGHBOUR_RATE};

/// The ingress checks and the egress seal, with their counts.
pub(crate) struct Link {
    group: Ipv6Addr,
    psk: Option<Vec<u8>>,
    /// PSK trailers: sealing, and the tags seen within the replay window.
    sealer: psk::Sealer,
    /// Per-neighbour rate limits, one set per socket (claim, reply), applied before anything is
    /// parsed (docs/uiap-design.md D45): a neighbour's Attempts never use up its Denies' budget.
    limits: [RateLimiter; 2],
    drops: BTreeMap<SourceDrop, u64>,
    send_errors: u64,
    /// The receive buffers the kernel granted (claim, reply).
    receive_buffers: (usize, usize),
    /// Datagrams the kernel dropped for want of buffer space (claim, reply).
    kernel_drops: (u32, u32),
}

/// What [`Link`] counted, for `status`.
pub(crate) struct LinkCounts<'a> {
    /// Datagrams dropped before the protocol core, by reason.
    pub drops: &'a BTreeMap<SourceDrop, u64>,
    /// Datagrams that could not be sent.
    pub send_errors: u64,
    /// The receive buffers the kernel granted (claim, reply), in bytes.
    pub receive_buffers: (usize, usize),
    /// Datagrams the kernel dropped for want of buffer space (claim, reply).
    pub kernel_drops: (u32, u32),
}

impl Link {
    /// The link of a daemon on `group` that seals with `psk` (if any), receiving on buffers of
    /// `receive_buffers` bytes (claim, reply).
    pub(crate) fn new(
        group: Ipv6Addr,
        psk: Option<Vec<u8>>,
        receive_buffers: (usize, usize),
    ) -> Link {
        Link {
            group,
            psk,
            sealer: psk::Sealer::default(),
            limits: [Role::Claim, Role::Reply]
                .map(|_| RateLimiter::new(NEIGHBOUR_RATE, NEIGHBOUR_BURST, MAX_NEIGHBOURS)),
            drops: BTreeMap::new(),
            send_errors: 0,
            receive_buffers,
            kernel_drops: (0, 0),
        }
    }

    fn count(&mut self, reason: SourceDrop) {
        *self.drops.entry(reason).or_insert(0) += 1;
    }

    /// Notes how many datagrams the kernel dropped so far (`SO_RXQ_OVFL`).
    pub(crate) fn note_overflows(&mut self, sockets: &Sockets) {
        self.kernel_drops = (
            sockets.overflowed(Role::Claim),
            sockets.overflowed(Role::Reply),
        );
    }

    /// A datagram received into `buf` (or the receive error) at `now` on the daemon's clock,
    /// checked as the module docs say: the peer and the message for the protocol core, or
    /// `None` when it is dropped (and counted). `known` are the participating interfaces.
    pub(crate) fn admit<'a>(
        &mut self,
        received: std::io::Result<Received>,
        buf: &'a [u8],
        known: &BTreeSet<u32>,
        now: Duration,
    ) -> Option<(Peer, &'a [u8])> {
        let r = match received {
            Ok(r) => r,
            Err(e) => {
                warn!(error = %e, "recvmsg failed");
                self.count(SourceDrop::RecvError);
                return None;
            }
        };
        let trailer = if self.psk.is_some() {
            psk::TRAILER_LEN
        } else {
            0
        };
        let (index, addr) = match source::check_source(&r, MAX_MESSAGE_LEN + trailer, known) {
            Ok(v) => v,
            Err(reason) => {
                debug!(source = %r.source, role = r.role.as_str(), reason = reason.as_str(), "dropped");
                self.count(reason);
                return None;
            }
        };
        if !self.limits[r.role as usize].allow(now, (index, addr)) {
            self.count(SourceDrop::RateLimited);
            return None;
        }
        let mut bytes = &buf[..r.len.min(buf.len())];
        if let Some(key) = &self.psk {
            match self.sealer.open(key, bytes, psk::wall_clock_ms()) {
                Ok(m) => bytes = m,
                Err(refused) => {
                    self.count(SourceDrop::from(refused));
                    return None;
                }
            }
        }
        if let Err(reason) = port::check_port(&r, self.group, bytes) {
            debug!(source = %r.source, role = r.role.as_str(), reason = reason.as_str(), "dropped");
            self.count(reason);
            return None;
        }
        let peer = Peer {
            interface: InterfaceId(index),
            addr,
        };
        Some((peer, bytes))
    }

    /// `payload` as it goes on the wire: sealed when a key is configured.
    pub(crate) fn seal(&mut self, payload: Vec<u8>) -> Vec<u8> {
        match &self.psk {
            Some(key) => self.sealer.seal(key, &payload, psk::wall_clock_ms()),
            None => payload,
        }
    }

    /// Counts a datagram that could not be sent.
    pub(crate) fn send_failed(&mut self) {
        self.send_errors += 1;
    }

    /// What was counted.
    pub(crate) fn counts(&self) -> LinkCounts<'_> {
        LinkCounts {
            drops: &self.drops,
            send_errors: self.send_errors,
            receive_buffers: self.receive_buffers,
            kernel_drops: self.kernel_drops,
        }
    }
}

#[cfg(test)]
mod tests;
