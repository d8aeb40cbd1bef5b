//! SHA-1 of one padded 64-byte block with the x86 SHA extensions, returning
//! only the leftmost 128 bits (all a version 5 UUID keeps).
//!
//! This is the whole of `Uuid::new_v5` for names of up to 39 bytes. Going
//! through the `sha1` crate's block function instead costs a round trip of the
//! block and the state through memory, the fifth state word and a dispatch per
//! call (BENCHMARKS.md has the figures). Longer names use the crate. The
//! result is checked against the `sha1` crate's `Digest` API for every name
//! length and against the portable path (`name` module tests).
//!
//! Layout convention of the SHA instructions: a vector holds four 32-bit words
//! with the first word of the group in the highest lane, so a block's 16 bytes
//! are byte-reversed as a whole to become one message vector.

use core::arch::x86_64::*;

use super::cpu::{self, Sha};
use crate::Uuid;
use crate::name::{SINGLE_BLOCK_NAME, single_block_lanes};

/// The version 5 UUID's bytes for a name of at most [`SINGLE_BLOCK_NAME`]
/// bytes, if this CPU has the SHA extensions.
#[inline(always)]
pub(crate) fn v5_one_block(namespace: &Uuid, name: &[u8]) -> Option<[u8; 16]> {
    let t = cpu::sha()?;
    (name.len() <= SINGLE_BLOCK_NAME).then(|| v5_bytes(t, namespace, name))
}

/// The version 5 UUID of `namespace ‖ name` with the SHA extensions (see
/// [`v5_bytes_unchecked`]).
///
/// # Panics
/// If `name` is longer than [`SINGLE_BLOCK_NAME`].
#[inline]
pub(crate) fn v5_bytes(_: Sha, namespace: &Uuid, name: &[u8]) -> [u8; 16] {
    assert!(name.len() <= SINGLE_BLOCK_NAME);
    // SAFETY: the token proves the CPU features; the name fits (asserted).
    unsafe { v5_bytes_unchecked(namespace, name) }
}

/// The version 5 UUID of `namespace ‖ name` (the first 16 bytes of its SHA-1
/// with the version and variant set), for a name of at most
/// [`SINGLE_BLOCK_NAME`] bytes (one padded block).
///
/// The block is built inside this function, in registers: passed in from a
/// caller it would go through memory as 8-byte stores read back by 16-byte
/// loads, which the CPU cannot forward.
///
/// # Safety
/// The CPU must support SHA, SSE2, SSSE3 and SSE4.1 (a [`Sha`] token exists).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
unsafe fn v5_bytes_unchecked(namespace: &Uuid, name: &[u8]) -> [u8; 16] {
    debug_assert!(name.len() <= SINGLE_BLOCK_NAME);
    // SHA-1's length field is big-endian.
    let lanes = single_block_lanes(namespace, name, true);
    // Reverses all 16 bytes: block order to the instructions' lane order, and
    // back from the state's lane order to the digest's big-endian bytes.
    let reverse = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    let msg = |[lo, hi]: [u64; 2]| _mm_shuffle_epi8(_mm_set_epi64x(hi as i64, lo as i64), reverse);
    let initial = _mm_set_epi32(
        0x6745_2301_u32 as i32,
        0xefcd_ab89_u32 as i32,
        0x98ba_dcfe_u32 as i32,
        0x1032_5476,
    );
    let e_initial = _mm_set_epi32(0xc3d2_e1f0_u32 as i32, 0, 0, 0);

    // w[g] holds message words 4g..4g+4: the block, then the schedule
    // W[t] = rotl1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]), four words at a time.
    let mut w = [_mm_setzero_si128(); 20];
    for (i, lane) in lanes.into_iter().enumerate() {
        w[i] = msg(lane);
    }
    for g in 4..20 {
        w[g] = _mm_sha1msg2_epu32(
            _mm_xor_si128(_mm_sha1msg1_epu32(w[g - 4], w[g - 3]), w[g - 2]),
            w[g - 1],
        );
    }
    let mut abcd = initial;
    let mut previous = initial;
    // Twenty groups of four rounds; the round function changes every five.
    macro_rules! groups {
        ($function:literal) => {
            for g in 5 * $function..5 * $function + 5 {
                let e = if g == 0 {
                    _mm_add_epi32(e_initial, w[0])
                } else {
                    // E of this group: A from before the previous group,
                    // rotated, plus this group's first word.
                    _mm_sha1nexte_epu32(previous, w[g])
                };
                previous = abcd;
                abcd = _mm_sha1rnds4_epu32(abcd, e, $function);
            }
        };
    }
    groups!(0);
    groups!(1);
    groups!(2);
    groups!(3);
    let hash = _mm_shuffle_epi8(_mm_add_epi32(abcd, initial), reverse);
    // Version 5 and the RFC variant, set here rather than by `with_version`:
    // its byte stores into the result would make the caller's 16-byte load
    // of it wait (no store forwarding from several stores to one load).
    // Lanes are little-endian: byte 6 is bits 48..56 of the low half, byte 8
    // bits 0..8 of the high half.
    let keep = _mm_set_epi64x(
        0xffff_ffff_ffff_ff3f_u64 as i64,
        0xff0f_ffff_ffff_ffff_u64 as i64,
    );
    let set = _mm_set_epi64x(0x80, 0x0050_0000_0000_0000);
    let uuid = _mm_or_si128(_mm_and_si128(hash, keep), set);
    let mut out = [0u8; 16];
    // SAFETY: a 16-byte unaligned store into `out`.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), uuid) };
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::name::new_v5_portable;

    /// The SHA-NI one-block path against the portable one, for every name
    /// length it takes and every byte value in every position of the name.
    #[test]
    fn sha_ni_and_portable_v5_agree() {
        let test = "arch::x86_64::sha1::tests::sha_ni_and_portable_v5_agree";
        let Some(t) = cpu::require(test, "sha", cpu::sha()) else {
            return;
        };
        for ns in [
            crate::namespace::DNS,
            crate::namespace::X500,
            Uuid::MAX,
            Uuid::NIL,
        ] {
            for len in 0..=SINGLE_BLOCK_NAME {
                for byte in 0..=255u8 {
                    let name: std::vec::Vec<u8> = (0..len)
                        .map(|i| byte.wrapping_add((i * 37) as u8))
                        .collect();
                    let expected = new_v5_portable(&ns, &name);
                    assert_eq!(
                        Uuid::from_bytes(v5_bytes(t, &ns, &name)),
                        expected,
                        "namespace {ns}, name {name:02x?}"
                    );
                    assert_eq!(v5_one_block(&ns, &name), Some(expected.into_bytes()));
                }
            }
        }
        assert_eq!(v5_one_block(&Uuid::NIL, &[0; SINGLE_BLOCK_NAME + 1]), None);
    }
}
