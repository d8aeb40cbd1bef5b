//! The base58 arithmetic of a 128-bit value, shared by the portable code
//! of [`Base58`](super::Base58) and the vector code in `arch` (this module
//! uses nothing else of the crate).
//!
//! Turning 128 bits into base 58 is division, and a `u128` division is a
//! library call. The encoder needs one 128-by-64-bit division only: 58^11 is
//! 2^11 · 29^11 and 29^11 is below 2^54, so `v / 58^11` is `(v / 2)` divided
//! by 29^11 · 2^10, a normalised divisor, which is one step of the
//! invariant-divisor method of Möller and Granlund ("Improved division by
//! invariant integers", 2011: two multiplications and two corrections, with a
//! reciprocal computed at compile time). The quotient and the remainder (11
//! digits each) split again by a 64-bit division by a constant into four
//! parts of 5 or 6 digits ([`parts`]). The decoder reads the digits in groups
//! of four and [`join`]s the groups with a few multiplications.

/// 29^11, the odd factor of 58^11 (below 2^54).
const ODD: u64 = 29u64.pow(11);
/// How far [`ODD`] is shifted to set its top bit (Möller–Granlund need a
/// normalised divisor).
const SHIFT: u32 = ODD.leading_zeros();
/// [`ODD`], normalised: 58^11 / 2^(11 − SHIFT).
const D: u64 = ODD << SHIFT;
/// Its reciprocal: ⌊(2^128 − 1) / D⌋ − 2^64.
const RECIPROCAL: u64 = (u128::MAX / D as u128 - (1u128 << 64)) as u64;
/// 58^6, the value of six digits.
pub(crate) const SIX: u64 = 58u64.pow(6);

/// `(u1·2^64 + u0) / D` and the remainder, for `u1 < D` (Möller and
/// Granlund, algorithm 4).
#[inline(always)]
const fn div_2by1(u1: u64, u0: u64) -> (u64, u64) {
    let q = (RECIPROCAL as u128 * u1 as u128).wrapping_add(((u1 as u128) << 64) | u0 as u128);
    let (mut q1, q0) = (((q >> 64) as u64).wrapping_add(1), q as u64);
    let mut r = u0.wrapping_sub(q1.wrapping_mul(D));
    if r > q0 {
        q1 = q1.wrapping_sub(1);
        r = r.wrapping_add(D);
    }
    if r >= D {
        q1 += 1;
        r -= D;
    }
    (q1, r)
}

/// `x / 58^6` and `x % 58^6`, for `x < 58^11` given as `x mod 2^64` and
/// `x >> 6` (`x` itself may not fit in 64 bits; the remainder does, so
/// wrapping arithmetic finds it).
#[inline(always)]
const fn split_six(x: u64, x_64: u64) -> (u64, u64) {
    // x / 58^6 = (x >> 6) / 29^6: a 64-bit division by a constant, which
    // the compiler makes a multiplication.
    let q = x_64 / 29u64.pow(6);
    (q, x.wrapping_sub(q.wrapping_mul(SIX)))
}

/// The four parts of `v`'s 22 digits: digits 0–4, 5–10, 11–15 and 16–21,
/// as numbers (each below 58^6 < 2^36; the first and third below 58^5).
#[inline(always)]
pub(crate) const fn parts(v: u128) -> [u64; 4] {
    // v / 58^11 = (v >> 1) / (29^11 · 2^10) = (v >> 1) / D, and the top
    // word of `v >> 1` is below 2^63 <= D, so one step divides. It leaves
    // r = (v >> 1) mod D, and v mod 58^11 = 2r + (v & 1), below 58^11 but
    // possibly above 2^64: its low 64 bits, and it shifted right by 6
    // (= r >> 5, the low bit falling away), are what `split_six` needs.
    let n = v >> 1;
    let (high, r) = div_2by1((n >> 64) as u64, n as u64);
    let low = (r << 1) | (v as u64 & 1);
    // high < 2^128 / 58^11 < 2^64: both forms are exact.
    let (a, b) = split_six(high, high >> 6);
    let (c, d) = split_six(low, r >> 5);
    [a, b, c, d]
}

/// 58^4, the value of one group of four digits.
pub(crate) const GROUP: u64 = 58u64.pow(4);

/// 58^8, the value of eight digits: the weight of the middle pair of
/// groups.
const EIGHT: u64 = GROUP * GROUP;

/// 58^16, the weight of the first pair of groups.
const WEIGHT_16: u128 = 58u128.pow(16);

/// The value `a·58^16 + b·58^8 + c` of three pairs of digit groups (`a`
/// below 58^6, `b` and `c` below 58^8 < 2^47), or `None` past 2^128 − 1.
/// The three multiplications are independent of each other rather than a
/// chain of multiply-adds, so that they overlap.
#[inline(always)]
pub(crate) fn join(a: u64, b: u64, c: u64) -> Option<u128> {
    // a < 58^6 < 2^36, so the low word's product is below 2^100 and the sum
    // below 2^101: only the high word's product and the last addition can
    // pass 2^128.
    let low = u128::from(a) * (WEIGHT_16 & u128::from(u64::MAX))
        + u128::from(b) * u128::from(EIGHT)
        + u128::from(c);
    let high = u128::from(a) * (WEIGHT_16 >> 64);
    if high >> 64 != 0 {
        return None;
    }
    low.checked_add(high << 64)
}
