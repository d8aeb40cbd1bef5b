//! `-f`/`--from`: the forms a UUID is written and read in.
//!
//! The four hex forms, the decimal integer and the raw bytes are the command
//! line's own; the short encodings are
//! the library's [`Encoding::ALL`], each offered under its
//! [`Encoding::id`]. A new library encoding is therefore a new `-f`,
//! `--from` and `convert --to` value without an edit here: the one line it
//! wants is its help text in [`encoding_help`] (a unit test fails until it
//! has one).

use std::sync::LazyLock;

use clap::ValueEnum;
use clap::builder::PossibleValue;
use uuidkit::encoding::Encoding;

/// The form of printed (`-f`) or read (`--from`) UUIDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// 8-4-4-4-12 hex digits with hyphens (RFC 9562 §4).
    #[default]
    Canonical,
    /// 32 hex digits, no hyphens.
    Simple,
    /// `{canonical}`, as Microsoft tools print GUIDs.
    Braced,
    /// `urn:uuid:canonical` (RFC 9562 §4, RFC 8141).
    Urn,
    /// The 128-bit value as a decimal integer, no leading zeros (as OSSP
    /// `uuid -F SIV`).
    Int,
    /// The 16 bytes, big-endian, with nothing between two UUIDs (as OSSP
    /// `uuid -F BIN`): read back as 16-byte records.
    Bin,
    /// One of the library's short encodings.
    Encoded(Encoding),
}

/// A TypeID: the one encoding with a prefix (`--prefix`).
pub const TYPEID: Format = Format::Encoded(Encoding::TypeId);

/// The command line's own forms: name, aliases, help.
const OWN_FORMS: [(Format, &str, &[&str], &str); 6] = [
    (
        Format::Canonical,
        "canonical",
        &["hyphenated", "standard"],
        "8-4-4-4-12 hex digits with hyphens (RFC 9562 §4)",
    ),
    (
        Format::Simple,
        "simple",
        &["hex", "plain"],
        "32 hex digits, no hyphens",
    ),
    (
        Format::Braced,
        "braced",
        &["guid", "braces"],
        "{canonical}, as Microsoft tools print GUIDs",
    ),
    (
        Format::Urn,
        "urn",
        &[],
        "urn:uuid:canonical (RFC 9562 §4, RFC 8141)",
    ),
    (
        Format::Int,
        "int",
        &["integer", "decimal", "siv"],
        "the 128-bit value in decimal (0 to 2^128 - 1), as OSSP uuid -F SIV",
    ),
    (
        Format::Bin,
        "bin",
        &["binary", "raw"],
        "the 16 bytes, no newline between UUIDs; --from bin reads 16-byte records from stdin",
    ),
];

/// The help line (and aliases) of each library encoding: what a new
/// encoding adds to the command line. `None` for one not described yet.
fn encoding_help(e: Encoding) -> Option<(&'static str, &'static [&'static str])> {
    Some(match e {
        Encoding::Base32 => (
            "26 digits of Crockford's base32, the value as a number (a ULID's text)",
            &["crockford"],
        ),
        Encoding::Ulid => ("a ULID: the base32 text, read with ULID in its errors", &[]),
        Encoding::Base32Hex => (
            "26 digits of RFC 4648 base32hex, the bytes, no padding",
            &[],
        ),
        Encoding::Base58 => ("22 digits of Bitcoin's base58, the value as a number", &[]),
        Encoding::Base64Url => (
            "22 characters of RFC 4648 base64url, the bytes, no padding",
            &[],
        ),
        Encoding::TypeId => (
            "a TypeID: --prefix and _, then 26 lower-case base32 digits",
            &[],
        ),
        _ => return None,
    })
}

/// Every form, in the order help lists them.
static ALL: LazyLock<Vec<Format>> = LazyLock::new(|| {
    OWN_FORMS
        .iter()
        .map(|f| f.0)
        .chain(Encoding::ALL.iter().map(|&e| Format::Encoded(e)))
        .collect()
});

impl Format {
    /// Every form: the command line's own, then [`Encoding::ALL`].
    pub fn all() -> &'static [Format] {
        &ALL
    }

    /// The form's name as the command line spells it.
    ///
    /// ```text
    /// Format::Encoded(Encoding::Base64Url).name() == "base64url"
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Format::Encoded(e) => e.id(),
            hex => OWN_FORMS
                .iter()
                .find(|f| f.0 == hex)
                .map_or("canonical", |f| f.1),
        }
    }

    /// Whether the form's digits are hex, which `-U` may write in upper case.
    pub fn is_hex(self) -> bool {
        matches!(
            self,
            Format::Canonical | Format::Simple | Format::Braced | Format::Urn
        )
    }
}

impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        Format::all()
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let (help, aliases): (String, &[&str]) = match *self {
            Format::Encoded(e) => match encoding_help(e) {
                Some((help, aliases)) => (help.to_string(), aliases),
                None => (format!("{} characters of {e}", e.length()), &[]),
            },
            hex => OWN_FORMS
                .iter()
                .find(|f| f.0 == hex)
                .map(|f| (f.3.to_string(), f.2))?,
        };
        Some(
            PossibleValue::new(self.name())
                .help(help)
                .aliases(aliases.iter().copied()),
        )
    }
}

/// Target version for `uuidkit convert --to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConvertTo {
    /// Version 6 (from v1, losslessly; v6 passes through).
    #[value(alias = "6")]
    V6,
    /// Version 1 (from v6, losslessly; v1 passes through).
    #[value(alias = "1")]
    V1,
    /// The keyed v4 façade of a v7 (--key-file, --mode); --from facade decodes.
    Facade,
}

/// What `uuidkit convert --to` converts to: a version (v1 ↔ v6) or a text
/// form (the same as `-f`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConvertTarget {
    /// Convert the UUID itself.
    Version(ConvertTo),
    /// Write the UUID in this form.
    Form(Format),
}

/// Every value of [`ConvertTarget`], in the order help lists them: the
/// versions, then every form.
pub(super) static CONVERT_TARGETS: std::sync::LazyLock<Vec<ConvertTarget>> =
    std::sync::LazyLock::new(|| {
        ConvertTo::value_variants()
            .iter()
            .map(|&v| ConvertTarget::Version(v))
            .chain(Format::all().iter().map(|&f| ConvertTarget::Form(f)))
            .collect()
    });

impl ValueEnum for ConvertTarget {
    fn value_variants<'a>() -> &'a [Self] {
        &CONVERT_TARGETS
    }

    /// The names (and aliases) of the version or the form.
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        match self {
            ConvertTarget::Version(v) => v.to_possible_value(),
            ConvertTarget::Form(f) => f.to_possible_value(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_library_encoding_is_a_form_with_help() {
        for &e in Encoding::ALL {
            assert!(encoding_help(e).is_some(), "{e}: no help line");
            let f = Format::from_str(e.id(), true).unwrap();
            assert_eq!(f, Format::Encoded(e));
            assert_eq!(f.name(), e.id());
        }
        assert_eq!(Format::all().len(), OWN_FORMS.len() + Encoding::ALL.len());
    }

    #[test]
    fn aliases_and_case() {
        for (text, want) in [
            ("hyphenated", Format::Canonical),
            ("HEX", Format::Simple),
            ("guid", Format::Braced),
            ("crockford", Format::Encoded(Encoding::Base32)),
            ("ulid", Format::Encoded(Encoding::Ulid)),
            ("TypeID", TYPEID),
            ("decimal", Format::Int),
            ("raw", Format::Bin),
        ] {
            assert_eq!(Format::from_str(text, true), Ok(want), "{text}");
        }
        assert!(Format::from_str("base36", true).is_err());
    }
}
