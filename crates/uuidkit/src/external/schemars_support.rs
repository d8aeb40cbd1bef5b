//! `schemars`: the JSON Schema of a [`Uuid`] as the `serde` feature writes
//! it in JSON, a string in the `uuid` format (JSON Schema's format for
//! RFC 9562 / RFC 4122 text).

extern crate alloc;

use alloc::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::{NonNilUuid, Uuid};

/// `{"type": "string", "format": "uuid"}`, inlined where it is used.
///
/// ```
/// let schema = schemars::schema_for!(uuidkit::Uuid);
/// assert_eq!(schema.get("type"), Some(&serde_json::json!("string")));
/// assert_eq!(schema.get("format"), Some(&serde_json::json!("uuid")));
/// ```
impl JsonSchema for Uuid {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("Uuid")
    }

    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed("uuidkit::Uuid")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "format": "uuid",
        })
    }
}

/// The [`Uuid`] schema: JSON Schema's `uuid` format cannot exclude the Nil
/// UUID, so the schema is the same and the check happens on deserializing.
///
/// ```
/// use uuidkit::{NonNilUuid, Uuid};
/// assert_eq!(schemars::schema_for!(NonNilUuid).get("format"), Some(&serde_json::json!("uuid")));
/// ```
impl JsonSchema for NonNilUuid {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("NonNilUuid")
    }

    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed("uuidkit::NonNilUuid")
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        Uuid::json_schema(generator)
    }
}

#[cfg(test)]
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
