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
    /// Every encoding, in the order of its declaration (a new one goes at the
    /// end: [`DecodeError`](crate::encoding::DecodeError) stores the index, and
    /// its tests check the order) and of docs/encodings.md: a program
    /// that offers the encodings by name (a command line's `-f`, a
    /// configuration file) lists them from here, and so offers a new one
    /// without a change of its own.
    ///
    /// ```
    /// use uuidkit::{encoding::Encoding, Uuid};
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// let mut buf = [0u8; 26];
    /// for e in Encoding::ALL {
    ///     let text = e.encode(u, &mut buf);
    ///     assert_eq!(text.len(), e.length());
    ///     assert_eq!(e.decode(text), Ok(u), "{e}");
    /// }
    /// ```
    pub const ALL: &'static [Encoding] = &[
        Encoding::Base32,
        Encoding::Ulid,
        Encoding::Base32Hex,
        Encoding::Base58,
        Encoding::Base64Url,
        Encoding::TypeId,
    ];

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

    /// The encoding's identifier: lower-case ASCII letters and digits, unique
    /// among [`Encoding::ALL`], for names a user types (`-f base58`).
    ///
    /// ```
    /// use uuidkit::encoding::Encoding;
    /// assert_eq!(Encoding::TypeId.id(), "typeid");
    /// assert_eq!(Encoding::TypeId.to_string(), "TypeID");
    /// ```
    #[must_use]
    pub const fn id(self) -> &'static str {
        match self {
            Encoding::Base32 => "base32",
            Encoding::Ulid => "ulid",
            Encoding::Base32Hex => "base32hex",
            Encoding::Base58 => "base58",
            Encoding::Base64Url => "base64url",
            Encoding::TypeId => "typeid",
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

#[cfg(test)]
mod tests {
    use super::Encoding;

    #[test]
    fn ids_are_distinct_lower_case_names() {
        for (i, a) in Encoding::ALL.iter().enumerate() {
            for b in &Encoding::ALL[i + 1..] {
                assert_ne!(a.id(), b.id());
            }
            let id = a.id().bytes();
            assert!(
                id.into_iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            );
        }
    }
}
