//! The `uuid` crate's names for things uuidkit also does, so that a program
//! written against `uuid` 1.x builds with the dependency renamed
//! (`uuid = { package = "uuidkit", … }`). Each item here does what its `uuid`
//! namesake does; uuidkit's own name for it is linked from its doc.
//! `docs/migrating-from-uuid.md` in the repository lists every difference,
//! including the ones these names do not cover.

use crate::layout::{GREGORIAN_TO_UNIX_100NS, MAX_CLOCK_SEQ};
use crate::{ParseError, Urn, Uuid, Version, namespace};

impl Uuid {
    /// The DNS namespace (RFC 9562 §6.6), as [`namespace::DNS`].
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::new_v5(&Uuid::NAMESPACE_DNS, b"www.example.com");
    /// assert_eq!(u.to_string(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
    /// ```
    pub const NAMESPACE_DNS: Uuid = namespace::DNS;
    /// The URL namespace (RFC 9562 §6.6), as [`namespace::URL`].
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NAMESPACE_URL, uuidkit::namespace::URL);
    /// ```
    pub const NAMESPACE_URL: Uuid = namespace::URL;
    /// The ISO OID namespace (RFC 9562 §6.6), as [`namespace::OID`].
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NAMESPACE_OID, uuidkit::namespace::OID);
    /// ```
    pub const NAMESPACE_OID: Uuid = namespace::OID;
    /// The X.500 DN namespace (RFC 9562 §6.6), as [`namespace::X500`].
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NAMESPACE_X500, uuidkit::namespace::X500);
    /// ```
    pub const NAMESPACE_X500: Uuid = namespace::X500;

    /// The Nil UUID, as [`Uuid::NIL`].
    ///
    /// ```
    /// assert!(uuidkit::Uuid::nil().is_nil());
    /// ```
    #[must_use]
    #[inline]
    pub const fn nil() -> Uuid {
        Uuid::NIL
    }

    /// The Max UUID, as [`Uuid::MAX`]. An associated function without
    /// `self`, so `Uuid::max()` is this one, not [`Ord::max`].
    ///
    /// ```
    /// assert!(uuidkit::Uuid::max().is_max());
    /// ```
    #[must_use]
    #[inline]
    pub const fn max() -> Uuid {
        Uuid::MAX
    }

    /// Parses a UUID in any of the four text forms, as [`Uuid::parse`].
    ///
    /// ```
    /// let u = uuidkit::Uuid::parse_str("urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
    /// assert_eq!(u.as_u128(), 0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Uuid::parse`]: what is wrong and where. Never panics.
    #[inline]
    pub fn parse_str(input: &str) -> Result<Uuid, ParseError> {
        Uuid::parse(input)
    }

    /// The UUID as two big-endian `u64`s: octets 0–7, then 8–15.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(u.as_u64_pair(), (0xf81d4fae_7dec_11d0, 0xa765_00a0c91e6bf6));
    /// assert_eq!(Uuid::from_u64_pair(0xf81d4fae_7dec_11d0, 0xa765_00a0c91e6bf6), u);
    /// ```
    #[must_use]
    #[inline]
    pub const fn as_u64_pair(&self) -> (u64, u64) {
        let v = self.as_u128();
        ((v >> 64) as u64, v as u64)
    }

    /// Builds a UUID from two big-endian `u64`s, the inverse of [`Uuid::as_u64_pair`].
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::from_u64_pair(0, 1).as_u128(), 1);
    /// ```
    #[must_use]
    #[inline]
    pub const fn from_u64_pair(high_bits: u64, low_bits: u64) -> Uuid {
        Uuid::from_u128(((high_bits as u128) << 64) | low_bits as u128)
    }

    /// A zeroed buffer long enough for every text form (the URN's 45 bytes),
    /// for the adapters' `encode_lower`/`encode_upper`.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let mut buf = Uuid::encode_buffer();
    /// assert_eq!(Uuid::MAX.simple().encode_upper(&mut buf), "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF");
    /// ```
    #[must_use]
    #[inline]
    pub const fn encode_buffer() -> [u8; Urn::LENGTH] {
        [0; Urn::LENGTH]
    }

    /// The raw version field as a `usize`, as [`Uuid::version_nibble`].
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::MAX.get_version_num(), 15);
    /// ```
    #[must_use]
    #[inline]
    pub const fn get_version_num(&self) -> usize {
        self.version_nibble() as usize
    }

    /// For a version 1 or 6 UUID, its node, as [`Uuid::node`].
    ///
    /// ```
    /// let v1 = uuidkit::Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
    /// assert_eq!(v1.get_node_id(), Some([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]));
    /// ```
    #[must_use]
    #[inline]
    pub const fn get_node_id(&self) -> Option<[u8; 6]> {
        self.node()
    }

    /// The timestamp of a version 1, 6 or 7 UUID as a [`Timestamp`]; `None`
    /// for any other version (and outside the RFC 9562 variant). v1 and v6
    /// keep 100-ns precision and the clock sequence; v7 has milliseconds.
    /// [`Uuid::unix_nanos`] gives the same instant as one signed number.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let v7 = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F); // RFC 9562 A.6
    /// assert_eq!(v7.get_timestamp().map(|t| t.to_unix()), Some((1_645_557_742, 0)));
    /// let v1 = Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846); // A.1
    /// assert_eq!(v1.get_timestamp().map(|t| t.to_gregorian()), Some((0x1EC9414C232AB00, 0x33C8)));
    /// assert_eq!(Uuid::NIL.get_timestamp(), None);
    /// ```
    #[must_use]
    #[inline]
    pub const fn get_timestamp(&self) -> Option<Timestamp> {
        if let (Some(ticks), Some(counter)) = (self.gregorian_timestamp(), self.clock_seq()) {
            return Some(Timestamp::from_gregorian(ticks, counter));
        }
        match (self.version(), self.unix_ts_ms()) {
            (Some(Version::SortRand), Some(ms)) => Some(Timestamp {
                seconds: ms / 1000,
                nanos: (ms % 1000) as u32 * 1_000_000,
                counter: 0,
            }),
            _ => None,
        }
    }

    /// Builds a UUID from `uuid`'s four-field split: octets 0–3 and 4–5 and
    /// 6–7 as big-endian integers, then octets 8–15 as they are. No version
    /// or variant bits are set; [`Fields::to_uuid`](crate::layout::Fields::to_uuid)
    /// takes the five fields of the RFC 4122 layout instead.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_fields(0xf81d4fae, 0x7dec, 0x11d0, &[0xa7, 0x65, 0x00, 0xa0, 0xc9, 0x1e, 0x6b, 0xf6]);
    /// assert_eq!(u.to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    /// assert_eq!(u.as_fields(), (0xf81d4fae, 0x7dec, 0x11d0, &[0xa7, 0x65, 0x00, 0xa0, 0xc9, 0x1e, 0x6b, 0xf6]));
    /// ```
    #[must_use]
    #[inline]
    pub const fn from_fields(d1: u32, d2: u16, d3: u16, d4: &[u8; 8]) -> Uuid {
        let high = ((d1 as u64) << 32) | ((d2 as u64) << 16) | d3 as u64;
        Uuid::from_u64_pair(high, u64::from_be_bytes(*d4))
    }

    /// The four-field split that [`Uuid::from_fields`] takes.
    ///
    /// ```
    /// let (d1, d2, d3, d4) = uuidkit::Uuid::MAX.as_fields();
    /// assert_eq!((d1, d2, d3, d4), (u32::MAX, u16::MAX, u16::MAX, &[0xff; 8]));
    /// ```
    #[must_use]
    #[inline]
    pub const fn as_fields(&self) -> (u32, u16, u16, &[u8; 8]) {
        let (high, _) = self.as_u64_pair();
        let [_, _, _, _, _, _, _, _, d4 @ ..] = self.as_bytes();
        ((high >> 32) as u32, (high >> 16) as u16, high as u16, d4)
    }
}

/// A timestamp read from a version 1, 6 or 7 UUID by [`Uuid::get_timestamp`]:
/// seconds and nanoseconds since the Unix epoch and, for v1 and v6, the
/// 14-bit clock sequence.
///
/// A v1 or v6 timestamp before 1970 wraps around in [`Timestamp::to_unix`], as
/// it does in the `uuid` crate; [`Uuid::unix_nanos`] is signed and exact.
///
/// ```
/// use uuidkit::Uuid;
/// let v6 = Uuid::from_u128(0x1EC9414C_232A_6B00_B3C8_9F6BDECED846); // RFC 9562 A.5
/// let ts = v6.get_timestamp().unwrap();
/// assert_eq!(ts.to_unix(), (1_645_557_742, 0));
/// assert_eq!(ts.to_gregorian(), (0x1EC9414C232AB00, 0x33C8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timestamp {
    seconds: u64,
    nanos: u32,
    counter: u16,
}

impl Timestamp {
    const fn from_gregorian(ticks: u64, counter: u16) -> Timestamp {
        let since_unix = ticks.wrapping_sub(GREGORIAN_TO_UNIX_100NS);
        Timestamp {
            seconds: since_unix / 10_000_000,
            nanos: (since_unix % 10_000_000) as u32 * 100,
            counter,
        }
    }

    /// Seconds and nanoseconds since 1970-01-01T00:00:00Z.
    ///
    /// ```
    /// let v7 = uuidkit::Uuid::v7_min(1_500);
    /// assert_eq!(v7.get_timestamp().unwrap().to_unix(), (1, 500_000_000));
    /// ```
    #[must_use]
    #[inline]
    pub const fn to_unix(&self) -> (u64, u32) {
        (self.seconds, self.nanos)
    }

    /// 100-ns intervals since 1582-10-15T00:00:00Z and the 14-bit clock
    /// sequence (0 for a v7 timestamp).
    ///
    /// ```
    /// let v7 = uuidkit::Uuid::v7_min(0);
    /// assert_eq!(v7.get_timestamp().unwrap().to_gregorian(), (uuidkit::layout::GREGORIAN_TO_UNIX_100NS, 0));
    /// ```
    #[must_use]
    #[inline]
    pub const fn to_gregorian(&self) -> (u64, u16) {
        let ticks = GREGORIAN_TO_UNIX_100NS
            .wrapping_add(self.seconds.wrapping_mul(10_000_000))
            .wrapping_add(self.nanos as u64 / 100);
        (ticks, self.counter & MAX_CLOCK_SEQ)
    }
}

#[cfg(feature = "std")]
impl From<Timestamp> for std::time::SystemTime {
    /// The instant, or the Unix epoch if `SystemTime` cannot hold it.
    fn from(ts: Timestamp) -> std::time::SystemTime {
        let since = std::time::Duration::new(ts.seconds, ts.nanos);
        std::time::SystemTime::UNIX_EPOCH
            .checked_add(since)
            .unwrap_or(std::time::SystemTime::UNIX_EPOCH)
    }
}

#[cfg(feature = "std")]
impl From<Uuid> for std::string::String {
    /// The canonical form, as `to_string`.
    fn from(u: Uuid) -> std::string::String {
        std::string::ToString::to_string(&u)
    }
}

#[cfg(feature = "std")]
impl From<Uuid> for std::vec::Vec<u8> {
    /// The 16 octets in network byte order.
    fn from(u: Uuid) -> std::vec::Vec<u8> {
        u.as_bytes().to_vec()
    }
}

#[cfg(feature = "std")]
impl TryFrom<std::string::String> for Uuid {
    type Error = ParseError;

    /// As [`Uuid::parse`].
    fn try_from(s: std::string::String) -> Result<Uuid, ParseError> {
        Uuid::parse(&s)
    }
}

impl AsRef<Uuid> for Uuid {
    #[inline]
    fn as_ref(&self) -> &Uuid {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gregorian_timestamps_round_trip_through_unix_parts() {
        for ticks in [
            0,
            1,
            GREGORIAN_TO_UNIX_100NS - 1,
            GREGORIAN_TO_UNIX_100NS,
            (1 << 60) - 1,
        ] {
            let v1 = Uuid::new_v1_from_parts(ticks, 0x2a5b, [1, 2, 3, 4, 5, 6]);
            let v6 = Uuid::new_v6_from_parts(ticks, 0x2a5b, [1, 2, 3, 4, 5, 6]);
            for u in [v1, v6] {
                let ts = u.get_timestamp().unwrap();
                assert_eq!(ts.to_gregorian(), (ticks, 0x2a5b), "{u}");
                if ticks >= GREGORIAN_TO_UNIX_100NS {
                    let ns = u.unix_nanos().unwrap();
                    let (s, n) = ts.to_unix();
                    assert_eq!(i128::from(s) * 1_000_000_000 + i128::from(n), ns, "{u}");
                }
            }
        }
    }

    #[test]
    fn fields_split_at_uuids_boundaries() {
        let u = Uuid::from_u128(0x00112233_4455_6677_8899_aabbccddeeff);
        let (d1, d2, d3, d4) = u.as_fields();
        assert_eq!((d1, d2, d3), (0x00112233, 0x4455, 0x6677));
        assert_eq!(d4, &[0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]);
        assert_eq!(Uuid::from_fields(d1, d2, d3, d4), u);
    }
}
