//! `schemars` 1.x, 0.9 and 0.8: the schema of a `uuidkit::Uuid` is the one
//! each line's own `uuid1` feature gives `uuid::Uuid`, at the root and as a
//! field (inlined, no definition), and the same for `Option`.

/// One schemars line: `$schema_for` of both types, then a struct schema
/// with both as fields, compared as JSON.
macro_rules! same_schema {
    ($test:ident, $krate:ident) => {
        #[test]
        fn $test() {
            use $krate as schemars;
            let root = |a: serde_json::Value, b: serde_json::Value| assert_eq!(a, b);
            root(
                serde_json::to_value(schemars::schema_for!(uuid::Uuid)).unwrap(),
                serde_json::to_value(schemars::schema_for!(uuidkit::Uuid)).unwrap(),
            );
            root(
                serde_json::to_value(schemars::schema_for!(Option<uuid::Uuid>)).unwrap(),
                serde_json::to_value(schemars::schema_for!(Option<uuidkit::Uuid>)).unwrap(),
            );
            root(
                serde_json::to_value(schemars::schema_for!(Vec<uuid::Uuid>)).unwrap(),
                serde_json::to_value(schemars::schema_for!(Vec<uuidkit::Uuid>)).unwrap(),
            );
            // As a field: what a derived struct's schema holds (inline, so
            // the generator keeps no definition for either type).
            let mut ours = schemars::SchemaGenerator::default();
            let mut theirs = schemars::SchemaGenerator::default();
            let a = serde_json::to_value(theirs.subschema_for::<uuid::Uuid>()).unwrap();
            let b = serde_json::to_value(ours.subschema_for::<uuidkit::Uuid>()).unwrap();
            assert_eq!(a, b);
            assert_eq!(b["format"], "uuid", "{b}");
            assert!(ours.definitions().is_empty());
            assert!(theirs.definitions().is_empty());
        }
    };
}

same_schema!(schemars_1_writes_the_uuid_schema, schemars);
same_schema!(schemars_0_9_writes_the_uuid_schema, schemars_0_9);
same_schema!(schemars_0_8_writes_the_uuid_schema, schemars_0_8);

#[test]
fn the_value_the_schema_describes_is_the_same_string() {
    for (theirs, ours) in crate::support::pairs() {
        let a = serde_json::to_value(theirs).unwrap();
        let b = serde_json::to_value(ours).unwrap();
        assert_eq!(a, b);
        assert_eq!(serde_json::from_value::<uuid::Uuid>(b).unwrap(), theirs);
        assert_eq!(serde_json::from_value::<uuidkit::Uuid>(a).unwrap(), ours);
    }
}
