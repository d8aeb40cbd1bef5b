//! `uuidkit new … --site-node` against real `uiapd` processes in network namespaces
//! (docs/uiap-design.md D49–D55): unique node IDs across devices, a held node defended, a
//! partition and its merge, the daemon killed mid-run, a killed generator. Needs root,
//! iproute2, nftables (for the partition), and the `uuidkit` binary (built here if missing).

use crate::netns_support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use netns_support::{FAST_TIMERS, Net, can_run, output_within};
use test_support::proc::{Drained, Seen};
use uiap_control::{ClaimState, ClaimView, Client, EventKind};

const DOMAIN: &str = "ffe:9562:6:400";

/// The renewal interval of a lease under [`FAST_TIMERS`]: half of its 20 s lifetime.
const RENEWAL: Duration = Duration::from_secs(10);

/// The `uuidkit` binary (the `uuidkit-cli` package's), built for this test's profile.
fn uuidkit() -> PathBuf {
    test_support::workspace::binary("uuidkit-cli", "uuidkit")
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn can_run_muted(test: &str) -> bool {
    can_run(test) && test_support::require(test, test_support::command("nft", &["--version"]))
}

/// `uuidkit new ARGS` in namespace `i`, talking to that namespace's daemon.
fn uuidkit_in(net: &Net, i: usize, args: &[&str], env: &[(&str, String)]) -> Command {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", &net.names[i]])
        .arg(uuidkit())
        .arg("new")
        .args(args);
    if args.contains(&"--site-node") {
        c.arg("--uiap-control").arg(&net.daemons[i].control);
        // The daemons have no key; the namespaces share this host's clock, so no device's is
        // ahead (docs/uiap-design.md D72).
        c.args(["--max-clock-offset", "0ms"]);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.env_remove("UUIDKIT_TEST_LEASE_SEED");
    c
}

fn parse(line: &str) -> u128 {
    let hex: String = line.chars().filter(|&c| c != '-').collect();
    assert_eq!(hex.len(), 32, "not a whole UUID: {line:?}");
    u128::from_str_radix(&hex, 16).unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

/// The node of a v1 or v6 UUID (its last 48 bits), or of a v8 UUID of the §6.4 distributed layout
/// with 16 node bits (the 12 bits after the version, then 4 after the variant).
fn node_of(u: u128) -> u64 {
    match (u >> 76) & 0xf {
        1 | 6 => (u & 0xffff_ffff_ffff) as u64,
        8 => ((((u >> 64) & 0xfff) << 4) | ((u >> 58) & 0xf)) as u64,
        v => panic!("unexpected version {v}: {u:032x}"),
    }
}

fn read_uuids(path: &Path) -> Vec<u128> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(parse).collect()
}

/// Sorted copies, and how many values occur more than once.
fn duplicates(all: &[u128]) -> usize {
    let mut v = all.to_vec();
    v.sort_unstable();
    v.windows(2).filter(|w| w[0] == w[1]).count()
}

/// Three devices in a chain, each with a daemon, each generating `n` UUIDs of `kind` with the
/// same generator seed, with or without `--site-node`. Returns each device's UUIDs.
fn three_runs(net: &Net, kind: &str, site: bool, n: usize) -> Vec<Vec<u128>> {
    let count = n.to_string();
    let mut args = vec![kind, "-n", &count];
    if site {
        args.push("--site-node");
    }
    let seed = [("UUIDKIT_TEST_SEED", "42".to_string())];
    let runs: Vec<(Child, PathBuf)> = (0..3)
        .map(|i| {
            let path = net.dir.join(format!("{kind}-{site}-{i}.txt"));
            let file = std::fs::File::create(&path).unwrap();
            let child = uuidkit_in(net, i, &args, &seed)
                .stdout(file)
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (child, path)
        })
        .collect();
    runs.into_iter()
        .map(|(child, path)| {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{kind} site={site}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let uuids = read_uuids(&path);
            assert_eq!(uuids.len(), n);
            uuids
        })
        .collect()
}

fn chain_of_three() -> Net {
    let mut net = Net::chain(3);
    let fast = strings(&FAST_TIMERS);
    for i in 0..3 {
        net.start_daemon(i, &fast);
    }
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(2);
    net.daemons[2].wait_interfaces(1);
    net
}

/// Issue acceptance: 3 × 1 M UUIDs with the same forced seed have no duplicates and three
/// distinct claimed nodes with `--site-node`; without it the same seeds collide.
#[test]
fn site_nodes_keep_three_devices_with_one_seed_apart() {
    if !can_run("site_nodes_keep_three_devices_with_one_seed_apart") {
        return;
    }
    let net = chain_of_three();
    let n = 1_000_000;
    for kind in ["v8", "v6", "v1"] {
        let runs = three_runs(&net, kind, true, n);
        let nodes: Vec<u64> = runs
            .iter()
            .map(|uuids| {
                let node = node_of(uuids[0]);
                assert!(
                    uuids.iter().all(|&u| node_of(u) == node),
                    "one node per run"
                );
                node
            })
            .collect();
        assert!(
            nodes[0] != nodes[1] && nodes[1] != nodes[2] && nodes[0] != nodes[2],
            "{kind}: three distinct claimed nodes, found {nodes:x?}"
        );
        if kind != "v8" {
            for node in &nodes {
                assert_eq!(node >> 40 & 1, 1, "{node:012x}: the multicast bit");
            }
        }
        let all: Vec<u128> = runs.concat();
        assert_eq!(duplicates(&all), 0, "{kind} --site-node: duplicates");
        eprintln!("{kind} --site-node: 3 x {n}, nodes {nodes:x?}, 0 duplicates");
        for d in &net.daemons {
            assert!(d.list().is_empty(), "every lease released: {:?}", d.list());
        }
    }
    // The negative control: the same seed, each generator's own random node. A v1 generator
    // keeps one random node and clock sequence, so the three draw the same ones and collide
    // wherever their timestamps meet.
    let runs = three_runs(&net, "v1", false, n);
    let nodes: Vec<u64> = runs.iter().map(|u| node_of(u[0])).collect();
    assert!(
        nodes.iter().all(|&x| x == nodes[0]),
        "the same seed draws the same random node: {nodes:x?}"
    );
    let dups = duplicates(&runs.concat());
    eprintln!(
        "v1 without --site-node: 3 x {n}, one node {:012x}, {dups} duplicates",
        nodes[0]
    );
    assert!(dups > 0, "the negative control must collide");
    // Without a site node, v6 and v8 draw fresh random bits for every UUID (v6: clock sequence
    // and node; v8: its time layout has no node): reported, not asserted.
    for kind in ["v6", "v8"] {
        let runs = three_runs(&net, kind, false, n);
        eprintln!(
            "{kind} without --site-node: 3 x {n}, {} duplicates",
            duplicates(&runs.concat())
        );
    }
}

/// The most of a run's output kept (its first bytes; a run may write gigabytes).
const HEAD: usize = 16 << 20;

/// Starts `command` with its output drained (see [`Drained`]).
fn drained(command: Command) -> Drained {
    Drained::start(command, HEAD)
}

/// Waits until a run wrote its first UUID; its node.
fn first_node(run: &Drained) -> u64 {
    node_of(parse(&run.first_line(Duration::from_secs(20))))
}

/// Every kept line is a whole UUID of `node`, and so is the last; the line count.
fn all_whole_of(seen: &Seen, node: u64) -> usize {
    for line in seen.kept_lines() {
        assert_eq!(node_of(parse(line)), node);
    }
    seen.lines()
}

fn held(views: &[ClaimView]) -> Vec<String> {
    views
        .iter()
        .filter(|c| c.state == ClaimState::Held)
        .map(|c| format!("{:?}", c.space))
        .collect()
}

/// While a run holds its node (blocked on a pipe nobody reads, across a renewal), another
/// device's claim of it is denied; once the run has ended, the same claim succeeds.
#[test]
fn a_held_site_node_is_denied_to_others_and_free_after_the_run() {
    if !can_run("a_held_site_node_is_denied_to_others_and_free_after_the_run") {
        return;
    }
    let mut net = Net::chain(2);
    let fast = strings(&FAST_TIMERS);
    net.start_daemon(0, &fast);
    net.start_daemon(1, &fast);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    let mut run = uuidkit_in(&net, 0, &["v6", "--site-node", "-n", "4000000000"], &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(run.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let node = node_of(parse(first.trim_end()));
    let uid = format!("{node:012x}");
    // Blocked on the full pipe across a renewal: the claim is kept renewed.
    std::thread::sleep(RENEWAL + Duration::from_secs(1));
    let claims = net.daemons[0].list();
    assert_eq!(claims.len(), 1);
    assert_eq!(claims[0].state, ClaimState::Held);
    assert!(
        claims[0].expires_in.unwrap() > 10,
        "renewed while the writer was blocked: {:?}",
        claims[0]
    );
    let (code, text) = net.daemons[1].claim(DOMAIN, &["--uid", &uid]);
    assert_eq!(code, 3, "denied while held: {text}");
    // End the run: its reader goes away (a broken pipe ends it quietly).
    drop(out);
    let status = run.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(
        net.daemons[0].list().is_empty(),
        "released at the end of the run"
    );
    let (code, text) = net.daemons[1].claim(DOMAIN, &["--uid", &uid]);
    assert_eq!(code, 0, "free after the run: {text}");
}

/// Both sides of a cut link claim the same node (the same lease seed); after the merge,
/// exactly one keeps it, the other's generator stops with an error within one renewal
/// interval, and nothing reaches its output after it was told.
#[test]
fn partition_and_merge_one_side_keeps_the_node() {
    if !can_run_muted("partition_and_merge_one_side_keeps_the_node") {
        return;
    }
    let mut net = Net::new(2);
    net.link(0, "a0", 1, "b0");
    let fast = strings(&FAST_TIMERS);
    net.start_daemon(0, &fast);
    net.start_daemon(1, &fast);
    net.daemons[0].wait_interfaces(1);
    net.daemons[1].wait_interfaces(1);
    net.mute(0, "a0");
    net.mute(1, "b0");
    // The same lease seed: both sides draw the same node. Started 3 s apart, so that their
    // renewals do not meet (the simulator covers renewals that do).
    let start = |i: usize| {
        let mut c = uuidkit_in(&net, i, &["v6", "--site-node", "-n", "4000000000"], &[]);
        c.env("UUIDKIT_TEST_LEASE_SEED", "7");
        drained(c)
    };
    let mut runs = vec![start(0)];
    let first = first_node(&runs[0]);
    std::thread::sleep(Duration::from_secs(3));
    runs.push(start(1));
    let nodes = [first, first_node(&runs[1])];
    assert_eq!(
        nodes[0], nodes[1],
        "both sides hold the same node while split"
    );
    // Watch both daemons' claims for the loss.
    let told: Arc<Mutex<Option<(usize, Instant)>>> = Arc::new(Mutex::new(None));
    for i in 0..2 {
        let mut w = Client::new(&net.daemons[i].control).watch(None).unwrap();
        let told = told.clone();
        std::thread::spawn(move || {
            while let Ok(Some(e)) = w.next_event(Some(Duration::from_secs(60))) {
                if matches!(e.kind, EventKind::Lost | EventKind::Conflict) {
                    told.lock().unwrap().get_or_insert((i, Instant::now()));
                    return;
                }
            }
        });
    }
    net.unmute(0, "a0");
    net.unmute(1, "b0");
    let merge = Instant::now();
    // The bound: one renewal interval and one reclaim round, with room for a loaded machine.
    let limit = RENEWAL + Duration::from_secs(3);
    let (loser, stopped) = loop {
        if let Some(at) = runs[0].exited() {
            break (0, at);
        }
        if let Some(at) = runs[1].exited() {
            break (1, at);
        }
        assert!(
            merge.elapsed() < limit,
            "no side stopped within {limit:?} of the merge"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    let winner = 1 - loser;
    let window = stopped - merge;
    // The test's watchers read the same event as the loser's lease; on a loaded machine they
    // may be scheduled after the loser has already exited.
    let deadline = Instant::now() + Duration::from_secs(2);
    let (who, told_at) = loop {
        if let Some(told) = *told.lock().unwrap() {
            break told;
        }
        assert!(Instant::now() < deadline, "no daemon reported the loss");
        std::thread::sleep(Duration::from_millis(5));
    };
    eprintln!(
        "namespaces: merge to the loser told {:?}, to its generator stopped {window:?}",
        told_at - merge
    );
    assert_eq!(who, loser, "the loser's daemon reported the loss");
    // The winner keeps the node and goes on.
    std::thread::sleep(Duration::from_millis(500));
    assert!(runs[winner].exited().is_none(), "the winner goes on");
    assert_eq!(held(&net.daemons[winner].list()).len(), 1);
    assert!(held(&net.daemons[loser].list()).is_empty());
    let done = runs.remove(loser).finish(Duration::from_secs(5));
    let (code, err) = (done.code, done.stderr);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("site node lost"), "{err}");
    let seen = done.seen.lock().unwrap();
    // The loser's own watcher hears the loss when the test's does; the margin covers the
    // scheduling of the two and of the thread draining the pipe.
    let late = seen.bytes_after(told_at + Duration::from_millis(250));
    assert_eq!(late, 0, "bytes written after the loser was told");
    let n = all_whole_of(&seen, nodes[0]);
    eprintln!("the loser wrote {n} UUIDs, all before it was told");
}

/// The daemon killed mid-run: the generator stops with an error at once (well within the
/// renewal interval), and what it wrote before is whole.
#[test]
fn the_daemon_killed_mid_run_stops_the_generator() {
    if !can_run("the_daemon_killed_mid_run_stops_the_generator") {
        return;
    }
    let mut net = Net::new(1);
    net.start_daemon(0, &strings(&FAST_TIMERS));
    let mut run = drained(uuidkit_in(
        &net,
        0,
        &["v8", "--site-node", "-n", "4000000000"],
        &[],
    ));
    let node = first_node(&run);
    std::thread::sleep(Duration::from_millis(300));
    let killed = Instant::now();
    net.daemons[0].kill();
    let stopped = loop {
        if let Some(at) = run.exited() {
            break at;
        }
        assert!(
            killed.elapsed() < RENEWAL,
            "still running a renewal interval later"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    eprintln!("daemon killed to generator stopped: {:?}", stopped - killed);
    let done = run.finish(Duration::from_secs(5));
    let (code, err) = (done.code, done.stderr);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("site node lost") && err.contains("uiapd is gone"),
        "{err}"
    );
    let n = all_whole_of(&done.seen.lock().unwrap(), node);
    assert!(n > 0);
    eprintln!("{n} UUIDs written before the daemon was killed, all whole");
}

/// A generator killed by a signal (no chance to release) still frees its node (D54).
#[test]
fn a_killed_generator_releases_its_node() {
    if !can_run("a_killed_generator_releases_its_node") {
        return;
    }
    let mut net = Net::new(1);
    net.start_daemon(0, &strings(&FAST_TIMERS));
    let run = drained(uuidkit_in(
        &net,
        0,
        &["v8", "--site-node", "-n", "4000000000"],
        &[],
    ));
    first_node(&run);
    assert_eq!(net.daemons[0].list().len(), 1);
    drop(run); // SIGKILL
    let deadline = Instant::now() + Duration::from_secs(3);
    while !net.daemons[0].list().is_empty() {
        assert!(
            Instant::now() < deadline,
            "still claimed: {:?}",
            net.daemons[0].list()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// No daemon: the run fails at once, naming the path it tried, and writes nothing.
#[test]
fn no_daemon_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("none.sock");
    let mut c = Command::new(uuidkit());
    c.args(["new", "v8", "--site-node", "--uiap-control"])
        .arg(&sock);
    let out = output_within(c, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("is uiapd running? tried {}", sock.display())),
        "{err}"
    );
}
