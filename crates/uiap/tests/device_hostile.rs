//! Hostile input: every malformed datagram is dropped and counted under its reason, never
//! panics, and no datagram produces more than (interfaces − 1) multicasts plus one unicast.

use core::time::Duration;

use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use uiap::config::Config;
use uiap::device::{ClaimSpec, Destination, Device, DropReason, InterfaceId, Peer};
use uiap::space::{DomainId, Uid, UidSpace};
use uiap::time::Instant;
use uiap::wire::{DeviceId, MessageType, Repr, WireErrorKind};

const IFACES: u32 = 3;
const DOMAIN: DomainId = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);

fn device() -> Device<ChaCha8Rng> {
    let cfg = Config {
        start_jitter: Duration::ZERO,
        message_table_capacity: 32,
        ..Config::default()
    };
    let mut d = Device::new(
        cfg,
        DeviceId::new(0x77).unwrap(),
        ChaCha8Rng::seed_from_u64(3),
    );
    for i in 1..=IFACES {
        d.add_interface(InterfaceId(i));
    }
    // Hold 0x2a (proxy-announced), and have 0x2b in progress.
    d.claim(
        Instant::ZERO,
        ClaimSpec::new(DOMAIN, UidSpace::Unique(Uid::from_octets(&[0x2a]).unwrap())).proxy(true),
    )
    .unwrap();
    while let Some(t) = d.poll_timeout() {
        if t > Instant::from_secs(5) {
            break;
        }
        d.handle_timeout(t);
    }
    d.claim(
        Instant::from_secs(5),
        ClaimSpec::new(DOMAIN, UidSpace::Unique(Uid::from_octets(&[0x2b]).unwrap())).lifetime(60),
    )
    .unwrap();
    d.handle_timeout(Instant::from_secs(5));
    while d.poll_transmit().is_some() {}
    while d.poll_event().is_some() {}
    d
}

fn valid(uid: u8) -> Vec<u8> {
    Repr {
        msg_type: MessageType::ClaimAttempt,
        proxy: false,
        reclaim: false,
        hop_limit: 32,
        lifetime: 60,
        origin: DeviceId::new(5).unwrap(),
        sequence: 9,
        claim_ref: 1,
        domain: DOMAIN,
        space: UidSpace::Unique(Uid::from_octets(&[uid]).unwrap()),
    }
    .to_vec()
}

fn from(i: u32) -> Peer {
    Peer {
        interface: InterfaceId(i),
        addr: "fe80::5".parse().unwrap(),
    }
}

/// Feeds one datagram and checks the output bound; returns (multicasts, unicasts).
fn feed(d: &mut Device<ChaCha8Rng>, now: Instant, peer: Peer, bytes: &[u8]) -> (u32, u32) {
    d.handle_datagram(now, peer, bytes);
    let (mut m, mut u) = (0, 0);
    while let Some(t) = d.poll_transmit() {
        match t.destination {
            Destination::Multicast(i) => {
                assert_ne!(i, peer.interface, "never back out the arrival interface");
                m += 1
            }
            Destination::Unicast(p) => {
                assert_eq!(p, peer, "a Deny goes to the previous hop");
                u += 1
            }
        }
    }
    let max_multicasts = IFACES - 1; // every interface but the arrival one
    assert!(
        m <= max_multicasts && u <= 1,
        "{m} multicasts, {u} unicasts"
    );
    assert!(m == 0 || u == 0, "deny or forward, never both");
    (m, u)
}

#[test]
fn every_wire_rejection_is_dropped_and_counted_by_kind() {
    let mut cases: Vec<(WireErrorKind, Vec<u8>)> = Vec::new();
    cases.push((WireErrorKind::Truncated, valid(1)[..20].to_vec()));
    let mut b = valid(1);
    b.push(0);
    cases.push((WireErrorKind::LengthMismatch, b));
    let mut b = valid(1);
    b[0] = 2;
    cases.push((WireErrorKind::UnknownVersion, b));
    let mut b = valid(1);
    b[1] = 0x30;
    cases.push((WireErrorKind::UnknownType, b));
    let mut b = valid(1);
    b[1] = 0x20; // a Loss-Notice, but naming a claim
    cases.push((WireErrorKind::NoticeNamesClaim, b));
    let mut b = valid(1);
    b[33] = 3;
    cases.push((WireErrorKind::UnknownFormat, b));
    let mut b = valid(1);
    b[8..16].fill(0);
    cases.push((WireErrorKind::ZeroDeviceId, b));
    let mut b = valid(0xc1);
    b[33] = 4 << 5; // BA = 4: only the top 4 bits significant, but the low bit is set
    cases.push((WireErrorKind::NonZeroPadding, b));
    let mut b = valid(1);
    b[31] = 0x80; // J = 1
    b[33] = 1; // prefix
    cases.push((WireErrorKind::PrefixInRightJustified, b));
    let mut b = valid(9);
    b[33] = 2; // range
    b[35] = 1;
    b.push(3); // low 9 > high 3
    cases.push((WireErrorKind::RangeReversed, b));
    let mut b = valid(1)[..36].to_vec();
    b[33] = 3 << 5;
    b[34] = 0;
    cases.push((WireErrorKind::EmptyUid, b));
    let mut d = device();
    for (i, (kind, bytes)) in cases.iter().enumerate() {
        assert_eq!(Repr::parse(bytes).unwrap_err().kind(), *kind, "case {i}");
        assert_eq!(
            feed(&mut d, Instant::from_secs(6), from(1), bytes),
            (0, 0),
            "{kind:?}"
        );
        assert_eq!(d.counters().dropped(DropReason::Wire(*kind)), 1, "{kind:?}");
        assert!(d.poll_event().is_none());
    }
    assert_eq!(d.counters().total_drops(), cases.len() as u64);
    assert_eq!(d.message_table_len(), 0, "nothing malformed is remembered");
}

#[test]
fn protocol_drops_are_counted_by_reason() {
    let mut d = device();
    let now = Instant::from_secs(6);
    // Unknown interface.
    assert_eq!(feed(&mut d, now, from(9), &valid(1)), (0, 0));
    // A first copy is forwarded on the two other interfaces, the duplicate dropped.
    assert_eq!(feed(&mut d, now, from(1), &valid(1)), (2, 0));
    assert_eq!(feed(&mut d, now, from(2), &valid(1)), (0, 0));
    // A Deny for nothing we saw (another sequence number).
    let mut deny = valid(2);
    deny[1] = 0x10;
    deny[19] = 99;
    assert_eq!(feed(&mut d, now, from(1), &deny), (0, 0));
    // A Deny for the Attempt we forwarded, but for another UID.
    let mut mismatch = valid(2);
    mismatch[1] = 0x10;
    assert_eq!(feed(&mut d, now, from(2), &mismatch), (0, 0));
    for reason in [
        DropReason::UnknownInterface,
        DropReason::Duplicate,
        DropReason::UnknownDeny,
        DropReason::DenyMismatch,
    ] {
        assert_eq!(d.counters().dropped(reason), 1, "{reason}");
    }
    assert_eq!(d.counters().total_drops(), 4);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_datagrams_never_panic_and_respect_the_output_bound(
        datagrams in prop::collection::vec((1u32..=4, prop::collection::vec(any::<u8>(), 0..80)), 1..20)
    ) {
        let mut d = device();
        let mut now = Instant::from_secs(6);
        for (iface, bytes) in datagrams {
            now += Duration::from_millis(7);
            feed(&mut d, now, from(iface), &bytes);
        }
    }

    #[test]
    fn mutated_valid_messages_never_panic_and_respect_the_output_bound(
        uid in prop::sample::select(vec![0x29u8, 0x2a, 0x2b, 0x2c]),
        edits in prop::collection::vec((0usize..37, any::<u8>()), 0..4),
        deny in any::<bool>(),
        iface in 1u32..=3,
    ) {
        let mut d = device();
        let mut b = valid(uid);
        if deny {
            b[1] |= 0x10;
        }
        for (at, v) in edits {
            b[at] = v;
        }
        feed(&mut d, Instant::from_secs(6), from(iface), &b);
        // The same bytes again, from another interface: at most the same bound.
        feed(&mut d, Instant::from_secs(6), from(iface % 3 + 1), &b);
        prop_assert!(d.counters().datagrams_received == 2);
    }
}
