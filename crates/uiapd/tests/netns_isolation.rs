//! The daemon tells its clients when the site is not what it seems (docs/uiap-design.md D63):
//! a held claim's watchers hear `isolated` when every interface leaves, and renewed claims are
//! announced again when an interface comes back, so that two devices that claimed the same
//! space while the site was split meet at once. Needs root and iproute2.

use crate::netns_support;

use std::time::{Duration, Instant};

use netns_support::{FAST_TIMERS, Net, can_run, sh};
use uiap_control::{ClaimRequest, ClaimState, Client, EventKind, Hold, SpaceText};

const DOMAIN: &str = "fff:0:4:0";

/// A holds a renewed claim; A's link goes down (A and B each become a site of one) and A's
/// watcher hears `isolated`; B claims the same UID and gets it; the link comes back, and within
/// seconds — far sooner than the next renewal, 30 s away — one of the two has lost it.
#[test]
fn isolation_is_told_and_claims_are_announced_again_when_the_link_returns() {
    if !can_run("isolation_is_told_and_claims_are_announced_again_when_the_link_returns") {
        return;
    }
    let mut net = Net::new(2);
    net.link(0, "a0", 1, "b0");
    let fast: Vec<String> = FAST_TIMERS.iter().map(|s| s.to_string()).collect();
    net.start_daemon(0, &fast);
    net.start_daemon(1, &fast);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    let request = ClaimRequest {
        lifetime: 60,
        renew: true,
        ..ClaimRequest::new(DOMAIN, SpaceText::Uid("77".into()))
    };
    let Hold::Held(mut held) = Client::new(&net.daemons[0].control)
        .hold(&request, Some(Duration::from_secs(10)))
        .unwrap()
    else {
        panic!("A's claim was not granted");
    };

    sh(&["ip", "-n", &net.names[0], "link", "set", "a0", "down"]);
    let event = held
        .next_event(Some(Duration::from_secs(5)))
        .unwrap()
        .expect("an event within 5 s of the link going down");
    assert_eq!(event.kind, EventKind::Isolated, "{event:?}");
    assert_eq!(event.claim.state, ClaimState::Held);
    net.daemons[1].wait_interfaces(0);
    let (code, out, err) = net.daemons[1].uiap(&[
        "claim",
        "--domain",
        DOMAIN,
        "--uid",
        "77",
        "--renew",
        "--lifetime",
        "60",
    ]);
    assert_eq!(code, 0, "B, a site of one, gets it: {out}{err}");

    sh(&["ip", "-n", &net.names[0], "link", "set", "a0", "up"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let (mut a_lost, mut b_lost) = (false, false);
    while !(a_lost || b_lost) {
        assert!(
            Instant::now() < deadline,
            "both still hold 77 10 s after the link returned; A: {:?}, B: {:?}",
            net.daemons[0].list(),
            net.daemons[1].list()
        );
        if let Some(e) = held.next_event(Some(Duration::from_millis(200))).unwrap() {
            a_lost |= e.kind == EventKind::Lost;
        }
        b_lost = net.daemons[1]
            .list()
            .iter()
            .any(|c| c.state == ClaimState::Lost);
    }
    assert!(
        net.daemons[0].log_text().contains("announced again"),
        "{}",
        net.daemons[0].log_text()
    );
}
