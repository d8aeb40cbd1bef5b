//! `sqlx-sqlite`: sqlx's [`Type`], [`Encode`] and [`Decode`] for SQLite.
//!
//! A [`Uuid`] is written as a 16-byte `BLOB` (the octets in network byte
//! order, so SQLite's `ORDER BY`, which compares BLOBs with `memcmp`, agrees
//! with [`Uuid`]'s `Ord`). Reading accepts that, and also `TEXT` in any form
//! [`Uuid::parse`] accepts: SQLite columns are dynamically typed, and many
//! databases hold UUIDs written as text by other programs. To write text,
//! bind the [`Hyphenated`] adapter (`u.hyphenated()`).

use std::boxed::Box;
use std::error::Error;
use std::string::ToString;
use std::vec::Vec;

use super::SqliteBuffer;
use super::sqlx::encode::IsNull;
use super::sqlx::sqlite::{Sqlite, SqliteTypeInfo, SqliteValueRef};
use super::sqlx::{Decode, Encode, Type, ValueRef};

use crate::{Hyphenated, Uuid};

type BoxError = Box<dyn Error + Sync + Send>;

/// A [`Uuid`] is a SQLite `BLOB`, and reads from `TEXT` too.
///
/// ```no_run
/// # // Needs an async runtime: `crates/uuidkit-db-tests/tests/db_sqlite.rs` runs the same on one.
/// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
/// use sqlx::Connection;
/// use uuidkit::Uuid;
///
/// let mut db = sqlx::SqliteConnection::connect("sqlite::memory:").await?;
/// let id = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let (back, kind): (Uuid, String) = sqlx::query_as("SELECT ?1, typeof(?1)")
///     .bind(id)
///     .fetch_one(&mut db)
///     .await?;
/// assert_eq!((back, kind.as_str()), (id, "blob"));
///
/// // TEXT, in any form `Uuid::parse` accepts, decodes too.
/// let text: Uuid = sqlx::query_scalar("SELECT 'urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6'")
///     .fetch_one(&mut db)
///     .await?;
/// assert_eq!(text, id);
///
/// // A BLOB of another length is an error that says so.
/// let err = sqlx::query_scalar::<_, Uuid>("SELECT x'0102'").fetch_one(&mut db).await.unwrap_err();
/// assert!(err.to_string().contains("invalid length 2 bytes: expected 16"), "{err}");
/// # Ok(())
/// # }
/// ```
impl Type<Sqlite> for Uuid {
    fn type_info() -> SqliteTypeInfo {
        <&[u8] as Type<Sqlite>>::type_info()
    }

    fn compatible(ty: &SqliteTypeInfo) -> bool {
        <&[u8] as Type<Sqlite>>::compatible(ty) || <&str as Type<Sqlite>>::compatible(ty)
    }
}

impl<'q> Encode<'q, Sqlite> for Uuid {
    fn encode_by_ref(&self, args: &mut SqliteBuffer<'q>) -> Result<IsNull, BoxError> {
        <Vec<u8> as Encode<Sqlite>>::encode(self.as_bytes().to_vec(), args)
    }
}

/// A `BLOB` must be 16 bytes (else a [`LengthError`](crate::error::LengthError));
/// `TEXT` must be a UUID in a form [`Uuid::parse`] accepts (else a
/// [`ParseError`](crate::ParseError)). The value's own storage class
/// decides, not the column's declared type.
impl Decode<'_, Sqlite> for Uuid {
    fn decode(value: SqliteValueRef<'_>) -> Result<Uuid, BoxError> {
        if <&str as Type<Sqlite>>::compatible(&value.type_info()) {
            Ok(Uuid::parse(<&str as Decode<Sqlite>>::decode(value)?)?)
        } else {
            Ok(Uuid::from_slice(<&[u8] as Decode<Sqlite>>::decode(value)?)?)
        }
    }
}

/// Binds the hyphenated text form, as `TEXT`.
///
/// ```no_run
/// # // Needs an async runtime: `crates/uuidkit-db-tests/tests/db_sqlite.rs` runs the same on one.
/// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
/// use sqlx::Connection;
/// let mut db = sqlx::SqliteConnection::connect("sqlite::memory:").await?;
/// let id = uuidkit::Uuid::MAX;
/// let text: String = sqlx::query_scalar("SELECT ?").bind(id.hyphenated()).fetch_one(&mut db).await?;
/// assert_eq!(text, "ffffffff-ffff-ffff-ffff-ffffffffffff");
/// # Ok(())
/// # }
/// ```
impl Type<Sqlite> for Hyphenated {
    fn type_info() -> SqliteTypeInfo {
        <&str as Type<Sqlite>>::type_info()
    }
}

impl<'q> Encode<'q, Sqlite> for Hyphenated {
    fn encode_by_ref(&self, args: &mut SqliteBuffer<'q>) -> Result<IsNull, BoxError> {
        <std::string::String as Encode<Sqlite>>::encode(self.to_string(), args)
    }
}
