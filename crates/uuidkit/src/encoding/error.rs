//! [`DecodeError`]: what went wrong while decoding one of the short
//! encodings, where, and which characters were expected there.

use core::fmt;

/// The encodings of [`crate::encoding`], named in a [`DecodeError`].
///
/// ```
/// use uuidkit::{Encoding, Uuid};
/// let err = Uuid::parse_base58("0").unwrap_err();
/// assert_eq!(err.encoding(), Encoding::Base58);
/// assert_eq!(Encoding::Base58.to_string(), "base58");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// [`Base32`](crate::Base32): Crockford's alphabet, the number left-padded.
    Base32,
    /// [`Base32`](crate::Base32) read as a ULID ([`Uuid::from_ulid`](crate::Uuid::from_ulid)).
    Ulid,
    /// [`Base32Hex`](crate::Base32Hex): RFC 4648 §7, the bytes right-padded.
    Base32Hex,
    /// [`Base58`](crate::Base58): Bitcoin's alphabet, the number left-padded.
    Base58,
    /// [`Base64Url`](crate::Base64Url): RFC 4648 §5, no padding.
    Base64Url,
    /// [`TypeId`](crate::TypeId): `prefix_` and lower-case base32.
    TypeId,
}

impl Encoding {
    /// The length of the encoded UUID in characters (for a TypeID, of its
    /// suffix).
    ///
    /// ```
    /// assert_eq!(uuidkit::Encoding::Base64Url.length(), 22);
    /// ```
    pub const fn length(self) -> usize {
        match self {
            Encoding::Base32 | Encoding::Ulid | Encoding::Base32Hex | Encoding::TypeId => 26,
            Encoding::Base58 | Encoding::Base64Url => 22,
        }
    }
}

/// The characters a decoder accepts at one position, named in
/// [`DecodeErrorKind::InvalidCharacter`]. Its `Display` lists them.
///
/// ```
/// use uuidkit::{Alphabet, DecodeErrorKind, Uuid};
/// let err = Uuid::parse_base32("01ARZ3NDEKTSV4RRFFQ69G5FAU").unwrap_err();
/// assert_eq!(err.kind(), DecodeErrorKind::InvalidCharacter { found: 'U', expected: Alphabet::Base32 });
/// assert_eq!(err.position(), Some(25));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Alphabet {
    /// Crockford's base32 digits `0-9 A-Z` without `I L O U`, either case.
    Base32,
    /// The first of 26 base32 digits, which carries 3 bits: `0-7`.
    Base32First,
    /// A TypeID suffix's digits: Crockford's, lower case only.
    Base32Lower,
    /// RFC 4648 base32hex digits `0-9 A-V`, either case.
    Base32Hex,
    /// The last of 26 base32hex digits, which carries 3 bits and 2 zero
    /// bits: `0 4 8 C G K O S` (either case).
    Base32HexLast,
    /// Bitcoin's base58 digits: `1-9 A-Z a-z` without `I O l`.
    Base58,
    /// RFC 4648 base64url digits `A-Z a-z 0-9 - _`.
    Base64Url,
    /// The last of 22 base64url digits, which carries 2 bits and 4 zero
    /// bits: `A Q g w`.
    Base64UrlLast,
    /// The first or last character of a TypeID prefix: `a-z`.
    PrefixLetter,
    /// Inside a TypeID prefix: `a-z` or `_`.
    PrefixCharacter,
}

/// What kind of mistake a [`DecodeError`] reports.
///
/// ```
/// use uuidkit::{DecodeErrorKind, Uuid};
/// let err = Uuid::parse_base64url("AAAA").unwrap_err();
/// assert_eq!(err.kind(), DecodeErrorKind::InvalidLength { found: 4, expected: 22 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The text (for a TypeID, its suffix) has the wrong length, in bytes.
    InvalidLength {
        /// The length found.
        found: usize,
        /// The encoding's only length.
        expected: usize,
    },
    /// A character that cannot appear at its position.
    InvalidCharacter {
        /// The character found.
        found: char,
        /// The characters that can.
        expected: Alphabet,
    },
    /// A byte that is not valid UTF-8 (only from byte-slice input).
    InvalidByte {
        /// The byte found.
        found: u8,
        /// The characters that can appear there.
        expected: Alphabet,
    },
    /// Base58 digits whose value is 2^128 or more.
    Overflow,
    /// A TypeID prefix longer than 63 characters.
    PrefixTooLong {
        /// Its length.
        found: usize,
    },
}

/// The error returned by the decoders of [`crate::encoding`]: which encoding,
/// what went wrong ([`DecodeError::kind`]) and where
/// ([`DecodeError::position`], a 0-based byte offset into the input). Its
/// `Display` is one lowercase sentence that names the expected characters:
///
/// ```
/// use uuidkit::Uuid;
/// let err = Uuid::parse_base58("Xe22UfxT3rxcKJEAfL5073").unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "invalid base58 character '0' at position 19: expected 1-9, A-Z or a-z, without I, O and l"
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct DecodeError {
    encoding: Encoding,
    kind: DecodeErrorKind,
    position: Option<usize>,
}

impl DecodeError {
    #[cold]
    pub(crate) const fn new(
        encoding: Encoding,
        kind: DecodeErrorKind,
        position: Option<usize>,
    ) -> Self {
        DecodeError {
            encoding,
            kind,
            position,
        }
    }

    /// The encoding that was being decoded.
    ///
    /// ```
    /// use uuidkit::{Encoding, TypeId};
    /// assert_eq!(TypeId::parse("User_01h5fskfsk4fpeqwnsyz5hj55t").unwrap_err().encoding(), Encoding::TypeId);
    /// ```
    #[inline]
    pub const fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// What went wrong.
    ///
    /// ```
    /// use uuidkit::{DecodeErrorKind, Uuid};
    /// let err = Uuid::parse_base58("zzzzzzzzzzzzzzzzzzzzzz").unwrap_err();
    /// assert_eq!(err.kind(), DecodeErrorKind::Overflow);
    /// ```
    #[inline]
    pub const fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// Where it went wrong: the 0-based byte offset of the bad character, or
    /// of the start of a TypeID suffix of the wrong length. `None` for errors
    /// about the whole text (its length, a base58 overflow, a prefix's
    /// length). Everything before the position is ASCII.
    ///
    /// ```
    /// use uuidkit::TypeId;
    /// let input = "user_01h5fskfsk4fpeqwnsyz5hj55u";
    /// let err = TypeId::parse(input).unwrap_err();
    /// assert_eq!(err.position(), Some(30));
    /// assert_eq!(&input[30..], "u");
    /// ```
    #[inline]
    pub const fn position(&self) -> Option<usize> {
        self.position
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(enc_name(*self))
    }
}

impl fmt::Display for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Alphabet::Base32 => "0-9 or A-Z without I, L, O and U (either case)",
            Alphabet::Base32First => "0-7 (the first of 26 digits carries 3 bits)",
            Alphabet::Base32Lower => "0-9 or a-z without i, l, o and u (lower case)",
            Alphabet::Base32Hex => "0-9 or A-V (either case)",
            Alphabet::Base32HexLast => {
                "one of 0 4 8 C G K O S (the last digit carries 3 bits and 2 zero bits)"
            }
            Alphabet::Base58 => "1-9, A-Z or a-z, without I, O and l",
            Alphabet::Base64Url => "A-Z, a-z, 0-9, '-' or '_'",
            Alphabet::Base64UrlLast => {
                "one of A Q g w (the last digit carries 2 bits and 4 zero bits)"
            }
            Alphabet::PrefixLetter => "a-z (a prefix starts and ends with a lower-case letter)",
            Alphabet::PrefixCharacter => "a-z or '_'",
        })
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (enc, at) = (self.encoding, self.position.unwrap_or(0));
        let what = match self.kind {
            DecodeErrorKind::InvalidCharacter {
                expected: Alphabet::PrefixLetter | Alphabet::PrefixCharacter,
                ..
            }
            | DecodeErrorKind::InvalidByte {
                expected: Alphabet::PrefixLetter | Alphabet::PrefixCharacter,
                ..
            } => "TypeID prefix",
            _ => match enc {
                Encoding::TypeId => "TypeID suffix",
                _ => "",
            },
        };
        match self.kind {
            DecodeErrorKind::InvalidLength { found, expected } => match enc {
                Encoding::TypeId => write!(
                    f,
                    "invalid TypeID suffix length {found} at position {at}: expected {expected} characters"
                ),
                _ => write!(
                    f,
                    "invalid {enc} length {found}: expected {expected} characters"
                ),
            },
            DecodeErrorKind::InvalidCharacter { found, expected } => {
                let what = if what.is_empty() { enc_name(enc) } else { what };
                write!(
                    f,
                    "invalid {what} character {found:?} at position {at}: expected {expected}"
                )
            }
            DecodeErrorKind::InvalidByte { found, expected } => {
                let what = if what.is_empty() { enc_name(enc) } else { what };
                write!(
                    f,
                    "invalid {what} byte 0x{found:02x} at position {at}: expected {expected}"
                )
            }
            DecodeErrorKind::Overflow => write!(
                f,
                "base58 overflow: the value is 2^128 or more: expected at most {:?}",
                super::base58::MAX_TEXT
            ),
            DecodeErrorKind::PrefixTooLong { found } => write!(
                f,
                "TypeID prefix of {found} characters: expected at most 63"
            ),
        }
    }
}

const fn enc_name(enc: Encoding) -> &'static str {
    match enc {
        Encoding::Base32 => "base32",
        Encoding::Ulid => "ULID",
        Encoding::Base32Hex => "base32hex",
        Encoding::Base58 => "base58",
        Encoding::Base64Url => "base64url",
        Encoding::TypeId => "TypeID",
    }
}

impl core::error::Error for DecodeError {}
