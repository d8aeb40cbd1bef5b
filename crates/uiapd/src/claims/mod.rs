//! The claim table: the daemon's claims, who waits for their answers and who watches them.
//!
//! One method per control request ([`requests`]), one per claim event of the protocol device
//! ([`events`]), and what happens to claims over time — renewals, restarts, clients that went
//! away, the network going and coming back ([`lifecycle`]). The table makes no protocol
//! decision (the device does) and does no I/O but answering on reply channels and persisting
//! through the [`Store`]; time comes in with each call ([`Ctx`]).

mod events;
mod lifecycle;
mod requests;

use std::collections::{BTreeMap, HashMap};

use rand_chacha::ChaCha20Rng;
use tokio::sync::mpsc;
use tracing::warn;
use uiap::device::{ClaimId, Device};
use uiap::time::Instant;
use uiap_control::{ClaimEvent, ClaimState, ClaimView, EventKind, Response};

use crate::DaemonError;
use crate::link::{AuthFailureLog, Clocks, ReportedLosses, Splits};
use crate::quota::UserLimits;
use crate::store::{Claims, Store, StoredClaim};

/// `n` `word`s, in the singular for one.
fn counted(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// What may have been lost from `from` to `now`, in words, and the seconds covered: what this
/// device dropped unread, by the rate limit (docs/uiap-design.md D64) and by the kernel at a
/// full receive queue (D70); for a `held` claim the Claim-Denies not sent (D79), and for a
/// claim in its round what other devices reported lost (D80).
///
/// A Deny not sent leaves another device's claim unanswered, which matters to what this device
/// holds, not to a claim of its own in its round (a conflict with that is settled by the
/// protocol core, which denies both). A loss elsewhere may have cut off this device's Attempt
/// or the Deny that answered it, which matters to a claim in its round; a held claim hears of it
/// only when its round fell within the loss's window ([`ClaimTable::reported_loss`]).
fn dropped_unread(
    ctx: &Ctx<'_>,
    from: std::time::Duration,
    now: std::time::Duration,
    held: bool,
) -> Option<(String, u64)> {
    let rate = ctx.suppressed.since(from, now);
    let kernel = ctx.overflowed.since(from, now);
    let unsent = if held {
        ctx.unsent.since(from, now)
    } else {
        None
    };
    let reported = if held {
        None
    } else {
        ctx.reported.since(from, now)
    };
    let mut parts = Vec::new();
    if let Some(r) = &rate {
        parts.push(format!(
            "{} from {} dropped by the rate limit",
            counted(r.datagrams, "datagram"),
            counted(r.neighbours, "neighbour"),
        ));
    }
    if let Some(k) = &kernel {
        parts.push(format!(
            "{} dropped by the kernel, its receive queue full,",
            counted(k.datagrams, "datagram"),
        ));
    }
    if let Some(u) = &unsent {
        parts.push(format!(
            "{} not sent, their neighbours unresolved,",
            if u.datagrams == 1 {
                "1 Claim-Deny".to_string()
            } else {
                format!("{} Claim-Denies", u.datagrams)
            },
        ));
    }
    if let Some(r) = &reported {
        parts.push(format!(
            "{} reported lost by {} (Loss-Notices),",
            counted(r.datagrams, "datagram"),
            counted(r.devices as u64, "other device"),
        ));
    }
    let seconds = rate
        .iter()
        .chain(&kernel)
        .chain(&unsent)
        .map(|a| a.seconds)
        .chain(reported.map(|r| r.seconds))
        .max()?;
    Some((parts.join(" and "), seconds))
}

/// Ended claims kept for `list` beyond this many are forgotten, oldest first.
const MAX_ENDED: usize = 256;

/// What one step of the table works with: the protocol device and the time.
pub(crate) struct Ctx<'a> {
    /// The protocol device the claims are made on.
    pub device: &'a mut Device<ChaCha20Rng>,
    /// The daemon's clock.
    pub now: Instant,
    /// Seconds since the Unix epoch: persisted lifetimes outlive the process.
    pub wall: u64,
    /// Whether any interface participates: a claim made without one is a site of one
    /// (docs/uiap-design.md D23).
    pub networked: bool,
    /// Who failed authentication, and when (docs/uiap-design.md D62).
    pub auth: &'a AuthFailureLog,
    /// Whose datagrams the rate limit dropped, and when (docs/uiap-design.md D64).
    pub suppressed: &'a AuthFailureLog,
    /// What the kernel dropped at full receive queues, and when (docs/uiap-design.md D70).
    pub overflowed: &'a AuthFailureLog,
    /// Claim-Denies not sent, their neighbours unresolved, and when (docs/uiap-design.md D79).
    pub unsent: &'a AuthFailureLog,
    /// Losses other devices reported in Loss-Notices (docs/uiap-design.md D80).
    pub reported: &'a ReportedLosses,
    /// Neighbours whose authenticated datagrams are stale (docs/uiap-design.md D71).
    pub splits: &'a Splits,
    /// With a key: how far ahead the neighbours' clocks are (docs/uiap-design.md D72).
    pub clocks: Option<&'a Clocks>,
}

impl Ctx<'_> {
    /// The daemon's clock as the link keeps it.
    fn elapsed(&self) -> std::time::Duration {
        std::time::Duration::from_micros(self.now.as_micros())
    }
}

/// One claim as the daemon tracks it.
struct Entry {
    stored: StoredClaim,
    device: Option<ClaimId>,
    state: ClaimState,
    /// Persisted (it succeeded once, or was loaded from the state directory).
    persisted: bool,
    waiters: Vec<mpsc::Sender<Response>>,
    /// When its lifetime ends on the daemon's clock (held claims with a finite lifetime).
    expires: Option<Instant>,
    /// When to renew it (held claims with `renew`).
    renew_at: Option<Instant>,
    /// It started while an interface participated: losing them all fails it
    /// (docs/uiap-design.md D31).
    networked: bool,
    /// When it was asked for, on the link's clock: its answer reports the authentication
    /// failures from [`crate::link::LOOKBACK`] before (docs/uiap-design.md D62).
    asked_at: std::time::Duration,
    /// When its watchers were last told of possible loss (event `suppressed`), on the link's
    /// clock; `None` while they never were.
    told: Option<std::time::Duration>,
}

impl Entry {
    fn new(
        stored: StoredClaim,
        device: Option<ClaimId>,
        persisted: bool,
        networked: bool,
    ) -> Entry {
        Entry {
            stored,
            device,
            state: ClaimState::Claiming,
            persisted,
            waiters: Vec::new(),
            expires: None,
            renew_at: None,
            networked,
            asked_at: std::time::Duration::ZERO,
            told: None,
        }
    }

    fn view(&self, now: Instant) -> ClaimView {
        ClaimView {
            id: self.stored.id,
            domain: self.stored.domain.clone(),
            space: self.stored.space.clone(),
            lifetime: self.stored.lifetime,
            proxy: self.stored.proxy,
            renew: self.stored.renew,
            state: self.state,
            expires_in: if self.state.is_held() {
                self.expires.map(|at| (at - now.min(at)).as_secs())
            } else {
                None
            },
        }
    }

    /// Sends `answer` to everyone waiting for this claim's answer.
    fn answer(&mut self, answer: &Response) {
        for w in self.waiters.drain(..) {
            let _ = w.try_send(answer.clone());
        }
    }
}

/// A connection that asked for events (docs/uiap-design.md D33).
struct Watcher {
    /// Only this claim's events.
    id: Option<u64>,
    tx: mpsc::Sender<Response>,
    /// Release claim `id` as this user when the connection closes (docs/uiap-design.md D54).
    release_on_close: Option<u32>,
}

/// The daemon's claims.
pub(crate) struct ClaimTable {
    claims: BTreeMap<u64, Entry>,
    watchers: Vec<Watcher>,
    /// The table's ID of each claim the device knows.
    by_device: HashMap<ClaimId, u64>,
    next_id: u64,
    store: Store,
    /// Writes of the claims that failed (`status` counter `persist_failures`).
    persist_failures: u64,
    /// When held claims' watchers were last told of possible loss (docs/uiap-design.md D64).
    suppression_told: Option<std::time::Duration>,
    /// A claim became held since then: its watchers are told of the next loss at once.
    untold_held: bool,
    /// What each user other than root may claim (docs/uiap-design.md D65).
    users: UserLimits,
}

impl ClaimTable {
    /// An empty table that persists to `store`; [`ClaimTable::reclaim_persisted`] takes up
    /// what a previous run left there.
    pub(crate) fn new(store: Store) -> ClaimTable {
        ClaimTable {
            claims: BTreeMap::new(),
            watchers: Vec::new(),
            by_device: HashMap::new(),
            next_id: 1,
            store,
            persist_failures: 0,
            suppression_told: None,
            untold_held: false,
            users: UserLimits::default(),
        }
    }

    /// The table with `users` as the limits on users other than root.
    pub(crate) fn with_user_limits(self, users: UserLimits) -> ClaimTable {
        ClaimTable { users, ..self }
    }

    /// The next claim id not in use: ids wrap after `u64::MAX` to 1, skipping the ones still
    /// listed (0 names no claim).
    fn fresh_id(&self) -> u64 {
        let mut id = self.next_id.max(1);
        while self.claims.contains_key(&id) {
            id = id.wrapping_add(1).max(1);
        }
        id
    }

    /// How many claims of user `uid` have not ended.
    fn claims_of(&self, uid: u32) -> usize {
        self.claims
            .values()
            .filter(|e| e.stored.owner == uid && !e.state.has_ended())
            .count()
    }

    /// How many claims are listed.
    pub(crate) fn len(&self) -> usize {
        self.claims.len()
    }

    /// Writes the claims that succeeded and have not ended to the state directory; a failure
    /// is logged and counted (what must not be acknowledged unless persisted uses
    /// [`ClaimTable::save`]).
    pub(crate) fn persist(&mut self) {
        if let Err(e) = self.save(None) {
            warn!(error = %e, "cannot persist claims");
        }
    }

    /// Writes the claims that succeeded and have not ended, leaving out claim `without`; a
    /// failure is counted and returned (docs/uiap-design.md D60).
    fn save(&mut self, without: Option<u64>) -> Result<(), DaemonError> {
        let claims = Claims {
            next_id: self.next_id,
            claims: self
                .claims
                .values()
                .filter(|e| e.persisted && !e.state.has_ended() && Some(e.stored.id) != without)
                .map(|e| e.stored.clone())
                .collect(),
        };
        let saved = self.store.save_claims(&claims);
        if saved.is_err() {
            self.persist_failures += 1;
        }
        saved
    }

    /// How many writes of the claims failed.
    pub(crate) fn persist_failures(&self) -> u64 {
        self.persist_failures
    }

    /// Forgets the device's claim of `entry`, if it has one.
    fn forget_device_claim(&mut self, device: &mut Device<ChaCha20Rng>, entry: &mut Entry) {
        if let Some(cid) = entry.device.take() {
            device.release(cid);
            self.by_device.remove(&cid);
        }
    }

    /// Sends an event to the connections watching `entry`; a watcher that cannot take it is
    /// disconnected (docs/uiap-design.md D33).
    fn notify(&mut self, entry: &Entry, now: Instant, kind: EventKind, reason: Option<String>) {
        let event = ClaimEvent {
            id: entry.stored.id,
            kind,
            reason,
            claim: entry.view(now),
        };
        self.watchers.retain(|w| {
            if w.id.is_some_and(|id| id != event.id) {
                return true;
            }
            w.tx.try_send(Response::Event(event.clone())).is_ok()
        });
    }

    /// Moves a claim to the state `kind` leaves it in and tells its watchers.
    fn end_or_tell(&mut self, id: u64, now: Instant, kind: EventKind, reason: Option<String>) {
        let Some(mut entry) = self.claims.remove(&id) else {
            return;
        };
        entry.state = kind.state_after(entry.state);
        if entry.state.has_ended() {
            entry.expires = None;
            entry.renew_at = None;
        }
        self.notify(&entry, now, kind, reason);
        self.claims.insert(id, entry);
        self.trim_ended();
    }

    /// Keeps at most [`MAX_ENDED`] ended claims for `list`.
    fn trim_ended(&mut self) {
        let ended: Vec<u64> = self
            .claims
            .values()
            .filter(|e| e.state.has_ended())
            .map(|e| e.stored.id)
            .collect();
        for id in ended.iter().take(ended.len().saturating_sub(MAX_ENDED)) {
            self.claims.remove(id);
        }
    }
}

#[cfg(test)]
mod tests;
