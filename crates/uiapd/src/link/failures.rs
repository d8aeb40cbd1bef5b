//! Who failed authentication (docs/uiap-design.md D62): per neighbour, by reason, and when
//! last, for `status`; how many failed in a span of seconds, for a claim's answer; and a log line per
//! neighbour at most once a minute, a few a minute in all.
//!
//! Only verified failures are recorded (no trailer, another key, a clock outside the window):
//! datagrams dropped unverified beyond the budget (D58) and replays say nothing about a
//! neighbour's key.

use std::collections::{BTreeMap, VecDeque};
use std::net::Ipv6Addr;
use std::time::Duration;

use tracing::warn;
use uiap_control::AuthFailures;

use super::SourceDrop;

/// Neighbours tracked at most; failures from others count in the totals only.
pub(crate) const MAX_SOURCES: usize = 256;
/// A neighbour is logged at most this often.
const LOG_EVERY: Duration = Duration::from_secs(60);
/// Log lines per [`LOG_EVERY`], all neighbours together: forged sources cannot flood the log.
const LOG_LINES: u32 = 8;
/// How far back a claim's answer looks before the claim started: long enough to have heard a
/// neighbour's renewals (a site lease renews every 15 s) or its last claim.
pub(crate) const LOOKBACK: Duration = Duration::from_secs(300);
/// Failures are counted per second for this long, the longest span an answer reports.
const HISTORY: Duration = Duration::from_secs(1200);
/// A neighbour without a failure for this long is forgotten when room is needed.
const FORGET_AFTER: Duration = Duration::from_secs(3600);

/// One neighbour's failures.
#[derive(Clone, Debug, Default)]
pub(crate) struct SourceFailures {
    /// Failures by reason (`psk_missing`, `psk_mismatch`, `psk_stale`).
    pub(crate) reasons: BTreeMap<SourceDrop, u64>,
    /// When the last one came.
    pub(crate) last: Duration,
    /// When it was last logged.
    logged: Option<Duration>,
    /// Failures since then.
    unlogged: u64,
}

/// The failures of every neighbour.
#[derive(Debug)]
pub(crate) struct AuthFailureLog {
    sources: BTreeMap<(u32, Ipv6Addr), SourceFailures>,
    /// Every failure recorded, tracked neighbours or not.
    total: u64,
    /// For each second with failures within [`HISTORY`]: the second, and the total before it.
    history: VecDeque<(u64, u64)>,
    /// When a failure last came from a neighbour beyond [`MAX_SOURCES`].
    untracked_last: Option<Duration>,
    /// The log's window: when it started and the lines written in it.
    window: (Duration, u32),
    /// When neighbours were last forgotten to make room.
    pruned_at: Option<Duration>,
    /// What the log records.
    kind: Kind,
}

/// What an [`AuthFailureLog`] records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Datagrams that failed authentication (docs/uiap-design.md D62).
    Auth,
    /// Datagrams the per-neighbour rate limit dropped (docs/uiap-design.md D64).
    RateLimited,
    /// Datagrams the kernel dropped at a full receive queue (docs/uiap-design.md D70).
    KernelOverflow,
    /// Claim-Denies the daemon did not send: their neighbours did not resolve
    /// (docs/uiap-design.md D79).
    DenyUnsent,
}

impl Default for AuthFailureLog {
    fn default() -> AuthFailureLog {
        AuthFailureLog::new()
    }
}

impl AuthFailureLog {
    /// No failures.
    pub(crate) const fn new() -> AuthFailureLog {
        AuthFailureLog {
            sources: BTreeMap::new(),
            total: 0,
            history: VecDeque::new(),
            untracked_last: None,
            window: (Duration::ZERO, 0),
            pruned_at: None,
            kind: Kind::Auth,
        }
    }

    /// No drops: a log of the datagrams the per-neighbour rate limit dropped (D45), kept the
    /// same way, whose log line says what such drops may hide (docs/uiap-design.md D64).
    pub(crate) fn rate_limited() -> AuthFailureLog {
        AuthFailureLog {
            kind: Kind::RateLimited,
            ..AuthFailureLog::new()
        }
    }

    /// No drops: a log of the datagrams the kernel dropped because a socket's receive queue was
    /// full (`SO_RXQ_OVFL`), under the socket's role as its source (interface 0, `::`, and
    /// `::1` for the reply socket), kept and logged as rate-limit drops are
    /// (docs/uiap-design.md D70).
    pub(crate) fn kernel_overflow() -> AuthFailureLog {
        AuthFailureLog {
            kind: Kind::KernelOverflow,
            ..AuthFailureLog::new()
        }
    }

    /// No Denies unsent: a log of the Claim-Denies the daemon did not send because their
    /// neighbours did not resolve (docs/uiap-design.md D79), under one source (interface 0,
    /// `::`), kept and logged as kernel drops are.
    pub(crate) fn denies_unsent() -> AuthFailureLog {
        AuthFailureLog {
            kind: Kind::DenyUnsent,
            ..AuthFailureLog::new()
        }
    }

    /// When the last datagram was recorded, if any.
    pub(crate) fn last(&self) -> Option<Duration> {
        let tracked = self.sources.values().map(|s| s.last).max();
        tracked.max(self.untracked_last)
    }

    /// A datagram from `source` (interface index, address) failed authentication for `reason`
    /// at `now`; whether a log line was written for it.
    pub(crate) fn record(
        &mut self,
        source: (u32, Ipv6Addr),
        reason: SourceDrop,
        now: Duration,
    ) -> bool {
        self.record_n(source, reason, 1, now)
    }

    /// As [`record`](Self::record), for `n` datagrams at once.
    pub(crate) fn record_n(
        &mut self,
        source: (u32, Ipv6Addr),
        reason: SourceDrop,
        n: u64,
        now: Duration,
    ) -> bool {
        if n == 0 {
            return false;
        }
        let second = now.as_secs();
        if self.history.back().is_none_or(|&(s, _)| s < second) {
            self.history.push_back((second, self.total));
        }
        while self
            .history
            .front()
            .is_some_and(|&(s, _)| second - s.min(second) > HISTORY.as_secs())
        {
            self.history.pop_front();
        }
        self.total += n;
        if !self.sources.contains_key(&source) && !self.make_room(now) {
            self.untracked_last = Some(now);
            return false;
        }
        let entry = self.sources.entry(source).or_default();
        *entry.reasons.entry(reason).or_insert(0) += n;
        entry.last = now;
        entry.unlogged += n;
        let due = entry
            .logged
            .is_none_or(|at| now.saturating_sub(at) >= LOG_EVERY);
        if !due || !take_line(&mut self.window, now) {
            return false;
        }
        if self.kind == Kind::KernelOverflow {
            warn!(
                socket = if source.1.is_loopback() {
                    "reply"
                } else {
                    "claim"
                },
                dropped = entry.unlogged,
                "datagrams dropped by the kernel, the socket's receive queue full: a Claim-Attempt \
                 or Claim-Deny among them went unanswered or uncounted; held claims' watchers are \
                 told (suppressed)"
            );
            entry.logged = Some(now);
            entry.unlogged = 0;
            return true;
        }
        if self.kind == Kind::DenyUnsent {
            warn!(
                unsent = entry.unlogged,
                "Claim-Denies not sent: their neighbours did not resolve, or too many were \
                 resolving at once; a claim they answered may be granted there, so held claims' \
                 watchers are told (suppressed)"
            );
            entry.logged = Some(now);
            entry.unlogged = 0;
            return true;
        }
        if self.kind == Kind::RateLimited {
            warn!(
                interface = source.0,
                neighbour = %source.1,
                dropped = entry.unlogged,
                "datagrams dropped by the rate limit: a Claim-Attempt or Claim-Deny among them \
                 went unanswered or uncounted; held claims' watchers are told (suppressed)"
            );
            entry.logged = Some(now);
            entry.unlogged = 0;
            return true;
        }
        warn!(
            interface = source.0,
            neighbour = %source.1,
            reason = reason.as_str(),
            failed = entry.unlogged,
            "datagrams failed authentication under this source address: a neighbour with no \
             key, another key or a clock more than 30 s off, whose Claim-Denies cannot count, or \
             any host on the link using its address (uiap status lists it)"
        );
        entry.logged = Some(now);
        entry.unlogged = 0;
        true
    }

    /// Whether a new neighbour can be tracked: forgets those quiet for [`FORGET_AFTER`] when
    /// full, at most once a second.
    fn make_room(&mut self, now: Duration) -> bool {
        if self.sources.len() < MAX_SOURCES {
            return true;
        }
        if self
            .pruned_at
            .is_some_and(|at| now.saturating_sub(at) < Duration::from_secs(1))
        {
            return false;
        }
        self.pruned_at = Some(now);
        self.sources
            .retain(|_, s| now.saturating_sub(s.last) < FORGET_AFTER);
        self.sources.len() < MAX_SOURCES
    }

    /// The failures from `from` (whole seconds, at most [`HISTORY`] back) to `now`, if any:
    /// how many, from how many neighbours (those beyond [`MAX_SOURCES`] count as one), and the
    /// seconds covered.
    pub(crate) fn since(&self, from: Duration, now: Duration) -> Option<AuthFailures> {
        let first = from
            .as_secs()
            .max(now.as_secs().saturating_sub(HISTORY.as_secs()));
        let before = self
            .history
            .iter()
            .find(|&&(s, _)| s >= first)
            .map_or(self.total, |&(_, total)| total);
        let datagrams = self.total - before;
        if datagrams == 0 {
            return None;
        }
        let from = Duration::from_secs(first);
        let tracked = self.sources.values().filter(|s| s.last >= from).count();
        let untracked = self.untracked_last.is_some_and(|at| at >= from);
        Some(AuthFailures {
            datagrams,
            neighbours: (tracked + usize::from(untracked)) as u64,
            seconds: now.as_secs() - first.min(now.as_secs()),
        })
    }

    /// The tracked neighbours and their failures.
    pub(crate) fn sources(&self) -> impl Iterator<Item = (&(u32, Ipv6Addr), &SourceFailures)> {
        self.sources.iter()
    }
}

/// Takes a line from the log's window at `now`, if one is left.
fn take_line(window: &mut (Duration, u32), now: Duration) -> bool {
    if now.saturating_sub(window.0) >= LOG_EVERY {
        *window = (now, 0);
    }
    if window.1 >= LOG_LINES {
        return false;
    }
    window.1 += 1;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(i: u16) -> (u32, Ipv6Addr) {
        (2, Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, i))
    }

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn failures_are_kept_per_neighbour_by_reason_and_counted_from_a_second() {
        let mut log = AuthFailureLog::new();
        log.record(addr(1), SourceDrop::PskMismatch, S);
        assert_eq!(log.since(2 * S, 2 * S), None);
        log.record(addr(1), SourceDrop::PskMismatch, 3 * S);
        log.record(addr(1), SourceDrop::PskStale, 3 * S);
        log.record(addr(2), SourceDrop::PskMissing, 4 * S);
        assert_eq!(
            log.since(2 * S, 5 * S),
            Some(AuthFailures {
                datagrams: 3,
                neighbours: 2,
                seconds: 3
            })
        );
        assert_eq!(log.since(S, 5 * S).map(|a| a.datagrams), Some(4));
        let one: Vec<_> = log.sources().filter(|(s, _)| **s == addr(1)).collect();
        let reasons: Vec<_> = one[0]
            .1
            .reasons
            .iter()
            .map(|(r, n)| (r.as_str(), *n))
            .collect();
        assert_eq!(reasons, [("psk_mismatch", 2), ("psk_stale", 1)]);
        assert_eq!(one[0].1.last, 3 * S);
        // A neighbour that failed only before does not count.
        log.record(addr(2), SourceDrop::PskMissing, 6 * S);
        assert_eq!(log.since(5 * S, 6 * S).map(|a| a.neighbours), Some(1));
        // Never further back than the history.
        let late = 6 * S + HISTORY;
        log.record(addr(3), SourceDrop::PskMissing, late);
        let a = log.since(Duration::ZERO, late).unwrap();
        assert_eq!((a.datagrams, a.seconds), (2, HISTORY.as_secs()));
    }

    #[test]
    fn a_neighbour_is_logged_once_a_minute_and_everyone_a_few_times_a_minute() {
        let mut log = AuthFailureLog::new();
        assert!(log.record(addr(1), SourceDrop::PskMismatch, S));
        for t in 2..60 {
            assert!(!log.record(addr(1), SourceDrop::PskMismatch, t * S), "{t}");
        }
        assert!(log.record(addr(1), SourceDrop::PskMismatch, 61 * S));
        // Forged sources: at most LOG_LINES lines a minute, whatever their number.
        let logged = (100..200)
            .filter(|&i| log.record(addr(i), SourceDrop::PskMismatch, 62 * S))
            .count();
        assert_eq!(logged, LOG_LINES as usize - 1);
    }

    #[test]
    fn neighbours_beyond_the_cap_are_counted_not_tracked() {
        let mut log = AuthFailureLog::new();
        for i in 0..MAX_SOURCES as u16 {
            log.record(addr(i), SourceDrop::PskMissing, S);
        }
        log.record(addr(9999), SourceDrop::PskMissing, 2 * S);
        assert_eq!(log.sources().count(), MAX_SOURCES);
        assert_eq!(
            log.since(2 * S, 2 * S),
            Some(AuthFailures {
                datagrams: 1,
                neighbours: 1,
                seconds: 0
            })
        );
        // An hour later the quiet ones are forgotten and the newcomer is tracked.
        let late = S + FORGET_AFTER + S;
        log.record(addr(9999), SourceDrop::PskMissing, late);
        assert_eq!(log.sources().count(), 1);
    }
}
