//! `rkyv`: a struct of `uuidkit::Uuid` fields archives to the bytes the same
//! struct of `uuid::Uuid` archives to (rkyv's `uuid-1`), each accesses the
//! other's archive in place (validated), and each deserializes it.

use rkyv::rancor::Error;

/// The struct, once for each type.
macro_rules! event {
    ($id:ty) => {
        #[derive(Debug, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
        pub struct Event {
            pub id: $id,
            pub parent: Option<$id>,
            pub items: Vec<$id>,
            pub seq: u32,
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
fn rkyv_archives_the_bytes_of_uuid_and_reads_them_in_place() {
    let all: Vec<_> = crate::support::pairs().collect();
    for (i, &(t, o)) in all.iter().enumerate() {
        let theirs = theirs::Event {
            id: t,
            parent: (i % 2 == 0).then_some(t),
            items: all.iter().map(|p| p.0).collect(),
            seq: i as u32,
        };
        let ours = ours::Event {
            id: o,
            parent: (i % 2 == 0).then_some(o),
            items: all.iter().map(|p| p.1).collect(),
            seq: i as u32,
        };
        let a = rkyv::to_bytes::<Error>(&theirs).unwrap();
        let b = rkyv::to_bytes::<Error>(&ours).unwrap();
        assert_eq!(a.as_slice(), b.as_slice(), "event {i}");
        // Each type's archive, accessed (and checked) as the other's.
        let archived = rkyv::access::<ours::ArchivedEvent, Error>(&a).unwrap();
        assert_eq!(archived.id, o);
        assert_eq!(archived.items.as_slice(), ours.items.as_slice());
        assert_eq!(
            rkyv::deserialize::<ours::Event, Error>(archived).unwrap(),
            ours
        );
        let archived = rkyv::access::<theirs::ArchivedEvent, Error>(&b).unwrap();
        assert_eq!(
            rkyv::deserialize::<theirs::Event, Error>(archived).unwrap(),
            theirs
        );
    }
}
