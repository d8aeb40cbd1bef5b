//! A device with another key, or none, is cut off from the site: its datagrams fail
//! authentication and its Claim-Denies cannot count. That must be loud (docs/uiap-design.md
//! D62): logged, listed by neighbour in `status`, and reported with a claim's answer. Needs
//! root and iproute2.

use crate::netns_support;

use netns_support::{FAST_TIMERS, Net, can_run};

const DOMAIN: &str = "fff:0:3:0";

/// `FAST_TIMERS` and, with `key`, a key file holding it.
fn flags(net: &Net, key: Option<&str>) -> Vec<String> {
    let mut flags: Vec<String> = FAST_TIMERS.iter().map(|s| s.to_string()).collect();
    if let Some(key) = key {
        flags.extend(key_flags(net, key));
    }
    flags
}

/// The flags naming a key file that holds `key`.
fn key_flags(net: &Net, key: &str) -> [String; 2] {
    let file = net.dir.join(format!("psk-{key}"));
    std::fs::write(&file, format!("{key}\n")).unwrap();
    ["--psk-file".to_string(), file.display().to_string()]
}

/// A (the site's key), B (another key) and C (no key) on one LAN. A claims a UID; B and C
/// claim the same one and get it: the site is split. B's answer says that a neighbour was heard
/// but failed authentication; A's status lists B and C by address with the reason, and A's log
/// says so.
#[test]
fn key_mismatches_are_reported_in_the_answer_the_status_and_the_log() {
    if !can_run("key_mismatches_are_reported_in_the_answer_the_status_and_the_log") {
        return;
    }
    let mut net = Net::lan(4);
    let (site, other, none) = (
        flags(&net, Some("site key")),
        flags(&net, Some("another key")),
        flags(&net, None),
    );
    net.start_daemon(1, &site);
    net.start_daemon(2, &other);
    net.start_daemon(3, &none);
    for d in &net.daemons {
        d.wait_interfaces(1);
    }
    let (a, b, c) = (&net.daemons[0], &net.daemons[1], &net.daemons[2]);
    let (code, out, err) = a.uiap(&["claim", "--domain", DOMAIN, "--uid", "5a"]);
    assert_eq!(code, 0, "{out}{err}");

    // B cannot authenticate A's attempts, so A's claim counts for nothing at B: B's claim of the
    // same UID succeeds, and its answer says why that may be wrong.
    let (code, out, err) = b.uiap(&["claim", "--domain", DOMAIN, "--uid", "5a"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("claimed"), "{out}");
    assert!(
        err.contains("warning: claimed, but ")
            && err.contains("under 1 source address failed authentication in the last"),
        "{err}"
    );
    let (code, out, _) = c.uiap(&["claim", "--domain", DOMAIN, "--uid", "5a"]);
    assert_eq!(code, 0, "{out}");

    // A heard both: B with another key, C with none, each under its own address.
    let address = |d: &netns_support::Daemon| d.status().interfaces[0].link_local.clone();
    let (b_addr, c_addr) = (address(b), address(c));
    let status = a.status();
    let reasons = |addr: &str| {
        let v = status
            .auth_failures
            .iter()
            .find(|v| v.address == addr)
            .unwrap_or_else(|| panic!("{addr} not in {:?}", status.auth_failures));
        assert_eq!(v.interface, "l0");
        v.reasons.keys().cloned().collect::<Vec<_>>()
    };
    assert_eq!(reasons(&b_addr), ["psk_mismatch"]);
    assert_eq!(reasons(&c_addr), ["psk_missing"]);
    let (code, out, _) = a.uiap(&["status"]);
    assert_eq!(code, 0);
    assert!(
        out.lines()
            .any(|l| l.starts_with("auth failed") && l.contains(&format!("{b_addr}%l0"))),
        "{out}"
    );
    let log = a.log_text();
    for addr in [&b_addr, &c_addr] {
        assert!(
            log.lines()
                .any(|l| l.contains("failed authentication") && l.contains(addr.as_str())),
            "{addr} not logged:\n{log}"
        );
    }
}

/// The protocol's default claim timers (a new claim's window of 2.5 s), no start delay,
/// renewals at half the lifetime, and the key.
fn default_timers(net: &Net, key: &str) -> Vec<String> {
    let mut flags: Vec<String> = ["--start-jitter-ms", "0", "--renew-at-percent", "50"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    flags.extend(key_flags(net, key));
    flags
}

/// Asserts that the step a daemon told its watchers of was 40 s: measured against the boot
/// clock, it reads 39.999 s as often as 40.000 s.
fn assert_stepped_40_s(why: &str) {
    let stepped_by = why
        .split("wall clock stepped ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse::<f64>().ok());
    assert!(
        stepped_by.is_some_and(|s| (39.9..=40.1).contains(&s)),
        "A: {why}"
    );
}

/// A and B share the key, with the protocol's default timers; each holds a UID it renews every
/// 10 s, and each claim is watched. Just after both are held, A's wall clock steps 40 s ahead
/// (first NTP sync, a resumed VM): its datagrams are stale at B and B's at A, though every tag
/// verifies (docs/uiap-design.md D71). At that instant B claims A's UID. Within one claim window
/// (2.5 s) of the step, nobody's next renewal due yet: A has seen its own step and told its
/// watcher; B has heard A's announcements, told its watcher and refuses A's UID, naming A and
/// the offset (D76). Nobody holds the UID twice.
#[test]
fn a_stepped_clock_on_a_keyed_holder_is_a_split_on_both_sides() {
    if !can_run("a_stepped_clock_on_a_keyed_holder_is_a_split_on_both_sides") {
        return;
    }
    use std::time::{Duration, Instant};
    use uiap_control::{ClaimRequest, Client, EventKind, HeldClaim, Hold, SpaceText};

    const CLAIM_WINDOW: Duration = Duration::from_millis(2_500);
    let mut net = Net::lan(3);
    let site = default_timers(&net, "site key");
    let step = net.dir.join("a-clock-step-ms");
    std::fs::write(&step, "0").unwrap();
    let env = [(
        "UIAPD_TEST_CLOCK_STEP_FILE".to_string(),
        step.display().to_string(),
    )];
    net.start_daemon_with_env(1, &site, &env);
    net.start_daemon(2, &site);
    for d in &net.daemons {
        d.wait_interfaces(1);
    }
    let (a, b) = (&net.daemons[0], &net.daemons[1]);
    let hold = |control: &std::path::Path, uid: &str| {
        let request = ClaimRequest {
            lifetime: 20,
            renew: true,
            ..ClaimRequest::new(DOMAIN, SpaceText::Uid(uid.into()))
        };
        let client = Client::new(control);
        match client
            .hold(&request, Some(Duration::from_secs(10)))
            .unwrap()
        {
            Hold::Held(held) => held,
            other => panic!("{uid} was not granted: {other:?}"),
        }
    };
    let (a_held, b_held) = (hold(&a.control, "5b"), hold(&b.control, "5c"));
    std::fs::write(&step, "40000").unwrap();
    let stepped = Instant::now();
    // When each watcher hears `suppressed`, and why.
    let told = |mut held: HeldClaim| {
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                match held.next_event(Some(Duration::from_millis(200))) {
                    Ok(Some(e)) if e.kind == EventKind::Suppressed => {
                        return Some((stepped.elapsed(), e.reason.unwrap_or_default()));
                    }
                    Ok(_) => {}
                    Err(e) => panic!("a watch ended: {e}"),
                }
            }
            None
        })
    };
    let (a_told, b_told) = (told(a_held), told(b_held));
    let (code, out, err) = b.uiap(&["claim", "--domain", DOMAIN, "--uid", "5b"]);
    let b_answered = stepped.elapsed();
    let (a_told, b_told) = (a_told.join().unwrap(), b_told.join().unwrap());
    let a_addr = a.status().interfaces[0].link_local.clone();
    eprintln!(
        "+40 s on A: A's watcher told after {:?} s, B's after {:?} s; B's claim of A's UID \
         answered {:.2} s after the step (exit {code})",
        a_told.as_ref().map(|t| t.0.as_secs_f64()),
        b_told.as_ref().map(|t| t.0.as_secs_f64()),
        b_answered.as_secs_f64(),
    );
    assert_ne!(code, 0, "B took A's UID: {out}");
    assert!(
        err.contains(&format!("neighbour {a_addr}%"))
            && err.contains("ahead of this host's clock")
            && err.contains("the site is split"),
        "{err}"
    );
    // The claim began at the step: its answer comes at the end of its round.
    assert!(
        b_answered < CLAIM_WINDOW + Duration::from_millis(700),
        "{b_answered:?}"
    );
    // Each watcher was told within one claim window of the step, in these words.
    let within_a_window = |told: Option<(Duration, String)>, who: &str, says: [&str; 2]| {
        let (after, why) = told.unwrap_or_else(|| panic!("{who}'s watcher was not told"));
        assert!(
            after < CLAIM_WINDOW,
            "{who}'s watcher told {after:?} after the step"
        );
        assert!(says.iter().all(|s| why.contains(s)), "{who}: {why}");
    };
    assert_stepped_40_s(a_told.as_ref().map_or("", |t| t.1.as_str()));
    within_a_window(
        a_told,
        "A",
        ["wall clock stepped ", " s ahead against its boot clock"],
    );
    let neighbour_a = format!("neighbour {a_addr}%");
    within_a_window(b_told, "B", [&neighbour_a, "ahead of this host's clock"]);
    assert!(
        b.list()
            .iter()
            .all(|c| c.space != SpaceText::Uid("5b".into()))
    );
}
