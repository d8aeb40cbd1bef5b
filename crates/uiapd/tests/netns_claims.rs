//! What an application is told about its claims on a real network: a claim that loses every
//! interface fails, a late Deny and a lost renewal reach a watcher, a rate-limited claim is
//! announced at once. Needs root, iproute2 and (for the muted link) nftables.

use crate::netns_support;

use std::io::{BufRead, BufReader};
use std::net::{Ipv6Addr, SocketAddrV6};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use netns_support::{Net, can_run, output_within, sh};
use socket2::{Domain, Protocol, Socket, Type};
use uiap::wire::{MessageType, Packet};
use uiap_control::{ClaimRequest, ClaimState, Client, EventKind, Hold, SpaceText};

const DOMAIN: &str = "fff:0:1:0";
const GROUP: Ipv6Addr = Ipv6Addr::new(0xff12, 0, 0, 0, 0, 0, 0x8000, 0x7569);

fn can_run_muted(test: &str) -> bool {
    can_run(test) && test_support::require(test, test_support::command("nft", &["--version"]))
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// docs/uiap-design.md D31: B claims a UID A holds while B's link is muted (A never hears it),
/// and B's link flaps down and up mid-claim. The claim started on the network and lost every
/// interface: it fails; it never succeeds as a site of one.
#[test]
fn a_claim_that_loses_every_interface_fails() {
    if !can_run_muted("a_claim_that_loses_every_interface_fails") {
        return;
    }
    let mut net = Net::new(2);
    net.link(0, "a0", 1, "b0");
    let fast = strings(&["--rescan-ms", "200"]);
    net.start_daemon(0, &fast);
    net.start_daemon(1, &fast);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    assert_eq!(net.daemons[0].claim(DOMAIN, &["--uid", "c0a8"]).0, 0);
    net.mute(1, "b0");

    let claim = net.daemons[1].uiap_command(&["claim", "--domain", DOMAIN, "--uid", "c0a8"]);
    let client = std::thread::spawn(move || output_within(claim, Duration::from_secs(20)));
    let deadline = Instant::now() + Duration::from_secs(5);
    while !net.daemons[1]
        .list()
        .iter()
        .any(|c| c.state == ClaimState::Claiming)
    {
        assert!(Instant::now() < deadline, "the claim never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ns = net.names[1].clone();
    sh(&["ip", "-n", &ns, "link", "set", "b0", "down"]);
    std::thread::sleep(Duration::from_millis(800));
    sh(&["ip", "-n", &ns, "link", "set", "b0", "up"]);

    let out = client.join().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(!stdout.contains("claimed"), "{stdout}");
    assert!(
        stderr.contains("every participating interface left while claiming"),
        "{stderr}"
    );
    assert!(net.daemons[1].list().is_empty());
    assert_eq!(net.daemons[0].list()[0].state, ClaimState::Held);
}

/// Captures the Claim-Attempts the daemon next door multicasts and answers them with forged
/// Claim-Denies on command: `late` denies the first attempt it saw (after its claim
/// succeeded), then the first renewal attempt (R flag) is denied as soon as it is seen.
fn denier(to: Ipv6Addr, late: mpsc::Receiver<()>) {
    let index = {
        let c = std::ffi::CString::new("h0").unwrap();
        // SAFETY: a valid NUL-terminated name.
        unsafe { libc::if_nametoindex(c.as_ptr()) }
    };
    let s = Socket::new(Domain::IPV6, Type::DGRAM, Some(Protocol::UDP)).unwrap();
    s.set_reuse_address(true).unwrap();
    s.bind(&SocketAddrV6::new(Ipv6Addr::UNSPECIFIED, 61001, 0, 0).into())
        .unwrap();
    s.join_multicast_v6(&GROUP, index).unwrap();
    s.set_unicast_hops_v6(255).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let socket: std::net::UdpSocket = s.into();
    let reply = SocketAddrV6::new(to, 61002, 0, index);
    let deny = |bytes: &[u8]| {
        let mut p = Packet::new_checked(bytes.to_vec()).unwrap();
        p.set_msg_type(MessageType::ClaimDeny);
        socket.send_to(p.as_ref(), reply).unwrap();
    };
    let mut first: Option<Vec<u8>> = None;
    let mut late_sent = false;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut buf = [0u8; 1500];
    while Instant::now() < deadline {
        if !late_sent && late.try_recv().is_ok() {
            deny(first.as_deref().expect("an attempt was seen"));
            late_sent = true;
        }
        let Ok(n) = socket.recv(&mut buf) else {
            continue;
        };
        let Ok(p) = Packet::new_checked(&buf[..n]) else {
            continue;
        };
        if !p.reclaim() {
            first.get_or_insert_with(|| buf[..n].to_vec());
        } else if late_sent {
            deny(&buf[..n]);
            return;
        }
    }
    panic!("no renewal attempt seen");
}

/// docs/uiap-design.md D33: an application holding a claim (uiap_control::Client::hold) hears at once
/// of a Deny after success (`conflict`: still held) and of a denied renewal (`lost`), and
/// `list` shows both states.
#[test]
fn late_denies_reach_the_application_holding_the_claim() {
    if !can_run("late_denies_reach_the_application_holding_the_claim") {
        return;
    }
    let mut net = Net::new(2);
    net.link(0, "h0", 1, "t0");
    let args = strings(&netns_support::FAST_TIMERS);
    net.start_daemon(1, &args);
    let t = &net.daemons[0];
    t.wait_interfaces(1);
    let t_addr: Ipv6Addr = t.status().interfaces[0].link_local.parse().unwrap();
    let (go, late) = mpsc::channel();
    let h = net.spawn_in_ns(0, move || denier(t_addr, late));
    std::thread::sleep(Duration::from_millis(200));

    let request = ClaimRequest {
        lifetime: 4,
        renew: true,
        ..ClaimRequest::new(DOMAIN, SpaceText::Uid("0d".into()))
    };
    let held = Client::new(&t.control).hold(&request, Some(Duration::from_secs(10)));
    let Hold::Held(mut claim) = held.unwrap() else {
        panic!("not claimed");
    };
    assert_eq!(claim.claim().state, ClaimState::Held);
    go.send(()).unwrap();
    let e = claim
        .next_event(Some(Duration::from_secs(2)))
        .unwrap()
        .expect("a conflict event");
    assert_eq!(e.kind, EventKind::Conflict, "{e:?}");
    assert!(
        e.reason
            .as_deref()
            .unwrap_or("")
            .contains("after the claim succeeded"),
        "{e:?}"
    );
    assert_eq!(t.list()[0].state, ClaimState::Conflicted);

    let e = claim
        .next_event(Some(Duration::from_secs(6)))
        .unwrap()
        .expect("a lost event");
    assert_eq!(
        (e.kind, e.claim.state),
        (EventKind::Lost, ClaimState::Lost),
        "{e:?}"
    );
    assert_eq!(claim.claim().state, ClaimState::Lost);
    h.join().unwrap();
    assert_eq!(t.list()[0].state, ClaimState::Lost);
    let (_, table, _) = t.uiap(&["list"]);
    assert!(table.contains("lost"), "{table}");
}

/// docs/uiap-design.md D34: after a conflict, B is rate limited; its next claim is answered at
/// once with "rate limited, starts in N s" (printed by `uiap claim`), then runs and succeeds.
#[test]
fn a_rate_limited_claim_is_announced_at_once() {
    if !can_run("a_rate_limited_claim_is_announced_at_once") {
        return;
    }
    let mut net = Net::new(2);
    net.link(0, "a0", 1, "b0");
    net.start_daemon(0, &[]);
    net.start_daemon(
        1,
        &strings(&["--conflict-limit", "1", "--conflict-rate-limit-s", "4"]),
    );
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    assert_eq!(net.daemons[0].claim(DOMAIN, &["--uid", "c0a8"]).0, 0);
    assert_eq!(net.daemons[1].claim(DOMAIN, &["--uid", "c0a8"]).0, 3);

    let started = Instant::now();
    let mut child = net.daemons[1]
        .uiap_command(&["claim", "--domain", DOMAIN, "--uid", "c0a9"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let told = started.elapsed();
    assert!(
        first.starts_with("uiap claim: rate limited, starts in "),
        "{first:?}"
    );
    let secs: u64 = first
        .trim_end()
        .trim_end_matches(" s")
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=4).contains(&secs), "{first:?}");
    assert!(told < Duration::from_secs(1), "told after {told:?}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("claimed"));
    assert!(started.elapsed() >= Duration::from_secs(secs.saturating_sub(1)));
}
