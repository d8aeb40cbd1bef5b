// The sqlx tests of `db_sqlite.rs`, compiled once for each sqlx release line
// (the including module names the crate `sqlx`).

#[test]
fn sqlx_sqlite_round_trips_blobs_in_ord_order_and_reads_text() {
    use sqlx::Connection;
    for (place, path, _guard) in locations() {
        let url = if path == ":memory:" {
            // Named for the module, not `sqlite::memory:`: each sqlx copy in
            // this process would name its shared in-memory database
            // `sqlx-in-memory-0`, the same database in the one SQLite.
            concat!("sqlite:file:", module_path!(), "?mode=memory").replace("::", "-")
        } else {
            format!("sqlite:{path}?mode=rwc")
        };
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

            // Literal SQL: sqlx 0.9 takes only `'static` strings as queries.
            for (kind, sql) in [
                ("BLOB", "SELECT id FROM t ORDER BY id"),
                ("TEXT", "SELECT id FROM s ORDER BY id"),
            ] {
                let back: Vec<Uuid> = sqlx::query_scalar(sql).fetch_all(&mut db).await.unwrap();
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
