//! `scylla`: a [`Uuid`] is a CQL `uuid` and, when it is a version 1 UUID, a
//! CQL `timeuuid`, through the `SerializeValue`/`DeserializeValue` traits
//! of `scylla-cql-core`, which the `scylla` driver re-exports
//! (`scylla::serialize::value`, `scylla::deserialize::value`).
//!
//! Both CQL types are the 16 octets in network byte order, which is
//! [`Uuid`]'s layout, so the bytes are those `uuid::Uuid` and the driver's
//! `CqlTimeuuid` write. The driver maps `uuid::Uuid` to `uuid` only, and
//! `timeuuid` to its `CqlTimeuuid` wrapper; here the one type serves both,
//! and writing anything but a version 1 UUID to a `timeuuid` is refused
//! before the statement is sent (the server would refuse it too). A v1
//! generator on a leased node (`uuidkit::V1Generator`) is what a
//! `timeuuid` column wants: ordered by time in the server, and unique
//! across the hosts that share the lease registry. Reading takes whatever
//! the column holds. The conversions with `CqlTimeuuid` are here too, for
//! code that keeps the driver's type (its `Ord` sorts by time, as the
//! server does, where [`Uuid`]'s sorts by octets).

use core::fmt;
use std::error::Error;

use scylla_cql_core::deserialize::value::{
    BuiltinDeserializationErrorKind, DeserializeValue, mk_deser_err,
};
use scylla_cql_core::deserialize::{DeserializationError, FrameSlice, TypeCheckError};
use scylla_cql_core::frame::response::result::{ColumnType, NativeType};
use scylla_cql_core::serialize::value::{
    BuiltinSerializationErrorKind, BuiltinTypeCheckErrorKind, SerializeValue, mk_ser_err,
};
use scylla_cql_core::serialize::writers::WrittenCellProof;
use scylla_cql_core::serialize::{CellWriter, SerializationError};
use scylla_cql_core::value::{CqlTimeuuid, Emptiable};

use crate::{Uuid, Version};

/// The CQL types a [`Uuid`] is written as and read from.
const TYPES: &[ColumnType<'static>] = &[
    ColumnType::Native(NativeType::Uuid),
    ColumnType::Native(NativeType::Timeuuid),
];

/// Why a UUID was not written to a `timeuuid`: its version is not 1.
#[derive(Debug)]
struct NotTimeuuid {
    uuid: Uuid,
}

impl fmt::Display for NotTimeuuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a CQL timeuuid takes a version 1 UUID; {} is version {}",
            self.uuid,
            self.uuid.version_nibble()
        )
    }
}

impl Error for NotTimeuuid {}

/// Writes the 16 octets to a `uuid` column, or to a `timeuuid` one when
/// the UUID is version 1; any other CQL type is a type-check error, as
/// for the driver's own types.
///
/// ```
/// use scylla_cql_core::frame::response::result::{ColumnType, NativeType};
/// use scylla_cql_core::serialize::value::SerializeValue;
/// use scylla_cql_core::serialize::writers::CellWriter;
/// use uuidkit::Uuid;
///
/// let id = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?; // version 1
/// let mut cell = Vec::new();
/// id.serialize(&ColumnType::Native(NativeType::Timeuuid), CellWriter::new(&mut cell))?;
/// assert_eq!(cell[..4], 16i32.to_be_bytes()); // the value's length, then the octets
/// assert_eq!(&cell[4..], id.as_bytes());
///
/// // A v4 is a `uuid`, not a `timeuuid`; a `text` column takes neither.
/// let v4 = Uuid::parse("919108f7-52d1-4320-9bac-f847db4148a8")?;
/// let mut cell = Vec::new();
/// let err = v4.serialize(&ColumnType::Native(NativeType::Timeuuid), CellWriter::new(&mut cell));
/// assert!(err.unwrap_err().to_string().contains("version 1 UUID"));
/// assert!(id.serialize(&ColumnType::Native(NativeType::Text), CellWriter::new(&mut Vec::new())).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl SerializeValue for Uuid {
    fn serialize<'b>(
        &self,
        typ: &ColumnType,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        match typ {
            ColumnType::Native(NativeType::Uuid) => {}
            ColumnType::Native(NativeType::Timeuuid) => {
                if self.version() != Some(Version::Mac) {
                    return Err(SerializationError::new(NotTimeuuid { uuid: *self }));
                }
            }
            _ => {
                return Err(scylla_cql_core::serialize::value::mk_typck_err::<Self>(
                    typ,
                    BuiltinTypeCheckErrorKind::MismatchedType { expected: TYPES },
                ));
            }
        }
        writer
            .set_value(self.as_bytes())
            .map_err(|_| mk_ser_err::<Self>(typ, BuiltinSerializationErrorKind::SizeOverflow))
    }
}

/// Reads a `uuid` or `timeuuid` column: 16 bytes, anything else (a null
/// included; read an `Option<Uuid>` for a nullable column) is an error.
///
/// ```
/// use scylla_cql_core::deserialize::FrameSlice;
/// use scylla_cql_core::deserialize::value::DeserializeValue;
/// use scylla_cql_core::frame::response::result::{ColumnType, NativeType};
/// use uuidkit::Uuid;
///
/// let typ = ColumnType::Native(NativeType::Uuid);
/// <Uuid as DeserializeValue>::type_check(&typ)?;
/// let octets = [0xab; 16];
/// let id = Uuid::deserialize(&typ, Some(FrameSlice::new_borrowed(&octets)))?;
/// assert_eq!(id.as_bytes(), &octets);
/// assert!(Uuid::deserialize(&typ, Some(FrameSlice::new_borrowed(&octets[..15]))).is_err());
/// assert!(<Uuid as DeserializeValue>::type_check(&ColumnType::Native(NativeType::Blob)).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<'frame, 'metadata> DeserializeValue<'frame, 'metadata> for Uuid {
    fn type_check(typ: &ColumnType) -> Result<(), TypeCheckError> {
        match typ {
            ColumnType::Native(NativeType::Uuid | NativeType::Timeuuid) => Ok(()),
            _ => Err(scylla_cql_core::deserialize::value::mk_typck_err::<Self>(
                typ,
                scylla_cql_core::deserialize::value::BuiltinTypeCheckErrorKind::MismatchedType {
                    expected: TYPES,
                },
            )),
        }
    }

    fn deserialize(
        typ: &'metadata ColumnType<'metadata>,
        v: Option<FrameSlice<'frame>>,
    ) -> Result<Self, DeserializationError> {
        let slice = v
            .ok_or_else(|| {
                mk_deser_err::<Self>(typ, BuiltinDeserializationErrorKind::ExpectedNonNull)
            })?
            .as_slice();
        Uuid::from_slice(slice).map_err(|_| {
            mk_deser_err::<Self>(
                typ,
                BuiltinDeserializationErrorKind::ByteLengthMismatch {
                    expected: 16,
                    got: slice.len(),
                },
            )
        })
    }
}

/// An empty CQL value is allowed where the driver allows it for
/// `uuid::Uuid`: read through `MaybeEmpty<Uuid>`.
impl Emptiable for Uuid {}

/// The driver's `timeuuid` wrapper, from a [`Uuid`] (the same 16 octets).
///
/// ```
/// use scylla_cql_core::value::CqlTimeuuid;
/// let id = uuidkit::Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let t = CqlTimeuuid::from(id);
/// assert_eq!(t.as_bytes(), id.as_bytes());
/// assert_eq!(uuidkit::Uuid::from(t), id);
/// # Ok::<(), uuidkit::ParseError>(())
/// ```
impl From<Uuid> for CqlTimeuuid {
    fn from(uuid: Uuid) -> CqlTimeuuid {
        CqlTimeuuid::from_bytes(*uuid.as_bytes())
    }
}

/// A [`Uuid`] from the driver's `timeuuid` wrapper (the same 16 octets).
impl From<CqlTimeuuid> for Uuid {
    fn from(t: CqlTimeuuid) -> Uuid {
        Uuid::from_bytes(*t.as_bytes())
    }
}
