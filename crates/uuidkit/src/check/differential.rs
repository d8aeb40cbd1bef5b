//! Differential checks: every vector path this CPU can run against the
//! portable reference, on arbitrary bytes, at three levels: the kernel
//! itself, `arch`'s dispatch, and the public operation that uses it. Each
//! function panics when a path disagrees with the reference.
//!
//! The fuzz targets `simd_text`, `simd_bits` and `encodings`
//! (`crates/uuidkit/fuzz`) call these as `uuidkit::__differential`, which
//! exists only in builds with `--cfg fuzzing` (cargo-fuzz sets it); the unit
//! tests below run them on fixed inputs.

use std::vec::Vec;

#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{cpu, decode, encode, lines as bulk, short};
use crate::encoding::TypeId;
use crate::encoding::digits::Digits32;
use crate::encoding::{base32, base58, base64, typeid};
use crate::fmt::{encode32_scalar, lines_scalar, place_hyphens};
use crate::hex::LINE;
use crate::parse::{decode_hyphenated_scalar, decode32_scalar, to_fast};
use crate::{Hyphenated, Uuid};

/// `N` bytes from the start of `data`, padded with `pad`.
fn take<const N: usize>(data: &[u8], pad: u8) -> [u8; N] {
    let mut out = [pad; N];
    for (o, d) in out.iter_mut().zip(data) {
        *o = *d;
    }
    out
}

/// `s` made mostly valid: every byte whose top four bits are not all set
/// becomes a hex digit (or, at a hyphen position of the hyphenated form,
/// a hyphen), so that the decoders' success paths are reached as often as
/// their failure paths.
fn repaired<const N: usize>(mut s: [u8; N]) -> [u8; N] {
    const DIGITS: &[u8; 22] = b"0123456789abcdefABCDEF";
    for (i, b) in s.iter_mut().enumerate() {
        if *b & 0xf0 != 0xf0 {
            let hyphen = N == 36 && matches!(i, 8 | 13 | 18 | 23);
            *b = if hyphen {
                b'-'
            } else {
                DIGITS[usize::from(*b) % DIGITS.len()]
            };
        }
    }
    s
}

/// The decoders of the hyphenated form and of 32 hex digits, on the start of
/// `data` as it is and repaired towards valid input, and the public parser
/// on the same text.
pub fn decode(data: &[u8]) {
    let raw: [u8; 36] = take(data, b'0');
    for s in [raw, repaired(raw)] {
        let expected = decode_hyphenated_scalar(&s);
        let mut out = [0u8; 16];
        if let Some(valid) = crate::arch::decode_hyphenated(&s, &mut out) {
            assert_eq!(valid.then_some(out), expected, "dispatched: {s:?}");
        }
        let public = expected.map(Uuid::from_bytes);
        assert_eq!(Uuid::parse(&s).ok(), public, "Uuid::parse: {s:?}");
        assert_eq!(Uuid::parse_strict(&s).ok(), public, "parse_strict: {s:?}");
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(decode::sse2::hyphenated(&s), expected, "SSE2: {s:?}");
            if let Some(t) = cpu::avx2() {
                let valid = decode::avx2::hyphenated(t, &s, &mut out);
                assert_eq!(valid.then_some(out), expected, "AVX2: {s:?}");
            }
        }
    }
    let raw: [u8; 32] = take(data, b'0');
    for d in [raw, repaired(raw)] {
        let expected = decode32_scalar(&d);
        let mut out = [0u8; 16];
        if let Some(valid) = crate::arch::decode_simple(&d, &mut out) {
            assert_eq!(valid.then_some(out), expected, "dispatched: {d:?}");
        }
        let public = expected.map(Uuid::from_bytes);
        assert_eq!(Uuid::parse(&d).ok(), public, "Uuid::parse: {d:?}");
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(decode::sse2::decode32(&d), expected, "SSE2: {d:?}");
            if let Some(t) = cpu::avx2() {
                let valid = decode::avx2::simple(t, &d, &mut out);
                assert_eq!(valid.then_some(out), expected, "AVX2: {d:?}");
            }
        }
    }
}

/// The encoders, on the first 16 bytes of `data`; the 17th chooses the case.
pub fn encode(data: &[u8]) {
    let bytes: [u8; 16] = take(data, 0);
    let upper = data.get(16).is_some_and(|b| b & 1 == 1);
    let digits = encode32_scalar(&bytes, upper);
    let mut expected = [0u8; 36];
    place_hyphens(&digits, &mut expected);
    if let Some(got) = crate::arch::encode32(&bytes, upper) {
        assert_eq!(got, digits, "dispatched: {bytes:02x?}");
    }
    let mut text = [0u8; 36];
    if crate::arch::encode_hyphenated(&bytes, upper, &mut text) {
        assert_eq!(text, expected, "dispatched: {bytes:02x?}");
    }
    let mut text = [0u8; 36];
    if crate::arch::encode_hyphenated_wide(&bytes, upper, &mut text) {
        assert_eq!(text, expected, "dispatched, wide: {bytes:02x?}");
    }
    let u = Uuid::from_bytes(bytes);
    let mut buf = [0u8; 36];
    let text = match upper {
        true => u.hyphenated().encode_upper(&mut buf),
        false => u.hyphenated().encode_lower(&mut buf),
    };
    assert_eq!(text.as_bytes(), &expected, "encode_*: {bytes:02x?}");
    let shown = match upper {
        true => std::format!("{u:X}"),
        false => std::format!("{u}"),
    };
    assert_eq!(shown.as_bytes(), &expected, "Display: {bytes:02x?}");
    #[cfg(target_arch = "x86_64")]
    {
        assert_eq!(
            encode::sse2::encode32(&bytes, upper),
            digits,
            "SSE2: {bytes:02x?}"
        );
        let mut text = [0u8; 36];
        encode::sse2::hyphenated(&bytes, upper, &mut text);
        assert_eq!(text, expected, "SSE2: {bytes:02x?}");
        if let Some(t) = cpu::avx2() {
            encode::avx2::hyphenated(t, &bytes, upper, &mut text);
            assert_eq!(text, expected, "AVX2: {bytes:02x?}");
        }
    }
}

/// `s` made mostly valid for `alphabet`: every byte whose top four bits are
/// not all set becomes one of its characters.
fn repaired_to<const N: usize>(mut s: [u8; N], alphabet: &[u8]) -> [u8; N] {
    for b in &mut s {
        if *b & 0xf0 != 0xf0 {
            *b = alphabet[usize::from(*b) % alphabet.len()];
        }
    }
    s
}

/// The short encodings' vector paths against the portable code: the
/// encoders on the first 16 bytes of `data` (base58's, and its portable
/// one, also against the repeated-division reference), the decoders on its
/// start as it is and repaired towards each alphabet.
pub fn short(data: &[u8]) {
    let bytes: [u8; 16] = take(data, 0);
    for digits in Digits32::ALL {
        base32_encoders(&bytes, digits);
        let raw: [u8; 26] = take(data, b'0');
        for s in [raw, repaired_to(raw, BASE32_ANY)] {
            base32_decoders(&s, digits);
        }
    }
    base64url_encoders(&bytes);
    let raw: [u8; 22] = take(data, b'A');
    for s in [raw, repaired_to(raw, BASE64URL)] {
        base64url_decoders(&s);
    }
    base58_encoders(u128::from_be_bytes(bytes));
    let raw: [u8; 22] = take(data, b'1');
    for s in [raw, repaired_to(raw, BASE58)] {
        base58_decoders(&s);
    }
    let lo = u64::from_le_bytes(take(data, b'a'));
    let hi = u64::from_le_bytes(take(data.get(8..).unwrap_or_default(), b'a'));
    if let Some(got) = crate::arch::prefix_classes(lo, hi) {
        let portable = typeid::prefix_classes_portable(lo, hi);
        assert_eq!(got, portable, "prefix: {lo:#x} {hi:#x}");
    }
}

/// Every character any base32 decoder accepts.
const BASE32_ANY: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// The base64url alphabet.
const BASE64URL: &[u8] = crate::encoding::digits::BASE64URL;
/// The base58 alphabet.
const BASE58: &[u8] = crate::encoding::digits::BASE58;

/// The base32 encoders of `digits` (dispatched, AVX2, public) against the
/// portable one.
fn base32_encoders(bytes: &[u8; 16], digits: Digits32) {
    let mut expected = [0u8; 26];
    base32::encode_portable(bytes, digits, &mut expected);
    let mut text = [0u8; 26];
    if crate::arch::encode_base32(bytes, digits, &mut text) {
        assert_eq!(text, expected, "dispatched, {digits:?}: {bytes:02x?}");
    }
    let u = Uuid::from_bytes(*bytes);
    let public = match digits {
        Digits32::Crockford => u.base32().encode(&mut text),
        Digits32::CrockfordLower => u.base32().encode_lower(&mut text),
        Digits32::Hex => u.base32hex().encode(&mut text),
    };
    assert_eq!(
        public.as_bytes(),
        &expected,
        "public, {digits:?}: {bytes:02x?}"
    );
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = cpu::avx2() {
        short::encode_base32(t, bytes, digits, &mut text);
        assert_eq!(text, expected, "AVX2, {digits:?}: {bytes:02x?}");
    }
}

/// The base32 decoders of `digits` (dispatched, AVX2, public) against the
/// portable one.
fn base32_decoders(s: &[u8; 26], digits: Digits32) {
    let portable = base32::decode_portable(s, digits);
    if let Some(u) = crate::arch::decode_base32(s, digits) {
        assert_eq!(
            Some(*u.as_bytes()),
            portable,
            "dispatched, {digits:?}: {s:?}"
        );
    }
    let mut bytes = [0u8; 16];
    if crate::arch::decode_base32_into(s, digits, &mut bytes) {
        assert_eq!(
            Some(bytes),
            portable,
            "dispatched (into), {digits:?}: {s:?}"
        );
    }
    let public = match digits {
        Digits32::Crockford => Uuid::parse_base32(s).ok(),
        Digits32::CrockfordLower => TypeId::parse(s).ok().map(|id| id.uuid()),
        Digits32::Hex => Uuid::parse_base32hex(s).ok(),
    };
    assert_eq!(
        public,
        portable.map(Uuid::from_bytes),
        "public, {digits:?}: {s:?}"
    );
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = cpu::avx2() {
        let avx2 = short::decode_base32(t, s, digits);
        assert_eq!(avx2, to_fast(portable), "AVX2, {digits:?}: {s:?}");
    }
}

/// The base64url encoders (dispatched, AVX2, public) against the portable
/// one.
fn base64url_encoders(bytes: &[u8; 16]) {
    let mut expected = [0u8; 22];
    base64::encode_portable(bytes, &mut expected);
    let mut text = [0u8; 22];
    if crate::arch::encode_base64url(bytes, &mut text) {
        assert_eq!(text, expected, "dispatched: {bytes:02x?}");
    }
    let public = Uuid::from_bytes(*bytes).base64url();
    assert_eq!(
        public.encode(&mut text).as_bytes(),
        &expected,
        "public: {bytes:02x?}"
    );
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = cpu::avx2() {
        short::encode_base64url(t, bytes, &mut text);
        assert_eq!(text, expected, "AVX2: {bytes:02x?}");
    }
}

/// The base64url decoders (dispatched, AVX2, public) against the portable
/// one.
fn base64url_decoders(s: &[u8; 22]) {
    let portable = base64::decode_portable(s);
    if let Some(u) = crate::arch::decode_base64url(s) {
        assert_eq!(Some(*u.as_bytes()), portable, "dispatched: {s:?}");
    }
    let public = Uuid::parse_base64url(s).ok();
    assert_eq!(public, portable.map(Uuid::from_bytes), "public: {s:?}");
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = cpu::avx2() {
        let avx2 = short::decode_base64url(t, s);
        assert_eq!(avx2, to_fast(portable), "AVX2: {s:?}");
    }
}

/// The base58 decoders (dispatched, AVX2, public) and the AVX2 digit
/// groups against the portable ones.
fn base58_decoders(s: &[u8; 22]) {
    let mut want = [0u8; 16];
    let outcome = base58::decode_portable(s, &mut want).map(|()| want);
    let mut got = [0u8; 16];
    if crate::arch::decode_base58(s, &mut got) {
        assert_eq!(Ok(got), outcome, "dispatched: {s:?}");
    }
    let public = Uuid::parse_base58(s).ok();
    assert_eq!(public, outcome.ok().map(Uuid::from_bytes), "public: {s:?}");
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = cpu::avx2() {
        let groups = short::base58_groups(t, s);
        assert_eq!(groups, base58::groups_portable(s), "AVX2 groups: {s:?}");
        let avx2 = short::decode_base58(t, s, &mut got).map(|()| got);
        assert_eq!(avx2, outcome, "AVX2: {s:?}");
    }
}

/// The base58 encoders (portable, dispatched, public, AVX2) against the
/// reference on `v`.
fn base58_encoders(v: u128) {
    let expected = base58_reference::<22>(v);
    let mut text = [0u8; 22];
    base58::encode_portable(v, &mut text);
    assert_eq!(text, expected, "portable: {v:#x}");
    text = [0; 22];
    if crate::arch::encode_base58(v, &mut text) {
        assert_eq!(text, expected, "dispatched: {v:#x}");
    }
    let public = Uuid::from_u128(v).base58();
    assert_eq!(
        public.encode(&mut text).as_bytes(),
        &expected,
        "public: {v:#x}"
    );
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = cpu::avx2() {
        crate::arch::x86_64::base58::encode(t, v, &mut text);
        assert_eq!(text, expected, "AVX2: {v:#x}");
    }
}

/// `v` as `N` base58 digits (22 for a UUID) by repeated `u128` division:
/// the reference that owes nothing to the encoders' arithmetic.
///
/// # Panics
/// If `v` has more than `N` digits.
pub(crate) fn base58_reference<const N: usize>(v: u128) -> [u8; N] {
    let mut out = [0u8; N];
    let mut x = v;
    for o in out.iter_mut().rev() {
        *o = BASE58[(x % 58) as usize];
        x /= 58;
    }
    assert_eq!(x, 0, "{v} has more than {N} digits");
    out
}

/// The line encoders, on `data` read as up to 48 UUIDs; a last odd byte
/// chooses the case.
pub fn lines(data: &[u8]) {
    let uuids: Vec<Uuid> = data
        .chunks_exact(16)
        .take(48)
        .map(|c| Uuid::from_bytes(take(c, 0)))
        .collect();
    let upper = data.len() % 16 == 1 && data.last().is_some_and(|b| b & 1 == 1);
    let mut expected = std::vec![0u8; LINE * uuids.len()];
    lines_scalar(&uuids, &mut expected, upper);
    let mut text = std::vec![0u8; LINE * uuids.len()];
    let done = crate::arch::encode_lines(&uuids, &mut text, upper);
    assert_eq!(text[..LINE * done], expected[..LINE * done], "dispatched");
    let written = match upper {
        true => Hyphenated::encode_lines_upper(&uuids, &mut text),
        false => Hyphenated::encode_lines_lower(&uuids, &mut text),
    };
    assert_eq!(written.as_bytes(), &expected[..], "public");
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = cpu::avx2() {
        text.fill(0);
        let done = bulk::avx2(t, &uuids, &mut text, upper);
        assert_eq!(
            done,
            uuids.len() / bulk::PERIOD * bulk::PERIOD,
            "whole periods"
        );
        assert_eq!(text[..LINE * done], expected[..LINE * done], "AVX2");
    }
}

/// ChaCha12 groups, the key from the first 32 bytes of `data` and the block
/// counter from the next 8.
#[cfg(feature = "std")]
pub fn chacha(data: &[u8]) {
    use crate::chacha::{GROUP, group_scalar, interleaved};
    let seed: [u8; 40] = take(data, 0);
    let mut key = [0u32; 8];
    for (k, c) in key.iter_mut().zip(seed.chunks_exact(4)) {
        *k = u32::from_le_bytes(take(c, 0));
    }
    let counter = u64::from_le_bytes(take(&seed[32..], 0));
    let mut plain = [0u8; GROUP];
    group_scalar(&key, counter, &mut plain);
    let mut out = [0u8; GROUP];
    let done = crate::arch::chacha_group(&key, counter, &mut out);
    assert_eq!(
        done,
        cfg!(target_arch = "x86_64"),
        "vector lanes on x86_64 only"
    );
    #[cfg(target_arch = "x86_64")]
    {
        use crate::arch::x86_64::chacha as lanes;
        let widest = if cpu::avx2().is_some() { 8 } else { 4 };
        assert_eq!(out, interleaved(&plain, widest), "dispatched");
        lanes::group_sse2(&key, counter, &mut out);
        assert_eq!(out, interleaved(&plain, 4), "SSE2");
        if let Some(t) = cpu::avx2() {
            lanes::group_avx2(t, &key, counter, &mut out);
            assert_eq!(out, interleaved(&plain, 8), "AVX2");
        }
    }
}

/// The process-wide v7 generator's bulk layout, the first state value from
/// the first 8 bytes of `data` and the random words from the rest.
#[cfg(feature = "std")]
pub fn v7_layout(data: &[u8]) {
    let base = u64::from_le_bytes(take(data, 0));
    let randoms: Vec<u64> = data
        .get(8..)
        .unwrap_or_default()
        .chunks(8)
        .take(64)
        .map(|c| u64::from_le_bytes(take(c, 0)))
        .collect();
    let expected: Vec<Uuid> = (0..randoms.len())
        .map(|i| crate::v7::global::layout(base.wrapping_add(i as u64), randoms[i]))
        .collect();
    let mut out = std::vec![Uuid::NIL; randoms.len()];
    let done = crate::arch::v7_lay_out(base, &randoms, &mut out);
    assert_eq!(out[..done], expected[..done], "dispatched");
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = cpu::avx2() {
        out.fill(Uuid::NIL);
        let done = crate::arch::x86_64::v7::lay_out_avx2(t, base, &randoms, &mut out);
        assert_eq!(done, randoms.len() / 4 * 4, "whole runs of four");
        assert_eq!(out[..done], expected[..done], "AVX2");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs that reach each check's success and failure paths.
    fn inputs() -> Vec<Vec<u8>> {
        let mut v: Vec<Vec<u8>> = std::vec![
            std::vec![],
            b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6".to_vec(),
            b"F81D4FAE7DEC11D0A76500A0C91E6BF6".to_vec(),
            [b'f'; 36].to_vec(),
            std::vec![0xff; 700],
        ];
        v.extend((0..=255u8).map(|seed| {
            (0..seed as usize * 3 + 1)
                .map(|i| {
                    seed.wrapping_mul(31)
                        .wrapping_add(i as u8)
                        .rotate_left(i as u32)
                })
                .collect()
        }));
        v
    }

    #[test]
    fn every_check_passes_on_fixed_inputs() {
        for data in inputs() {
            decode(&data);
            encode(&data);
            short(&data);
            lines(&data);
            #[cfg(feature = "std")]
            chacha(&data);
            #[cfg(feature = "std")]
            v7_layout(&data);
        }
    }

    proptest::proptest! {
        /// The short encodings' paths agree on arbitrary input, and on
        /// input mostly in their alphabets.
        #[test]
        fn short_encoding_paths_agree(data in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            short(&data);
        }
    }

    #[test]
    fn repaired_input_is_valid_where_the_top_bits_allow() {
        let s = repaired::<36>(*b"\x00\x01\x02\x03\x04\x05\x06\x07\xf8\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\x21\x22\xff");
        assert_eq!(s[8], 0xf8, "kept: top four bits set");
        assert_eq!(s[35], 0xff, "kept");
        assert_eq!(s[13], b'-');
        assert!(s[..8].iter().all(u8::is_ascii_hexdigit));
        let mut valid = s;
        valid[8] = b'-';
        valid[35] = b'0';
        assert!(decode_hyphenated_scalar(&valid).is_some());
    }
}
