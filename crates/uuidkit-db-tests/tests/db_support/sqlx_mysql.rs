// The sqlx tests of `db_mysql.rs`, compiled once for each sqlx release line
// (the including module names the crate `sqlx`).

use sqlx::{Connection, Row};

#[test]
fn sqlx_mysql_round_trips_binary16_and_char36_in_ord_order() {
    let Some(server) = MariaDb::for_test(concat!(
        module_path!(),
        "::sqlx_mysql_round_trips_binary16_and_char36_in_ord_order"
    )) else {
        return;
    };
    runtime().block_on(async {
        let mut db = sqlx::MySqlConnection::connect(&server.url()).await.unwrap();
        sqlx::raw_sql("CREATE TABLE t (bin BINARY(16) NOT NULL, txt CHAR(36) NOT NULL)")
            .execute(&mut db)
            .await
            .unwrap();
        let vals = values(21);
        for chunk in vals.chunks(1000) {
            let mut insert = sqlx::QueryBuilder::new("INSERT INTO t (bin, txt) ");
            insert.push_values(chunk, |mut row, u| {
                row.push_bind(u).push_bind(u.hyphenated());
            });
            insert.build().execute(&mut db).await.unwrap();
        }

        // Literal SQL: sqlx 0.9 takes only `'static` strings as queries.
        for (column, sql) in [
            ("bin", "SELECT bin FROM t ORDER BY bin"),
            ("txt", "SELECT txt FROM t ORDER BY txt"),
        ] {
            // Prepared statements use the binary protocol, `raw_sql` the text one.
            let prepared: Vec<Uuid> = sqlx::query_scalar(sql).fetch_all(&mut db).await.unwrap();
            assert_same_order(
                &format!("mariadb {column}, binary protocol"),
                &prepared,
                &vals,
            );
            let text: Vec<Uuid> = sqlx::raw_sql(sql)
                .fetch_all(&mut db)
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect();
            assert_same_order(&format!("mariadb {column}, text protocol"), &text, &vals);
        }
        // What the two encodings stored: the octets, and `Display`'s text.
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT LOWER(HEX(bin)), txt FROM t ORDER BY bin")
                .fetch_all(&mut db)
                .await
                .unwrap();
        for ((hex, txt), u) in rows.iter().zip(db_support::sorted(&vals)) {
            assert_eq!((hex, txt), (&u.simple().to_string(), &u.to_string()));
        }
    });
}

#[test]
fn sqlx_mysql_reads_text_forms_and_refuses_wrong_lengths() {
    let Some(server) = MariaDb::for_test(concat!(
        module_path!(),
        "::sqlx_mysql_reads_text_forms_and_refuses_wrong_lengths"
    )) else {
        return;
    };
    runtime().block_on(async {
        let mut db = sqlx::MySqlConnection::connect(&server.url()).await.unwrap();
        sqlx::raw_sql("CREATE TABLE s (id VARCHAR(45) NOT NULL)")
            .execute(&mut db)
            .await
            .unwrap();
        for (name, u) in examples() {
            for form in text_forms(u) {
                sqlx::query("DELETE FROM s").execute(&mut db).await.unwrap();
                sqlx::query("INSERT INTO s VALUES (?)")
                    .bind(&form)
                    .execute(&mut db)
                    .await
                    .unwrap();
                let back: Uuid = sqlx::query_scalar("SELECT id FROM s")
                    .fetch_one(&mut db)
                    .await
                    .unwrap();
                assert_eq!(back, u, "mariadb: {name} as {form:?}");
            }
        }

        for (sql, expected) in [
            ("SELECT x'0102'", "invalid length 2 bytes: expected 16"),
            (
                "SELECT CAST(REPEAT('a', 17) AS BINARY)",
                "invalid length 17 bytes: expected 16",
            ),
            (
                "SELECT 'f81d4fae-7dec-11d0-a765-00a0c91e6bf'",
                "group 5 has 11 digits: expected 12",
            ),
        ] {
            let err = sqlx::query_scalar::<_, Uuid>(sql)
                .fetch_one(&mut db)
                .await
                .unwrap_err();
            assert!(err.to_string().contains(expected), "{sql}: {err}");
        }
        // A number is not a type `Uuid` reads: refused before decoding.
        let err = sqlx::query_scalar::<_, Uuid>("SELECT 42")
            .fetch_one(&mut db)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("mismatched types"), "{err}");
    });
}
