//! Every RFC 9562 test vector through SQL: the name-based versions, v1 ↔ v6,
//! and the timestamps of v1, v6 and v7 (Appendices A and B).

use uuidkit::Uuid;
use uuidkit_pg_tests::{Scope, Server, scalar, sql_error};

const A1_V1: &str = "c232ab00-9414-11ec-b3c8-9f6bdeced846";
const A2_V3: &str = "5df41881-3aed-3515-88a7-2f4a814cf09e";
const A3_V4: &str = "919108f7-52d1-4320-9bac-f847db4148a8";
const A4_V5: &str = "2ed6657d-e927-568b-95e1-2665a8aea6a2";
const A5_V6: &str = "1ec9414c-232a-6b00-b3c8-9f6bdeced846";
const A6_V7: &str = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
const B1_V8: &str = "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0";
const B2_V8: &str = "5c146b14-3c52-8afd-938a-375d0df1fbf6";
/// 2022-02-22T19:22:22Z, the time of the A.1, A.5 and A.6 examples.
const EXAMPLE_TIME: &str = "2022-02-22 19:22:22+00";

fn text(c: &mut uuidkit_pg_tests::postgres::Client, sql: &str) -> String {
    scalar::<Option<String>>(c, sql).unwrap_or_else(|| "NULL".to_string())
}

#[test]
fn name_based_vectors_a2_a4_b2() {
    let name = "name_based_vectors_a2_a4_b2";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    let dns = "'6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid";
    for (f, want) in [("v3", A2_V3), ("v5", A4_V5), ("v8_sha256", B2_V8)] {
        let sql = format!("SELECT uuidkit.{f}({dns}, 'www.example.com')::text");
        assert_eq!(text(&mut c, &sql), want, "{sql}");
        let sql = format!("SELECT uuidkit.{f}(uuidkit.namespace('dns'), 'www.example.com')::text");
        assert_eq!(text(&mut c, &sql), want, "{sql}");
    }
    for (ns, want) in [
        ("DNS", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
        ("url", "6ba7b811-9dad-11d1-80b4-00c04fd430c8"),
        ("oid", "6ba7b812-9dad-11d1-80b4-00c04fd430c8"),
        ("x500", "6ba7b814-9dad-11d1-80b4-00c04fd430c8"),
    ] {
        assert_eq!(
            text(&mut c, &format!("SELECT uuidkit.namespace('{ns}')::text")),
            want
        );
    }
    // Names are their UTF-8 bytes, as the library takes them.
    let got: Uuid = scalar(&mut c, &format!("SELECT uuidkit.v5({dns}, 'grüße')"));
    let ns = uuidkit::namespace::DNS;
    assert_eq!(got, Uuid::new_v5(&ns, "grüße".as_bytes()));
    // STRICT: a NULL argument gives NULL, not an error.
    assert_eq!(text(&mut c, "SELECT uuidkit.v5(NULL, 'x')::text"), "NULL");
    assert_eq!(
        text(&mut c, &format!("SELECT uuidkit.v3({dns}, NULL)::text")),
        "NULL"
    );
    let (code, msg) = sql_error(&mut c, "SELECT uuidkit.namespace('isbn')");
    assert_eq!(code, "22023");
    assert_eq!(
        msg,
        "unknown namespace \"isbn\": expected dns, url, oid or x500"
    );
}

#[test]
fn v1_and_v6_convert_both_ways_a1_a5() {
    let name = "v1_and_v6_convert_both_ways_a1_a5";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    let sql = |f: &str, u: &str| format!("SELECT uuidkit.{f}('{u}')::text");
    assert_eq!(text(&mut c, &sql("v1_to_v6", A1_V1)), A5_V6);
    assert_eq!(text(&mut c, &sql("v6_to_v1", A5_V6)), A1_V1);
    // Each is the identity on its own target version.
    assert_eq!(text(&mut c, &sql("v1_to_v6", A5_V6)), A5_V6);
    assert_eq!(text(&mut c, &sql("v6_to_v1", A1_V1)), A1_V1);
    // Any other version is an error naming what it is.
    for (f, u, what) in [
        ("v1_to_v6", A3_V4, "version 4"),
        ("v6_to_v1", A6_V7, "version 7"),
        (
            "v1_to_v6",
            "00000000-0000-0000-0000-000000000000",
            "no version (the NCS variant, version field 0)",
        ),
        (
            "v6_to_v1",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "no version (the future variant, version field 15)",
        ),
    ] {
        let (code, msg) = sql_error(&mut c, &sql(f, u));
        assert_eq!(code, "22023", "{f}({u})");
        let want = if f == "v1_to_v6" { "1 or 6" } else { "6 or 1" };
        assert_eq!(
            msg,
            format!("expected a version {want} UUID, found {what} ({u})")
        );
    }
    // A sweep: the SQL conversion is the library's.
    for i in 0..200u64 {
        let v1 = Uuid::new_v1_from_parts(
            i * 0x1234_5678_9ABC + 0x1_0000_0000,
            (i as u16) & 0x3FFF,
            [i as u8; 6],
        );
        let got: Uuid = scalar(&mut c, &format!("SELECT uuidkit.v1_to_v6('{v1}')"));
        assert_eq!(Some(got), v1.to_v6());
        let back: Uuid = scalar(&mut c, &format!("SELECT uuidkit.v6_to_v1('{got}')"));
        assert_eq!(back, v1);
    }
}

#[test]
fn timestamps_of_a1_a5_a6_and_none_for_the_others() {
    let name = "timestamps_of_a1_a5_a6_and_none_for_the_others";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    c.batch_execute("SET TimeZone = 'UTC'").unwrap();
    let ts =
        |c: &mut _, u: &str| text(c, &format!("SELECT uuidkit.extract_timestamp('{u}')::text"));
    for u in [A1_V1, A5_V6, A6_V7] {
        assert_eq!(ts(&mut c, u), EXAMPLE_TIME, "{u}");
    }
    for u in [
        A2_V3,
        A3_V4,
        A4_V5,
        B1_V8,
        B2_V8,
        "00000000-0000-0000-0000-000000000000",
    ] {
        assert_eq!(ts(&mut c, u), "NULL", "{u}");
    }
    // v1/v6 count 100 ns: the time is truncated to PostgreSQL's microsecond,
    // also before 1970 (down, not toward zero).
    let v1 = Uuid::new_v1_from_parts(0x1EC9414C232AB00 + 19, 0, [0; 6]);
    assert_eq!(ts(&mut c, &v1.to_string()), "2022-02-22 19:22:22.000001+00");
    let pre = Uuid::new_v6_from_parts(0x01B21DD213814000 - 1, 0, [0; 6]);
    assert_eq!(
        ts(&mut c, &pre.to_string()),
        "1969-12-31 23:59:59.999999+00"
    );
    // The Gregorian epoch and the ends of both layouts.
    let first = Uuid::new_v1_from_parts(0, 0, [0; 6]);
    assert_eq!(ts(&mut c, &first.to_string()), "1582-10-15 00:00:00+00");
    let last_v6 = Uuid::new_v6_from_parts(uuidkit::layout::MAX_GREGORIAN_TIMESTAMP, 0, [0; 6]);
    assert_eq!(
        ts(&mut c, &last_v6.to_string()),
        "5236-03-31 21:21:00.684697+00"
    );
    assert_eq!(
        ts(
            &mut c,
            &Uuid::v7_max(uuidkit::layout::MAX_UNIX_TS_MS).to_string()
        ),
        "10889-08-02 05:31:50.655+00"
    );
    // Every sampled time agrees with the library's `unix_nanos`.
    for ms in [0u64, 1, 999, 1_000, 1_645_557_742_000, 253_402_300_799_999] {
        let u = Uuid::v7_min(ms);
        let us: i64 = scalar(
            &mut c,
            &format!(
                "SELECT (extract(epoch FROM uuidkit.extract_timestamp('{u}')) * 1000000)::bigint"
            ),
        );
        assert_eq!(i128::from(us) * 1000, u.unix_nanos().unwrap(), "{u}");
    }
}
