//! The node-ID domain: which UIAP domain a node ID is claimed in, and the UID a node ID is
//! (docs/uiap-design.md D49, D50).

use uiap::space::{DomainId, Justification, Uid, UidSpace};

use crate::{LeaseError, LeaseErrorKind, MAX_NODE_BITS, check_bits};

/// The default node-ID domain, `ffe:9562:6:4`: the private-use space 0x0FFE, then "9562 §6.4"
/// (docs/uiap-design.md D49). Left-justified (J = 0).
///
/// ```
/// use uiap::space::Justification;
/// use uuidkit_lease::site::DEFAULT_NODE_DOMAIN;
///
/// assert_eq!(DEFAULT_NODE_DOMAIN.to_string(), "ffe:9562:6:4");
/// assert_eq!(DEFAULT_NODE_DOMAIN.justification(), Justification::Left);
/// ```
pub const DEFAULT_NODE_DOMAIN: DomainId =
    DomainId::from_bytes([0x0f, 0xfe, 0x95, 0x62, 0x00, 0x06, 0x00, 0x04]);

/// Checks that `domain` can hold node IDs: it must be left-justified (docs/uiap-design.md D50).
///
/// # Errors
///
/// [`LeaseErrorKind::Config`] for a right-justified domain.
///
/// ```
/// use uuidkit_lease::site::{check_domain, DEFAULT_NODE_DOMAIN};
///
/// assert!(check_domain(&DEFAULT_NODE_DOMAIN).is_ok());
/// let err = check_domain(&"ffe:9562:6:84".parse()?).unwrap_err();
/// assert!(err.to_string().contains("left-justified"), "{err}");
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_domain(domain: &DomainId) -> Result<(), LeaseError> {
    if domain.justification() == Justification::Left {
        Ok(())
    } else {
        Err(LeaseError::new(
            LeaseErrorKind::Config,
            format!(
                "node domain {domain}: expected a left-justified domain (J = 0, the top bit of the \
                 last quad clear), found a right-justified one"
            ),
        ))
    }
}

/// The UID of a node ID: its `bits` low bits of `value` as a left-justified bit string of
/// `bits` bits, most significant first (docs/uiap-design.md D50). A 48-bit node is a 6-octet
/// UID; a 12-bit node is `ab c0`/12 for the value `0xabc`.
///
/// # Errors
///
/// [`LeaseErrorKind::Config`] for a width outside 1–48 or a value wider than `bits`.
///
/// ```
/// use uiap::space::Uid;
/// use uuidkit_lease::site::node_uid;
///
/// assert_eq!(node_uid(0xabc, 12)?, Uid::new(&[0xab, 0xc0], 12)?);
/// assert_eq!(node_uid(0x0102_0304_0506, 48)?.as_bytes(), &[1, 2, 3, 4, 5, 6]);
/// assert!(node_uid(0x1000, 12).is_err());
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn node_uid(value: u64, bits: u8) -> Result<Uid, LeaseError> {
    check_bits(bits)?;
    if value >> bits != 0 {
        return Err(LeaseError::new(
            LeaseErrorKind::Config,
            format!("node {value:#x}: expected at most {bits} bits"),
        ));
    }
    let octets = usize::from(bits).div_ceil(8);
    let aligned = value << (octets * 8 - usize::from(bits));
    let bytes = aligned.to_be_bytes();
    Uid::new(&bytes[8 - octets..], u16::from(bits)).map_err(|e| {
        LeaseError::new(
            LeaseErrorKind::Config,
            format!("node {value:#x}/{bits}: {e}"),
        )
    })
}

/// The space a lease claims for `value`: the one UID [`node_uid`] gives.
///
/// # Errors
///
/// As [`node_uid`].
///
/// ```
/// use uiap::space::UidSpace;
/// use uuidkit_lease::site::node_space;
///
/// assert!(matches!(node_space(5, 8)?, UidSpace::Unique(_)));
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn node_space(value: u64, bits: u8) -> Result<UidSpace, LeaseError> {
    node_uid(value, bits).map(UidSpace::Unique)
}

/// The node ID a UID of `bits` bits stands for (inverse of [`node_uid`]); `None` if the UID is
/// not `bits` bits wide.
///
/// ```
/// use uuidkit_lease::site::{node_of_uid, node_uid};
///
/// assert_eq!(node_of_uid(&node_uid(0xabc, 12)?, 12), Some(0xabc));
/// assert_eq!(node_of_uid(&node_uid(0xabc, 12)?, 16), None);
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn node_of_uid(uid: &Uid, bits: u8) -> Option<u64> {
    if uid.bit_len() != u16::from(bits) || !(1..=MAX_NODE_BITS).contains(&bits) {
        return None;
    }
    let octets = uid.as_bytes();
    let mut value = 0u64;
    for &b in octets {
        value = value << 8 | u64::from(b);
    }
    Some(value >> (octets.len() * 8 - usize::from(bits)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_width_round_trips_through_its_uid() {
        for bits in 1..=MAX_NODE_BITS {
            let max = (1u64 << bits) - 1;
            for value in [0, 1, max / 3, max] {
                let uid = node_uid(value, bits).unwrap();
                assert_eq!(uid.bit_len(), u16::from(bits));
                assert_eq!(uid.as_bytes().len(), usize::from(bits).div_ceil(8));
                assert_eq!(node_of_uid(&uid, bits), Some(value), "{value:#x}/{bits}");
            }
            assert!(node_uid(max + 1, bits).is_err());
        }
    }

    #[test]
    fn the_multicast_bit_is_the_low_bit_of_the_first_octet() {
        // RFC 9562 §6.10: the least significant bit of the first octet of a 48-bit node.
        let uid = node_uid(1 << 40, 48).unwrap();
        assert_eq!(uid.as_bytes(), &[0x01, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn a_width_outside_1_to_48_has_no_uid() {
        for bits in [0, 49, 64, 255] {
            let e = node_uid(0, bits).unwrap_err();
            assert_eq!(e.kind(), LeaseErrorKind::Config);
            assert_eq!(
                e.to_string(),
                format!("node bits: expected 1 to 48, found {bits}")
            );
            assert_eq!(node_of_uid(&Uid::new(&[0], 8).unwrap(), bits), None);
        }
    }
}
