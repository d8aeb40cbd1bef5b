//! SQLite through rusqlite, sqlx and diesel, in memory and in a file: the
//! `rusqlite`, `sqlx-sqlite` and `diesel` features against the real SQLite
//! library (no server to start, so nothing here is ever skipped).
//!
//! For each driver: every RFC 9562 example, Nil, Max and 10 000 random
//! values are written as BLOBs and read back in the server's `ORDER BY`,
//! which must be `Ord`'s; TEXT in every form `Uuid::parse` accepts decodes;
//! a BLOB of the wrong length, bad text and an integer are errors.

mod db_support;
mod rfc_examples;

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

#[test]
fn sqlx_sqlite_round_trips_blobs_in_ord_order_and_reads_text() {
    use sqlx::Connection;
    for (place, path, _guard) in locations() {
        let url = format!("sqlite:{path}?mode=rwc");
        runtime().block_on(async {
            let mut db = sqlx::SqliteConnection::connect(&url).await.unwrap();
            sqlx::raw_sql("CREATE TABLE t (id BLOB NOT NULL); CREATE TABLE s (id TEXT NOT NULL);")
                .execute(&mut db)
                .await
                .unwrap();
            let vals = values(2);
            let mut tx = db.begin().await.unwrap();
            for u in &vals {
                sqlx::query("INSERT INTO t VALUES (?1)")
                    .bind(u)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                sqlx::query("INSERT INTO s VALUES (?1)")
                    .bind(u.hyphenated())
                    .execute(&mut *tx)
                    .await
                    .unwrap();
            }
            tx.commit().await.unwrap();

            for (table, kind) in [("t", "BLOB"), ("s", "TEXT")] {
                let sql = format!("SELECT id FROM {table} ORDER BY id");
                let back: Vec<Uuid> = sqlx::query_scalar(&sql).fetch_all(&mut db).await.unwrap();
                assert_same_order(&format!("sqlx {place} {kind}"), &back, &vals);
            }
            let (kind, len): (String, i64) =
                sqlx::query_as("SELECT DISTINCT typeof(id), length(id) FROM t")
                    .fetch_one(&mut db)
                    .await
                    .unwrap();
            assert_eq!((kind.as_str(), len), ("blob", 16), "sqlx {place}");

            for (name, u) in examples() {
                for text in text_forms(u) {
                    let back: Uuid = sqlx::query_scalar("SELECT ?1")
                        .bind(&text)
                        .fetch_one(&mut db)
                        .await
                        .unwrap();
                    assert_eq!(back, u, "sqlx {place}: {name} as {text:?}");
                }
                let text: String = sqlx::query_scalar("SELECT ?1")
                    .bind(u.hyphenated())
                    .fetch_one(&mut db)
                    .await
                    .unwrap();
                assert_eq!(text, u.to_string(), "sqlx {place}: {name}");
            }
        });
    }
}

#[test]
fn sqlx_sqlite_refuses_wrong_lengths_and_bad_text() {
    use sqlx::Connection;
    runtime().block_on(async {
        let mut db = sqlx::SqliteConnection::connect("sqlite::memory:")
            .await
            .unwrap();
        for (sql, expected) in [
            ("SELECT x'01'", "invalid length 1 bytes: expected 16"),
            (
                "SELECT zeroblob(17)",
                "invalid length 17 bytes: expected 16",
            ),
            ("SELECT 'f81d4fae-7dec-11d0-a765'", "found 4 groups"),
        ] {
            let err = sqlx::query_scalar::<_, Uuid>(sql)
                .fetch_one(&mut db)
                .await
                .unwrap_err();
            assert!(err.to_string().contains(expected), "{sql}: {err}");
        }
        // An INTEGER is not a type `Uuid` reads: refused before decoding.
        let err = sqlx::query_scalar::<_, Uuid>("SELECT 42")
            .fetch_one(&mut db)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("mismatched types"), "{err}");
    });
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
        assert!(
            err.to_string()
                .contains("invalid length 2 bytes: expected 16"),
            "{err}"
        );
    }
}
