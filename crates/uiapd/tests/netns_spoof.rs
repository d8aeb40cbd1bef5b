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
use uiap::space::{Uid, UidSpace};
use uiap_control::{ClaimState, EventKind, SpaceText};

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
    let net = netns_support::lan_of_fast_daemons(4, 2);
    let (t, n) = (&net.daemons[0], &net.daemons[1]);
    let mut held = netns_support::hold_renewed(t, DOMAIN, SpaceText::Uid("20".into()));
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
    // What T dropped is named; losses other devices reported meanwhile may be named beside it
    // (docs/uiap-design.md D80).
    assert!(
        err.contains("dropped by the rate limit") && err.contains("while claiming"),
        "{out}{err}"
    );
    assert!(
        t.list()
            .iter()
            .all(|c| c.space != SpaceText::Uid("21".into()))
    );
    assert!(t.drops("rate_limited") > 0);
}

/// Forged Claim-Attempts for T's own UIDs, each from a new link-local address and slow enough
/// that no rate limit drops one (200 a second from 65,536 addresses) and the kernel drops none:
/// T must deny each, and its Denies to addresses nobody answers for keep every place for a
/// neighbour resolving taken (docs/uiap-design.md D79). A real neighbour T has not resolved
/// then gets no Deny for its conflicting claim. The watcher of T's held claim hears
/// `suppressed` (a site lease stops) before any conflicting claim of N's could be granted, and
/// T's Loss-Notices (D80) tell N of the Denies not sent, so N's claims fail in their rounds
/// rather than being granted on that silence (before the notices, 5 of 5 were granted).
#[test]
fn without_a_key_denies_that_cannot_be_sent_are_told_to_the_holder_and_fail_the_claimant() {
    if !can_run(
        "without_a_key_denies_that_cannot_be_sent_are_told_to_the_holder_and_fail_the_claimant",
    ) {
        return;
    }
    let net = netns_support::lan_of_fast_daemons(4, 2);
    let (t, n) = (&net.daemons[0], &net.daemons[1]);
    let mut held = netns_support::hold_renewed(t, DOMAIN, SpaceText::Range("10-1f".into()));
    let stop = Arc::new(AtomicBool::new(false));
    let flooder = {
        let stop = stop.clone();
        net.spawn_in_ns(3, move || {
            let mut repr = netns_support::hostile_attempt();
            repr.domain = DOMAIN.parse().unwrap();
            let source = |n: u64| Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0xbad, 0, n as u16);
            netns_support::spoof("l0", source, 200, stop, move || {
                repr.sequence = repr.sequence.wrapping_add(1);
                let uid = [0x10 + (repr.sequence % 8) as u8];
                repr.space = UidSpace::Unique(Uid::from_octets(&uid).unwrap());
                repr.to_vec()
            })
        })
    };
    let started = Instant::now();
    let event = held.next_event(Some(Duration::from_secs(8)));
    let told = started.elapsed();
    // N's conflicting claims, after T's watcher heard (or did not), with N a neighbour T has
    // not resolved (forgotten, as after a quiet spell): granted or denied, each comes after
    // T's holder was told.
    netns_support::sh(&["ip", "-n", &net.names[1], "neigh", "flush", "dev", "l0"]);
    let answers: Vec<(i32, String)> = (0..5)
        .map(|i| {
            // Not among the forged Attempts' UIDs (10–17), which N would meet as a
            // simultaneous claim of its own.
            let uid = format!("{:02x}", 0x18 + i);
            let (code, _, err) = n.uiap(&["claim", "--domain", DOMAIN, "--uid", &uid]);
            (code, err)
        })
        .collect();
    let outcomes: Vec<i32> = answers.iter().map(|(code, _)| *code).collect();
    stop.store(true, Ordering::Relaxed);
    let (sent, elapsed) = flooder.join().expect("flooder");
    let unsent = t.drops("denies_unsent");
    eprintln!(
        "forged conflicts: {sent} in {:.1} s; T's Denies not sent: {unsent}; rate-limited {}, \
         kernel {}; T's watcher told after {:.2} s; N's claims into T's range: exit codes \
         {outcomes:?} (0 granted, 1 failed, 3 denied); N heard {} Loss-Notices",
        elapsed.as_secs_f64(),
        t.drops("rate_limited"),
        t.drops("socket_overflow_claim"),
        told.as_secs_f64(),
        n.counter("notices_received"),
    );
    assert!(unsent > 0, "every Deny was sent: the test means nothing");
    assert_eq!(t.drops("rate_limited"), 0, "the rate limit told T already");
    assert_eq!(
        t.drops("socket_overflow_claim"),
        0,
        "the kernel told T already"
    );
    let event = event
        .unwrap()
        .expect("T's watcher heard nothing while its Denies were not sent");
    assert_eq!(event.kind, EventKind::Suppressed, "{event:?}");
    assert_eq!(event.claim.state, ClaimState::Held);
    let why = event.reason.unwrap_or_default();
    assert!(
        why.contains("not sent, their neighbours unresolved"),
        "{why}"
    );
    // Denied by T, or failed for T's notices: never granted.
    for (code, err) in &answers {
        assert!(
            *code == 3 || (*code == 1 && err.contains("reported lost by")),
            "N's claim of T's UID: exit {code}: {err}"
        );
    }
}
