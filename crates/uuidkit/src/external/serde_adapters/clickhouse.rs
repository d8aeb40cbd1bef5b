//! ClickHouse's `UUID` in RowBinary, for the `clickhouse` crate's rows: the
//! same bytes as that crate's own `clickhouse::serde::uuid` writes for a
//! `uuid::Uuid`.
//!
//! ClickHouse stores a UUID as two `UInt64`, each little-endian: the first
//! eight octets of the RFC 9562 layout reversed, then the last eight
//! reversed. The crate's RowBinary writer has no UUID of its own; it writes
//! a pair of `u64` ([`Uuid::as_u64_pair`]) as two little-endian `UInt64`,
//! which is that layout. A bare [`Uuid`], or [`compact`](super::compact),
//! writes the 16 octets in order instead: a row the server accepts (the
//! sizes match) whose UUIDs it reads with each half reversed. Human-readable
//! formats get the hyphenated string, as the crate's module does.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use serde_test::{Configure, Token, assert_tokens};
//! use uuidkit::Uuid;
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
//! struct Event {
//!     #[serde(with = "uuidkit::serde::clickhouse")]
//!     id: Uuid,
//! }
//!
//! let event = Event { id: Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff) };
//! // What RowBinary sees: two u64 (each then written little-endian).
//! assert_tokens(&event.clone().compact(), &[
//!     Token::Struct { name: "Event", len: 1 },
//!     Token::Str("id"),
//!     Token::Tuple { len: 2 },
//!     Token::U64(0x0011_2233_4455_6677),
//!     Token::U64(0x8899_aabb_ccdd_eeff),
//!     Token::TupleEnd,
//!     Token::StructEnd,
//! ]);
//! // JSON (ClickHouse's JSONEachRow, for one): the string.
//! assert_eq!(
//!     serde_json::to_string(&event)?,
//!     r#"{"id":"00112233-4455-6677-8899-aabbccddeeff"}"#
//! );
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use super::{Adapter, HyphenatedForm, Text};
use crate::Uuid;

/// The module's way of writing one UUID, for `option` and `vec` too.
pub(super) struct ClickHouse;

impl Adapter for ClickHouse {
    fn serialize<S: Serializer>(uuid: &Uuid, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            Text::<HyphenatedForm>::serialize(uuid, serializer)
        } else {
            uuid.as_u64_pair().serialize(serializer)
        }
    }

    fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
        if deserializer.is_human_readable() {
            Text::<HyphenatedForm>::deserialize(deserializer)
        } else {
            let (high, low) = <(u64, u64)>::deserialize(deserializer)?;
            Ok(Uuid::from_u64_pair(high, low))
        }
    }
}

/// Writes `uuid` as ClickHouse's `UUID`: two `u64` in binary formats, the
/// hyphenated string in human-readable ones.
///
/// # Errors
///
/// Only the serializer's own.
pub fn serialize<S: Serializer>(uuid: &Uuid, serializer: S) -> Result<S::Ok, S::Error> {
    ClickHouse::serialize(uuid, serializer)
}

/// Reads what [`serialize`] (or the `clickhouse` crate's own module) writes;
/// in human-readable formats any text form [`Uuid::parse`] accepts.
///
/// # Errors
///
/// If the input is not two `u64` (binary) or a UUID string (text), saying
/// what is wrong.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
    ClickHouse::deserialize(deserializer)
}

/// `Option<Uuid>` for a `Nullable(UUID)` column, as the crate's
/// `clickhouse::serde::uuid::option`.
///
/// ```
/// use serde_test::{Configure, Token, assert_tokens};
/// use uuidkit::Uuid;
///
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct Row(#[serde(with = "uuidkit::serde::clickhouse::option")] Option<Uuid>);
///
/// assert_tokens(&Row(None).compact(), &[
///     Token::NewtypeStruct { name: "Row" },
///     Token::None,
/// ]);
/// assert_tokens(&Row(Some(Uuid::from_u64_pair(1, 2))).compact(), &[
///     Token::NewtypeStruct { name: "Row" },
///     Token::Some,
///     Token::Tuple { len: 2 },
///     Token::U64(1),
///     Token::U64(2),
///     Token::TupleEnd,
/// ]);
/// ```
pub mod option {
    use serde::{Deserializer, Serializer};

    use super::ClickHouse;
    use crate::Uuid;

    /// Writes `Some` as the outer module does, `None` as none.
    ///
    /// # Errors
    ///
    /// Only the serializer's own.
    pub fn serialize<S: Serializer>(uuid: &Option<Uuid>, serializer: S) -> Result<S::Ok, S::Error> {
        crate::external::serde_adapters::serialize_option::<ClickHouse, S>(uuid, serializer)
    }

    /// Reads what [`serialize`] writes.
    ///
    /// # Errors
    ///
    /// As the outer module's `deserialize`, for a present value.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Uuid>, D::Error> {
        crate::external::serde_adapters::deserialize_option::<ClickHouse, D>(deserializer)
    }
}

/// `Vec<Uuid>` for an `Array(UUID)` column, as the crate's
/// `clickhouse::serde::uuid_vec`: a sequence of what the outer module
/// writes for each.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Row {
///     #[serde(with = "uuidkit::serde::clickhouse::vec")]
///     ids: Vec<uuidkit::Uuid>,
/// }
///
/// let row = Row { ids: vec![uuidkit::Uuid::MAX] };
/// assert_eq!(
///     serde_json::to_string(&row)?,
///     r#"{"ids":["ffffffff-ffff-ffff-ffff-ffffffffffff"]}"#
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
#[cfg(feature = "std")]
pub mod vec {
    use core::marker::PhantomData;
    use std::vec::Vec;

    use serde::{Deserialize, Deserializer, Serializer};

    use super::ClickHouse;
    use crate::Uuid;
    use crate::external::serde_adapters::{Adapter, With};

    /// One element, read through the outer module.
    struct Element(Uuid);

    impl<'de> Deserialize<'de> for Element {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            ClickHouse::deserialize(deserializer).map(Element)
        }
    }

    /// Writes the UUIDs as a sequence, each as the outer module does.
    ///
    /// # Errors
    ///
    /// Only the serializer's own.
    pub fn serialize<S: Serializer>(uuids: &[Uuid], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(uuids.iter().map(|u| With::<ClickHouse>(u, PhantomData)))
    }

    /// Reads what [`serialize`] writes.
    ///
    /// # Errors
    ///
    /// If the input is not a sequence, or an element is not a UUID as the
    /// outer module reads it.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Uuid>, D::Error> {
        let elements = Vec::<Element>::deserialize(deserializer)?;
        Ok(elements.into_iter().map(|e| e.0).collect())
    }
}
