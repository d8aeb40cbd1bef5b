//! The 128-bit [`Uuid`] type, its variant (RFC 9562 §4.1) and version (§4.2).

/// A universally unique identifier (RFC 9562): 16 octets in network byte order.
///
/// Ordering, equality and hashing are those of the raw bytes, which is also the
/// order of the canonical (lowercase) strings and of the big-endian `u128`.
///
/// ```
/// use uuidkit::Uuid;
/// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
/// assert_eq!(u.as_bytes()[0], 0xf8);
/// assert!(Uuid::NIL < u && u < Uuid::MAX);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[cfg_attr(
    feature = "zerocopy",
    derive(
        zerocopy::FromBytes,
        zerocopy::IntoBytes,
        zerocopy::Immutable,
        zerocopy::KnownLayout,
        zerocopy::Unaligned
    )
)]
// diesel: a query parameter and a column type (`external/diesel_support.rs`
// has the `ToSql`/`FromSql` these derives build on).
#[cfg_attr(
    feature = "diesel",
    derive(diesel::expression::AsExpression, diesel::deserialize::FromSqlRow),
    diesel(sql_type = diesel::sql_types::Uuid),
    diesel(sql_type = diesel::sql_types::Binary)
)]
#[repr(transparent)]
pub struct Uuid([u8; 16]);

/// Feeds the hasher the 16 bytes alone, as the `uuid` crate does, so a
/// program moved from it keeps the hashes it may have stored or sharded by
/// (a derived `Hash` would write the array's length first).
///
/// ```
/// use std::hash::{BuildHasher, Hasher, RandomState};
/// let u = uuidkit::Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
/// let state = RandomState::new();
/// let mut bytes_alone = state.build_hasher();
/// bytes_alone.write(u.as_bytes());
/// assert_eq!(state.hash_one(u), bytes_alone.finish());
/// ```
impl core::hash::Hash for Uuid {
    #[inline]
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        state.write(&self.0);
    }
}

impl Uuid {
    /// The Nil UUID (RFC 9562 §5.9): all 128 bits zero.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.as_u128(), 0);
    /// ```
    pub const NIL: Uuid = Uuid([0; 16]);

    /// The Max UUID (RFC 9562 §5.10): all 128 bits one.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::MAX.as_u128(), u128::MAX);
    /// ```
    pub const MAX: Uuid = Uuid([0xff; 16]);

    /// Wraps 16 octets in network byte order (RFC 9562 §4).
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_bytes([0; 16]);
    /// assert_eq!(u, uuidkit::Uuid::NIL);
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_bytes(bytes: [u8; 16]) -> Uuid {
        Uuid(bytes)
    }

    /// Reads 16 octets in network byte order from a slice of exactly 16 bytes,
    /// as a database driver hands over a `BLOB`, `BINARY(16)` or `bytea` value.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let column: &[u8] = &[0xf8, 0x1d, 0x4f, 0xae, 0x7d, 0xec, 0x11, 0xd0,
    ///                       0xa7, 0x65, 0x00, 0xa0, 0xc9, 0x1e, 0x6b, 0xf6];
    /// let u = Uuid::from_slice(column)?;
    /// assert_eq!(u.to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    /// assert_eq!(Uuid::try_from(column)?, u);
    ///
    /// let err = Uuid::from_slice(&column[..15]).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid length 15 bytes: expected 16");
    /// # Ok::<(), uuidkit::error::LengthError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`LengthError`](crate::error::LengthError), naming the length found, if the
    /// slice is not 16 bytes long. It never panics.
    #[inline]
    pub const fn from_slice(bytes: &[u8]) -> Result<Uuid, crate::error::LengthError> {
        match bytes.first_chunk::<16>() {
            Some(octets) if bytes.len() == 16 => Ok(Uuid(*octets)),
            _ => Err(crate::error::LengthError::new(bytes.len())),
        }
    }

    /// The 16 octets in network byte order.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::MAX.as_bytes(), &[0xff; 16]);
    /// ```
    #[inline]
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// The 16 octets in network byte order, by value.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.into_bytes(), [0; 16]);
    /// ```
    #[inline]
    #[must_use]
    pub const fn into_bytes(self) -> [u8; 16] {
        self.0
    }

    /// Builds a UUID from its value as a big-endian 128-bit integer (RFC 9562 Figure 3).
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_u128(329800735698586629295641978511506172918);
    /// assert_eq!(u.as_bytes()[..4], [0xf8, 0x1d, 0x4f, 0xae]);
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_u128(value: u128) -> Uuid {
        Uuid(value.to_be_bytes())
    }

    /// The UUID as a big-endian 128-bit integer.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::MAX.as_u128(), u128::MAX);
    /// ```
    #[inline]
    #[must_use]
    pub const fn as_u128(&self) -> u128 {
        u128::from_be_bytes(self.0)
    }

    /// True for the Nil UUID.
    ///
    /// ```
    /// assert!(uuidkit::Uuid::NIL.is_nil());
    /// ```
    #[inline]
    #[must_use]
    pub const fn is_nil(&self) -> bool {
        self.as_u128() == 0
    }

    /// True for the Max UUID.
    ///
    /// ```
    /// assert!(uuidkit::Uuid::MAX.is_max());
    /// ```
    #[inline]
    #[must_use]
    pub const fn is_max(&self) -> bool {
        self.as_u128() == u128::MAX
    }

    /// The variant: the leading bits of octet 8 (RFC 9562 §4.1, Table 1).
    ///
    /// The Nil UUID is [`Variant::Ncs`] (the NCS row covers hex digits 0–7; the RFC
    /// prints "1-7", a typo) and the Max UUID is [`Variant::Future`].
    ///
    /// ```
    /// use uuidkit::{Uuid, Variant};
    /// assert_eq!(Uuid::NIL.variant(), Variant::Ncs);
    /// assert_eq!(Uuid::MAX.variant(), Variant::Future);
    /// ```
    #[inline]
    #[must_use]
    #[doc(alias("get_variant"))]
    pub const fn variant(&self) -> Variant {
        let b = self.0[8];
        if b & 0x80 == 0 {
            Variant::Ncs
        } else if b & 0x40 == 0 {
            Variant::Rfc9562
        } else if b & 0x20 == 0 {
            Variant::Microsoft
        } else {
            Variant::Future
        }
    }

    /// The version (RFC 9562 §4.2): only for the RFC 9562 variant, and only for
    /// the defined values 1–8. Version 0 ("unused") and 9–15 ("reserved") give
    /// `None`, as does any other variant, since those subtype differently.
    /// [`Uuid::version_nibble`] returns the raw four bits.
    ///
    /// ```
    /// use uuidkit::{Uuid, Version};
    /// let u = Uuid::from_u128(0x919108f7_52d1_4320_9bac_f847db4148a8);
    /// assert_eq!(u.version(), Some(Version::Random));
    /// assert_eq!(Uuid::NIL.version(), None);
    /// ```
    #[inline]
    #[must_use]
    #[doc(alias("get_version"))]
    pub const fn version(&self) -> Option<Version> {
        if !matches!(self.variant(), Variant::Rfc9562) {
            return None;
        }
        Version::from_nibble(self.version_nibble())
    }

    /// The raw version field: the high four bits of octet 6, whatever the variant.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::MAX.version_nibble(), 15);
    /// ```
    #[inline]
    #[must_use]
    pub const fn version_nibble(&self) -> u8 {
        self.0[6] >> 4
    }

    /// Overwrites the version nibble and the variant bits (`0b10`), leaving the
    /// other 122 bits alone. This is how every RFC 9562 layout is finished.
    ///
    /// ```
    /// use uuidkit::{Uuid, Version};
    /// let u = Uuid::MAX.with_version(Version::Custom);
    /// assert_eq!(u.as_u128(), 0xffffffff_ffff_8fff_bfff_ffffffffffff);
    /// ```
    ///
    /// It returns a new UUID and leaves `self` as it is, so dropping the
    /// result is a mistake the compiler reports:
    ///
    /// ```compile_fail
    /// #![deny(unused_must_use)]
    /// let u = uuidkit::Uuid::MAX;
    /// u.with_version(uuidkit::Version::Custom);
    /// ```
    #[inline]
    #[must_use]
    pub const fn with_version(self, version: Version) -> Uuid {
        let mut b = self.0;
        b[6] = (b[6] & 0x0f) | ((version as u8) << 4);
        b[8] = (b[8] & 0x3f) | 0x80;
        Uuid(b)
    }
}

impl From<[u8; 16]> for Uuid {
    #[inline]
    fn from(bytes: [u8; 16]) -> Uuid {
        Uuid(bytes)
    }
}

impl TryFrom<&[u8]> for Uuid {
    type Error = crate::error::LengthError;

    /// As [`Uuid::from_slice`].
    ///
    /// # Errors
    ///
    /// [`LengthError`](crate::error::LengthError) if the slice is not 16 bytes long.
    #[inline]
    fn try_from(bytes: &[u8]) -> Result<Uuid, crate::error::LengthError> {
        Uuid::from_slice(bytes)
    }
}

impl From<Uuid> for [u8; 16] {
    #[inline]
    fn from(u: Uuid) -> [u8; 16] {
        u.0
    }
}

impl From<u128> for Uuid {
    #[inline]
    fn from(v: u128) -> Uuid {
        Uuid::from_u128(v)
    }
}

impl From<Uuid> for u128 {
    #[inline]
    fn from(u: Uuid) -> u128 {
        u.as_u128()
    }
}

impl AsRef<[u8]> for Uuid {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// The variant field of a UUID (RFC 9562 §4.1, Table 1).
///
/// ```
/// use uuidkit::{Uuid, Variant};
/// let u = Uuid::from_u128(0x00000000_0000_4000_c000_000000000000);
/// assert_eq!(u.variant(), Variant::Microsoft);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Variant {
    /// `0xxx`: reserved, NCS backward compatibility (includes the Nil UUID).
    Ncs,
    /// `10xx`: the variant specified by RFC 9562 (and RFC 4122 before it).
    Rfc9562,
    /// `110x`: reserved, Microsoft Corporation backward compatibility (GUIDs).
    Microsoft,
    /// `111x`: reserved for future definition (includes the Max UUID).
    Future,
}

/// The version field of an RFC 9562 UUID (§4.2, Table 2), for the values the RFC defines.
///
/// ```
/// use uuidkit::Version;
/// assert_eq!(Version::from_nibble(7), Some(Version::SortRand));
/// assert_eq!(Version::from_nibble(0), None); // unused
/// assert_eq!(Version::from_nibble(9), None); // reserved
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
#[non_exhaustive]
pub enum Version {
    /// 1: Gregorian time-based (§5.1).
    Mac = 1,
    /// 2: DCE Security (§5.2); reserved, its layout is out of scope.
    Dce = 2,
    /// 3: name-based, MD5 (§5.3).
    Md5 = 3,
    /// 4: random (§5.4).
    Random = 4,
    /// 5: name-based, SHA-1 (§5.5).
    Sha1 = 5,
    /// 6: reordered Gregorian time-based (§5.6).
    SortMac = 6,
    /// 7: Unix epoch time-based (§5.7).
    SortRand = 7,
    /// 8: custom (§5.8).
    Custom = 8,
}

impl Version {
    /// The version for a four-bit field value, or `None` for 0 (unused) and 9–15 (reserved).
    ///
    /// ```
    /// assert_eq!(uuidkit::Version::from_nibble(4), Some(uuidkit::Version::Random));
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_nibble(n: u8) -> Option<Version> {
        Some(match n {
            1 => Version::Mac,
            2 => Version::Dce,
            3 => Version::Md5,
            4 => Version::Random,
            5 => Version::Sha1,
            6 => Version::SortMac,
            7 => Version::SortRand,
            8 => Version::Custom,
            _ => return None,
        })
    }

    /// The four-bit field value.
    ///
    /// ```
    /// assert_eq!(uuidkit::Version::SortRand.number(), 7);
    /// ```
    #[inline]
    #[must_use]
    pub const fn number(self) -> u8 {
        self as u8
    }
}

#[cfg(test)]
mod tests {
    use super::Uuid;

    #[test]
    fn from_slice_takes_exactly_16_bytes_and_names_any_other_length() {
        let bytes: [u8; 40] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        for len in 0..=bytes.len() {
            let slice = &bytes[..len];
            match (Uuid::from_slice(slice), Uuid::try_from(slice)) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(len, 16);
                    assert_eq!(a, b);
                    assert_eq!(a.as_bytes(), slice);
                }
                (Err(a), Err(b)) => {
                    assert_ne!(len, 16);
                    assert_eq!(a, b);
                    assert_eq!(a.found(), len);
                }
                other => panic!("from_slice and try_from disagree at {len}: {other:?}"),
            }
        }
    }

    #[test]
    fn from_slice_reads_any_offset_of_a_larger_buffer() {
        let bytes: [u8; 33] = core::array::from_fn(|i| i as u8);
        for start in 0..=17 {
            let u = Uuid::from_slice(&bytes[start..start + 16]).unwrap();
            assert_eq!(u.as_bytes()[0], start as u8);
            assert_eq!(u.as_bytes()[15], start as u8 + 15);
        }
    }
}
