//! Hex decoding for the parser: the hyphenated form (36 bytes) and the simple
//! form (32 hex digits) to the UUID's 16 bytes, as a [`Fast`] value
//! ([`FAILED`](crate::parse::FAILED) on any error).
//!
//! Two decoders of each form: SSE2 (the x86_64 baseline) and AVX2.
//! [`hyphenated`] calls the one this CPU has through a pointer chosen on
//! first use: a feature check with direct calls is as cheap in
//! instructions, but its taken branches and the decoders' shared
//! continuation cost more than one predictable indirect call.

use core::sync::atomic::{AtomicPtr, Ordering};

use super::cpu;
use crate::parse::{Fast, to_fast};

/// Decodes the hyphenated form with the best decoder this CPU has.
#[inline(always)]
pub(crate) fn hyphenated(s: &[u8; 36]) -> Fast {
    let chosen = CHOSEN.load(Ordering::Relaxed);
    let decode = if chosen.is_null() {
        choose()
    } else {
        // SAFETY: `CHOSEN` only ever holds null or a `Decoder` (`choose`).
        unsafe { core::mem::transmute::<*mut (), Decoder>(chosen) }
    };
    // SAFETY: `choose` picked a decoder whose CPU features are available.
    unsafe { decode(s) }
}

/// Decodes the simple form with the best decoder this CPU has.
#[inline(always)]
pub(crate) fn simple(digits: &[u8; 32]) -> Fast {
    match cpu::avx2() {
        Some(t) => avx2::simple(t, digits),
        None => to_fast(sse2::decode32(digits)),
    }
}

/// A hyphenated-form decoder; unsafe to call where the CPU lacks the
/// features it was compiled for.
pub(crate) type Decoder = unsafe fn(&[u8; 36]) -> Fast;

/// The decoder for this CPU once [`choose`] has run; null before. Every
/// thread that races the first call stores the same value.
static CHOSEN: AtomicPtr<()> = AtomicPtr::new(core::ptr::null_mut());

/// Picks the fastest decoder this CPU supports and remembers it.
#[cold]
#[inline(never)]
pub(crate) fn choose() -> Decoder {
    let decode = if cpu::avx2().is_some() {
        avx2::hyphenated_unchecked as Decoder
    } else {
        hyphenated_sse2 as Decoder
    };
    CHOSEN.store(decode as *mut (), Ordering::Relaxed);
    decode
}

/// The SSE2 decoder of the hyphenated form (a plain function, so that it
/// can stand in [`CHOSEN`]).
pub(crate) fn hyphenated_sse2(s: &[u8; 36]) -> Fast {
    to_fast(sse2::hyphenated(s))
}

/// SSE2, part of every x86_64 CPU: no detection, no token.
pub(crate) mod sse2 {
    use core::arch::x86_64::*;

    /// Values of 16 ASCII hex digits, and a vector whose lanes have their top
    /// bit set where the input was not a hex digit.
    ///
    /// `d = c - '0'` and `l = (c | 0x20) - 'a'` (wrapping); the value is
    /// `min(d, l + 10)` (for a digit `l + 10` wraps high, for a letter `d` is
    /// at least 0x11). Saturating `d + 0x76` has its top bit set iff `d > 9`,
    /// `l + 0x7a` iff `l > 5`: a lane is bad iff both are.
    #[inline(always)]
    fn nibbles(x: __m128i) -> (__m128i, __m128i) {
        // SAFETY (whole body): plain SSE2 arithmetic, enabled at compile time.
        unsafe {
            let d = _mm_sub_epi8(x, _mm_set1_epi8(b'0' as i8));
            let l = _mm_sub_epi8(
                _mm_or_si128(x, _mm_set1_epi8(0x20)),
                _mm_set1_epi8(b'a' as i8),
            );
            let v = _mm_min_epu8(d, _mm_add_epi8(l, _mm_set1_epi8(10)));
            let bad = _mm_and_si128(
                _mm_adds_epu8(d, _mm_set1_epi8(0x76)),
                _mm_adds_epu8(l, _mm_set1_epi8(0x7a)),
            );
            (v, bad)
        }
    }

    /// Pairs of nibbles (high first) into bytes, one per 16-bit lane.
    #[inline(always)]
    fn pairs(v: __m128i) -> __m128i {
        // SAFETY: plain SSE2 arithmetic.
        unsafe {
            _mm_and_si128(
                _mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)),
                _mm_set1_epi16(0x00ff),
            )
        }
    }

    #[inline(always)]
    fn decode_vectors(a: __m128i, b: __m128i) -> Option<[u8; 16]> {
        // SAFETY: the store writes 16 bytes into `out`, unaligned; the rest is
        // SSE2 arithmetic.
        unsafe {
            let (va, bada) = nibbles(a);
            let (vb, badb) = nibbles(b);
            if _mm_movemask_epi8(_mm_or_si128(bada, badb)) != 0 {
                return None;
            }
            let mut out = [0u8; 16];
            _mm_storeu_si128(
                out.as_mut_ptr().cast(),
                _mm_packus_epi16(pairs(va), pairs(vb)),
            );
            Some(out)
        }
    }

    /// Decodes 32 contiguous ASCII hex digits (any case) into 16 bytes.
    #[inline(always)]
    pub(crate) fn decode32(digits: &[u8; 32]) -> Option<[u8; 16]> {
        // SAFETY: both loads read 16 bytes inside `digits`, unaligned.
        unsafe {
            let p = digits.as_ptr().cast::<__m128i>();
            decode_vectors(_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)))
        }
    }

    /// Decodes the hyphenated form. The four hyphens are checked without
    /// branches and the verdict is folded into the digit check.
    #[inline(always)]
    pub(crate) fn hyphenated(s: &[u8; 36]) -> Option<[u8; 16]> {
        let hyphens = (s[8] ^ b'-') | (s[13] ^ b'-') | (s[18] ^ b'-') | (s[23] ^ b'-');
        // Gather the digits straight from the input into four words (no
        // byte-by-byte copy through the stack, which would stall the wide loads).
        let r32 = |i: usize| {
            let mut b = [0u8; 4];
            b.copy_from_slice(&s[i..i + 4]);
            u32::from_le_bytes(b) as u64
        };
        let r64 = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&s[i..i + 8]);
            u64::from_le_bytes(b)
        };
        // SAFETY: register moves only.
        let (a, b) = unsafe {
            (
                _mm_set_epi64x((r32(9) | r32(14) << 32) as i64, r64(0) as i64),
                _mm_set_epi64x(r64(28) as i64, (r32(19) | r32(24) << 32) as i64),
            )
        };
        let bytes = decode_vectors(a, b);
        if hyphens != 0 {
            return None;
        }
        bytes
    }
}

/// The decoders for CPUs with AVX2.
///
/// The hyphenated form: three loads cover the 36 bytes, `s[0..8]`, `w =
/// s[8..24]` (the four hyphens and the middle digits) and `s[20..36]`. Two
/// `pshufb` gather the middle digits next to the first and last groups and
/// one compare checks all four hyphens. The simple form is one load. Then
/// the 32 digits are decoded and checked in one 256-bit register, and
/// `pmaddubsw` joins each pair of nibbles.
pub(crate) mod avx2 {
    use core::arch::x86_64::*;

    use crate::parse::{FAILED, Fast};

    /// Lanes 1–4 and 6–9 of `w` (digits 9–12 and 14–17) to lanes 8–15; zero
    /// elsewhere.
    const MIDDLE: [i8; 16] = [-1, -1, -1, -1, -1, -1, -1, -1, 1, 2, 3, 4, 6, 7, 8, 9];
    /// Lanes 11–14 of `w` (digits 19–22) to lanes 0–3.
    const FOURTH: [i8; 16] = [
        11, 12, 13, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    ];
    /// The hyphen lanes of `w`.
    const HYPHEN_LANES: [usize; 4] = [0, 5, 10, 15];
    /// `value` at the hyphen lanes of `w`, zero elsewhere.
    const fn at_hyphens(value: u8) -> [i8; 16] {
        let mut v = [0i8; 16];
        let mut i = 0;
        while i < HYPHEN_LANES.len() {
            v[HYPHEN_LANES[i]] = value as i8;
            i += 1;
        }
        v
    }

    /// `-` at the hyphen lanes.
    const HYPHENS: [i8; 16] = at_hyphens(b'-');
    /// The top bit at the hyphen lanes.
    const HYPHEN_TOP_BITS: [i8; 16] = at_hyphens(0x80);

    #[inline(always)]
    fn vector(a: [i8; 16]) -> __m128i {
        // SAFETY: same size; every bit pattern is valid for both.
        unsafe { core::mem::transmute::<[i8; 16], __m128i>(a) }
    }

    /// Decodes the hyphenated form; [`FAILED`] on any error.
    #[cfg(any(test, fuzzing))]
    pub(crate) fn hyphenated(_: super::cpu::Avx2, s: &[u8; 36]) -> Fast {
        // SAFETY: the token proves AVX2.
        unsafe { hyphenated_unchecked(s) }
    }

    /// The hyphenated-form decoder itself, which the dispatcher points to.
    ///
    /// # Safety
    /// The CPU and OS must support AVX2 (an [`Avx2`](super::cpu::Avx2) token
    /// exists).
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn hyphenated_unchecked(s: &[u8; 36]) -> Fast {
        let p = s.as_ptr();
        // SAFETY: the loads read s[0..8], s[8..24] and s[20..36], all inside
        // `s`; the rest is register arithmetic.
        unsafe {
            let w = _mm_loadu_si128(p.add(8).cast());
            let first = _mm_loadl_epi64(p.cast());
            let last = _mm_loadu_si128(p.add(20).cast());
            // Digits 0–7, 9–12, 14–17.
            let low = _mm_or_si128(first, _mm_shuffle_epi8(w, vector(MIDDLE)));
            // Digits 19–22, 24–35.
            let high = _mm_blend_epi32(last, _mm_shuffle_epi8(w, vector(FOURTH)), 0b0001);
            let hyphens_bad =
                _mm_andnot_si128(_mm_cmpeq_epi8(w, vector(HYPHENS)), vector(HYPHEN_TOP_BITS));
            let x = _mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1);
            decode(x, _mm256_zextsi128_si256(hyphens_bad))
        }
    }

    /// Decodes the simple form (32 hex digits); [`FAILED`] on any error.
    #[inline]
    pub(crate) fn simple(_: super::cpu::Avx2, digits: &[u8; 32]) -> Fast {
        // SAFETY: the token proves AVX2.
        unsafe { simple_unchecked(digits) }
    }

    /// As [`simple`].
    ///
    /// # Safety
    /// The CPU and OS must support AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn simple_unchecked(digits: &[u8; 32]) -> Fast {
        // SAFETY: the load reads the 32 bytes of `digits`.
        unsafe {
            decode(
                _mm256_loadu_si256(digits.as_ptr().cast()),
                _mm256_setzero_si256(),
            )
        }
    }

    /// The 16 bytes of the 32 hex digits in `x`, or [`FAILED`] if one is
    /// not a hex digit or a lane of `bad` has its top bit set.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn decode(x: __m256i, bad: __m256i) -> Fast {
        // SAFETY: register arithmetic only.
        unsafe {
            // As `sse2::nibbles`, 32 lanes at once.
            let d = _mm256_sub_epi8(x, _mm256_set1_epi8(b'0' as i8));
            let l = _mm256_sub_epi8(
                _mm256_or_si256(x, _mm256_set1_epi8(0x20)),
                _mm256_set1_epi8(b'a' as i8),
            );
            let bad_digits = _mm256_and_si256(
                _mm256_adds_epu8(d, _mm256_set1_epi8(0x76)),
                _mm256_adds_epu8(l, _mm256_set1_epi8(0x7a)),
            );
            if _mm256_movemask_epi8(_mm256_or_si256(bad_digits, bad)) != 0 {
                return FAILED;
            }
            let nibbles = _mm256_min_epu8(d, _mm256_add_epi8(l, _mm256_set1_epi8(10)));
            // Each 16-bit lane holds (high nibble, low nibble): times (16, 1).
            let bytes = _mm256_maddubs_epi16(nibbles, _mm256_set1_epi16(0x0110));
            let packed = _mm_packus_epi16(
                _mm256_castsi256_si128(bytes),
                _mm256_extracti128_si256(bytes, 1),
            );
            core::mem::transmute::<__m128i, u128>(packed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::sweep::{self, from_fast};

    #[test]
    fn sse2_decoders_agree_with_the_scalar_ones_on_every_byte_in_every_lane() {
        sweep::check_simple_decoder(sse2::decode32);
        sweep::check_hyphenated_decoder(sse2::hyphenated);
        sweep::check_hyphenated_decoder(|s| from_fast(hyphenated_sse2(s)));
    }

    #[test]
    fn hyphenated_avx2_decoder_agrees_with_the_scalar_parser() {
        let test =
            "arch::x86_64::decode::tests::hyphenated_avx2_decoder_agrees_with_the_scalar_parser";
        let Some(t) = cpu::require(test, "avx2", cpu::avx2()) else {
            return;
        };
        sweep::check_hyphenated_decoder(|s| from_fast(avx2::hyphenated(t, s)));
    }

    #[test]
    fn simple_avx2_decoder_agrees_with_the_scalar_parser() {
        let test = "arch::x86_64::decode::tests::simple_avx2_decoder_agrees_with_the_scalar_parser";
        let Some(t) = cpu::require(test, "avx2", cpu::avx2()) else {
            return;
        };
        sweep::check_simple_decoder(|d| from_fast(avx2::simple(t, d)));
    }

    #[test]
    fn dispatcher_chooses_the_fastest_decoder_this_cpu_has() {
        let expected = match cpu::avx2() {
            Some(_) => avx2::hyphenated_unchecked as Decoder,
            None => hyphenated_sse2 as Decoder,
        };
        assert_eq!(choose() as usize, expected as usize);
        assert_eq!(CHOSEN.load(Ordering::Relaxed) as usize, expected as usize);
    }
}
