//! Keyed façades: keep v7 keys inside, show a v4-looking UUID outside.
//!
//! A v7 UUID publishes the millisecond it was made, and with a counter method
//! (uuidkit's default Method 1, or Method 3 with a counter) the order of the
//! UUIDs made in the same millisecond. A [`Facade`] maps each v7 to a version 4
//! UUID of the RFC 9562 variant under a secret 128-bit [`FacadeKey`], and back:
//! store and index the v7, show the façade at the API boundary.
//!
//! Two [`FacadeMode`]s, one key format:
//!
//! | mode | hides | shows | use it for |
//! |---|---|---|---|
//! | [`FacadeMode::Uuidv47`] | the timestamp (XOR with a SipHash-2-4 mask of the random bits) | `rand_a` and `rand_b` as they are: under Method 1, and Method 3 with a counter, the counter, so IDs of one millisecond can be linked and ordered | interoperating with services that already use uuidv47: byte-identical to its reference implementation |
//! | [`FacadeMode::Full`] | all 122 bits: a keyed pseudorandom permutation (NIST SP 800-38G FF1 on AES-128, radix 2, 10 rounds) | nothing but equality: the same v7 always gives the same façade | new systems |
//!
//! ```
//! use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
//! use uuidkit::{uuid, Version};
//!
//! let key = FacadeKey::parse_hex("efcdab89674523011032547698badcfe")?;
//! let v7 = uuid!("018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f");
//!
//! // uuidv47: the time is masked, the random bits are shown as they are.
//! let f = Facade::new(&key, FacadeMode::Uuidv47);
//! let shown = f.encode(v7)?;
//! assert_eq!(shown, uuid!("2463c780-7fca-4def-8c3f-7b1a2c4d5e6f"));
//! assert_eq!(f.decode(shown)?, v7);
//!
//! // full: every bit but version and variant changes, and comes back.
//! let f = Facade::new(&key, FacadeMode::Full);
//! let shown = f.encode(v7)?;
//! assert_eq!(shown.version(), Some(Version::Random));
//! assert_eq!(shown, uuid!("20d59025-677f-4fbd-9e0a-a9812b2c8948"));
//! assert_eq!(f.decode(shown)?, v7);
//!
//! // Only a v7 has a façade, and only a v4 can be one.
//! assert!(f.encode(shown).is_err());
//! assert!(f.decode(v7).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What decode can and cannot refuse
//!
//! Both modes are bijections between the v7 UUIDs and the v4 UUIDs of the RFC
//! 9562 variant, with no room for an authentication tag in 122 bits. Decode
//! refuses everything that cannot be a façade (another version, another
//! variant, the Nil and Max UUIDs) with a [`FacadeError`]; a v4 that was never
//! a façade still decodes, to some v7 whose time is meaningless. Look the
//! decoded key up as you would any key a client sends.
//!
//! # Keys and rotation
//!
//! A key is 16 bytes, written as 32 hex digits ([`FacadeKey::parse_hex`]), in
//! a file or not ([`FacadeKey::from_file`], with `std`). The uuidv47 mode uses
//! it as uuidv47's `k0 || k1` (each 8 bytes, little-endian), which is also the
//! `bytea` of uuidv47's PostgreSQL functions; the full mode derives its AES key
//! from it with SipHash-2-4 (so one key may serve both modes).
//!
//! A façade depends on its key: rotating the key changes every façade, and
//! the old ones no longer decode to the same v7. To rotate, decode with the
//! old key and encode with the new one for the time clients may still hold old
//! façades (try the new key first, then the old, and look the result up), or
//! give each façade a key ID out of band (for example in a URL segment or a
//! token's header) and keep the retired keys for decoding only.
//! `docs/facade-design.md` in the repository has the design and its security
//! argument.

mod ff1;
mod key;

use core::fmt;

use crate::Uuid;

pub use key::{FacadeKey, KeyError, KeyHex};

/// Which façade: the uuidv47 time mask, or a permutation of all 122 bits.
///
/// ```
/// use uuidkit::facade::FacadeMode;
/// assert_eq!("full".parse::<FacadeMode>(), Ok(FacadeMode::Full));
/// assert_eq!(FacadeMode::Uuidv47.to_string(), "uuidv47");
/// assert!("v47".parse::<FacadeMode>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FacadeMode {
    /// uuidv47 (stateless-me/uuidv47): the 48-bit timestamp XORed with the
    /// low 48 bits of SipHash-2-4 of the 74 random bits; `rand_a` and `rand_b`
    /// are shown unchanged, so a counter in them stays visible.
    Uuidv47,
    /// FF1 (NIST SP 800-38G) on AES-128 over the 122 bits that are not
    /// version or variant: nothing of the v7 shows.
    Full,
}

impl FacadeMode {
    /// The mode's name, as `FromStr` reads it: `uuidv47` or `full`.
    ///
    /// ```
    /// assert_eq!(uuidkit::facade::FacadeMode::Full.name(), "full");
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            FacadeMode::Uuidv47 => "uuidv47",
            FacadeMode::Full => "full",
        }
    }
}

impl fmt::Display for FacadeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for FacadeMode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<FacadeMode, UnknownMode> {
        match s {
            "uuidv47" => Ok(FacadeMode::Uuidv47),
            "full" => Ok(FacadeMode::Full),
            _ => Err(UnknownMode),
        }
    }
}

/// A mode name that is neither `uuidv47` nor `full`.
///
/// ```
/// let e = "fast".parse::<uuidkit::facade::FacadeMode>().unwrap_err();
/// assert_eq!(e.to_string(), "unknown façade mode: expected uuidv47 or full");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownMode;

impl fmt::Display for UnknownMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown façade mode: expected uuidv47 or full")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownMode {}

/// A key and a mode, ready to encode and decode: see the [module](self).
///
/// Building one does the per-key work (the full mode's AES key schedule), so
/// keep it and reuse it. Its `Debug` does not show the key.
///
/// ```
/// use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
/// let f = Facade::new(&FacadeKey::from_bytes([7; 16]), FacadeMode::Full);
/// let v7 = uuidkit::uuid!("01890a5d-ac96-774b-bcce-b302099a8057");
/// assert_eq!(f.decode(f.encode(v7)?)?, v7);
/// assert_eq!(format!("{f:?}"), "Facade { mode: Full, .. }");
/// # Ok::<(), uuidkit::facade::FacadeError>(())
/// ```
#[derive(Clone)]
pub struct Facade {
    inner: Inner,
}

// Unboxed: the crate allocates nothing (`no_std` without `alloc`), and a
// `Facade` is made once per key and kept, so its size is not copied around.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Inner {
    Uuidv47(Sip10),
    Full(ff1::Ff1),
}

impl fmt::Debug for Facade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Facade")
            .field("mode", &self.mode())
            .finish_non_exhaustive()
    }
}

/// The version nibble and the two variant bits.
const VERSION_MASK: u128 = 0xF << 76;
const VARIANT_MASK: u128 = 0b11 << 62;
const VERSION_4: u128 = 4 << 76;
const VERSION_7: u128 = 7 << 76;
const VARIANT_RFC: u128 = 0b10 << 62;

impl Facade {
    /// A façade of `mode` under `key`.
    ///
    /// ```
    /// use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
    /// let f = Facade::new(&FacadeKey::from_bytes([0; 16]), FacadeMode::Uuidv47);
    /// assert_eq!(f.mode(), FacadeMode::Uuidv47);
    /// ```
    #[must_use]
    pub fn new(key: &FacadeKey, mode: FacadeMode) -> Facade {
        let inner = match mode {
            FacadeMode::Uuidv47 => Inner::Uuidv47(Sip10::new(key.as_bytes())),
            FacadeMode::Full => Inner::Full(ff1::Ff1::new(&key.full_mode_aes_key())),
        };
        Facade { inner }
    }

    /// This façade's mode.
    ///
    /// ```
    /// use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
    /// let f = Facade::new(&FacadeKey::from_bytes([0; 16]), FacadeMode::Full);
    /// assert_eq!(f.mode(), FacadeMode::Full);
    /// ```
    #[must_use]
    pub fn mode(&self) -> FacadeMode {
        match self.inner {
            Inner::Uuidv47(_) => FacadeMode::Uuidv47,
            Inner::Full(_) => FacadeMode::Full,
        }
    }

    /// The façade of a v7: a version 4 UUID of the RFC 9562 variant.
    ///
    /// # Errors
    ///
    /// [`FacadeError`] if `v7` is not a version 7 UUID of the RFC 9562 variant.
    ///
    /// ```
    /// use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
    /// let f = Facade::new(&FacadeKey::from_bytes([1; 16]), FacadeMode::Full);
    /// let e = f.encode(uuidkit::uuid!("919108f7-52d1-4320-9bac-f847db4148a8")).unwrap_err();
    /// assert_eq!(e.to_string(), "cannot make a façade of a version 4 UUID: expected version 7");
    /// ```
    pub fn encode(&self, v7: Uuid) -> Result<Uuid, FacadeError> {
        let u = v7.as_u128();
        if u & (VERSION_MASK | VARIANT_MASK) != VERSION_7 | VARIANT_RFC {
            return Err(FacadeError::new(Direction::Encode, v7));
        }
        Ok(Uuid::from_u128(match &self.inner {
            Inner::Uuidv47(sip) => (u ^ uuidv47_mask(sip, u)) & !VERSION_MASK | VERSION_4,
            Inner::Full(ff1) => from_bits(ff1.encrypt(to_bits(u))) | VERSION_4 | VARIANT_RFC,
        }))
    }

    /// The v7 a façade came from.
    ///
    /// # Errors
    ///
    /// [`FacadeError`] if `facade` is not a version 4 UUID of the RFC 9562
    /// variant, so could not have come from [`Facade::encode`]. Any v4
    /// decodes (see the [module](self)).
    ///
    /// ```
    /// use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
    /// let f = Facade::new(&FacadeKey::from_bytes([1; 16]), FacadeMode::Uuidv47);
    /// let e = f.decode(uuidkit::Uuid::NIL).unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "cannot decode a UUID of the NCS variant: expected a façade, a version 4 UUID of the RFC 9562 variant"
    /// );
    /// ```
    pub fn decode(&self, facade: Uuid) -> Result<Uuid, FacadeError> {
        let u = facade.as_u128();
        if u & (VERSION_MASK | VARIANT_MASK) != VERSION_4 | VARIANT_RFC {
            return Err(FacadeError::new(Direction::Decode, facade));
        }
        Ok(Uuid::from_u128(match &self.inner {
            Inner::Uuidv47(sip) => (u ^ uuidv47_mask(sip, u)) & !VERSION_MASK | VERSION_7,
            Inner::Full(ff1) => from_bits(ff1.decrypt(to_bits(u))) | VERSION_7 | VARIANT_RFC,
        }))
    }
}

/// uuidv47's mask, in place over the timestamp: the low 48 bits of
/// SipHash-2-4 of the 10 bytes `[b6 & 0x0F, b7, b8 & 0x3F, b9 ..= b15]`,
/// the 74 random bits, which encode leaves unchanged (so decode rebuilds the
/// same message from the façade).
#[inline]
#[allow(clippy::cast_possible_truncation)]
fn uuidv47_mask(sip: &Sip10, u: u128) -> u128 {
    // Bytes b6 ..= b13 as a big-endian word, with the version and variant
    // bits cleared, become the first 8 message bytes read little-endian.
    let m0 = ((u >> 16) as u64 & 0x0FFF_3FFF_FFFF_FFFF).swap_bytes();
    let tail = (u as u16).swap_bytes();
    u128::from(sip.hash(m0, tail) & 0xFFFF_FFFF_FFFF) << 80
}
/// SipHash-2-4 for the one message length the uuidv47 mode hashes, 10
/// bytes: two message words, so the general hasher's buffering and length
/// bookkeeping drop out. The tests check it against the `siphasher` crate;
/// the shared vectors check it against uuidv47.
#[derive(Clone)]
struct Sip10 {
    /// SipHash's v0 … v3 after keying.
    v: [u64; 4],
}

impl Sip10 {
    fn new(key: &[u8; 16]) -> Sip10 {
        let (k0, k1) = key.split_at(8);
        let k0 = u64::from_le_bytes(k0.try_into().unwrap_or([0; 8]));
        let k1 = u64::from_le_bytes(k1.try_into().unwrap_or([0; 8]));
        Sip10 {
            v: [
                k0 ^ 0x736f_6d65_7073_6575,
                k1 ^ 0x646f_7261_6e64_6f6d,
                k0 ^ 0x6c79_6765_6e65_7261,
                k1 ^ 0x7465_6462_7974_6573,
            ],
        }
    }

    /// SipHash-2-4 of the 10 bytes `m0` (8 bytes, little-endian) ‖ `tail`
    /// (2 bytes, little-endian).
    #[inline]
    fn hash(&self, m0: u64, tail: u16) -> u64 {
        let mut v = self.v;
        let m1 = (10 << 56) | u64::from(tail);
        for m in [m0, m1] {
            v[3] ^= m;
            sip_round(&mut v);
            sip_round(&mut v);
            v[0] ^= m;
        }
        v[2] ^= 0xFF;
        for _ in 0..4 {
            sip_round(&mut v);
        }
        v[0] ^ v[1] ^ v[2] ^ v[3]
    }
}

#[inline(always)]
fn sip_round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

/// The 122 bits that are not version or variant, in order, as the low bits
/// of a `u128`: `unix_ts_ms` (48), `rand_a` (12), `rand_b` (62).
const fn to_bits(u: u128) -> u128 {
    ((u >> 80) << 74) | (((u >> 64) & 0xFFF) << 62) | (u & ((1 << 62) - 1))
}

/// The inverse of [`to_bits`], with the version and variant bits zero.
const fn from_bits(x: u128) -> u128 {
    ((x >> 74) << 80) | (((x >> 62) & 0xFFF) << 64) | (x & ((1 << 62) - 1))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encode,
    Decode,
}

/// A UUID that [`Facade::encode`] (not a v7) or [`Facade::decode`] (not a
/// v4) refuses; it says what the UUID was.
///
/// ```
/// use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
/// let f = Facade::new(&FacadeKey::from_bytes([1; 16]), FacadeMode::Full);
/// let v7 = uuidkit::uuid!("01890a5d-ac96-774b-bcce-b302099a8057");
/// let e = f.decode(v7).unwrap_err();
/// assert_eq!(e.uuid(), v7);
/// assert_eq!(
///     e.to_string(),
///     "cannot decode a version 7 UUID: expected a façade, a version 4 UUID of the RFC 9562 variant"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FacadeError {
    direction: Direction,
    uuid: Uuid,
}

impl FacadeError {
    fn new(direction: Direction, uuid: Uuid) -> FacadeError {
        FacadeError { direction, uuid }
    }

    /// The refused UUID.
    ///
    /// ```
    /// use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
    /// let f = Facade::new(&FacadeKey::from_bytes([1; 16]), FacadeMode::Full);
    /// assert_eq!(f.encode(uuidkit::Uuid::MAX).unwrap_err().uuid(), uuidkit::Uuid::MAX);
    /// ```
    #[must_use]
    pub fn uuid(&self) -> Uuid {
        self.uuid
    }

    /// The refused UUID's description: "a version N UUID", or "a UUID of the
    /// X variant".
    fn what(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let u = self.uuid;
        match u.variant() {
            crate::Variant::Rfc9562 => write!(f, "a version {} UUID", u.version_nibble()),
            v => write!(f, "a UUID of the {} variant", variant_name(v)),
        }
    }
}

fn variant_name(v: crate::Variant) -> &'static str {
    match v {
        crate::Variant::Ncs => "NCS",
        crate::Variant::Rfc9562 => "RFC 9562",
        crate::Variant::Microsoft => "Microsoft",
        crate::Variant::Future => "future (reserved)",
    }
}

impl fmt::Display for FacadeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.direction {
            Direction::Encode => {
                f.write_str("cannot make a façade of ")?;
                self.what(f)?;
                f.write_str(": expected version 7")?;
                if self.uuid.variant() != crate::Variant::Rfc9562 {
                    f.write_str(" of the RFC 9562 variant")?;
                }
                Ok(())
            }
            Direction::Decode => {
                f.write_str("cannot decode ")?;
                self.what(f)?;
                f.write_str(": expected a façade, a version 4 UUID of the RFC 9562 variant")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FacadeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip_and_skip_version_and_variant() {
        let all = !(VERSION_MASK | VARIANT_MASK);
        assert_eq!(to_bits(all), (1 << 122) - 1);
        assert_eq!(from_bits((1 << 122) - 1), all);
        let x = 0x0123_4567_89AB_CDEF_0123_4567_89AB_CDEF & ((1 << 122) - 1);
        assert_eq!(to_bits(from_bits(x)), x);
    }

    /// The 10-byte SipHash and the mask built on it agree with the general
    /// `siphasher` on uuidv47's message, on 10,000 random keys and UUIDs.
    #[test]
    fn uuidv47_mask_agrees_with_siphasher() {
        use rand_chacha::ChaCha8Rng;
        use rand_core::{Rng, SeedableRng};
        let mut rng = ChaCha8Rng::seed_from_u64(0x5147);
        for _ in 0..10_000 {
            let mut key = [0u8; 16];
            rng.fill_bytes(&mut key);
            let u = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
            let b = u.to_be_bytes();
            let mut msg = [0u8; 10];
            msg[0] = b[6] & 0x0F;
            msg[1] = b[7];
            msg[2] = b[8] & 0x3F;
            msg[3..].copy_from_slice(&b[9..]);
            let general = siphasher::sip::SipHasher24::new_with_key(&key).hash(&msg);
            assert_eq!(
                uuidv47_mask(&Sip10::new(&key), u),
                u128::from(general & 0xFFFF_FFFF_FFFF) << 80
            );
        }
    }
}
