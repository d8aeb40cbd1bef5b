//! [`Base58`]: the 128-bit value as a number in Bitcoin's alphabet,
//! left-padded with `1` (the zero digit) to 22 digits.
//!
//! Turning 128 bits into base 58 is division, and a `u128` division is a
//! library call. Both directions therefore work in chunks of five digits
//! (58^5 < 2^30): encoding divides four 32-bit limbs by 58^5 per chunk, each
//! step a `u64` division by a constant (a multiplication); decoding
//! multiplies by 58^5 per chunk.

use super::base32::{decode_table, diagnose_bytes, exact};
use super::{Alphabet, DecodeError, DecodeErrorKind, Encoding, encoding_adapter};
use crate::Uuid;

const DIGITS: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
static TABLE: [u8; 256] = decode_table(DIGITS, false);

/// 58^5, the value of one chunk of five digits.
const CHUNK: u64 = 58u64.pow(5);

/// The text of the Max UUID, the largest value 22 digits may have here.
pub(crate) const MAX_TEXT: &str = "YcVfxkQb6JRzqk5kF2tNLv";

/// Writes the five digits of `chunk` (< 58^5) ending at `out[end]`.
#[inline(always)]
fn put5(mut chunk: u32, out: &mut [u8], end: usize) {
    for i in 0..5 {
        out[end - i] = DIGITS[(chunk % 58) as usize];
        chunk /= 58;
    }
}

/// `v` as 22 digits.
#[inline(always)]
fn encode(v: u128, out: &mut [u8; 22]) {
    // Most significant limb first.
    let mut limbs = [
        (v >> 96) as u32,
        (v >> 64) as u32,
        (v >> 32) as u32,
        v as u32,
    ];
    // Four chunks of five digits from the right: 20 digits.
    for round in 0..4 {
        let mut rem = 0u64;
        for limb in &mut limbs {
            // rem < 58^5 < 2^30, so this fits in 62 bits.
            let cur = (rem << 32) | u64::from(*limb);
            *limb = (cur / CHUNK) as u32;
            rem = cur % CHUNK;
        }
        put5(rem as u32, out, 21 - 5 * round);
    }
    // What is left is below 2^128 / 58^20 < 58^2: two digits, in the last limb.
    let top = limbs[3];
    out[0] = DIGITS[(top / 58) as usize];
    out[1] = DIGITS[(top % 58) as usize];
}

/// `v × m + a`, or `None` past 2^128 − 1 (`m`, `a` below 2^32).
#[inline(always)]
fn mul_add(v: u128, m: u64, a: u64) -> Option<u128> {
    let lo = u128::from(v as u64) * u128::from(m) + u128::from(a);
    let hi = (v >> 64) * u128::from(m) + (lo >> 64);
    if hi >> 64 != 0 {
        return None;
    }
    Some((hi << 64) | u128::from(lo as u64))
}

/// The value of 22 digits; `Err(true)` if one is not a digit, `Err(false)`
/// if the value does not fit in 128 bits.
#[inline(always)]
fn decode(s: &[u8; 22]) -> Result<u128, bool> {
    let mut seen = 0u8;
    let mut digit = |c: u8| {
        let d = TABLE[c as usize];
        seen |= d;
        u64::from(d)
    };
    let mut v = u128::from(digit(s[0]) * 58 + digit(s[1]));
    let mut over = false;
    for chunk in s[2..].chunks_exact(5) {
        let c = chunk.iter().fold(0u64, |acc, &ch| acc * 58 + digit(ch));
        match mul_add(v, CHUNK, c) {
            Some(next) => v = next,
            None => over = true,
        }
    }
    // Digits are below 64 and `BAD` is not: any top bit means a non-digit.
    if seen & !63 != 0 {
        return Err(true);
    }
    if over { Err(false) } else { Ok(v) }
}

encoding_adapter!(
    /// The base58 form: the 128-bit value as a number in Bitcoin's alphabet
    /// (`1-9 A-Z a-z` without `I O l`, in that order, `1` being zero),
    /// left-padded with `1` to 22 digits, `Xe22UfxT3rxcKJEAfL5373`. It sorts
    /// like the bytes (the alphabet is in ASCII order).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// assert_eq!(Uuid::NIL.base58().to_string(), "1111111111111111111111");
    /// assert_eq!(Uuid::MAX.base58().to_string(), "YcVfxkQb6JRzqk5kF2tNLv");
    /// ```
    Base58, 22, base58, "Xe22UfxT3rxcKJEAfL5373",
    |v, out| { encode(v, out) }
);

impl Uuid {
    /// The [`Base58`] form, `Xe22UfxT3rxcKJEAfL5373`.
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_u128(1);
    /// assert_eq!(u.base58().to_string(), "1111111111111111111112");
    /// ```
    #[inline]
    pub const fn base58(self) -> Base58 {
        Base58(self)
    }

    /// Reads the [`Base58`] form: exactly 22 digits (case matters) whose
    /// value is below 2^128.
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] naming the first bad character and its position,
    /// the length, or [`DecodeErrorKind::Overflow`].
    ///
    /// ```
    /// use uuidkit::{DecodeErrorKind, Uuid};
    /// let u = Uuid::parse_base58("Xe22UfxT3rxcKJEAfL5373")?;
    /// assert_eq!(u, Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6));
    /// assert_eq!(Uuid::parse_base58("YcVfxkQb6JRzqk5kF2tNLw").unwrap_err().kind(), DecodeErrorKind::Overflow);
    /// # Ok::<(), uuidkit::DecodeError>(())
    /// ```
    pub fn parse_base58<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, DecodeError> {
        let s = input.as_ref();
        match decode(exact::<22>(s, Encoding::Base58)?) {
            Ok(v) => Ok(Uuid::from_u128(v)),
            Err(true) => Err(diagnose_bytes(
                s,
                &TABLE,
                Alphabet::Base58,
                Alphabet::Base58,
                u8::MAX,
                Encoding::Base58,
            )),
            Err(false) => Err(DecodeError::new(
                Encoding::Base58,
                DecodeErrorKind::Overflow,
                None,
            )),
        }
    }
}
