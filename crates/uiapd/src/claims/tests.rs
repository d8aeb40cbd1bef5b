//! The claim table against a real protocol device on a site of one, on a virtual clock.

use std::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use tokio::sync::mpsc;
use uiap::device::{Device, Event};
use uiap::time::Instant;
use uiap::wire::DeviceId;
use uiap_control::{
    ClaimAnswer, ClaimRequest, ClaimState, ClaimView, EventKind, Response, SpaceText,
};

use super::{ClaimTable, Ctx};
use crate::link::{AuthFailureLog, ReportedLosses, SourceDrop, Splits};
use crate::store::{Claims, Store, StoredClaim};

/// Seconds since the Unix epoch at the virtual clock's zero.
const WALL: u64 = 1_700_000_000;

/// A table, its device and its store, on a clock that only moves when told.
struct Bench {
    _dir: tempfile::TempDir,
    store: Store,
    device: Device<ChaCha20Rng>,
    table: ClaimTable,
    now: Instant,
    networked: bool,
    /// What the link would have recorded.
    logs: Logs,
}

/// Authentication failures and rate-limit drops, as the link records them.
struct Logs {
    auth: AuthFailureLog,
    suppressed: AuthFailureLog,
    overflowed: AuthFailureLog,
    unsent: AuthFailureLog,
    reported: ReportedLosses,
    splits: Splits,
}

impl Bench {
    fn new() -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let config = uiap::config::Config {
            start_jitter: Duration::ZERO,
            auto_renew: false,
            ..uiap::config::Config::default()
        };
        let device = Device::new(
            config,
            DeviceId::new(7).unwrap(),
            ChaCha20Rng::from_seed([7; 32]),
        );
        Bench {
            table: ClaimTable::new(store.clone()),
            store,
            _dir: dir,
            device,
            now: Instant::from_micros(0),
            networked: false,
            logs: Logs {
                auth: AuthFailureLog::new(),
                suppressed: AuthFailureLog::rate_limited(),
                overflowed: AuthFailureLog::kernel_overflow(),
                unsent: AuthFailureLog::denies_unsent(),
                reported: ReportedLosses::default(),
                splits: Splits::default(),
            },
        }
    }

    /// Claims as `owner`; the channel its answers come on.
    fn claim(&mut self, request: ClaimRequest, owner: u32) -> mpsc::Receiver<Response> {
        let (tx, rx) = mpsc::channel(8);
        let mut ctx = Bench::ctx_of(&mut self.device, &self.logs, self.now, self.networked);
        self.table.claim(&mut ctx, request, owner, tx);
        rx
    }

    fn ctx_of<'a>(
        device: &'a mut Device<ChaCha20Rng>,
        logs: &'a Logs,
        now: Instant,
        networked: bool,
    ) -> Ctx<'a> {
        Ctx {
            device,
            auth: &logs.auth,
            suppressed: &logs.suppressed,
            overflowed: &logs.overflowed,
            unsent: &logs.unsent,
            reported: &logs.reported,
            splits: &logs.splits,
            clocks: None,
            now,
            wall: WALL + now.as_micros() / 1_000_000,
            networked,
        }
    }

    /// Moves the clock by `by`, in steps of 100 ms, handing the device's events to the table
    /// as the daemon does; persists when they say so.
    fn run_for(&mut self, by: Duration) {
        let end = self.now + by;
        while self.now < end {
            self.now = (self.now + Duration::from_millis(100)).min(end);
            let mut ctx = Bench::ctx_of(&mut self.device, &self.logs, self.now, self.networked);
            ctx.device.handle_timeout(ctx.now);
            self.table.renew_due(&mut ctx);
            self.table.cancel_abandoned(&mut ctx);
            let mut changed = false;
            while let Some(event) = ctx.device.poll_event() {
                changed |= match event {
                    Event::ClaimSucceeded { claim, expires } => {
                        self.table.succeeded(&mut ctx, claim, expires)
                    }
                    Event::ClaimRenewed { claim, expires } => {
                        self.table.renewed(&mut ctx, claim, expires)
                    }
                    Event::ClaimDenied { claim, reason } => {
                        self.table.denied(&mut ctx, claim, &reason)
                    }
                    Event::ClaimExpired { claim } => self.table.expired(&mut ctx, claim),
                    _ => false,
                };
            }
            if changed {
                self.table.persist();
            }
        }
    }

    fn list(&self) -> Vec<ClaimView> {
        match self.table.list(self.now) {
            Response::Claims(c) => c,
            other => panic!("expected a list, found {other:?}"),
        }
    }
}

fn request(uid: &str) -> ClaimRequest {
    ClaimRequest {
        lifetime: 60,
        ..ClaimRequest::new("fff:0:1:0", SpaceText::Uid(uid.into()))
    }
}

fn next(rx: &mut mpsc::Receiver<Response>) -> Response {
    rx.try_recv().expect("an answer")
}

fn refusal(r: Response) -> String {
    match r {
        Response::Error(e) => e.message,
        other => panic!("expected a refusal, found {other:?}"),
    }
}

#[test]
fn a_claim_on_a_site_of_one_is_held_answered_and_persisted() {
    let mut b = Bench::new();
    let mut rx = b.claim(request("c0a8"), 1000);
    assert!(
        rx.try_recv().is_err(),
        "no answer before the claim window ends"
    );
    assert_eq!(b.list()[0].state, ClaimState::Claiming);
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Claimed {
        claim,
        note,
        auth_failures,
        clock,
    }) = next(&mut rx)
    else {
        panic!("expected claimed")
    };
    assert_eq!(auth_failures, None);
    // Without a key nothing is known of the neighbours' clocks (docs/uiap-design.md D72).
    assert_eq!(clock, None);
    assert_eq!(
        note.as_deref(),
        Some("a site of one: no participating interface")
    );
    assert_eq!(
        (claim.id, claim.state, claim.expires_in),
        (1, ClaimState::Held, Some(60))
    );
    let stored = b.store.load_claims().unwrap();
    assert_eq!(stored.next_id, 2);
    assert_eq!(stored.claims.len(), 1);
    assert_eq!(stored.claims[0].owner, 1000);
    assert_eq!(stored.claims[0].space, SpaceText::Uid("c0a8".into()));
    assert_eq!(stored.claims[0].expires_at, Some(WALL + 2 + 60));
}

#[test]
fn a_malformed_claim_is_refused_at_once_and_nothing_is_claimed() {
    let mut b = Bench::new();
    let cases = [
        (
            ClaimRequest {
                lifetime: 0,
                ..request("01")
            },
            "lifetime: expected at least 1 second, found 0",
        ),
        (
            ClaimRequest {
                renew: true,
                lifetime: 5,
                ..request("01")
            },
            "lifetime: expected at least 10 s for a renewed claim, found 5",
        ),
        (
            ClaimRequest::new("fff:0:0", SpaceText::Uid("01".into())),
            "domain: ",
        ),
        (
            request("c0g8"),
            "uid: expected a hex digit, found `g` at 2 in `c0g8`",
        ),
    ];
    for (r, message) in cases {
        let text = refusal(next(&mut b.claim(r, 0)));
        assert!(text.starts_with(message), "{text}");
    }
    assert!(b.list().is_empty());
}

#[test]
fn an_overlapping_claim_of_this_device_is_denied_at_once_with_id_0() {
    let mut b = Bench::new();
    let _first = b.claim(request("c0a8"), 0);
    let prefix = ClaimRequest::new("fff:0:1:0", SpaceText::Prefix("c0/4".into()));
    let Response::Claim(ClaimAnswer::Denied { claim, reason }) = next(&mut b.claim(prefix, 0))
    else {
        panic!("expected denied")
    };
    assert_eq!((claim.id, claim.state), (0, ClaimState::Denied));
    assert_eq!(reason, "local conflict with claim 1");
    assert_eq!(b.list().len(), 1);
}

#[test]
fn only_the_owner_or_root_releases_and_an_unknown_id_is_named() {
    let mut b = Bench::new();
    let mut rx = b.claim(request("01"), 1000);
    b.run_for(Duration::from_secs(3));
    let _claimed = next(&mut rx);
    let now = b.now;
    let mut ctx = Bench::ctx_of(&mut b.device, &b.logs, now, false);
    assert_eq!(
        refusal(b.table.release(&mut ctx, 1, 1001)),
        "release: claim 1 belongs to uid 1000; only that user or root may release it"
    );
    assert_eq!(
        refusal(b.table.release(&mut ctx, 9, 0)),
        "release: expected a claim id, found no claim 9"
    );
    assert_eq!(
        b.table.release(&mut ctx, 1, 0),
        Response::Released { id: 1 }
    );
    assert!(b.list().is_empty());
    assert!(b.store.load_claims().unwrap().claims.is_empty());
}

#[test]
fn a_watcher_gets_the_claims_then_their_events() {
    let mut b = Bench::new();
    let mut rx = b.claim(request("01"), 0);
    b.run_for(Duration::from_secs(3));
    let _claimed = next(&mut rx);
    let (tx, mut events) = mpsc::channel(8);
    b.table.watch(b.now, Some(1), false, 0, tx);
    let Response::Watching(claims) = next(&mut events) else {
        panic!("expected watching")
    };
    assert_eq!(claims.len(), 1);
    // Unrenewed, with a 60 s lifetime: it expires, and the watcher hears it.
    b.run_for(Duration::from_secs(60));
    let Response::Event(e) = next(&mut events) else {
        panic!("expected an event")
    };
    assert_eq!(
        (e.id, e.kind, e.claim.state),
        (1, EventKind::Expired, ClaimState::Expired)
    );
    assert_eq!(b.list()[0].state, ClaimState::Expired);
    assert!(
        b.store.load_claims().unwrap().claims.is_empty(),
        "ended claims are not persisted"
    );
    // Watching needs a claim that exists, and tying a claim to a connection needs its id.
    for (id, release_on_close, message) in [
        (
            Some(9),
            false,
            "watch: expected a claim id, found no claim 9",
        ),
        (
            None,
            true,
            "watch: release_on_close needs the id of one claim",
        ),
    ] {
        let (tx, mut rx) = mpsc::channel(8);
        b.table.watch(b.now, id, release_on_close, 0, tx);
        assert_eq!(refusal(next(&mut rx)), message);
    }
    // Tying another user's claim to one's connection is refused when asked, not when it
    // closes.
    let mut rx = b.claim(request("0e"), 0);
    b.run_for(Duration::from_secs(3));
    let _claimed = next(&mut rx);
    let (tx, mut rx) = mpsc::channel(8);
    b.table.watch(b.now, Some(2), true, 1000, tx);
    assert_eq!(
        refusal(next(&mut rx)),
        "watch: release_on_close: claim 2 belongs to uid 0; only that user or root may release it"
    );
}

#[test]
fn a_renewed_claim_is_renewed_before_it_ends() {
    let mut b = Bench::new();
    let renewed = ClaimRequest {
        renew: true,
        lifetime: 20,
        ..request("02")
    };
    let mut rx = b.claim(renewed, 0);
    b.run_for(Duration::from_secs(3));
    let _claimed = next(&mut rx);
    let (tx, mut events) = mpsc::channel(8);
    b.table.watch(b.now, None, false, 0, tx);
    let _watching = next(&mut events);
    // Renewed at 75 % of 20 s (15 s), and again: never expired.
    b.run_for(Duration::from_secs(45));
    let kinds: Vec<EventKind> = std::iter::from_fn(|| events.try_recv().ok())
        .map(|r| match r {
            Response::Event(e) => e.kind,
            other => panic!("expected an event, found {other:?}"),
        })
        .collect();
    assert!(
        kinds.len() >= 2 && kinds.iter().all(|k| *k == EventKind::Renewed),
        "{kinds:?}"
    );
    assert_eq!(b.list()[0].state, ClaimState::Held);
}

#[test]
fn a_claim_whose_client_went_away_is_cancelled_and_never_persisted() {
    let mut b = Bench::new();
    let rx = b.claim(request("03"), 0);
    drop(rx);
    b.run_for(Duration::from_secs(3));
    assert!(b.list().is_empty());
    assert!(b.store.load_claims().unwrap().claims.is_empty());
    // A claim tied to its watcher's connection is released when that closes.
    let mut rx = b.claim(request("04"), 0);
    b.run_for(Duration::from_secs(3));
    let _claimed = next(&mut rx);
    let (tx, watching) = mpsc::channel(8);
    b.table.watch(b.now, Some(2), true, 0, tx);
    drop(watching);
    b.run_for(Duration::from_millis(100));
    assert!(b.list().is_empty(), "{:?}", b.list());
}

#[test]
fn losing_every_interface_fails_a_first_round_but_suspends_a_reclaim() {
    let mut b = Bench::new();
    b.networked = true;
    let mut rx = b.claim(request("05"), 0);
    let mut ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.network_lost(&mut ctx);
    let Response::Claim(ClaimAnswer::Failed { claim, reason }) = next(&mut rx) else {
        panic!("expected failed")
    };
    assert_eq!(claim.map(|c| c.id), Some(1));
    assert_eq!(
        reason,
        "every participating interface left while claiming; nothing was claimed"
    );
    assert!(b.list().is_empty());
    // A persisted claim reclaimed after a restart waits for an interface instead.
    let stored = StoredClaim {
        id: 4,
        domain: "fff:0:1:0".into(),
        space: SpaceText::Uid("06".into()),
        lifetime: 60,
        proxy: false,
        owner: 0,
        renew: true,
        expires_at: None,
        origin: None,
        release_on_close: None,
    };
    let mut ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, true);
    b.table.reclaim_persisted(
        &mut ctx,
        Claims {
            next_id: 5,
            claims: vec![stored],
        },
    );
    b.table.network_lost(&mut ctx);
    assert_eq!(b.list()[0].state, ClaimState::Claiming);
    let mut ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, true);
    b.table.network_back(&mut ctx);
    b.run_for(Duration::from_secs(3));
    assert_eq!(b.list()[0].state, ClaimState::Held);
}

#[test]
fn a_restart_reclaims_only_claims_whose_lifetime_has_not_ended() {
    let mut b = Bench::new();
    let claim = |id: u64, uid: &str, expires_at| StoredClaim {
        id,
        domain: "fff:0:1:0".into(),
        space: SpaceText::Uid(uid.into()),
        lifetime: 60,
        proxy: false,
        owner: 0,
        renew: false,
        expires_at,
        origin: None,
        release_on_close: None,
    };
    // A claim its client tied to its connection: that connection ended with the previous run.
    let tied = StoredClaim {
        release_on_close: Some(1000),
        ..claim(5, "0b", Some(WALL + 30))
    };
    let persisted = Claims {
        next_id: 3,
        claims: vec![
            claim(1, "07", Some(WALL)),
            claim(7, "08", Some(WALL + 30)),
            tied,
        ],
    };
    let mut ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.reclaim_persisted(&mut ctx, persisted);
    let ids: Vec<u64> = b.list().iter().map(|c| c.id).collect();
    assert_eq!(
        ids,
        [7],
        "neither the ended claim nor the tied one is reclaimed"
    );
    let kept: Vec<u64> = b
        .store
        .load_claims()
        .unwrap()
        .claims
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(
        kept,
        [7],
        "the tied claim is released from the state directory too"
    );
    b.run_for(Duration::from_secs(3));
    // Reclaimed for what was left of its lifetime (30 s from the reclaim's success, 1 s ago);
    // new IDs continue after the persisted ones.
    assert_eq!(b.list()[0].expires_in, Some(29));
    let mut rx = b.claim(request("09"), 0);
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Claimed { claim, .. }) = next(&mut rx) else {
        panic!("expected claimed")
    };
    assert_eq!(claim.id, 8);
}

#[test]
fn shutting_down_tells_every_claim_still_waiting() {
    let mut b = Bench::new();
    let mut rx = b.claim(request("0a"), 0);
    assert_eq!(b.table.shut_down().len(), 1, "where the answer went");
    assert_eq!(
        next(&mut rx),
        Response::Claim(ClaimAnswer::Failed {
            claim: None,
            reason: "the daemon is shutting down".into()
        })
    );
}

#[test]
fn a_claim_or_release_that_cannot_be_persisted_is_not_acknowledged() {
    let mut b = Bench::new();
    let mut held = b.claim(request("0c"), 0);
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Claimed { claim, .. }) = next(&mut held) else {
        panic!("expected claimed")
    };
    // The state directory goes away: every write fails.
    std::fs::remove_dir_all(b._dir.path()).unwrap();
    let mut rx = b.claim(request("0d"), 0);
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Failed { reason, .. }) = next(&mut rx) else {
        panic!("expected a failure")
    };
    assert!(reason.starts_with("cannot persist the claim"), "{reason}");
    let mut ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    let Response::Error(e) = b.table.release(&mut ctx, claim.id, 0) else {
        panic!("expected a refusal")
    };
    assert!(e.message.contains("cannot persist the release"), "{e:?}");
    let listed: Vec<_> = b.list().into_iter().map(|c| (c.id, c.state)).collect();
    assert_eq!(listed, [(claim.id, ClaimState::Held)]);
    assert_eq!(b.table.persist_failures(), 2);
}

#[test]
fn a_claim_answer_says_how_many_datagrams_failed_authentication_before_it() {
    let mut b = Bench::new();
    // Long before the claim: not counted.
    let old = "fe80::9".parse().unwrap();
    b.logs
        .auth
        .record((2, old), SourceDrop::PskMismatch, Duration::ZERO);
    b.now = Instant::from_secs(1000);
    // Within the look-back before the claim, and during it.
    let before = Duration::from_secs(900);
    let during = Duration::from_millis(1_001_500);
    for (addr, reason, at) in [
        ("fe80::1", SourceDrop::PskMismatch, before),
        ("fe80::1", SourceDrop::PskMismatch, during),
        ("fe80::2", SourceDrop::PskStale, during),
    ] {
        b.logs.auth.record((2, addr.parse().unwrap()), reason, at);
    }
    let mut rx = b.claim(request("c0a8"), 1000);
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Claimed { auth_failures, .. }) = next(&mut rx) else {
        panic!("expected claimed")
    };
    let failed = auth_failures.expect("failures before the answer");
    assert_eq!(
        (failed.datagrams, failed.neighbours, failed.seconds),
        (3, 2, 302)
    );
    // Once they are further back than the look-back, a claim is answered without them.
    b.now = Instant::from_secs(1400);
    let mut rx = b.claim(request("c0a9"), 1000);
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Claimed { auth_failures, .. }) = next(&mut rx) else {
        panic!("expected claimed")
    };
    assert_eq!(auth_failures, None);
}

#[test]
fn isolation_is_told_to_watchers_and_a_joined_interface_announces_renewed_claims_again() {
    let mut b = Bench::new();
    b.networked = true;
    let renewed = ClaimRequest {
        renew: true,
        ..request("03")
    };
    let mut rx = b.claim(renewed, 0);
    let mut fixed = b.claim(request("04"), 0);
    b.run_for(Duration::from_secs(3));
    let _ = (next(&mut rx), next(&mut fixed));
    let (tx, mut events) = mpsc::channel(8);
    b.table.watch(b.now, None, false, 0, tx);
    let _watching = next(&mut events);
    let mut ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.network_lost(&mut ctx);
    let told: Vec<(u64, EventKind, ClaimState)> = std::iter::from_fn(|| events.try_recv().ok())
        .map(|r| match r {
            Response::Event(e) => (e.id, e.kind, e.claim.state),
            other => panic!("expected an event, found {other:?}"),
        })
        .collect();
    assert_eq!(
        told,
        [
            (1, EventKind::Isolated, ClaimState::Held),
            (2, EventKind::Isolated, ClaimState::Held)
        ]
    );
    // An interface joins: the renewed claim is announced again at once (a reclaim round,
    // renewed well before its renewal at 45 s); the one with a fixed lifetime is not.
    let mut ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, true);
    b.table.network_back(&mut ctx);
    b.table.announce_held(&mut ctx, "an interface joined");
    b.run_for(Duration::from_secs(3));
    let after: Vec<(u64, EventKind)> = std::iter::from_fn(|| events.try_recv().ok())
        .map(|r| match r {
            Response::Event(e) => (e.id, e.kind),
            other => panic!("expected an event, found {other:?}"),
        })
        .collect();
    assert_eq!(after, [(1, EventKind::Renewed)]);
    // Its lifetime did not start again.
    assert_eq!(b.list()[1].expires_in, Some(56));
}

#[test]
fn rate_limit_drops_fail_a_claim_in_its_round_and_are_told_to_held_claims_watchers() {
    let (mut b, mut events) = holding();
    // A neighbour's datagram dropped by the rate limit while a claim is in its round.
    let mut rx = b.claim(request("06"), 0);
    let at = Duration::from_micros(b.now.as_micros()) + Duration::from_millis(100);
    let neighbour = (2, "fe80::1".parse().unwrap());
    b.logs
        .suppressed
        .record(neighbour, SourceDrop::RateLimited, at);
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Failed { reason, .. }) = next(&mut rx) else {
        panic!("expected failed")
    };
    assert!(
        reason.contains("1 datagram from 1 neighbour dropped by the rate limit"),
        "{reason}"
    );
    let listed: Vec<_> = b.list().into_iter().map(|c| c.id).collect();
    assert_eq!(listed, [1], "nothing is claimed");
    // The held claim's watcher is told, once within the interval whatever the drops.
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.tell_suppressed(&ctx);
    b.table.tell_suppressed(&ctx);
    let told: Vec<(u64, EventKind, ClaimState)> = std::iter::from_fn(|| events.try_recv().ok())
        .map(|r| match r {
            Response::Event(e) => (e.id, e.kind, e.claim.state),
            other => panic!("expected an event, found {other:?}"),
        })
        .collect();
    assert_eq!(told, [(1, EventKind::Suppressed, ClaimState::Held)]);
    // A claim with no drops in its round is granted.
    let mut rx = b.claim(request("07"), 0);
    b.run_for(Duration::from_secs(3));
    assert!(matches!(
        next(&mut rx),
        Response::Claim(ClaimAnswer::Claimed { .. })
    ));
}

#[test]
fn claim_ids_wrap_to_1_and_skip_the_ids_in_use() {
    let mut b = Bench::new();
    let stored = |id: u64, uid: &str| StoredClaim {
        id,
        domain: "fff:0:1:0".into(),
        space: SpaceText::Uid(uid.into()),
        lifetime: 600,
        proxy: false,
        owner: 0,
        renew: true,
        expires_at: None,
        origin: None,
        release_on_close: None,
    };
    let persisted = Claims {
        next_id: u64::MAX,
        claims: vec![stored(u64::MAX, "60"), stored(1, "61")],
    };
    let mut ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.reclaim_persisted(&mut ctx, persisted);
    b.run_for(Duration::from_secs(3));
    let mut rx = b.claim(request("62"), 0);
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Claimed { claim, .. }) = next(&mut rx) else {
        panic!("expected claimed")
    };
    assert_eq!(claim.id, 2, "u64::MAX and 1 are in use");
    let ids: Vec<u64> = b.list().iter().map(|c| c.id).collect();
    assert_eq!(ids, [1, 2, u64::MAX]);
}

/// The held claim's watcher's events, drained.
fn told(events: &mut mpsc::Receiver<Response>) -> Vec<(u64, EventKind, String)> {
    std::iter::from_fn(|| events.try_recv().ok())
        .map(|r| match r {
            Response::Event(e) => (e.id, e.kind, e.reason.unwrap_or_default()),
            other => panic!("expected an event, found {other:?}"),
        })
        .collect()
}

/// A bench holding claim 1 (UID 05), and a watcher of it.
fn holding() -> (Bench, mpsc::Receiver<Response>) {
    let mut b = Bench::new();
    let mut held = b.claim(request("05"), 0);
    b.run_for(Duration::from_secs(3));
    assert!(matches!(
        next(&mut held),
        Response::Claim(ClaimAnswer::Claimed { .. })
    ));
    let (tx, mut events) = mpsc::channel(8);
    b.table.watch(b.now, None, false, 0, tx);
    let _watching = next(&mut events);
    (b, events)
}

mod loss;
