//! The daemon's faults must never let two devices hold one space: a claim or a release is not
//! acknowledged unless it was persisted (docs/uiap-design.md D60), and a restart does not keep
//! the claims of clients that are gone (D59). Needs root and iproute2 (and `mount` for the full
//! state directory).

use crate::netns_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use netns_support::{Net, can_run, sh};
use uiap_control::{ClaimRequest, ClaimState, Client, Hold, SpaceText};

const DOMAIN: &str = "fff:0:1:0";

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// A tmpfs of 64 KiB mounted on a directory; unmounted (lazily) on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path) -> Tmpfs {
        std::fs::create_dir_all(at).unwrap();
        sh(&[
            "mount",
            "-t",
            "tmpfs",
            "-o",
            "size=64k,mode=0700",
            "uiaptest",
            at.to_str().unwrap(),
        ]);
        Tmpfs(at.to_path_buf())
    }

    /// Writes zeros to a file in it until the file system is full.
    fn fill(&self) {
        let mut f = std::fs::File::create(self.0.join("fill")).unwrap();
        let block = [0u8; 4096];
        while f.write_all(&block).and_then(|()| f.sync_all()).is_ok() {}
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// The id of the claim of `uid` in `list`.
fn id_of(d: &netns_support::Daemon, uid: &str) -> Option<u64> {
    let space = SpaceText::Uid(uid.into());
    d.list()
        .into_iter()
        .find(|c| c.space == space)
        .map(|c| c.id)
}

/// A's state directory is full: A's claim of a UID fails (B then takes it), A's release of a
/// held claim is refused and the claim stays held, and after a restart A holds what it held
/// and not what it could not persist.
#[test]
fn nothing_is_acknowledged_that_was_not_persisted() {
    if !can_run("nothing_is_acknowledged_that_was_not_persisted") {
        return;
    }
    let mut net = Net::new(2);
    net.link(0, "a0", 1, "b0");
    let state = net.dir.join(format!("{}.state", net.names[0]));
    let disk = Tmpfs::mount(&state);
    let fast = strings(&netns_support::FAST_TIMERS);
    net.start_daemon(0, &fast);
    net.start_daemon(1, &fast);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    let (a, b) = (&net.daemons[0], &net.daemons[1]);
    assert_eq!(a.claim(DOMAIN, &["--uid", "5e01"]).0, 0);
    disk.fill();

    let (code, out, err) = a.uiap(&["claim", "--domain", DOMAIN, "--uid", "5e02"]);
    assert_eq!(code, 1, "a claim on a full disk: {out}{err}");
    assert!(err.contains("cannot persist the claim"), "{err}");
    assert_eq!(id_of(a, "5e02"), None, "{:?}", a.list());
    assert_eq!(
        b.claim(DOMAIN, &["--uid", "5e02"]).0,
        0,
        "A does not hold it"
    );

    let held = id_of(a, "5e01").expect("5e01 listed");
    let (code, out, err) = a.uiap(&["release", &held.to_string()]);
    assert_ne!(code, 0, "a release on a full disk: {out}{err}");
    assert!(err.contains("cannot persist the release"), "{err}");
    let listed = a.list();
    assert!(
        listed
            .iter()
            .any(|c| c.id == held && c.state == ClaimState::Held),
        "{listed:?}"
    );
    assert!(a.counter("persist_failures") >= 2);
    assert_eq!(
        b.claim(DOMAIN, &["--uid", "5e01"]).0,
        3,
        "A still defends it"
    );

    let a = &mut net.daemons[0];
    assert!(a.stop());
    a.start(&fast);
    a.wait_all_held();
    let spaces: Vec<_> = a.list().into_iter().map(|c| c.space).collect();
    assert_eq!(
        spaces,
        [SpaceText::Uid("5e01".into())],
        "after a restart A holds what it persisted"
    );
    drop(disk);
}

/// A claim held while its client's connection lasts (a site node lease) is released when the
/// daemon restarts — killed or stopped — instead of reclaimed for ever: the connection that
/// would have released it closed with the daemon, and B can then take the space.
#[test]
fn a_restart_releases_the_claims_of_clients_that_are_gone() {
    if !can_run("a_restart_releases_the_claims_of_clients_that_are_gone") {
        return;
    }
    let mut net = Net::new(2);
    net.link(0, "a0", 1, "b0");
    let fast = strings(&netns_support::FAST_TIMERS);
    net.start_daemon(0, &fast);
    net.start_daemon(1, &fast);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    for (uid, kill) in [("7a01", true), ("7a02", false)] {
        let request = ClaimRequest {
            lifetime: 4,
            renew: true,
            ..ClaimRequest::new(DOMAIN, SpaceText::Uid(uid.into()))
        };
        let held = Client::new(&net.daemons[0].control)
            .hold_while_connected(&request, Some(Duration::from_secs(10)))
            .unwrap();
        let Hold::Held(mut claim) = held else {
            panic!("{uid} not claimed");
        };
        // A plain claim beside it is reclaimed as before.
        let plain = uid.replace("7a", "7b");
        assert_eq!(net.daemons[0].claim(DOMAIN, &["--uid", &plain]).0, 0);
        let a = &mut net.daemons[0];
        if kill {
            a.kill();
        } else {
            assert!(a.stop());
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while claim.next_event(Some(Duration::from_secs(1))).is_ok() {
            assert!(
                Instant::now() < deadline,
                "the client never saw its connection end"
            );
        }
        a.start(&fast);
        a.wait_all_held();
        let spaces: Vec<_> = a.list().into_iter().map(|c| c.space).collect();
        assert!(
            !spaces.contains(&SpaceText::Uid(uid.into())),
            "{uid} was reclaimed after {}: {spaces:?}",
            if kill { "SIGKILL" } else { "SIGTERM" }
        );
        assert!(
            spaces.contains(&SpaceText::Uid(plain.clone())),
            "{spaces:?}"
        );
        assert_eq!(net.daemons[1].claim(DOMAIN, &["--uid", uid]).0, 0);
        assert_eq!(net.daemons[1].claim(DOMAIN, &["--uid", &plain]).0, 3);
    }
}
