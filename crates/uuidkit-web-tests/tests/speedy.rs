//! `speedy`: a `uuidkit::Uuid` writes the bytes speedy's `uuid` feature
//! writes for a `uuid::Uuid`, in both endiannesses and inside a derived
//! struct, and each reads the other's.

use speedy::{BigEndian, LittleEndian, Readable, Writable};

/// The struct, once for each type.
macro_rules! event {
    ($id:ty) => {
        #[derive(Debug, PartialEq, speedy::Readable, speedy::Writable)]
        pub struct Event {
            pub id: $id,
            pub items: Vec<$id>,
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
fn speedy_writes_the_bytes_of_uuid_and_reads_them() {
    let all: Vec<_> = crate::support::pairs().collect();
    for &(t, o) in &all {
        let theirs = theirs::Event {
            id: t,
            items: all.iter().map(|p| p.0).collect(),
        };
        let ours = ours::Event {
            id: o,
            items: all.iter().map(|p| p.1).collect(),
        };
        let le = theirs
            .write_to_vec_with_ctx(LittleEndian::default())
            .unwrap();
        assert_eq!(
            le,
            ours.write_to_vec_with_ctx(LittleEndian::default()).unwrap()
        );
        let be = theirs.write_to_vec_with_ctx(BigEndian::default()).unwrap();
        assert_eq!(
            be,
            ours.write_to_vec_with_ctx(BigEndian::default()).unwrap()
        );
        // The octets in order whatever the endianness: only the list's
        // length (after the id) differs.
        assert_eq!(&le[..16], o.as_bytes());
        assert_eq!(le[..16], be[..16]);
        assert_eq!(le[20..], be[20..]);
        assert_eq!(
            ours::Event::read_from_buffer_with_ctx(LittleEndian::default(), &le).unwrap(),
            ours
        );
        assert_eq!(
            ours::Event::read_from_buffer_with_ctx(BigEndian::default(), &be).unwrap(),
            ours
        );
        let mine = ours.write_to_vec().unwrap();
        assert_eq!(theirs::Event::read_from_buffer(&mine).unwrap(), theirs);
    }
    assert!(uuidkit::Uuid::read_from_buffer(&[0; 15]).is_err());
}
