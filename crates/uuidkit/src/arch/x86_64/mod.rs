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
