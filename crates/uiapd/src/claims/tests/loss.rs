//! What a claim round and the watchers of held claims are told of possible loss: datagrams the
//! kernel dropped (docs/uiap-design.md D70), a split neighbour (D71), a step of this host's
//! clock (D76), Claim-Denies not sent (D79), losses other devices reported (D80).

use super::*;

#[test]
fn kernel_drops_fail_a_claim_in_its_round_and_are_told_to_held_claims_watchers() {
    let (mut b, mut events) = holding();
    let mut rx = b.claim(request("06"), 0);
    let at = Duration::from_micros(b.now.as_micros()) + Duration::from_millis(100);
    b.logs.overflowed.record_n(
        (0, std::net::Ipv6Addr::UNSPECIFIED),
        SourceDrop::RateLimited,
        40,
        at,
    );
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Failed { reason, .. }) = next(&mut rx) else {
        panic!("expected failed")
    };
    assert!(
        reason
            .contains("40 datagrams dropped by the kernel, its receive queue full, while claiming"),
        "{reason}"
    );
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.tell_suppressed(&ctx);
    let told = told(&mut events);
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!((told[0].0, told[0].1), (1, EventKind::Suppressed));
    assert!(told[0].2.contains("dropped by the kernel"), "{}", told[0].2);
}

#[test]
fn a_split_neighbour_fails_new_claims_and_is_told_to_held_claims_watchers() {
    let (mut b, mut events) = holding();
    let neighbour = (2, "fe80::1".parse().unwrap());
    let at = Duration::from_micros(b.now.as_micros());
    // One stale datagram may be a replay: a claim is still granted.
    b.logs.splits.record(neighbour, 40_000, at);
    let mut rx = b.claim(request("06"), 0);
    b.run_for(Duration::from_secs(3));
    assert!(matches!(
        next(&mut rx),
        Response::Claim(ClaimAnswer::Claimed { .. })
    ));
    // A second one agreeing on the offset: the neighbour's clock is 40 s ahead.
    b.logs
        .splits
        .record(neighbour, 40_050, at + Duration::from_secs(1));
    let mut rx = b.claim(request("07"), 0);
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Failed { reason, .. }) = next(&mut rx) else {
        panic!("expected failed")
    };
    assert!(
        reason.starts_with("neighbour fe80::1%2 seals authenticated datagrams 40.050 s ahead"),
        "{reason}"
    );
    assert!(reason.ends_with("nothing is claimed"), "{reason}");
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.tell_suppressed(&ctx);
    let told = told(&mut events);
    assert!(told.len() >= 2, "{told:?}");
    assert!(
        told.iter()
            .filter(|(_, kind, _)| *kind == EventKind::Suppressed)
            .all(|(_, _, why)| why.contains("fe80::1%2") && why.contains("40.050 s ahead")),
        "{told:?}"
    );
}

#[test]
fn a_step_of_this_hosts_clock_is_told_to_held_claims_watchers_at_once() {
    let (mut b, mut events) = holding();
    let at = Duration::from_micros(b.now.as_micros());
    // A split neighbour was just told of.
    let neighbour = (2, "fe80::1".parse().unwrap());
    b.logs.splits.record(neighbour, 40_000, at);
    b.logs.splits.record(neighbour, 40_050, at);
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.tell_suppressed(&ctx);
    assert!(!told(&mut events).is_empty());
    // Within the 5 s that hold back news of more drops, this host's clock steps: told at once.
    b.logs.splits.stepped(crate::link::Step {
        step_ms: -45_000,
        at: at + Duration::from_millis(100),
    });
    b.now += Duration::from_millis(100);
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.tell_suppressed(&ctx);
    let told_now = told(&mut events);
    assert!(!told_now.is_empty());
    assert!(
        told_now
            .iter()
            .all(|(_, kind, why)| *kind == EventKind::Suppressed
                && why.starts_with("this host's wall clock stepped 45.000 s back")
                && why.contains("another device may hold an overlapping claim")),
        "{told_now:?}"
    );
    // Told once.
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.tell_suppressed(&ctx);
    assert!(told(&mut events).is_empty());
}

#[test]
fn denies_not_sent_are_told_to_held_claims_watchers_and_fail_no_claim_of_this_device() {
    let (mut b, mut events) = holding();
    let mut rx = b.claim(request("06"), 0);
    let at = Duration::from_micros(b.now.as_micros()) + Duration::from_millis(100);
    b.logs.unsent.record_n(
        (0, std::net::Ipv6Addr::UNSPECIFIED),
        SourceDrop::RateLimited,
        3,
        at,
    );
    b.run_for(Duration::from_secs(3));
    // Its own round lost nothing: a Deny this device did not send answered another's claim.
    assert!(matches!(
        next(&mut rx),
        Response::Claim(ClaimAnswer::Claimed { .. })
    ));
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.tell_suppressed(&ctx);
    let told = told(&mut events);
    let first = told
        .iter()
        .find(|(id, _, _)| *id == 1)
        .expect("claim 1 told");
    assert_eq!(first.1, EventKind::Suppressed);
    assert!(
        first
            .2
            .contains("3 Claim-Denies not sent, their neighbours unresolved"),
        "{}",
        first.2
    );
}

/// The limit on how often watchers hear of drops must not keep the news from a claim held
/// since they last heard it: it is its first.
#[test]
fn a_claim_held_since_the_last_telling_is_told_of_the_next_loss_at_once() {
    let (mut b, mut events) = holding();
    let drop_now = |b: &mut Bench| {
        let at = Duration::from_micros(b.now.as_micros());
        b.logs.overflowed.record_n(
            (0, std::net::Ipv6Addr::UNSPECIFIED),
            SourceDrop::RateLimited,
            5,
            at,
        );
        let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
        b.table.tell_suppressed(&ctx);
    };
    drop_now(&mut b);
    let first: Vec<u64> = told(&mut events).iter().map(|t| t.0).collect();
    assert_eq!(first, [1]);
    // Drops are counted by the second: the claim starts in the next.
    b.now += Duration::from_millis(1_100);
    let mut rx = b.claim(request("06"), 0);
    b.run_for(Duration::from_secs(3));
    assert!(matches!(
        next(&mut rx),
        Response::Claim(ClaimAnswer::Claimed { .. })
    ));
    // 4.1 s after the last telling, more drops: claim 2 hears of them now, claim 1 not again.
    drop_now(&mut b);
    let second: Vec<(u64, EventKind)> = told(&mut events).iter().map(|t| (t.0, t.1)).collect();
    assert_eq!(second, [(2, EventKind::Suppressed)]);
    // Told once: the next drops within the limit are news to nobody.
    b.now += Duration::from_millis(100);
    drop_now(&mut b);
    assert!(told(&mut events).is_empty());
}

#[test]
fn a_loss_reported_by_another_device_fails_a_claim_in_its_round_and_tells_recent_held_claims() {
    let (mut b, mut events) = holding();
    // Claim 1 (05) was made long before the losses.
    b.run_for(Duration::from_secs(40));
    let elapsed = |b: &Bench| Duration::from_micros(b.now.as_micros());
    let notice = |at: Duration, window_ms: u64| crate::link::Notice {
        at,
        origin: uiap::wire::DeviceId::new(0xb).unwrap(),
        lost: 12,
        window: Duration::from_millis(window_ms),
    };

    // A notice while claim 2 (06) is in its round: it fails.
    let mut rx = b.claim(request("06"), 0);
    b.logs
        .reported
        .record(notice(elapsed(&b) + Duration::from_millis(100), 20));
    b.run_for(Duration::from_secs(3));
    let Response::Claim(ClaimAnswer::Failed { reason, .. }) = next(&mut rx) else {
        panic!("expected failed")
    };
    assert!(
        reason.starts_with(
            "12 datagrams reported lost by 1 other device (Loss-Notices), while claiming: a \
             Claim-Deny among them would not have counted"
        ),
        "{reason}"
    );
    // Held claims are not told of it by the drop path: their rounds are over.
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.tell_suppressed(&ctx);
    assert_eq!(told(&mut events), []);

    // Claim 3 (07) succeeds; a notice comes a second later whose losses span 2 s: claim 3's
    // round may have overlapped them, claim 1's did not.
    b.run_for(Duration::from_secs(10));
    let mut rx = b.claim(request("07"), 0);
    b.run_for(Duration::from_secs(3));
    assert!(matches!(
        next(&mut rx),
        Response::Claim(ClaimAnswer::Claimed { .. })
    ));
    b.run_for(Duration::from_secs(1));
    let late = notice(elapsed(&b), 2_000);
    b.logs.reported.record(late);
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.reported_loss(&ctx, &late);
    let told_now = told(&mut events);
    assert_eq!(told_now.len(), 1, "{told_now:?}");
    assert_eq!((told_now[0].0, told_now[0].1), (3, EventKind::Suppressed));
    assert!(
        told_now[0].2.starts_with(
            "device 000000000000000b reported 12 datagrams lost within 2000 ms, and this claim's \
             round may have overlapped them"
        ),
        "{}",
        told_now[0].2
    );
    // The same notice long after any round it could touch: nobody is told.
    b.run_for(Duration::from_secs(20));
    let later = notice(elapsed(&b), 2_000);
    let ctx = Bench::ctx_of(&mut b.device, &b.logs, b.now, false);
    b.table.reported_loss(&ctx, &later);
    let suppressed: Vec<_> = told(&mut events)
        .into_iter()
        .filter(|(_, kind, _)| *kind == EventKind::Suppressed)
        .collect();
    assert_eq!(suppressed, []);
}
