//! `uuidkit inspect --table`: a row per UUID, in the columns util-linux
//! `uuidparse` has (UUID, VARIANT, TYPE, TIME) and VERSION, with its names
//! for variants and types (extended to the versions it calls `unknown`:
//! `time-v6`, `time-v7`, `custom`, and the Max UUID).
//!
//! The columns have fixed widths, so rows stream as they are read (uuidparse
//! reads all its input before it prints); the last column is not padded.
//! With `--json`, each row is a JSON object of the chosen columns (lower-case
//! keys, as uuidparse's), one per line; a column with nothing to say (the
//! time of a v4) is `null` there and blank in the table. An input that is
//! not a UUID is reported on stderr, as `inspect` reports it, and has no row.

use serde_json::{Map, Value};
use uuidkit::{Uuid, Variant};

use crate::error::{Error, Outcome};
use crate::flags::{Column, InspectPlan};
use crate::output::Output;

use super::Reports;

/// Runs `inspect --table`.
pub fn run(plan: &InspectPlan, columns: &[Column], headings: bool) -> Result<Outcome, Error> {
    let mut out = super::stdout();
    if headings {
        let names: Vec<&str> = columns.iter().map(|&c| heading(c)).collect();
        line(&mut out, columns, &names)?;
    }
    super::each_uuid(&mut out, &plan.input, Reports::Lines, |out, _, u| {
        let cells: Vec<Option<String>> = columns.iter().map(|&c| cell(c, &u)).collect();
        if plan.json {
            let mut m = Map::new();
            for (&c, v) in columns.iter().zip(cells) {
                let v = match (c, v) {
                    (Column::Version, Some(n)) => n.parse().map_or(Value::Null, Value::Number),
                    (_, v) => v.map_or(Value::Null, Value::String),
                };
                m.insert(heading(c).to_ascii_lowercase(), v);
            }
            out.line(Value::Object(m).to_string().as_bytes())?;
        } else {
            let texts: Vec<&str> = cells.iter().map(|c| c.as_deref().unwrap_or("")).collect();
            line(out, columns, &texts)?;
        }
        Ok(Ok(()))
    })
}

/// One table line: each cell padded to its column's width, one space
/// between two, no trailing spaces.
fn line<W: std::io::Write>(
    out: &mut Output<W>,
    columns: &[Column],
    cells: &[&str],
) -> std::io::Result<()> {
    let mut s = String::with_capacity(96);
    for (&c, text) in columns.iter().zip(cells) {
        s.push_str(&format!("{text:<0$} ", width(c)));
    }
    out.line(s.trim_end().as_bytes())
}

/// The heading of a column, as uuidparse writes it.
pub fn heading(c: Column) -> &'static str {
    match c {
        Column::Uuid => "UUID",
        Column::Variant => "VARIANT",
        Column::Type => "TYPE",
        Column::Time => "TIME",
        Column::Version => "VERSION",
    }
}

/// The width of a column: its longest value.
fn width(c: Column) -> usize {
    match c {
        Column::Uuid => 36,
        Column::Variant => 9,
        Column::Type => 10,
        // 2022-02-22T19:22:22.0000000Z
        Column::Time => 28,
        Column::Version => 7,
    }
}

/// The value of column `c` for `u`, if it has one.
fn cell(c: Column, u: &Uuid) -> Option<String> {
    let rfc = u.variant() == Variant::Rfc9562;
    let n = u.version_nibble();
    match c {
        Column::Uuid => Some(u.to_string()),
        Column::Variant => Some(variant(u.variant()).into()),
        Column::Type => Some(kind(u).into()),
        Column::Time => {
            let digits = match (rfc, n) {
                (true, 1 | 6) => 7,
                (true, 7) => 3,
                _ => return None,
            };
            u.unix_nanos()
                .map(|t| crate::time::format_rfc3339(t, digits))
        }
        Column::Version => rfc.then(|| n.to_string()),
    }
}

/// uuidparse's name of a variant (DCE is RFC 9562's, after the OSF DCE
/// that defined it).
fn variant(v: Variant) -> &'static str {
    match v {
        Variant::Ncs => "NCS",
        Variant::Rfc9562 => "DCE",
        Variant::Microsoft => "Microsoft",
        _ => "other",
    }
}

/// uuidparse's name of a UUID's type: its version's, for the RFC variant.
fn kind(u: &Uuid) -> &'static str {
    if u.is_nil() {
        return "nil";
    }
    if u.is_max() {
        return "max";
    }
    if u.variant() != Variant::Rfc9562 {
        return "unknown";
    }
    match u.version_nibble() {
        1 => "time-based",
        2 => "DCE",
        3 => "name-based",
        4 => "random",
        5 => "sha1-based",
        6 => "time-v6",
        7 => "time-v7",
        8 => "custom",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_uuidparse_gives_them() {
        let v1 = Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
        assert_eq!(cell(Column::Variant, &v1).as_deref(), Some("DCE"));
        assert_eq!(cell(Column::Type, &v1).as_deref(), Some("time-based"));
        assert_eq!(
            cell(Column::Time, &v1).as_deref(),
            Some("2022-02-22T19:22:22.0000000Z")
        );
        assert_eq!(cell(Column::Type, &Uuid::NIL).as_deref(), Some("nil"));
        assert_eq!(cell(Column::Variant, &Uuid::NIL).as_deref(), Some("NCS"));
        assert_eq!(cell(Column::Version, &Uuid::NIL), None);
        let v4 = Uuid::from_u128(0x919108f7_52d1_4320_9bac_f847db4148a8);
        assert_eq!(cell(Column::Time, &v4), None);
        assert_eq!(cell(Column::Type, &v4).as_deref(), Some("random"));
        for c in [Column::Uuid, Column::Variant, Column::Type, Column::Version] {
            for u in [v1, v4, Uuid::NIL, Uuid::MAX] {
                let text = cell(c, &u).unwrap_or_default();
                assert!(text.len() <= width(c), "{c:?} {text}");
            }
        }
    }
}
