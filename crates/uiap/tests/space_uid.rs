//! UIDs: construction, canonical form, BA, and the order and overlap rules of §3.2.4.

use std::cmp::Ordering;

use uiap::space::{Justification, SpaceErrorKind, Uid, UidSpace};

const L: Justification = Justification::Left;
const R: Justification = Justification::Right;

fn oct(b: &[u8]) -> Uid {
    Uid::from_octets(b).unwrap()
}

#[test]
fn bit_length_must_fit_the_octets() {
    assert_eq!(Uid::new(&[], 0).unwrap().bit_len(), 0);
    assert_eq!(
        Uid::new(&[], 1).unwrap_err().kind(),
        SpaceErrorKind::BitLenMismatch
    );
    assert_eq!(
        Uid::new(&[0x80], 0).unwrap_err().kind(),
        SpaceErrorKind::BitLenMismatch
    );
    assert_eq!(
        Uid::new(&[0x80, 0], 8).unwrap_err().kind(),
        SpaceErrorKind::BitLenMismatch
    );
    assert_eq!(
        Uid::new(&[0x80], 9).unwrap_err().kind(),
        SpaceErrorKind::BitLenMismatch
    );
    for bits in 1..=8 {
        assert_eq!(Uid::new(&[0x80], bits).unwrap().bit_len(), bits);
    }
    assert_eq!(
        Uid::new(&[0x80], 9).unwrap_err().to_string(),
        "bit length mismatch: expected 1 to 8 bits for 1 octets, found 9"
    );
    assert_eq!(Uid::from_octets(&[0; 255]).unwrap().bit_len(), 2040);
    let e = Uid::from_octets(&[0; 256]).unwrap_err();
    assert_eq!(e.kind(), SpaceErrorKind::UidTooLong);
    assert_eq!(
        e.to_string(),
        "uid too long: expected at most 255 octets, found 256 octets"
    );
    assert_eq!(
        Uid::new(&[0; 256], 2048).unwrap_err().kind(),
        SpaceErrorKind::UidTooLong
    );
}

#[test]
fn padding_side_depends_on_justification() {
    // §3.2.3: insignificant bits MUST be 0, so (BA = 4, 0xAF) is not canonical; 0xA0 is.
    assert_eq!(
        Uid::new(&[0xaf], 4).unwrap_err().kind(),
        SpaceErrorKind::NonZeroPadding
    );
    assert_eq!(Uid::new(&[0xa0], 4).unwrap().as_bytes(), &[0xa0]);
    // Right-justified: the high bits of the first octet are padding.
    assert_eq!(Uid::with_justification(&[0x0a], 4, R).unwrap().ba(), 4);
    let e = Uid::with_justification(&[0xa0], 4, R).unwrap_err();
    assert_eq!(e.kind(), SpaceErrorKind::NonZeroPadding);
    assert_eq!(
        e.to_string(),
        "non-zero padding: expected the insignificant bits 0xf0 to be 0, found 0xa0 at octet 0"
    );
    // A validated space re-checks its UIDs for the domain's justification.
    let left_form = UidSpace::Unique(Uid::new(&[0xa0], 4).unwrap());
    assert_eq!(left_form.validate(L), Ok(()));
    assert_eq!(
        left_form.validate(R).unwrap_err().kind(),
        SpaceErrorKind::NonZeroPadding
    );
}

#[test]
fn ba_is_the_wire_value() {
    assert_eq!(Uid::new(&[], 0).unwrap().ba(), 0);
    assert_eq!(Uid::new(&[0xc0, 0xa8], 16).unwrap().ba(), 0);
    for bits in 9..16 {
        assert_eq!(
            Uid::new(&[0xc0, 0x80], bits).unwrap().ba(),
            (bits - 8) as u8
        );
    }
    // from_wire is the inverse.
    for ba in 0..8 {
        let u = Uid::from_wire(&[0xff, 0x00], ba, L).unwrap();
        assert_eq!(u.ba(), ba);
        assert_eq!(u.bit_len(), if ba == 0 { 16 } else { 8 + u16::from(ba) });
    }
    assert_eq!(
        Uid::from_wire(&[], 3, L).unwrap_err().kind(),
        SpaceErrorKind::BitLenMismatch
    );
    assert_eq!(
        Uid::from_wire(&[0], 8, L).unwrap_err().kind(),
        SpaceErrorKind::BitLenMismatch
    );
}

#[test]
fn section_3_2_4_order_examples() {
    // Left-justified, zeros significant: on an equal common part the longer is larger (01 < 01 00).
    assert_eq!(oct(&[0x01]).compare(&oct(&[0x01, 0x00]), L), Ordering::Less);
    // ... and a difference decides before length.
    assert_eq!(
        oct(&[0x02]).compare(&oct(&[0x01, 0xff]), L),
        Ordering::Greater
    );
    // Right-justified, zeros significant: the longer string is larger, unconditionally (00 01 > FF).
    assert_eq!(
        oct(&[0x00, 0x01]).compare(&oct(&[0xff]), R),
        Ordering::Greater
    );
    assert_eq!(
        oct(&[0x00, 0xfe]).compare(&oct(&[0x00, 0xff]), R),
        Ordering::Less
    );
    // Bit-aligned, identical octets, different bit lengths: more bits is larger (BA = 0 counts 8).
    let short = Uid::new(&[0xc0], 2).unwrap();
    let long = Uid::new(&[0xc0], 8).unwrap();
    assert_eq!(short.compare(&long, L), Ordering::Less);
    assert_eq!(long.compare(&short, L), Ordering::Greater);
    // Right-justified bit lengths: 4-bit 0xf < 5-bit 0x10.
    let four = Uid::with_justification(&[0x0f], 4, R).unwrap();
    let five = Uid::with_justification(&[0x10], 5, R).unwrap();
    assert_eq!(four.compare(&five, R), Ordering::Less);
    // Equal is equal.
    assert_eq!(
        oct(&[1, 2, 3]).compare(&oct(&[1, 2, 3]), L),
        Ordering::Equal
    );
    assert_eq!(
        oct(&[1, 2, 3]).compare(&oct(&[1, 2, 3]), R),
        Ordering::Equal
    );
}

#[test]
fn section_3_2_4_overlap_examples() {
    // §4.2.2.1 with the §3.2.2 range: own 13..42, received unique 42 → conflict; 43 → none.
    let held = UidSpace::Range {
        low: oct(&[13]),
        high: oct(&[42]),
    };
    assert!(held.overlaps(&UidSpace::Unique(oct(&[42])), L));
    assert!(held.overlaps(&UidSpace::Unique(oct(&[13])), L));
    assert!(!held.overlaps(&UidSpace::Unique(oct(&[43])), L));
    assert!(!held.overlaps(&UidSpace::Unique(oct(&[12])), L));
    // Ranges [a,b], [c,d] meet iff a <= d and c <= b: touching at one point counts.
    assert!(held.overlaps(
        &UidSpace::Range {
            low: oct(&[42]),
            high: oct(&[50])
        },
        L
    ));
    assert!(!held.overlaps(
        &UidSpace::Range {
            low: oct(&[43]),
            high: oct(&[50])
        },
        L
    ));
    // 192.168/16 vs addresses and other prefixes.
    let net = UidSpace::Prefix(oct(&[192, 168]));
    assert!(net.overlaps(&UidSpace::Unique(oct(&[192, 168, 1, 1])), L));
    assert!(!net.overlaps(&UidSpace::Unique(oct(&[192, 169, 1, 1])), L));
    assert!(net.overlaps(&UidSpace::Prefix(oct(&[192])), L));
    assert!(net.overlaps(
        &UidSpace::Prefix(Uid::new(&[192, 168, 128], 17).unwrap()),
        L
    ));
    assert!(!net.overlaps(&UidSpace::Prefix(oct(&[10])), L));
    // A range that only passes below the prefix's first member: [c0 a7, c0 a7 ff] vs c0 a8/16.
    let below = UidSpace::Range {
        low: oct(&[192, 167]),
        high: oct(&[192, 167, 255]),
    };
    assert!(!net.overlaps(&below, L));
    // A range starting inside the prefix's extensions: [c0 a8 ff ff, c1].
    let inside = UidSpace::Range {
        low: oct(&[192, 168, 255, 255]),
        high: oct(&[193]),
    };
    assert!(net.overlaps(&inside, L));
    // Long UIDs: 255 octets.
    let long = UidSpace::Unique(oct(&[0xc0; 255]));
    assert!(UidSpace::Prefix(oct(&[0xc0; 200])).overlaps(&long, L));
    assert!(!UidSpace::Prefix(oct(&[0xc1])).overlaps(&long, L));
}

#[test]
fn contains_agrees_with_overlaps_on_uniques() {
    let spaces = [
        UidSpace::Range {
            low: oct(&[13]),
            high: oct(&[42]),
        },
        UidSpace::Prefix(Uid::new(&[0xc0], 2).unwrap()),
        UidSpace::Unique(oct(&[7])),
    ];
    for s in &spaces {
        for v in 0..=255u8 {
            for len in [1usize, 2] {
                let u = oct(&vec![v; len]);
                assert_eq!(
                    s.contains(&u, L),
                    s.overlaps(&UidSpace::Unique(u.clone()), L),
                    "{s:?} {u:?}"
                );
            }
        }
    }
}
