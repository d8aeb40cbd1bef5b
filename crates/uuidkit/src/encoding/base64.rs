//! [`Base64Url`]: RFC 4648 §5 over the 16 bytes, without `=` padding.

use super::base32::{diagnose_bytes, fixed, refused};
use super::digits::{BASE64URL, decode_table};
use super::{Alphabet, DecodeError, Encoding, encoding_adapter, swar};
use crate::Uuid;

const MASK48: u64 = (1 << 48) - 1;
static TABLE: [u8; 256] = decode_table(BASE64URL, false);

encoding_adapter!(
    /// The base64url form of RFC 4648 §5: the 16 bytes, six bits at a time,
    /// in `A-Z a-z 0-9 - _`, the last digit right-padded with four zero bits,
    /// without `=` padding: 22 characters, `-B1Prn3sEdCnZQCgyR5r9g`. Safe in
    /// URLs and file names; it does not sort like the bytes.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// assert_eq!(Uuid::MAX.base64url().to_string(), "_____________________w");
    /// ```
    Base64Url, 22, base64url, "-B1Prn3sEdCnZQCgyR5r9g",
    |uuid, out| {
        if !crate::arch::encode_base64url(uuid.as_bytes(), out) {
            encode_portable(uuid.as_bytes(), out);
        }
    }
);

/// The base64url text of `bytes`, portably.
pub(crate) fn encode_portable(bytes: &[u8; 16], out: &mut [u8; 22]) {
    // Two groups of six bytes, eight digits each; then the last four bytes,
    // shifted as a third group, of which six digits are used (the last with
    // four zero bits).
    let v = u128::from_be_bytes(*bytes);
    out[..8].copy_from_slice(&swar::base64url(swar::spread6((v >> 80) as u64)).to_be_bytes());
    out[8..16]
        .copy_from_slice(&swar::base64url(swar::spread6((v >> 32) as u64 & MASK48)).to_be_bytes());
    let last = swar::base64url(swar::spread6((v as u64 & 0xffff_ffff) << 16)).to_be_bytes();
    out[16..22].copy_from_slice(&last[..6]);
}

/// The UUID of a base64url text, with the vector code where the CPU has
/// it, or `None` if it is not one.
#[inline(always)]
fn decode(s: &[u8; 22]) -> Option<Uuid> {
    crate::arch::decode_base64url(s).or_else(|| decode_portable(s).map(Uuid::from_bytes))
}

/// The 16 bytes of a base64url text, portably, or `None` if a character is
/// not in the alphabet or the last one's four padding bits are not zero.
pub(crate) fn decode_portable(digits: &[u8; 22]) -> Option<[u8; 16]> {
    let (mut v, mut seen) = (0u128, 0u8);
    for k in 0..5 {
        let mut bits = 0u32;
        for &c in &digits[4 * k..4 * k + 4] {
            let d = TABLE[c as usize];
            seen |= d;
            bits = (bits << 6) | u32::from(d & 63);
        }
        v = (v << 24) | u128::from(bits);
    }
    let (d20, d21) = (TABLE[digits[20] as usize], TABLE[digits[21] as usize]);
    if ((seen | d20) & !63) | (d21 & !48) != 0 {
        return None;
    }
    let last = (u32::from(d20) << 2) | u32::from(d21 >> 4);
    Some(((v << 8) | u128::from(last)).to_be_bytes())
}

impl Uuid {
    /// The [`Base64Url`] form, `-B1Prn3sEdCnZQCgyR5r9g`.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.base64url().to_string(), "A".repeat(22));
    /// ```
    #[inline]
    #[must_use]
    pub const fn base64url(self) -> Base64Url {
        Base64Url(self)
    }

    /// Reads the [`Base64Url`] form: exactly 22 characters of the URL-safe
    /// alphabet, the last one's four padding bits zero (one of `A Q g w`).
    /// `=` padding, `+` and `/` (plain base64) are errors.
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] naming the first bad character and its position, or
    /// the length.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::parse_base64url("-B1Prn3sEdCnZQCgyR5r9g")?;
    /// assert_eq!(u, Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6));
    /// let err = Uuid::parse_base64url("-B1Prn3sEdCnZQCgyR5r9h").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid base64url character 'h' at position 21: expected one of A Q g w (the last digit carries 2 bits and 4 zero bits)");
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    #[inline]
    pub fn parse_base64url<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Uuid, DecodeError> {
        let s = input.as_ref();
        match fixed::<22>(s).and_then(decode) {
            Some(u) => Ok(u),
            None => Err(refused::<22>(s, Encoding::Base64Url, || {
                diagnose_bytes(
                    s,
                    &TABLE,
                    Alphabet::Base64Url,
                    Alphabet::Base64UrlLast,
                    48,
                    Encoding::Base64Url,
                )
            })),
        }
    }
}
