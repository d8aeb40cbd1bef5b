//! Exhaustive checks shared by the tests of the portable code and of every
//! vector path: each path against the scalar reference, with every byte
//! value in every position.

use std::vec::Vec;

use crate::Uuid;
use crate::encoding::base32::{
    decode_portable as decode_base32_portable, encode_portable as encode_base32_portable,
};
use crate::encoding::base58::{
    encode_portable as encode_base58_portable, groups_portable as base58_groups_portable,
};
use crate::encoding::base64::{
    decode_portable as decode_base64url_portable, encode_portable as encode_base64url_portable,
};
use crate::encoding::digits::Digits32;
use crate::fmt::{encode32_scalar, lines_scalar, place_hyphens};
use crate::hex::{Fast, LINE};
use crate::parse::{decode_hyphenated_scalar, decode32_scalar, to_fast};

pub(crate) use super::differential::base58_reference;

/// Whether `byte` is a hex digit.
fn is_hex(byte: u8) -> bool {
    byte.is_ascii_hexdigit()
}

/// A decoder of the hyphenated form against the scalar one, with every byte
/// value in every position.
pub(crate) fn check_hyphenated_decoder(decode: impl Fn(&[u8; 36]) -> Option<[u8; 16]>) {
    let base = *b"0123abCD-4567-89ef-ABCD-ef0123456789";
    for at in 0..36 {
        for byte in 0..=255u8 {
            let mut s = base;
            s[at] = byte;
            let scalar = decode_hyphenated_scalar(&s);
            let hyphen = [8, 13, 18, 23].contains(&at);
            assert_eq!(
                scalar.is_some(),
                byte == base[at] || (!hyphen && is_hex(byte)),
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

/// A decoder of 32 hex digits against the scalar one, with every byte value
/// in every position.
pub(crate) fn check_simple_decoder(decode: impl Fn(&[u8; 32]) -> Option<[u8; 16]>) {
    let base = *b"0123456789abcdefABCDEF0123456789";
    for lane in 0..32 {
        for byte in 0..=255u8 {
            let mut d = base;
            d[lane] = byte;
            let scalar = decode32_scalar(&d);
            assert_eq!(scalar.is_some(), is_hex(byte), "byte {byte:#x}");
            assert_eq!(decode(&d), scalar, "lane {lane} byte {byte:#x}");
        }
    }
    assert_eq!(
        decode(&base).map(u128::from_be_bytes),
        Some(0x0123456789abcdefabcdef0123456789)
    );
}

/// 16 bytes with every byte value in every position, in both cases.
fn each_input(mut f: impl FnMut(&[u8; 16], bool)) {
    for lane in 0..16 {
        for byte in 0..=255u8 {
            let mut b = [0x5a; 16];
            b[lane] = byte;
            f(&b, false);
            f(&b, true);
        }
    }
}

/// An encoder of 32 hex digits against the digit table.
pub(crate) fn check_encode32(encode: impl Fn(&[u8; 16], bool) -> [u8; 32]) {
    each_input(|b, upper| {
        let table = if upper {
            b"0123456789ABCDEF"
        } else {
            b"0123456789abcdef"
        };
        let digits = encode(b, upper);
        for (i, byte) in b.iter().enumerate() {
            assert_eq!(digits[2 * i], table[usize::from(byte >> 4)], "{b:02x?}");
            assert_eq!(digits[2 * i + 1], table[usize::from(byte & 15)], "{b:02x?}");
        }
    });
}

/// An encoder of the hyphenated form against the scalar one, into a buffer
/// whose bytes past the 36 must stay untouched.
pub(crate) fn check_hyphenated_encoder(encode: impl Fn(&[u8; 16], bool, &mut [u8; 36])) {
    each_input(|b, upper| {
        let mut expected = [0u8; 36];
        place_hyphens(&encode32_scalar(b, upper), &mut expected);
        let mut text = [0x55u8; 72];
        let (body, rest) = text.split_first_chunk_mut::<36>().unwrap();
        encode(b, upper, body);
        assert_eq!(*body, expected, "{b:02x?} upper {upper}");
        assert!(rest.iter().all(|&x| x == 0x55), "wrote past 36 bytes");
    });
}

/// A batch in which, over the 256 values of `round`, every UUID slot of a
/// 16-UUID period sees every byte value in every position.
pub(crate) fn sweep_batch(round: u8, len: usize) -> Vec<Uuid> {
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

/// The lines `f` writes for `uuids`, checked to stay inside them: filler
/// bytes, one byte of offset (unaligned) and a guard byte after the end.
pub(crate) fn lines_with(
    f: impl Fn(&[Uuid], &mut [u8], bool),
    uuids: &[Uuid],
    upper: bool,
) -> Vec<u8> {
    let mut buf = std::vec![0xa5u8; 1 + uuids.len() * LINE + 1];
    let end = buf.len() - 1;
    f(uuids, &mut buf[1..end], upper);
    assert_eq!((buf[0], buf[end]), (0xa5, 0xa5), "wrote outside its lines");
    buf[1..end].to_vec()
}

/// A line encoder against the scalar one: every byte value in every position
/// of every UUID slot of a period, both cases, and batch lengths that end
/// mid-period.
pub(crate) fn check_lines(f: impl Fn(&[Uuid], &mut [u8], bool)) {
    for upper in [false, true] {
        for round in 0..=255u8 {
            let batch = sweep_batch(round, 32);
            assert_eq!(
                lines_with(&f, &batch, upper),
                lines_with(lines_scalar, &batch, upper),
                "round {round} upper {upper}"
            );
        }
        for len in 0..=50 {
            let batch = sweep_batch(len as u8, len);
            assert_eq!(
                lines_with(&f, &batch, upper),
                lines_with(lines_scalar, &batch, upper),
                "length {len}"
            );
        }
    }
}

/// A base32 encoder against the portable one, for every alphabet, into a
/// buffer whose bytes past the 26 must stay untouched.
pub(crate) fn check_base32_encoder(encode: impl Fn(&[u8; 16], Digits32, &mut [u8; 26])) {
    each_input(|b, _| {
        for digits in Digits32::ALL {
            let mut expected = [0u8; 26];
            encode_base32_portable(b, digits, &mut expected);
            let mut text = [0x55u8; 40];
            let (body, rest) = text.split_first_chunk_mut::<26>().unwrap();
            encode(b, digits, body);
            assert_eq!(*body, expected, "{b:02x?} {digits:?}");
            assert!(rest.iter().all(|&x| x == 0x55), "wrote past 26 bytes");
        }
    });
}

/// A base64url encoder against the portable one, into a buffer whose bytes
/// past the 22 must stay untouched.
pub(crate) fn check_base64url_encoder(encode: impl Fn(&[u8; 16], &mut [u8; 22])) {
    each_input(|b, _| {
        let mut expected = [0u8; 22];
        encode_base64url_portable(b, &mut expected);
        let mut text = [0x55u8; 40];
        let (body, rest) = text.split_first_chunk_mut::<22>().unwrap();
        encode(b, body);
        assert_eq!(*body, expected, "{b:02x?}");
        assert!(rest.iter().all(|&x| x == 0x55), "wrote past 22 bytes");
    });
}

/// A base32 decoder (its [`Fast`] result: the Max UUID and a failure are
/// one value) against the portable one, for every alphabet: every
/// byte value in every position of valid texts (the edge digits' limits
/// included). Every alphabet's own digits must be accepted in the middle,
/// and nothing else.
pub(crate) fn check_base32_decoder(decode: impl Fn(&[u8; 26], Digits32) -> Fast) {
    for digits in Digits32::ALL {
        for bytes in [[0x00; 16], [0xff; 16], [0x9c; 16]] {
            let mut base = [0u8; 26];
            encode_base32_portable(&bytes, digits, &mut base);
            assert_eq!(decode(&base, digits), to_fast(Some(bytes)), "{digits:?}");
            let accepted = digits.table();
            for at in 0..26 {
                for byte in 0..=255u8 {
                    let mut s = base;
                    s[at] = byte;
                    let portable = decode_base32_portable(&s, digits);
                    if (2..24).contains(&at) {
                        assert_eq!(portable.is_some(), accepted[usize::from(byte)] < 32);
                    }
                    let got = decode(&s, digits);
                    assert_eq!(got, to_fast(portable), "{digits:?} at {at} byte {byte:#x}");
                }
            }
        }
    }
}

/// A base64url decoder ([`Fast`], as above) against the portable one: every byte value in every
/// position of valid texts, the last one's padding bits included.
pub(crate) fn check_base64url_decoder(decode: impl Fn(&[u8; 22]) -> Fast) {
    for bytes in [
        [0x00; 16],
        [0xff; 16],
        *b"\xf8\x1d\x4f\xae\x7d\xec\x11\xd0\xa7\x65\x00\xa0\xc9\x1e\x6b\xf6",
    ] {
        let mut base = [0u8; 22];
        encode_base64url_portable(&bytes, &mut base);
        assert_eq!(decode(&base), to_fast(Some(bytes)));
        for at in 0..22 {
            for byte in 0..=255u8 {
                let mut s = base;
                s[at] = byte;
                let portable = decode_base64url_portable(&s);
                let digit = byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_';
                if at < 21 {
                    assert_eq!(portable.is_some(), digit, "at {at} byte {byte:#x}");
                }
                assert_eq!(decode(&s), to_fast(portable), "at {at} byte {byte:#x}");
            }
        }
    }
}

/// A base58 group reader against the portable one: every byte value in
/// every position of valid texts. Every digit must be accepted, and nothing
/// else.
pub(crate) fn check_base58_groups(groups: impl Fn(&[u8; 22]) -> Option<[u32; 6]>) {
    const DIGITS: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    for base in [
        *b"1111111111111111111111",
        *b"YcVfxkQb6JRzqk5kF2tNLv",
        *b"zzzzzzzzzzzzzzzzzzzzzz",
    ] {
        let expected = base58_groups_portable(&base);
        assert!(expected.is_some());
        assert_eq!(groups(&base), expected);
        for at in 0..22 {
            for byte in 0..=255u8 {
                let mut s = base;
                s[at] = byte;
                let portable = base58_groups_portable(&s);
                assert_eq!(portable.is_some(), DIGITS.contains(&byte), "byte {byte:#x}");
                assert_eq!(groups(&s), portable, "at {at} byte {byte:#x}");
            }
        }
    }
    // Each group is its digits' value.
    let g = base58_groups_portable(b"2121112111211121112112").unwrap();
    assert_eq!(
        g,
        [
            58,
            58 * 58 * 58,
            58 * 58 * 58,
            58 * 58 * 58,
            58 * 58 * 58,
            58 * 58 * 58 + 1
        ]
    );
}

/// The values where a base58 encoder's divisions and carries are at their
/// edges: 0, every 2^k and 58^k and the numbers next to them, the
/// largest digit times 58^k, all-ones runs, and `u128::MAX`
/// and its neighbours; then a pseudo-random sweep.
pub(crate) fn base58_values() -> Vec<u128> {
    let mut values = std::vec![0, 1, 2, u128::MAX, u128::MAX - 1, u128::MAX - 57];
    for k in 0..128 {
        let p = 1u128 << k;
        values.extend([p - 1, p, p + 1, u128::MAX >> k, !(u128::MAX >> k)]);
    }
    for k in 0..=21 {
        let p = 58u128.pow(k);
        // The largest digit times p (at k = 21, the largest multiple).
        let top = (u128::MAX / p).min(57) * p;
        values.extend([
            p - 1,
            p,
            p + 1,
            top,
            top.saturating_add(p - 1),
            u128::MAX / p * p - 1,
        ]);
    }
    let mut x = 0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15_u128;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        values.extend([x, x >> (x % 128)]);
    }
    values
}

/// A base58 encoder against the portable one and the reference, into a
/// buffer whose bytes past the 22 must stay untouched.
pub(crate) fn check_base58_encoder(encode: impl Fn(u128, &mut [u8; 22])) {
    for v in base58_values() {
        let expected = base58_reference(v);
        let mut portable = [0u8; 22];
        encode_base58_portable(v, &mut portable);
        assert_eq!(portable, expected, "portable: {v:#x}");
        let mut text = [0x55u8; 40];
        let (body, rest) = text.split_first_chunk_mut::<22>().unwrap();
        encode(v, body);
        assert_eq!(*body, expected, "{v:#x}");
        assert!(rest.iter().all(|&x| x == 0x55), "wrote past 22 bytes");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TypeId;

    /// The public base32 encoder of `digits`.
    fn public_base32(b: &[u8; 16], digits: Digits32, out: &mut [u8; 26]) {
        let u = Uuid::from_bytes(*b);
        match digits {
            Digits32::Crockford => u.base32().encode(out),
            Digits32::CrockfordLower => u.base32().encode_lower(out),
            Digits32::Hex => u.base32hex().encode(out),
        };
    }

    /// The public base32 decoder of `digits`, as the sweeps compare it.
    fn public_base32_decode(s: &[u8; 26], digits: Digits32) -> Fast {
        let u = match digits {
            Digits32::Crockford => Uuid::parse_base32(s).ok(),
            Digits32::CrockfordLower => TypeId::parse(s).ok().map(|id| id.uuid()),
            Digits32::Hex => Uuid::parse_base32hex(s).ok(),
        };
        to_fast(u.map(Uuid::into_bytes))
    }

    /// The portable paths pass the same sweeps as the vector ones (they are
    /// the reference, and what runs on CPUs without the vector paths), and
    /// so do the public operations, whatever path this CPU gives them.
    #[test]
    fn portable_and_public_short_encodings_pass_the_sweeps() {
        check_base32_encoder(encode_base32_portable);
        check_base64url_encoder(encode_base64url_portable);
        check_base32_decoder(|s, d| to_fast(decode_base32_portable(s, d)));
        check_base64url_decoder(|s| to_fast(decode_base64url_portable(s)));
        check_base58_groups(base58_groups_portable);
        check_base32_encoder(public_base32);
        check_base64url_encoder(|b, out| {
            Uuid::from_bytes(*b).base64url().encode(out);
        });
        check_base32_decoder(public_base32_decode);
        check_base64url_decoder(|s| to_fast(Uuid::parse_base64url(s).ok().map(Uuid::into_bytes)));
    }
}
