//! `sqlx-postgres`: sqlx's [`Type`], [`Encode`] and [`Decode`] for
//! PostgreSQL's `uuid`, and [`PgHasArrayType`] for `uuid[]`.
//!
//! Values travel in PostgreSQL's binary format for `uuid`, the 16 octets in
//! network byte order ([`Uuid`]'s own layout). A value sqlx receives in the
//! text format (from `raw_sql`, which uses the simple query protocol) is
//! parsed with [`Uuid::parse`].

use std::boxed::Box;
use std::error::Error;

use super::sqlx::encode::IsNull;
use super::sqlx::postgres::types::Oid;
use super::sqlx::postgres::{
    PgArgumentBuffer, PgHasArrayType, PgTypeInfo, PgValueFormat, PgValueRef, Postgres,
};
use super::sqlx::{Decode, Encode, Type};

use crate::Uuid;

type BoxError = Box<dyn Error + Sync + Send>;

// The OIDs of `uuid` and `uuid[]`: built-in types, fixed in PostgreSQL's
// catalog, so the same on every server (no lookup by name needed).
const UUID_OID: Oid = Oid(2950);
const UUID_ARRAY_OID: Oid = Oid(2951);

/// A [`Uuid`] is a PostgreSQL `uuid`.
///
/// ```
/// use sqlx::postgres::{PgArgumentBuffer, Postgres};
/// use sqlx::{Encode, Type, TypeInfo};
/// use uuidkit::Uuid;
///
/// let u = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let mut buf = PgArgumentBuffer::default();
/// let _ = <Uuid as Encode<Postgres>>::encode_by_ref(&u, &mut buf)?;
/// assert_eq!(&buf[..], u.as_bytes());
/// assert!(<Uuid as Type<Postgres>>::compatible(&<Uuid as Type<Postgres>>::type_info()));
/// # Ok::<(), Box<dyn std::error::Error + Sync + Send>>(())
/// ```
///
/// With a connection it binds and decodes like sqlx's other types:
///
/// ```no_run
/// # // Needs a server: `crates/uuidkit-db-tests/tests/db_postgres.rs` runs the same against a real one.
/// # async fn example() -> Result<(), sqlx::Error> {
/// use sqlx::Connection;
/// let mut conn = sqlx::PgConnection::connect("postgres://postgres@localhost/postgres").await?;
/// let id = uuidkit::Uuid::now_v7();
/// let back: uuidkit::Uuid = sqlx::query_scalar("SELECT $1::uuid").bind(id).fetch_one(&mut conn).await?;
/// assert_eq!(back, id);
/// # Ok(())
/// # }
/// ```
impl Type<Postgres> for Uuid {
    fn type_info() -> PgTypeInfo {
        PgTypeInfo::with_oid(UUID_OID)
    }

    fn compatible(ty: &PgTypeInfo) -> bool {
        ty.oid() == Some(UUID_OID)
    }
}

/// `Vec<Uuid>` and `&[Uuid]` are PostgreSQL `uuid[]`.
///
/// ```
/// use sqlx::postgres::{PgHasArrayType, Postgres};
/// use sqlx::Type;
/// let array = <uuidkit::Uuid as PgHasArrayType>::array_type_info();
/// assert!(<Vec<uuidkit::Uuid> as Type<Postgres>>::compatible(&array));
/// ```
impl PgHasArrayType for Uuid {
    fn array_type_info() -> PgTypeInfo {
        PgTypeInfo::with_oid(UUID_ARRAY_OID)
    }

    fn array_compatible(ty: &PgTypeInfo) -> bool {
        ty.oid() == Some(UUID_ARRAY_OID)
    }
}

impl Encode<'_, Postgres> for Uuid {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxError> {
        buf.extend_from_slice(self.as_bytes());
        Ok(IsNull::No)
    }

    fn size_hint(&self) -> usize {
        16
    }
}

/// Reads the binary format (16 octets; any other length is a
/// [`LengthError`](crate::error::LengthError)) or the text one (any form
/// [`Uuid::parse`] accepts; a [`ParseError`](crate::ParseError) otherwise).
impl Decode<'_, Postgres> for Uuid {
    fn decode(value: PgValueRef<'_>) -> Result<Uuid, BoxError> {
        Ok(match value.format() {
            PgValueFormat::Binary => Uuid::from_slice(value.as_bytes()?)?,
            PgValueFormat::Text => Uuid::parse(value.as_str()?)?,
        })
    }
}
