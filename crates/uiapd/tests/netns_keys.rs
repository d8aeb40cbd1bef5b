//! A device with another key, or none, is cut off from the site: its datagrams fail
//! authentication and its Claim-Denies cannot count. That must be loud (docs/uiap-design.md
//! D62): logged, listed by neighbour in `status`, and reported with a claim's answer. Needs
//! root and iproute2.

mod netns_support;

use netns_support::{FAST_TIMERS, Net, can_run};

const DOMAIN: &str = "fff:0:3:0";

/// `FAST_TIMERS` and, with `key`, a key file holding it.
fn flags(net: &Net, key: Option<&str>) -> Vec<String> {
    let mut flags: Vec<String> = FAST_TIMERS.iter().map(|s| s.to_string()).collect();
    if let Some(key) = key {
        let file = net.dir.join(format!("psk-{key}"));
        std::fs::write(&file, format!("{key}\n")).unwrap();
        flags.extend(["--psk-file".to_string(), file.display().to_string()]);
    }
    flags
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
            && err.contains("from 1 neighbour failed authentication in the last"),
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
