//! Acquire time and registry load of etcd and PostgreSQL leases, for one holder and for fleets:
//! each fleet size against a fresh three-member etcd cluster and a fresh PostgreSQL server
//! (test-support's throwaway servers). Holders are acquired one after another in this process,
//! each with its own client (an etcd lease: its runtime and connection; a PostgreSQL lease: its
//! connection and renewal thread), as separate generator processes would hold them. The load is
//! counted by the servers: etcd's gRPC counters of `LeaseKeepAlive` messages and its leader's
//! lease renewals (`/metrics` of every member), PostgreSQL's calls of the renewal statement
//! (`pg_stat_statements`) and committed transactions (`pg_stat_database`), over a window after
//! the fleet has settled.
//!
//! ```text
//! cargo bench -p uuidkit-lease --all-features --bench lease_fleet -- \
//!     [--sizes 1,100,1000] [--window 60] [--only etcd,postgres] [--repeat 30]
//! ```
//!
//! Figures in benchmarks/node-sources-and-leases.md.

mod measure;

use std::time::{Duration, Instant};

use measure::{arg, number, summary, wanted};
use test_support::db::{EtcdCluster, Postgres};
use uuidkit::rng::ThreadRng;
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
use uuidkit_lease::postgres::{PgConfig, PgLease};

/// The node width of every holder: room for far more than the largest fleet.
const BITS: u8 = 16;

fn etcd_config(cluster: &EtcdCluster) -> EtcdConfig {
    EtcdConfig::new(cluster.endpoints(), "/fleet/n16", BITS)
}

fn pg_config(pg: &Postgres) -> PgConfig {
    PgConfig::new(pg.url(), BITS)
}

/// etcd's counts: keep-alive messages received (all members) and renewals (the leader's).
fn etcd_counts(cluster: &EtcdCluster) -> [f64; 2] {
    [
        cluster
            .counter(
                "grpc_server_msg_received_total",
                "grpc_method=\"LeaseKeepAlive\"",
            )
            .expect("etcd's metrics"),
        cluster
            .counter("etcd_debugging_lease_renewed_total", "")
            .expect("etcd's metrics"),
    ]
}

/// PostgreSQL's counts: calls of the renewal statement, and committed transactions.
fn pg_counts(pg: &Postgres) -> [f64; 2] {
    let calls = pg
        .query(
            "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements \
             WHERE query LIKE 'WITH r AS (UPDATE uuidkit_node_leases SET expires%'",
        )
        .expect("pg_stat_statements");
    let commits = pg
        .query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
        .expect("pg_stat_database");
    [
        calls.parse().expect("a count"),
        commits.parse().expect("a count"),
    ]
}

/// Per second and per holder, the difference of two counts over `window`.
fn rates(before: [f64; 2], after: [f64; 2], window: Duration, holders: usize) -> [f64; 2] {
    let per = window.as_secs_f64() * holders as f64;
    [(after[0] - before[0]) / per, (after[1] - before[1]) / per]
}

/// `repeat` acquisitions by one holder, each released before the next.
fn single(name: &str, repeat: u64, mut acquire: impl FnMut() -> Duration) {
    let mut times: Vec<Duration> = (0..repeat).map(|_| acquire()).collect();
    println!(
        "{name}: one holder, acquire then release: {}",
        summary(&mut times)
    );
}

fn etcd_single(repeat: u64) {
    let cluster = EtcdCluster::start().expect("a three-member etcd cluster");
    let config = etcd_config(&cluster);
    single("etcd", repeat, || {
        let start = Instant::now();
        let lease = EtcdLease::acquire(&config, &mut ThreadRng).expect("a node");
        let took = start.elapsed();
        lease.release().expect("a release");
        took
    });
}

fn pg_single(repeat: u64) {
    let pg = Postgres::start().expect("a PostgreSQL server");
    let config = pg_config(&pg);
    single("postgres", repeat, || {
        let start = Instant::now();
        let lease = PgLease::acquire(&config, &mut ThreadRng).expect("a node");
        let took = start.elapsed();
        drop(lease);
        took
    });
}

/// Acquires `size` holders with `acquire`, then counts the load over `window` after a settling
/// wait of one TTL; prints both.
fn fleet<L>(
    name: &str,
    size: usize,
    window: Duration,
    mut acquire: impl FnMut() -> L,
    mut counts: impl FnMut() -> [f64; 2],
    labels: [&str; 2],
) {
    let mut times = Vec::with_capacity(size);
    let started = Instant::now();
    let held: Vec<L> = (0..size)
        .map(|_| {
            let start = Instant::now();
            let lease = acquire();
            times.push(start.elapsed());
            lease
        })
        .collect();
    let all = started.elapsed();
    println!(
        "{name}, {size} holders: acquire {} ; all {size} in {:.1} s",
        summary(&mut times),
        all.as_secs_f64()
    );
    std::thread::sleep(Duration::from_secs(10));
    let before = counts();
    std::thread::sleep(window);
    let after = counts();
    let [a, b] = rates(before, after, window, size);
    println!(
        "{name}, {size} holders, over {} s: per holder per second {a:.3} {} , {b:.3} {}; \
         in all {:.1} and {:.1} per second",
        window.as_secs(),
        labels[0],
        labels[1],
        a * size as f64,
        b * size as f64
    );
    drop(held);
}

fn etcd_fleet(size: usize, window: Duration) {
    let cluster = EtcdCluster::start().expect("a three-member etcd cluster");
    let config = etcd_config(&cluster);
    fleet(
        "etcd",
        size,
        window,
        || EtcdLease::acquire(&config, &mut ThreadRng).expect("a node"),
        || etcd_counts(&cluster),
        ["keep-alive messages", "lease renewals"],
    );
}

fn pg_fleet(size: usize, window: Duration) {
    let connections = (size + 20).to_string();
    let settings = [
        ("max_connections", connections.as_str()),
        ("shared_preload_libraries", "pg_stat_statements"),
    ];
    let pg = Postgres::start_with(&settings).expect("a PostgreSQL server");
    pg.query("CREATE EXTENSION pg_stat_statements")
        .expect("pg_stat_statements");
    let config = pg_config(&pg);
    fleet(
        "postgres",
        size,
        window,
        || PgLease::acquire(&config, &mut ThreadRng).expect("a node"),
        || pg_counts(&pg),
        ["renewal statements", "committed transactions"],
    );
}

fn main() {
    let window = Duration::from_secs(number("window", 60));
    let repeat = number("repeat", 30);
    let sizes: Vec<usize> = arg("sizes")
        .unwrap_or_else(|| "1,100,1000".into())
        .split(',')
        .map(|s| s.parse().expect("--sizes: numbers"))
        .collect();
    for size in sizes {
        if size == 1 {
            if wanted("etcd") {
                etcd_single(repeat);
            }
            if wanted("postgres") {
                pg_single(repeat);
            }
        }
        if wanted("etcd") {
            etcd_fleet(size, window);
        }
        if wanted("postgres") {
            pg_fleet(size, window);
        }
    }
}
