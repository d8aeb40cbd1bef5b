//! Interface changes and lifetime renewal, on two namespaces P–Q. Needs root and iproute2.

use crate::netns_support;

use std::time::{Duration, Instant};

use netns_support::{Net, can_run, sh};

/// An interface that goes down stops participating; when it comes back up its link-local
/// address is tentative first (DAD) and only then does it participate again.
#[test]
fn interfaces_follow_link_state() {
    if !can_run("interfaces_follow_link_state") {
        return;
    }
    let mut net = Net::new(2);
    net.link(0, "p0", 1, "q0");
    // P names its interface, and one that does not exist.
    net.start_daemon(0, &["--iface", "p0", "--iface", "typo0"].map(String::from));
    net.start_daemon(1, &[]);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    assert_eq!(net.daemons[0].status().interfaces[0].name, "p0");
    assert!(
        net.daemons[0].status().interfaces[0]
            .link_local
            .starts_with("fe80:")
    );

    sh(&["ip", "-n", &net.names[0], "link", "set", "p0", "down"]);
    net.daemons[0].wait_interfaces(0);
    // Alone now: a claim succeeds as a site of one.
    let (code, out) = net.daemons[0].claim("fff:0:3:0", &["--uid", "05"]);
    assert_eq!(code, 0, "{out}");
    assert!(net.daemons[0].log_text().contains("site of one"));
    sh(&["ip", "-n", &net.names[0], "link", "set", "p0", "up"]);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    let log = net.daemons[0].log_text();
    assert_eq!(log.matches("interface participates").count(), 2, "{log}");
    assert_eq!(log.matches("interface left").count(), 1, "{log}");
    // A named interface that does not exist is warned about once, not at every rescan; one
    // that is only down (or not yet up) is not a warning.
    let said = |what: &str, name: &str| {
        log.lines()
            .filter(|l| l.contains(what) && l.ends_with(&format!("interface={name}")))
            .count()
    };
    assert_eq!(said("WARN", "typo0"), 1, "{log}");
    assert!(log.contains("named interface does not exist"), "{log}");
    assert_eq!(said("WARN", "p0"), 0, "{log}");
    assert!(said("named interface not usable yet", "p0") >= 1, "{log}");
    // Back in the site: P defends what it claimed alone, and conflicts are detected again.
    assert_eq!(net.daemons[1].claim("fff:0:3:0", &["--uid", "05"]).0, 3);
    assert_eq!(net.daemons[1].claim("fff:0:3:0", &["--uid", "01"]).0, 0);
    assert_eq!(net.daemons[0].claim("fff:0:3:0", &["--uid", "01"]).0, 3);
}

/// A claim with a 12 s lifetime and `--renew` is renewed by a reclaim (2 more attempts) at 75 %
/// of it, and is still held and defended after the original lifetime has passed.
#[test]
fn lifetime_is_renewed_by_reclaim() {
    if !can_run("lifetime_is_renewed_by_reclaim") {
        return;
    }
    let net = two_linked_daemons();
    let start = Instant::now();
    assert_eq!(
        net.daemons[0]
            .claim("fff:0:3:0", &["--uid", "02", "--lifetime", "12", "--renew"])
            .0,
        0
    );
    assert_eq!(net.daemons[0].counter("attempts_sent"), 3);
    let deadline = start + Duration::from_secs(20);
    while net.daemons[0].counter("attempts_sent") < 5 {
        assert!(
            Instant::now() < deadline,
            "no renewal; log:\n{}",
            net.daemons[0].log_text()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // Past the original lifetime (12 s after success).
    while start.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let claims = net.daemons[0].list();
    assert_eq!(claims.len(), 1, "{claims:?}");
    assert_eq!(claims[0].state, uiap_control::ClaimState::Held);
    assert_eq!(
        net.daemons[1].claim("fff:0:3:0", &["--uid", "02"]).0,
        3,
        "renewed claim not defended"
    );
}

/// docs/uiap-design.md D37: `--device-id-iface` makes the device ID the modified EUI-64 of that
/// interface's MAC address; nothing is written to the state directory.
#[test]
fn the_device_id_can_come_from_a_mac_address() {
    if !can_run("the_device_id_can_come_from_a_mac_address") {
        return;
    }
    let mut net = Net::new(2);
    net.link(0, "p0", 1, "q0");
    sh(&[
        "ip",
        "-n",
        &net.names[0],
        "link",
        "set",
        "p0",
        "address",
        "34:56:78:9a:bc:de",
    ]);
    let flags = ["--device-id-iface".to_string(), "p0".to_string()];
    net.start_daemon(0, &flags);
    let d = &net.daemons[0];
    assert_eq!(d.status().device_id, "365678fffe9abcde");
    assert!(!d.state.join("device-id").exists());
    // A missing interface is a configuration error naming it.
    let out = std::process::Command::new("ip")
        .args(["netns", "exec", &net.names[1], env!("CARGO_BIN_EXE_uiapd")])
        .args(["--device-id-iface", "nosuch0", "--control"])
        .arg(net.dir.join("x.sock"))
        .arg("--state")
        .arg(net.dir.join("x.state"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("device-id-iface: expected an existing interface, found none named `nosuch0`"),
        "{err}"
    );
    // Loopback has no MAC address.
    let out = std::process::Command::new("ip")
        .args(["netns", "exec", &net.names[1], env!("CARGO_BIN_EXE_uiapd")])
        .args(["--device-id-iface", "lo", "--control"])
        .arg(net.dir.join("y.sock"))
        .arg("--state")
        .arg(net.dir.join("y.state"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("48- or 64-bit MAC address, found `00:00:00:00:00:00`"),
        "{err}"
    );
}

/// Two namespaces joined by one veth link (`p0`–`q0`), a daemon in each, both
/// participating on the link.
fn two_linked_daemons() -> Net {
    let mut net = Net::new(2);
    net.link(0, "p0", 1, "q0");
    net.start_daemon(0, &[]);
    net.start_daemon(1, &[]);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    net
}
