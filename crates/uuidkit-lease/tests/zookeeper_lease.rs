//! The ZooKeeper lease against a real three-member ensemble (Debian's `zookeeper` package),
//! started by the tests with a 200 ms tick: sessions of 2 s.
//!
//! The claim and the release through `&dyn Registry` and `Box<dyn Lease>`, and the pause: a
//! holder in a child process stopped (SIGSTOP) past its session timeout while another process
//! takes its node, then continued, writes no ID with the old node once the other holds it; with
//! the lease deadline off (the negative control) it does, and the checker counts them.

use std::collections::BTreeSet;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use test_support::db::ZooKeeperEnsemble;
use test_support::proc::signal;
use test_support::turn::Turn;
use uuidkit::clock::SystemClock;
use uuidkit::node::NodeSource;
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};
use uuidkit_lease::zookeeper::ZkConfig;
use uuidkit_lease::{Lease, LeaseErrorKind, Registry};
use zookeeper_client::{Acls, Client, CreateMode};

const TTL: Duration = Duration::from_secs(2);

fn config(hosts: &str, prefix: &str, bits: u8) -> ZkConfig {
    ZkConfig {
        timing: uuidkit_lease::Timing {
            attempts: 4,
            ..crate::quick_timing(TTL)
        },
        ..ZkConfig::new(hosts.split(',').map(str::to_string).collect(), prefix, bits)
    }
}

/// A client of the ensemble, on a runtime of the test's, to look at the nodes as an operator
/// (a worker thread of its own keeps its session alive between looks).
fn operator(zk: &ZooKeeperEnsemble) -> (tokio::runtime::Runtime, Client) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(Client::connect(&zk.connect_string())).unwrap();
    (rt, client)
}

#[test]
fn nodes_are_claimed_until_the_space_is_full_and_a_released_one_is_gone() {
    let _turn = Turn::of_caller();
    let Some(zk) = ZooKeeperEnsemble::for_test("zk_claim_release") else {
        return;
    };
    let (rt, client) = operator(&zk);
    let persistent = CreateMode::Persistent.with_acls(Acls::anyone_all());
    // Junk under the prefix: no node of a 2-bit width (one digit) is named so.
    rt.block_on(client.mkdir("/claims", &persistent)).unwrap();
    for junk in ["/claims/zz", "/claims/A", "/claims/00", "/claims/4"] {
        rt.block_on(client.create(junk, b"junk", &persistent))
            .unwrap();
    }
    let registry: &dyn Registry = &config(&zk.connect_string(), "/claims", 2);
    let mut leases: Vec<Box<dyn Lease>> = (0..4)
        .map(|_| registry.acquire(&mut ThreadRng, &mut |_| {}).unwrap())
        .collect();
    let nodes: BTreeSet<u64> = leases.iter().map(|l| l.node().value()).collect();
    assert_eq!(nodes, BTreeSet::from([0, 1, 2, 3]));
    assert_eq!(leases[0].name(), "ZooKeeper node");
    for l in &leases {
        let path = format!("/claims/{:x}", l.node().value());
        let stat = rt.block_on(client.check_stat(&path)).unwrap().unwrap();
        assert_ne!(stat.ephemeral_owner, 0, "{path} is not ephemeral");
        assert!(l.slot().current().is_ok());
    }
    // Held past two session timeouts: only confirmed renewals (writes) keep the deadlines ahead.
    let deadlines: Vec<_> = leases
        .iter()
        .map(|l| l.slot().deadline().unwrap())
        .collect();
    std::thread::sleep(2 * TTL);
    for (l, before) in leases.iter().zip(deadlines) {
        assert!(l.slot().current().is_ok(), "{:?}", l.slot());
        assert!(
            l.slot().deadline().unwrap() >= before + TTL,
            "{:?}",
            l.slot()
        );
    }
    let err = registry.acquire(&mut ThreadRng, &mut |_| {}).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Denied, "{err}");
    assert!(err.to_string().contains("/claims"), "{err}");

    let released = leases.remove(1);
    let (value, slot) = (released.node().value(), released.slot().clone());
    released.release().unwrap();
    assert!(slot.current().is_err());
    let path = format!("/claims/{value:x}");
    assert_eq!(rt.block_on(client.check_stat(&path)).unwrap(), None);
    let (hw, _) = rt
        .block_on(client.get_data(&format!("/claims/hw/{value:x}")))
        .unwrap();
    let hw: u64 = String::from_utf8(hw).unwrap().parse().unwrap();
    assert!(hw > 1_700_000_000_000, "high-water {hw}");
    let again = registry.acquire(&mut ThreadRng, &mut |_| {}).unwrap();
    assert_eq!(again.node().value(), value);
}

/// Twitter's epoch and millisecond, a 1-bit worker, 21 sequence bits.
fn layout() -> Layout {
    "t41.w1.s21.e1288834974657.u1ms".parse().unwrap()
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"))
}

/// IDs per second a holder writes.
const RATE: u64 = 20_000;

/// Makes IDs with `lease`'s node at `RATE` per second into `out` until the node is lost or
/// `stop` says so.
fn write_ids(lease: &dyn Lease, out: &Path, stop: impl Fn() -> bool) {
    let mut g = SnowflakeGenerator::builder(layout())
        .node_source(lease.slot().clone())
        .build(SystemClock, ThreadRng)
        .unwrap();
    let mut file = BufWriter::new(std::fs::File::create(out).unwrap());
    let (start, mut made) = (Instant::now(), 0u64);
    'run: while !stop() {
        let due = (start.elapsed().as_secs_f64() * RATE as f64) as u64;
        while made < due {
            let Ok(id) = g.generate() else { break 'run };
            file.write_all(&id.to_le_bytes()).unwrap();
            made += 1;
        }
        file.flush().unwrap();
        std::thread::sleep(Duration::from_millis(1));
    }
    file.flush().unwrap();
}

/// The paused holder: takes a node and writes its IDs until the node is lost (or 20 s).
#[test]
#[ignore = "the child process of the pause tests, run by them"]
fn zk_paused_holder_child() {
    let config = config(&env("ZK_HOSTS"), &env("ZK_PREFIX"), 1);
    let lease = (&config as &dyn Registry)
        .acquire(&mut ThreadRng, &mut |_| {})
        .unwrap();
    lease.slot().enforce_deadline(env("ZK_DEADLINE") == "on");
    let start = Instant::now();
    write_ids(lease.as_ref(), Path::new(&env("ZK_OUT")), || {
        start.elapsed() > Duration::from_secs(20)
    });
}

/// (worker, millisecond) of every ID in `file`.
fn ticks(file: &Path) -> Vec<(u64, u64)> {
    let l = layout();
    std::fs::read(file)
        .unwrap()
        .chunks_exact(8)
        .map(|c| {
            let p = l
                .decompose(u64::from_le_bytes(c.try_into().unwrap()))
                .unwrap();
            (p.worker, p.tick)
        })
        .collect()
}

/// What one pause run found.
#[derive(Debug)]
struct Pause {
    /// IDs the paused holder wrote, before and after its pause.
    paused_ids: usize,
    /// IDs the next holder wrote with the node.
    next_ids: usize,
    /// IDs the paused holder wrote with the node at or after the next holder's first millisecond.
    after_takeover: usize,
    /// (node, millisecond) pairs both wrote IDs in.
    shared_ms: usize,
}

/// One run: this process holds one of the two nodes, the child the other; the child is stopped
/// past its session timeout, this process takes its node and writes with it, and the child is
/// continued meanwhile.
fn pause_run(zk: &ZooKeeperEnsemble, prefix: &str, deadline: bool) -> Pause {
    let dir = tempfile::tempdir().unwrap();
    let registry = config(&zk.connect_string(), prefix, 1);
    let first = registry.acquire(&mut ThreadRng, &mut |_| {}).unwrap();
    let child_out = dir.path().join("paused.bin");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "zookeeper_lease::zk_paused_holder_child",
            "-q",
        ])
        .env("ZK_HOSTS", zk.connect_string())
        .env("ZK_PREFIX", prefix)
        .env("ZK_OUT", &child_out)
        .env("ZK_DEADLINE", if deadline { "on" } else { "off" })
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let began = Instant::now();
    while std::fs::metadata(&child_out).map_or(0, |m| m.len()) < 8 * 2_000 {
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "the child never wrote"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(&child, libc::SIGSTOP);
    let stopped = Instant::now();
    // The node of the child, once ZooKeeper expired its session.
    let next = loop {
        match registry.acquire(&mut ThreadRng, &mut |_| {}) {
            Ok(lease) => break lease,
            Err(e) if e.kind() == LeaseErrorKind::Denied => {
                assert!(stopped.elapsed() < Duration::from_secs(15), "{e}");
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert_ne!(next.node(), first.node());
    let next_out = dir.path().join("next.bin");
    std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let start = Instant::now();
            write_ids(next.as_ref(), &next_out, || {
                start.elapsed() > Duration::from_millis(1_500)
            });
        });
        std::thread::sleep(Duration::from_millis(300));
        signal(&child, libc::SIGCONT);
        writer.join().unwrap();
    });
    signal(&child, libc::SIGKILL);
    let _ = child.wait();
    let worker = next.node().value();
    let paused = ticks(&child_out);
    let taken = ticks(&next_out);
    assert!(taken.iter().all(|&(w, _)| w == worker));
    let from = taken.iter().map(|&(_, t)| t).min().unwrap();
    let theirs: BTreeSet<u64> = taken.iter().map(|&(_, t)| t).collect();
    let pause = Pause {
        paused_ids: paused.len(),
        next_ids: taken.len(),
        after_takeover: paused
            .iter()
            .filter(|&&(w, t)| w == worker && t >= from)
            .count(),
        shared_ms: paused
            .iter()
            .filter(|&&(w, t)| w == worker && theirs.contains(&t))
            .map(|&(_, t)| t)
            .collect::<BTreeSet<_>>()
            .len(),
    };
    assert!(paused.iter().all(|&(w, _)| w == worker), "{pause:?}");
    pause
}

#[test]
fn a_holder_paused_past_its_session_writes_nothing_once_another_holds_its_node() {
    let _turn = Turn::of_caller();
    let Some(zk) = ZooKeeperEnsemble::for_test("zk_paused_holder") else {
        return;
    };
    let started = Instant::now();
    let on = pause_run(&zk, "/paused-on", true);
    eprintln!("deadline on: {on:?} ({:?})", started.elapsed());
    assert!(on.paused_ids >= 2_000 && on.next_ids >= 2_000, "{on:?}");
    assert_eq!((on.after_takeover, on.shared_ms), (0, 0), "{on:?}");

    // The negative control: the same pause with the deadline not enforced.
    let started = Instant::now();
    let off = pause_run(&zk, "/paused-off", false);
    eprintln!("deadline off: {off:?} ({:?})", started.elapsed());
    // Its IDs after the takeover are the overlap; how many of their milliseconds the next
    // holder also wrote in depends on how soon the resumed holder hears of the expired session.
    assert!(off.after_takeover > 0, "{off:?}");
}
