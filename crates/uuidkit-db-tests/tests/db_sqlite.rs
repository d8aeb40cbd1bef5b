//! SQLite through rusqlite, sqlx and diesel, in memory and in a file: the
//! `rusqlite`, `sqlx-sqlite` (sqlx 0.9), `sqlx-0_8-sqlite` and `diesel`
//! features against the real SQLite
//! library (no server to start, so nothing here is ever skipped).
//!
//! For each driver: every RFC 9562 example, Nil, Max and 10 000 random
//! values are written as BLOBs and read back in the server's `ORDER BY`,
//! which must be `Ord`'s; TEXT in every form `Uuid::parse` accepts decodes;
//! a BLOB of the wrong length, bad text and an integer are errors.

use crate::db_support;

use db_support::{assert_same_order, examples, runtime, text_forms, values};
use uuidkit::Uuid;

/// Where each driver's database lives: memory, or a file in a fresh
/// temporary directory (kept alive by the returned guard).
fn locations() -> Vec<(&'static str, String, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("uuids.db").to_str().unwrap().to_owned();
    vec![
        ("memory", ":memory:".to_owned(), None),
        ("file", file, Some(dir)),
    ]
}

// ---- rusqlite ----------------------------------------------------------------

#[test]
fn rusqlite_round_trips_blobs_in_ord_order_and_reads_text() {
    for (place, path, _guard) in locations() {
        let mut db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch("CREATE TABLE t (id BLOB NOT NULL); CREATE TABLE s (id TEXT NOT NULL);")
            .unwrap();
        let vals = values(1);
        let tx = db.transaction().unwrap();
        for u in &vals {
            tx.execute("INSERT INTO t VALUES (?1)", [u]).unwrap();
            tx.execute("INSERT INTO s VALUES (?1)", [u.hyphenated()])
                .unwrap();
        }
        tx.commit().unwrap();

        let read = |sql: &str| -> Vec<Uuid> {
            let mut st = db.prepare(sql).unwrap();
            st.query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        assert_same_order(
            &format!("rusqlite {place} BLOB"),
            &read("SELECT id FROM t ORDER BY id"),
            &vals,
        );
        assert_same_order(
            &format!("rusqlite {place} TEXT"),
            &read("SELECT id FROM s ORDER BY id"),
            &vals,
        );
        let (kind, len): (String, i64) = db
            .query_row("SELECT DISTINCT typeof(id), length(id) FROM t", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((kind.as_str(), len), ("blob", 16), "rusqlite {place}");

        for (name, u) in examples() {
            for text in text_forms(u) {
                let back: Uuid = db.query_row("SELECT ?1", [&text], |r| r.get(0)).unwrap();
                assert_eq!(back, u, "rusqlite {place}: {name} as {text:?}");
            }
            // The text form the adapter writes is `Display`'s.
            let text: String = db
                .query_row("SELECT ?1", [u.hyphenated()], |r| r.get(0))
                .unwrap();
            assert_eq!(text, u.to_string(), "rusqlite {place}: {name}");
        }
    }
}

#[test]
fn rusqlite_refuses_wrong_lengths_bad_text_and_other_types() {
    let db = rusqlite::Connection::open_in_memory().unwrap();
    let get = |sql: &str| {
        db.query_row(sql, [], |r| r.get::<_, Uuid>(0))
            .unwrap_err()
            .to_string()
    };
    for (sql, len) in [
        ("SELECT x''", 0),
        ("SELECT x'01'", 1),
        ("SELECT zeroblob(15)", 15),
        ("SELECT zeroblob(17)", 17),
    ] {
        let err = get(sql);
        assert!(
            err.contains(&format!("16 byte value out of {len} byte blob")),
            "{sql}: {err}"
        );
    }
    let err = get("SELECT 'f81d4fae-7dec-11d0-a765-00a0c91e6bg6'");
    assert!(
        err.contains("invalid character 'g' at position 34"),
        "{err}"
    );
    let err = get("SELECT 42");
    assert!(err.contains("Invalid column type Integer"), "{err}");
}

// ---- sqlx --------------------------------------------------------------------

/// sqlx 0.9: the `sqlx-sqlite` (`sqlx-0_9-sqlite`) feature.
mod sqlx_0_9 {
    use super::*;
    use ::sqlx;
    include!("db_support/sqlx_sqlite.rs");
}

/// sqlx 0.8: the `sqlx-0_8-sqlite` feature.
mod sqlx_0_8 {
    use super::*;
    use ::sqlx_0_8 as sqlx;
    include!("db_support/sqlx_sqlite.rs");
}

// ---- diesel ------------------------------------------------------------------

diesel::table! {
    ids (n) {
        n -> Integer,
        id -> Binary,
    }
}

#[test]
fn diesel_sqlite_round_trips_binary_in_ord_order() {
    use diesel::{Connection, ExpressionMethods, QueryDsl, RunQueryDsl};
    for (place, path, _guard) in locations() {
        let mut db = diesel::SqliteConnection::establish(&path).unwrap();
        diesel::sql_query("CREATE TABLE ids (n INTEGER PRIMARY KEY, id BLOB NOT NULL)")
            .execute(&mut db)
            .unwrap();
        let vals = values(3);
        db.transaction::<_, diesel::result::Error, _>(|db| {
            for u in &vals {
                diesel::insert_into(ids::table)
                    .values(ids::id.eq(u))
                    .execute(db)?;
            }
            Ok(())
        })
        .unwrap();
        let back: Vec<Uuid> = ids::table
            .select(ids::id)
            .order(ids::id)
            .load(&mut db)
            .unwrap();
        assert_same_order(&format!("diesel {place}"), &back, &vals);
        let raw: Vec<Vec<u8>> = ids::table
            .select(ids::id)
            .order(ids::n)
            .load(&mut db)
            .unwrap();
        assert!(
            raw.iter().zip(&vals).all(|(r, u)| r == u.as_bytes()),
            "diesel {place}: stored octets"
        );

        // A BLOB of another length is an error, not a panic.
        diesel::sql_query("INSERT INTO ids (id) VALUES (x'0102')")
            .execute(&mut db)
            .unwrap();
        let err = ids::table
            .select(ids::id)
            .filter(ids::n.eq(vals.len() as i32 + 1))
            .first::<Uuid>(&mut db)
            .unwrap_err();
        let err = db_support::error_chain(&err);
        assert!(err.contains("invalid length 2 bytes: expected 16"), "{err}");
    }
}
