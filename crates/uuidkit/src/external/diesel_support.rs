//! `diesel`: [`ToSql`] and [`FromSql`] for PostgreSQL's `Uuid` SQL type, and
//! for `Binary` on every backend whose `[u8]` is `Binary` (SQLite's `BLOB`,
//! MySQL's `BINARY(16)`, PostgreSQL's `bytea`).
//!
//! [`Uuid`] also derives diesel's `AsExpression` (for both SQL types) and
//! `FromSqlRow`, so it is a column type in `table!` and a query parameter.
//! The 16 octets travel as they are, in network byte order, so the servers'
//! `ORDER BY` agrees with [`Uuid`]'s `Ord`.
//!
//! Only diesel's PostgreSQL types are turned on (its `postgres_backend`
//! feature): this feature links no database client library. The
//! application's own diesel features choose the connections.

use diesel::backend::Backend;
use diesel::deserialize::{self, FromSql};
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::{Binary, Uuid as SqlUuid};
use std::io::Write;

use crate::Uuid;

/// A [`Uuid`] as PostgreSQL's `uuid`: the 16 octets.
///
/// ```
/// use diesel::pg::Pg;
/// use diesel::sql_types::Uuid as SqlUuid;
/// use diesel::{debug_query, select, IntoSql};
/// use uuidkit::Uuid;
///
/// let id = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let query = select(id.into_sql::<SqlUuid>());
/// assert_eq!(
///     debug_query::<Pg, _>(&query).to_string(),
///     "SELECT $1 -- binds: [f81d4fae-7dec-11d0-a765-00a0c91e6bf6]"
/// );
/// # Ok::<(), uuidkit::ParseError>(())
/// ```
///
/// With a connection (diesel's `postgres` feature), docs/databases.md shows
/// it as a column type in `table!` (compiled by the crate `uuidkit-db-tests`,
/// whose tests run it against a real server).
impl ToSql<SqlUuid, Pg> for Uuid {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
        out.write_all(self.as_bytes())?;
        Ok(IsNull::No)
    }
}

/// Reads PostgreSQL's `uuid`. A value of another length (a custom type
/// posing as `uuid`) is a [`LengthError`](crate::error::LengthError), never a
/// panic.
impl FromSql<SqlUuid, Pg> for Uuid {
    fn from_sql(value: PgValue<'_>) -> deserialize::Result<Uuid> {
        Ok(Uuid::from_slice(value.as_bytes())?)
    }
}

/// A [`Uuid`] as `Binary`: 16 bytes, on any backend where `[u8]` is.
///
/// ```
/// use diesel::{debug_query, pg::Pg, select, sql_types::Binary, IntoSql};
///
/// // PostgreSQL's `bytea` here; SQLite's and MySQL's `Binary` take the same 16
/// // bytes (`crates/uuidkit-db-tests/tests/db_sqlite.rs` and `db_mysql.rs`).
/// let query = select(uuidkit::Uuid::MAX.into_sql::<Binary>());
/// let sql = debug_query::<Pg, _>(&query).to_string();
/// assert!(sql.ends_with("binds: [ffffffff-ffff-ffff-ffff-ffffffffffff]"), "{sql}");
/// ```
impl<DB> ToSql<Binary, DB> for Uuid
where
    DB: Backend,
    [u8]: ToSql<Binary, DB>,
{
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, DB>) -> serialize::Result {
        <[u8] as ToSql<Binary, DB>>::to_sql(self.as_bytes(), out)
    }
}

/// Reads 16 bytes of `Binary`; another length is a
/// [`LengthError`](crate::error::LengthError), never a panic.
impl<DB> FromSql<Binary, DB> for Uuid
where
    DB: Backend,
    *const [u8]: FromSql<Binary, DB>,
{
    #[allow(unsafe_code)]
    fn from_sql(value: DB::RawValue<'_>) -> deserialize::Result<Uuid> {
        let bytes = <*const [u8] as FromSql<Binary, DB>>::from_sql(value)?;
        // SAFETY: diesel's `*const [u8]` impls return a non-null pointer into
        // the raw value, valid until `value` is dropped at the end of this
        // call (diesel's own `Vec<u8>` impl reads it the same way).
        let bytes = unsafe { &*bytes };
        Ok(Uuid::from_slice(bytes)?)
    }
}
