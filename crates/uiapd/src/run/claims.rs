//! The daemon's claims: requests, the device's events, renewals, watchers, and what happens to
//! a claim in flight when the network goes away.

use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use super::{Daemon, denial_text, unix_now};
use crate::DaemonErrorKind;
use crate::control::{ClaimEvent, ClaimView, EventKind, Request, Response, SpaceText};
use crate::store::{Claims, StoredClaim};
use uiap::device::{ClaimErrorKind, ClaimId, ClaimSpec, Event, INFINITE_LIFETIME};
use uiap::space::DomainId;
use uiap::time::Instant;
use uiap::wire::DeviceId;

/// Where a claim of the daemon stands (`state` in the control API).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EntryState {
    /// Its first round (new claim or reclaim after a restart) is in progress, or a reclaim
    /// waits for a participating interface.
    Claiming,
    /// It succeeded and is defended.
    Held,
    /// Held, but a Claim-Deny came after success: another device holds an overlapping claim
    /// (docs/uiap-design.md D33).
    Conflicted,
    /// A renewal was denied: gone, kept in `list` until released.
    Lost,
    /// Its lifetime ended: gone, kept in `list` until released.
    Expired,
    /// The network or a local claim refused it (only in a claim's answer).
    Denied,
}

impl EntryState {
    fn as_str(self) -> &'static str {
        match self {
            EntryState::Claiming => "claiming",
            EntryState::Held => "held",
            EntryState::Conflicted => "conflicted",
            EntryState::Lost => "lost",
            EntryState::Expired => "expired",
            EntryState::Denied => "denied",
        }
    }

    fn ended(self) -> bool {
        matches!(self, EntryState::Lost | EntryState::Expired)
    }
}

/// Ended claims kept for `list` beyond this many are forgotten, oldest first.
const MAX_ENDED: usize = 256;

/// One claim as the daemon tracks it.
pub(super) struct Entry {
    pub stored: StoredClaim,
    pub device: Option<ClaimId>,
    pub state: EntryState,
    /// Persisted (it succeeded once, or was loaded from the state directory).
    pub persisted: bool,
    pub waiters: Vec<mpsc::Sender<Response>>,
    /// When its lifetime ends on the daemon's clock (held claims with a finite lifetime).
    pub expires: Option<Instant>,
    /// When to renew it (held claims with `renew`).
    pub renew_at: Option<Instant>,
    /// It started while an interface participated: losing them all fails it
    /// (docs/uiap-design.md D31).
    pub networked: bool,
}

impl Entry {
    pub fn view(&self, now: Instant) -> ClaimView {
        ClaimView {
            id: self.stored.id,
            domain: self.stored.domain.clone(),
            space: self.stored.space.clone(),
            lifetime: self.stored.lifetime,
            proxy: self.stored.proxy,
            renew: self.stored.renew,
            state: self.state.as_str().into(),
            expires_in: match self.state {
                EntryState::Held | EntryState::Conflicted => {
                    self.expires.map(|at| (at - now.min(at)).as_secs())
                }
                _ => None,
            },
        }
    }
}

/// A connection that asked for events (docs/uiap-design.md D33).
pub(super) struct Watcher {
    /// Only this claim's events.
    pub id: Option<u64>,
    pub tx: mpsc::Sender<Response>,
    /// Release claim `id` as this user when the connection closes (docs/uiap-design.md D54).
    pub release_on_close: Option<u32>,
}

impl Daemon {
    pub(super) fn on_request(&mut self, request: Request, reply: mpsc::Sender<Response>, uid: u32) {
        let now = self.now();
        let response = match request {
            Request::Claim {
                domain,
                space,
                lifetime,
                proxy,
                renew,
            } => {
                let spec = NewClaim {
                    domain,
                    space,
                    lifetime,
                    proxy,
                    renew,
                    owner: uid,
                };
                match self.start_claim(spec) {
                    Ok(id) => {
                        self.tell_if_waiting(id, &reply);
                        if let Some(entry) = self.claims.get_mut(&id) {
                            entry.waiters.push(reply);
                        }
                        return;
                    }
                    Err(r) => *r,
                }
            }
            Request::Release { id } => self.release(id, uid),
            Request::List => Response {
                ok: true,
                claims: Some(self.claims.values().map(|e| e.view(now)).collect()),
                ..Response::default()
            },
            Request::Status => Response {
                ok: true,
                status: Some(self.status()),
                ..Response::default()
            },
            Request::Proxies { flush } if flush && uid != 0 => Response::error(
                DaemonErrorKind::Request,
                "proxies: only root may flush the proxy table",
            ),
            Request::Proxies { flush } => {
                let proxies = self.proxy_views();
                let flushed = flush.then(|| self.device.flush_proxies());
                if let Some(n) = flushed {
                    warn!(n, uid, "proxy table flushed");
                }
                Response {
                    ok: true,
                    proxies: Some(proxies),
                    flushed,
                    ..Response::default()
                }
            }
            Request::Watch {
                id: None,
                release_on_close: true,
            } => Response::error(
                DaemonErrorKind::Request,
                "watch: release_on_close needs the id of one claim",
            ),
            Request::Watch {
                id,
                release_on_close,
            } => {
                let claims: Vec<ClaimView> = self
                    .claims
                    .values()
                    .filter(|e| id.is_none_or(|id| id == e.stored.id))
                    .map(|e| e.view(now))
                    .collect();
                if let (Some(id), true) = (id, claims.is_empty()) {
                    Response::error(
                        DaemonErrorKind::Request,
                        format!("watch: expected a claim id, found no claim {id}"),
                    )
                } else {
                    let opened = Response {
                        ok: true,
                        result: Some("watching".into()),
                        claims: Some(claims),
                        ..Response::default()
                    };
                    if reply.try_send(opened).is_ok() {
                        self.watchers.push(Watcher {
                            id,
                            tx: reply,
                            release_on_close: release_on_close.then_some(uid),
                        });
                    }
                    return;
                }
            }
        };
        let _ = reply.try_send(response);
    }

    /// A claim that cannot start within its start delay is told so at once
    /// (docs/uiap-design.md D34).
    fn tell_if_waiting(&self, id: u64, reply: &mpsc::Sender<Response>) {
        let Some(entry) = self.claims.get(&id) else {
            return;
        };
        let Some(at) = entry.device.and_then(|c| self.device.first_attempt_at(c)) else {
            return;
        };
        let now = self.now();
        let delay = at - now.min(at);
        if delay <= self.device.config().start_jitter {
            return;
        }
        let secs = delay.as_secs() + u64::from(delay.subsec_nanos() > 0);
        info!(
            id,
            seconds = secs,
            "claim rate limited after repeated conflicts"
        );
        let _ = reply.try_send(Response {
            reason: Some(format!("rate limited, starts in {secs} s")),
            ..Response::claim("waiting", entry.view(now))
        });
    }

    fn release(&mut self, id: u64, uid: u32) -> Response {
        let Some(owner) = self.claims.get(&id).map(|e| e.stored.owner) else {
            return Response::error(
                DaemonErrorKind::Request,
                format!("release: expected a claim id, found no claim {id}"),
            );
        };
        if uid != 0 && uid != owner {
            return Response::error(
                DaemonErrorKind::Request,
                format!(
                    "release: claim {id} belongs to uid {owner}; only that user or root may release it"
                ),
            );
        }
        let Some(mut entry) = self.claims.remove(&id) else {
            return Response::released(id);
        };
        if let Some(cid) = entry.device.take() {
            self.device.release(cid);
            self.by_device.remove(&cid);
        }
        for w in entry.waiters.drain(..) {
            let _ = w.try_send(Response {
                ok: true,
                result: Some("failed".into()),
                reason: Some("released while claiming".into()),
                ..Response::default()
            });
        }
        info!(id, "released");
        if !entry.state.ended() {
            self.notify(&entry, EventKind::Released, None);
        }
        self.persist();
        Response::released(id)
    }

    fn start_claim(&mut self, c: NewClaim) -> Result<u64, Box<Response>> {
        let refuse = |m: String| Err(Box::new(Response::error(DaemonErrorKind::Request, m)));
        if c.lifetime == 0 {
            // A claim that ends as it is made would be reported held and then vanish
            // (docs/uiap-design.md D29).
            return refuse("lifetime: expected at least 1 second, found 0".into());
        }
        let min = self.device.config().renew_min_lifetime.as_secs();
        if c.renew && c.lifetime != INFINITE_LIFETIME && u64::from(c.lifetime) < min {
            return refuse(format!(
                "lifetime: expected at least {min} s for a renewed claim, found {}",
                c.lifetime
            ));
        }
        let domain: DomainId = match c.domain.parse() {
            Ok(d) => d,
            Err(e) => return refuse(format!("domain: {e}")),
        };
        let parsed = c
            .space
            .parse(&domain)
            .map_err(|e| Box::new(Response::error(e.kind(), e.message())))?;
        let id = self.next_id;
        let stored = StoredClaim {
            id,
            domain: domain.to_string(),
            space: SpaceText::from_space(&parsed),
            lifetime: c.lifetime,
            proxy: c.proxy,
            owner: c.owner,
            renew: c.renew,
            expires_at: None,
            origin: None,
        };
        let now = self.now();
        let spec = ClaimSpec::new(domain, parsed)
            .lifetime(c.lifetime)
            .proxy(c.proxy);
        match self.device.claim(now, spec) {
            Ok(cid) => {
                self.next_id += 1;
                info!(id, domain = %stored.domain, space = %stored.space, lifetime = c.lifetime, proxy = c.proxy, renew = c.renew, "claiming");
                self.by_device.insert(cid, id);
                let networked = !self.interfaces.is_empty();
                self.claims
                    .insert(id, Entry::new(stored, Some(cid), false, networked));
                Ok(id)
            }
            Err(e) => match e.kind() {
                kind @ (ClaimErrorKind::LocalConflict { .. }
                | ClaimErrorKind::ProxiedConflict { .. }) => {
                    let reason = match kind {
                        ClaimErrorKind::LocalConflict { existing } => format!(
                            "local conflict with claim {}",
                            self.by_device.get(&existing).copied().unwrap_or(0)
                        ),
                        // docs/uiap-design.md D46
                        _ => format!("{e}: uiap proxies lists it"),
                    };
                    let mut entry = Entry::new(stored, None, false, false);
                    entry.state = EntryState::Denied;
                    let mut view = entry.view(now);
                    view.id = 0;
                    Err(Box::new(Response {
                        reason: Some(reason),
                        ..Response::claim("denied", view)
                    }))
                }
                _ => refuse(format!("claim: {e}")),
            },
        }
    }

    /// Reclaims (R flag) the persisted claims whose lifetime has not ended; a claim that does
    /// not renew is reclaimed for what is left of its lifetime (docs/uiap-design.md D32).
    pub(super) fn reclaim_persisted(&mut self, persisted: Claims) {
        let wall = unix_now();
        for stored in persisted.claims {
            self.next_id = self.next_id.max(stored.id + 1);
            if stored.ended_by(wall) {
                info!(id = stored.id, domain = %stored.domain, space = %stored.space, "not reclaimed: its lifetime ended while the daemon was stopped");
                continue;
            }
            let networked = !self.interfaces.is_empty();
            let mut entry = Entry::new(stored, None, true, networked);
            self.start_reclaim(&mut entry, wall);
            if entry.device.is_some() {
                self.claims.insert(entry.stored.id, entry);
            }
        }
        self.persist();
    }

    /// Starts the reclaim of a persisted claim.
    fn start_reclaim(&mut self, entry: &mut Entry, wall: u64) {
        let stored = &entry.stored;
        let parsed = stored
            .domain
            .parse::<DomainId>()
            .map_err(|e| e.to_string())
            .and_then(|domain| {
                stored
                    .space
                    .parse(&domain)
                    .map(|s| (domain, s))
                    .map_err(|e| e.to_string())
            });
        let (domain, space) = match parsed {
            Ok(v) => v,
            Err(e) => {
                warn!(id = stored.id, error = %e, "dropping an unreadable persisted claim");
                return;
            }
        };
        let lifetime = match (stored.renew, stored.expires_at) {
            (false, Some(at)) => u32::try_from(at.saturating_sub(wall))
                .unwrap_or(INFINITE_LIFETIME - 1)
                .max(1),
            _ => stored.lifetime,
        };
        let spec = ClaimSpec::new(domain, space)
            .lifetime(lifetime)
            .reclaim(true)
            .proxy(stored.proxy)
            .origin(stored.origin.and_then(DeviceId::new));
        match self.device.claim(self.now(), spec) {
            Ok(cid) => {
                info!(id = stored.id, domain = %stored.domain, space = %stored.space, lifetime, "reclaiming");
                self.by_device.insert(cid, stored.id);
                entry.device = Some(cid);
                entry.state = EntryState::Claiming;
            }
            Err(e) => warn!(id = stored.id, error = %e, "cannot reclaim a persisted claim"),
        }
    }

    /// Cancels the claims still in their first round whose every requesting connection has
    /// closed: nobody would learn the outcome, so nothing is claimed or persisted
    /// (docs/uiap-design.md D30). Reclaims after a restart have no requester and are kept.
    /// Watchers that went away are forgotten.
    pub(super) fn cancel_abandoned(&mut self) {
        let tied: Vec<(u64, u32)> = self
            .watchers
            .iter()
            .filter(|w| w.tx.is_closed())
            .filter_map(|w| Some((w.id?, w.release_on_close?)))
            .collect();
        self.watchers.retain(|w| !w.tx.is_closed());
        for (id, uid) in tied {
            if self.claims.contains_key(&id) {
                info!(
                    id,
                    "its client's connection closed: releasing (release_on_close)"
                );
                let _ = self.release(id, uid);
            }
        }
        let gone: Vec<u64> = self
            .claims
            .values()
            .filter(|e| {
                e.state == EntryState::Claiming
                    && !e.persisted
                    && !e.waiters.is_empty()
                    && e.waiters.iter().all(mpsc::Sender::is_closed)
            })
            .map(|e| e.stored.id)
            .collect();
        for id in gone {
            if let Some(cid) = self.claims.remove(&id).and_then(|e| e.device) {
                self.device.release(cid);
                self.by_device.remove(&cid);
            }
            info!(id, "claim cancelled: the requesting client went away");
        }
    }

    /// Every participating interface left: a claim in its first round that started on the
    /// network cannot have been heard, so it must not succeed as a site of one
    /// (docs/uiap-design.md D31). A new claim fails; a reclaim after a restart waits for an
    /// interface and starts again.
    pub(super) fn network_lost(&mut self) {
        let now = self.now();
        let stranded: Vec<u64> = self
            .claims
            .values()
            .filter(|e| e.state == EntryState::Claiming && e.networked && e.device.is_some())
            .map(|e| e.stored.id)
            .collect();
        for id in stranded {
            let Some(entry) = self.claims.get_mut(&id) else {
                continue;
            };
            if let Some(cid) = entry.device.take() {
                self.device.release(cid);
                self.by_device.remove(&cid);
            }
            if entry.persisted {
                info!(id, "reclaim suspended: no participating interface left");
                continue;
            }
            let why = "every participating interface left while claiming; nothing was claimed";
            warn!(id, "claim failed: {why}");
            let mut entry = self.claims.remove(&id).expect("looked up above");
            let view = entry.view(now);
            for w in entry.waiters.drain(..) {
                let _ = w.try_send(Response {
                    reason: Some(why.into()),
                    ..Response::claim("failed", view.clone())
                });
            }
        }
    }

    /// An interface participates again: suspended reclaims start over.
    pub(super) fn network_back(&mut self) {
        let wall = unix_now();
        let waiting: Vec<u64> = self
            .claims
            .values()
            .filter(|e| e.state == EntryState::Claiming && e.device.is_none())
            .map(|e| e.stored.id)
            .collect();
        for id in waiting {
            let Some(mut entry) = self.claims.remove(&id) else {
                continue;
            };
            self.start_reclaim(&mut entry, wall);
            entry.networked = true;
            if entry.device.is_some() {
                self.claims.insert(id, entry);
            }
        }
    }

    pub(super) fn persist(&mut self) {
        let claims = Claims {
            next_id: self.next_id,
            claims: self
                .claims
                .values()
                .filter(|e| e.persisted && !e.state.ended())
                .map(|e| e.stored.clone())
                .collect(),
        };
        if let Err(e) = self.store.save_claims(&claims) {
            warn!(error = %e, "cannot persist claims");
        }
    }

    /// The earliest renewal due.
    pub(super) fn next_renewal(&self) -> Option<Instant> {
        self.claims.values().filter_map(|e| e.renew_at).min()
    }

    /// Starts the renewals that are due (docs/uiap-design.md D32).
    pub(super) fn renew_due(&mut self, now: Instant) {
        for entry in self.claims.values_mut() {
            if entry.renew_at.is_none_or(|at| at > now) {
                continue;
            }
            entry.renew_at = None;
            if let Some(cid) = entry.device {
                match self.device.renew(now, cid) {
                    Ok(()) => debug!(id = entry.stored.id, "renewing"),
                    Err(e) => warn!(id = entry.stored.id, error = %e, "cannot renew"),
                }
            }
        }
    }

    /// Sends an event to the connections watching `entry`; a watcher that cannot take it is
    /// disconnected (docs/uiap-design.md D33).
    fn notify(&mut self, entry: &Entry, kind: EventKind, reason: Option<String>) {
        let event = ClaimEvent {
            id: entry.stored.id,
            kind,
            reason,
            claim: entry.view(self.now()),
        };
        self.watchers.retain(|w| {
            if w.id.is_some_and(|id| id != event.id) {
                return true;
            }
            let line = Response {
                ok: true,
                event: Some(event.clone()),
                ..Response::default()
            };
            w.tx.try_send(line).is_ok()
        });
    }

    /// A held claim's lifetime (re)starts at `now`: when it ends, and when to renew it.
    fn lifetime_starts(&mut self, id: u64, now: Instant, expires: Option<Instant>) {
        let config = self.device.config().clone();
        let Some(entry) = self.claims.get_mut(&id) else {
            return;
        };
        entry.expires = expires;
        entry.stored.expires_at = expires.map(|at| unix_now() + (at - now.min(at)).as_secs());
        entry.renew_at = match expires {
            Some(at) if entry.stored.renew => {
                let pct = u32::from(config.renew_at_percent.clamp(1, 99));
                Some(now + (at - now.min(at)) * pct / 100)
            }
            _ => None,
        };
    }

    /// Keeps at most [`MAX_ENDED`] ended claims for `list`.
    fn trim_ended(&mut self) {
        let ended: Vec<u64> = self
            .claims
            .values()
            .filter(|e| e.state.ended())
            .map(|e| e.stored.id)
            .collect();
        for id in ended.iter().take(ended.len().saturating_sub(MAX_ENDED)) {
            self.claims.remove(id);
        }
    }

    /// Handles one event of the device; returns whether the persisted set changed.
    pub(super) fn on_event(&mut self, event: Event) -> bool {
        let now = self.now();
        match event {
            Event::ClaimSucceeded { claim, expires } => {
                let Some(&id) = self.by_device.get(&claim) else {
                    return false;
                };
                self.lifetime_starts(id, now, expires);
                // A site of one is said in the response too: nobody could have denied the claim
                // (docs/uiap-design.md D23).
                let note = self
                    .interfaces
                    .is_empty()
                    .then(|| "a site of one: no participating interface".to_string());
                let Some(entry) = self.claims.get_mut(&id) else {
                    return false;
                };
                entry.state = EntryState::Held;
                // The ID it was announced under, for a reclaim after a restart (D40).
                entry.stored.origin = self.device.claim_info(claim).map(|i| i.origin.get());
                match &note {
                    Some(n) => info!(id, "claimed as {n}"),
                    None => info!(id, "claimed"),
                }
                let view = entry.view(now);
                for w in entry.waiters.drain(..) {
                    let _ = w.try_send(Response {
                        reason: note.clone(),
                        ..Response::claim("claimed", view.clone())
                    });
                }
                entry.persisted = true;
                true
            }
            Event::ClaimRenewed { claim, expires } => {
                let Some(&id) = self.by_device.get(&claim) else {
                    return false;
                };
                debug!(id, "renewed");
                self.lifetime_starts(id, now, expires);
                self.end_or_tell(id, EventKind::Renewed, None);
                true
            }
            Event::ClaimDenied { claim, reason } => {
                let Some(id) = self.by_device.remove(&claim) else {
                    return false;
                };
                let why = denial_text(&reason);
                let Some(entry) = self.claims.get_mut(&id) else {
                    return false;
                };
                entry.device = None;
                if entry.persisted {
                    // Lost after success (a renewal, or the reclaim after a restart, denied):
                    // the application is told.
                    warn!(id, reason = %why, "held claim lost");
                    self.end_or_tell(id, EventKind::Lost, Some(why));
                    return true;
                }
                warn!(id, reason = %why, "claim denied");
                let Some(mut entry) = self.claims.remove(&id) else {
                    return false;
                };
                entry.state = EntryState::Denied;
                let view = entry.view(now);
                for w in entry.waiters.drain(..) {
                    let _ = w.try_send(Response {
                        reason: Some(why.clone()),
                        ..Response::claim("denied", view.clone())
                    });
                }
                entry.persisted
            }
            Event::ClaimExpired { claim } => {
                let Some(id) = self.by_device.remove(&claim) else {
                    return false;
                };
                info!(id, "claim expired");
                if let Some(entry) = self.claims.get_mut(&id) {
                    entry.device = None;
                }
                self.end_or_tell(id, EventKind::Expired, None);
                true
            }
            Event::LateConflict { claim, message } => {
                let Some(id) = claim.and_then(|c| self.by_device.get(&c).copied()) else {
                    return false;
                };
                let why = format!(
                    "another device holds an overlapping claim: a Claim-Deny answered attempt {message} after the claim succeeded"
                );
                warn!(id, reason = %why, "late conflict");
                self.end_or_tell(id, EventKind::Conflict, Some(why));
                false
            }
            other => self.on_other_event(other),
        }
    }

    /// Moves a claim to the state `kind` leaves it in and tells its watchers.
    fn end_or_tell(&mut self, id: u64, kind: EventKind, reason: Option<String>) {
        let Some(mut entry) = self.claims.remove(&id) else {
            return;
        };
        entry.state = match kind {
            EventKind::Lost => EntryState::Lost,
            EventKind::Expired => EntryState::Expired,
            EventKind::Conflict => EntryState::Conflicted,
            EventKind::Renewed | EventKind::Released => entry.state,
        };
        if entry.state.ended() {
            entry.expires = None;
            entry.renew_at = None;
        }
        self.notify(&entry, kind, reason);
        self.claims.insert(id, entry);
        self.trim_ended();
    }
}

/// A claim request's fields.
struct NewClaim {
    domain: String,
    space: SpaceText,
    lifetime: u32,
    proxy: bool,
    renew: bool,
    owner: u32,
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
            state: EntryState::Claiming,
            persisted,
            waiters: Vec::new(),
            expires: None,
            renew_at: None,
            networked,
        }
    }
}
