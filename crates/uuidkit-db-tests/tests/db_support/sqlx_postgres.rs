// The sqlx tests of `db_postgres.rs`, compiled once for each sqlx release line
// (the including module names the crate `sqlx`).

#[test]
fn sqlx_postgres_round_trips_in_ord_order_binary_and_text() {
    use sqlx::{Connection, Row};
    let Some(pg) = Postgres::for_test(concat!(
        module_path!(),
        "::sqlx_postgres_round_trips_in_ord_order_binary_and_text"
    )) else {
        return;
    };
    runtime().block_on(async {
        let mut db = sqlx::PgConnection::connect(&pg.url()).await.unwrap();
        sqlx::raw_sql("CREATE TABLE t (id uuid NOT NULL)")
            .execute(&mut db)
            .await
            .unwrap();
        let vals = values(12);
        for u in &vals[..100] {
            sqlx::query("INSERT INTO t VALUES ($1)")
                .bind(u)
                .execute(&mut db)
                .await
                .unwrap();
        }
        sqlx::query("INSERT INTO t SELECT unnest($1::uuid[])")
            .bind(&vals[100..])
            .execute(&mut db)
            .await
            .unwrap();

        // Binary format (extended protocol) and text format (`raw_sql`,
        // the simple protocol) both decode.
        let binary: Vec<Uuid> = sqlx::query_scalar("SELECT id FROM t ORDER BY id")
            .fetch_all(&mut db)
            .await
            .unwrap();
        assert_same_order("sqlx binary", &binary, &vals);
        let text: Vec<Uuid> = sqlx::raw_sql("SELECT id FROM t ORDER BY id")
            .fetch_all(&mut db)
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_same_order("sqlx text format", &text, &vals);
        let array: Vec<Uuid> = sqlx::query_scalar("SELECT array_agg(id ORDER BY id) FROM t")
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_same_order("sqlx uuid[]", &array, &vals);
        let printed: Vec<String> = sqlx::query_scalar("SELECT id::text FROM t ORDER BY id")
            .fetch_all(&mut db)
            .await
            .unwrap();
        assert_text_is_display("sqlx id::text", &printed, &vals);

        for (name, u) in examples() {
            let back: Uuid = sqlx::query_scalar("SELECT $1::text::uuid")
                .bind(u.to_string())
                .fetch_one(&mut db)
                .await
                .unwrap();
            assert_eq!(back, u, "sqlx: {name}");
        }

        // `bytea` is refused by type; read unchecked, two bytes are a
        // length error.
        let row = sqlx::query("SELECT '\\x0102'::bytea")
            .fetch_one(&mut db)
            .await
            .unwrap();
        let err = row.try_get::<Uuid, _>(0).unwrap_err().to_string();
        assert!(err.contains("mismatched types"), "{err}");
        let err = row.try_get_unchecked::<Uuid, _>(0).unwrap_err().to_string();
        assert!(err.contains("invalid length 2 bytes: expected 16"), "{err}");
    });
}
