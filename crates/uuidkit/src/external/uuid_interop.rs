//! `uuid-interop`: lossless `From` conversions with the `uuid` crate's type.
//!
//! ```
//! let theirs = uuid::Uuid::parse_str("f81d4fae-7dec-11d0-a765-00a0c91e6bf6").unwrap();
//! let ours = uuidkit::Uuid::from(theirs);
//! assert_eq!(ours.to_string(), theirs.to_string());
//! assert_eq!(uuid::Uuid::from(ours), theirs);
//! ```

use crate::Uuid;

impl From<uuid::Uuid> for Uuid {
    #[inline]
    fn from(u: uuid::Uuid) -> Uuid {
        Uuid::from_bytes(u.into_bytes())
    }
}

impl From<Uuid> for uuid::Uuid {
    #[inline]
    fn from(u: Uuid) -> uuid::Uuid {
        uuid::Uuid::from_bytes(u.into_bytes())
    }
}
