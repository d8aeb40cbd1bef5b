//! [`DecodeError`]: what went wrong while decoding one of the short
//! encodings, where, and which characters were expected there.

use core::fmt;

use super::Encoding;

/// The characters a decoder accepts at one position, named in
/// [`DecodeErrorKind::InvalidCharacter`]. Its `Display` lists them.
///
/// ```
/// use uuidkit::{encoding::{Alphabet, DecodeErrorKind}, Uuid};
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
/// use uuidkit::{encoding::DecodeErrorKind, Uuid};
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
// Packed into 17 bytes with the layout `ParseError` has, for the same
// reason (see there): `Result<Uuid, DecodeError>` is 17 bytes, the `Ok` UUID
// at offset 0, and an unpacked error made it 48.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct DecodeError {
    /// The [`Encoding`], as its number.
    encoding: u8,
    /// The expected [`Alphabet`] as its number (a character or byte kind).
    alphabet: u8,
    /// The expected length (`InvalidLength`: 22 or 26).
    expected: u8,
    /// Always zero.
    reserved: u8,
    /// See `crate::error::pack_position`.
    position: [u8; 4],
    /// What was found (a length, a character or a byte), little-endian.
    found: [u8; 8],
    /// Which [`DecodeErrorKind`] variant.
    tag: Tag,
}

/// The variants of [`DecodeErrorKind`], one byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
enum Tag {
    InvalidLength,
    InvalidCharacter,
    InvalidByte,
    Overflow,
    PrefixTooLong,
}

/// Every encoding and alphabet in the order of their numbers
/// ([`Encoding::ALL`] is in that order: a new encoding goes at its end).
const ENCODINGS: &[Encoding] = Encoding::ALL;
const ALPHABETS: [Alphabet; 10] = [
    Alphabet::Base32,
    Alphabet::Base32First,
    Alphabet::Base32Lower,
    Alphabet::Base32Hex,
    Alphabet::Base32HexLast,
    Alphabet::Base58,
    Alphabet::Base64Url,
    Alphabet::Base64UrlLast,
    Alphabet::PrefixLetter,
    Alphabet::PrefixCharacter,
];

impl DecodeError {
    #[cold]
    pub(crate) const fn new(
        encoding: Encoding,
        kind: DecodeErrorKind,
        position: Option<usize>,
    ) -> Self {
        let (tag, found, alphabet, expected) = match kind {
            DecodeErrorKind::InvalidLength { found, expected } => {
                (Tag::InvalidLength, found as u64, 0, expected as u8)
            }
            DecodeErrorKind::InvalidCharacter { found, expected } => {
                (Tag::InvalidCharacter, found as u64, expected as u8, 0)
            }
            DecodeErrorKind::InvalidByte { found, expected } => {
                (Tag::InvalidByte, found as u64, expected as u8, 0)
            }
            DecodeErrorKind::Overflow => (Tag::Overflow, 0, 0, 0),
            DecodeErrorKind::PrefixTooLong { found } => (Tag::PrefixTooLong, found as u64, 0, 0),
        };
        DecodeError {
            encoding: encoding as u8,
            alphabet,
            expected,
            reserved: 0,
            position: crate::error::pack_position(position),
            found: found.to_le_bytes(),
            tag,
        }
    }

    /// The encoding that was being decoded.
    ///
    /// ```
    /// use uuidkit::encoding::{Encoding, TypeId};
    /// assert_eq!(TypeId::parse("User_01h5fskfsk4fpeqwnsyz5hj55t").unwrap_err().encoding(), Encoding::TypeId);
    /// ```
    #[inline]
    #[must_use]
    pub const fn encoding(&self) -> Encoding {
        ENCODINGS[self.encoding as usize]
    }

    /// What went wrong.
    ///
    /// ```
    /// use uuidkit::{encoding::DecodeErrorKind, Uuid};
    /// let err = Uuid::parse_base58("zzzzzzzzzzzzzzzzzzzzzz").unwrap_err();
    /// assert_eq!(err.kind(), DecodeErrorKind::Overflow);
    /// ```
    #[inline]
    #[must_use]
    pub const fn kind(&self) -> DecodeErrorKind {
        let found = u64::from_le_bytes(self.found);
        let expected = ALPHABETS[self.alphabet as usize];
        match self.tag {
            Tag::InvalidLength => DecodeErrorKind::InvalidLength {
                found: found as usize,
                expected: self.expected as usize,
            },
            Tag::InvalidCharacter => DecodeErrorKind::InvalidCharacter {
                // Made from a `char`, so always one.
                found: match char::from_u32(found as u32) {
                    Some(c) => c,
                    None => char::REPLACEMENT_CHARACTER,
                },
                expected,
            },
            Tag::InvalidByte => DecodeErrorKind::InvalidByte {
                found: found as u8,
                expected,
            },
            Tag::Overflow => DecodeErrorKind::Overflow,
            Tag::PrefixTooLong => DecodeErrorKind::PrefixTooLong {
                found: found as usize,
            },
        }
    }

    /// Where it went wrong: the 0-based byte offset of the bad character, or
    /// of the start of a TypeID suffix of the wrong length. `None` for errors
    /// about the whole text (its length, a base58 overflow, a prefix's
    /// length). Everything before the position is ASCII.
    ///
    /// ```
    /// use uuidkit::encoding::TypeId;
    /// let input = "user_01h5fskfsk4fpeqwnsyz5hj55u";
    /// let err = TypeId::parse(input).unwrap_err();
    /// assert_eq!(err.position(), Some(30));
    /// assert_eq!(&input[30..], "u");
    /// ```
    #[inline]
    #[must_use]
    pub const fn position(&self) -> Option<usize> {
        crate::error::unpack_position(self.position)
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeError")
            .field("encoding", &self.encoding())
            .field("kind", &self.kind())
            .field("position", &self.position())
            .finish()
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
        let (enc, at, kind) = (self.encoding(), self.position().unwrap_or(0), self.kind());
        let what = match kind {
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
        match kind {
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
                let what = if what.is_empty() { enc.name() } else { what };
                write!(
                    f,
                    "invalid {what} character {found:?} at position {at}: expected {expected}"
                )
            }
            DecodeErrorKind::InvalidByte { found, expected } => {
                let what = if what.is_empty() { enc.name() } else { what };
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

impl core::error::Error for DecodeError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Uuid;

    /// The success path's layout (see the comment on `DecodeError`).
    #[test]
    fn decode_result_is_small() {
        assert_eq!(core::mem::size_of::<DecodeError>(), 17);
        assert_eq!(core::mem::size_of::<Result<Uuid, DecodeError>>(), 17);
    }

    /// Every kind, encoding and alphabet comes back out as it went in.
    #[test]
    fn packing_keeps_every_field() {
        let kinds = [
            DecodeErrorKind::InvalidLength {
                found: usize::MAX,
                expected: 26,
            },
            DecodeErrorKind::InvalidLength {
                found: 0,
                expected: 22,
            },
            DecodeErrorKind::Overflow,
            DecodeErrorKind::PrefixTooLong { found: 64 },
        ];
        let per_alphabet = ALPHABETS.iter().flat_map(|&expected| {
            [
                DecodeErrorKind::InvalidCharacter {
                    found: '\u{10ffff}',
                    expected,
                },
                DecodeErrorKind::InvalidCharacter {
                    found: 'é',
                    expected,
                },
                DecodeErrorKind::InvalidByte {
                    found: 0xff,
                    expected,
                },
            ]
        });
        for kind in kinds.into_iter().chain(per_alphabet) {
            for &encoding in ENCODINGS {
                for position in [None, Some(0), Some(89), Some(usize::MAX)] {
                    let e = DecodeError::new(encoding, kind, position);
                    assert_eq!((e.encoding(), e.kind()), (encoding, kind));
                    let saturated = position.map(|p| p.min(u32::MAX as usize - 1));
                    assert_eq!(e.position(), saturated);
                }
            }
        }
        for (i, a) in ALPHABETS.iter().enumerate() {
            assert_eq!(*a as usize, i);
        }
        for (i, e) in ENCODINGS.iter().enumerate() {
            assert_eq!(*e as usize, i);
        }
    }
}
