//! Version 8 (RFC 9562 §5.8): custom UUIDs from your own bits, the
//! name-based layout of Appendix B.2 with a modern hash, and the time-based
//! layout of Appendix B.1 with its generator. The distributed layout of §6.4
//! is in `distributed.rs`.

use rand_core::Rng;
use shake::XofReader as _;

use crate::clock::Clock;
use crate::generator::{
    ClockBackPolicy, DEFAULT_TOLERANCE_NS, GenError, GenErrorKind, Generator, Owner,
};
use crate::layout::MAX_V8_TIME_10NS;
use crate::{Uuid, Version};

/// Appendix B.1's timestamp: 60 bits of 10-ns units since the Unix epoch.
const MASK_60: u64 = MAX_V8_TIME_10NS;
/// The 62 bits of `custom_c`.
const MASK_62: u128 = (1 << 62) - 1;

/// The hash behind a version 8 name-based UUID (RFC 9562 Appendix B.2).
///
/// The RFC's own example uses SHA-256; it allows any SHA-2 or SHA-3 function,
/// and SHAKE with an output of at least 128 bits (uuidkit takes exactly 128).
/// Two parties must agree on the hash as they agree on the namespace: nothing in
/// the UUID records which was used.
///
/// ```
/// use uuidkit::{namespace, NameHash, Uuid};
/// let u = Uuid::new_v8_name(NameHash::Sha256, &namespace::DNS, b"www.example.com");
/// assert_eq!(u.to_string(), "5c146b14-3c52-8afd-938a-375d0df1fbf6");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum NameHash {
    /// SHA-256 (FIPS 180-4), as in RFC 9562 Appendix B.2.
    Sha256,
    /// SHA-512 (FIPS 180-4).
    Sha512,
    /// SHA3-256 (FIPS 202).
    Sha3_256,
    /// SHA3-512 (FIPS 202).
    Sha3_512,
    /// SHAKE128 (FIPS 202), 128 bits of output.
    Shake128,
    /// SHAKE256 (FIPS 202), 128 bits of output.
    Shake256,
}

impl Uuid {
    /// A version 8 name-based UUID (RFC 9562 Appendix B.2): the leftmost 128
    /// bits of `hash` over the namespace ID's 16 octets followed by `name`, with
    /// the version (8) and variant bits overwritten.
    ///
    /// Section 5.5 requires name-based UUIDs with SHA-256 or newer hashes to be
    /// version 8, never 5; this is that constructor.
    ///
    /// ```
    /// use uuidkit::{namespace, NameHash, Uuid, Version};
    /// let u = Uuid::new_v8_name(NameHash::Sha3_256, &namespace::URL, b"https://example.com/");
    /// assert_eq!(u.version(), Some(Version::Custom));
    /// assert_eq!(u, Uuid::new_v8_name(NameHash::Sha3_256, &namespace::URL, b"https://example.com/"));
    /// ```
    #[must_use]
    pub fn new_v8_name(hash: NameHash, namespace: &Uuid, name: &[u8]) -> Uuid {
        fn leftmost<D: sha2::Digest>(ns: &Uuid, name: &[u8]) -> [u8; 16] {
            let digest = D::new()
                .chain_update(ns.as_bytes())
                .chain_update(name)
                .finalize();
            let mut out = [0u8; 16];
            out.copy_from_slice(&digest[..16]);
            out
        }
        fn xof<X: Default + shake::Update + shake::ExtendableOutput>(
            ns: &Uuid,
            name: &[u8],
        ) -> [u8; 16] {
            let mut x = X::default();
            x.update(ns.as_bytes());
            x.update(name);
            let mut out = [0u8; 16];
            x.finalize_xof().read(&mut out);
            out
        }
        let bytes = match hash {
            NameHash::Sha256 => leftmost::<sha2::Sha256>(namespace, name),
            NameHash::Sha512 => leftmost::<sha2::Sha512>(namespace, name),
            NameHash::Sha3_256 => leftmost::<sha3::Sha3_256>(namespace, name),
            NameHash::Sha3_512 => leftmost::<sha3::Sha3_512>(namespace, name),
            NameHash::Shake128 => xof::<shake::Shake128>(namespace, name),
            NameHash::Shake256 => xof::<shake::Shake256>(namespace, name),
        };
        Uuid::from_bytes(bytes).with_version(Version::Custom)
    }

    /// A version 8 UUID (RFC 9562 §5.8) from 16 bytes of your own layout: the
    /// version and variant bits are overwritten, the other 122 bits kept.
    ///
    /// See also [`Uuid::new_v8_from_parts`] for the `custom_a`/`custom_b`/`custom_c`
    /// view of the same bits. Uniqueness of v8 UUIDs is up to you (§5.8).
    ///
    /// ```
    /// use uuidkit::{Uuid, Version};
    /// let u = Uuid::new_v8([0xff; 16]);
    /// assert_eq!(u.to_string(), "ffffffff-ffff-8fff-bfff-ffffffffffff");
    /// assert_eq!(u.version(), Some(Version::Custom));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new_v8(bytes: [u8; 16]) -> Uuid {
        Uuid::from_bytes(bytes).with_version(Version::Custom)
    }

    /// A time-based v8 UUID in the layout of RFC 9562 Appendix B.1: the low 60 bits
    /// of a Unix timestamp in 10-ns units, most significant first (`custom_a` = its
    /// top 48 bits, `custom_b` = its low 12), then 62 bits of `custom_c` (random
    /// in B.1).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// // RFC 9562 Appendix B.1
    /// let u = Uuid::new_v8_time(0x2489E9AD2EE2E00, 0x0EC932D5F69181C0);
    /// assert_eq!(u.as_u128(), 0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0);
    /// ```
    #[inline]
    #[must_use]
    pub const fn new_v8_time(unix_10ns: u64, custom_c: u64) -> Uuid {
        let t = unix_10ns & MASK_60;
        Uuid::new_v8_from_parts(t >> 12, (t & 0xFFF) as u16, custom_c)
    }

    /// For a version 8 UUID, its 48-bit `custom_a` field (RFC 9562 §5.8):
    /// the first 48 bits. `None` for any other version.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let b1 = Uuid::from_u128(0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0); // Appendix B.1
    /// assert_eq!(b1.custom_a(), Some(0x2489E9AD2EE2));
    /// assert_eq!(Uuid::new_v8_from_parts(1, 2, 3).custom_a(), Some(1));
    /// ```
    #[inline]
    #[must_use]
    pub const fn custom_a(&self) -> Option<u64> {
        match self.version() {
            Some(Version::Custom) => Some((self.as_u128() >> 80) as u64),
            _ => None,
        }
    }

    /// For a version 8 UUID, its 12-bit `custom_b` field (after the version
    /// bits). `None` for any other version.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let b1 = Uuid::from_u128(0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0); // Appendix B.1
    /// assert_eq!(b1.custom_b(), Some(0xE00));
    /// assert_eq!(Uuid::new_v4().custom_b(), None);
    /// ```
    #[inline]
    #[must_use]
    pub const fn custom_b(&self) -> Option<u16> {
        match self.version() {
            Some(Version::Custom) => Some(((self.as_u128() >> 64) & 0xFFF) as u16),
            _ => None,
        }
    }

    /// For a version 8 UUID, its 62-bit `custom_c` field (after the variant
    /// bits). `None` for any other version.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let b1 = Uuid::from_u128(0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0); // Appendix B.1
    /// assert_eq!(b1.custom_c(), Some(0x0EC932D5F69181C0));
    /// ```
    #[inline]
    #[must_use]
    pub const fn custom_c(&self) -> Option<u64> {
        match self.version() {
            Some(Version::Custom) => Some((self.as_u128() & MASK_62) as u64),
            _ => None,
        }
    }

    /// For a version 8 UUID read as Appendix B.1's time-based layout, its
    /// 60-bit Unix timestamp in 10-ns units (`custom_a` then `custom_b`): the
    /// inverse of [`Uuid::new_v8_time`]. `None` for any other version. v8
    /// layouts are application-defined (§5.8): only the UUID's creator knows
    /// whether this reading means anything.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let b1 = Uuid::from_u128(0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0); // Appendix B.1
    /// assert_eq!(b1.v8_time_10ns(), Some(0x2489E9AD2EE2E00)); // 2022-02-22T19:22:22Z
    /// assert_eq!(Uuid::new_v8_time(12_345, 0).v8_time_10ns(), Some(12_345));
    /// ```
    #[inline]
    #[must_use]
    pub const fn v8_time_10ns(&self) -> Option<u64> {
        match self.version() {
            Some(Version::Custom) => {
                let high = (self.as_u128() >> 64) as u64;
                Some(((high >> 16) << 12) | (high & 0xFFF))
            }
            _ => None,
        }
    }
}

/// The validated configuration of a [`V8TimeGenerator`]; made by
/// [`V8TimeGenerator::builder`].
///
/// ```
/// use uuidkit::{clock::ManualClock, generator::{ClockBackPolicy, GenErrorKind}, rng::ThreadRng};
/// use uuidkit::{Generator, V8TimeGenerator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000);
/// let mut g = V8TimeGenerator::builder().clock_back(ClockBackPolicy::Error, 0).build(&clock, ThreadRng)?;
/// g.generate()?;
/// clock.step_back(100);
/// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use = "a builder does nothing until `build`; its methods return the changed builder"]
pub struct V8TimeBuilder {
    clock_back: ClockBackPolicy,
    tolerance_ns: u64,
}

impl Default for V8TimeBuilder {
    fn default() -> V8TimeBuilder {
        V8TimeGenerator::builder()
    }
}

impl V8TimeBuilder {
    /// The clock-back policy beyond `tolerance_ns` (default
    /// [`ClockBackPolicy::Error`] beyond 10 s); within it the generator counts
    /// on from its last timestamp.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::ClockBackPolicy, rng::ThreadRng, Generator, V8TimeGenerator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V8TimeGenerator::builder().clock_back(ClockBackPolicy::Reset, 0).build(&clock, ThreadRng)?;
    /// let a = g.generate()?;
    /// clock.step_back(1_000);
    /// assert!(g.generate()? < a, "reset: follows the clock back");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn clock_back(mut self, policy: ClockBackPolicy, tolerance_ns: u64) -> V8TimeBuilder {
        self.clock_back = policy;
        self.tolerance_ns = tolerance_ns;
        self
    }

    /// Makes the generator. Every combination of settings is valid today; the
    /// `Result` keeps every builder's `build` alike.
    ///
    /// # Errors
    /// None yet.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V8TimeGenerator};
    /// assert!(V8TimeGenerator::builder().build(ManualClock::new(0), ThreadRng).is_ok());
    /// ```
    pub fn build<C: Clock, R: Rng>(
        self,
        clock: C,
        rng: R,
    ) -> Result<V8TimeGenerator<C, R>, GenError> {
        Ok(V8TimeGenerator {
            clock,
            rng,
            last: 0,
            started: false,
            clock_back: self.clock_back,
            tolerance_ns: self.tolerance_ns,
            owner: Owner::here(),
        })
    }
}

/// A monotonic generator of B.1-layout v8 UUIDs (see [`Uuid::new_v8_time`]): the
/// timestamp is the clock in 10-ns units, moved one unit past the previous
/// timestamp when the clock has not advanced (so one generator's output strictly
/// increases), with 62 random bits. A clock step back within the tolerance
/// (default 10 s) keeps counting from the last timestamp; beyond it the
/// [`ClockBackPolicy`] applies ([`V8TimeBuilder::clock_back`]). v8 uniqueness
/// is implementation-specific (§5.8): this layout has 62 random bits per UUID.
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V8TimeGenerator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000);
/// let mut g = V8TimeGenerator::new(&clock, ThreadRng);
/// let (a, b) = (g.generate()?, g.generate()?);
/// assert_eq!(a.as_u128() >> 80, 0x2489E9AD2EE2);
/// assert_eq!(b.as_u128() >> 64 & 0xFFF, 0xE01); // one 10-ns unit later
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V8TimeGenerator<C, R> {
    clock: C,
    rng: R,
    last: u64,
    started: bool,
    clock_back: ClockBackPolicy,
    tolerance_ns: u64,
    owner: Owner,
}

impl V8TimeGenerator<(), ()> {
    /// The builder: every setting, checked by [`V8TimeBuilder::build`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::ClockBackPolicy, rng::ThreadRng, V8TimeGenerator};
    /// let b = V8TimeGenerator::builder().clock_back(ClockBackPolicy::Error, 1_000);
    /// assert!(b.build(ManualClock::new(0), ThreadRng).is_ok());
    /// ```
    pub const fn builder() -> V8TimeBuilder {
        V8TimeBuilder {
            clock_back: ClockBackPolicy::Error,
            tolerance_ns: DEFAULT_TOLERANCE_NS,
        }
    }
}

impl<C: Clock, R: Rng> V8TimeGenerator<C, R> {
    /// A generator with the default policy: an error beyond a 10 s step back.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V8TimeGenerator};
    /// let mut g = V8TimeGenerator::new(ManualClock::new(10), ThreadRng);
    /// assert_eq!(g.generate()?.v8_time_10ns(), Some(1));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn new(clock: C, rng: R) -> Self {
        match V8TimeGenerator::builder().build(clock, rng) {
            Ok(g) => g,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }

    /// The next UUID as if the clock read `unix_ns`.
    ///
    /// # Errors
    /// As [`generate`](Generator::generate).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V8TimeGenerator};
    /// let mut g = V8TimeGenerator::new(ManualClock::new(0), ThreadRng);
    /// assert_eq!(g.at(1_645_557_742_000_000_000)?.as_u128() >> 64 & !0xF000, 0x2489E9AD_2EE2_0E00);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn at(&mut self, unix_ns: u64) -> Result<Uuid, GenError> {
        if self.owner.forked() {
            self.after_fork();
        }
        let now = unix_ns / 10;
        let t = if !self.started || now > self.last {
            now
        } else if (self.last - now).saturating_mul(10) <= self.tolerance_ns {
            self.last + 1
        } else {
            match self.clock_back {
                ClockBackPolicy::Reset => now,
                ClockBackPolicy::Error => {
                    return Err(GenError::new(
                        GenErrorKind::ClockBehind,
                        self.last
                            .saturating_mul(10)
                            .saturating_sub(self.tolerance_ns),
                        unix_ns,
                    ));
                }
            }
        };
        if t > MAX_V8_TIME_10NS {
            // The field would wrap to 1970: the output must keep increasing.
            return Err(GenError::new(
                GenErrorKind::TimestampOutOfRange,
                MAX_V8_TIME_10NS,
                t,
            ));
        }
        self.last = t;
        self.started = true;
        Ok(Uuid::new_v8_time(t, self.rng.next_u64()))
    }
}

impl<C, R: Rng> V8TimeGenerator<C, R> {
    /// In a forked child, which would otherwise step on from the parent's
    /// last timestamp as the parent does: a random jump of 1 to 1024 units
    /// (at most 10.24 µs ahead), so the two do not walk the same timestamps.
    #[cold]
    fn after_fork(&mut self) {
        self.owner.take_over();
        if self.started {
            self.last = self.last.saturating_add(1 + (self.rng.next_u64() & 0x3FF));
        }
    }
}

impl<C: Clock, R: Rng> Generator for V8TimeGenerator<C, R> {
    /// The next UUID at the clock's current time.
    ///
    /// # Errors
    /// [`GenErrorKind::ClockBehind`] under [`ClockBackPolicy::Error`], and
    /// [`GenErrorKind::TimestampOutOfRange`] past the layout's end in 2335
    /// ([`MAX_V8_TIME_10NS`](crate::layout::MAX_V8_TIME_10NS), in 10-ns units): the
    /// 60-bit field would wrap, so nothing is returned rather than a UUID
    /// below the last one.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V8TimeGenerator};
    /// let mut g = V8TimeGenerator::new(ManualClock::new(10), ThreadRng);
    /// assert_eq!(g.generate()?.version(), Some(uuidkit::Version::Custom));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[inline]
    fn generate(&mut self) -> Result<Uuid, GenError> {
        let now = self.clock.now_ns();
        self.at(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::rng::ThreadRng;
    use std::format;
    use std::string::ToString;

    #[test]
    fn time_generator_errors_at_the_end_of_its_field_instead_of_wrapping() {
        let end_ns = MAX_V8_TIME_10NS * 10;
        let clock = ManualClock::new(end_ns - 20);
        let mut g = V8TimeGenerator::new(&clock, ThreadRng);
        let a = g.generate().unwrap();
        let b = g.generate().unwrap();
        let c = g.generate().unwrap();
        assert!(a < b && b < c, "increasing up to the last unit");
        assert_eq!(c.v8_time_10ns(), Some(MAX_V8_TIME_10NS));
        for _ in 0..2 {
            let e = g.generate().unwrap_err();
            assert_eq!(e.kind(), GenErrorKind::TimestampOutOfRange);
            assert_eq!(
                e.to_string(),
                format!(
                    "timestamp out of range: expected at most {MAX_V8_TIME_10NS}, found {}",
                    MAX_V8_TIME_10NS + 1
                )
            );
        }
        // 2336-01-01T00:00:00Z, past the end: an error, not 1970.
        let mut fresh = V8TimeGenerator::new(ManualClock::new(0), ThreadRng);
        let e = fresh.at(11_581_142_400_000_000_000).unwrap_err();
        assert_eq!(e.kind(), GenErrorKind::TimestampOutOfRange);
    }

    proptest::proptest! {
        #[test]
        fn field_accessors_invert_the_constructors(a: u64, b: u16, c: u64) {
            let u = Uuid::new_v8_from_parts(a, b, c);
            proptest::prop_assert_eq!(u.custom_a(), Some(a & ((1 << 48) - 1)));
            proptest::prop_assert_eq!(u.custom_b(), Some(b & 0xFFF));
            proptest::prop_assert_eq!(u.custom_c(), Some(c & ((1 << 62) - 1)));
            let t = Uuid::new_v8_time(a, c);
            proptest::prop_assert_eq!(t.v8_time_10ns(), Some(a & MASK_60));
            proptest::prop_assert_eq!(t.custom_c(), u.custom_c());
            let v7 = Uuid::new_v7_from_parts(a, b, c);
            proptest::prop_assert_eq!((v7.custom_a(), v7.custom_b(), v7.custom_c()), (None, None, None));
            proptest::prop_assert_eq!(v7.v8_time_10ns(), None);
        }
    }
}
