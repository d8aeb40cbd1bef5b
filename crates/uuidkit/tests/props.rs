//! Property tests: parse∘format is the identity for every form and case; the
//! order of UUIDs is the order of their bytes and of their canonical strings;
//! the lenient parser accepts exactly the four forms and never panics.

use proptest::prelude::*;
use uuidkit::{Uuid, namespace};

fn any_uuid() -> impl Strategy<Value = Uuid> {
    any::<u128>().prop_map(Uuid::from_u128)
}

/// The four forms, written independently of the crate's formatter.
fn forms(u: &Uuid) -> [String; 4] {
    let h: String = u.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    let hy = format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    );
    [h, hy.clone(), format!("{{{hy}}}"), format!("urn:uuid:{hy}")]
}

/// Upper-cases the characters selected by `mask` (hex digits and the URN prefix).
fn mixed_case(s: &str, mask: u64) -> String {
    s.chars()
        .enumerate()
        .map(|(i, c)| {
            if mask >> (i % 64) & 1 == 1 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

/// A model of what the lenient parser accepts, from the definition.
fn model(s: &[u8]) -> Option<Uuid> {
    let hexval = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let digits = |body: &[u8]| -> Option<Uuid> {
        let mut out = [0u8; 16];
        for (i, pair) in body.chunks(2).enumerate() {
            out[i] = hexval(pair[0])? << 4 | hexval(pair[1])?;
        }
        Some(Uuid::from_bytes(out))
    };
    let hyphenated = |b: &[u8]| -> Option<Uuid> {
        if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
            return None;
        }
        let d: Vec<u8> = b.iter().copied().filter(|&c| c != b'-').collect();
        if d.len() != 32 { None } else { digits(&d) }
    };
    match s.len() {
        32 => digits(s),
        36 => hyphenated(s),
        38 if s[0] == b'{' && s[37] == b'}' => hyphenated(&s[1..37]),
        45 if s[..9].eq_ignore_ascii_case(b"urn:uuid:") => hyphenated(&s[9..]),
        _ => None,
    }
}

/// Inputs near the accepted forms: a valid form with a few bytes replaced,
/// inserted or removed.
fn near_miss() -> impl Strategy<Value = Vec<u8>> {
    (
        any_uuid(),
        0..4usize,
        any::<u64>(),
        prop::collection::vec((any::<usize>(), any::<u8>(), 0..3u8), 0..4),
    )
        .prop_map(|(u, form, mask, edits)| {
            let mut s = mixed_case(&forms(&u)[form], mask).into_bytes();
            for (at, byte, op) in edits {
                let at = at % (s.len() + 1);
                match op {
                    0 if at < s.len() => s[at] = byte,
                    1 => s.insert(at, byte),
                    _ if at < s.len() => {
                        s.remove(at);
                    }
                    _ => {}
                }
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn parse_of_format_is_identity_for_every_form_and_case(u in any_uuid(), mask in any::<u64>()) {
        // Our formatter agrees with the independent one, and each form parses back.
        let ours = [u.simple().to_string(), u.to_string(), u.braced().to_string(), u.urn().to_string()];
        prop_assert_eq!(&ours, &forms(&u));
        for s in ours.iter().chain([
            format!("{:X}", u.simple()), format!("{u:X}"), format!("{:X}", u.braced()), format!("{:X}", u.urn()),
        ].iter()) {
            prop_assert_eq!(Uuid::parse(s), Ok(u));
            prop_assert_eq!(Uuid::parse(&mixed_case(s, mask)), Ok(u));
        }
        prop_assert_eq!(Uuid::parse_strict(&mixed_case(&u.to_string(), mask)), Ok(u));
        prop_assert_eq!(Uuid::parse_const(&u.to_string()), Ok(u));
    }

    #[test]
    fn order_is_byte_order_is_canonical_string_order(a in any_uuid(), b in any_uuid()) {
        prop_assert_eq!(a.cmp(&b), a.as_bytes().cmp(b.as_bytes()));
        prop_assert_eq!(a.cmp(&b), a.as_u128().cmp(&b.as_u128()));
        prop_assert_eq!(a.cmp(&b), a.to_string().cmp(&b.to_string()));
        prop_assert_eq!(a.cmp(&b), a.simple().to_string().cmp(&b.simple().to_string()));
    }

    #[test]
    fn lenient_accepts_exactly_the_four_forms_on_near_misses(s in near_miss()) {
        let got = Uuid::parse(&s);
        prop_assert_eq!(got.ok(), model(&s));
        if let Err(e) = got {
            // Every error has a message, and a position inside (or at the end of) the input.
            prop_assert!(!e.to_string().is_empty());
            prop_assert!(e.position().is_none_or(|p| p <= s.len()));
        }
        // Strict accepts a subset of lenient: exactly the 36-byte form.
        match Uuid::parse_strict(&s) {
            Ok(u) => prop_assert!(s.len() == 36 && model(&s) == Some(u)),
            Err(_) => prop_assert!(s.len() != 36 || model(&s).is_none()),
        }
    }

    #[test]
    fn lenient_never_panics_on_arbitrary_bytes(s in prop::collection::vec(any::<u8>(), 0..64)) {
        prop_assert_eq!(Uuid::parse(&s).ok(), model(&s));
        let _ = Uuid::parse_strict(&s).map_err(|e| e.to_string());
    }

    #[test]
    fn guid_order_and_v1_v6_conversions_are_lossless(u in any_uuid()) {
        prop_assert_eq!(Uuid::from_bytes_le(u.to_bytes_le()), u);
        let f = u.fields();
        prop_assert_eq!(f.to_uuid(), u);
        let (d1, d2, d3, d4) = u.as_fields();
        prop_assert_eq!(Uuid::from_fields(d1, d2, d3, d4), u);
        if let Some(v6) = u.to_v6() {
            prop_assert_eq!(v6.to_v1().unwrap().to_v6(), Some(v6));
            prop_assert_eq!(v6.gregorian_timestamp(), u.gregorian_timestamp());
        }
    }

    #[test]
    fn name_based_match_the_uuid_crate(name in prop::collection::vec(any::<u8>(), 0..300)) {
        let ns = uuid::Uuid::NAMESPACE_URL;
        prop_assert_eq!(
            Uuid::new_v3(&namespace::URL, &name).into_bytes(),
            uuid::Uuid::new_v3(&ns, &name).into_bytes()
        );
        prop_assert_eq!(
            Uuid::new_v5(&namespace::URL, &name).into_bytes(),
            uuid::Uuid::new_v5(&ns, &name).into_bytes()
        );
    }
}
