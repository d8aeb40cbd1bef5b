//! `postcard-schema`: the schema of what the `serde` feature writes to
//! postcard, a byte array (postcard's length, 16, then the octets), under
//! the name postcard-schema gives `uuid::Uuid`, so that keys computed from
//! schemas (postcard-rpc's endpoint and topic keys) are the same.

use postcard_schema::Schema;
use postcard_schema::schema::{DataModelType, NamedType};

use crate::Uuid;

/// `Uuid`, a byte array.
///
/// ```
/// use postcard_schema::Schema;
/// use postcard_schema::schema::DataModelType;
/// use uuidkit::Uuid;
///
/// assert_eq!(Uuid::SCHEMA.name, "Uuid");
/// assert_eq!(*Uuid::SCHEMA.ty, DataModelType::ByteArray);
/// // What the schema says is what `serde` writes to postcard.
/// let bytes = postcard::to_allocvec(&Uuid::MAX)?;
/// assert_eq!(bytes[0], 16);
/// assert_eq!(&bytes[1..], Uuid::MAX.as_bytes());
/// # Ok::<(), postcard::Error>(())
/// ```
impl Schema for Uuid {
    const SCHEMA: &'static NamedType = &NamedType {
        name: "Uuid",
        ty: &DataModelType::ByteArray,
    };
}
