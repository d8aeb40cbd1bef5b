//! The fields of a UUID as data: the RFC 4122-style field split, the
//! timestamps of versions 1, 6 and 7 (RFC 9562 §5.1, §5.6, §5.7), and the
//! lossless v1 ↔ v6 conversion (Appendix A.1 ↔ A.5).
//!
//! Nothing here reads a clock: a timestamp is just bits of the UUID.

use crate::layout::GREGORIAN_TO_UNIX_100NS;
use crate::{Uuid, Version};

/// The five fields of the RFC 4122 layout, in network byte order, as they
/// are: no bits are interpreted or masked, so
/// `u.fields().to_uuid() == u` for every UUID.
///
/// ```
/// use uuidkit::{layout::Fields, Uuid};
/// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
/// let f = u.fields();
/// assert_eq!(f, Fields {
///     time_low: 0xf81d4fae,
///     time_mid: 0x7dec,
///     time_hi_and_version: 0x11d0,
///     clock_seq: 0xa765,
///     node: [0x00, 0xa0, 0xc9, 0x1e, 0x6b, 0xf6],
/// });
/// assert_eq!(f.to_uuid(), u);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fields {
    /// Octets 0–3.
    pub time_low: u32,
    /// Octets 4–5.
    pub time_mid: u16,
    /// Octets 6–7: the version in the top four bits.
    pub time_hi_and_version: u16,
    /// Octets 8–9 as stored: the variant bits on top of the clock sequence
    /// (RFC 4122's `clock_seq_hi_and_reserved` and `clock_seq_low`). For the
    /// 14-bit clock sequence alone see [`Uuid::clock_seq`].
    pub clock_seq: u16,
    /// Octets 10–15.
    pub node: [u8; 6],
}

impl Fields {
    /// Builds the UUID with these five fields, stored as given (no version
    /// or variant bits are set). [`Uuid::from_fields`] takes the `uuid`
    /// crate's four-field split instead.
    ///
    /// ```
    /// use uuidkit::{layout::Fields, Uuid};
    /// let f = Fields {
    ///     time_low: 0xf81d4fae,
    ///     time_mid: 0x7dec,
    ///     time_hi_and_version: 0x11d0,
    ///     clock_seq: 0xa765,
    ///     node: [0x00, 0xa0, 0xc9, 0x1e, 0x6b, 0xf6],
    /// };
    /// assert_eq!(f.to_uuid().to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    /// ```
    #[must_use]
    #[inline]
    #[doc(alias("from_fields"))]
    pub const fn to_uuid(self) -> Uuid {
        let l = self.time_low.to_be_bytes();
        let m = self.time_mid.to_be_bytes();
        let h = self.time_hi_and_version.to_be_bytes();
        let c = self.clock_seq.to_be_bytes();
        let n = self.node;
        Uuid::from_bytes([
            l[0], l[1], l[2], l[3], m[0], m[1], h[0], h[1], c[0], c[1], n[0], n[1], n[2], n[3],
            n[4], n[5],
        ])
    }
}

impl From<Fields> for Uuid {
    #[inline]
    fn from(f: Fields) -> Uuid {
        f.to_uuid()
    }
}

impl Uuid {
    /// The five fields of the RFC 4122 layout, as stored.
    ///
    /// ```
    /// let f = uuidkit::Uuid::MAX.fields();
    /// assert_eq!((f.time_low, f.clock_seq, f.node), (u32::MAX, u16::MAX, [0xff; 6]));
    /// ```
    #[inline]
    #[must_use]
    pub const fn fields(&self) -> Fields {
        let b = self.as_bytes();
        Fields {
            time_low: u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            time_mid: u16::from_be_bytes([b[4], b[5]]),
            time_hi_and_version: u16::from_be_bytes([b[6], b[7]]),
            clock_seq: u16::from_be_bytes([b[8], b[9]]),
            node: [b[10], b[11], b[12], b[13], b[14], b[15]],
        }
    }

    /// For a version 1 or 6 UUID, its 60-bit timestamp: 100-ns intervals since
    /// 1582-10-15T00:00:00Z (RFC 9562 §5.1, §5.6). `None` for any other version.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let v1 = Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // A.1
    /// let v6 = Uuid::from_u128(0x1EC9414C_232A_6B00_B3C8_9F6BDECED846); // A.5
    /// assert_eq!(v1.gregorian_timestamp(), Some(0x1EC9414C232AB00));
    /// assert_eq!(v6.gregorian_timestamp(), Some(0x1EC9414C232AB00));
    /// assert_eq!(Uuid::NIL.gregorian_timestamp(), None);
    /// ```
    #[inline]
    #[must_use]
    pub const fn gregorian_timestamp(&self) -> Option<u64> {
        let u = self.as_u128();
        match self.version() {
            // time_high (the *most* significant 12 bits) ‖ time_mid ‖ time_low
            Some(Version::Mac) => Some(
                ((((u >> 64) & 0xfff) << 48) | (((u >> 80) & 0xffff) << 32) | (u >> 96)) as u64,
            ),
            // time_high (32) ‖ time_mid (16) ‖ time_low (12)
            Some(Version::SortMac) => Some((((u >> 80) << 12) | ((u >> 64) & 0xfff)) as u64),
            _ => None,
        }
    }

    /// For a version 1 or 6 UUID, its 14-bit clock sequence (without the
    /// variant bits). `None` for any other version.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let v1 = Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // A.1
    /// assert_eq!(v1.clock_seq(), Some(0x33C8));
    /// ```
    #[inline]
    #[must_use]
    pub const fn clock_seq(&self) -> Option<u16> {
        match self.version() {
            Some(Version::Mac | Version::SortMac) => {
                Some(self.fields().clock_seq & crate::layout::MAX_CLOCK_SEQ)
            }
            _ => None,
        }
    }

    /// For a version 1 or 6 UUID, its 48-bit node. `None` for any other version.
    ///
    /// A node with the multicast bit (`node[0] & 1`) set is random (RFC 9562
    /// §6.10); otherwise it claims to be an IEEE 802 MAC address.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let v6 = Uuid::from_u128(0x1EC9414C_232A_6B00_B3C8_9F6BDECED846); // A.5
    /// assert_eq!(v6.node(), Some([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]));
    /// ```
    #[inline]
    #[must_use]
    pub const fn node(&self) -> Option<[u8; 6]> {
        match self.version() {
            Some(Version::Mac | Version::SortMac) => Some(self.fields().node),
            _ => None,
        }
    }

    /// For a version 7 UUID, its 48-bit Unix timestamp in milliseconds
    /// (RFC 9562 §5.7). `None` for any other version.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let v7 = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F); // A.6
    /// assert_eq!(v7.unix_ts_ms(), Some(1645557742000));
    /// ```
    #[inline]
    #[must_use]
    pub const fn unix_ts_ms(&self) -> Option<u64> {
        match self.version() {
            Some(Version::SortRand) => Some((self.as_u128() >> 80) as u64),
            _ => None,
        }
    }

    /// For a version 7 UUID, its 12-bit `rand_a` field (which may hold
    /// sub-millisecond time or a counter, §6.2). `None` for any other version.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let v7 = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F); // A.6
    /// assert_eq!(v7.rand_a(), Some(0xCC3));
    /// ```
    #[inline]
    #[must_use]
    pub const fn rand_a(&self) -> Option<u16> {
        match self.version() {
            Some(Version::SortRand) => Some(((self.as_u128() >> 64) & 0xfff) as u16),
            _ => None,
        }
    }

    /// For a version 7 UUID, its 62-bit `rand_b` field. `None` for any other version.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let v7 = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F); // A.6
    /// assert_eq!(v7.rand_b(), Some(0x18C4DC0C0C07398F));
    /// ```
    #[inline]
    #[must_use]
    pub const fn rand_b(&self) -> Option<u64> {
        match self.version() {
            Some(Version::SortRand) => Some((self.as_u128() as u64) & ((1 << 62) - 1)),
            _ => None,
        }
    }

    /// The time embedded in a version 1, 6 or 7 UUID, as nanoseconds since
    /// the Unix epoch (negative before 1970; v1/v6 go back to 1582). `None`
    /// for any other version. Precision is that of the field: 100 ns for
    /// v1/v6, 1 ms for v7 (any sub-millisecond bits in `rand_a` are not
    /// interpreted: their use is up to the generator).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let a1 = Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
    /// let a6 = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
    /// // 2022-02-22T19:22:22Z, the time of RFC 9562's examples
    /// assert_eq!(a1.unix_nanos(), Some(1_645_557_742_000_000_000));
    /// assert_eq!(a6.unix_nanos(), Some(1_645_557_742_000_000_000));
    /// ```
    #[inline]
    #[must_use]
    pub const fn unix_nanos(&self) -> Option<i128> {
        if let Some(ts) = self.gregorian_timestamp() {
            return Some((ts as i128 - GREGORIAN_TO_UNIX_100NS as i128) * 100);
        }
        match self.unix_ts_ms() {
            Some(ms) => Some(ms as i128 * 1_000_000),
            None => None,
        }
    }

    /// The time embedded in a version 1, 6 or 7 UUID as a
    /// [`SystemTime`](std::time::SystemTime); `None` for other versions, or if
    /// the platform's `SystemTime` cannot represent it.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use uuidkit::Uuid;
    /// let a6 = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
    /// assert_eq!(a6.system_time(), Some(UNIX_EPOCH + Duration::from_millis(1645557742000)));
    /// ```
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    #[must_use]
    pub fn system_time(&self) -> Option<std::time::SystemTime> {
        use std::time::{Duration, UNIX_EPOCH};
        let ns = self.unix_nanos()?;
        let magnitude = ns.unsigned_abs();
        let d = Duration::new(
            u64::try_from(magnitude / 1_000_000_000).ok()?,
            (magnitude % 1_000_000_000) as u32,
        );
        if ns >= 0 {
            UNIX_EPOCH.checked_add(d)
        } else {
            UNIX_EPOCH.checked_sub(d)
        }
    }

    /// Converts a version 1 UUID to version 6 (RFC 9562 §5.6), keeping the
    /// timestamp, clock sequence and node; a version 6 UUID is returned as it
    /// is. `None` for any other version. Lossless: `to_v1` undoes it.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let a1 = Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
    /// let a5 = Uuid::from_u128(0x1EC9414C_232A_6B00_B3C8_9F6BDECED846);
    /// assert_eq!(a1.to_v6(), Some(a5));
    /// assert_eq!(a5.to_v1(), Some(a1));
    /// ```
    #[inline]
    #[must_use]
    pub const fn to_v6(&self) -> Option<Uuid> {
        match self.version() {
            Some(Version::Mac) => match self.gregorian_timestamp() {
                Some(ts) => Some(self.with_timestamp(ts, Version::SortMac)),
                None => None,
            },
            Some(Version::SortMac) => Some(*self),
            _ => None,
        }
    }

    /// Converts a version 6 UUID to version 1 (RFC 9562 §5.1), keeping the
    /// timestamp, clock sequence and node; a version 1 UUID is returned as it
    /// is. `None` for any other version.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let a5 = Uuid::from_u128(0x1EC9414C_232A_6B00_B3C8_9F6BDECED846);
    /// assert_eq!(a5.to_v1().unwrap().to_string(), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
    /// ```
    #[inline]
    #[must_use]
    pub const fn to_v1(&self) -> Option<Uuid> {
        match self.version() {
            Some(Version::SortMac) => match self.gregorian_timestamp() {
                Some(ts) => Some(self.with_timestamp(ts, Version::Mac)),
                None => None,
            },
            Some(Version::Mac) => Some(*self),
            _ => None,
        }
    }

    /// Re-lays out the timestamp in `version`'s layout, keeping octets 8–15 as
    /// they are (clock_seq, variant, node).
    const fn with_timestamp(&self, ts: u64, version: Version) -> Uuid {
        let laid = match version {
            Version::SortMac => Uuid::new_v6_from_parts(ts, 0, [0; 6]),
            _ => Uuid::new_v1_from_parts(ts, 0, [0; 6]),
        };
        let high = laid.as_u128() >> 64;
        let low = self.as_u128() & (u64::MAX as u128);
        Uuid::from_u128((high << 64) | low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_v6_round_trip_keeps_every_bit_of_every_field() {
        let mut x = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834_u128;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645)
                .wrapping_add(1);
            let ts = (x >> 64) as u64 & crate::layout::MAX_GREGORIAN_TIMESTAMP;
            let cs = (x >> 32) as u16 & 0x3fff;
            let node = (x as u64).to_be_bytes();
            let node = [node[2], node[3], node[4], node[5], node[6], node[7]];
            let v1 = Uuid::new_v1_from_parts(ts, cs, node);
            let v6 = Uuid::new_v6_from_parts(ts, cs, node);
            assert_eq!(v1.to_v6(), Some(v6));
            assert_eq!(v6.to_v1(), Some(v1));
            assert_eq!(v1.gregorian_timestamp(), Some(ts));
            assert_eq!(v6.gregorian_timestamp(), Some(ts));
            assert_eq!((v1.clock_seq(), v1.node()), (Some(cs), Some(node)));
            assert_eq!((v6.clock_seq(), v6.node()), (Some(cs), Some(node)));
        }
    }
}
