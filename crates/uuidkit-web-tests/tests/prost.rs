//! `prost`: a message generated with `uuidkit.Uuid` mapped to
//! `uuidkit::Uuid` (prost-build's `extern_path`) encodes to the same wire
//! bytes as the message generated without the mapping, whose `value` a
//! `uuid` program fills with `as_bytes()`; each decodes the other's bytes.

use std::collections::BTreeMap;

use prost::Message;

/// `extern_path(".uuidkit.Uuid", "::uuidkit::Uuid")`.
mod ours {
    include!(concat!(env!("OUT_DIR"), "/ours/orders.rs"));
}

/// No mapping: `uuidkit.Uuid` is a generated message with `value: Vec<u8>`.
mod theirs {
    pub mod orders {
        include!(concat!(env!("OUT_DIR"), "/theirs/orders.rs"));
    }
    pub mod uuidkit {
        include!(concat!(env!("OUT_DIR"), "/theirs/uuidkit.rs"));
    }
}

type TheirUuid = theirs::uuidkit::Uuid;

/// What a `uuid` program puts in the generated message.
fn theirs_of(u: uuid::Uuid) -> TheirUuid {
    TheirUuid {
        value: u.as_bytes().to_vec(),
    }
}

/// One order with every kind of field the message has, as both types.
fn orders(i: usize) -> (theirs::orders::Order, ours::Order) {
    let pairs: Vec<_> = crate::support::pairs().collect();
    let (t, o) = pairs[i % pairs.len()];
    // Map values other than the Nil UUID (see the next test for it).
    let owned = || pairs.iter().enumerate().filter(|(_, p)| !p.1.is_nil());
    let owners_t: BTreeMap<_, _> = owned()
        .map(|(k, p)| (format!("o{k}"), theirs_of(p.0)))
        .collect();
    let owners_o: BTreeMap<_, _> = owned().map(|(k, p)| (format!("o{k}"), p.1)).collect();
    let theirs = theirs::orders::Order {
        id: Some(theirs_of(t)),
        items: pairs.iter().map(|p| theirs_of(p.0)).collect(),
        owners: owners_t,
        note: format!("order {i}"),
        parent: Some(theirs::orders::order::Parent::ParentId(theirs_of(t))),
    };
    let ours = ours::Order {
        id: Some(o),
        items: pairs.iter().map(|p| p.1).collect(),
        owners: owners_o,
        note: format!("order {i}"),
        parent: Some(ours::order::Parent::ParentId(o)),
    };
    (theirs, ours)
}

#[test]
fn prost_writes_the_bytes_of_the_generated_message_and_reads_them() {
    for i in 0..crate::support::SAMPLES.len() {
        let (theirs, ours) = orders(i);
        let a = theirs.encode_to_vec();
        let b = ours.encode_to_vec();
        assert_eq!(a, b, "order {i}");
        assert_eq!(ours.encoded_len(), a.len());
        assert_eq!(ours::Order::decode(&a[..]).unwrap(), ours);
        assert_eq!(theirs::orders::Order::decode(&b[..]).unwrap(), theirs);
        // Length-delimited too (a stream of messages, as gRPC frames them).
        let a = theirs.encode_length_delimited_to_vec();
        assert_eq!(a, ours.encode_length_delimited_to_vec());
        assert_eq!(ours::Order::decode_length_delimited(&a[..]).unwrap(), ours);
    }
}

#[test]
fn prost_reads_an_empty_id_as_nil_and_refuses_a_wrong_length() {
    // A peer's empty message (no `value`, proto3's unset field).
    let empty = theirs::orders::Order {
        id: Some(TheirUuid { value: vec![] }),
        ..Default::default()
    };
    let back = ours::Order::decode(&empty.encode_to_vec()[..]).unwrap();
    assert_eq!(back.id, Some(uuidkit::Uuid::NIL));
    // An absent id stays absent.
    let none = theirs::orders::Order::default();
    assert_eq!(
        ours::Order::decode(&none.encode_to_vec()[..]).unwrap().id,
        None
    );
    // 15 bytes: an error that names the field, never a UUID.
    let short = theirs::orders::Order {
        items: vec![TheirUuid { value: vec![7; 15] }],
        ..Default::default()
    };
    let err = ours::Order::decode(&short.encode_to_vec()[..])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("invalid length 15 bytes: expected 16"),
        "{err}"
    );
    assert!(err.contains("Order.items"), "{err}");
}

#[test]
fn prost_build_used_the_names_uuidkit_publishes() {
    assert_eq!(uuidkit::proto::UUID_PROTO_PATH, env!("UUID_PROTO_PATH"));
    assert_eq!(uuidkit::proto::UUID_MESSAGE, env!("UUID_MESSAGE"));
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../uuidkit/proto/",
        env!("UUID_PROTO_PATH")
    );
    assert_eq!(
        std::fs::read_to_string(file).unwrap(),
        uuidkit::proto::UUID_PROTO
    );
    // The generated message's name is the one `Name` gives uuidkit's type.
    use prost::Name;
    assert_eq!(uuidkit::Uuid::full_name(), "uuidkit.Uuid");
    assert_eq!(
        format!(".{}", uuidkit::Uuid::full_name()),
        env!("UUID_MESSAGE")
    );
}

#[test]
fn prost_writes_a_nil_map_value_as_absent_and_both_read_it() {
    // prost writes no value for a map entry whose value is its type's
    // default, and `uuidkit::Uuid`'s default is the Nil UUID; the generated
    // message's default is an empty one, so a `uuid` program writes the 16
    // zero bytes. `uuid.proto` defines an empty `value` as the Nil UUID.
    let nil = uuidkit::Uuid::NIL;
    let ours = ours::Order {
        owners: BTreeMap::from([("n".to_owned(), nil)]),
        ..Default::default()
    };
    let theirs = theirs::orders::Order {
        owners: BTreeMap::from([("n".to_owned(), theirs_of(uuid::Uuid::nil()))]),
        ..Default::default()
    };
    let (a, b) = (theirs.encode_to_vec(), ours.encode_to_vec());
    // The entry: key only (`0a 01 'n'`) against key and an 18-byte value.
    assert_eq!(b, [0x1a, 3, 0x0a, 1, b'n']);
    assert_eq!(a.len(), b.len() + 20);
    assert_eq!(ours::Order::decode(&a[..]).unwrap(), ours);
    assert_eq!(ours::Order::decode(&b[..]).unwrap(), ours);
    let read = theirs::orders::Order::decode(&b[..]).unwrap();
    assert_eq!(read.owners["n"], TheirUuid { value: vec![] });
}
