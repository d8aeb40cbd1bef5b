//! [`TypeId`]: a type prefix, `_`, and the lower-case [`Base32`] form
//! (TypeID specification v0.3).

use core::fmt;

#[cfg(doc)]
use super::Base32;
use super::base32::{Digits32, decode_number, diagnose_number, encode_number};
use super::{Alphabet, DecodeError, DecodeErrorKind, Encoding, bad_char};
use crate::Uuid;

/// The longest prefix the specification allows.
const MAX_PREFIX: usize = 63;

/// A TypeID: a type prefix and a UUID, written `prefix_` followed by the
/// UUID's [`Base32`] form in lower case, `user_01h455vb4pex5vsknk084sn02q`.
/// With an empty prefix it is the 26 digits alone.
///
/// The prefix is at most 63 characters of `a-z` and `_`, starting and ending
/// with a letter (it may be empty). The suffix is exactly 26 lower-case
/// digits; upper case, Crockford's aliases (`i l o`) and hyphens are
/// errors, as the specification requires. [`TypeId::new`] checks the prefix,
/// [`TypeId::parse`] the whole text; either way a `TypeId` is always valid.
/// The UUID may be of any version (the specification generates v7).
///
/// ```
/// use uuidkit::{TypeId, Uuid};
/// let u = Uuid::from_u128(0x01890a5d_ac96_774b_bcce_b302099a8057);
/// let id = TypeId::new("user", u)?;
/// assert_eq!(id.to_string(), "user_01h455vb4pex5vsknk084sn02q");
/// let back = TypeId::parse("user_01h455vb4pex5vsknk084sn02q")?;
/// assert_eq!((back.prefix(), back.uuid()), ("user", u));
/// # Ok::<(), uuidkit::DecodeError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeId<'a> {
    prefix: &'a str,
    uuid: Uuid,
}

/// Whether `p` is a valid prefix: at most 63 characters of `a-z` and `_`,
/// not starting or ending with `_`. Without branches per character, so that
/// the usual short prefix costs a few instructions.
#[inline(always)]
fn prefix_is_valid(p: &[u8]) -> bool {
    let mut ok = p.len() <= MAX_PREFIX;
    for &c in p {
        ok &= c.wrapping_sub(b'a') < 26 || c == b'_';
    }
    ok && p.first() != Some(&b'_') && p.last() != Some(&b'_')
}

/// The error for prefix `p` (at `offset` in the input), if it is not valid.
#[inline(always)]
fn check_prefix(p: &[u8], offset: usize) -> Result<(), DecodeError> {
    if prefix_is_valid(p) {
        return Ok(());
    }
    diagnose_prefix(p, offset)
}

/// Why `p` is not a valid prefix: its length, or its first bad character.
#[cold]
#[inline(never)]
fn diagnose_prefix(p: &[u8], offset: usize) -> Result<(), DecodeError> {
    if p.len() > MAX_PREFIX {
        let kind = DecodeErrorKind::PrefixTooLong { found: p.len() };
        return Err(DecodeError::new(Encoding::TypeId, kind, None));
    }
    let end = p.len().wrapping_sub(1);
    for (i, &c) in p.iter().enumerate() {
        let edge = i == 0 || i == end;
        if !(c.is_ascii_lowercase() || (c == b'_' && !edge)) {
            let expected = if edge {
                Alphabet::PrefixLetter
            } else {
                Alphabet::PrefixCharacter
            };
            let kind = bad_char(p, i, expected);
            return Err(DecodeError::new(Encoding::TypeId, kind, Some(offset + i)));
        }
    }
    Ok(())
}

impl<'a> TypeId<'a> {
    /// The longest TypeID text: a 63-character prefix, `_` and 26 digits.
    pub const MAX_LENGTH: usize = MAX_PREFIX + 1 + 26;

    /// A TypeID of `uuid` with `prefix` (which may be empty).
    ///
    /// # Errors
    ///
    /// If the prefix is longer than 63 characters, or has a character other
    /// than `a-z` and `_`, or starts or ends with `_`; the error names the
    /// first such character and its position in the prefix.
    ///
    /// ```
    /// use uuidkit::{TypeId, Uuid};
    /// let err = TypeId::new("user_", Uuid::NIL).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid TypeID prefix character '_' at position 4: expected a-z (a prefix starts and ends with a lower-case letter)");
    /// assert_eq!(TypeId::new("", Uuid::NIL)?.to_string(), "0".repeat(26));
    /// # Ok::<(), uuidkit::DecodeError>(())
    /// ```
    #[inline]
    pub fn new(prefix: &'a str, uuid: Uuid) -> Result<Self, DecodeError> {
        check_prefix(prefix.as_bytes(), 0)?;
        Ok(TypeId { prefix, uuid })
    }

    /// Reads a TypeID: everything before the last `_` is the prefix (there
    /// is no `_` if the prefix is empty), everything after it the 26-digit
    /// suffix.
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] naming the first bad character of the prefix or the
    /// suffix and its position, the prefix's length, or the suffix's length
    /// and where it starts.
    ///
    /// ```
    /// use uuidkit::TypeId;
    /// let id = TypeId::parse("my__type_01h5fskfsk4fpeqwnsyz5hj55t")?;
    /// assert_eq!(id.prefix(), "my__type");
    /// let err = TypeId::parse("prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz").unwrap_err();
    /// assert_eq!(err.position(), Some(7));
    /// # Ok::<(), uuidkit::DecodeError>(())
    /// ```
    #[inline]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(input: &'a T) -> Result<Self, DecodeError> {
        let s = input.as_ref();
        // The usual case first: a valid suffix right after an `_` 27 bytes
        // from the end (or no prefix at all). A valid suffix has no `_`, so
        // that `_` is the last one and the split is the general one below.
        let n = s.len();
        let (prefix, digits) = match n {
            26 => (&s[..0], s),
            _ if n > 27 && s[n - 27] == b'_' => (&s[..n - 27], &s[n - 26..]),
            _ => (&s[..0], &s[..0]),
        };
        if let Some(uuid) = digits
            .first_chunk::<26>()
            .and_then(|d| decode_number(d, Digits32::CrockfordLower))
        {
            check_prefix(prefix, 0)?;
            // SAFETY: a valid prefix is ASCII.
            let prefix = unsafe { core::str::from_utf8_unchecked(prefix) };
            return Ok(TypeId { prefix, uuid });
        }
        Self::parse_slow(s)
    }

    /// [`TypeId::parse`] in general, and its diagnoses.
    #[cold]
    fn parse_slow(s: &'a [u8]) -> Result<Self, DecodeError> {
        let (prefix, start) = match s.iter().rposition(|&c| c == b'_') {
            None => (&s[..0], 0),
            Some(0) => {
                // A separator needs a prefix.
                let kind = bad_char(s, 0, Alphabet::PrefixLetter);
                return Err(DecodeError::new(Encoding::TypeId, kind, Some(0)));
            }
            Some(sep) => (&s[..sep], sep + 1),
        };
        check_prefix(prefix, 0)?;
        let suffix = &s[start..];
        let Some(digits) = suffix.first_chunk::<26>().filter(|_| suffix.len() == 26) else {
            let kind = DecodeErrorKind::InvalidLength {
                found: suffix.len(),
                expected: 26,
            };
            return Err(DecodeError::new(Encoding::TypeId, kind, Some(start)));
        };
        let Some(uuid) = decode_number(digits, Digits32::CrockfordLower) else {
            let table = Digits32::CrockfordLower.table();
            return Err(diagnose_number(
                suffix,
                start,
                table,
                Alphabet::Base32Lower,
                Encoding::TypeId,
            ));
        };
        // The prefix was checked to be ASCII, hence UTF-8.
        let prefix = core::str::from_utf8(prefix).unwrap_or_default();
        Ok(TypeId { prefix, uuid })
    }

    /// The type prefix (empty if there is none).
    ///
    /// ```
    /// let id = uuidkit::TypeId::parse("01h455vb4pex5vsknk084sn02q")?;
    /// assert_eq!(id.prefix(), "");
    /// # Ok::<(), uuidkit::DecodeError>(())
    /// ```
    #[inline]
    pub const fn prefix(&self) -> &'a str {
        self.prefix
    }

    /// The UUID.
    ///
    /// ```
    /// let id = uuidkit::TypeId::parse("user_00000000000000000000000000")?;
    /// assert!(id.uuid().is_nil());
    /// # Ok::<(), uuidkit::DecodeError>(())
    /// ```
    #[inline]
    pub const fn uuid(&self) -> Uuid {
        self.uuid
    }

    /// The length of the text, in bytes: the prefix, `_` if the prefix is
    /// not empty, and 26.
    ///
    /// ```
    /// let id = uuidkit::TypeId::new("user", uuidkit::Uuid::NIL)?;
    /// assert_eq!(id.len(), 31);
    /// # Ok::<(), uuidkit::DecodeError>(())
    /// ```
    #[inline]
    #[allow(clippy::len_without_is_empty)] // never empty: at least 26
    pub const fn len(&self) -> usize {
        match self.prefix.len() {
            0 => 26,
            n => n + 1 + 26,
        }
    }

    /// Writes the text into the start of `buf` and returns it as a
    /// `&mut str`, without allocating. A buffer of
    /// [`TypeId::MAX_LENGTH`] bytes always suffices.
    ///
    /// # Panics
    ///
    /// If `buf` is shorter than [`TypeId::len`].
    ///
    /// ```
    /// use uuidkit::{TypeId, Uuid};
    /// let mut buf = [0u8; TypeId::MAX_LENGTH];
    /// let id = TypeId::new("order", Uuid::MAX)?;
    /// assert_eq!(id.encode(&mut buf), "order_7zzzzzzzzzzzzzzzzzzzzzzzzz");
    /// # Ok::<(), uuidkit::DecodeError>(())
    /// ```
    #[inline]
    pub fn encode<'b>(&self, buf: &'b mut [u8]) -> &'b mut str {
        let (len, needed) = (buf.len(), self.len());
        let Some(out) = buf.get_mut(..needed) else {
            crate::fmt::buffer_too_small(len, needed)
        };
        let (head, digits) = out.split_at_mut(needed - 26);
        if let Some((sep, prefix)) = head.split_last_mut() {
            copy_short(prefix, self.prefix.as_bytes());
            *sep = b'_';
        }
        if let Some(digits) = digits.first_chunk_mut::<26>() {
            encode_number(&self.uuid, true, digits);
        }
        // SAFETY: a checked (ASCII) prefix, `_` and ASCII digits.
        unsafe { core::str::from_utf8_unchecked_mut(out) }
    }
}

/// `src` into `dst` (the same length): a prefix is usually a few bytes,
/// which two overlapping loads and stores copy without a `memcpy` call.
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    match (
        src.first_chunk::<8>(),
        src.last_chunk::<8>(),
        src.first_chunk::<4>(),
        src.last_chunk::<4>(),
    ) {
        (Some(a), Some(b), _, _) if n <= 16 && dst.len() == n => {
            dst[..8].copy_from_slice(a);
            dst[n - 8..].copy_from_slice(b);
        }
        (None, _, Some(a), Some(b)) if dst.len() == n => {
            dst[..4].copy_from_slice(a);
            dst[n - 4..].copy_from_slice(b);
        }
        _ => dst.copy_from_slice(src),
    }
}

impl fmt::Display for TypeId<'_> {
    /// Honours width, fill and alignment.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; TypeId::MAX_LENGTH];
        let text = self.encode(&mut buf);
        if f.width().is_none() && f.precision().is_none() {
            f.write_str(text)
        } else {
            f.pad(text)
        }
    }
}

impl fmt::Debug for TypeId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;

    /// Every prefix length takes its own copying path (none, 4–7 and 8–16
    /// bytes with overlapping moves, longer ones whole): each is written
    /// exactly, and the check agrees with the diagnosis.
    #[test]
    fn every_prefix_length_is_copied_and_checked() {
        let u = Uuid::from_u128(0x01890a5d_ac96_774b_bcce_b302099a8057);
        for n in 0..=MAX_PREFIX + 1 {
            let prefix: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            let id = TypeId::new(&prefix, u);
            if n > MAX_PREFIX {
                assert!(id.is_err(), "{n}");
                continue;
            }
            let mut buf = [0xa5u8; TypeId::MAX_LENGTH + 1];
            let text = String::from(&*id.unwrap().encode(&mut buf));
            let sep = if n == 0 { "" } else { "_" };
            assert_eq!(
                text,
                std::format!("{prefix}{sep}01h455vb4pex5vsknk084sn02q")
            );
            assert_eq!(buf[text.len()], 0xa5, "wrote past the text");
        }
        for bad in ["_a", "a_", "aB", "a-b", "é"] {
            assert!(!prefix_is_valid(bad.as_bytes()), "{bad}");
            assert!(diagnose_prefix(bad.as_bytes(), 0).is_err(), "{bad}");
        }
        assert!(prefix_is_valid(b"a_b") && prefix_is_valid(b""));
    }
}
