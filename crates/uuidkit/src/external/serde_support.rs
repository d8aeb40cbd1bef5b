//! `serde`: a UUID is its canonical string in human-readable formats (JSON,
//! TOML, …) and its 16 bytes in binary ones (postcard, bincode, …).
//! Deserializing accepts every form [`Uuid::parse`] accepts, and, in binary
//! formats, 16 bytes or a sequence of 16 integers.

use core::fmt;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::{Braced, Hyphenated, NonNilUuid, Simple, Urn, Uuid};

impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            let mut buf = [0u8; 36];
            serializer.serialize_str(self.hyphenated().encode_lower(&mut buf))
        } else {
            serializer.serialize_bytes(self.as_bytes())
        }
    }
}

struct UuidVisitor;

impl<'de> Visitor<'de> for UuidVisitor {
    type Value = Uuid;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a UUID as a string or 16 bytes")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Uuid, E> {
        Uuid::parse(v).map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Uuid, E> {
        match <[u8; 16]>::try_from(v) {
            Ok(bytes) => Ok(Uuid::from_bytes(bytes)),
            // Some formats hand text over as bytes.
            Err(_) => Uuid::parse(v).map_err(|_| E::invalid_length(v.len(), &self)),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Uuid, A::Error> {
        let mut bytes = [0u8; 16];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(i, &self))?;
        }
        if seq.next_element::<u8>()?.is_some() {
            return Err(de::Error::invalid_length(17, &self));
        }
        Ok(Uuid::from_bytes(bytes))
    }
}

impl<'de> Deserialize<'de> for Uuid {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_str(UuidVisitor)
        } else {
            deserializer.deserialize_bytes(UuidVisitor)
        }
    }
}

/// As the [`Uuid`] it holds.
impl Serialize for NonNilUuid {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(serializer)
    }
}

/// As a [`Uuid`], then the nil check: the Nil UUID is an error.
impl<'de> Deserialize<'de> for NonNilUuid {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<NonNilUuid, D::Error> {
        NonNilUuid::try_from(Uuid::deserialize(deserializer)?).map_err(de::Error::custom)
    }
}

/// The format adapters: their own text form, as a string in every format
/// (binary ones too), as `uuid`'s adapters write it; reading takes the
/// forms and encodings the plain [`Uuid`] takes.
macro_rules! adapter_serde {
    ($($adapter:ident),*) => {$(
        impl Serialize for $adapter {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut buf = Uuid::encode_buffer();
                serializer.serialize_str(self.encode_lower(&mut buf))
            }
        }

        impl<'de> Deserialize<'de> for $adapter {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$adapter, D::Error> {
                deserializer.deserialize_str(UuidVisitor).map($adapter::from_uuid)
            }
        }
    )*};
}

adapter_serde!(Hyphenated, Simple, Braced, Urn);

#[cfg(test)]
mod tests {
    use serde_test::{Configure, Token, assert_de_tokens, assert_tokens};

    use crate::{Braced, Hyphenated, NonNilUuid, Simple, Urn, Uuid};

    const U: Uuid = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);

    #[test]
    fn readable_is_the_canonical_string_and_compact_is_16_bytes() {
        assert_tokens(
            &U.readable(),
            &[Token::Str("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")],
        );
        assert_tokens(&U.compact(), &[Token::Bytes(U.as_bytes())]);
        assert_de_tokens(
            &U.readable(),
            &[Token::Str("URN:UUID:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6")],
        );
        assert_de_tokens(
            &U.compact(),
            &[
                Token::Seq { len: Some(16) },
                Token::U8(0xf8),
                Token::U8(0x1d),
                Token::U8(0x4f),
                Token::U8(0xae),
                Token::U8(0x7d),
                Token::U8(0xec),
                Token::U8(0x11),
                Token::U8(0xd0),
                Token::U8(0xa7),
                Token::U8(0x65),
                Token::U8(0x00),
                Token::U8(0xa0),
                Token::U8(0xc9),
                Token::U8(0x1e),
                Token::U8(0x6b),
                Token::U8(0xf6),
                Token::SeqEnd,
            ],
        );
    }

    #[test]
    fn bad_input_is_an_error_that_says_why() {
        serde_test::assert_de_tokens_error::<serde_test::Readable<Uuid>>(
            &[Token::Str("f81d4fae-7dec-11d0-a765-00a0c91e6bfg")],
            "invalid character 'g' at position 35: expected a hex digit",
        );
        serde_test::assert_de_tokens_error::<serde_test::Compact<Uuid>>(
            &[Token::Bytes(&[1, 2, 3])],
            "invalid length 3, expected a UUID as a string or 16 bytes",
        );
    }

    #[test]
    fn non_nil_is_written_as_its_uuid_and_refuses_nil() {
        let id = NonNilUuid::new(U).unwrap();
        assert_tokens(
            &id.readable(),
            &[Token::Str("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")],
        );
        assert_tokens(&id.compact(), &[Token::Bytes(U.as_bytes())]);
        serde_test::assert_de_tokens_error::<serde_test::Readable<NonNilUuid>>(
            &[Token::Str("00000000-0000-0000-0000-000000000000")],
            "expected a non-nil UUID, found the nil UUID",
        );
    }

    #[test]
    fn adapters_are_their_own_form_as_a_string_in_every_format() {
        let h = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
        assert_tokens(&U.hyphenated().readable(), &[Token::Str(h)]);
        assert_tokens(&U.hyphenated().compact(), &[Token::Str(h)]);
        let simple = Token::Str("f81d4fae7dec11d0a76500a0c91e6bf6");
        assert_tokens(&U.simple().readable(), &[simple]);
        assert_tokens(&U.simple().compact(), &[simple]);
        let braced = Token::Str("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}");
        assert_tokens(&U.braced().compact(), &[braced]);
        let urn = Token::Str("urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
        assert_tokens(&U.urn().compact(), &[urn]);
        // Reading takes any form, and 16 bytes, as the plain `Uuid` does.
        assert_de_tokens(&Simple::from_uuid(U).readable(), &[Token::Str(h)]);
        assert_de_tokens(&Urn::from_uuid(U).compact(), &[Token::Bytes(U.as_bytes())]);
        serde_test::assert_de_tokens_error::<serde_test::Readable<Braced>>(
            &[Token::Str("{f81d4fae}")],
            "invalid length 10: expected 36 (hyphenated), 32, 38 or 45",
        );
        let _: Hyphenated = U.into();
    }
}
