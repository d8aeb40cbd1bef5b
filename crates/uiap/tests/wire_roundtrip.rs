//! Property tests: decode → encode round trips, and the parser never panics.

use proptest::prelude::*;
use uiap::space::{DomainId, Justification, Uid, UidSpace};
use uiap::wire::{DeviceId, MessageType, Packet, Repr};

/// A canonical UID of justification `j`: 0..=max_len octets, a random BA, padding cleared.
fn uid(j: Justification, max_len: usize) -> impl Strategy<Value = Uid> {
    (prop::collection::vec(any::<u8>(), 0..=max_len), 0u8..8).prop_map(move |(mut bytes, ba)| {
        let ba = if bytes.is_empty() { 0 } else { ba };
        if ba != 0 {
            match j {
                Justification::Left => *bytes.last_mut().unwrap() &= 0xffu8 << (8 - ba),
                Justification::Right => bytes[0] &= 0xffu8 >> (8 - ba),
            }
        }
        Uid::from_wire(&bytes, ba, j).unwrap()
    })
}

fn space(j: Justification) -> impl Strategy<Value = UidSpace> {
    // Mostly short UIDs, sometimes up to the 255-octet maximum.
    let len = prop_oneof![4 => Just(6usize), 1 => Just(255usize)];
    (len, 0u8..3).prop_flat_map(move |(max_len, fmt)| {
        (uid(j, max_len), uid(j, max_len)).prop_map(move |(a, b)| match fmt {
            0 => UidSpace::Unique(a),
            1 if j == Justification::Left => UidSpace::Prefix(a),
            1 => UidSpace::Unique(a),
            _ => {
                let (low, high) = if a.compare(&b, j) == std::cmp::Ordering::Greater {
                    (b, a)
                } else {
                    (a, b)
                };
                UidSpace::Range { low, high }
            }
        })
    })
}

fn repr() -> impl Strategy<Value = Repr> {
    (any::<[u8; 8]>(), any::<bool>()).prop_flat_map(|(mut did, right)| {
        did[7] = (did[7] & 0x7f) | if right { 0x80 } else { 0 };
        let domain = DomainId::from_bytes(did);
        (
            any::<bool>(),
            any::<(bool, bool, u8, u32)>(),
            1u64..,
            any::<(u32, u32)>(),
            space(domain.justification()),
        )
            .prop_map(
                move |(
                    deny,
                    (proxy, reclaim, hop_limit, lifetime),
                    origin,
                    (sequence, claim_ref),
                    space,
                )| Repr {
                    msg_type: if deny {
                        MessageType::ClaimDeny
                    } else {
                        MessageType::ClaimAttempt
                    },
                    proxy,
                    reclaim,
                    hop_limit,
                    lifetime,
                    origin: DeviceId::new(origin).unwrap(),
                    sequence,
                    claim_ref,
                    domain,
                    space,
                },
            )
    })
}

/// The octets `emit` produces for what `parse` accepted: reserved bits cleared, and UID Len 2 and
/// BA2 cleared outside ranges.
fn normalised(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[1] &= 0xf3;
    out[2] = 0;
    out[32] = 0;
    if out[33] & 3 != 2 {
        out[33] &= 0xe3;
        out[35] = 0;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn encode_then_decode_is_identity(r in repr()) {
        let bytes = r.to_vec();
        prop_assert_eq!(bytes.len(), r.buffer_len());
        prop_assert_eq!(Repr::parse(&bytes), Ok(r.clone()));
        // Every Repr the strategy builds is valid in its domain.
        prop_assert_eq!(r.space.validate(r.domain.justification()), Ok(()));
    }

    #[test]
    fn decode_then_encode_restores_the_octets(r in repr(), reserved in any::<(u8, u8, u8)>(), junk2 in any::<(u8, u8)>()) {
        // Take a valid message, dirty every ignored field, and decode → encode it.
        let mut bytes = r.to_vec();
        bytes[1] |= reserved.0 & 0x0c;
        bytes[2] = reserved.1;
        bytes[32] = reserved.2;
        let is_range = matches!(r.space, UidSpace::Range { .. });
        if !is_range {
            bytes[33] |= (junk2.0 & 7) << 2;
            bytes[35] = junk2.1;
        }
        let parsed = Repr::parse(&bytes).unwrap();
        prop_assert_eq!(&parsed, &r);
        prop_assert_eq!(parsed.to_vec(), normalised(&bytes));
    }

    #[test]
    fn arbitrary_octets_never_panic_and_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..80)) {
        if let Ok(packet) = Packet::new_checked(&bytes[..]) {
            // No getter panics once the length is checked.
            let _ = (packet.uid1(), packet.uid2(), packet.domain(), packet.message_id(), packet.total_len());
        }
        if let Ok(r) = Repr::parse(&bytes) {
            prop_assert_eq!(r.to_vec(), normalised(&bytes));
            prop_assert_eq!(Repr::parse(&r.to_vec()), Ok(r));
        }
    }

    #[test]
    fn mutated_valid_messages_never_panic(r in repr(), at in any::<prop::sample::Index>(), value in any::<u8>(), cut in any::<prop::sample::Index>()) {
        let mut bytes = r.to_vec();
        let i = at.index(bytes.len());
        bytes[i] = value;
        match Repr::parse(&bytes) {
            Ok(p) => prop_assert_eq!(Repr::parse(&p.to_vec()), Ok(p)),
            Err(e) => prop_assert!(e.offset() <= bytes.len()),
        }
        // Any strict prefix of a valid message is rejected.
        let valid = r.to_vec();
        let short = &valid[..cut.index(valid.len())];
        prop_assert!(Repr::parse(short).is_err());
    }
}
