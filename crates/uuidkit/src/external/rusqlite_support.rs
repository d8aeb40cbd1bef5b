//! `rusqlite`: [`ToSql`] and [`FromSql`] for SQLite through rusqlite.
//!
//! A [`Uuid`] is written as a 16-byte `BLOB` (the octets in network byte
//! order, so SQLite's `ORDER BY`, a `memcmp` of BLOBs, agrees with
//! [`Uuid`]'s `Ord`). Reading accepts that, and also `TEXT` in any form
//! [`Uuid::parse`] accepts, since SQLite columns are dynamically typed and
//! UUIDs are often stored as text. To write text, bind the [`Hyphenated`]
//! adapter (`u.hyphenated()`).

use std::boxed::Box;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::{Hyphenated, Uuid};

/// Binds a [`Uuid`] as a 16-byte `BLOB`, without copying.
///
/// ```
/// use rusqlite::Connection;
/// use uuidkit::Uuid;
///
/// let db = Connection::open_in_memory()?;
/// let id = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let (back, kind): (Uuid, String) =
///     db.query_row("SELECT ?1, typeof(?1)", [id], |row| Ok((row.get(0)?, row.get(1)?)))?;
/// assert_eq!((back, kind.as_str()), (id, "blob"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl ToSql for Uuid {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Blob(self.as_bytes())))
    }
}

/// Reads a 16-byte `BLOB`, or `TEXT` in any form [`Uuid::parse`] accepts.
/// A `BLOB` of another length is rusqlite's `InvalidBlobSize` (expected 16,
/// and the size found); text that is not a UUID is a
/// [`ParseError`](crate::ParseError) saying where; any other storage class
/// is `InvalidType`. None of them panics.
///
/// ```
/// use rusqlite::Connection;
/// use uuidkit::Uuid;
///
/// let db = Connection::open_in_memory()?;
/// let text: Uuid = db.query_row("SELECT '{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}'", [], |r| r.get(0))?;
/// assert_eq!(text.to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
///
/// let err = db.query_row("SELECT x'00'", [], |r| r.get::<_, Uuid>(0)).unwrap_err();
/// assert!(err.to_string().contains("16 byte value out of 1 byte blob"), "{err}");
/// let err = db.query_row("SELECT 'f81d4fae'", [], |r| r.get::<_, Uuid>(0)).unwrap_err();
/// assert!(err.to_string().contains("invalid length 8"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl FromSql for Uuid {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Uuid> {
        match value {
            ValueRef::Blob(bytes) => {
                Uuid::from_slice(bytes).map_err(|e| FromSqlError::InvalidBlobSize {
                    expected_size: 16,
                    blob_size: e.found(),
                })
            }
            ValueRef::Text(text) => Uuid::parse(text).map_err(|e| FromSqlError::Other(Box::new(e))),
            _ => Err(FromSqlError::InvalidType),
        }
    }
}

/// Binds the hyphenated text form, as `TEXT`.
///
/// ```
/// use rusqlite::Connection;
/// let db = Connection::open_in_memory()?;
/// let text: String = db.query_row("SELECT ?1", [uuidkit::Uuid::MAX.hyphenated()], |r| r.get(0))?;
/// assert_eq!(text, "ffffffff-ffff-ffff-ffff-ffffffffffff");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl ToSql for Hyphenated {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        let mut buf = [0; Hyphenated::LENGTH];
        Ok(ToSqlOutput::from(std::string::String::from(
            &*self.encode_lower(&mut buf),
        )))
    }
}
