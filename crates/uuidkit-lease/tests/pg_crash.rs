//! A PostgreSQL server that confirms commits before they are durable (`synchronous_commit =
//! off`, the WAL writer held back), crashed (every process killed -9) just after a holder's
//! claim was confirmed, then restarted. The lease's own session asks for durable commits, so
//! the claim survives: a holder that tries for a node afterwards finds both taken, and no two
//! holders ever use one node. Its negative control, the session left asynchronous (a test-only
//! switch), loses the claim in the crash: the next holder takes the node while the first still
//! uses it, and the checker finds milliseconds both used.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use test_support::db::Postgres;
use test_support::turn::Turn;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V8Distributed};
use uuidkit_lease::postgres::{PgConfig, PgLease};
use uuidkit_lease::{LeaseSlot, Testing};

/// Makes UUIDs with the slot's pair clock until `stop`; the (node, ms) pairs used.
fn generate(
    slot: Arc<LeaseSlot>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<BTreeSet<(u128, u128)>> {
    std::thread::spawn(move || {
        let (clock, source) = slot.pair();
        let mut g = V8Distributed::builder()
            .node_source(source)
            .build(clock, ThreadRng)
            .unwrap();
        let mut used = BTreeSet::new();
        while !stop.load(Ordering::Relaxed) {
            if let Ok(u) = g.generate() {
                let u = u.as_u128();
                used.insert((
                    (((u >> 64) & 0x0FFF) << 62 | (u & ((1 << 62) - 1))) >> 73,
                    u >> 80,
                ));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        used
    })
}

/// Holds the two nodes of a 1-bit table, crashes the server right after the second claim,
/// restarts it and tries for a node for two TTLs: the (node, ms) pairs both the crashed-over
/// holder and the later one used.
fn crash_run(test: &str, durable: bool) -> Option<usize> {
    let mut pg = match Postgres::start_with(&[
        ("synchronous_commit", "off"),
        ("wal_writer_delay", "10000"),
        ("wal_writer_flush_after", "0"),
    ]) {
        Ok(pg) => pg,
        Err(e) => {
            test_support::skip(test, e);
            return None;
        }
    };
    let c = PgConfig {
        timing: uuidkit_lease::Timing {
            ttl: Duration::from_secs(2),
            margin: Duration::from_millis(200),
            answer_limit: Duration::from_secs(1),
            attempts: 3,
            backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
        },
        testing: Testing {
            no_sync_commit: !durable,
            ..Testing::default()
        },
        ..PgConfig::new(pg.url(), 1)
    };
    let first = PgLease::acquire(&c, &mut ThreadRng).unwrap();
    pg.query("CHECKPOINT").unwrap();
    let held = PgLease::acquire(&c, &mut ThreadRng).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let held_uses = generate(held.slot().clone(), stop.clone());
    std::thread::sleep(Duration::from_millis(200));
    pg.crash();
    pg.restart().unwrap();
    let mut later = None;
    let start = Instant::now();
    while later.is_none() && start.elapsed() < Duration::from_secs(4) {
        later = PgLease::acquire(&c, &mut ThreadRng).ok();
        std::thread::sleep(Duration::from_millis(50));
    }
    let later_uses = later
        .as_ref()
        .map(|l| generate(l.slot().clone(), stop.clone()));
    std::thread::sleep(Duration::from_millis(1500));
    stop.store(true, Ordering::Relaxed);
    let a = held_uses.join().unwrap();
    let b = later_uses.map(|h| h.join().unwrap()).unwrap_or_default();
    drop((first, held, later));
    let shared = a.intersection(&b).count();
    eprintln!(
        "{test}: durable {durable}: {} and {} (node, ms) pairs, {shared} shared",
        a.len(),
        b.len()
    );
    Some(shared)
}

#[test]
fn a_claim_confirmed_before_a_crash_survives_it() {
    let _turn = Turn::of_caller();
    if let Some(shared) = crash_run("pg_crash_durable", true) {
        assert_eq!(shared, 0);
    }
}

#[test]
fn with_asynchronous_commit_the_checker_finds_two_holders_after_a_crash() {
    let _turn = Turn::of_caller();
    if let Some(shared) = crash_run("pg_crash_async", false) {
        assert!(
            shared > 0,
            "the negative control found no shared millisecond"
        );
    }
}
