//! What users of PostgreSQL 18's UUID functions and of `pg_uuidv7` reach for: `v7(shift interval)`,
//! `extract_version(uuid)`, a sub-millisecond `extract_timestamp` for PostgreSQL 18's `uuidv7()` values, and
//! `uuid` ↔ `bytea`. The pure-SQL edition (`pure/uuidkit_pure.sql`) has the same functions with the same results.
//!
//! PostgreSQL 18's `uuidv7()` fills `rand_a` with the fraction of the millisecond, `((ns % 10^6) * 4096) / 10^6`
//! (RFC 9562 §6.2 Method 3). `extract_timestamp(id, sub_millisecond => true)` reads it back: of the nanoseconds
//! that give fraction `f`, the first is `ceil(f * 10^6 / 4096)`, and the result is the microsecond it falls in.
//! The true time of the value is that microsecond or the next (a fraction spans 244 ns). Values whose `rand_a`
//! is a counter (uuidkit's own `v7()`) or random read as some time within their millisecond.

use std::cell::Cell;

use pgrx::prelude::*;

use crate::error::bad_value;
use crate::lib::{Uuid, Variant};
use crate::time::{from_unix_micros, v7_millis};
use crate::{from_pg, to_pg};

/// A shift as its three fields (months, days, microseconds), which `timestamptz + interval` applies apart.
type Shift = (i32, i32, i64);

thread_local! {
    /// This backend's `v7(shift)` state: the last shift and `unix_ms << 16 | counter`, a series apart from
    /// `v7()`'s, so that a shifted value never moves the cluster-wide sequence off the clock. Another shift
    /// starts the series again.
    static SHIFTED: Cell<(Shift, u64)> = const { Cell::new(((0, 0, 0), 0)) };
}

/// The next `(unix_ms << 16) | counter` after `last` for millisecond `ms`: one more than the last if that is not
/// behind `ms` (an overflow carries into the millisecond), else `ms` with the 15-bit `seed`.
fn next_state(last: u64, ms: u64, seed: u64) -> u64 {
    let target = ms << 16;
    if last >= target {
        last + 1
    } else {
        target | (seed & 0x7FFF)
    }
}

/// A v7 UUID for now shifted by `shift` (`clock_timestamp() + shift`, calendar arithmetic in the session's time
/// zone, as PostgreSQL 18's `uuidv7(interval)`): increasing within the session while the shift stays the same,
/// in a series of its own (not `v7()`'s).
#[pg_extern(name = "v7", volatile, strict, parallel_restricted)]
fn v7_shifted(shift: Interval) -> pgrx::Uuid {
    let now = pgrx::datetime::clock_timestamp();
    // SAFETY: timestamptz_pl_interval takes a timestamptz and an interval, both given, and returns a timestamptz
    // or raises an error (a result past PostgreSQL's range).
    let at: Option<TimestampWithTimeZone> = unsafe {
        pgrx::direct_function_call(
            pg_sys::timestamptz_pl_interval,
            &[now.into_datum(), shift.into_datum()],
        )
    };
    let ms = v7_millis(at.expect("timestamptz + interval is not NULL"), false);
    let random = Uuid::new_v4().as_u128();
    // The v4's top 15 bits and its low 58 bits are random (its version and variant are in between).
    let key = (shift.months(), shift.days(), shift.micros());
    let state = SHIFTED.with(|s| {
        let (last_key, last) = s.get();
        let next = next_state(
            if last_key == key { last } else { 0 },
            ms,
            (random >> 113) as u64,
        );
        s.set((key, next));
        next
    });
    let rand_b = ((state & 0xF) << 58) | (random as u64 & ((1 << 58) - 1));
    to_pg(Uuid::new_v7_from_parts(
        state >> 16,
        (state >> 4) as u16,
        rand_b,
    ))
}

/// The version field of an RFC 9562 UUID, 0 to 15 (as PostgreSQL 18's `uuid_extract_version`); `NULL` for the
/// other variants (NCS, Microsoft, future), whose field means something else.
#[pg_extern(immutable, strict, parallel_safe)]
fn extract_version(id: pgrx::Uuid) -> Option<i16> {
    let u = from_pg(id);
    matches!(u.variant(), Variant::Rfc9562).then(|| i16::from(u.version_nibble()))
}

/// `extract_timestamp(id)`; with `sub_millisecond`, a v7's `rand_a` read as PostgreSQL 18's fraction of the
/// millisecond (see the module docs).
#[pg_extern(name = "extract_timestamp", immutable, strict, parallel_safe)]
fn extract_timestamp_sub_ms(
    id: pgrx::Uuid,
    sub_millisecond: bool,
) -> Option<TimestampWithTimeZone> {
    let u = from_pg(id);
    match (sub_millisecond, u.unix_ts_ms(), u.rand_a()) {
        (true, Some(ms), Some(fraction)) => {
            let first_ns = (u64::from(fraction) * 15_625).div_ceil(64);
            from_unix_micros(i64::try_from(ms * 1000 + first_ns / 1000).ok()?)
        }
        _ => crate::time::extract_timestamp(id),
    }
}

/// The 16 bytes of a UUID, in order.
#[pg_extern(immutable, strict, parallel_safe)]
fn to_bytea(id: pgrx::Uuid) -> Vec<u8> {
    id.as_bytes().to_vec()
}

/// The UUID of 16 bytes; any other length is an error (22023).
#[pg_extern(immutable, strict, parallel_safe)]
fn from_bytea(bytes: &[u8]) -> pgrx::Uuid {
    match <[u8; 16]>::try_from(bytes) {
        Ok(b) => to_pg(Uuid::from_bytes(b)),
        Err(_) => bad_value(format!("a UUID has 16 bytes, got {}", bytes.len())),
    }
}
