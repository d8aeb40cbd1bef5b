//! Version 4: random (RFC 9562 §5.4).

use crate::{Uuid, Version};

impl Uuid {
    /// A v4 UUID from 16 random octets: the version and variant bits are
    /// overwritten (RFC 9562 §5.4), the other 122 bits are kept.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// // RFC 9562 Appendix A.3
    /// let u = Uuid::from_random_bytes([
    ///     0x91, 0x91, 0x08, 0xF7, 0x52, 0xD1, 0x33, 0x20,
    ///     0x5B, 0xAC, 0xF8, 0x47, 0xDB, 0x41, 0x48, 0xA8,
    /// ]);
    /// assert_eq!(u.as_u128(), 0x919108f7_52d1_4320_9bac_f847db4148a8);
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_random_bytes(bytes: [u8; 16]) -> Uuid {
        Uuid::from_bytes(bytes).with_version(Version::Random)
    }

    /// A v4 UUID from the given random number generator (for `no_std` use, or a
    /// seeded generator in tests).
    ///
    /// ```
    /// use uuidkit::{rng::ThreadRng, Uuid, Version};
    /// let u = Uuid::new_v4_from_rng(&mut ThreadRng);
    /// assert_eq!(u.version(), Some(Version::Random));
    /// ```
    #[inline]
    pub fn new_v4_from_rng<R: rand_core::Rng + ?Sized>(rng: &mut R) -> Uuid {
        let hi = rng.next_u64() as u128;
        let lo = rng.next_u64() as u128;
        Uuid::from_u128(with_v4_bits((hi << 64) | lo))
    }
}

#[inline]
const fn with_v4_bits(random: u128) -> u128 {
    (random & 0xFFFFFFFF_FFFF_0FFF_3FFF_FFFFFFFFFFFF) | 0x00000000_0000_4000_8000_000000000000
}

#[cfg(feature = "std")]
impl Uuid {
    /// A random (v4) UUID: 122 bits from [`ThreadRng`](crate::rng::ThreadRng), the
    /// thread's OS-seeded ChaCha12 generator (reseeded after `fork()` and
    /// periodically).
    ///
    /// Use v4 wherever a UUID must not reveal when or where it was made
    /// (RFC 9562 §8). UUIDs are not capabilities: do not rely on them being
    /// unguessable for security.
    ///
    /// ```
    /// use uuidkit::{Uuid, Variant, Version};
    /// let u = Uuid::new_v4();
    /// assert_eq!(u.version(), Some(Version::Random));
    /// assert_eq!(u.variant(), Variant::Rfc9562);
    /// assert_ne!(u, Uuid::new_v4());
    /// ```
    ///
    /// # References
    /// RFC 9562 §5.4, §6.9.
    #[inline]
    #[must_use]
    pub fn new_v4() -> Uuid {
        // The generator's 16 bytes in the order they come: `from_u128`
        // writes the value big-endian, which undoes the swap (the compiler
        // drops both).
        Uuid::from_u128(with_v4_bits(crate::rng::next_u128().swap_bytes()))
    }

    /// Fills `out` with v4 UUIDs, drawing the random bits in bulk.
    ///
    /// ```
    /// use uuidkit::{Uuid, Version};
    /// let mut batch = [Uuid::NIL; 256];
    /// Uuid::fill_v4(&mut batch);
    /// assert!(batch.iter().all(|u| u.version() == Some(Version::Random)));
    /// assert_ne!(batch[0], batch[255]);
    /// ```
    pub fn fill_v4(out: &mut [Uuid]) {
        let mut words = [0u64; 128];
        for chunk in out.chunks_mut(64) {
            let words = &mut words[..chunk.len() * 2];
            crate::rng::fill_u64(words);
            for (slot, pair) in chunk.iter_mut().zip(words.chunks_exact(2)) {
                let random = ((pair[0] as u128) << 64) | pair[1] as u128;
                *slot = Uuid::from_u128(with_v4_bits(random));
            }
        }
    }
}
