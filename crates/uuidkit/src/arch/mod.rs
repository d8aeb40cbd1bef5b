//! Everything that depends on the CPU: vector code, inline assembly and the
//! run-time detection of CPU features, behind one function per operation.
//!
//! The rest of the crate is portable Rust and calls these functions; each
//! has the same signature on every target. On x86_64 it runs the best code
//! the CPU has, chosen by the one detection module (`x86_64::cpu`); on other
//! targets it is the portable code, which also serves as the reference that
//! every vector path is tested against (see BENCHMARKS.md for which paths
//! exist and what each gains).
//!
//! Soundness: a function here that runs instructions beyond the target's
//! baseline takes a token that only the detection module makes, and only
//! where the CPU has those instructions, so holding one is the proof.

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

#[cfg(any(test, all(fuzzing, feature = "std")))]
pub mod differential;
#[cfg(test)]
pub(crate) mod sweep;

use crate::Uuid;
use crate::encoding::Digits32;
use crate::fmt::Sink;
use crate::parse::Fast;

/// The hyphenated form (36 bytes) decoded: the UUID's bytes as a [`Fast`]
/// value, [`FAILED`](crate::parse::FAILED) on any error.
#[inline(always)]
pub(crate) fn decode_hyphenated(s: &[u8; 36]) -> Fast {
    #[cfg(target_arch = "x86_64")]
    return x86_64::decode::hyphenated(s);
    #[cfg(not(target_arch = "x86_64"))]
    crate::parse::to_fast(crate::parse::decode_hyphenated_scalar(s))
}

/// The simple form (32 hex digits) decoded, as [`decode_hyphenated`].
#[inline(always)]
pub(crate) fn decode_simple(digits: &[u8; 32]) -> Fast {
    #[cfg(target_arch = "x86_64")]
    return x86_64::decode::simple(digits);
    #[cfg(not(target_arch = "x86_64"))]
    crate::parse::to_fast(crate::parse::decode32_scalar(digits))
}

/// 16 bytes as 32 hex digits.
#[inline(always)]
pub(crate) fn encode32(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
    #[cfg(target_arch = "x86_64")]
    return x86_64::encode::encode32(bytes, upper);
    #[cfg(not(target_arch = "x86_64"))]
    crate::fmt::encode32_scalar(bytes, upper)
}

/// The 36-character hyphenated form of `bytes` into `out`; `sink` says where
/// the text goes, which decides the faster encoder.
#[inline(always)]
pub(crate) fn encode_hyphenated(bytes: &[u8; 16], upper: bool, out: &mut [u8; 36], sink: Sink) {
    #[cfg(target_arch = "x86_64")]
    x86_64::encode::hyphenated(bytes, upper, out, sink);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = sink;
        crate::fmt::place_hyphens(&crate::fmt::encode32_scalar(bytes, upper), out);
    }
}

/// The base32 text of `bytes` in `digits` (see [`Digits32`]).
#[inline(always)]
pub(crate) fn encode_base32(bytes: &[u8; 16], digits: Digits32, out: &mut [u8; 26]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::encode_base32(t, bytes, digits, out);
    }
    crate::encoding::encode_base32_portable(bytes, digits, out);
}

/// The base64url text of `bytes`.
#[inline(always)]
pub(crate) fn encode_base64url(bytes: &[u8; 16], out: &mut [u8; 22]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::encode_base64url(t, bytes, out);
    }
    crate::encoding::encode_base64url_portable(bytes, out);
}

/// The base58 text of `v` (22 digits).
#[inline(always)]
pub(crate) fn encode_base58(v: u128, out: &mut [u8; 22]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::base58::encode(t, v, out);
    }
    crate::encoding::encode_base58_portable(v, out);
}

/// The UUID of a 26-digit base32 text in `digits`, or `None` if it is not
/// one.
#[inline(always)]
pub(crate) fn decode_base32(s: &[u8; 26], digits: Digits32) -> Option<Uuid> {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::decode_base32_uuid(t, s, digits);
    }
    crate::encoding::decode_base32_portable(s, digits).map(Uuid::from_bytes)
}

/// The bytes of a 26-digit base32 text in `digits` written into `out`, or
/// `false` if it is not one (see `x86_64::short::decode_base32_uuid` for
/// why there are two shapes).
#[inline(always)]
pub(crate) fn decode_base32_into(s: &[u8; 26], digits: Digits32, out: &mut [u8; 16]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::decode_base32_into(t, s, digits, out);
    }
    match crate::encoding::decode_base32_portable(s, digits) {
        Some(b) => {
            *out = b;
            true
        }
        None => false,
    }
}

/// The UUID of a base64url text, or `None` if it is not one.
#[inline(always)]
pub(crate) fn decode_base64url(s: &[u8; 22]) -> Option<Uuid> {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::decode_base64url_uuid(t, s);
    }
    crate::encoding::decode_base64url_portable(s).map(Uuid::from_bytes)
}

/// The values of a base58 text's digit groups (the first two digits, then
/// five groups of four), or `None` if a character is not a digit.
#[cfg(any(test, all(fuzzing, feature = "std")))]
pub(crate) fn base58_groups(s: &[u8; 22]) -> Option<[u32; 6]> {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::base58_groups(t, s);
    }
    crate::encoding::base58_groups_portable(s)
}

/// Which of the 16 bytes of `lo` and `hi` (little-endian words, `lo`
/// first) are TypeID prefix letters (`a-z`), and which are letters or `_`:
/// one bit per byte, byte 0 in bit 0.
#[inline(always)]
pub(crate) fn prefix_classes(lo: u64, hi: u64) -> (u16, u16) {
    #[cfg(target_arch = "x86_64")]
    return x86_64::prefix_classes(lo, hi);
    #[cfg(not(target_arch = "x86_64"))]
    crate::encoding::prefix_classes_portable(lo, hi)
}

/// The UUID of a base58 text, its bytes written into `out`; `Err(true)` if
/// a character is not a digit, `Err(false)` if the value does not fit in 128
/// bits.
#[inline(always)]
pub(crate) fn decode_base58(s: &[u8; 22], out: &mut [u8; 16]) -> Result<(), bool> {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::decode_base58(t, s, out);
    }
    crate::encoding::decode_base58_portable(s, out)
}

/// Writes a leading run of `uuids` as lines (hyphenated form and `'\n'`,
/// [`LINE`](crate::fmt::LINE) bytes each) into the start of `out`, in bulk;
/// returns how many UUIDs it wrote (0 where there is no bulk path), and the
/// caller writes the rest.
///
/// # Panics
/// If `out` is shorter than `LINE × uuids.len()` bytes.
#[inline]
pub(crate) fn encode_lines(uuids: &[Uuid], out: &mut [u8], upper: bool) -> usize {
    #[cfg(target_arch = "x86_64")]
    return x86_64::lines::encode(uuids, out, upper);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (uuids, out, upper);
        0
    }
}

/// One group of 8 ChaCha12 blocks from block `counter` on, with the widest
/// lanes this CPU has.
#[cfg(feature = "std")]
#[inline]
pub(crate) fn chacha_group(key: &[u32; 8], counter: u64, out: &mut [u8; crate::rng::block::GROUP]) {
    #[cfg(target_arch = "x86_64")]
    x86_64::chacha::group(key, counter, out);
    #[cfg(not(target_arch = "x86_64"))]
    crate::rng::block::group_scalar(key, counter, out);
}

/// A leading run of the process-wide v7 generator's bulk layout (see
/// `v7::global`): `out[i]` from state value `base + i` and `randoms[i]`;
/// returns how many it wrote (0 where there is no vector path), and the
/// caller writes the rest.
#[cfg(feature = "std")]
#[inline]
pub(crate) fn v7_lay_out(base: u64, randoms: &[u64], out: &mut [Uuid]) -> usize {
    #[cfg(target_arch = "x86_64")]
    return x86_64::v7::lay_out(base, randoms, out);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (base, randoms, out);
        0
    }
}

/// Writes two little-endian words into `dst` as one 16-byte store where the
/// CPU has one (the compiler would otherwise split it into two 8-byte
/// stores, which a later 16-byte load of the same bytes cannot take its data
/// from: it waits until they reach the cache).
#[inline(always)]
pub(crate) fn store_16(dst: &mut [u8; 16], lo: u64, hi: u64) {
    #[cfg(target_arch = "x86_64")]
    x86_64::store_16(dst, lo, hi);
    #[cfg(not(target_arch = "x86_64"))]
    {
        *dst = (u128::from(lo) | u128::from(hi) << 64).to_le_bytes();
    }
}

/// `x`, opaque to the optimiser: an empty assembly block that claims to
/// change the register. MD5's block function uses it to keep LLVM from
/// re-associating a sum (see `name/md5.rs`).
#[inline(always)]
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64")),
    allow(unused_mut)
)]
pub(crate) fn opaque_u32(mut x: u32) -> u32 {
    // SAFETY: an empty template; it only claims to change the register.
    // (The modifier names the 32-bit register: `e` on x86, `w` on Arm.)
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    unsafe {
        core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack));
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        core::arch::asm!("/* {0:w} */", inout(reg) x, options(pure, nomem, nostack));
    }
    x
}
