//! Faults against a real three-member etcd: a generator process stopped (SIGSTOP) past its
//! lease's TTL, its node granted to another holder meanwhile, then continued (SIGCONT). The
//! generator runs as a child process (this test binary, re-run as `generator_child`), writing
//! one line per UUID: the boot-clock instant after the UUID was made, the node, the epoch, its
//! lease's deadline.
//! Boot-clock instants of two processes on one machine compare directly.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use test_support::db::EtcdCluster;
use test_support::netns::Namespace;
use test_support::turn::Turn;
use uuidkit::clock::SystemClock;
use uuidkit::node::NodeSource;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V8Distributed};
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
use uuidkit_lease::{BootClock, BootTime};

const TTL: Duration = Duration::from_secs(2);
/// The child's settings: endpoints, prefix, and whether its deadline is enforced.
const ENDPOINTS: &str = "FLEET_CHILD_ENDPOINTS";
const PREFIX: &str = "FLEET_CHILD_PREFIX";
const DEADLINE: &str = "FLEET_CHILD_DEADLINE";

fn config(endpoints: Vec<String>, prefix: &str) -> EtcdConfig {
    EtcdConfig {
        timing: crate::quick_timing(TTL),
        ..EtcdConfig::new(endpoints, prefix, 1)
    }
}

/// The generator process: holds a node, makes UUIDs with it and writes one line each
/// (`BOOT_NS NODE EPOCH DEADLINE_NS UUID`) until the node is lost (`LOST BOOT_NS WHY`), or for 20 s.
#[test]
#[ignore = "the child process of the fault tests, run by them"]
fn generator_child() {
    let endpoints: Vec<String> = std::env::var(ENDPOINTS)
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let c = config(endpoints, &std::env::var(PREFIX).unwrap());
    let lease = EtcdLease::acquire(&c, &mut ThreadRng).unwrap();
    let mode = std::env::var(DEADLINE).unwrap();
    lease.slot().enforce_deadline(mode != "off");
    let mut g: Box<dyn Generator> = if mode == "paired" {
        let (clock, source) = lease.slot().pair();
        Box::new(
            V8Distributed::builder()
                .node_source(source)
                .build(clock, ThreadRng)
                .unwrap(),
        )
    } else {
        Box::new(
            V8Distributed::builder()
                .node_source(lease.slot().clone())
                .build(SystemClock, ThreadRng)
                .unwrap(),
        )
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "HELD {}", lease.node().value()).unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        match g.generate() {
            Ok(u) => {
                let node = lease.source().current().map_or(u64::MAX, |n| n.epoch());
                let now = BootTime.now().as_nanos();
                let deadline = lease.slot().deadline().map_or(0, |d| d.as_nanos());
                writeln!(out, "{now} {} {node} {deadline} {u}", lease.node().value()).unwrap();
            }
            Err(e) => {
                writeln!(out, "LOST {} {e}", BootTime.now().as_nanos()).unwrap();
                return;
            }
        }
        out.flush().unwrap();
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn spawn_child(cluster: &EtcdCluster, prefix: &str, deadline: &str) -> Child {
    child_command(
        Command::new(std::env::current_exe().unwrap()),
        &cluster.endpoints(),
        prefix,
        deadline,
    )
}

/// `cmd` (the test binary, or a wrapper that runs it) set up as the generator child.
/// `deadline`: "on" (the slot with the system clock), "off" (the same, deadline not enforced) or
/// "paired" (a clock-and-source pair made from the slot).
fn child_command(mut cmd: Command, endpoints: &[String], prefix: &str, deadline: &str) -> Child {
    cmd.args([
        "--ignored",
        "--exact",
        "etcd_faults::generator_child",
        "--nocapture",
        "-q",
    ])
    .env(ENDPOINTS, endpoints.join(","))
    .env(PREFIX, prefix)
    .env(DEADLINE, deadline)
    .stdout(Stdio::piped())
    .spawn()
    .unwrap()
}

/// The generator's first line: the node it holds (the test harness's own lines come first).
fn held(out: &mut impl BufRead) -> u64 {
    loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the child ended before holding a node"
        );
        if let Some(node) = line.trim().strip_prefix("HELD ") {
            return node.parse().unwrap();
        }
    }
}

/// The generator's node, and its later lines, read as they come (a child blocked on a full
/// pipe would stop generating, and hide what the test is about): joined at the end.
fn follow(child: &mut Child) -> (u64, std::thread::JoinHandle<Vec<String>>) {
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let node = held(&mut out);
    let rest = std::thread::spawn(move || out.lines().map_while(Result::ok).collect());
    (node, rest)
}

/// Takes the node a cut-off or stopped holder had, once etcd lets it go; the boot-clock
/// instant it was granted.
fn take_over(c: &EtcdConfig, node: u64) -> (EtcdLease, u128) {
    let start = Instant::now();
    let theirs = loop {
        if let Ok(l) = EtcdLease::acquire(c, &mut ChaCha20Rng::from_seed([2; 32])) {
            break l;
        }
        assert!(
            start.elapsed() < TTL * 4,
            "the holder's node never came free"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let granted = BootTime.now().as_nanos();
    assert_eq!(theirs.node().value(), node);
    (theirs, granted)
}

/// What a stopped run shows: the child's lines after it was continued, and the instant the
/// parent held the child's node.
struct Run {
    lines: Vec<String>,
    node: u64,
    granted: u128,
}

/// Holds one of the two 1-bit nodes, lets a child take the other, stops the child, takes its
/// node once etcd lets it go, then continues the child and collects what it wrote.
fn stopped_run(cluster: &EtcdCluster, prefix: &str, deadline: &str) -> Run {
    let c = config(cluster.endpoints(), prefix);
    let _mine = EtcdLease::acquire(&c, &mut ChaCha20Rng::from_seed([1; 32])).unwrap();
    let mut child = spawn_child(cluster, prefix, deadline);
    let (node, rest) = follow(&mut child);
    std::thread::sleep(Duration::from_millis(300));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: our own child, not yet reaped.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let (_theirs, granted) = take_over(&c, node);
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    std::thread::sleep(Duration::from_millis(500));
    let _ = child.kill();
    let _ = child.wait();
    let lines = rest.join().unwrap();
    Run {
        lines,
        node,
        granted,
    }
}

/// The child's UUID lines made with `node` at or after `since`.
fn overlapping(run: &Run) -> Vec<&String> {
    run.lines
        .iter()
        .filter(|l| {
            let mut f = l.split(' ');
            let (Some(at), Some(node)) = (f.next(), f.next()) else {
                return false;
            };
            at.parse::<u128>().is_ok_and(|at| at >= run.granted)
                && node.parse::<u64>() == Ok(run.node)
        })
        .collect()
}

#[test]
fn a_generator_stopped_past_its_ttl_writes_nothing_with_its_old_node_after_it_resumes() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_sigstop_generator") else {
        return;
    };
    let run = stopped_run(&cluster, "/f/stop", "on");
    stopped_safely(&run);
}

#[test]
fn a_paired_generator_stopped_past_its_ttl_writes_nothing_with_its_old_node_after_it_resumes() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_sigstop_paired") else {
        return;
    };
    let run = stopped_run(&cluster, "/f/paired", "paired");
    stopped_safely(&run);
}

/// What a generator stopped past its TTL shows with the deadline on.
fn stopped_safely(run: &Run) {
    assert!(overlapping(run).is_empty(), "{:?}", overlapping(run));
    let lost = run
        .lines
        .iter()
        .find(|l| l.starts_with("LOST "))
        .expect("the child reports the loss");
    assert!(lost.contains("deadline"), "{lost}");
    // It saw the loss at its first UUID after it resumed: after the parent was granted the
    // node (the child was stopped then), with no UUID in between.
    let lost_at = run
        .lines
        .iter()
        .position(|l| l.starts_with("LOST "))
        .unwrap();
    let last_uuid = run
        .lines
        .iter()
        .rposition(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap();
    assert!(
        last_uuid < lost_at,
        "a UUID after the loss: {:?}",
        &run.lines[lost_at..]
    );
    let stamp = |l: &str| l.split(' ').nth(1).unwrap().parse::<u128>().unwrap();
    assert!(stamp(&run.lines[lost_at]) > run.granted);
    // And its deadline, as it stood at its last UUID, was before the node went to another.
    let deadline = run.lines[last_uuid].split(' ').nth(3).unwrap();
    assert!(
        deadline.parse::<u128>().unwrap() < run.granted,
        "{}",
        run.lines[last_uuid]
    );
}

#[test]
fn without_the_deadline_the_resumed_generator_overlaps_the_new_holder() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_sigstop_control") else {
        return;
    };
    let run = stopped_run(&cluster, "/f/control", "off");
    assert!(
        !overlapping(&run).is_empty(),
        "the negative control found no overlap: {} lines",
        run.lines.len()
    );
}

#[test]
fn a_generator_cut_off_from_etcd_stops_before_its_node_is_granted_again() {
    let _turn = Turn::of_caller();
    let test = "etcd_partition_generator";
    let prerequisites = test_support::all([
        test_support::root(),
        test_support::command("ip", &["-V"]),
        test_support::command("nft", &["--version"]),
    ]);
    if !test_support::require(test, prerequisites) {
        return;
    }
    let ns = Namespace::create();
    let cluster = match EtcdCluster::start_also_on(Some(ns.host())) {
        Ok(c) => c,
        Err(e) => return test_support::skip(test, e),
    };
    let c = config(cluster.endpoints(), "/f/cut");
    let _mine = EtcdLease::acquire(&c, &mut ChaCha20Rng::from_seed([1; 32])).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut child = child_command(
        ns.command(&exe),
        &cluster.endpoints_on(ns.host()),
        "/f/cut",
        "on",
    );
    let (node, rest) = follow(&mut child);
    std::thread::sleep(Duration::from_millis(300));
    ns.cut(None);
    let cut_at = BootTime.now().as_nanos();
    let (_theirs, granted) = take_over(&c, node);
    // The child ends at its loss; a child that never saw it is stopped here.
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < TTL * 2 {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let run = Run {
        lines: rest.join().unwrap(),
        node,
        granted,
    };
    assert!(overlapping(&run).is_empty(), "{:?}", overlapping(&run));
    let lost = run
        .lines
        .iter()
        .find(|l| l.starts_with("LOST "))
        .unwrap_or_else(|| {
            let tail = &run.lines[run.lines.len().saturating_sub(3)..];
            panic!(
                "the cut-off child reports no loss; {} lines, last {tail:?}",
                run.lines.len()
            )
        });
    let lost_at: u128 = lost.split(' ').nth(1).unwrap().parse().unwrap();
    assert!(lost_at < granted, "{lost} (granted at {granted})");
    // Time from the cut to the stop (no wall-clock limit: a figure for the record).
    eprintln!(
        "partition: the generator stopped {:?} after the cut, {:?} before its node was granted again",
        Duration::from_nanos((lost_at - cut_at) as u64),
        Duration::from_nanos((granted - lost_at) as u64)
    );
}
