//! Every call the CLI makes into the `uuidkit` library for parsing, formatting,
//! fields and name-based UUIDs, in one place.

use uuidkit::{NameHash, ParseError, Uuid, namespace};

use crate::flags::{Format, HashArg};

/// The DNS namespace (RFC 9562 §6.6).
pub const NAMESPACE_DNS: Uuid = namespace::DNS;
/// The URL namespace.
pub const NAMESPACE_URL: Uuid = namespace::URL;
/// The ISO OID namespace.
pub const NAMESPACE_OID: Uuid = namespace::OID;
/// The X.500 DN namespace.
pub const NAMESPACE_X500: Uuid = namespace::X500;

/// Lenient (`strict = false`: hyphenated, simple, braced, URN) or strict (RFC 9562 §4 only).
pub fn parse(s: &[u8], strict: bool) -> Result<Uuid, ParseError> {
    if strict {
        Uuid::parse_strict(s)
    } else {
        Uuid::parse(s)
    }
}

/// Longest text form: `urn:uuid:` + 36.
pub const MAX_TEXT: usize = uuidkit::Urn::LENGTH;

/// Writes `u` in form `f` into `buf` (at least [`MAX_TEXT`] bytes); returns the length.
#[inline]
pub fn encode(u: &Uuid, f: Format, upper: bool, buf: &mut [u8]) -> usize {
    match (f, upper) {
        (Format::Canonical, false) => u.hyphenated().encode_lower(buf).len(),
        (Format::Canonical, true) => u.hyphenated().encode_upper(buf).len(),
        (Format::Simple, false) => u.simple().encode_lower(buf).len(),
        (Format::Simple, true) => u.simple().encode_upper(buf).len(),
        (Format::Braced, false) => u.braced().encode_lower(buf).len(),
        (Format::Braced, true) => u.braced().encode_upper(buf).len(),
        (Format::Urn, false) => u.urn().encode_lower(buf).len(),
        (Format::Urn, true) => u.urn().encode_upper(buf).len(),
    }
}

/// `u` in form `f`, as a `String`.
pub fn to_text(u: &Uuid, f: Format, upper: bool) -> String {
    let mut b = [0u8; MAX_TEXT];
    let n = encode(u, f, upper, &mut b);
    String::from_utf8_lossy(&b[..n]).into_owned()
}

/// The fields shared by v1 and v6: 60-bit Gregorian timestamp, clock sequence, node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gregorian {
    /// 100-ns intervals since 1582-10-15T00:00:00Z.
    pub ts60: u64,
    /// 14-bit clock sequence.
    pub clock_seq: u16,
    /// 48-bit node.
    pub node: [u8; 6],
}

/// The v1/v6 fields of `u`, or `None` for any other version.
pub fn gregorian(u: &Uuid) -> Option<Gregorian> {
    Some(Gregorian {
        ts60: u.gregorian_timestamp()?,
        clock_seq: u.clock_seq()?,
        node: u.node()?,
    })
}

/// The v7 fields of `u` (Unix milliseconds, rand_a, rand_b), or `None` for any other version.
pub fn v7_fields(u: &Uuid) -> Option<(u64, u16, u64)> {
    Some((u.unix_ts_ms()?, u.rand_a()?, u.rand_b()?))
}

/// v1 → v6 (v6 passes through), losslessly (RFC 9562 §5.6, A.1 → A.5).
pub fn to_v6(u: &Uuid) -> Option<Uuid> {
    u.to_v6()
}

/// v6 → v1 (v1 passes through), losslessly.
pub fn to_v1(u: &Uuid) -> Option<Uuid> {
    u.to_v1()
}

/// The smallest v7 UUID with millisecond timestamp `ms`.
pub fn v7_min(ms: u64) -> Uuid {
    Uuid::v7_min(ms)
}

/// The largest v7 UUID with millisecond timestamp `ms`.
pub fn v7_max(ms: u64) -> Uuid {
    Uuid::v7_max(ms)
}

/// Name-based UUID: `version` 3, 5 or 8 (with `hash`).
pub fn name_based(version: u8, hash: HashArg, ns: &Uuid, name: &[u8]) -> Uuid {
    match version {
        3 => Uuid::new_v3(ns, name),
        5 => Uuid::new_v5(ns, name),
        _ => Uuid::new_v8_name(
            match hash {
                HashArg::Sha256 => NameHash::Sha256,
                HashArg::Sha512 => NameHash::Sha512,
                HashArg::Sha3_256 => NameHash::Sha3_256,
                HashArg::Sha3_512 => NameHash::Sha3_512,
                HashArg::Shake128 => NameHash::Shake128,
                HashArg::Shake256 => NameHash::Shake256,
            },
            ns,
            name,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIG1: Uuid = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);

    #[test]
    fn text_forms() {
        assert_eq!(
            to_text(&FIG1, Format::Canonical, false),
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
        );
        assert_eq!(
            to_text(&FIG1, Format::Simple, true),
            "F81D4FAE7DEC11D0A76500A0C91E6BF6"
        );
        assert_eq!(
            to_text(&FIG1, Format::Braced, false),
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}"
        );
        assert_eq!(
            to_text(&FIG1, Format::Urn, false),
            "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
        );
        for f in [
            Format::Canonical,
            Format::Simple,
            Format::Braced,
            Format::Urn,
        ] {
            for up in [false, true] {
                assert_eq!(
                    parse(to_text(&FIG1, f, up).as_bytes(), false).unwrap(),
                    FIG1
                );
            }
        }
    }

    #[test]
    fn name_based_vectors() {
        let name = b"www.example.com";
        let dns = NAMESPACE_DNS;
        assert_eq!(
            name_based(3, HashArg::Sha256, &dns, name).as_u128(),
            0x5df41881_3aed_3515_88a7_2f4a814cf09e
        );
        assert_eq!(
            name_based(5, HashArg::Sha256, &dns, name).as_u128(),
            0x2ed6657d_e927_568b_95e1_2665a8aea6a2
        );
        assert_eq!(
            name_based(8, HashArg::Sha256, &dns, name).as_u128(),
            0x5c146b14_3c52_8afd_938a_375d0df1fbf6
        );
    }

    #[test]
    fn fields_and_conversion() {
        let a1 = Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
        let a5 = Uuid::from_u128(0x1EC9414C_232A_6B00_B3C8_9F6BDECED846);
        let g = gregorian(&a1).unwrap();
        assert_eq!((g.ts60, g.clock_seq), (0x1EC9414C232AB00, 0x33C8));
        assert_eq!(g.node, [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]);
        assert_eq!(gregorian(&a5), Some(g));
        assert_eq!(to_v6(&a1), Some(a5));
        assert_eq!(to_v1(&a5), Some(a1));
        let a6 = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
        assert_eq!(
            v7_fields(&a6),
            Some((0x017F22E279B0, 0xCC3, 0x18C4DC0C0C07398F))
        );
        assert_eq!(gregorian(&a6), None);
    }
}
