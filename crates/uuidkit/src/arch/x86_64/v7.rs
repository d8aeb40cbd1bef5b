//! The process-wide v7 generator's bulk layout, four UUIDs per AVX2 step.

use core::arch::x86_64::*;

use super::cpu::{self, Avx2};
use crate::uuid::Uuid;

/// The v7 layout of the process-wide generator (`v7::global::layout`) for
/// whole runs of 4 UUIDs, if this CPU has AVX2: `out[i]` gets state value
/// `base + i` and random word `randoms[i]`. Returns how many were done.
#[inline]
pub(crate) fn lay_out(base: u64, randoms: &[u64], out: &mut [Uuid]) -> usize {
    match cpu::avx2() {
        Some(t) => lay_out_avx2(t, base, randoms, out),
        None => 0,
    }
}

/// [`lay_out`] with AVX2.
pub(crate) fn lay_out_avx2(_: Avx2, base: u64, randoms: &[u64], out: &mut [Uuid]) -> usize {
    // SAFETY: the token proves AVX2.
    unsafe { lay_out_runs(base, randoms, out) }
}

/// As [`lay_out_avx2`], compiled for AVX2: whole runs of four, the state
/// values four 64-bit lanes.
#[target_feature(enable = "avx2")]
fn lay_out_runs(base: u64, randoms: &[u64], out: &mut [Uuid]) -> usize {
    // Byte-swaps each 64-bit lane (the big-endian first half of a UUID).
    let bswap = _mm256_setr_epi8(
        7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13,
        12, 11, 10, 9, 8,
    );
    let ms_mask = _mm256_set1_epi64x(!0xFFFF);
    let version = _mm256_set1_epi64x(0x7000);
    let rand_a = _mm256_set1_epi64x(0x0FFF);
    let rand_keep = _mm256_set1_epi64x(!0xFC);
    let variant = _mm256_set1_epi64x(0x80);
    let low4 = _mm256_set1_epi64x(0xF);
    let four = _mm256_set1_epi64x(4);
    let mut state = _mm256_add_epi64(
        _mm256_set1_epi64x(base as i64),
        _mm256_setr_epi64x(0, 1, 2, 3),
    );
    let mut runs = 0;
    for (r, dst) in randoms.chunks_exact(4).zip(out.chunks_exact_mut(4)) {
        // SAFETY: reads the 32 bytes of the four words of `r`, unaligned.
        let r = unsafe { _mm256_loadu_si256(r.as_ptr().cast()) };
        let high = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(state, ms_mask), version),
            _mm256_and_si256(_mm256_srli_epi64(state, 4), rand_a),
        );
        let high = _mm256_shuffle_epi8(high, bswap);
        let low = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(r, rand_keep), variant),
            _mm256_slli_epi64(_mm256_and_si256(state, low4), 2),
        );
        // [h0 l0 | h2 l2] and [h1 l1 | h3 l3], then UUIDs 0, 1 and 2, 3.
        let even = _mm256_unpacklo_epi64(high, low);
        let odd = _mm256_unpackhi_epi64(high, low);
        let (first, second) = (
            _mm256_permute2x128_si256(even, odd, 0x20),
            _mm256_permute2x128_si256(even, odd, 0x31),
        );
        // SAFETY: the two stores write the 64 bytes of the four UUIDs of
        // `dst`, unaligned.
        unsafe {
            let dst = dst.as_mut_ptr().cast::<__m256i>();
            _mm256_storeu_si256(dst, first);
            _mm256_storeu_si256(dst.add(1), second);
        }
        state = _mm256_add_epi64(state, four);
        runs += 1;
    }
    4 * runs
}
