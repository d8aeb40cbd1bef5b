//! The optional pre-shared-key trailer (docs/uiap-design.md D21): HMAC-SHA-256 over the UIAP
//! message, appended as 32 octets. Every hop verifies and strips it before the device sees the
//! message, and appends a fresh one to everything it sends (a forwarder changes the hop-limit
//! octet).

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Octets in the trailer.
pub(crate) const TRAILER_LEN: usize = 32;

type HmacSha256 = Hmac<Sha256>;

fn mac(key: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length.
    <HmacSha256 as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("hmac takes any key length"))
}

/// `message || HMAC(key, message)`.
pub(crate) fn seal(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut m = mac(key);
    m.update(message);
    let tag = m.finalize().into_bytes();
    let mut out = Vec::with_capacity(message.len() + TRAILER_LEN);
    out.extend_from_slice(message);
    out.extend_from_slice(&tag);
    out
}

/// Why a sealed datagram was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Shorter than the trailer.
    Missing,
    /// The tag does not verify.
    Mismatch,
}

/// Verifies the trailer in constant time and returns the message without it.
pub(crate) fn open<'a>(key: &[u8], datagram: &'a [u8]) -> Result<&'a [u8], Refused> {
    let Some(split) = datagram.len().checked_sub(TRAILER_LEN) else {
        return Err(Refused::Missing);
    };
    let (message, tag) = datagram.split_at(split);
    let mut m = mac(key);
    m.update(message);
    m.verify_slice(tag).map_err(|_| Refused::Mismatch)?;
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4231_case_2() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
        let sealed = seal(b"Jefe", b"what do ya want for nothing?");
        let tag: String = sealed[28..].iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            tag,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            open(b"Jefe", &sealed),
            Ok(&b"what do ya want for nothing?"[..])
        );
    }

    #[test]
    fn tampering_and_short_input_are_refused() {
        let mut sealed = seal(b"k", &[1, 2, 3]);
        assert_eq!(open(b"k", &sealed[..31]), Err(Refused::Missing));
        assert_eq!(open(b"other", &sealed), Err(Refused::Mismatch));
        sealed[0] ^= 1;
        assert_eq!(open(b"k", &sealed), Err(Refused::Mismatch));
    }
}
