//! `bson` 3.x and 2.x: a `uuidkit::Uuid` field under
//! `uuidkit::serde::bson` is the document bytes bson's own `uuid-1` helper
//! writes for a `uuid::Uuid` (Binary subtype 4), the `From` conversions
//! give the values bson gives, and each type reads the other's document.
//! The trap is shown too: a bare field is not subtype 4.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Ours {
    #[serde(with = "uuidkit::serde::bson")]
    id: uuidkit::Uuid,
    #[serde(with = "uuidkit::serde::bson::option")]
    parent: Option<uuidkit::Uuid>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Theirs {
    #[serde(with = "bson::serde_helpers::uuid_1::AsBinary")]
    id: uuid::Uuid,
    parent: Option<bson::Uuid>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Ours2 {
    #[serde(with = "uuidkit::serde::bson_2")]
    id: uuidkit::Uuid,
    #[serde(with = "uuidkit::serde::bson_2::option")]
    parent: Option<uuidkit::Uuid>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Theirs2 {
    #[serde(with = "bson_2::serde_helpers::uuid_1_as_binary")]
    id: uuid::Uuid,
    parent: Option<bson_2::Uuid>,
}

#[test]
fn bson_3_documents_are_the_same_bytes_and_each_reads_the_other() {
    for (theirs, ours) in crate::support::pairs() {
        for parent in [None, Some((theirs, ours))] {
            let a = Theirs {
                id: theirs,
                parent: parent.map(|p| bson::Uuid::from(p.0)),
            };
            let b = Ours {
                id: ours,
                parent: parent.map(|p| p.1),
            };
            let bytes = bson::serialize_to_vec(&a).unwrap();
            assert_eq!(bson::serialize_to_vec(&b).unwrap(), bytes);
            assert_eq!(bson::deserialize_from_slice::<Ours>(&bytes).unwrap(), b);
            let back = bson::serialize_to_vec(&b).unwrap();
            assert_eq!(bson::deserialize_from_slice::<Theirs>(&back).unwrap(), a);
            // The tree form (what `doc!` and filters hold) too.
            let doc = bson::serialize_to_document(&b).unwrap();
            assert_eq!(doc, bson::serialize_to_document(&a).unwrap());
            assert_eq!(doc.get("id"), Some(&bson::Bson::from(theirs)));
        }
    }
}

#[test]
fn bson_3_conversions_are_binary_subtype_4() {
    for (theirs, ours) in crate::support::pairs() {
        assert_eq!(bson::Bson::from(ours), bson::Bson::from(theirs));
        assert_eq!(bson::Binary::from(ours), bson::Binary::from(theirs));
        assert_eq!(
            bson::Binary::from(ours).subtype,
            bson::spec::BinarySubtype::Uuid
        );
        assert_eq!(bson::Uuid::from(ours), bson::Uuid::from(theirs));
        assert_eq!(uuidkit::Uuid::from(bson::Uuid::from(theirs)), ours);
        assert_eq!(bson::doc! { "id": ours }, bson::doc! { "id": theirs });
    }
}

#[test]
fn bson_3_a_bare_field_is_not_subtype_4() {
    #[derive(Serialize)]
    struct Bare {
        id: uuidkit::Uuid,
    }
    let id = uuidkit::Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    let doc = bson::serialize_to_document(&Bare { id }).unwrap();
    assert_ne!(doc.get("id"), Some(&bson::Bson::from(id)), "{doc}");
}

#[test]
fn bson_2_documents_are_the_same_bytes_and_each_reads_the_other() {
    for (theirs, ours) in crate::support::pairs() {
        for parent in [None, Some((theirs, ours))] {
            let a = Theirs2 {
                id: theirs,
                parent: parent.map(|p| bson_2::Uuid::from(p.0)),
            };
            let b = Ours2 {
                id: ours,
                parent: parent.map(|p| p.1),
            };
            let bytes = bson_2::to_vec(&a).unwrap();
            assert_eq!(bson_2::to_vec(&b).unwrap(), bytes);
            assert_eq!(bson_2::from_slice::<Ours2>(&bytes).unwrap(), b);
            let back = bson_2::to_vec(&b).unwrap();
            assert_eq!(bson_2::from_slice::<Theirs2>(&back).unwrap(), a);
            let doc = bson_2::to_document(&b).unwrap();
            assert_eq!(doc, bson_2::to_document(&a).unwrap());
        }
        assert_eq!(bson_2::Bson::from(ours), bson_2::Bson::from(theirs));
        assert_eq!(bson_2::Binary::from(ours), bson_2::Binary::from(theirs));
        assert_eq!(uuidkit::Uuid::from(bson_2::Uuid::from(theirs)), ours);
    }
}
