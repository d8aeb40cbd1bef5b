//! `sea-orm`: a [`Uuid`] (and its text forms [`Hyphenated`], [`Simple`],
//! [`Braced`], [`Urn`]) is an entity field, a primary key and a query value
//! with every trait sea-orm's `with-uuid` gives `uuid::Uuid` and `uuid::fmt`:
//! `From<_> for Value`, `Nullable`, `ValueType` (`ColumnType::Uuid`, arrays of
//! `ArrayType::Uuid`), `NotU8` (so `Vec<_>` is a PostgreSQL `uuid[]` value),
//! `TryGetable` (and `TryGetableArray`, so `Vec<_>` reads a `uuid[]`),
//! `TryFromU64` (a UUID key is never an auto-increment one) and
//! `IntoActiveValue`. `Option<_>` and tuples of keys follow from sea-orm's own
//! blanket impls.
//!
//! sea-orm's value type has one variant for UUIDs, `Value::Uuid`, holding a
//! `uuid::Uuid`, and every driver binds and reads it with that crate's
//! impls: so the values here are exactly that variant (converted through
//! `uuid-interop`, a copy of 16 bytes), and reading delegates to sea-orm's
//! own reading of `uuid::Uuid`. What a `uuid` program writes to a column and
//! reads from it, a uuidkit program writes and reads, on every backend.

extern crate alloc;

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use sea_orm::sea_query::postgres_array::NotU8;
use sea_orm::sea_query::{ArrayType, ColumnType, Nullable, Value, ValueType, ValueTypeErr};
use sea_orm::{
    ActiveValue, ColIdx, DbErr, IntoActiveValue, QueryResult, TryFromU64, TryGetError, TryGetable,
    TryGetableArray,
};

use crate::{Braced, Hyphenated, Simple, Urn, Uuid};

/// The traits for one type that converts to and from `uuid::Uuid`.
macro_rules! sea_orm_uuid {
    (
        $(#[$doc:meta])*
        $ty:ident, |$to:ident| $to_peer:expr, |$from:ident| $from_peer:expr
    ) => {
        $(#[$doc])*
        impl From<$ty> for Value {
            fn from($to: $ty) -> Value {
                Value::Uuid(Some($to_peer))
            }
        }

        impl Nullable for $ty {
            fn null() -> Value {
                Value::Uuid(None)
            }
        }

        impl ValueType for $ty {
            fn try_from(v: Value) -> Result<Self, ValueTypeErr> {
                match v {
                    Value::Uuid(Some($from)) => Ok($from_peer),
                    _ => Err(ValueTypeErr),
                }
            }

            fn type_name() -> String {
                stringify!($ty).to_owned()
            }

            fn array_type() -> ArrayType {
                ArrayType::Uuid
            }

            fn column_type() -> ColumnType {
                ColumnType::Uuid
            }
        }

        impl NotU8 for $ty {}

        impl TryGetable for $ty {
            fn try_get_by<I: ColIdx>(res: &QueryResult, index: I) -> Result<Self, TryGetError> {
                uuid::Uuid::try_get_by(res, index).map(|$from| $from_peer)
            }
        }

        impl TryGetableArray for $ty {
            fn try_get_by<I: ColIdx>(
                res: &QueryResult,
                index: I,
            ) -> Result<Vec<Self>, TryGetError> {
                <Vec<uuid::Uuid>>::try_get_by(res, index)
                    .map(|list| list.into_iter().map(|$from| $from_peer).collect())
            }
        }

        impl IntoActiveValue<$ty> for $ty {
            fn into_active_value(self) -> ActiveValue<$ty> {
                ActiveValue::Set(self)
            }
        }
    };
}

sea_orm_uuid!(
    /// A [`Uuid`] is sea-orm's `Value::Uuid`, the value `uuid::Uuid` gives,
    /// so a query binds the same 16 octets (PostgreSQL `uuid`, a 16-byte
    /// BLOB or BINARY(16) elsewhere).
    ///
    /// ```
    /// use sea_orm::sea_query::{ColumnType, Value, ValueType};
    /// use uuidkit::Uuid;
    ///
    /// let id = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
    /// let peer = uuid::Uuid::from_bytes(*id.as_bytes());
    /// assert_eq!(Value::from(id), Value::from(peer));
    /// assert_eq!(<Uuid as ValueType>::try_from(Value::from(peer)).ok(), Some(id));
    /// assert_eq!(<Uuid as ValueType>::column_type(), ColumnType::Uuid);
    /// // `Option<Uuid>` is a nullable column; `Vec<Uuid>` a PostgreSQL `uuid[]`.
    /// assert_eq!(Value::from(None::<Uuid>), Value::Uuid(None));
    /// assert_eq!(Value::from(vec![id]), Value::from(vec![peer]));
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    Uuid, |u| uuid::Uuid::from(u), |u| Uuid::from(u)
);
sea_orm_uuid!(
    /// The hyphenated form is the same value (as with `uuid::fmt::Hyphenated`):
    /// the form is how Rust shows it, not what the database stores.
    ///
    /// ```
    /// use sea_orm::sea_query::Value;
    /// let id = uuidkit::Uuid::MAX;
    /// assert_eq!(Value::from(id.hyphenated()), Value::from(id));
    /// ```
    Hyphenated, |u| uuid::Uuid::from(u.into_uuid()), |u| Uuid::from(u).hyphenated()
);
sea_orm_uuid!(
    /// The 32-digit form is the same value.
    ///
    /// ```
    /// use sea_orm::sea_query::Value;
    /// let id = uuidkit::Uuid::MAX;
    /// assert_eq!(Value::from(id.simple()), Value::from(id));
    /// ```
    Simple, |u| uuid::Uuid::from(u.into_uuid()), |u| Uuid::from(u).simple()
);
sea_orm_uuid!(
    /// The braced form is the same value.
    ///
    /// ```
    /// use sea_orm::sea_query::Value;
    /// let id = uuidkit::Uuid::MAX;
    /// assert_eq!(Value::from(id.braced()), Value::from(id));
    /// ```
    Braced, |u| uuid::Uuid::from(u.into_uuid()), |u| Uuid::from(u).braced()
);
sea_orm_uuid!(
    /// The URN form is the same value.
    ///
    /// ```
    /// use sea_orm::sea_query::Value;
    /// let id = uuidkit::Uuid::MAX;
    /// assert_eq!(Value::from(id.urn()), Value::from(id));
    /// ```
    Urn, |u| uuid::Uuid::from(u.into_uuid()), |u| Uuid::from(u).urn()
);

/// A UUID primary key is never the database's auto-increment counter:
/// `insert` then reads the key back with `RETURNING` (or takes the one the
/// model set), as it does for `uuid::Uuid`.
///
/// ```
/// use sea_orm::{DbErr, TryFromU64};
/// let err = <uuidkit::Uuid as TryFromU64>::try_from_u64(7).unwrap_err();
/// assert!(matches!(err, DbErr::ConvertFromU64("uuidkit::Uuid")));
/// ```
impl TryFromU64 for Uuid {
    fn try_from_u64(_: u64) -> Result<Self, DbErr> {
        Err(DbErr::ConvertFromU64("uuidkit::Uuid"))
    }
}
