//! `uuidkit convert`: v1 ↔ v6 and text forms, streaming stdin to stdout.
//!
//! Each input line gives exactly one output line, in order. An input that does not
//! parse, or that `--to` cannot convert (only v1 and v6 convert; the other one of the
//! pair passes through unchanged), is reported on stderr with its line number and
//! produces no output line; the exit status is then 1.
//!
//! `--to` names a version or a text form; a form there is the same as `-f`, so
//! `--to base58` and `-f base58` agree, and `--to v6 -f base58` does both.

use uuidkit::Uuid;

use crate::error::{Error, Outcome};
use crate::flags::{ConvertArgs, ConvertTarget, ConvertTo, Format};
use crate::input;

/// The version to convert to (if any) and the output form, from `--to` and
/// `-f`; a usage error if they name two different forms.
pub fn target(
    to: Option<ConvertTarget>,
    format: Option<Format>,
) -> Result<(Option<ConvertTo>, Format), Error> {
    match (to, format) {
        (Some(ConvertTarget::Version(v)), f) => Ok((Some(v), f.unwrap_or_default())),
        (Some(ConvertTarget::Form(t)), Some(f)) if t != f => Err(Error::Usage(format!(
            "--to {} and -f {} name two output forms: expected one",
            name(t),
            name(f)
        ))),
        (Some(ConvertTarget::Form(f)), _) | (None, Some(f)) => Ok((None, f)),
        (None, None) => Ok((None, Format::default())),
    }
}

/// A form's name as the command line spells it.
fn name(f: Format) -> String {
    clap::ValueEnum::to_possible_value(&f).map_or_else(String::new, |v| v.get_name().to_string())
}

/// Runs `convert`.
pub fn run(args: &ConvertArgs) -> Result<Outcome, Error> {
    let (to, format) = target(args.to, args.format)?;
    let prefix = crate::text::prefix_for(format, args.prefix.as_ref())?;
    let mut out = super::stdout().with_prefix(&prefix);
    let mut invalid = false;
    input::for_each(&args.uuids, &mut out, |out, item| {
        let result = crate::text::read(item.bytes, args.from, false)
            .map_err(|e| e.to_string())
            .and_then(|u| convert(&u, to));
        match result {
            Ok(u) => out.uuid(&u, format, args.upper)?,
            Err(e) => {
                invalid = true;
                out.report(&input::rejection(&item, &e))?;
            }
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(if invalid {
        Outcome::SomeInvalid
    } else {
        Outcome::Success
    })
}

/// Converts one UUID to the requested version.
pub fn convert(u: &Uuid, to: Option<ConvertTo>) -> Result<Uuid, String> {
    let Some(to) = to else { return Ok(*u) };
    let rfc = u.variant() == uuidkit::Variant::Rfc9562;
    let n = u.version_nibble();
    match (to, rfc, n) {
        (ConvertTo::V6, true, 1 | 6) => u.to_v6().ok_or_else(|| "unreachable".into()),
        (ConvertTo::V1, true, 1 | 6) => u.to_v1().ok_or_else(|| "unreachable".into()),
        (_, true, n) => Err(format!(
            "cannot convert a version {n} UUID: expected version 1 or 6"
        )),
        (_, false, _) => Err(
            "cannot convert a UUID of another variant: expected an RFC 9562 version 1 or 6 UUID"
                .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A1: Uuid = Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
    const A5: Uuid = Uuid::from_u128(0x1EC9414C_232A_6B00_B3C8_9F6BDECED846);

    #[test]
    fn a1_and_a5_convert_both_ways_and_pass_through() {
        assert_eq!(convert(&A1, Some(ConvertTo::V6)).unwrap(), A5);
        assert_eq!(convert(&A5, Some(ConvertTo::V1)).unwrap(), A1);
        assert_eq!(convert(&A5, Some(ConvertTo::V6)).unwrap(), A5);
        assert_eq!(convert(&A1, Some(ConvertTo::V1)).unwrap(), A1);
        assert_eq!(convert(&A1, None).unwrap(), A1);
    }

    #[test]
    fn to_names_a_version_or_the_output_form() {
        use ConvertTarget::{Form, Version};
        let v6 = Some(Version(ConvertTo::V6));
        assert_eq!(target(None, None).unwrap(), (None, Format::Canonical));
        assert_eq!(
            target(v6, None).unwrap(),
            (Some(ConvertTo::V6), Format::Canonical)
        );
        assert_eq!(
            target(v6, Some(Format::Base58)).unwrap(),
            (Some(ConvertTo::V6), Format::Base58)
        );
        let b32 = Some(Form(Format::Base32));
        assert_eq!(target(b32, None).unwrap(), (None, Format::Base32));
        assert_eq!(
            target(b32, Some(Format::Base32)).unwrap(),
            (None, Format::Base32)
        );
        let e = target(b32, Some(Format::Simple)).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.to_string(),
            "--to base32 and -f simple name two output forms: expected one"
        );
    }

    #[test]
    fn other_versions_are_refused() {
        let v4 = Uuid::from_u128(0x919108f7_52d1_4320_9bac_f847db4148a8);
        let e = convert(&v4, Some(ConvertTo::V6)).unwrap_err();
        assert_eq!(
            e,
            "cannot convert a version 4 UUID: expected version 1 or 6"
        );
        assert!(convert(&Uuid::NIL, Some(ConvertTo::V1)).is_err());
    }
}
