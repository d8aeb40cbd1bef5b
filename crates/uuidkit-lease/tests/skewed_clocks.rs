//! Consecutive tenures of one node by holders whose wall clocks disagree, against a real etcd
//! and a real PostgreSQL: the first holder makes UUIDs and gives the node back, the next takes
//! it (the only free node of a 1-bit space) and makes UUIDs. Each holder's generator takes its
//! time from its lease's clock, offset as a host's wrong clock would be (a test-only switch).
//!
//! The checker reads every UUID (each carries its node and its millisecond), as the fleet
//! checker does, and counts (node, millisecond) pairs used by both tenures, and handoffs whose
//! next tenure starts at or below the last one's latest millisecond. With the high-water rule
//! both are zero: the next holder waits until its clock is past the last one's high-water, or
//! refuses a node used too far ahead. Its negative control, the rule switched off, finds both.

use std::collections::BTreeSet;
use std::sync::Arc;

use std::time::{Duration, Instant};

use test_support::db::{EtcdCluster, Postgres};
use test_support::turn::Turn;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V8Distributed};
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
use uuidkit_lease::postgres::{PgConfig, PgLease};
use uuidkit_lease::{LeaseError, LeaseErrorKind, LeaseSlot, Testing};

const TTL: Duration = Duration::from_secs(3);
/// How long the first holder makes UUIDs, and the next one.
const FIRST: Duration = Duration::from_millis(400);
const NEXT: Duration = Duration::from_millis(1200);

/// One row: the first holder's and the next holder's clock offsets, in ms.
const ROWS: [(i64, i64); 4] = [(1_000, 0), (0, -1_000), (20_000, 0), (0, -20_000)];

/// Makes UUIDs with the lease's pair clock for `run`; every UUID made.
fn generate(slot: &Arc<LeaseSlot>, run: Duration) -> Vec<u128> {
    let (clock, source) = slot.pair();
    let mut g = V8Distributed::builder()
        .node_source(source)
        .build(clock, ThreadRng)
        .unwrap();
    let (start, mut made) = (Instant::now(), Vec::new());
    while start.elapsed() < run {
        if let Ok(u) = g.generate() {
            made.push(u.as_u128());
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    made
}

/// What the checker found over the tenures of one handoff.
#[derive(Debug, Default)]
struct Report {
    /// (node, ms) pairs used by both tenures.
    shared: usize,
    /// The next tenure's first millisecond is at or below the first one's last.
    not_above: bool,
}

fn node_of(u: u128) -> u128 {
    (((u >> 64) & 0x0FFF) << 62 | (u & ((1 << 62) - 1))) >> 73
}

fn check(first: &[u128], next: &[u128]) -> Report {
    let pairs = |v: &[u128]| -> BTreeSet<(u128, u128)> {
        v.iter().map(|&u| (node_of(u), u >> 80)).collect()
    };
    let (a, b) = (pairs(first), pairs(next));
    let last = a.iter().map(|p| p.1).max().unwrap_or(0);
    let start = b.iter().map(|p| p.1).min().unwrap_or(u128::MAX);
    Report {
        shared: a.intersection(&b).count(),
        not_above: !b.is_empty() && start <= last,
    }
}

/// A registry the rows run against: a lease held for `run` from a configuration with a clock
/// offset and the high-water rule on or off.
trait Registry: Sync {
    /// Acquires in the row's own space `space`; the lease's slot, and a guard to drop.
    fn acquire(
        &self,
        space: &str,
        offset_ms: i64,
        rule: bool,
    ) -> Result<(Arc<LeaseSlot>, Box<dyn Send>), LeaseError>;
}

struct Etcd(EtcdCluster);
struct Pg(Postgres);

fn testing(offset_ms: i64, rule: bool) -> Testing {
    Testing {
        no_high_water: !rule,
        wall_offset_ms: offset_ms,
        ..Testing::default()
    }
}

impl Registry for Etcd {
    fn acquire(
        &self,
        space: &str,
        off: i64,
        rule: bool,
    ) -> Result<(Arc<LeaseSlot>, Box<dyn Send>), LeaseError> {
        let c = EtcdConfig {
            timing: uuidkit_lease::Timing {
                ttl: TTL,
                margin: Duration::from_millis(200),
                answer_limit: Duration::from_secs(1),
                attempts: 6,
                backoff: Duration::from_millis(5),
                max_backoff: Duration::from_millis(20),
            },
            testing: testing(off, rule),
            ..EtcdConfig::new(self.0.endpoints(), format!("/skew/{space}"), 1)
        };
        let l = EtcdLease::acquire(&c, &mut ThreadRng)?;
        Ok((l.slot().clone(), Box::new(l)))
    }
}

impl Registry for Pg {
    fn acquire(
        &self,
        space: &str,
        off: i64,
        rule: bool,
    ) -> Result<(Arc<LeaseSlot>, Box<dyn Send>), LeaseError> {
        let c = PgConfig {
            timing: uuidkit_lease::Timing {
                ttl: TTL,
                margin: Duration::from_millis(200),
                answer_limit: Duration::from_secs(2),
                attempts: 6,
                backoff: Duration::from_millis(5),
                max_backoff: Duration::from_millis(20),
            },
            table: format!("skew_{space}"),
            testing: testing(off, rule),
            ..PgConfig::new(self.0.url(), 1)
        };
        let l = PgLease::acquire(&c, &mut ThreadRng)?;
        Ok((l.slot().clone(), Box::new(l)))
    }
}

/// One handoff: the first holder (offset `a`) makes UUIDs and gives its node back while
/// another lease holds the other node, then the next holder (offset `b`) takes it: an error
/// for the next holder when its claim was refused.
fn handoff(
    r: &dyn Registry,
    space: &str,
    (a, b): (i64, i64),
    rule: bool,
) -> (Report, Result<usize, LeaseError>) {
    let (first, guard) = r.acquire(space, a, rule).unwrap();
    let (_other, other_guard) = r.acquire(space, 0, rule).unwrap();
    let made = generate(&first, FIRST);
    drop(guard);
    let next = r.acquire(space, b, rule);
    let (report, outcome) = match next {
        Ok((slot, g)) => {
            let later = generate(&slot, NEXT);
            drop(g);
            (check(&made, &later), Ok(later.len()))
        }
        Err(e) => (Report::default(), Err(e)),
    };
    drop(other_guard);
    (report, outcome)
}

/// Every row, in parallel (each in a space of its own).
/// A row's offsets, what the checker found, and how many UUIDs the next holder made (or why
/// it was refused).
type Row = ((i64, i64), Report, Result<usize, LeaseError>);

fn rows(r: &dyn Registry, rule: bool) -> Vec<Row> {
    std::thread::scope(|s| {
        let handles: Vec<_> = ROWS
            .iter()
            .enumerate()
            .map(|(i, &row)| {
                let space = format!("r{i}{}", if rule { "on" } else { "off" });
                s.spawn(move || {
                    let (rep, out) = handoff(r, &space, row, rule);
                    (row, rep, out)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn with_rule(r: &dyn Registry, name: &str) {
    for (row, rep, out) in rows(r, true) {
        eprintln!("{name} {row:?}: {rep:?}, next holder: {out:?}");
        assert_eq!(rep.shared, 0, "{name} {row:?}");
        assert!(!rep.not_above, "{name} {row:?}");
        if row.0 - row.1 > 10_000 {
            // Used 20 s ahead of this clock: refused rather than waited for.
            let e = out.unwrap_err();
            assert_eq!(e.kind(), LeaseErrorKind::Denied, "{e}");
            assert!(e.to_string().contains("ms ahead of this clock"), "{e}");
        } else {
            assert!(
                out.unwrap() > 0,
                "{name} {row:?}: the next holder waits, then makes UUIDs"
            );
        }
    }
}

fn without_rule(r: &dyn Registry, name: &str) {
    for (row, rep, out) in rows(r, false) {
        eprintln!("negative control, {name} {row:?}: {rep:?}, next holder: {out:?}");
        assert!(out.is_ok(), "{name} {row:?}: {out:?}");
        assert!(
            rep.not_above,
            "{name} {row:?}: the checker missed the handoff below"
        );
        if row.0 - row.1 < 10_000 {
            assert!(
                rep.shared > 0,
                "{name} {row:?}: no shared millisecond found"
            );
        }
    }
}

/// Both registries, each started for the test.
fn registries(test: &str) -> Option<(Etcd, Pg)> {
    let cluster = EtcdCluster::for_test(&format!("{test}_etcd"))?;
    let pg = Postgres::for_test(&format!("{test}_pg"))?;
    Some((Etcd(cluster), Pg(pg)))
}

#[test]
fn holders_with_skewed_clocks_never_share_a_millisecond() {
    let _turn = Turn::of_caller();
    let Some((etcd, pg)) = registries("skewed_clocks") else {
        return;
    };
    with_rule(&etcd, "etcd");
    with_rule(&pg, "PostgreSQL");
}

#[test]
fn without_the_high_water_the_checker_finds_shared_milliseconds() {
    let _turn = Turn::of_caller();
    let Some((etcd, pg)) = registries("skewed_clocks_control") else {
        return;
    };
    without_rule(&etcd, "etcd");
    without_rule(&pg, "PostgreSQL");
}
