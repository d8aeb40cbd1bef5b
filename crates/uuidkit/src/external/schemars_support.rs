//! `schemars` (1.x) and `schemars-0_9`: the JSON Schema of a [`Uuid`] as
//! the `serde` feature writes it in JSON, a string in the `uuid` format
//! (JSON Schema's format for RFC 9562 / RFC 4122 text), inlined: the schema
//! each line's own `uuid1` feature gives `uuid::Uuid`. The two lines share
//! the trait's shape, so one macro writes the impls for each.

extern crate alloc;

use alloc::borrow::Cow;

use crate::{NonNilUuid, Uuid};

/// The impls for one schemars line, the crate named `$krate`.
macro_rules! json_schema_impls {
    ($krate:ident) => {
        /// `{"type": "string", "format": "uuid"}`, inlined where it is used.
        ///
        /// ```
        #[doc = concat!("use ", stringify!($krate), " as schemars;")]
        /// let schema = schemars::schema_for!(uuidkit::Uuid);
        /// assert_eq!(schema.get("type"), Some(&serde_json::json!("string")));
        /// assert_eq!(schema.get("format"), Some(&serde_json::json!("uuid")));
        /// ```
        impl $krate::JsonSchema for Uuid {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed("Uuid")
            }

            fn schema_id() -> Cow<'static, str> {
                Cow::Borrowed("uuidkit::Uuid")
            }

            fn json_schema(_: &mut $krate::SchemaGenerator) -> $krate::Schema {
                $krate::json_schema!({
                    "type": "string",
                    "format": "uuid",
                })
            }
        }

        /// The [`Uuid`] schema: JSON Schema's `uuid` format cannot exclude the Nil
        /// UUID, so the schema is the same and the check happens on deserializing.
        ///
        /// ```
        #[doc = concat!("use ", stringify!($krate), " as schemars;")]
        /// let schema = schemars::schema_for!(uuidkit::NonNilUuid);
        /// assert_eq!(schema.get("format"), Some(&serde_json::json!("uuid")));
        /// ```
        impl $krate::JsonSchema for NonNilUuid {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed("NonNilUuid")
            }

            fn schema_id() -> Cow<'static, str> {
                Cow::Borrowed("uuidkit::NonNilUuid")
            }

            fn json_schema(generator: &mut $krate::SchemaGenerator) -> $krate::Schema {
                <Uuid as $krate::JsonSchema>::json_schema(generator)
            }
        }
    };
}

#[cfg(feature = "schemars")]
json_schema_impls!(schemars);
#[cfg(feature = "schemars-0_9")]
json_schema_impls!(schemars_0_9);

#[cfg(all(test, feature = "schemars"))]
mod tests {
    use std::string::ToString;

    use crate::{NonNilUuid, Uuid};

    #[test]
    fn a_field_is_an_inline_string_of_format_uuid() {
        #[allow(dead_code)]
        struct Row {
            id: Uuid,
            parent: Option<NonNilUuid>,
        }
        impl schemars::JsonSchema for Row {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "Row".into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "object",
                    "properties": {
                        "id": g.subschema_for::<Uuid>(),
                        "parent": g.subschema_for::<Option<NonNilUuid>>(),
                    },
                })
            }
        }
        let schema = schemars::schema_for!(Row);
        let json = serde_json::to_value(&schema).unwrap();
        assert_eq!(
            json["properties"]["id"],
            serde_json::json!({"type": "string", "format": "uuid"})
        );
        let parent = json["properties"]["parent"].to_string();
        assert!(parent.contains(r#""format":"uuid""#), "{parent}");
        assert!(parent.contains("null"), "{parent}");
        // Inlined: no `$defs` entry for either type.
        assert!(json.get("$defs").is_none(), "{json}");
    }
}
