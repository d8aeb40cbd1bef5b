//! `postgres`: [`ToSql`] and [`FromSql`] of `postgres-types`, the traits the
//! `postgres` and `tokio-postgres` clients bind and read values with, for
//! PostgreSQL's `uuid` type.
//!
//! PostgreSQL's binary format for `uuid` is the 16 octets in network byte
//! order (RFC 9562 §4), which is [`Uuid`]'s own layout: writing copies 16
//! bytes, reading checks the length and copies them back. The server's
//! `ORDER BY` on `uuid` compares those octets as unsigned bytes, the order of
//! [`Uuid`]'s `Ord`.

use std::boxed::Box;
use std::error::Error;

use bytes::BytesMut;
use postgres_types::{FromSql, IsNull, ToSql, Type};

use crate::{Hyphenated, Uuid};

type BoxError = Box<dyn Error + Sync + Send>;

/// Binds a [`Uuid`] as a PostgreSQL `uuid` (the 16 octets).
///
/// ```
/// use bytes::BytesMut;
/// use postgres_types::{IsNull, ToSql, Type};
/// use uuidkit::Uuid;
///
/// let u = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let mut out = BytesMut::new();
/// assert!(matches!(u.to_sql_checked(&Type::UUID, &mut out)?, IsNull::No));
/// assert_eq!(&out[..], u.as_bytes());
/// // Only `uuid` columns: binding to `text` is refused before the query runs.
/// assert!(u.to_sql_checked(&Type::TEXT, &mut BytesMut::new()).is_err());
/// # Ok::<(), Box<dyn std::error::Error + Sync + Send>>(())
/// ```
///
/// With a client (`postgres` or `tokio-postgres`), a `Uuid` is a query
/// parameter and a column type like any other: docs/databases.md shows it
/// (compiled by the crate `uuidkit-db-tests`, whose tests run it against a
/// real server).
impl ToSql for Uuid {
    fn to_sql(&self, _: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        out.extend_from_slice(self.as_bytes());
        Ok(IsNull::No)
    }

    postgres_types::accepts!(UUID);
    postgres_types::to_sql_checked!();
}

/// Reads a PostgreSQL `uuid` into a [`Uuid`]. A value that is not 16 bytes
/// long (a server can only send one through a custom type that claims to be
/// `uuid`) is a [`LengthError`](crate::error::LengthError), never a panic.
///
/// ```
/// use postgres_types::{FromSql, Type};
/// use uuidkit::Uuid;
///
/// let u = Uuid::from_slice(&[0xab; 16])?;
/// assert_eq!(Uuid::from_sql(&Type::UUID, &[0xab; 16])?, u);
/// let err = Uuid::from_sql(&Type::UUID, &[0xab; 15]).unwrap_err();
/// assert_eq!(err.to_string(), "invalid length 15 bytes: expected 16");
/// assert!(!<Uuid as FromSql>::accepts(&Type::BYTEA));
/// # Ok::<(), Box<dyn std::error::Error + Sync + Send>>(())
/// ```
impl<'a> FromSql<'a> for Uuid {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Uuid, BoxError> {
        Ok(Uuid::from_slice(raw)?)
    }

    postgres_types::accepts!(UUID);
}

/// Binds the hyphenated text form, for a `text`, `varchar` or `char(36)`
/// column (a `uuid` column takes [`Uuid`] itself, in binary).
///
/// ```
/// use bytes::BytesMut;
/// use postgres_types::{ToSql, Type};
/// use uuidkit::Uuid;
///
/// let u = Uuid::parse("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6")?;
/// let mut out = BytesMut::new();
/// u.hyphenated().to_sql_checked(&Type::TEXT, &mut out)?;
/// assert_eq!(&out[..], b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
/// # Ok::<(), Box<dyn std::error::Error + Sync + Send>>(())
/// ```
impl ToSql for Hyphenated {
    fn to_sql(&self, _: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        let mut buf = [0; Hyphenated::LENGTH];
        out.extend_from_slice(self.encode_lower(&mut buf).as_bytes());
        Ok(IsNull::No)
    }

    postgres_types::accepts!(TEXT, VARCHAR, BPCHAR, NAME, UNKNOWN);
    postgres_types::to_sql_checked!();
}
