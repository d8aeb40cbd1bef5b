//! `uuidkit range START END`: v7 bounds for a time range.
//!
//! Line 1 is the smallest v7 UUID whose timestamp is at least START, line 2 the
//! largest whose timestamp is at most END; v7 timestamps are whole milliseconds, so
//! START rounds up and END rounds down. `lower <= id AND id <= upper` then selects
//! exactly the v7 UUIDs generated in [START, END].

use crate::error::{Error, Outcome};
use crate::flags::RangePlan;
use crate::time;

/// Runs `range`.
pub fn run(plan: &RangePlan) -> Result<Outcome, Error> {
    let (lo, hi) = bounds(plan.start, plan.end)?;
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

/// The smallest and largest v7 UUIDs with timestamps in `[start, end]`.
pub fn bounds(
    start: time::Nanos,
    end: time::Nanos,
) -> Result<(uuidkit::Uuid, uuidkit::Uuid), Error> {
    let usage = |m: String| Error::Usage(m);
    if start > end {
        return Err(usage(format!(
            "START {} is after END {}: expected START <= END",
            time::format_rfc3339(start, 9),
            time::format_rfc3339(end, 9)
        )));
    }
    let lo = time::to_unix_ms(start, true).map_err(|e| usage(format!("invalid START: {e}")))?;
    let hi = time::to_unix_ms(end, false).map_err(|e| usage(format!("invalid END: {e}")))?;
    if lo > hi {
        return Err(usage(format!(
            "no whole millisecond lies in [{}, {}]: v7 timestamps are milliseconds",
            time::format_rfc3339(start, 9),
            time::format_rfc3339(end, 9)
        )));
    }
    Ok((uuidkit::Uuid::v7_min(lo), uuidkit::Uuid::v7_max(hi)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_of_a_millisecond() {
        let t = 1_645_557_742_000_000_000; // A.6's millisecond
        let (lo, hi) = bounds(t, t).unwrap();
        assert_eq!(lo.as_u128(), 0x017F22E2_79B0_7000_8000_000000000000);
        assert_eq!(hi.as_u128(), 0x017F22E2_79B0_7FFF_BFFF_FFFFFFFFFFFF);
        let a6 = uuidkit::Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
        assert!(lo <= a6 && a6 <= hi);
    }

    #[test]
    fn sql_condition_of_a_millisecond() {
        let t = 1_645_557_742_000_000_000;
        let (lo, hi) = bounds(t, t).unwrap();
        assert_eq!(
            sql("t.created", lo, hi, false),
            "WHERE t.created >= '017f22e2-79b0-7000-8000-000000000000' \
             AND t.created <= '017f22e2-79b0-7fff-bfff-ffffffffffff'"
        );
        assert!(sql("id", lo, hi, true).ends_with("<= '017F22E2-79B0-7FFF-BFFF-FFFFFFFFFFFF'"));
    }

    #[test]
    fn start_rounds_up_end_rounds_down() {
        let (lo, hi) = bounds(1_500_000, 3_500_000).unwrap();
        assert_eq!(lo.unix_ts_ms(), Some(2));
        assert_eq!(hi.unix_ts_ms(), Some(3));
        assert_eq!(bounds(1_100_000, 1_200_000).unwrap_err().exit_code(), 2);
        assert_eq!(bounds(2, 1).unwrap_err().exit_code(), 2);
        assert!(bounds(-1_000_000, 0).is_err());
    }
}
