//! Reading a UUID in any text form from the command line (`--from`).
//!
//! Without `--from`, input is a UUID in one of the four hex forms, or a
//! TypeID with a prefix (text with an underscore, which no other form has).
//! A text of 26 characters without one is refused with a message asking for
//! `--from`: it may be a ULID (base32), a TypeID without a prefix or
//! base32hex, which read as three different UUIDs, and a hex UUID cut to 26
//! digits is valid base32 too. A text of 22 characters is refused the same
//! way, naming base58 and base64url, which read as different UUIDs. With `--from`, the
//! form named is the only one read: `--from simple` refuses a hyphenated
//! UUID. Every error names the position and the expected characters;
//! lengths count characters, and bytes as well where the two differ.

use std::fmt;

use uuidkit::encoding::{DecodeError, DecodeErrorKind, TypeId};
use uuidkit::error::ParseErrorKind;
use uuidkit::{ParseError, Uuid};

use crate::flags::Format;

/// Why an input is not a UUID in the expected form: the message, and the
/// byte offset of the mistake if it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    message: String,
    position: Option<usize>,
}

impl InputError {
    /// The byte offset of the mistake, if it has one.
    pub fn position(&self) -> Option<usize> {
        self.position
    }

    /// An error with no position.
    pub fn whole(message: String) -> InputError {
        InputError {
            message,
            position: None,
        }
    }

    #[cold]
    fn hex(e: ParseError, text: &[u8]) -> InputError {
        let message = match e.kind() {
            ParseErrorKind::InvalidLength { found } => with_length(e.to_string(), found, text),
            _ => e.to_string(),
        };
        InputError {
            message,
            position: e.position(),
        }
    }

    #[cold]
    fn encoded(e: DecodeError, text: &[u8]) -> InputError {
        let at = e.position().unwrap_or(0);
        let message = match e.kind() {
            DecodeErrorKind::InvalidLength { found, .. } => {
                with_length(e.to_string(), found, text.get(at..).unwrap_or_default())
            }
            DecodeErrorKind::PrefixTooLong { found } => {
                with_length(e.to_string(), found, text.get(..found).unwrap_or_default())
            }
            _ => e.to_string(),
        };
        InputError {
            message,
            position: e.position(),
        }
    }
}

/// `message` with the length it states (`found` bytes, those of `span`)
/// counted in characters, and in bytes too where the two differ: the
/// library counts bytes.
fn with_length(message: String, found: usize, span: &[u8]) -> String {
    let counted = match std::str::from_utf8(span) {
        Ok(t) if t.is_ascii() => return message,
        Ok(t) => format!("{} characters ({found} bytes)", t.chars().count()),
        Err(_) => format!("{found} bytes"),
    };
    for (old, new) in [
        (format!("of {found} characters"), format!("of {counted}")),
        (format!("length {found}:"), format!("length {counted}:")),
        (format!("length {found} "), format!("length {counted} ")),
    ] {
        if message.contains(&old) {
            return message.replacen(&old, &new, 1);
        }
    }
    message
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The length of a ULID, a TypeID without a prefix and base32hex.
const AMBIGUOUS_LEN: usize = 26;

/// The length of base58 (at most; 22 for most UUIDs) and of base64url.
const BASE58_64_LEN: usize = 22;

/// Reads `bytes` as `from`, or, without it, as a hex form or a TypeID with
/// a prefix (see the module docs). `strict` asks for RFC 9562's hyphenated
/// form only.
pub fn read(bytes: &[u8], from: Option<Format>, strict: bool) -> Result<Uuid, InputError> {
    let hex = |r: Result<Uuid, ParseError>| r.map_err(|e| InputError::hex(e, bytes));
    let encoded = |r: Result<Uuid, DecodeError>| r.map_err(|e| InputError::encoded(e, bytes));
    match from {
        None if strict => hex(Uuid::parse_strict(bytes)),
        None if bytes.contains(&b'_') => encoded(TypeId::parse(bytes).map(|t| t.uuid())),
        None if bytes.len() == AMBIGUOUS_LEN && bytes.is_ascii() => {
            Err(InputError::whole(format!(
                "{AMBIGUOUS_LEN} characters without a TypeID prefix: expected a hex UUID \
                 (32 or 36 characters), or --from base32, --from typeid or --from base32hex \
                 to read a ULID, a TypeID without a prefix or base32hex (the three read as \
                 different UUIDs)"
            )))
        }
        None if bytes.len() == BASE58_64_LEN && bytes.is_ascii() => {
            Err(InputError::whole(format!(
                "{BASE58_64_LEN} characters: expected a hex UUID (32 or 36 characters), or \
                 --from base58 or --from base64url to read base58 or base64url (the two read \
                 as different UUIDs)"
            )))
        }
        None => hex(Uuid::parse(bytes)),
        Some(form @ (Format::Canonical | Format::Simple | Format::Braced | Format::Urn)) => {
            let u = hex(Uuid::parse(bytes))?;
            let found = hex_form(bytes.len());
            if found == form {
                Ok(u)
            } else {
                Err(InputError::whole(format!(
                    "not the {} form: expected {}, found the {} form",
                    form.name(),
                    form_shape(form),
                    found.name()
                )))
            }
        }
        Some(Format::Encoded(e)) => encoded(e.decode(bytes)),
        Some(Format::Int) => decimal(bytes),
        Some(Format::Bin) => <[u8; 16]>::try_from(bytes)
            .map(Uuid::from_bytes)
            .map_err(|_| {
                InputError::whole(format!(
                    "a short final record: {} bytes, expected 16 (the input ends inside a record)",
                    bytes.len()
                ))
            }),
    }
}

/// Which hex form a text that `Uuid::parse` accepted is in: each has its
/// own length.
fn hex_form(len: usize) -> Format {
    match len {
        32 => Format::Simple,
        38 => Format::Braced,
        45 => Format::Urn,
        _ => Format::Canonical,
    }
}

/// What a hex form looks like.
fn form_shape(f: Format) -> &'static str {
    match f {
        Format::Simple => "32 hex digits",
        Format::Braced => "'{', 8-4-4-4-12 hex digits, '}'",
        Format::Urn => "'urn:uuid:' and 8-4-4-4-12 hex digits",
        _ => "8-4-4-4-12 hex digits",
    }
}

/// Reads a 128-bit decimal integer (`-f int`): digits only, at most
/// 2^128 - 1; leading zeros are accepted.
fn decimal(bytes: &[u8]) -> Result<Uuid, InputError> {
    let mut v: u128 = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !b.is_ascii_digit() {
            let found = match char_at(bytes, i) {
                Some(c) => format!("'{}'", c.escape_debug()),
                None => format!("byte 0x{b:02x}"),
            };
            return Err(InputError {
                message: format!(
                    "invalid character {found} at position {i}: expected a decimal digit"
                ),
                position: Some(i),
            });
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u128::from(b - b'0')))
            .ok_or_else(|| {
                InputError::whole(format!(
                    "{} is too large for 128 bits: expected at most {} (2^128 - 1)",
                    String::from_utf8_lossy(bytes),
                    u128::MAX
                ))
            })?;
    }
    Ok(Uuid::from_u128(v))
}

/// The character starting at byte `i`, if it is valid UTF-8.
fn char_at(bytes: &[u8], i: usize) -> Option<char> {
    let rest = &bytes[i..];
    let end = rest.len().min(4);
    (1..=end).find_map(|n| {
        std::str::from_utf8(&rest[..n])
            .ok()
            .and_then(|s| s.chars().next())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::TYPEID;
    use uuidkit::encoding::Encoding;

    const U: Uuid = Uuid::from_u128(0x01890a5d_ac96_774b_bcce_b302099a8057);

    #[test]
    fn without_from_hex_forms_and_prefixed_typeids_are_read() {
        let hex = "01890a5d-ac96-774b-bcce-b302099a8057";
        assert_eq!(read(hex.as_bytes(), None, false), Ok(U));
        assert_eq!(read(b"user_01h455vb4pex5vsknk084sn02q", None, false), Ok(U));
        // Strict stays the hyphenated form only.
        assert!(read(b"user_01h455vb4pex5vsknk084sn02q", None, true).is_err());
    }

    #[test]
    fn decimal_integers_and_raw_records() {
        let max = u128::MAX.to_string();
        assert_eq!(
            read(max.as_bytes(), Some(Format::Int), false),
            Ok(Uuid::MAX)
        );
        assert_eq!(read(b"0000", Some(Format::Int), false), Ok(Uuid::NIL));
        let e = read(b"12a4", Some(Format::Int), false).unwrap_err();
        assert_eq!(e.position(), Some(2));
        assert_eq!(
            e.to_string(),
            "invalid character 'a' at position 2: expected a decimal digit"
        );
        let over = "340282366920938463463374607431768211456";
        let e = read(over.as_bytes(), Some(Format::Int), false).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!("{over} is too large")),
            "{e}"
        );
        assert_eq!(read(U.as_bytes(), Some(Format::Bin), false), Ok(U));
        let e = read(&U.as_bytes()[..7], Some(Format::Bin), false).unwrap_err();
        assert!(
            e.to_string().starts_with("a short final record: 7 bytes"),
            "{e}"
        );
    }

    /// Base58 and base64url (22 characters) need `--from`, as 26 characters do.
    #[test]
    fn twenty_two_characters_need_from() {
        for text in ["SGSnoPbbNoLVHhV6rmM1xE", "AX8i4nmwfMOYxNwMDAc5jw"] {
            let e = read(text.as_bytes(), None, false).unwrap_err();
            assert_eq!(e.position(), None);
            assert!(
                e.to_string().starts_with(
                    "22 characters: expected a hex UUID (32 or 36 characters), or --from base58 \
                     or --from base64url"
                ),
                "{e}"
            );
        }
        assert!(
            read(
                b"AX8i4nmwfMOYxNwMDAc5jw",
                Some(Format::Encoded(Encoding::Base64Url)),
                false
            )
            .is_ok()
        );
    }

    /// A ULID, a TypeID without a prefix, base32hex and a hex UUID cut to 26
    /// digits: each needs `--from`, and none is read as some UUID.
    #[test]
    fn twenty_six_characters_without_a_prefix_need_from() {
        for text in [
            "01h455vb4pex5vsknk084sn02q",
            "01H455VB4PEX5VSKNK084SN02Q",
            "064GKNDCIPRKNF6EMC10J6K0AS",
            "017f22e279b07cc398c4dc0c0c",
        ] {
            let e = read(text.as_bytes(), None, false).unwrap_err();
            assert_eq!(e.position(), None);
            assert!(e.to_string().starts_with("26 characters without a TypeID prefix: expected a hex UUID (32 or 36 characters), or --from base32, --from typeid or --from base32hex"), "{e}");
        }
        // A hyphenated UUID cut to 26 is a hex form's error as before.
        let e = read(b"017f22e2-79b0-7cc3-98c4-dc", None, false).unwrap_err();
        assert!(e.to_string().starts_with("26 characters"), "{e}");
        assert_eq!(
            read(b"01h455vb4pex5vsknk084sn02q", Some(TYPEID), false),
            Ok(U)
        );
        assert_eq!(
            read(
                b"01H455VB4PEX5VSKNK084SN02Q",
                Some(Format::Encoded(Encoding::Base32)),
                false
            ),
            Ok(U)
        );
    }

    #[test]
    fn a_hex_form_named_by_from_is_the_only_one_read() {
        let forms = [
            (Format::Canonical, "01890a5d-ac96-774b-bcce-b302099a8057"),
            (Format::Simple, "01890A5DAC96774BBCCEB302099A8057"),
            (Format::Braced, "{01890a5d-ac96-774b-bcce-b302099a8057}"),
            (Format::Urn, "URN:UUID:01890a5d-ac96-774b-bcce-b302099a8057"),
        ];
        for (from, _) in forms {
            for (other, text) in forms {
                let got = read(text.as_bytes(), Some(from), false);
                if from == other {
                    assert_eq!(got, Ok(U), "{text}");
                } else {
                    let e = got.unwrap_err().to_string();
                    let want = format!(
                        "not the {} form: expected {}, found the {} form",
                        from.name(),
                        form_shape(from),
                        other.name()
                    );
                    assert_eq!(e, want, "{text}");
                }
            }
        }
    }

    /// Lengths are counted in characters, and in bytes where those differ.
    #[test]
    fn lengths_count_characters() {
        let e = read(
            "1BzmjTFLHWXwiSK4y3H5€".as_bytes(),
            Some(Format::Encoded(Encoding::Base58)),
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid base58 length 21 characters (23 bytes): expected 22 characters"
        );
        let e = read(
            "1BzmjTFLHWXwiSK4y3H5iW€".as_bytes(),
            Some(Format::Encoded(Encoding::Base58)),
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid base58 length 23 characters (25 bytes): expected 22 characters"
        );
        let e = read(
            b"1BzmjTFLHWXwiSK4y3H5iW\xff",
            Some(Format::Encoded(Encoding::Base58)),
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid base58 length 23 bytes: expected 22 characters"
        );
        let e = read(
            b"1BzmjTFLHWXwiSK4y3H5iWx",
            Some(Format::Encoded(Encoding::Base58)),
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid base58 length 23: expected 22 characters"
        );
        let e = read("user_01h455vb4pex5vsknk084sn0€".as_bytes(), None, false).unwrap_err();
        assert!(
            e.to_string()
                .contains("length 25 characters (27 bytes) at position 5"),
            "{e}"
        );
    }

    #[test]
    fn from_selects_the_decoder() {
        let cases = [
            (
                Format::Encoded(Encoding::Base32),
                "01H455VB4PEX5VSKNK084SN02Q",
            ),
            (
                Format::Encoded(Encoding::Base32Hex),
                "064GKNDCIPRKNF6EMC10J6K0AS",
            ),
            (Format::Encoded(Encoding::Base58), "1BzmjTFLHWXwiSK4y3H5iW"),
            (
                Format::Encoded(Encoding::Base64Url),
                "AYkKXayWd0u8zrMCCZqAVw",
            ),
            (TYPEID, "user_01h455vb4pex5vsknk084sn02q"),
            (Format::Simple, "01890a5dac96774bbcceb302099a8057"),
        ];
        for (from, text) in cases {
            assert_eq!(read(text.as_bytes(), Some(from), false), Ok(U), "{text}");
        }
        let e = read(
            b"1BzmjTFLHWXwiSK4y3H5i0",
            Some(Format::Encoded(Encoding::Base58)),
            false,
        )
        .unwrap_err();
        assert_eq!(e.position(), Some(21));
    }
}
