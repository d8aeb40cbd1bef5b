//! `uuidkit::serde::clickhouse` against the official `clickhouse` crate: rows
//! inserted with `uuidkit::Uuid` fields are read back by the crate's own
//! RowBinary decoder as the `uuid::Uuid` rows of its `serde::uuid` modules,
//! and rows the crate encodes are read as `uuidkit::Uuid` rows; the mock
//! server between them is the crate's (`test-util`), so the bytes are its
//! real HTTP bodies. The samples' halves differ, so 16 octets written in
//! order would come back as other UUIDs.

use clickhouse::{Client, Row, test};
use serde::{Deserialize, Serialize};

#[derive(Row, Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Theirs {
    #[serde(with = "clickhouse::serde::uuid")]
    id: uuid::Uuid,
    #[serde(with = "clickhouse::serde::uuid::option")]
    parent: Option<uuid::Uuid>,
    #[serde(with = "clickhouse::serde::uuid_vec")]
    children: Vec<uuid::Uuid>,
}

#[derive(Row, Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Ours {
    #[serde(with = "uuidkit::serde::clickhouse")]
    id: uuidkit::Uuid,
    #[serde(with = "uuidkit::serde::clickhouse::option")]
    parent: Option<uuidkit::Uuid>,
    #[serde(with = "uuidkit::serde::clickhouse::vec")]
    children: Vec<uuidkit::Uuid>,
}

/// The same rows of both types: every sample as `id`, with and without a
/// parent, with all samples as children.
fn rows() -> (Vec<Theirs>, Vec<Ours>) {
    let pairs: Vec<_> = crate::support::pairs().collect();
    let mut theirs = Vec::new();
    let mut ours = Vec::new();
    for (i, &(t, o)) in pairs.iter().enumerate() {
        let parent = pairs.get(i + 1).copied();
        theirs.push(Theirs {
            id: t,
            parent: parent.map(|p| p.0),
            children: pairs.iter().map(|p| p.0).collect(),
        });
        ours.push(Ours {
            id: o,
            parent: parent.map(|p| p.1),
            children: pairs.iter().map(|p| p.1).collect(),
        });
    }
    (theirs, ours)
}

#[tokio::test]
async fn rows_written_by_each_are_read_by_the_other() {
    let (theirs, ours) = rows();
    let mock = test::Mock::new();
    let client = Client::default().with_mock(&mock);

    // uuidkit's rows, decoded by the crate as `uuid::Uuid` rows.
    let recording = mock.add(test::handlers::record::<Theirs>());
    let mut insert = client.insert::<Ours>("t").await.unwrap();
    for row in &ours {
        insert.write(row).await.unwrap();
    }
    insert.end().await.unwrap();
    let decoded: Vec<Theirs> = recording.collect().await;
    assert_eq!(decoded, theirs);

    // The crate's rows, read as uuidkit rows.
    mock.add(test::handlers::provide(theirs.clone()));
    let fetched = client
        .query("SELECT ?fields FROM t")
        .fetch_all::<Ours>()
        .await
        .unwrap();
    assert_eq!(fetched, ours);
}

#[test]
fn json_is_the_same_string() {
    let (theirs, ours) = rows();
    for (t, o) in theirs.iter().zip(&ours) {
        let json = serde_json::to_string(t).unwrap();
        assert_eq!(serde_json::to_string(o).unwrap(), json);
        assert_eq!(&serde_json::from_str::<Ours>(&json).unwrap(), o);
    }
}
