//! uuidkit's database integrations against the real thing, one binary with a
//! module per database: SQLite in memory and in a file, and a throwaway
//! PostgreSQL 15 and MariaDB server each (`test_support::db`), through every
//! driver feature of `uuidkit` (docs/databases.md, "Tests").

mod db_support;
// The RFC 9562 examples, the same list `uuidkit`'s own tests check against
// their derivation.
#[path = "../../uuidkit/tests/rfc_examples/mod.rs"]
mod rfc_examples;

mod db_mysql;
mod db_postgres;
mod db_sqlite;
