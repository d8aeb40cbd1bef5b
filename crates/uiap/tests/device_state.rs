//! The device state machine driven by hand: exact bytes out for bytes in, on a virtual clock.

use core::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use uiap::config::Config;
use uiap::device::{
    ClaimErrorKind, ClaimId, ClaimSpec, ClaimState, Destination, Device, DropReason, Event,
    FailureReason, InterfaceId, Transmit,
};
use uiap::space::{DomainId, Uid, UidSpace};
use uiap::time::Instant;
use uiap::wire::{DeviceId, MessageId, MessageType, Repr};

use crate::device_support;

use device_support::*;

/// Makes `d` hold `space` (claim and run its window on an empty site).
fn hold(d: &mut Device<ChaCha8Rng>, space: UidSpace) -> ClaimId {
    let c = d
        .claim(Instant::ZERO, ClaimSpec::new(DOMAIN, space))
        .unwrap();
    run(d, Instant::from_secs(3));
    assert_eq!(
        events(d),
        vec![Event::ClaimSucceeded {
            claim: c,
            expires: Some(Instant::from_millis(2_500 + 3_600_000))
        }]
    );
    c
}

#[test]
fn new_claim_sends_three_attempts_then_succeeds_at_2_5_s() {
    let mut d = device(7, &[1, 2]);
    let first_seq = d.next_sequence();
    let c = d
        .claim(Instant::ZERO, ClaimSpec::new(DOMAIN, unique(42)))
        .unwrap();
    assert_eq!(d.claim_info(c).unwrap().state, ClaimState::Probing);
    let sent = run(&mut d, Instant::from_secs(10));
    let times: Vec<u64> = sent.iter().map(|(t, _)| t.as_micros() / 1000).collect();
    assert_eq!(times, [0, 0, 500, 500, 1000, 1000]);
    for (i, (_, t)) in sent.iter().enumerate() {
        assert_eq!(
            t.destination,
            Destination::Multicast(InterfaceId(1 + (i as u32 % 2)))
        );
        let r = Repr::parse(&t.payload).unwrap();
        assert_eq!(
            r,
            attempt(
                7,
                first_seq.wrapping_add(i as u32 / 2),
                unique(42),
                false,
                32
            )
            .with_ref(r.claim_ref)
        );
    }
    // One claim reference ties the three floods together.
    let refs: Vec<u32> = sent
        .iter()
        .map(|(_, t)| Repr::parse(&t.payload).unwrap().claim_ref)
        .collect();
    assert!(refs.iter().all(|&r| r == refs[0]));
    assert_eq!(
        events(&mut d),
        vec![Event::ClaimSucceeded {
            claim: c,
            expires: Some(Instant::from_millis(3_602_500))
        }]
    );
    assert_eq!(d.claim_info(c).unwrap().state, ClaimState::Held);
    assert_eq!(d.counters().floods_originated, 3);
    assert_eq!(d.counters().attempts_sent, 6);
}

trait WithRef {
    fn with_ref(self, r: u32) -> Self;
}
impl WithRef for Repr {
    fn with_ref(mut self, r: u32) -> Repr {
        self.claim_ref = r;
        self
    }
}

#[test]
fn start_jitter_is_within_0_to_250_ms() {
    let mut seen = Vec::new();
    for seed in 0..50 {
        let mut d = Device::new(
            Config::default(),
            DeviceId::new(1).unwrap(),
            ChaCha8Rng::seed_from_u64(seed),
        );
        d.add_interface(InterfaceId(1));
        d.claim(
            Instant::ZERO,
            ClaimSpec::new(DOMAIN, unique(1)).lifetime(60),
        )
        .unwrap();
        let first = d.poll_timeout().unwrap();
        assert!(first <= Instant::from_millis(250), "{first}");
        seen.push(first);
    }
    seen.sort();
    seen.dedup();
    assert!(seen.len() > 40, "jitter should vary: {seen:?}");
}

#[test]
fn sequence_numbers_wrap() {
    let mut d = device(3, &[1]);
    // Find a seed-independent way: claim repeatedly until the sequence wraps is too slow, so
    // check the arithmetic on the observed numbers instead.
    let s0 = d.next_sequence();
    d.claim(
        Instant::ZERO,
        ClaimSpec::new(DOMAIN, unique(1)).lifetime(60).reclaim(true),
    )
    .unwrap();
    run(&mut d, Instant::from_secs(5));
    assert_eq!(d.next_sequence(), s0.wrapping_add(2));
}

#[test]
fn reclaim_sends_two_attempts_with_r_and_succeeds_at_2_s() {
    let mut d = device(7, &[1]);
    let c = d
        .claim(
            Instant::ZERO,
            ClaimSpec::new(DOMAIN, unique(42)).reclaim(true),
        )
        .unwrap();
    let sent = run(&mut d, Instant::from_secs(10));
    assert_eq!(sent.len(), 2);
    assert!(
        sent.iter()
            .all(|(_, t)| Repr::parse(&t.payload).unwrap().reclaim)
    );
    assert_eq!(
        events(&mut d),
        vec![Event::ClaimSucceeded {
            claim: c,
            expires: Some(Instant::from_millis(3_602_000))
        }]
    );
}

#[test]
fn forward_changes_only_the_hop_limit_and_skips_the_arrival_interface() {
    let mut d = device(9, &[1, 2, 3]);
    let mut bytes = attempt(5, 77, unique(1), false, 20).to_vec();
    bytes[2] = 0xaa; // a reserved octet: ignored and forwarded unchanged
    d.handle_datagram(Instant::ZERO, peer(2, 5), &bytes);
    let out = drain(&mut d);
    let mut expected = bytes.clone();
    expected[3] = 19;
    assert_eq!(
        out,
        vec![
            Transmit {
                destination: Destination::Multicast(InterfaceId(1)),
                payload: expected.clone()
            },
            Transmit {
                destination: Destination::Multicast(InterfaceId(3)),
                payload: expected
            },
        ]
    );
    // The duplicate (another path, another interface) is dropped silently.
    d.handle_datagram(Instant::from_millis(1), peer(3, 6), &bytes);
    assert!(drain(&mut d).is_empty());
    assert_eq!(d.counters().dropped(DropReason::Duplicate), 1);
    assert_eq!(d.counters().attempts_forwarded, 2);
}

#[test]
fn hop_limit_zero_is_processed_not_forwarded_and_large_values_are_clamped() {
    let mut d = device(9, &[1, 2]);
    d.handle_datagram(
        Instant::ZERO,
        peer(1, 5),
        &attempt(5, 1, unique(1), false, 0).to_vec(),
    );
    assert!(drain(&mut d).is_empty());
    assert_eq!(d.counters().hop_limit_exhausted, 1);
    assert_eq!(d.message_table_len(), 1);
    d.handle_datagram(
        Instant::ZERO,
        peer(1, 5),
        &attempt(5, 2, unique(1), false, 200).to_vec(),
    );
    let out = drain(&mut d);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].payload[3], 31);
}

#[test]
fn holder_denies_with_the_attempt_bytes_type_1_hop_32_and_does_not_forward() {
    let mut d = device(9, &[1, 2]);
    hold(
        &mut d,
        UidSpace::Range {
            low: uid(&[13]),
            high: uid(&[42]),
        },
    );
    let bytes = attempt(5, 1000, unique(42), false, 7).to_vec();
    d.handle_datagram(Instant::from_secs(4), peer(2, 5), &bytes);
    let mut deny = bytes.clone();
    deny[1] = 0x10;
    deny[3] = 32;
    assert_eq!(
        drain(&mut d),
        vec![Transmit {
            destination: Destination::Unicast(peer(2, 5)),
            payload: deny
        }]
    );
    // 43 is outside 13..=42: forwarded.
    d.handle_datagram(
        Instant::from_secs(4),
        peer(2, 5),
        &attempt(5, 1001, unique(43), false, 7).to_vec(),
    );
    assert_eq!(drain(&mut d).len(), 1);
    assert_eq!(d.counters().denies_sent, 1);
}

#[test]
fn deny_is_forwarded_once_to_the_first_previous_hop() {
    let mut d = device(9, &[1, 2]);
    let a = attempt(5, 1, unique(1), false, 32);
    d.handle_datagram(Instant::ZERO, peer(1, 5), &a.to_vec());
    d.handle_datagram(Instant::ZERO, peer(2, 8), &a.to_vec()); // second copy: sender not remembered
    drain(&mut d);
    let mut deny = a.clone();
    deny.msg_type = MessageType::ClaimDeny;
    let deny_bytes = deny.to_vec();
    d.handle_datagram(Instant::from_millis(3), peer(2, 8), &deny_bytes);
    let mut expected = deny_bytes.clone();
    expected[3] = 31;
    assert_eq!(
        drain(&mut d),
        vec![Transmit {
            destination: Destination::Unicast(peer(1, 5)),
            payload: expected
        }]
    );
    d.handle_datagram(Instant::from_millis(4), peer(2, 8), &deny_bytes);
    assert!(drain(&mut d).is_empty());
    assert_eq!(d.counters().dropped(DropReason::SecondDeny), 1);
    // Unknown message, and a Deny whose UID differs from the Attempt's.
    let mut other = deny.clone();
    other.sequence = 2;
    d.handle_datagram(Instant::from_millis(5), peer(2, 8), &other.to_vec());
    let mut wrong = deny.clone();
    wrong.space = unique(2);
    d.handle_datagram(Instant::from_millis(5), peer(2, 8), &wrong.to_vec());
    assert!(drain(&mut d).is_empty());
    assert_eq!(d.counters().dropped(DropReason::UnknownDeny), 1);
    assert_eq!(d.counters().dropped(DropReason::DenyMismatch), 1);
    assert_eq!(d.counters().denies_forwarded, 1);
}

#[test]
fn a_deny_fails_the_claim_and_a_late_one_is_a_late_conflict() {
    let mut d = device(7, &[1]);
    let c = d
        .claim(Instant::ZERO, ClaimSpec::new(DOMAIN, unique(42)))
        .unwrap();
    let sent = run(&mut d, Instant::from_millis(600));
    let first = Repr::parse(&sent[0].1.payload).unwrap();
    let mut deny = first.clone();
    deny.msg_type = MessageType::ClaimDeny;
    d.handle_datagram(Instant::from_millis(700), peer(1, 2), &deny.to_vec());
    let id = MessageId {
        origin: DeviceId::new(7).unwrap(),
        sequence: first.sequence,
    };
    assert_eq!(
        events(&mut d),
        vec![Event::ClaimDenied {
            claim: c,
            reason: FailureReason::Denied { message: id }
        }]
    );
    assert!(d.claim_info(c).is_none());
    assert_eq!(
        run(&mut d, Instant::from_secs(5)).len(),
        0,
        "no more attempts after a Deny"
    );
    // The Deny of the second attempt arrives later: dropped, counted, reported.
    let mut deny2 = Repr::parse(&sent[1].1.payload).unwrap();
    deny2.msg_type = MessageType::ClaimDeny;
    d.handle_datagram(Instant::from_millis(800), peer(1, 2), &deny2.to_vec());
    assert_eq!(
        events(&mut d),
        vec![Event::LateConflict {
            claim: None,
            message: MessageId {
                origin: DeviceId::new(7).unwrap(),
                sequence: deny2.sequence
            }
        }]
    );
    assert_eq!(d.counters().dropped(DropReason::LateDeny), 1);
    assert_eq!(d.counters().late_conflicts, 1);
}

#[test]
fn own_attempts_coming_back_are_dropped_silently() {
    let mut d = device(7, &[1, 2]);
    d.claim(Instant::ZERO, ClaimSpec::new(DOMAIN, unique(42)))
        .unwrap();
    let sent = run(&mut d, Instant::ZERO);
    d.handle_datagram(Instant::from_millis(1), peer(2, 3), &sent[0].1.payload);
    assert!(drain(&mut d).is_empty());
    assert!(events(&mut d).is_empty());
    assert_eq!(d.counters().dropped(DropReason::OwnLoop), 1);
}

#[test]
fn an_unknown_sequence_with_our_id_is_a_device_id_collision() {
    let mut d = device(7, &[1, 2]);
    let seq = d.next_sequence().wrapping_add(5);
    d.handle_datagram(
        Instant::ZERO,
        peer(1, 3),
        &attempt(7, seq, unique(1), false, 32).to_vec(),
    );
    let ev = events(&mut d);
    let [
        Event::DeviceIdCollision {
            sequence,
            new_device_id: Some(new),
        },
    ] = ev.as_slice()
    else {
        panic!("{ev:?}")
    };
    assert_eq!(*sequence, seq);
    assert_ne!(new.get(), 7);
    assert_eq!(d.device_id(), *new);
    // Far away: at least 2^30 from the colliding sequence number in either direction.
    let dist = d
        .next_sequence()
        .wrapping_sub(seq)
        .min(seq.wrapping_sub(d.next_sequence()));
    assert!(dist >= 1 << 30, "{dist}");
    // The other device's flood is still forwarded through us.
    assert_eq!(drain(&mut d).len(), 1);
    assert_eq!(d.counters().device_id_collisions, 1);
}

/// Our claim is in progress when a conflicting attempt arrives: the four R combinations (§4.2.2.2).
#[test]
fn simultaneous_claims_follow_the_reclaim_precedence_table() {
    for (ours_r, theirs_r, deny, forward, we_fail) in [
        (false, false, true, false, Some("simultaneous")),
        (false, true, false, true, Some("reclaimed")),
        (true, false, true, false, None),
        (true, true, true, false, Some("simultaneous")),
    ] {
        let mut d = device(7, &[1, 2]);
        let c = d
            .claim(
                Instant::ZERO,
                ClaimSpec::new(DOMAIN, unique(42)).reclaim(ours_r),
            )
            .unwrap();
        run(&mut d, Instant::ZERO);
        let bytes = attempt(5, 1, unique(42), theirs_r, 32).to_vec();
        d.handle_datagram(Instant::from_millis(100), peer(1, 5), &bytes);
        let out = drain(&mut d);
        let denies = out
            .iter()
            .filter(|t| matches!(t.destination, Destination::Unicast(_)))
            .count();
        let forwards = out
            .iter()
            .filter(|t| matches!(t.destination, Destination::Multicast(_)))
            .count();
        assert_eq!(
            (denies == 1, forwards == 1),
            (deny, forward),
            "ours R={ours_r} theirs R={theirs_r}"
        );
        assert_eq!(denies + forwards, 1, "deny or forward, never both");
        let ev = events(&mut d);
        let m = MessageId {
            origin: DeviceId::new(5).unwrap(),
            sequence: 1,
        };
        match we_fail {
            None => {
                assert!(ev.is_empty());
                assert!(d.claim_info(c).is_some());
            }
            Some("simultaneous") => {
                assert_eq!(
                    ev,
                    vec![Event::ClaimDenied {
                        claim: c,
                        reason: FailureReason::Simultaneous { message: m }
                    }]
                )
            }
            Some(_) => assert_eq!(
                ev,
                vec![Event::ClaimDenied {
                    claim: c,
                    reason: FailureReason::Reclaimed { message: m }
                }]
            ),
        }
    }
}

#[test]
fn a_second_overlapping_claim_on_one_device_fails_at_once() {
    let mut d = device(7, &[1]);
    let a = d
        .claim(
            Instant::ZERO,
            ClaimSpec::new(
                DOMAIN,
                UidSpace::Prefix(Uid::new(&[0xc0, 0xa8], 16).unwrap()),
            )
            .lifetime(60),
        )
        .unwrap();
    let err = d
        .claim(
            Instant::ZERO,
            ClaimSpec::new(DOMAIN, UidSpace::Unique(uid(&[0xc0, 0xa8, 1, 2]))).lifetime(60),
        )
        .unwrap_err();
    assert_eq!(err.kind(), ClaimErrorKind::LocalConflict { existing: a });
    assert_eq!(
        err.to_string(),
        format!("expected a space free on this device, found it overlaps {a}")
    );
    // Another domain does not conflict.
    let other = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 2, 0, 0]);
    assert!(
        d.claim(
            Instant::ZERO,
            ClaimSpec::new(other, UidSpace::Unique(uid(&[0xc0, 0xa8, 1, 2]))).lifetime(60)
        )
        .is_ok()
    );
    // Invalid: a prefix in a right-justified domain.
    let right = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 0, 0, 0x80]);
    let e = d
        .claim(
            Instant::ZERO,
            ClaimSpec::new(right, UidSpace::Prefix(uid(&[1]))).lifetime(60),
        )
        .unwrap_err();
    assert_eq!(e.kind(), ClaimErrorKind::InvalidSpace);
}

#[test]
fn lifetime_expiry_release_and_renewal() {
    let mut d = device(7, &[1]);
    let c = d
        .claim(
            Instant::ZERO,
            ClaimSpec::new(DOMAIN, unique(1)).lifetime(10),
        )
        .unwrap();
    run(&mut d, Instant::from_secs(3));
    assert_eq!(
        events(&mut d),
        vec![Event::ClaimSucceeded {
            claim: c,
            expires: Some(Instant::from_millis(12_500))
        }]
    );
    // A manual renewal: two R attempts, then the lifetime restarts.
    d.renew(Instant::from_secs(5), c).unwrap();
    assert_eq!(d.claim_info(c).unwrap().state, ClaimState::Reclaiming);
    let sent = run(&mut d, Instant::from_secs(7));
    assert_eq!(sent.len(), 2);
    assert!(Repr::parse(&sent[0].1.payload).unwrap().reclaim);
    assert_eq!(
        events(&mut d),
        vec![Event::ClaimRenewed {
            claim: c,
            expires: Some(Instant::from_millis(17_000))
        }]
    );
    run(&mut d, Instant::from_secs(20));
    assert_eq!(events(&mut d), vec![Event::ClaimExpired { claim: c }]);
    assert!(d.claim_info(c).is_none());
    assert_eq!(d.poll_timeout(), None);
    // Release stops a probing claim silently.
    let c2 = d
        .claim(
            Instant::from_secs(21),
            ClaimSpec::new(DOMAIN, unique(2)).lifetime(10),
        )
        .unwrap();
    assert!(d.release(c2));
    assert!(run(&mut d, Instant::from_secs(30)).is_empty());
    assert!(events(&mut d).is_empty());
}

#[test]
fn auto_renew_reclaims_before_the_lifetime_ends() {
    let cfg = Config {
        start_jitter: Duration::ZERO,
        auto_renew: true,
        ..Config::default()
    };
    let mut d = Device::new(cfg, DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(1));
    d.add_interface(InterfaceId(1));
    let c = d
        .claim(
            Instant::ZERO,
            ClaimSpec::new(DOMAIN, unique(1)).lifetime(100),
        )
        .unwrap();
    let sent = run(&mut d, Instant::from_secs(400));
    // 3 initial + 2 per renewal; renewals at 75 s after each success.
    let ev = events(&mut d);
    assert!(matches!(ev[0], Event::ClaimSucceeded { .. }));
    assert!(
        ev[1..]
            .iter()
            .all(|e| matches!(e, Event::ClaimRenewed { claim, .. } if *claim == c))
    );
    assert_eq!(ev.len() - 1, 5, "{ev:?}");
    assert_eq!(sent.len(), 3 + 2 * 5);
    assert_eq!(sent[3].0, Instant::from_millis(2_500 + 75_000));
}

#[test]
fn spurious_timeouts_are_no_ops() {
    let mut d = device(7, &[1]);
    d.claim(
        Instant::ZERO,
        ClaimSpec::new(DOMAIN, unique(1)).lifetime(60),
    )
    .unwrap();
    d.handle_timeout(Instant::ZERO);
    assert_eq!(drain(&mut d).len(), 1);
    for ms in [1, 100, 499] {
        d.handle_timeout(Instant::from_millis(ms));
        assert!(drain(&mut d).is_empty());
        assert!(events(&mut d).is_empty());
    }
    assert_eq!(d.poll_timeout(), Some(Instant::from_millis(500)));
}

#[test]
fn proxy_claim_announces_with_x_and_r_after_success_and_proxies_defend_it() {
    let mut owner = device(7, &[1]);
    let c = owner
        .claim(
            Instant::ZERO,
            ClaimSpec::new(DOMAIN, unique(9)).lifetime(600).proxy(true),
        )
        .unwrap();
    let sent = run(&mut owner, Instant::from_secs(10));
    let flags: Vec<(bool, bool)> = sent
        .iter()
        .map(|(_, t)| {
            let r = Repr::parse(&t.payload).unwrap();
            (r.proxy, r.reclaim)
        })
        .collect();
    assert_eq!(
        flags,
        [
            (true, false),
            (true, false),
            (true, false),
            (true, true),
            (true, true)
        ]
    );
    assert_eq!(sent[3].0, Instant::from_millis(2_500));
    assert!(matches!(events(&mut owner)[..], [Event::ClaimSucceeded { claim, .. }] if claim == c));

    let mut proxy = device(9, &[1, 2]);
    for (_, t) in &sent[3..] {
        proxy.handle_datagram(Instant::from_secs(3), peer(1, 7), &t.payload);
    }
    assert_eq!(proxy.proxy_table_len(), 1);
    drain(&mut proxy);
    // Another device's new claim is denied by proxy ...
    proxy.handle_datagram(
        Instant::from_secs(4),
        peer(2, 8),
        &attempt(8, 1, unique(9), false, 32).to_vec(),
    );
    let out = drain(&mut proxy);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].destination, Destination::Unicast(peer(2, 8)));
    assert_eq!(proxy.counters().proxy_denies, 1);
    // ... but the owner's own attempts are forwarded, never denied.
    proxy.handle_datagram(
        Instant::from_secs(5),
        peer(1, 7),
        &attempt(7, 99, unique(9), true, 32).to_vec(),
    );
    assert_eq!(
        drain(&mut proxy)[0].destination,
        Destination::Multicast(InterfaceId(2))
    );
    // After the lifetime (600 s from receipt) the proxy stops.
    proxy.handle_datagram(
        Instant::from_secs(606),
        peer(2, 8),
        &attempt(8, 2, unique(9), false, 32).to_vec(),
    );
    assert_eq!(
        drain(&mut proxy)[0].destination,
        Destination::Multicast(InterfaceId(1))
    );
    assert_eq!(proxy.proxy_table_len(), 0);
}

#[test]
fn proxy_defense_is_capped_at_one_hour_and_needs_both_flags() {
    let mut proxy = device(9, &[1, 2]);
    let mut a = attempt(7, 1, unique(9), true, 32);
    a.proxy = true;
    a.lifetime = uiap::wire::INFINITE_LIFETIME;
    proxy.handle_datagram(Instant::ZERO, peer(1, 7), &a.to_vec());
    let mut x_only = attempt(6, 1, unique(10), false, 32);
    x_only.proxy = true;
    proxy.handle_datagram(Instant::ZERO, peer(1, 6), &x_only.to_vec());
    assert_eq!(proxy.proxy_table_len(), 1);
    drain(&mut proxy);
    proxy.handle_datagram(
        Instant::from_secs(3599),
        peer(2, 8),
        &attempt(8, 1, unique(9), false, 32).to_vec(),
    );
    assert!(matches!(
        drain(&mut proxy)[0].destination,
        Destination::Unicast(_)
    ));
    proxy.handle_datagram(
        Instant::from_secs(3600),
        peer(2, 8),
        &attempt(8, 2, unique(9), false, 32).to_vec(),
    );
    assert!(matches!(
        drain(&mut proxy)[0].destination,
        Destination::Multicast(_)
    ));
}

#[test]
fn message_table_is_bounded_and_expires() {
    let cfg = Config {
        message_table_capacity: 8,
        ..config()
    };
    let mut d = Device::new(cfg, DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(1));
    d.add_interface(InterfaceId(1));
    // 3 s apart: each record is older than the 2.5 s claim window when the next one comes, so
    // the oldest may be evicted (younger ones are protected: device_defense.rs).
    for s in 0..20 {
        d.handle_datagram(
            Instant::from_millis(s * 3_000),
            peer(1, 2),
            &attempt(5, s as u32, unique(1), false, 32).to_vec(),
        );
    }
    assert_eq!(d.message_table_len(), 8);
    assert_eq!(d.counters().table_evictions, 12);
    assert_eq!(d.counters().peak_message_table, 8);
    // 30 s after the last copy everything is forgotten: the same attempt is new again.
    d.handle_datagram(
        Instant::from_millis(19 * 3_000 + 30_000),
        peer(1, 2),
        &attempt(5, 19, unique(1), false, 32).to_vec(),
    );
    assert_eq!(d.message_table_len(), 1);
    assert_eq!(d.counters().dropped(DropReason::Duplicate), 0);
}

#[test]
fn a_site_of_one_succeeds_without_interfaces() {
    let mut d = device(1, &[]);
    let c = d
        .claim(
            Instant::ZERO,
            ClaimSpec::new(DOMAIN, unique(1)).lifetime(60),
        )
        .unwrap();
    assert!(run(&mut d, Instant::from_secs(3)).is_empty());
    assert!(matches!(events(&mut d)[..], [Event::ClaimSucceeded { claim, .. }] if claim == c));
}

#[test]
fn claims_are_rate_limited_after_repeated_conflicts() {
    let cfg = Config {
        start_jitter: Duration::ZERO,
        conflict_limit: 2,
        ..Config::default()
    };
    let mut d = Device::new(cfg, DeviceId::new(7).unwrap(), ChaCha8Rng::seed_from_u64(7));
    d.add_interface(InterfaceId(1));
    let mut starts = Vec::new();
    for (i, at) in [0u64, 1_000, 2_000, 61_000].into_iter().enumerate() {
        let now = Instant::from_millis(at);
        let c = d
            .claim(now, ClaimSpec::new(DOMAIN, unique(i as u8)).lifetime(60))
            .unwrap();
        let start = d.poll_timeout().unwrap();
        starts.push(start.as_micros() / 1000);
        d.handle_timeout(start);
        let sent = drain(&mut d);
        let mut deny = Repr::parse(&sent[0].payload).unwrap();
        deny.msg_type = MessageType::ClaimDeny;
        d.handle_datagram(start, peer(1, 2), &deny.to_vec());
        assert!(matches!(events(&mut d)[..], [Event::ClaimDenied { claim, .. }] if claim == c));
    }
    // Two conflicts within 60 s: the third claim waits until 60 s after the previous start;
    // once those conflicts have left the 60 s window, the fourth starts at once.
    assert_eq!(starts, [0, 1_000, 61_000, 61_000]);
}

/// §4.1: the seven reserved flag bits of a Domain ID MUST be 0 on send. A claim in a domain with
/// any of them set is refused before anything is sent; J alone, or no flag, is fine.
#[test]
fn a_domain_with_reserved_flag_bits_is_refused_when_claiming() {
    let mut d = device(7, &[1]);
    for (text, found) in [
        ("fff:0:0:7f", 0x7f),
        ("fff:0:0:1", 0x01),
        ("fff:0:0:c0", 0x40),
    ] {
        let domain: DomainId = text.parse().unwrap();
        let e = d
            .claim(Instant::ZERO, ClaimSpec::new(domain, unique(1)))
            .unwrap_err();
        assert_eq!(e.kind(), ClaimErrorKind::ReservedFlags { found }, "{text}");
        assert_eq!(
            e.to_string(),
            format!(
                "expected the reserved flag bits of the Domain ID (octet 7 but J) to be 0, found {found:#04x}"
            )
        );
    }
    assert!(run(&mut d, Instant::from_secs(10)).is_empty());
    assert_eq!(d.claims().count(), 0);
    for text in ["fff:0:1:0", "fff:0:1:80"] {
        let domain: DomainId = text.parse().unwrap();
        d.claim(Instant::ZERO, ClaimSpec::new(domain, unique(1)))
            .unwrap();
    }
    let sent = run(&mut d, Instant::from_secs(1));
    assert!(!sent.is_empty());
    for (_, t) in sent {
        assert_eq!(
            t.payload[31] & DomainId::RESERVED_FLAGS,
            0,
            "{:02x?}",
            t.payload
        );
    }
}

/// An RNG whose first `u32` is given, then ChaCha8: a device's first sequence number is the first
/// `u32` it draws.
struct FirstSequence(Option<u32>, ChaCha8Rng);

impl rand_core::TryRng for FirstSequence {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self
            .0
            .take()
            .unwrap_or_else(|| rand_core::Rng::next_u32(&mut self.1)))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(rand_core::Rng::next_u64(&mut self.1))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        rand_core::Rng::fill_bytes(&mut self.1, dst);
        Ok(())
    }
}

/// Sequence numbers run from 0xFFFFFFFF to 0 (§4.1: a 32-bit number that wraps): the three
/// attempts of a claim that starts at 0xFFFFFFFE are 0xFFFFFFFE, 0xFFFFFFFF and 0, the claim
/// succeeds, and the flood numbered 0 coming back is known as our own, not a collision.
#[test]
fn sequence_numbers_wrap_from_the_last_to_zero() {
    let mut d = Device::new(
        config(),
        DeviceId::new(7).unwrap(),
        FirstSequence(Some(0xffff_fffe), ChaCha8Rng::seed_from_u64(7)),
    );
    d.add_interface(InterfaceId(1));
    assert_eq!(d.next_sequence(), 0xffff_fffe);
    let c = d
        .claim(Instant::ZERO, ClaimSpec::new(DOMAIN, unique(9)))
        .unwrap();
    let sent = run(&mut d, Instant::from_secs(3));
    let sequences: Vec<u32> = sent
        .iter()
        .map(|(_, t)| Repr::parse(&t.payload).unwrap().sequence)
        .collect();
    assert_eq!(sequences, [0xffff_fffe, 0xffff_ffff, 0]);
    assert_eq!(d.next_sequence(), 1);
    assert!(matches!(events(&mut d)[..], [Event::ClaimSucceeded { claim, .. }] if claim == c));
    d.handle_datagram(Instant::from_secs(3), peer(1, 3), &sent[2].1.payload);
    assert!(drain(&mut d).is_empty());
    assert!(events(&mut d).is_empty());
    assert_eq!(d.counters().dropped(DropReason::OwnLoop), 1);
}

/// A device that holds nothing overlapping an Attempt (it holds other UIDs, and claims in other
/// domains) forwards it and sends no Deny, and its own claims are untouched.
#[test]
fn a_bystander_forwards_and_sends_no_deny() {
    let mut d = device(9, &[1, 2]);
    let held = hold(&mut d, unique(40));
    let elsewhere: DomainId = "fff:0:2:0".parse().unwrap();
    d.claim(Instant::from_secs(3), ClaimSpec::new(elsewhere, unique(41)))
        .unwrap();
    run(&mut d, Instant::from_secs(6));
    events(&mut d);
    for (seq, space) in [
        (1, unique(41)),
        (2, unique(39)),
        (
            3,
            UidSpace::Range {
                low: uid(&[1]),
                high: uid(&[39]),
            },
        ),
    ] {
        d.handle_datagram(
            Instant::from_secs(7),
            peer(1, 5),
            &attempt(5, seq, space, false, 9).to_vec(),
        );
        let out = drain(&mut d);
        assert_eq!(out.len(), 1, "{out:?}");
        let forwarded = Repr::parse(&out[0].payload).unwrap();
        assert_eq!(forwarded.msg_type, MessageType::ClaimAttempt);
        assert_eq!((forwarded.sequence, forwarded.hop_limit), (seq, 8));
    }
    assert_eq!(d.counters().denies_sent, 0);
    assert!(events(&mut d).is_empty());
    assert_eq!(d.claim_info(held).map(|i| i.state), Some(ClaimState::Held));
}

/// Another device's Attempts may arrive in any order of sequence number (floods take different
/// paths): each new message ID is processed whatever its number, and only a repeated one is a
/// duplicate, including across the wrap from 0xFFFFFFFF to 0.
#[test]
fn another_devices_sequence_numbers_out_of_order_are_each_processed_once() {
    let mut d = device(9, &[1, 2]);
    let order = [100, 98, 99, 0, 0xffff_ffff, 101, 98, 0];
    let mut forwarded = Vec::new();
    for (i, &seq) in order.iter().enumerate() {
        let at = Instant::from_millis(10 * i as u64);
        d.handle_datagram(
            at,
            peer(1, 5),
            &attempt(5, seq, unique(7), false, 9).to_vec(),
        );
        forwarded.extend(
            drain(&mut d)
                .iter()
                .map(|t| Repr::parse(&t.payload).unwrap().sequence),
        );
    }
    assert_eq!(forwarded, [100, 98, 99, 0, 0xffff_ffff, 101]);
    assert_eq!(d.counters().dropped(DropReason::Duplicate), 2);
    assert!(
        events(&mut d).is_empty(),
        "another device's numbers are no collision"
    );
}

/// Rate limited after a conflict (docs/uiap-design.md D34), a claim released before its first
/// attempt gives its start back: the next claim takes it, not the one after (D67).
#[test]
fn a_claim_released_before_it_starts_gives_its_start_back() {
    let mut d = Device::new(
        Config {
            conflict_limit: 1,
            conflict_rate_limit: Duration::from_secs(60),
            ..config()
        },
        DeviceId::new(1).unwrap(),
        ChaCha8Rng::seed_from_u64(1),
    );
    d.add_interface(InterfaceId(1));
    let spec = |b| ClaimSpec::new(DOMAIN, unique(b));
    d.claim(Instant::ZERO, spec(1)).unwrap();
    run(&mut d, Instant::from_millis(10));
    // Another device claims the same UID at the same time: both fail, a conflict.
    let other = attempt(9, 1, unique(1), false, 255).to_vec();
    d.handle_datagram(Instant::from_millis(10), peer(1, 9), &other);
    assert!(
        events(&mut d)
            .iter()
            .any(|e| matches!(e, Event::ClaimDenied { .. }))
    );
    let second = d.claim(Instant::from_secs(1), spec(2)).unwrap();
    assert_eq!(d.first_attempt_at(second), Some(Instant::from_secs(60)));
    assert!(d.release(second));
    let third = d.claim(Instant::from_secs(2), spec(3)).unwrap();
    assert_eq!(d.first_attempt_at(third), Some(Instant::from_secs(60)));
}
