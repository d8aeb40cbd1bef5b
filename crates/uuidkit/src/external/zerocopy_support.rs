//! `zerocopy`: [`Uuid`] derives `FromBytes`, `IntoBytes`, `Immutable`,
//! `KnownLayout` and `Unaligned` (on its definition, where zerocopy's derives
//! check the layout at compile time), so UUIDs can be read from and written
//! to byte buffers in place, at any alignment.
//!
//! ```
//! use uuidkit::Uuid;
//! use zerocopy::{FromBytes, IntoBytes};
//! let bytes = [0xffu8; 16];
//! let u = Uuid::ref_from_bytes(&bytes).unwrap();
//! assert_eq!(*u, Uuid::MAX);
//! assert_eq!(Uuid::NIL.as_bytes(), &[0; 16]);
//! assert_eq!(IntoBytes::as_bytes(&Uuid::NIL), &[0; 16]);
//! ```
//!
//! [`NonNilUuid`](crate::NonNilUuid) derives `TryFromBytes` (sixteen zero
//! bytes are refused), `IntoBytes`, `Immutable` and `KnownLayout`; its
//! memory is the octets in order, as a `Uuid`'s is. It has the alignment of
//! a `u128`, so read it by value (`try_read_from_bytes`) from a byte buffer.
//!
//! ```
//! use uuidkit::{NonNilUuid, Uuid};
//! use zerocopy::{IntoBytes, TryFromBytes};
//! let octets = *Uuid::from_u128(0x0102).as_bytes();
//! let id = NonNilUuid::try_read_from_bytes(&octets).unwrap();
//! assert_eq!(id.get().as_u128(), 0x0102);
//! assert_eq!(id.as_bytes(), &octets);
//! assert!(NonNilUuid::try_read_from_bytes(&[0u8; 16]).is_err());
//! ```

#[cfg(test)]
mod tests {
    use zerocopy::{FromBytes, IntoBytes};

    use crate::Uuid;

    #[test]
    fn views_agree_with_from_bytes_at_any_alignment() {
        let mut bytes = [0u8; 16 * 2 + 1];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 91 + 5) as u8;
        }
        // A record header of one byte, then two UUIDs, read in place.
        let (head, uuids) = <[Uuid; 2]>::ref_from_suffix(&bytes).unwrap();
        assert_eq!(head, &bytes[..1]);
        assert_eq!(uuids[1], Uuid::from_bytes(bytes[17..].try_into().unwrap()));
        assert_eq!(IntoBytes::as_bytes(uuids), &bytes[1..]);

        let slice = <[Uuid]>::ref_from_bytes(&bytes[1..]).unwrap();
        assert_eq!(slice, uuids);
        assert!(Uuid::ref_from_bytes(&bytes[..15]).is_err());

        let mut out = [0u8; 16];
        Uuid::MAX.write_to(&mut out[..]).unwrap();
        assert_eq!(out, [0xff; 16]);
        assert_eq!(Uuid::read_from_bytes(&out).unwrap(), Uuid::MAX);
    }
}
