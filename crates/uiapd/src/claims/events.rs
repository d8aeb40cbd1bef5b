//! The protocol device's claim events: one method each. Each returns whether the persisted
//! claims changed, so that a burst of events is written once.

use tracing::{debug, info, warn};
use uiap::device::{ClaimId, FailureReason};
use uiap::time::Instant;
use uiap::wire::MessageId;
use uiap_control::{ClaimAnswer, ClaimState, ClockAhead, EventKind, Response};

use super::{ClaimTable, Ctx};

/// Why a claim was denied, as a sentence for the `reason` of a control response
/// (docs/uiap-design.md D26).
pub(super) fn denial_text(reason: &FailureReason) -> String {
    match reason {
        FailureReason::Denied { message } => format!(
            "another device holds an overlapping claim: a Claim-Deny answered attempt {message}"
        ),
        FailureReason::Simultaneous { message } => format!(
            "device {} claimed an overlapping space at the same time; both claims fail",
            message.origin
        ),
        FailureReason::Reclaimed { message } => format!(
            "device {} reclaimed an overlapping space it already held",
            message.origin
        ),
        // The enum is non-exhaustive: a reason added later still fails the claim.
        other => format!("refused by the protocol ({other:?})"),
    }
}

impl ClaimTable {
    /// A claim (or a reclaim after a restart) succeeded: it is persisted, then held and
    /// answered. A first success that cannot be persisted is released and answered as a
    /// failure: a restart would forget it while another device could take it
    /// (docs/uiap-design.md D60).
    #[must_use]
    pub(crate) fn succeeded(
        &mut self,
        ctx: &mut Ctx<'_>,
        claim: ClaimId,
        expires: Option<Instant>,
    ) -> bool {
        let Some(&id) = self.by_device.get(&claim) else {
            return false;
        };
        if let Some(why) = self.suppressed_while_claiming(ctx, id) {
            self.fail_success(ctx, id, why);
            return false;
        }
        if let Some(why) = self.split_while_claiming(ctx, id) {
            self.fail_success(ctx, id, why);
            return false;
        }
        self.lifetime_starts(ctx, id, expires);
        // A site of one is said in the response too: nobody could have denied the claim
        // (docs/uiap-design.md D23).
        let note =
            (!ctx.networked).then(|| "a site of one: no participating interface".to_string());
        let Some(entry) = self.claims.get_mut(&id) else {
            return false;
        };
        entry.state = ClaimState::Held;
        self.untold_held |= entry.told.is_none();
        // The ID it was announced under, for a reclaim after a restart (D40).
        entry.stored.origin = ctx.device.claim_info(claim).map(|i| i.origin.get());
        let first = !entry.persisted;
        entry.persisted = true;
        if let Err(e) = self.save(None) {
            if first {
                let why =
                    format!("cannot persist the claim ({e}); it was released, nothing is claimed");
                self.fail_success(ctx, id, why);
                return false;
            }
            warn!(id, error = %e, "cannot persist claims");
        }
        let Some(entry) = self.claims.get_mut(&id) else {
            return false;
        };
        match &note {
            Some(n) => info!(id, "claimed as {n}"),
            None => info!(id, "claimed"),
        }
        // Neighbours heard but not authenticated could not deny it: said with the answer
        // (docs/uiap-design.md D62).
        let from = entry.asked_at.saturating_sub(crate::link::LOOKBACK);
        let auth_failures = ctx.auth.since(from, ctx.elapsed());
        if let Some(failed) = auth_failures {
            warn!(id, "claimed, but {failed}");
        }
        // With a key: how far ahead the neighbours' clocks are, so that a site lease starts
        // its tenure above every millisecond a previous holder used (docs/uiap-design.md D72).
        let clock = ctx.clocks.map(|c| clock_view(&c.ahead(ctx.elapsed())));
        let claim = entry.view(ctx.now);
        entry.answer(&Response::Claim(ClaimAnswer::Claimed {
            claim,
            note,
            auth_failures,
            clock,
        }));
        false
    }

    /// Why a first claim's success cannot be trusted: the rate limit or the kernel dropped
    /// datagrams while it was in its round, and a Claim-Deny among them would have gone
    /// uncounted (docs/uiap-design.md D64, D70). A reclaim of a persisted claim is held anyway; its watchers
    /// are told.
    fn suppressed_while_claiming(&self, ctx: &Ctx<'_>, id: u64) -> Option<String> {
        let entry = self.claims.get(&id)?;
        if entry.persisted {
            return None;
        }
        let (dropped, _) = super::dropped_unread(ctx, entry.asked_at, ctx.elapsed(), false)?;
        Some(format!(
            "{dropped} while claiming: a Claim-Deny among them would not have counted, so \
             silence is not consent; nothing is claimed"
        ))
    }

    /// Why a first claim's success cannot be trusted: a neighbour's authenticated datagrams
    /// arrive outside the freshness window with a consistent offset, so its Claim-Denies do not
    /// count here (docs/uiap-design.md D71). A reclaim of a persisted claim is held anyway; its
    /// watchers are told.
    fn split_while_claiming(&self, ctx: &Ctx<'_>, id: u64) -> Option<String> {
        if self.claims.get(&id)?.persisted {
            return None;
        }
        let split = ctx.splits.current(ctx.elapsed())?;
        Some(format!("{split}; nothing is claimed"))
    }

    /// A first success that must not stand (not persisted, or not trustworthy): released,
    /// forgotten and answered as a failure.
    fn fail_success(&mut self, ctx: &mut Ctx<'_>, id: u64, why: String) {
        let Some(mut entry) = self.claims.remove(&id) else {
            return;
        };
        self.forget_device_claim(ctx.device, &mut entry);
        warn!(id, reason = %why, "claim failed");
        entry.state = ClaimState::Claiming;
        let claim = Some(entry.view(ctx.now));
        entry.answer(&Response::Claim(ClaimAnswer::Failed { claim, reason: why }));
    }

    /// A renewal succeeded: the lifetime starts again.
    #[must_use]
    pub(crate) fn renewed(
        &mut self,
        ctx: &mut Ctx<'_>,
        claim: ClaimId,
        expires: Option<Instant>,
    ) -> bool {
        let Some(&id) = self.by_device.get(&claim) else {
            return false;
        };
        debug!(id, "renewed");
        self.lifetime_starts(ctx, id, expires);
        self.end_or_tell(id, ctx.now, EventKind::Renewed, None);
        true
    }

    /// The device denied a claim: a first round is answered `denied` and forgotten; a claim
    /// that had succeeded (a renewal, or the reclaim after a restart) is lost.
    #[must_use]
    pub(crate) fn denied(
        &mut self,
        ctx: &mut Ctx<'_>,
        claim: ClaimId,
        reason: &FailureReason,
    ) -> bool {
        let Some(id) = self.by_device.remove(&claim) else {
            return false;
        };
        let why = denial_text(reason);
        let Some(entry) = self.claims.get_mut(&id) else {
            return false;
        };
        entry.device = None;
        if entry.persisted {
            // Lost after success: the application is told.
            warn!(id, reason = %why, "held claim lost");
            self.end_or_tell(id, ctx.now, EventKind::Lost, Some(why));
            return true;
        }
        warn!(id, reason = %why, "claim denied");
        let Some(mut entry) = self.claims.remove(&id) else {
            return false;
        };
        entry.state = ClaimState::Denied;
        let claim = entry.view(ctx.now);
        entry.answer(&Response::Claim(ClaimAnswer::Denied { claim, reason: why }));
        false
    }

    /// A claim's lifetime ended without renewal.
    #[must_use]
    pub(crate) fn expired(&mut self, ctx: &mut Ctx<'_>, claim: ClaimId) -> bool {
        let Some(id) = self.by_device.remove(&claim) else {
            return false;
        };
        info!(id, "claim expired");
        if let Some(entry) = self.claims.get_mut(&id) {
            entry.device = None;
        }
        self.end_or_tell(id, ctx.now, EventKind::Expired, None);
        true
    }

    /// A Claim-Deny came after a claim succeeded: it stays held and defended, and its
    /// watchers decide (docs/uiap-design.md D33).
    pub(crate) fn late_conflict(
        &mut self,
        ctx: &mut Ctx<'_>,
        claim: Option<ClaimId>,
        message: MessageId,
    ) {
        let Some(id) = claim.and_then(|c| self.by_device.get(&c).copied()) else {
            return;
        };
        let why = format!(
            "another device holds an overlapping claim: a Claim-Deny answered attempt {message} after the claim succeeded"
        );
        warn!(id, reason = %why, "late conflict");
        self.end_or_tell(id, ctx.now, EventKind::Conflict, Some(why));
    }

    /// A held claim's lifetime (re)starts at `ctx.now`: when it ends, and when to renew it.
    fn lifetime_starts(&mut self, ctx: &Ctx<'_>, id: u64, expires: Option<Instant>) {
        let percent = u32::from(ctx.device.config().renew_at_percent.clamp(1, 99));
        let Some(entry) = self.claims.get_mut(&id) else {
            return;
        };
        let now = ctx.now;
        entry.expires = expires;
        entry.stored.expires_at = expires.map(|at| ctx.wall + (at - now.min(at)).as_secs());
        entry.renew_at = match expires {
            Some(at) if entry.stored.renew => Some(now + (at - now.min(at)) * percent / 100),
            _ => None,
        };
    }
}

/// The answer's form of what the link knows of the neighbours' clocks.
fn clock_view(ahead: &crate::link::Ahead) -> ClockAhead {
    ClockAhead {
        ahead_ms: ahead.ahead_ms,
        listened_ms: u64::try_from(ahead.listened.as_millis()).unwrap_or(u64::MAX),
        neighbour: ahead
            .neighbour
            .map(|(index, addr)| format!("{addr}%{index}")),
    }
}
