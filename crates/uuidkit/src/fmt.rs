//! Writing UUIDs as text: `Display` (canonical lowercase), `{:X}`, and the
//! [`Hyphenated`], [`Simple`], [`Braced`] and [`Urn`] adapters, each of which
//! can also encode into a caller's buffer without allocating.
//!
//! The 16 bytes become 32 hex digits at once (SSE2 on x86_64, a table
//! otherwise); the hyphens and wrapping are then put around them. For many
//! UUIDs at once, [`Hyphenated::encode_lines_lower`] writes whole lines in bulk
//! (AVX2 or SSSE3, detected at run time).

use core::fmt;

use crate::Uuid;

/// The portable encoder: 16 bytes to 32 hex digits (used where SSE2 is not,
/// and by the tests that check the SIMD encoder against it).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline]
pub(crate) const fn encode32_scalar(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
    let table = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        out[2 * i] = table[(bytes[i] >> 4) as usize];
        out[2 * i + 1] = table[(bytes[i] & 0x0f) as usize];
        i += 1;
    }
    out
}

/// 16 bytes to 32 hex digits with the best encoder this build has.
#[inline(always)]
pub(crate) fn encode32(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is enabled at compile time (it is part of x86_64).
        unsafe { sse2::encode32(bytes, upper) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        encode32_scalar(bytes, upper)
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) mod sse2 {
    use core::arch::x86_64::*;

    /// The 32 hex digits of 16 bytes, as two vectors of ASCII.
    ///
    /// The bytes are read as two 8-byte halves. A UUID is often in memory
    /// because it was just stored from two 64-bit registers (`from_u128`, the
    /// generators, a `u128` the compiler spilled), and one 16-byte load
    /// cannot take its data from two pending 8-byte stores: it waits until
    /// they reach the cache. 8-byte loads take it from them, and from one
    /// 16-byte store as well. Measured on a Zen 5: store-then-load chains,
    /// 16-byte store then 16-byte load 2.3 ns, two 8-byte stores then a
    /// 16-byte load 4.9 ns; `Uuid::from_u128(x).to_string()` 31.4 ns with
    /// one 16-byte load, 22.6 ns with two 8-byte ones (the `uuid` crate,
    /// which also reads 8 bytes at a time, 21.0 ns).
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
    ///
    /// # Safety
    /// The CPU must support SSE2 (always true on x86_64).
    #[inline(always)]
    pub(crate) unsafe fn encode32(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
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
    ///
    /// # Safety
    /// The CPU must support SSE2 (always true on x86_64).
    #[inline(always)]
    pub(crate) unsafe fn hyphenated(bytes: &[u8; 16], upper: bool, out: &mut [u8; 36]) {
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

/// The hyphenated form with AVX2, detected at run time: one 256-bit `vpshufb`
/// turns 32 nibbles into digits, and a second one (after a lane swap) places
/// digits 0–27 and the four hyphens; two stores write the 36 bytes.
///
/// It is written as inline assembly, not as a `#[target_feature(enable =
/// "avx2")]` function: such a function cannot be inlined into callers built
/// without AVX2 (the default target), and the call around 14 instructions
/// cost a third of the time (1.55 ns against 1.18 ns per UUID, measured on an
/// AMD Zen 5 with the `core` bench; SSE2 takes 2.2 ns). The assembly is sound
/// in any caller:
/// - it runs only after [`available`](avx2::available) saw AVX2 and the OS's
///   support for the YMM state (`cpufeatures` checks both);
/// - it declares all of `xmm0`–`xmm15` clobbered, which to the compiler means
///   the whole `ymm`/`zmm` registers, so an AVX caller keeps nothing there;
/// - it ends with `vzeroupper`, so SSE code that follows pays no
///   AVX-to-SSE transition;
/// - it reads the UUID from a register (loaded by an ordinary 16-byte load
///   the compiler sees, so it can skip a copy the caller made), the
///   constants from [`CONSTS`](avx2::CONSTS), and writes `out[0..36]` only.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use core::arch::x86_64::_mm_loadu_si128;

    /// Whether [`hyphenated`] may run.
    #[inline(always)]
    pub(crate) fn available() -> bool {
        crate::cpu::avx2()
    }

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
        lower: *b"0123456789abcdef0123456789abcdef",
        upper: *b"0123456789ABCDEF0123456789ABCDEF",
    };

    /// Writes the hyphenated form of `bytes` into `out`.
    ///
    /// # Safety
    /// [`available`] must have returned `true`.
    #[inline(always)]
    pub(crate) unsafe fn hyphenated(bytes: &[u8; 16], upper: bool, out: &mut [u8; 36]) {
        let digits = if upper { &CONSTS.upper } else { &CONSTS.lower };
        // SAFETY: see the module docs: AVX2 is present (the caller's
        // contract), the vector registers are declared clobbered, the upper
        // halves are cleared, and the stores write `out[20..36]` and
        // `out[0..32]`, inside `out`. The load reads the 16 bytes of `bytes`.
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

/// Where the text goes, which decides the faster encoder (measured on a Zen
/// 5 with `benches/core.rs`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    /// The caller's buffer (`encode_*`, batches): the AVX2 encoder when the
    /// CPU has it, 1.18 ns against 2.2 ns for SSE2.
    Buffer,
    /// A `Formatter` (`Display`, `to_string`), which copies the text out at
    /// once: the SSE2 encoder. The compiler sees all of it, so it drops the
    /// zeroing of the stack buffer and there is no feature check; and it
    /// reads the UUID in two halves. `to_string` 23.1 ns against 24.3–25.0
    /// ns with the AVX2 encoder; for a UUID just made by `from_u128`, 22.6 ns
    /// against 31.4 ns with one 16-byte load.
    Formatter,
}

/// Writes the 36-character hyphenated form.
#[inline(always)]
fn hyphenated(bytes: &[u8; 16], upper: bool, out: &mut [u8; 36], sink: Sink) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    // SAFETY: SSE2 is enabled at compile time (it is part of x86_64); AVX2
    // only where `available` says so.
    unsafe {
        if sink == Sink::Buffer && avx2::available() {
            avx2::hyphenated(bytes, upper, out)
        } else {
            sse2::hyphenated(bytes, upper, out)
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let _ = sink;
        place_hyphens(&encode32_scalar(bytes, upper), out);
    }
}

/// The 32 digits `d` as the 36-character hyphenated form (8-4-4-4-12): the
/// portable path, and the reference the SSE2 path is tested against.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline(always)]
fn place_hyphens(d: &[u8; 32], out: &mut [u8; 36]) {
    out[0..8].copy_from_slice(&d[0..8]);
    out[8] = b'-';
    out[9..13].copy_from_slice(&d[8..12]);
    out[13] = b'-';
    out[14..18].copy_from_slice(&d[12..16]);
    out[18] = b'-';
    out[19..23].copy_from_slice(&d[16..20]);
    out[23] = b'-';
    out[24..36].copy_from_slice(&d[20..32]);
}

/// Canonical lines, many UUIDs per call: `36` characters and `'\n'` each.
///
/// The x86_64 paths work on a period of 16 UUIDs (256 source bytes, 592 bytes
/// of text). The text is built in 32-byte steps (16-byte steps for SSSE3): every
/// step needs at most 16 contiguous source bytes (a 32-byte stretch of lines holds
/// at most 30 hex digits, since non-digits are never more than 13 bytes apart),
/// so one 16-byte window of the source, loaded whole, feeds it. A per-step index
/// picks each output byte's source byte (`pshufb`), two masks keep its high or
/// its low nibble, and positions holding `-` or `\n` get index `0x80` (a zero
/// nibble, so the digit `'0'`) and are then XOR-ed into place. Each step ends in
/// one whole 32-byte (16-byte) store.
mod lines {
    use crate::Uuid;

    /// The length of a line: the hyphenated form and a newline.
    pub(crate) const LINE: usize = 37;
    /// UUIDs per period.
    #[cfg(target_arch = "x86_64")]
    pub(crate) const PERIOD: usize = 16;
    /// Text bytes per period.
    #[cfg(target_arch = "x86_64")]
    const PERIOD_TEXT: usize = LINE * PERIOD;
    /// 32-byte steps per period; the last one is half used (592 = 18 × 32 + 16).
    #[cfg(target_arch = "x86_64")]
    const STEPS: usize = PERIOD_TEXT.div_ceil(32);

    /// Per-step constants.
    #[cfg(target_arch = "x86_64")]
    #[repr(C, align(32))]
    pub(crate) struct Steps {
        /// `pshufb` indices into the step's window; `0x80`: no digit.
        pub(crate) index: [[u8; 32]; STEPS],
        /// `0x0f` where the digit is the low nibble of its byte, else 0.
        pub(crate) low: [[u8; 32]; STEPS],
        /// `0x0f` where the digit is the high nibble of its byte, else 0.
        pub(crate) high: [[u8; 32]; STEPS],
        /// XOR-ed onto the digits: `'-' ^ '0'` and `'\n' ^ '0'` where those go, else 0.
        pub(crate) xor: [[u8; 32]; STEPS],
        /// Where each step's 16-byte source window starts, within the period's 256 bytes.
        pub(crate) window: [usize; STEPS],
    }

    /// What goes at byte `col` (0..37) of a line: `Ok(digit index 0..32)` or `Err(byte)`.
    #[cfg(target_arch = "x86_64")]
    const fn at(col: usize) -> Result<usize, u8> {
        match col {
            8 | 13 | 18 | 23 => Err(b'-'),
            36 => Err(b'\n'),
            _ => Ok(col
                - (col > 8) as usize
                - (col > 13) as usize
                - (col > 18) as usize
                - (col > 23) as usize),
        }
    }

    #[cfg(target_arch = "x86_64")]
    const fn build() -> Steps {
        let mut s = Steps {
            index: [[0x80; 32]; STEPS],
            low: [[0; 32]; STEPS],
            high: [[0; 32]; STEPS],
            xor: [[0; 32]; STEPS],
            window: [0; STEPS],
        };
        let mut t = 0;
        while t < STEPS {
            // The window starts at the first source byte this step needs.
            let mut first = usize::MAX;
            let mut j = 0;
            while j < 32 {
                let p = 32 * t + j;
                if p < PERIOD_TEXT {
                    if let Ok(d) = at(p % LINE) {
                        let src = (p / LINE) * 16 + d / 2;
                        if src < first {
                            first = src;
                        }
                    }
                }
                j += 1;
            }
            if first > 256 - 16 {
                first = 256 - 16;
            }
            s.window[t] = first;
            let mut j = 0;
            while j < 32 {
                let p = 32 * t + j;
                if p < PERIOD_TEXT {
                    match at(p % LINE) {
                        Ok(d) => {
                            let src = (p / LINE) * 16 + d / 2;
                            assert!(src >= first && src - first < 16, "window too narrow");
                            s.index[t][j] = (src - first) as u8;
                            if d % 2 == 0 {
                                s.high[t][j] = 0x0f;
                            } else {
                                s.low[t][j] = 0x0f;
                            }
                        }
                        Err(c) => s.xor[t][j] = c ^ b'0',
                    }
                }
                j += 1;
            }
            t += 1;
        }
        s
    }

    #[cfg(target_arch = "x86_64")]
    pub(crate) static STEP: Steps = build();

    /// The portable reference the other paths are tested against.
    #[cfg(test)]
    pub(crate) fn scalar(uuids: &[Uuid], out: &mut [u8], upper: bool) {
        for (u, line) in uuids.iter().zip(out.chunks_exact_mut(LINE)) {
            if let Some(text) = line.first_chunk_mut::<36>() {
                super::place_hyphens(&super::encode32_scalar(u.as_bytes(), upper), text);
            }
            line[36] = b'\n';
        }
    }

    /// The best per-UUID encoder of this build, for the tail of a batch.
    #[inline]
    pub(crate) fn each(uuids: &[Uuid], out: &mut [u8], upper: bool) {
        for (u, line) in uuids.iter().zip(out.chunks_exact_mut(LINE)) {
            if let Some(text) = line.first_chunk_mut::<36>() {
                super::hyphenated(u.as_bytes(), upper, text, super::Sink::Buffer);
            }
            line[36] = b'\n';
        }
    }

    #[cfg(target_arch = "x86_64")]
    pub(crate) mod x86 {
        use core::arch::x86_64::*;

        use super::{PERIOD, PERIOD_TEXT, STEP, STEPS};
        use crate::Uuid;

        fn table(upper: bool) -> [u8; 16] {
            if upper {
                *b"0123456789ABCDEF"
            } else {
                *b"0123456789abcdef"
            }
        }

        /// Encodes whole periods of 16 UUIDs; returns how many UUIDs were done.
        ///
        /// # Safety
        /// The CPU must support AVX2; `out` must hold `LINE * uuids.len()` bytes.
        #[target_feature(enable = "avx2")]
        pub(crate) unsafe fn avx2(uuids: &[Uuid], out: &mut [u8], upper: bool) -> usize {
            let periods = uuids.len() / PERIOD;
            debug_assert!(out.len() >= periods * PERIOD_TEXT);
            let t = table(upper);
            // SAFETY: every load reads 16 bytes at `window ≤ 240` inside a period's
            // 256 source bytes, or 32 bytes of `STEP`; every store writes inside the
            // period's 592 bytes of `out` (steps 0..18 at 32 × t, step 18's low half
            // at 576..592). All unaligned.
            unsafe {
                let lut = _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast()));
                for p in 0..periods {
                    let src = uuids.as_ptr().add(p * PERIOD).cast::<u8>();
                    let dst = out.as_mut_ptr().add(p * PERIOD_TEXT);
                    let step = |t: usize| {
                        let w = _mm256_broadcastsi128_si256(_mm_loadu_si128(
                            src.add(STEP.window[t]).cast(),
                        ));
                        let idx = _mm256_load_si256(STEP.index[t].as_ptr().cast());
                        let b = _mm256_shuffle_epi8(w, idx);
                        let n = _mm256_or_si256(
                            _mm256_and_si256(b, _mm256_load_si256(STEP.low[t].as_ptr().cast())),
                            _mm256_and_si256(
                                _mm256_srli_epi16(b, 4),
                                _mm256_load_si256(STEP.high[t].as_ptr().cast()),
                            ),
                        );
                        let digits = _mm256_shuffle_epi8(lut, n);
                        _mm256_xor_si256(digits, _mm256_load_si256(STEP.xor[t].as_ptr().cast()))
                    };
                    // Unrolled, so that every window offset and table address is a
                    // constant (no index registers, no offset loads, no loop).
                    macro_rules! steps {
                        ($($t:literal)*) => {
                            $(_mm256_storeu_si256(dst.add(32 * $t).cast(), step($t));)*
                        };
                    }
                    const _: () = assert!(STEPS == 19);
                    steps!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17);
                    _mm_storeu_si128(
                        dst.add(32 * (STEPS - 1)).cast(),
                        _mm256_castsi256_si128(step(STEPS - 1)),
                    );
                }
            }
            periods * PERIOD
        }

        /// As [`avx2`], 16 bytes at a time.
        ///
        /// # Safety
        /// The CPU must support SSSE3; `out` must hold `LINE * uuids.len()` bytes.
        #[target_feature(enable = "ssse3")]
        pub(crate) unsafe fn ssse3(uuids: &[Uuid], out: &mut [u8], upper: bool) -> usize {
            let periods = uuids.len() / PERIOD;
            debug_assert!(out.len() >= periods * PERIOD_TEXT);
            let t = table(upper);
            // SAFETY: as in `avx2`, in 16-byte halves; the 38th half (592..608)
            // is not computed.
            unsafe {
                let lut = _mm_loadu_si128(t.as_ptr().cast());
                for p in 0..periods {
                    let src = uuids.as_ptr().add(p * PERIOD).cast::<u8>();
                    let dst = out.as_mut_ptr().add(p * PERIOD_TEXT);
                    for h in 0..PERIOD_TEXT / 16 {
                        let (t, half) = (h / 2, 16 * (h % 2));
                        let w = _mm_loadu_si128(src.add(STEP.window[t]).cast());
                        let idx = _mm_load_si128(STEP.index[t][half..].as_ptr().cast());
                        let b = _mm_shuffle_epi8(w, idx);
                        let n = _mm_or_si128(
                            _mm_and_si128(b, _mm_load_si128(STEP.low[t][half..].as_ptr().cast())),
                            _mm_and_si128(
                                _mm_srli_epi16(b, 4),
                                _mm_load_si128(STEP.high[t][half..].as_ptr().cast()),
                            ),
                        );
                        let digits = _mm_shuffle_epi8(lut, n);
                        let line = _mm_xor_si128(
                            digits,
                            _mm_load_si128(STEP.xor[t][half..].as_ptr().cast()),
                        );
                        _mm_storeu_si128(dst.add(16 * h).cast(), line);
                    }
                }
            }
            periods * PERIOD
        }
    }

    /// Which x86_64 path [`encode`] takes.
    #[cfg(target_arch = "x86_64")]
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub(crate) enum Path {
        Avx2,
        Ssse3,
        Each,
    }

    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn best() -> Path {
        if crate::cpu::avx2() {
            Path::Avx2
        } else if crate::cpu::ssse3() {
            Path::Ssse3
        } else {
            Path::Each
        }
    }

    /// Encodes with `path`, which the CPU must support (checked with [`best`]'s
    /// detection; a path the CPU lacks falls back to [`each`]).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn encode_with(path: Path, uuids: &[Uuid], out: &mut [u8], upper: bool) {
        assert!(out.len() >= LINE * uuids.len());
        let done = match path {
            // SAFETY: AVX2 was detected (or is enabled at compile time); `out` is
            // long enough (asserted above).
            Path::Avx2 if best() == Path::Avx2 => unsafe { x86::avx2(uuids, out, upper) },
            // SAFETY: SSSE3 is implied by AVX2 and checked likewise.
            Path::Ssse3 if best() != Path::Each => unsafe { x86::ssse3(uuids, out, upper) },
            _ => 0,
        };
        each(&uuids[done..], &mut out[LINE * done..], upper);
    }

    /// Encodes `uuids` as lines into the start of `out` (at least `37 × len` bytes).
    #[inline]
    pub(crate) fn encode(uuids: &[Uuid], out: &mut [u8], upper: bool) {
        #[cfg(target_arch = "x86_64")]
        encode_with(best(), uuids, out, upper);
        #[cfg(not(target_arch = "x86_64"))]
        each(uuids, out, upper);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn buffer_too_small(len: usize, needed: usize) -> ! {
    panic!("buffer of {len} bytes is too small: expected at least {needed}")
}

macro_rules! adapter {
    (
        $(#[$doc:meta])*
        $name:ident, $len:expr, $method:ident, $example:literal,
        |$bytes:ident, $upper:ident, $out:ident, $sink:ident| $write:block
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[repr(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// The length of this form, in bytes (every character is ASCII).
            pub const LENGTH: usize = $len;

            /// Wraps a UUID; same as the method on [`Uuid`].
            #[inline]
            pub const fn from_uuid(uuid: Uuid) -> Self {
                $name(uuid)
            }

            /// The UUID this formats.
            #[inline]
            pub const fn as_uuid(&self) -> &Uuid {
                &self.0
            }

            #[inline(always)]
            fn write(&self, $upper: bool, $out: &mut [u8; $len], $sink: Sink) {
                let $bytes = self.0.as_bytes();
                $write
            }

            #[inline(always)]
            fn encode<'b>(&self, buf: &'b mut [u8], upper: bool, sink: Sink) -> &'b mut str {
                let len = buf.len();
                let Some(out) = buf.first_chunk_mut::<{ $len }>() else {
                    buffer_too_small(len, $len)
                };
                self.write(upper, out, sink);
                // SAFETY: `write` filled `out` with ASCII only.
                unsafe { core::str::from_utf8_unchecked_mut(out) }
            }

            /// Writes the lowercase form into the start of `buf` and returns it as
            /// a `&mut str`, without allocating.
            ///
            /// # Panics
            ///
            /// If `buf` is shorter than [`Self::LENGTH`].
            ///
            /// ```
            /// use uuidkit::Uuid;
            /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
            #[doc = concat!("let mut buf = [0u8; ", stringify!($len), "];")]
            #[doc = concat!("assert_eq!(u.", stringify!($method), "().encode_lower(&mut buf), \"", $example, "\");")]
            /// ```
            #[inline]
            pub fn encode_lower<'b>(&self, buf: &'b mut [u8]) -> &'b mut str {
                self.encode(buf, false, Sink::Buffer)
            }

            /// Writes the uppercase form into the start of `buf` and returns it as
            /// a `&mut str`, without allocating. Only the hex digits change case.
            ///
            /// # Panics
            ///
            /// If `buf` is shorter than [`Self::LENGTH`].
            ///
            /// ```
            /// use uuidkit::Uuid;
            /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
            /// let mut buf = [0u8; 64];
            #[doc = concat!("let s = u.", stringify!($method), "().encode_upper(&mut buf);")]
            #[doc = concat!("assert_eq!(s.len(), ", stringify!($len), ");")]
            /// assert!(s.contains("F81D4FAE"));
            /// ```
            #[inline]
            pub fn encode_upper<'b>(&self, buf: &'b mut [u8]) -> &'b mut str {
                self.encode(buf, true, Sink::Buffer)
            }

            /// Encodes into a stack buffer and hands it over with one
            /// `write_str`; `pad` only when a width or precision asks for it.
            #[inline]
            fn fmt_case(&self, f: &mut fmt::Formatter<'_>, upper: bool) -> fmt::Result {
                let mut buf = [0u8; $len];
                let text = self.encode(&mut buf, upper, Sink::Formatter);
                if f.width().is_none() && f.precision().is_none() {
                    f.write_str(text)
                } else {
                    f.pad(text)
                }
            }
        }

        impl From<Uuid> for $name {
            #[inline]
            fn from(u: Uuid) -> Self {
                $name(u)
            }
        }

        impl From<$name> for Uuid {
            #[inline]
            fn from(a: $name) -> Uuid {
                a.0
            }
        }

        impl fmt::Display for $name {
            /// Lowercase; honours width, fill and alignment.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.fmt_case(f, false)
            }
        }

        impl fmt::LowerHex for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.fmt_case(f, false)
            }
        }

        impl fmt::UpperHex for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.fmt_case(f, true)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.fmt_case(f, false)
            }
        }
    };
}

adapter!(
    /// The hyphenated form of RFC 9562 §4, `f81d4fae-7dec-11d0-a765-00a0c91e6bf6`
    /// (what `Display` on [`Uuid`] writes).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(format!("{:X}", u.hyphenated()), "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6");
    /// ```
    Hyphenated, 36, hyphenated, "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    |bytes, upper, out, sink| { hyphenated(bytes, upper, out, sink) }
);

adapter!(
    /// The simple form: 32 hex digits, `f81d4fae7dec11d0a76500a0c91e6bf6`.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(u.simple().to_string(), "f81d4fae7dec11d0a76500a0c91e6bf6");
    /// ```
    Simple, 32, simple, "f81d4fae7dec11d0a76500a0c91e6bf6",
    |bytes, upper, out, _sink| { *out = encode32(bytes, upper) }
);

adapter!(
    /// The braced form used by Microsoft tools, `{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}`.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(u.braced().to_string(), "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}");
    /// ```
    Braced, 38, braced, "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
    |bytes, upper, out, sink| {
        out[0] = b'{';
        if let Some(body) = out[1..].first_chunk_mut::<36>() {
            hyphenated(bytes, upper, body, sink);
        }
        out[37] = b'}';
    }
);

adapter!(
    /// The URN form of RFC 9562 §4 (RFC 8141 namespace `uuid`),
    /// `urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6`. The prefix stays
    /// lowercase in `{:X}`.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(u.urn().to_string(), "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    /// ```
    Urn, 45, urn, "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    |bytes, upper, out, sink| {
        out[..9].copy_from_slice(b"urn:uuid:");
        if let Some(body) = out[9..].first_chunk_mut::<36>() {
            hyphenated(bytes, upper, body, sink);
        }
    }
);

impl Hyphenated {
    /// The length of one line written by [`Hyphenated::encode_lines_lower`]:
    /// the hyphenated form and a newline.
    pub const LINE_LENGTH: usize = lines::LINE;

    #[inline]
    fn encode_lines<'b>(uuids: &[Uuid], buf: &'b mut [u8], upper: bool) -> &'b mut str {
        let needed = uuids.len().saturating_mul(lines::LINE);
        let len = buf.len();
        let Some(out) = buf.get_mut(..needed) else {
            buffer_too_small(len, needed)
        };
        lines::encode(uuids, out, upper);
        // SAFETY: `lines::encode` filled all of `out` with ASCII.
        unsafe { core::str::from_utf8_unchecked_mut(out) }
    }

    /// Writes `uuids` as lines of text, each the lowercase hyphenated form
    /// followed by `'\n'`, into the start of `buf`, and returns them as a
    /// `&mut str` of `37 × uuids.len()` bytes. Many UUIDs per call: this is
    /// the bulk path (AVX2 or SSSE3 when the CPU has them, detected at run
    /// time; the per-UUID encoder otherwise), several times faster per UUID than
    /// calling [`Hyphenated::encode_lower`] in a loop.
    ///
    /// # Panics
    ///
    /// If `buf` is shorter than `37 × uuids.len()` bytes.
    ///
    /// ```
    /// use uuidkit::{Hyphenated, Uuid};
    /// let batch = [Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6), Uuid::MAX];
    /// let mut buf = [0u8; 2 * Hyphenated::LINE_LENGTH];
    /// assert_eq!(
    ///     Hyphenated::encode_lines_lower(&batch, &mut buf),
    ///     "f81d4fae-7dec-11d0-a765-00a0c91e6bf6\nffffffff-ffff-ffff-ffff-ffffffffffff\n"
    /// );
    /// ```
    #[inline]
    pub fn encode_lines_lower<'b>(uuids: &[Uuid], buf: &'b mut [u8]) -> &'b mut str {
        Hyphenated::encode_lines(uuids, buf, false)
    }

    /// As [`Hyphenated::encode_lines_lower`], with uppercase hex digits.
    ///
    /// # Panics
    ///
    /// If `buf` is shorter than `37 × uuids.len()` bytes.
    ///
    /// ```
    /// use uuidkit::{Hyphenated, Uuid};
    /// let batch = [Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6)];
    /// let mut buf = vec![0u8; 100];
    /// let text = Hyphenated::encode_lines_upper(&batch, &mut buf);
    /// assert_eq!(text, "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6\n");
    /// ```
    #[inline]
    pub fn encode_lines_upper<'b>(uuids: &[Uuid], buf: &'b mut [u8]) -> &'b mut str {
        Hyphenated::encode_lines(uuids, buf, true)
    }
}

impl Uuid {
    /// The hyphenated form, `f81d4fae-7dec-11d0-a765-00a0c91e6bf6`.
    ///
    /// ```
    /// let u = uuidkit::Uuid::MAX;
    /// assert_eq!(u.hyphenated().to_string(), "ffffffff-ffff-ffff-ffff-ffffffffffff");
    /// ```
    #[inline]
    pub const fn hyphenated(self) -> Hyphenated {
        Hyphenated(self)
    }

    /// The simple form, `f81d4fae7dec11d0a76500a0c91e6bf6`.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.simple().to_string(), "0".repeat(32));
    /// ```
    #[inline]
    pub const fn simple(self) -> Simple {
        Simple(self)
    }

    /// The braced form, `{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}`.
    ///
    /// ```
    /// let u = uuidkit::Uuid::NIL;
    /// assert_eq!(u.braced().to_string(), "{00000000-0000-0000-0000-000000000000}");
    /// ```
    #[inline]
    pub const fn braced(self) -> Braced {
        Braced(self)
    }

    /// The URN form, `urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6`.
    ///
    /// ```
    /// let u = uuidkit::Uuid::NIL;
    /// assert_eq!(u.urn().to_string(), "urn:uuid:00000000-0000-0000-0000-000000000000");
    /// ```
    #[inline]
    pub const fn urn(self) -> Urn {
        Urn(self)
    }
}

impl fmt::Display for Uuid {
    /// The canonical form: hyphenated, lowercase (honours width, fill and alignment).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.hyphenated(), f)
    }
}

impl fmt::Debug for Uuid {
    /// The canonical form, as `Display`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.hyphenated(), f)
    }
}

impl fmt::LowerHex for Uuid {
    /// Hyphenated, lowercase (as `Display`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.hyphenated(), f)
    }
}

impl fmt::UpperHex for Uuid {
    /// Hyphenated, uppercase.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::UpperHex::fmt(&self.hyphenated(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_and_simd_encoders_agree_on_every_byte_in_every_lane() {
        for lane in 0..16 {
            for byte in 0..=255u8 {
                let mut b = [0x5a; 16];
                b[lane] = byte;
                for upper in [false, true] {
                    let table = if upper {
                        b"0123456789ABCDEF"
                    } else {
                        b"0123456789abcdef"
                    };
                    let scalar = encode32_scalar(&b, upper);
                    assert_eq!(scalar[2 * lane], table[(byte >> 4) as usize]);
                    assert_eq!(scalar[2 * lane + 1], table[(byte & 15) as usize]);
                    assert_eq!(encode32(&b, upper), scalar, "lane {lane} byte {byte:#x}");
                    let mut expected = [0u8; 36];
                    place_hyphens(&scalar, &mut expected);
                    for sink in [Sink::Buffer, Sink::Formatter] {
                        let mut text = [0xa5u8; 36];
                        hyphenated(&b, upper, &mut text, sink);
                        assert_eq!(text, expected, "hyphenated: lane {lane} byte {byte:#x}");
                    }
                    #[cfg(target_arch = "x86_64")]
                    {
                        let mut text = [0xa5u8; 36];
                        // SAFETY: SSE2 is part of x86_64.
                        unsafe { sse2::hyphenated(&b, upper, &mut text) };
                        assert_eq!(text, expected, "SSE2: lane {lane} byte {byte:#x}");
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx2_hyphenated_agrees_with_the_scalar_one_and_writes_only_36_bytes() {
        if !avx2::available() {
            std::println!("SKIPPED: this CPU has no AVX2; the SSE2 encoder is tested above");
            return;
        }
        for lane in 0..16 {
            for byte in 0..=255u8 {
                let mut b = [0xa5; 16];
                b[lane] = byte;
                for upper in [false, true] {
                    let mut expected = [0u8; 36];
                    place_hyphens(&encode32_scalar(&b, upper), &mut expected);
                    let mut text = [0x55u8; 72];
                    let (body, rest) = text.split_first_chunk_mut::<36>().unwrap();
                    // SAFETY: AVX2 was detected above.
                    unsafe { avx2::hyphenated(&b, upper, body) };
                    assert_eq!(*body, expected, "lane {lane} byte {byte:#x}");
                    assert!(rest.iter().all(|&x| x == 0x55), "wrote past 36 bytes");
                }
            }
        }
    }

    #[test]
    #[cfg(feature = "std")]
    fn display_writes_once_without_width_and_pads_with_it() {
        use std::format;
        use std::string::ToString;
        let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
        let canonical = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
        assert_eq!(u.to_string(), canonical);
        assert_eq!(format!("[{u:>38}]"), format!("[  {canonical}]"));
        assert_eq!(format!("[{u:*<37}]"), format!("[{canonical}*]"));
        assert_eq!(format!("{u:.8}"), "f81d4fae");
        assert_eq!(
            format!("{:X}", u.braced()),
            "{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}"
        );
        assert_eq!(
            format!("{:^47}", u.urn()),
            format!(" urn:uuid:{canonical} ")
        );
    }

    /// A batch in which, over the 256 values of `round`, every UUID slot of a
    /// 16-UUID period sees every byte value in every position.
    fn sweep_batch(round: u8, len: usize) -> std::vec::Vec<Uuid> {
        (0..len)
            .map(|slot| {
                let mut b = [0u8; 16];
                for (pos, x) in b.iter_mut().enumerate() {
                    *x = round
                        .wrapping_add((slot % 16 * 16 + pos) as u8)
                        .wrapping_mul(1 + 2 * (slot / 16) as u8);
                }
                Uuid::from_bytes(b)
            })
            .collect()
    }

    type LinesFn = fn(&[Uuid], &mut [u8], bool);

    fn lines_with(f: LinesFn, uuids: &[Uuid], upper: bool) -> std::vec::Vec<u8> {
        // Filler bytes, one byte of offset (unaligned) and a guard byte after the end.
        let mut buf = std::vec![0xa5u8; 1 + uuids.len() * 37 + 1];
        let end = buf.len() - 1;
        f(uuids, &mut buf[1..end], upper);
        assert_eq!((buf[0], buf[end]), (0xa5, 0xa5), "wrote outside its lines");
        buf[1..end].to_vec()
    }

    #[test]
    fn scalar_lines_are_canonical_lines() {
        let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
        assert_eq!(
            lines_with(lines::scalar, &[u, Uuid::NIL], false),
            b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\n00000000-0000-0000-0000-000000000000\n"
        );
        assert_eq!(
            lines_with(lines::scalar, &[u], true),
            b"F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6\n"
        );
        for round in [0u8, 0x5a, 0xff] {
            let batch = sweep_batch(round, 40);
            let text = lines_with(lines::scalar, &batch, false);
            for (u, line) in batch.iter().zip(text.chunks(37)) {
                let mut one = [0u8; 36];
                assert_eq!(
                    &line[..36],
                    u.hyphenated().encode_lower(&mut one).as_bytes()
                );
                assert_eq!(line[36], b'\n');
            }
        }
    }

    /// Every line path this CPU can run (AVX2, SSSE3, per UUID, and the
    /// dispatching entry point), against the scalar one: every byte value in
    /// every position of every UUID slot of a period, both cases, and batch
    /// lengths that end mid-period.
    #[test]
    fn simd_lines_agree_with_scalar_on_every_byte_in_every_position() {
        let mut paths: std::vec::Vec<(&str, LinesFn)> =
            std::vec![("each", lines::each), ("encode", lines::encode)];
        #[cfg(target_arch = "x86_64")]
        {
            use lines::Path;
            let best = lines::best();
            if best != Path::Each {
                paths.push(("ssse3", |u, o, up| {
                    lines::encode_with(Path::Ssse3, u, o, up)
                }));
            }
            if best == Path::Avx2 {
                paths.push(("avx2", |u, o, up| lines::encode_with(Path::Avx2, u, o, up)));
            }
        }
        std::println!(
            "line paths tested: {:?}",
            paths.iter().map(|p| p.0).collect::<std::vec::Vec<_>>()
        );
        for (name, f) in paths {
            for upper in [false, true] {
                for round in 0..=255u8 {
                    let batch = sweep_batch(round, 32);
                    assert_eq!(
                        lines_with(f, &batch, upper),
                        lines_with(lines::scalar, &batch, upper),
                        "{name} round {round} upper {upper}"
                    );
                }
                for len in 0..=50 {
                    let batch = sweep_batch(len as u8, len);
                    assert_eq!(
                        lines_with(f, &batch, upper),
                        lines_with(lines::scalar, &batch, upper),
                        "{name} length {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn encode_lines_fills_exactly_and_panics_clearly() {
        let batch = sweep_batch(7, 35);
        let mut buf = std::vec![b'#'; 35 * 37 + 3];
        let text = Hyphenated::encode_lines_lower(&batch, &mut buf);
        assert_eq!(text.len(), 35 * 37);
        assert_eq!(&buf[35 * 37..], b"###");
        assert_eq!(
            &buf[..35 * 37],
            &lines_with(lines::scalar, &batch, false)[..]
        );
        let upper = Hyphenated::encode_lines_upper(&batch[..3], &mut buf)
            .as_bytes()
            .to_vec();
        assert_eq!(upper, lines_with(lines::scalar, &batch[..3], true));
        assert_eq!(Hyphenated::encode_lines_lower(&[], &mut []), "");
        let err = std::panic::catch_unwind(|| {
            let mut small = [0u8; 73];
            Hyphenated::encode_lines_lower(&[Uuid::NIL; 2], &mut small);
        });
        let msg = err.unwrap_err();
        let msg = msg.downcast_ref::<std::string::String>().unwrap();
        assert_eq!(msg, "buffer of 73 bytes is too small: expected at least 74");
    }

    #[test]
    #[should_panic(expected = "buffer of 35 bytes is too small: expected at least 36")]
    fn short_buffer_panics_with_a_clear_message() {
        let mut buf = [0u8; 35];
        Uuid::NIL.hyphenated().encode_lower(&mut buf);
    }
}
