//! Base58 encoding with AVX2.
//!
//! The value's four parts (`encoding::base58::arith::parts`: 5, 6, 5 and 6 digits,
//! each below 58^6 < 2^36) go into the four `f64` lanes of one register,
//! where they are exact. Each lane then becomes its three pairs of digits
//! (base 58^2 = 3364) with floating-point division by constants; each pair
//! becomes its two digits in a 16-bit lane with an integer multiply-high;
//! the digits become characters by adding an offset looked up by groups of
//! four digits (two compares fix the groups the alphabet's gaps split); a
//! byte shuffle puts them in text order and three stores write the 22
//! bytes.
//!
//! # Why the floating-point steps are exact
//!
//! A lane holds an integer `x < 2^36`. For `D` = 3364 or 3364^2 let `c` be
//! `1/D` rounded *up* to an `f64` (so `0 <= c − 1/D <= ulp(1/D)`, which is
//! 2^−64 for 3364 and 2^−76 for 3364^2). With `x = qD + r`, `0 <= r < D`:
//!
//! - `x·c >= x/D >= q`, and rounding is monotonic and `q` an `f64`, so the
//!   rounded product is at least `q`;
//! - `x·c <= q + 1 − 1/D + 2^36·ulp(1/D) < q + 1 − 2^−13`, and `q + 1 <=
//!   2^24` (as `x < 3364^3`), where `f64`s are at most 2^−29 apart, so
//!   rounding to nearest stays below `q + 1`.
//!
//! So `floor(x·c) = floor(x/D)` exactly, for both quotients, each taken
//! straight from `x` (the two do not wait for each other). With them the
//! pairs are `t2 = q2`, `t1 = q1 − 3364·q2` and `t0 = x − 3364·q1`, and
//! `2^52 + t0 + 2^16·t1 + 2^32·t2 = (2^52 + x) + (2^16 − 3364)·q1 +
//! 2^16·(2^16 − 3364)·q2`: an `f64` whose bits are the exponent of 2^52
//! above the three pairs in 16-bit fields. Both products are integers below
//! 2^44, so is their sum (it is `t0 + 2^16·t1 + 2^32·t2 − x`), and the
//! total is an integer below 2^53: every step is exact, without a fused
//! multiply-add. The unit tests run every quotient at its worst remainder.

use core::arch::x86_64::*;

use super::cpu::Avx2;
use crate::encoding::base58::arith::parts;
use crate::encoding::digits::BASE58;

/// 58^2: the base of the pairs.
const PAIR: f64 = 3364.0;

/// `1/d` rounded up to an `f64` (`d` below 2^53).
const fn reciprocal_up(d: u64) -> f64 {
    let c = 1.0 / d as f64;
    let bits = c.to_bits();
    // c = m / 2^e exactly (m with the implicit bit; c < 1, so e > 0).
    let m = (bits & ((1 << 52) - 1)) | (1 << 52);
    let e = 1075 - ((bits >> 52) & 0x7ff) as u32;
    if m as u128 * d as u128 >= 1u128 << e {
        c
    } else {
        f64::from_bits(bits + 1)
    }
}

/// 2^52: its exponent bits OR-ed onto an integer `x < 2^52` make the
/// `f64` 2^52 + x.
const TWO_52: f64 = (1u64 << 52) as f64;
/// The reciprocals of 3364 and 3364^2, rounded up.
const C1: f64 = reciprocal_up(3364);
const C2: f64 = reciprocal_up(3364 * 3364);
/// `q1` and `q2`'s weights in `t0 + 2^16·t1 + 2^32·t2` given `x`.
const K1: f64 = 65536.0 - PAIR;
const K2: f64 = 65536.0 * K1;

/// A 16-byte table in both lanes.
#[repr(C, align(32))]
struct Table([u8; 32]);

/// The digits past which a digit's offset to its character changes inside
/// a group of four (see [`OFFSETS`]): `P` follows `N`, `m` follows `k`.
const PAST: [i8; 2] = [21, 43];

/// By group ⌈d / 4⌉ of digit `d`, the offset from `d` to its
/// character, less one for each of [`PAST`] that `d` is past; in both lanes.
/// The other changes of offset (after `9`, `H` and `Z`: digits 8, 16 and
/// 32) fall between groups, which the build checks.
static OFFSETS: Table = {
    let mut t = [0u8; 32];
    let mut d = 0;
    while d < 58 {
        let past = (d as i8 > PAST[0]) as u8 + (d as i8 > PAST[1]) as u8;
        let offset = BASE58[d] - d as u8 - past;
        let group = d.div_ceil(4);
        assert!(t[group] == 0 || t[group] == offset, "one offset per group");
        t[group] = offset;
        t[16 + group] = offset;
        d += 1;
    }
    Table(t)
};

/// The characters in text order (see [`characters`] for where they are;
/// a five-digit part's first is its zero digit, left out): the low lane's
/// first 11 bytes are digits 0–10, the high lane's two 8-byte halves
/// digits 11–18 and 14–21. (`0x80`: a zero byte, not stored.)
static ORDER: Table = Table([
    5, 2, 3, 0, 1, 12, 13, 10, 11, 8, 9, 0x80, 0x80, 0x80, 0x80, 0x80, //
    5, 2, 3, 0, 1, 12, 13, 10, 0, 1, 12, 13, 10, 11, 8, 9,
]);

/// A table in a register.
#[target_feature(enable = "avx2")]
#[inline]
fn load32(t: &Table) -> __m256i {
    // SAFETY: reads the 32 bytes of `t`, which is 32-byte aligned.
    unsafe { _mm256_load_si256((t as *const Table).cast()) }
}

/// `v` as 22 base58 digits.
#[inline]
pub(crate) fn encode(_: Avx2, v: u128, out: &mut [u8; 22]) {
    // SAFETY: the token proves AVX2.
    unsafe { encode_avx2(v, out) }
}

/// The whole encoder in one function with AVX2 enabled, so that the parts
/// go from the division to the vector register in registers (a call into
/// it with them in memory would store four words and load them as one
/// vector, which cannot take its data from the four pending stores).
#[target_feature(enable = "avx2")]
fn encode_avx2(v: u128, out: &mut [u8; 22]) {
    let text = _mm256_shuffle_epi8(characters(parts(v)), load32(&ORDER));
    let high = _mm256_extracti128_si256(text, 1);
    let (low, last) = (_mm256_castsi256_si128(text), _mm_extract_epi64(high, 1));
    // SAFETY: the stores write out[0..16], out[11..19] and out[14..22], in
    // that order (the later ones overwrite the first one's five unused
    // bytes), unaligned.
    unsafe {
        let out = out.as_mut_ptr();
        let at = |k: usize| out.add(k);
        _mm_storeu_si128(at(0).cast(), low);
        _mm_storel_epi64(at(11).cast(), high);
        at(14).cast::<i64>().write_unaligned(last);
    }
}

/// The six characters of each part (below 58^6) in its 64-bit lane, as
/// three pairs from the lowest: bytes 0 and 1 are its last two digits,
/// bytes 2 and 3 the two before, bytes 4 and 5 the first two (bytes 6 and 7
/// are not characters).
#[target_feature(enable = "avx2")]
#[inline]
fn characters(parts: [u64; 4]) -> __m256i {
    let [a, b, c, d] = parts.map(|p| p as i64);
    // 2^52 + x exactly (x < 2^52), then x.
    let f = _mm256_castsi256_pd(_mm256_or_si256(
        _mm256_set_epi64x(d, c, b, a),
        _mm256_set1_epi64x(TWO_52.to_bits() as i64),
    ));
    let x = _mm256_sub_pd(f, _mm256_set1_pd(TWO_52));
    let q1 = _mm256_floor_pd(_mm256_mul_pd(x, _mm256_set1_pd(C1)));
    let q2 = _mm256_floor_pd(_mm256_mul_pd(x, _mm256_set1_pd(C2)));
    // 2^52 + x + (2^16 − 3364)·q1 + 2^16·(2^16 − 3364)·q2
    //   = 2^52 + t0 + 2^16·t1 + 2^32·t2.
    let w = _mm256_add_pd(
        f,
        _mm256_add_pd(
            _mm256_mul_pd(q1, _mm256_set1_pd(K1)),
            _mm256_mul_pd(q2, _mm256_set1_pd(K2)),
        ),
    );
    let pairs = _mm256_castpd_si256(w);
    // Each pair p < 3364 as its digits: high = p / 58 (p·1130 / 2^16 is
    // exact below 3364: the error p·4 / (2^16·58) stays under 1/58),
    // then high + 256·(p − 58·high) = 256·p − 14847·high, in memory
    // order (high first).
    let high = _mm256_mulhi_epu16(pairs, _mm256_set1_epi16(1130));
    let digits = _mm256_sub_epi16(
        _mm256_slli_epi16(pairs, 8),
        _mm256_mullo_epi16(high, _mm256_set1_epi16(14847)),
    );
    // Digit d < 58 as d + its offset: one lookup by its group of four
    // (the 16-bit shift brings in bits of the next byte, which the mask
    // clears), one more for each of `PAST` (a compare is −1 where true).
    let group = _mm256_and_si256(
        _mm256_srli_epi16(_mm256_add_epi8(digits, _mm256_set1_epi8(3)), 2),
        _mm256_set1_epi8(15),
    );
    let offset = _mm256_shuffle_epi8(load32(&OFFSETS), group);
    let above = |c: i8| _mm256_cmpgt_epi8(digits, _mm256_set1_epi8(c));
    let past = _mm256_add_epi8(above(PAST[0]), above(PAST[1]));
    _mm256_add_epi8(_mm256_sub_epi8(digits, past), offset)
}

#[cfg(test)]
mod tests {
    use super::super::cpu;
    use super::*;

    /// The AVX2 token, or the skip recorded (a failure under CI).
    fn token(test: &str) -> Option<Avx2> {
        cpu::require(
            &std::format!("arch::x86_64::base58::tests::{test}"),
            "avx2",
            cpu::avx2_uncapped(),
        )
    }

    /// The characters of four parts, checked against the reference.
    fn check(parts: [u64; 4]) {
        // SAFETY: the callers hold the token.
        let lanes: [u8; 32] = unsafe { core::mem::transmute(characters(parts)) };
        for (k, part) in parts.iter().enumerate() {
            let text = [4, 5, 2, 3, 0, 1].map(|i| lanes[8 * k + i]);
            let expected = crate::check::sweep::base58_reference::<6>(u128::from(*part));
            assert_eq!(text, expected, "{part}");
        }
    }

    /// Each reciprocal is the smallest `f64` at or above `1/d`: `c·d − 1`,
    /// computed exactly and rounded once (a fused multiply-add), is not
    /// negative for it and negative for the `f64` below it.
    #[test]
    fn reciprocals_are_the_nearest_f64_at_or_above() {
        for (c, d) in [(C1, 3364.0), (C2, 3364.0 * 3364.0)] {
            assert!(c.mul_add(d, -1.0) >= 0.0, "{c:e} below 1/{d}");
            let below = f64::from_bits(c.to_bits() - 1);
            assert!(below.mul_add(d, -1.0) < 0.0, "{c:e} is not the nearest");
        }
    }

    /// Every quotient of both divisions at its largest remainder (where a
    /// product rounded up past the next integer would show) and at zero
    /// remainder, in every lane: every `x < 58^6` with `x mod 3364` 0 or
    /// 3363, which includes every multiple of 3364^2 and every value just
    /// below one. Every pair value occurs as the first and the middle pair
    /// there, and as the last pair in the run from 0.
    #[test]
    fn every_quotient_at_its_worst_remainder_is_exact_in_every_lane() {
        let Some(_) = token("every_quotient_at_its_worst_remainder_is_exact_in_every_lane") else {
            return;
        };
        const SIX: u64 = 58u64.pow(6);
        for q in (0..SIX / 3364).step_by(2) {
            let (x, y) = (q * 3364, (q + 1) * 3364);
            check([x + 3363, y, x, y + 3363]);
            check([y + 3363, x, y, x + 3363]);
        }
        for p in 0..3364 {
            check([p, 3363 - p, SIX - 1 - p, p * 3364 * 3364]);
        }
        check([SIX - 1, 0, 1, SIX - 2]);
    }

    #[test]
    fn encoder_agrees_with_the_portable_one_and_the_reference() {
        let Some(t) = token("encoder_agrees_with_the_portable_one_and_the_reference") else {
            return;
        };
        crate::check::sweep::check_base58_encoder(|v, out| encode(t, v, out));
    }
}
