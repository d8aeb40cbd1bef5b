//! Digits eight at a time in one `u64` (SIMD within a register): the bits
//! are spread so that each byte holds one digit's value, and the values
//! become characters by adding per-byte offsets chosen with comparisons,
//! instead of eight shifts, eight table loads and eight stores. Portable;
//! no byte ever carries into its neighbour (each step says why).

const ONES: u64 = 0x0101_0101_0101_0101;

/// 40 bits as eight 5-bit values, one per byte, the most significant in the
/// highest byte (so `to_be_bytes` gives them in text order).
#[inline(always)]
pub(crate) const fn spread5(bits: u64) -> u64 {
    // 20-bit halves into 32-bit lanes, 10-bit quarters into 16-bit lanes,
    // 5-bit digits into bytes.
    let x = ((bits >> 20) << 32) | (bits & 0xf_ffff);
    let x = ((x & 0x000f_fc00_000f_fc00) << 6) | (x & 0x0000_03ff_0000_03ff);
    ((x & 0x03e0_03e0_03e0_03e0) << 3) | (x & 0x001f_001f_001f_001f)
}

/// 48 bits as eight 6-bit values, one per byte, as [`spread5`].
#[inline(always)]
pub(crate) const fn spread6(bits: u64) -> u64 {
    let x = ((bits >> 24) << 32) | (bits & 0xff_ffff);
    let x = ((x & 0x00ff_f000_00ff_f000) << 4) | (x & 0x0000_0fff_0000_0fff);
    ((x & 0x0fc0_0fc0_0fc0_0fc0) << 2) | (x & 0x003f_003f_003f_003f)
}

/// 1 in each byte whose value (below 64) is at least `k` (at most 64):
/// `value + 128 - k` stays below 256, and its top bit is the answer.
#[inline(always)]
const fn at_least(x: u64, k: u64) -> u64 {
    ((x + (128 - k) * ONES) >> 7) & ONES
}

/// Crockford's digits (values below 32) as characters; `letter` is `b'A'`
/// or `b'a'`. Every step adds at most 90 + 32 to a byte below 32: no carry.
#[inline(always)]
pub(crate) const fn crockford(x: u64, letter: u8) -> u64 {
    // '0' + v below 10; letters from 10, each skipped letter (I, L, O, U)
    // one more past its place.
    let to_letters = (letter - b'0' - 10) as u64;
    x + b'0' as u64 * ONES
        + to_letters * at_least(x, 10)
        + at_least(x, 18)
        + at_least(x, 20)
        + at_least(x, 22)
        + at_least(x, 27)
}

/// RFC 4648 base32hex digits (values below 32), upper case.
#[inline(always)]
pub(crate) const fn base32hex(x: u64) -> u64 {
    x + b'0' as u64 * ONES + 7 * at_least(x, 10)
}

/// RFC 4648 base64url digits (values below 64). `up` is at most 63 + 71,
/// `down` at most 88 and only where `up` is at least 123, so neither the
/// sum nor the difference crosses a byte.
#[inline(always)]
pub(crate) const fn base64url(x: u64) -> u64 {
    let up = x + 65 * ONES + 6 * at_least(x, 26);
    let down = 75 * at_least(x, 52) + 13 * at_least(x, 62);
    up - down + 49 * at_least(x, 63)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value in every byte position against the alphabets.
    #[test]
    fn every_digit_in_every_lane_is_its_character() {
        type Map = fn(u64) -> u64;
        let alphabets: [(&[u8], Map); 4] = [
            (b"0123456789ABCDEFGHJKMNPQRSTVWXYZ", |x| crockford(x, b'A')),
            (b"0123456789abcdefghjkmnpqrstvwxyz", |x| crockford(x, b'a')),
            (b"0123456789ABCDEFGHIJKLMNOPQRSTUV", base32hex),
            (
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                base64url,
            ),
        ];
        for (alphabet, map) in alphabets {
            for (v, &c) in alphabet.iter().enumerate() {
                for lane in 0..8 {
                    // The value in one lane, its neighbours at their extremes.
                    for fill in [0, alphabet.len() as u64 - 1] {
                        let mut x = fill * ONES;
                        x &= !(0xff << (8 * lane));
                        x |= (v as u64) << (8 * lane);
                        let out = map(x).to_le_bytes();
                        assert_eq!(out[lane], c, "value {v} lane {lane}");
                    }
                }
            }
        }
    }

    #[test]
    fn spreading_puts_each_group_in_its_byte() {
        let bits = 0x12_3456_789a_u64 & ((1 << 40) - 1);
        let want: std::vec::Vec<u8> = (0..8)
            .map(|j| ((bits >> (35 - 5 * j)) & 31) as u8)
            .collect();
        assert_eq!(spread5(bits).to_be_bytes().to_vec(), want);
        let bits = 0xfedc_ba98_7654_u64;
        let want: std::vec::Vec<u8> = (0..8)
            .map(|j| ((bits >> (42 - 6 * j)) & 63) as u8)
            .collect();
        assert_eq!(spread6(bits).to_be_bytes().to_vec(), want);
    }
}
