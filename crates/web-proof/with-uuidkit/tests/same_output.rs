//! The web-service proof: the service's source, built against the `uuid`
//! crate (`baseline`) and against uuidkit under the name `uuid`
//! (`web_proof`), publishes the same OpenAPI document, the same GraphQL
//! schema and the same protobuf bytes, byte for byte.

use prost::Message as _;

/// Asserts `a == b`, naming the first line that differs.
fn assert_same_text(what: &str, with_uuid: &str, with_uuidkit: &str) {
    for (n, (a, b)) in with_uuid.lines().zip(with_uuidkit.lines()).enumerate() {
        assert_eq!(
            a,
            b,
            "{what}: line {} differs (left: uuid, right: uuidkit)",
            n + 1
        );
    }
    assert_eq!(
        with_uuid.lines().count(),
        with_uuidkit.lines().count(),
        "{what}: one build's is longer"
    );
    assert_eq!(with_uuid, with_uuidkit, "{what}: line ends differ");
}

#[test]
fn openapi_document_is_byte_identical() {
    let (a, b) = (
        baseline::rest::openapi_json(),
        web_proof::rest::openapi_json(),
    );
    assert_same_text("OpenAPI JSON", &a, &b);
    // Every ID is a string of format uuid, written in place: the three path
    // parameters, the list of recent IDs, and the eight ID fields of the
    // schemas (`related` as an array of them).
    assert_eq!(b.matches("\"format\": \"uuid\"").count(), 12, "{b}");
    assert!(!b.contains("#/components/schemas/Uuid"), "{b}");
}

#[test]
fn graphql_schema_is_byte_identical() {
    let (a, b) = (baseline::graphql::sdl(), web_proof::graphql::sdl());
    assert_same_text("GraphQL SDL", &a, &b);
    // The scalar with async-graphql's own description of it.
    assert!(b.contains("\"\"\"\nscalar UUID\n"), "{b}");
    assert!(
        b.contains("A UUID is a unique 128-bit number, stored as 16 octets."),
        "{b}"
    );
    assert!(b.contains("customer(id: UUID!): Customer!"), "{b}");
}

#[test]
fn protobuf_wire_bytes_are_identical() {
    let a = baseline::rpc::wire_samples();
    let b = web_proof::rpc::wire_samples();
    assert_eq!(a.len(), b.len());
    for ((name, with_uuid), (_, with_uuidkit)) in a.iter().zip(&b) {
        assert_eq!(with_uuid, with_uuidkit, "{name}: the encoded bytes differ");
    }
    // Each build reads what the other wrote and writes it back unchanged.
    for (name, bytes) in a.iter().filter(|(n, _)| *n == "Order") {
        let theirs = web_proof::rpc::pb::Order::decode(bytes.as_slice()).unwrap();
        let model = web_proof::entity::order::Model::try_from(theirs).unwrap();
        let again = web_proof::rpc::pb::Order::from(&model).encode_to_vec();
        assert_eq!(
            &again, bytes,
            "{name}: uuidkit's round trip of uuid's bytes"
        );
        let ours = baseline::rpc::pb::Order::decode(again.as_slice()).unwrap();
        let model = baseline::entity::order::Model::try_from(ours).unwrap();
        assert_eq!(
            &baseline::rpc::pb::Order::from(&model).encode_to_vec(),
            bytes,
            "{name}"
        );
    }
}

/// The lines of `section` in the manifest `text`, comments and blank lines
/// left out.
fn section<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| l.trim() != name)
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[test]
fn manifests_differ_in_the_uuid_line_alone() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let with_uuid = std::fs::read_to_string(dir.join("../with-uuid/Cargo.toml")).unwrap();
    let with_uuidkit = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let (a, b) = (
        section(&with_uuid, "[dependencies]"),
        section(&with_uuidkit, "[dependencies]"),
    );
    let uuid_line = |l: &str| l.starts_with("uuid ");
    assert_eq!(a.iter().filter(|l| uuid_line(l)).count(), 1, "{a:?}");
    assert_eq!(b.iter().filter(|l| uuid_line(l)).count(), 1, "{b:?}");
    let rest = |lines: &[&str]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| !uuid_line(l))
            .map(|l| (*l).to_string())
            .collect()
    };
    assert_eq!(rest(&a), rest(&b), "the dependencies besides `uuid` differ");
    assert!(
        b.iter()
            .any(|l| l.starts_with("uuid = { package = \"uuidkit\"")),
        "{b:?}"
    );
}
