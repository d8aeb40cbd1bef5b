//! MariaDB through sqlx and diesel: the `sqlx-mysql` (sqlx 0.9), `sqlx-0_8-mysql` and `diesel`
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

use crate::db_support;

use db_support::{assert_same_order, examples, runtime, text_forms, values};
use test_support::db::MariaDb;
use uuidkit::Uuid;

/// sqlx 0.9: the `sqlx-mysql` (`sqlx-0_9-mysql`) feature.
mod sqlx_0_9 {
    use super::*;
    use ::sqlx;
    include!("db_support/sqlx_mysql.rs");
}

/// sqlx 0.8: the `sqlx-0_8-mysql` feature.
mod sqlx_0_8 {
    use super::*;
    use ::sqlx_0_8 as sqlx;
    include!("db_support/sqlx_mysql.rs");
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
    let err = db_support::error_chain(&err);
    assert!(err.contains("invalid length 2 bytes: expected 16"), "{err}");
}
