//! `schemars-0_8`: the JSON Schema of a [`Uuid`] on schemars 0.8 (the line
//! okapi, paperclip and older aide releases build on), the same schema
//! schemars 0.8's own `uuid1` feature gives `uuid::Uuid`: a string in the
//! `uuid` format, never a `$ref`.

extern crate alloc;

use alloc::borrow::Cow;
use alloc::string::{String, ToString};

use schemars_0_8::schema::{InstanceType, Schema, SchemaObject};
use schemars_0_8::{JsonSchema, SchemaGenerator};

use crate::{NonNilUuid, Uuid};

/// `{"type": "string", "format": "uuid"}`, inlined where it is used.
///
/// ```
/// # use schemars_0_8 as schemars;
/// let schema = schemars::schema_for!(uuidkit::Uuid);
/// let json = serde_json::to_value(&schema)?;
/// assert_eq!(json["type"], "string");
/// assert_eq!(json["format"], "uuid");
/// # Ok::<(), serde_json::Error>(())
/// ```
impl JsonSchema for Uuid {
    fn is_referenceable() -> bool {
        false
    }

    fn schema_name() -> String {
        "Uuid".to_string()
    }

    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed("uuidkit::Uuid")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        SchemaObject {
            instance_type: Some(InstanceType::String.into()),
            format: Some("uuid".to_string()),
            ..Default::default()
        }
        .into()
    }
}

/// The [`Uuid`] schema: JSON Schema's `uuid` format cannot exclude the Nil
/// UUID, so the schema is the same and the check happens on deserializing.
///
/// ```
/// # use schemars_0_8 as schemars;
/// let json = serde_json::to_value(schemars::schema_for!(uuidkit::NonNilUuid))?;
/// assert_eq!(json["format"], "uuid");
/// # Ok::<(), serde_json::Error>(())
/// ```
impl JsonSchema for NonNilUuid {
    fn is_referenceable() -> bool {
        false
    }

    fn schema_name() -> String {
        "NonNilUuid".to_string()
    }

    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed("uuidkit::NonNilUuid")
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        Uuid::json_schema(generator)
    }
}
