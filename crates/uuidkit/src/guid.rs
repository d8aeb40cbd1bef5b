//! Microsoft GUID byte order: the first three fields little-endian, as
//! `GUID` structs lie in memory on x86 (RFC 9562 §4 calls this out of scope
//! for the UUID's own byte order, so it lives in conversions only).

use crate::Uuid;

impl Uuid {
    /// Builds a UUID from a Microsoft `GUID` in memory: `Data1` (4 bytes),
    /// `Data2` and `Data3` (2 bytes each) little-endian, `Data4` as is.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let guid = [0xae, 0x4f, 0x1d, 0xf8, 0xec, 0x7d, 0xd0, 0x11, 0xa7, 0x65, 0x00, 0xa0, 0xc9, 0x1e, 0x6b, 0xf6];
    /// let u = Uuid::from_bytes_le(guid);
    /// assert_eq!(u.to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    /// assert_eq!(u.to_bytes_le(), guid);
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_bytes_le(b: [u8; 16]) -> Uuid {
        Uuid::from_bytes(swap_le(b))
    }

    /// The bytes of this UUID in Microsoft `GUID` memory order (see
    /// [`Uuid::from_bytes_le`]).
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_u128(0x00112233_4455_6677_8899_aabbccddeeff);
    /// assert_eq!(u.to_bytes_le()[..8], [0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66]);
    /// ```
    #[inline]
    #[must_use]
    pub const fn to_bytes_le(&self) -> [u8; 16] {
        swap_le(*self.as_bytes())
    }
}

/// Reverses octets 0–3, 4–5 and 6–7 (its own inverse).
const fn swap_le(b: [u8; 16]) -> [u8; 16] {
    [
        b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13],
        b[14], b[15],
    ]
}
