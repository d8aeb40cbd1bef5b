//! The short text encodings of a UUID: [`Base32`] (Crockford, ULID's),
//! [`Base32Hex`] (RFC 4648 §7), [`Base58`] (Bitcoin's alphabet),
//! [`Base64Url`] (RFC 4648 §5) and [`TypeId`] (a prefix and `Base32`, lower
//! case). docs/encodings.md defines each exactly.
//!
//! Every encoding has one text per UUID: a fixed length, no padding
//! characters, no separators, and every digit's unused bits zero. Decoding
//! accepts exactly that text (and, for the two base32 forms, either case), so
//! two texts decode to the same UUID only if they are equal up to case. A
//! failed decode names what it found, where, and the alphabet it expected
//! ([`DecodeError`]).
//!
//! Encoders write into a caller's buffer (`encode`) or through `Display`,
//! without allocating; decoders read a `&str` or a `&[u8]`.

pub(crate) mod base32;
pub(crate) mod base58;
pub(crate) mod base64;
pub(crate) mod digits;
mod error;
mod kind;
mod swar;
pub(crate) mod typeid;

pub use base32::{Base32, Base32Hex};
pub use base58::Base58;
pub use base64::Base64Url;
pub use error::{Alphabet, DecodeError, DecodeErrorKind};
pub use kind::Encoding;
pub use typeid::TypeId;

use crate::Uuid;

impl Encoding {
    /// Decodes `input` as this encoding. For [`Encoding::TypeId`] any valid
    /// prefix is accepted and dropped; use [`TypeId::parse`] to keep it.
    ///
    /// ```
    /// use uuidkit::{encoding::Encoding, Uuid};
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(Encoding::Base58.decode("Xe22UfxT3rxcKJEAfL5373")?, u);
    /// assert_eq!(Encoding::TypeId.decode("user_7r3n7twzfc278aes80m34hwtzp")?, u);
    /// # Ok::<(), uuidkit::encoding::DecodeError>(())
    /// ```
    pub fn decode<T: AsRef<[u8]> + ?Sized>(self, input: &T) -> Result<Uuid, DecodeError> {
        let s = input.as_ref();
        match self {
            Encoding::Base32 => Uuid::parse_base32(s),
            Encoding::Ulid => Uuid::from_ulid(s),
            Encoding::Base32Hex => Uuid::parse_base32hex(s),
            Encoding::Base58 => Uuid::parse_base58(s),
            Encoding::Base64Url => Uuid::parse_base64url(s),
            Encoding::TypeId => TypeId::parse(s).map(|t| t.uuid()),
        }
    }

    /// Writes `u` in this encoding into the start of `buf` and returns it,
    /// without allocating: [`Encoding::length`] bytes (a TypeID without a
    /// prefix; use [`TypeId::new`] for one with a prefix).
    ///
    /// # Panics
    ///
    /// If `buf` is shorter than [`Encoding::length`].
    ///
    /// ```
    /// use uuidkit::{encoding::Encoding, Uuid};
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// let mut buf = [0u8; 26];
    /// assert_eq!(Encoding::Base64Url.encode(u, &mut buf), "-B1Prn3sEdCnZQCgyR5r9g");
    /// assert_eq!(Encoding::TypeId.encode(u, &mut buf), "7r3n7twzfc278aes80m34hwtzp");
    /// ```
    #[inline]
    pub fn encode(self, u: Uuid, buf: &mut [u8]) -> &mut str {
        match self {
            Encoding::Base32 | Encoding::Ulid => u.base32().encode(buf),
            Encoding::Base32Hex => u.base32hex().encode(buf),
            Encoding::Base58 => u.base58().encode(buf),
            Encoding::Base64Url => u.base64url().encode(buf),
            // A TypeID without a prefix is its 26 digits: base32, lower case.
            Encoding::TypeId => u.base32().encode_lower(buf),
        }
    }
}

/// The character (or, if not UTF-8, the byte) at `at` as an error kind.
pub(crate) fn bad_char(s: &[u8], at: usize, expected: Alphabet) -> DecodeErrorKind {
    match crate::parse::char_at(s, at) {
        Ok(found) => DecodeErrorKind::InvalidCharacter { found, expected },
        Err(found) => DecodeErrorKind::InvalidByte { found, expected },
    }
}

/// The adapter shape shared by the fixed-length encodings: a wrapped UUID,
/// `LENGTH`, `encode` into a caller's buffer, `Display` and the conversions.
macro_rules! encoding_adapter {
    (
        $(#[$doc:meta])*
        $name:ident, $len:expr, $method:ident, $example:literal,
        |$uuid:ident, $out:ident| $write:block
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[repr(transparent)]
        pub struct $name(crate::Uuid);

        impl $name {
            /// The length of this form, in bytes (every character is ASCII).
            pub const LENGTH: usize = $len;

            /// Wraps a UUID; same as the method on [`Uuid`](crate::Uuid).
            #[inline]
            pub const fn from_uuid(uuid: crate::Uuid) -> Self {
                $name(uuid)
            }

            /// The UUID this formats.
            #[inline]
            pub const fn as_uuid(&self) -> &crate::Uuid {
                &self.0
            }

            #[inline(always)]
            fn write(&self, $out: &mut [u8; $len]) {
                let $uuid = &self.0;
                $write
            }

            /// Writes this form into the start of `buf` and returns it as a
            /// `&mut str`, without allocating.
            ///
            /// # Panics
            ///
            /// If `buf` is shorter than [`Self::LENGTH`].
            ///
            /// ```
            /// use uuidkit::Uuid;
            /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
            #[doc = concat!("let mut buf = [0u8; ", stringify!($len), "];")]
            #[doc = concat!("assert_eq!(u.", stringify!($method), "().encode(&mut buf), \"", $example, "\");")]
            /// ```
            #[inline]
            pub fn encode<'b>(&self, buf: &'b mut [u8]) -> &'b mut str {
                let len = buf.len();
                let Some(out) = buf.first_chunk_mut::<{ $len }>() else {
                    crate::fmt::buffer_too_small(len, $len)
                };
                self.write(out);
                // SAFETY: `write` filled `out` with ASCII only.
                unsafe { core::str::from_utf8_unchecked_mut(out) }
            }
        }

        impl From<crate::Uuid> for $name {
            #[inline]
            fn from(u: crate::Uuid) -> Self {
                $name(u)
            }
        }

        impl From<$name> for crate::Uuid {
            #[inline]
            fn from(a: $name) -> crate::Uuid {
                a.0
            }
        }

        impl core::fmt::Display for $name {
            /// Honours width, fill and alignment.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let mut buf = [0u8; $len];
                let text = self.encode(&mut buf);
                if f.width().is_none() && f.precision().is_none() {
                    f.write_str(text)
                } else {
                    f.pad(text)
                }
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Display::fmt(self, f)
            }
        }
    };
}
pub(crate) use encoding_adapter;
