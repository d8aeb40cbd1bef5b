//! `uuidkit convert`: v1 ↔ v6, v7 ↔ façade, and text forms, streaming stdin to stdout.
//!
//! Each input line gives exactly one output line, in order. An input that does not
//! parse, or that `--to` cannot convert (only v1 and v6 convert; the other one of the
//! pair passes through unchanged; only a v7 has a façade, and only a v4 can be one),
//! is reported on stderr with its line number and produces no output line; the exit
//! status is then 1.
//!
//! `--to` names a version or a text form; a form there is the same as `-f`, so
//! `--to base58` and `-f base58` agree, and `--to v6 -f base58` does both.

use uuidkit::Uuid;
use uuidkit::encoding::TypeId;

use crate::error::{Error, Outcome};
use crate::flags::{ConvertPlan, ConvertTo, FacadeDirection, FacadePlan, TYPEID};

use super::Reports;

/// Runs `convert`: one output line per input that converts.
pub fn run(plan: &ConvertPlan) -> Result<Outcome, Error> {
    let prefix = plan.prefix.as_deref().unwrap_or_default();
    let mut out = super::stdout().with_prefix(prefix);
    super::each_uuid(&mut out, &plan.input, Reports::Lines, |out, item, u| {
        let converted = keeps_prefix(plan, item.bytes).and_then(|()| match &plan.facade {
            Some(f) => through_facade(f, u),
            None => convert(&u, plan.to),
        });
        Ok(match converted {
            Ok(u) => {
                out.uuid(&u, plan.format, plan.upper)?;
                Ok(())
            }
            Err(e) => Err(e),
        })
    })
}

/// A TypeID written without `--prefix` from an input TypeID that has one
/// would lose it unsaid: that is an error naming the prefix.
fn keeps_prefix(plan: &ConvertPlan, text: &[u8]) -> Result<(), String> {
    if plan.format != TYPEID || plan.prefix.is_some() || !text.contains(&b'_') {
        return Ok(());
    }
    match TypeId::parse(text) {
        Ok(t) if !t.prefix().is_empty() => Err(format!(
            "the input's TypeID prefix '{0}' would be dropped: expected --prefix {0} to \
             keep it, or --prefix= to drop it",
            t.prefix()
        )),
        _ => Ok(()),
    }
}

/// A v7's façade, or a façade's v7.
fn through_facade(plan: &FacadePlan, u: Uuid) -> Result<Uuid, String> {
    match plan.direction {
        FacadeDirection::Encode => plan.facade.encode(u),
        FacadeDirection::Decode => plan.facade.decode(u),
    }
    .map_err(|e| e.to_string())
}

/// Converts one UUID to the requested version.
pub fn convert(u: &Uuid, to: Option<ConvertTo>) -> Result<Uuid, String> {
    let Some(to) = to else { return Ok(*u) };
    let rfc = u.variant() == uuidkit::Variant::Rfc9562;
    let n = u.version_nibble();
    match (to, rfc, n) {
        (ConvertTo::V6, true, 1 | 6) => u.to_v6().ok_or_else(|| "unreachable".into()),
        (ConvertTo::V1, true, 1 | 6) => u.to_v1().ok_or_else(|| "unreachable".into()),
        (ConvertTo::Facade, ..) => Err("a façade needs its key: expected --key-file".into()),
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
