//! The link's way in, check by check, and its seal.

use std::collections::BTreeSet;
use std::time::Duration;

use super::*;

const GROUP: Ipv6Addr = crate::config::DEFAULT_GROUP;

/// A Claim-Attempt's first octets (version 1, type 0): enough for the port check.
const ATTEMPT: [u8; 4] = [1, 0x00, 0, 32];
/// A Claim-Deny's (type 1).
const DENY: [u8; 4] = [1, 0x10, 0, 32];

fn received(role: Role, len: usize, destination: Ipv6Addr) -> Received {
    Received {
        role,
        source: "[fe80::1%2]:61001".parse().unwrap(),
        interface: Some(2),
        destination: Some(destination),
        hop_limit: Some(255),
        len,
        truncated: false,
    }
}

fn known() -> BTreeSet<u32> {
    BTreeSet::from([2])
}

fn drops(link: &Link) -> Vec<(&'static str, u64)> {
    link.counts()
        .drops
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect()
}

#[test]
fn a_datagram_that_passes_every_check_reaches_the_device_whole() {
    let mut link = Link::new(GROUP, None, (1, 2));
    let r = received(Role::Claim, ATTEMPT.len(), GROUP);
    let (peer, bytes) = link
        .admit(Ok(r), &ATTEMPT, &known(), Duration::ZERO)
        .expect("admitted");
    assert_eq!(peer.interface, InterfaceId(2));
    assert_eq!(peer.addr, "fe80::1".parse::<Ipv6Addr>().unwrap());
    assert_eq!(bytes, ATTEMPT);
    assert!(drops(&link).is_empty());
    assert_eq!(link.counts().receive_buffers, (1, 2));
    // Without a key nothing is sealed.
    assert_eq!(link.seal(ATTEMPT.to_vec()), ATTEMPT);
}

#[test]
fn each_refusal_is_counted_by_its_reason() {
    let mut link = Link::new(GROUP, None, (0, 0));
    let now = Duration::ZERO;
    let err = std::io::Error::other("test");
    assert!(link.admit(Err(err), &ATTEMPT, &known(), now).is_none());
    let mut far = received(Role::Claim, 4, GROUP);
    far.hop_limit = Some(64);
    assert!(link.admit(Ok(far), &ATTEMPT, &known(), now).is_none());
    let elsewhere = received(Role::Claim, 4, GROUP);
    assert!(
        link.admit(Ok(elsewhere), &ATTEMPT, &BTreeSet::from([3]), now)
            .is_none()
    );
    let deny_on_claim_port = received(Role::Claim, 4, GROUP);
    assert!(
        link.admit(Ok(deny_on_claim_port), &DENY, &known(), now)
            .is_none()
    );
    let attempt_unicast = received(Role::Claim, 4, "fe80::2".parse().unwrap());
    assert!(
        link.admit(Ok(attempt_unicast), &ATTEMPT, &known(), now)
            .is_none()
    );
    assert_eq!(
        drops(&link),
        [
            ("hop_limit_not_255", 1),
            ("unknown_interface", 1),
            ("recv_error", 1),
            ("attempt_not_multicast", 1),
            ("deny_on_claim_port", 1),
        ]
    );
    link.send_failed();
    assert_eq!(link.counts().send_errors, 1);
}

#[test]
fn a_neighbour_past_its_burst_is_rate_limited_per_socket() {
    let mut link = Link::new(GROUP, None, (0, 0));
    let now = Duration::ZERO;
    let passed = (0..NEIGHBOUR_BURST + 10)
        .filter(|_| {
            let r = received(Role::Claim, 4, GROUP);
            link.admit(Ok(r), &ATTEMPT, &known(), now).is_some()
        })
        .count();
    assert_eq!(passed, NEIGHBOUR_BURST as usize);
    assert_eq!(drops(&link), [("rate_limited", 10)]);
    // Its Denies have a budget of their own.
    let r = received(Role::Reply, 4, "fe80::2".parse().unwrap());
    assert!(link.admit(Ok(r), &DENY, &known(), now).is_some());
}

#[test]
fn with_a_key_only_fresh_datagrams_sealed_with_it_pass() {
    let key = b"site key".to_vec();
    let mut sender = Link::new(GROUP, Some(key.clone()), (0, 0));
    let mut receiver = Link::new(GROUP, Some(key), (0, 0));
    let now = Duration::ZERO;
    let sealed = sender.seal(ATTEMPT.to_vec());
    assert_eq!(sealed.len(), ATTEMPT.len() + psk::TRAILER_LEN);
    let admit = |link: &mut Link, bytes: &[u8]| {
        let r = received(Role::Claim, bytes.len(), GROUP);
        link.admit(Ok(r), bytes, &known(), now)
            .map(|(_, m)| m.to_vec())
    };
    assert_eq!(admit(&mut receiver, &sealed), Some(ATTEMPT.to_vec()));
    assert_eq!(admit(&mut receiver, &sealed), None, "a replay");
    assert_eq!(
        admit(&mut sender, &sealed),
        None,
        "our own datagram coming back"
    );
    assert_eq!(admit(&mut receiver, &ATTEMPT), None, "no trailer");
    let mut other = Link::new(GROUP, Some(b"another key".to_vec()), (0, 0));
    let forged = other.seal(ATTEMPT.to_vec());
    assert_eq!(admit(&mut receiver, &forged), None);
    assert_eq!(
        drops(&receiver),
        [("psk_missing", 1), ("psk_mismatch", 1), ("psk_replay", 1)]
    );
    assert_eq!(drops(&sender), [("psk_replay", 1)]);
}

#[test]
fn with_a_key_failures_are_recorded_per_neighbour_and_replays_are_not() {
    let mut receiver = Link::new(GROUP, Some(b"site key".to_vec()), (0, 0));
    let mut other = Link::new(GROUP, Some(b"another key".to_vec()), (0, 0));
    let mut ours = Link::new(GROUP, Some(b"site key".to_vec()), (0, 0));
    let mut admit = |bytes: &[u8], source: &str| {
        let mut r = received(Role::Claim, bytes.len(), GROUP);
        r.source = source.parse().unwrap();
        receiver
            .admit(Ok(r), bytes, &known(), Duration::from_secs(1))
            .is_some()
    };
    let sealed = ours.seal(ATTEMPT.to_vec());
    assert!(admit(&sealed, "[fe80::1%2]:61001"));
    assert!(!admit(&sealed, "[fe80::1%2]:61001"), "a replay");
    assert!(!admit(&other.seal(ATTEMPT.to_vec()), "[fe80::2%2]:61001"));
    assert!(!admit(&other.seal(ATTEMPT.to_vec()), "[fe80::2%2]:61001"));
    assert!(!admit(&ATTEMPT, "[fe80::3%2]:61001"));
    let who: Vec<(String, Vec<(&str, u64)>)> = receiver
        .failures()
        .sources()
        .map(|((_, a), f)| {
            let reasons = f.reasons.iter().map(|(r, n)| (r.as_str(), *n)).collect();
            (a.to_string(), reasons)
        })
        .collect();
    assert_eq!(
        who,
        [
            ("fe80::2".to_string(), vec![("psk_mismatch", 2)]),
            ("fe80::3".to_string(), vec![("psk_missing", 1)]),
        ]
    );
    let since = receiver
        .failures()
        .since(Duration::ZERO, Duration::from_secs(2))
        .unwrap();
    assert_eq!(
        (since.datagrams, since.neighbours, since.seconds),
        (3, 2, 2)
    );
}

#[test]
fn with_a_key_junk_under_a_neighbours_address_spends_only_the_shared_budget_of_failures() {
    let key = b"site key".to_vec();
    let mut sender = Link::new(GROUP, Some(key.clone()), (0, 0));
    let mut receiver = Link::new(GROUP, Some(key), (0, 0));
    let now = Duration::ZERO;
    let mut junk = ATTEMPT.to_vec();
    junk.extend_from_slice(&[0u8; psk::TRAILER_LEN]);
    let admit = |link: &mut Link, bytes: &[u8], source: &str| {
        let mut r = received(Role::Claim, bytes.len(), GROUP);
        r.source = source.parse().unwrap();
        link.admit(Ok(r), bytes, &known(), now).is_some()
    };
    // Far more junk than the neighbour's burst, under its address: none of it passes…
    let flood = NEIGHBOUR_BURST * 3;
    assert!((0..flood).all(|_| !admit(&mut receiver, &junk, "[fe80::1%2]:61001")));
    // … and the neighbour's own datagrams still do, past the junk.
    for i in 0..10 {
        let sealed = sender.seal(vec![1, 0x00, 0, i]);
        assert!(admit(&mut receiver, &sealed, "[fe80::1%2]:61001"));
    }
    assert_eq!(drops(&receiver), [("psk_mismatch", u64::from(flood))]);

    // The failures' budget is shared: once spent, sources never authenticated are dropped
    // unverified, while the neighbour heard before is still verified.
    // (The neighbour's first datagram was verified on the budget too: it had not
    // authenticated yet.)
    // Junk that fails authentication is not a loss: nothing honest was dropped unread.
    assert_eq!(receiver.take_unreported(), None);
    let budget = UNAUTHENTICATED_BURST - flood - 1;
    for i in 0..budget + 5 {
        let _ = admit(
            &mut receiver,
            &junk,
            &format!("[fe80::{:x}%2]:61001", 0x100 + i % 500),
        );
    }
    let counts: Vec<_> = drops(&receiver);
    assert!(counts.contains(&("auth_budget", 5)), "{counts:?}");
    let fresh = sender.seal(vec![1, 0x00, 0, 99]);
    assert!(
        !admit(&mut receiver, &fresh, "[fe80::9999%2]:61001"),
        "unknown"
    );
    // What is dropped unverified may be a new neighbour's Attempt or Deny: possible loss, told
    // to held claims' watchers and to the site (docs/uiap-design.md D80).
    let unverified = receiver
        .suppressed()
        .since(Duration::ZERO, now)
        .map(|s| s.datagrams);
    assert_eq!(unverified, Some(6));
    assert_eq!(receiver.take_unreported().map(|(n, _)| n), Some(6));
    let sealed = sender.seal(DENY.to_vec());
    let mut r = received(Role::Reply, sealed.len(), "fe80::2".parse().unwrap());
    r.source = "[fe80::1%2]:61002".parse().unwrap();
    assert!(
        receiver.admit(Ok(r), &sealed, &known(), now).is_some(),
        "known"
    );
}
