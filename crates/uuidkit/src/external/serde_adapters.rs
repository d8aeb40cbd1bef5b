//! Modules for `#[serde(with = "…")]` that fix how a field's UUID is written,
//! whatever the format: `compact` as 16 octets, or one text form (`simple`,
//! `braced`, `urn`, `hyphenated`) as a string, in JSON and postcard alike.
//! Each has an `option` submodule for `Option<Uuid>` fields. One more fits
//! a database's wire format: [`clickhouse`], ClickHouse's RowBinary `UUID`
//! (two `u64` halves), as the `clickhouse` crate's own module writes it.
//!
//! Without an adapter, a [`Uuid`] is its hyphenated string in human-readable
//! formats and 16 bytes in binary ones (see the crate's `serde` feature).
//!
//! Reading is liberal: a text adapter accepts every form [`Uuid::parse`]
//! accepts, so data written with one adapter can be read with another.
//! Errors say what is wrong and where, as [`Uuid::parse`]'s do.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use uuidkit::Uuid;
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Row {
//!     #[serde(with = "uuidkit::serde::simple")]
//!     id: Uuid,
//!     #[serde(with = "uuidkit::serde::urn::option")]
//!     parent: Option<Uuid>,
//!     #[serde(with = "uuidkit::serde::compact")]
//!     raw: Uuid,
//! }
//!
//! let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
//! let row = Row { id: u, parent: None, raw: Uuid::MAX };
//! let json = serde_json::to_string(&row)?;
//! assert_eq!(
//!     json,
//!     r#"{"id":"f81d4fae7dec11d0a76500a0c91e6bf6","parent":null,"raw":[255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255]}"#
//! );
//! assert_eq!(serde_json::from_str::<Row>(&json)?, row);
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
// A new text form is one `TextForm` implementation and one
// `adapter_module!` invocation.

#[cfg(any(feature = "bson", feature = "bson-2"))]
#[macro_use]
mod bson_binary;
pub mod clickhouse;

#[cfg(feature = "bson")]
bson_binary!(
    /// BSON's UUID (Binary subtype 4) on bson 3.x, byte for byte what
    /// `bson::serde_helpers::uuid_1::AsBinary` writes for a `uuid::Uuid`;
    /// a bare [`Uuid`](crate::Uuid) field would be Binary subtype 0 or a
    /// string instead, which a query for the UUID does not match.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use uuidkit::Uuid;
    ///
    /// #[derive(Serialize, Deserialize, PartialEq, Debug)]
    /// struct User {
    ///     #[serde(with = "uuidkit::serde::bson")]
    ///     id: Uuid,
    /// }
    ///
    /// let user = User { id: Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6) };
    /// let doc = bson::serialize_to_document(&user)?;
    /// assert_eq!(doc, bson::doc! { "id": user.id });
    /// match doc.get("id") {
    ///     Some(bson::Bson::Binary(b)) => assert_eq!(b.subtype, bson::spec::BinarySubtype::Uuid),
    ///     other => panic!("{other:?}"),
    /// }
    /// assert_eq!(bson::deserialize_from_document::<User>(doc)?, user);
    /// # Ok::<(), bson::error::Error>(())
    /// ```
    bson,
    bson
);
#[cfg(feature = "bson-2")]
bson_binary!(
    /// The same as [`bson`](self::bson) on bson 2.x, byte for byte what
    /// `bson::serde_helpers::uuid_1_as_binary` writes.
    ///
    /// ```
    /// use bson_2 as bson;
    /// use uuidkit::Uuid;
    ///
    /// #[derive(serde::Serialize)]
    /// struct User {
    ///     #[serde(with = "uuidkit::serde::bson_2")]
    ///     id: Uuid,
    /// }
    ///
    /// let user = User { id: Uuid::MAX };
    /// assert_eq!(bson::to_document(&user)?, bson::doc! { "id": user.id });
    /// # Ok::<(), bson::ser::Error>(())
    /// ```
    bson_2,
    bson_2
);

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::{Braced, Hyphenated, ParseError, Simple, Urn, Uuid};

/// One way of writing a UUID as text, for the adapter modules.
trait TextForm {
    /// What the deserializer expected, for serde's error messages.
    const EXPECTING: &'static str;

    /// Calls `f` with the UUID's text in this form.
    fn with_text<R>(uuid: &Uuid, f: impl FnOnce(&str) -> R) -> R;

    /// Reads the text back.
    fn decode(text: &[u8]) -> Result<Uuid, ParseError>;
}

/// The four forms [`Uuid::parse`] reads; `$adapter` writes one of them.
macro_rules! hex_form {
    ($form:ident, $adapter:ident, $expecting:literal) => {
        struct $form;

        impl TextForm for $form {
            const EXPECTING: &'static str = $expecting;

            fn with_text<R>(uuid: &Uuid, f: impl FnOnce(&str) -> R) -> R {
                let mut buf = [0u8; $adapter::LENGTH];
                f($adapter::from_uuid(*uuid).encode_lower(&mut buf))
            }

            fn decode(text: &[u8]) -> Result<Uuid, ParseError> {
                Uuid::parse(text)
            }
        }
    };
}

hex_form!(
    HyphenatedForm,
    Hyphenated,
    "a UUID string (hyphenated form)"
);
hex_form!(SimpleForm, Simple, "a UUID string (simple form)");
hex_form!(BracedForm, Braced, "a UUID string (braced form)");
hex_form!(UrnForm, Urn, "a UUID string (urn form)");

/// How an adapter module writes and reads one UUID.
trait Adapter {
    fn serialize<S: Serializer>(uuid: &Uuid, serializer: S) -> Result<S::Ok, S::Error>;
    fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error>;
}

/// A text form as an adapter: always a string, whatever the format.
struct Text<F>(PhantomData<F>);

impl<F: TextForm> Adapter for Text<F> {
    fn serialize<S: Serializer>(uuid: &Uuid, serializer: S) -> Result<S::Ok, S::Error> {
        F::with_text(uuid, |text| serializer.serialize_str(text))
    }

    fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
        deserializer.deserialize_str(TextVisitor::<F>(PhantomData))
    }
}

struct TextVisitor<F>(PhantomData<F>);

impl<F: TextForm> Visitor<'_> for TextVisitor<F> {
    type Value = Uuid;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(F::EXPECTING)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Uuid, E> {
        F::decode(v.as_bytes()).map_err(E::custom)
    }

    // Some binary formats hand strings over as bytes.
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Uuid, E> {
        F::decode(v).map_err(E::custom)
    }
}

/// The 16 octets as a fixed-size array (a tuple of 16 `u8` in serde's data
/// model): no length prefix in binary formats, 16 numbers in JSON.
struct Compact;

impl Adapter for Compact {
    fn serialize<S: Serializer>(uuid: &Uuid, serializer: S) -> Result<S::Ok, S::Error> {
        uuid.as_bytes().serialize(serializer)
    }

    fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
        <[u8; 16]>::deserialize(deserializer).map(Uuid::from_bytes)
    }
}

/// A UUID that serializes through adapter `A`, for `serialize_some`.
struct With<'a, A>(&'a Uuid, PhantomData<A>);

impl<A: Adapter> Serialize for With<'_, A> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        A::serialize(self.0, serializer)
    }
}

fn serialize_option<A: Adapter, S: Serializer>(
    uuid: &Option<Uuid>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match uuid {
        Some(u) => serializer.serialize_some(&With::<A>(u, PhantomData)),
        None => serializer.serialize_none(),
    }
}

struct OptionVisitor<A>(PhantomData<A>);

impl<'de, A: Adapter> Visitor<'de> for OptionVisitor<A> {
    type Value = Option<Uuid>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an optional UUID")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Uuid>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Uuid>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<Uuid>, D::Error> {
        A::deserialize(d).map(Some)
    }
}

fn deserialize_option<'de, A: Adapter, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Uuid>, D::Error> {
    deserializer.deserialize_option(OptionVisitor::<A>(PhantomData))
}

/// One public adapter module, with its `option` submodule, and examples
/// that show what it writes to JSON.
macro_rules! adapter_module {
    ($(#[$doc:meta])* $name:ident, $adapter:ty, $json:literal) => {
        $(#[$doc])*
        ///
        /// ```
        /// use uuidkit::Uuid;
        /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
        /// let mut json = Vec::new();
        #[doc = concat!("uuidkit::serde::", stringify!($name), "::serialize(&u, &mut serde_json::Serializer::new(&mut json))?;")]
        #[doc = concat!("assert_eq!(String::from_utf8(json).unwrap(), r#\"", $json, "\"#);")]
        ///
        #[doc = concat!("let mut de = serde_json::Deserializer::from_str(r#\"", $json, "\"#);")]
        #[doc = concat!("assert_eq!(uuidkit::serde::", stringify!($name), "::deserialize(&mut de)?, u);")]
        /// # Ok::<(), serde_json::Error>(())
        /// ```
        pub mod $name {
            use serde::{Deserializer, Serializer};

            use crate::Uuid;

            /// Writes `uuid` as this module's form.
            ///
            /// # Errors
            ///
            /// Only the serializer's own.
            pub fn serialize<S: Serializer>(uuid: &Uuid, serializer: S) -> Result<S::Ok, S::Error> {
                <$adapter as crate::external::serde_adapters::Adapter>::serialize(uuid, serializer)
            }

            /// Reads a UUID written by [`serialize`].
            ///
            /// # Errors
            ///
            /// If the input is not a UUID in the form this module reads,
            /// saying what is wrong and where.
            pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
                <$adapter as crate::external::serde_adapters::Adapter>::deserialize(deserializer)
            }

            /// The same, for `Option<Uuid>` fields: `None` is the format's
            /// none (`null` in JSON).
            ///
            /// ```
            /// use uuidkit::Uuid;
            /// let mut json = Vec::new();
            #[doc = concat!("uuidkit::serde::", stringify!($name), "::option::serialize(&None, &mut serde_json::Serializer::new(&mut json))?;")]
            /// assert_eq!(json, b"null");
            ///
            #[doc = concat!("let mut de = serde_json::Deserializer::from_str(r#\"", $json, "\"#);")]
            #[doc = concat!("let u = uuidkit::serde::", stringify!($name), "::option::deserialize(&mut de)?;")]
            /// assert_eq!(u, Some(Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6)));
            /// # Ok::<(), serde_json::Error>(())
            /// ```
            pub mod option {
                use serde::{Deserializer, Serializer};

                use crate::Uuid;

                /// Writes `Some` as the outer module does, `None` as none.
                ///
                /// # Errors
                ///
                /// Only the serializer's own.
                pub fn serialize<S: Serializer>(
                    uuid: &Option<Uuid>,
                    serializer: S,
                ) -> Result<S::Ok, S::Error> {
                    crate::external::serde_adapters::serialize_option::<$adapter, S>(uuid, serializer)
                }

                /// Reads what [`serialize`] writes.
                ///
                /// # Errors
                ///
                /// As the outer module's `deserialize`, for a present value.
                pub fn deserialize<'de, D: Deserializer<'de>>(
                    deserializer: D,
                ) -> Result<Option<Uuid>, D::Error> {
                    crate::external::serde_adapters::deserialize_option::<$adapter, D>(deserializer)
                }
            }
        }
    };
}

adapter_module!(
    /// The 16 octets, as a `[u8; 16]`: exactly 16 bytes in binary formats
    /// (no length prefix), an array of 16 numbers in human-readable ones.
    compact,
    crate::external::serde_adapters::Compact,
    "[248,29,79,174,125,236,17,208,167,101,0,160,201,30,107,246]"
);
adapter_module!(
    /// The hyphenated form (RFC 9562 §4) as a string, in every format
    /// (binary ones too).
    hyphenated,
    crate::external::serde_adapters::Text<crate::external::serde_adapters::HyphenatedForm>,
    "\"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\""
);
adapter_module!(
    /// The simple form, 32 hex digits, as a string in every format.
    simple,
    crate::external::serde_adapters::Text<crate::external::serde_adapters::SimpleForm>,
    "\"f81d4fae7dec11d0a76500a0c91e6bf6\""
);
adapter_module!(
    /// The braced form as a string in every format.
    braced,
    crate::external::serde_adapters::Text<crate::external::serde_adapters::BracedForm>,
    "\"{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}\""
);
adapter_module!(
    /// The `urn:uuid:` form (RFC 9562 §4) as a string in every format.
    urn,
    crate::external::serde_adapters::Text<crate::external::serde_adapters::UrnForm>,
    "\"urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6\""
);

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};
    use serde_test::{Configure, Token, assert_de_tokens_error, assert_tokens};
    use std::string::ToString;
    use std::vec::Vec;

    use crate::Uuid;

    const U: Uuid = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Row {
        #[serde(with = "crate::serde::compact")]
        compact: Uuid,
        #[serde(with = "crate::serde::hyphenated")]
        hyphenated: Uuid,
        #[serde(with = "crate::serde::simple")]
        simple: Uuid,
        #[serde(with = "crate::serde::braced")]
        braced: Uuid,
        #[serde(with = "crate::serde::urn")]
        urn: Uuid,
    }

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Optional {
        #[serde(with = "crate::serde::compact::option")]
        compact: Option<Uuid>,
        #[serde(with = "crate::serde::simple::option")]
        simple: Option<Uuid>,
        #[serde(with = "crate::serde::urn::option")]
        urn: Option<Uuid>,
    }

    fn row() -> Row {
        Row {
            compact: U,
            hyphenated: U,
            simple: U,
            braced: U,
            urn: U,
        }
    }

    #[test]
    fn tokens_are_the_form_named_whatever_the_format() {
        let mut tokens = Vec::from([
            Token::Struct {
                name: "Row",
                len: 5,
            },
            Token::Str("compact"),
            Token::Tuple { len: 16 },
        ]);
        tokens.extend(U.as_bytes().iter().map(|&b| Token::U8(b)));
        tokens.extend([
            Token::TupleEnd,
            Token::Str("hyphenated"),
            Token::Str("f81d4fae-7dec-11d0-a765-00a0c91e6bf6"),
            Token::Str("simple"),
            Token::Str("f81d4fae7dec11d0a76500a0c91e6bf6"),
            Token::Str("braced"),
            Token::Str("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}"),
            Token::Str("urn"),
            Token::Str("urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"),
            Token::StructEnd,
        ]);
        // `serde_test` is human-readable by default; a binary format sees
        // the same tokens, where a bare `Uuid` would become bytes.
        assert_tokens(&row(), &tokens);
        assert_tokens(&row().compact(), &tokens);
        assert_tokens(&U.compact(), &[Token::Bytes(U.as_bytes())]);
    }

    #[test]
    fn options_write_none_and_some() {
        let some = Optional {
            compact: Some(Uuid::MAX),
            simple: Some(U),
            urn: None,
        };
        let mut tokens = Vec::from([
            Token::Struct {
                name: "Optional",
                len: 3,
            },
            Token::Str("compact"),
            Token::Some,
            Token::Tuple { len: 16 },
        ]);
        tokens.extend([Token::U8(0xff); 16]);
        tokens.extend([
            Token::TupleEnd,
            Token::Str("simple"),
            Token::Some,
            Token::Str("f81d4fae7dec11d0a76500a0c91e6bf6"),
            Token::Str("urn"),
            Token::None,
            Token::StructEnd,
        ]);
        assert_tokens(&some, &tokens);
    }

    #[test]
    fn json_round_trips_and_reads_any_text_form() {
        let json = serde_json::to_string(&row()).unwrap();
        assert!(json.contains(r#""urn":"urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6""#));
        assert_eq!(serde_json::from_str::<Row>(&json).unwrap(), row());

        // A text adapter reads every form `Uuid::parse` reads, in any case.
        let mixed = r#"{"compact":[248,29,79,174,125,236,17,208,167,101,0,160,201,30,107,246],
            "hyphenated":"F81D4FAE7DEC11D0A76500A0C91E6BF6","simple":"{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
            "braced":"urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6","urn":"f81d4fae-7dec-11d0-a765-00a0c91e6bf6"}"#;
        assert_eq!(serde_json::from_str::<Row>(mixed).unwrap(), row());

        let none = Optional {
            compact: None,
            simple: None,
            urn: Some(U),
        };
        let json = serde_json::to_string(&none).unwrap();
        assert_eq!(
            json,
            r#"{"compact":null,"simple":null,"urn":"urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"}"#
        );
        assert_eq!(serde_json::from_str::<Optional>(&json).unwrap(), none);
    }

    #[test]
    fn postcard_compact_is_16_bytes_and_text_is_a_string() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Pair(
            #[serde(with = "crate::serde::compact")] Uuid,
            #[serde(with = "crate::serde::simple")] Uuid,
        );
        let bytes = postcard::to_allocvec(&Pair(U, U)).unwrap();
        // The 16 octets as they are, then a varint length 32 and the digits.
        assert_eq!(&bytes[..16], U.as_bytes());
        assert_eq!(bytes[16], 32);
        assert_eq!(&bytes[17..], b"f81d4fae7dec11d0a76500a0c91e6bf6");
        assert_eq!(postcard::from_bytes::<Pair>(&bytes).unwrap(), Pair(U, U));

        // The default (binary) form is a byte string: one more byte, its length.
        assert_eq!(postcard::to_allocvec(&U).unwrap().len(), 17);

        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Opt(#[serde(with = "crate::serde::compact::option")] Option<Uuid>);
        let some = postcard::to_allocvec(&Opt(Some(U))).unwrap();
        assert_eq!((some[0], &some[1..]), (1, &U.as_bytes()[..]));
        assert_eq!(postcard::to_allocvec(&Opt(None)).unwrap(), [0]);
        assert_eq!(postcard::from_bytes::<Opt>(&some).unwrap(), Opt(Some(U)));
    }

    #[test]
    fn bad_input_says_what_and_where() {
        #[derive(Deserialize, Debug)]
        struct One(
            #[serde(with = "crate::serde::braced")]
            #[allow(dead_code)]
            Uuid,
        );
        assert_de_tokens_error::<One>(
            &[
                Token::NewtypeStruct { name: "One" },
                Token::Str("{f81d4fae-7dec-11d0-a765-00a0c91e6bfx}"),
            ],
            "invalid character 'x' at position 36: expected a hex digit",
        );
        assert_de_tokens_error::<One>(
            &[Token::NewtypeStruct { name: "One" }, Token::U32(7)],
            "invalid type: integer `7`, expected a UUID string (braced form)",
        );
        let short = serde_json::from_str::<Row>(r#"{"compact":[1,2,3]}"#).unwrap_err();
        assert!(short.to_string().contains("invalid length 3"), "{short}");
    }
}
