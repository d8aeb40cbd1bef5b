//! A hostile host on the link sends junk under an honest neighbour's link-local address
//! (docs/uiap-design.md D58): with a key, the junk fails authentication before it can spend
//! that neighbour's rate-limit budget, so the neighbour's Claim-Attempts still reach the device
//! that must deny them; without a key, the drops are told to the holder and the claimant
//! (D64). Needs root and iproute2.

use crate::netns_support;

use std::net::Ipv6Addr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use netns_support::{Net, can_run};
use uiap_control::{ClaimRequest, ClaimState, Client, EventKind, Hold, SpaceText};

const DOMAIN: &str = "fff:0:2:0";
/// The junk's rate: far above a neighbour's budget of 1,000 a second (D45).
const RATE: u64 = 15_000;
/// The flood's rate must reach this for the test to mean anything.
const MIN_RATE: f64 = 8_000.0;

/// Junk under `source` at [`RATE`] until `stop` (see [`netns_support::spoof_junk`]).
fn spoof(source: Ipv6Addr, stop: Arc<AtomicBool>) -> (u64, Duration) {
    netns_support::spoof_junk(|_| source, RATE, stop)
}

/// T holds a range; H floods junk under N's address while N claims UIDs in T's range. With a
/// key every one of N's claims is denied.
#[test]
fn junk_under_a_neighbours_address_cannot_silence_it() {
    if !can_run("junk_under_a_neighbours_address_cannot_silence_it") {
        return;
    }
    let mut net = Net::lan(4);
    let key = net.dir.join("psk");
    std::fs::write(&key, "correct horse battery staple\n").unwrap();
    let mut flags: Vec<String> = netns_support::FAST_TIMERS
        .iter()
        .map(|s| s.to_string())
        .collect();
    flags.extend(["--psk-file".to_string(), key.display().to_string()]);
    net.start_daemon(1, &flags);
    net.start_daemon(2, &flags);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    let (t, n) = (&net.daemons[0], &net.daemons[1]);
    assert_eq!(t.claim(DOMAIN, &["--range", "10-1f"]).0, 0);
    let n_addr: Ipv6Addr = n.status().interfaces[0].link_local.parse().unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let flooder = {
        let stop = stop.clone();
        net.spawn_in_ns(3, move || spoof(n_addr, stop))
    };
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(1));
    let outcomes: Vec<(String, i32)> = (0x10..0x1a)
        .map(|u| {
            let uid = format!("{u:02x}");
            let code = n.claim(DOMAIN, &["--uid", &uid]).0;
            (uid, code)
        })
        .collect();
    while started.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    let (sent, elapsed) = flooder.join().expect("flooder");

    let rate = sent as f64 / elapsed.as_secs_f64();
    let granted: Vec<_> = outcomes.iter().filter(|(_, code)| *code == 0).collect();
    let status = t.status();
    let drop = |k: &str| status.drops.get(k).copied().unwrap_or(0);
    eprintln!(
        "spoofed junk: {sent} datagrams in {:.1} s ({rate:.0}/s); N's conflicting claims granted: \
         {} of {}; T dropped {} as psk_mismatch, {} as rate_limited, {} as auth_budget",
        elapsed.as_secs_f64(),
        granted.len(),
        outcomes.len(),
        drop("psk_mismatch"),
        drop("rate_limited"),
        drop("auth_budget"),
    );
    assert!(rate >= MIN_RATE, "the junk reached only {rate:.0}/s");
    assert!(drop("psk_mismatch") > 1000, "T never saw the junk");
    assert!(
        granted.is_empty(),
        "conflicting claims granted: {granted:?}"
    );
}

/// Without a key nothing tells junk from N's own datagrams: junk under N's address empties
/// N's budget at T, and a Claim-Attempt of N's among the drops would go unanswered
/// (docs/uiap-design.md D64). T says so: the watcher of T's held claim hears `suppressed` (a
/// site lease takes it as a loss), and a claim T makes while datagrams are being dropped fails
/// with the reason instead of taking silence as consent.
#[test]
fn without_a_key_rate_limit_drops_are_told_to_the_holder_and_the_claimant() {
    if !can_run("without_a_key_rate_limit_drops_are_told_to_the_holder_and_the_claimant") {
        return;
    }
    let mut net = Net::lan(4);
    let flags: Vec<String> = netns_support::FAST_TIMERS
        .iter()
        .map(|s| s.to_string())
        .collect();
    net.start_daemon(1, &flags);
    net.start_daemon(2, &flags);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    let (t, n) = (&net.daemons[0], &net.daemons[1]);
    let request = ClaimRequest {
        lifetime: 60,
        renew: true,
        ..ClaimRequest::new(DOMAIN, SpaceText::Uid("20".into()))
    };
    let Hold::Held(mut held) = Client::new(&t.control)
        .hold(&request, Some(Duration::from_secs(10)))
        .unwrap()
    else {
        panic!("T's claim was not granted");
    };
    let n_addr: Ipv6Addr = n.status().interfaces[0].link_local.parse().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flooder = {
        let stop = stop.clone();
        net.spawn_in_ns(3, move || spoof(n_addr, stop))
    };
    let event = held
        .next_event(Some(Duration::from_secs(5)))
        .unwrap()
        .expect("an event within 5 s of the flood");
    let (code, out, err) = t.uiap(&["claim", "--domain", DOMAIN, "--uid", "21"]);
    stop.store(true, Ordering::Relaxed);
    let (sent, elapsed) = flooder.join().expect("flooder");
    eprintln!("junk: {sent} datagrams in {:.1} s", elapsed.as_secs_f64());
    assert_eq!(event.kind, EventKind::Suppressed, "{event:?}");
    assert_eq!(event.claim.state, ClaimState::Held);
    let why = event.reason.unwrap_or_default();
    assert!(why.contains("dropped by the rate limit"), "{why}");
    assert_ne!(code, 0, "T's claim during the flood was granted: {out}");
    assert!(
        err.contains("dropped by the rate limit while claiming"),
        "{out}{err}"
    );
    assert!(
        t.list()
            .iter()
            .all(|c| c.space != SpaceText::Uid("21".into()))
    );
    assert!(t.drops("rate_limited") > 0);
}
