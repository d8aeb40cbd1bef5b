//! [`ParseError`]: what went wrong while reading a UUID from text, and where.
//!
//! The parsers in `parse.rs` fail cheaply (an `Option`), and only then is the
//! input scanned a second time, here, to name the offending character and its
//! position or the malformed group. The happy path never builds a diagnostic.

use core::fmt;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseError {
    kind: ParseErrorKind,
    position: Option<usize>,
    strict: bool,
}

/// What kind of mistake a [`ParseError`] reports.
///
/// ```
/// use uuidkit::{ParseErrorKind, Uuid};
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
/// use uuidkit::{Expected, ParseErrorKind, Uuid};
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
/// use uuidkit::{Form, ParseErrorKind, Uuid};
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
        ParseError {
            kind,
            position,
            strict,
        }
    }

    /// What went wrong.
    ///
    /// ```
    /// use uuidkit::{ParseErrorKind, Uuid};
    /// let err = Uuid::parse("f81d4fae-7dec-11d-a765-00a0c91e6bf6").unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::GroupLength { group: 3, found: 3, expected: 4 });
    /// ```
    #[inline]
    pub const fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// Where it went wrong: the 0-based offset into the input of the bad
    /// character, of the first digit of a bad group, or of the end of the input.
    /// `None` for errors about the whole input (its length, its group count, its form).
    ///
    /// Everything before this position is ASCII, so the offset counts bytes and
    /// characters alike, and can place a caret under the mistake.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let input = "f81d4fae-7dec-11d0-a765-00a0c91e6bfx";
    /// let err = Uuid::parse(input).unwrap_err();
    /// assert_eq!(err.position(), Some(35));
    /// assert_eq!(&input[35..], "x");
    /// ```
    #[inline]
    pub const fn position(&self) -> Option<usize> {
        self.position
    }

    /// Whether the error came from [`Uuid::parse_strict`](crate::Uuid::parse_strict).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// assert!(Uuid::parse_strict("").unwrap_err().is_strict());
    /// assert!(!Uuid::parse("").unwrap_err().is_strict());
    /// ```
    #[inline]
    pub const fn is_strict(&self) -> bool {
        self.strict
    }

    /// A fixed summary of the error, usable where formatting is not (in `const`).
    pub(crate) const fn summary(&self) -> &'static str {
        match self.kind {
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
        let at = self.position.unwrap_or(0);
        match self.kind {
            ParseErrorKind::InvalidLength { found } if self.strict => {
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

impl core::error::Error for ParseError {}
