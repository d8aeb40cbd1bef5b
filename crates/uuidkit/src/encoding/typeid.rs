//! [`TypeId`]: a type prefix, `_`, and the lower-case [`Base32`] form
//! (TypeID specification v0.3).

use core::fmt;

#[cfg(doc)]
use super::Base32;
use super::base32::{
    decode_number, decode_portable, diagnose_number, encode_number, unreachable_valid,
};
use super::digits::Digits32;
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
/// use uuidkit::{encoding::TypeId, Uuid};
/// let u = Uuid::from_u128(0x01890a5d_ac96_774b_bcce_b302099a8057);
/// let id = TypeId::new("user", u)?;
/// assert_eq!(id.to_string(), "user_01h455vb4pex5vsknk084sn02q");
/// let back = TypeId::parse("user_01h455vb4pex5vsknk084sn02q")?;
/// assert_eq!((back.prefix(), back.uuid()), ("user", u));
/// # Ok::<(), uuidkit::encoding::DecodeError>(())
/// ```
// Layout: the UUID is held as its number, first, in a 32-byte-aligned
// `repr(C)` struct. `new` and `parse` build a `TypeId` inside a
// `Result<TypeId, DecodeError>`, which has a tag byte with the 17-byte error
// right after it. Were the UUID to share bytes with that error, the compiler
// would copy it in pieces cut where the error's fields lie, and an encoder
// reading it back as whole words would wait for those small stores to reach
// memory, several times the cost of the encoding. Aligned to 32, the `Ok`
// value starts past the error. Ordering is by prefix, then UUID (see the
// `Ord` impl).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, align(32))]
pub struct TypeId<'a> {
    uuid: u128,
    prefix: &'a str,
}

impl PartialOrd for TypeId<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By prefix, then by UUID (whose number orders like its bytes).
///
/// ```
/// use uuidkit::{encoding::TypeId, Uuid};
/// let a = TypeId::new("a", Uuid::MAX)?;
/// let b = TypeId::new("b", Uuid::NIL)?;
/// assert!(a < b && b < TypeId::new("b", Uuid::from_u128(1))?);
/// # Ok::<(), uuidkit::encoding::DecodeError>(())
/// ```
impl Ord for TypeId<'_> {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        (self.prefix, self.uuid).cmp(&(other.prefix, other.uuid))
    }
}

/// Whether `p` is a valid prefix: at most 63 characters of `a-z` and `_`,
/// starting and ending with a letter (or empty). The characters are
/// classified 16 at a time (see [`classes`]): a prefix of
/// up to 16 bytes is two words, with its first and last character at known
/// places in them, so the usual short prefix costs a few instructions and
/// no branch per character.
#[inline(always)]
fn prefix_is_valid(p: &[u8]) -> bool {
    const A: u64 = 0x6161_6161_6161_6161;
    let n = p.len();
    // The two words, and the place of the last character: 8–16 bytes are
    // two overlapping words; 4–7 two overlapping halves and `a`s; 1–3 the
    // first, middle and last byte (which cover them) and `a`s.
    let (lo, hi, last) = match (p.first_chunk::<8>(), p.last_chunk::<8>()) {
        (Some(a), Some(b)) if n <= 16 => (le(a), le(b), 15),
        (Some(_), Some(_)) => return n <= MAX_PREFIX && long_prefix_is_valid(p),
        _ => match (p.first_chunk::<4>(), p.last_chunk::<4>()) {
            (Some(a), Some(b)) => (
                u64::from(u32::from_le_bytes(*a)) | u64::from(u32::from_le_bytes(*b)) << 32,
                A,
                7,
            ),
            _ => match p {
                [] => return true,
                [first, .., last] | [first @ last] => (
                    A << 24 | u64::from(*first) | u64::from(p[n / 2]) << 8 | u64::from(*last) << 16,
                    A,
                    2,
                ),
            },
        },
    };
    let (letters, valid) = classes(lo, hi);
    let edges = 1 | 1 << last;
    (valid == u16::MAX) & (letters & edges == edges)
}

/// Eight bytes as a little-endian word.
#[inline(always)]
fn le(b: &[u8; 8]) -> u64 {
    u64::from_le_bytes(*b)
}

/// [`prefix_is_valid`] for a prefix longer than 16 bytes, 16 bytes at a
/// time, the last 16 overlapping.
fn long_prefix_is_valid(p: &[u8]) -> bool {
    let words = |c: &[u8]| match (
        c.first_chunk::<8>(),
        c.get(8..).and_then(<[u8]>::first_chunk::<8>),
    ) {
        (Some(a), Some(b)) => classes(le(a), le(b)).1 == u16::MAX,
        _ => false,
    };
    let whole = p.chunks_exact(16).fold(true, |ok, c| ok & words(c));
    let edges = p.first().is_some_and(u8::is_ascii_lowercase)
        && p.last().is_some_and(u8::is_ascii_lowercase);
    whole & edges & p.len().checked_sub(16).is_some_and(|at| words(&p[at..]))
}

/// Which of the 16 bytes of `lo` and `hi` (little-endian words, `lo`
/// first) are prefix letters (`a-z`), and which are letters or `_`: one
/// bit per byte, byte 0 in bit 0; with the vector code where the CPU has
/// it.
#[inline(always)]
fn classes(lo: u64, hi: u64) -> (u16, u16) {
    crate::arch::prefix_classes(lo, hi).unwrap_or_else(|| prefix_classes_portable(lo, hi))
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = ONES * 0x80;

/// [`classes`], portably: eight bytes at a time in a
/// word, without branches (no step carries from one byte into the next),
/// then each byte's verdict gathered into one bit.
pub(crate) fn prefix_classes_portable(lo: u64, hi: u64) -> (u16, u16) {
    let classes = |w: u64| {
        // With every top bit set, subtracting a byte value below 0x80 cannot
        // borrow across bytes; the top bit survives where the byte's low
        // seven bits are at least that value.
        let set = w | HIGH;
        let from_a = set.wrapping_sub(ONES * b'a' as u64);
        let past_z = set.wrapping_sub(ONES * (b'z' as u64 + 1));
        // A byte of `w ^ '_'` is zero exactly where `w` has `_`: adding 0x7f
        // to its low seven bits sets the top bit unless they are all zero.
        let x = w ^ (ONES * b'_' as u64);
        let letters = from_a & !past_z & !w & HIGH;
        let underscores = !(((x & !HIGH) + !HIGH) | x) & HIGH;
        (gather(letters), gather(letters | underscores))
    };
    let ((l0, v0), (l1, v1)) = (classes(lo), classes(hi));
    (
        u16::from(l0) | u16::from(l1) << 8,
        u16::from(v0) | u16::from(v1) << 8,
    )
}

/// The top bits of the eight bytes of `x` (its only set bits), as bits 0–7:
/// the multiplication moves the top bit of byte `i` to bit 56 + `i`, and no
/// two of the partial products meet.
#[inline(always)]
const fn gather(x: u64) -> u8 {
    (x.wrapping_mul(0x0002_0408_1020_4081) >> 56) as u8
}

/// Whether `s` is a TypeID suffix, its bytes then written into `out`, with
/// the vector code where the CPU has it.
#[inline(always)]
fn decode_suffix(s: &[u8; 26], out: &mut [u8; 16]) -> bool {
    crate::arch::decode_base32_into(s, Digits32::CrockfordLower, out)
        || decode_portable(s, Digits32::CrockfordLower)
            .map(|b| *out = b)
            .is_some()
}

/// Why `p` is not a valid prefix: its length, or its first bad character.
/// It returns the error itself rather than a `Result`, so that a caller's
/// valid path never joins the error path's value (a joined `Result` is
/// built and read back in pieces shaped like the error's fields).
#[cold]
#[inline(never)]
fn diagnose_prefix(p: &[u8]) -> DecodeError {
    if p.len() > MAX_PREFIX {
        let kind = DecodeErrorKind::PrefixTooLong { found: p.len() };
        return DecodeError::new(Encoding::TypeId, kind, None);
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
            return DecodeError::new(Encoding::TypeId, kind, Some(i));
        }
    }
    unreachable_valid(Encoding::TypeId)
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
    /// use uuidkit::{encoding::TypeId, Uuid};
    /// let err = TypeId::new("user_", Uuid::NIL).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid TypeID prefix character '_' at position 4: expected a-z (a prefix starts and ends with a lower-case letter)");
    /// assert_eq!(TypeId::new("", Uuid::NIL)?.to_string(), "0".repeat(26));
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline]
    pub fn new(prefix: &'a str, uuid: Uuid) -> Result<Self, DecodeError> {
        match prefix_is_valid(prefix.as_bytes()) {
            true => Ok(TypeId {
                prefix,
                uuid: uuid.as_u128(),
            }),
            false => Err(diagnose_prefix(prefix.as_bytes())),
        }
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
    /// use uuidkit::encoding::TypeId;
    /// let id = TypeId::parse("my__type_01h5fskfsk4fpeqwnsyz5hj55t")?;
    /// assert_eq!(id.prefix(), "my__type");
    /// let err = TypeId::parse("prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz").unwrap_err();
    /// assert_eq!(err.position(), Some(7));
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
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
        let mut bytes = [0u8; 16];
        if digits
            .first_chunk::<26>()
            .is_some_and(|d| decode_suffix(d, &mut bytes))
        {
            if !prefix_is_valid(prefix) {
                return Err(diagnose_prefix(prefix));
            }
            // SAFETY: a valid prefix is ASCII.
            let prefix = unsafe { core::str::from_utf8_unchecked(prefix) };
            return Ok(TypeId {
                prefix,
                uuid: u128::from_be_bytes(bytes),
            });
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
        if !prefix_is_valid(prefix) {
            return Err(diagnose_prefix(prefix));
        }
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
        Ok(TypeId {
            prefix,
            uuid: uuid.as_u128(),
        })
    }

    /// The type prefix (empty if there is none).
    ///
    /// ```
    /// let id = uuidkit::encoding::TypeId::parse("01h455vb4pex5vsknk084sn02q")?;
    /// assert_eq!(id.prefix(), "");
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn prefix(&self) -> &'a str {
        self.prefix
    }

    /// The UUID.
    ///
    /// ```
    /// let id = uuidkit::encoding::TypeId::parse("user_00000000000000000000000000")?;
    /// assert!(id.uuid().is_nil());
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn uuid(&self) -> Uuid {
        Uuid::from_u128(self.uuid)
    }

    /// The length of the text, in bytes: the prefix, `_` if the prefix is
    /// not empty, and 26.
    ///
    /// ```
    /// let id = uuidkit::encoding::TypeId::new("user", uuidkit::Uuid::NIL)?;
    /// assert_eq!(id.len(), 31);
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline]
    #[allow(clippy::len_without_is_empty)] // never empty: at least 26
    #[must_use]
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
    /// use uuidkit::{encoding::TypeId, Uuid};
    /// let mut buf = [0u8; TypeId::MAX_LENGTH];
    /// let id = TypeId::new("order", Uuid::MAX)?;
    /// assert_eq!(id.encode(&mut buf), "order_7zzzzzzzzzzzzzzzzzzzzzzzzz");
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline(always)]
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
            encode_number(&Uuid::from_u128(self.uuid), true, digits);
        }
        // SAFETY: a checked (ASCII) prefix, `_` and ASCII digits.
        unsafe { core::str::from_utf8_unchecked_mut(out) }
    }
}

/// `src` into `dst` (the same length): a prefix is usually a few bytes,
/// which two overlapping word loads and stores copy without a `memcpy` call.
/// The words move as integers: copies of fixed-size arrays in the arms would
/// be merged by the optimiser into one `memcpy` of variable length.
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    match (src.first_chunk::<8>(), src.last_chunk::<8>()) {
        (Some(a), Some(b)) if n <= 16 && dst.len() == n => {
            let (a, b) = (u64::from_ne_bytes(*a), u64::from_ne_bytes(*b));
            if let Some(d) = dst.first_chunk_mut::<8>() {
                *d = a.to_ne_bytes();
            }
            if let Some(e) = dst.last_chunk_mut::<8>() {
                *e = b.to_ne_bytes();
            }
        }
        (None, None) => match (src.first_chunk::<4>(), src.last_chunk::<4>()) {
            (Some(a), Some(b)) if dst.len() == n => {
                let (a, b) = (u32::from_ne_bytes(*a), u32::from_ne_bytes(*b));
                if let Some(d) = dst.first_chunk_mut::<4>() {
                    *d = a.to_ne_bytes();
                }
                if let Some(e) = dst.last_chunk_mut::<4>() {
                    *e = b.to_ne_bytes();
                }
            }
            _ => dst.copy_from_slice(src),
        },
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
            assert_ne!(
                diagnose_prefix(bad.as_bytes()),
                unreachable_valid(Encoding::TypeId),
                "{bad}"
            );
        }
        assert!(prefix_is_valid(b"a_b") && prefix_is_valid(b""));
    }

    /// The UUID shares no byte with the error in a `Result` (see the
    /// layout note on `TypeId`): an `Ok` value starts at 32, past a tag byte
    /// and the 17-byte error, and its UUID is its first 16 bytes.
    #[test]
    fn the_uuid_is_apart_from_the_error() {
        // A tag byte and the error fit before the `Ok` value.
        assert!(core::mem::size_of::<DecodeError>() < core::mem::align_of::<TypeId<'_>>());
        let u = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210_u128;
        let ok: Result<TypeId<'_>, DecodeError> = TypeId::new("user", Uuid::from_u128(u));
        // SAFETY: bytes 32..48 of a 64-byte value, the `Ok` UUID's
        // initialised bytes (asserted by the comparison).
        let at_32 = unsafe { core::ptr::read_unaligned((&raw const ok).cast::<u128>().add(2)) };
        assert_eq!((core::mem::size_of_val(&ok), at_32), (64, u));
    }

    /// The prefix classes, vector and portable, against the rule byte by
    /// byte: every byte value in every one of the 16 places, the others
    /// letters, `_` or bytes just outside the ranges.
    #[test]
    fn prefix_classes_agree_with_the_byte_rule() {
        let rule = |b: [u8; 16]| {
            let (mut letters, mut valid) = (0u16, 0u16);
            for (i, c) in b.iter().enumerate() {
                letters |= u16::from(c.is_ascii_lowercase()) << i;
                valid |= u16::from(c.is_ascii_lowercase() || *c == b'_') << i;
            }
            (letters, valid)
        };
        for fill in [b'a', b'z', b'_', b'`', b'{', 0x80 | b'a'] {
            for at in 0..16 {
                for c in 0..=255u8 {
                    let mut b = [fill; 16];
                    b[at] = c;
                    let (lo, hi) = (
                        le(b[..8].try_into().unwrap()),
                        le(b[8..].try_into().unwrap()),
                    );
                    assert_eq!(classes(lo, hi), rule(b), "{b:?}");
                    assert_eq!(prefix_classes_portable(lo, hi), rule(b), "{b:?}");
                }
            }
        }
    }

    /// The prefix check against the rule byte by byte: every byte value in
    /// every position of every length, the others valid.
    #[test]
    fn prefix_check_agrees_with_the_byte_rule() {
        let rule = |p: &[u8]| {
            p.len() <= MAX_PREFIX
                && p.iter().all(|&c| c.is_ascii_lowercase() || c == b'_')
                && p.first() != Some(&b'_')
                && p.last() != Some(&b'_')
        };
        for n in 0..=MAX_PREFIX + 2 {
            let base: std::vec::Vec<u8> = (0..n).map(|i| b'a' + (i * 7 % 26) as u8).collect();
            assert_eq!(prefix_is_valid(&base), rule(&base), "{n}");
            for i in 0..n {
                for c in 0..=255u8 {
                    let mut p = base.clone();
                    p[i] = c;
                    assert_eq!(prefix_is_valid(&p), rule(&p), "{n} {i} {c}");
                }
            }
        }
    }
}
