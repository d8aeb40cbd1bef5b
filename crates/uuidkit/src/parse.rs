//! Reading UUIDs from text: [`Uuid::parse`] (the four common forms) and
//! [`Uuid::parse_strict`] (the ABNF of RFC 9562 §4 only).
//!
//! Fast path first: the length selects the form, the hyphens are checked, the
//! 32 hex digits are gathered and decoded at once (by [`crate::arch`], with
//! the best vector code the CPU has; the table here elsewhere), and failure
//! is a single sentinel value. Only then does [`diagnose`] scan the input
//! again to say what is wrong and where.

use crate::Uuid;
use crate::error::{Expected, Form, ParseError, ParseErrorKind};
use crate::hex::{FAILED, Fast};

/// Hex digit values, 0xff for anything else.
const HEX: [u8; 256] = {
    let mut t = [0xff_u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

const URN_PREFIX: &[u8; 9] = b"urn:uuid:";

impl Uuid {
    /// Parses any of the four common text forms, with hex digits in any case:
    ///
    /// | form | example |
    /// |---|---|
    /// | hyphenated (RFC 9562 §4) | `f81d4fae-7dec-11d0-a765-00a0c91e6bf6` |
    /// | simple | `f81d4fae7dec11d0a76500a0c91e6bf6` |
    /// | braced | `{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}` |
    /// | URN (RFC 9562 §4, prefix in any case) | `urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6` |
    ///
    /// Anything else is an error. The input may be a `&str` or a byte slice
    /// (anything that is `AsRef<[u8]>`). [`FromStr`](core::str::FromStr) does the same.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] saying what is wrong and where (see its docs). This
    /// function never panics, whatever the input.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let expected = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// for text in [
    ///     "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    ///     "F81D4FAE7DEC11D0A76500A0C91E6BF6",
    ///     "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
    ///     "URN:UUID:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    /// ] {
    ///     assert_eq!(Uuid::parse(text)?, expected);
    /// }
    /// assert_eq!(Uuid::parse(b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?, expected);
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    #[inline]
    #[doc(alias("try_parse_ascii"))]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, ParseError> {
        let s = input.as_ref();
        match s.split_first_chunk::<36>() {
            Some((body, [])) => {
                let mut bytes = [0u8; 16];
                if hyphenated(body, &mut bytes) {
                    return Ok(Uuid::from_bytes(bytes));
                }
            }
            _ => {
                let bytes = other_forms_fast(s);
                if bytes != FAILED {
                    return Ok(Uuid::from_bytes(bytes.to_ne_bytes()));
                }
            }
        }
        max_or_error(s, false)
    }

    /// Parses only the hyphenated form of RFC 9562 §4 (its ABNF: 8-4-4-4-12
    /// hex digits, in any case, 36 characters, nothing around them).
    ///
    /// # Errors
    ///
    /// A [`ParseError`] saying what is wrong and where; a valid UUID in one of
    /// the other forms gives [`ParseErrorKind::NotHyphenated`]. Never panics.
    ///
    /// ```
    /// use uuidkit::{error::{Form, ParseErrorKind}, Uuid};
    /// assert!(Uuid::parse_strict("F81D4FAE-7dec-11D0-A765-00a0c91e6bf6").is_ok());
    /// let err = Uuid::parse_strict("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}").unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::NotHyphenated { found: Form::Braced });
    /// ```
    #[inline]
    pub fn parse_strict<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, ParseError> {
        let s = input.as_ref();
        if let Some((body, [])) = s.split_first_chunk::<36>() {
            let mut bytes = [0u8; 16];
            if hyphenated(body, &mut bytes) {
                return Ok(Uuid::from_bytes(bytes));
            }
        }
        max_or_error(s, true)
    }

    /// The `const` parser behind [`uuid!`](crate::uuid!): the same forms as
    /// [`Uuid::parse`], decoded without SIMD, and a fixed error summary (`const`
    /// code cannot format) when the input is not a UUID.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// const DNS: Result<Uuid, &str> = Uuid::parse_const("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    /// assert_eq!(DNS, Ok(uuidkit::namespace::DNS));
    /// assert!(Uuid::parse_const("6ba7b810").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// A static message naming the kind of mistake; use [`Uuid::parse`] at run
    /// time for the position.
    #[doc(alias("try_parse"))]
    pub const fn parse_const(input: &str) -> Result<Uuid, &'static str> {
        let s = input.as_bytes();
        match decode_lenient_scalar(s) {
            Some(b) => Ok(Uuid::from_bytes(b)),
            None => Err(const_diagnose(s)),
        }
    }
}

impl core::str::FromStr for Uuid {
    type Err = ParseError;

    /// Same as [`Uuid::parse`].
    #[inline]
    fn from_str(s: &str) -> Result<Uuid, ParseError> {
        Uuid::parse(s)
    }
}

impl TryFrom<&str> for Uuid {
    type Error = ParseError;

    /// Same as [`Uuid::parse`].
    #[inline]
    fn try_from(s: &str) -> Result<Uuid, ParseError> {
        Uuid::parse(s)
    }
}

/// The 32 hex digit positions of the simple form.
const SIMPLE: [u8; 32] = {
    let mut p = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        p[i] = i as u8;
        i += 1;
    }
    p
};

/// The 32 hex digit positions of the hyphenated form.
pub(crate) const HYPHENATED: [u8; 32] = {
    let mut p = [0u8; 32];
    let mut i = 0;
    let mut j = 0;
    while j < 36 {
        if !(j == 8 || j == 13 || j == 18 || j == 23) {
            p[i] = j as u8;
            i += 1;
        }
        j += 1;
    }
    p
};

const fn urn_prefix_ok(s: &[u8]) -> bool {
    let mut i = 0;
    while i < 9 {
        if s[i].to_ascii_lowercase() != URN_PREFIX[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Hyphens at 8, 13, 18, 23 of the 36-byte body at `off`, then the digits.
const fn decode_scalar_checked(s: &[u8], off: usize) -> Option<[u8; 16]> {
    if s[off + 8] != b'-' || s[off + 13] != b'-' || s[off + 18] != b'-' || s[off + 23] != b'-' {
        return None;
    }
    let mut pos = HYPHENATED;
    let mut i = 0;
    while i < 32 {
        pos[i] += off as u8;
        i += 1;
    }
    decode_scalar(s, &pos)
}

/// Decodes the 32 hex digits at `pos` in `s`: a table lookup per digit, one
/// check at the end.
const fn decode_scalar(s: &[u8], pos: &[u8; 32]) -> Option<[u8; 16]> {
    let mut out = [0u8; 16];
    let mut bad = 0u8;
    let mut i = 0;
    while i < 16 {
        let hi = HEX[s[pos[2 * i] as usize] as usize];
        let lo = HEX[s[pos[2 * i + 1] as usize] as usize];
        bad |= hi | lo;
        out[i] = (hi << 4) | (lo & 0x0f);
        i += 1;
    }
    if bad & 0xf0 != 0 { None } else { Some(out) }
}

/// The portable decoder for 32 contiguous hex digits: a table lookup per
/// digit (the fallback where [`crate::arch`] has no vector code, and the
/// reference its decoders are tested against).
#[inline]
pub(crate) fn decode32_scalar(digits: &[u8; 32]) -> Option<[u8; 16]> {
    decode_scalar(digits, &SIMPLE)
}

/// The portable decoder of the hyphenated form (as [`decode32_scalar`]).
#[inline]
pub(crate) const fn decode_hyphenated_scalar(s: &[u8; 36]) -> Option<[u8; 16]> {
    decode_scalar_checked(s, 0)
}

/// The slow end of the fast paths, for a text they refused or a [`FAILED`]
/// result (which the Max UUID's text gives too, see [`Fast`]): the Max UUID in
/// one of the accepted forms, or an error that says what and where.
#[cold]
#[inline(never)]
fn max_or_error(s: &[u8], strict: bool) -> Result<Uuid, ParseError> {
    if is_valid_max(s, strict) {
        Ok(Uuid::MAX)
    } else {
        Err(diagnose(s, strict))
    }
}

/// Whether an input the fast paths reported as [`FAILED`] is in fact the Max
/// UUID, written in a form the parser accepts.
#[cold]
#[inline(never)]
fn is_valid_max(s: &[u8], strict: bool) -> bool {
    // The last hex digit of every form: one compare rejects almost every
    // invalid input before the full decode.
    let last_digit = match s.len() {
        38 => s[36],
        _ => s.last().copied().unwrap_or(0),
    };
    (!strict || s.len() == 36) && last_digit | 0x20 == b'f' && decode_lenient_scalar(s).is_some()
}

/// The four lenient forms with the scalar decoder (the `const` parser, and
/// the cold path of the fast ones).
const fn decode_lenient_scalar(s: &[u8]) -> Option<[u8; 16]> {
    match s.len() {
        32 => decode_scalar(s, &SIMPLE),
        36 => decode_scalar_checked(s, 0),
        38 if s[0] == b'{' && s[37] == b'}' => decode_scalar_checked(s, 1),
        45 if urn_prefix_ok(s) => decode_scalar_checked(s, 9),
        _ => None,
    }
}

/// A portable decoder's result as a [`Fast`] one.
#[inline(always)]
pub(crate) fn to_fast(decoded: Option<[u8; 16]>) -> Fast {
    match decoded {
        Some(b) => u128::from_ne_bytes(b),
        None => FAILED,
    }
}
/// Decodes the 36-byte hyphenated form into `out` with the best decoder
/// this CPU has; `false` (and `out` unspecified) if it is not one. The
/// bytes go into the caller's buffer, and only the verdict comes back (see
/// `arch::x86_64::decode`).
#[inline(always)]
fn hyphenated(s: &[u8; 36], out: &mut [u8; 16]) -> bool {
    crate::arch::decode_hyphenated(s, out)
        .unwrap_or_else(|| decode_hyphenated_scalar(s).map(|b| *out = b).is_some())
}

/// Decodes the simple form into `out`, as [`hyphenated`].
#[inline(always)]
fn simple(digits: &[u8; 32], out: &mut [u8; 16]) -> bool {
    crate::arch::decode_simple(digits, out)
        .unwrap_or_else(|| decode32_scalar(digits).map(|b| *out = b).is_some())
}

/// The lenient parser without a diagnosis: `None` on any error.
#[inline]
pub(crate) fn parse_lenient(s: &[u8]) -> Option<Uuid> {
    if let Some((body, [])) = s.split_first_chunk::<36>() {
        let mut bytes = [0u8; 16];
        return hyphenated(body, &mut bytes).then(|| Uuid::from_bytes(bytes));
    }
    let bytes = other_forms_fast(s);
    if bytes != FAILED {
        return Some(Uuid::from_bytes(bytes.to_ne_bytes()));
    }
    is_valid_max(s, false).then_some(Uuid::MAX)
}

/// Simple, braced and URN forms, fast (out of line: the canonical form is
/// the one to keep small in the caller), as a [`Fast`] value (which comes
/// back in two registers).
#[inline(never)]
fn other_forms_fast(s: &[u8]) -> Fast {
    let mut bytes = [0u8; 16];
    let valid = match s.len() {
        32 => s.first_chunk::<32>().is_some_and(|d| simple(d, &mut bytes)),
        38 if s[0] == b'{' && s[37] == b'}' => s[1..]
            .first_chunk::<36>()
            .is_some_and(|b| hyphenated(b, &mut bytes)),
        45 if urn_prefix_ok(s) => s[9..]
            .first_chunk::<36>()
            .is_some_and(|b| hyphenated(b, &mut bytes)),
        _ => false,
    };
    to_fast(valid.then_some(bytes))
}

// ---------------------------------------------------------------------------
// The failure path: say what is wrong, and where.

/// Widths of the five groups of the hyphenated form.
const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];

#[cold]
#[inline(never)]
pub(crate) fn diagnose(s: &[u8], strict: bool) -> ParseError {
    if strict && let Some(form) = lenient_form(s) {
        return ParseError::new(ParseErrorKind::NotHyphenated { found: form }, None, true);
    }
    match Attempt::new(s, strict) {
        Ok(attempt) => attempt.characters().unwrap_or_else(|| attempt.grouping()),
        Err(e) => e,
    }
}

/// The form an input that failed tries to be: the input, its body inside
/// the wrapping (braces or the URN prefix), where the body starts, and
/// whether there was a wrapping.
struct Attempt<'a> {
    s: &'a [u8],
    body: &'a [u8],
    off: usize,
    wrapped: bool,
    strict: bool,
}

impl<'a> Attempt<'a> {
    /// Strips the wrapping of `s` (strict parsing takes no wrapping: a brace
    /// or a prefix is then simply not a hex digit); the error if a URN
    /// prefix goes wrong.
    fn new(s: &'a [u8], strict: bool) -> Result<Self, ParseError> {
        let at = |body, off, wrapped| Attempt {
            s,
            body,
            off,
            wrapped,
            strict,
        };
        if strict {
            return Ok(at(s, 0, false));
        }
        if s.len() >= 4 && s[..4].eq_ignore_ascii_case(&URN_PREFIX[..4]) {
            // "urn:" — the rest of the prefix must follow.
            let attempt = at(s, 0, false);
            for (i, &want) in URN_PREFIX.iter().enumerate().skip(4) {
                match s.get(i) {
                    Some(c) if c.to_ascii_lowercase() == want => {}
                    Some(_) => return Err(attempt.bad_char(i, Expected::UrnPrefix)),
                    None => return Err(attempt.invalid_length()),
                }
            }
            return Ok(at(&s[9..], 9, true));
        }
        if s.first() == Some(&b'{') {
            let end = match s.last() {
                Some(b'}') if s.len() > 1 => s.len() - 1,
                _ => s.len(),
            };
            return Ok(at(&s[1..end], 1, true));
        }
        Ok(at(s, 0, false))
    }

    fn err(&self, kind: ParseErrorKind, at: Option<usize>) -> ParseError {
        ParseError::new(kind, at, self.strict)
    }

    fn bad_char(&self, at: usize, expected: Expected) -> ParseError {
        self.err(found_at(self.s, at, expected), Some(at))
    }

    fn invalid_length(&self) -> ParseError {
        self.err(
            ParseErrorKind::InvalidLength {
                found: self.s.len(),
            },
            None,
        )
    }

    /// The first character out of place: a missing opening brace, the
    /// first that is neither a hex digit nor a hyphen, or a missing closing
    /// brace.
    fn characters(&self) -> Option<ParseError> {
        let (s, off) = (self.s, self.off);
        if !self.strict
            && !self.wrapped
            && s.len() == 38
            && HEX[s[0] as usize] == 0xff
            && s[0] != b'-'
        {
            // The braced length, without the opening brace.
            return Some(self.bad_char(0, Expected::OpeningBrace));
        }
        if let Some(i) = self
            .body
            .iter()
            .position(|&c| HEX[c as usize] == 0xff && c != b'-')
        {
            let at = off + i;
            let expected = if off == 1 && s.len() == 38 && at == 37 {
                // the last character of a braced form
                Expected::ClosingBrace
            } else {
                Expected::HexDigit
            };
            return Some(self.bad_char(at, expected));
        }
        // "{" and valid digits, but no closing brace.
        (off == 1 && s.len() == self.body.len() + 1).then(|| {
            let expected = Expected::ClosingBrace;
            self.err(ParseErrorKind::UnexpectedEnd { expected }, Some(s.len()))
        })
    }

    /// What is wrong with a body of hex digits and hyphens: a hyphen
    /// missing, the number of groups, a group's length, or the length.
    fn grouping(&self) -> ParseError {
        let (body, wrapped) = (self.body, self.wrapped);
        if !body.contains(&b'-') {
            if !wrapped && body.len() == 36 {
                // 36 digits: the hyphenated length without its hyphens.
                return self.bad_char(8, Expected::Hyphen);
            }
            if wrapped && body.len() == 32 {
                return self.err(ParseErrorKind::GroupCount { found: 1 }, None);
            }
            if !wrapped || body.len() != 36 {
                return self.invalid_length();
            }
        }
        if body.iter().all(|&c| c == b'-') {
            // Hyphens only ("-"): no group of digits to count.
            return self.invalid_length();
        }
        // Hyphenated: five groups of 8-4-4-4-12 digits.
        let count = body.split(|&c| c == b'-').count();
        if count != 5 {
            return self.err(ParseErrorKind::GroupCount { found: count }, None);
        }
        let mut start = 0;
        for (n, group) in body.split(|&c| c == b'-').enumerate() {
            if group.len() != GROUPS[n] {
                let (found, expected) = (group.len(), GROUPS[n]);
                let kind = ParseErrorKind::GroupLength {
                    group: n + 1,
                    found,
                    expected,
                };
                return self.err(kind, Some(self.off + start));
            }
            start += group.len() + 1;
        }
        // Every part is well formed, so only the total length can be wrong.
        self.invalid_length()
    }
}

/// The character (or, if not UTF-8, the byte) at `at`.
fn found_at(s: &[u8], at: usize, expected: Expected) -> ParseErrorKind {
    match char_at(s, at) {
        Ok(found) => ParseErrorKind::InvalidCharacter { found, expected },
        Err(found) => ParseErrorKind::InvalidByte { found, expected },
    }
}

/// The character starting at byte `at` of `s`, or the byte there if no valid
/// UTF-8 character starts at it.
pub(crate) fn char_at(s: &[u8], at: usize) -> Result<char, u8> {
    let rest = &s[at..];
    for n in 1..=rest.len().min(4) {
        if let Ok(text) = core::str::from_utf8(&rest[..n])
            && let Some(found) = text.chars().next()
        {
            return Ok(found);
        }
    }
    Err(s[at])
}

/// The form of a string that [`Uuid::parse`] accepts.
fn lenient_form(s: &[u8]) -> Option<Form> {
    parse_lenient(s)?;
    Some(match s.len() {
        32 => Form::Simple,
        36 => Form::Hyphenated,
        38 => Form::Braced,
        _ => Form::Urn,
    })
}

/// The fixed summary for `const` callers.
const fn const_diagnose(s: &[u8]) -> &'static str {
    match s.len() {
        32 | 36 | 38 | 45 => {
            "invalid UUID: expected 32 hex digits, grouped 8-4-4-4-12 by hyphens \
                              (optionally in braces or after \"urn:uuid:\") or not grouped"
        }
        _ => ParseError::new(
            ParseErrorKind::InvalidLength { found: s.len() },
            None,
            false,
        )
        .summary(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::sweep;

    #[test]
    fn scalar_decoders_decode_every_digit_and_reject_everything_else() {
        sweep::check_simple_decoder(decode32_scalar);
        sweep::check_hyphenated_decoder(decode_hyphenated_scalar);
        assert_eq!(
            decode32_scalar(b"0123456789abcdefABCDEF0123456789"),
            Some([
                0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45,
                0x67, 0x89
            ])
        );
    }

    #[test]
    fn hyphenated_dispatched_decoder_agrees_with_the_scalar_parser() {
        sweep::check_hyphenated_decoder(|s| {
            let mut out = [0u8; 16];
            hyphenated(s, &mut out).then_some(out)
        });
        sweep::check_hyphenated_decoder(|s| Uuid::parse(s).ok().map(Uuid::into_bytes));
        sweep::check_hyphenated_decoder(|s| Uuid::parse_strict(s).ok().map(Uuid::into_bytes));
    }

    #[test]
    fn simple_dispatched_decoder_agrees_with_the_scalar_parser() {
        sweep::check_simple_decoder(|d| {
            let mut out = [0u8; 16];
            simple(d, &mut out).then_some(out)
        });
        sweep::check_simple_decoder(|s| Uuid::parse(s).ok().map(Uuid::into_bytes));
    }

    /// The Max UUID decodes to the fast paths' failure value: every form of
    /// it must still parse, and near misses must still fail with a diagnosis.
    #[test]
    fn max_uuid_parses_in_every_form_despite_sharing_the_failure_value() {
        let forms = [
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
            "ffffffffffffffffffffffffffffffff",
            "{ffffffff-ffff-ffff-ffff-ffffffffffff}",
            "urn:uuid:FFFFFFFF-ffff-ffff-ffff-ffffffffffff",
        ];
        for (i, text) in forms.iter().enumerate() {
            assert_eq!(Uuid::parse(text), Ok(Uuid::MAX), "{text}");
            assert_eq!(parse_lenient(text.as_bytes()), Some(Uuid::MAX), "{text}");
            if i < 2 {
                assert_eq!(Uuid::parse_strict(text), Ok(Uuid::MAX), "{text}");
            } else {
                assert_eq!(
                    Uuid::parse_strict(text).map_err(|e| e.kind()),
                    Err(ParseErrorKind::NotHyphenated {
                        found: lenient_form(text.as_bytes()).unwrap()
                    }),
                    "{text}"
                );
            }
            // One digit wrong: a specific error, never the Max UUID.
            let mut bad = std::string::String::from(*text);
            let at = bad.rfind(['f', 'F']).unwrap();
            bad.replace_range(at..at + 1, "g");
            let err = Uuid::parse(&bad).unwrap_err();
            assert_eq!(err.position(), Some(at), "{bad}: {err}");
        }
    }

    #[test]
    fn const_parser_agrees_with_the_runtime_parser() {
        for s in [
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            "F81D4FAE7DEC11D0A76500A0C91E6BF6",
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
            "uRn:UuId:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        ] {
            assert_eq!(Uuid::parse_const(s).ok(), Uuid::parse(s).ok());
            assert!(Uuid::parse_const(s).is_ok());
        }
        for s in [
            "",
            "f81d4fae-7dec-11d0-a765-00a0c91e6bfg",
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6)",
        ] {
            assert!(Uuid::parse_const(s).is_err());
            assert!(Uuid::parse(s).is_err());
        }
    }
}
