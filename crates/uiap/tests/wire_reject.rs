//! Every rejection of `Repr::parse` (docs/uiap-design.md D2–D4, §4.1): the kind, the octet offset
//! and the message, one test per rule.

use uiap::wire::{Packet, Repr, WireError, WireErrorKind};

/// A Claim-Attempt in DID 1:2:3:0 (§6.1) for the prefix 192.168/16 (§3.2.2).
const BASE: [u8; 38] = [
    0x01, 0x00, 0x00, 0x20, 0x00, 0x00, 0x0e, 0x10, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00,
    0x00, 0x01, 0x02, 0x00, 0xc0, 0xa8,
];

fn reject(bytes: &[u8]) -> WireError {
    match Repr::parse(bytes) {
        Ok(repr) => panic!("expected an error, parsed {repr:?}"),
        Err(e) => e,
    }
}

/// BASE with the header octets from `patch` and `uids` as the UID octets.
fn message(patch: &[(usize, u8)], uids: &[u8]) -> Vec<u8> {
    let mut m = BASE[..36].to_vec();
    for &(at, v) in patch {
        m[at] = v;
    }
    m.extend_from_slice(uids);
    m
}

#[test]
fn truncated_header() {
    for len in 0..36 {
        let e = reject(&BASE[..len]);
        assert_eq!(
            (e.kind(), e.offset()),
            (WireErrorKind::Truncated, len),
            "len {len}"
        );
    }
    assert_eq!(
        reject(&BASE[..20]).to_string(),
        "truncated message: expected at least 36 octets, found 20 at octet 20"
    );
}

#[test]
fn length_must_be_exact() {
    let e = reject(&BASE[..37]);
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::LengthMismatch, 34));
    assert_eq!(
        e.to_string(),
        "length mismatch: expected 38 octets from the uid length fields, found 37 at octet 34"
    );
    let mut long = BASE.to_vec();
    long.push(0);
    let e = reject(&long);
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::LengthMismatch, 34));
    // A range counts UID Len 2 as well; the error points at octet 35.
    let range = message(&[(33, 2), (34, 1), (35, 2)], &[1, 2]);
    let e = reject(&range);
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::LengthMismatch, 35));
    assert!(e.to_string().contains("expected 39 octets"), "{e}");
    // The same check at the Packet layer.
    assert_eq!(Packet::new_checked(&range[..]).unwrap_err(), e);
}

#[test]
fn unknown_version() {
    for version in [0u8, 2, 0xff] {
        let e = reject(&message(&[(0, version)], &[0xc0, 0xa8]));
        assert_eq!((e.kind(), e.offset()), (WireErrorKind::UnknownVersion, 0));
    }
    assert_eq!(
        reject(&message(&[(0, 2)], &[0xc0, 0xa8])).to_string(),
        "unknown version: expected 1, found 2 at octet 0"
    );
    // The version is judged before the length: a future version may have another layout.
    let e = reject(&message(&[(0, 2)], &[0xc0]));
    assert_eq!(e.kind(), WireErrorKind::UnknownVersion);
}

#[test]
fn unknown_type_3_to_15() {
    for t in 3u8..=15 {
        let e = reject(&message(&[(1, t << 4)], &[0xc0, 0xa8]));
        assert_eq!(
            (e.kind(), e.offset()),
            (WireErrorKind::UnknownType, 1),
            "type {t}"
        );
    }
    assert_eq!(
        reject(&message(&[(1, 0x33)], &[0xc0, 0xa8])).to_string(),
        "unknown message type: expected 0 (claim-attempt), 1 (claim-deny) or 2 (loss-notice), found 3 at octet 1"
    );
}

/// A Loss-Notice (type 2, docs/uiap-design.md D80): the header alone, every field that would
/// name a claim 0.
fn notice() -> Vec<u8> {
    let mut m = message(&[(1, 0x20)], &[]);
    m[24..36].fill(0);
    m
}

#[test]
fn a_loss_notice_is_a_header_that_names_no_claim() {
    let repr = Repr::parse(&notice()).expect("a valid notice");
    assert_eq!(repr.msg_type, uiap::wire::MessageType::LossNotice);
    assert_eq!((repr.lifetime, repr.claim_ref), (3600, 0xdead_beef));
    assert_eq!(repr.to_vec(), notice(), "emitted as parsed");
    // Each octet that would name a claim, set: refused at that octet.
    for (at, value) in [
        (1, 0x21),
        (1, 0x22),
        (24, 1),
        (30, 1),
        (31, 0x80),
        (33, 1),
        (35, 1),
    ] {
        let mut m = notice();
        m[at] = value;
        let e = reject(&m);
        assert_eq!(
            (e.kind(), e.offset()),
            (WireErrorKind::NoticeNamesClaim, at),
            "octet {at} = {value:#04x}"
        );
    }
    // A UID: refused, whether its length is told or not.
    let mut with_uid = notice();
    with_uid[34] = 1;
    with_uid.push(7);
    let e = reject(&with_uid);
    assert_eq!(
        (e.kind(), e.offset()),
        (WireErrorKind::NoticeNamesClaim, 34)
    );
    assert_eq!(
        e.to_string(),
        "loss-notice names a claim: expected flags, domain id, format and uid lengths 0, found 0x01 at octet 34"
    );
    let mut longer = notice();
    longer.push(7);
    assert_eq!(reject(&longer).kind(), WireErrorKind::LengthMismatch);
    // The reserved octets stay ignored, as in every message.
    let mut reserved = notice();
    reserved[2] = 0xff;
    reserved[32] = 0xff;
    assert!(Repr::parse(&reserved).is_ok());
}

#[test]
fn unknown_format_3() {
    let e = reject(&message(&[(33, 0x03)], &[0xc0, 0xa8]));
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::UnknownFormat, 33));
    assert_eq!(
        e.to_string(),
        "unknown uid format: expected 0 (unique), 1 (prefix) or 2 (range), found 3 at octet 33"
    );
    // The Packet layer still reads it as one UID (no UID 2) without panicking.
    let bytes = message(&[(33, 0x03), (35, 9)], &[0xc0, 0xa8]);
    let packet = Packet::new_checked(&bytes[..]).unwrap();
    assert_eq!((packet.uid1(), packet.uid2()), (&[0xc0, 0xa8][..], &[][..]));
}

#[test]
fn zero_device_id() {
    let patch: Vec<(usize, u8)> = (8..16).map(|i| (i, 0)).collect();
    let e = reject(&message(&patch, &[0xc0, 0xa8]));
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::ZeroDeviceId, 8));
    assert_eq!(
        e.to_string(),
        "reserved device id: expected a non-zero originating device id, found 0 at octet 8"
    );
}

#[test]
fn empty_uid_with_bit_alignment() {
    // UID Len 0 and BA 3.
    let e = reject(&message(&[(33, (3 << 5) | 1), (34, 0)], &[]));
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::EmptyUid, 33));
    assert_eq!(
        e.to_string(),
        "empty uid with bit alignment: expected ba 0 for uid 1 of length 0, found 3 at octet 33"
    );
    // UID Len 2 = 0 and BA2 = 2 in a range.
    let e = reject(&message(&[(33, (2 << 2) | 2), (34, 1), (35, 0)], &[7]));
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::EmptyUid, 33));
    assert!(
        e.to_string().contains("for uid 2 of length 0, found 2"),
        "{e}"
    );
}

#[test]
fn non_zero_padding_left_justified() {
    // BA 4: the low 4 bits of the LAST octet are padding.
    let e = reject(&message(&[(33, (4 << 5) | 1), (34, 2)], &[0xc0, 0xaf]));
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::NonZeroPadding, 37));
    assert_eq!(
        e.to_string(),
        "non-zero padding: expected the insignificant bits 0x0f to be 0, found 0xaf at octet 37"
    );
    // Every BA and every single padding bit.
    for ba in 1u8..=7 {
        for bit in 0..(8 - ba) {
            let e = reject(&message(&[(33, ba << 5), (34, 1)], &[1 << bit]));
            assert_eq!(
                (e.kind(), e.offset()),
                (WireErrorKind::NonZeroPadding, 36),
                "ba {ba} bit {bit}"
            );
        }
        // ... while the significant bits may be anything.
        let top = 0xffu8 << (8 - ba);
        assert!(
            Repr::parse(&message(&[(33, ba << 5), (34, 1)], &[top])).is_ok(),
            "ba {ba}"
        );
    }
}

#[test]
fn non_zero_padding_right_justified() {
    // J = 1, BA 4: the HIGH 4 bits of the FIRST octet are padding (docs/uiap-design.md D7).
    let e = reject(&message(
        &[(31, 0x80), (33, 4 << 5), (34, 2)],
        &[0x1a, 0xbc],
    ));
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::NonZeroPadding, 36));
    assert!(
        e.to_string()
            .contains("bits 0xf0 to be 0, found 0x1a at octet 36"),
        "{e}"
    );
    // The same octets are fine in a left-justified domain only if the last octet is clean.
    assert!(
        Repr::parse(&message(
            &[(31, 0x80), (33, 4 << 5), (34, 2)],
            &[0x0a, 0xbc]
        ))
        .is_ok()
    );
    // Padding in UID 2 of a range points into UID 2.
    let e = reject(&message(
        &[(31, 0x80), (33, (1 << 2) | 2), (34, 1), (35, 2)],
        &[0x01, 0x03, 0x00],
    ));
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::NonZeroPadding, 37));
}

#[test]
fn prefix_in_right_justified_domain() {
    let e = reject(&message(&[(31, 0x80)], &[0xc0, 0xa8]));
    assert_eq!(
        (e.kind(), e.offset()),
        (WireErrorKind::PrefixInRightJustified, 33)
    );
    assert_eq!(
        e.to_string(),
        "prefix in right-justified domain: expected fmt 0 (unique) or 2 (range) when j = 1, found 1 at octet 33"
    );
}

#[test]
fn reversed_range() {
    // 42 ..= 13
    let e = reject(&message(&[(33, 2), (34, 1), (35, 1)], &[42, 13]));
    assert_eq!((e.kind(), e.offset()), (WireErrorKind::RangeReversed, 37));
    assert_eq!(
        e.to_string(),
        "reversed range: expected uid 1 <= uid 2, found uid 1 > uid 2 at octet 37"
    );
    // Order depends on J: ff ..= 00 01 is reversed for J = 0 and valid for J = 1 (longer is larger).
    let bytes = message(&[(33, 2), (34, 1), (35, 2)], &[0xff, 0x00, 0x01]);
    assert_eq!(reject(&bytes).kind(), WireErrorKind::RangeReversed);
    let mut right = bytes.clone();
    right[31] = 0x80;
    assert!(Repr::parse(&right).is_ok());
    // A range of one value is fine.
    assert!(Repr::parse(&message(&[(33, 2), (34, 1), (35, 1)], &[42, 42])).is_ok());
}

#[test]
fn first_problem_wins() {
    // Unknown type and zero device id: the type (octet 1) is reported.
    let mut patch: Vec<(usize, u8)> = (8..16).map(|i| (i, 0)).collect();
    patch.push((1, 0x50));
    assert_eq!(
        reject(&message(&patch, &[0xc0, 0xa8])).kind(),
        WireErrorKind::UnknownType
    );
    // Wrong length and zero device id: the length.
    assert_eq!(
        reject(&message(&patch[..8], &[0xc0])).kind(),
        WireErrorKind::LengthMismatch
    );
}

#[test]
fn kind_names_are_stable_and_distinct() {
    let names: Vec<&str> = WireErrorKind::ALL
        .iter()
        .map(WireErrorKind::as_str)
        .collect();
    assert_eq!(
        names,
        [
            "truncated",
            "length_mismatch",
            "unknown_version",
            "unknown_type",
            "unknown_format",
            "zero_device_id",
            "bad_bit_alignment",
            "non_zero_padding",
            "prefix_in_right_justified",
            "range_reversed",
            "empty_uid",
            "notice_names_claim",
        ]
    );
}
