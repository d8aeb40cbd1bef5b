//! `scylla`: a `uuidkit::Uuid` writes the CQL cell the driver writes for a
//! `uuid::Uuid` (`uuid`) or a `CqlTimeuuid` (`timeuuid`), in lists too, and
//! each reads the other's cell; checked through the driver's serialization
//! traits (`scylla-cql-core`, which `scylla` re-exports), without a server.

use scylla_cql_core::deserialize::FrameSlice;
use scylla_cql_core::deserialize::value::DeserializeValue;
use scylla_cql_core::frame::response::result::{CollectionType, ColumnType, NativeType};
use scylla_cql_core::serialize::value::SerializeValue;
use scylla_cql_core::serialize::writers::CellWriter;
use scylla_cql_core::value::CqlTimeuuid;

const UUID: ColumnType<'static> = ColumnType::Native(NativeType::Uuid);
const TIMEUUID: ColumnType<'static> = ColumnType::Native(NativeType::Timeuuid);

/// The cell (its 4-byte length, then the value) a value writes as `typ`.
fn cell(value: &impl SerializeValue, typ: &ColumnType) -> Vec<u8> {
    let mut out = Vec::new();
    value.serialize(typ, CellWriter::new(&mut out)).unwrap();
    out
}

/// Reads a cell written by [`cell`] back as `T`.
fn read<'a, T: DeserializeValue<'a, 'a>>(typ: &'a ColumnType<'a>, cell: &'a [u8]) -> T {
    T::type_check(typ).unwrap();
    T::deserialize(typ, Some(FrameSlice::new_borrowed(&cell[4..]))).unwrap()
}

#[test]
fn scylla_writes_the_uuid_cell_and_reads_it() {
    for (t, o) in crate::support::pairs() {
        let theirs = cell(&t, &UUID);
        let ours = cell(&o, &UUID);
        assert_eq!(theirs, ours);
        assert_eq!(read::<uuidkit::Uuid>(&UUID, &theirs), o);
        assert_eq!(read::<uuid::Uuid>(&UUID, &ours), t);
    }
    // `list<uuid>`: the container impls take ours as they take theirs.
    let list = ColumnType::Collection {
        frozen: false,
        typ: CollectionType::List(Box::new(UUID)),
    };
    let theirs: Vec<uuid::Uuid> = crate::support::pairs().map(|p| p.0).collect();
    let ours: Vec<uuidkit::Uuid> = crate::support::pairs().map(|p| p.1).collect();
    let a = cell(&theirs, &list);
    assert_eq!(a, cell(&ours, &list));
    assert_eq!(read::<Vec<uuidkit::Uuid>>(&list, &a), ours);
    // A null cell is `None` for `Option<Uuid>`, an error for `Uuid`.
    assert_eq!(
        <Option<uuidkit::Uuid>>::deserialize(&UUID, None).unwrap(),
        None
    );
    assert!(uuidkit::Uuid::deserialize(&UUID, None).is_err());
}

#[test]
fn scylla_writes_a_v1_as_the_timeuuid_cell_and_refuses_other_versions() {
    let v1 = uuidkit::Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6").unwrap();
    let theirs = CqlTimeuuid::from(uuid::Uuid::from_bytes(*v1.as_bytes()));
    let a = cell(&theirs, &TIMEUUID);
    assert_eq!(a, cell(&v1, &TIMEUUID));
    assert_eq!(read::<uuidkit::Uuid>(&TIMEUUID, &a), v1);
    assert_eq!(
        read::<CqlTimeuuid>(&TIMEUUID, &cell(&v1, &TIMEUUID)),
        theirs
    );
    assert_eq!(CqlTimeuuid::from(v1), theirs);
    // A generated v1 too, and the v4/v7/Nil samples are refused, naming why.
    use uuidkit::Generator;
    let now = uuidkit::V1Generator::system().generate().unwrap();
    assert_eq!(
        read::<uuidkit::Uuid>(&TIMEUUID, &cell(&now, &TIMEUUID)),
        now
    );
    for other in [
        uuidkit::Uuid::new_v4(),
        uuidkit::Uuid::now_v7(),
        uuidkit::Uuid::NIL,
    ] {
        let err = other
            .serialize(&TIMEUUID, CellWriter::new(&mut Vec::new()))
            .unwrap_err();
        assert!(err.to_string().contains("version 1 UUID"), "{err}");
    }
    // Neither type is a `text`, `blob` or `timestamp`.
    for typ in [NativeType::Text, NativeType::Blob, NativeType::Timestamp] {
        let typ = ColumnType::Native(typ);
        assert!(
            v1.serialize(&typ, CellWriter::new(&mut Vec::new()))
                .is_err()
        );
        assert!(<uuidkit::Uuid as DeserializeValue>::type_check(&typ).is_err());
    }
}
