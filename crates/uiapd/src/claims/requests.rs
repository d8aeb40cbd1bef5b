//! The control requests about claims: one method each.

use tokio::sync::mpsc;
use tracing::{info, warn};
use uiap::device::{ClaimErrorKind, ClaimSpec, INFINITE_LIFETIME};
use uiap::space::{DomainId, UidSpace};
use uiap::time::Instant;
use uiap_control::{
    ClaimAnswer, ClaimRequest, ClaimState, ClaimView, ErrorKind, EventKind, Response, SpaceText,
};

use super::{ClaimTable, Ctx, Entry, Watcher};
use crate::store::StoredClaim;

/// A refusal of the request itself.
fn refusal(message: impl Into<String>) -> Response {
    Response::error(ErrorKind::Request, message)
}

/// The domain and space of a claim request, or why it is refused.
fn check(ctx: &Ctx<'_>, c: &ClaimRequest) -> Result<(DomainId, UidSpace), String> {
    if c.lifetime == 0 {
        // A claim that ends as it is made would be reported held and then vanish
        // (docs/uiap-design.md D29).
        return Err("lifetime: expected at least 1 second, found 0".into());
    }
    let min = ctx.device.config().renew_min_lifetime.as_secs();
    if c.renew && c.lifetime != INFINITE_LIFETIME && u64::from(c.lifetime) < min {
        return Err(format!(
            "lifetime: expected at least {min} s for a renewed claim, found {}",
            c.lifetime
        ));
    }
    let domain: DomainId = c.domain.parse().map_err(|e| format!("domain: {e}"))?;
    let space = c
        .space
        .parse(&domain)
        .map_err(|e| e.message().to_string())?;
    Ok((domain, space))
}

impl ClaimTable {
    /// `claim`: starts the claim and keeps `reply` for its answer, or answers at once when it
    /// cannot start (a malformed request, a local conflict).
    pub(crate) fn claim(
        &mut self,
        ctx: &mut Ctx<'_>,
        request: ClaimRequest,
        owner: u32,
        reply: mpsc::Sender<Response>,
    ) {
        match self.start_claim(ctx, request, owner) {
            Ok(id) => {
                self.tell_if_waiting(ctx, id, &reply);
                if let Some(entry) = self.claims.get_mut(&id) {
                    entry.waiters.push(reply);
                }
            }
            Err(refused) => {
                let _ = reply.try_send(*refused);
            }
        }
    }

    /// A claim that cannot start within its start delay is told so at once
    /// (docs/uiap-design.md D34).
    fn tell_if_waiting(&self, ctx: &Ctx<'_>, id: u64, reply: &mpsc::Sender<Response>) {
        let Some(entry) = self.claims.get(&id) else {
            return;
        };
        let Some(at) = entry.device.and_then(|c| ctx.device.first_attempt_at(c)) else {
            return;
        };
        let delay = at - ctx.now.min(at);
        if delay <= ctx.device.config().start_jitter {
            return;
        }
        let secs = delay.as_secs() + u64::from(delay.subsec_nanos() > 0);
        info!(
            id,
            seconds = secs,
            "claim rate limited after repeated conflicts"
        );
        let _ = reply.try_send(Response::Waiting {
            claim: entry.view(ctx.now),
            reason: format!("rate limited, starts in {secs} s"),
        });
    }

    /// Checks a claim request and starts it on the device; the answer when it cannot start.
    fn start_claim(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: ClaimRequest,
        owner: u32,
    ) -> Result<u64, Box<Response>> {
        let (domain, space) = check(ctx, &c).map_err(|why| Box::new(refusal(why)))?;
        let held = self.claims_of(owner);
        if let Some(why) = self.users.refuse_claim(owner, held, c.lifetime, &space) {
            info!(uid = owner, reason = %why, "claim refused: over the user's limits");
            return Err(Box::new(refusal(format!("claim: {why}"))));
        }
        let id = self.fresh_id();
        let stored = StoredClaim {
            id,
            domain: domain.to_string(),
            space: SpaceText::from_space(&space),
            lifetime: c.lifetime,
            proxy: c.proxy,
            owner,
            renew: c.renew,
            expires_at: None,
            origin: None,
            release_on_close: None,
        };
        let spec = ClaimSpec::new(domain, space)
            .lifetime(c.lifetime)
            .proxy(c.proxy);
        let e = match ctx.device.claim(ctx.now, spec) {
            Ok(cid) => {
                self.next_id = id.wrapping_add(1).max(1);
                info!(id, domain = %stored.domain, space = %stored.space, lifetime = c.lifetime, proxy = c.proxy, renew = c.renew, "claiming");
                self.by_device.insert(cid, id);
                let mut entry = Entry::new(stored, Some(cid), false, ctx.networked);
                entry.asked_at = ctx.elapsed();
                self.claims.insert(id, entry);
                return Ok(id);
            }
            Err(e) => e,
        };
        let reason = match e.kind() {
            ClaimErrorKind::LocalConflict { existing } => format!(
                "local conflict with claim {}",
                self.by_device.get(&existing).copied().unwrap_or(0)
            ),
            // docs/uiap-design.md D46
            ClaimErrorKind::ProxiedConflict { .. } => format!("{e}: uiap proxies lists it"),
            _ => return Err(Box::new(refusal(format!("claim: {e}")))),
        };
        let mut entry = Entry::new(stored, None, false, false);
        entry.state = ClaimState::Denied;
        let claim = ClaimView {
            id: 0,
            ..entry.view(ctx.now)
        };
        Err(Box::new(Response::Claim(ClaimAnswer::Denied {
            claim,
            reason,
        })))
    }

    /// `release`: only the claim's owner or root may (docs/uiap-design.md D28).
    pub(crate) fn release(&mut self, ctx: &mut Ctx<'_>, id: u64, uid: u32) -> Response {
        self.release_as(ctx, id, uid, false)
    }

    /// Releases claim `id` as user `uid`. A release that cannot be persisted is refused,
    /// unless the claim is `tied` to a connection that closed: its persisted
    /// `release_on_close` makes a restart release it anyway (docs/uiap-design.md D60, D59).
    pub(super) fn release_as(
        &mut self,
        ctx: &mut Ctx<'_>,
        id: u64,
        uid: u32,
        tied: bool,
    ) -> Response {
        let Some(owner) = self.claims.get(&id).map(|e| e.stored.owner) else {
            return refusal(format!("release: expected a claim id, found no claim {id}"));
        };
        if uid != 0 && uid != owner {
            return refusal(format!(
                "release: claim {id} belongs to uid {owner}; only that user or root may release it"
            ));
        }
        // The release is persisted before it is done: a release that a restart would undo
        // is refused, and the claim stays held (docs/uiap-design.md D60).
        match self.save(Some(id)) {
            Err(e) if tied => warn!(id, error = %e, "cannot persist the release"),
            Err(e) => {
                warn!(id, error = %e, "release refused: cannot persist it");
                return Response::error(
                    ErrorKind::Io,
                    format!(
                        "release: cannot persist the release of claim {id} ({e}); it stays held"
                    ),
                );
            }
            Ok(()) => {}
        }
        let Some(mut entry) = self.claims.remove(&id) else {
            return Response::Released { id };
        };
        self.forget_device_claim(ctx.device, &mut entry);
        entry.answer(&Response::Claim(ClaimAnswer::Failed {
            claim: None,
            reason: "released while claiming".into(),
        }));
        info!(id, "released");
        if !entry.state.has_ended() {
            self.notify(&entry, ctx.now, EventKind::Released, None);
        }
        Response::Released { id }
    }

    /// `list`: every claim as it is at `now`.
    pub(crate) fn list(&self, now: Instant) -> Response {
        Response::Claims(self.claims.values().map(|e| e.view(now)).collect())
    }

    /// `watch`: answers with the watched claims and keeps `reply` for their events; with
    /// `release_on_close`, the claim is released as `uid` when the connection closes
    /// (docs/uiap-design.md D54).
    pub(crate) fn watch(
        &mut self,
        now: Instant,
        id: Option<u64>,
        release_on_close: bool,
        uid: u32,
        reply: mpsc::Sender<Response>,
    ) {
        if release_on_close && id.is_none() {
            let _ = reply.try_send(refusal("watch: release_on_close needs the id of one claim"));
            return;
        }
        let claims: Vec<ClaimView> = self
            .claims
            .values()
            .filter(|e| id.is_none_or(|id| id == e.stored.id))
            .map(|e| e.view(now))
            .collect();
        if let (Some(id), true) = (id, claims.is_empty()) {
            let _ = reply.try_send(refusal(format!(
                "watch: expected a claim id, found no claim {id}"
            )));
            return;
        }
        if let (Some(id), true) = (id, release_on_close)
            && let Err(why) = self.tie_to_connection(id, uid)
        {
            let _ = reply.try_send(*why);
            return;
        }
        if reply.try_send(Response::Watching(claims)).is_ok() {
            self.watchers.push(Watcher {
                id,
                tx: reply,
                release_on_close: release_on_close.then_some(uid),
            });
        }
    }

    /// Ties claim `id` to a connection of user `uid`, persisted before it is acknowledged: only
    /// its owner or root may, and a restart releases it (docs/uiap-design.md D54, D59).
    fn tie_to_connection(&mut self, id: u64, uid: u32) -> Result<(), Box<Response>> {
        let Some(entry) = self.claims.get_mut(&id) else {
            return Err(Box::new(refusal(format!(
                "watch: expected a claim id, found no claim {id}"
            ))));
        };
        let owner = entry.stored.owner;
        if uid != 0 && uid != owner {
            return Err(Box::new(refusal(format!(
                "watch: release_on_close: claim {id} belongs to uid {owner}; only that user or root may release it"
            ))));
        }
        let before = entry.stored.release_on_close.replace(uid);
        if !entry.persisted {
            return Ok(());
        }
        if let Err(e) = self.save(None) {
            if let Some(entry) = self.claims.get_mut(&id) {
                entry.stored.release_on_close = before;
            }
            return Err(Box::new(Response::error(
                ErrorKind::Io,
                format!("watch: cannot persist release_on_close for claim {id} ({e})"),
            )));
        }
        Ok(())
    }
}
