//! Reading UUIDs from text: [`Uuid::parse`] (the four common forms) and
//! [`Uuid::parse_strict`] (the ABNF of RFC 9562 §4 only).
//!
//! Fast path first: the length selects the form, the hyphens are checked, the
//! 32 hex digits are gathered and decoded at once (on x86_64 with AVX-512
//! VBMI, AVX2 or SSE2, whichever the CPU has best; a table elsewhere), and
//! failure is a single sentinel value. Only then does [`diagnose`] scan the
//! input again to say what is wrong and where.

use crate::Uuid;
use crate::error::{Expected, Form, ParseError, ParseErrorKind};

/// Hex digit values, 0xff for anything else.
const HEX: [u8; 256] = {
    let mut t = [0xff_u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

const URN_PREFIX: &[u8; 9] = b"urn:uuid:";

impl Uuid {
    /// Parses any of the four common text forms, with hex digits in any case:
    ///
    /// | form | example |
    /// |---|---|
    /// | hyphenated (RFC 9562 §4) | `f81d4fae-7dec-11d0-a765-00a0c91e6bf6` |
    /// | simple | `f81d4fae7dec11d0a76500a0c91e6bf6` |
    /// | braced | `{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}` |
    /// | URN (RFC 9562 §4, prefix in any case) | `urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6` |
    ///
    /// Anything else is an error. The input may be a `&str` or a byte slice
    /// (anything that is `AsRef<[u8]>`). [`FromStr`](core::str::FromStr) does the same.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] saying what is wrong and where (see its docs). This
    /// function never panics, whatever the input.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let expected = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// for text in [
    ///     "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    ///     "F81D4FAE7DEC11D0A76500A0C91E6BF6",
    ///     "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
    ///     "URN:UUID:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    /// ] {
    ///     assert_eq!(Uuid::parse(text)?, expected);
    /// }
    /// assert_eq!(Uuid::parse(b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?, expected);
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    #[inline]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, ParseError> {
        let s = input.as_ref();
        let bytes = lenient_fast(s);
        if bytes != FAILED {
            return Ok(Uuid::from_bytes(bytes.to_ne_bytes()));
        }
        max_or_error(s, false)
    }

    /// Parses only the hyphenated form of RFC 9562 §4 (its ABNF: 8-4-4-4-12
    /// hex digits, in any case, 36 characters, nothing around them).
    ///
    /// # Errors
    ///
    /// A [`ParseError`] saying what is wrong and where; a valid UUID in one of
    /// the other forms gives [`ParseErrorKind::NotHyphenated`]. Never panics.
    ///
    /// ```
    /// use uuidkit::{Form, ParseErrorKind, Uuid};
    /// assert!(Uuid::parse_strict("F81D4FAE-7dec-11D0-A765-00a0c91e6bf6").is_ok());
    /// let err = Uuid::parse_strict("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}").unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::NotHyphenated { found: Form::Braced });
    /// ```
    #[inline]
    pub fn parse_strict<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, ParseError> {
        let s = input.as_ref();
        if let Some((body, [])) = s.split_first_chunk::<36>() {
            let bytes = hyphenated_fast(body);
            if bytes != FAILED {
                return Ok(Uuid::from_bytes(bytes.to_ne_bytes()));
            }
        }
        max_or_error(s, true)
    }

    /// The `const` parser behind [`uuid!`](crate::uuid!): the same forms as
    /// [`Uuid::parse`], decoded without SIMD, and a fixed error summary (`const`
    /// code cannot format) when the input is not a UUID.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// const DNS: Result<Uuid, &str> = Uuid::parse_const("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    /// assert_eq!(DNS, Ok(uuidkit::namespace::DNS));
    /// assert!(Uuid::parse_const("6ba7b810").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// A static message naming the kind of mistake; use [`Uuid::parse`] at run
    /// time for the position.
    pub const fn parse_const(input: &str) -> Result<Uuid, &'static str> {
        let s = input.as_bytes();
        match decode_lenient_scalar(s) {
            Some(b) => Ok(Uuid::from_bytes(b)),
            None => Err(const_diagnose(s)),
        }
    }
}

impl core::str::FromStr for Uuid {
    type Err = ParseError;

    /// Same as [`Uuid::parse`].
    #[inline]
    fn from_str(s: &str) -> Result<Uuid, ParseError> {
        Uuid::parse(s)
    }
}

impl TryFrom<&str> for Uuid {
    type Error = ParseError;

    /// Same as [`Uuid::parse`].
    #[inline]
    fn try_from(s: &str) -> Result<Uuid, ParseError> {
        Uuid::parse(s)
    }
}

/// The 32 hex digit positions of the simple form.
const SIMPLE: [u8; 32] = {
    let mut p = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        p[i] = i as u8;
        i += 1;
    }
    p
};

/// The 32 hex digit positions of the hyphenated form.
const HYPHENATED: [u8; 32] = {
    let mut p = [0u8; 32];
    let mut i = 0;
    let mut j = 0;
    while j < 36 {
        if !(j == 8 || j == 13 || j == 18 || j == 23) {
            p[i] = j as u8;
            i += 1;
        }
        j += 1;
    }
    p
};

const fn urn_prefix_ok(s: &[u8]) -> bool {
    let mut i = 0;
    while i < 9 {
        if s[i].to_ascii_lowercase() != URN_PREFIX[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Hyphens at 8, 13, 18, 23 of the 36-byte body at `off`, then the digits.
const fn decode_scalar_checked(s: &[u8], off: usize) -> Option<[u8; 16]> {
    if s[off + 8] != b'-' || s[off + 13] != b'-' || s[off + 18] != b'-' || s[off + 23] != b'-' {
        return None;
    }
    let mut pos = HYPHENATED;
    let mut i = 0;
    while i < 32 {
        pos[i] += off as u8;
        i += 1;
    }
    decode_scalar(s, &pos)
}

/// Decodes the 32 hex digits at `pos` in `s`: a table lookup per digit, one
/// check at the end.
const fn decode_scalar(s: &[u8], pos: &[u8; 32]) -> Option<[u8; 16]> {
    let mut out = [0u8; 16];
    let mut bad = 0u8;
    let mut i = 0;
    while i < 16 {
        let hi = HEX[s[pos[2 * i] as usize] as usize];
        let lo = HEX[s[pos[2 * i + 1] as usize] as usize];
        bad |= hi | lo;
        out[i] = (hi << 4) | (lo & 0x0f);
        i += 1;
    }
    if bad & 0xf0 != 0 { None } else { Some(out) }
}

/// The portable decoder for 32 contiguous hex digits (used where SSE2 is not,
/// and by the tests that check the SIMD decoder against it).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline]
pub(crate) fn decode32_scalar(digits: &[u8; 32]) -> Option<[u8; 16]> {
    decode_scalar(digits, &SIMPLE)
}

/// Decodes 32 contiguous hex digits with the best decoder this build has.
#[inline(always)]
fn decode32(digits: &[u8; 32]) -> Option<[u8; 16]> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is enabled at compile time (it is part of x86_64).
        unsafe { sse2::decode32(digits) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        decode32_scalar(digits)
    }
}

/// Decodes 32 hex digits given as four little-endian 8-digit words.
#[inline(always)]
fn decode_words(w: [u64; 4]) -> Option<[u8; 16]> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is enabled at compile time (it is part of x86_64).
        unsafe { sse2::decode_words(w) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let mut d = [0u8; 32];
        for (chunk, word) in d.chunks_exact_mut(8).zip(w) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        decode32_scalar(&d)
    }
}

/// The fast decoders' result: the 16 bytes as a native-endian `u128`, which
/// the Rust ABI returns in two registers. An `Option<Uuid>` or a `[u8; 16]`
/// would go through memory, and an `Option<Uuid>` keeps its UUID at offset 1,
/// where reloading it whole from two 8-byte stores defeats store forwarding.
///
/// [`FAILED`] (the Max UUID's bytes) stands for "invalid"; a valid Max UUID
/// also gives it, and [`is_valid_max`] tells the two apart.
type Fast = u128;

/// See [`Fast`].
const FAILED: Fast = u128::MAX;

/// Any of the four lenient forms, fast.
#[inline(always)]
fn lenient_fast(s: &[u8]) -> Fast {
    if let Some((body, [])) = s.split_first_chunk::<36>() {
        return hyphenated_fast(body);
    }
    other_forms_fast(s)
}

/// The slow end of the fast paths, for a [`FAILED`] result: the Max UUID in
/// one of the accepted forms, or an error that says what and where.
#[cold]
#[inline(never)]
fn max_or_error(s: &[u8], strict: bool) -> Result<Uuid, ParseError> {
    if is_valid_max(s, strict) {
        Ok(Uuid::MAX)
    } else {
        Err(diagnose(s, strict))
    }
}

/// Whether an input the fast paths reported as [`FAILED`] is in fact the Max
/// UUID, written in a form the parser accepts.
#[cold]
#[inline(never)]
fn is_valid_max(s: &[u8], strict: bool) -> bool {
    // The last hex digit of every form: one compare rejects almost every
    // invalid input before the full decode.
    let last_digit = match s.len() {
        38 => s[36],
        _ => s.last().copied().unwrap_or(0),
    };
    (!strict || s.len() == 36) && last_digit | 0x20 == b'f' && decode_lenient_scalar(s).is_some()
}

/// The four lenient forms with the scalar decoder (the `const` parser, and
/// the cold path of the fast ones).
const fn decode_lenient_scalar(s: &[u8]) -> Option<[u8; 16]> {
    match s.len() {
        32 => decode_scalar(s, &SIMPLE),
        36 => decode_scalar_checked(s, 0),
        38 if s[0] == b'{' && s[37] == b'}' => decode_scalar_checked(s, 1),
        45 if urn_prefix_ok(s) => decode_scalar_checked(s, 9),
        _ => None,
    }
}

/// A portable decoder's result as a [`Fast`] one.
#[inline(always)]
fn to_fast(decoded: Option<[u8; 16]>) -> Fast {
    match decoded {
        Some(b) => u128::from_ne_bytes(b),
        None => FAILED,
    }
}

/// Decodes the 36-byte hyphenated form with the best decoder this CPU has.
#[inline(always)]
fn hyphenated_fast(s: &[u8; 36]) -> Fast {
    #[cfg(target_arch = "x86_64")]
    {
        hyphenated_x86_64(s)
    }
    #[cfg(not(target_arch = "x86_64"))]
    to_fast(hyphenated_portable(s))
}

/// The run-time choice of decoder (AVX-512 VBMI, AVX2 or SSE2): one load
/// of the decoder chosen on first use, then an indirect call.
///
/// A chain of feature checks with direct calls would be as cheap in
/// instructions, but the checks and the decoders' shared continuation cost
/// taken branches, and on this crate's benchmark machine each taken branch
/// per call showed: the same AVX-512 decoder ran about 10 % faster behind one
/// predictable indirect call than behind the checks.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn hyphenated_x86_64(s: &[u8; 36]) -> Fast {
    let chosen = decoder::CHOSEN.load(core::sync::atomic::Ordering::Relaxed);
    let decode = if chosen.is_null() {
        decoder::choose()
    } else {
        // SAFETY: `CHOSEN` only ever holds null or a `Decoder` (`choose`).
        unsafe { core::mem::transmute::<*mut (), decoder::Decoder>(chosen) }
    };
    // SAFETY: `choose` picked a decoder whose CPU features are available.
    unsafe { decode(s) }
}

/// The decoder [`hyphenated_x86_64`] calls.
#[cfg(target_arch = "x86_64")]
mod decoder {
    use super::{Fast, avx2};
    use core::sync::atomic::{AtomicPtr, Ordering};

    /// A hyphenated-form decoder; unsafe to call where the CPU lacks the
    /// features it was compiled for.
    pub(super) type Decoder = unsafe fn(&[u8; 36]) -> Fast;

    /// A simple-form (32 hex digits) decoder, with the same contract.
    pub(super) type SimpleDecoder = unsafe fn(&[u8; 32]) -> Fast;

    /// The decoder for this CPU once [`choose`] has run; null before. Every
    /// thread that races the first call stores the same value.
    pub(super) static CHOSEN: AtomicPtr<()> = AtomicPtr::new(core::ptr::null_mut());

    /// Picks the fastest decoder this CPU supports and remembers it.
    #[cold]
    #[inline(never)]
    pub(super) fn choose() -> Decoder {
        let decode = if let Some((decode, _)) = avx512() {
            decode
        } else if avx2::available() {
            avx2::hyphenated
        } else {
            super::hyphenated_sse2
        };
        CHOSEN.store(decode as *mut (), Ordering::Relaxed);
        decode
    }

    /// The AVX-512 VBMI decoders (hyphenated, simple), if this CPU has them.
    #[rustversion::since(1.89)]
    #[inline(always)]
    pub(super) fn avx512() -> Option<(Decoder, SimpleDecoder)> {
        use super::avx512::{available, hyphenated, simple};
        available().then_some((hyphenated as Decoder, simple as SimpleDecoder))
    }

    /// Compilers older than 1.89 build without the AVX-512 decoders.
    #[rustversion::before(1.89)]
    #[inline(always)]
    pub(super) fn avx512() -> Option<(Decoder, SimpleDecoder)> {
        None
    }
}

/// The SSE2 decoder, for x86_64 CPUs without AVX2.
#[cfg(target_arch = "x86_64")]
fn hyphenated_sse2(s: &[u8; 36]) -> Fast {
    to_fast(hyphenated_portable(s))
}

/// Decodes the hyphenated form without run-time detection: SSE2 on x86_64,
/// scalar elsewhere. The four hyphens are checked without branches and the
/// verdict is folded into the digit check.
#[inline(always)]
fn hyphenated_portable(s: &[u8; 36]) -> Option<[u8; 16]> {
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
    let words = [
        r64(0),
        r32(9) | r32(14) << 32,
        r32(19) | r32(24) << 32,
        r64(28),
    ];
    let bytes = decode_words(words);
    if hyphens != 0 {
        return None;
    }
    bytes
}

/// The lenient parser without a diagnosis: `None` on any error.
#[inline]
pub(crate) fn parse_lenient(s: &[u8]) -> Option<Uuid> {
    let bytes = lenient_fast(s);
    if bytes != FAILED {
        return Some(Uuid::from_bytes(bytes.to_ne_bytes()));
    }
    is_valid_max(s, false).then_some(Uuid::MAX)
}

/// Simple, braced and URN forms, fast (out of line: the canonical form is
/// the one to keep small in the caller).
#[inline(never)]
fn other_forms_fast(s: &[u8]) -> Fast {
    match s.len() {
        32 => match s.first_chunk::<32>() {
            Some(digits) => simple_fast(digits),
            None => FAILED,
        },
        38 if s[0] == b'{' && s[37] == b'}' => match s[1..].first_chunk::<36>() {
            Some(body) => hyphenated_fast(body),
            None => FAILED,
        },
        45 if urn_prefix_ok(s) => match s[9..].first_chunk::<36>() {
            Some(body) => hyphenated_fast(body),
            None => FAILED,
        },
        _ => FAILED,
    }
}

/// Decodes the simple form with the best decoder this CPU has.
#[inline(always)]
fn simple_fast(digits: &[u8; 32]) -> Fast {
    #[cfg(target_arch = "x86_64")]
    if let Some((_, simple)) = decoder::avx512() {
        // SAFETY: `avx512` returns its decoders only where the CPU and OS
        // support AVX-512 F, BW, VL and VBMI.
        return unsafe { simple(digits) };
    }
    to_fast(decode32(digits))
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
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
    unsafe fn nibbles(x: __m128i) -> (__m128i, __m128i) {
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
    unsafe fn pairs(v: __m128i) -> __m128i {
        // SAFETY: plain SSE2 arithmetic.
        unsafe {
            _mm_and_si128(
                _mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)),
                _mm_set1_epi16(0x00ff),
            )
        }
    }

    /// Decodes 32 ASCII hex digits (any case), given as four little-endian
    /// words of 8 digits each, into 16 bytes.
    ///
    /// # Safety
    /// The CPU must support SSE2 (always true on x86_64).
    #[inline(always)]
    pub(crate) unsafe fn decode_words(w: [u64; 4]) -> Option<[u8; 16]> {
        // SAFETY: register moves and SSE2 arithmetic only.
        unsafe {
            decode_vectors(
                _mm_set_epi64x(w[1] as i64, w[0] as i64),
                _mm_set_epi64x(w[3] as i64, w[2] as i64),
            )
        }
    }

    #[inline(always)]
    unsafe fn decode_vectors(a: __m128i, b: __m128i) -> Option<[u8; 16]> {
        // SAFETY: the store writes 16 bytes into `out`, unaligned; the rest is
        // SSE2 arithmetic.
        unsafe {
            let (va, bada) = nibbles(a);
            let (vb, badb) = nibbles(b);
            if _mm_movemask_epi8(_mm_or_si128(bada, badb)) != 0 {
                return None;
            }
            let mut out = [0u8; 16];
            _mm_storeu_si128(
                out.as_mut_ptr().cast(),
                _mm_packus_epi16(pairs(va), pairs(vb)),
            );
            Some(out)
        }
    }

    /// Decodes 32 contiguous ASCII hex digits (any case) into 16 bytes.
    ///
    /// # Safety
    /// The CPU must support SSE2 (always true on x86_64).
    #[inline(always)]
    pub(crate) unsafe fn decode32(digits: &[u8; 32]) -> Option<[u8; 16]> {
        // SAFETY: both loads read 16 bytes inside `digits`, unaligned.
        unsafe {
            let p = digits.as_ptr().cast::<__m128i>();
            decode_vectors(_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)))
        }
    }
}

/// The hyphenated decoder for CPUs with AVX2, detected at run time.
///
/// Three loads cover the 36 bytes: `s[0..8]`, `w = s[8..24]` (the four hyphens
/// and the middle digits) and `s[20..36]`. Two `pshufb` gather the middle
/// digits next to the first and last groups, one compare checks all four
/// hyphens, and the 32 digits are then decoded and checked in one 256-bit
/// register; `pmaddubsw` joins each pair of nibbles.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use core::arch::x86_64::*;

    /// Whether [`hyphenated`] may be called.
    #[inline(always)]
    pub(super) fn available() -> bool {
        crate::cpu::avx2()
    }

    /// Lanes 1–4 and 6–9 of `w` (digits 9–12 and 14–17) to lanes 8–15; zero
    /// elsewhere.
    const MIDDLE: [i8; 16] = [-1, -1, -1, -1, -1, -1, -1, -1, 1, 2, 3, 4, 6, 7, 8, 9];
    /// Lanes 11–14 of `w` (digits 19–22) to lanes 0–3.
    const FOURTH: [i8; 16] = [
        11, 12, 13, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    ];
    /// The hyphen lanes of `w`.
    const HYPHEN_LANES: [usize; 4] = [0, 5, 10, 15];
    /// `value` at the hyphen lanes of `w`, zero elsewhere.
    const fn at_hyphens(value: u8) -> [i8; 16] {
        let mut v = [0i8; 16];
        let mut i = 0;
        while i < HYPHEN_LANES.len() {
            v[HYPHEN_LANES[i]] = value as i8;
            i += 1;
        }
        v
    }

    /// `-` at the hyphen lanes.
    const HYPHENS: [i8; 16] = at_hyphens(b'-');
    /// The top bit at the hyphen lanes.
    const HYPHEN_TOP_BITS: [i8; 16] = at_hyphens(0x80);

    #[inline(always)]
    fn vector(a: [i8; 16]) -> __m128i {
        // SAFETY: same size; every bit pattern is valid for both.
        unsafe { core::mem::transmute::<[i8; 16], __m128i>(a) }
    }

    /// Decodes the hyphenated form; [`FAILED`](super::FAILED) on any error.
    ///
    /// # Safety
    /// The CPU and OS must support AVX2 ([`available`]).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn hyphenated(s: &[u8; 36]) -> u128 {
        let p = s.as_ptr();
        // SAFETY: the loads read s[0..8], s[8..24] and s[20..36], all inside
        // `s`; the rest is register arithmetic.
        unsafe {
            let w = _mm_loadu_si128(p.add(8).cast());
            let first = _mm_loadl_epi64(p.cast());
            let last = _mm_loadu_si128(p.add(20).cast());
            // Digits 0–7, 9–12, 14–17.
            let low = _mm_or_si128(first, _mm_shuffle_epi8(w, vector(MIDDLE)));
            // Digits 19–22, 24–35.
            let high = _mm_blend_epi32(last, _mm_shuffle_epi8(w, vector(FOURTH)), 0b0001);
            let hyphens_bad =
                _mm_andnot_si128(_mm_cmpeq_epi8(w, vector(HYPHENS)), vector(HYPHEN_TOP_BITS));
            let x = _mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1);
            // As `sse2::nibbles`, 32 lanes at once.
            let d = _mm256_sub_epi8(x, _mm256_set1_epi8(b'0' as i8));
            let l = _mm256_sub_epi8(
                _mm256_or_si256(x, _mm256_set1_epi8(0x20)),
                _mm256_set1_epi8(b'a' as i8),
            );
            let bad = _mm256_and_si256(
                _mm256_adds_epu8(d, _mm256_set1_epi8(0x76)),
                _mm256_adds_epu8(l, _mm256_set1_epi8(0x7a)),
            );
            let bad = _mm256_or_si256(bad, _mm256_zextsi128_si256(hyphens_bad));
            if _mm256_movemask_epi8(bad) != 0 {
                return super::FAILED;
            }
            let nibbles = _mm256_min_epu8(d, _mm256_add_epi8(l, _mm256_set1_epi8(10)));
            // Each 16-bit lane holds (high nibble, low nibble): times (16, 1).
            let bytes = _mm256_maddubs_epi16(nibbles, _mm256_set1_epi16(0x0110));
            let packed = _mm_packus_epi16(
                _mm256_castsi256_si128(bytes),
                _mm256_extracti128_si256(bytes, 1),
            );
            core::mem::transmute::<__m128i, u128>(packed)
        }
    }
}

/// The hyphenated decoder for CPUs with AVX-512 VBMI (Ice Lake and later,
/// Zen 4 and later), detected at run time; 256-bit registers only.
///
/// About half the vector instructions of the AVX2 decoder:
/// - two overlapping loads, `s[0..32]` and `s[4..36]`, and one two-source
///   byte permute (`vpermi2b`) gather the 32 digits in order;
/// - one masked compare checks the four hyphens;
/// - a second permute looks each digit up in a 64-entry table ([`TABLE`])
///   whose entry XOR the byte is the digit's value, or 16 or more if the byte
///   is not a hex digit, so one test checks all 32 at once;
/// - `pmaddubsw` joins each pair of nibbles and a byte permute packs them.
///
/// Its intrinsics are stable since Rust 1.89; older compilers (this crate
/// supports 1.85) build without it and use the AVX2 decoder.
#[cfg(target_arch = "x86_64")]
#[rustversion::since(1.89)]
mod avx512 {
    use core::arch::x86_64::*;

    cpufeatures::new!(cpu_avx512, "avx512f", "avx512bw", "avx512vl", "avx512vbmi");

    /// Whether [`hyphenated`] may be called (one cached load after the first
    /// call).
    #[inline(always)]
    pub(super) fn available() -> bool {
        cpu_avx512::get()
    }

    /// For each digit of the hyphenated form, its index in `s[0..32] ‖
    /// s[4..36]` (digits 32–35 come from the second load, at index 28 + p).
    const GATHER: [u8; 32] = {
        let mut index = super::HYPHENATED;
        let mut i = 0;
        while i < 32 {
            if index[i] >= 32 {
                index[i] += 28;
            }
            i += 1;
        }
        index
    };

    /// The hex digit with low six bits `i`, if any: its byte and value. The
    /// 22 hex digits have distinct low six bits (`0`–`9` are 0x30–0x39, `A`–`F`
    /// 0x01–0x06, `a`–`f` 0x21–0x26).
    const fn digit_with_low_bits(i: u8) -> Option<(u8, u8)> {
        match i {
            0x30..=0x39 => Some((i, i - 0x30)),
            0x01..=0x06 => Some((0x40 | i, i + 9)),
            0x21..=0x26 => Some((0x40 | i, i - 0x21 + 10)),
            _ => None,
        }
    }

    /// The lookup table, indexed by a byte's low six bits (`vpermt2b` ignores
    /// the top two). `byte ^ TABLE[byte & 63]` is the value of a hex digit,
    /// and at least 16 for any other byte:
    /// - if an entry has a digit, the entry is `digit ^ value`; another byte
    ///   with the same low six bits differs from the digit in bit 6 or 7;
    /// - if not, the entry's bits 4 and 5 are the index's, inverted.
    const TABLE: [u8; 64] = {
        let mut t = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            t[i] = match digit_with_low_bits(i as u8) {
                Some((digit, value)) => digit ^ value,
                None => (i as u8 & 0x30) ^ 0x30,
            };
            i += 1;
        }
        t
    };

    /// The four hyphens' positions, as a lane mask.
    const HYPHEN_LANES: u32 = (1 << 8) | (1 << 13) | (1 << 18) | (1 << 23);

    /// Even byte lanes first: the low byte of each 16-bit lane.
    const LOW_BYTES: [u8; 32] = {
        let mut index = [0u8; 32];
        let mut i = 0;
        while i < 16 {
            index[i] = 2 * i as u8;
            i += 1;
        }
        index
    };

    #[inline(always)]
    fn vector(a: [u8; 32]) -> __m256i {
        // SAFETY: same size; every bit pattern is valid for both.
        unsafe { core::mem::transmute::<[u8; 32], __m256i>(a) }
    }

    /// The first or second half of [`TABLE`].
    const fn half(second: bool) -> [u8; 32] {
        let mut h = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            h[i] = TABLE[i + if second { 32 } else { 0 }];
            i += 1;
        }
        h
    }
    const TABLE_LOW: [u8; 32] = half(false);
    const TABLE_HIGH: [u8; 32] = half(true);

    /// Decodes the hyphenated form; [`FAILED`](super::FAILED) on any error.
    ///
    /// # Safety
    /// The CPU and OS must support AVX-512 F, BW, VL and VBMI ([`available`]).
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    pub(super) unsafe fn hyphenated(s: &[u8; 36]) -> u128 {
        let p = s.as_ptr();
        // SAFETY: the loads read s[0..32] and s[4..36], inside `s`; the rest
        // is register arithmetic.
        unsafe {
            let first = _mm256_loadu_si256(p.cast());
            let digits = _mm256_permutex2var_epi8(
                first,
                vector(GATHER),
                _mm256_loadu_si256(p.add(4).cast()),
            );
            let bad_hyphens =
                _mm256_mask_cmpneq_epi8_mask(HYPHEN_LANES, first, _mm256_set1_epi8(b'-' as i8));
            decode(digits, bad_hyphens)
        }
    }

    /// Decodes the simple form (32 hex digits); [`FAILED`](super::FAILED) on
    /// any error.
    ///
    /// # Safety
    /// As [`hyphenated`].
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    pub(super) unsafe fn simple(s: &[u8; 32]) -> u128 {
        // SAFETY: the load reads the 32 bytes of `s`.
        unsafe { decode(_mm256_loadu_si256(s.as_ptr().cast()), 0) }
    }

    /// The 16 bytes of the 32 hex digits in `digits`, or
    /// [`FAILED`](super::FAILED) if one is not a hex digit or `bad` is not 0.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    #[inline]
    unsafe fn decode(digits: __m256i, bad: __mmask32) -> u128 {
        // SAFETY: register arithmetic only.
        unsafe {
            // Opaque to LLVM, which would otherwise merge the two table
            // halves into one 512-bit permute (AVX-512 frequency licences).
            let mut low = vector(TABLE_LOW);
            core::arch::asm!("/* {0} */", inout(ymm_reg) low, options(pure, nomem, nostack, preserves_flags));
            let values = _mm256_xor_si256(
                digits,
                _mm256_permutex2var_epi8(low, digits, vector(TABLE_HIGH)),
            );
            let bad_digits = _mm256_test_epi8_mask(values, _mm256_set1_epi8(0xf0_u8 as i8));
            if bad_digits | bad != 0 {
                return super::FAILED;
            }
            // Each 16-bit lane holds (high nibble, low nibble): times (16, 1).
            let bytes = _mm256_maddubs_epi16(values, _mm256_set1_epi16(0x0110));
            let packed = _mm256_permutexvar_epi8(vector(LOW_BYTES), bytes);
            core::mem::transmute::<__m128i, u128>(_mm256_castsi256_si128(packed))
        }
    }
}

// ---------------------------------------------------------------------------
// The failure path: say what is wrong, and where.

/// Widths of the five groups of the hyphenated form.
const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];

#[cold]
#[inline(never)]
pub(crate) fn diagnose(s: &[u8], strict: bool) -> ParseError {
    if strict {
        if let Some(form) = lenient_form(s) {
            return ParseError::new(ParseErrorKind::NotHyphenated { found: form }, None, true);
        }
    }
    let err = |kind, at| ParseError::new(kind, at, strict);
    let bad_char = |at: usize, expected| err(found_at(s, at, expected), Some(at));

    // Which form does the input try to be? Strip its wrapping.
    let (body, off, wrapped) = if s.len() >= 4 && s[..4].eq_ignore_ascii_case(&URN_PREFIX[..4]) {
        // "urn:" — the rest of the prefix must follow.
        for (i, &want) in URN_PREFIX.iter().enumerate().skip(4) {
            match s.get(i) {
                Some(c) if c.to_ascii_lowercase() == want => {}
                Some(_) => return bad_char(i, Expected::UrnPrefix),
                None => return err(ParseErrorKind::InvalidLength { found: s.len() }, None),
            }
        }
        (&s[9..], 9, true)
    } else if s.first() == Some(&b'{') {
        let end = if s.len() > 1 && s[s.len() - 1] == b'}' {
            s.len() - 1
        } else {
            s.len()
        };
        (&s[1..end], 1, true)
    } else {
        (s, 0, false)
    };

    if !wrapped && s.len() == 38 && HEX[s[0] as usize] == 0xff && s[0] != b'-' {
        // The braced length, without the opening brace.
        return bad_char(0, Expected::OpeningBrace);
    }
    // The first character that is neither a hex digit nor a hyphen.
    let hyphens = body.contains(&b'-');
    for (i, &c) in body.iter().enumerate() {
        if HEX[c as usize] == 0xff && c != b'-' {
            let at = off + i;
            let expected = if off == 1 && s.len() == 38 && at == 37 {
                // the last character of a braced form
                Expected::ClosingBrace
            } else {
                Expected::HexDigit
            };
            return bad_char(at, expected);
        }
    }
    if off == 1 && s.len() == body.len() + 1 {
        // "{" and valid digits, but no closing brace.
        return err(
            ParseErrorKind::UnexpectedEnd {
                expected: Expected::ClosingBrace,
            },
            Some(s.len()),
        );
    }

    if !hyphens {
        if !wrapped && body.len() == 36 {
            // 36 digits: the hyphenated length without its hyphens.
            return bad_char(8, Expected::Hyphen);
        }
        if wrapped && body.len() == 32 {
            return err(ParseErrorKind::GroupCount { found: 1 }, None);
        }
        if !wrapped || body.len() != 36 {
            return err(ParseErrorKind::InvalidLength { found: s.len() }, None);
        }
    }

    // Hyphenated: five groups of 8-4-4-4-12 digits.
    let count = body.split(|&c| c == b'-').count();
    if count != 5 {
        return err(ParseErrorKind::GroupCount { found: count }, None);
    }
    let mut start = 0;
    for (n, group) in body.split(|&c| c == b'-').enumerate() {
        if group.len() != GROUPS[n] {
            return err(
                ParseErrorKind::GroupLength {
                    group: n + 1,
                    found: group.len(),
                    expected: GROUPS[n],
                },
                Some(off + start),
            );
        }
        start += group.len() + 1;
    }
    // Every part is well formed, so only the total length can be wrong.
    err(ParseErrorKind::InvalidLength { found: s.len() }, None)
}

/// The character (or, if not UTF-8, the byte) at `at`.
fn found_at(s: &[u8], at: usize, expected: Expected) -> ParseErrorKind {
    let rest = &s[at..];
    for n in 1..=rest.len().min(4) {
        if let Ok(text) = core::str::from_utf8(&rest[..n]) {
            if let Some(found) = text.chars().next() {
                return ParseErrorKind::InvalidCharacter { found, expected };
            }
        }
    }
    ParseErrorKind::InvalidByte {
        found: s[at],
        expected,
    }
}

/// The form of a string that [`Uuid::parse`] accepts.
fn lenient_form(s: &[u8]) -> Option<Form> {
    parse_lenient(s)?;
    Some(match s.len() {
        32 => Form::Simple,
        36 => Form::Hyphenated,
        38 => Form::Braced,
        _ => Form::Urn,
    })
}

/// The fixed summary for `const` callers.
const fn const_diagnose(s: &[u8]) -> &'static str {
    match s.len() {
        32 | 36 | 38 | 45 => {
            "invalid UUID: expected 32 hex digits, grouped 8-4-4-4-12 by hyphens \
                              (optionally in braces or after \"urn:uuid:\") or not grouped"
        }
        _ => ParseError::new(
            ParseErrorKind::InvalidLength { found: s.len() },
            None,
            false,
        )
        .summary(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_and_simd_decoders_agree_on_every_byte_in_every_lane() {
        let base = *b"0123456789abcdefABCDEF0123456789";
        for lane in 0..32 {
            for byte in 0..=255u8 {
                let mut d = base;
                d[lane] = byte;
                let scalar = decode32_scalar(&d);
                assert_eq!(
                    scalar.is_some(),
                    HEX[byte as usize] != 0xff,
                    "byte {byte:#x}"
                );
                assert_eq!(decode32(&d), scalar, "lane {lane} byte {byte:#x}");
            }
        }
        assert_eq!(
            decode32_scalar(&base),
            Some([
                0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45,
                0x67, 0x89
            ])
        );
    }

    /// Every decoder of the hyphenated form against the scalar one, with every
    /// byte value in every position.
    fn check_hyphenated_decoder(decode: impl Fn(&[u8; 36]) -> Option<[u8; 16]>) {
        let base = *b"0123abCD-4567-89ef-ABCD-ef0123456789";
        for at in 0..36 {
            for byte in 0..=255u8 {
                let mut s = base;
                s[at] = byte;
                let scalar = decode_scalar_checked(&s, 0);
                assert_eq!(
                    scalar.is_some(),
                    byte == base[at]
                        || (![8, 13, 18, 23].contains(&at) && HEX[byte as usize] != 0xff),
                    "at {at} byte {byte:#x}"
                );
                assert_eq!(decode(&s), scalar, "at {at} byte {byte:#x}");
            }
        }
        assert_eq!(
            decode(&base).map(u128::from_be_bytes),
            Some(0x0123abcd_4567_89ef_abcd_ef0123456789)
        );
    }

    #[test]
    fn hyphenated_portable_decoder_agrees_with_the_scalar_parser() {
        check_hyphenated_decoder(hyphenated_portable);
    }

    /// A fast decoder's result as the portable decoders give it.
    fn from_fast(bytes: Fast) -> Option<[u8; 16]> {
        (bytes != FAILED).then(|| bytes.to_ne_bytes())
    }

    #[test]
    fn hyphenated_dispatched_decoder_agrees_with_the_scalar_parser() {
        check_hyphenated_decoder(|s| from_fast(hyphenated_fast(s)));
        check_hyphenated_decoder(|s| Uuid::parse(s).ok().map(Uuid::into_bytes));
        check_hyphenated_decoder(|s| Uuid::parse_strict(s).ok().map(Uuid::into_bytes));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn hyphenated_sse2_decoder_agrees_with_the_scalar_parser() {
        check_hyphenated_decoder(|s| from_fast(hyphenated_sse2(s)));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn hyphenated_avx2_decoder_agrees_with_the_scalar_parser() {
        if !avx2::available() {
            std::println!("SKIPPED: this CPU has no AVX2; the SSE2 decoder is tested above");
            return;
        }
        // SAFETY: AVX2 is available (checked above).
        check_hyphenated_decoder(|s| from_fast(unsafe { avx2::hyphenated(s) }));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn dispatcher_chooses_the_fastest_decoder_this_cpu_has() {
        let chosen = decoder::choose() as usize;
        let (name, expected) = match decoder::avx512() {
            Some((avx512, _)) => ("AVX-512", avx512 as usize),
            None if avx2::available() => ("AVX2", avx2::hyphenated as decoder::Decoder as usize),
            None => ("SSE2", hyphenated_sse2 as decoder::Decoder as usize),
        };
        std::println!("this CPU's hyphenated decoder: {name}");
        assert_eq!(chosen, expected, "expected the {name} decoder");
        assert_eq!(
            decoder::CHOSEN.load(core::sync::atomic::Ordering::Relaxed) as usize,
            expected
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_decoders_agree_with_the_scalar_ones_on_every_byte_in_every_lane() {
        let Some((hyphenated, simple)) = decoder::avx512() else {
            std::println!(
                "SKIPPED: this CPU (or a compiler before 1.89) has no AVX-512 VBMI decoder; \
                 the AVX2 and SSE2 decoders are tested above"
            );
            return;
        };
        // SAFETY (both calls): `decoder::avx512` returned the decoders, so
        // the CPU supports AVX-512 F, BW, VL and VBMI.
        check_hyphenated_decoder(|s| from_fast(unsafe { hyphenated(s) }));
        let base = *b"0123456789abcdefABCDEF0123456789";
        for lane in 0..32 {
            for byte in 0..=255u8 {
                let mut d = base;
                d[lane] = byte;
                let fast = unsafe { simple(&d) };
                assert_eq!(
                    from_fast(fast),
                    decode32_scalar(&d),
                    "lane {lane} byte {byte:#x}"
                );
                assert_eq!(simple_fast(&d), fast);
            }
        }
    }

    /// The Max UUID decodes to the fast paths' failure value: every form of
    /// it must still parse, and near misses must still fail with a diagnosis.
    #[test]
    fn max_uuid_parses_in_every_form_despite_sharing_the_failure_value() {
        let forms = [
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
            "ffffffffffffffffffffffffffffffff",
            "{ffffffff-ffff-ffff-ffff-ffffffffffff}",
            "urn:uuid:FFFFFFFF-ffff-ffff-ffff-ffffffffffff",
        ];
        for (i, text) in forms.iter().enumerate() {
            assert_eq!(Uuid::parse(text), Ok(Uuid::MAX), "{text}");
            assert_eq!(parse_lenient(text.as_bytes()), Some(Uuid::MAX), "{text}");
            if i < 2 {
                assert_eq!(Uuid::parse_strict(text), Ok(Uuid::MAX), "{text}");
            } else {
                assert_eq!(
                    Uuid::parse_strict(text).map_err(|e| e.kind()),
                    Err(ParseErrorKind::NotHyphenated {
                        found: lenient_form(text.as_bytes()).unwrap()
                    }),
                    "{text}"
                );
            }
            // One digit wrong: a specific error, never the Max UUID.
            let mut bad = std::string::String::from(*text);
            let at = bad.rfind(['f', 'F']).unwrap();
            bad.replace_range(at..at + 1, "g");
            let err = Uuid::parse(&bad).unwrap_err();
            assert_eq!(err.position(), Some(at), "{bad}: {err}");
        }
    }

    #[test]
    fn const_parser_agrees_with_the_runtime_parser() {
        for s in [
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            "F81D4FAE7DEC11D0A76500A0C91E6BF6",
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
            "uRn:UuId:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        ] {
            assert_eq!(Uuid::parse_const(s).ok(), Uuid::parse(s).ok());
            assert!(Uuid::parse_const(s).is_ok());
        }
        for s in [
            "",
            "f81d4fae-7dec-11d0-a765-00a0c91e6bfg",
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6)",
        ] {
            assert!(Uuid::parse_const(s).is_err());
            assert!(Uuid::parse(s).is_err());
        }
    }
}
