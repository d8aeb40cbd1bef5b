//! Time: the timestamp of a v1, v6 or v7 as `timestamptz`, and the v7
//! bounds of a time window for range queries on a v7 key.
//!
//! `v7_lower(start)` is the smallest v7 UUID whose timestamp is at least
//! `start`, `v7_upper(end)` the largest whose timestamp is at most `end`; v7
//! timestamps are whole milliseconds, so `start` rounds up and `end` rounds
//! down (as the CLI's `range` does). Both are `IMMUTABLE`, so with constant
//! arguments the planner folds them and
//! `WHERE id BETWEEN uuidkit.v7_lower(…) AND uuidkit.v7_upper(…)` is a
//! primary-key index range scan.

use pgrx::prelude::*;

use crate::error::time_out_of_range;
use crate::lib::{MAX_UNIX_TS_MS, Uuid};
use crate::{from_pg, to_pg};

/// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 00:00 UTC).
const PG_EPOCH_UNIX_US: i64 = 946_684_800_000_000;

/// `t` as microseconds since the Unix epoch; raises an error for ±infinity.
pub(crate) fn unix_micros(t: TimestampWithTimeZone, what: &str) -> i64 {
    if !t.is_finite() {
        time_out_of_range(format!(
            "time {t} is out of range for {what}: expected a finite time"
        ));
    }
    // PostgreSQL's timestamps end in 294276 AD, past `i64::MAX` microseconds since 1970 (from 294247 AD on):
    // saturated, those are still after v7's last timestamp.
    i64::from(t).saturating_add(PG_EPOCH_UNIX_US)
}

/// A `timestamptz` from microseconds since the Unix epoch.
pub(crate) fn from_unix_micros(us: i64) -> Option<TimestampWithTimeZone> {
    TimestampWithTimeZone::try_from(us.checked_sub(PG_EPOCH_UNIX_US)?).ok()
}

/// The error text for a time a v7 timestamp cannot hold.
pub(crate) fn v7_range_message(t: TimestampWithTimeZone) -> String {
    let last_us = (MAX_UNIX_TS_MS as i64) * 1000 + 999;
    let show = |us| from_unix_micros(us).map_or_else(|| format!("@{us}µs"), |t| t.to_string());
    let before = t.is_finite() && i64::from(t).saturating_add(PG_EPOCH_UNIX_US) < 0;
    let side = if before {
        "before its first timestamp; "
    } else {
        "after its last timestamp; "
    };
    format!(
        "time {t} is out of range for v7: it is {side}expected {} to {}",
        show(0),
        show(last_us)
    )
}

/// The v7 millisecond of `t`, rounded up (`ceil`) or down; raises an error
/// if a v7 timestamp cannot hold it.
pub(crate) fn v7_millis(t: TimestampWithTimeZone, ceil: bool) -> u64 {
    let us = unix_micros(t, "v7");
    let ms = if ceil {
        us.div_euclid(1000) + i64::from(us.rem_euclid(1000) != 0)
    } else {
        us.div_euclid(1000)
    };
    match u64::try_from(ms) {
        Ok(ms) if ms <= MAX_UNIX_TS_MS => ms,
        _ => time_out_of_range(v7_range_message(t)),
    }
}

/// The smallest v7 UUID whose timestamp is at or after `start`.
#[pg_extern(immutable, strict, parallel_safe)]
fn v7_lower(start: TimestampWithTimeZone) -> pgrx::Uuid {
    to_pg(Uuid::v7_min(v7_millis(start, true)))
}

/// The largest v7 UUID whose timestamp is at or before `end`.
#[pg_extern(immutable, strict, parallel_safe)]
fn v7_upper(end: TimestampWithTimeZone) -> pgrx::Uuid {
    to_pg(Uuid::v7_max(v7_millis(end, false)))
}

/// The time of a v1, v6 or v7 UUID, to the microsecond (v1 and v6 count
/// 100 ns, truncated); `NULL` for any other version, which holds no time.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn extract_timestamp(id: pgrx::Uuid) -> Option<TimestampWithTimeZone> {
    let ns = from_pg(id).unix_nanos()?;
    let us = i64::try_from(ns.div_euclid(1000)).ok()?;
    from_unix_micros(us)
}
