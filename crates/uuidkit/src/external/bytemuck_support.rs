//! `bytemuck`: [`Uuid`] is plain old data (16 octets, alignment 1, no
//! padding, every bit pattern valid), so slices of bytes and slices of UUIDs
//! can be cast into each other without copying.

use bytemuck::{Pod, PodInOption, TransparentWrapper, Zeroable, ZeroableInOption};

use crate::{NonNilUuid, Uuid};

// SAFETY: `Uuid` is `#[repr(transparent)]` over `[u8; 16]`, which is
// `Zeroable`; all zeros is the Nil UUID, a valid value.
unsafe impl Zeroable for Uuid {}

/// Casts between bytes and UUIDs (alignment 1, so any byte slice of a
/// multiple of 16 bytes will do).
///
/// ```
/// use uuidkit::Uuid;
/// let bytes = [0xffu8; 32];
/// let uuids: &[Uuid] = bytemuck::cast_slice(&bytes);
/// assert_eq!(uuids, &[Uuid::MAX, Uuid::MAX]);
/// assert_eq!(bytemuck::bytes_of(&Uuid::NIL), &[0; 16]);
/// ```
// SAFETY: `#[repr(transparent)]` over `[u8; 16]`, which is `Pod`: no padding,
// every bit pattern is a valid `Uuid`, `Copy` and `'static`.
unsafe impl Pod for Uuid {}

/// Views a `&[u8; 16]` as a `&Uuid` (and back) without copying.
///
/// ```
/// use bytemuck::TransparentWrapper;
/// use uuidkit::Uuid;
/// let octets = [0u8; 16];
/// let u: &Uuid = Uuid::wrap_ref(&octets);
/// assert!(u.is_nil());
/// ```
// SAFETY: `Uuid` is `#[repr(transparent)]` with `[u8; 16]` as its one field.
unsafe impl TransparentWrapper<[u8; 16]> for Uuid {}

/// `Option<NonNilUuid>` is `Zeroable`: all zeros is `None`.
///
/// ```
/// use uuidkit::NonNilUuid;
/// let none: Option<NonNilUuid> = bytemuck::Zeroable::zeroed();
/// assert_eq!(none, None);
/// ```
// SAFETY: `NonNilUuid` is `#[repr(transparent)]` over `NonZeroU128`, whose
// `Option` is `None` when all zeros (the niche Rust guarantees).
unsafe impl ZeroableInOption for NonNilUuid {}

/// `Option<NonNilUuid>` is `Pod`: every non-zero pattern is `Some`.
///
/// ```
/// use uuidkit::{NonNilUuid, Uuid};
/// let id = NonNilUuid::new(Uuid::MAX).unwrap();
/// assert_eq!(bytemuck::bytes_of(&Some(id)), &[0xff; 16]);
/// ```
// SAFETY: as for `NonZeroU128`, which is `PodInOption`: `Option` of it has no
// padding and every bit pattern is valid (zero is `None`, the rest `Some`).
unsafe impl PodInOption for NonNilUuid {}

#[cfg(test)]
mod tests {
    use bytemuck::TransparentWrapper;

    use crate::{NonNilUuid, Uuid};

    #[test]
    fn casts_agree_with_from_bytes_at_any_alignment() {
        let mut bytes = [0u8; 16 * 3 + 1];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 37 + 11) as u8;
        }
        // From offset 1: an odd address, which alignment 1 allows.
        let uuids: &[Uuid] = bytemuck::cast_slice(&bytes[1..]);
        assert_eq!(uuids.len(), 3);
        for (u, chunk) in uuids.iter().zip(bytes[1..].chunks_exact(16)) {
            assert_eq!(*u, Uuid::from_bytes(chunk.try_into().unwrap()));
        }
        let back: &[u8] = bytemuck::cast_slice(uuids);
        assert_eq!(back, &bytes[1..]);
        assert!(bytemuck::try_cast_slice::<u8, Uuid>(&bytes[..17]).is_err());

        let array: &[u8; 16] = bytes[1..17].try_into().unwrap();
        assert_eq!(Uuid::wrap_ref(array), &uuids[0]);
        assert_eq!(Uuid::peel(uuids[0]), *array);
    }

    #[test]
    fn option_of_non_nil_reads_zero_as_none() {
        let none: Option<NonNilUuid> = bytemuck::cast(0u128);
        assert_eq!(none, None);
        // Memory is the octets in order, as for `Uuid`.
        let octets = *Uuid::from_u128(0x0102).as_bytes();
        let some: Option<NonNilUuid> = bytemuck::cast(octets);
        assert_eq!(some.map(|id| id.get().as_u128()), Some(0x0102));
        assert_eq!(bytemuck::bytes_of(&some), &octets);
    }
}
