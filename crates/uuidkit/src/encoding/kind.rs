//! [`Encoding`]: which of the short encodings a text is in, as a
//! [`DecodeError`](crate::encoding::DecodeError) names it.

use core::fmt;

/// The encodings of [`crate::encoding`], named in a [`DecodeError`](crate::encoding::DecodeError).
///
/// ```
/// use uuidkit::{encoding::Encoding, Uuid};
/// let err = Uuid::parse_base58("0").unwrap_err();
/// assert_eq!(err.encoding(), Encoding::Base58);
/// assert_eq!(Encoding::Base58.to_string(), "base58");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// [`Base32`](crate::encoding::Base32): Crockford's alphabet, the number left-padded.
    Base32,
    /// [`Base32`](crate::encoding::Base32) read as a ULID ([`Uuid::from_ulid`](crate::Uuid::from_ulid)).
    Ulid,
    /// [`Base32Hex`](crate::encoding::Base32Hex): RFC 4648 §7, the bytes right-padded.
    Base32Hex,
    /// [`Base58`](crate::encoding::Base58): Bitcoin's alphabet, the number left-padded.
    Base58,
    /// [`Base64Url`](crate::encoding::Base64Url): RFC 4648 §5, no padding.
    Base64Url,
    /// [`TypeId`](crate::encoding::TypeId): `prefix_` and lower-case base32.
    TypeId,
}

impl Encoding {
    /// The length of the encoded UUID in characters (for a TypeID, of its
    /// suffix).
    ///
    /// ```
    /// assert_eq!(uuidkit::encoding::Encoding::Base64Url.length(), 22);
    /// ```
    #[must_use]
    pub const fn length(self) -> usize {
        match self {
            Encoding::Base32 | Encoding::Ulid | Encoding::Base32Hex | Encoding::TypeId => 26,
            Encoding::Base58 | Encoding::Base64Url => 22,
        }
    }

    /// The encoding's name, as error messages and `Display` write it.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Encoding::Base32 => "base32",
            Encoding::Ulid => "ULID",
            Encoding::Base32Hex => "base32hex",
            Encoding::Base58 => "base58",
            Encoding::Base64Url => "base64url",
            Encoding::TypeId => "TypeID",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
