//! What every lease source does alike with the node it asks for: its width, a random draw of
//! one, and the wait between two attempts.

use std::time::Duration;

use rand_core::Rng;
use uuidkit::node::RandomNode;

use crate::{LeaseError, LeaseErrorKind};

/// The widest node ID: the 48-bit node field of v1 and v6.
///
/// ```
/// use uuidkit_lease::{check_bits, MAX_NODE_BITS};
///
/// assert!(check_bits(MAX_NODE_BITS).is_ok());
/// assert!(check_bits(MAX_NODE_BITS + 1).is_err());
/// ```
pub const MAX_NODE_BITS: u8 = 48;

/// Checks a node width: 1 to 48 bits.
///
/// # Errors
///
/// [`LeaseErrorKind::Config`] naming the width.
///
/// ```
/// use uuidkit_lease::check_bits;
///
/// assert!(check_bits(48).is_ok());
/// assert!(check_bits(0).unwrap_err().to_string().contains("1 to 48"));
/// ```
pub fn check_bits(bits: u8) -> Result<(), LeaseError> {
    if (1..=MAX_NODE_BITS).contains(&bits) {
        Ok(())
    } else {
        Err(LeaseError::new(
            LeaseErrorKind::Config,
            format!("node bits: expected 1 to {MAX_NODE_BITS}, found {bits}"),
        ))
    }
}

/// A random node ID `bits` wide: uniform, and for 48 bits with the multicast bit set (RFC 9562
/// §6.10: it is not an IEEE 802 address).
pub(crate) fn draw(bits: u8, rng: &mut impl Rng) -> Result<u64, LeaseError> {
    RandomNode::new(bits, rng)
        .map(|n| n.id().value())
        .map_err(|e| LeaseError::new(LeaseErrorKind::Config, format!("node bits: {e}")))
}

/// The wait before attempt `n + 1` after `n` denials (n ≥ 1): `first` doubled after each
/// denial up to `max`, drawn uniformly from the upper half of that.
pub(crate) fn backoff(first: Duration, max: Duration, n: u32, rng: &mut impl Rng) -> Duration {
    let top = first
        .saturating_mul(1u32 << n.saturating_sub(1).min(16))
        .min(max);
    let half = top / 2;
    let span = u64::try_from((top - half).as_micros()).unwrap_or(u64::MAX);
    half + Duration::from_micros(if span == 0 { 0 } else { rng.next_u64() % span })
}

/// A node's name in a registry's key or path: lower-case hexadecimal, as many digits as `bits`
/// needs.
#[cfg_attr(not(any(feature = "etcd", feature = "zookeeper")), allow(dead_code))]
pub(crate) fn node_name(bits: u8, value: u64) -> String {
    let digits = usize::from(bits).div_ceil(4);
    format!("{value:0digits$x}")
}

/// The node `name` names, if [`node_name`] writes it so for a value of this width: any other
/// name (upper case, another width's digits, junk) names none.
#[cfg_attr(not(any(feature = "etcd", feature = "zookeeper")), allow(dead_code))]
pub(crate) fn node_of_name(bits: u8, name: &str) -> Option<u64> {
    let value = u64::from_str_radix(name, 16).ok()?;
    (name
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && name.len() == usize::from(bits).div_ceil(4)
        && (bits >= 64 || value >> bits == 0))
        .then_some(value)
}

/// How many node IDs `bits` wide there are, when few enough to count (a 48-bit draw keeps the
/// multicast bit set: 2^47 values).
pub(crate) fn space(bits: u8) -> Option<u64> {
    (bits < MAX_NODE_BITS).then(|| 1u64 << bits)
}

/// The largest space whose free nodes are listed and drawn from once it is at least half full.
const LISTED_SPACE: u64 = 1 << 16;

/// A node `bits` wide to try, given the nodes `taken` (sorted): a uniform draw, or, in a space
/// of at most 2^16 that is at least half taken, a uniform pick among the free ones (a draw would
/// hit taken ones as often as not). The draw every registry that lists its taken nodes makes.
///
/// # Errors
///
/// [`LeaseErrorKind::Config`] for a width outside 1 to 48.
///
/// ```
/// use uuidkit_lease::pick_node;
///
/// let taken: Vec<u64> = (0..16).filter(|v| *v != 11).collect();
/// assert_eq!(pick_node(4, &taken, &mut uuidkit::rng::ThreadRng)?, 11); // the one free node
/// assert!(pick_node(12, &[], &mut uuidkit::rng::ThreadRng)? < 1 << 12);
/// # Ok::<(), uuidkit_lease::LeaseError>(())
/// ```
pub fn pick_node(bits: u8, taken: &[u64], rng: &mut impl Rng) -> Result<u64, LeaseError> {
    match space(bits) {
        Some(size) if size <= LISTED_SPACE && taken.len() as u64 * 2 >= size => {
            let free: Vec<u64> = (0..size)
                .filter(|v| taken.binary_search(v).is_err())
                .collect();
            if free.is_empty() {
                return draw(bits, rng);
            }
            Ok(free[(rng.next_u64() % free.len() as u64) as usize])
        }
        _ => draw(bits, rng),
    }
}

/// The error of a full node space ([`LeaseErrorKind::Denied`]): where, and how many of how many
/// are taken.
///
/// ```
/// use uuidkit_lease::{no_free_node, LeaseErrorKind};
///
/// let e = no_free_node(2, "under etcd prefix /p", 4, 3);
/// assert_eq!(e.kind(), LeaseErrorKind::Denied);
/// assert_eq!(e.to_string(), "no free node of 2 bits under etcd prefix /p: 4 of 4 nodes are taken (3 attempts)");
/// ```
pub fn no_free_node(bits: u8, place: &str, taken: usize, attempts: u32) -> LeaseError {
    let of = space(bits).map_or_else(|| format!("2^{bits}"), |s| s.to_string());
    LeaseError::new(
        LeaseErrorKind::Denied,
        format!(
            "no free node of {bits} bits {place}: {taken} of {of} nodes are taken \
             ({attempts} attempts)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn widths_outside_1_to_48_are_refused() {
        for bits in [0, 49, 64, 255] {
            let e = check_bits(bits).unwrap_err();
            assert_eq!(e.kind(), LeaseErrorKind::Config);
            assert_eq!(
                e.to_string(),
                format!("node bits: expected 1 to 48, found {bits}")
            );
        }
    }

    #[test]
    fn a_48_bit_draw_is_never_a_mac_address() {
        let mut rng = ChaCha20Rng::from_seed([3; 32]);
        for _ in 0..64 {
            let v = draw(48, &mut rng).unwrap();
            assert_eq!(v >> 40 & 1, 1, "{v:#x}");
            assert!(v >> 48 == 0);
        }
        let v = draw(12, &mut rng).unwrap();
        assert!(v < 1 << 12);
        assert_eq!(
            draw(0, &mut rng).unwrap_err().kind(),
            LeaseErrorKind::Config
        );
    }

    #[test]
    fn a_small_space_more_than_half_taken_is_picked_from_its_free_nodes() {
        let mut rng = ChaCha20Rng::from_seed([5; 32]);
        let taken: Vec<u64> = (0..16).filter(|v| *v != 11).collect();
        for _ in 0..32 {
            assert_eq!(pick_node(4, &taken, &mut rng).unwrap(), 11);
        }
        assert_eq!(space(48), None);
        assert_eq!(space(12), Some(4096));
        let e = no_free_node(2, "under etcd prefix /p", 4, 3);
        assert_eq!(e.kind(), LeaseErrorKind::Denied);
        assert_eq!(
            e.to_string(),
            "no free node of 2 bits under etcd prefix /p: 4 of 4 nodes are taken (3 attempts)"
        );
    }

    #[test]
    fn the_backoff_doubles_within_its_upper_half_up_to_the_cap() {
        let mut rng = ChaCha20Rng::from_seed([4; 32]);
        let (first, max) = (Duration::from_millis(250), Duration::from_secs(8));
        for n in 1..=10u32 {
            let top = (first * 2u32.pow(n - 1)).min(max);
            for _ in 0..32 {
                let w = backoff(first, max, n, &mut rng);
                assert!(
                    w >= top / 2 && w <= top,
                    "attempt {n}: {w:?} outside {top:?}/2..{top:?}"
                );
            }
        }
        assert_eq!(backoff(Duration::ZERO, max, 3, &mut rng), Duration::ZERO);
    }
}
