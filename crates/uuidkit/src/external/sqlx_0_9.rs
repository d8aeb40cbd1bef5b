//! sqlx 0.9, the current release line: the `sqlx-0_9-*` features and the unversioned `sqlx-*` ones.
//!
//! The impls are in one source per backend, compiled once for each sqlx
//! release line: they use only what 0.8 and 0.9 share, through the name
//! `sqlx` declared here.

use ::sqlx;

/// The argument buffer SQLite's `Encode` writes to (0.8 borrows into it for
/// `'q`; 0.9 owns what it holds).
#[cfg(feature = "sqlx-0_9-sqlite")]
type SqliteBuffer<'q> = sqlx::sqlite::SqliteArgumentsBuffer;

#[cfg(feature = "sqlx-0_9-mysql")]
#[path = "sqlx_mysql.rs"]
mod mysql;
#[cfg(feature = "sqlx-0_9-postgres")]
#[path = "sqlx_postgres.rs"]
mod postgres;
#[cfg(feature = "sqlx-0_9-sqlite")]
#[path = "sqlx_sqlite.rs"]
mod sqlite;
