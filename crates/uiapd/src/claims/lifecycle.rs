//! What happens to claims over time: renewals, the reclaim after a restart, clients that went
//! away, and the network going and coming back.

use std::time::Duration;

use tokio::sync::mpsc;
use tracing::{debug, info, warn};
use uiap::device::{ClaimSpec, INFINITE_LIFETIME};
use uiap::space::DomainId;
use uiap::time::Instant;
use uiap::wire::DeviceId;
use uiap_control::{ClaimAnswer, ClaimState, EventKind, Response};

use super::{ClaimTable, Ctx, Entry};
use crate::link::Notice;

/// Held claims' watchers hear of rate-limit drops at most this often (docs/uiap-design.md D64).
const SUPPRESSION_TOLD_EVERY: Duration = Duration::from_secs(5);
use crate::store::Claims;

impl ClaimTable {
    /// Reclaims (R flag) the persisted claims whose lifetime has not ended; a claim that does
    /// not renew is reclaimed for what is left of its lifetime (docs/uiap-design.md D32). A
    /// claim tied to its client's connection (`release_on_close`) is released instead: that
    /// connection closed with the previous run (D59).
    pub(crate) fn reclaim_persisted(&mut self, ctx: &mut Ctx<'_>, persisted: Claims) {
        self.next_id = self.next_id.max(persisted.next_id);
        for stored in persisted.claims {
            self.next_id = self.next_id.max(stored.id.saturating_add(1));
            if stored.ended_by(ctx.wall) {
                info!(id = stored.id, domain = %stored.domain, space = %stored.space, "not reclaimed: its lifetime ended while the daemon was stopped");
                continue;
            }
            if stored.release_on_close.is_some() {
                // Its client's connection ended with the previous run (docs/uiap-design.md D59).
                info!(id = stored.id, domain = %stored.domain, space = %stored.space, "released: its client's connection closed with the previous run (release_on_close)");
                continue;
            }
            let mut entry = Entry::new(stored, None, true, ctx.networked);
            self.start_reclaim(ctx, &mut entry);
            if entry.device.is_some() {
                self.claims.insert(entry.stored.id, entry);
            }
        }
        self.persist();
    }

    /// Starts the reclaim of a persisted claim.
    fn start_reclaim(&mut self, ctx: &mut Ctx<'_>, entry: &mut Entry) {
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
            (false, Some(at)) => u32::try_from(at.saturating_sub(ctx.wall))
                .unwrap_or(INFINITE_LIFETIME - 1)
                .max(1),
            _ => stored.lifetime,
        };
        let spec = ClaimSpec::new(domain, space)
            .lifetime(lifetime)
            .reclaim(true)
            .proxy(stored.proxy)
            .origin(stored.origin.and_then(DeviceId::new));
        match ctx.device.claim(ctx.now, spec) {
            Ok(cid) => {
                info!(id = stored.id, domain = %stored.domain, space = %stored.space, lifetime, "reclaiming");
                self.by_device.insert(cid, stored.id);
                entry.device = Some(cid);
                entry.state = ClaimState::Claiming;
            }
            Err(e) => warn!(id = stored.id, error = %e, "cannot reclaim a persisted claim"),
        }
    }

    /// Releases the claims of watchers that asked for it and went away (docs/uiap-design.md
    /// D54), forgets watchers that went away, and cancels the claims still in their first
    /// round whose every requesting connection has closed: nobody would learn the outcome, so
    /// nothing is claimed or persisted (docs/uiap-design.md D30). Reclaims after a restart have
    /// no requester and are kept.
    pub(crate) fn cancel_abandoned(&mut self, ctx: &mut Ctx<'_>) {
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
                let _ = self.release_as(ctx, id, uid, true);
            }
        }
        let gone: Vec<u64> = self
            .claims
            .values()
            .filter(|e| {
                e.state == ClaimState::Claiming
                    && !e.persisted
                    && !e.waiters.is_empty()
                    && e.waiters.iter().all(mpsc::Sender::is_closed)
            })
            .map(|e| e.stored.id)
            .collect();
        for id in gone {
            if let Some(mut entry) = self.claims.remove(&id) {
                self.forget_device_claim(ctx.device, &mut entry);
            }
            info!(id, "claim cancelled: the requesting client went away");
        }
    }

    /// Every participating interface left: a claim in its first round that started on the
    /// network cannot have been heard, so it must not succeed as a site of one
    /// (docs/uiap-design.md D31). A new claim fails; a reclaim after a restart waits for an
    /// interface and starts again.
    pub(crate) fn network_lost(&mut self, ctx: &mut Ctx<'_>) {
        self.tell_isolated(ctx.now);
        let stranded: Vec<u64> = self
            .claims
            .values()
            .filter(|e| e.state == ClaimState::Claiming && e.networked && e.device.is_some())
            .map(|e| e.stored.id)
            .collect();
        for id in stranded {
            let Some(mut entry) = self.claims.remove(&id) else {
                continue;
            };
            self.forget_device_claim(ctx.device, &mut entry);
            if entry.persisted {
                info!(id, "reclaim suspended: no participating interface left");
                self.claims.insert(id, entry);
                continue;
            }
            let why = "every participating interface left while claiming; nothing was claimed";
            warn!(id, "claim failed: {why}");
            let claim = Some(entry.view(ctx.now));
            entry.answer(&Response::Claim(ClaimAnswer::Failed {
                claim,
                reason: why.into(),
            }));
        }
    }

    /// The ids of the claims held now (told as a list: telling may end a claim).
    fn held_ids(&self) -> Vec<u64> {
        self.claims
            .values()
            .filter(|e| e.state.is_held())
            .map(|e| e.stored.id)
            .collect()
    }

    /// Every participating interface left: the watchers of held claims are told that only this
    /// device defends them now (docs/uiap-design.md D63).
    fn tell_isolated(&mut self, now: Instant) {
        let held = self.held_ids();
        if !held.is_empty() {
            warn!(
                claims = held.len(),
                "isolated: every participating interface left; held claims are defended on this \
                 device only until one comes back"
            );
        }
        let why = "every participating interface left: the claim is defended on this device \
                   only, and another device may take the same space";
        for id in held {
            self.end_or_tell(id, now, EventKind::Isolated, Some(why.to_string()));
        }
    }

    /// Another device reported datagrams lost (a Loss-Notice, docs/uiap-design.md D80). A claim
    /// in its round fails when it would succeed (`dropped_unread`); here, the watchers of held
    /// claims whose round may have overlapped the losses are told (event `suppressed`): the
    /// notice came after the round ended, and the Attempt or Deny it lost may have been theirs.
    /// Older held claims are not told: their rounds ended before the losses, and a claim of
    /// theirs made since by another device is settled by that device's round, which the notice
    /// fails.
    pub(crate) fn reported_loss(&mut self, ctx: &Ctx<'_>, notice: &Notice) {
        let config = ctx.device.config();
        // A round asked for at `asked_at` ends within the claim window and the start jitter;
        // a second more for the notice's way here.
        let round = config.claim_window(false).max(config.claim_window(true))
            + config.start_jitter
            + Duration::from_secs(1);
        let losses_from = notice.at.saturating_sub(notice.window + round);
        let targets: Vec<u64> = self
            .claims
            .values()
            .filter(|e| e.state.is_held() && e.asked_at >= losses_from)
            .map(|e| e.stored.id)
            .collect();
        for id in targets {
            let why = format!(
                "device {} reported {} lost within {} ms, and this claim's round may have \
                 overlapped them (Loss-Notice): a Claim-Attempt or Claim-Deny among them would \
                 have settled a conflict, so another device may hold an overlapping claim",
                notice.origin,
                super::counted(notice.lost, "datagram"),
                notice.window.as_millis(),
            );
            if let Some(entry) = self.claims.get_mut(&id) {
                entry.told = Some(ctx.elapsed());
            }
            self.end_or_tell(id, ctx.now, EventKind::Suppressed, Some(why));
        }
    }

    /// The rate limit or the kernel dropped datagrams, or Claim-Denies were not sent: the
    /// watchers of held claims are told (event `suppressed`), at most once per
    /// [`SUPPRESSION_TOLD_EVERY`], with what was dropped since each claim's watchers were last
    /// told (docs/uiap-design.md D64, D70, D79). A claim held since the last telling is told of
    /// the next loss at once: the limit keeps a flood from repeating the news to watchers who
    /// have it, and must not keep it from those who do not.
    pub(crate) fn tell_suppressed(&mut self, ctx: &Ctx<'_>) {
        let now = ctx.elapsed();
        let split = ctx.splits.current(now);
        // This host's clock step is told at once, whenever the watchers were last told: it is
        // one event, not a stream of drops (docs/uiap-design.md D76).
        let step = ctx
            .splits
            .own_step()
            .filter(|s| self.suppression_told.is_none_or(|told| s.at > told));
        let last = [
            ctx.suppressed.last(),
            ctx.overflowed.last(),
            ctx.unsent.last(),
            split.as_ref().map(|s| s.last),
        ]
        .into_iter()
        .flatten()
        .max();
        let Some(last) = last.or(step.map(|s| s.at)) else {
            return;
        };
        let due = step.is_some()
            || self.suppression_told.is_none_or(|told| {
                last > told && now.saturating_sub(told) >= SUPPRESSION_TOLD_EVERY
            });
        if !due && !self.untold_held {
            return;
        }
        if due {
            self.suppression_told = Some(now);
        }
        // Each claim from when its watchers were last told, or from when it was asked for.
        let targets: Vec<(u64, Duration)> = self
            .claims
            .values()
            .filter(|e| e.state.is_held() && (due || e.told.is_none()))
            .map(|e| (e.stored.id, e.told.unwrap_or(e.asked_at)))
            .filter(|&(_, from)| last > from || step.is_some())
            .collect();
        for (id, from) in targets {
            let mut reasons = Vec::new();
            if let Some((dropped, seconds)) = super::dropped_unread(ctx, from, now, true) {
                reasons.push(format!(
                    "{dropped} in the last {seconds} s: a conflicting Claim-Attempt among them \
                     went unanswered, so another device may hold an overlapping claim"
                ));
            }
            if let Some(split) = split.as_ref().filter(|s| s.last > from) {
                reasons.push(format!(
                    "{split}: another device may hold an overlapping claim"
                ));
            }
            if let Some(step) = step {
                reasons.push(format!(
                    "{}: another device may hold an overlapping claim",
                    step.as_split()
                ));
            }
            if reasons.is_empty() {
                continue;
            }
            if let Some(entry) = self.claims.get_mut(&id) {
                entry.told = Some(now);
            }
            self.end_or_tell(id, ctx.now, EventKind::Suppressed, Some(reasons.join("; ")));
        }
        self.untold_held = self
            .claims
            .values()
            .any(|e| e.state.is_held() && e.told.is_none());
    }

    /// Held claims that are renewed are announced again at once by a reclaim, `because` (for
    /// the log) an interface joined — the first after isolation, or another one — so that a
    /// claim made or renewed while the site was split meets its overlaps now, not at its next
    /// renewal (docs/uiap-design.md D63); or because this host's wall clock stepped, so that
    /// neighbours whose clocks it left hear the split at once (D76). Claims with a fixed
    /// lifetime are not: a reclaim would start their lifetime again.
    pub(crate) fn announce_held(&mut self, ctx: &mut Ctx<'_>, because: &str) {
        for entry in self.claims.values_mut() {
            if !entry.state.is_held() || !entry.stored.renew {
                continue;
            }
            if let Some(cid) = entry.device {
                match ctx.device.renew(ctx.now, cid) {
                    Ok(()) => info!(id = entry.stored.id, "announced again: {because}"),
                    // Already in a round (a renewal): that announces it.
                    Err(e) => debug!(id = entry.stored.id, error = %e, "not announced again"),
                }
            }
        }
    }

    /// An interface participates again: suspended reclaims start over.
    pub(crate) fn network_back(&mut self, ctx: &mut Ctx<'_>) {
        let waiting: Vec<u64> = self
            .claims
            .values()
            .filter(|e| e.state == ClaimState::Claiming && e.device.is_none())
            .map(|e| e.stored.id)
            .collect();
        for id in waiting {
            let Some(mut entry) = self.claims.remove(&id) else {
                continue;
            };
            self.start_reclaim(ctx, &mut entry);
            entry.networked = true;
            if entry.device.is_some() {
                self.claims.insert(id, entry);
            }
        }
    }

    /// The earliest renewal due.
    pub(crate) fn next_renewal(&self) -> Option<Instant> {
        self.claims.values().filter_map(|e| e.renew_at).min()
    }

    /// Starts the renewals that are due (docs/uiap-design.md D32).
    pub(crate) fn renew_due(&mut self, ctx: &mut Ctx<'_>) {
        for entry in self.claims.values_mut() {
            if entry.renew_at.is_none_or(|at| at > ctx.now) {
                continue;
            }
            entry.renew_at = None;
            if let Some(cid) = entry.device {
                match ctx.device.renew(ctx.now, cid) {
                    Ok(()) => debug!(id = entry.stored.id, "renewing"),
                    Err(e) => warn!(id = entry.stored.id, error = %e, "cannot renew"),
                }
            }
        }
    }

    /// The daemon stops: every claim still waiting for its answer is told so. Claims stay
    /// persisted. Returns where the answers went: a connection has written its answer when its
    /// channel closes.
    pub(crate) fn shut_down(&mut self) -> Vec<mpsc::Sender<Response>> {
        let down = Response::Claim(ClaimAnswer::Failed {
            claim: None,
            reason: "the daemon is shutting down".into(),
        });
        let told: Vec<mpsc::Sender<Response>> = self
            .claims
            .values()
            .flat_map(|e| e.waiters.iter().cloned())
            .collect();
        for entry in self.claims.values_mut() {
            entry.answer(&down);
        }
        told
    }
}
