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
    pub fn parse<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, ParseError> {
        let s = input.as_ref();
        let bytes = lenient_fast(s);
        if bytes != FAILED {
            return Ok(Uuid::from_bytes(bytes.to_ne_bytes()));
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
    /// use uuidkit::{Form, ParseErrorKind, Uuid};
    /// assert!(Uuid::parse_strict("F81D4FAE-7dec-11D0-A765-00a0c91e6bf6").is_ok());
    /// let err = Uuid::parse_strict("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}").unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::NotHyphenated { found: Form::Braced });
    /// ```
    #[inline]
    pub fn parse_strict<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, ParseError> {
        let s = input.as_ref();
        if let Some((body, [])) = s.split_first_chunk::<36>() {
            let bytes = hyphenated_fast(body);
            if bytes != FAILED {
                return Ok(Uuid::from_bytes(bytes.to_ne_bytes()));
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
#[cfg_attr(all(target_arch = "x86_64", not(any(test, fuzzing))), allow(dead_code))]
#[inline]
pub(crate) fn decode32_scalar(digits: &[u8; 32]) -> Option<[u8; 16]> {
    decode_scalar(digits, &SIMPLE)
}

/// The portable decoder of the hyphenated form (as [`decode32_scalar`]).
#[cfg_attr(all(target_arch = "x86_64", not(any(test, fuzzing))), allow(dead_code))]
#[inline]
pub(crate) const fn decode_hyphenated_scalar(s: &[u8; 36]) -> Option<[u8; 16]> {
    decode_scalar_checked(s, 0)
}

/// The fast decoders' result: the 16 bytes as a native-endian `u128`, which
/// the Rust ABI returns in two registers. An `Option<Uuid>` or a `[u8; 16]`
/// would go through memory, and an `Option<Uuid>` keeps its UUID at offset 1,
/// where reloading it whole from two 8-byte stores defeats store forwarding.
///
/// [`FAILED`] (the Max UUID's bytes) stands for "invalid"; a valid Max UUID
/// also gives it, and [`is_valid_max`] tells the two apart.
pub(crate) type Fast = u128;

/// See [`Fast`].
pub(crate) const FAILED: Fast = u128::MAX;

/// Any of the four lenient forms, fast.
#[inline(always)]
fn lenient_fast(s: &[u8]) -> Fast {
    if let Some((body, [])) = s.split_first_chunk::<36>() {
        return hyphenated_fast(body);
    }
    other_forms_fast(s)
}

/// The slow end of the fast paths, for a [`FAILED`] result: the Max UUID in
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
/// Decodes the 36-byte hyphenated form with the best decoder this CPU has.
#[inline(always)]
fn hyphenated_fast(s: &[u8; 36]) -> Fast {
    crate::arch::decode_hyphenated(s)
}

/// Decodes the simple form with the best decoder this CPU has.
#[inline(always)]
fn simple_fast(digits: &[u8; 32]) -> Fast {
    crate::arch::decode_simple(digits)
}

/// The lenient parser without a diagnosis: `None` on any error.
#[inline]
pub(crate) fn parse_lenient(s: &[u8]) -> Option<Uuid> {
    let bytes = lenient_fast(s);
    if bytes != FAILED {
        return Some(Uuid::from_bytes(bytes.to_ne_bytes()));
    }
    is_valid_max(s, false).then_some(Uuid::MAX)
}

/// Simple, braced and URN forms, fast (out of line: the canonical form is
/// the one to keep small in the caller).
#[inline(never)]
fn other_forms_fast(s: &[u8]) -> Fast {
    match s.len() {
        32 => match s.first_chunk::<32>() {
            Some(digits) => simple_fast(digits),
            None => FAILED,
        },
        38 if s[0] == b'{' && s[37] == b'}' => match s[1..].first_chunk::<36>() {
            Some(body) => hyphenated_fast(body),
            None => FAILED,
        },
        45 if urn_prefix_ok(s) => match s[9..].first_chunk::<36>() {
            Some(body) => hyphenated_fast(body),
            None => FAILED,
        },
        _ => FAILED,
    }
}

// ---------------------------------------------------------------------------
// The failure path: say what is wrong, and where.

/// Widths of the five groups of the hyphenated form.
const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];

#[cold]
#[inline(never)]
pub(crate) fn diagnose(s: &[u8], strict: bool) -> ParseError {
    if strict {
        if let Some(form) = lenient_form(s) {
            return ParseError::new(ParseErrorKind::NotHyphenated { found: form }, None, true);
        }
    }
    let err = |kind, at| ParseError::new(kind, at, strict);
    let bad_char = |at: usize, expected| err(found_at(s, at, expected), Some(at));

    // Which form does the input try to be? Strip its wrapping (strict parsing
    // takes no wrapping: a brace or a prefix is then simply not a hex digit).
    let (body, off, wrapped) = if strict {
        (s, 0, false)
    } else if s.len() >= 4 && s[..4].eq_ignore_ascii_case(&URN_PREFIX[..4]) {
        // "urn:" — the rest of the prefix must follow.
        for (i, &want) in URN_PREFIX.iter().enumerate().skip(4) {
            match s.get(i) {
                Some(c) if c.to_ascii_lowercase() == want => {}
                Some(_) => return bad_char(i, Expected::UrnPrefix),
                None => return err(ParseErrorKind::InvalidLength { found: s.len() }, None),
            }
        }
        (&s[9..], 9, true)
    } else if s.first() == Some(&b'{') {
        let end = if s.len() > 1 && s[s.len() - 1] == b'}' {
            s.len() - 1
        } else {
            s.len()
        };
        (&s[1..end], 1, true)
    } else {
        (s, 0, false)
    };

    if !strict && !wrapped && s.len() == 38 && HEX[s[0] as usize] == 0xff && s[0] != b'-' {
        // The braced length, without the opening brace.
        return bad_char(0, Expected::OpeningBrace);
    }
    // The first character that is neither a hex digit nor a hyphen.
    let hyphens = body.contains(&b'-');
    for (i, &c) in body.iter().enumerate() {
        if HEX[c as usize] == 0xff && c != b'-' {
            let at = off + i;
            let expected = if off == 1 && s.len() == 38 && at == 37 {
                // the last character of a braced form
                Expected::ClosingBrace
            } else {
                Expected::HexDigit
            };
            return bad_char(at, expected);
        }
    }
    if off == 1 && s.len() == body.len() + 1 {
        // "{" and valid digits, but no closing brace.
        return err(
            ParseErrorKind::UnexpectedEnd {
                expected: Expected::ClosingBrace,
            },
            Some(s.len()),
        );
    }

    if !hyphens {
        if !wrapped && body.len() == 36 {
            // 36 digits: the hyphenated length without its hyphens.
            return bad_char(8, Expected::Hyphen);
        }
        if wrapped && body.len() == 32 {
            return err(ParseErrorKind::GroupCount { found: 1 }, None);
        }
        if !wrapped || body.len() != 36 {
            return err(ParseErrorKind::InvalidLength { found: s.len() }, None);
        }
    }

    if body.iter().all(|&c| c == b'-') {
        // Hyphens only ("-"): no group of digits to count.
        return err(ParseErrorKind::InvalidLength { found: s.len() }, None);
    }
    // Hyphenated: five groups of 8-4-4-4-12 digits.
    let count = body.split(|&c| c == b'-').count();
    if count != 5 {
        return err(ParseErrorKind::GroupCount { found: count }, None);
    }
    let mut start = 0;
    for (n, group) in body.split(|&c| c == b'-').enumerate() {
        if group.len() != GROUPS[n] {
            return err(
                ParseErrorKind::GroupLength {
                    group: n + 1,
                    found: group.len(),
                    expected: GROUPS[n],
                },
                Some(off + start),
            );
        }
        start += group.len() + 1;
    }
    // Every part is well formed, so only the total length can be wrong.
    err(ParseErrorKind::InvalidLength { found: s.len() }, None)
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
        if let Ok(text) = core::str::from_utf8(&rest[..n]) {
            if let Some(found) = text.chars().next() {
                return Ok(found);
            }
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
    use crate::arch::sweep;

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
        sweep::check_hyphenated_decoder(|s| sweep::from_fast(hyphenated_fast(s)));
        sweep::check_hyphenated_decoder(|s| Uuid::parse(s).ok().map(Uuid::into_bytes));
        sweep::check_hyphenated_decoder(|s| Uuid::parse_strict(s).ok().map(Uuid::into_bytes));
    }

    #[test]
    fn simple_dispatched_decoder_agrees_with_the_scalar_parser() {
        sweep::check_simple_decoder(|s| sweep::from_fast(simple_fast(s)));
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
