//! `sqlx-mysql`: sqlx's [`Type`], [`Encode`] and [`Decode`] for MySQL and
//! MariaDB.
//!
//! A [`Uuid`] is written as 16 bytes, for a `BINARY(16)` column: half the
//! size of `CHAR(36)` in the row and in every index that holds the key, and
//! the server's `ORDER BY` (bytewise on a binary string) agrees with
//! [`Uuid`]'s `Ord`. Reading accepts `BINARY(16)` (or any binary string of 16
//! bytes) and text columns (`CHAR(36)`, `VARCHAR`, …) in any form
//! [`Uuid::parse`] accepts: the column's character set tells the two apart.
//! To write a `CHAR(36)` column, bind the [`Hyphenated`] adapter
//! (`u.hyphenated()`), which sends the 36-character text.

use std::boxed::Box;
use std::error::Error;
use std::vec::Vec;

use super::sqlx::encode::IsNull;
use super::sqlx::mysql::{MySql, MySqlTypeInfo, MySqlValueRef};
use super::sqlx::{Decode, Encode, Type, ValueRef};

use crate::{Hyphenated, Uuid};

type BoxError = Box<dyn Error + Sync + Send>;

/// A [`Uuid`] is a MySQL binary string (`BINARY(16)`), and reads from text
/// columns too.
///
/// ```
/// use sqlx::mysql::MySql;
/// use sqlx::Encode;
/// use uuidkit::Uuid;
///
/// let u = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let mut buf = Vec::new();
/// let _ = <Uuid as Encode<MySql>>::encode_by_ref(&u, &mut buf)?;
/// // A length-prefixed string of 16 bytes: the octets as they are.
/// assert_eq!(buf[0], 16);
/// assert_eq!(&buf[1..], u.as_bytes());
/// # Ok::<(), Box<dyn std::error::Error + Sync + Send>>(())
/// ```
///
/// With a connection, `BINARY(16)` and `CHAR(36)` columns both decode:
///
/// ```no_run
/// # // Needs a server: `crates/uuidkit-db-tests/tests/db_mysql.rs` runs the same against a real one.
/// # async fn example() -> Result<(), sqlx::Error> {
/// use sqlx::Connection;
/// let mut conn = sqlx::MySqlConnection::connect("mysql://root@localhost/test").await?;
/// sqlx::raw_sql("CREATE TEMPORARY TABLE t (bin BINARY(16), txt CHAR(36))").execute(&mut conn).await?;
/// let id = uuidkit::Uuid::now_v7();
/// sqlx::query("INSERT INTO t VALUES (?, ?)")
///     .bind(id)
///     .bind(id.hyphenated())
///     .execute(&mut conn)
///     .await?;
/// let (bin, txt): (uuidkit::Uuid, uuidkit::Uuid) =
///     sqlx::query_as("SELECT bin, txt FROM t").fetch_one(&mut conn).await?;
/// assert_eq!((bin, txt), (id, id));
/// # Ok(())
/// # }
/// ```
impl Type<MySql> for Uuid {
    fn type_info() -> MySqlTypeInfo {
        <&[u8] as Type<MySql>>::type_info()
    }

    fn compatible(ty: &MySqlTypeInfo) -> bool {
        <&[u8] as Type<MySql>>::compatible(ty)
    }
}

impl Encode<'_, MySql> for Uuid {
    fn encode_by_ref(&self, buf: &mut Vec<u8>) -> Result<IsNull, BoxError> {
        <&[u8] as Encode<MySql>>::encode(self.as_bytes(), buf)
    }

    fn size_hint(&self) -> usize {
        17
    }
}

/// A binary string must be 16 bytes (else a
/// [`LengthError`](crate::error::LengthError)); text must be a UUID in a form
/// [`Uuid::parse`] accepts (else a [`ParseError`](crate::ParseError)).
impl Decode<'_, MySql> for Uuid {
    fn decode(value: MySqlValueRef<'_>) -> Result<Uuid, BoxError> {
        if <&str as Type<MySql>>::compatible(&value.type_info()) {
            Ok(Uuid::parse(<&str as Decode<MySql>>::decode(value)?)?)
        } else {
            Ok(Uuid::from_slice(<&[u8] as Decode<MySql>>::decode(value)?)?)
        }
    }
}

/// Binds the hyphenated text form, for a `CHAR(36)` column.
///
/// ```
/// use sqlx::mysql::MySql;
/// use sqlx::Encode;
///
/// let mut buf = Vec::new();
/// let _ = <uuidkit::Hyphenated as Encode<MySql>>::encode_by_ref(&uuidkit::Uuid::NIL.hyphenated(), &mut buf)?;
/// assert_eq!(buf[0], 36);
/// assert_eq!(&buf[1..], b"00000000-0000-0000-0000-000000000000");
/// # Ok::<(), Box<dyn std::error::Error + Sync + Send>>(())
/// ```
impl Type<MySql> for Hyphenated {
    fn type_info() -> MySqlTypeInfo {
        <&str as Type<MySql>>::type_info()
    }

    fn compatible(ty: &MySqlTypeInfo) -> bool {
        <&str as Type<MySql>>::compatible(ty)
    }
}

impl Encode<'_, MySql> for Hyphenated {
    fn encode_by_ref(&self, buf: &mut Vec<u8>) -> Result<IsNull, BoxError> {
        let mut text = [0; Hyphenated::LENGTH];
        <&str as Encode<MySql>>::encode(self.encode_lower(&mut text), buf)
    }

    fn size_hint(&self) -> usize {
        1 + Hyphenated::LENGTH
    }
}
