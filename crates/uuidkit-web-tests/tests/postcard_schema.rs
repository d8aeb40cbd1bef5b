//! `postcard-schema`: a `uuidkit::Uuid` has the schema postcard-schema gives
//! `uuid::Uuid`, alone and in a derived struct, so postcard-rpc's keys
//! (hashes of a path and a schema) are the same; and the postcard bytes the
//! schema describes are the same, each reading the other's.

use postcard_schema::Schema;
use postcard_schema::key::Key;

/// The struct, once for each type.
macro_rules! event {
    ($id:ty) => {
        #[derive(
            postcard_schema::Schema, serde::Serialize, serde::Deserialize, Debug, PartialEq,
        )]
        pub struct Event {
            pub id: $id,
            pub parent: Option<$id>,
        }
    };
}

mod theirs {
    event!(uuid::Uuid);
}

mod ours {
    event!(uuidkit::Uuid);
}

#[test]
fn postcard_schema_is_the_uuid_schema_and_describes_the_same_bytes() {
    assert_eq!(uuidkit::Uuid::SCHEMA, uuid::Uuid::SCHEMA);
    assert_eq!(ours::Event::SCHEMA, theirs::Event::SCHEMA);
    assert_eq!(
        Key::for_path::<ours::Event>("events/new").to_bytes(),
        Key::for_path::<theirs::Event>("events/new").to_bytes()
    );
    for (t, o) in crate::support::pairs() {
        let theirs = theirs::Event {
            id: t,
            parent: Some(t),
        };
        let ours = ours::Event {
            id: o,
            parent: Some(o),
        };
        let a = postcard::to_allocvec(&theirs).unwrap();
        assert_eq!(a, postcard::to_allocvec(&ours).unwrap());
        assert_eq!(postcard::from_bytes::<ours::Event>(&a).unwrap(), ours);
        let b = postcard::to_allocvec(&ours).unwrap();
        assert_eq!(postcard::from_bytes::<theirs::Event>(&b).unwrap(), theirs);
    }
}
