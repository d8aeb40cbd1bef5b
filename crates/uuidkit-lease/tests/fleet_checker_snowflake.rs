//! The fleet check over 64-bit snowflake IDs: generator processes share a small worker space
//! leased from a real three-member etcd (a 2-bit worker, four workers for six processes); each
//! leases a worker, makes IDs with it until it is lost, and leases again (half of them through
//! the lease's slot, half through a clock-and-source pair). Meanwhile the test stops generators
//! (SIGSTOP) for longer than the TTL. Every ID is written to a file of its tenure.
//!
//! The checker decomposes every ID into its worker and tick: duplicates across all files, and
//! two tenures of one worker whose tick spans meet (two processes that used one worker at the
//! same time). With the lease deadline on there are none; with it off (the negative control) a
//! generator stopped past its TTL goes on with its old worker when it resumes, and the checker
//! finds the overlap.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use test_support::db::EtcdCluster;
use test_support::proc::signal;
use test_support::turn::Turn;
use uuidkit::clock::SystemClock;
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};

const TTL: Duration = Duration::from_secs(2);
const PROCESSES: usize = 6;
/// A 2-bit worker.
const WORKERS: usize = 4;
const RUN: Duration = Duration::from_secs(20);
/// IDs per second per process.
const RATE: u64 = 50_000;

/// Twitter's epoch and millisecond, a 2-bit worker, 20 sequence bits.
fn layout() -> Layout {
    "t41.w2.s20.e1288834974657.u1ms".parse().unwrap()
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"))
}

/// One generator process: leases a worker, writes its IDs (8 bytes each, little-endian) to
/// `DIR/pID-tTENURE.bin` at `RATE` per second until the worker is lost, leases again, for `RUN`.
#[test]
#[ignore = "the child process of the fleet run, run by it"]
fn snowflake_fleet_child() {
    let endpoints = env("SF_FLEET_ENDPOINTS")
        .split(',')
        .map(str::to_string)
        .collect();
    let config = EtcdConfig {
        timing: uuidkit_lease::Timing {
            attempts: 4,
            ..crate::quick_timing(TTL)
        },
        ..EtcdConfig::new(endpoints, env("SF_FLEET_PREFIX"), 2)
    };
    let (dir, id) = (PathBuf::from(env("SF_FLEET_DIR")), env("SF_FLEET_ID"));
    let deadline = env("SF_FLEET_DEADLINE") == "on";
    let paired = id.parse::<usize>().unwrap() % 2 == 1;
    let start = Instant::now();
    let mut made = 0u64;
    for tenure in 0.. {
        if start.elapsed() >= RUN {
            return;
        }
        let Ok(lease) = EtcdLease::acquire(&config, &mut ThreadRng) else {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        lease.slot().enforce_deadline(deadline);
        let mut next: Box<dyn FnMut() -> Option<u64>> = if paired {
            let (clock, source) = lease.slot().pair();
            let mut g = SnowflakeGenerator::builder(layout())
                .node_source(source)
                .build(clock, ThreadRng)
                .unwrap();
            Box::new(move || g.generate().ok())
        } else {
            let mut g = SnowflakeGenerator::builder(layout())
                .node_source(lease.slot().clone())
                .build(SystemClock, ThreadRng)
                .unwrap();
            Box::new(move || g.generate().ok())
        };
        let file = std::fs::File::create(dir.join(format!("p{id}-t{tenure}.bin"))).unwrap();
        let mut out = BufWriter::new(file);
        'tenure: while start.elapsed() < RUN {
            let due = (start.elapsed().as_secs_f64() * RATE as f64) as u64;
            while made < due {
                let Some(x) = next() else { break 'tenure };
                out.write_all(&x.to_le_bytes()).unwrap();
                made += 1;
            }
            out.flush().unwrap();
            std::thread::sleep(Duration::from_millis(1));
        }
        out.flush().unwrap();
    }
}

/// One lease's IDs, as the checker sees them.
#[derive(Debug, Clone)]
struct Tenure {
    file: String,
    worker: u64,
    first: u64,
    last: u64,
}

#[derive(Debug, Default)]
struct Report {
    ids: usize,
    tenures: usize,
    duplicates: usize,
    overlaps: Vec<(Tenure, Tenure)>,
}

fn check(dir: &Path) -> Report {
    let l = layout();
    let mut all: Vec<u64> = Vec::new();
    let mut by_worker: BTreeMap<u64, Vec<Tenure>> = BTreeMap::new();
    let mut tenures = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() % 8, 0, "{} is torn", path.display());
        let ids: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let Some(&first) = ids.first() else { continue };
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let parts: Vec<_> = ids.iter().map(|&id| l.decompose(id).unwrap()).collect();
        let worker = parts[0].worker;
        assert!(
            parts.iter().all(|p| p.worker == worker),
            "{file}: one tenure, one worker ({first})"
        );
        let (lo, hi) = parts.iter().fold((u64::MAX, 0), |(lo, hi), p| {
            (lo.min(p.tick), hi.max(p.tick))
        });
        by_worker.entry(worker).or_default().push(Tenure {
            file,
            worker,
            first: lo,
            last: hi,
        });
        tenures += 1;
        all.extend(ids);
    }
    let mut report = Report {
        ids: all.len(),
        tenures,
        ..Report::default()
    };
    all.sort_unstable();
    report.duplicates = all.windows(2).filter(|w| w[0] == w[1]).count();
    for list in by_worker.values_mut() {
        list.sort_by_key(|t| t.first);
        let mut latest: Option<&Tenure> = None;
        for t in list.iter() {
            if let Some(l) = latest
                && t.first <= l.last
            {
                report.overlaps.push((l.clone(), t.clone()));
            }
            if latest.is_none_or(|l| t.last > l.last) {
                latest = Some(t);
            }
        }
    }
    report
}

/// The processes making IDs now: those whose newest tenure file grew in the last 300 ms.
fn holders(dir: &Path) -> Vec<usize> {
    let mut newest: BTreeMap<usize, (u32, PathBuf)> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let Some((p, t)) = name.strip_prefix('p').and_then(|r| r.split_once("-t")) else {
            continue;
        };
        let (p, t): (usize, u32) = (p.parse().unwrap(), t.parse().unwrap());
        if newest.get(&p).is_none_or(|(n, _)| t > *n) {
            newest.insert(p, (t, path));
        }
    }
    newest
        .into_iter()
        .filter(|(_, (_, path))| {
            std::fs::metadata(path)
                .and_then(|m| m.modified())
                .is_ok_and(|m| m.elapsed().is_ok_and(|e| e < Duration::from_millis(300)))
        })
        .map(|(p, _)| p)
        .collect()
}

/// The run: every 1.5 s one generator holding a worker stopped for the TTL plus 1 s, then continued.
fn fleet_run(test: &str, deadline: bool) -> Option<(Report, usize)> {
    let cluster = EtcdCluster::for_test(test)?;
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<Child> = (0..PROCESSES)
        .map(|id| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--ignored",
                    "--exact",
                    "fleet_checker_snowflake::snowflake_fleet_child",
                    "-q",
                ])
                .env("SF_FLEET_ENDPOINTS", cluster.endpoints().join(","))
                .env("SF_FLEET_PREFIX", format!("/sf-fleet/{test}"))
                .env("SF_FLEET_DIR", dir.path())
                .env("SF_FLEET_ID", id.to_string())
                .env("SF_FLEET_DEADLINE", if deadline { "on" } else { "off" })
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let start = Instant::now();
    let mut faults = 0;
    let mut i = 0;
    while start.elapsed() < RUN - Duration::from_secs(4) {
        std::thread::sleep(Duration::from_millis(1_500));
        // Only a generator holding a worker: six processes share four workers, so stopping
        // one that is waiting for a worker would be no fault at all.
        let holding = holders(dir.path());
        let Some(&victim) = holding.get(i % holding.len().max(1)) else {
            continue;
        };
        let c = &children[victim];
        signal(c, libc::SIGSTOP);
        std::thread::sleep(TTL + Duration::from_secs(1));
        signal(c, libc::SIGCONT);
        faults += 1;
        i += 1;
    }
    for mut child in children {
        signal(&child, libc::SIGCONT);
        assert!(child.wait().unwrap().success(), "a generator failed");
    }
    Some((check(dir.path()), faults))
}

#[test]
fn a_snowflake_fleet_under_faults_never_shares_a_worker() {
    let _turn = Turn::of_caller();
    let Some((report, faults)) = fleet_run("sf_fleet_deadline", true) else {
        return;
    };
    eprintln!(
        "snowflake fleet, deadline on: {} IDs in {} tenures, {faults} faults, {} duplicates, {} overlaps",
        report.ids,
        report.tenures,
        report.duplicates,
        report.overlaps.len()
    );
    assert!(report.ids >= 2_000_000, "{report:?}");
    assert!(faults >= 4, "{faults} faults");
    // Each fault ends a tenure of the stopped holder, and another process (or the holder
    // itself, resumed) leases the worker again.
    assert!(report.tenures >= WORKERS + faults, "{report:?}");
    assert_eq!(report.duplicates, 0);
    assert!(report.overlaps.is_empty(), "{:#?}", report.overlaps);
}

#[test]
fn without_the_deadline_the_checker_finds_two_holders_of_one_worker() {
    let _turn = Turn::of_caller();
    let Some((report, faults)) = fleet_run("sf_fleet_control", false) else {
        return;
    };
    eprintln!(
        "snowflake fleet, deadline off: {} IDs in {} tenures, {faults} faults, {} duplicates, {} overlaps",
        report.ids,
        report.tenures,
        report.duplicates,
        report.overlaps.len()
    );
    for (a, b) in &report.overlaps {
        eprintln!(
            "  worker {}: {} (ticks {}..={}) and {} (ticks {}..={})",
            a.worker, a.file, a.first, a.last, b.file, b.first, b.last
        );
    }
    assert!(
        !report.overlaps.is_empty(),
        "the negative control found no overlap: {report:?}"
    );
}
