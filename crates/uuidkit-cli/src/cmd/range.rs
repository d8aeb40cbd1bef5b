//! `uuidkit range START END`: v7 bounds for a time range.
//!
//! Line 1 is the smallest v7 UUID whose timestamp is at least START, line 2 the
//! largest whose timestamp is at most END; v7 timestamps are whole milliseconds, so
//! START rounds up and END rounds down. `lower <= id AND id <= upper` then selects
//! exactly the v7 UUIDs generated in [START, END].

use crate::error::{Error, Outcome};
use crate::flags::RangePlan;

/// Runs `range`: writes the plan's bounds.
pub fn run(plan: &RangePlan) -> Result<Outcome, Error> {
    let (lo, hi) = (plan.lo, plan.hi);
    let mut out = super::stdout().with_prefix(&plan.prefix);
    if let Some(column) = &plan.sql {
        out.line(sql(&column.0, lo, hi, plan.upper).as_bytes())?;
        out.flush()?;
        return Ok(Outcome::Success);
    }
    for u in [lo, hi] {
        out.uuid(&u, plan.format, plan.upper)?;
    }
    out.flush()?;
    Ok(Outcome::Success)
}

/// `WHERE column >= 'lo' AND column <= 'hi'`, the bounds hyphenated. Both are
/// inclusive: `hi` is the largest v7 UUID of its millisecond, so `<=` keeps every
/// UUID of the last millisecond and nothing after it.
pub fn sql(column: &str, lo: uuidkit::Uuid, hi: uuidkit::Uuid, upper: bool) -> String {
    let text = |u: uuidkit::Uuid| {
        let t = u.to_string();
        if upper { t.to_ascii_uppercase() } else { t }
    };
    format!(
        "WHERE {column} >= '{}' AND {column} <= '{}'",
        text(lo),
        text(hi)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_condition_of_a_millisecond() {
        let ms = 1_645_557_742_000;
        let (lo, hi) = (uuidkit::Uuid::v7_min(ms), uuidkit::Uuid::v7_max(ms));
        assert_eq!(
            sql("t.created", lo, hi, false),
            "WHERE t.created >= '017f22e2-79b0-7000-8000-000000000000' \
             AND t.created <= '017f22e2-79b0-7fff-bfff-ffffffffffff'"
        );
        assert!(sql("id", lo, hi, true).ends_with("<= '017F22E2-79B0-7FFF-BFFF-FFFFFFFFFFFF'"));
    }
}
