//! The ChaCha block function's lanes for the thread RNG: 4 blocks at a time
//! with SSE2 (the x86_64 baseline), 8 with AVX2.
//!
//! [`Avx2`]'s methods are safe and run AVX2 instructions: they are sound
//! because the only ways to make an `Avx2` value, [`Lanes::splat`] and
//! [`Lanes::load`], take an [`cpu::Avx2`] token, which exists only where
//! the CPU has AVX2.

use core::arch::x86_64::*;

use super::cpu;
use crate::chacha::{GROUP, Lanes, blocks};

/// One group of 8 blocks from block `counter` on, with the widest lanes this
/// CPU has.
#[inline]
pub(crate) fn group(key: &[u32; 8], counter: u64, out: &mut [u8; GROUP]) {
    match cpu::avx2() {
        Some(t) => group_avx2(t, key, counter, out),
        None => group_sse2(key, counter, out),
    }
}

/// A group as two runs of 4 blocks, SSE2.
pub(crate) fn group_sse2(key: &[u32; 8], counter: u64, out: &mut [u8; GROUP]) {
    let (a, b) = out.split_at_mut(GROUP / 2);
    blocks::<Sse2>((), key, counter, a);
    blocks::<Sse2>((), key, counter.wrapping_add(4), b);
}

/// A group as one run of 8 blocks, AVX2.
pub(crate) fn group_avx2(t: cpu::Avx2, key: &[u32; 8], counter: u64, out: &mut [u8; GROUP]) {
    // SAFETY: the token proves AVX2.
    unsafe { blocks_avx2(t, key, counter, out) }
}

/// As [`group_avx2`], compiled for AVX2 so that the lanes' methods inline.
#[target_feature(enable = "avx2")]
fn blocks_avx2(t: cpu::Avx2, key: &[u32; 8], counter: u64, out: &mut [u8; GROUP]) {
    blocks::<Avx2>(t, key, counter, out);
}

/// Four 32-bit lanes.
#[derive(Clone, Copy)]
pub(crate) struct Sse2(__m128i);

/// Eight 32-bit lanes; only an [`cpu::Avx2`] token makes one.
#[derive(Clone, Copy)]
pub(crate) struct Avx2(__m256i);

// SAFETY (all `unsafe` blocks of this impl): SSE2 is part of x86_64. Loads
// and stores are unaligned and within the slices (checked by indexing).
impl Lanes for Sse2 {
    type Token = ();
    const N: usize = 4;
    #[inline(always)]
    fn load((): (), w: &[u32]) -> Sse2 {
        let w = &w[..4];
        Sse2(unsafe { _mm_loadu_si128(w.as_ptr().cast()) })
    }
    #[inline(always)]
    fn splat((): (), x: u32) -> Sse2 {
        Sse2(unsafe { _mm_set1_epi32(x as i32) })
    }
    #[inline(always)]
    fn add(self, o: Sse2) -> Sse2 {
        Sse2(unsafe { _mm_add_epi32(self.0, o.0) })
    }
    #[inline(always)]
    fn xor(self, o: Sse2) -> Sse2 {
        Sse2(unsafe { _mm_xor_si128(self.0, o.0) })
    }
    #[inline(always)]
    fn rotl<const R: u32>(self) -> Sse2 {
        unsafe {
            let l = _mm_sll_epi32(self.0, _mm_cvtsi32_si128(R as i32));
            let r = _mm_srl_epi32(self.0, _mm_cvtsi32_si128(32 - R as i32));
            Sse2(_mm_or_si128(l, r))
        }
    }
    #[inline(always)]
    fn store(self, out: &mut [u8]) {
        let out = &mut out[..16];
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), self.0) }
    }
}

#[repr(C, align(32))]
struct Mask([u8; 32]);
/// `pshufb` masks rotating each 32-bit word left by 16 and by 8 bits.
static ROT16: Mask = Mask([
    2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14,
    15, 12, 13,
]);
static ROT8: Mask = Mask([
    3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15,
    12, 13, 14,
]);

// SAFETY (all `unsafe` blocks of this impl): an `Avx2` value exists only if
// `load` or `splat` was given a token, so the CPU has AVX2. Loads and stores
// are unaligned and within the slices (checked by indexing).
impl Lanes for Avx2 {
    type Token = cpu::Avx2;
    const N: usize = 8;
    #[inline(always)]
    fn load(_: cpu::Avx2, w: &[u32]) -> Avx2 {
        let w = &w[..8];
        Avx2(unsafe { _mm256_loadu_si256(w.as_ptr().cast()) })
    }
    #[inline(always)]
    fn splat(_: cpu::Avx2, x: u32) -> Avx2 {
        Avx2(unsafe { _mm256_set1_epi32(x as i32) })
    }
    #[inline(always)]
    fn add(self, o: Avx2) -> Avx2 {
        Avx2(unsafe { _mm256_add_epi32(self.0, o.0) })
    }
    #[inline(always)]
    fn xor(self, o: Avx2) -> Avx2 {
        Avx2(unsafe { _mm256_xor_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn rotl<const R: u32>(self) -> Avx2 {
        unsafe {
            match R {
                // Whole-byte rotations are one byte shuffle. The masks are read
                // with a volatile load so that the compiler keeps one `vpshufb`
                // (it would otherwise rewrite it as two word shuffles).
                16 => Avx2(_mm256_shuffle_epi8(
                    self.0,
                    core::ptr::read_volatile(ROT16.0.as_ptr().cast::<__m256i>()),
                )),
                8 => Avx2(_mm256_shuffle_epi8(
                    self.0,
                    core::ptr::read_volatile(ROT8.0.as_ptr().cast::<__m256i>()),
                )),
                _ => {
                    let l = _mm256_sll_epi32(self.0, _mm_cvtsi32_si128(R as i32));
                    let r = _mm256_srl_epi32(self.0, _mm_cvtsi32_si128(32 - R as i32));
                    Avx2(_mm256_or_si256(l, r))
                }
            }
        }
    }
    #[inline(always)]
    fn store(self, out: &mut [u8]) {
        let out = &mut out[..32];
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), self.0) }
    }
}
