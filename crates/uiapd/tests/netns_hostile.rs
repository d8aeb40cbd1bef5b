//! Hostile traffic against a uiapd in a network namespace: every malformed or off-link datagram
//! is dropped and counted in `status`, and the daemon keeps serving. Needs root and iproute2.
//!
//! Topology: H (hostile sender, no daemon) — T (daemon under test) — N (a peer daemon).

use crate::netns_support;

use std::net::{Ipv6Addr, SocketAddrV6};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use netns_support::{CLAIM_PORT, GROUP, Net, REPLY_PORT, can_run, index_of, sh, udp};
use socket2::{Domain, Protocol, Socket, Type};
use uiap::space::{DomainId, Uid, UidSpace};
use uiap::wire::{DeviceId, MessageType, Repr};

fn attempt(sequence: u32, uid: u8) -> Vec<u8> {
    Repr {
        msg_type: MessageType::ClaimAttempt,
        proxy: false,
        reclaim: false,
        hop_limit: 32,
        lifetime: 60,
        origin: DeviceId::new(0x4242_4242_4242_4242).unwrap(),
        sequence,
        claim_ref: 9,
        domain: "fff:0:2:0".parse::<DomainId>().unwrap(),
        space: UidSpace::Unique(Uid::from_octets(&[uid]).unwrap()),
    }
    .to_vec()
}

/// From namespace H: every kind of datagram T must drop, one of each (two with a wrong hop
/// limit), then 200 copies of one valid Attempt. `t_link_local` is T's address on the link.
fn send_hostile_datagrams(t_link_local: Ipv6Addr) {
    let index = index_of("h0");
    let group = SocketAddrV6::new(GROUP, CLAIM_PORT, 0, index);
    let ok = udp(index, 255, Ipv6Addr::UNSPECIFIED);
    // Empty, truncated, oversized, wrong version.
    ok.send_to(&[], &group.into()).unwrap();
    ok.send_to(&attempt(1, 1)[..10], &group.into()).unwrap();
    ok.send_to(&[0x01; 1200], &group.into()).unwrap();
    let mut v2 = attempt(2, 2);
    v2[0] = 2;
    ok.send_to(&v2, &group.into()).unwrap();
    // Hop limit ≠ 255: multicast with 64, unicast to T's link-local address with 1.
    udp(index, 64, Ipv6Addr::UNSPECIFIED)
        .send_to(&attempt(3, 3), &group.into())
        .unwrap();
    let unicast = SocketAddrV6::new(t_link_local, CLAIM_PORT, 0, index);
    udp(index, 1, Ipv6Addr::UNSPECIFIED)
        .send_to(&attempt(4, 4), &unicast.into())
        .unwrap();
    // Off-link source: a global address, hop limit 255.
    udp(index, 255, "2001:db8::1".parse().unwrap())
        .send_to(&attempt(5, 5), &group.into())
        .unwrap();
    // Source port 0.
    send_from_port_zero(index, &attempt(6, 6));
    // Well-formed, from the link, but not where the type belongs (design D42): an Attempt
    // unicast to the claim port, an Attempt to the reply port, a Deny to the group.
    ok.send_to(&attempt(8, 8), &unicast.into()).unwrap();
    let reply = SocketAddrV6::new(t_link_local, REPLY_PORT, 0, index);
    ok.send_to(&attempt(9, 9), &reply.into()).unwrap();
    let mut deny = attempt(10, 10);
    deny[1] |= 0x10;
    ok.send_to(&deny, &group.into()).unwrap();
    // A flood of one message ID: 200 copies.
    let flood = attempt(7, 7);
    for _ in 0..200 {
        ok.send_to(&flood, &group.into()).unwrap();
    }
}

/// Sends `body` to the group from UDP source port 0: a raw socket builds the UDP header (the
/// kernel fills in the checksum).
fn send_from_port_zero(index: u32, body: &[u8]) {
    let raw = Socket::new(Domain::IPV6, Type::RAW, Some(Protocol::UDP)).unwrap();
    let offset: libc::c_int = 6;
    // SAFETY: setsockopt with a c_int option value of the right size.
    let rc = unsafe {
        libc::setsockopt(
            raw.as_raw_fd(),
            libc::IPPROTO_IPV6,
            libc::IPV6_CHECKSUM,
            (&offset as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0, "IPV6_CHECKSUM: {}", std::io::Error::last_os_error());
    raw.set_multicast_hops_v6(255).unwrap();
    raw.set_multicast_if_v6(index).unwrap();
    let len = (8 + body.len()) as u16;
    let mut datagram = vec![0, 0];
    datagram.extend_from_slice(&CLAIM_PORT.to_be_bytes());
    datagram.extend_from_slice(&len.to_be_bytes());
    datagram.extend_from_slice(&[0, 0]);
    datagram.extend_from_slice(body);
    raw.send_to(&datagram, &SocketAddrV6::new(GROUP, 0, 0, index).into())
        .unwrap();
}

#[test]
fn hostile_datagrams_are_dropped_and_counted() {
    if !can_run("hostile_datagrams_are_dropped_and_counted") {
        return;
    }
    let mut net = Net::hostile();
    net.start_hostile_daemons(&[], &[]);
    sh(&[
        "ip",
        "-n",
        &net.names[0],
        "addr",
        "add",
        "2001:db8::1/64",
        "dev",
        "h0",
        "nodad",
    ]);
    let t_link_local: Ipv6Addr = net.daemons[0]
        .status()
        .interfaces
        .iter()
        .find(|i| i.name == "t0")
        .expect("t0 participates")
        .link_local
        .parse()
        .unwrap();

    net.in_ns(0, move || send_hostile_datagrams(t_link_local));

    let expected = [
        ("empty", 1),
        ("truncated", 1),
        ("oversized", 1),
        ("unknown_version", 1),
        ("hop_limit_not_255", 2),
        ("off_link_source", 1),
        ("source_port_zero", 1),
        ("attempt_not_multicast", 1),
        ("attempt_on_reply_port", 1),
        ("deny_on_claim_port", 1),
        ("duplicate", 199),
    ];
    let t = &net.daemons[0];
    wait_for_drops(t, &expected);
    // The one valid message of the flood was forwarded once to N, the rest were not.
    assert_eq!(t.counter("attempts_forwarded"), 1);
    assert_eq!(net.daemons[1].counter("attempts_received"), 1);

    // Still serving: N claims, T is denied the same UID, T claims another.
    assert_eq!(net.daemons[1].claim("fff:0:2:0", &["--uid", "77"]).0, 0);
    assert_eq!(net.daemons[0].claim("fff:0:2:0", &["--uid", "77"]).0, 3);
    assert_eq!(net.daemons[0].claim("fff:0:2:0", &["--uid", "78"]).0, 0);
}

/// With `--psk-file`, datagrams without the right HMAC trailer are dropped and counted; two
/// daemons with the same key still deny each other.
#[test]
fn psk_trailer_is_required() {
    if !can_run("psk_trailer_is_required") {
        return;
    }
    let mut net = Net::hostile();
    let key = net.dir.join("psk");
    std::fs::write(&key, "correct horse battery staple\n").unwrap();
    let flag = vec!["--psk-file".to_string(), key.display().to_string()];
    net.start_hostile_daemons(&flag, &flag);
    net.in_ns(0, || {
        let index = index_of("h0");
        let group = SocketAddrV6::new(GROUP, CLAIM_PORT, 0, index);
        let s = udp(index, 255, Ipv6Addr::UNSPECIFIED);
        // No trailer: shorter than the 40-octet trailer.
        s.send_to(&attempt(1, 1), &group.into()).unwrap();
        // A forged trailer, and one of the old 32-octet format: the tag fails.
        let mut forged = attempt(2, 2);
        forged.extend_from_slice(&[0u8; 40]);
        s.send_to(&forged, &group.into()).unwrap();
        let mut old = attempt(3, 3);
        old.extend_from_slice(&[0u8; 32]);
        s.send_to(&old, &group.into()).unwrap();
        s.send_to(&[1u8; 20], &group.into()).unwrap();
    });
    let t = &net.daemons[0];
    wait_for_drops(t, &[("psk_mismatch", 2), ("psk_missing", 2)]);
    assert_eq!(t.counter("attempts_received"), 0);

    // H captures the first sealed datagram T sends on the link...
    let (joined, ready) = std::sync::mpsc::channel();
    let capture = net.spawn_in_ns(0, move || {
        let s = Socket::new(Domain::IPV6, Type::DGRAM, Some(Protocol::UDP)).unwrap();
        s.bind(&SocketAddrV6::new(Ipv6Addr::UNSPECIFIED, CLAIM_PORT, 0, 0).into())
            .unwrap();
        s.join_multicast_v6(&GROUP, index_of("h0")).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        joined.send(()).unwrap();
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 2048];
        let n = s.recv(&mut buf).expect("a datagram from T");
        // SAFETY: recv initialised the first n octets.
        buf[..n]
            .iter()
            .map(|b| unsafe { b.assume_init() })
            .collect::<Vec<u8>>()
    });
    ready.recv().unwrap();
    let n = &net.daemons[1];
    assert_eq!(n.claim("fff:0:2:0", &["--uid", "99"]).0, 0);
    assert_eq!(net.daemons[0].claim("fff:0:2:0", &["--uid", "99"]).0, 3);
    let captured = capture.join().unwrap();
    // ... and sends it back unchanged: dropped and counted as a replay (design D41).
    net.in_ns(0, move || {
        let index = index_of("h0");
        udp(index, 255, Ipv6Addr::UNSPECIFIED)
            .send_to(
                &captured,
                &SocketAddrV6::new(GROUP, CLAIM_PORT, 0, index).into(),
            )
            .unwrap();
    });
    wait_for_drops(&net.daemons[0], &[("psk_replay", 1)]);
}

/// Waits until every named drop counter of `d` has the expected value.
fn wait_for_drops(d: &netns_support::Daemon, expected: &[(&str, u64)]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let drops = d.status().drops;
        if expected
            .iter()
            .all(|(k, v)| drops.get(*k).copied().unwrap_or(0) == *v)
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "drops: expected {expected:?}, found {drops:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// An X+R announcement by a device nobody knows, as a hostile neighbour would send it.
fn announce(sequence: u32, space: UidSpace) -> Vec<u8> {
    let mut a = Repr::parse(&attempt(sequence, 0)).unwrap();
    a.proxy = true;
    a.reclaim = true;
    a.lifetime = uiap::wire::INFINITE_LIFETIME;
    a.space = space;
    a.to_vec()
}

/// Proxy poisoning (design D43): a forged whole-domain announcement is not proxied and is counted;
/// a narrow one is, for at most an hour, shows in `status` and `uiap proxies`, denies others
/// and the daemon's own claim, and is gone after `uiap proxies --flush`. A daemon started with
/// `--no-proxy-defense` takes neither.
#[test]
fn proxy_poisoning_is_capped_visible_and_flushable() {
    if !can_run("proxy_poisoning_is_capped_visible_and_flushable") {
        return;
    }
    let mut net = Net::hostile();
    net.start_hostile_daemons(&[], &["--no-proxy-defense".to_string()]);
    let narrow = UidSpace::Unique(Uid::from_octets(&[0x55]).unwrap());
    let sent = narrow.clone();
    net.in_ns(0, move || {
        let index = index_of("h0");
        let group = SocketAddrV6::new(GROUP, CLAIM_PORT, 0, index);
        let s = udp(index, 255, Ipv6Addr::UNSPECIFIED);
        let everything = UidSpace::Prefix(Uid::new(&[], 0).unwrap());
        s.send_to(&announce(1, everything), &group.into()).unwrap();
        s.send_to(&announce(2, sent), &group.into()).unwrap();
    });
    let (t, n) = (&net.daemons[0], &net.daemons[1]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        let status = t.status();
        if status.counters.get("proxy_refused_wide") == Some(&1) && status.proxies.len() == 1 {
            break status;
        }
        assert!(Instant::now() < deadline, "T: {status:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let p = &status.proxies[0];
    assert_eq!(p.origin, "4242424242424242");
    assert_eq!(p.space, uiap_control::SpaceText::from_space(&narrow));
    assert!(p.expires_in <= 3600, "{p:?}");
    assert_eq!(status.counters["proxies_recorded"], 1);
    // N forwarded both, proxies neither.
    let n_status = n.status();
    assert!(n_status.proxies.is_empty());
    assert_eq!(n_status.counters.get("proxies_recorded"), Some(&0));

    // Defended: N's claim is denied by T's proxy, T's own claim fails at once.
    assert_eq!(n.claim("fff:0:2:0", &["--uid", "55"]).0, 3);
    assert_eq!(t.counter("proxy_denies"), 1);
    let (code, out) = t.claim("fff:0:2:0", &["--uid", "55"]);
    assert_eq!(code, 3);
    assert!(out.contains("by proxy"), "{out}");
    // Visible, and flushed by the operator.
    let (code, out, _) = t.uiap(&["proxies"]);
    assert_eq!(code, 0);
    assert!(out.contains("4242424242424242"), "{out}");
    let (code, _, err) = t.uiap(&["proxies", "--flush"]);
    assert_eq!(code, 0);
    assert!(err.contains("flushed 1"), "{err}");
    assert!(t.status().proxies.is_empty());
    assert_eq!(t.counter("proxies_flushed"), 1);
    assert_eq!(n.claim("fff:0:2:0", &["--uid", "55"]).0, 0);
}

/// One forged Attempt carrying T's (public) device ID makes T take a new ID (design D40, D47).
/// T's claim, defended by N's proxy, keeps its old ID: after a restart T reclaims it under that
/// ID, and N forwards the reclaim instead of denying it, so the claim is still held.
#[test]
fn a_device_id_change_never_costs_a_held_claim_across_a_restart() {
    if !can_run("a_device_id_change_never_costs_a_held_claim_across_a_restart") {
        return;
    }
    let mut net = Net::hostile();
    net.start_hostile_daemons(&[], &[]);
    let (code, _) = net.daemons[0].claim(
        "fff:0:2:0",
        &["--uid", "66", "--proxy", "--lifetime", "600"],
    );
    assert_eq!(code, 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    while net.daemons[1].status().proxies.is_empty() {
        assert!(Instant::now() < deadline, "N never proxied T's claim");
        std::thread::sleep(Duration::from_millis(100));
    }
    let old = net.daemons[0].status().device_id;
    let id = u64::from_str_radix(&old, 16).unwrap();
    net.in_ns(0, move || {
        let index = index_of("h0");
        let mut forged = Repr::parse(&attempt(0x1234_5678, 0x21)).unwrap();
        forged.origin = DeviceId::new(id).unwrap();
        udp(index, 255, Ipv6Addr::UNSPECIFIED)
            .send_to(
                &forged.to_vec(),
                &SocketAddrV6::new(GROUP, CLAIM_PORT, 0, index).into(),
            )
            .unwrap();
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while net.daemons[0].status().device_id == old {
        assert!(Instant::now() < deadline, "T never saw the collision");
        std::thread::sleep(Duration::from_millis(100));
    }
    net.daemons[0].stop();
    net.daemons[0].start(&[]);
    net.daemons[0].wait_all_held();
    let claims = net.daemons[0].list();
    assert_eq!(claims.len(), 1, "{claims:?}");
    assert_ne!(net.daemons[0].status().device_id, old);
    assert_eq!(net.daemons[1].counter("proxy_denies"), 0);
    assert_eq!(net.daemons[1].counter("denies_sent"), 0);
}
