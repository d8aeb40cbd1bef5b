//! [`Base58`]: the 128-bit value as a number in Bitcoin's alphabet,
//! left-padded with `1` (the zero digit) to 22 digits.
//!
//! The value is cut into four parts of 5 or 6 digits ([`arith`]), which
//! become digits independently: here two at a time from a table of the 58^2
//! pairs, in `arch` with vector code where the CPU has it. The decoder reads
//! the digits in groups of four (vector code where the CPU has it) and joins
//! the groups with a few multiplications.

pub(crate) mod arith;

use self::arith::{GROUP, join, parts};
use super::base32::{diagnose_bytes, fixed, refused};
use super::digits::{BASE58 as DIGITS, decode_table};
use super::{Alphabet, DecodeError, DecodeErrorKind, Encoding, encoding_adapter};
use crate::Uuid;

static TABLE: [u8; 256] = decode_table(DIGITS, false);

#[cfg(test)]
mod tests {
    use super::arith::SIX;
    use super::*;

    /// The number whose digits the four parts are.
    fn value(parts: [u64; 4]) -> u128 {
        let six = u128::from(SIX);
        let high = u128::from(parts[0]) * six + u128::from(parts[1]);
        let low = u128::from(parts[2]) * six + u128::from(parts[3]);
        high * six * 58u128.pow(5) + low
    }

    /// The portable encoder, and the dispatched one (whatever this CPU
    /// runs), against the reference on the edge values and a sweep.
    #[test]
    fn portable_and_dispatched_encoders_agree_with_the_reference() {
        crate::check::sweep::check_base58_encoder(encode_portable);
        crate::check::sweep::check_base58_encoder(encode);
    }

    /// The division against `u128`'s own, on the values where corrections
    /// and word boundaries happen (the encoders' edge values, and multiples
    /// of 58^11 and their neighbours).
    #[test]
    fn parts_agree_with_u128_division() {
        let eleven = 58u128.pow(11);
        let mut values = crate::check::sweep::base58_values();
        for m in [1, 2, 57, 58, 1 << 10, 58u128.pow(6), u128::MAX / eleven] {
            values.extend([eleven * m - 1, eleven * m, eleven * m + 1]);
        }
        for k in 0..128 {
            values.push((1u128 << k).wrapping_mul(eleven));
        }
        for v in values {
            let p = parts(v);
            let five = u64::pow(58, 5);
            assert!(
                p[0] < five && p[1] < SIX && p[2] < five && p[3] < SIX,
                "{v}: {p:?}"
            );
            let high = v / eleven;
            let low = v % eleven;
            let six = u128::from(SIX);
            let expected = [high / six, high % six, low / six, low % six];
            assert_eq!(p.map(u128::from), expected, "{v}");
            assert_eq!(value(p), v);
        }
    }

    /// Joined pairs of groups against checked Horner's rule, on random groups,
    /// every group at its largest, and the texts either side of 2^128.
    #[test]
    fn joining_groups_agrees_with_checked_arithmetic() {
        let reference = |g: [u64; 6]| {
            g.iter().skip(1).try_fold(u128::from(g[0]), |v, &d| {
                v.checked_mul(u128::from(GROUP))?.checked_add(u128::from(d))
            })
        };
        let mut cases = std::vec![
            [
                57 * 58 + 57,
                GROUP - 1,
                GROUP - 1,
                GROUP - 1,
                GROUP - 1,
                GROUP - 1
            ],
            [0; 6]
        ];
        for text in [
            MAX_TEXT,
            "YcVfxkQb6JRzqk5kF2tNLw",
            "YcVfxkQb6JRzqk5kF2tNMv",
            "YcVfxkQb6JRzqk5kF2tNLu",
        ] {
            let g = groups_portable(text.as_bytes().first_chunk().unwrap()).unwrap();
            cases.push(g.map(u64::from));
        }
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..100_000 {
            let mut g = [0u64; 6];
            for (i, d) in g.iter_mut().enumerate() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *d = x % if i == 0 { 58 * 58 } else { GROUP };
            }
            cases.push(g);
        }
        let overflows = cases.iter().filter(|g| reference(**g).is_none()).count();
        assert!(overflows > 1_000, "too few overflowing cases: {overflows}");
        for g in cases {
            let joined = join(
                g[0] * GROUP + g[1],
                g[2] * GROUP + g[3],
                g[4] * GROUP + g[5],
            );
            assert_eq!(joined, reference(g), "{g:?}");
        }
    }
}

/// The text of the Max UUID, the largest value 22 digits may have here.
pub(crate) const MAX_TEXT: &str = "YcVfxkQb6JRzqk5kF2tNLv";

/// Every two-digit number in base 58, as its two digits: one lookup and one
/// division by a constant per pair instead of two divisions.
static PAIRS: [[u8; 2]; 58 * 58] = {
    let mut t = [[0u8; 2]; 58 * 58];
    let mut i = 0;
    while i < 58 * 58 {
        t[i] = [DIGITS[i / 58], DIGITS[i % 58]];
        i += 1;
    }
    t
};

/// Writes the digits of `part` (< 58^6) into `out[at..at + n]`, `n` being
/// 5 or 6 (five digits: the top pair is below 58, one digit).
#[inline(always)]
fn put(part: u64, out: &mut [u8; 22], at: usize, n: usize) {
    const PAIR: u64 = 58 * 58;
    let top = (part / (PAIR * PAIR)) as usize;
    let rest = (part % (PAIR * PAIR)) as u32;
    let end = at + n;
    out[end - 2..end].copy_from_slice(&PAIRS[(rest % PAIR as u32) as usize]);
    out[end - 4..end - 2].copy_from_slice(&PAIRS[(rest / PAIR as u32) as usize]);
    out[at..end - 4].copy_from_slice(&PAIRS[top][6 - n..]);
}

/// `v` as 22 digits, with the vector code where the CPU has it.
#[inline(always)]
fn encode(v: u128, out: &mut [u8; 22]) {
    if !crate::arch::encode_base58(v, out) {
        encode_portable(v, out);
    }
}

/// `v` as 22 digits, portably (the reference for the vector paths).
#[inline(always)]
pub(crate) fn encode_portable(v: u128, out: &mut [u8; 22]) {
    let [a, b, c, d] = parts(v);
    put(a, out, 0, 5);
    put(b, out, 5, 6);
    put(c, out, 11, 5);
    put(d, out, 16, 6);
}

/// The values of a text's digit groups, portably: the first two digits,
/// then five groups of four (each below 58^4); `None` if a character is not
/// a digit.
pub(crate) fn groups_portable(s: &[u8; 22]) -> Option<[u32; 6]> {
    let mut seen = 0u8;
    let mut digit = |c: u8| {
        let d = TABLE[c as usize];
        seen |= d;
        u32::from(d)
    };
    let mut g = [0u32; 6];
    g[0] = digit(s[0]) * 58 + digit(s[1]);
    for (k, chunk) in s[2..].chunks_exact(4).enumerate() {
        g[k + 1] = chunk.iter().fold(0, |acc, &ch| acc * 58 + digit(ch));
    }
    // Digits are below 64 and `BAD` is not: any top bit means a non-digit.
    (seen & !63 == 0).then_some(g)
}

/// Whether `s` is a base58 text, its bytes then written into `out`, with the
/// vector code where the CPU has it.
#[inline(always)]
fn decode(s: &[u8; 22], out: &mut [u8; 16]) -> bool {
    crate::arch::decode_base58(s, out) || decode_portable(s, out).is_ok()
}

/// The UUID of 22 digits, its bytes written into `out`; `Err(true)` if one
/// is not a digit, `Err(false)` if the value does not fit in 128 bits.
pub(crate) fn decode_portable(s: &[u8; 22], out: &mut [u8; 16]) -> Result<(), bool> {
    let g = groups_portable(s).ok_or(true)?.map(u64::from);
    let v = join(
        g[0] * GROUP + g[1],
        g[2] * GROUP + g[3],
        g[4] * GROUP + g[5],
    )
    .ok_or(false)?;
    *out = v.to_be_bytes();
    Ok(())
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
    |uuid, out| { encode(uuid.as_u128(), out) }
);

impl Uuid {
    /// The [`Base58`] form, `Xe22UfxT3rxcKJEAfL5373`.
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_u128(1);
    /// assert_eq!(u.base58().to_string(), "1111111111111111111112");
    /// ```
    #[inline]
    #[must_use]
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
    /// use uuidkit::{encoding::DecodeErrorKind, Uuid};
    /// let u = Uuid::parse_base58("Xe22UfxT3rxcKJEAfL5373")?;
    /// assert_eq!(u, Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6));
    /// assert_eq!(Uuid::parse_base58("YcVfxkQb6JRzqk5kF2tNLw").unwrap_err().kind(), DecodeErrorKind::Overflow);
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline]
    pub fn parse_base58<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, DecodeError> {
        let s = input.as_ref();
        // The bytes are written where the result is, with one store, and
        // only the outcome comes back: the value never goes through memory
        // on its way out. The valid path is small enough to inline; every
        // error is worked out again, apart.
        let mut bytes = [0u8; 16];
        match fixed::<22>(s) {
            Some(d) if decode(d, &mut bytes) => Ok(Uuid::from_bytes(bytes)),
            _ => Err(refused::<22>(s, Encoding::Base58, || parse_error(s))),
        }
    }
}

/// Why the 22 bytes `s` are not a base58 text: their value, or their first
/// bad character.
fn parse_error(s: &[u8]) -> DecodeError {
    let overflow = fixed::<22>(s).map(|d| decode_portable(d, &mut [0; 16])) == Some(Err(false));
    match overflow {
        true => DecodeError::new(Encoding::Base58, DecodeErrorKind::Overflow, None),
        false => diagnose_bytes(
            s,
            &TABLE,
            Alphabet::Base58,
            Alphabet::Base58,
            u8::MAX,
            Encoding::Base58,
        ),
    }
}
