//! `uuidkit new … --node-from etcd://…` against a real three-member etcd cluster started by each
//! test (test-support's `EtcdCluster`), acted on as an operator would, with `etcdctl`.

use std::process::Command;
use std::time::{Duration, Instant};

use test_support::db::EtcdCluster;

use crate::leased::{Blocked, Drained, Whole, endless};

const PREFIX: &str = "/uuidkit/cli";

/// The cluster and `etcdctl`, or `None` after recording why `test` is skipped.
fn cluster(test: &str) -> Option<EtcdCluster> {
    if !test_support::require(test, test_support::command("etcdctl", &["version"])) {
        return None;
    }
    EtcdCluster::for_test(test)
}

fn source(cluster: &EtcdCluster) -> String {
    format!("etcd://{}{PREFIX}", cluster.endpoints().join(","))
}

/// `etcdctl ARGS…` against the cluster: its output.
fn etcdctl(cluster: &EtcdCluster, args: &[&str]) -> String {
    let out = Command::new("etcdctl")
        .env("ETCDCTL_API", "3")
        .arg(format!("--endpoints={}", cluster.endpoints().join(",")))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "etcdctl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The node keys under [`PREFIX`].
fn keys(cluster: &EtcdCluster) -> Vec<String> {
    all_keys(cluster)
        .into_iter()
        .filter(|k| !k.starts_with(&format!("{PREFIX}/hw/")))
        .collect()
}

/// Every key under the prefix: the node keys and the high-water keys (`PREFIX/hw/NODE`)
/// that holders leave, without a lease, for the next holder of their node.
fn all_keys(cluster: &EtcdCluster) -> Vec<String> {
    let dir = format!("{PREFIX}/");
    etcdctl(cluster, &["get", "--prefix", &dir, "--keys-only"])
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

fn key(node: u64, bits: u8) -> String {
    format!("{PREFIX}/{node:0w$x}", w = usize::from(bits).div_ceil(4))
}

/// Two runs with the same lease seed draw the same first node: etcd gives it to one, and the
/// other claims another. Each key holds while its run does and goes when it ends.
#[test]
fn two_runs_hold_distinct_etcd_nodes_and_free_them_at_the_end() {
    let Some(cluster) = cluster("cli_etcd_distinct_nodes") else {
        return;
    };
    let from = source(&cluster);
    for (kind, bits) in [("v1", 48), ("v6", 48), ("v8", 16)] {
        let runs: Vec<Blocked> = (0..2)
            .map(|_| Blocked::start(endless(kind, &["--node-from", &from], 7)))
            .collect();
        let (a, b) = (runs[0].node, runs[1].node);
        assert_ne!(a, b, "{kind}: one node for two runs");
        let mut want = vec![key(a, bits), key(b, bits)];
        want.sort();
        assert_eq!(keys(&cluster), want, "{kind}");
        let holder = etcdctl(&cluster, &["get", &want[0], "--print-value-only"]);
        assert!(holder.starts_with("uuidkit pid "), "{holder}");
        for run in runs {
            run.end();
        }
        assert_eq!(keys(&cluster), Vec::<String>::new(), "{kind}: keys left");
        let hw = [a, b].map(|n| format!("{PREFIX}/hw/{n:0w$x}", w = usize::from(bits).div_ceil(4)));
        let left = all_keys(&cluster);
        assert!(
            hw.iter().all(|k| left.contains(k)),
            "{kind}: high-water keys {hw:?} not in {left:?}"
        );
        eprintln!("{kind}: nodes {a:x} and {b:x}, both keys gone after the runs");
    }
}

/// The lease revoked by an operator mid-run: the run stops with exit 1 and etcd's reason, and
/// what it wrote is whole UUIDs of its node.
#[test]
fn a_revoked_etcd_lease_stops_the_run_with_the_reason() {
    let Some(cluster) = cluster("cli_etcd_revoked") else {
        return;
    };
    let from = source(&cluster);
    let run = Drained::start(endless(
        "v6",
        &["--node-from", &from, "--lease-ttl", "6s"],
        1,
    ));
    let node = run.first_node();
    let fields = etcdctl(&cluster, &["get", &key(node, 48), "-w", "fields"]);
    let lease: i64 = fields
        .lines()
        .find_map(|l| l.strip_prefix("\"Lease\" : "))
        .unwrap_or_else(|| panic!("no lease in {fields}"))
        .trim()
        .parse()
        .unwrap();
    etcdctl(&cluster, &["lease", "revoke", &format!("{lease:x}")]);
    let revoked = Instant::now();
    // A keep-alive every third of the TTL finds the lease gone, well before the deadline
    // (the message says which).
    let (code, err, seen, exited) = run.finish(Duration::from_secs(10));
    eprintln!("revoked to exit: {:?}", exited - revoked);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        "uuidkit: error: etcd node lost: renewal failed: etcd says the lease is not found (expired or revoked); \
         stopped, nothing written after the loss\n"
    );
    seen.lock().unwrap().all_whole_of(node);
    assert!(keys(&cluster).is_empty());
}

/// The whole cluster frozen mid-run (no renewal is answered): the run stops at its lease's
/// deadline — the send instant of its last confirmed renewal, before the freeze, plus the TTL,
/// less the margin — and nothing reaches its output after that.
#[test]
fn a_silent_etcd_cluster_stops_the_run_at_its_deadline() {
    let Some(cluster) = cluster("cli_etcd_silent") else {
        return;
    };
    let from = source(&cluster);
    let (ttl, margin) = (Duration::from_secs(2), Duration::from_millis(300));
    let args = [
        "--node-from",
        &from,
        "--lease-ttl",
        "2",
        "--lease-margin",
        "300ms",
    ];
    let run = Drained::start(endless("v8", &args, 2));
    let node = run.first_node();
    std::thread::sleep(Duration::from_millis(1500));
    for i in 0..3 {
        cluster.signal(i, libc::SIGSTOP);
    }
    let frozen = Instant::now();
    let deadline = frozen + ttl - margin;
    let (code, err, seen, _) = run.finish(Duration::from_secs(15));
    for i in 0..3 {
        cluster.signal(i, libc::SIGCONT);
    }
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with(
            "uuidkit: error: etcd node lost: renewal failed: the lease's deadline passed before a \
             renewal was confirmed; stopped, nothing written after the loss"
        ),
        "{err}"
    );
    let seen = seen.lock().unwrap();
    seen.all_whole_of(node);
    assert!(
        seen.bytes_after(frozen) > 0,
        "the node is used until its deadline, not only until the freeze"
    );
    // The reader's own scheduling: a chunk written before the deadline may be read after it.
    let late = seen.bytes_after(deadline + Duration::from_millis(250));
    assert_eq!(late, 0, "bytes written after the deadline");
}

/// On a cluster with authentication on, a run authenticates as `USER@` with the password from
/// `UUIDKIT_ETCD_PASSWORD`; without the variable it does not start (exit 2), with a wrong
/// password etcd refuses it (exit 1), each saying so.
#[test]
fn an_etcd_user_authenticates_with_the_password_from_the_environment() {
    let Some(cluster) = cluster("cli_etcd_auth") else {
        return;
    };
    for args in [
        &["user", "add", "root:root-pw"][..],
        &["user", "grant-role", "root", "root"],
        &["role", "add", "uuidkit"],
        &[
            "role",
            "grant-permission",
            "uuidkit",
            "--prefix=true",
            "readwrite",
            "/uuidkit/",
        ],
        &["user", "add", "gen:gen-pw"],
        &["user", "grant-role", "gen", "uuidkit"],
        &["auth", "enable"],
    ] {
        etcdctl(&cluster, args);
    }
    let from = format!("etcd://gen@{}{PREFIX}", cluster.endpoints().join(","));
    let run = |password: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_uuidkit"));
        c.args([
            "new",
            "v8",
            "--node-from",
            &from,
            "-n",
            "3",
            "--lease-ttl",
            "3",
        ]);
        c.env_remove("UUIDKIT_ETCD_PASSWORD");
        if let Some(p) = password {
            c.env("UUIDKIT_ETCD_PASSWORD", p);
        }
        let out = c.output().unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, out, err) = run(Some("gen-pw"));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.lines().count(), 3, "{out}");
    let (code, _, err) = run(None);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("read from UUIDKIT_ETCD_PASSWORD"), "{err}");
    let (code, out, err) = run(Some("guess"));
    assert_eq!(code, Some(1), "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("authentication failed") && err.contains("\"gen\""),
        "{err}"
    );
}

/// A cluster held to TLS, checking its clients' certificates: a run with the CA, certificate
/// and key holds a node; one without TLS cannot reach it (exit 1); a certificate file that
/// cannot be read is a usage error naming it (exit 2).
#[cfg(feature = "etcd-tls")]
#[test]
fn an_etcd_cluster_over_tls_takes_a_run_with_its_certificates() {
    let test = "cli_etcd_tls";
    if !test_support::require(test, test_support::command("openssl", &["version"])) {
        return;
    }
    let cluster = match EtcdCluster::start_tls() {
        Ok(c) => c,
        Err(e) => return test_support::skip(test, e),
    };
    let files = cluster.tls_files().unwrap();
    let from = source(&cluster);
    use std::ffi::OsStr;
    let run = |tls: &[&OsStr]| {
        let out = Command::new(env!("CARGO_BIN_EXE_uuidkit"))
            .args([
                "new",
                "v8",
                "--node-from",
                &from,
                "-n",
                "3",
                "--lease-ttl",
                "3",
            ])
            .args(tls)
            .output()
            .unwrap();
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (out.status.code(), text(out.stdout), text(out.stderr))
    };
    let (ca, cert, key) = (
        files.ca.as_os_str(),
        files.client_cert.as_os_str(),
        files.client_key.as_os_str(),
    );
    fn flags<'a>(ca: &'a OsStr, cert: &'a OsStr, key: &'a OsStr) -> [&'a OsStr; 6] {
        let flag = |f: &'static str| OsStr::new(f);
        [
            flag("--etcd-ca"),
            ca,
            flag("--etcd-cert"),
            cert,
            flag("--etcd-key"),
            key,
        ]
    }
    let (code, out, err) = run(&flags(ca, cert, key));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.lines().count(), 3, "{out}");
    let (code, out, err) = run(&[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(out.is_empty() && err.contains("--node-from etcd"), "{err}");
    let missing = files.ca.with_extension("missing");
    let (code, _, err) = run(&flags(missing.as_os_str(), cert, key));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("TLS: cannot read") && err.contains("ca.missing"),
        "{err}"
    );
}
