//! [`Base32`] (Crockford's alphabet over the 128-bit number, as ULID) and
//! [`Base32Hex`] (RFC 4648 §7 over the 16 bytes).
//!
//! Both spend 26 digits of 5 bits on 128 bits, so two bits are zero; the
//! difference is where. `Base32` puts them first (the number is left-padded,
//! so the first digit is `0-7` and the text sorts like the bytes);
//! `Base32Hex` puts them last (the bytes are right-padded, so the last digit
//! is one of `0 4 8 C G K O S`). Their alphabets agree on `0-9 A-H` only.

use super::digits::{
    BAD, CROCKFORD_ANY, CROCKFORD_LOWER, CROCKFORD_UPPER, Digits32, HEX_ANY, HEX_UPPER,
};
use super::{Alphabet, DecodeError, DecodeErrorKind, Encoding, bad_char, encoding_adapter, swar};
use crate::Uuid;

/// Eight digits for the 40 bits `bits`, each value made a character by
/// `map` (one of [`swar`]'s), into `out[..8]`.
#[inline(always)]
fn put40(bits: u64, map: fn(u64) -> u64, out: &mut [u8]) {
    out[..8].copy_from_slice(&map(swar::spread5(bits)).to_be_bytes());
}

/// The digits' values shifted in one after the other (five bits each), and
/// OR-ed into `seen`: a character that is not a digit sets bits above the
/// fifth there, and its garbage in the result is then never used.
#[inline(always)]
fn run(digits: &[u8], table: &[u8; 256], seen: &mut u8) -> u64 {
    let mut bits = 0u64;
    for &c in digits {
        let d = table[c as usize];
        *seen |= d;
        bits = (bits << 5) | u64::from(d);
    }
    bits
}

/// The 26 digits of `bytes` in `digits`, portably: for Crockford's, the
/// number left-padded (two digits for the top 8 bits, the first at most 7,
/// then three runs of 8 digits for 40 bits each); for base32hex, three runs
/// of 8 digits, then the last byte right-padded.
pub(crate) fn encode_portable(bytes: &[u8; 16], digits: Digits32, out: &mut [u8; 26]) {
    let v = u128::from_be_bytes(*bytes);
    let (table, map): (_, fn(u64) -> u64) = match digits {
        Digits32::CrockfordLower => (CROCKFORD_LOWER, |x| swar::crockford(x, b'a')),
        Digits32::Crockford => (CROCKFORD_UPPER, |x| swar::crockford(x, b'A')),
        Digits32::Hex => {
            for k in 0..3 {
                put40(
                    (v >> (88 - 40 * k)) as u64 & MASK40,
                    swar::base32hex,
                    &mut out[8 * k..],
                );
            }
            let last = (v & 0xff) as usize;
            out[24] = HEX_UPPER[last >> 3];
            out[25] = HEX_UPPER[(last & 7) << 2];
            return;
        }
    };
    let top = (v >> 120) as usize;
    out[0] = table[top >> 5];
    out[1] = table[top & 31];
    for k in 0..3 {
        put40(
            (v >> (80 - 40 * k)) as u64 & MASK40,
            map,
            &mut out[2 + 8 * k..],
        );
    }
}

/// The number `v` as 26 of Crockford's digits (lower case if `lower`).
#[inline(always)]
pub(crate) fn encode_number(uuid: &Uuid, lower: bool, out: &mut [u8; 26]) {
    let digits = if lower {
        Digits32::CrockfordLower
    } else {
        Digits32::Crockford
    };
    encode(uuid.as_bytes(), digits, out);
}

/// The 26 digits of `bytes` in `digits`, with the vector code where the CPU
/// has it.
#[inline(always)]
fn encode(bytes: &[u8; 16], digits: Digits32, out: &mut [u8; 26]) {
    if !crate::arch::encode_base32(bytes, digits, out) {
        encode_portable(bytes, digits, out);
    }
}

const MASK40: u64 = (1 << 40) - 1;

/// The value of 24 digits (120 bits), portably, or `None` if one is not a
/// character `digits` accepts.
fn decode_run_portable(s: &[u8; 24], digits: Digits32) -> Option<u128> {
    // Three runs of 8 digits (40 bits), each digit shifted in as it is
    // looked up, so that few values are live at once.
    let (table, mut seen) = (digits.table(), 0u8);
    let a = run(&s[..8], table, &mut seen);
    let b = run(&s[8..16], table, &mut seen);
    let c = run(&s[16..], table, &mut seen);
    if seen & !31 != 0 {
        return None;
    }
    Some((u128::from(a) << 80) | (u128::from(b) << 40) | u128::from(c))
}

/// The 16 bytes of a 26-digit text in `digits` (either form), portably, or
/// `None` if it is not one.
pub(crate) fn decode_portable(s: &[u8; 26], digits: Digits32) -> Option<[u8; 16]> {
    let edge = digits.edge_byte(s);
    let run = decode_run_portable(digits.run(s), digits)?;
    let edge = u128::from(edge?);
    let v = match digits {
        Digits32::Hex => (run << 8) | edge,
        _ => (edge << 120) | run,
    };
    Some(v.to_be_bytes())
}

/// The inverse of [`encode_number`], or `None` if a character is not a digit
/// `digits` accepts or the first is above 7.
#[inline(always)]
pub(crate) fn decode_number(s: &[u8; 26], digits: Digits32) -> Option<Uuid> {
    crate::arch::decode_base32(s, digits)
        .or_else(|| decode_portable(s, digits).map(Uuid::from_bytes))
}

/// Why `s` (26 bytes) is not the number form in `table`: the first bad
/// character, with `first` and `rest` the alphabets to name.
#[cold]
#[inline(never)]
pub(crate) fn diagnose_number(
    s: &[u8],
    offset: usize,
    table: &[u8; 256],
    rest: Alphabet,
    encoding: Encoding,
) -> DecodeError {
    for (i, &c) in s.iter().enumerate() {
        let (ok, expected) = match i {
            0 => (table[c as usize] <= 7, Alphabet::Base32First),
            _ => (table[c as usize] != BAD, rest),
        };
        if !ok {
            let kind = bad_char(s, i, expected);
            return DecodeError::new(encoding, kind, Some(offset + i));
        }
    }
    unreachable_valid(encoding)
}

/// A diagnosis was asked for text the fast path accepted: impossible, but
/// answered with an error rather than a panic.
#[cold]
pub(super) fn unreachable_valid(encoding: Encoding) -> DecodeError {
    DecodeError::new(
        encoding,
        DecodeErrorKind::InvalidLength {
            found: 0,
            expected: encoding.length(),
        },
        None,
    )
}

/// The length check shared by the fixed-length decoders.
#[inline(always)]
pub(crate) fn exact<const N: usize>(s: &[u8], encoding: Encoding) -> Result<&[u8; N], DecodeError> {
    match s.first_chunk::<N>() {
        Some(a) if s.len() == N => Ok(a),
        _ => Err(DecodeError::new(
            encoding,
            DecodeErrorKind::InvalidLength {
                found: s.len(),
                expected: N,
            },
            None,
        )),
    }
}

/// `s` as exactly `N` bytes, or `None`: the valid path's length check, with
/// no error to build.
#[inline(always)]
pub(crate) fn fixed<const N: usize>(s: &[u8]) -> Option<&[u8; N]> {
    s.first_chunk::<N>().filter(|_| s.len() == N)
}

/// The error for a text a decoder's valid path refused: its length if it
/// is not `N` bytes long, otherwise what `diagnose` finds.
#[cold]
#[inline(never)]
pub(crate) fn refused<const N: usize>(
    s: &[u8],
    encoding: Encoding,
    diagnose: impl FnOnce() -> DecodeError,
) -> DecodeError {
    match exact::<N>(s, encoding) {
        Ok(_) => diagnose(),
        Err(e) => e,
    }
}

/// The UUID of a number-form text (`encoding`: base32 or a ULID). The valid
/// path is small enough to inline into the caller; every error is worked
/// out again, apart.
#[inline(always)]
fn crockford(s: &[u8], encoding: Encoding) -> Result<Uuid, DecodeError> {
    match fixed::<26>(s).and_then(|d| decode_number(d, Digits32::Crockford)) {
        Some(u) => Ok(u),
        None => Err(refused::<26>(s, encoding, || {
            diagnose_number(s, 0, &CROCKFORD_ANY, Alphabet::Base32, encoding)
        })),
    }
}

encoding_adapter!(
    /// The base32 form: the 128-bit value as a number in Crockford's
    /// alphabet (`0-9 A-Z` without `I L O U`), left-padded with `0` to 26
    /// digits, upper case, `7R3N7TWZFC278AES80M34HWTZP`. Byte for byte a
    /// ULID's text, so it sorts like the bytes; [`Uuid::parse_base32`]
    /// reads it back in either case.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// assert_eq!(Uuid::MAX.base32().to_string(), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    /// ```
    Base32, 26, base32, "7R3N7TWZFC278AES80M34HWTZP",
    |uuid, out| { encode_number(uuid, false, out) }
);

encoding_adapter!(
    /// The base32hex form of RFC 4648 §7: the 16 bytes in the alphabet
    /// `0-9 A-V`, five bits at a time, the last digit right-padded with two
    /// zero bits, without `=` padding: 26 digits, upper case,
    /// `V0EKVBJTTG8T19R502GCI7JBUO`. It sorts like the bytes too.
    ///
    /// It looks like [`Base32`] but is a different text for every UUID but
    /// the Nil one: `Base32` pads the number at the front, this pads the
    /// bytes at the back, and the alphabets part ways after `H`.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// assert_eq!(Uuid::MAX.base32hex().to_string(), "VVVVVVVVVVVVVVVVVVVVVVVVVS");
    /// ```
    Base32Hex, 26, base32hex, "V0EKVBJTTG8T19R502GCI7JBUO",
    |uuid, out| { encode(uuid.as_bytes(), Digits32::Hex, out) }
);

impl Base32 {
    /// Writes the lower-case form (as a TypeID suffix) into the start of
    /// `buf`, without allocating.
    ///
    /// # Panics
    ///
    /// If `buf` is shorter than [`Self::LENGTH`].
    ///
    /// ```
    /// let mut buf = [0u8; 26];
    /// assert_eq!(uuidkit::Uuid::MAX.base32().encode_lower(&mut buf), "7zzzzzzzzzzzzzzzzzzzzzzzzz");
    /// ```
    #[inline]
    pub fn encode_lower<'b>(&self, buf: &'b mut [u8]) -> &'b mut str {
        let len = buf.len();
        let Some(out) = buf.first_chunk_mut::<26>() else {
            crate::fmt::buffer_too_small(len, 26)
        };
        encode_number(&self.0, true, out);
        // SAFETY: `encode_number` filled `out` with ASCII only.
        unsafe { core::str::from_utf8_unchecked_mut(out) }
    }
}

impl Uuid {
    /// The [`Base32`] form, `7R3N7TWZFC278AES80M34HWTZP`.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.base32().to_string(), "0".repeat(26));
    /// ```
    #[inline]
    #[must_use]
    pub const fn base32(self) -> Base32 {
        Base32(self)
    }

    /// The [`Base32Hex`] form, `V0EKVBJTTG8T19R502GCI7JBUO`.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.base32hex().to_string(), "0".repeat(26));
    /// ```
    #[inline]
    #[must_use]
    pub const fn base32hex(self) -> Base32Hex {
        Base32Hex(self)
    }

    /// Reads the [`Base32`] form: exactly 26 of Crockford's digits, in
    /// either case, the first `0-7`. `I`, `L`, `O` and `U` are errors, not
    /// aliases of `1` and `0`, so that one UUID has one text (up to case).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] naming the first bad character and its position, or
    /// the length.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::parse_base32("7r3n7twzfc278aes80m34hwtzp")?;
    /// assert_eq!(u, Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6));
    /// let err = Uuid::parse_base32("8ZZZZZZZZZZZZZZZZZZZZZZZZZ").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid base32 character '8' at position 0: expected 0-7 (the first of 26 digits carries 3 bits)");
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline]
    pub fn parse_base32<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, DecodeError> {
        crockford(input.as_ref(), Encoding::Base32)
    }

    /// Reads a ULID: its text is the [`Base32`] form, so this is
    /// [`Uuid::parse_base32`] with errors that say "ULID".
    ///
    /// A ULID is 48 bits of Unix milliseconds and 80 random bits. The
    /// milliseconds land where a version 7 UUID keeps them, but the bits a
    /// UUID reserves for its version (48–51) and variant (64–65) are random
    /// in a ULID: [`Uuid::version`] gives whatever they happen to say (v7 for
    /// about one ULID in 64, `None` whenever the variant bits are not `10`),
    /// and so [`Uuid::unix_ts_ms`] is `None` for most ULIDs. Read the time
    /// as `u.as_u128() >> 80`.
    ///
    /// # Errors
    ///
    /// As [`Uuid::parse_base32`].
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAV")?;
    /// assert_eq!(u.as_u128() >> 80, 1_469_922_850_259); // ms since 1970
    /// assert_eq!(u.to_ulid().to_string(), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    /// assert_eq!(u.version(), None); // its variant bits are not `10`
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline]
    pub fn from_ulid<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, DecodeError> {
        crockford(input.as_ref(), Encoding::Ulid)
    }

    /// The ULID text of this UUID: its [`Base32`] form.
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
    /// assert_eq!(u.to_ulid().to_string(), u.base32().to_string());
    /// ```
    #[inline]
    #[must_use]
    pub const fn to_ulid(self) -> Base32 {
        Base32(self)
    }

    /// Reads the [`Base32Hex`] form: exactly 26 digits `0-9 A-V`, in either
    /// case, the last one's two padding bits zero.
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] naming the first bad character and its position, or
    /// the length.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::parse_base32hex("V0EKVBJTTG8T19R502GCI7JBUO")?;
    /// assert_eq!(u, Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6));
    /// let err = Uuid::parse_base32hex("V0EKVBJTTG8T19R502GCI7JBUP").unwrap_err();
    /// assert_eq!(err.position(), Some(25));
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline]
    pub fn parse_base32hex<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, DecodeError> {
        let s = input.as_ref();
        match fixed::<26>(s).and_then(|d| decode_number(d, Digits32::Hex)) {
            Some(u) => Ok(u),
            None => Err(refused::<26>(s, Encoding::Base32Hex, || {
                diagnose_bytes(
                    s,
                    &HEX_ANY,
                    Alphabet::Base32Hex,
                    Alphabet::Base32HexLast,
                    28,
                    Encoding::Base32Hex,
                )
            })),
        }
    }
}

/// Why `s` is not a bytes-form text: the first character that is not a digit
/// of `table`, or a last digit with bits outside `last_mask`.
#[cold]
#[inline(never)]
pub(crate) fn diagnose_bytes(
    s: &[u8],
    table: &[u8; 256],
    digit: Alphabet,
    last: Alphabet,
    last_mask: u8,
    encoding: Encoding,
) -> DecodeError {
    let end = s.len() - 1;
    for (i, &c) in s.iter().enumerate() {
        let d = table[c as usize];
        let (ok, expected) = if d == BAD {
            (false, if i == end { last } else { digit })
        } else {
            (i != end || d & !last_mask == 0, last)
        };
        if !ok {
            return DecodeError::new(encoding, bad_char(s, i, expected), Some(i));
        }
    }
    unreachable_valid(encoding)
}
