//! [`NonNilUuid`]: a UUID that is known not to be the Nil UUID, so that
//! `Option<NonNilUuid>` costs no more than a `Uuid`.

use core::fmt;
use core::num::NonZeroU128;

use crate::{ParseError, Uuid};

/// A [`Uuid`] that is not the Nil UUID (RFC 9562 §5.9).
///
/// The Nil value is the niche, so `Option<NonNilUuid>` is 16 bytes: a table
/// column or a struct field that "may have no ID yet" costs nothing extra,
/// and `None` takes the place that code would otherwise give the Nil UUID.
///
/// Ordering, equality, hashing and the text forms are those of the
/// [`Uuid`] it holds. Its alignment is a `u128`'s (the niche comes from
/// `NonZeroU128`), where a `Uuid`'s is 1. Every UUID with version and variant bits (v1–v8) is
/// non-nil, so the generators here return a `NonNilUuid` without a check;
/// any other `Uuid` goes through [`NonNilUuid::new`] or `TryFrom`.
///
/// ```
/// use core::mem::size_of;
/// use uuidkit::{NonNilUuid, Uuid};
///
/// assert_eq!(size_of::<Option<NonNilUuid>>(), size_of::<Uuid>());
///
/// let id: NonNilUuid = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6".parse()?;
/// assert_eq!(Uuid::from(id).to_string(), id.to_string());
/// assert!(NonNilUuid::try_from(Uuid::NIL).is_err());
/// # Ok::<(), uuidkit::error::NonNilError>(())
/// ```
// A `NonZeroU128` whose memory is the 16 octets in network order (the
// native-endian reading of them), as a `Uuid`'s is: its niche (zero) is
// exactly the Nil UUID, and a byte-level cast (`bytemuck`) sees the same
// octets for both types. Order is therefore not the integer's; it is
// implemented below as the `Uuid`'s.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "zerocopy",
    derive(
        zerocopy::TryFromBytes,
        zerocopy::IntoBytes,
        zerocopy::Immutable,
        zerocopy::KnownLayout
    )
)]
#[repr(transparent)]
pub struct NonNilUuid(NonZeroU128);

impl NonNilUuid {
    /// `Some` unless `uuid` is the Nil UUID.
    ///
    /// ```
    /// use uuidkit::{NonNilUuid, Uuid};
    /// assert!(NonNilUuid::new(Uuid::NIL).is_none());
    /// assert_eq!(NonNilUuid::new(Uuid::MAX).map(NonNilUuid::get), Some(Uuid::MAX));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(uuid: Uuid) -> Option<NonNilUuid> {
        match NonZeroU128::new(u128::from_ne_bytes(uuid.into_bytes())) {
            Some(value) => Some(NonNilUuid(value)),
            None => None,
        }
    }

    /// The UUID.
    ///
    /// ```
    /// use uuidkit::{NonNilUuid, Uuid};
    /// let u = Uuid::from_u128(7);
    /// assert_eq!(NonNilUuid::new(u).unwrap().get(), u);
    /// ```
    #[inline]
    #[must_use]
    pub const fn get(self) -> Uuid {
        Uuid::from_bytes(self.0.get().to_ne_bytes())
    }

    /// Wraps a UUID whose version and variant bits were just set. Those
    /// bits make octet 8 non-zero, so the value can never be nil.
    #[inline]
    const fn versioned(uuid: Uuid) -> NonNilUuid {
        match NonNilUuid::new(uuid) {
            Some(id) => id,
            // Octet 8 of a versioned UUID always has its top bit set.
            None => unreachable!(),
        }
    }

    /// [`Uuid::from_random_bytes`]: a v4 UUID from 16 random octets.
    ///
    /// ```
    /// use uuidkit::{NonNilUuid, Version};
    /// // Even all-zero "random" bytes give a non-nil v4 UUID.
    /// let id = NonNilUuid::from_random_bytes([0; 16]);
    /// assert_eq!(id.get().version(), Some(Version::Random));
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_random_bytes(bytes: [u8; 16]) -> NonNilUuid {
        NonNilUuid::versioned(Uuid::from_random_bytes(bytes))
    }

    /// [`Uuid::new_v4_from_rng`]: a v4 UUID from the given generator.
    ///
    /// ```
    /// use rand_chacha::ChaCha8Rng;
    /// use rand_core::SeedableRng;
    /// use uuidkit::{NonNilUuid, Version};
    /// let mut rng = ChaCha8Rng::seed_from_u64(7);
    /// let (a, b) = (NonNilUuid::new_v4_from_rng(&mut rng), NonNilUuid::new_v4_from_rng(&mut rng));
    /// assert_ne!(a, b);
    /// assert_eq!(a.get().version(), Some(Version::Random));
    /// ```
    #[inline]
    pub fn new_v4_from_rng<R: rand_core::Rng + ?Sized>(rng: &mut R) -> NonNilUuid {
        NonNilUuid::versioned(Uuid::new_v4_from_rng(rng))
    }

    /// [`Uuid::new_v3`]: the MD5 name-based UUID.
    ///
    /// ```
    /// use uuidkit::{namespace, NonNilUuid, Uuid};
    /// let id = NonNilUuid::new_v3(&namespace::DNS, b"www.example.com");
    /// assert_eq!(id.get(), Uuid::new_v3(&namespace::DNS, b"www.example.com"));
    /// ```
    #[inline]
    #[must_use]
    pub fn new_v3(namespace: &Uuid, name: &[u8]) -> NonNilUuid {
        NonNilUuid::versioned(Uuid::new_v3(namespace, name))
    }

    /// [`Uuid::new_v5`]: the SHA-1 name-based UUID.
    ///
    /// ```
    /// use uuidkit::{namespace, NonNilUuid};
    /// let id = NonNilUuid::new_v5(&namespace::DNS, b"www.example.com");
    /// assert_eq!(id.to_string(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
    /// ```
    #[inline]
    #[must_use]
    pub fn new_v5(namespace: &Uuid, name: &[u8]) -> NonNilUuid {
        NonNilUuid::versioned(Uuid::new_v5(namespace, name))
    }

    /// [`Uuid::new_v7_from_parts`]: a v7 UUID from its three fields.
    ///
    /// ```
    /// use uuidkit::{NonNilUuid, Uuid};
    /// // Zero fields still carry the version and variant bits.
    /// let id = NonNilUuid::new_v7_from_parts(0, 0, 0);
    /// assert_eq!(id.get(), Uuid::v7_min(0));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new_v7_from_parts(unix_ts_ms: u64, rand_a: u16, rand_b: u64) -> NonNilUuid {
        NonNilUuid::versioned(Uuid::new_v7_from_parts(unix_ts_ms, rand_a, rand_b))
    }
}

#[cfg(feature = "std")]
impl NonNilUuid {
    /// [`Uuid::new_v4`]: a random UUID from the thread's generator.
    ///
    /// ```
    /// use uuidkit::{NonNilUuid, Version};
    /// let id = NonNilUuid::new_v4();
    /// assert_eq!(id.get().version(), Some(Version::Random));
    /// assert_ne!(id, NonNilUuid::new_v4());
    /// ```
    #[inline]
    #[must_use]
    pub fn new_v4() -> NonNilUuid {
        NonNilUuid::versioned(Uuid::new_v4())
    }

    /// [`Uuid::now_v7`]: a v7 UUID from the process-wide generator, with the
    /// same ordering guarantees.
    ///
    /// ```
    /// use uuidkit::NonNilUuid;
    /// let (a, b) = (NonNilUuid::now_v7(), NonNilUuid::now_v7());
    /// assert!(a < b);
    /// ```
    #[inline]
    #[must_use]
    pub fn now_v7() -> NonNilUuid {
        NonNilUuid::versioned(Uuid::now_v7())
    }
}

/// Why a [`NonNilUuid`] could not be made: the UUID was the Nil UUID, or
/// (for parsing) the text was not a UUID.
///
/// ```
/// use uuidkit::{NonNilUuid, Uuid};
/// let err = NonNilUuid::try_from(Uuid::NIL).unwrap_err();
/// assert!(err.is_nil());
/// assert_eq!(err.to_string(), "expected a non-nil UUID, found the nil UUID");
///
/// let err = "f81d4fae".parse::<NonNilUuid>().unwrap_err();
/// assert_eq!(err.parse_error().map(|e| e.position()), Some(None));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NonNilError(Option<ParseError>);

impl NonNilError {
    /// True if the input was the Nil UUID (a valid UUID, but not allowed here).
    ///
    /// ```
    /// let err = "00000000-0000-0000-0000-000000000000".parse::<uuidkit::NonNilUuid>().unwrap_err();
    /// assert!(err.is_nil());
    /// ```
    #[must_use]
    pub const fn is_nil(&self) -> bool {
        self.0.is_none()
    }

    /// The parse error, if the text was not a UUID at all.
    ///
    /// ```
    /// let err = "{x}".parse::<uuidkit::NonNilUuid>().unwrap_err();
    /// assert!(!err.is_nil());
    /// assert_eq!(err.to_string(), err.parse_error().unwrap().to_string());
    /// ```
    #[must_use]
    pub const fn parse_error(&self) -> Option<ParseError> {
        self.0
    }
}

impl fmt::Display for NonNilError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(e) => fmt::Display::fmt(e, f),
            None => f.write_str("expected a non-nil UUID, found the nil UUID"),
        }
    }
}

/// No `source`: a `NonNilError` from parsing is the [`ParseError`] itself
/// (its `Display`), so an error chain names the cause once.
impl core::error::Error for NonNilError {}

impl From<ParseError> for NonNilError {
    #[cold]
    fn from(e: ParseError) -> NonNilError {
        NonNilError(Some(e))
    }
}

impl TryFrom<Uuid> for NonNilUuid {
    type Error = NonNilError;

    /// # Errors
    ///
    /// [`NonNilError::is_nil`] for the Nil UUID.
    #[inline]
    fn try_from(uuid: Uuid) -> Result<NonNilUuid, NonNilError> {
        NonNilUuid::new(uuid).ok_or(NonNilError(None))
    }
}

impl From<NonNilUuid> for Uuid {
    #[inline]
    fn from(id: NonNilUuid) -> Uuid {
        id.get()
    }
}

impl core::str::FromStr for NonNilUuid {
    type Err = NonNilError;

    /// [`Uuid::parse`], then the nil check.
    fn from_str(s: &str) -> Result<NonNilUuid, NonNilError> {
        NonNilUuid::try_from(Uuid::parse(s)?)
    }
}

/// Ordered as the [`Uuid`] it holds (its octets, in order).
impl Ord for NonNilUuid {
    #[inline]
    fn cmp(&self, other: &NonNilUuid) -> core::cmp::Ordering {
        self.get().as_u128().cmp(&other.get().as_u128())
    }
}

impl PartialOrd for NonNilUuid {
    #[inline]
    fn partial_cmp(&self, other: &NonNilUuid) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Hashes as the [`Uuid`] it holds, so both hash alike.
impl core::hash::Hash for NonNilUuid {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.get().hash(state);
    }
}

macro_rules! forward_fmt {
    ($($trait:ident),*) => {$(
        impl fmt::$trait for NonNilUuid {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::$trait::fmt(&self.get(), f)
            }
        }
    )*};
}
forward_fmt!(Display, Debug, LowerHex, UpperHex);

#[cfg(test)]
mod tests {
    use core::hash::{BuildHasher, Hash, Hasher};
    use core::mem::{align_of, size_of};
    use std::collections::hash_map::RandomState;
    use std::format;
    use std::string::ToString;

    use super::*;

    const U: Uuid = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);

    /// Every message of an error and its sources, as a reporter prints them.
    fn chain(e: &dyn core::error::Error) -> std::vec::Vec<std::string::String> {
        let mut out = std::vec![e.to_string()];
        let mut next = e.source();
        while let Some(s) = next {
            out.push(s.to_string());
            next = s.source();
        }
        out
    }

    #[test]
    fn an_error_chain_names_the_parse_error_once() {
        let err = "f81d4fae-7dec-11d0-a765-00a0c91e6bfg"
            .parse::<NonNilUuid>()
            .unwrap_err();
        let messages = chain(&err);
        let cause = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bfg")
            .unwrap_err()
            .to_string();
        assert_eq!(
            messages.join(": ").matches(&cause).count(),
            1,
            "{messages:?}"
        );
        assert_eq!(messages, [cause]);
        let nil = NonNilUuid::try_from(Uuid::NIL).unwrap_err();
        assert_eq!(chain(&nil), ["expected a non-nil UUID, found the nil UUID"]);
    }

    #[test]
    fn option_of_non_nil_is_the_size_of_a_uuid() {
        assert_eq!(size_of::<Option<NonNilUuid>>(), 16);
        assert_eq!(size_of::<NonNilUuid>(), size_of::<Uuid>());
        assert!(align_of::<NonNilUuid>() >= align_of::<Uuid>());
    }

    #[test]
    fn conversions_keep_every_non_nil_value_and_refuse_nil() {
        for u in [U, Uuid::MAX, Uuid::from_u128(1), Uuid::from_u128(1 << 127)] {
            let id = NonNilUuid::try_from(u).unwrap();
            assert_eq!(Uuid::from(id), u);
            assert_eq!(id.get().as_bytes(), u.as_bytes());
        }
        let err = NonNilUuid::try_from(Uuid::NIL).unwrap_err();
        assert!(err.is_nil() && err.parse_error().is_none());
    }

    #[test]
    fn text_order_and_hash_are_those_of_the_uuid() {
        let id = NonNilUuid::new(U).unwrap();
        assert_eq!(id.to_string(), U.to_string());
        assert_eq!(format!("{id:?}"), format!("{U:?}"));
        assert_eq!(format!("{id:X}"), format!("{U:X}"));
        assert_eq!(
            "F81D4FAE7DEC11D0A76500A0C91E6BF6".parse::<NonNilUuid>(),
            Ok(id)
        );

        // Pairs whose order differs between big- and little-endian readings.
        for (a, b) in [(0x0100, 1 << 120), (0x01, 0x0100), (0xff << 64, 1 << 72)] {
            let (small, big) = (Uuid::from_u128(a), Uuid::from_u128(b));
            assert!(small < big);
            let (x, y) = (
                NonNilUuid::new(small).unwrap(),
                NonNilUuid::new(big).unwrap(),
            );
            assert!(x < y, "{small} < {big}");
            assert_eq!(y.cmp(&x), core::cmp::Ordering::Greater);
        }

        let hasher = RandomState::new();
        let hash = |x: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            let mut h = hasher.build_hasher();
            x(&mut h);
            h.finish()
        };
        assert_eq!(hash(&|h| id.hash(h)), hash(&|h| U.hash(h)));
    }

    proptest::proptest! {
        /// Order, equality and the round trip agree with `Uuid` for any
        /// two values (the order is hand-written over a native-endian word).
        #[test]
        fn behaves_as_the_uuid_it_holds(a: u128, b: u128) {
            let (x, y) = (Uuid::from_u128(a), Uuid::from_u128(b));
            if let (Some(p), Some(q)) = (NonNilUuid::new(x), NonNilUuid::new(y)) {
                proptest::prop_assert_eq!(p.cmp(&q), x.cmp(&y));
                proptest::prop_assert_eq!(p == q, x == y);
                proptest::prop_assert_eq!((p.get(), q.get()), (x, y));
            } else {
                proptest::prop_assert!(a == 0 || b == 0);
            }
        }
    }

    #[test]
    fn parse_errors_say_what_went_wrong() {
        let err = "f81d4fae-7dec-11d0-a765-00a0c91e6bfg"
            .parse::<NonNilUuid>()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid character 'g' at position 35: expected a hex digit"
        );
        // The message is the cause's own: no source repeats it.
        assert!(core::error::Error::source(&err).is_none());
        assert_eq!(err.parse_error().map(|e| e.position()), Some(Some(35)));
        let nil = "urn:uuid:00000000-0000-0000-0000-000000000000".parse::<NonNilUuid>();
        assert!(nil.unwrap_err().is_nil());
    }

    #[test]
    fn generators_give_the_versions_they_name() {
        use crate::Version;
        assert_eq!(NonNilUuid::new_v4().get().version(), Some(Version::Random));
        assert_eq!(
            NonNilUuid::now_v7().get().version(),
            Some(Version::SortRand)
        );
        let ns = crate::namespace::URL;
        assert_eq!(
            NonNilUuid::new_v3(&ns, b"x").get().version(),
            Some(Version::Md5)
        );
        assert_eq!(
            NonNilUuid::new_v5(&ns, b"x").get().version(),
            Some(Version::Sha1)
        );
        assert_eq!(
            NonNilUuid::from_random_bytes([0; 16]).get().as_u128(),
            0x00000000_0000_4000_8000_000000000000
        );
    }
}
