//! `v7(shift interval)`, `extract_version`, the sub-millisecond `extract_timestamp` against PostgreSQL 18's
//! `uuidv7()` arithmetic, `uuid` ↔ `bytea`, and the recipe for range partitioning by v7 key
//! (docs/postgres-extension.md): rows routed to their month, and the other months pruned from the plan.

use uuidkit::Uuid;
use uuidkit_pg_tests::postgres::Client;
use uuidkit_pg_tests::{Scope, Server, scalar, sql_error};

/// PostgreSQL 18's `generate_uuidv7(ns)`: 48-bit milliseconds, then the 12-bit fraction
/// `((ns % 10^6) * 4096) / 10^6` in `rand_a`, then `random` bytes with the version and variant set.
fn pg18_uuidv7(ns: i64, random: u64) -> Uuid {
    let ms = (ns / 1_000_000) as u128;
    let fraction = (((ns % 1_000_000) * 4096) / 1_000_000) as u128;
    Uuid::from_u128(
        (ms << 80)
            | (0x7 << 76)
            | (fraction << 64)
            | (u128::from(random) & ((1 << 62) - 1))
            | (1 << 63),
    )
}

/// `a / b` rounded up, for `a >= 0`, `b > 0`.
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

#[test]
fn sub_millisecond_timestamps_read_postgresql_18s_fraction() {
    let name = "sub_millisecond_timestamps_read_postgresql_18s_fraction";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    // Every fraction at both ends of its nanoseconds, and nanoseconds around microsecond edges, in three
    // milliseconds (the epoch, 2025, the last of PostgreSQL 18's 64-bit nanoseconds, in 2262).
    let mut cases = Vec::new();
    for base_ms in [0i64, 1_750_000_000_123, i64::MAX / 1_000_000 - 1] {
        for f in 0..4096i64 {
            let first = ceil_div(f * 1_000_000, 4096);
            let last = ceil_div((f + 1) * 1_000_000, 4096) - 1;
            cases.push(base_ms * 1_000_000 + first);
            cases.push(base_ms * 1_000_000 + last);
        }
        for us in [0i64, 1, 243, 244, 999] {
            for d in [-1i64, 0, 1] {
                cases.push(base_ms * 1_000_000 + (us * 1000 + d).clamp(0, 999_999));
            }
        }
    }
    let ids: Vec<Uuid> = cases
        .iter()
        .enumerate()
        .map(|(i, &ns)| pg18_uuidv7(ns, (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .collect();
    let rows = c
        .query(
            "SELECT (extract(epoch FROM uuidkit.extract_timestamp(id, true)) * 1000000)::int8, \
             (extract(epoch FROM uuidkit.extract_timestamp(id, false)) * 1000000)::int8, \
             (extract(epoch FROM uuidkit.extract_timestamp(id)) * 1000000)::int8 FROM unnest($1::uuid[]) AS id",
            &[&ids],
        )
        .unwrap();
    assert_eq!(rows.len(), cases.len());
    for ((ns, id), row) in cases.iter().zip(&ids).zip(&rows) {
        let (precise, plain, one_arg): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
        let fraction = i64::from(id.rand_a().unwrap());
        // The first nanosecond that writes this fraction, in microseconds.
        let want = ns / 1_000_000 * 1000 + ceil_div(fraction * 1_000_000, 4096) / 1000;
        assert_eq!(precise, want, "{id} from {ns} ns");
        // The true time is that microsecond or the next.
        assert!(
            ns / 1000 == precise || ns / 1000 == precise + 1,
            "{id}: {ns} ns, read {precise} µs"
        );
        assert_eq!(
            (plain, one_arg),
            (ns / 1_000_000 * 1000, ns / 1_000_000 * 1000)
        );
    }
    // Other versions: as without the flag.
    for id in [
        "c232ab00-9414-11ec-b3c8-9f6bdeced846",
        "1ec9414c-232a-6b00-b3c8-9f6bdeced846",
        "919108f7-52d1-4320-9bac-f847db4148a8",
        "017f22e2-79b0-7cc3-18c4-dc0c0c07398f",
    ] {
        let same: bool = scalar(
            &mut c,
            &format!(
                "SELECT uuidkit.extract_timestamp('{id}', true) IS NOT DISTINCT FROM uuidkit.extract_timestamp('{id}')"
            ),
        );
        assert!(same, "{id}");
    }
}

fn many(c: &mut Client, expr: &str, n: i64) -> Vec<Uuid> {
    scalar(
        c,
        &format!("SELECT array_agg({expr} ORDER BY g) FROM generate_series(1, {n}) AS g"),
    )
}

#[test]
fn v7_with_a_shift_is_now_plus_the_interval_and_increases() {
    let name = "v7_with_a_shift_is_now_plus_the_interval_and_increases";
    let Some(server) = Server::for_test(name, Scope::Cluster) else {
        return;
    };
    let mut c = server.client();
    for (shift, expected) in [
        ("0", "clock_timestamp()"),
        ("-1 day", "clock_timestamp() - interval '1 day'"),
        (
            "1 month 2 hours",
            "clock_timestamp() + interval '1 month 2 hours'",
        ),
        ("-50 years", "clock_timestamp() - interval '50 years'"),
    ] {
        let want: i64 = scalar(
            &mut c,
            &format!("SELECT (extract(epoch FROM {expected}) * 1000)::int8"),
        );
        let values = many(&mut c, &format!("uuidkit.v7(interval '{shift}')"), 5000);
        assert!(
            values.windows(2).all(|w| w[0] < w[1]),
            "{shift}: not increasing"
        );
        for u in &values {
            let ms = u
                .unix_ts_ms()
                .unwrap_or_else(|| panic!("{shift}: {u} is not a v7")) as i64;
            assert!(
                (ms - want).abs() < 60_000,
                "{shift}: {u} is {ms}, expected about {want}"
            );
        }
    }
    // A shift before 1970 is the v7 range error.
    let (code, message) = sql_error(&mut c, "SELECT uuidkit.v7(interval '-100 years')");
    assert_eq!(code, "22008");
    assert!(message.contains("before its first timestamp"), "{message}");
    // The shifted series does not move v7()'s: v7() stays at the clock after a far-future shift.
    let _ = many(&mut c, "uuidkit.v7(interval '1000 years')", 100);
    let now: Uuid = scalar(&mut c, "SELECT uuidkit.v7()");
    let clock: i64 = scalar(
        &mut c,
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8",
    );
    assert!((now.unix_ts_ms().unwrap() as i64 - clock).abs() < 60_000);
}

#[test]
fn extract_version_and_bytea_conversions() {
    let name = "extract_version_and_bytea_conversions";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    for (id, version) in [
        ("00000000-0000-0000-0000-000000000000", None),
        ("ffffffff-ffff-ffff-ffff-ffffffffffff", None),
        ("919108f7-52d1-4320-9bac-f847db4148a8", Some(4)),
        ("017f22e2-79b0-7cc3-98c4-dc0c0c07398f", Some(7)),
        ("00000000-0000-0000-8000-000000000000", Some(0)),
        ("00000000-0000-f000-bfff-000000000000", Some(15)),
        ("919108f7-52d1-4320-cbac-f847db4148a8", None),
        ("919108f7-52d1-4320-1bac-f847db4148a8", None),
    ] {
        let got: Option<i16> = scalar(&mut c, &format!("SELECT uuidkit.extract_version('{id}')"));
        assert_eq!(got, version, "{id}");
    }
    let id = "01890a5d-ac96-774b-bcce-b302099a8057";
    let bytes: Vec<u8> = scalar(&mut c, &format!("SELECT uuidkit.to_bytea('{id}')"));
    assert_eq!(bytes, Uuid::parse_str(id).unwrap().as_bytes());
    let back: Uuid = scalar(
        &mut c,
        &format!("SELECT uuidkit.from_bytea(uuidkit.to_bytea('{id}'))"),
    );
    assert_eq!(back.to_string(), id);
    for (bytes, n) in [
        ("''", 0),
        ("'\\x00'", 1),
        ("'\\x000102030405060708090a0b0c0d0e0f10'", 17),
    ] {
        let (code, message) = sql_error(&mut c, &format!("SELECT uuidkit.from_bytea({bytes})"));
        assert_eq!(
            (code.as_str(), message),
            ("22023", format!("a UUID has 16 bytes, got {n}"))
        );
    }
}

/// The recipe of docs/postgres-extension.md, "Partitioning by v7 key".
const RECIPE: &str = "
CREATE TABLE events (id uuid NOT NULL DEFAULT uuidkit.v7(), body text, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE events_2026_01 PARTITION OF events
    FOR VALUES FROM (uuidkit.v7_lower('2026-01-01 00:00+00')) TO (uuidkit.v7_lower('2026-02-01 00:00+00'));
CREATE TABLE events_2026_02 PARTITION OF events
    FOR VALUES FROM (uuidkit.v7_lower('2026-02-01 00:00+00')) TO (uuidkit.v7_lower('2026-03-01 00:00+00'));
CREATE TABLE events_2026_03 PARTITION OF events
    FOR VALUES FROM (uuidkit.v7_lower('2026-03-01 00:00+00')) TO (uuidkit.v7_lower('2026-04-01 00:00+00'));
CREATE TABLE events_other PARTITION OF events DEFAULT;
";

#[test]
fn range_partitions_by_v7_key_route_rows_and_are_pruned() {
    let name = "range_partitions_by_v7_key_route_rows_and_are_pruned";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    c.batch_execute(RECIPE).unwrap();
    // Rows at every month's first and last microsecond and in between, plus keys of no month.
    c.batch_execute(
        "INSERT INTO events (id, body)
         SELECT uuidkit.v7(t), t::text FROM unnest(ARRAY[
             '2026-01-01 00:00:00+00', '2026-01-17 12:00:00+00', '2026-01-31 23:59:59.999999+00',
             '2026-02-01 00:00:00+00', '2026-02-14 08:30:00.5+00', '2026-02-28 23:59:59.999+00',
             '2026-03-01 00:00:00+00', '2026-03-31 23:59:59.999999+00',
             '2025-12-31 23:59:59.999+00', '2026-04-01 00:00:00+00']::timestamptz[]) AS t;
         INSERT INTO events (body) VALUES ('now');
         INSERT INTO events (id, body) VALUES (uuidkit.v4(), 'v4'), ('00000000-0000-0000-0000-000000000000', 'nil');",
    )
    .unwrap();
    let rows = c
        .query(
            "SELECT tableoid::regclass::text, body, to_char(uuidkit.extract_timestamp(id) AT TIME ZONE 'UTC', 'YYYY_MM') \
             FROM events ORDER BY id",
            &[],
        )
        .unwrap();
    assert_eq!(rows.len(), 13);
    for row in &rows {
        let (partition, body, month): (String, String, Option<String>) =
            (row.get(0), row.get(1), row.get(2));
        let want = match month.as_deref() {
            Some(m @ ("2026_01" | "2026_02" | "2026_03")) => format!("events_{m}"),
            _ => "events_other".to_string(),
        };
        assert_eq!(partition, want, "{body}");
    }
    // A window inside February: the planner keeps February's partition alone.
    let plan = |c: &mut Client, sql: &str| -> String {
        c.query(&format!("EXPLAIN (COSTS OFF) {sql}"), &[])
            .unwrap()
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let feb = plan(
        &mut c,
        "SELECT * FROM events WHERE id BETWEEN uuidkit.v7_lower('2026-02-10 00:00+00') \
         AND uuidkit.v7_upper('2026-02-20 23:59:59.999+00')",
    );
    println!("{feb}");
    assert!(feb.contains("events_2026_02"), "{feb}");
    for other in ["events_2026_01", "events_2026_03", "events_other"] {
        assert!(!feb.contains(other), "{other} not pruned:\n{feb}");
    }
    let n: i64 = scalar(
        &mut c,
        "SELECT count(*) FROM events WHERE id BETWEEN uuidkit.v7_lower('2026-02-01 00:00+00') \
         AND uuidkit.v7_upper('2026-02-28 23:59:59.999999+00')",
    );
    assert_eq!(n, 3);
    // A window across a month's end: those two months, nothing else.
    let span = plan(
        &mut c,
        "SELECT * FROM events WHERE id >= uuidkit.v7_lower('2026-01-31 00:00+00') \
         AND id < uuidkit.v7_lower('2026-02-02 00:00+00')",
    );
    assert!(
        span.contains("events_2026_01") && span.contains("events_2026_02"),
        "{span}"
    );
    assert!(
        !span.contains("events_2026_03") && !span.contains("events_other"),
        "{span}"
    );
}

/// Times from 294247 AD to PostgreSQL's last (294276 AD) are past `i64::MAX` microseconds since 1970: they are
/// after v7's range, and the error says so.
#[test]
fn times_past_i64_microseconds_since_1970_are_after_v7s_range() {
    let name = "times_past_i64_microseconds_since_1970_are_after_v7s_range";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    for at in [
        "294276-12-31 23:59:59.999999+00",
        "294247-01-10 04:00:54.775808+00",
    ] {
        for f in ["v7_lower", "v7_upper", "v7"] {
            let (code, message) =
                sql_error(&mut c, &format!("SELECT uuidkit.{f}(timestamptz '{at}')"));
            assert_eq!(code, "22008", "{f}({at})");
            assert!(
                message.contains("after its last timestamp"),
                "{f}({at}): {message}"
            );
        }
    }
}
