//! The PostgreSQL lease under a role with the rights docs/distributed-generation.md ("The
//! operator's part") lists, against a real server started by each test: a table created ahead
//! by its owner needs only `SELECT`, `INSERT`, `UPDATE` and `DELETE`; without the table and
//! without `CREATE`, the lease says what it could not do.

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use test_support::db::Postgres;
use test_support::turn::Turn;
use uuidkit::node::NodeSource;
use uuidkit_lease::LeaseErrorKind;
use uuidkit_lease::postgres::{PgConfig, PgLease};

const TABLE: &str = "CREATE TABLE uuidkit_node_leases (node bigint PRIMARY KEY, \
                     holder text NOT NULL, expires timestamptz NOT NULL, \
                     hw bigint NOT NULL DEFAULT 0); \
                     CREATE TABLE uuidkit_node_leases_hw (node bigint PRIMARY KEY, \
                     hw bigint NOT NULL)";

/// A login role `gen` with no right on the schema (PostgreSQL 15 gives none on `public`), and
/// its connection string.
fn role(pg: &Postgres) -> String {
    pg.query("CREATE ROLE gen LOGIN; REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        .unwrap();
    let url = pg.url();
    let as_gen = url.replacen(&format!("{}@", pg.user()), "gen@", 1);
    assert_ne!(as_gen, url);
    as_gen
}

#[test]
fn tables_created_ahead_need_only_rights_on_the_tables() {
    let _turn = Turn::of_caller();
    let Some(pg) = Postgres::for_test("pg_rights_table_ahead") else {
        return;
    };
    let url = role(&pg);
    pg.query(TABLE).unwrap();
    pg.query("GRANT SELECT, INSERT, UPDATE, DELETE ON uuidkit_node_leases, uuidkit_node_leases_hw TO gen")
        .unwrap();
    let lease = PgLease::acquire(
        &PgConfig::new(url, 12),
        &mut ChaCha20Rng::from_seed([1; 32]),
    )
    .expect("a lease with the four rights on the two tables");
    let node = lease.source().current().unwrap();
    let holder = pg
        .query(&format!(
            "SELECT holder FROM uuidkit_node_leases WHERE node = {}",
            node.value()
        ))
        .unwrap();
    assert!(holder.contains("uuidkit pid"), "{holder}");
}

#[test]
fn without_the_table_and_without_create_the_lease_says_so() {
    let _turn = Turn::of_caller();
    let Some(pg) = Postgres::for_test("pg_rights_no_create") else {
        return;
    };
    let url = role(&pg);
    let err = PgLease::acquire(
        &PgConfig::new(url, 12),
        &mut ChaCha20Rng::from_seed([1; 32]),
    )
    .unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Registry, "{err}");
    let text = err.to_string();
    assert!(
        text.contains("cannot create uuidkit_node_leases and uuidkit_node_leases_hw")
            && text.contains("permission denied")
            && text.contains("CREATE TABLE IF NOT EXISTS uuidkit_node_leases_hw"),
        "{text}"
    );
}
