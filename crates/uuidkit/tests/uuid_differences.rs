//! The differences from the `uuid` crate that compile silently, each shown
//! against `uuid` itself, so that `docs/migrating-from-uuid.md` stays true:
//! if uuidkit or `uuid` changes one of them, a test here fails.

use uuidkit::{Hyphenated, Simple, Uuid, Version};

const TEXT: &str = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";

fn both(text: &str) -> (Uuid, uuid::Uuid) {
    (
        Uuid::parse(text).unwrap(),
        uuid::Uuid::parse_str(text).unwrap(),
    )
}

#[test]
fn version_is_none_for_nil_max_and_other_variants_where_uuid_says_some() {
    let (nil, their_nil) = both("00000000-0000-0000-0000-000000000000");
    assert_eq!(
        (nil.version(), their_nil.get_version()),
        (None, Some(uuid::Version::Nil))
    );
    let (max, their_max) = both("ffffffff-ffff-ffff-ffff-ffffffffffff");
    assert_eq!(
        (max.version(), their_max.get_version()),
        (None, Some(uuid::Version::Max))
    );
    // Version nibble 4, Microsoft variant (octet 8 = 0xc0).
    let (ms, their_ms) = both("919108f7-52d1-4320-cbac-f847db4148a8");
    assert_eq!(
        (ms.version(), their_ms.get_version()),
        (None, Some(uuid::Version::Random))
    );
    assert_eq!(ms.get_version_num(), their_ms.get_version_num());
    // Where both answer, they agree.
    let (v1, their_v1) = both(TEXT);
    assert_eq!(
        (v1.version(), their_v1.get_version()),
        (Some(Version::Mac), Some(uuid::Version::Mac))
    );
}

#[test]
fn timestamps_are_read_only_from_the_rfc_variant() {
    // A v7 layout with the NCS variant bits: uuid reads a timestamp, uuidkit does not.
    let (u, theirs) = both("017f22e2-79b0-7cc3-18c4-dc0c0c07398f");
    assert_eq!(u.get_timestamp(), None);
    assert_eq!(
        theirs.get_timestamp().map(|t| t.to_unix()),
        Some((1_645_557_742, 0))
    );
    let (u, theirs) = both("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    assert_eq!(
        u.get_timestamp().map(|t| t.to_unix()),
        theirs.get_timestamp().map(|t| t.to_unix())
    );
}

#[test]
fn width_and_precision_are_honoured_where_uuid_ignores_them() {
    let (u, theirs) = both(TEXT);
    assert_eq!(format!("{u:.8}"), "f81d4fae");
    assert_eq!(format!("{theirs:.8}"), TEXT);
    assert_eq!(format!("{u:>40}"), format!("    {TEXT}"));
    assert_eq!(format!("{theirs:>40}"), TEXT);
    assert_eq!(format!("{u}"), format!("{theirs}"));
}

#[test]
fn adapters_parse_every_form_and_debug_without_their_name() {
    let (u, theirs) = both(TEXT);
    assert_eq!(TEXT.parse::<Simple>().map(Uuid::from), Ok(u));
    assert!(TEXT.parse::<uuid::fmt::Simple>().is_err());
    assert_eq!(format!("{:?}", u.hyphenated()), TEXT);
    assert_eq!(
        format!("{:?}", theirs.hyphenated()),
        format!("Hyphenated({TEXT})")
    );
    let _: Hyphenated = u.into();
}

#[test]
fn from_fields_takes_uuids_arguments() {
    let d4 = [0xa7, 0x65, 0x00, 0xa0, 0xc9, 0x1e, 0x6b, 0xf6];
    let ours = Uuid::from_fields(0xf81d4fae, 0x7dec, 0x11d0, &d4);
    let theirs = uuid::Uuid::from_fields(0xf81d4fae, 0x7dec, 0x11d0, &d4);
    assert_eq!(ours.as_bytes(), theirs.as_bytes());
    assert_eq!(ours.as_fields(), theirs.as_fields());
}

#[test]
fn errors_are_different_types_with_more_detail() {
    let bad = "f81d4fae-7dec-11d0-a765-00a0c91e6bfg";
    let ours = Uuid::parse_str(bad).unwrap_err().to_string();
    let theirs = uuid::Uuid::parse_str(bad).unwrap_err().to_string();
    assert_eq!(
        ours,
        "invalid character 'g' at position 35: expected a hex digit"
    );
    assert_ne!(ours, theirs);
    assert!(Uuid::from_slice(&[1, 2, 3]).is_err() && uuid::Uuid::from_slice(&[1, 2, 3]).is_err());
}

/// `Hash` of `Uuid` is `uuid`'s: the 16 bytes alone. `NonNilUuid` hashes as
/// the `Uuid` it holds, where `uuid`'s hashes its `u128`.
#[test]
fn uuid_hashes_as_uuid_does_and_non_nil_as_its_uuid() {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    let fixed = BuildHasherDefault::<DefaultHasher>::default();
    for text in [
        TEXT,
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
    ] {
        let (ours, theirs) = both(text);
        assert_eq!(fixed.hash_one(ours), fixed.hash_one(theirs), "{text}");
        if let (Ok(a), Some(b)) = (
            uuidkit::NonNilUuid::try_from(ours),
            uuid::NonNilUuid::new(theirs),
        ) {
            assert_eq!(fixed.hash_one(a), fixed.hash_one(ours), "{text}");
            assert_eq!(
                fixed.hash_one(b),
                fixed.hash_one(theirs.as_u128()),
                "{text}"
            );
        }
    }
}
