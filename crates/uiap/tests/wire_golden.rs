//! Golden byte vectors for the UIAP message format (docs/uiap-design.md D1), smoltcp style: every
//! vector is written out by hand from the §4.1 layout, then read field by field (deconstruct),
//! built into a buffer full of 0xa5 filler (construct), parsed into a `Repr` and emitted from one.

use uiap::space::{DomainId, Justification, Uid, UidSpace};
use uiap::wire::{DeviceId, HEADER_LEN, INITIAL_HOP_LIMIT, MessageId, MessageType, Packet, Repr};

/// The draft's own examples in one message: a Claim-Attempt in DID 1:2:3:0 (§6.1) for the prefix
/// 192.168/16 (§3.2.2); hop 32, lifetime 3600, device 0x0211223344556677, sequence 1, reference
/// 0xdeadbeef.
static ATTEMPT_PREFIX: [u8; 38] = [
    0x01, 0x00, 0x00, 0x20, // version 1, type 0, no flags, reserved, hop limit 32
    0x00, 0x00, 0x0e, 0x10, // lifetime 3600
    0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, // originating device id
    0x00, 0x00, 0x00, 0x01, // sequence 1
    0xde, 0xad, 0xbe, 0xef, // claim reference
    0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, // DID 1:2:3:0, J = 0
    0x00, // reserved
    0x01, // BA 0 | BA2 0 | Fmt 1 (prefix)
    0x02, 0x00, // UID Len 2, UID Len 2 = 0
    0xc0, 0xa8, // 192.168
];

/// Its Claim-Deny: type 1 in octet 1, hop limit reset to 32 (already 32), all else copied.
static DENY_PREFIX: [u8; 38] = [
    0x01, 0x10, 0x00, 0x20, 0x00, 0x00, 0x0e, 0x10, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00,
    0x00, 0x01, 0x02, 0x00, 0xc0, 0xa8,
];

/// A proxied reclaim (X and R) of a 12-bit unique value in a left-justified domain, infinite
/// lifetime: BA = 4 counts the significant high bits of the last octet.
static ATTEMPT_UNIQUE: [u8; 38] = [
    0x01, 0x03, 0x00, 0x20, // type 0 | X | R, hop limit 32
    0xff, 0xff, 0xff, 0xff, // lifetime: infinite
    0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, //
    0xff, 0xff, 0xff, 0xfe, // sequence 2^32 - 2
    0x00, 0x00, 0x00, 0x00, // claim reference 0
    0x0f, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // DID fff:0:0:1
    0x00, //
    0x80, // BA 4 (100) | BA2 0 | Fmt 0 (unique)
    0x02, 0x00, //
    0xab, 0xc0, // 1010 1011 1100 + 4 zero padding bits
];

/// The Deny for it, with lifetime 0 (§4.5.2: a Deny MAY say 0); X and R copied.
static DENY_UNIQUE: [u8; 38] = [
    0x01, 0x13, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0xff, 0xff, 0xff, 0xfe, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x80, 0x02, 0x00, 0xab, 0xc0,
];

/// A range 13 ..= 0x2a/9 bits in a left-justified domain: BA2 = 1 on the upper bound.
static ATTEMPT_RANGE: [u8; 39] = [
    0x01, 0x02, 0x00, 0x05, // type 0 | X, hop limit 5
    0x00, 0x00, 0x00, 0x3c, // lifetime 60
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // device 1
    0x00, 0x00, 0x00, 0x00, // sequence 0
    0x00, 0x00, 0x00, 0x2a, // claim reference 42
    0x0f, 0xfe, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, // DID ffe:1:0:0
    0x00, //
    0x06, // BA 0 | BA2 1 (001) | Fmt 2 (range)
    0x01, 0x02, // UID Len 1, UID Len 2 = 2
    0x0d, // low: 0000 1101
    0x2a, 0x80, // high: 0010 1010 1 + 7 zero padding bits
];

/// A Deny for a range in a right-justified domain (J = 1): BA = 4 counts the significant LOW bits
/// of the FIRST octet (docs/uiap-design.md D7); the 12-bit 0xabc is below the 24-bit 0x010000.
static DENY_RANGE: [u8; 41] = [
    0x01, 0x10, 0x00, 0x00, // type 1, hop limit 0
    0x00, 0x00, 0x0e, 0x10, // lifetime 3600
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // device 2^64 - 1
    0x00, 0x00, 0x00, 0x07, // sequence 7
    0x01, 0x02, 0x03, 0x04, // claim reference
    0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x80, // DID 1:2:3:80, J = 1
    0x00, //
    0x82, // BA 4 (100) | BA2 0 | Fmt 2 (range)
    0x02, 0x03, // UID Len 2, UID Len 2 = 3
    0x0a, 0xbc, // low: 4 zero padding bits + 1010 1011 1100
    0x01, 0x00, 0x00, // high
];

fn device(id: u64) -> DeviceId {
    DeviceId::new(id).expect("non-zero device id")
}

fn attempt_prefix_repr() -> Repr {
    Repr {
        msg_type: MessageType::ClaimAttempt,
        proxy: false,
        reclaim: false,
        hop_limit: 32,
        lifetime: 3600,
        origin: device(0x0211_2233_4455_6677),
        sequence: 1,
        claim_ref: 0xdead_beef,
        domain: DomainId::from_bytes([0, 1, 0, 2, 0, 3, 0, 0]),
        space: UidSpace::Prefix(Uid::from_octets(&[0xc0, 0xa8]).unwrap()),
    }
}

fn attempt_unique_repr() -> Repr {
    Repr {
        msg_type: MessageType::ClaimAttempt,
        proxy: true,
        reclaim: true,
        hop_limit: 32,
        lifetime: u32::MAX,
        origin: device(0x0211_2233_4455_6677),
        sequence: 0xffff_fffe,
        claim_ref: 0,
        domain: DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 0, 0, 1]),
        space: UidSpace::Unique(Uid::new(&[0xab, 0xc0], 12).unwrap()),
    }
}

fn attempt_range_repr() -> Repr {
    Repr {
        msg_type: MessageType::ClaimAttempt,
        proxy: true,
        reclaim: false,
        hop_limit: 5,
        lifetime: 60,
        origin: device(1),
        sequence: 0,
        claim_ref: 42,
        domain: DomainId::from_bytes([0x0f, 0xfe, 0, 1, 0, 0, 0, 0]),
        space: UidSpace::Range {
            low: Uid::new(&[0x0d], 8).unwrap(),
            high: Uid::new(&[0x2a, 0x80], 9).unwrap(),
        },
    }
}

fn deny_range_repr() -> Repr {
    let j = Justification::Right;
    Repr {
        msg_type: MessageType::ClaimDeny,
        proxy: false,
        reclaim: false,
        hop_limit: 0,
        lifetime: 3600,
        origin: device(u64::MAX),
        sequence: 7,
        claim_ref: 0x0102_0304,
        domain: DomainId::from_bytes([0, 1, 0, 2, 0, 3, 0, 0x80]),
        space: UidSpace::Range {
            low: Uid::with_justification(&[0x0a, 0xbc], 12, j).unwrap(),
            high: Uid::with_justification(&[0x01, 0x00, 0x00], 24, j).unwrap(),
        },
    }
}

/// Every golden vector with the `Repr` it encodes.
fn vectors() -> Vec<(&'static str, &'static [u8], Repr)> {
    let deny_prefix = Repr {
        msg_type: MessageType::ClaimDeny,
        ..attempt_prefix_repr()
    };
    let deny_unique = Repr {
        msg_type: MessageType::ClaimDeny,
        lifetime: 0,
        ..attempt_unique_repr()
    };
    vec![
        ("attempt/prefix", &ATTEMPT_PREFIX[..], attempt_prefix_repr()),
        ("deny/prefix", &DENY_PREFIX[..], deny_prefix),
        ("attempt/unique", &ATTEMPT_UNIQUE[..], attempt_unique_repr()),
        ("deny/unique", &DENY_UNIQUE[..], deny_unique),
        ("attempt/range", &ATTEMPT_RANGE[..], attempt_range_repr()),
        ("deny/range (J = 1)", &DENY_RANGE[..], deny_range_repr()),
    ]
}

#[test]
fn test_deconstruct_attempt_prefix() {
    let packet = Packet::new_checked(&ATTEMPT_PREFIX[..]).unwrap();
    assert_eq!(packet.version(), 1);
    assert_eq!(packet.msg_type_raw(), 0);
    assert!(!packet.proxy());
    assert!(!packet.reclaim());
    assert_eq!(packet.hop_limit(), 32);
    assert_eq!(packet.lifetime(), 3600);
    assert_eq!(packet.origin_raw(), 0x0211_2233_4455_6677);
    assert_eq!(packet.sequence(), 1);
    assert_eq!(packet.claim_ref(), 0xdead_beef);
    assert_eq!(packet.domain().as_bytes(), &[0, 1, 0, 2, 0, 3, 0, 0]);
    assert_eq!(packet.domain().justification(), Justification::Left);
    assert_eq!(packet.ba(), 0);
    assert_eq!(packet.ba2(), 0);
    assert_eq!(packet.format_raw(), 1);
    assert_eq!(packet.uid_len(), 2);
    assert_eq!(packet.uid_len2(), 0);
    assert_eq!(packet.uid1(), &[0xc0, 0xa8]);
    assert_eq!(packet.uid2(), &[] as &[u8]);
    assert_eq!(packet.total_len(), 38);
    assert_eq!(
        packet.message_id(),
        Some(MessageId {
            origin: device(0x0211_2233_4455_6677),
            sequence: 1
        })
    );
}

#[test]
fn test_deconstruct_attempt_unique_flags_and_ba() {
    let packet = Packet::new_checked(&ATTEMPT_UNIQUE[..]).unwrap();
    assert!(packet.proxy());
    assert!(packet.reclaim());
    assert_eq!(packet.lifetime(), u32::MAX);
    assert_eq!(packet.sequence(), 0xffff_fffe);
    assert_eq!(packet.ba(), 4);
    assert_eq!(packet.format_raw(), 0);
    assert_eq!(packet.uid1(), &[0xab, 0xc0]);
}

#[test]
fn test_deconstruct_ranges() {
    let packet = Packet::new_checked(&ATTEMPT_RANGE[..]).unwrap();
    assert_eq!((packet.ba(), packet.ba2(), packet.format_raw()), (0, 1, 2));
    assert_eq!((packet.uid_len(), packet.uid_len2()), (1, 2));
    assert_eq!(packet.uid1(), &[0x0d]);
    assert_eq!(packet.uid2(), &[0x2a, 0x80]);

    let packet = Packet::new_checked(&DENY_RANGE[..]).unwrap();
    assert_eq!(packet.msg_type_raw(), 1);
    assert_eq!(packet.hop_limit(), 0);
    assert_eq!(packet.origin_raw(), u64::MAX);
    assert_eq!(packet.domain().justification(), Justification::Right);
    assert_eq!((packet.ba(), packet.ba2(), packet.format_raw()), (4, 0, 2));
    assert_eq!(packet.uid1(), &[0x0a, 0xbc]);
    assert_eq!(packet.uid2(), &[0x01, 0x00, 0x00]);
}

#[test]
fn test_parse_every_vector() {
    for (name, bytes, repr) in vectors() {
        assert_eq!(Repr::parse(bytes).as_ref(), Ok(&repr), "{name}");
    }
}

#[test]
fn test_emit_every_vector_into_filler() {
    for (name, bytes, repr) in vectors() {
        assert_eq!(repr.buffer_len(), bytes.len(), "{name}");
        let mut buf = vec![0xa5; bytes.len()];
        repr.emit(&mut buf);
        assert_eq!(buf, bytes, "{name}");
        assert_eq!(repr.to_vec(), bytes, "{name}");
    }
}

#[test]
fn test_construct_deny_from_attempt_bytes() {
    // A device builds a Deny by copying the Attempt, setting type 1 and hop limit 32 (§2.4.5).
    let mut received = ATTEMPT_PREFIX;
    received[3] = 7; // it arrived after 25 hops
    let mut deny = Packet::new_checked(received.to_vec()).unwrap();
    deny.set_msg_type(MessageType::ClaimDeny);
    deny.set_hop_limit(INITIAL_HOP_LIMIT);
    assert_eq!(deny.into_inner(), DENY_PREFIX);

    let mut deny = Packet::new_checked(ATTEMPT_UNIQUE.to_vec()).unwrap();
    deny.set_msg_type(MessageType::ClaimDeny);
    deny.set_lifetime(0);
    assert_eq!(deny.into_inner(), DENY_UNIQUE);
}

#[test]
fn test_construct_into_filler_with_setters() {
    // Setters touch their own octets only: start from filler, set the header octets the
    // forwarder path changes, and check nothing else moved.
    let mut buf = [0xa5u8; HEADER_LEN];
    let mut packet = Packet::new_unchecked(&mut buf[..]);
    packet.set_hop_limit(0x20);
    packet.set_msg_type(MessageType::ClaimDeny);
    packet.set_lifetime(0x0000_0e10);
    let mut expected = [0xa5u8; HEADER_LEN];
    expected[1] = 0x15; // type 1, reserved/X/R bits of the filler kept
    expected[3] = 0x20;
    expected[4..8].copy_from_slice(&[0x00, 0x00, 0x0e, 0x10]);
    assert_eq!(buf, expected);
}

#[test]
fn test_forward_keeps_reserved_bits() {
    // docs/uiap-design.md D3: forward the received octets unchanged except the hop limit.
    let mut received = ATTEMPT_PREFIX;
    received[1] |= 0x0c; // reserved bits in octet 1
    received[2] = 0xff; // reserved octet
    received[32] = 0xff; // reserved octet
    let repr = Repr::parse(&received).unwrap();
    assert_eq!(
        repr,
        attempt_prefix_repr(),
        "reserved bits are ignored on receipt"
    );
    let mut forwarded = Packet::new_checked(received.to_vec()).unwrap();
    forwarded.set_hop_limit(31);
    let out = forwarded.into_inner();
    for (i, (&a, &b)) in received.iter().zip(&out).enumerate() {
        if i == 3 {
            assert_eq!((a, b), (32, 31));
        } else {
            assert_eq!(a, b, "octet {i}");
        }
    }
    // Emitting from the Repr clears them again.
    assert_eq!(repr.to_vec(), ATTEMPT_PREFIX);
}

#[test]
fn test_ignored_uid_len2_and_ba2_outside_ranges() {
    // §4.1: a non-range with UID Len 2 = 5 and BA2 = 3 is parsed (both are ignored), UID 2 is not.
    let mut received = ATTEMPT_PREFIX;
    received[33] = (3 << 2) | 1;
    received[35] = 5;
    let packet = Packet::new_checked(&received[..]).unwrap();
    assert_eq!(packet.total_len(), 38);
    assert_eq!(packet.uid2(), &[] as &[u8]);
    assert_eq!(Repr::parse(&received).unwrap(), attempt_prefix_repr());
}

#[test]
fn test_did_flags_kept_whole() {
    // The DID is 8 opaque octets compared byte for byte (docs/uiap-design.md D8): its reserved flag
    // bits are kept by parse and written back by emit.
    let mut received = ATTEMPT_PREFIX;
    received[31] = 0x7f;
    let repr = Repr::parse(&received).unwrap();
    assert_eq!(repr.domain.as_bytes()[7], 0x7f);
    assert_eq!(repr.domain.justification(), Justification::Left);
    assert_eq!(repr.to_vec(), received);
}

#[test]
fn test_hop_limit_kept_as_received() {
    let mut received = ATTEMPT_PREFIX;
    received[3] = 255;
    assert_eq!(Repr::parse(&received).unwrap().hop_limit, 255);
    received[3] = 0;
    assert_eq!(Repr::parse(&received).unwrap().hop_limit, 0);
}

#[test]
fn test_empty_and_maximal_uids() {
    // UID Len 0 (the empty bit string) and two UIDs of 255 octets (MAX_MESSAGE_LEN).
    let mut empty = ATTEMPT_PREFIX[..36].to_vec();
    empty[34] = 0;
    let repr = Repr::parse(&empty).unwrap();
    assert_eq!(repr.space, UidSpace::Prefix(Uid::from_octets(&[]).unwrap()));
    assert_eq!(repr.to_vec(), empty);

    let mut max = ATTEMPT_PREFIX[..36].to_vec();
    max[33] = 2;
    max[34] = 255;
    max[35] = 255;
    max.extend(std::iter::repeat_n(0x11, 255));
    max.extend(std::iter::repeat_n(0x22, 255));
    assert_eq!(max.len(), uiap::wire::MAX_MESSAGE_LEN);
    let repr = Repr::parse(&max).unwrap();
    let UidSpace::Range { low, high } = &repr.space else {
        panic!("expected a range, got {:?}", repr.space)
    };
    assert_eq!((low.bit_len(), high.bit_len()), (2040, 2040));
    assert_eq!(repr.to_vec(), max);
}
