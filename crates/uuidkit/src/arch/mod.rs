//! Everything that depends on the CPU: vector code, inline assembly and the
//! run-time detection of CPU features, behind one function per operation.
//!
//! Each function answers "done" or "not here": it does the work with the
//! best code this CPU has and says so (`true`, `Some`, a count), or it says
//! that there is no such code here (`false`, `None`, 0), and the caller runs
//! its own portable code. The portable code stays with its caller (the
//! parser, the formatter, each encoding, the RNG), where it is the fallback
//! on other CPUs and targets and the reference every path here is tested
//! and fuzzed against (`crate::check`). benchmarks/library.md says which paths exist
//! and what each gains.
//!
//! `arch` is a leaf: it uses only [`Uuid`] and the modules that hold what
//! the kernels share with the portable code (`hex`, `chacha`,
//! `encoding::digits`, `encoding::base58::arith`), none of which uses the
//! rest of the crate.
//!
//! On x86_64 the one detection module, `x86_64::cpu`, decides; every path
//! beyond SSE2 (the target's baseline) runs only with a token that module
//! makes where the CPU has the features, so holding one is the proof. The
//! AVX2 kernels are safe `#[target_feature(enable = "avx2")]` functions,
//! which call one another and the intrinsics without `unsafe`; the one
//! `unsafe` call into them is made by the function that holds the token.
//! Where a kernel must inline into a caller built without AVX2 (the hex
//! encoder and decoders, whose call would cost a large share of their
//! time), it is inline assembly instead, run under the same token.

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

use crate::encoding::digits::Digits32;
use crate::uuid::Uuid;

/// The hyphenated form (36 bytes) decoded into `out`: `Some(true)` for a
/// valid text (its bytes then in `out`), `Some(false)` for any other; `None`
/// where there is no vector decoder.
#[inline(always)]
pub(crate) fn decode_hyphenated(s: &[u8; 36], out: &mut [u8; 16]) -> Option<bool> {
    #[cfg(target_arch = "x86_64")]
    return Some(x86_64::decode::hyphenated(s, out));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (s, out);
        None
    }
}

/// The simple form (32 hex digits) decoded, as [`decode_hyphenated`].
#[inline(always)]
pub(crate) fn decode_simple(digits: &[u8; 32], out: &mut [u8; 16]) -> Option<bool> {
    #[cfg(target_arch = "x86_64")]
    return Some(x86_64::decode::simple(digits, out));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (digits, out);
        None
    }
}

/// 16 bytes as 32 hex digits; `None` where there is no vector encoder.
#[inline(always)]
pub(crate) fn encode32(bytes: &[u8; 16], upper: bool) -> Option<[u8; 32]> {
    #[cfg(target_arch = "x86_64")]
    return Some(x86_64::encode::sse2::encode32(bytes, upper));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (bytes, upper);
        None
    }
}

/// The 36-character hyphenated form of `bytes` into `out`, with an encoder
/// the compiler sees whole (no feature check; what a `Formatter` wants, see
/// `fmt::Sink`); `false` where there is none.
#[inline(always)]
pub(crate) fn encode_hyphenated(bytes: &[u8; 16], upper: bool, out: &mut [u8; 36]) -> bool {
    #[cfg(target_arch = "x86_64")]
    x86_64::encode::sse2::hyphenated(bytes, upper, out);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, upper, out);
    cfg!(target_arch = "x86_64")
}

/// The hyphenated form of `bytes` into a caller's buffer with the widest
/// encoder this CPU has; `false` where it has none beyond
/// [`encode_hyphenated`]'s.
#[inline(always)]
pub(crate) fn encode_hyphenated_wide(bytes: &[u8; 16], upper: bool, out: &mut [u8; 36]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        x86_64::encode::avx2::hyphenated(t, bytes, upper, out);
        return true;
    }
    let _ = (bytes, upper, out);
    false
}

/// The base32 text of `bytes` in `digits` (see [`Digits32`]); `false` where
/// there is no vector encoder.
#[inline(always)]
pub(crate) fn encode_base32(bytes: &[u8; 16], digits: Digits32, out: &mut [u8; 26]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        x86_64::short::encode_base32(t, bytes, digits, out);
        return true;
    }
    let _ = (bytes, digits, out);
    false
}

/// The base64url text of `bytes`; `false` where there is no vector encoder.
#[inline(always)]
pub(crate) fn encode_base64url(bytes: &[u8; 16], out: &mut [u8; 22]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        x86_64::short::encode_base64url(t, bytes, out);
        return true;
    }
    let _ = (bytes, out);
    false
}

/// The base58 text of `v` (22 digits); `false` where there is no vector
/// encoder.
#[inline(always)]
pub(crate) fn encode_base58(v: u128, out: &mut [u8; 22]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        x86_64::base58::encode(t, v, out);
        return true;
    }
    let _ = (v, out);
    false
}

/// The UUID of a 26-digit base32 text in `digits`, if there is a vector
/// decoder and it says the text is valid; `None` leaves the answer to the
/// caller's portable decoder (no vector decoder, an invalid text, or the
/// Max UUID's text, which the vector decoder cannot tell from an invalid
/// one).
#[inline(always)]
pub(crate) fn decode_base32(s: &[u8; 26], digits: Digits32) -> Option<Uuid> {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::decode_base32_uuid(t, s, digits);
    }
    let _ = (s, digits);
    None
}

/// Whether a vector decoder found `s` a valid 26-digit base32 text in
/// `digits`, its bytes then written into `out`; `false` leaves the answer
/// to the caller's portable decoder (see `x86_64::short::decode_base32_uuid`
/// for why there are two shapes).
#[inline(always)]
pub(crate) fn decode_base32_into(s: &[u8; 26], digits: Digits32, out: &mut [u8; 16]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::decode_base32_into(t, s, digits, out);
    }
    let _ = (s, digits, out);
    false
}

/// The UUID of a base64url text, as [`decode_base32`].
#[inline(always)]
pub(crate) fn decode_base64url(s: &[u8; 22]) -> Option<Uuid> {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::decode_base64url_uuid(t, s);
    }
    let _ = s;
    None
}

/// Whether a vector decoder found `s` a base58 text whose value fits in 128
/// bits, its bytes then written into `out`; `false` leaves the answer (and
/// the reason) to the caller's portable decoder.
#[inline(always)]
pub(crate) fn decode_base58(s: &[u8; 22], out: &mut [u8; 16]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = x86_64::cpu::avx2() {
        return x86_64::short::decode_base58(t, s, out).is_ok();
    }
    let _ = (s, out);
    false
}

/// Which of the 16 bytes of `lo` and `hi` (little-endian words, `lo`
/// first) are TypeID prefix letters (`a-z`), and which are letters or `_`:
/// one bit per byte, byte 0 in bit 0; `None` where there is no vector code.
#[inline(always)]
pub(crate) fn prefix_classes(lo: u64, hi: u64) -> Option<(u16, u16)> {
    #[cfg(target_arch = "x86_64")]
    return Some(x86_64::prefix_classes(lo, hi));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (lo, hi);
        None
    }
}

/// Writes a leading run of `uuids` as lines (hyphenated form and `'\n'`,
/// [`LINE`](crate::hex::LINE) bytes each) into the start of `out`, in bulk;
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
/// lanes this CPU has, word-interleaved as those lanes emit it
/// (`chacha::blocks`); `false` where there are no vector lanes.
#[cfg(feature = "std")]
#[inline]
pub(crate) fn chacha_group(
    key: &[u32; 8],
    counter: u64,
    out: &mut [u8; crate::chacha::GROUP],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    x86_64::chacha::group(key, counter, out);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (key, counter, out);
    cfg!(target_arch = "x86_64")
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

/// Writes two little-endian words into `dst` as one 16-byte store; `false`
/// where the CPU has none (the compiler would otherwise split it into two
/// 8-byte stores, which a later 16-byte load of the same bytes cannot take
/// its data from: it waits until they reach the cache).
#[inline(always)]
pub(crate) fn store_16(dst: &mut [u8; 16], lo: u64, hi: u64) -> bool {
    #[cfg(target_arch = "x86_64")]
    x86_64::store_16(dst, lo, hi);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (dst, lo, hi);
    cfg!(target_arch = "x86_64")
}

/// As [`store_16`], and the compiler may not split the store again (it
/// would, for a value it then hands back through memory, as a function
/// that is not inlined returns a UUID); `false` where the CPU has none.
#[cfg(feature = "std")]
#[inline(always)]
pub(crate) fn store_16_whole(dst: &mut [u8; 16], lo: u64, hi: u64) -> bool {
    #[cfg(target_arch = "x86_64")]
    x86_64::store_16_whole(dst, lo, hi);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (dst, lo, hi);
    cfg!(target_arch = "x86_64")
}

/// `x`, opaque to the optimiser: an empty assembly block that claims to
/// change the register; `None` where there is no such block. MD5's block
/// function uses it to keep LLVM from re-associating a sum (see
/// `name/md5.rs`).
#[inline(always)]
pub(crate) fn opaque_u32(x: u32) -> Option<u32> {
    #[cfg(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"))]
    {
        let mut x = x;
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
        Some(x)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64")))]
    {
        let _ = x;
        None
    }
}
