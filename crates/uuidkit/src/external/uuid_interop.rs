//! `uuid-interop`: lossless `From` conversions with the `uuid` crate's type.
//!
//! ```
//! let theirs = uuid::Uuid::parse_str("f81d4fae-7dec-11d0-a765-00a0c91e6bf6").unwrap();
//! let ours = uuidkit::Uuid::from(theirs);
//! assert_eq!(ours.to_string(), theirs.to_string());
//! assert_eq!(uuid::Uuid::from(ours), theirs);
//!
//! // The non-nil types convert into each other, too.
//! let id = uuidkit::NonNilUuid::new(ours).unwrap();
//! assert_eq!(uuid::NonNilUuid::from(id).get(), theirs);
//! ```

use crate::{NonNilUuid, Uuid};

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

impl From<uuid::NonNilUuid> for NonNilUuid {
    #[inline]
    fn from(u: uuid::NonNilUuid) -> NonNilUuid {
        match NonNilUuid::new(Uuid::from(u.get())) {
            Some(id) => id,
            // The same 128 bits, which the source type guarantees are not all zero.
            None => unreachable!(),
        }
    }
}

impl From<NonNilUuid> for uuid::NonNilUuid {
    #[inline]
    fn from(u: NonNilUuid) -> uuid::NonNilUuid {
        match uuid::NonNilUuid::new(uuid::Uuid::from(u.get())) {
            Some(id) => id,
            // The same 128 bits, which the source type guarantees are not all zero.
            None => unreachable!(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{NonNilUuid, Uuid};

    #[test]
    fn non_nil_values_cross_over_unchanged() {
        for v in [1, 0x0102, 0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6, u128::MAX] {
            let ours = NonNilUuid::new(Uuid::from_u128(v)).unwrap();
            let theirs = uuid::NonNilUuid::from(ours);
            assert_eq!(theirs.get().as_u128(), v);
            assert_eq!(NonNilUuid::from(theirs), ours);
        }
    }
}
