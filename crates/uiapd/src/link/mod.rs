//! The daemon's side of the link: what every datagram must pass on its way in before the
//! protocol core sees it, the seal on everything going out, and the counts `status` reports.
//!
//! On the way in, in order: the source checks of docs/uiap-design.md D21 ([`source`]), the
//! PSK trailer when a key is configured (D41, [`psk`]) within a budget of failures shared by
//! every source (D58), the per-neighbour rate limit (D45, [`limiter`]), and the port and
//! destination the message type belongs to (D42, [`port`]). Each
//! refusal is counted by reason, and the rate limit's drops are logged per neighbour (D64). On the way out, the PSK seal; the seals sent are remembered so
//! that our own datagrams coming back are replays.

mod clocks;
mod failures;
mod journal;
mod limiter;
mod port;
mod psk;
mod reported;
mod source;
mod split;
mod step;

pub(crate) use clocks::{Ahead, Clocks};
pub(crate) use failures::{AuthFailureLog, LOOKBACK};
pub(crate) use reported::{Notice, ReportedLosses};
pub(crate) use source::SourceDrop;
pub(crate) use split::Splits;
pub(crate) use step::Step;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::Ipv6Addr;
use std::time::Duration;

use tracing::{debug, warn};
use uiap::device::{InterfaceId, Peer};
use uiap::wire::MAX_MESSAGE_LEN;

use crate::socket::{Received, Role, Sockets};
use limiter::RateLimiter;
pub(crate) use limiter::{MAX_NEIGHBOURS, NEIGHBOUR_BURST, NEIGHBOUR_RATE};

/// Datagrams a second that may fail authentication, all sources together: far above what
/// honest neighbours send, and a small part of a core's worth of HMAC work
/// (docs/uiap-design.md D58).
pub(crate) const UNAUTHENTICATED_RATE: u32 = 50_000;
/// How many may fail at once.
pub(crate) const UNAUTHENTICATED_BURST: u32 = 100_000;
/// A neighbour that authenticated this recently is verified whatever the budget of failures.
const AUTHENTICATED_FOR: Duration = Duration::from_secs(3600);

/// The ingress checks and the egress seal, with their counts.
pub(crate) struct Link {
    group: Ipv6Addr,
    psk: Option<Vec<u8>>,
    /// PSK trailers: sealing, and the tags seen within the replay window.
    sealer: psk::Sealer,
    /// Per-neighbour rate limits, one set per socket (claim, reply), applied before anything is
    /// parsed (docs/uiap-design.md D45): a neighbour's Attempts never use up its Denies' budget.
    limits: [RateLimiter; 2],
    /// With a key: the budget of datagrams that fail authentication, all sources together
    /// (docs/uiap-design.md D58).
    unauthenticated: RateLimiter,
    /// With a key: when each neighbour last authenticated.
    authenticated: HashMap<(u32, Ipv6Addr), Duration>,
    /// With a key: who failed authentication, and why (docs/uiap-design.md D62).
    failures: AuthFailureLog,
    /// Whose datagrams the rate limit dropped (docs/uiap-design.md D64).
    suppressed: AuthFailureLog,
    /// Datagrams the kernel dropped at a full receive queue (docs/uiap-design.md D70).
    overflowed: AuthFailureLog,
    /// Claim-Denies not sent, their neighbours unresolved (docs/uiap-design.md D79), and how
    /// many of the gate's count were recorded.
    unsent: (AuthFailureLog, u64),
    /// Possible losses not yet told to the site in a Loss-Notice: how many datagrams, and since
    /// when (docs/uiap-design.md D80).
    unreported: Option<(u64, Duration)>,
    /// When the kernel's drop counts were last noted, and last asked of the kernel.
    overflows_read: (Duration, Duration),
    /// Losses other devices reported in Loss-Notices (docs/uiap-design.md D80).
    reported: ReportedLosses,
    /// With a key: neighbours whose authenticated datagrams are stale (docs/uiap-design.md D71).
    splits: Splits,
    /// With a key: how far ahead each neighbour's clock is (docs/uiap-design.md D72).
    clocks: Clocks,
    /// This host's wall clock against its boot clock (docs/uiap-design.md D76).
    steps: step::StepWatch,
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
            // No bucket of its own for anyone: every source shares the one budget.
            unauthenticated: RateLimiter::new(UNAUTHENTICATED_RATE, UNAUTHENTICATED_BURST, 0),
            authenticated: HashMap::new(),
            failures: AuthFailureLog::new(),
            suppressed: AuthFailureLog::rate_limited(),
            overflowed: AuthFailureLog::kernel_overflow(),
            unsent: (AuthFailureLog::denies_unsent(), 0),
            unreported: None,
            overflows_read: (Duration::ZERO, Duration::ZERO),
            reported: ReportedLosses::default(),
            splits: Splits::default(),
            clocks: Clocks::default(),
            steps: step::StepWatch::default(),
            drops: BTreeMap::new(),
            send_errors: 0,
            receive_buffers,
            kernel_drops: (0, 0),
        }
    }

    /// With a key, keeps the tags of the datagrams sent and accepted in `dir` across restarts,
    /// and starts with those kept there (docs/uiap-design.md D71). Without a key, nothing.
    ///
    /// # Errors
    ///
    /// The journal cannot be read or written.
    pub(crate) fn journal_in(&mut self, dir: &std::path::Path) -> std::io::Result<()> {
        if self.psk.is_some() {
            self.sealer = psk::Sealer::journaled(dir, psk::wall_clock_ms())?;
        }
        Ok(())
    }

    fn count(&mut self, reason: SourceDrop) {
        *self.drops.entry(reason).or_insert(0) += 1;
    }

    /// `lost` datagrams may have been lost since `since`: kept for the next Loss-Notice.
    fn lost(&mut self, lost: u64, since: Duration) {
        if lost == 0 {
            return;
        }
        let (n, from) = self.unreported.get_or_insert((0, since));
        *n = n.saturating_add(lost);
        *from = (*from).min(since);
    }

    /// The possible losses not yet told to the site, and since when; taken, so that each is
    /// told once (docs/uiap-design.md D80).
    pub(crate) fn take_unreported(&mut self) -> Option<(u64, Duration)> {
        self.unreported.take()
    }

    /// When the kernel's drop counts were last asked of it.
    pub(crate) fn overflows_asked(&self) -> Duration {
        self.overflows_read.1
    }

    /// Notes how many datagrams the kernel dropped so far at `now`: asked of the kernel when
    /// `ask` (a system call per socket), else as last reported with a datagram (free). Whether
    /// any were dropped since the last note.
    pub(crate) fn note_overflows(&mut self, sockets: &Sockets, now: Duration, ask: bool) -> bool {
        if ask {
            self.overflows_read.1 = now;
        }
        let count = |role| {
            if ask {
                sockets.drops_now(role)
            } else {
                sockets.overflowed(role)
            }
        };
        self.note_overflow_counts((count(Role::Claim), count(Role::Reply)), now)
    }

    /// The kernel's drop counts (claim, reply) as of `now`: what was dropped since the last
    /// count is recorded as possible loss, as rate-limit drops are (docs/uiap-design.md D70).
    pub(crate) fn note_overflow_counts(&mut self, counts: (u32, u32), now: Duration) -> bool {
        let claim = counts.0.saturating_sub(self.kernel_drops.0);
        let reply = counts.1.saturating_sub(self.kernel_drops.1);
        self.kernel_drops = (
            counts.0.max(self.kernel_drops.0),
            counts.1.max(self.kernel_drops.1),
        );
        // Dropped at some time since the counts were last noted.
        self.lost(u64::from(claim) + u64::from(reply), self.overflows_read.0);
        self.overflows_read.0 = now;
        let sockets = [(claim, Ipv6Addr::UNSPECIFIED), (reply, Ipv6Addr::LOCALHOST)];
        for (dropped, socket) in sockets {
            self.overflowed.record_n(
                (0, socket),
                SourceDrop::RateLimited,
                u64::from(dropped),
                now,
            );
        }
        claim > 0 || reply > 0
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
        let mut bytes = &buf[..r.len.min(buf.len())];
        if self.psk.is_some() {
            // Authenticated first: junk under a neighbour's address never spends that
            // neighbour's budget (docs/uiap-design.md D58).
            bytes = self.authenticate(bytes, (index, addr), now)?;
        }
        if !self.limits[r.role as usize].allow(now, (index, addr)) {
            self.count(SourceDrop::RateLimited);
            self.suppressed
                .record((index, addr), SourceDrop::RateLimited, now);
            self.lost(1, now);
            return None;
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

    /// The message under `bytes`' PSK trailer, or `None` when it does not verify (counted).
    /// A source that has not authenticated within [`AUTHENTICATED_FOR`] is verified only while
    /// the shared budget of failures has a token; each failure takes one
    /// (docs/uiap-design.md D58).
    fn authenticate<'a>(
        &mut self,
        bytes: &'a [u8],
        source: (u32, Ipv6Addr),
        now: Duration,
    ) -> Option<&'a [u8]> {
        let key = self.psk.as_ref()?;
        let known = self
            .authenticated
            .get(&source)
            .is_some_and(|&at| now.saturating_sub(at) < AUTHENTICATED_FOR);
        if !known && !self.unauthenticated.allow(now, source) {
            // Dropped unverified: a new neighbour's Claim-Attempt or Claim-Deny may be among
            // them, so this is possible loss as a rate-limit drop is (docs/uiap-design.md D58,
            // D64, D80).
            self.count(SourceDrop::AuthBudget);
            self.suppressed.record(source, SourceDrop::AuthBudget, now);
            self.lost(1, now);
            return None;
        }
        let now_ms = psk::wall_clock_ms();
        match self.sealer.open(key, bytes, now_ms) {
            Ok(message) => {
                if let Some(sent_ms) = psk::sent_ms(bytes) {
                    let offset = i128::from(sent_ms) - i128::from(now_ms);
                    self.clocks
                        .record(source, i64::try_from(offset).unwrap_or(i64::MAX), now);
                }
                if self.authenticated.len() >= limiter::MAX_NEIGHBOURS && !known {
                    self.authenticated
                        .retain(|_, at| now.saturating_sub(*at) < AUTHENTICATED_FOR);
                }
                if self.authenticated.len() < limiter::MAX_NEIGHBOURS || known {
                    self.authenticated.insert(source, now);
                }
                Some(message)
            }
            Err(refused) => {
                if known {
                    let _ = self.unauthenticated.allow(now, source);
                }
                let reason = SourceDrop::from(refused);
                if let psk::Refused::Stale { offset_ms } = refused {
                    // It verified: a key holder's clock, or a replay older than the window
                    // (docs/uiap-design.md D71).
                    self.splits.record(source, offset_ms, now);
                }
                if refused != psk::Refused::Replay {
                    self.failures.record(source, reason, now);
                }
                self.count(reason);
                None
            }
        }
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

    /// Who failed authentication (docs/uiap-design.md D62).
    pub(crate) fn failures(&self) -> &AuthFailureLog {
        &self.failures
    }

    /// Whose datagrams the rate limit dropped (docs/uiap-design.md D64).
    pub(crate) fn suppressed(&self) -> &AuthFailureLog {
        &self.suppressed
    }

    /// Neighbours whose authenticated datagrams are stale (docs/uiap-design.md D71).
    pub(crate) fn splits(&self) -> &Splits {
        &self.splits
    }

    /// With a key, how far ahead each neighbour's clock is (docs/uiap-design.md D72); without
    /// one, nothing is known of their clocks.
    pub(crate) fn clocks(&self) -> Option<&Clocks> {
        self.psk.as_ref().map(|_| &self.clocks)
    }

    /// Reads the wall clock against the boot clock at `now`: a step of the wall clock since the
    /// last reading, if it moved by a second or more (docs/uiap-design.md D76). With a key it
    /// is kept for the claims: their datagrams may be stale at every neighbour now.
    pub(crate) fn check_clock(&mut self, now: Duration) -> Option<Step> {
        let step = self
            .steps
            .check(psk::wall_clock_ms(), step::boot_clock(), now)?;
        if self.psk.is_some() {
            self.splits.stepped(step);
        }
        Some(step)
    }

    /// Whether datagrams are sealed with a key.
    pub(crate) fn keyed(&self) -> bool {
        self.psk.is_some()
    }

    /// An interface joined at `now`: its neighbours' clocks were not heard before.
    pub(crate) fn joined(&mut self, now: Duration) {
        self.clocks.joined(now);
    }

    /// What the kernel dropped at full receive queues (docs/uiap-design.md D70).
    pub(crate) fn overflowed(&self) -> &AuthFailureLog {
        &self.overflowed
    }

    /// Claim-Denies not sent (docs/uiap-design.md D79).
    pub(crate) fn unsent(&self) -> &AuthFailureLog {
        &self.unsent.0
    }

    /// The gate's count of Denies not sent, `total`, at `now`: those not recorded yet are
    /// recorded as possible loss, as kernel drops are; whether there were any.
    pub(crate) fn note_unsent(&mut self, total: u64, now: Duration) -> bool {
        let new = total.saturating_sub(self.unsent.1);
        self.unsent.1 = total.max(self.unsent.1);
        self.lost(new, now);
        self.unsent.0.record_n(
            (0, Ipv6Addr::UNSPECIFIED),
            SourceDrop::RateLimited,
            new,
            now,
        );
        new > 0
    }

    /// A Loss-Notice of another device arrived (docs/uiap-design.md D80).
    pub(crate) fn record_reported(&mut self, notice: Notice) {
        self.reported.record(notice);
    }

    /// Losses other devices reported (docs/uiap-design.md D80).
    pub(crate) fn reported(&self) -> &ReportedLosses {
        &self.reported
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
