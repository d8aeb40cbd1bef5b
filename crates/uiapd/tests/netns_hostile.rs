//! Hostile traffic against a uiapd in a network namespace: every malformed or off-link datagram
//! is dropped and counted in `status`, and the daemon keeps serving. Needs root and iproute2.
//!
//! Topology: H (hostile sender, no daemon) — T (daemon under test) — N (a peer daemon).

mod netns_support;

use std::net::{Ipv6Addr, SocketAddrV6};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use netns_support::{Net, can_run, sh};
use socket2::{Domain, Protocol, Socket, Type};
use uiap::space::{DomainId, Uid, UidSpace};
use uiap::wire::{DeviceId, MessageType, Repr};

const GROUP: Ipv6Addr = Ipv6Addr::new(0xff12, 0, 0, 0, 0, 0, 0x8000, 0x7569);
const CLAIM_PORT: u16 = 61001;

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
        domain: "fff:0:0:2".parse::<DomainId>().unwrap(),
        space: UidSpace::Unique(Uid::from_octets(&[uid]).unwrap()),
    }
    .to_vec()
}

fn udp(index: u32, hops: u32, bind: Ipv6Addr) -> Socket {
    let s = Socket::new(Domain::IPV6, Type::DGRAM, Some(Protocol::UDP)).unwrap();
    s.set_multicast_hops_v6(hops).unwrap();
    s.set_unicast_hops_v6(hops).unwrap();
    s.set_multicast_if_v6(index).unwrap();
    s.bind(&SocketAddrV6::new(bind, 0, 0, if bind.is_unspecified() { 0 } else { index }).into())
        .unwrap();
    s
}

fn index_of(name: &str) -> u32 {
    let c = std::ffi::CString::new(name).unwrap();
    // SAFETY: a valid NUL-terminated name.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    assert_ne!(i, 0, "no interface {name}");
    i
}

fn wait_not_tentative(ns: &str, dev: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = sh(&["ip", "-n", ns, "-6", "addr", "show", "dev", dev]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.contains("fe80") && !text.contains("tentative") {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{ns}/{dev} still tentative: {text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
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
    let mut net = Net::new(3);
    net.link(0, "h0", 1, "t0");
    net.link(1, "t1", 2, "n0");
    net.start_daemon(1, &[]);
    net.start_daemon(2, &[]);
    net.daemons[0].wait_interfaces(2);
    net.daemons[1].wait_interfaces(1);
    wait_not_tentative(&net.names[0], "h0");
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
        ("duplicate", 199),
    ];
    let deadline = Instant::now() + Duration::from_secs(10);
    let t = &net.daemons[0];
    loop {
        let drops = t.status().drops;
        let got: Vec<(&str, u64)> = expected
            .iter()
            .map(|(k, _)| (*k, drops.get(*k).copied().unwrap_or(0)))
            .collect();
        if got == expected {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "drops: expected {expected:?}, found {drops:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The one valid message of the flood was forwarded once to N, the rest were not.
    assert_eq!(t.counter("attempts_forwarded"), 1);
    assert_eq!(net.daemons[1].counter("attempts_received"), 1);

    // Still serving: N claims, T is denied the same UID, T claims another.
    assert_eq!(net.daemons[1].claim("fff:0:0:2", &["--uid", "77"]).0, 0);
    assert_eq!(net.daemons[0].claim("fff:0:0:2", &["--uid", "77"]).0, 3);
    assert_eq!(net.daemons[0].claim("fff:0:0:2", &["--uid", "78"]).0, 0);
}

/// With `--psk-file`, datagrams without the right HMAC trailer are dropped and counted; two
/// daemons with the same key still deny each other.
#[test]
fn psk_trailer_is_required() {
    if !can_run("psk_trailer_is_required") {
        return;
    }
    let mut net = Net::new(3);
    net.link(0, "h0", 1, "t0");
    net.link(1, "t1", 2, "n0");
    let key = net.dir.join("psk");
    std::fs::write(&key, "correct horse battery staple\n").unwrap();
    let flag = vec!["--psk-file".to_string(), key.display().to_string()];
    net.start_daemon(1, &flag);
    net.start_daemon(2, &flag);
    net.daemons[0].wait_interfaces(2);
    net.daemons[1].wait_interfaces(1);
    wait_not_tentative(&net.names[0], "h0");
    net.in_ns(0, || {
        let index = index_of("h0");
        let group = SocketAddrV6::new(GROUP, CLAIM_PORT, 0, index);
        let s = udp(index, 255, Ipv6Addr::UNSPECIFIED);
        s.send_to(&attempt(1, 1), &group.into()).unwrap(); // no trailer: 38 octets, the "tag" fails
        let mut forged = attempt(2, 2);
        forged.extend_from_slice(&[0u8; 32]);
        s.send_to(&forged, &group.into()).unwrap();
        s.send_to(&[1u8; 20], &group.into()).unwrap(); // shorter than a trailer
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let drops = net.daemons[0].status().drops;
        let (m, s) = (
            drops.get("psk_mismatch").copied().unwrap_or(0),
            drops.get("psk_missing").copied().unwrap_or(0),
        );
        if (m, s) == (2, 1) {
            break;
        }
        assert!(Instant::now() < deadline, "psk drops: {drops:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(net.daemons[0].counter("attempts_received"), 0);
    assert_eq!(net.daemons[1].claim("fff:0:0:2", &["--uid", "99"]).0, 0);
    assert_eq!(net.daemons[0].claim("fff:0:0:2", &["--uid", "99"]).0, 3);
}
