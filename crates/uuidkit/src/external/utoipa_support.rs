//! `utoipa` (6.x) and `utoipa-5`: `ToSchema` and `PartialSchema`, the
//! OpenAPI schema `{"type": "string", "format": "uuid"}` that utoipa's own
//! `uuid` feature writes for a `uuid::Uuid` field.
//!
//! utoipa's derive recognises that field by its type's last path segment,
//! `Uuid`, with its `uuid` feature on: a `uuidkit::Uuid` field (however it is
//! imported) gets the same inline schema without these impls. The impls
//! serve everything else: a field of an alias (`type UserId = Uuid`) or of
//! [`NonNilUuid`], `#[schema(inline)]`, a path parameter or a response body,
//! `Uuid::schema()` called by hand, and programs without utoipa's `uuid`
//! feature. Not inlined, the field is a `$ref` to the component `Uuid`,
//! which holds the same schema. The two lines share the traits' shape, so
//! one macro writes the impls for each.

extern crate alloc;

use alloc::borrow::Cow;

use crate::{NonNilUuid, Uuid};

/// The impls for one utoipa line, the crate named `$krate`.
macro_rules! utoipa_impls {
    ($krate:ident) => {
        /// A string in the `uuid` format.
        ///
        /// ```
        #[doc = concat!("use ", stringify!($krate), " as utoipa;")]
        /// use utoipa::PartialSchema;
        /// let json = serde_json::to_string(&uuidkit::Uuid::schema())?;
        /// assert_eq!(json, r#"{"type":"string","format":"uuid"}"#);
        /// # Ok::<(), serde_json::Error>(())
        /// ```
        impl $krate::PartialSchema for Uuid {
            fn schema() -> $krate::openapi::RefOr<$krate::openapi::schema::Schema> {
                uuid_schema!($krate)
            }
        }

        /// Named `Uuid` in the components, where a `$ref` points to it.
        ///
        /// ```
        #[doc = concat!("use ", stringify!($krate), " as utoipa;")]
        /// assert_eq!(<uuidkit::Uuid as utoipa::ToSchema>::name(), "Uuid");
        /// ```
        impl $krate::ToSchema for Uuid {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed("Uuid")
            }
        }

        /// The [`Uuid`] schema: OpenAPI's `uuid` format cannot exclude the
        /// Nil UUID, so the schema is the same and the check happens on
        /// deserializing.
        ///
        /// ```
        #[doc = concat!("use ", stringify!($krate), " as utoipa;")]
        /// use utoipa::PartialSchema;
        /// let json = serde_json::to_string(&uuidkit::NonNilUuid::schema())?;
        /// assert_eq!(json, r#"{"type":"string","format":"uuid"}"#);
        /// # Ok::<(), serde_json::Error>(())
        /// ```
        impl $krate::PartialSchema for NonNilUuid {
            fn schema() -> $krate::openapi::RefOr<$krate::openapi::schema::Schema> {
                uuid_schema!($krate)
            }
        }

        /// Named `NonNilUuid` in the components.
        impl $krate::ToSchema for NonNilUuid {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed("NonNilUuid")
            }
        }
    };
}

/// The schema itself. `KnownFormat::Uuid` exists only with utoipa's own
/// `uuid` feature, which these impls do not turn on (it would bring the
/// `uuid` crate into the derive); the custom format writes the same `uuid`.
macro_rules! uuid_schema {
    ($krate:ident) => {
        $krate::openapi::ObjectBuilder::new()
            .schema_type($krate::openapi::schema::Type::String)
            .format(Some($krate::openapi::SchemaFormat::Custom(
                alloc::string::String::from("uuid"),
            )))
            .into()
    };
}

#[cfg(feature = "utoipa")]
utoipa_impls!(utoipa);
#[cfg(feature = "utoipa-5")]
utoipa_impls!(utoipa_5);
