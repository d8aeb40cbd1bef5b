//! `PgLease` against a real PostgreSQL started by each test (test-support's `Postgres`), with
//! TTLs of 1–2 s so that expiries take seconds.

use std::time::{Duration, Instant};

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use test_support::db::Postgres;
use test_support::turn::Turn;
use uuidkit::node::{NodeLostKind, NodeSource};
use uuidkit_lease::postgres::{PgConfig, PgLease};
use uuidkit_lease::{BootClock, LeaseErrorKind};

fn config(pg: &Postgres, bits: u8) -> PgConfig {
    PgConfig {
        timing: uuidkit_lease::Timing {
            ttl: Duration::from_secs(2),
            margin: Duration::from_millis(200),
            answer_limit: Duration::from_secs(2),
            backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
            ..uuidkit_lease::Timing::default()
        },
        ..PgConfig::new(pg.url(), bits)
    }
}

fn rng(seed: u8) -> ChaCha20Rng {
    ChaCha20Rng::from_seed([seed; 32])
}

/// The rows of the lease table: node, holder, and whether the server sees them unexpired.
fn rows(pg: &Postgres) -> String {
    pg.query("SELECT node, holder, expires > now() FROM uuidkit_node_leases ORDER BY node")
        .unwrap()
}

#[test]
fn a_node_is_a_row_renewed_by_the_server_clock_and_given_back_on_drop() {
    let _turn = Turn::of_caller();
    let Some(pg) = Postgres::for_test("pg_lease_row") else {
        return;
    };
    let c = config(&pg, 12);
    let lease = PgLease::acquire(&c, &mut rng(1)).unwrap();
    let node = lease.source().current().unwrap();
    assert_eq!((node.bits(), node.epoch()), (12, 1));
    let row = rows(&pg);
    assert!(row.starts_with(&format!("{}|", node.value())), "{row}");
    assert!(row.contains(&c.holder) && row.ends_with("|t"), "{row}");
    // Renewed past several TTLs without a lapse.
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(lease.source().current(), Ok(node));
    assert!(rows(&pg).ends_with("|t"));
    let source = lease.source();
    drop(lease);
    assert_eq!(source.current().unwrap_err().kind(), NodeLostKind::Released);
    // Given back: expired, its high-water the millisecond the holder stopped at.
    assert!(rows(&pg).ends_with("|f"), "{}", rows(&pg));
    let hw: u128 = pg
        .query("SELECT hw FROM uuidkit_node_leases")
        .unwrap()
        .parse()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    assert!(hw <= now + 2 && hw + 5_000 > now, "{hw} vs {now}");
}

#[test]
fn leases_hold_distinct_nodes_until_the_table_is_full_then_say_so() {
    let _turn = Turn::of_caller();
    let Some(pg) = Postgres::for_test("pg_lease_full") else {
        return;
    };
    let c = config(&pg, 2);
    let leases: Vec<PgLease> = (0..4)
        .map(|i| PgLease::acquire(&c, &mut rng(i)).unwrap())
        .collect();
    let mut nodes: Vec<u64> = leases.iter().map(|l| l.node().value()).collect();
    nodes.sort_unstable();
    assert_eq!(nodes, vec![0, 1, 2, 3]);
    let err = PgLease::acquire(&c, &mut rng(9)).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Denied, "{err}");
    assert!(
        err.to_string()
            .contains("in PostgreSQL table uuidkit_node_leases: 4 of 4 nodes are taken"),
        "{err}"
    );
}

#[test]
fn an_expired_row_is_taken_over_and_its_old_holder_stops_at_its_next_renewal() {
    let _turn = Turn::of_caller();
    let Some(pg) = Postgres::for_test("pg_lease_takeover") else {
        return;
    };
    let c = config(&pg, 1);
    let first = PgLease::acquire(&c, &mut rng(1)).unwrap();
    let other = PgLease::acquire(&c, &mut rng(2)).unwrap();
    // Someone else's row for the other node: expire both behind the holders' backs, as a
    // stalled renewal would leave them, and claim again.
    pg.query("UPDATE uuidkit_node_leases SET expires = now() - interval '1 second'")
        .unwrap();
    let start = Instant::now();
    let third = PgLease::acquire(&c, &mut rng(3)).unwrap();
    // The holder whose row was taken finds out at its next renewal, within a third of the TTL.
    let taken = [&first, &other]
        .into_iter()
        .find(|l| l.node().value() == third.node().value())
        .unwrap();
    loop {
        match taken.source().current() {
            Err(lost) => {
                assert_eq!(lost.kind(), NodeLostKind::RenewalFailed, "{lost}");
                assert!(lost.detail().contains("expired or was taken"), "{lost}");
                break;
            }
            Ok(_) => assert!(
                start.elapsed() < c.timing.ttl,
                "still held after {:?}",
                start.elapsed()
            ),
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_live_holders_row_deleted_by_hand_goes_to_another_only_after_the_holder_stopped() {
    let _turn = Turn::of_caller();
    let Some(pg) = Postgres::for_test("pg_lease_deleted") else {
        return;
    };
    let c = config(&pg, 1);
    let first = PgLease::acquire(&c, &mut rng(1)).unwrap();
    let other = PgLease::acquire(&c, &mut rng(2)).unwrap();
    let node = first.node().value();
    pg.query(&format!(
        "DELETE FROM uuidkit_node_leases WHERE node = {node}"
    ))
    .unwrap();
    let start = Instant::now();
    let third = PgLease::acquire(&c, &mut rng(3)).unwrap();
    assert_eq!(third.node().value(), node);
    assert_ne!(other.node().value(), node);
    // The node's mark outlived its row: the new holder waited for the deleted holder's deadline,
    // so by the grant the old holder makes no more UUIDs.
    let lost = first.source().current();
    assert!(
        lost.is_err(),
        "node {node} granted again {:?} after its row was deleted, while its holder still \
         held it",
        start.elapsed()
    );
    let marks = pg
        .query(&format!(
            "SELECT count(*) FROM uuidkit_node_leases_hw WHERE node = {node}"
        ))
        .unwrap();
    assert_eq!(marks, "1");
}

#[test]
fn a_stopped_server_stops_the_holder_at_its_deadline_and_a_restart_does_not_revive_it() {
    let _turn = Turn::of_caller();
    let Some(mut pg) = Postgres::for_test("pg_lease_restart") else {
        return;
    };
    let c = config(&pg, 1);
    let held = PgLease::acquire(&c, &mut rng(1)).unwrap();
    let node = held.node();
    let deadline = held.slot().deadline().unwrap();
    pg.stop();
    let stopped = Instant::now();
    let lost = loop {
        match held.source().current() {
            Err(lost) => break lost,
            Ok(n) => assert_eq!(n, node),
        }
        assert!(
            stopped.elapsed() < c.timing.ttl * 2,
            "still held with the server stopped"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    // No renewal could be confirmed: the slot gave the node up at its deadline, not later.
    assert_eq!(lost.kind(), NodeLostKind::RenewalFailed, "{lost}");
    assert!(lost.detail().contains("deadline"), "{lost}");
    // (The slot compares whole milliseconds.)
    assert!(uuidkit_lease::BootTime.now().as_millis() >= deadline.as_millis());
    eprintln!(
        "PostgreSQL stopped: the holder stopped {:?} later",
        stopped.elapsed()
    );
    // Down for longer than the TTL, so the row has expired by the server's clock when it is
    // back: the old holder's renewals find it expired and it stays lost; others may claim.
    std::thread::sleep(c.timing.ttl);
    pg.restart().unwrap();
    let other = PgLease::acquire(&c, &mut rng(2)).unwrap();
    let again = PgLease::acquire(&c, &mut rng(3)).unwrap();
    assert_ne!(other.node().value(), again.node().value());
    let start = Instant::now();
    while start.elapsed() < c.timing.ttl {
        assert!(held.source().current().is_err(), "the old holder came back");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn bad_settings_are_refused_with_what_was_wrong() {
    let _turn = Turn::of_caller();
    let cases = [
        (
            PgConfig {
                table: "leases; DROP TABLE x".into(),
                ..PgConfig::new("host=/nonexistent", 8)
            },
            LeaseErrorKind::Config,
            "expected an identifier",
        ),
        (
            PgConfig::new("host=/nonexistent", 0),
            LeaseErrorKind::Config,
            "expected 1 to 48",
        ),
        (
            PgConfig::new("port=notanumber", 8),
            LeaseErrorKind::Config,
            "connection string",
        ),
        (
            PgConfig::new("host=/nonexistent-uuidkit dbname=x", 8),
            LeaseErrorKind::Unreachable,
            "cannot reach PostgreSQL",
        ),
    ];
    for (c, kind, says) in cases {
        let err = PgLease::acquire(&c, &mut rng(1)).unwrap_err();
        assert_eq!(err.kind(), kind, "{err}");
        assert!(err.to_string().contains(says), "{err}");
    }
}

/// A server held to TLS that checks its clients' certificates: a lease with the CA and the
/// client's certificate holds its node past several TTLs over an encrypted connection; plain
/// TCP, TLS without the client's certificate, and a CA that did not sign the server's
/// certificate are each refused with their reason.
#[cfg(feature = "postgres-tls")]
#[test]
fn over_tls_the_server_and_the_client_are_both_checked() {
    let _turn = Turn::of_caller();
    use uuidkit_lease::Tls;
    let test = "pg_lease_tls";
    let pg = match Postgres::start_tls() {
        Ok(pg) => pg,
        Err(reason) => return test_support::skip(test, reason),
    };
    let files = pg.tls_files().unwrap();
    let tcp = pg.tcp_url().unwrap();
    let with = |tls: Option<Tls>| {
        let mut c = config(&pg, 12);
        c.connect.clone_from(&tcp);
        c.tls = tls;
        c
    };
    let identity = Some((files.client_cert.as_path(), files.client_key.as_path()));
    let lease = PgLease::acquire(
        &with(Some(Tls::from_files(&files.ca, identity).unwrap())),
        &mut rng(1),
    )
    .unwrap();
    let node = lease.source().current().unwrap();
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(lease.source().current(), Ok(node), "renewed over TLS");
    let encrypted = pg
        .query("SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE ssl AND client_addr IS NOT NULL")
        .unwrap();
    assert_eq!(encrypted, "1", "the lease's one connection is encrypted");
    drop(lease);

    let refused = |tls: Option<Tls>, why: &str| {
        let err = PgLease::acquire(&with(tls), &mut rng(2)).unwrap_err();
        assert_eq!(err.kind(), LeaseErrorKind::Unreachable, "{err}");
        assert!(err.to_string().contains(why), "expected {why:?} in: {err}");
        eprintln!("refused: {err}");
    };
    refused(None, "no pg_hba.conf entry");
    // Without `PgConfig::tls` the client has no TLS: a string that demands it cannot connect.
    let mut demands = with(None);
    demands.connect.push_str("?sslmode=require");
    let err = PgLease::acquire(&demands, &mut rng(2)).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Unreachable, "{err}");
    assert!(
        err.to_string().contains("no TLS implementation configured"),
        "{err}"
    );
    refused(
        Some(Tls::from_files(&files.ca, None).unwrap()),
        "connection requires a valid client certificate",
    );
    // The client's certificate is no CA of the server's certificate.
    refused(
        Some(Tls::from_files(&files.client_cert, identity).unwrap()),
        "invalid peer certificate",
    );
    let err =
        PgLease::acquire(&with(Some(Tls::new(b"not PEM".to_vec()))), &mut rng(3)).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Config, "{err}");
    assert!(
        err.to_string()
            .contains("PostgreSQL TLS: the CA certificate: no PEM certificate found"),
        "{err}"
    );
}

/// Eight generators started together against a missing table all start: the table's creation
/// is serialised, and each finds it made.
#[test]
fn generators_started_together_against_a_missing_table_all_start() {
    let _turn = Turn::of_caller();
    let Some(pg) = Postgres::for_test("pg_lease_create_race") else {
        return;
    };
    let c = PgConfig {
        table: "raced".into(),
        ..config(&pg, 8)
    };
    let go = std::sync::Arc::new(std::sync::Barrier::new(8));
    let starts: Vec<_> = (0..8u8)
        .map(|i| {
            let (c, go) = (c.clone(), go.clone());
            std::thread::spawn(move || {
                go.wait();
                PgLease::acquire(&c, &mut rng(i)).map(|l| l.node().value())
            })
        })
        .collect();
    let mut nodes = Vec::new();
    for s in starts {
        match s.join().unwrap() {
            Ok(n) => nodes.push(n),
            Err(e) => panic!("a generator failed to start: {e}"),
        }
    }
    nodes.sort_unstable();
    nodes.dedup();
    assert_eq!(nodes.len(), 8, "{nodes:?}");
}

/// Through `Registry` and `Box<dyn Lease>`, the PostgreSQL lease is the same lease: its node in
/// its slot, its name, nothing to warn of, and a release that expires its row.
#[test]
fn the_registry_trait_acquires_and_releases_the_same_lease() {
    let _turn = Turn::of_caller();
    use uuidkit_lease::{Lease, Registry};
    let Some(pg) = Postgres::for_test("pg_registry_trait") else {
        return;
    };
    let c = config(&pg, 8);
    let registry: &dyn Registry = &c;
    let lease: Box<dyn Lease> = registry
        .acquire(&mut rng(3), &mut |what| {
            panic!("PostgreSQL made the claim wait: {what}")
        })
        .unwrap();
    assert_eq!(lease.name(), "PostgreSQL node");
    assert_eq!(lease.slot().current(), Ok(lease.node()));
    assert_eq!((lease.warnings(), lease.loss()), (vec![], None));
    assert!(rows(&pg).starts_with(&format!("{}|", lease.node().value())));
    assert!(rows(&pg).ends_with("|t"), "{}", rows(&pg));
    let slot = lease.slot().clone();
    lease.release().unwrap();
    assert_eq!(slot.current().unwrap_err().kind(), NodeLostKind::Released);
    assert!(rows(&pg).ends_with("|f"), "{}", rows(&pg));
}
