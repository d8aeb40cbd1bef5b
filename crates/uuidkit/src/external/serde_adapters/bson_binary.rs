//! BSON's UUID, Binary subtype 4, for the `bson` crate (3.x, the `bson`
//! feature) and its previous line (2.x, `bson-2`, the one the `mongodb`
//! driver 3.x uses unless told otherwise).
//!
//! The trap: serde alone cannot reach subtype 4. A bare [`Uuid`] is
//! written as serde bytes (BSON Binary subtype 0, "generic") or as a
//! string, depending on the serializer's settings, and the driver's queries
//! for a UUID (subtype 4, what every other driver writes) then match
//! nothing. bson's own `uuid-1` helper fixes a `uuid::Uuid` field by
//! serializing it through `bson::Uuid`; the module this macro writes does the
//! same for a [`Uuid`], so the bytes are the helper's. The `From`
//! conversions give `bson::Binary`, `bson::Bson` and `bson::Uuid` values for
//! the `doc!` macro and for filters.

/// The conversions and the `with` module for one bson line, the crate
/// `$krate`, the module `$name` of [`crate::serde`].
macro_rules! bson_binary {
    ($(#[$doc:meta])* $name:ident, $krate:ident) => {
        /// The same 16 octets.
        impl From<crate::Uuid> for ::$krate::Uuid {
            fn from(uuid: crate::Uuid) -> Self {
                ::$krate::Uuid::from_bytes(uuid.into_bytes())
            }
        }

        /// The same 16 octets.
        impl From<::$krate::Uuid> for crate::Uuid {
            fn from(uuid: ::$krate::Uuid) -> Self {
                crate::Uuid::from_bytes(uuid.bytes())
            }
        }

        /// Binary subtype 4 with the 16 octets.
        impl From<crate::Uuid> for ::$krate::Binary {
            fn from(uuid: crate::Uuid) -> Self {
                ::$krate::Binary::from_uuid(uuid.into())
            }
        }

        /// `Bson::Binary`, subtype 4: what `doc! { "id": id }` holds.
        impl From<crate::Uuid> for ::$krate::Bson {
            fn from(uuid: crate::Uuid) -> Self {
                ::$krate::Bson::Binary(uuid.into())
            }
        }

        $(#[$doc])*
        pub mod $name {
            use serde::{Deserialize, Deserializer, Serialize, Serializer};

            use crate::Uuid;

            /// Writes `uuid` as BSON Binary subtype 4, through `bson::Uuid`.
            ///
            /// # Errors
            ///
            /// Only the serializer's own.
            pub fn serialize<S: Serializer>(uuid: &Uuid, serializer: S) -> Result<S::Ok, S::Error> {
                ::$krate::Uuid::from(*uuid).serialize(serializer)
            }

            /// Reads what [`serialize`] (or bson's `uuid-1` helper) writes.
            ///
            /// # Errors
            ///
            /// If the value is not a BSON UUID (Binary subtype 4 of 16 bytes).
            pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
                ::$krate::Uuid::deserialize(deserializer).map(Uuid::from)
            }

            /// The same, for `Option<Uuid>` fields: `None` is BSON's null.
            pub mod option {
                use serde::{Deserialize, Deserializer, Serialize, Serializer};

                use crate::Uuid;

                /// Writes `Some` as the outer module does, `None` as null.
                ///
                /// # Errors
                ///
                /// Only the serializer's own.
                pub fn serialize<S: Serializer>(
                    uuid: &Option<Uuid>,
                    serializer: S,
                ) -> Result<S::Ok, S::Error> {
                    uuid.map(::$krate::Uuid::from).serialize(serializer)
                }

                /// Reads what [`serialize`] writes.
                ///
                /// # Errors
                ///
                /// As the outer module's `deserialize`, for a present value.
                pub fn deserialize<'de, D: Deserializer<'de>>(
                    deserializer: D,
                ) -> Result<Option<Uuid>, D::Error> {
                    Option::<::$krate::Uuid>::deserialize(deserializer).map(|u| u.map(Uuid::from))
                }
            }
        }
    };
}
