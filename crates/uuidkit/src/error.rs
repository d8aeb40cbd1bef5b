//! The errors of the UUID types: [`ParseError`] (also at the crate root),
//! what went wrong while reading a UUID from text, and where, with its kinds;
//! [`LengthError`] for a byte slice that is not 16 bytes long; and
//! [`NonNilError`] for a Nil UUID where a [`NonNilUuid`](crate::NonNilUuid)
//! is wanted. The generators' error is [`GenError`](crate::GenError), the
//! short encodings' [`DecodeError`](crate::encoding::DecodeError).
//!
//! The parsers in `parse.rs` fail cheaply (an `Option`), and only then is the
//! input scanned a second time, here, to name the offending character and its
//! position or the malformed group. The happy path never builds a diagnostic.

use core::fmt;

pub use crate::non_nil::NonNilError;

/// The error returned by [`Uuid::parse`](crate::Uuid::parse) and
/// [`Uuid::parse_strict`](crate::Uuid::parse_strict).
///
/// It is small and `Copy`, and says what went wrong ([`ParseError::kind`]) and
/// where ([`ParseError::position`], a 0-based offset into the input). Its
/// `Display` is a single lowercase sentence, "what, where, expected what":
///
/// ```
/// use uuidkit::Uuid;
/// let err = Uuid::parse("f81d4fae-gdec-11d0-a765-00a0c91e6bf6").unwrap_err();
/// assert_eq!(err.to_string(), "invalid character 'g' at position 9: expected a hex digit");
/// assert_eq!(err.position(), Some(9));
///
/// let err = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf").unwrap_err();
/// assert_eq!(err.to_string(), "group 5 has 11 digits: expected 12");
/// ```
// Packed into 17 bytes (a 56-byte error made every `Result<Uuid, ParseError>`
// expensive to move, even on success). `kind()` rebuilds the public enum.
// Unused fields are always zero, so the derived comparisons and hash match
// those of the unpacked fields.
//
// The layout is chosen for the success path: byte arrays keep the alignment
// at 1, and the `Tag` (7 of 256 values) comes last in a `repr(C)` struct, so
// `Result<Uuid, ParseError>` is 17 bytes with the `Ok` UUID at offset 0 and the
// discriminant in the tag's spare values. Returning or moving an `Ok` is then
// one 16-byte store and one byte, read back by loads the CPU can forward.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct ParseError {
    /// `Expected` or `Form` as a number, or the group (`GroupLength`).
    small: u8,
    /// The expected group width (`GroupLength`).
    width: u8,
    /// 1 for [`Uuid::parse_strict`](crate::Uuid::parse_strict), else 0 (a
    /// `u8`, not a `bool`: a `bool` niche would be chosen over `tag`'s).
    strict: u8,
    /// Always zero (keeps `tag` at offset 16, past an `Ok` UUID).
    reserved: u8,
    /// The position (little-endian), saturated at `NO_POSITION - 1`;
    /// `NO_POSITION` is `None`.
    position: [u8; 4],
    /// The variant's number (a length, a count, a character or a byte) as
    /// little-endian bytes, exact for any `usize`.
    num: [u8; 8],
    /// Which `ParseErrorKind` variant.
    tag: Tag,
}

const NO_POSITION: u32 = u32::MAX;

/// A position as the packed errors keep it: four little-endian bytes,
/// saturated at `NO_POSITION - 1`, `NO_POSITION` for `None`.
pub(crate) const fn pack_position(position: Option<usize>) -> [u8; 4] {
    match position {
        None => NO_POSITION,
        Some(at) if at >= NO_POSITION as usize => NO_POSITION - 1,
        Some(at) => at as u32,
    }
    .to_le_bytes()
}

/// The inverse of [`pack_position`].
pub(crate) const fn unpack_position(packed: [u8; 4]) -> Option<usize> {
    match u32::from_le_bytes(packed) {
        NO_POSITION => None,
        at => Some(at as usize),
    }
}

/// The variants of [`ParseErrorKind`], one byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
enum Tag {
    InvalidLength,
    InvalidCharacter,
    InvalidByte,
    UnexpectedEnd,
    GroupLength,
    GroupCount,
    NotHyphenated,
}

const fn expected_to_u8(e: Expected) -> u8 {
    match e {
        Expected::HexDigit => 0,
        Expected::Hyphen => 1,
        Expected::OpeningBrace => 2,
        Expected::ClosingBrace => 3,
        Expected::UrnPrefix => 4,
    }
}

const fn expected_from_u8(n: u8) -> Expected {
    match n {
        0 => Expected::HexDigit,
        1 => Expected::Hyphen,
        2 => Expected::OpeningBrace,
        3 => Expected::ClosingBrace,
        _ => Expected::UrnPrefix,
    }
}

const fn form_to_u8(f: Form) -> u8 {
    match f {
        Form::Hyphenated => 0,
        Form::Simple => 1,
        Form::Braced => 2,
        Form::Urn => 3,
    }
}

const fn form_from_u8(n: u8) -> Form {
    match n {
        0 => Form::Hyphenated,
        1 => Form::Simple,
        2 => Form::Braced,
        _ => Form::Urn,
    }
}

/// A `usize` as 8 little-endian bytes (exact: `usize` is at most 64 bits;
/// bytes keep `ParseError` at alignment 1, see its layout comment).
const fn split(n: usize) -> [u8; 8] {
    (n as u64).to_le_bytes()
}

const fn join(n: [u8; 8]) -> usize {
    u64::from_le_bytes(n) as usize
}

/// Values that only ever are small (group numbers and widths); saturates.
const fn small(n: usize) -> u8 {
    if n > u8::MAX as usize {
        u8::MAX
    } else {
        n as u8
    }
}

/// What kind of mistake a [`ParseError`] reports.
///
/// ```
/// use uuidkit::{error::ParseErrorKind, Uuid};
/// let err = Uuid::parse("f81d4fae7dec11d0a76500a0c91e6bf").unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::InvalidLength { found: 31 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input has a length (in bytes) that no accepted form has.
    InvalidLength {
        /// The length of the input, in bytes.
        found: usize,
    },
    /// A character that cannot appear at its position.
    InvalidCharacter {
        /// The character found.
        found: char,
        /// What was expected there.
        expected: Expected,
    },
    /// A byte that is not valid UTF-8 (only from byte-slice input).
    InvalidByte {
        /// The byte found.
        found: u8,
        /// What was expected there.
        expected: Expected,
    },
    /// The input ended where more was expected.
    UnexpectedEnd {
        /// What was expected there.
        expected: Expected,
    },
    /// A group of hex digits, between hyphens, of the wrong width.
    GroupLength {
        /// The group, counted from 1.
        group: usize,
        /// How many digits it has.
        found: usize,
        /// How many it should have (8, 4, 4, 4, 12).
        expected: usize,
    },
    /// The wrong number of hyphen-separated groups.
    GroupCount {
        /// How many groups there are.
        found: usize,
    },
    /// [`Uuid::parse_strict`](crate::Uuid::parse_strict) was given a valid UUID
    /// in a form other than the hyphenated one of RFC 9562 §4.
    NotHyphenated {
        /// The form that was found.
        found: Form,
    },
}

/// What a parser expected at the position of a [`ParseError`].
///
/// ```
/// use uuidkit::{error::{Expected, ParseErrorKind}, Uuid};
/// let err = Uuid::parse("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6").unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::UnexpectedEnd { expected: Expected::ClosingBrace });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Expected {
    /// `0`–`9`, `a`–`f` or `A`–`F`.
    HexDigit,
    /// `-`.
    Hyphen,
    /// `{`.
    OpeningBrace,
    /// `}`.
    ClosingBrace,
    /// The `urn:uuid:` prefix (in any case).
    UrnPrefix,
}

/// The four text forms [`Uuid::parse`](crate::Uuid::parse) accepts.
///
/// ```
/// use uuidkit::{error::{Form, ParseErrorKind}, Uuid};
/// let err = Uuid::parse_strict("f81d4fae7dec11d0a76500a0c91e6bf6").unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::NotHyphenated { found: Form::Simple });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Form {
    /// `f81d4fae-7dec-11d0-a765-00a0c91e6bf6` (36 characters, RFC 9562 §4).
    Hyphenated,
    /// `f81d4fae7dec11d0a76500a0c91e6bf6` (32 characters).
    Simple,
    /// `{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}` (38 characters).
    Braced,
    /// `urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6` (45 characters, RFC 9562 §4).
    Urn,
}

impl ParseError {
    #[cold]
    pub(crate) const fn new(kind: ParseErrorKind, position: Option<usize>, strict: bool) -> Self {
        let position = pack_position(position);
        let (tag, small_, width, num) = match kind {
            ParseErrorKind::InvalidLength { found } => (Tag::InvalidLength, 0, 0, split(found)),
            ParseErrorKind::InvalidCharacter { found, expected } => (
                Tag::InvalidCharacter,
                expected_to_u8(expected),
                0,
                split(found as usize),
            ),
            ParseErrorKind::InvalidByte { found, expected } => (
                Tag::InvalidByte,
                expected_to_u8(expected),
                0,
                split(found as usize),
            ),
            ParseErrorKind::UnexpectedEnd { expected } => {
                (Tag::UnexpectedEnd, expected_to_u8(expected), 0, [0; 8])
            }
            ParseErrorKind::GroupLength {
                group,
                found,
                expected,
            } => (
                Tag::GroupLength,
                small(group),
                small(expected),
                split(found),
            ),
            ParseErrorKind::GroupCount { found } => (Tag::GroupCount, 0, 0, split(found)),
            ParseErrorKind::NotHyphenated { found } => {
                (Tag::NotHyphenated, form_to_u8(found), 0, [0; 8])
            }
        };
        ParseError {
            tag,
            small: small_,
            width,
            strict: strict as u8,
            reserved: 0,
            position,
            num,
        }
    }

    /// What went wrong.
    ///
    /// ```
    /// use uuidkit::{error::ParseErrorKind, Uuid};
    /// let err = Uuid::parse("f81d4fae-7dec-11d-a765-00a0c91e6bf6").unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::GroupLength { group: 3, found: 3, expected: 4 });
    /// ```
    #[inline]
    #[must_use]
    pub const fn kind(&self) -> ParseErrorKind {
        let num = join(self.num);
        match self.tag {
            Tag::InvalidLength => ParseErrorKind::InvalidLength { found: num },
            Tag::InvalidCharacter => ParseErrorKind::InvalidCharacter {
                found: match char::from_u32(num as u32) {
                    Some(c) => c,
                    None => char::REPLACEMENT_CHARACTER,
                },
                expected: expected_from_u8(self.small),
            },
            Tag::InvalidByte => ParseErrorKind::InvalidByte {
                found: self.num[0],
                expected: expected_from_u8(self.small),
            },
            Tag::UnexpectedEnd => ParseErrorKind::UnexpectedEnd {
                expected: expected_from_u8(self.small),
            },
            Tag::GroupLength => ParseErrorKind::GroupLength {
                group: self.small as usize,
                found: num,
                expected: self.width as usize,
            },
            Tag::GroupCount => ParseErrorKind::GroupCount { found: num },
            Tag::NotHyphenated => ParseErrorKind::NotHyphenated {
                found: form_from_u8(self.small),
            },
        }
    }

    /// Where it went wrong: the 0-based offset into the input of the bad
    /// character, of the first digit of a bad group, or of the end of the input.
    /// `None` for errors about the whole input (its length, its group count, its form).
    ///
    /// Everything before this position is ASCII, so the offset counts bytes and
    /// characters alike, and can place a caret under the mistake.
    ///
    /// Positions are stored in 32 bits: one at or past 4 GiB - 1 (only in an
    /// input of at least that size) is reported as `u32::MAX - 1`.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let input = "f81d4fae-7dec-11d0-a765-00a0c91e6bfx";
    /// let err = Uuid::parse(input).unwrap_err();
    /// assert_eq!(err.position(), Some(35));
    /// assert_eq!(&input[35..], "x");
    /// ```
    #[inline]
    #[must_use]
    pub const fn position(&self) -> Option<usize> {
        unpack_position(self.position)
    }

    /// Whether the error came from [`Uuid::parse_strict`](crate::Uuid::parse_strict).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// assert!(Uuid::parse_strict("").unwrap_err().is_strict());
    /// assert!(!Uuid::parse("").unwrap_err().is_strict());
    /// ```
    #[inline]
    #[must_use]
    pub const fn is_strict(&self) -> bool {
        self.strict != 0
    }

    /// A fixed summary of the error, usable where formatting is not (in `const`).
    pub(crate) const fn summary(&self) -> &'static str {
        match self.kind() {
            ParseErrorKind::InvalidLength { .. } => {
                "invalid length: expected 36 (hyphenated), 32, 38 or 45 characters"
            }
            ParseErrorKind::InvalidCharacter { expected, .. }
            | ParseErrorKind::InvalidByte { expected, .. } => match expected {
                Expected::HexDigit => "invalid character: expected a hex digit",
                Expected::Hyphen => "invalid character: expected '-'",
                Expected::OpeningBrace => "invalid character: expected '{'",
                Expected::ClosingBrace => "invalid character: expected '}'",
                Expected::UrnPrefix => "invalid character: expected \"urn:uuid:\"",
            },
            ParseErrorKind::UnexpectedEnd { .. } => "unexpected end of input: expected '}'",
            ParseErrorKind::GroupLength { .. } => {
                "a group has the wrong number of digits: expected 8-4-4-4-12"
            }
            ParseErrorKind::GroupCount { .. } => {
                "wrong number of groups: expected 5 groups of hex digits separated by '-'"
            }
            ParseErrorKind::NotHyphenated { .. } => {
                "not the hyphenated form: expected 8-4-4-4-12 hex digits"
            }
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::HexDigit => "a hex digit",
            Expected::Hyphen => "'-'",
            Expected::OpeningBrace => "'{'",
            Expected::ClosingBrace => "'}'",
            Expected::UrnPrefix => "\"urn:uuid:\"",
        })
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Form::Hyphenated => "hyphenated",
            Form::Simple => "simple",
            Form::Braced => "braced",
            Form::Urn => "URN",
        })
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.position().unwrap_or(0);
        match self.kind() {
            ParseErrorKind::InvalidLength { found } if self.is_strict() => {
                write!(f, "invalid length {found}: expected 36")
            }
            ParseErrorKind::InvalidLength { found } => {
                write!(
                    f,
                    "invalid length {found}: expected 36 (hyphenated), 32, 38 or 45"
                )
            }
            ParseErrorKind::InvalidCharacter { found, expected } => {
                write!(
                    f,
                    "invalid character {found:?} at position {at}: expected {expected}"
                )
            }
            ParseErrorKind::InvalidByte { found, expected } => {
                write!(
                    f,
                    "invalid byte 0x{found:02x} at position {at}: expected {expected}"
                )
            }
            ParseErrorKind::UnexpectedEnd { expected } => {
                write!(
                    f,
                    "unexpected end of input at position {at}: expected {expected}"
                )
            }
            ParseErrorKind::GroupLength {
                group,
                found,
                expected,
            } => write!(f, "group {group} has {found} digits: expected {expected}"),
            ParseErrorKind::GroupCount { found } => write!(
                f,
                "found {found} group{}: expected 5 groups of hex digits separated by '-'",
                if found == 1 { "" } else { "s" }
            ),
            ParseErrorKind::NotHyphenated { found } => write!(
                f,
                "found the {found} form: strict parsing expects the hyphenated form (8-4-4-4-12 hex digits)"
            ),
        }
    }
}

impl fmt::Debug for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParseError")
            .field("kind", &self.kind())
            .field("position", &self.position())
            .field("strict", &self.is_strict())
            .finish()
    }
}

impl core::error::Error for ParseError {}

/// The error returned by [`Uuid::from_slice`](crate::Uuid::from_slice) and
/// `Uuid::try_from(&[u8])`: the slice was not 16 bytes long.
///
/// Database drivers hand over a column's bytes as a slice whose length the
/// column, not the type, decides; this says how long it was.
///
/// ```
/// use uuidkit::Uuid;
/// let err = Uuid::from_slice(&[0xab; 15]).unwrap_err();
/// assert_eq!(err.found(), 15);
/// assert_eq!(err.to_string(), "invalid length 15 bytes: expected 16");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LengthError {
    found: usize,
}

impl LengthError {
    #[cold]
    pub(crate) const fn new(found: usize) -> Self {
        LengthError { found }
    }

    /// The length of the slice, in bytes (never 16).
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::from_slice(&[]).unwrap_err().found(), 0);
    /// ```
    #[inline]
    #[must_use]
    pub const fn found(&self) -> usize {
        self.found
    }
}

impl fmt::Display for LengthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid length {} bytes: expected 16", self.found)
    }
}

impl core::error::Error for LengthError {}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::Uuid;
    use std::format;

    #[test]
    fn parse_result_is_small() {
        assert_eq!(core::mem::size_of::<ParseError>(), 17);
        assert_eq!(core::mem::size_of::<Result<Uuid, ParseError>>(), 17);
    }

    /// The success path's layout (see the comment on `ParseError`): the `Ok`
    /// UUID at offset 0, not behind a discriminant byte. Not a correctness
    /// property, but the parse benchmark depends on it.
    #[test]
    fn ok_uuid_is_at_offset_zero() {
        let r: Result<Uuid, ParseError> = Ok(Uuid::MAX);
        // SAFETY: reading the initialised bytes of a 17-byte value (the
        // `Ok` variant leaves no padding: 16 payload bytes and the niche).
        let bytes: [u8; 17] = unsafe { core::mem::transmute(r) };
        assert_eq!(&bytes[..16], Uuid::MAX.as_bytes());
    }

    #[test]
    fn every_kind_round_trips() {
        let kinds = [
            ParseErrorKind::InvalidLength { found: usize::MAX },
            ParseErrorKind::InvalidLength { found: 0 },
            ParseErrorKind::InvalidCharacter {
                found: '\u{10ffff}',
                expected: Expected::UrnPrefix,
            },
            ParseErrorKind::InvalidCharacter {
                found: 'g',
                expected: Expected::HexDigit,
            },
            ParseErrorKind::InvalidByte {
                found: 0xff,
                expected: Expected::ClosingBrace,
            },
            ParseErrorKind::UnexpectedEnd {
                expected: Expected::ClosingBrace,
            },
            ParseErrorKind::GroupLength {
                group: 5,
                found: usize::MAX - 1,
                expected: 12,
            },
            ParseErrorKind::GroupCount { found: usize::MAX },
            ParseErrorKind::NotHyphenated { found: Form::Urn },
            ParseErrorKind::NotHyphenated {
                found: Form::Hyphenated,
            },
        ];
        for kind in kinds {
            for (position, strict) in [
                (None, false),
                (Some(0), true),
                (Some(u32::MAX as usize - 2), false),
            ] {
                let err = ParseError::new(kind, position, strict);
                assert_eq!(err.kind(), kind);
                assert_eq!(err.position(), position);
                assert_eq!(err.is_strict(), strict);
            }
        }
    }

    #[test]
    fn huge_positions_saturate() {
        let kind = ParseErrorKind::UnexpectedEnd {
            expected: Expected::ClosingBrace,
        };
        let err = ParseError::new(kind, Some(usize::MAX), false);
        assert_eq!(err.position(), Some(u32::MAX as usize - 1));
    }

    #[test]
    fn debug_shows_kind_position_strict() {
        let err = Uuid::parse("f81d4fae-gdec-11d0-a765-00a0c91e6bf6").unwrap_err();
        assert_eq!(
            format!("{err:?}"),
            "ParseError { kind: InvalidCharacter { found: 'g', expected: HexDigit }, position: Some(9), strict: false }"
        );
    }
}
