//! x86_64: SSE2 is part of the target, so its paths need no detection; every
//! other feature set is detected at run time by [`cpu`] and used through its
//! token.

pub(crate) mod base58;
pub(crate) mod cpu;
pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod lines;
pub(crate) mod short;

#[cfg(feature = "std")]
pub(crate) mod chacha;
#[cfg(feature = "std")]
pub(crate) mod v7;

/// Two little-endian words into `dst`, as one SSE2 store.
#[inline(always)]
pub(crate) fn store_16(dst: &mut [u8; 16], lo: u64, hi: u64) {
    use core::arch::x86_64::{_mm_set_epi64x, _mm_storeu_si128};
    // SAFETY: SSE2 is part of x86_64; the store writes the 16 bytes of
    // `dst`, unaligned.
    unsafe {
        _mm_storeu_si128(
            dst.as_mut_ptr().cast(),
            _mm_set_epi64x(hi as i64, lo as i64),
        )
    }
}

/// As [`store_16`], with the vector kept opaque to the optimiser up to the
/// store, so that the compiler cannot see through it and split the store
/// into two 8-byte ones again.
#[cfg(feature = "std")]
#[inline(always)]
pub(crate) fn store_16_whole(dst: &mut [u8; 16], lo: u64, hi: u64) {
    use core::arch::x86_64::{_mm_set_epi64x, _mm_storeu_si128};
    // SAFETY: SSE2 is part of x86_64; the empty template only claims to
    // change the register; the store writes the 16 bytes of `dst`.
    unsafe {
        let mut v = _mm_set_epi64x(hi as i64, lo as i64);
        core::arch::asm!("/* {0} */", inout(xmm_reg) v, options(pure, nomem, nostack, preserves_flags));
        _mm_storeu_si128(dst.as_mut_ptr().cast(), v)
    }
}

/// TypeID prefix classes (see `arch::prefix_classes`), 16 bytes at once
/// with SSE2: a byte is a letter if it lies within 25 above `a` (an
/// unsigned minimum tells), valid if a letter or `_`.
#[inline(always)]
pub(crate) fn prefix_classes(lo: u64, hi: u64) -> (u16, u16) {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; register arithmetic only.
    unsafe {
        let x = _mm_set_epi64x(hi as i64, lo as i64);
        let d = _mm_sub_epi8(x, _mm_set1_epi8(b'a' as i8));
        let letters = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(25)), d);
        let valid = _mm_or_si128(letters, _mm_cmpeq_epi8(x, _mm_set1_epi8(b'_' as i8)));
        (
            _mm_movemask_epi8(letters) as u16,
            _mm_movemask_epi8(valid) as u16,
        )
    }
}
