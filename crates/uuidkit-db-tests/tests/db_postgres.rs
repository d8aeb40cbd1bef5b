//! PostgreSQL 15 through the `postgres` client, sqlx and diesel: the
//! `postgres`, `sqlx-postgres` (sqlx 0.9), `sqlx-0_8-postgres` and `diesel`
//! features against a real server,
//! a throwaway one started in a temporary directory for each test
//! (`test_support::db::Postgres`; skipped visibly outside CI when it cannot
//! start, a failure under `CI=true`).
//!
//! For each driver: every RFC 9562 example, Nil, Max and 10 000 random
//! values are written to a `uuid` column and read back in the server's
//! `ORDER BY`, which must be `Ord`'s; the server's text output of each
//! equals `Display`; text the server parses comes back equal; a value that
//! is not 16 bytes is an error, not a panic.

use crate::db_support;

use db_support::{assert_same_order, examples, runtime, text_forms, values};
use test_support::db::Postgres;
use uuidkit::Uuid;

/// The server's own text for each value, in `Ord` order, next to `Display`.
fn assert_text_is_display(what: &str, server: &[String], values: &[Uuid]) {
    let expected: Vec<String> = db_support::sorted(values)
        .iter()
        .map(Uuid::to_string)
        .collect();
    assert_eq!(server.len(), expected.len(), "{what}: row count");
    if let Some(i) = (0..expected.len()).find(|&i| server[i] != expected[i]) {
        panic!(
            "{what}: row {i} prints as {:?}, Display gives {:?}",
            server[i], expected[i]
        );
    }
}

#[test]
fn postgres_client_round_trips_in_ord_order_and_prints_as_display() {
    let Some(pg) =
        Postgres::for_test("postgres_client_round_trips_in_ord_order_and_prints_as_display")
    else {
        return;
    };
    let mut client = postgres::Client::connect(&pg.url(), postgres::NoTls).unwrap();
    client
        .batch_execute("CREATE TABLE t (id uuid NOT NULL)")
        .unwrap();
    let vals = values(11);
    // One value a statement, then the whole set as a `uuid[]` (the array
    // impl of `postgres-types` over ours).
    let insert = client.prepare("INSERT INTO t VALUES ($1)").unwrap();
    for u in &vals[..100] {
        client.execute(&insert, &[u]).unwrap();
    }
    client
        .execute("INSERT INTO t SELECT unnest($1::uuid[])", &[&&vals[100..]])
        .unwrap();

    let back: Vec<Uuid> = client
        .query("SELECT id FROM t ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_same_order("postgres rows", &back, &vals);
    let array: Vec<Uuid> = client
        .query_one("SELECT array_agg(id ORDER BY id) FROM t", &[])
        .unwrap()
        .get(0);
    assert_same_order("postgres uuid[]", &array, &vals);
    let text: Vec<String> = client
        .query("SELECT id::text FROM t ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_text_is_display("postgres id::text", &text, &vals);

    for (name, u) in examples() {
        // Text in: the server parses, we read binary. Text out: the adapter.
        for form in text_forms(u) {
            if form.starts_with("URN") {
                continue; // not a form PostgreSQL reads
            }
            let back: Uuid = client
                .query_one("SELECT $1::text::uuid", &[&form])
                .unwrap()
                .get(0);
            assert_eq!(back, u, "postgres: {name} as {form:?}");
        }
        let back: Uuid = client
            .query_one("SELECT $1::text::uuid", &[&u.hyphenated()])
            .unwrap()
            .get(0);
        assert_eq!(back, u, "postgres: {name} through Hyphenated");
    }

    // Not a `uuid`: refused by type, before any bytes are read.
    let row = client.query_one("SELECT '\\x0102'::bytea", &[]).unwrap();
    let err = row.try_get::<_, Uuid>(0).unwrap_err().to_string();
    assert!(err.contains("error deserializing column 0"), "{err}");
}

/// sqlx 0.9: the `sqlx-postgres` (`sqlx-0_9-postgres`) feature.
mod sqlx_0_9 {
    use super::*;
    use ::sqlx;
    include!("db_support/sqlx_postgres.rs");
}

/// sqlx 0.8: the `sqlx-0_8-postgres` feature.
mod sqlx_0_8 {
    use super::*;
    use ::sqlx_0_8 as sqlx;
    include!("db_support/sqlx_postgres.rs");
}

diesel::table! {
    pg_ids (n) {
        n -> Integer,
        id -> diesel::sql_types::Uuid,
    }
}

#[test]
fn diesel_postgres_round_trips_in_ord_order() {
    use diesel::sql_types::{Text, Uuid as SqlUuid};
    use diesel::{Connection, ExpressionMethods, IntoSql, QueryDsl, RunQueryDsl};
    let Some(pg) = Postgres::for_test("diesel_postgres_round_trips_in_ord_order") else {
        return;
    };
    let mut db = diesel::PgConnection::establish(&pg.url()).unwrap();
    diesel::sql_query("CREATE TABLE pg_ids (n serial PRIMARY KEY, id uuid NOT NULL)")
        .execute(&mut db)
        .unwrap();
    let vals = values(13);
    let rows: Vec<_> = vals.iter().map(|u| pg_ids::id.eq(u)).collect();
    for chunk in rows.chunks(1000) {
        diesel::insert_into(pg_ids::table)
            .values(chunk)
            .execute(&mut db)
            .unwrap();
    }
    let back: Vec<Uuid> = pg_ids::table
        .select(pg_ids::id)
        .order(pg_ids::id)
        .load(&mut db)
        .unwrap();
    assert_same_order("diesel", &back, &vals);
    let printed: Vec<String> = pg_ids::table
        .select(diesel::dsl::sql::<Text>("id::text"))
        .order(pg_ids::id)
        .load(&mut db)
        .unwrap();
    assert_text_is_display("diesel id::text", &printed, &vals);

    for (name, u) in examples() {
        // Text the server parses, read back in binary.
        let parsed = diesel::dsl::sql::<SqlUuid>("")
            .bind::<Text, _>(u.to_string())
            .sql("::uuid");
        let back: Uuid = diesel::select(parsed).get_result(&mut db).unwrap();
        assert_eq!(back, u, "diesel: {name}");
        let back: Uuid = diesel::select(u.into_sql::<SqlUuid>())
            .get_result(&mut db)
            .unwrap();
        assert_eq!(back, u, "diesel: {name} as a parameter");
    }

    // diesel does not check the column's type: two bytes reach our decoder,
    // which says what is wrong.
    let err = diesel::select(diesel::dsl::sql::<SqlUuid>("'\\x0102'::bytea"))
        .get_result::<Uuid>(&mut db)
        .unwrap_err();
    let err = db_support::error_chain(&err);
    assert!(err.contains("invalid length 2 bytes: expected 16"), "{err}");
}
