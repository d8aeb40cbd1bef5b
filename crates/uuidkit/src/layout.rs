//! The layout of a UUID's 128 bits: the RFC 4122-style field split
//! ([`Fields`], from [`Uuid::fields`]) and the ranges of the timestamp and
//! clock-sequence fields (RFC 9562 §5), as constants.
//!
//! Inside, the bit layouts of RFC 9562 §5 are pure, `const` constructors:
//! every generator and every conversion goes through these four functions, so a
//! bit-position mistake can live in exactly one place (and the tests in this file
//! and in `tests/rfc9562_vectors.rs` would catch it).

use crate::{Uuid, Version};

pub use crate::fields::Fields;

/// 100-ns intervals from the Gregorian epoch of versions 1 and 6
/// (1582-10-15T00:00:00Z) to the Unix epoch (1970-01-01T00:00:00Z): 141,427
/// days.
///
/// ```
/// use uuidkit::{layout::GREGORIAN_TO_UNIX_100NS, Uuid};
/// let a1 = Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // RFC 9562 A.1
/// let unix_100ns = a1.gregorian_timestamp().unwrap() - GREGORIAN_TO_UNIX_100NS;
/// assert_eq!(unix_100ns, 16_455_577_420_000_000); // 2022-02-22T19:22:22Z
/// ```
pub const GREGORIAN_TO_UNIX_100NS: u64 = 0x01B2_1DD2_1381_4000;

/// The largest 60-bit timestamp of versions 1 and 6, in 100-ns intervals since
/// 1582-10-15: 5236-03-31T21:21:00.6846975Z.
///
/// ```
/// use uuidkit::{layout::MAX_GREGORIAN_TIMESTAMP, Uuid};
/// let last = Uuid::new_v6_from_parts(MAX_GREGORIAN_TIMESTAMP, 0, [0; 6]);
/// assert_eq!(last.gregorian_timestamp(), Some(MAX_GREGORIAN_TIMESTAMP));
/// assert_eq!(MAX_GREGORIAN_TIMESTAMP, (1 << 60) - 1);
/// ```
pub const MAX_GREGORIAN_TIMESTAMP: u64 = (1 << 60) - 1;

/// The largest 48-bit Unix millisecond timestamp of version 7:
/// 10889-08-02T05:31:50.655Z.
///
/// ```
/// use uuidkit::{layout::MAX_UNIX_TS_MS, Uuid};
/// assert_eq!(Uuid::v7_max(MAX_UNIX_TS_MS).unix_ts_ms(), Some(MAX_UNIX_TS_MS));
/// assert_eq!(MAX_UNIX_TS_MS, (1 << 48) - 1);
/// ```
pub const MAX_UNIX_TS_MS: u64 = (1 << 48) - 1;

/// The largest timestamp of the time-based v8 layout (RFC 9562 Appendix B.1):
/// 60 bits of 10-ns units since the Unix epoch, which end in the year 2335.
///
/// ```
/// use uuidkit::{layout::MAX_V8_TIME_10NS, Uuid};
/// assert_eq!(Uuid::new_v8_time(MAX_V8_TIME_10NS, 0).v8_time_10ns(), Some(MAX_V8_TIME_10NS));
/// assert_eq!(MAX_V8_TIME_10NS, (1 << 60) - 1);
/// ```
pub const MAX_V8_TIME_10NS: u64 = (1 << 60) - 1;

/// The largest 14-bit clock sequence of versions 1 and 6 (RFC 9562 §5.1).
///
/// ```
/// use uuidkit::{layout::MAX_CLOCK_SEQ, Uuid};
/// let u = Uuid::new_v1_from_parts(0, MAX_CLOCK_SEQ, [0; 6]);
/// assert_eq!(u.clock_seq(), Some(MAX_CLOCK_SEQ));
/// assert_eq!(MAX_CLOCK_SEQ, 16_383);
/// ```
pub const MAX_CLOCK_SEQ: u16 = (1 << 14) - 1;

const MASK_12: u128 = (1 << 12) - 1;
const MASK_16: u128 = (1 << 16) - 1;
const MASK_32: u128 = (1 << 32) - 1;
const MASK_48: u128 = (1 << 48) - 1;
const MASK_62: u128 = (1 << 62) - 1;
/// Version nibble (bits 48–51) and variant `0b10` (bits 64–65) for `version`.
const fn ver_var(version: Version) -> u128 {
    ((version as u128) << 76) | (0b10 << 62)
}

impl Uuid {
    /// A version 1 UUID (RFC 9562 §5.1) from a 60-bit Gregorian timestamp (100-ns
    /// intervals since 1582-10-15T00:00:00Z), a 14-bit clock sequence and a node.
    ///
    /// Wider inputs are truncated to their least significant bits (§6.1). Note that
    /// `time_high` holds the *most* significant 12 bits of the timestamp: §5.1's
    /// prose says "least", the test vectors prove otherwise.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// // RFC 9562 Appendix A.1
    /// let u = Uuid::new_v1_from_parts(0x1EC9414C232AB00, 0x33C8, [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]);
    /// assert_eq!(u.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
    /// ```
    #[inline]
    #[must_use]
    #[doc(alias("new_v1", "from_gregorian_timestamp"))]
    pub const fn new_v1_from_parts(timestamp: u64, clock_seq: u16, node: [u8; 6]) -> Uuid {
        let ts = timestamp as u128;
        let time_low = ts & MASK_32;
        let time_mid = (ts >> 32) & MASK_16;
        let time_high = (ts >> 48) & MASK_12;
        Uuid::from_u128(
            (time_low << 96)
                | (time_mid << 80)
                | (time_high << 64)
                | ver_var(Version::Mac)
                | (((clock_seq as u128) & (MAX_CLOCK_SEQ as u128)) << 48)
                | node48(node),
        )
    }

    /// A version 6 UUID (RFC 9562 §5.6): the same inputs as
    /// [`Uuid::new_v1_from_parts`], with the timestamp stored most significant
    /// bits first so that byte order is time order.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// // RFC 9562 Appendix A.5
    /// let u = Uuid::new_v6_from_parts(0x1EC9414C232AB00, 0x33C8, [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]);
    /// assert_eq!(u.as_u128(), 0x1EC9414C_232A_6B00_B3C8_9F6BDECED846);
    /// ```
    #[inline]
    #[must_use]
    #[doc(alias("new_v6", "from_sorted_gregorian_timestamp"))]
    pub const fn new_v6_from_parts(timestamp: u64, clock_seq: u16, node: [u8; 6]) -> Uuid {
        let ts = (timestamp as u128) & (MAX_GREGORIAN_TIMESTAMP as u128);
        Uuid::from_u128(
            ((ts >> 12) << 80)
                | ((ts & MASK_12) << 64)
                | ver_var(Version::SortMac)
                | (((clock_seq as u128) & (MAX_CLOCK_SEQ as u128)) << 48)
                | node48(node),
        )
    }

    /// A version 7 UUID (RFC 9562 §5.7) from a 48-bit Unix timestamp in
    /// milliseconds, the 12 bits of `rand_a` and the 62 bits of `rand_b`.
    ///
    /// Wider inputs are truncated to their least significant bits (§6.1).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// // RFC 9562 Appendix A.6
    /// let u = Uuid::new_v7_from_parts(0x017F22E279B0, 0xCC3, 0x18C4DC0C0C07398F);
    /// assert_eq!(u.as_u128(), 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
    /// ```
    #[inline]
    #[must_use]
    #[doc(alias("new_v7", "from_unix_timestamp_millis"))]
    pub const fn new_v7_from_parts(unix_ts_ms: u64, rand_a: u16, rand_b: u64) -> Uuid {
        Uuid::from_u128(
            (((unix_ts_ms as u128) & MASK_48) << 80)
                | (((rand_a as u128) & MASK_12) << 64)
                | ver_var(Version::SortRand)
                | ((rand_b as u128) & MASK_62),
        )
    }

    /// A version 8 UUID (RFC 9562 §5.8) from `custom_a` (48 bits), `custom_b`
    /// (12 bits) and `custom_c` (62 bits). Wider inputs are truncated; the version
    /// and variant bits are always set, whatever the inputs hold.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// // RFC 9562 Appendix B.1
    /// let u = Uuid::new_v8_from_parts(0x2489E9AD2EE2, 0xE00, 0x0EC932D5F69181C0);
    /// assert_eq!(u.as_u128(), 0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0);
    /// ```
    #[inline]
    #[must_use]
    pub const fn new_v8_from_parts(custom_a: u64, custom_b: u16, custom_c: u64) -> Uuid {
        Uuid::from_u128(
            (((custom_a as u128) & MASK_48) << 80)
                | (((custom_b as u128) & MASK_12) << 64)
                | ver_var(Version::Custom)
                | ((custom_c as u128) & MASK_62),
        )
    }
}

#[inline]
const fn node48(node: [u8; 6]) -> u128 {
    let mut v = 0u128;
    let mut i = 0;
    while i < 6 {
        v = (v << 8) | node[i] as u128;
        i += 1;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];

    /// Each field of each layout, set alone to all ones, must land on exactly
    /// the bits §5 gives it: this catches any shift or width mistake.
    #[test]
    fn every_field_lands_on_its_bits() {
        let base = |v: Version| ver_var(v);
        // v1: time_low bits 0-31, time_mid 32-47, time_high 52-63 (ts60 bits 59..48).
        let v1 = |ts: u64| Uuid::new_v1_from_parts(ts, 0, [0; 6]).as_u128() ^ base(Version::Mac);
        assert_eq!(v1(0xFFFF_FFFF), 0xFFFF_FFFF << 96);
        assert_eq!(v1(0xFFFF << 32), 0xFFFF << 80);
        assert_eq!(v1(0xFFF << 48), 0xFFF << 64);
        assert_eq!(
            v1(1 << 59),
            0x800 << 64,
            "ts bit 59 is the top bit of time_high"
        );
        assert_eq!(v1(u64::MAX), v1((1 << 60) - 1), "truncated to 60 bits");
        let cs = |c: u16| Uuid::new_v1_from_parts(0, c, [0; 6]).as_u128() ^ base(Version::Mac);
        assert_eq!(cs(0x3FFF), 0x3FFF << 48);
        assert_eq!(cs(0xFFFF), 0x3FFF << 48, "clock_seq is 14 bits");
        let node = Uuid::new_v1_from_parts(0, 0, [0xFF; 6]).as_u128() ^ base(Version::Mac);
        assert_eq!(node, (1 << 48) - 1);
        // v6: time_high bits 0-31 = ts60[59:28], time_mid 32-47 = ts60[27:12], time_low 52-63.
        let v6 =
            |ts: u64| Uuid::new_v6_from_parts(ts, 0, [0; 6]).as_u128() ^ base(Version::SortMac);
        assert_eq!(v6(0xFFFF_FFFF << 28), 0xFFFF_FFFF << 96);
        assert_eq!(v6(0xFFFF << 12), 0xFFFF << 80);
        assert_eq!(v6(0xFFF), 0xFFF << 64);
        // v7: unix_ts_ms bits 0-47, rand_a 52-63, rand_b 66-127.
        let v7 = |ms: u64, a: u16, b: u64| {
            Uuid::new_v7_from_parts(ms, a, b).as_u128() ^ base(Version::SortRand)
        };
        assert_eq!(v7(u64::MAX, 0, 0), ((1 << 48) - 1) << 80);
        assert_eq!(v7(0, u16::MAX, 0), 0xFFF << 64);
        assert_eq!(v7(0, 0, u64::MAX), (1 << 62) - 1);
        // v8: custom_a bits 0-47, custom_b 52-63, custom_c 66-127.
        let v8 = |a: u64, b: u16, c: u64| {
            Uuid::new_v8_from_parts(a, b, c).as_u128() ^ base(Version::Custom)
        };
        assert_eq!(v8(u64::MAX, 0, 0), ((1 << 48) - 1) << 80);
        assert_eq!(v8(0, u16::MAX, 0), 0xFFF << 64);
        assert_eq!(v8(0, 0, u64::MAX), (1 << 62) - 1);
        // All-ones inputs never leak into the version or variant bits.
        let all = Uuid::new_v8_from_parts(u64::MAX, u16::MAX, u64::MAX);
        assert_eq!(all.as_bytes()[6] >> 4, 8);
        assert_eq!(all.as_bytes()[8] >> 6, 0b10);
    }

    #[test]
    fn rfc9562_appendix_vectors() {
        let ts = 0x1EC9414C232AB00;
        assert_eq!(
            Uuid::new_v1_from_parts(ts, 0x33C8, NODE).as_u128(),
            0xC232AB00_9414_11EC_B3C8_9F6BDECED846
        );
        assert_eq!(
            Uuid::new_v6_from_parts(ts, 0x33C8, NODE).as_u128(),
            0x1EC9414C_232A_6B00_B3C8_9F6BDECED846
        );
        assert_eq!(
            Uuid::new_v7_from_parts(0x017F22E279B0, 0xCC3, 0x18C4DC0C0C07398F).as_u128(),
            0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F
        );
        assert_eq!(
            Uuid::new_v8_from_parts(0x2489E9AD2EE2, 0xE00, 0x0EC932D5F69181C0).as_u128(),
            0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0
        );
    }
}
