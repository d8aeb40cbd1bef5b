//! Datagrams the kernel drops at a device's full receive queue may hide a conflicting
//! Claim-Attempt or a Claim-Deny (docs/uiap-design.md D70): the holder's watchers hear
//! `suppressed` (a site lease takes it as a loss) and a claim in its round fails instead of
//! taking that silence as consent. Needs root and iproute2.

use crate::netns_support;

use std::net::Ipv6Addr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use netns_support::can_run;
use uiap_control::{ClaimState, EventKind, SpaceText};

const DOMAIN: &str = "fff:0:2:0";
/// The junk's rate, all sources together.
const RATE: u64 = 20_000;
/// Spoofed sources: each sends below a neighbour's rate limit (1,000 a second, D45), so the
/// rate limit drops none of it; only the kernel does.
const SOURCES: u16 = 32;

/// Junk from [`SOURCES`] spoofed link-local addresses in turn at [`RATE`] until `stop`.
fn flood(stop: Arc<AtomicBool>) -> u64 {
    let source = |n: u64| {
        Ipv6Addr::new(
            0xfe80,
            0,
            0,
            0,
            0,
            0,
            0xbad,
            (n % u64::from(SOURCES)) as u16,
        )
    };
    netns_support::spoof_junk(source, RATE, stop).0
}

/// T holds a UID and starts a claim of another; it is stopped (SIGSTOP) for 1.5 s under a flood
/// of junk, so that its claim socket's queue overflows. When it runs again, the watcher of its
/// held claim hears `suppressed` and the claim in its round fails.
#[test]
fn kernel_receive_queue_drops_are_told_to_the_holder_and_the_claimant() {
    if !can_run("kernel_receive_queue_drops_are_told_to_the_holder_and_the_claimant") {
        return;
    }
    let net = netns_support::lan_of_fast_daemons(3, 1);
    let t = &net.daemons[0];
    let mut held = netns_support::hold_renewed(t, DOMAIN, SpaceText::Uid("20".into()));
    let stop = Arc::new(AtomicBool::new(false));
    let flooder = {
        let stop = stop.clone();
        net.spawn_in_ns(2, move || flood(stop))
    };
    std::thread::sleep(Duration::from_millis(200));
    let claimant = {
        let mut command = t.uiap_command(&["claim", "--domain", DOMAIN, "--uid", "21"]);
        std::thread::spawn(move || command.output().expect("uiap claim"))
    };
    std::thread::sleep(Duration::from_millis(50));
    let started = Instant::now();
    assert!(t.signal(libc::SIGSTOP));
    std::thread::sleep(Duration::from_millis(1500));
    assert!(t.signal(libc::SIGCONT));
    let event = held.next_event(Some(Duration::from_secs(5)));
    let told = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let sent = flooder.join().expect("flooder");
    let claimed = claimant.join().expect("claimant");
    let overflow = t.drops("socket_overflow_claim");
    eprintln!(
        "junk: {sent} datagrams; T's kernel dropped {overflow}, its rate limit {}; told after \
         {:.2} s (1.5 s stopped); the claim in its round: exit {:?}",
        t.drops("rate_limited"),
        told.as_secs_f64(),
        claimed.status.code(),
    );
    assert!(
        overflow > 0,
        "the kernel dropped nothing: the test means nothing"
    );
    let event = event.unwrap().expect("an event after the queue overflowed");
    assert_eq!(event.kind, EventKind::Suppressed, "{event:?}");
    assert_eq!(event.claim.state, ClaimState::Held);
    let why = event.reason.unwrap_or_default();
    assert!(why.contains("dropped by the kernel"), "{why}");
    let err = String::from_utf8_lossy(&claimed.stderr);
    assert!(
        !claimed.status.success(),
        "a claim in its round during the drops was granted: {}",
        String::from_utf8_lossy(&claimed.stdout)
    );
    assert!(err.contains("dropped by the kernel"), "{err}");
}
