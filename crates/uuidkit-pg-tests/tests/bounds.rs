//! `v7_lower`/`v7_upper`: inclusive bounds of a time window that select
//! exactly the v7 rows of its milliseconds, as the CLI's `range` does, and
//! that the planner folds into an index range.

use uuidkit::Uuid;
use uuidkit_pg_tests::{Scope, Server, scalar, sql_error};

/// 2022-02-22T19:22:22Z in Unix milliseconds.
const T: u64 = 1_645_557_742_000;

#[test]
fn bounds_select_exactly_the_rows_of_the_edge_milliseconds() {
    let name = "bounds_select_exactly_the_rows_of_the_edge_milliseconds";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    c.batch_execute(
        "SET TimeZone = 'UTC'; CREATE TABLE t (id uuid PRIMARY KEY, ms bigint NOT NULL)",
    )
    .unwrap();
    // For each millisecond from T-2 to T+3: its smallest and largest v7, and
    // one from the generator at that time.
    for ms in T - 2..=T + 3 {
        for u in [Uuid::v7_min(ms), Uuid::v7_max(ms)] {
            c.execute("INSERT INTO t VALUES ($1, $2)", &[&u, &(ms as i64)])
                .unwrap();
        }
        let at = format!("timestamptz 'epoch' + interval '{ms} milliseconds'");
        c.batch_execute(&format!("INSERT INTO t SELECT uuidkit.v7({at}), {ms}"))
            .unwrap();
    }
    // A window and the milliseconds it must select: the start rounds up, the
    // end rounds down, both inclusive.
    for (start, end, first, last) in [
        ("19:22:22", "19:22:22", T, T),
        ("19:22:22", "19:22:22.001", T, T + 1),
        ("19:22:21.999", "19:22:22.002", T - 1, T + 2),
        ("19:22:21.9985", "19:22:22.0015", T - 1, T + 1),
        ("19:22:21.998001", "19:22:22.000999", T - 1, T),
    ] {
        let sql = format!(
            "SELECT min(ms), max(ms), count(*) FROM t WHERE id BETWEEN \
             uuidkit.v7_lower('2022-02-22 {start}+00') AND uuidkit.v7_upper('2022-02-22 {end}+00')"
        );
        let row = c.query_one(&sql, &[]).unwrap();
        let got = (
            row.get::<_, i64>(0),
            row.get::<_, i64>(1),
            row.get::<_, i64>(2),
        );
        let want = (first as i64, last as i64, 3 * (last - first + 1) as i64);
        assert_eq!(got, want, "[{start}, {end}]");
    }
    // The bounds are the library's, and the CLI's `range` lines.
    let lower: Uuid = scalar(
        &mut c,
        "SELECT uuidkit.v7_lower('2022-02-22 19:22:21.9995+00')",
    );
    let upper: Uuid = scalar(
        &mut c,
        "SELECT uuidkit.v7_upper('2022-02-22 19:22:22.0005+00')",
    );
    assert_eq!((lower, upper), (Uuid::v7_min(T), Uuid::v7_max(T)));
    assert_eq!(lower.to_string(), "017f22e2-79b0-7000-8000-000000000000");
    assert_eq!(upper.to_string(), "017f22e2-79b0-7fff-bfff-ffffffffffff");
}

#[test]
fn constant_bounds_fold_into_a_primary_key_range_scan() {
    let name = "constant_bounds_fold_into_a_primary_key_range_scan";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    c.batch_execute(
        "CREATE TABLE t (id uuid PRIMARY KEY DEFAULT uuidkit.v7(), n int);
         INSERT INTO t (n) SELECT g FROM generate_series(1, 20000) g;
         ANALYZE t;",
    )
    .unwrap();
    let plan: Vec<String> = c
        .query(
            "EXPLAIN (COSTS OFF) SELECT * FROM t WHERE id BETWEEN \
             uuidkit.v7_lower('2022-02-22 19:22:22+00') AND uuidkit.v7_upper('2022-02-22 19:22:23+00')",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let plan = plan.join("\n");
    assert!(plan.contains("Index Scan using t_pkey on t"), "{plan}");
    assert!(
        plan.contains(
            "Index Cond: ((id >= '017f22e2-79b0-7000-8000-000000000000'::uuid) AND \
             (id <= '017f22e2-7d98-7fff-bfff-ffffffffffff'::uuid))"
        ),
        "{plan}"
    );
    // Every row of the table was made now: the last minute holds all of them.
    let n: i64 = scalar(
        &mut c,
        "SELECT count(*) FROM t WHERE id BETWEEN uuidkit.v7_lower(now() - interval '1 minute') \
         AND uuidkit.v7_upper(clock_timestamp())",
    );
    assert_eq!(n, 20000);
}

#[test]
fn bounds_outside_v7_time_are_errors() {
    let name = "bounds_outside_v7_time_are_errors";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    c.batch_execute("SET TimeZone = 'UTC'").unwrap();
    let range = "expected 1970-01-01 00:00:00+00 to 10889-08-02 05:31:50.655999+00";
    for (f, at, side) in [
        (
            "v7_lower",
            "1969-12-31 23:59:59.999+00",
            "before its first timestamp",
        ),
        (
            "v7_upper",
            "1969-12-31 23:59:59.999999+00",
            "before its first timestamp",
        ),
        (
            "v7_lower",
            "10889-08-02 05:31:50.655001+00",
            "after its last timestamp",
        ),
        (
            "v7_upper",
            "10889-08-02 05:31:50.656+00",
            "after its last timestamp",
        ),
    ] {
        let (code, msg) = sql_error(&mut c, &format!("SELECT uuidkit.{f}('{at}')"));
        assert_eq!(code, "22008", "{f}({at})");
        assert_eq!(
            msg,
            format!("time {at} is out of range for v7: it is {side}; {range}")
        );
    }
    // The first and last milliseconds themselves are fine; rounding inward
    // from just outside is too.
    let lo: Uuid = scalar(
        &mut c,
        "SELECT uuidkit.v7_lower('1969-12-31 23:59:59.9995+00')",
    );
    assert_eq!(lo, Uuid::v7_min(0));
    let hi: Uuid = scalar(
        &mut c,
        "SELECT uuidkit.v7_upper('10889-08-02 05:31:50.655999+00')",
    );
    assert_eq!(hi, Uuid::v7_max(uuidkit::layout::MAX_UNIX_TS_MS));
    let (code, _) = sql_error(&mut c, "SELECT uuidkit.v7_upper('infinity')");
    assert_eq!(code, "22008");
}
