//! The `ulid` column type: a UUID's 16 bytes, read and written as ULID text
//! (Crockford's base32, 26 characters).
//!
//! Its representation is `uuid`'s (16 bytes, passed by reference, no
//! alignment), so everything but the text is PostgreSQL's own `uuid` code,
//! declared for `ulid` in `ulid.sql`: binary send and receive, comparison,
//! hashing and sort support. The order is therefore `uuid`'s byte order by
//! construction, the casts to and from `uuid` are binary-coercible, and a
//! `ulid` index is as fast as a `uuid` one. The functions here take and
//! return `pgrx::Uuid`, which has that representation; their SQL
//! declarations, with `ulid` in place of `uuid`, are in `ulid.sql`.
//!
//! ```sql
//! CREATE TABLE events (id uuidkit.ulid PRIMARY KEY DEFAULT uuidkit.gen_ulid(), body jsonb);
//! SELECT id, id::timestamptz FROM events WHERE id >= uuidkit.ulid_lower(now() - interval '1 hour');
//! ```

use std::ffi::{CStr, CString};

use pgrx::prelude::*;

use crate::error::{invalid_text, time_out_of_range};
use crate::lib::{MAX_UNIX_TS_MS, Uuid};
use crate::time::unix_micros;
use crate::{from_pg, to_pg};

pgrx::extension_sql_file!("ulid.sql", name = "ulid", finalize);

/// The type's input function: ULID text in either case.
#[pg_extern(sql = false)]
fn ulid_in(input: &CStr) -> pgrx::Uuid {
    let bytes = input.to_bytes();
    match Uuid::from_ulid(bytes) {
        Ok(id) => to_pg(id),
        Err(e) => invalid_text(format!(
            "invalid input syntax for type ulid: \"{}\": {e}",
            String::from_utf8_lossy(bytes)
        )),
    }
}

/// The type's output function: the 26 characters, upper case.
#[pg_extern(sql = false)]
fn ulid_out(id: pgrx::Uuid) -> CString {
    let text = from_pg(id).to_ulid().to_string();
    CString::new(text).unwrap_or_else(|_| unreachable!("base32 text has no NUL"))
}

/// A ULID from the extension's v7 state: the next value of `uuidkit.v7()`,
/// so monotonic with it and across the cluster when preloaded.
#[pg_extern(sql = false)]
fn gen_ulid() -> pgrx::Uuid {
    crate::generate::v7()
}

/// The milliseconds of the ULID timestamp (its first 48 bits).
fn millis(id: pgrx::Uuid) -> i64 {
    // 48 bits: far inside `i64`.
    (from_pg(id).as_u128() >> 80) as i64
}

/// The time in the first 48 bits, as `timestamptz` (also the cast
/// `ulid::timestamptz`).
#[pg_extern(sql = false)]
fn ulid_timestamp(id: pgrx::Uuid) -> TimestampWithTimeZone {
    // Microseconds from PostgreSQL's epoch (2000-01-01): 2^48 ms is in the
    // year 10889, well inside its range.
    let pg_us = millis(id) * 1000 - 946_684_800_000_000;
    TimestampWithTimeZone::try_from(pg_us)
        .unwrap_or_else(|_| unreachable!("a 48-bit millisecond is a valid timestamptz"))
}

/// The ULID millisecond of `t`, rounded up or down; an error for a time
/// the 48 bits cannot hold.
fn ulid_millis(t: TimestampWithTimeZone, ceil: bool) -> u64 {
    let us = unix_micros(t, "ulid");
    let ms = us.div_euclid(1000) + i64::from(ceil && us.rem_euclid(1000) != 0);
    match u64::try_from(ms) {
        Ok(ms) if ms <= MAX_UNIX_TS_MS => ms,
        _ => time_out_of_range(format!(
            "time {t} is out of range for ulid: expected 1970-01-01 00:00:00+00 to \
             10889-08-02 05:31:50.655+00 (48 bits of Unix milliseconds)"
        )),
    }
}

/// The smallest ULID whose time is at or after `start`.
#[pg_extern(sql = false)]
fn ulid_lower(start: TimestampWithTimeZone) -> pgrx::Uuid {
    to_pg(Uuid::from_u128(u128::from(ulid_millis(start, true)) << 80))
}

/// The largest ULID whose time is at or before `end`.
#[pg_extern(sql = false)]
fn ulid_upper(end: TimestampWithTimeZone) -> pgrx::Uuid {
    let low = (1u128 << 80) - 1;
    to_pg(Uuid::from_u128(
        (u128::from(ulid_millis(end, false)) << 80) | low,
    ))
}
