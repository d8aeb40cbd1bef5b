//! `utoipa` 6.x and 5.x: the OpenAPI of a struct whose IDs are
//! `uuidkit::Uuid` is the OpenAPI of the same struct with `uuid::Uuid`
//! (utoipa's own `uuid` feature), field by field, inlined or as a `$ref`.

/// One utoipa line, named `utoipa` inside the module (its derive writes
/// paths that start with `utoipa::`).
macro_rules! same_openapi {
    ($module:ident, $krate:ident) => {
        mod $module {
            use $krate as utoipa;
            use utoipa::{PartialSchema, ToSchema};

            // The field schemas the derive writes for `uuid::Uuid` (no doc
            // comments on the structs: the derive puts them into the schema).
            #[allow(dead_code, reason = "only its schema is read")]
            #[derive(ToSchema)]
            struct Theirs {
                id: uuid::Uuid,
                parent: Option<uuid::Uuid>,
                children: Vec<uuid::Uuid>,
            }

            // The same struct on uuidkit, as a program has it after the
            // switch (the type still named `Uuid`).
            #[allow(dead_code, reason = "only its schema is read")]
            #[derive(ToSchema)]
            struct Ours {
                id: uuidkit::Uuid,
                parent: Option<uuidkit::Uuid>,
                children: Vec<uuidkit::Uuid>,
            }

            // A name the derive does not recognise: our `PartialSchema`
            // (inlined) and `ToSchema` (a `$ref`) are what it writes.
            type UserId = uuidkit::Uuid;

            // Without `parent`: utoipa writes an inlined `Option` of a
            // type it does not know as `oneOf` (the schema or null), where
            // a known `Uuid` gets `"type": ["string", "null"]`.
            #[allow(dead_code, reason = "only its schema is read")]
            #[derive(ToSchema)]
            struct Inlined {
                #[schema(inline)]
                id: UserId,
                #[schema(inline)]
                children: Vec<UserId>,
            }

            #[allow(dead_code, reason = "only its schema is read")]
            #[derive(ToSchema)]
            struct Referenced {
                id: UserId,
            }

            fn json<T: PartialSchema>() -> serde_json::Value {
                serde_json::to_value(T::schema()).unwrap()
            }

            #[test]
            fn a_field_named_uuid_is_the_same_schema() {
                let theirs = json::<Theirs>();
                assert_eq!(
                    theirs["properties"]["id"],
                    serde_json::json!({"type": "string", "format": "uuid"})
                );
                assert_eq!(json::<Ours>(), theirs);
            }

            #[test]
            fn an_inlined_field_of_another_name_is_the_same_schema() {
                let (ours, theirs) = (json::<Inlined>(), json::<Theirs>());
                for field in ["id", "children"] {
                    assert_eq!(ours["properties"][field], theirs["properties"][field]);
                }
                assert_eq!(
                    json::<uuidkit::Uuid>(),
                    json::<Theirs>()["properties"]["id"]
                );
                assert_eq!(json::<uuidkit::NonNilUuid>(), json::<uuidkit::Uuid>());
            }

            #[test]
            fn a_referenced_field_points_to_the_uuid_component() {
                assert_eq!(
                    json::<Referenced>()["properties"]["id"],
                    serde_json::json!({"$ref": "#/components/schemas/Uuid"})
                );
                let mut components = Vec::new();
                <Referenced as ToSchema>::schemas(&mut components);
                let (name, schema) = components
                    .iter()
                    .find(|(name, _)| name == "Uuid")
                    .expect("the component Uuid");
                assert_eq!(name, "Uuid");
                assert_eq!(
                    serde_json::to_value(schema).unwrap(),
                    json::<Theirs>()["properties"]["id"]
                );
            }
        }
    };
}

same_openapi!(utoipa_6, utoipa);
same_openapi!(utoipa_5, utoipa_5);
