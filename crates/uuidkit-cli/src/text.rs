//! The short encodings on the command line: reading any text form
//! (`--from`), and the TypeID prefix of `-f typeid` (`--prefix`).
//!
//! Without `--from`, input is a UUID in one of the four hex forms, or a
//! TypeID: text with an underscore, or of TypeID's (and base32's) 26
//! characters, is read as a TypeID, so `inspect` and `check` take one as it
//! is. The other encodings need `--from`, because their texts overlap
//! (26 characters may be base32, base32hex or a TypeID; 22 may be base58 or
//! base64url). Every error names the position and the expected characters.

use std::fmt;

use uuidkit::{DecodeError, ParseError, TypeId, Uuid};

use crate::error::Error;
use crate::flags::Format;

/// Why an input is not a UUID in the expected form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputError {
    /// Not one of the hex forms.
    Hex(ParseError),
    /// Not the short encoding (or TypeID) asked for.
    Encoded(DecodeError),
}

impl InputError {
    /// The byte offset of the mistake, if it has one.
    pub fn position(&self) -> Option<usize> {
        match self {
            InputError::Hex(e) => e.position(),
            InputError::Encoded(e) => e.position(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Hex(e) => e.fmt(f),
            InputError::Encoded(e) => e.fmt(f),
        }
    }
}

/// Reads `bytes` as `from`, or, without it, as a hex form or a TypeID (see
/// the module docs). `strict` asks for RFC 9562's hyphenated form only.
pub fn read(bytes: &[u8], from: Option<Format>, strict: bool) -> Result<Uuid, InputError> {
    let typeid = |b: &[u8]| {
        TypeId::parse(b)
            .map(|t| t.uuid())
            .map_err(InputError::Encoded)
    };
    let encoded = |r: Result<Uuid, DecodeError>| r.map_err(InputError::Encoded);
    match from {
        None if strict => Uuid::parse_strict(bytes).map_err(InputError::Hex),
        None if bytes.len() == 26 || bytes.contains(&b'_') => typeid(bytes),
        None | Some(Format::Canonical | Format::Simple | Format::Braced | Format::Urn) => {
            Uuid::parse(bytes).map_err(InputError::Hex)
        }
        Some(Format::Base32) => encoded(Uuid::parse_base32(bytes)),
        Some(Format::Base32hex) => encoded(Uuid::parse_base32hex(bytes)),
        Some(Format::Base58) => encoded(Uuid::parse_base58(bytes)),
        Some(Format::Base64url) => encoded(Uuid::parse_base64url(bytes)),
        Some(Format::Typeid) => typeid(bytes),
    }
}

/// A TypeID prefix, checked as the TypeID specification asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix(pub String);

impl std::str::FromStr for Prefix {
    type Err = String;

    fn from_str(s: &str) -> Result<Prefix, String> {
        match TypeId::new(s, Uuid::NIL) {
            Ok(_) => Ok(Prefix(s.to_string())),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// The prefix to write: `--prefix` only goes with `-f typeid`.
pub fn prefix_for(format: Format, prefix: Option<&Prefix>) -> Result<String, Error> {
    match (format, prefix) {
        (_, None) => Ok(String::new()),
        (Format::Typeid, Some(p)) => Ok(p.0.clone()),
        (_, Some(_)) => Err(Error::Usage(
            "--prefix applies to -f typeid only".to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: Uuid = Uuid::from_u128(0x01890a5d_ac96_774b_bcce_b302099a8057);

    #[test]
    fn without_from_hex_forms_and_typeids_are_read() {
        let hex = "01890a5d-ac96-774b-bcce-b302099a8057";
        assert_eq!(read(hex.as_bytes(), None, false), Ok(U));
        assert_eq!(read(b"user_01h455vb4pex5vsknk084sn02q", None, false), Ok(U));
        assert_eq!(read(b"01h455vb4pex5vsknk084sn02q", None, false), Ok(U));
        // Strict stays the hyphenated form only.
        assert!(read(b"01h455vb4pex5vsknk084sn02q", None, true).is_err());
        // A 26-character text is a TypeID, so its error is TypeID's.
        let e = read(b"01H455VB4PEX5VSKNK084SN02Q", None, false).unwrap_err();
        assert_eq!(e.position(), Some(2));
        assert!(e.to_string().contains("expected 0-9 or a-z"), "{e}");
    }

    #[test]
    fn from_selects_the_decoder() {
        let cases = [
            (Format::Base32, "01H455VB4PEX5VSKNK084SN02Q"),
            (Format::Base32hex, "064GKNDCIPRKNF6EMC10J6K0AS"),
            (Format::Base58, "1BzmjTFLHWXwiSK4y3H5iW"),
            (Format::Base64url, "AYkKXayWd0u8zrMCCZqAVw"),
            (Format::Typeid, "user_01h455vb4pex5vsknk084sn02q"),
            (Format::Simple, "01890a5dac96774bbcceb302099a8057"),
        ];
        for (from, text) in cases {
            assert_eq!(read(text.as_bytes(), Some(from), false), Ok(U), "{text}");
        }
        let e = read(b"1BzmjTFLHWXwiSK4y3H5i0", Some(Format::Base58), false).unwrap_err();
        assert_eq!(e.position(), Some(21));
    }

    #[test]
    fn prefixes_are_checked_and_go_with_typeid_only() {
        assert_eq!("user".parse::<Prefix>(), Ok(Prefix("user".into())));
        let e = "User".parse::<Prefix>().unwrap_err();
        assert!(
            e.starts_with("invalid TypeID prefix character 'U' at position 0"),
            "{e}"
        );
        let p = Prefix("user".into());
        assert_eq!(prefix_for(Format::Typeid, Some(&p)).unwrap(), "user");
        assert_eq!(prefix_for(Format::Typeid, None).unwrap(), "");
        assert_eq!(
            prefix_for(Format::Base58, Some(&p))
                .unwrap_err()
                .exit_code(),
            2
        );
    }
}
