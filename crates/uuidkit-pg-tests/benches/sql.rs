//! The extension against PostgreSQL's own `gen_random_uuid()`, the common
//! PL/pgSQL v7 recipe and `bigserial`, on one throwaway PostgreSQL server in
//! one run:
//!
//! - `generate`: `SELECT count(f()) FROM generate_series(1, 1000000)`, and
//!   `count(1)` for the cost of the query around the function;
//! - `insert`: `INSERT INTO t (n) SELECT … generate_series(1, 1000000)` into
//!   a table whose primary key defaults to the key function (the table is
//!   truncated, untimed, before each insert), then the primary key's size.
//!
//! The server preloads the library (cluster-wide `v7()`); one more row
//! measures `v7()` on a second server without it (per-backend state).
//!
//! `cargo xtask pg-bench` packages the extension and runs this; by hand:
//! `UUIDKIT_PG_PACKAGE=<the package directory> cargo bench -p uuidkit-pg-tests --bench sql`.

use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use uuidkit_pg_tests::postgres::Client;
use uuidkit_pg_tests::{Scope, Server};

const ROWS: u32 = 1_000_000;

/// The common PL/pgSQL v7: the bytes of a v4 from `gen_random_uuid()`, the
/// first six overwritten with the Unix milliseconds of `clock_timestamp()`,
/// the version nibble set to 7.
const PLPGSQL_V7: &str = "
CREATE FUNCTION plpgsql_v7() RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  ms bytea := substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3);
  b bytea := uuid_send(gen_random_uuid());
BEGIN
  b := overlay(b PLACING ms FROM 1 FOR 6);
  b := set_byte(b, 6, (b'0111' || get_byte(b, 6)::bit(4))::bit(8)::int);
  RETURN encode(b, 'hex')::uuid;
END $$;";

fn server(scope: Scope) -> Server {
    Server::start(scope).unwrap_or_else(|e| panic!("cannot start the benchmark's server: {e}"))
}

/// Runs `sql` `iters` times; returns the total time.
fn timed(c: &mut Client, sql: &str, iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let start = Instant::now();
        c.batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        total += start.elapsed();
    }
    total
}

fn generate(cr: &mut Criterion) {
    let cluster = server(Scope::Cluster);
    let backend = server(Scope::Backend);
    let mut c = cluster.client();
    c.batch_execute(PLPGSQL_V7).unwrap();
    // The recipe makes what it claims: version 7, the RFC 9562 variant.
    let sample: String = c
        .query_one("SELECT plpgsql_v7()::text", &[])
        .unwrap()
        .get(0);
    assert!(
        sample.as_bytes()[14] == b'7' && b"89ab".contains(&sample.as_bytes()[19]),
        "{sample}"
    );
    let mut b = backend.client();
    let mut g = cr.benchmark_group("pg_generate_1M");
    // Each iteration is a million rows (up to seconds): the same number of
    // iterations per sample, not criterion's linear ramp of 55.
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    for (id, f) in [
        // What the query costs without a function: the floor under every row.
        ("count(1)", "1"),
        ("uuidkit.v7", "uuidkit.v7()"),
        ("uuidkit.v4", "uuidkit.v4()"),
        ("gen_random_uuid", "gen_random_uuid()"),
        ("plpgsql_v7", "plpgsql_v7()"),
    ] {
        let sql = format!("SELECT count({f}) FROM generate_series(1, {ROWS})");
        g.bench_function(id, |bench| bench.iter_custom(|n| timed(&mut c, &sql, n)));
    }
    let sql = format!("SELECT count(uuidkit.v7()) FROM generate_series(1, {ROWS})");
    g.bench_function("uuidkit.v7 (per-backend)", |bench| {
        bench.iter_custom(|n| timed(&mut b, &sql, n))
    });
    g.finish();
}

fn insert(cr: &mut Criterion) {
    let server = server(Scope::Cluster);
    let mut c = server.client();
    let mut g = cr.benchmark_group("pg_insert_1M");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    let mut sizes = Vec::new();
    for (id, key) in [
        ("uuidkit.v7", "uuid PRIMARY KEY DEFAULT uuidkit.v7()"),
        (
            "gen_random_uuid",
            "uuid PRIMARY KEY DEFAULT gen_random_uuid()",
        ),
        ("bigserial", "bigserial PRIMARY KEY"),
    ] {
        let table = id.replace('.', "_");
        c.batch_execute(&format!("CREATE TABLE {table} (id {key}, n int NOT NULL)"))
            .unwrap();
        let fill = format!("INSERT INTO {table} (n) SELECT g FROM generate_series(1, {ROWS}) g");
        g.bench_function(id, |bench| {
            bench.iter_custom(|n| {
                let mut total = Duration::ZERO;
                for _ in 0..n {
                    c.batch_execute(&format!("TRUNCATE {table}; CHECKPOINT"))
                        .unwrap();
                    total += timed(&mut c, &fill, 1);
                }
                total
            })
        });
        let row = c
            .query_one(
                &format!("SELECT pg_relation_size('{table}_pkey'), pg_relation_size('{table}')"),
                &[],
            )
            .unwrap();
        sizes.push((id, row.get::<_, i64>(0), row.get::<_, i64>(1)));
        c.batch_execute(&format!("DROP TABLE {table}")).unwrap();
    }
    g.finish();
    println!("\nprimary key and table sizes after {ROWS} rows:");
    for (id, index, table) in sizes {
        let mib = |b: i64| b as f64 / (1024.0 * 1024.0);
        println!(
            "  {id:<16} index {:7.1} MiB   table {:7.1} MiB",
            mib(index),
            mib(table)
        );
    }
}

criterion_group!(benches, generate, insert);
criterion_main!(benches);
