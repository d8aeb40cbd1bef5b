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
//! - `pure`: per function, `SELECT count(f(x)) FROM` a table of 10,000
//!   inputs, for the extension, the pure-SQL edition
//!   (`crates/uuidkit-pg/pure/uuidkit_pure.sql`, in the schema
//!   `uuidkit_sql` of the same server) and the copy-paste v7 recipes: every
//!   function the two editions share, which it checks against the catalog
//!   before measuring (`uuidkit_pg_tests::pure`).
//!
//! The server preloads the library (cluster-wide `v7()`); one more row
//! measures `v7()` on a second server without it (per-backend state).
//!
//! `cargo xtask pg-bench` packages the extension and runs this; by hand:
//! `UUIDKIT_PG_PACKAGE=<the package directory> cargo bench -p uuidkit-pg-tests --bench sql`.

use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use uuidkit_pg_tests::postgres::Client;
use uuidkit_pg_tests::pure::{called, in_schema, shared};
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

/// Three v7 recipes people paste into their databases, each written here from
/// its description (the method, not the text):
///
/// - `recipe_kjmph`: <https://gist.github.com/kjmph/5bd772b2c2df145aa645b837da7eca74>,
///   PL/pgSQL: `gen_random_uuid()`'s bytes, the first six overlaid with the
///   milliseconds of `clock_timestamp()`, bits 52 and 53 set (version 4 → 7);
/// - `recipe_verite`: <https://postgresql.verite.pro/blog/2024/07/15/uuid-v7-pure-sql.html>,
///   the same method as one `LANGUAGE sql` expression;
/// - `recipe_fabiolimace`: <https://gist.github.com/fabiolimace/515a0440e3e40efeb234e12644a6a346>,
///   PL/pgSQL: the epoch as `double precision`, the sub-millisecond fraction
///   scaled to 12 bits in `rand_a`, `random()` bits in `rand_b`, the three
///   fields put together as hex text.
const RECIPES: &str = "
CREATE FUNCTION recipe_kjmph() RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING
    substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
    52, 1), 53, 1), 'hex')::uuid;
END $$;
CREATE FUNCTION recipe_verite() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING
    substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
    52, 1), 53, 1), 'hex')::uuid
$$;
CREATE FUNCTION recipe_fabiolimace() RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  t double precision := extract(epoch FROM clock_timestamp());
  ms bigint := trunc(t * 1000);
  sub bigint := trunc((t * 1000000 - ms * 1000) * 4.096);
  low bigint := (trunc(random() * 2 ^ 30)::bigint << 32) | trunc(random() * 2 ^ 32)::bigint;
BEGIN
  RETURN (lpad(to_hex(ms), 12, '0') || lpad(to_hex(sub | 28672), 4, '0')
    || lpad(to_hex(low | (-9223372036854775808)::bigint), 16, '0'))::uuid;
END $$;";

const PURE_ROWS: u32 = 10_000;

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

/// The calls `pure` measures in both editions, over the columns of its table `inputs`: every
/// function the editions share, which `pure` asserts.
const PURE_CALLS: &[&str] = &[
    "v7()",
    "v7(at)",
    "v7(interval '1 hour')",
    "v4()",
    "v6()",
    "v7_scope()",
    "v7_lower(at)",
    "v7_upper(at)",
    "extract_timestamp(id)",
    "extract_timestamp(id, true)",
    "extract_version(id)",
    "v1_to_v6(v1)",
    "v6_to_v1(v6)",
    "to_base58(id)",
    "from_base58(b58)",
    "to_base32(id)",
    "from_base32(b32)",
    "to_ulid(id)",
    "from_ulid(ulid)",
    "to_base32hex(id)",
    "from_base32hex(b32hex)",
    "to_base64url(id)",
    "from_base64url(b64url)",
    "to_typeid('user', id)",
    "from_typeid(tid)",
    "from_typeid(tid, 'user')",
    "typeid_prefix(tid)",
    "to_bytea(id)",
    "from_bytea(bytes)",
    "v3(id, name)",
    "v5(id, name)",
    "v8_sha256(id, name)",
    "namespace(ns)",
];

fn pure(cr: &mut Criterion) {
    let server = server(Scope::Cluster);
    let mut c = server.client();
    c.batch_execute(&in_schema("uuidkit_sql")).unwrap();
    c.batch_execute(RECIPES).unwrap();
    for recipe in ["recipe_kjmph", "recipe_verite", "recipe_fabiolimace"] {
        let v: i32 = c
            .query_one(
                &format!("SELECT uuidkit.extract_version({recipe}())::int"),
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(v, 7, "{recipe}");
    }
    c.batch_execute(&format!(
        "CREATE EXTENSION pgcrypto;
         CREATE TABLE inputs AS SELECT g, id, uuidkit.to_base58(id) AS b58, uuidkit.to_base32(id) AS b32,
             uuidkit.to_ulid(id) AS ulid, uuidkit.to_base32hex(id) AS b32hex,
             uuidkit.to_base64url(id) AS b64url, uuidkit.to_typeid('user', id) AS tid,
             uuidkit.to_bytea(id) AS bytes, v6, uuidkit.v6_to_v1(v6) AS v1,
             clock_timestamp() AS at, 'name-' || g AS name,
             (ARRAY['dns', 'url', 'oid', 'x500'])[1 + g % 4] AS ns
         FROM (SELECT g, uuidkit.v7() AS id, uuidkit.v6() AS v6 FROM generate_series(1, {PURE_ROWS}) AS g) AS s;
         ANALYZE inputs;"
    ))
    .unwrap();
    // Every shared function has a row: what the calls resolve to in the pure edition, against
    // the catalog's list of the functions both editions have.
    let measured: std::collections::BTreeSet<String> = PURE_CALLS
        .iter()
        .flat_map(|f| called(&mut c, "uuidkit_sql", &format!("uuidkit_sql.{f}"), "inputs"))
        .collect();
    let unmeasured: Vec<String> = shared(&mut c, "uuidkit_sql")
        .into_iter()
        .filter(|f| !measured.contains(&f.procedure))
        .map(|f| f.signature)
        .collect();
    assert!(
        unmeasured.is_empty(),
        "shared functions PURE_CALLS does not measure: {unmeasured:?}"
    );
    let mut g = cr.benchmark_group("pg_pure_10k");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    let mut rows: Vec<(String, String)> = vec![
        ("count(1)".into(), "1".into()),
        ("recipe_kjmph()".into(), "recipe_kjmph()".into()),
        ("recipe_verite()".into(), "recipe_verite()".into()),
        ("recipe_fabiolimace()".into(), "recipe_fabiolimace()".into()),
        ("gen_random_uuid()".into(), "gen_random_uuid()".into()),
    ];
    for f in PURE_CALLS {
        for schema in ["uuidkit", "uuidkit_sql"] {
            rows.push((format!("{schema}.{f}"), format!("{schema}.{f}")));
        }
    }
    for (id, f) in rows {
        let sql = format!("SELECT count({f}) FROM inputs");
        g.bench_function(&id, |bench| bench.iter_custom(|n| timed(&mut c, &sql, n)));
    }
    g.finish();
}

criterion_group!(benches, generate, insert, pure);
criterion_main!(benches);
