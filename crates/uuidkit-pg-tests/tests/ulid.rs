//! The `ulid` column type: its text against the library's, malformed text (22P02), its order
//! against `uuid`'s, the casts and bounds, `gen_ulid()`'s order, index scans (btree and hash),
//! `COPY` in text and binary, and a `pg_dump`/`pg_restore` round trip.

use std::io::{Read, Write};
use std::process::Command;

use test_support::db::{DATABASE, Postgres};
use uuidkit::Uuid;
use uuidkit_pg_tests::postgres::Client;
use uuidkit_pg_tests::{Scope, Server, scalar, sql_error};

/// The spec's example: 1469922850259 ms, 2016-07-30 23:54:10.259 UTC.
const SPEC: &str = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

/// Random UUIDs with every byte position taking its extremes somewhere, so that an order that
/// compared anything but the bytes from the first would show.
fn samples(n: usize) -> Vec<Uuid> {
    let mut v = vec![Uuid::NIL, Uuid::MAX];
    for i in 0..16 {
        for byte in [0x00, 0x7f, 0x80, 0xff] {
            let mut b = *Uuid::new_v4().as_bytes();
            b[i] = byte;
            v.push(Uuid::from_bytes(b));
        }
    }
    while v.len() < n {
        v.push(Uuid::from_u128(u128::from_le_bytes(
            *Uuid::new_v4().as_bytes(),
        )));
    }
    v
}

/// The first column of every row `sql` returns.
fn column<T>(c: &mut Client, sql: &str) -> Vec<T>
where
    T: for<'a> postgres::types::FromSql<'a>,
{
    c.query(sql, &[])
        .unwrap_or_else(|e| panic!("{sql}: {e:?}"))
        .iter()
        .map(|r| r.get(0))
        .collect()
}

fn values(ids: &[Uuid]) -> String {
    ids.iter()
        .map(|u| format!("('{u}'::uuid)"))
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn ulid_text_is_the_librarys_in_either_case_and_bad_text_is_22p02() {
    let name = "ulid_text_is_the_librarys_in_either_case_and_bad_text_is_22p02";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    c.batch_execute("CREATE TEMP TABLE s (u uuid)").unwrap();
    let ids = samples(500);
    c.batch_execute(&format!("INSERT INTO s VALUES {}", values(&ids)))
        .unwrap();
    let rows = c
        .query(
            "SELECT u::text, u::uuidkit.ulid::text,
                    lower(u::uuidkit.ulid::text)::uuidkit.ulid::uuid::text
             FROM s",
            &[],
        )
        .unwrap();
    assert_eq!(rows.len(), ids.len());
    for r in rows {
        let u: Uuid = r.get::<_, &str>(0).parse().unwrap();
        assert_eq!(r.get::<_, &str>(1), u.to_ulid().to_string(), "{u}");
        assert_eq!(
            r.get::<_, &str>(2),
            u.to_string(),
            "{u}: lower case read back"
        );
    }
    let spec: String = scalar(
        &mut c,
        &format!("SELECT '{}'::uuidkit.ulid::uuid::text", SPEC.to_lowercase()),
    );
    assert_eq!(spec, Uuid::from_ulid(SPEC).unwrap().to_string());

    for bad in [
        "",
        "01ARZ3NDEKTSV4RRFFQ69G5FA",
        "01ARZ3NDEKTSV4RRFFQ69G5FAVX",
        "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
        "01ARZ3NDEKTSV4RRFFQ69G5FAU",
        "01ARZ3NDEKTSV4RRFFQ69G5FIV",
        "01ARZ3-DEKTSV4RRFFQ69G5FAV",
        "01ARZ3NDEKTSV4RRFFQ69G5FAé",
        "018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f",
    ] {
        let (code, message) = sql_error(&mut c, &format!("SELECT '{bad}'::uuidkit.ulid"));
        let why = Uuid::from_ulid(bad).unwrap_err();
        assert_eq!(code, "22P02", "{bad:?}: {message}");
        assert_eq!(
            message,
            format!("invalid input syntax for type ulid: \"{bad}\": {why}"),
        );
    }
}

#[test]
fn ulid_order_equality_and_hash_are_uuids() {
    let name = "ulid_order_equality_and_hash_are_uuids";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    c.batch_execute("CREATE TEMP TABLE s (n serial, u uuid)")
        .unwrap();
    let ids = samples(3000);
    c.batch_execute(&format!("INSERT INTO s (u) VALUES {}", values(&ids)))
        .unwrap();
    let order = |c: &mut Client, by: &str| -> Vec<i32> {
        column(c, &format!("SELECT n FROM s ORDER BY {by}, n"))
    };
    let by_uuid = order(&mut c, "u");
    assert_eq!(order(&mut c, "u::uuidkit.ulid"), by_uuid);
    assert_eq!(
        order(&mut c, "u::uuidkit.ulid DESC"),
        order(&mut c, "u DESC")
    );
    // Every operator against uuid's on pairs of neighbours and of far values.
    let mismatches: i64 = scalar(
        &mut c,
        "SELECT count(*) FROM s a JOIN s b ON b.n IN (a.n + 1, 3001 - a.n, a.n)
         WHERE (a.u::uuidkit.ulid < b.u::uuidkit.ulid) IS DISTINCT FROM (a.u < b.u)
            OR (a.u::uuidkit.ulid <= b.u::uuidkit.ulid) IS DISTINCT FROM (a.u <= b.u)
            OR (a.u::uuidkit.ulid = b.u::uuidkit.ulid) IS DISTINCT FROM (a.u = b.u)
            OR (a.u::uuidkit.ulid <> b.u::uuidkit.ulid) IS DISTINCT FROM (a.u <> b.u)
            OR (a.u::uuidkit.ulid >= b.u::uuidkit.ulid) IS DISTINCT FROM (a.u >= b.u)
            OR (a.u::uuidkit.ulid > b.u::uuidkit.ulid) IS DISTINCT FROM (a.u > b.u)
            OR uuidkit.ulid_cmp(a.u::uuidkit.ulid, b.u::uuidkit.ulid) <> uuid_cmp(a.u, b.u)
            OR uuidkit.ulid_hash(a.u::uuidkit.ulid) <> uuid_hash(a.u)",
    );
    assert_eq!(mismatches, 0);
    // A hash join and a hash aggregate on ulid find every row once.
    c.batch_execute("SET enable_mergejoin = off; SET enable_nestloop = off; SET enable_sort = off")
        .unwrap();
    let joined: i64 = scalar(
        &mut c,
        "SELECT count(*) FROM s a JOIN s b ON a.u::uuidkit.ulid = b.u::uuidkit.ulid",
    );
    assert_eq!(joined, 3000);
    let distinct: i64 = scalar(
        &mut c,
        "SELECT count(*) FROM (SELECT u::uuidkit.ulid FROM s GROUP BY 1) g",
    );
    assert_eq!(distinct, 3000);
}

#[test]
fn ulid_casts_time_bounds_and_gen_ulid() {
    let name = "ulid_casts_time_bounds_and_gen_ulid";
    let Some(server) = Server::for_test(name, Scope::Cluster) else {
        return;
    };
    let mut c = server.client();
    let casts: Vec<String> = column(
        &mut c,
        "SELECT format('%s %s %s %s', castsource::regtype, casttarget::regtype, castcontext,
                           castmethod)
             FROM pg_cast WHERE 'uuidkit.ulid'::regtype IN (castsource, casttarget) ORDER BY 1",
    );
    assert_eq!(
        casts,
        [
            "uuid uuidkit.ulid a b",
            "uuidkit.ulid timestamp with time zone e f",
            "uuidkit.ulid uuid a b",
        ]
    );
    c.batch_execute("SET timezone = 'UTC'").unwrap();
    let time: String = scalar(
        &mut c,
        &format!("SELECT '{SPEC}'::uuidkit.ulid::timestamptz::text"),
    );
    assert_eq!(time, "2016-07-30 23:54:10.259+00");
    let bounds: String = scalar(
        &mut c,
        "SELECT uuidkit.ulid_lower('2016-07-30 23:54:10.2585+00') || ' '
             || uuidkit.ulid_upper('2016-07-30 23:54:10.2595+00') || ' '
             || uuidkit.ulid_lower('1970-01-01 00:00:00+00') || ' '
             || uuidkit.ulid_upper('10889-08-02 05:31:50.655999+00')",
    );
    assert_eq!(
        bounds,
        format!(
            "01ARZ3NDEK{} 01ARZ3NDEK{} {} {}",
            "0".repeat(16),
            "Z".repeat(16),
            "0".repeat(26),
            Uuid::MAX.to_ulid()
        )
    );
    for t in [
        "1969-12-31 23:59:59.999+00",
        "10889-08-02 05:31:50.656+00",
        "infinity",
    ] {
        let (code, message) = sql_error(&mut c, &format!("SELECT uuidkit.ulid_lower('{t}')"));
        assert_eq!(code, "22008", "{t}: {message}");
        assert!(message.contains("out of range for ulid"), "{message}");
    }
    // A uuid column's value stored into a ulid column, and back, by assignment.
    c.batch_execute(
        "CREATE TEMP TABLE t (id uuidkit.ulid DEFAULT uuidkit.v7(), back uuid);
         INSERT INTO t (back) VALUES ('018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f');
         UPDATE t SET back = id",
    )
    .unwrap();
    let (code, _) = sql_error(&mut c, "SELECT id = back FROM t");
    assert_eq!(code, "42883", "ulid = uuid needs an explicit cast");

    // gen_ulid() takes the next value of the v7 state: one increasing sequence with v7().
    let steps: Vec<String> = column(
        &mut c,
        "SELECT CASE WHEN i % 2 = 0 THEN uuidkit.v7() ELSE uuidkit.gen_ulid()::uuid END::text
             FROM generate_series(1, 2000) i",
    );
    let ids: Vec<Uuid> = steps.iter().map(|s| s.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "not increasing");
    assert!(
        ids.iter()
            .all(|u| u.version().map(|v| v.number()) == Some(7))
    );
    let agree: bool = scalar(
        &mut c,
        "SELECT uuidkit.extract_timestamp(u::uuid) = u::timestamptz
         FROM (SELECT uuidkit.gen_ulid() u) s",
    );
    assert!(agree);
}

/// A table of `rows` ULIDs over 1,000 milliseconds from 2024-06-01, inserted in time order, with
/// a btree primary key and a hash index, vacuumed and analysed.
fn events(c: &mut Client, rows: i32) {
    c.batch_execute(&format!(
        "CREATE TABLE events (id uuidkit.ulid PRIMARY KEY DEFAULT uuidkit.gen_ulid(), n int);
         INSERT INTO events
           SELECT uuidkit.v7('2024-06-01 00:00:00+00'::timestamptz + (i * 1000 / {rows}) * interval '1 ms'), i
           FROM generate_series(1, {rows}) i;
         CREATE INDEX events_hash ON events USING hash (id)"
    ))
    .unwrap();
    // All visible, so that a key-only query can be an index-only scan.
    c.batch_execute("VACUUM ANALYZE events").unwrap();
}

fn plan(c: &mut Client, sql: &str) -> String {
    column::<String>(c, &format!("EXPLAIN (COSTS OFF) {sql}")).join("\n")
}

#[test]
fn ulid_indexes_are_used_and_answer_as_a_sequential_scan() {
    let name = "ulid_indexes_are_used_and_answer_as_a_sequential_scan";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    events(&mut c, 20_000);
    let one: String = scalar(&mut c, "SELECT id::text FROM events WHERE n = 777");
    let range =
        "SELECT id FROM events WHERE id BETWEEN uuidkit.ulid_lower('2024-06-01 00:00:00.100+00')
                 AND uuidkit.ulid_upper('2024-06-01 00:00:00.109+00') ORDER BY id";
    let point = format!("SELECT n FROM events WHERE id = '{one}'");
    // Bitmap scans off: the plans must be plain index scans.
    c.batch_execute("SET enable_bitmapscan = off").unwrap();
    let range_plan = plan(&mut c, range);
    assert!(
        range_plan.contains("Index Only Scan using events_pkey"),
        "{range_plan}"
    );
    let point_plan = plan(&mut c, &point);
    assert!(
        point_plan.contains("Index Scan using events_"),
        "{point_plan}"
    );
    let run = |c: &mut Client, sql: &str| -> Vec<String> {
        column(c, &format!("SELECT x::text FROM ({sql}) q(x)"))
    };
    let by_index = run(&mut c, range);
    let point_by_index = run(&mut c, &point);
    // The hash index alone serves equality.
    c.batch_execute("ALTER TABLE events DROP CONSTRAINT events_pkey")
        .unwrap();
    let hash_plan = plan(&mut c, &point);
    assert!(
        hash_plan.contains("Index Scan using events_hash"),
        "{hash_plan}"
    );
    assert_eq!(run(&mut c, &point), point_by_index);
    c.batch_execute(
        "SET enable_indexscan = off; SET enable_indexonlyscan = off; DROP INDEX events_hash",
    )
    .unwrap();
    assert!(plan(&mut c, range).contains("Seq Scan"));
    let by_scan = run(&mut c, range);
    assert_eq!(by_index, by_scan);
    // 10 milliseconds of the 1,000, 20 rows each.
    assert_eq!(by_index.len(), 200);
    assert_eq!(point_by_index, ["777"]);
}

/// The rows of `events` as text, in key order.
fn dump_rows(c: &mut Client) -> Vec<String> {
    column(c, "SELECT id::text || ' ' || n FROM events ORDER BY id")
}

#[test]
fn ulid_copy_in_text_and_binary_round_trips() {
    let name = "ulid_copy_in_text_and_binary_round_trips";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    events(&mut c, 2_000);
    let want = dump_rows(&mut c);
    for format in ["text", "binary"] {
        let mut data = Vec::new();
        c.copy_out(&format!("COPY events TO STDOUT (FORMAT {format})"))
            .unwrap()
            .read_to_end(&mut data)
            .unwrap();
        if format == "text" {
            let first = String::from_utf8(data.clone()).unwrap();
            let key = first.lines().next().unwrap().split('\t').next().unwrap();
            assert_eq!(key.len(), 26, "{key}");
            Uuid::from_ulid(key).unwrap();
        }
        c.batch_execute(&format!(
            "CREATE TABLE copy_{format} (LIKE events INCLUDING ALL)"
        ))
        .unwrap();
        let mut w = c
            .copy_in(&format!("COPY copy_{format} FROM STDIN (FORMAT {format})"))
            .unwrap();
        w.write_all(&data).unwrap();
        w.finish().unwrap();
        let got: Vec<String> = column(
            &mut c,
            &format!("SELECT id::text || ' ' || n FROM copy_{format} ORDER BY id"),
        );
        assert_eq!(got, want, "COPY {format}");
    }
    // Binary is 16 bytes a key on the wire, as uuid's.
    let wire: Vec<u8> = scalar(&mut c, "SELECT uuidkit.ulid_send(id) FROM events LIMIT 1");
    assert_eq!(wire.len(), 16);
}

#[test]
fn ulid_tables_survive_pg_dump_and_pg_restore() {
    let name = "ulid_tables_survive_pg_dump_and_pg_restore";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let pg = server.postgres();
    let mut c = server.client();
    events(&mut c, 2_000);
    let want = dump_rows(&mut c);
    let bin = Postgres::pg_config("--bindir").unwrap();
    let conn = |db: &str| -> Vec<String> {
        vec![
            "-h".into(),
            pg.socket_dir().display().to_string(),
            "-p".into(),
            pg.port().to_string(),
            "-U".into(),
            pg.user().into(),
            "-d".into(),
            db.into(),
        ]
    };
    let file = std::env::temp_dir().join(format!("uuidkit-ulid-{}.dump", std::process::id()));
    let out = Command::new(bin.join("pg_dump"))
        .args(conn(DATABASE))
        .args(["-Fc", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pg_dump: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    pg.query("CREATE DATABASE restored").unwrap();
    let out = Command::new(bin.join("pg_restore"))
        .args(conn("restored"))
        .args(["--exit-on-error"])
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(
        out.status.success(),
        "pg_restore: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = pg.url();
    let url = format!("{}restored", url.strip_suffix(DATABASE).unwrap());
    let mut r = Client::connect(&url, postgres::NoTls).unwrap();
    r.batch_execute("ANALYZE events").unwrap();
    assert_eq!(dump_rows(&mut r), want);
    // The restored key keeps its index and its default.
    let point = plan(&mut r, &format!("SELECT n FROM events WHERE id = '{SPEC}'"));
    assert!(point.contains("Index"), "{point}");
    r.batch_execute("INSERT INTO events (n) VALUES (-1)")
        .unwrap();
    let newest: i32 = scalar(&mut r, "SELECT n FROM events ORDER BY id DESC LIMIT 1");
    assert_eq!(newest, -1);
}
