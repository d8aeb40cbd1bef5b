//! MariaDB through sqlx and diesel: the `sqlx-mysql` and `diesel`
//! features against a real server, a
//! throwaway one started in a temporary directory for each test
//! (`test_support::db::MariaDb`; skipped visibly outside CI when it cannot
//! start, a failure under `CI=true`).
//!
//! Every RFC 9562 example, Nil, Max and 10 000 random values are written to
//! a `BINARY(16)` column (as `Uuid`) and a `CHAR(36)` one (as `Hyphenated`),
//! and both read back as `Uuid` in the server's `ORDER BY`, which must be
//! `Ord`'s, through both of MySQL's protocols. Text columns in any form
//! `Uuid::parse` accepts decode; a binary string of the wrong length and
//! bad text are errors, not panics.

mod db_support;
mod rfc_examples;

use db_support::{assert_same_order, examples, runtime, text_forms, values};
use sqlx::{Connection, Row};
use test_support::db::MariaDb;
use uuidkit::Uuid;

#[test]
fn sqlx_mysql_round_trips_binary16_and_char36_in_ord_order() {
    let Some(server) = MariaDb::for_test("sqlx_mysql_round_trips_binary16_and_char36_in_ord_order")
    else {
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

        for column in ["bin", "txt"] {
            // Prepared statements use the binary protocol, `raw_sql` the text one.
            let sql = format!("SELECT {column} FROM t ORDER BY {column}");
            let prepared: Vec<Uuid> = sqlx::query_scalar(&sql).fetch_all(&mut db).await.unwrap();
            assert_same_order(
                &format!("mariadb {column}, binary protocol"),
                &prepared,
                &vals,
            );
            let text: Vec<Uuid> = sqlx::raw_sql(&sql)
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
    let Some(server) = MariaDb::for_test("sqlx_mysql_reads_text_forms_and_refuses_wrong_lengths")
    else {
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

diesel::table! {
    my_ids (n) {
        n -> Integer,
        id -> Binary,
    }
}

#[test]
fn diesel_mysql_round_trips_binary16_in_ord_order() {
    use diesel::sql_types::Binary;
    use diesel::{Connection, ExpressionMethods, QueryDsl, RunQueryDsl};
    let Some(server) = MariaDb::for_test("diesel_mysql_round_trips_binary16_in_ord_order") else {
        return;
    };
    // diesel names the socket `unix_socket`, sqlx `socket`.
    let url = server.url().replace("?socket=", "?unix_socket=");
    let mut db = diesel::MysqlConnection::establish(&url).unwrap();
    diesel::sql_query(
        "CREATE TABLE my_ids (n INT AUTO_INCREMENT PRIMARY KEY, id BINARY(16) NOT NULL)",
    )
    .execute(&mut db)
    .unwrap();
    let vals = values(22);
    let rows: Vec<_> = vals.iter().map(|u| my_ids::id.eq(u)).collect();
    for chunk in rows.chunks(1000) {
        diesel::insert_into(my_ids::table)
            .values(chunk)
            .execute(&mut db)
            .unwrap();
    }
    let back: Vec<Uuid> = my_ids::table
        .select(my_ids::id)
        .order(my_ids::id)
        .load(&mut db)
        .unwrap();
    assert_same_order("diesel mariadb", &back, &vals);

    // Two bytes (a binary literal, not a padded BINARY(16) column) reach
    // our decoder, which says what is wrong.
    let err = diesel::select(diesel::dsl::sql::<Binary>("x'0102'"))
        .get_result::<Uuid>(&mut db)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("invalid length 2 bytes: expected 16"),
        "{err}"
    );
}
