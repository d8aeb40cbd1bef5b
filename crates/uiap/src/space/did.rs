//! Domain IDs (§2.2, §4.1) and their text notation (§6.1, docs/uiap-design.md D9).

use core::fmt;
use core::str::FromStr;

/// How the UIDs of a domain are aligned: the J flag of the Domain ID (§3.2.1.1).
///
/// The justification decides the order of UIDs (docs/uiap-design.md D7) and whether prefixes are
/// valid (only in left-justified domains, §3.2.2).
///
/// ```
/// use uiap::space::{DomainId, Justification};
///
/// let did: DomainId = "1:2:3:80".parse()?;
/// assert_eq!(did.justification(), Justification::Right);
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Justification {
    /// J = 0: UIDs are aligned on their leftmost octet (IPv4 prefixes, DNS names).
    Left,
    /// J = 1: UIDs are aligned on their rightmost octet (variable-size integers).
    Right,
}

/// An 8-octet Domain ID: seven identifier octets and the flags octet (octet 7), whose top bit
/// is the justification flag J (`0x80`).
///
/// Two claims can only conflict if their Domain IDs are byte-identical, all 8 octets including
/// the reserved flag bits (docs/uiap-design.md D8). The text form is four colon-separated
/// hexadecimal quads (§6.1, docs/uiap-design.md D9); [`Display`](fmt::Display) prints the canonical
/// form: lowercase, no leading zeros.
///
/// ```
/// use uiap::space::DomainId;
///
/// let did: DomainId = "0FFF:0000:0000:0001".parse()?;
/// assert_eq!(did.as_bytes(), &[0x0f, 0xff, 0, 0, 0, 0, 0, 1]);
/// assert_eq!(did.to_string(), "fff:0:0:1");
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct DomainId([u8; 8]);

impl DomainId {
    /// The justification flag in the flags octet (octet 7).
    pub const J_FLAG: u8 = 0x80;

    /// The other seven bits of the flags octet: reserved, and 0 in every Domain ID a device
    /// sends (§4.1).
    ///
    /// ```
    /// use uiap::space::DomainId;
    ///
    /// let did: DomainId = "fff:0:0:7f".parse()?;
    /// assert_eq!(did.as_bytes()[7] & DomainId::RESERVED_FLAGS, 0x7f);
    /// assert_eq!(DomainId::RESERVED_FLAGS | DomainId::J_FLAG, 0xff);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const RESERVED_FLAGS: u8 = !Self::J_FLAG;

    /// Creates a Domain ID from its 8 octets as they appear on the wire.
    ///
    /// ```
    /// use uiap::space::DomainId;
    ///
    /// let did = DomainId::from_bytes([0, 1, 0, 2, 0, 3, 0, 0]);
    /// assert_eq!(did.to_string(), "1:2:3:0");
    /// ```
    pub const fn from_bytes(b: [u8; 8]) -> Self {
        DomainId(b)
    }

    /// Returns the 8 octets as they appear on the wire.
    ///
    /// ```
    /// use uiap::space::DomainId;
    ///
    /// let did = DomainId::from_bytes([0, 1, 0, 2, 0, 3, 0, 0x80]);
    /// assert_eq!(did.as_bytes()[7], DomainId::J_FLAG);
    /// ```
    pub const fn as_bytes(&self) -> &[u8; 8] {
        &self.0
    }

    /// Returns the justification encoded in the J flag (octet 7, mask `0x80`).
    ///
    /// ```
    /// use uiap::space::{DomainId, Justification};
    ///
    /// assert_eq!(DomainId::from_bytes([0; 8]).justification(), Justification::Left);
    /// assert_eq!(DomainId::from_bytes([0, 0, 0, 0, 0, 0, 0, 0x80]).justification(), Justification::Right);
    /// ```
    pub fn justification(&self) -> Justification {
        if self.0[7] & Self::J_FLAG != 0 {
            Justification::Right
        } else {
            Justification::Left
        }
    }
}

impl FromStr for DomainId {
    type Err = ParseDomainError;

    /// Parses the §6.1 notation: four colon-separated quads of 1–4 hex digits, any case.
    ///
    /// # Errors
    ///
    /// A [`ParseDomainError`] naming what was expected, what was found and the byte offset.
    /// The wildcards `*` and `?` are rejected with [`ParseDomainErrorKind::WildcardInId`]; use
    /// [`DomainPattern`] for them.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (value, _) = parse_quads(s, false)?;
        Ok(DomainId(value.to_be_bytes()))
    }
}

impl fmt::Display for DomainId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, quad) in self.0.chunks_exact(2).enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{:x}", u16::from_be_bytes([quad[0], quad[1]]))?;
        }
        Ok(())
    }
}

/// A set of Domain IDs written with the §6.1 wildcards: `*` for one whole quad, `?` for one hex
/// digit inside a quad written with all four digits (docs/uiap-design.md D9).
///
/// `1:2:3:*` matches `0001:0002:0003:0000` through `0001:0002:0003:ffff` (both justifications);
/// `1:2:3:0???` matches `…:0000` through `…:0fff`. A pattern without wildcards matches exactly one
/// Domain ID. [`Display`](fmt::Display) prints the canonical form: lowercase, no leading zeros in
/// plain quads, `*` for a quad that is all wildcards.
///
/// ```
/// use uiap::space::{DomainId, DomainPattern};
///
/// let pattern: DomainPattern = "1:2:3:0???".parse()?;
/// assert!(pattern.matches(&"1:2:3:fff".parse::<DomainId>()?));
/// assert!(!pattern.matches(&"1:2:3:1000".parse::<DomainId>()?));
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct DomainPattern {
    /// The required value of every bit under `mask`; zero elsewhere.
    value: u64,
    /// One bits where the Domain ID must equal `value`.
    mask: u64,
}

impl DomainPattern {
    /// Returns true if `did` is one of the Domain IDs this pattern stands for.
    ///
    /// ```
    /// use uiap::space::{DomainId, DomainPattern};
    ///
    /// let pattern: DomainPattern = "1:2:3:*".parse()?;
    /// assert!(pattern.matches(&DomainId::from_bytes([0, 1, 0, 2, 0, 3, 0xab, 0xcd])));
    /// assert!(!pattern.matches(&DomainId::from_bytes([0, 1, 0, 2, 0, 4, 0xab, 0xcd])));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn matches(&self, did: &DomainId) -> bool {
        u64::from_be_bytes(did.0) & self.mask == self.value
    }
}

impl From<DomainId> for DomainPattern {
    /// The pattern that matches exactly `did`.
    ///
    /// ```
    /// use uiap::space::{DomainId, DomainPattern};
    ///
    /// let did: DomainId = "fff:0:0:1".parse()?;
    /// assert!(DomainPattern::from(did).matches(&did));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn from(did: DomainId) -> Self {
        DomainPattern {
            value: u64::from_be_bytes(did.0),
            mask: u64::MAX,
        }
    }
}

impl FromStr for DomainPattern {
    type Err = ParseDomainError;

    /// Parses the §6.1 notation with the `*` and `?` wildcards.
    ///
    /// # Errors
    ///
    /// A [`ParseDomainError`] naming what was expected, what was found and the byte offset.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (value, mask) = parse_quads(s, true)?;
        Ok(DomainPattern { value, mask })
    }
}

impl fmt::Display for DomainPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..4 {
            if i > 0 {
                f.write_str(":")?;
            }
            let shift = 48 - 16 * i;
            let value = (self.value >> shift) as u16;
            let mask = (self.mask >> shift) as u16;
            match mask {
                0xffff => write!(f, "{value:x}")?,
                0 => f.write_str("*")?,
                _ => {
                    for nibble in (0..4).rev() {
                        if (mask >> (4 * nibble)) & 0xf == 0 {
                            f.write_str("?")?;
                        } else {
                            write!(f, "{:x}", (value >> (4 * nibble)) & 0xf)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Parses four quads; returns the value and the mask of the bits that were given.
fn parse_quads(s: &str, wildcards: bool) -> Result<(u64, u64), ParseDomainError> {
    let mut value = 0u64;
    let mut mask = 0u64;
    let mut quads = 0usize;
    let mut start = 0usize;
    for piece in s.split(':') {
        let at = start;
        start += piece.len() + 1;
        if quads == 4 {
            // `at - 1` is the colon that opened a fifth quad.
            return Err(ParseDomainError::new(
                ParseDomainErrorKind::TooManyQuads,
                at - 1,
                Some(':'),
            ));
        }
        let (v, m) = parse_quad(piece, at, wildcards, s)?;
        value = (value << 16) | u64::from(v);
        mask = (mask << 16) | u64::from(m);
        quads += 1;
    }
    if quads < 4 {
        return Err(ParseDomainError {
            kind: ParseDomainErrorKind::TooFewQuads,
            at: s.len(),
            found: None,
            quads,
        });
    }
    Ok((value, mask))
}

/// Parses one quad that starts at byte offset `at` of the whole input `s`.
fn parse_quad(
    piece: &str,
    at: usize,
    wildcards: bool,
    s: &str,
) -> Result<(u16, u16), ParseDomainError> {
    if piece.is_empty() {
        return Err(ParseDomainError::new(
            ParseDomainErrorKind::EmptyQuad,
            at,
            s[at..].chars().next(),
        ));
    }
    if piece == "*" {
        return if wildcards {
            Ok((0, 0))
        } else {
            Err(ParseDomainError::new(
                ParseDomainErrorKind::WildcardInId,
                at,
                Some('*'),
            ))
        };
    }
    // Characters first, then the length, then where the wildcards stand.
    for (offset, c) in piece.char_indices() {
        match c {
            '*' | '?' if !wildcards => {
                return Err(ParseDomainError::new(
                    ParseDomainErrorKind::WildcardInId,
                    at + offset,
                    Some(c),
                ));
            }
            '*' | '?' => {}
            _ if c.is_ascii_hexdigit() => {}
            _ => {
                return Err(ParseDomainError::new(
                    ParseDomainErrorKind::InvalidChar,
                    at + offset,
                    Some(c),
                ));
            }
        }
    }
    if let Some((offset, c)) = piece.char_indices().nth(4) {
        return Err(ParseDomainError::new(
            ParseDomainErrorKind::QuadTooLong,
            at + offset,
            Some(c),
        ));
    }
    let mut value = 0u16;
    let mut mask = 0u16;
    for (offset, c) in piece.char_indices() {
        let (nibble, given) = match c {
            '*' => {
                return Err(ParseDomainError::new(
                    ParseDomainErrorKind::StarInQuad,
                    at + offset,
                    Some(c),
                ));
            }
            '?' if piece.len() != 4 => {
                return Err(ParseDomainError::new(
                    ParseDomainErrorKind::QuestionInShortQuad,
                    at + offset,
                    Some(c),
                ));
            }
            '?' => (0, 0),
            // Only ASCII hex digits are left.
            _ => (c.to_digit(16).unwrap_or(0) as u16, 0xf),
        };
        value = (value << 4) | nibble;
        mask = (mask << 4) | given;
    }
    // Fewer than four digits: the leading digits that were left out are zeros, and given.
    let digits = piece.chars().count();
    let implied = if digits == 4 {
        0
    } else {
        !0u16 << (4 * digits)
    };
    Ok((value, mask | implied))
}

/// Why a Domain ID or Domain ID pattern could not be parsed from text.
///
/// ```
/// use uiap::space::{DomainId, ParseDomainErrorKind};
///
/// let err = "1:2:g:0".parse::<DomainId>().unwrap_err();
/// assert_eq!(err.kind(), ParseDomainErrorKind::InvalidChar);
/// assert_eq!(err.position(), 4);
/// assert_eq!(err.to_string(), "invalid character: expected hex digit, found `g` at 4");
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseDomainError {
    kind: ParseDomainErrorKind,
    at: usize,
    found: Option<char>,
    quads: usize,
}

/// The reason a [`ParseDomainError`] was returned.
///
/// ```
/// use uiap::space::{DomainPattern, ParseDomainErrorKind};
///
/// let err = "1:2:3:???".parse::<DomainPattern>().unwrap_err();
/// assert_eq!(err.kind(), ParseDomainErrorKind::QuestionInShortQuad);
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum ParseDomainErrorKind {
    /// The input ended before the fourth quad (`1:2:3`).
    TooFewQuads,
    /// A fifth quad follows the fourth (`1:2:3:4:5`).
    TooManyQuads,
    /// A quad has no characters: `::`, a leading or trailing colon, or the empty string.
    EmptyQuad,
    /// A quad has more than four characters.
    QuadTooLong,
    /// A character that is neither a hex digit nor a colon (nor, in patterns, a wildcard).
    InvalidChar,
    /// `*` or `?` in a Domain ID; only a [`DomainPattern`] may contain them.
    WildcardInId,
    /// `*` mixed with other characters in one quad; it must stand for a whole quad.
    StarInQuad,
    /// `?` in a quad not written with exactly four characters (`1:2:3:???`).
    QuestionInShortQuad,
}

impl ParseDomainError {
    fn new(kind: ParseDomainErrorKind, at: usize, found: Option<char>) -> Self {
        ParseDomainError {
            kind,
            at,
            found,
            quads: 0,
        }
    }

    /// The reason for the error.
    ///
    /// ```
    /// use uiap::space::{DomainId, ParseDomainErrorKind};
    ///
    /// let err = "1::3:0".parse::<DomainId>().unwrap_err();
    /// assert_eq!(err.kind(), ParseDomainErrorKind::EmptyQuad);
    /// ```
    pub fn kind(&self) -> ParseDomainErrorKind {
        self.kind
    }

    /// The byte offset in the input where the problem was found (the input length if it ended
    /// too early).
    ///
    /// ```
    /// use uiap::space::DomainId;
    ///
    /// let err = "1:2:3".parse::<DomainId>().unwrap_err();
    /// assert_eq!(err.position(), 5);
    /// ```
    pub fn position(&self) -> usize {
        self.at
    }
}

/// Writes the offending character, escaped, or "end of input".
struct Found(Option<char>);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(c) => write!(f, "`{}`", c.escape_debug()),
            None => f.write_str("end of input"),
        }
    }
}

impl fmt::Display for ParseDomainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let found = Found(self.found);
        let at = self.at;
        match self.kind {
            ParseDomainErrorKind::TooFewQuads => write!(
                f,
                "too few quads: expected 4 colon-separated quads, found {} and end of input at {at}",
                self.quads
            ),
            ParseDomainErrorKind::TooManyQuads => {
                write!(
                    f,
                    "too many quads: expected end of input after 4 quads, found {found} at {at}"
                )
            }
            ParseDomainErrorKind::EmptyQuad => {
                write!(
                    f,
                    "empty quad: expected 1 to 4 hex digits, found {found} at {at}"
                )
            }
            ParseDomainErrorKind::QuadTooLong => {
                write!(
                    f,
                    "quad too long: expected at most 4 hex digits, found {found} at {at}"
                )
            }
            ParseDomainErrorKind::InvalidChar => {
                write!(
                    f,
                    "invalid character: expected hex digit, found {found} at {at}"
                )
            }
            ParseDomainErrorKind::WildcardInId => write!(
                f,
                "wildcard in domain id: expected hex digit (wildcards only in patterns), found {found} at {at}"
            ),
            ParseDomainErrorKind::StarInQuad => {
                write!(
                    f,
                    "misplaced `*`: expected `*` alone as a whole quad, found {found} at {at}"
                )
            }
            ParseDomainErrorKind::QuestionInShortQuad => write!(
                f,
                "misplaced `?`: expected `?` only in a quad written with all 4 digits, found {found} at {at}"
            ),
        }
    }
}

impl std::error::Error for ParseDomainError {}
