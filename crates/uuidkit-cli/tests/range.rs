//! `uuidkit range START END`: v7 bounds for range queries.

use crate::util::*;

#[test]
fn a6_millisecond_bounds() {
    let out = ok(&["range", "2022-02-22T19:22:22Z", "2022-02-22T19:22:22Z"]);
    assert_eq!(
        out,
        "017f22e2-79b0-7000-8000-000000000000\n017f22e2-79b0-7fff-bfff-ffffffffffff\n"
    );
    // A.6 lies inside.
    let ls = lines(&out);
    let a6 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
    assert!(ls[0] < a6 && a6 < ls[1]);
}

#[test]
fn time_forms_and_rounding() {
    let want = ok(&["range", "@1645557742000", "@1645557742999"]);
    assert_eq!(
        ok(&[
            "range",
            "2022-02-22T14:22:22-05:00",
            "2022-02-22T19:22:22.999Z"
        ]),
        want
    );
    // START rounds up to the next whole millisecond, END down.
    assert_eq!(
        ok(&["range", "2022-02-22T19:22:21.9995Z", "@1645557742999.9"]),
        want
    );
    let day = ok(&["range", "2024-01-01", "2024-01-01"]);
    assert_eq!(lines(&day)[0], "018cc251-f400-7000-8000-000000000000");
    assert_eq!(
        ok(&["range", "-U", "-f", "simple", "@0", "@0"]),
        "00000000000070008000000000000000\n0000000000007FFFBFFFFFFFFFFFFFFF\n"
    );
}

#[test]
fn generated_v7_falls_inside_its_range() {
    let u = ok(&["new", "v7", "--at", "2023-06-01T12:00:00.5Z"]);
    let out = ok(&["range", "2023-06-01T12:00:00Z", "2023-06-01T12:00:01Z"]);
    let ls = lines(&out);
    assert!(ls[0] <= u.trim() && u.trim() <= ls[1]);
    let out = ok(&["range", "2023-06-01T12:00:00.501Z", "2023-06-01T12:00:01Z"]);
    assert!(u.trim() < lines(&out)[0]);
}

#[test]
fn bad_ranges_are_usage_errors() {
    let e = fails(&["range", "2024-01-02", "2024-01-01"], 2);
    assert_contains!(e, "is after END");
    let e = fails(&["range", "@1.1", "@1.2"], 2);
    assert_contains!(e, "no whole millisecond lies in");
    let e = fails(&["range", "1969-01-01", "2024-01-01"], 2);
    assert_contains!(
        e,
        "invalid START: time 1969-01-01T00:00:00.000Z is out of range for v7"
    );
    let e = fails(&["range", "2024-01-01", "soon"], 2);
    assert_contains!(e, "invalid value 'soon' for '<END>'");
    let e = fails(&["range", "2024-01-01"], 2);
    assert_contains!(e, "<END>");
}

#[test]
fn typeid_bounds_carry_the_prefix() {
    let hex = ok(&["range", "@1645557742000", "@1645557742000"]);
    let out = ok(&[
        "range",
        "-f",
        "typeid",
        "--prefix",
        "event",
        "@1645557742000",
        "@1645557742000",
    ]);
    let ls = lines(&out);
    assert_eq!(ls.len(), 2);
    for (typeid, uuid) in ls.iter().zip(lines(&hex)) {
        let suffix = typeid.strip_prefix("event_").expect(typeid);
        let back = ok(&["convert", "--from", "base32", suffix]);
        assert_eq!(back.trim(), uuid);
    }
    // Without --prefix a TypeID has none; --prefix needs -f typeid and a valid prefix.
    let bare = ok(&["range", "-f", "typeid", "@0", "@0"]);
    assert!(!bare.contains('_'), "{bare}");
    assert_eq!(bare.len(), 2 * 27);
    let e = fails(&["range", "--prefix", "event", "@0", "@0"], 2);
    assert_contains!(e, "--prefix applies to -f typeid only");
    let e = fails(
        &["range", "-f", "typeid", "--prefix", "Event", "@0", "@0"],
        2,
    );
    assert_contains!(e, "invalid TypeID prefix character 'E' at position 0");
}
