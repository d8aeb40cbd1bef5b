//! sqlx 0.8, the previous release line: the `sqlx-0_8-*` features.
//!
//! The impls are in one source per backend, compiled once for each sqlx
//! release line: they use only what 0.8 and 0.9 share, through the name
//! `sqlx` declared here.

use ::sqlx_0_8 as sqlx;

/// The argument buffer SQLite's `Encode` writes to (see `sqlx_0_9`).
#[cfg(feature = "sqlx-0_8-sqlite")]
type SqliteBuffer<'q> = std::vec::Vec<sqlx::sqlite::SqliteArgumentValue<'q>>;

#[cfg(feature = "sqlx-0_8-mysql")]
#[path = "sqlx_mysql.rs"]
#[allow(clippy::duplicate_mod, reason = "the 0.9 impls' source, on 0.8")]
mod mysql;
#[cfg(feature = "sqlx-0_8-postgres")]
#[path = "sqlx_postgres.rs"]
#[allow(clippy::duplicate_mod, reason = "the 0.9 impls' source, on 0.8")]
mod postgres;
#[cfg(feature = "sqlx-0_8-sqlite")]
#[path = "sqlx_sqlite.rs"]
#[allow(clippy::duplicate_mod, reason = "the 0.9 impls' source, on 0.8")]
mod sqlite;
