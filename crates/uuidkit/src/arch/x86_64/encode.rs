//! Hex encoding for the formatter: 16 bytes to 32 hex digits, and the
//! hyphenated form. SSE2 (the x86_64 baseline) for `Display` and the other
//! forms; AVX2, as inline assembly, for the hyphenated form written into a
//! caller's buffer. A `Formatter` gets the SSE2 encoder: the compiler sees
//! all of it, so it drops the zeroing of the stack buffer and there is no
//! feature check, and it reads the UUID in two halves.

/// SSE2, part of every x86_64 CPU: no detection, no token.
pub(crate) mod sse2 {
    use core::arch::x86_64::*;

    /// The 32 hex digits of 16 bytes, as two vectors of ASCII.
    ///
    /// The bytes are read as two 8-byte halves. A UUID is often in memory
    /// because it was just stored from two 64-bit registers (`from_u128`, the
    /// generators, a `u128` the compiler spilled), and one 16-byte load
    /// cannot take its data from two pending 8-byte stores: it waits until
    /// they reach the cache. 8-byte loads take it from them, and from one
    /// 16-byte store as well.
    #[inline(always)]
    fn digits(bytes: &[u8; 16], upper: bool) -> (__m128i, __m128i) {
        // SAFETY: two 8-byte unaligned loads inside `bytes`; the rest is
        // plain SSE2 arithmetic, enabled at compile time.
        unsafe {
            let m = _mm_set1_epi8(0x0f);
            let half = |at: usize| {
                let x = _mm_loadl_epi64(bytes.as_ptr().add(at).cast());
                let hi = _mm_and_si128(_mm_srli_epi16(x, 4), m);
                _mm_unpacklo_epi8(hi, _mm_and_si128(x, m))
            };
            let letter = _mm_set1_epi8(if upper { 7 } else { 39 });
            let ascii = |n: __m128i| {
                let gt9 = _mm_cmpgt_epi8(n, _mm_set1_epi8(9));
                _mm_add_epi8(
                    _mm_add_epi8(n, _mm_set1_epi8(b'0' as i8)),
                    _mm_and_si128(gt9, letter),
                )
            };
            (ascii(half(0)), ascii(half(8)))
        }
    }

    /// Encodes 16 bytes as 32 hex digits.
    #[inline(always)]
    pub(crate) fn encode32(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
        let (a, b) = digits(bytes, upper);
        let mut out = [0u8; 32];
        let p = out.as_mut_ptr().cast::<__m128i>();
        // SAFETY: two 16-byte unaligned stores inside `out`.
        unsafe {
            _mm_storeu_si128(p, a);
            _mm_storeu_si128(p.add(1), b);
        }
        out
    }

    /// `0xff` in lanes `from..to`, else 0.
    const fn lanes(from: usize, to: usize) -> [u8; 16] {
        let mut m = [0u8; 16];
        let mut i = from;
        while i < to {
            m[i] = 0xff;
            i += 1;
        }
        m
    }

    #[inline(always)]
    fn vector(a: [u8; 16]) -> __m128i {
        // SAFETY: same size; every bit pattern is valid for both.
        unsafe { core::mem::transmute::<[u8; 16], __m128i>(a) }
    }

    /// Writes the hyphenated form with three overlapping 16-byte stores, in
    /// this order: digits 16–31 at 20 (their last 12 are final), digits 0–15
    /// at 0 (their first 8 are final), then bytes 8–23 built in a register:
    /// `-dddd-dddd-dddd-` from digits 8–19.
    #[inline(always)]
    pub(crate) fn hyphenated(bytes: &[u8; 16], upper: bool, out: &mut [u8; 36]) {
        let (a, b) = digits(bytes, upper);
        const HYPHENS: [u8; 16] = *b"-\0\0\0\0-\0\0\0\0-\0\0\0\0-";
        // Consts, so that they are data (a `const fn` call in an expression
        // may be evaluated at run time, through the stack).
        const GROUP_2: [u8; 16] = lanes(1, 5);
        const GROUP_3: [u8; 16] = lanes(6, 10);
        const GROUP_4: [u8; 16] = lanes(11, 15);
        // SAFETY: SSE2 arithmetic; the stores write out[20..36], out[0..16]
        // and out[8..24], all inside `out`.
        unsafe {
            let middle = _mm_or_si128(
                _mm_or_si128(
                    _mm_and_si128(_mm_srli_si128(a, 7), vector(GROUP_2)),
                    _mm_and_si128(_mm_srli_si128(a, 6), vector(GROUP_3)),
                ),
                _mm_or_si128(
                    _mm_and_si128(_mm_slli_si128(b, 11), vector(GROUP_4)),
                    vector(HYPHENS),
                ),
            );
            let p = out.as_mut_ptr();
            _mm_storeu_si128(p.add(20).cast(), b);
            _mm_storeu_si128(p.cast(), a);
            _mm_storeu_si128(p.add(8).cast(), middle);
        }
    }
}

/// The hyphenated form with AVX2: one 256-bit `vpshufb` turns 32 nibbles
/// into digits, and a second one (after a lane swap) places digits 0–27 and
/// the four hyphens; two stores write the 36 bytes.
///
/// It is written as inline assembly, not as a `#[target_feature(enable =
/// "avx2")]` function: such a function cannot be inlined into callers built
/// without AVX2 (the default target), and a call around 14 instructions is a
/// large share of their cost. The assembly is sound in any caller:
/// - it runs only with an [`Avx2`](cpu::Avx2) token, which the CPU detection makes only
///   where the CPU has AVX2 and the OS saves the YMM state;
/// - it declares all of `xmm0`–`xmm15` clobbered, which to the compiler means
///   the whole `ymm`/`zmm` registers, so an AVX caller keeps nothing there;
/// - it ends with `vzeroupper`, so SSE code that follows pays no
///   AVX-to-SSE transition;
/// - it reads the UUID from a register (loaded by an ordinary 16-byte load
///   the compiler sees, so it can skip a copy the caller made), the
///   constants from [`CONSTS`](avx2::CONSTS), and writes `out[0..36]` only.
pub(crate) mod avx2 {
    use core::arch::x86_64::_mm_loadu_si128;

    use super::super::cpu::Avx2;

    /// The constants the assembly reads, at fixed offsets from one pointer.
    #[repr(C, align(32))]
    pub(crate) struct Consts {
        /// `0x0f` everywhere: keeps one nibble per byte. Offset 0.
        nibbles: [u8; 32],
        /// Where each of the first 32 output bytes comes from, after the
        /// lane swap; `0x80` (a zero) at the hyphens. Offset 32.
        place: [u8; 32],
        /// `-` at 8, 13, 18 and 23, else zero. Offset 64.
        hyphens: [u8; 32],
        /// The lowercase digits, in both 128-bit lanes. Offset 96.
        lower: [u8; 32],
        /// The uppercase digits, likewise. Offset 128.
        upper: [u8; 32],
    }

    /// The first 32 bytes of the hyphenated form, as `vpshufb` indices into
    /// the digits after the lane swap: lane 0 holds digits 0–15 (dwords 0–3),
    /// lane 1 digits 16–27 and then 12–15 (dwords 4, 5, 6, 3). Text bytes
    /// 16 and 17 are digits 14 and 15, so lane-1 indices 14 and 15.
    const fn place() -> [u8; 32] {
        let mut index = [0u8; 32];
        let mut at = 0;
        let mut digit = 0;
        while at < 32 {
            if at == 8 || at == 13 || at == 18 || at == 23 {
                index[at] = 0x80;
            } else {
                index[at] = if at < 16 || digit < 16 {
                    digit
                } else {
                    digit - 16
                };
                digit += 1;
            }
            at += 1;
        }
        index
    }

    /// A 16-byte table in both 128-bit lanes.
    const fn twice(t: &[u8; 16]) -> [u8; 32] {
        let mut out = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            out[i] = t[i % 16];
            i += 1;
        }
        out
    }

    pub(crate) static CONSTS: Consts = Consts {
        nibbles: [0x0f; 32],
        place: place(),
        hyphens: {
            let mut h = [0u8; 32];
            h[8] = b'-';
            h[13] = b'-';
            h[18] = b'-';
            h[23] = b'-';
            h
        },
        lower: twice(crate::hex::digits(false)),
        upper: twice(crate::hex::digits(true)),
    };

    /// Writes the hyphenated form of `bytes` into `out`.
    #[inline(always)]
    pub(crate) fn hyphenated(_: Avx2, bytes: &[u8; 16], upper: bool, out: &mut [u8; 36]) {
        let digits = if upper { &CONSTS.upper } else { &CONSTS.lower };
        // SAFETY: see the module docs: AVX2 is present (the token), the
        // vector registers are declared clobbered, the upper halves are
        // cleared, and the stores write `out[20..36]` and `out[0..32]`,
        // inside `out`. The load reads the 16 bytes of `bytes`.
        unsafe {
            let x = _mm_loadu_si128(bytes.as_ptr().cast());
            core::arch::asm!(
                // Word i = byte i; then byte 2i = its high nibble, 2i+1 its low.
                "vpmovzxbw ymm0, xmm0",
                "vpsllw ymm1, ymm0, 8",
                "vpsrlw ymm0, ymm0, 4",
                "vpor ymm0, ymm0, ymm1",
                "vpand ymm0, ymm0, ymmword ptr [{k}]",
                // The 32 digits.
                "vmovdqu ymm1, ymmword ptr [{digits}]",
                "vpshufb ymm0, ymm1, ymm0",
                // Lane 1 gets dword 3 (digits 12–15) in its top dword.
                "vpermq ymm1, ymm0, 0x4e",
                "vpblendd ymm1, ymm0, ymm1, 0x80",
                // Bytes 0–31 of the text.
                "vpshufb ymm1, ymm1, ymmword ptr [{k} + 32]",
                "vpor ymm1, ymm1, ymmword ptr [{k} + 64]",
                // Digits 16–31 at 20 (the last four are final), then 0–31.
                "vextracti128 xmmword ptr [{out} + 20], ymm0, 1",
                "vmovdqu ymmword ptr [{out}], ymm1",
                "vzeroupper",
                k = in(reg) &CONSTS,
                digits = in(reg) digits.as_ptr(),
                out = in(reg) out.as_mut_ptr(),
                inout("xmm0") x => _,
                out("xmm1") _, out("xmm2") _, out("xmm3") _, out("xmm4") _,
                out("xmm5") _, out("xmm6") _, out("xmm7") _, out("xmm8") _,
                out("xmm9") _, out("xmm10") _, out("xmm11") _, out("xmm12") _,
                out("xmm13") _, out("xmm14") _, out("xmm15") _,
                options(nostack, preserves_flags),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::cpu;
    use super::*;
    use crate::check::sweep;

    #[test]
    fn sse2_encoders_agree_with_the_scalar_ones_on_every_byte_in_every_lane() {
        sweep::check_encode32(sse2::encode32);
        sweep::check_hyphenated_encoder(sse2::hyphenated);
    }

    #[test]
    fn avx2_hyphenated_agrees_with_the_scalar_one_and_writes_only_36_bytes() {
        let test = "arch::x86_64::encode::tests::avx2_hyphenated_agrees_with_the_scalar_one_and_writes_only_36_bytes";
        let Some(t) = cpu::require(test, "avx2", cpu::avx2_uncapped()) else {
            return;
        };
        sweep::check_hyphenated_encoder(|b, upper, out| avx2::hyphenated(t, b, upper, out));
    }
}
