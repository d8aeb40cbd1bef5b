//! Defenses of the protocol core against forged and flooding traffic: a device-ID change keeps
//! held claims (docs/uiap-design.md D40), proxy defense has caps and can be inspected and flushed
//! (D43), the message table protects records younger than the claim window (D44), and a device's
//! own claims consult its proxy table while claims not yet started deny nobody (D46).

use core::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use uiap::config::Config;
use uiap::device::{
    ClaimErrorKind, ClaimId, ClaimSpec, Destination, Device, DropReason, Event, InterfaceId,
    Transmit,
};
use uiap::sim::{SegmentParams, Sim};
use uiap::space::{Uid, UidSpace};
use uiap::time::Instant;
use uiap::wire::{DeviceId, INFINITE_LIFETIME, Repr};

use crate::device_support;

use device_support::{DOMAIN, config, device, drain, events, peer, unique};

/// A new claim's Attempt (no flags, hop limit 32).
fn attempt(origin: u64, seq: u32, space: UidSpace) -> Repr {
    device_support::attempt(origin, seq, space, false, 32)
}

/// An X+R announcement of `space` by `origin`, as proxies learn claims (§5.1).
fn announce(origin: u64, seq: u32, space: UidSpace, lifetime: u32) -> Vec<u8> {
    Repr {
        proxy: true,
        reclaim: true,
        lifetime,
        ..attempt(origin, seq, space)
    }
    .to_vec()
}

/// Runs timers until `end`, returning what was sent.
fn run(d: &mut Device<ChaCha8Rng>, end: Instant) -> Vec<Transmit> {
    device_support::run(d, end)
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

fn origins(sent: &[Transmit]) -> Vec<u64> {
    sent.iter()
        .map(|t| Repr::parse(&t.payload).unwrap().origin.get())
        .collect()
}

/// One forged Attempt with the owner's (public) device ID makes it pick a new ID; its held,
/// proxied claim is still announced under the old one, so the proxy forwards its renewal instead
/// of denying it, and the claim is renewed, not lost.
#[test]
fn a_device_id_change_never_costs_a_held_claim() {
    let mut owner = device(7, &[1]);
    let held = owner
        .claim(
            Instant::ZERO,
            ClaimSpec::new(DOMAIN, unique(9)).lifetime(600).proxy(true),
        )
        .unwrap();
    let announced = run(&mut owner, Instant::from_secs(10));
    assert!(
        matches!(events(&mut owner)[..], [Event::ClaimSucceeded { claim, .. }] if claim == held)
    );
    let mut proxy = device(20, &[1, 2]);
    for t in &announced[3..] {
        proxy.handle_datagram(Instant::from_secs(3), peer(1, 7), &t.payload);
    }
    assert_eq!(proxy.proxy_table_len(), 1);
    drain(&mut proxy);

    // The forgery: our ID, a sequence number we never sent.
    let forged = attempt(7, owner.next_sequence().wrapping_add(1000), unique(200)).to_vec();
    owner.handle_datagram(Instant::from_secs(20), peer(1, 66), &forged);
    assert!(matches!(
        events(&mut owner)[..],
        [Event::DeviceIdCollision {
            new_device_id: Some(_),
            ..
        }]
    ));
    assert_ne!(owner.device_id().get(), 7);
    drain(&mut owner);

    owner.renew(Instant::from_secs(30), held).unwrap();
    let renewal = run(&mut owner, Instant::from_secs(40));
    assert_eq!(origins(&renewal), [7, 7], "the held claim keeps its ID");
    for (i, t) in renewal.iter().enumerate() {
        proxy.handle_datagram(Instant::from_secs(30 + i as u64), peer(1, 7), &t.payload);
        let out = drain(&mut proxy);
        assert_eq!(
            out.iter().map(|t| t.destination).collect::<Vec<_>>(),
            [Destination::Multicast(InterfaceId(2))],
            "forwarded, not denied"
        );
    }
    assert_eq!(proxy.counters().proxy_denies, 0);
    assert!(matches!(events(&mut owner)[..], [Event::ClaimRenewed { claim, .. }] if claim == held));
    // A Deny for the old ID still reaches the claim; a new claim uses the new ID.
    owner
        .claim(Instant::from_secs(50), ClaimSpec::new(DOMAIN, unique(10)))
        .unwrap();
    let sent = run(&mut owner, Instant::from_secs(50));
    assert_eq!(origins(&sent), [owner.device_id().get()]);
}

/// The same in the simulator, with a real collision: `b` is configured with `a`'s device ID.
/// `a` picks a new ID, and its proxied claim is renewed through the proxy without a Deny.
#[test]
fn sim_a_device_id_collision_keeps_the_proxied_claim() {
    let cfg = Config {
        auto_renew: true,
        ..Config::default()
    };
    let mut sim = Sim::new(4, cfg.clone());
    let seg = sim.add_segment(SegmentParams::default());
    let shared = DeviceId::new(5).unwrap();
    let a = sim.add_node_with("a", shared, cfg.clone(), &[seg]);
    let p = sim.add_node_with("p", DeviceId::new(2).unwrap(), cfg.clone(), &[seg]);
    let b = sim.add_node_with("b", shared, cfg, &[seg]);
    // `b` joins later, so that `a` is the one that sees the collision.
    sim.set_node_at(Instant::ZERO, b, false);
    sim.set_node_at(Instant::from_secs(9), b, true);
    let held = sim.claim_at(
        Instant::ZERO,
        a,
        ClaimSpec::new(DOMAIN, unique(1)).lifetime(40).proxy(true),
    );
    let other = sim.claim_at(Instant::from_secs(10), b, ClaimSpec::new(DOMAIN, unique(2)));
    sim.run_until(Instant::from_secs(100));
    assert_ne!(sim.device(a).device_id(), shared, "the collision was seen");
    assert!(sim.device(a).counters().device_id_collisions >= 1);
    let rec = sim.claim(held);
    assert!(rec.outcome.unwrap().kind.succeeded());
    assert_eq!(rec.lost, None, "{rec:?}");
    assert!(rec.renewed.len() >= 2, "renewed every 30 s: {rec:?}");
    assert!(sim.claim(other).outcome.unwrap().kind.succeeded());
    assert_eq!(sim.device(p).counters().proxy_denies, 0);
}

/// A new Attempt that finds the table full of records younger than the claim window: from the
/// neighbour with the most records (the flooder) it is dropped and counted; from another
/// neighbour it evicts the flooder's least recently heard record, never another neighbour's.
/// Once the oldest record is older than the window, it is evicted as before.
#[test]
fn the_message_table_protects_records_younger_than_the_claim_window() {
    let cfg = Config {
        message_table_capacity: 8,
        ..config()
    };
    let mut d = Device::new(cfg, DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(1));
    d.add_interface(InterfaceId(1));
    d.add_interface(InterfaceId(2));
    for s in 0..20 {
        d.handle_datagram(
            Instant::from_millis(s),
            peer(1, 2),
            &attempt(5, s as u32, unique(1)).to_vec(),
        );
    }
    assert_eq!(d.message_table_len(), 8);
    assert_eq!(d.counters().table_evictions, 0);
    assert_eq!(d.counters().dropped(DropReason::TableFull), 12);
    let sent = drain(&mut d);
    let forwarded = sent
        .iter()
        .filter(|t| matches!(t.destination, Destination::Multicast(_)))
        .count();
    assert_eq!(forwarded, 8, "only the recorded ones are forwarded");
    // The others are answered with a Deny each (D69).
    assert_eq!(sent.len() - forwarded, 12);
    assert_eq!(d.counters().denies_for_drops, 12);
    // A duplicate of a protected record is still recognised.
    d.handle_datagram(
        Instant::from_millis(30),
        peer(1, 2),
        &attempt(5, 0, unique(1)).to_vec(),
    );
    assert_eq!(d.counters().dropped(DropReason::Duplicate), 1);
    // Another neighbour's Attempt still gets in: the flooder, who has the most records, pays
    // with its least recently heard one; the newcomer is forwarded.
    d.handle_datagram(
        Instant::from_millis(40),
        peer(2, 3),
        &attempt(6, 1, unique(42)).to_vec(),
    );
    assert_eq!(d.counters().table_evictions, 1);
    assert_eq!(d.message_table_len(), 8);
    assert_eq!(
        drain(&mut d)
            .iter()
            .map(|t| t.destination)
            .collect::<Vec<_>>(),
        [Destination::Multicast(InterfaceId(1))]
    );
    // More flood cannot evict it: the flooder's new Attempts are refused ...
    for s in 200..220 {
        d.handle_datagram(
            Instant::from_millis(50),
            peer(1, 2),
            &attempt(5, s, unique(1)).to_vec(),
        );
    }
    assert_eq!(d.counters().dropped(DropReason::TableFull), 32);
    assert!(
        drain(&mut d)
            .iter()
            .all(|t| t.destination == Destination::Unicast(peer(1, 2)))
    );
    // ... so the holder's Deny for the honest Attempt still finds its way back.
    let mut deny = attempt(6, 1, unique(42));
    deny.msg_type = uiap::wire::MessageType::ClaimDeny;
    d.handle_datagram(Instant::from_millis(60), peer(1, 9), &deny.to_vec());
    assert_eq!(
        drain(&mut d)
            .iter()
            .map(|t| t.destination)
            .collect::<Vec<_>>(),
        [Destination::Unicast(peer(2, 3))]
    );
    // Once the flooder's oldest record is older than the claim window, it simply goes.
    d.handle_datagram(
        Instant::from_millis(2_502),
        peer(1, 2),
        &attempt(5, 100, unique(1)).to_vec(),
    );
    assert_eq!(d.counters().table_evictions, 2);
    assert_eq!(drain(&mut d).len(), 1);
}

/// A holder whose table is full still denies a conflicting claim.
#[test]
fn a_full_table_does_not_stop_a_holder_from_denying() {
    let cfg = Config {
        message_table_capacity: 4,
        ..config()
    };
    let mut d = Device::new(cfg, DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(1));
    d.add_interface(InterfaceId(1));
    d.claim(Instant::ZERO, ClaimSpec::new(DOMAIN, unique(42)))
        .unwrap();
    run(&mut d, Instant::from_secs(3));
    let start = Instant::from_secs(10);
    for s in 0..4 {
        d.handle_datagram(start, peer(1, 2), &attempt(5, s, unique(1)).to_vec());
    }
    drain(&mut d);
    d.handle_datagram(start, peer(1, 3), &attempt(6, 1, unique(42)).to_vec());
    let out = drain(&mut d);
    assert_eq!(
        out.iter().map(|t| t.destination).collect::<Vec<_>>(),
        [Destination::Unicast(peer(1, 3))]
    );
    assert_eq!(d.counters().denies_sent, 1);
    assert_eq!(d.counters().dropped(DropReason::TableFull), 0);
}

/// Caps on what is proxied: no prefix shorter than 8 bits (the empty one covers the domain), no
/// range whose ends differ in their first 8 bits; an infinite lifetime is defended one hour.
/// Counters tell what was taken and refused; the table can be listed and flushed.
#[test]
fn proxy_defense_refuses_wide_spaces_and_can_be_listed_and_flushed() {
    let mut d = device(1, &[1, 2]);
    let prefix = |bytes: &[u8], bits: u16| UidSpace::Prefix(Uid::new(bytes, bits).unwrap());
    let range = |low: &[u8], high: &[u8]| UidSpace::Range {
        low: Uid::from_octets(low).unwrap(),
        high: Uid::from_octets(high).unwrap(),
    };
    let offers = [
        (prefix(&[], 0), false),
        (prefix(&[0xc0], 4), false),
        (range(&[0x00], &[0xff]), false),
        (range(&[0x12, 0x00], &[0x13, 0x00]), false),
        (range(&[0x12], &[0x12, 0x34]), false),
        // Kept: narrow enough, and together within one origin's share (D66).
        (prefix(&[0xc0, 0x00], 12), true),
        (range(&[0x12, 0x34, 0x00], &[0x12, 0x34, 0xff]), true),
        (unique(7), true),
    ];
    for (i, (space, _)) in offers.iter().enumerate() {
        d.handle_datagram(
            Instant::ZERO,
            peer(1, 9),
            &announce(9, i as u32, space.clone(), INFINITE_LIFETIME),
        );
    }
    let kept: Vec<UidSpace> = d.proxies(Instant::ZERO).map(|p| p.space).collect();
    let expected: Vec<UidSpace> = offers
        .iter()
        .filter(|(_, k)| *k)
        .map(|(s, _)| s.clone())
        .collect();
    assert_eq!(kept, expected);
    assert_eq!(d.counters().proxies_recorded, 3);
    assert_eq!(d.counters().proxy_refused_wide, 5);
    let first = d.proxies(Instant::ZERO).next().unwrap();
    assert_eq!(first.origin, DeviceId::new(9).unwrap());
    assert_eq!(first.expires, Instant::from_secs(3600));
    // A refused announcement is still forwarded: only the defense is withheld.
    assert_eq!(d.counters().attempts_forwarded, 8);
    assert_eq!(d.flush_proxies(), 3);
    assert_eq!(d.proxy_table_len(), 0);
    assert_eq!(d.counters().proxies_flushed, 3);
    // Nothing is denied after the flush.
    d.handle_datagram(
        Instant::from_secs(1),
        peer(2, 3),
        &attempt(3, 1, unique(7)).to_vec(),
    );
    assert_eq!(d.counters().proxy_denies, 0);
    // Switched off, nothing is taken at all.
    let mut off = Device::new(
        Config {
            proxy_defense: false,
            ..config()
        },
        DeviceId::new(1).unwrap(),
        ChaCha8Rng::seed_from_u64(1),
    );
    off.add_interface(InterfaceId(1));
    off.handle_datagram(Instant::ZERO, peer(1, 9), &announce(9, 1, unique(7), 600));
    assert_eq!(off.proxy_table_len(), 0);
}

/// Forged X+R announcements of every 8-bit prefix of a domain (docs/uiap-design.md D66): the
/// proxied spaces of one domain cover at most 1/256 of it (four 10-bit prefixes), one origin's
/// at most 1/1024 (one), so no 8-bit prefix is defended and the rest of the domain stays
/// claimable.
#[test]
fn proxy_defense_covers_a_bounded_share_of_a_domain_and_of_an_origin() {
    let mut d = device(1, &[1, 2]);
    let slash8 = |b: u8| UidSpace::Prefix(Uid::new(&[b], 8).unwrap());
    for b in 0..=255u8 {
        let forged = announce(1000 + u64::from(b), 1, slash8(b), INFINITE_LIFETIME);
        d.handle_datagram(Instant::ZERO, peer(1, 9), &forged);
    }
    assert_eq!(d.proxy_table_len(), 0, "forged 8-bit prefixes defended");
    assert_eq!(d.counters().proxy_refused_share, 256);
    // Every 10-bit prefix, each from an origin of its own: four are defended, 1/256 of it.
    let slash10 =
        |n: u16| UidSpace::Prefix(Uid::new(&[(n >> 2) as u8, (n << 6) as u8], 10).unwrap());
    for n in 0..1024u16 {
        let forged = announce(5000 + u64::from(n), 1, slash10(n), INFINITE_LIFETIME);
        d.handle_datagram(Instant::ZERO, peer(1, 9), &forged);
    }
    assert_eq!(d.proxy_table_len(), 4);
    assert_eq!(d.counters().proxy_refused_share, 256 + 1020);
    // A UID under a prefix not taken is claimed undisturbed: no proxy Deny.
    d.handle_datagram(
        Instant::from_secs(1),
        peer(2, 3),
        &attempt(
            3,
            1,
            UidSpace::Unique(Uid::from_octets(&[0x80, 1]).unwrap()),
        )
        .to_vec(),
    );
    assert_eq!(d.counters().proxy_denies, 0);
    // One origin alone: one 10-bit prefix, whatever it sends; narrow spaces still fit.
    let mut d = device(1, &[1, 2]);
    for n in 0..1024u16 {
        d.handle_datagram(
            Instant::ZERO,
            peer(1, 9),
            &announce(77, u32::from(n) + 1, slash10(n), INFINITE_LIFETIME),
        );
    }
    assert_eq!(d.proxy_table_len(), 1);
    d.handle_datagram(Instant::ZERO, peer(1, 9), &announce(78, 1, unique(7), 600));
    assert_eq!(d.proxy_table_len(), 2);
}

/// A device's own new claim fails at once if it overlaps a claim the device defends by proxy;
/// after a flush it may go ahead.
#[test]
fn an_own_claim_consults_the_proxy_table() {
    let mut d = device(1, &[1]);
    d.handle_datagram(Instant::ZERO, peer(1, 9), &announce(9, 1, unique(7), 600));
    let err = d
        .claim(Instant::from_secs(1), ClaimSpec::new(DOMAIN, unique(7)))
        .unwrap_err();
    assert_eq!(
        err.kind(),
        ClaimErrorKind::ProxiedConflict {
            origin: DeviceId::new(9).unwrap()
        }
    );
    assert!(err.to_string().contains("by proxy"), "{err}");
    assert!(
        d.claim(Instant::from_secs(1), ClaimSpec::new(DOMAIN, unique(8)))
            .is_ok()
    );
    d.flush_proxies();
    assert!(
        d.claim(Instant::from_secs(1), ClaimSpec::new(DOMAIN, unique(7)))
            .is_ok()
    );
}

/// A claim held back by the conflict rate limit has sent nothing: a conflicting Attempt from
/// elsewhere is forwarded, not denied, and the waiting claim does not fail. Once it has started,
/// the same meeting is a simultaneous claim (both fail).
#[test]
fn a_claim_not_yet_started_neither_denies_nor_fails() {
    let cfg = Config {
        conflict_limit: 1,
        ..config()
    };
    let mut d = Device::new(cfg, DeviceId::new(7).unwrap(), ChaCha8Rng::seed_from_u64(7));
    d.add_interface(InterfaceId(1));
    d.add_interface(InterfaceId(2));
    // One conflict: the next claim waits 60 s.
    let first = d
        .claim(Instant::ZERO, ClaimSpec::new(DOMAIN, unique(1)))
        .unwrap();
    run(&mut d, Instant::ZERO);
    d.handle_datagram(
        Instant::ZERO,
        peer(1, 2),
        &attempt(2, 1, unique(1)).to_vec(),
    );
    assert!(matches!(events(&mut d)[..], [Event::ClaimDenied { claim, .. }] if claim == first));
    drain(&mut d);
    let waiting: ClaimId = d
        .claim(Instant::from_secs(1), ClaimSpec::new(DOMAIN, unique(5)))
        .unwrap();
    assert_eq!(d.poll_timeout(), Some(Instant::from_secs(60)));
    d.handle_datagram(
        Instant::from_secs(2),
        peer(1, 3),
        &attempt(3, 1, unique(5)).to_vec(),
    );
    assert_eq!(
        drain(&mut d)
            .iter()
            .map(|t| t.destination)
            .collect::<Vec<_>>(),
        [Destination::Multicast(InterfaceId(2))]
    );
    assert!(events(&mut d).is_empty());
    assert_eq!(
        d.counters().denies_sent,
        1,
        "only the first, simultaneous claim"
    );
    // Started: a conflicting new claim now meets ours.
    run(&mut d, Instant::from_secs(60));
    d.handle_datagram(
        Instant::from_secs(60),
        peer(1, 3),
        &attempt(3, 2, unique(5)).to_vec(),
    );
    assert!(matches!(events(&mut d)[..], [Event::ClaimDenied { claim, .. }] if claim == waiting));
    assert_eq!(d.counters().denies_sent, 2);
}

/// Forged collisions move the sequence number every time but change the device ID at most once
/// per conflict window (60 s).
#[test]
fn forged_collisions_change_the_device_id_at_most_once_a_minute() {
    let mut d = device(7, &[1]);
    let mut ids = vec![d.device_id()];
    for (i, at) in [0u64, 1, 30, 59, 60, 61, 120].into_iter().enumerate() {
        let forged = attempt(
            ids.last().unwrap().get(),
            d.next_sequence().wrapping_add(1_000),
            unique(i as u8),
        );
        let before = d.next_sequence();
        d.handle_datagram(Instant::from_secs(at), peer(1, 66), &forged.to_vec());
        assert_ne!(d.next_sequence(), before, "the sequence moved at {at} s");
        if d.device_id() != *ids.last().unwrap() {
            ids.push(d.device_id());
        }
    }
    assert_eq!(d.counters().device_id_collisions, 7);
    // New IDs at 0 s, 60 s and 120 s.
    assert_eq!(ids.len(), 4, "{ids:?}");
    let changed: Vec<bool> = events(&mut d)
        .iter()
        .map(|e| {
            matches!(
                e,
                Event::DeviceIdCollision {
                    new_device_id: Some(_),
                    ..
                }
            )
        })
        .collect();
    assert_eq!(changed, [true, false, false, false, true, false, true]);
}

/// After a restart, a claim reclaims under the ID it was made under (`ClaimSpec::origin`, as
/// `ClaimInfo::origin` reported it), not the device's current one, and a proxy that knew it
/// forwards the reclaim; the device recognises its own flood under that ID.
#[test]
fn a_reclaim_after_a_restart_keeps_the_id_the_claim_was_made_under() {
    let mut proxy = device(20, &[1, 2]);
    proxy.handle_datagram(Instant::ZERO, peer(1, 7), &announce(7, 1, unique(9), 600));
    let mut restarted = device(8, &[1]);
    let spec = ClaimSpec::new(DOMAIN, unique(9))
        .reclaim(true)
        .proxy(true)
        .origin(DeviceId::new(7));
    let c = restarted.claim(Instant::from_secs(10), spec).unwrap();
    assert_eq!(restarted.claim_info(c).unwrap().origin.get(), 7);
    let sent = run(&mut restarted, Instant::from_secs(20));
    assert_eq!(origins(&sent), [7, 7]);
    for t in &sent {
        proxy.handle_datagram(Instant::from_secs(10), peer(1, 7), &t.payload);
        // Our own flood coming back is recognised under the claim's ID.
        restarted.handle_datagram(Instant::from_secs(10), peer(1, 20), &t.payload);
    }
    assert_eq!(restarted.counters().dropped(DropReason::OwnLoop), 2);
    assert_eq!(restarted.counters().device_id_collisions, 0);
    assert_eq!(proxy.counters().proxy_denies, 0);
    assert!(
        matches!(events(&mut restarted)[..], [Event::ClaimSucceeded { claim, .. }] if claim == c)
    );
}

/// The flood in the simulator: claimant C — forwarder T — holder H, 5 ms links, small tables.
/// A neighbour of T that the simulation does not run floods T with 10,000 distinct Attempts a
/// second for 20 s — enough to replace T's whole table long before a Deny comes back. C's 20
/// conflicting claims are all denied: the flooder evicts only its own records at T, so the
/// reverse path of C's Attempts survives (docs/uiap-design.md D44).
#[test]
fn sim_conflicts_through_a_flooded_forwarder_are_denied() {
    let cfg = Config {
        message_table_capacity: 32,
        conflict_limit: 1_000,
        ..Config::default()
    };
    let mut sim = Sim::new(12, cfg);
    let link = SegmentParams {
        delay: Duration::from_millis(5),
        ..SegmentParams::default()
    };
    let (ct, th) = (sim.add_segment(link.clone()), sim.add_segment(link));
    let c = sim.add_node("c", &[ct]);
    let t = sim.add_node("t", &[ct, th]);
    let h = sim.add_node("h", &[th]);
    let range = UidSpace::Range {
        low: Uid::from_octets(&[0x10]).unwrap(),
        high: Uid::from_octets(&[0x2f]).unwrap(),
    };
    let held = sim.claim_at(Instant::ZERO, h, ClaimSpec::new(DOMAIN, range));
    let flooder: std::net::Ipv6Addr = "fe80::bad".parse().unwrap();
    for i in 0..200_000u32 {
        let at = Instant::from_secs(5) + Duration::from_micros(u64::from(i) * 100);
        let forged = attempt(
            0xbad,
            i,
            UidSpace::Unique(Uid::from_octets(&i.to_be_bytes()).unwrap()),
        );
        sim.inject_at(at, t, 0, flooder, forged.to_vec());
    }
    let claims: Vec<_> = (0..20u8)
        .map(|i| {
            let at = Instant::from_secs(6 + u64::from(i) / 2)
                + Duration::from_millis(u64::from(i % 2) * 500);
            sim.claim_at(at, c, ClaimSpec::new(DOMAIN, unique(0x10 + i)))
        })
        .collect();
    sim.run_until(Instant::from_secs(30));
    assert!(sim.claim(held).outcome.unwrap().kind.succeeded());
    let granted: Vec<_> = claims
        .iter()
        .filter(|r| sim.claim(**r).outcome.is_some_and(|o| o.kind.succeeded()))
        .collect();
    assert!(granted.is_empty(), "wrongly granted: {}", granted.len());
    let at_t = sim.device(t).counters();
    assert!(at_t.dropped(DropReason::TableFull) > 100_000, "{at_t:?}");
    assert!(at_t.denies_forwarded >= 20, "{at_t:?}");
}

/// A device forwards at most `forward_rate` floods a second (as many at once), so that a flood
/// it relays never makes its neighbours' limits drop its own traffic; its own attempts and its
/// Denies are not counted against it.
#[test]
fn forwarding_is_limited_to_forward_rate_floods_a_second() {
    let cfg = Config {
        forward_rate: 10,
        ..config()
    };
    let mut d = Device::new(cfg, DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(1));
    d.add_interface(InterfaceId(1));
    d.add_interface(InterfaceId(2));
    d.claim(Instant::ZERO, ClaimSpec::new(DOMAIN, unique(42)))
        .unwrap();
    let own = run(&mut d, Instant::from_secs(3)).len();
    let at = Instant::from_secs(5);
    for s in 0..30 {
        d.handle_datagram(at, peer(1, 2), &attempt(5, s, unique(1)).to_vec());
    }
    let sent = drain(&mut d);
    let forwarded = sent
        .iter()
        .filter(|t| matches!(t.destination, Destination::Multicast(_)))
        .count();
    assert_eq!(forwarded, 10, "the burst");
    assert_eq!(d.counters().dropped(DropReason::ForwardLimited), 20);
    // Each Attempt not forwarded is answered with a Deny to its previous hop (D69).
    assert_eq!(sent.len() - forwarded, 20);
    assert!(
        sent.iter()
            .all(|t| matches!(t.destination, Destination::Multicast(_))
                || t.destination == Destination::Unicast(peer(1, 2)))
    );
    assert_eq!(d.counters().denies_for_drops, 20);
    assert_eq!(d.counters().denies_sent, 0);
    // A conflicting claim is still denied with the budget spent.
    d.handle_datagram(at, peer(1, 3), &attempt(6, 1, unique(42)).to_vec());
    assert_eq!(
        drain(&mut d)
            .iter()
            .map(|t| t.destination)
            .collect::<Vec<_>>(),
        [Destination::Unicast(peer(1, 3))]
    );
    // 10 a second afterwards: 5 in half a second.
    let later = at + Duration::from_millis(500);
    for s in 100..120 {
        d.handle_datagram(later, peer(1, 2), &attempt(5, s, unique(1)).to_vec());
    }
    let sent = drain(&mut d);
    assert_eq!(
        sent.iter()
            .filter(|t| matches!(t.destination, Destination::Multicast(_)))
            .count(),
        5
    );
    assert_eq!(
        own, 6,
        "own attempts: 3 on each of 2 interfaces, not limited"
    );
}

/// The forwarding budget is shared fairly among previous hops (D69): a hop that floods takes
/// its share and the uncontended half, not the quiet hop's share, and what it loses is answered
/// with Denies to it.
/// What the device sent since the last look: each datagram's origin and destination.
fn sent_by_origin(d: &mut Device<ChaCha8Rng>) -> Vec<(u64, Destination)> {
    drain(d)
        .into_iter()
        .map(|t| (Repr::parse(&t.payload).unwrap().origin.get(), t.destination))
        .collect()
}

/// Sixteen hops flooding, each within its share of the budget and together spending all of it
/// (a relay flooded from forged addresses, D69): a quiet hop that speaks after a silence still
/// has its share. Its Attempts were denied while the hops' shares added up to the whole budget
/// and the shared bucket ran dry.
#[test]
fn sixteen_flooding_hops_cannot_spend_a_quiet_hops_forwarding_share() {
    let mut d = device(1, &[1, 2]);
    let start = Instant::from_secs(5);
    let (mut quiet_sent, mut quiet_forwarded, mut quiet_denied) = (0, 0, 0);
    // 8,000 a second for 4 s from 16 hops; the quiet hop every 100 ms after the first second.
    for i in 0..32_000u32 {
        let at = start + Duration::from_micros(u64::from(i) * 125);
        let hop = 10 + (i % 16) as u16;
        d.handle_datagram(at, peer(1, hop), &attempt(5, i, unique(1)).to_vec());
        if i >= 8_000 && i % 800 == 0 {
            d.handle_datagram(at, peer(1, 3), &attempt(6, i, unique(2)).to_vec());
            quiet_sent += 1;
        }
        for (origin, destination) in sent_by_origin(&mut d) {
            match destination {
                Destination::Multicast(_) if origin == 6 => quiet_forwarded += 1,
                Destination::Unicast(p) if p == peer(1, 3) => quiet_denied += 1,
                _ => {}
            }
        }
    }
    assert_eq!((quiet_forwarded, quiet_denied), (quiet_sent, 0));
    let limited = d.counters().dropped(DropReason::ForwardLimited);
    assert!(limited > 20_000, "{limited}");
    // The budget still holds: 500 a second and one burst, with the quiet hop's share.
    let forwarded = d.counters().attempts_forwarded;
    assert!(forwarded <= 500 * 4 + 500 + 64, "{forwarded}");
}

#[test]
fn a_flooding_hop_cannot_spend_a_quiet_hops_forwarding_share() {
    let mut d = device(1, &[1, 2]);
    let start = Instant::from_secs(5);
    let (mut quiet_sent, mut flood_denied) = (0, 0);
    let mut quiet_forwarded = 0;
    for i in 0..4_000u32 {
        let at = start + Duration::from_micros(u64::from(i) * 500);
        d.handle_datagram(at, peer(1, 2), &attempt(5, i, unique(1)).to_vec());
        if i % 100 == 0 {
            d.handle_datagram(at, peer(1, 3), &attempt(6, i, unique(2)).to_vec());
            quiet_sent += 1;
        }
        for (origin, destination) in sent_by_origin(&mut d) {
            match destination {
                Destination::Multicast(_) if origin == 6 => quiet_forwarded += 1,
                Destination::Unicast(p) if p == peer(1, 2) => flood_denied += 1,
                Destination::Unicast(p) => panic!("the quiet hop was denied at {i}: {p:?}"),
                Destination::Multicast(_) => {}
            }
        }
    }
    assert_eq!(quiet_forwarded, quiet_sent);
    let limited = d.counters().dropped(DropReason::ForwardLimited);
    assert!(limited > 2_000, "{limited}");
    assert_eq!(flood_denied, limited);
}
