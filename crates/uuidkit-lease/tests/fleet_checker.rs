//! A fleet under faults, checked afterwards: several generator processes share a small node
//! space leased from a real three-member etcd; each one holds a node, makes UUIDs with it until
//! the node is lost, and leases again (half of them through the lease's slot, half through a
//! clock-and-source pair made from it). Meanwhile the test stops generators (SIGSTOP) for longer
//! than the lease's TTL, and stops and restarts etcd members (the leader among them). Every UUID
//! is written to a file of its tenure (one process, one lease).
//!
//! The checker reads them all back. A UUID carries its node and its millisecond; a tenure is
//! the node of its UUIDs and the span of their milliseconds. It finds duplicate UUIDs, and two
//! tenures of one node whose spans meet (one millisecond in common is enough): two processes
//! that used one node at the same time. With the lease deadline on there are none; with it off
//! (the negative control) a generator stopped past its TTL goes on with its old node when it
//! resumes, and the checker finds the overlap.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use test_support::db::EtcdCluster;
use test_support::proc::signal;
use test_support::turn::Turn;
use uuidkit::clock::SystemClock;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid, V8Distributed};
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};

const TTL: Duration = Duration::from_secs(2);
/// Node bits: four nodes for six processes, so that a freed node is taken at once.
const BITS: u8 = 2;
const PROCESSES: usize = 6;
const RUN: Duration = Duration::from_secs(40);
/// UUIDs per second per process: six processes for 40 s make 13 million, less the time spent
/// waiting for a node.
const RATE: u64 = 55_000;

const ENV_ENDPOINTS: &str = "FLEET_ENDPOINTS";
const ENV_PREFIX: &str = "FLEET_PREFIX";
const ENV_DIR: &str = "FLEET_DIR";
const ENV_ID: &str = "FLEET_ID";
const ENV_DEADLINE: &str = "FLEET_DEADLINE";

fn config(endpoints: Vec<String>, prefix: &str) -> EtcdConfig {
    EtcdConfig {
        timing: uuidkit_lease::Timing {
            attempts: 4,
            ..crate::quick_timing(TTL)
        },
        ..EtcdConfig::new(endpoints, prefix, BITS)
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"))
}

/// One generator process: leases a node, writes its UUIDs (16 bytes each) to
/// `DIR/pID-tTENURE.bin` at `RATE` per second until the node is lost, leases again, for `RUN`.
#[test]
#[ignore = "the child process of the fleet run, run by it"]
fn fleet_child() {
    let endpoints = env(ENV_ENDPOINTS).split(',').map(str::to_string).collect();
    let c = config(endpoints, &env(ENV_PREFIX));
    let (dir, id) = (PathBuf::from(env(ENV_DIR)), env(ENV_ID));
    let deadline = env(ENV_DEADLINE) == "on";
    let start = Instant::now();
    let mut made = 0u64;
    for tenure in 0.. {
        if start.elapsed() >= RUN {
            return;
        }
        let Ok(lease) = EtcdLease::acquire(&c, &mut ThreadRng) else {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        lease.slot().enforce_deadline(deadline);
        // Half the fleet reads the lease's slot with the system clock, half a pair made from it
        // (the deadline checked against the generator's own reading of the boot clock).
        let mut g: Box<dyn Generator> = if id.parse::<usize>().unwrap() % 2 == 0 {
            Box::new(
                V8Distributed::builder()
                    .node_source(lease.slot().clone())
                    .build(SystemClock, ThreadRng)
                    .unwrap(),
            )
        } else {
            let (clock, source) = lease.slot().pair();
            Box::new(
                V8Distributed::builder()
                    .node_source(source)
                    .build(clock, ThreadRng)
                    .unwrap(),
            )
        };
        let file = std::fs::File::create(dir.join(format!("p{id}-t{tenure}.bin"))).unwrap();
        let mut out = BufWriter::new(file);
        'tenure: while start.elapsed() < RUN {
            let due = (start.elapsed().as_secs_f64() * RATE as f64) as u64;
            while made < due {
                match g.generate() {
                    Ok(u) => out.write_all(u.as_bytes()).unwrap(),
                    Err(_) => break 'tenure,
                }
                made += 1;
            }
            out.flush().unwrap();
            std::thread::sleep(Duration::from_millis(1));
        }
        out.flush().unwrap();
    }
}

/// The node field of a v8 distributed UUID with `BITS` node bits.
fn node_of(u: u128) -> u64 {
    let field = ((u >> 64) & 0x0FFF) << 62 | (u & ((1 << 62) - 1));
    (field >> (74 - u32::from(BITS))) as u64
}

fn ms_of(u: u128) -> u64 {
    (u >> 80) as u64
}

/// One lease's UUIDs, as the checker sees them.
#[derive(Debug, Clone)]
struct Tenure {
    file: String,
    node: u64,
    first_ms: u64,
    last_ms: u64,
}

/// What the checker found.
#[derive(Debug, Default)]
struct Report {
    uuids: usize,
    tenures: usize,
    duplicates: usize,
    /// Pairs of tenures of one node whose millisecond spans meet.
    overlaps: Vec<(Tenure, Tenure)>,
}

/// Reads every tenure file in `dir`: duplicates across all of them, and overlapping tenures of
/// one node.
fn check(dir: &Path) -> Report {
    let mut all: Vec<u128> = Vec::new();
    let mut tenures: Vec<Tenure> = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() % 16, 0, "{} is torn", path.display());
        let uuids: Vec<u128> = bytes
            .chunks_exact(16)
            .map(|b| Uuid::from_bytes(b.try_into().unwrap()).as_u128())
            .collect();
        let Some(&first) = uuids.first() else {
            continue;
        };
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let node = node_of(first);
        assert!(
            uuids.iter().all(|&u| node_of(u) == node),
            "{file}: one tenure, one node"
        );
        let (first_ms, last_ms) = uuids.iter().fold((u64::MAX, 0), |(lo, hi), &u| {
            (lo.min(ms_of(u)), hi.max(ms_of(u)))
        });
        tenures.push(Tenure {
            file,
            node,
            first_ms,
            last_ms,
        });
        all.extend(uuids);
    }
    let mut report = Report {
        uuids: all.len(),
        tenures: tenures.len(),
        ..Report::default()
    };
    all.sort_unstable();
    report.duplicates = all.windows(2).filter(|w| w[0] == w[1]).count();
    let mut by_node: BTreeMap<u64, Vec<Tenure>> = BTreeMap::new();
    for t in tenures {
        by_node.entry(t.node).or_default().push(t);
    }
    for list in by_node.values_mut() {
        list.sort_by_key(|t| t.first_ms);
        // Sorted by start: each tenure against the one that ends last among those before it.
        let mut latest: Option<&Tenure> = None;
        for t in list.iter() {
            if let Some(l) = latest
                && t.first_ms <= l.last_ms
            {
                report.overlaps.push((l.clone(), t.clone()));
            }
            if latest.is_none_or(|l| t.last_ms > l.last_ms) {
                latest = Some(t);
            }
        }
    }
    report
}

/// The fleet run: `PROCESSES` generators for `RUN`, faults injected meanwhile; returns the
/// checker's report and how many faults were injected.
fn fleet_run(test: &str, deadline: bool) -> Option<(Report, usize)> {
    let mut cluster = EtcdCluster::for_test(test)?;
    let dir = tempfile::tempdir().unwrap();
    let prefix = format!("/fleet/{test}");
    let children: Vec<Child> = (0..PROCESSES)
        .map(|id| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--ignored", "--exact", "fleet_checker::fleet_child", "-q"])
                .env(ENV_ENDPOINTS, cluster.endpoints().join(","))
                .env(ENV_PREFIX, &prefix)
                .env(ENV_DIR, dir.path())
                .env(ENV_ID, id.to_string())
                .env(ENV_DEADLINE, if deadline { "on" } else { "off" })
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let faults = inject(&mut cluster, &children);
    for mut child in children {
        signal(&child, libc::SIGCONT);
        let status = child.wait().unwrap();
        assert!(status.success(), "a generator failed: {status}");
    }
    Some((check(dir.path()), faults))
}

/// Until `RUN` has passed: every 1.2 s one generator stopped (SIGSTOP) for the TTL plus 0.5 to
/// 1.5 s, then continued; at a third of the run the leader's member stopped, at two thirds
/// another member, each started again 3 s later. Returns how many faults were injected.
fn inject(cluster: &mut EtcdCluster, children: &[Child]) -> usize {
    let mut rng = ChaCha20Rng::from_seed([7; 32]);
    let start = Instant::now();
    // (when, child) of each pending SIGCONT; (when, member) of each pending restart.
    let mut resume: Vec<(Duration, usize)> = Vec::new();
    let mut restart: Vec<(Duration, usize)> = Vec::new();
    let (mut faults, mut next_stop, mut members_stopped) = (0, Duration::from_secs(2), 0);
    let end = RUN - Duration::from_secs(4);
    while start.elapsed() < end {
        let now = start.elapsed();
        if now >= next_stop {
            // One of the generators not stopped already.
            let running: Vec<usize> = (0..children.len())
                .filter(|&i| !resume.iter().any(|&(_, j)| j == i))
                .collect();
            let i = running[(rng.next_u32() as usize) % running.len()];
            signal(&children[i], libc::SIGSTOP);
            let extra = Duration::from_millis(500 + u64::from(rng.next_u32() % 1000));
            resume.push((now + TTL + extra, i));
            faults += 1;
            next_stop = now + Duration::from_millis(1200);
        }
        if members_stopped < 2 && now >= end * (members_stopped + 1) / 3 {
            let member = if members_stopped == 0 {
                leader(cluster)
            } else {
                (leader(cluster) + 1) % 3
            };
            cluster.stop(member);
            restart.push((now + Duration::from_secs(3), member));
            members_stopped += 1;
            faults += 1;
        }
        resume.retain(|&(when, i)| {
            let due = now >= when;
            if due {
                signal(&children[i], libc::SIGCONT);
            }
            !due
        });
        for &(_, member) in restart.iter().filter(|&&(when, _)| now >= when) {
            cluster.restart(member).unwrap();
        }
        restart.retain(|&(when, _)| now < when);
        std::thread::sleep(Duration::from_millis(20));
    }
    for &(_, i) in &resume {
        signal(&children[i], libc::SIGCONT);
    }
    for &(_, member) in &restart {
        cluster.restart(member).unwrap();
    }
    faults
}

/// The member that is the leader, by its health and status: the first member that answers
/// that it leads; member 0 if none does (an election under way).
fn leader(cluster: &EtcdCluster) -> usize {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (i, e) in cluster.endpoints().iter().enumerate() {
        if !cluster.healthy(i) {
            continue;
        }
        let leads = runtime.block_on(async {
            let mut c = etcd_client::Client::connect([e], None).await.ok()?;
            let s = c.status().await.ok()?;
            Some(s.header()?.member_id() == s.leader())
        });
        if leads == Some(true) {
            return i;
        }
    }
    0
}

#[test]
fn a_fleet_under_faults_never_shares_a_node_and_makes_no_duplicate() {
    let _turn = Turn::of_caller();
    let Some((report, faults)) = fleet_run("fleet_checker_deadline", true) else {
        return;
    };
    eprintln!(
        "fleet run, deadline on: {} UUIDs in {} tenures, {faults} faults, {} duplicates, {} overlaps",
        report.uuids,
        report.tenures,
        report.duplicates,
        report.overlaps.len()
    );
    assert!(report.uuids >= 10_000_000, "{report:?}");
    assert!(faults >= 20, "{faults} faults");
    // Nodes moved between processes: the faults took nodes away.
    assert!(report.tenures > PROCESSES + faults / 4, "{report:?}");
    assert_eq!(report.duplicates, 0);
    assert!(report.overlaps.is_empty(), "{:#?}", report.overlaps);
}

#[test]
fn without_the_deadline_the_checker_finds_two_holders_of_one_node() {
    let _turn = Turn::of_caller();
    let Some((report, faults)) = fleet_run("fleet_checker_control", false) else {
        return;
    };
    eprintln!(
        "fleet run, deadline off: {} UUIDs in {} tenures, {faults} faults, {} duplicates, {} overlaps",
        report.uuids,
        report.tenures,
        report.duplicates,
        report.overlaps.len()
    );
    for (a, b) in &report.overlaps {
        eprintln!(
            "  node {}: {} (ms {}..={}) and {} (ms {}..={})",
            a.node, a.file, a.first_ms, a.last_ms, b.file, b.first_ms, b.last_ms
        );
    }
    assert!(faults >= 20, "{faults} faults");
    assert!(
        !report.overlaps.is_empty(),
        "the negative control found no overlap: {report:?}"
    );
}
