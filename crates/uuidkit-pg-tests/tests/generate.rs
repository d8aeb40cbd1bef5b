//! Generation through SQL: v7 (now and at a given time), v4 and v6 have
//! their version, variant and time, and a session's time-based values
//! increase.

use std::collections::HashSet;

use uuidkit::{Uuid, Variant, Version};
use uuidkit_pg_tests::postgres::Client;
use uuidkit_pg_tests::{Scope, Server, scalar, sql_error};

/// `n` values of `expr` from one statement.
fn many(c: &mut Client, expr: &str, n: u32) -> Vec<Uuid> {
    let sql = format!("SELECT {expr} FROM generate_series(1, {n})");
    c.query(&sql, &[])
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .iter()
        .map(|r| r.get(0))
        .collect()
}

fn assert_kind(values: &[Uuid], version: Version) {
    for u in values {
        assert_eq!(u.version(), Some(version), "{u}");
        assert_eq!(u.variant(), Variant::Rfc9562, "{u}");
    }
    let distinct: HashSet<&Uuid> = values.iter().collect();
    assert_eq!(distinct.len(), values.len(), "a {version:?} value repeated");
}

/// The server's clock, in Unix milliseconds.
fn now_ms(c: &mut Client) -> u64 {
    let ms: i64 = scalar(
        c,
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
    );
    ms as u64
}

#[test]
fn v7_v4_v6_now_have_their_version_time_and_session_order() {
    let name = "v7_v4_v6_now_have_their_version_time_and_session_order";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    let before = now_ms(&mut c);
    let v7 = many(&mut c, "uuidkit.v7()", 5000);
    let v6 = many(&mut c, "uuidkit.v6()", 5000);
    let after = now_ms(&mut c);
    assert_kind(&v7, Version::SortRand);
    assert_kind(&v6, Version::SortMac);
    assert_kind(&many(&mut c, "uuidkit.v4()", 5000), Version::Random);
    assert!(
        v7.windows(2).all(|w| w[0] < w[1]),
        "v7 increases within a session"
    );
    assert!(
        v6.windows(2).all(|w| w[0] < w[1]),
        "v6 increases within a session"
    );
    // The time is the server's clock (5000 in one millisecond would carry the
    // counter into the next, so allow one millisecond per 2^15 values).
    let ms = |u: &Uuid| u.unix_nanos().unwrap().div_euclid(1_000_000) as u64;
    assert!(
        before <= ms(&v7[0]) && ms(&v7[4999]) <= after + 1,
        "{before}..{after}: {}",
        v7[0]
    );
    assert!(
        before <= ms(&v6[0]) + 1 && ms(&v6[4999]) <= after + 1,
        "{before}..{after}: {}",
        v6[0]
    );
    // Separate statements of one session continue the order.
    let next: Uuid = scalar(&mut c, "SELECT uuidkit.v7()");
    assert!(next > v7[4999]);
    // VOLATILE: a row each, even where the planner could fold a constant.
    let distinct: i64 = scalar(
        &mut c,
        "SELECT count(DISTINCT uuidkit.v4()) FROM generate_series(1, 100)",
    );
    assert_eq!(distinct, 100);
}

#[test]
fn v7_at_a_time_takes_its_millisecond_and_refuses_what_v7_cannot_hold() {
    let name = "v7_at_a_time_takes_its_millisecond_and_refuses_what_v7_cannot_hold";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    c.batch_execute("SET TimeZone = 'UTC'").unwrap();
    for (at, ms) in [
        ("2022-02-22 19:22:22+00", 1_645_557_742_000u64),
        ("2022-02-22 14:22:22.9999-05", 1_645_557_742_999),
        ("1970-01-01 00:00:00+00", 0),
        ("1970-01-01 00:00:00.000999+00", 0),
        (
            "10889-08-02 05:31:50.655999+00",
            uuidkit::layout::MAX_UNIX_TS_MS,
        ),
    ] {
        let values = many(&mut c, &format!("uuidkit.v7(timestamptz '{at}')"), 200);
        assert_kind(&values, Version::SortRand);
        for u in &values {
            assert_eq!(u.unix_ts_ms(), Some(ms), "{at}: {u}");
        }
    }
    let range = "expected 1970-01-01 00:00:00+00 to 10889-08-02 05:31:50.655999+00";
    for (at, side) in [
        (
            "1969-12-31 23:59:59.999999+00",
            "before its first timestamp",
        ),
        ("10889-08-02 05:31:50.656+00", "after its last timestamp"),
    ] {
        let (code, msg) = sql_error(&mut c, &format!("SELECT uuidkit.v7(timestamptz '{at}')"));
        assert_eq!(code, "22008", "{at}");
        assert_eq!(
            msg,
            format!("time {at} is out of range for v7: it is {side}; {range}")
        );
    }
    for at in ["infinity", "-infinity"] {
        let (code, msg) = sql_error(&mut c, &format!("SELECT uuidkit.v7('{at}'::timestamptz)"));
        assert_eq!(code, "22008");
        assert_eq!(
            msg,
            format!("time {at} is out of range for v7: expected a finite time")
        );
    }
    let null: Option<Uuid> = scalar(&mut c, "SELECT uuidkit.v7(NULL::timestamptz)");
    assert_eq!(null, None);
}
