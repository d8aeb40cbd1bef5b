//! The short encodings with AVX2: base32 (Crockford's and RFC 4648's
//! base32hex alphabets) and base64url, both ways.
//!
//! Encoding reads every digit's bits from a 16-bit window of the UUID's
//! bytes: a byte shuffle puts the two bytes a digit spans into one 16-bit
//! lane (big end high), an unsigned multiply-high by a power of two shifts
//! each lane right by its own amount, and a mask keeps the digit. The two
//! 128-bit lanes make the first 16 digits and the last 16 (they overlap in
//! the middle), so two 16-byte stores write exactly the text. The values
//! become characters with byte shuffles: two 16-entry tables and a blend
//! for a 32-digit alphabet, an offset table for base64url.
//!
//! Decoding checks every character with two nibble-indexed tables (a
//! character is valid when the set of valid high nibbles for its low nibble
//! contains its high nibble), turns characters into values with compares
//! (base32) or an offset table (base64url), and joins the values with
//! multiply-adds (`pmaddubsw`, `pmaddwd`). Any invalid character makes the
//! whole decode fail; the portable code then finds and names it.
//!
//! Every function here takes an [`Avx2`] token, and is tested against the
//! portable code (`check::sweep`, `check::differential`).

use core::arch::x86_64::*;

use super::cpu::Avx2;
use crate::encoding::base58::arith;
use crate::encoding::digits::{self, Digits32};
#[cfg(any(test, fuzzing))]
use crate::hex::Fast;
use crate::uuid::Uuid;

/// Where each digit's bits are: `vpshufb` indices that put the two bytes
/// digit `d` spans into 16-bit lane `d` (`0x80`, a zero byte, outside the
/// UUID), and the multipliers that shift each lane right by its amount.
/// `a` holds digits 0–7 (low lane) and `second`…`second + 7` (high lane),
/// `b` the next eight of each.
#[repr(C, align(32))]
struct Fields {
    index_a: Table,
    index_b: Table,
    mul_a: [u16; 16],
    mul_b: [u16; 16],
}

/// The [`Fields`] of `width`-bit digits whose digit `d` starts at bit
/// `width·d − pad` of the 16 bytes (big-endian; `pad` zero bits stand before
/// bit 0), the high lane starting at digit `second`.
const fn fields(width: i32, pad: i32, second: i32) -> Fields {
    let mut f = Fields {
        index_a: Table([0; 32]),
        index_b: Table([0; 32]),
        mul_a: [0; 16],
        mul_b: [0; 16],
    };
    let mut slot = 0;
    while slot < 32 {
        // slot: which vector (a, b), which lane, which of the eight lanes.
        let (vector, lane, j) = (slot / 16, (slot / 8) % 2, slot % 8);
        let digit = if lane == 0 { 0 } else { second } + vector * 8 + j;
        let start = width * digit - pad;
        let high = start.div_euclid(8);
        // Right shift that brings the digit to the bottom of the 16-bit
        // window: at least 1, so the multiplier fits in 16 bits.
        let shift = 16 - (start - 8 * high) - width;
        let mul = 1u16 << (16 - shift);
        let at = (lane * 8 + j) as usize;
        if vector == 0 {
            f.index_a.0[2 * at] = byte_index(high + 1);
            f.index_a.0[2 * at + 1] = byte_index(high);
            f.mul_a[at] = mul;
        } else {
            f.index_b.0[2 * at] = byte_index(high + 1);
            f.index_b.0[2 * at + 1] = byte_index(high);
            f.mul_b[at] = mul;
        }
        slot += 1;
    }
    f
}

/// Byte `k` of the UUID as a `vpshufb` index; a zero byte outside it.
const fn byte_index(k: i32) -> u8 {
    if k >= 0 && k < 16 { k as u8 } else { 0x80 }
}

/// Crockford's form: 26 digits, the two zero bits in front.
static CROCKFORD_FIELDS: Fields = fields(5, 2, 10);
/// base32hex: 26 digits, the two zero bits at the end.
static HEX_FIELDS: Fields = fields(5, 0, 10);
/// base64url: 22 digits, four zero bits at the end.
static BASE64_FIELDS: Fields = fields(6, 0, 6);

/// A 16-byte table in both lanes.
#[repr(C, align(32))]
struct Table([u8; 32]);

const fn both_lanes(t: &[u8]) -> Table {
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = t[i % 16];
        i += 1;
    }
    Table(out)
}

/// A 32-digit alphabet as its two halves.
struct Alphabet32 {
    low: Table,
    high: Table,
}

const fn alphabet32(digits: &[u8; 32]) -> Alphabet32 {
    let (mut low, mut high) = ([0u8; 16], [0u8; 16]);
    let mut i = 0;
    while i < 16 {
        low[i] = digits[i];
        high[i] = digits[16 + i];
        i += 1;
    }
    Alphabet32 {
        low: both_lanes(&low),
        high: both_lanes(&high),
    }
}

static CROCKFORD_UPPER: Alphabet32 = alphabet32(digits::CROCKFORD_UPPER);
static CROCKFORD_LOWER: Alphabet32 = alphabet32(digits::CROCKFORD_LOWER);
static HEX_UPPER: Alphabet32 = alphabet32(digits::HEX_UPPER);

/// base64url's offset from a value class to its character: class 0 is
/// `a-z` (values 26–51), 1–10 the digits, 11 `-`, 12 `_`, 13 `A-Z`.
static BASE64_OFFSETS: Table = both_lanes(&[
    71, 252, 252, 252, 252, 252, 252, 252, 252, 252, 252, 239, 32, 65, 0, 0,
]);

/// A table in a register.
#[target_feature(enable = "avx2")]
#[inline]
fn load32(t: &Table) -> __m256i {
    // SAFETY: reads the 32 bytes of `t`.
    unsafe { _mm256_load_si256((t as *const Table).cast()) }
}

/// The 16 bytes of `s` from `AT` on (checked at compile time to be inside
/// `s`).
#[inline(always)]
fn window<const N: usize, const AT: usize>(s: &[u8; N]) -> &[u8; 16] {
    const { assert!(AT + 16 <= N) };
    // SAFETY: `AT + 16 <= N`, so the 16 bytes are inside `s`, and a
    // `[u8; 16]` has the alignment of `u8`.
    unsafe { &*s.as_ptr().add(AT).cast::<[u8; 16]>() }
}

/// The UUID's 16 bytes as two words in registers, in memory order.
///
/// The encoders take them so, not as a reference: a UUID is often in memory
/// because it was just stored as two 8-byte words (`from_u128`, the
/// generators, a copy the compiler made), and a 16-byte load of those bytes
/// cannot take its data from the two pending stores; it waits until they
/// reach the cache, which costs more than all the rest of an encoder. The
/// compiler merges two 8-byte loads inside the encoder into one 16-byte
/// load, so the words are read before the call, where it cannot: the
/// functions that call `words` are `inline(always)` for that reason.
#[inline(always)]
pub(crate) fn words(bytes: &[u8; 16]) -> (u64, u64) {
    let (lo, hi) = bytes.split_at(8);
    let word = |h: &[u8]| h.first_chunk::<8>().map_or(0, |w| u64::from_ne_bytes(*w));
    (word(lo), word(hi))
}

/// The digits' values (below `2^width`) of the UUID (`words`), as bytes:
/// the low lane digits 0–15, the high lane digits `second`… (see
/// [`Fields`]).
#[target_feature(enable = "avx2")]
#[inline]
fn values(words: (u64, u64), f: &Fields, mask: i16) -> __m256i {
    let x = _mm256_broadcastsi128_si256(_mm_set_epi64x(words.1 as i64, words.0 as i64));
    let m = _mm256_set1_epi16(mask);
    // The multipliers are read as unknown values: where the compiler
    // knows them, it turns each multiply into a widening, two variable
    // shifts and a narrowing, ten instructions more.
    // SAFETY: each read is of the 32 bytes of a 32-byte-aligned `Fields`
    // field (`Fields` is `align(32)` and its fields are 32 bytes each).
    let (mul_a, mul_b) = unsafe {
        (
            core::ptr::read_volatile(f.mul_a.as_ptr().cast::<__m256i>()),
            core::ptr::read_volatile(f.mul_b.as_ptr().cast::<__m256i>()),
        )
    };
    let a = _mm256_mulhi_epu16(_mm256_shuffle_epi8(x, load32(&f.index_a)), mul_a);
    let b = _mm256_mulhi_epu16(_mm256_shuffle_epi8(x, load32(&f.index_b)), mul_b);
    _mm256_packus_epi16(_mm256_and_si256(a, m), _mm256_and_si256(b, m))
}

/// Writes the low lane of `text` at `out[0..16]` and the high lane at
/// `out[N - 16..N]`.
#[target_feature(enable = "avx2")]
#[inline]
fn store<const N: usize>(text: __m256i, out: &mut [u8; N]) {
    const { assert!(N >= 16 && N <= 32) };
    let (low, high) = (
        _mm256_castsi256_si128(text),
        _mm256_extracti128_si256(text, 1),
    );
    // SAFETY: two 16-byte stores inside `out` (N is 16 to 32), unaligned.
    unsafe {
        _mm_storeu_si128(out.as_mut_ptr().cast(), low);
        _mm_storeu_si128(out.as_mut_ptr().add(N - 16).cast(), high);
    }
}

/// The base32 text of `bytes` in `digits` (upper case but for
/// [`Digits32::CrockfordLower`]).
#[inline(always)]
pub(crate) fn encode_base32(_: Avx2, bytes: &[u8; 16], digits: Digits32, out: &mut [u8; 26]) {
    let (lo, hi) = words(bytes);
    // SAFETY: the token proves AVX2.
    unsafe {
        match digits {
            Digits32::Crockford => encode_base32_avx2::<CROCKFORD>(lo, hi, out),
            Digits32::CrockfordLower => encode_base32_avx2::<CROCKFORD_LOWER_CASE>(lo, hi, out),
            Digits32::Hex => encode_base32_avx2::<HEX>(lo, hi, out),
        }
    }
}

#[target_feature(enable = "avx2")]
fn encode_base32_avx2<const D: u8>(lo: u64, hi: u64, out: &mut [u8; 26]) {
    let (fields, alphabet) = match const { digits_of(D) } {
        Digits32::Crockford => (&CROCKFORD_FIELDS, &CROCKFORD_UPPER),
        Digits32::CrockfordLower => (&CROCKFORD_FIELDS, &CROCKFORD_LOWER),
        Digits32::Hex => (&HEX_FIELDS, &HEX_UPPER),
    };
    let v = values((lo, hi), fields, 31);
    // Values 16–31 have bit 4 set, which the shift makes each byte's top
    // bit, the one `vpblendvb` reads (`vpshufb` uses the low four).
    let text = _mm256_blendv_epi8(
        _mm256_shuffle_epi8(load32(&alphabet.low), v),
        _mm256_shuffle_epi8(load32(&alphabet.high), v),
        _mm256_slli_epi16(v, 3),
    );
    store(text, out);
}

/// The base64url text of `bytes`.
#[inline(always)]
pub(crate) fn encode_base64url(_: Avx2, bytes: &[u8; 16], out: &mut [u8; 22]) {
    let (lo, hi) = words(bytes);
    // SAFETY: the token proves AVX2.
    unsafe { encode_base64url_avx2(lo, hi, out) }
}

#[target_feature(enable = "avx2")]
fn encode_base64url_avx2(lo: u64, hi: u64, out: &mut [u8; 22]) {
    let v = values((lo, hi), &BASE64_FIELDS, 63);
    // The class of each value (see `BASE64_OFFSETS`): 52–63 saturate to
    // 1–12, 26–51 to 0, and 0–25 get 13.
    let class = _mm256_or_si256(
        _mm256_subs_epu8(v, _mm256_set1_epi8(51)),
        _mm256_and_si256(
            _mm256_cmpgt_epi8(_mm256_set1_epi8(26), v),
            _mm256_set1_epi8(13),
        ),
    );
    let text = _mm256_add_epi8(v, _mm256_shuffle_epi8(load32(&BASE64_OFFSETS), class));
    store(text, out);
}

/// The character check of an alphabet: for each low nibble, the set of
/// high nibbles (bit `h` for `h < 8`) that make a valid character.
const fn valid_sets(valid: &[u8]) -> Table {
    let mut sets = [0u8; 16];
    let mut i = 0;
    while i < valid.len() {
        let c = valid[i];
        sets[(c & 15) as usize] |= 1 << (c >> 4);
        i += 1;
    }
    both_lanes(&sets)
}

/// `1 << h` for the high nibbles `h` of ASCII, 0 for the rest.
static HIGH_BITS: Table = both_lanes(&[1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0]);

/// The characters each decoder accepts.
static CROCKFORD_ANY: Table = valid_sets(b"0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz");
static CROCKFORD_LOWER_ONLY: Table = valid_sets(digits::CROCKFORD_LOWER);
static HEX_ANY: Table = valid_sets(b"0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuv");
static BASE64_VALID: Table =
    valid_sets(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");

/// A lane whose top bit is set where `x` is not a character of `valid`,
/// and the high nibbles of `x`.
#[target_feature(enable = "avx2")]
#[inline]
fn invalid(x: __m256i, valid: &Table) -> (__m256i, __m256i) {
    let nibble = _mm256_set1_epi8(15);
    let high = _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble);
    let sets = _mm256_shuffle_epi8(load32(valid), _mm256_and_si256(x, nibble));
    let found = _mm256_and_si256(sets, _mm256_shuffle_epi8(load32(&HIGH_BITS), high));
    (_mm256_cmpeq_epi8(found, _mm256_setzero_si256()), high)
}

/// `low` in the low lane, `high` in the high one.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes(low: &[u8; 16], high: &[u8; 16]) -> __m256i {
    // SAFETY: each load reads the 16 bytes of its array, unaligned.
    let (low, high) = unsafe {
        (
            _mm_loadu_si128(low.as_ptr().cast()),
            _mm_loadu_si128(high.as_ptr().cast()),
        )
    };
    _mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1)
}

/// A 22-character text in a register: `s[0..16]` in the low lane and
/// `s[6..22]` in the high one, rearranged by `shift` (`vpshufb` indices) and
/// OR-ed with `fill` (characters for the lanes `shift` zeroes).
#[target_feature(enable = "avx2")]
#[inline]
fn load_22(s: &[u8; 22], shift: &Table, fill: &Table) -> __m256i {
    let x = lanes(window::<22, 0>(s), window::<22, 6>(s));
    _mm256_or_si256(_mm256_shuffle_epi8(x, load32(shift)), load32(fill))
}

/// The 16 bytes of a 26-digit base32 text in `digits` as a [`Fast`] value
/// (for the tests), or [`FAILED`](crate::hex::FAILED) if a
/// character is not one `digits` accepts (either case, but for
/// [`Digits32::CrockfordLower`]: lower case only) or the two digits at the
/// edge (see [`Digits32::edge_byte`]) are not valid there.
#[cfg(any(test, fuzzing))]
pub(crate) fn decode_base32(t: Avx2, s: &[u8; 26], digits: Digits32) -> Fast {
    let mut bytes = [0u8; 16];
    match decode_base32_into(t, s, digits, &mut bytes) {
        true => Fast::from_ne_bytes(bytes),
        false => crate::hex::FAILED,
    }
}

/// As [`decode_base32`], the UUID as a value: the bytes come back in a
/// vector register and leave it with one 16-byte store (see
/// [`uuid_from_vector`]); `None` for an invalid text and for the Max UUID's
/// (the caller's portable decoder tells them apart).
///
/// The decoder has two shapes, this one and [`decode_base32_into`] (which
/// stores the bytes itself and returns only the outcome); each caller uses
/// the one that is faster for it (benchmarks/short-encodings.md).
#[inline(always)]
pub(crate) fn decode_base32_uuid(_: Avx2, s: &[u8; 26], digits: Digits32) -> Option<Uuid> {
    // SAFETY: the token proves AVX2.
    let x = unsafe {
        match digits {
            Digits32::Crockford => decode_base32_vector::<CROCKFORD>(s),
            Digits32::CrockfordLower => decode_base32_vector::<CROCKFORD_LOWER_CASE>(s),
            Digits32::Hex => decode_base32_vector::<HEX>(s),
        }
    };
    uuid_from_vector(x)
}

/// The UUID whose bytes `x` holds, written with one 16-byte store (a
/// caller that copies the result in 16-byte pieces takes it straight from
/// that store, which it could not from two 8-byte ones); `None` if `x` is
/// all ones (a failure, or the Max UUID).
#[inline(always)]
fn uuid_from_vector(x: __m128i) -> Option<Uuid> {
    // SAFETY: SSE2 (the x86_64 baseline); the store writes the 16 bytes of
    // `bytes`.
    unsafe {
        if _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(-1))) == 0xffff {
            return None;
        }
        let mut bytes = [0u8; 16];
        _mm_storeu_si128(bytes.as_mut_ptr().cast(), x);
        Some(Uuid::from_bytes(bytes))
    }
}

/// Writes the 16 bytes of a 26-digit base32 text into `out` and returns
/// `true`, or returns `false` (writing nothing) if it is not one. The
/// outcome comes back apart from the bytes, so no value of the bytes is a
/// sentinel.
#[inline(always)]
pub(crate) fn decode_base32_into(
    _: Avx2,
    s: &[u8; 26],
    digits: Digits32,
    out: &mut [u8; 16],
) -> bool {
    // SAFETY: the token proves AVX2.
    unsafe {
        match digits {
            Digits32::Crockford => decode_base32_store::<CROCKFORD>(s, out),
            Digits32::CrockfordLower => decode_base32_store::<CROCKFORD_LOWER_CASE>(s, out),
            Digits32::Hex => decode_base32_store::<HEX>(s, out),
        }
    }
}

/// [`decode_base32_avx2`], all ones if the text is not valid.
#[target_feature(enable = "avx2")]
fn decode_base32_vector<const D: u8>(s: &[u8; 26]) -> __m128i {
    decode_base32_avx2::<D>(s).unwrap_or(_mm_set1_epi8(-1))
}

/// [`decode_base32_avx2`], stored into `out`; `false` if the text is
/// not valid.
#[target_feature(enable = "avx2")]
fn decode_base32_store<const D: u8>(s: &[u8; 26], out: &mut [u8; 16]) -> bool {
    match decode_base32_avx2::<D>(s) {
        Some(x) => {
            // SAFETY: the store writes the 16 bytes of `out`, unaligned.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
            true
        }
        None => false,
    }
}

/// [`Digits32`] as const parameters, so that each alphabet gets its own
/// copy of a function, with no run-time choices in it.
const CROCKFORD: u8 = 0;
const CROCKFORD_LOWER_CASE: u8 = 1;
const HEX: u8 = 2;

const fn digits_of(d: u8) -> Digits32 {
    match d {
        CROCKFORD => Digits32::Crockford,
        CROCKFORD_LOWER_CASE => Digits32::CrockfordLower,
        _ => Digits32::Hex,
    }
}

/// Where the bytes form's 40-bit groups' bytes go (each group
/// little-endian in its 64-bit lane): the low lane's two groups to bytes
/// 0–9, the high lane's second group to bytes 10–14, in text order (its
/// last byte is the edge byte, inserted apart).
static HEX_BYTES: Table = {
    let mut t = [0x80u8; 32];
    let mut i = 0;
    while i < 5 {
        t[i] = 4 - i as u8;
        t[5 + i] = 12 - i as u8;
        t[16 + 10 + i] = 12 - i as u8;
        i += 1;
    }
    Table(t)
};

/// The number form whole: the low lane holds six `0`s and `s[0..10]` (the
/// first two digits, which make byte 0, then one group of eight), the high
/// lane `s[10..26]` (two groups).
static NUMBER_SHIFT: Table = Table([
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, //
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
]);
static NUMBER_FILL: Table = Table([
    b'0', b'0', b'0', b'0', b'0', b'0', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]);
/// Where the number form's groups' bytes go (each group little-endian in
/// its 64-bit lane): the first two digits' value to byte 0, the low lane's
/// group to bytes 1–5, the high lane's two to bytes 6–10 and 11–15.
static NUMBER_BYTES: Table = {
    let mut t = [0x80u8; 32];
    t[0] = 0;
    let mut i = 0;
    while i < 5 {
        t[1 + i] = 12 - i as u8;
        t[16 + 6 + i] = 4 - i as u8;
        t[16 + 11 + i] = 12 - i as u8;
        i += 1;
    }
    Table(t)
};

/// The 16 bytes of a 26-digit base32 text in `digits` (`D`), or `None` if
/// it is not one.
#[target_feature(enable = "avx2")]
#[inline]
fn decode_base32_avx2<const D: u8>(s: &[u8; 26]) -> Option<__m128i> {
    let digits = const { digits_of(D) };
    let (valid, places) = match digits {
        Digits32::Crockford => (&CROCKFORD_ANY, &NUMBER_BYTES),
        Digits32::CrockfordLower => (&CROCKFORD_LOWER_ONLY, &NUMBER_BYTES),
        Digits32::Hex => (&HEX_ANY, &HEX_BYTES),
    };
    // The number form is read whole (see `NUMBER_SHIFT`), its first digit
    // checked here to be at most 7; the bytes form's last two digits, which
    // make its last byte with two padding bits, are read apart.
    let edge = match digits {
        Digits32::Hex => digits.edge_byte(s),
        _ => (s[0].wrapping_sub(b'0') < 8).then_some(0),
    };
    let x = match digits {
        Digits32::Hex => {
            let run = digits.run(s);
            lanes(window::<24, 0>(run), window::<24, 8>(run))
        }
        _ => {
            let x = lanes(window::<26, 0>(s), window::<26, 10>(s));
            _mm256_or_si256(
                _mm256_shuffle_epi8(x, load32(&NUMBER_SHIFT)),
                load32(&NUMBER_FILL),
            )
        }
    };
    let (bad, _) = invalid(x, valid);
    // Lower case to upper (only valid letters matter here), unless only
    // lower case is valid: then the letters' thresholds are lower case.
    let (u, case) = match digits {
        Digits32::CrockfordLower => (x, 0x20),
        _ => {
            let lower = _mm256_cmpgt_epi8(x, _mm256_set1_epi8(0x5f));
            (
                _mm256_sub_epi8(x, _mm256_and_si256(lower, _mm256_set1_epi8(0x20))),
                0,
            )
        }
    };
    let above = |c: u8| _mm256_cmpgt_epi8(u, _mm256_set1_epi8((c | case) as i8));
    // `'0' + v` below 10, then letters from `A` (or `a`) = 10; Crockford
    // skips I, L, O and U, each one more past its place. (A compare is
    // −1.)
    let mut v = _mm256_add_epi8(
        _mm256_sub_epi8(u, _mm256_set1_epi8(b'0' as i8)),
        _mm256_and_si256(
            _mm256_cmpgt_epi8(u, _mm256_set1_epi8(b'9' as i8)),
            _mm256_set1_epi8(-7 - case as i8),
        ),
    );
    if digits != Digits32::Hex {
        let skipped = _mm256_add_epi8(
            _mm256_add_epi8(above(b'I'), above(b'L')),
            _mm256_add_epi8(above(b'O'), above(b'U')),
        );
        v = _mm256_add_epi8(v, skipped);
    }
    // Pairs of digits (10 bits), then fours (20 bits), then eights (40
    // bits, one per 64-bit lane).
    let pairs = _mm256_maddubs_epi16(v, _mm256_set1_epi16(0x0120));
    let fours = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x0001_0400));
    let eights = _mm256_or_si256(
        _mm256_slli_epi64(_mm256_and_si256(fours, _mm256_set1_epi64x(0xf_ffff)), 20),
        _mm256_srli_epi64(fours, 32),
    );
    let placed = _mm256_shuffle_epi8(eights, load32(places));
    let run = _mm_or_si128(
        _mm256_castsi256_si128(placed),
        _mm256_extracti128_si256(placed, 1),
    );
    let edge = match edge {
        Some(e) if _mm256_movemask_epi8(bad) == 0 => e,
        _ => return None,
    };
    Some(match digits {
        Digits32::Hex => _mm_insert_epi8(run, i32::from(edge), 15),
        _ => run,
    })
}

/// The 16 bytes of a base64url text as a [`Fast`] value (for the tests), or
/// [`FAILED`](crate::hex::FAILED) if a
/// character is not in the alphabet or the last one's four padding bits
/// are not zero.
#[cfg(any(test, fuzzing))]
pub(crate) fn decode_base64url(_: Avx2, s: &[u8; 22]) -> Fast {
    // SAFETY: the token proves AVX2; same size, every bit pattern valid.
    unsafe { core::mem::transmute::<__m128i, Fast>(decode_base64url_avx2(s)) }
}

/// As [`decode_base64url`], the UUID as a value (see
/// [`decode_base32_uuid`]).
#[inline]
pub(crate) fn decode_base64url_uuid(_: Avx2, s: &[u8; 22]) -> Option<Uuid> {
    // SAFETY: the token proves AVX2.
    uuid_from_vector(unsafe { decode_base64url_avx2(s) })
}

/// The high lane's characters: `s[8..22]` from a load of `s[6..22]`, then
/// two `A`s (value 0) for a whole fourth group.
static BASE64_SHIFT: Table = Table([
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, //
    2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0x80, 0x80,
]);
static BASE64_FILL: Table = Table([
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b'A', b'A',
]);
/// The padding bits of the last character (`s[21]`, high lane byte 13).
static BASE64_PADDING: Table = Table([
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 0, 0,
]);
/// By high nibble, what to add to a character for its value (`_`, in the
/// row of `P-Z`, gets 33 more).
static BASE64_VALUES: Table =
    both_lanes(&[0, 0, 17, 4, 191, 191, 185, 185, 0, 0, 0, 0, 0, 0, 0, 0]);
/// Each group of four values (24 bits, little-endian in its 32-bit lane)
/// as three bytes in text order: the low lane's groups give bytes 0–11, the
/// high lane's third group bytes 12–14 and its fourth byte 15.
static BASE64_BYTES: Table = Table([
    2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, 0x80, 0x80, 0x80, 0x80, //
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 10, 9, 8, 14,
]);

#[target_feature(enable = "avx2")]
fn decode_base64url_avx2(s: &[u8; 22]) -> __m128i {
    let x = load_22(s, &BASE64_SHIFT, &BASE64_FILL);
    let (bad, high) = invalid(x, &BASE64_VALID);
    let underscore = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'_' as i8));
    let v = _mm256_add_epi8(
        _mm256_add_epi8(x, _mm256_shuffle_epi8(load32(&BASE64_VALUES), high)),
        _mm256_and_si256(underscore, _mm256_set1_epi8(33)),
    );
    let padding = _mm256_and_si256(v, load32(&BASE64_PADDING));
    let padding_bad = _mm256_cmpgt_epi8(padding, _mm256_setzero_si256());
    if _mm256_movemask_epi8(_mm256_or_si256(bad, padding_bad)) != 0 {
        return _mm_set1_epi8(-1);
    }
    let pairs = _mm256_maddubs_epi16(v, _mm256_set1_epi16(0x0140));
    let groups = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x0001_1000));
    let bytes = _mm256_shuffle_epi8(groups, load32(&BASE64_BYTES));
    _mm_or_si128(
        _mm256_castsi256_si128(bytes),
        _mm256_extracti128_si256(bytes, 1),
    )
}

/// The values of a base58 text's digit groups: the first two digits, then
/// five groups of four; `None` if a character is not a digit.
#[cfg(any(test, fuzzing))]
pub(crate) fn base58_groups(_: Avx2, s: &[u8; 22]) -> Option<[u32; 6]> {
    // SAFETY: the token proves AVX2; same size, every bit pattern valid.
    let g = unsafe { core::mem::transmute::<__m256i, [u32; 8]>(base58_groups_vector(s)?) };
    // The first six digits are `s[0..4]` and `s[4..6]` here, `s[0..2]` and
    // `s[2..6]` there.
    let pair = 58 * 58;
    Some([
        g[0] / pair,
        g[0] % pair * pair + g[1],
        g[4],
        g[5],
        g[6],
        g[7],
    ])
}

/// The UUID of a base58 text (see `arch::decode_base58`): the groups are
/// paired in the vector unit, the three pairs joined in registers, and the
/// bytes written with one store.
#[inline]
pub(crate) fn decode_base58(_: Avx2, s: &[u8; 22], out: &mut [u8; 16]) -> Result<(), bool> {
    // SAFETY: the token proves AVX2.
    unsafe { decode_base58_avx2(s, out) }
}

#[target_feature(enable = "avx2")]
fn decode_base58_avx2(s: &[u8; 22], out: &mut [u8; 16]) -> Result<(), bool> {
    let g = base58_groups_vector(s).ok_or(true)?;
    // Each 64-bit lane: its even group times the odd one's weight, plus
    // the odd group: the first six digits (`s[4..6]` weighs 58²), then
    // two groups of eight (58^4). Lane 1 is not used.
    let group = arith::GROUP as i64;
    let weight = _mm256_set_epi64x(group, group, 0, 58 * 58);
    let pairs = _mm256_add_epi64(_mm256_mul_epu32(g, weight), _mm256_srli_epi64(g, 32));
    let high = _mm256_extracti128_si256(pairs, 1);
    let a = _mm_cvtsi128_si64(_mm256_castsi256_si128(pairs)) as u64;
    let (b, c) = (
        _mm_cvtsi128_si64(high) as u64,
        _mm_extract_epi64(high, 1) as u64,
    );
    let v = arith::join(a, b, c).ok_or(false)?;
    super::store_16(
        out,
        ((v >> 64) as u64).swap_bytes(),
        (v as u64).swap_bytes(),
    );
    Ok(())
}

static BASE58_VALID: Table =
    valid_sets(b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz");
/// The digit weights of a base58 text loaded as `s[0..16]` (low lane) and
/// `s[6..22]` (high lane): pairs of digits by `vpmaddubsw` (58, 1), then
/// pairs of pairs by `vpmaddwd` (58², 1), so each 32-bit lane holds four
/// digits' value; but the low lane's second lane takes only `s[4..6]`
/// (weights 0 for `s[6..8]`, which the high lane holds, and 1 for the pair),
/// so that the low lane's first 64 bits hold the first six digits as
/// `s[0..4]` and `s[4..6]`. The low lane's last eight bytes are the high
/// lane's too, and are not used there.
static BASE58_DIGIT_WEIGHTS: Table = Table([
    58, 1, 58, 1, 58, 1, 0, 0, 58, 1, 58, 1, 58, 1, 58, 1, //
    58, 1, 58, 1, 58, 1, 58, 1, 58, 1, 58, 1, 58, 1, 58, 1,
]);
/// See [`BASE58_DIGIT_WEIGHTS`]; little-endian 16-bit weights.
static BASE58_PAIR_WEIGHTS: Table = {
    const P: [u8; 2] = (58u16 * 58).to_le_bytes();
    Table([
        P[0], P[1], 1, 0, 1, 0, 0, 0, P[0], P[1], 1, 0, P[0], P[1], 1, 0, //
        P[0], P[1], 1, 0, P[0], P[1], 1, 0, P[0], P[1], 1, 0, P[0], P[1], 1, 0,
    ])
};

/// The digit groups of a base58 text in 32-bit lanes (see
/// [`BASE58_DIGIT_WEIGHTS`]): `s[0..4]`, `s[4..6]`, two unused, then
/// `s[6..10]`, `s[10..14]`, `s[14..18]`, `s[18..22]`; or `None` if a character
/// is not a digit.
#[target_feature(enable = "avx2")]
#[inline]
fn base58_groups_vector(s: &[u8; 22]) -> Option<__m256i> {
    let x = lanes(window::<22, 0>(s), window::<22, 6>(s));
    let (bad, _) = invalid(x, &BASE58_VALID);
    if _mm256_movemask_epi8(bad) != 0 {
        return None;
    }
    // `'1'` is 0; each skipped run of ASCII (`:`–`@`, `I`, `O`, `[`–`` ` ``,
    // `l`) lowers what follows. (A compare is −1.)
    let above = |c: u8| _mm256_cmpgt_epi8(x, _mm256_set1_epi8(c as i8));
    let v = _mm256_add_epi8(
        _mm256_add_epi8(
            _mm256_sub_epi8(x, _mm256_set1_epi8(b'1' as i8)),
            _mm256_and_si256(above(b'9'), _mm256_set1_epi8(-7)),
        ),
        _mm256_add_epi8(
            _mm256_add_epi8(above(b'H'), above(b'N')),
            _mm256_add_epi8(
                _mm256_and_si256(above(b'Z'), _mm256_set1_epi8(-6)),
                above(b'k'),
            ),
        ),
    );
    // Pairs (below 58^2), then groups of four (below 58^4).
    let pairs = _mm256_maddubs_epi16(v, load32(&BASE58_DIGIT_WEIGHTS));
    Some(_mm256_madd_epi16(pairs, load32(&BASE58_PAIR_WEIGHTS)))
}

#[cfg(test)]
mod tests {
    use super::super::cpu;
    use super::*;
    use crate::check::sweep;

    /// The AVX2 token, or the skip recorded (a failure under CI).
    fn token(test: &str) -> Option<Avx2> {
        cpu::require(
            &std::format!("arch::x86_64::short::tests::{test}"),
            "avx2",
            cpu::avx2_uncapped(),
        )
    }

    #[test]
    fn base32_encoder_agrees_with_the_portable_one_and_writes_only_26_bytes() {
        let Some(t) = token("base32_encoder_agrees_with_the_portable_one_and_writes_only_26_bytes")
        else {
            return;
        };
        sweep::check_base32_encoder(|b, digits, out| encode_base32(t, b, digits, out));
    }

    #[test]
    fn base64url_encoder_agrees_with_the_portable_one_and_writes_only_22_bytes() {
        let Some(t) =
            token("base64url_encoder_agrees_with_the_portable_one_and_writes_only_22_bytes")
        else {
            return;
        };
        sweep::check_base64url_encoder(|b, out| encode_base64url(t, b, out));
    }

    #[test]
    fn base32_decoder_agrees_with_the_portable_one_on_every_byte_in_every_lane() {
        let Some(t) =
            token("base32_decoder_agrees_with_the_portable_one_on_every_byte_in_every_lane")
        else {
            return;
        };
        sweep::check_base32_decoder(|s, digits| decode_base32(t, s, digits));
    }

    #[test]
    fn base64url_decoder_agrees_with_the_portable_one_on_every_byte_in_every_lane() {
        let Some(t) =
            token("base64url_decoder_agrees_with_the_portable_one_on_every_byte_in_every_lane")
        else {
            return;
        };
        sweep::check_base64url_decoder(|s| decode_base64url(t, s));
    }

    #[test]
    fn base58_groups_agree_with_the_portable_ones_on_every_byte_in_every_lane() {
        let Some(t) =
            token("base58_groups_agree_with_the_portable_ones_on_every_byte_in_every_lane")
        else {
            return;
        };
        sweep::check_base58_groups(|s| base58_groups(t, s));
    }
}
