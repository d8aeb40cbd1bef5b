//! Hex decoding for the parser: the hyphenated form (36 bytes) and the simple
//! form (32 hex digits) to the UUID's 16 bytes, written into the caller's
//! buffer, and whether the text is one.
//!
//! Two decoders of each form: SSE2 (the x86_64 baseline) and AVX2. The AVX2
//! ones are inline assembly, chosen by a feature check in the caller, for the
//! reason the hyphenated encoder is (`encode::avx2`): a `#[target_feature]`
//! function cannot be inlined into a caller built without AVX2, and a call
//! (direct after a feature check, or through a pointer chosen on first use)
//! costs as much as a quarter of the whole parse. The bytes leave the
//! vector register inside the assembly, as two 64-bit halves in general
//! registers (see `avx2::verdict` for why), and only the verdict comes back.

use super::cpu;

/// Decodes the hyphenated form into `out` with the best decoder this CPU
/// has; `false` (and `out` unspecified) if it is not one.
#[inline(always)]
pub(crate) fn hyphenated(s: &[u8; 36], out: &mut [u8; 16]) -> bool {
    match cpu::avx2() {
        Some(t) => avx2::hyphenated(t, s, out),
        None => sse2::hyphenated(s).map(|b| *out = b).is_some(),
    }
}

/// Decodes the simple form into `out`, as [`hyphenated`].
#[inline(always)]
pub(crate) fn simple(digits: &[u8; 32], out: &mut [u8; 16]) -> bool {
    match cpu::avx2() {
        Some(t) => avx2::simple(t, digits, out),
        None => sse2::decode32(digits).map(|b| *out = b).is_some(),
    }
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

    /// The 16 bytes of the 32 hex digits in `a` and `b`, or `None` if one
    /// is not a hex digit.
    #[inline(always)]
    fn decode_vectors(a: __m128i, b: __m128i) -> Option<[u8; 16]> {
        // SAFETY: SSE2 arithmetic; the transmute is between two 16-byte
        // types for which every bit pattern is valid.
        unsafe {
            let (va, bada) = nibbles(a);
            let (vb, badb) = nibbles(b);
            if _mm_movemask_epi8(_mm_or_si128(bada, badb)) != 0 {
                return None;
            }
            let packed = _mm_packus_epi16(pairs(va), pairs(vb));
            Some(core::mem::transmute::<__m128i, [u8; 16]>(packed))
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

/// The decoders for CPUs with AVX2, as inline assembly (see the module
/// docs).
///
/// The hyphenated form: three loads cover the 36 bytes, `s[0..8]`, `w =
/// s[8..24]` (the four hyphens and the middle digits) and `s[20..36]`. A
/// `vpshufb` gathers the middle digits next to the first group, a byte
/// shift and a blend put digits 19–22 before the last group, and one compare
/// checks all four hyphens. The simple form is one load. Then the 32 digits
/// are decoded and checked in one 256-bit register (as `sse2::nibbles`, 32
/// lanes at once), `vpmaddubsw` joins each pair of nibbles, and an in-lane
/// `vpackuswb` leaves the first eight bytes in the low 128-bit lane and the
/// last eight in the high one, each moved to a general register.
///
/// The assembly is sound in any caller:
/// - it runs only with an [`Avx2`] token, which the CPU detection makes only
///   where the CPU has AVX2 and the OS saves the YMM state;
/// - it declares all of `xmm0`–`xmm15` clobbered, which to the compiler
///   means the whole `ymm`/`zmm` registers, so an AVX caller
///   keeps nothing there across it;
/// - it ends with `vzeroupper`, so SSE code that follows pays no AVX-to-SSE
///   transition;
/// - it reads the input within its bounds (the loads are listed with each
///   function) and the constants from [`CONSTS`], and writes no memory.
pub(crate) mod avx2 {
    use super::super::cpu::Avx2;

    /// The constants the assembly reads, at fixed offsets from one pointer.
    #[repr(C, align(32))]
    pub(crate) struct Consts {
        /// `-'0'`, wrapping, in every lane: `d = c - '0'`. Offset 0.
        minus_zero: [u8; 32],
        /// `0x20` in every lane: folds upper case to lower. Offset 32.
        case: [u8; 32],
        /// `-'a'`, wrapping: `l = (c | 0x20) - 'a'`. Offset 64.
        minus_a: [u8; 32],
        /// Saturating `d + 0x76` has its top bit set iff `d > 9`. Offset 96.
        digit_limit: [u8; 32],
        /// Saturating `l + 0x7a` has its top bit set iff `l > 5`. Offset 128.
        letter_limit: [u8; 32],
        /// 10: a letter's value is `l + 10`. Offset 160.
        ten: [u8; 32],
        /// Each 16-bit lane's weights (16, 1) for `vpmaddubsw`: high nibble
        /// first. Offset 192.
        weights: [u8; 32],
        /// Lanes 1–4 and 6–9 of `w` (digits 9–12 and 14–17) to lanes 8–15,
        /// zero elsewhere. Offset 224.
        middle: [u8; 16],
        /// `-` at the hyphen lanes of `w` (0, 5, 10, 15). Offset 240.
        hyphens: [u8; 16],
        /// The top bit at the hyphen lanes of `w`. Offset 256.
        hyphen_bits: [u8; 16],
    }

    /// `value` at the hyphen lanes of `w`, zero elsewhere.
    const fn at_hyphens(value: u8) -> [u8; 16] {
        let mut v = [0u8; 16];
        v[0] = value;
        v[5] = value;
        v[10] = value;
        v[15] = value;
        v
    }

    pub(crate) static CONSTS: Consts = Consts {
        minus_zero: [b'0'.wrapping_neg(); 32],
        case: [0x20; 32],
        minus_a: [b'a'.wrapping_neg(); 32],
        digit_limit: [0x76; 32],
        letter_limit: [0x7a; 32],
        ten: [10; 32],
        weights: {
            let mut w = [1u8; 32];
            let mut i = 0;
            while i < 32 {
                w[i] = 16;
                i += 2;
            }
            w
        },
        middle: [
            0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1, 2, 3, 4, 6, 7, 8, 9,
        ],
        hyphens: at_hyphens(b'-'),
        hyphen_bits: at_hyphens(0x80),
    };

    /// The decoding of the 32 digits in `ymm1`, given `ymm2` with the top
    /// bit set in the lanes to reject besides non-digits: the verdict's
    /// mask in `{bad:e}` (0 if valid), the 16 bytes in `{lo}` (the first
    /// eight, little-endian) and `{hi}`.
    macro_rules! decode_digits {
        () => {
            concat!(
                "vpaddb ymm0, ymm1, ymmword ptr [{k}]\n",
                "vpor ymm1, ymm1, ymmword ptr [{k} + 32]\n",
                "vpaddb ymm3, ymm1, ymmword ptr [{k} + 64]\n",
                "vpaddusb ymm4, ymm0, ymmword ptr [{k} + 96]\n",
                "vpaddusb ymm5, ymm3, ymmword ptr [{k} + 128]\n",
                "vpand ymm4, ymm4, ymm5\n",
                "vpor ymm4, ymm4, ymm2\n",
                "vpmovmskb {bad:e}, ymm4\n",
                "vpaddb ymm3, ymm3, ymmword ptr [{k} + 160]\n",
                "vpminub ymm0, ymm0, ymm3\n",
                "vpmaddubsw ymm0, ymm0, ymmword ptr [{k} + 192]\n",
                "vpackuswb ymm0, ymm0, ymm0\n",
                "vmovq {lo}, xmm0\n",
                "vextracti128 xmm1, ymm0, 1\n",
                "vmovq {hi}, xmm1\n",
                "vzeroupper\n",
            )
        };
    }

    /// The assembly of a decoder: `gather` (instructions that read the
    /// input at `{s}` and leave the 32 digits in `ymm1`, and in `ymm2` the
    /// top bit of the lanes to reject besides non-digits), then
    /// [`decode_digits!`]; the bytes and the verdict's mask. The caller says
    /// why `gather`'s loads are inside its input.
    macro_rules! decode {
        ($input:expr, $($gather:literal),+ $(,)?) => {{
            let (lo, hi, bad): (u64, u64, u32);
            core::arch::asm!(
                $($gather,)+
                decode_digits!(),
                s = in(reg) $input,
                k = in(reg) &CONSTS,
                bad = out(reg) bad,
                lo = out(reg) lo,
                hi = out(reg) hi,
                out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _, out("xmm4") _,
                out("xmm5") _, out("xmm6") _, out("xmm7") _, out("xmm8") _,
                out("xmm9") _, out("xmm10") _, out("xmm11") _, out("xmm12") _,
                out("xmm13") _, out("xmm14") _, out("xmm15") _,
                options(pure, readonly, nostack, preserves_flags),
            );
            (lo, hi, bad)
        }};
    }

    /// Writes the two halves into `out`; whether `bad` is 0.
    ///
    /// Written as one `u128` of two general registers, not as a vector
    /// store: callers move a UUID (alone, or as the `Ok` of a `Result`) in
    /// 8-byte pieces, and an 8-byte load of a 16-byte vector store is not
    /// forwarded from the store (it waits for the store to reach the cache),
    /// where a load of an 8-byte store of a general register is. Given the
    /// halves as separate stores, the compiler joins them back into a vector;
    /// as one `u128` it keeps them apart.
    #[inline(always)]
    fn verdict((lo, hi, bad): (u64, u64, u32), out: &mut [u8; 16]) -> bool {
        *out = (u128::from(hi) << 64 | u128::from(lo)).to_le_bytes();
        bad == 0
    }

    /// Decodes the hyphenated form into `out`; `false` on any error.
    #[inline(always)]
    pub(crate) fn hyphenated(_: Avx2, s: &[u8; 36], out: &mut [u8; 16]) -> bool {
        // SAFETY: see the module docs: AVX2 is present (the token), the
        // vector registers are declared clobbered, the upper halves are
        // cleared. The loads read s[8..24], s[0..8] and s[20..36], inside
        // the 36 bytes of `s`, and `CONSTS`.
        let decoded = unsafe {
            decode!(
                s.as_ptr(),
                // w; the first group; digits 9–12 and 14–17 after it.
                "vmovdqu xmm0, xmmword ptr [{s} + 8]",
                "vmovq xmm1, qword ptr [{s}]",
                "vpshufb xmm2, xmm0, xmmword ptr [{k} + 224]",
                "vpor xmm1, xmm1, xmm2",
                // Digits 19–22 (lanes 11–14 of w), then s[24..36].
                "vpsrldq xmm3, xmm0, 11",
                "vpblendd xmm3, xmm3, xmmword ptr [{s} + 20], 0xe",
                // The top bit where a hyphen is missing (VEX zeroes the rest).
                "vpcmpeqb xmm0, xmm0, xmmword ptr [{k} + 240]",
                "vpandn xmm2, xmm0, xmmword ptr [{k} + 256]",
                "vinserti128 ymm1, ymm1, xmm3, 1",
            )
        };
        verdict(decoded, out)
    }

    /// Decodes the simple form (32 hex digits) into `out`; `false` on any
    /// error.
    #[inline(always)]
    pub(crate) fn simple(_: Avx2, digits: &[u8; 32], out: &mut [u8; 16]) -> bool {
        // SAFETY: as `hyphenated`; the load reads the 32 bytes of `digits`.
        let decoded = unsafe {
            decode!(
                digits.as_ptr(),
                "vmovdqu ymm1, ymmword ptr [{s}]",
                "vpxor xmm2, xmm2, xmm2",
            )
        };
        verdict(decoded, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::sweep;

    /// A decoder into a buffer as the sweeps compare it.
    fn value<const N: usize>(
        decode: impl Fn(&[u8; N], &mut [u8; 16]) -> bool,
    ) -> impl Fn(&[u8; N]) -> Option<[u8; 16]> {
        move |s| {
            let mut out = [0u8; 16];
            decode(s, &mut out).then_some(out)
        }
    }

    #[test]
    fn sse2_decoders_agree_with_the_scalar_ones_on_every_byte_in_every_lane() {
        sweep::check_simple_decoder(sse2::decode32);
        sweep::check_hyphenated_decoder(sse2::hyphenated);
    }

    #[test]
    fn hyphenated_avx2_decoder_agrees_with_the_scalar_parser() {
        let test =
            "arch::x86_64::decode::tests::hyphenated_avx2_decoder_agrees_with_the_scalar_parser";
        let Some(t) = cpu::require(test, "avx2", cpu::avx2_uncapped()) else {
            return;
        };
        sweep::check_hyphenated_decoder(value(|s, out| avx2::hyphenated(t, s, out)));
    }

    #[test]
    fn simple_avx2_decoder_agrees_with_the_scalar_parser() {
        let test = "arch::x86_64::decode::tests::simple_avx2_decoder_agrees_with_the_scalar_parser";
        let Some(t) = cpu::require(test, "avx2", cpu::avx2_uncapped()) else {
            return;
        };
        sweep::check_simple_decoder(value(|d, out| avx2::simple(t, d, out)));
    }

    #[test]
    fn dispatched_decoders_agree_with_the_scalar_parser() {
        sweep::check_hyphenated_decoder(value(hyphenated));
        sweep::check_simple_decoder(value(simple));
    }
}
